//! TAINT-2 across processes: a conversation open in one ploy process (an
//! editor's `--mode rpc`, the interactive terminal) while another process
//! (`ploy -p --continue`, `ploy approvals revoke`) changes its state in the
//! store. Each process here is a separate SQLite connection to the same
//! file, as two processes are. Found by an outside attacker (tui-rpc #1):
//! the open process kept deciding from the clean state it had read at start.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use ploy_agent::dispatch::Policy;
use ploy_policy::{
    Action, ActionKind, Approval, ApprovalScope, ConversationRules, Effect, Grant, ProjectRoot,
    Rule, TaintMark, TaintSource,
};
use support::*;

fn open_policy(world: &World, user: &[Rule]) -> (Policy, String) {
    let store = world.store();
    let mut store = store;
    let conversation = store
        .create_conversation_in("editor", Some(&world.key()))
        .unwrap()
        .id;
    let saved = store.approvals_in(&world.key()).unwrap();
    let root = ProjectRoot::new(&world.project).unwrap();
    let policy = Policy::new(
        root,
        rules(user),
        Arc::new(Mutex::new(ConversationRules::new())),
        saved,
    )
    .unwrap()
    .reading_store(
        Arc::new(Mutex::new(store)),
        conversation.clone(),
        world.key(),
    );
    (policy, conversation)
}

// proves: TAINT-2 (a mark written by any process applies in every process)
// proves: PERM-3 (a tainted conversation's shell asks, whatever allows it)
#[test]
fn a_mark_written_by_another_process_applies_at_the_next_decision() {
    let world = World::new();
    let (policy, conversation) = open_policy(
        &world,
        &[Rule::new(ActionKind::Shell, Effect::Allow, "touch *")],
    );
    let root = ProjectRoot::new(&world.project).unwrap();
    let action = Action::shell("shell", "touch STALE_TAINT", &root);
    assert!(policy.assert(&action).is_allow(), "clean: the rule allows");
    assert!(!policy.is_tainted());

    // Another process reads a page into the same conversation.
    world
        .store()
        .mark_tainted(
            &conversation,
            &TaintMark {
                reason: "the web_fetch tool read web text into this conversation".into(),
                source: TaintSource::Url("http://pagea.com/".into()),
            },
        )
        .unwrap();

    assert!(
        policy.is_tainted(),
        "the open process must see the stored mark"
    );
    assert_eq!(policy.marks().len(), 1);
    let decision = policy.assert(&action);
    assert!(
        decision.is_ask(),
        "a tainted conversation's shell must ask: {decision:?}"
    );
}

// proves: TAINT-2 (approvals are re-read: a revoked `always` stops applying)
#[test]
fn an_approval_revoked_by_another_process_stops_applying() {
    let world = World::new();
    let id = world
        .store()
        .save_approval_in(
            &Approval {
                scope: ApprovalScope::Always,
                grant: Grant::Pattern {
                    kind: ActionKind::Shell,
                    pattern: "touch made.txt".into(),
                },
            },
            Some(&world.key()),
        )
        .unwrap();
    let (policy, _) = open_policy(&world, &[]);
    let root = ProjectRoot::new(&world.project).unwrap();
    let action = Action::shell("shell", "touch made.txt", &root);
    assert!(
        policy.assert(&action).is_allow(),
        "the saved approval allows"
    );

    // `ploy approvals revoke` in another terminal.
    assert!(world.store().remove_approval(id).unwrap());

    assert!(
        policy.assert(&action).is_ask(),
        "a revoked approval must not apply in an open process"
    );
}
