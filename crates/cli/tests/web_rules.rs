//! `ploy fetch` and `ploy research` pass `Permission::assert` (PERM-1,
//! issue 14 item 9): the real binary, a user's `web` deny rule and a
//! conversation's own deny rule refuse before anything is resolved, and a
//! tainted conversation given with `--conversation` keeps its mark. No packet
//! leaves: names are answered by a hosts file with a documentation address,
//! which the door refuses anyway (URL-2), so a request that got past the
//! rules shows URL-2 and one the rules stopped shows PERM-2.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Output, Stdio};

use ploy_policy::{ActionKind, Effect, Rule, TaintMark, TaintSource};
use serde_json::Value;
use support::{TempDir, text};

fn root() -> TempDir {
    let dir = TempDir::with_config_and_state("web-rules");
    dir.write(
        "hosts",
        "192.0.2.1 html.duckduckgo.com\n192.0.2.1 en.wikipedia.org\n192.0.2.1 docs.example.org\n192.0.2.1 blocked.example.net\n",
    );
    dir.write_settings(
        r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"},
            "permissions": {"web": {"deny": ["*.example.net", "en.wikipedia.org"]}}}"#,
    );
    dir
}

fn ploy(dir: &TempDir, args: &[&str]) -> Output {
    support::ploy(dir.path())
        .args(args)
        .arg("--hosts")
        .arg(dir.path().join("hosts"))
        .env_remove("PLOY_MODEL")
        .env_remove("PLOY_TAVILY_KEYS")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

// proves: PERM-1, PERM-2 (ploy fetch: a web deny rule refuses before resolution)
#[test]
fn fetch_passes_assert_and_a_web_deny_rule_refuses() {
    let dir = root();
    let denied = ploy(&dir, &["fetch", "http://blocked.example.net/page"]);
    assert_eq!(denied.status.code(), Some(1), "{denied:?}");
    let stderr = text(&denied.stderr);
    assert!(
        stderr.contains("PERM-2") && stderr.contains("*.example.net"),
        "{stderr}"
    );
    // Not denied: the rules let it through, and the address check refuses.
    let allowed = ploy(&dir, &["fetch", "http://docs.example.org/page"]);
    assert_eq!(allowed.status.code(), Some(1));
    let stderr = text(&allowed.stderr);
    assert!(
        stderr.contains("URL-2") && !stderr.contains("PERM-2"),
        "{stderr}"
    );
    // A broken settings file is a loud error, not an unchecked fetch.
    dir.write_settings(r#"{"permissions": {"web": {"deny": [""]}}}"#);
    let broken = ploy(&dir, &["fetch", "http://docs.example.org/page"]);
    assert_eq!(broken.status.code(), Some(2), "{broken:?}");
}

fn searches(output: &Output) -> Vec<Value> {
    let result: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&output.stderr)));
    result["searches"].as_array().unwrap().clone()
}

fn rules_by_backend(searches: &[Value]) -> Vec<(String, String)> {
    searches
        .iter()
        .map(|s| {
            (
                s["backend"].as_str().unwrap_or_default().to_owned(),
                s["failure"]["rule"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

// proves: PERM-1, PERM-2, TAINT-2 (ploy research: the user's deny rule and
// the conversation's own deny rule refuse; --conversation keeps the mark)
#[test]
fn research_passes_assert_with_the_conversations_rules_and_keeps_its_mark() {
    let dir = root();
    let first = ploy(
        &dir,
        &["research", "rust borrow checker", "--no-answer", "--json"],
    );
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let by_backend = rules_by_backend(&searches(&first));
    assert!(
        by_backend.contains(&("wikipedia".into(), "PERM-2".into())),
        "{by_backend:?}"
    );
    assert!(
        by_backend.contains(&("duckduckgo".into(), "URL-2".into())),
        "{by_backend:?}"
    );
    let result: Value = serde_json::from_slice(&first.stdout).unwrap();
    let id = result["conversation_id"].as_str().unwrap().to_owned();

    // The conversation gets its own deny rule and an earlier mark.
    let db = dir.state().join("ploy.db");
    let earlier = TaintMark {
        reason: "a page was read in an earlier session".into(),
        source: TaintSource::Url("https://earlier.example/".into()),
    };
    {
        let mut store = ploy_store::Store::open(&db).unwrap();
        store.mark_tainted(&id, &earlier).unwrap();
        store
            .add_rule(
                &id,
                &Rule::new(ActionKind::Web, Effect::Deny, "html.duckduckgo.com"),
            )
            .unwrap();
    }
    let again = ploy(
        &dir,
        &[
            "research",
            "rust borrow checker",
            "--no-answer",
            "--json",
            "--conversation",
            &id,
        ],
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let by_backend = rules_by_backend(&searches(&again));
    assert!(
        by_backend.iter().all(|(_, rule)| rule == "PERM-2"),
        "both backends are denied now: {by_backend:?}"
    );
    let store = ploy_store::Store::open(&db).unwrap();
    let marks = store.marks(&id).unwrap();
    assert!(marks.contains(&earlier), "{marks:?}");
    assert!(store.conversation_rules(&id).unwrap().is_tainted());
}
