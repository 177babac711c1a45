//! `ploy -p`, `ploy conversations` and `ploy approvals` through the real
//! binary, without a model: usage and exit codes, the one-line message when
//! no model server answers, the JSON events of a failed start, and the
//! store-backed listings (conversations with their marks, narrow approvals).
//! The runs with a model are in `agent_e2e.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::os::unix::fs::PermissionsExt;

use ploy_policy::{ActionKind, Approval, ApprovalScope, Grant, TaintMark, TaintSource};
use ploy_store::{Role, Store};
use serde_json::Value;
use support::{TempDir, code, json, ploy_at_home, run, stderr, stdout};

/// A root with settings (the mandatory profile) and a project folder.
fn world(label: &str) -> TempDir {
    let dir = TempDir::with_config_and_state(label);
    // Owner-only, as ploy keeps it (else ploy tightens it and says so).
    std::fs::set_permissions(dir.state(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir.write_settings(support::WORKSPACE_PROFILE);
    dir.write("proj/src/lib.rs", "pub fn f() {}\n");
    dir
}

/// A loopback port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn agent(dir: &TempDir, args: &[&str]) -> std::process::Output {
    let mut command = ploy_at_home(dir.path());
    command.current_dir(dir.path().join("proj")).args(args);
    run(&mut command)
}

fn events(out: &std::process::Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

// proves: A-5 (no stack trace, one line), TRUST-7 (print/json)
#[test]
fn no_model_server_is_one_line_saying_how_to_start_one_and_exit_1() {
    let dir = world("noserver");
    let upstream = format!("http://127.0.0.1:{}/v1/chat/completions", closed_port());
    let out = agent(&dir, &["-p", "hello", "--upstream", &upstream]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    for needle in [
        "no model server answers",
        &upstream,
        "ollama serve",
        "ollama pull qwen2.5-coder:7b",
        "llama-server --jinja -m MODEL.gguf --port 8080",
    ] {
        assert!(err.contains(needle), "{needle}: {err}");
    }
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    assert!(stdout(&out).is_empty());

    // --mode json: the same, as an error event and the end event.
    let out = agent(
        &dir,
        &["-p", "hello", "--upstream", &upstream, "--mode", "json"],
    );
    assert_eq!(code(&out), 1);
    let events = events(&out);
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["type"], "error");
    assert!(
        events[0]["message"]
            .as_str()
            .unwrap()
            .contains("ollama serve")
    );
    assert_eq!(
        events[1],
        serde_json::json!({"type": "end", "exit_code": 1})
    );
}

// proves: GW-1 (the agent's upstream is loopback http:// only)
#[test]
fn a_non_loopback_upstream_is_a_usage_error() {
    let dir = world("upstream");
    for upstream in [
        "http://192.0.2.10:11434/v1/chat/completions",
        "https://127.0.0.1:11434/v1/chat/completions",
        "http://example.com/v1/chat/completions",
    ] {
        let out = agent(&dir, &["-p", "hello", "--upstream", upstream]);
        assert_eq!(code(&out), 2, "{upstream}: {}", stderr(&out));
        assert!(stderr(&out).contains("GW-1"), "{}", stderr(&out));
    }
}

#[test]
fn usage_errors_exit_2() {
    let dir = world("usage");
    // `ploy` alone without a terminal: one line, exit 2.
    let out = agent(&dir, &[]);
    assert_eq!(code(&out), 2);
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("the interactive mode needs a terminal"));
    for args in [
        &["--mode", "rpc", "-p", "x"][..],
        &["--mode", "json"],
        &["-p", "   "],
        &["-p", "x", "--continue", "--conversation", "abc"],
        &["-p", "x", "-a", "-na"],
        &["-p", "x", "--mode", "yaml"],
    ] {
        let out = agent(&dir, args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
    }
}

// proves: PROFILE-2 (the agent does not run without an attested profile)
#[test]
fn without_a_profile_the_agent_does_not_start() {
    let dir = TempDir::with_config_and_state("noprofile");
    dir.write("proj/a.txt", "a");
    let out = agent(&dir, &["-p", "hello"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("PROFILE-2"), "{}", stderr(&out));
}

fn mark(store: &mut Store, id: &str, url: &str) {
    store
        .mark_tainted(
            id,
            &TaintMark {
                reason: format!("web_fetch read {url}"),
                source: TaintSource::Url(url.into()),
            },
        )
        .unwrap();
}

// proves: TAINT-2 (the marks are listed with their conversation; `rm`
// removes the whole conversation, never a mark alone)
#[test]
fn conversations_list_show_and_remove_with_their_marks() {
    let dir = world("convs");
    let project = dir.path().join("proj").to_string_lossy().into_owned();
    let (clean, marked, other) = {
        let mut store = Store::open(dir.state().join("ploy.db")).unwrap();
        let clean = store
            .create_conversation_in("clean one", Some(&project))
            .unwrap();
        let marked = store
            .create_conversation_in("read a page", Some(&project))
            .unwrap();
        store
            .append_message(&marked.id, Role::User, "read http://site/")
            .unwrap();
        mark(&mut store, &marked.id, "http://site/page");
        let other = store
            .create_conversation_in("elsewhere", Some("/somewhere/else"))
            .unwrap();
        (clean.id, marked.id, other.id)
    };
    let out = agent(&dir, &["conversations", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let listed = json(&out);
    let rows = listed["conversations"].as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [clean.as_str(), marked.as_str()],
        "this project's only"
    );
    assert_eq!(rows[0]["tainted"], false);
    assert_eq!(rows[1]["tainted"], true);
    assert_eq!(rows[1]["marks"][0]["source"], "url http://site/page");
    let all = json(&agent(&dir, &["conversations", "list", "--all", "--json"]));
    assert_eq!(all["conversations"].as_array().unwrap().len(), 3);
    let text = stdout(&agent(&dir, &["conversations"]));
    assert!(
        text.contains(&format!("{marked}  read a page  ⚠ tainted")),
        "{text}"
    );

    let shown = agent(&dir, &["conversations", "show", &marked, "--json"]);
    assert_eq!(code(&shown), 0);
    let shown = json(&shown);
    assert_eq!(shown["conversation"]["tainted"], true);
    assert_eq!(shown["messages"][0]["content"], "read http://site/");

    let out = agent(&dir, &["conversations", "rm", &marked]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let store = Store::open(dir.state().join("ploy.db")).unwrap();
    assert!(store.conversation(&marked).is_err(), "gone whole");
    assert!(store.marks(&marked).map_or(true, |m| m.is_empty()));
    assert!(store.conversation(&other).is_ok());
    for args in [
        &["conversations", "rm", marked.as_str()][..],
        &["conversations", "show", "ffffffffffffffffffffffff"],
    ] {
        let out = agent(&dir, args);
        assert_eq!(code(&out), 1, "{args:?}");
        assert!(stderr(&out).contains("hint:"), "{}", stderr(&out));
    }
}

// proves: PERM-5 (saved approvals are narrow, scoped to their project, and
// revocable)
#[test]
fn approvals_list_this_projects_narrow_grants_and_revoke_them() {
    let dir = world("approvals");
    let project = dir.path().join("proj").to_string_lossy().into_owned();
    let (mine, theirs) = {
        let mut store = Store::open(dir.state().join("ploy.db")).unwrap();
        let grant = |pattern: &str| Approval {
            scope: ApprovalScope::Always,
            grant: Grant::Pattern {
                kind: ActionKind::Shell,
                pattern: pattern.into(),
            },
        };
        let mine = store
            .save_approval_in(&grant("cargo test"), Some(&project))
            .unwrap();
        let theirs = store
            .save_approval_in(&grant("make"), Some("/other/project"))
            .unwrap();
        (mine, theirs)
    };
    let out = agent(&dir, &["approvals", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let listed = json(&out);
    let rows = listed["approvals"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{listed}");
    assert_eq!(rows[0]["id"], mine);
    assert_eq!(rows[0]["grant"]["pattern"], "cargo test");
    assert_eq!(rows[0]["description"], "always shell `cargo test`");
    let text = stdout(&agent(&dir, &["approvals", "list"]));
    assert!(text.contains("always shell `cargo test`"), "{text}");
    assert!(!text.contains("make"), "{text}");

    let out = agent(&dir, &["approvals", "revoke", &mine.to_string()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = agent(&dir, &["approvals", "revoke", &mine.to_string()]);
    assert_eq!(code(&out), 1, "already gone");
    let all = json(&agent(&dir, &["approvals", "list", "--all", "--json"]));
    let ids: Vec<i64> = all["approvals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [theirs]);
}
