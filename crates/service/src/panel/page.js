
(() => {
  "use strict";
  // ploy key panel. No framework, no HTML strings: every node is built with
  // createElement/textContent (the CSP requires Trusted Types).
  const TOKEN_KEY = "ploy.admin-token";
  const API = "/__keys/api/";
  const root = document.getElementById("ploy-keys");
  if (!root) {
    return;
  }
  // ADMIN-12: loading this script again aborts the earlier load's listeners
  // and rebuilds the one set of controls, so nothing is registered twice.
  const previous = window.__ployKeysPanel;
  if (previous && typeof previous.abort === "function") {
    previous.abort();
  }
  const registration = new AbortController();
  window.__ployKeysPanel = registration;
  const signal = registration.signal;

  // pending: {action: "remove"|"replace", mask, nonce} while a confirmation is open.
  const state = { keys: [], status: "", pending: null, busy: false };

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (name === "text") {
        node.textContent = value;
      } else {
        node.setAttribute(name, value);
      }
    }
    for (const child of children) {
      if (child) {
        node.append(child);
      }
    }
    return node;
  }

  function token() {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  function forget() {
    sessionStorage.removeItem(TOKEN_KEY);
    state.keys = [];
    state.pending = null;
  }

  async function call(path, body) {
    const headers = { Authorization: "Bearer " + token() };
    const init = {
      method: body === undefined ? "GET" : "POST",
      headers,
      cache: "no-store",
      credentials: "omit",
      redirect: "error",
      referrerPolicy: "no-referrer",
    };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(API + path, init);
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = null;
    }
    if (response.status === 401) {
      forget();
      throw new Error(
        "Refused: wrong admin token, or the panel is locked after 100 failed tokens " +
          "(rotate it with `ploy keys admin-token --rotate`, or restart ploy serve)."
      );
    }
    if (!response.ok) {
      const message = data && data.error && data.error.message;
      throw new Error(message || "HTTP " + response.status);
    }
    return data;
  }

  async function refresh() {
    const data = await call("keys");
    state.keys = Array.isArray(data.keys) ? data.keys : [];
  }

  // Runs one request sequence; `work` returns the status line to show.
  async function run(work) {
    state.busy = true;
    state.status = "Working…";
    render();
    try {
      state.status = (await work()) || "";
    } catch (error) {
      state.status = String(error && error.message ? error.message : error);
    }
    state.busy = false;
    render();
  }

  function when(seconds) {
    const date = new Date(Number(seconds) * 1000);
    return isNaN(date.getTime()) ? "?" : date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }

  function button(text, action, mask, kind) {
    const attributes = { type: kind || "button", "data-action": action, text };
    if (mask !== undefined) {
      attributes["data-mask"] = mask;
    }
    return el("button", attributes);
  }

  function keyRow(key) {
    const pending = state.pending && state.pending.mask === key.mask ? state.pending : null;
    let actions;
    if (pending && pending.action === "remove") {
      actions = el(
        "td",
        { class: "confirm" },
        el("span", { text: "Remove " + key.mask + "? " }),
        button("Confirm removal", "confirm-remove", key.mask),
        button("Cancel", "cancel", key.mask)
      );
    } else if (pending && pending.action === "replace") {
      actions = el(
        "td",
        { class: "confirm" },
        el(
          "form",
          { "data-form": "replace", "data-mask": key.mask },
          el("label", { for: "ploy-replace-key", text: "New key for " + key.mask }),
          el("input", {
            id: "ploy-replace-key",
            name: "key",
            type: "password",
            autocomplete: "off",
            spellcheck: "false",
            required: "",
          }),
          button("Confirm replacement", "confirm-replace", key.mask, "submit"),
          button("Cancel", "cancel", key.mask)
        )
      );
    } else {
      actions = el(
        "td",
        {},
        button("Replace", "ask-replace", key.mask),
        button("Remove", "ask-remove", key.mask)
      );
    }
    return el(
      "tr",
      { "data-mask": key.mask },
      el("td", { text: key.provider }),
      el("td", { class: "mask", text: key.mask }),
      el("td", { text: when(key.added_at) }),
      actions
    );
  }

  function render() {
    const children = [el("h1", { text: "ploy · search API keys" })];
    if (!token()) {
      children.push(
        el(
          "form",
          { "data-form": "login" },
          el("label", { for: "ploy-token", text: "Admin token" }),
          el("input", {
            id: "ploy-token",
            name: "token",
            type: "password",
            autocomplete: "off",
            spellcheck: "false",
            required: "",
          }),
          button("Log in", "login", undefined, "submit")
        ),
        el("p", {
          class: "hint",
          text: "The token was printed once by `ploy serve`; `ploy keys admin-token --rotate` makes a new one.",
        })
      );
    } else {
      const body = el("tbody", {});
      for (const key of state.keys) {
        body.append(keyRow(key));
      }
      if (state.keys.length === 0) {
        body.append(el("tr", {}, el("td", { colspan: "4", text: "No keys. Research runs without Tavily." })));
      }
      children.push(
        el(
          "table",
          {},
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              el("th", { text: "Provider" }),
              el("th", { text: "Key" }),
              el("th", { text: "Added" }),
              el("th", { text: "" })
            )
          ),
          body
        ),
        el(
          "form",
          { "data-form": "add" },
          el("label", { for: "ploy-provider", text: "Provider" }),
          el("select", { id: "ploy-provider", name: "provider" }, el("option", { value: "tavily", text: "tavily" })),
          el("label", { for: "ploy-new-key", text: "Key" }),
          el("input", {
            id: "ploy-new-key",
            name: "key",
            type: "password",
            autocomplete: "off",
            spellcheck: "false",
            required: "",
          }),
          button("Add key", "add", undefined, "submit")
        ),
        button("Log out", "logout")
      );
    }
    children.push(el("p", { id: "ploy-status", role: "status", text: state.status }));
    root.replaceChildren(...children);
    for (const control of root.querySelectorAll("button, input, select")) {
      control.disabled = state.busy;
    }
  }

  root.addEventListener(
    "submit",
    (event) => {
      event.preventDefault();
      const form = event.target;
      if (state.busy || !(form instanceof HTMLFormElement)) {
        return;
      }
      const kind = form.getAttribute("data-form");
      if (kind === "login") {
        const value = form.elements.token.value.trim();
        if (value) {
          sessionStorage.setItem(TOKEN_KEY, value);
          run(refresh);
        }
      } else if (kind === "add") {
        const key = form.elements.key.value.trim();
        const provider = form.elements.provider.value;
        form.elements.key.value = "";
        run(async () => {
          const added = await call("keys", { provider, key });
          await refresh();
          return "Added " + added.mask + ".";
        });
      } else if (kind === "replace" && state.pending && state.pending.action === "replace") {
        const key = form.elements.key.value.trim();
        const { mask, nonce } = state.pending;
        form.elements.key.value = "";
        run(async () => {
          const replaced = await call("replace", { mask, key, nonce });
          state.pending = null;
          await refresh();
          return "Replaced " + mask + " by " + replaced.mask + ".";
        });
      }
    },
    { signal }
  );

  root.addEventListener(
    "click",
    (event) => {
      const target = event.target instanceof Element ? event.target.closest("button[data-action]") : null;
      if (!target || !root.contains(target) || state.busy) {
        return;
      }
      const action = target.getAttribute("data-action");
      const mask = target.getAttribute("data-mask");
      if (action === "logout") {
        forget();
        state.status = "Logged out.";
        render();
      } else if (action === "ask-remove" || action === "ask-replace") {
        const wanted = action === "ask-remove" ? "remove" : "replace";
        // ADMIN-6: the confirmation's server half, bound to this action and key.
        run(async () => {
          const answer = await call("nonce", { action: wanted, mask });
          state.pending = { action: wanted, mask, nonce: answer.nonce };
          return wanted === "remove" ? "Confirm the removal of " + mask + " within 2 minutes." : "Enter the new key for " + mask + " within 2 minutes.";
        });
      } else if (action === "cancel") {
        state.pending = null;
        state.status = "";
        render();
      } else if (action === "confirm-remove" && state.pending && state.pending.action === "remove") {
        const { nonce } = state.pending;
        run(async () => {
          await call("remove", { mask, nonce });
          state.pending = null;
          await refresh();
          return "Removed " + mask + ".";
        });
      }
    },
    { signal }
  );

  if (token()) {
    run(refresh);
  } else {
    render();
  }
})();
