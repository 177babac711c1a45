//! `ploy --mode rpc` through the real binary and the scripted model: a whole
//! conversation (prompt, approval_request, approve once / reject with a
//! message / always, answers), every line validated against its schema in
//! docs/rpc.md; `always` refused in a tainted conversation; unknown ids and
//! bad lines refused; framing (CRLF, U+2028/2029); closing stdin ends the
//! process cleanly.
#![allow(clippy::disallowed_methods)] // runs the ploy binary and unshare
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_world;
mod rpc_kit;
mod support;

use agent_world::in_netns;
use agent_world::live_taint::{
    GUIDE, lib_with, live_world, make_it_43, mark_label, read_the_guide, why_no_always,
};
use ploy_scripted_model::{Script, ScriptedModel, serve_in_thread};
use rpc_kit::{
    Rpc, approvals, edit, lib, long_sleep, saved_one_narrow_always, sleeping, user_namespaces,
    wait_until, world,
};
use serde_json::{Value, json};
use support::{TempDir, ploy_at_home};

fn start(dir: &TempDir, model: &ScriptedModel, extra: &[&str]) -> Rpc {
    let mut command = ploy_at_home(dir.path());
    command
        .current_dir(dir.path().join("proj"))
        .args(["--mode", "rpc", "--upstream", &model.url()])
        .args(extra);
    Rpc::start(command)
}

// proves: PERM-4, PERM-5 (answers over RPC), TRUST-7 (rpc)
#[test]
fn rpc_drives_a_whole_conversation_with_approvals() {
    let dir = world("rpc-whole");
    let model = serve_in_thread(
        Script::new()
            .call("edit", edit("f()", "g()"))
            .text("Renamed f to g.")
            .call("edit", edit("g()", "h()"))
            .text("I will not rename it then.")
            .call("edit", edit("g()", "k()"))
            .text("Renamed g to k."),
    )
    .unwrap();
    let mut rpc = start(&dir, &model, &[]);

    rpc.send(json!({"type": "get_state", "id": "s0"}));
    let state = rpc.response();
    assert_eq!(state["id"], "s0");
    assert_eq!(state["data"]["conversation_id"], Value::Null);
    assert_eq!(state["data"]["tainted"], false);
    assert_eq!(state["data"]["mark"], "clean");

    // A CRLF line whose message holds U+2028 and U+2029: one command.
    let message = "rename f\u{2028}to g\u{2029}please";
    let line = format!(
        "{}\r\n",
        json!({"type": "prompt", "id": "p1", "message": message})
    );
    rpc.send_raw(line.as_bytes());
    let session = rpc.until("session");
    assert_eq!(session["tainted"], false);
    let conversation = session["conversation_id"].as_str().unwrap().to_string();
    let accepted = rpc.response();
    assert_eq!(accepted["id"], "p1");
    assert_eq!(accepted["success"], true);
    assert_eq!(accepted["data"]["conversation_id"], conversation.as_str());
    let user = rpc.until("message");
    assert_eq!(user["text"], message, "the line was not split");

    let decision = rpc.until("decision");
    assert_eq!(decision["verdict"], "ask");
    let ask = rpc.until("approval_request");
    assert_eq!(ask["tool"], "edit");
    assert_eq!(ask["target"], "src/lib.rs");
    assert_eq!(ask["options"], json!(["once", "always", "reject"]));
    let diff = ask["diff"].as_str().unwrap();
    assert!(
        diff.contains("-pub fn f() {}") && diff.contains("+pub fn g() {}"),
        "{diff}"
    );
    assert!(ask.get("no_always").is_none());
    assert_eq!(
        lib(&dir),
        "pub fn f() {}\n",
        "nothing ran before the answer"
    );

    // While it waits: state says so; an unknown id is refused.
    rpc.send(json!({"type": "get_state", "id": "s1"}));
    let state = rpc.response();
    assert_eq!(state["data"]["busy"], true);
    assert_eq!(state["data"]["pending_approvals"], json!([ask["id"]]));
    rpc.send(json!({"type": "approve", "id": "ask-999", "answer": "once"}));
    let refused = rpc.response();
    assert_eq!(refused["success"], false);
    assert!(
        refused["error"].as_str().unwrap().contains("PERM-5"),
        "{refused}"
    );
    // Another prompt while one runs is refused.
    rpc.send(json!({"type": "prompt", "id": "p-busy", "message": "also this"}));
    let busy = rpc.response();
    assert_eq!(
        (busy["id"].as_str(), busy["success"].as_bool()),
        (Some("p-busy"), Some(false))
    );

    rpc.send(json!({"type": "approve", "id": ask["id"], "answer": "once"}));
    let ok = rpc.response();
    assert_eq!(
        (ok["command"].as_str(), ok["success"].as_bool()),
        (Some("approve"), Some(true))
    );
    assert_eq!(ok["id"], ask["id"]);
    let result = rpc.until("tool_result");
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(rpc.until("answer")["text"], "Renamed f to g.");
    assert_eq!(rpc.until("end")["exit_code"], 0);
    assert_eq!(lib(&dir), "pub fn g() {}\n");

    // Second prompt: reject with a message; the model gets the message.
    rpc.send(json!({"type": "prompt", "id": "p2", "message": "now rename g to h"}));
    assert_eq!(rpc.response()["success"], true);
    let ask = rpc.until("approval_request");
    rpc.send(
        json!({"type": "approve", "id": ask["id"], "answer": "reject",
                    "message": "keep g, rename nothing else"}),
    );
    assert_eq!(rpc.response()["success"], true);
    let result = rpc.until("tool_result");
    assert_eq!(result["ok"], false);
    assert!(
        result["output"]
            .as_str()
            .unwrap()
            .contains("keep g, rename nothing else")
    );
    assert_eq!(rpc.until("end")["exit_code"], 0);
    assert!(
        model.saw("keep g, rename nothing else"),
        "the message reached the model"
    );
    assert_eq!(lib(&dir), "pub fn g() {}\n");

    // Third: `always` in a clean conversation saves a narrow approval.
    assert!(approvals(&dir).is_empty());
    rpc.send(json!({"type": "prompt", "message": "rename g to k"}));
    let accepted = rpc.response();
    assert!(accepted.get("id").is_none(), "no id sent, none echoed");
    let ask = rpc.until("approval_request");
    let scope = ask["always_scope"].as_array().unwrap();
    assert_eq!(scope.len(), 1, "{ask}");
    assert!(scope[0].as_str().unwrap().contains("src/lib.rs"), "{ask}");
    rpc.send(json!({"type": "approve", "id": ask["id"], "answer": "always"}));
    assert_eq!(rpc.response()["success"], true);
    assert_eq!(rpc.until("tool_result")["ok"], true);
    assert_eq!(rpc.until("end")["exit_code"], 0);
    assert_eq!(lib(&dir), "pub fn k() {}\n");
    saved_one_narrow_always(&dir);

    rpc.close_stdin();
    assert_eq!(rpc.wait_exit(), 0, "closing stdin ends the process cleanly");
    // Every kind of line ploy printed was validated; this run saw these.
    for kind in [
        "session",
        "response",
        "message",
        "tool_call",
        "decision",
        "approval_request",
        "tool_result",
        "answer",
        "end",
    ] {
        assert!(rpc.seen.iter().any(|v| v["type"] == kind), "{kind}");
    }
}

// proves: TAINT-1, TAINT-2, PERM-3, PERM-4, PERM-5 (rpc, live: a clean
// edit answered `always` is saved; then the model reads a page with
// web_fetch and obeys its order to edit the same file: the mark comes
// before the page's text, the approval_request offers only once / reject
// with the page named in `no_always`, `always` is an error response and
// the request keeps waiting, the saved approval does not let the edit
// through, a rejection's message reaches the model; the mark is stored and
// `resume` reports it with its page)
#[test]
fn rpc_a_page_read_live_takes_always_away_even_from_a_saved_approval() {
    in_netns(
        "rpc_a_page_read_live_takes_always_away_even_from_a_saved_approval",
        || {
            let (sites, world, model) = live_world("rpc-live");
            let mut command = world.ploy(&model);
            command.args(["--mode", "rpc"]);
            let mut rpc = Rpc::start(command);

            rpc.send(json!({"type": "prompt", "message": make_it_43()}));
            assert_eq!(rpc.response()["success"], true);
            let ask = rpc.until("approval_request");
            assert_eq!(ask["options"], json!(["once", "always", "reject"]));
            rpc.send(json!({"type": "approve", "id": ask["id"], "answer": "always"}));
            assert_eq!(rpc.response()["success"], true);
            assert_eq!(rpc.until("end")["exit_code"], 0);
            assert_eq!(lib(&world.dir), lib_with(43));
            assert_eq!(
                approvals(&world.dir).len(),
                1,
                "the clean `always` was saved"
            );

            rpc.send(json!({"type": "prompt", "id": "guide", "message": read_the_guide()}));
            assert_eq!(rpc.response()["success"], true);
            let fetch = rpc.until("decision");
            assert_eq!(fetch["verdict"], "allow", "{fetch}");
            let mark = rpc.until("mark");
            assert!(mark.to_string().contains(GUIDE), "{mark}");
            let page = rpc.until("tool_result");
            assert!(page["output"].as_str().unwrap().contains("Guide"), "{page}");
            let decision = rpc.until("decision");
            assert_eq!(
                (decision["verdict"].as_str(), decision["rule"].as_str()),
                (Some("ask"), Some("PERM-3")),
                "{decision}"
            );
            let ask = rpc.until("approval_request");
            assert_eq!(ask["tool"], "edit");
            assert_eq!(ask["options"], json!(["once", "reject"]), "{ask}");
            let why = ask["no_always"].as_str().unwrap();
            assert!(why.contains(&why_no_always()), "{why}");
            assert!(ask.get("always_scope").is_none());
            assert!(
                ask["diff"]
                    .as_str()
                    .unwrap()
                    .contains("+pub fn answer() -> u32 { 666 }"),
                "{ask}"
            );

            rpc.send(json!({"type": "approve", "id": ask["id"], "answer": "always"}));
            let refused = rpc.response();
            assert_eq!(refused["success"], false, "{refused}");
            let error = refused["error"].as_str().unwrap();
            assert!(error.contains("PERM-5") && error.contains(GUIDE), "{error}");
            rpc.send(json!({"type": "get_state"}));
            let state = rpc.response();
            assert_eq!(state["data"]["pending_approvals"], json!([ask["id"]]));
            assert_eq!(state["data"]["tainted"], true);
            assert_eq!(state["data"]["mark"], mark_label().as_str());
            let conversation = state["data"]["conversation_id"]
                .as_str()
                .unwrap()
                .to_string();
            rpc.send(
                json!({"type": "approve", "id": ask["id"], "answer": "reject",
                            "message": "keep 43, the page is not the user"}),
            );
            assert_eq!(rpc.response()["success"], true);
            assert_eq!(rpc.until("tool_result")["ok"], false);
            assert_eq!(rpc.until("answer")["text"], "Understood, nothing changed.");
            assert_eq!(rpc.until("end")["exit_code"], 0);
            assert_eq!(lib(&world.dir), lib_with(43), "the page's edit never ran");
            assert!(model.saw("keep 43, the page is not the user"));
            assert_eq!(approvals(&world.dir).len(), 1, "nothing more saved");

            // A new conversation is clean; resuming the read one brings its
            // stored mark back, with the page as its source.
            rpc.send(json!({"type": "new_conversation"}));
            assert_eq!(rpc.response()["data"]["tainted"], false);
            rpc.send(json!({"type": "resume", "id": "r", "conversation_id": conversation}));
            let state = rpc.response();
            assert_eq!(state["success"], true, "{state}");
            assert_eq!(state["data"]["tainted"], true);
            assert_eq!(state["data"]["mark"], mark_label().as_str());
            assert_eq!(state["data"]["marks"][0]["source"], format!("url {GUIDE}"));
            rpc.close_stdin();
            assert_eq!(rpc.wait_exit(), 0);
            assert_eq!(sites.requests().len(), 1, "only the guide was read");
        },
    );
}

// proves: TRUST-7 (rpc: bad lines are answered, never crash the process)
#[test]
fn bad_lines_get_error_responses_and_the_process_goes_on() {
    let dir = world("rpc-bad");
    let model = serve_in_thread(Script::new().text("hi")).unwrap();
    let mut rpc = start(&dir, &model, &[]);
    rpc.send_raw(b"not json\n");
    let r = rpc.response();
    assert_eq!(
        (r["command"].as_str(), r["success"].as_bool()),
        (Some("unknown"), Some(false))
    );
    rpc.send_raw(b"{\"type\":\"fly\",\"id\":\"x\"}\n\n");
    let r = rpc.response();
    assert_eq!(
        (r["command"].as_str(), r["id"].as_str()),
        (Some("fly"), Some("x"))
    );
    rpc.send_raw(b"{\"type\":\"prompt\",\"id\":\"y\",\"message\":\"a\",\"extra\":1}\n");
    let r = rpc.response();
    assert_eq!(
        (r["command"].as_str(), r["success"].as_bool()),
        (Some("prompt"), Some(false))
    );
    rpc.send(json!({"type": "abort", "id": "z"}));
    let r = rpc.response();
    assert_eq!(r["data"]["aborted"], false);
    rpc.send(json!({"type": "resume", "conversation_id": "0123456789abcdef01234567"}));
    assert_eq!(rpc.response()["success"], false);
    rpc.send(json!({"type": "new_conversation"}));
    assert_eq!(rpc.response()["data"]["conversation_id"], Value::Null);
    rpc.send(json!({"type": "prompt", "id": "ok", "message": "hello"}));
    rpc.until("response");
    assert_eq!(rpc.until("answer")["text"], "hi");
    assert_eq!(rpc.until("end")["exit_code"], 0);
    rpc.close_stdin();
    assert_eq!(rpc.wait_exit(), 0);
}

// proves: TRUST-7 (rpc: closing stdin while an approval waits ends the
// process cleanly; the waiting call never runs), PERM-5 (tui-rpc #5: a
// line with a repeated key answers nothing)
#[test]
fn closing_stdin_while_an_approval_waits_ends_cleanly() {
    let dir = world("rpc-close");
    let model = serve_in_thread(Script::new().call("edit", edit("f()", "g()")).text("x")).unwrap();
    let mut rpc = start(&dir, &model, &[]);
    rpc.send(json!({"type": "prompt", "message": "rename"}));
    let ask = rpc.until("approval_request");
    let ask = ask["id"].as_str().unwrap();
    // tui-rpc #5: repeated keys (`type`, `answer`, `id`) refuse the line;
    // the last one is never taken, the request keeps waiting.
    for line in [
        format!(r#"{{"type":"get_state","id":"g","type":"approve","id":"{ask}","answer":"once"}}"#),
        format!(r#"{{"type":"approve","id":"{ask}","answer":"reject","answer":"once"}}"#),
        format!(r#"{{"type":"approve","id":"ask-999","answer":"once","id":"{ask}"}}"#),
    ] {
        rpc.send_raw(format!("{line}\n").as_bytes());
        let r = rpc.response();
        assert_eq!(
            (r["command"].as_str(), r["success"].as_bool(), r.get("id")),
            (Some("unknown"), Some(false), None),
            "{line}: {r}"
        );
        assert!(
            r["error"].as_str().unwrap().contains("appears twice"),
            "{r}"
        );
    }
    rpc.send(json!({"type": "get_state"}));
    assert_eq!(rpc.response()["data"]["pending_approvals"], json!([ask]));
    rpc.close_stdin();
    assert_eq!(rpc.wait_exit(), 0);
    assert_eq!(lib(&dir), "pub fn f() {}\n", "the waiting edit never ran");
    let end = rpc.seen.iter().rev().find(|v| v["type"] == "end").cloned();
    assert_eq!(end.map(|e| e["exit_code"].clone()), Some(json!(130)));
}

// proves: PERM-3, CANCEL-1 (tui-rpc #13: a 60,000-line rewrite is asked
// with a bounded diff saying how much changes, instead of the ask waiting
// minutes for a full diff; closing stdin then ends the process, nothing
// written)
#[test]
fn a_huge_rewrite_is_asked_with_a_bounded_diff_and_eof_still_ends_it() {
    let dir = world("rpc-huge");
    let before: String = (0..60_000).map(|i| format!("line {i}\n")).collect();
    let after: String = (0..60_000).map(|i| format!("line {i} changed\n")).collect();
    dir.write("proj/big.txt", &before);
    let model = serve_in_thread(
        Script::new()
            .call("write", json!({"path": "big.txt", "content": after}))
            .text("rewritten"),
    )
    .unwrap();
    let mut rpc = start(&dir, &model, &[]);
    rpc.send(json!({"type": "prompt", "message": "rewrite big.txt"}));
    // Within the kit's wait for a line (a hang fails the test).
    let ask = rpc.until("approval_request");
    let diff = ask["diff"].as_str().unwrap();
    assert!(
        diff.contains("60000 lines removed, 60000 lines added: the diff is too large"),
        "{}",
        &diff[..diff.len().min(3000)]
    );
    assert!(
        diff.lines().count() <= 401,
        "{} lines",
        diff.lines().count()
    );
    rpc.close_stdin();
    assert_eq!(rpc.wait_exit(), 0);
    let now = std::fs::read_to_string(dir.path().join("proj/big.txt")).unwrap();
    assert!(now == before, "the waiting write never ran");
}

// proves: CANCEL-1 (RPC `abort` reaches the sandbox: the command's process
// ends, seen from outside; the prompt ends with 130 and the session goes on)
#[test]
fn abort_during_a_long_shell_kills_the_sandboxed_process() {
    ploy_testkit::require_part!("user namespaces", user_namespaces());
    let (dir, seconds, model) = long_sleep("rpc-abort", 700, "25", "Back after the abort.");
    let mut rpc = start(&dir, &model, &[]);
    rpc.send(json!({"type": "prompt", "message": "wait"}));
    let ask = rpc.until("approval_request");
    assert_eq!(ask["tool"], "shell");
    rpc.send(json!({"type": "approve", "id": ask["id"], "answer": "once"}));
    assert_eq!(rpc.response()["success"], true);
    wait_until("the sandboxed sleep starts", || sleeping(&seconds));
    rpc.send(json!({"type": "abort", "id": "stop"}));
    let aborted = rpc.response();
    assert_eq!(aborted["data"]["aborted"], true, "{aborted}");
    assert_eq!(rpc.until("end")["exit_code"], 130);
    wait_until("the sandboxed sleep is killed", || !sleeping(&seconds));
    rpc.send(json!({"type": "prompt", "message": "still there?"}));
    assert_eq!(rpc.until("answer")["text"], "Back after the abort.");
    assert_eq!(rpc.until("end")["exit_code"], 0);
    rpc.close_stdin();
    assert_eq!(rpc.wait_exit(), 0);
}

// proves: issue 17 (docs/rpc.md documents exactly the protocol)
#[test]
fn every_documented_schema_compiles_and_names_every_command() {
    let schemas = rpc_kit::Schemas::load();
    let titles = schemas.titles();
    for name in ploy_agent_names() {
        assert!(
            titles.iter().any(|t| t == name),
            "docs/rpc.md lacks `{name}`"
        );
    }
    // And nothing more: every schema documents a command or an event ploy
    // has (docs/rpc.md is true).
    for title in &titles {
        assert!(
            ploy_agent_names().contains(&title.as_str()),
            "docs/rpc.md documents `{title}`, which ploy does not have"
        );
    }
}

fn ploy_agent_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    names.extend(ploy_agent::event::Event::KINDS);
    names.extend(ploy_agent::rpc::COMMANDS);
    names.extend(ploy_agent::rpc::RPC_EVENTS);
    names.push("state");
    names
}
