//! The agent's tables (schema v3): projects on conversations and approvals,
//! tool calls, decisions, the tail of a long conversation, and deleting a
//! whole conversation, which is the only way its marks go (TAINT-2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ploy_policy::{ActionKind, Approval, ApprovalScope, Grant, TaintMark, TaintSource};
use ploy_store::{DecisionRecord, Role, Store};

fn mark() -> TaintMark {
    TaintMark {
        reason: "the web_fetch tool read web text into this conversation".into(),
        source: TaintSource::Tool("web_fetch".into()),
    }
}

fn approval(pattern: &str) -> Approval {
    Approval {
        scope: ApprovalScope::Always,
        grant: Grant::Pattern {
            kind: ActionKind::Shell,
            pattern: pattern.into(),
        },
    }
}

#[test]
fn conversations_belong_to_a_project_and_continue_picks_the_newest() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
    let a1 = store.create_conversation_in("a1", Some("/p/a")).unwrap();
    let b1 = store.create_conversation_in("b1", Some("/p/b")).unwrap();
    let a2 = store.create_conversation_in("a2", Some("/p/a")).unwrap();
    store.create_conversation("research").unwrap();
    let in_a: Vec<_> = store
        .conversations_in("/p/a")
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(in_a, [a1.id.clone(), a2.id.clone()]);
    assert_eq!(
        store.latest_conversation_in("/p/a").unwrap().unwrap().id,
        a2.id
    );
    assert_eq!(
        store.latest_conversation_in("/p/b").unwrap().unwrap().id,
        b1.id
    );
    assert!(store.latest_conversation_in("/p/c").unwrap().is_none());
    assert_eq!(
        store.conversation(&a1.id).unwrap().project.as_deref(),
        Some("/p/a")
    );
}

// proves: PERM-5
#[test]
fn approvals_are_scoped_to_their_project() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
    let in_a = store
        .save_approval_in(&approval("cargo test"), Some("/p/a"))
        .unwrap();
    store
        .save_approval_in(&approval("make"), Some("/p/b"))
        .unwrap();
    store.save_approval(&approval("ls")).unwrap();
    let a = store.approvals_in("/p/a").unwrap();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].id, in_a);
    assert_eq!(a[0].approval, approval("cargo test"));
    assert!(store.approvals_in("/p").unwrap().is_empty());
    assert_eq!(store.approvals().unwrap().len(), 3);
    assert!(store.remove_approval(in_a).unwrap());
    assert!(store.approvals_in("/p/a").unwrap().is_empty());
}

#[test]
fn tool_calls_decisions_and_message_meta_persist() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let id = {
        let mut store = Store::open(&path).unwrap();
        let conv = store.create_conversation_in("c", Some("/p")).unwrap();
        store
            .append_message_with(
                &conv.id,
                Role::Assistant,
                "",
                Some(r#"{"tool_calls":[{"id":"c1"}]}"#),
            )
            .unwrap();
        store
            .record_tool_call(&conv.id, "c1", "shell", r#"{"command":"ls"}"#)
            .unwrap();
        store
            .record_decision(
                &conv.id,
                &DecisionRecord {
                    call_id: "c1".into(),
                    verdict: "ask".into(),
                    rule: "PERM-5".into(),
                    reason: "nobody can answer".into(),
                    answer: Some("refused".into()),
                    created_at: 0,
                },
            )
            .unwrap();
        conv.id
    };
    let store = Store::open(&path).unwrap();
    let messages = store.messages(&id).unwrap();
    assert_eq!(
        messages[0].meta.as_deref(),
        Some(r#"{"tool_calls":[{"id":"c1"}]}"#)
    );
    let calls = store.tool_calls(&id).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "shell");
    let decisions = store.decisions(&id).unwrap();
    assert_eq!(decisions[0].verdict, "ask");
    assert_eq!(decisions[0].answer.as_deref(), Some("refused"));
}

#[test]
fn recent_messages_returns_the_tail_within_a_byte_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
    let conv = store.create_conversation_in("c", Some("/p")).unwrap();
    for i in 0..50 {
        store
            .append_message(&conv.id, Role::User, &format!("{i:09}"))
            .unwrap();
    }
    let tail = store.recent_messages(&conv.id, 30).unwrap();
    let texts: Vec<_> = tail.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, ["000000047", "000000048", "000000049"]);
    // A message larger than the budget still comes back alone.
    let one = store.recent_messages(&conv.id, 1).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(
        store
            .first_message(&conv.id, Role::User)
            .unwrap()
            .unwrap()
            .content,
        "000000000"
    );
}

// proves: TAINT-2
#[test]
fn a_mark_goes_only_with_its_whole_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let mut store = Store::open(&path).unwrap();
    let conv = store.create_conversation_in("c", Some("/p")).unwrap();
    let other = store.create_conversation_in("d", Some("/p")).unwrap();
    store.append_message(&conv.id, Role::User, "hi").unwrap();
    store.mark_tainted(&conv.id, &mark()).unwrap();
    store.mark_tainted(&other.id, &mark()).unwrap();
    store
        .record_tool_call(&conv.id, "c1", "read", "{}")
        .unwrap();
    store.add_memory(Some(&conv.id), "note").unwrap();
    drop(store);

    // The mark alone cannot be deleted while its conversation exists.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let err = conn
        .execute(
            "DELETE FROM taint_marks WHERE conversation_id = ?1",
            [&conv.id],
        )
        .unwrap_err();
    assert!(err.to_string().contains("TAINT-2"), "{err}");
    drop(conn);

    let mut store = Store::open(&path).unwrap();
    assert!(store.delete_conversation(&conv.id).unwrap());
    assert!(!store.delete_conversation(&conv.id).unwrap());
    assert!(store.conversation(&conv.id).is_err());
    assert!(store.memory_entries().unwrap().is_empty());
    // The other conversation keeps its mark.
    assert_eq!(store.marks(&other.id).unwrap(), vec![mark()]);
    store.integrity_check().unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let left: i64 = conn
        .query_row(
            "SELECT count(*) FROM taint_marks WHERE conversation_id = ?1",
            [&conv.id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
    let fk: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(fk, 0);
}

// proves: BROWSER-2, BEYOND-7 (visited sites are stored with the
// conversation, survive a reopen — `--continue` — come back inside the
// conversation's rules, belong to that conversation only, and go with it)
#[test]
fn visited_sites_are_kept_with_their_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let (a, b) = {
        let mut store = Store::open(&path).unwrap();
        let a = store.create_conversation_in("a", Some("/p")).unwrap().id;
        let b = store.create_conversation_in("b", Some("/p")).unwrap().id;
        store.mark_tainted(&a, &mark()).unwrap();
        let site = ploy_policy::site_of("https://docs.example.co.uk/x").unwrap();
        store.visit_site(&a, &site).unwrap();
        store.visit_site(&a, &site).unwrap();
        assert!(store.visit_site("no-such", &site).is_err());
        (a, b)
    };
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.visited_sites(&a).unwrap(), ["example.co.uk"]);
    assert!(store.visited_sites(&b).unwrap().is_empty());
    let rules = store.conversation_rules(&a).unwrap();
    assert!(rules.check_site("https://www.example.co.uk/").passes());
    assert!(!rules.check_site("https://other.co.uk/").passes());
    // b read nothing: the site rule does not hold it.
    assert!(
        store
            .conversation_rules(&b)
            .unwrap()
            .check_site("http://x.example/")
            .passes()
    );
    assert!(store.delete_conversation(&a).unwrap());
    assert!(
        store.visited_sites(&a).is_err(),
        "gone with its conversation"
    );
}
