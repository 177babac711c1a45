//! The loop's overhead per tool call (issue 11 target: median < 1 ms).
//!
//! * `dispatch+store`: one `read` call through the one path — parse,
//!   the stored marks and approvals re-read (TAINT-2: one `PRAGMA
//!   data_version` when nothing changed), `Tool::prepare`,
//!   `Permission::assert`, the tool's run on a 2 KiB file,
//!   redaction (a redactor that knows 50 secrets), the 50 KiB cap — and the
//!   store's write of the exchange (tool call, decision, result: one
//!   transaction, an ordinary write: `synchronous=NORMAL` in WAL mode; only
//!   durable writes such as a taint mark fsync, see ploy-store), as the
//!   session does it.
//! * `prompt/N calls`: a whole prompt against the scripted model on
//!   127.0.0.1 answering at once: one turn ordering N reads, then the
//!   answer (two model calls for any N). The per-call overhead is
//!   (T(10) − T(1)) / 9.
//!
//! Run: `cargo bench -p ploy-agent --bench tool_call -- --warm-up-time 1 --measurement-time 5`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)] // benchmark setup

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ploy_agent::approve::NoPerson;
use ploy_agent::config::AgentConfig;
use ploy_agent::dispatch::{Dispatcher, Policy};
use ploy_agent::event::NoEvents;
use ploy_agent::history::{Entry, ToolCall};
use ploy_agent::marker::ConversationMarker;
use ploy_agent::session::{Resume, Session, SessionSetup};
use ploy_agent::tool::{ShellSetup, ToolContext};
use ploy_agent::tools::builtin_registry;
use ploy_model::ModelClient;
use ploy_policy::{
    ApprovalMode, ConversationRules, ExecutionProfile, PloyFolders, ProjectRoot, Rules, SandboxMode,
};
use ploy_secrets::Redactor;
use ploy_store::Store;
use ploy_testkit::scripted_model::{Script, Turn, serve};
use serde_json::json;
use tokio_util::sync::CancellationToken;

struct World {
    _dir: tempfile::TempDir,
    project: PathBuf,
    db: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let project = base.join("proj");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("src/lib.rs"),
        "// a line of code\n".repeat(114),
    )
    .unwrap();
    World {
        _dir: dir,
        project,
        db: base.join("ploy.db"),
    }
}

fn redactor() -> Redactor {
    Redactor::new((0..50).map(|i| format!("sk-bench-secret-{i:04}-abcdefghijklmnop"))).0
}

fn dispatch_and_store(c: &mut Criterion) {
    let world = world();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let store = Arc::new(Mutex::new(Store::open(&world.db).unwrap()));
    let key = world.project.to_string_lossy().into_owned();
    let conversation = store
        .lock()
        .unwrap()
        .create_conversation_in("bench", Some(&key))
        .unwrap()
        .id;
    let rules = Arc::new(Mutex::new(ConversationRules::new()));
    let root = ProjectRoot::new(&world.project).unwrap();
    // As `Session::open` wires it: the policy re-reads the stored marks and
    // approvals once per call (TAINT-2).
    let policy = Arc::new(
        Policy::new(root.clone(), Rules::builtin(), rules.clone(), Vec::new())
            .unwrap()
            .reading_store(store.clone(), conversation.clone(), key.clone()),
    );
    let reads = policy.read_gate("shell");
    let dispatcher = Dispatcher::new(
        policy,
        builtin_registry().unwrap(),
        redactor(),
        store.clone(),
        key,
    );
    let ctx = ToolContext {
        project: world.project.clone(),
        root,
        profile: ExecutionProfile::new(SandboxMode::WorkspaceWrite, ApprovalMode::Ask).unwrap(),
        conversation_id: conversation.clone(),
        marker: Arc::new(ConversationMarker::new(
            store.clone(),
            rules,
            Arc::new(NoEvents),
        )),
        web: None,
        shell: ShellSetup {
            launcher: None,
            timeout: std::time::Duration::from_secs(10),
        },
        home: None,
        cancel: CancellationToken::new(),
        reads,
        redactor: redactor(),
        host_door: std::sync::Arc::new(ploy_agent::tool::HostDoor::new(None)),
    };
    let call = ToolCall::function("c1", "read", &json!({"path": "src/lib.rs"}));
    c.bench_function("dispatch+store (read 2 KiB)", |b| {
        b.iter(|| {
            let dispatched =
                runtime.block_on(dispatcher.dispatch(&call, &ctx, &NoPerson, &NoEvents));
            assert!(dispatched.ok);
            let result = Entry::Tool {
                call_id: call.id.clone(),
                text: dispatched.text,
            };
            let (role, content, meta) = result.to_stored();
            store
                .lock()
                .unwrap()
                .record_tool_exchange(
                    &conversation,
                    &call.id,
                    &call.function.name,
                    &dispatched.args,
                    dispatched.decision.as_ref(),
                    role,
                    content,
                    meta.as_deref(),
                )
                .unwrap();
            black_box(());
        })
    });
}

fn prompt_with_calls(c: &mut Criterion) {
    let world = world();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Obedient: the prompt's N orders become one turn of N calls; then the
    // repeated text answers. Forgetful: recording is not what is measured.
    let model = runtime
        .block_on(serve(
            Script::obedient().repeat(Turn::text("done")).forgetful(),
        ))
        .unwrap();
    let mut group = c.benchmark_group("prompt");
    for n in [1usize, 10] {
        let orders: String = (0..n)
            .map(|i| {
                format!(
                    "PLOY-OBEY: {}\n",
                    json!({"tool": "read", "arguments": {"path": "src/lib.rs", "offset": i + 1}})
                )
            })
            .collect();
        group.bench_function(format!("{n} calls"), |b| {
            b.iter_batched(
                || {
                    Session::open(SessionSetup {
                        store: Store::open(&world.db).unwrap(),
                        project: world.project.clone(),
                        rules: Rules::builtin(),
                        profile: ExecutionProfile::new(
                            SandboxMode::WorkspaceWrite,
                            ApprovalMode::Ask,
                        )
                        .unwrap(),
                        redactor: redactor(),
                        web: None,
                        model: ModelClient::from_url(&model.url(), "bench").unwrap(),
                        config: AgentConfig::default(),
                        resume: Resume::New,
                        title: "bench".into(),
                        system_prompt: "bench".into(),
                        events: Arc::new(NoEvents),
                        registry: builtin_registry().unwrap(),
                        launcher: None,
                        home: None,
                        ploy_folders: PloyFolders::default(),
                    })
                    .unwrap()
                },
                |mut session| {
                    let outcome = runtime.block_on(session.prompt(
                        &orders,
                        &NoPerson,
                        &CancellationToken::new(),
                    ));
                    assert_eq!(outcome.exit_code(), 0, "{outcome:?}");
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, dispatch_and_store, prompt_with_calls);
criterion_main!(benches);
