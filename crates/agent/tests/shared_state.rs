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
    Action, ActionKind, ConversationRules, Effect, ProjectRoot, Rule, TaintMark, TaintSource,
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

/// Another process (a second `ploy` on the same store) reads a page into
/// `conversation`: the mark is in the store, not in this process's memory.
fn another_process_reads_a_page(world: &World, conversation: &str) {
    world
        .store()
        .mark_tainted(
            conversation,
            &TaintMark {
                reason: "the web_fetch tool read web text into this conversation".into(),
                source: TaintSource::Url("http://pagea.com/".into()),
            },
        )
        .unwrap();
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

    another_process_reads_a_page(&world, &conversation);

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
    let id = world.approve_shell_always("touch made.txt");
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

/// A dispatcher over the built-in tools whose policy re-reads `store`
/// (as `Session::open` wires it), and the context its tools run in.
fn open_dispatcher(
    world: &World,
    user: &[Rule],
) -> (
    ploy_agent::dispatch::Dispatcher,
    ploy_agent::tool::ToolContext,
    Arc<Mutex<ploy_store::Store>>,
    String,
) {
    use ploy_agent::event::NoEvents;
    use ploy_agent::marker::ConversationMarker;
    use ploy_agent::tool::{ShellSetup, ToolContext};
    use ploy_policy::{ApprovalMode, ExecutionProfile, SandboxMode};

    let mut store = world.store();
    let conversation = store
        .create_conversation_in("editor", Some(&world.key()))
        .unwrap()
        .id;
    let store = Arc::new(Mutex::new(store));
    let conversation_rules = Arc::new(Mutex::new(ConversationRules::new()));
    let root = ProjectRoot::new(&world.project).unwrap();
    let policy = Arc::new(
        Policy::new(
            root.clone(),
            rules(user),
            conversation_rules.clone(),
            Vec::new(),
        )
        .unwrap()
        .reading_store(store.clone(), conversation.clone(), world.key()),
    );
    let ctx = ToolContext {
        reads: policy.read_gate("shell"),
        project: world.project.clone(),
        root,
        // On the host: the test binary is not a sandbox launcher.
        profile: ExecutionProfile::new(SandboxMode::DangerFullAccess, ApprovalMode::Ask).unwrap(),
        conversation_id: conversation.clone(),
        marker: Arc::new(ConversationMarker::new(
            store.clone(),
            conversation_rules,
            Arc::new(NoEvents),
        )),
        web: None,
        shell: ShellSetup {
            launcher: None,
            timeout: std::time::Duration::from_secs(30),
        },
        home: Some(world.home.clone()),
        cancel: tokio_util::sync::CancellationToken::new(),
        redactor: ploy_secrets::Redactor::empty(),
        host_door: std::sync::Arc::new(ploy_agent::tool::HostDoor::new(Some(
            ploy_secrets::SecretSet::new(),
        ))),
    };
    let dispatcher = ploy_agent::dispatch::Dispatcher::new(
        policy,
        ploy_agent::tools::builtin_registry().unwrap(),
        ploy_secrets::Redactor::empty(),
        store.clone(),
        world.key(),
    );
    (dispatcher, ctx, store, conversation)
}

// proves: TAINT-2 (the stored state is re-read once per tool call, before
// the call is judged: a mark another process wrote between two calls
// applies to the second)
// proves: PERM-3
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_dispatched_call_is_judged_with_the_marks_stored_before_it() {
    use ploy_agent::approve::NoPerson;
    use ploy_agent::event::NoEvents;
    use ploy_agent::history::ToolCall;

    let world = World::new();
    let (dispatcher, ctx, _store, conversation) = open_dispatcher(
        &world,
        &[Rule::new(ActionKind::Shell, Effect::Allow, "touch *")],
    );
    let touch = |name: &str| {
        ToolCall::function(
            name,
            "shell",
            &serde_json::json!({"command": format!("touch {name}.txt")}),
        )
    };
    let first = dispatcher
        .dispatch(&touch("first"), &ctx, &NoPerson, &NoEvents)
        .await;
    assert!(first.ok, "clean: the rule allows: {first:?}");
    assert!(world.project.join("first.txt").exists());

    another_process_reads_a_page(&world, &conversation);

    let second = dispatcher
        .dispatch(&touch("second"), &ctx, &NoPerson, &NoEvents)
        .await;
    assert!(!second.ok, "tainted: the shell must not run: {second:?}");
    assert_eq!(
        second.decision.as_ref().map(|d| d.verdict.as_str()),
        Some("ask"),
        "{second:?}"
    );
    assert!(!world.project.join("second.txt").exists());
}

// proves: TAINT-2 (when the stored state cannot be re-read, the call is
// refused before anything of it is judged or run, and the conversation
// counts as tainted from then on)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_is_refused_when_the_stored_marks_cannot_be_read() {
    use ploy_agent::approve::NoPerson;
    use ploy_agent::event::NoEvents;
    use ploy_agent::history::ToolCall;

    let world = World::new();
    let (dispatcher, ctx, store, _) = open_dispatcher(
        &world,
        &[Rule::new(ActionKind::Shell, Effect::Allow, "touch *")],
    );
    // A thread that panics holding the store's lock: every later lock fails.
    let holder = store.clone();
    let _ = std::thread::spawn(move || {
        let _guard = holder.lock().unwrap();
        panic!("poison the store lock");
    })
    .join();
    assert!(store.is_poisoned());

    let call = ToolCall::function(
        "c1",
        "shell",
        &serde_json::json!({"command": "touch unread.txt"}),
    );
    let refused = dispatcher.dispatch(&call, &ctx, &NoPerson, &NoEvents).await;
    assert!(!refused.ok, "{refused:?}");
    assert!(refused.text.contains("TAINT-2"), "{}", refused.text);
    assert!(!world.project.join("unread.txt").exists());
    assert!(dispatcher.policy().is_tainted());
}
