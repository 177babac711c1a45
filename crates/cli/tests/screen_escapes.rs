//! tui-rpc #2 and #4: what a model, a page or a stored conversation holds
//! never reaches a person's terminal raw, in any face: `ploy -p` (the
//! answer on stdout, the trace on stderr), `--mode json` and `--mode rpc`
//! (JSON escapes for every character a terminal would act on, and a JSON
//! reader gets the exact text back), `ploy conversations list/show`,
//! `ploy approvals list` (text and `--json`). The interactive terminal with
//! stdout in a file is in agent_tui.rs.
#![allow(clippy::disallowed_methods)] // runs the ploy binary
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod rpc_kit;
mod support;

use ploy_policy::{ActionKind, Approval, ApprovalScope, Grant};
use ploy_scripted_model::{Script, serve_in_thread};
use ploy_store::Store;
use rpc_kit::{HOSTILE, Rpc, edit, project, raw_chars, world};
use serde_json::{Value, json};
use support::{TempDir, code, ploy_at_home, run, stderr, stdout};

fn ploy(dir: &TempDir, args: &[&str]) -> std::process::Output {
    let mut command = ploy_at_home(dir.path());
    command.current_dir(dir.path().join("proj")).args(args);
    run(&mut command)
}

/// Fails naming the face when `text` holds a character a terminal acts on.
fn safe(face: &str, text: &str) {
    let raw = raw_chars(text);
    assert!(raw.is_empty(), "{face} printed {raw:?} raw: {text:?}");
}

/// Every line of `text` parses as JSON (the escapes are JSON escapes).
fn json_lines(face: &str, text: &str) -> Vec<Value> {
    safe(face, text);
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{face}: {e}: {l}")))
        .collect()
}

// proves: PERM-3 (tui-rpc #2, #4: -p text and json, conversations
// list/show, approvals list: no raw escape, exact text for JSON readers)
#[test]
fn print_json_and_stored_views_never_write_raw_escapes() {
    let dir = world("screen-escapes");
    let answer = format!("final {HOSTILE} hi");
    let args = json!({"path": format!("notes{HOSTILE}.txt")});
    let model = serve_in_thread(
        Script::new()
            .call("read", args.clone())
            .text(answer.clone())
            .call("read", args.clone())
            .text(answer.clone()),
    )
    .unwrap();
    let prompt = format!("hi {HOSTILE}");

    // -p, text: the answer on stdout and the trace on stderr, shown.
    let out = ploy(&dir, &["-p", &prompt, "--upstream", &model.url()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    safe("ploy -p (stdout)", &stdout(&out));
    safe("ploy -p (stderr)", &stderr(&out));
    assert!(
        stdout(&out).contains("final ^[]0;TITLE^G^[[2J^[]8;;http://evil.test/^[\\link"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("\\u{202e}"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(r#"ploy: tool read {"path":"notes\u001b]0;TITLE\u0007"#),
        "{}",
        stderr(&out)
    );

    // --mode json: JSON escapes; a reader gets the exact answer.
    let out = ploy(
        &dir,
        &["-p", &prompt, "--upstream", &model.url(), "--mode", "json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let events = json_lines("ploy -p --mode json", &stdout(&out));
    let answered = events.iter().find(|e| e["type"] == "answer").unwrap();
    assert_eq!(answered["text"], answer.as_str());
    let called = events.iter().find(|e| e["type"] == "tool_call").unwrap();
    assert_eq!(called["args"], args);
    safe("ploy -p --mode json (stderr)", &stderr(&out));

    // The stored conversations: list and show, text and JSON.
    let out = ploy(&dir, &["conversations", "list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    safe("ploy conversations list", &stdout(&out));
    let listed = json_lines(
        "ploy conversations list --json",
        &stdout(&ploy(&dir, &["conversations", "list", "--json"])),
    );
    let rows = listed[0]["conversations"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    // The title is the prompt's start (capped by the store).
    let title = rows[0]["title"].as_str().unwrap();
    assert!(title.starts_with("hi \u{1b}]0;TITLE\u{7}"), "{title:?}");
    for row in rows {
        let id = row["id"].as_str().unwrap();
        let out = ploy(&dir, &["conversations", "show", id]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        safe("ploy conversations show", &stdout(&out));
        assert!(
            stdout(&out).contains("final ^[]0;TITLE"),
            "{}",
            stdout(&out)
        );
        let shown = json_lines(
            "ploy conversations show --json",
            &stdout(&ploy(&dir, &["conversations", "show", id, "--json"])),
        );
        let contents: Vec<&str> = shown[0]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap())
            .collect();
        assert!(contents.contains(&answer.as_str()), "{contents:?}");
    }

    // A saved approval holding what a model chose (a command line, a path).
    {
        let mut store = Store::open(dir.state().join("ploy.db")).unwrap();
        for (kind, pattern) in [
            (ActionKind::Shell, format!("echo {HOSTILE}")),
            (ActionKind::Edit, format!("z{HOSTILE}red.txt")),
        ] {
            let approval = Approval {
                scope: ApprovalScope::Always,
                grant: Grant::Pattern { kind, pattern },
            };
            store
                .save_approval_in(&approval, Some(&project(&dir)))
                .unwrap();
        }
    }
    let out = ploy(&dir, &["approvals", "list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    safe("ploy approvals list", &stdout(&out));
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    assert!(stdout(&out).contains("echo ^[]0;TITLE"), "{}", stdout(&out));
    let listed = json_lines(
        "ploy approvals list --json",
        &stdout(&ploy(&dir, &["approvals", "list", "--json"])),
    );
    assert_eq!(
        listed[0]["approvals"][0]["grant"]["pattern"],
        format!("echo {HOSTILE}")
    );
}

// proves: PERM-3 (tui-rpc #2: every RPC line, the approval request's
// target and diff included, is JSON-escaped; the values are exact)
#[test]
fn rpc_lines_never_carry_raw_escapes() {
    let dir = world("screen-escapes-rpc");
    let new = format!("g() /* {HOSTILE} */");
    let model = serve_in_thread(
        Script::new()
            .call("edit", edit("f()", &new))
            .text(format!("done {HOSTILE}")),
    )
    .unwrap();
    let mut command = ploy_at_home(dir.path());
    command.current_dir(dir.path().join("proj")).args([
        "--mode",
        "rpc",
        "--upstream",
        &model.url(),
    ]);
    let mut rpc = Rpc::start(command);
    rpc.send(json!({"type": "prompt", "message": format!("go {HOSTILE}")}));
    let ask = rpc.until("approval_request");
    let diff = ask["diff"].as_str().unwrap();
    assert!(
        diff.contains("+pub fn g() /* \u{1b}]0;TITLE\u{7}"),
        "{diff:?}"
    );
    let id = ask["id"].as_str().unwrap().to_string();
    rpc.send(json!({"type": "approve", "id": id, "answer": "reject"}));
    let answer = rpc.until("answer");
    assert_eq!(answer["text"], format!("done {HOSTILE}"));
    rpc.until("end");
    rpc.close_stdin();
    assert_eq!(rpc.wait_exit(), 0);
    for line in &rpc.raw {
        safe("ploy --mode rpc", line);
    }
}
