//! Memory over a long conversation (issue 11 target: flat within ±10%):
//! one session, 1,000 prompts, each a `read` of a 2 KiB file and an
//! answer (2,000 model calls), against the shared scripted model on
//! 127.0.0.1, forgetful (it keeps nothing, so only ploy's memory grows).
//! Prints the resident set size after turns 100, 500 and 1,000 (a tenth,
//! half and all of the count), and the ratio of the last to the first.
//!
//! Run: `cargo bench -p ploy-agent --bench long_conversation` (add
//! `-- TURNS` for another count).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)] // benchmark setup

use std::sync::Arc;

use ploy_agent::approve::NoPerson;
use ploy_agent::config::AgentConfig;
use ploy_agent::event::NoEvents;
use ploy_agent::session::{Resume, Session, SessionSetup};
use ploy_agent::tools::builtin_registry;
use ploy_model::ModelClient;
use ploy_policy::{ApprovalMode, ExecutionProfile, PloyFolders, Rules, SandboxMode};
use ploy_secrets::Redactor;
use ploy_store::Store;
use ploy_testkit::scripted_model::{Matcher, Script, Turn, serve};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The resident set size in KiB (`VmRSS` of /proc/self/status).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// The shared scripted model, forgetful: a `read` call for each new user
/// message, text for a `read` result; it records nothing, so only ploy's
/// memory grows.
fn forgetful_script() -> Script {
    Script::new()
        .on(
            Matcher::ResultOf("read".into()),
            Turn::text("The file holds 114 lines."),
        )
        .repeat(Turn::call("read", json!({"path": "src/lib.rs"})))
        .forgetful()
}

fn main() {
    let turns: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let project = base.join("proj");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("src/lib.rs"),
        "// a line of code\n".repeat(114),
    )
    .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let model = runtime.block_on(serve(forgetful_script())).unwrap();
    let url = model.url();
    let mut session = Session::open(SessionSetup {
        store: Store::open(base.join("ploy.db")).unwrap(),
        project: project.clone(),
        rules: Rules::builtin(),
        profile: ExecutionProfile::new(SandboxMode::WorkspaceWrite, ApprovalMode::Ask).unwrap(),
        redactor: Redactor::empty(),
        web: None,
        model: ModelClient::from_url(&url, "forgetful").unwrap(),
        config: AgentConfig::default(),
        resume: Resume::New,
        title: "long".into(),
        system_prompt: "You read files.".into(),
        events: Arc::new(NoEvents),
        registry: builtin_registry().unwrap(),
        launcher: None,
        home: None,
        ploy_folders: PloyFolders::default(),
    })
    .unwrap();
    let early_turn = (turns / 10).max(1);
    let middle_turn = (turns / 2).max(1);
    let (mut early, mut middle) = (0, 0);
    let started = std::time::Instant::now();
    for turn in 1..=turns {
        let outcome = runtime.block_on(session.prompt(
            &format!("Turn {turn}: how long is src/lib.rs?"),
            &NoPerson,
            &CancellationToken::new(),
        ));
        assert_eq!(outcome.exit_code(), 0, "turn {turn}: {outcome:?}");
        if turn == early_turn {
            early = rss_kib();
        }
        if turn == middle_turn {
            middle = rss_kib();
        }
    }
    let late = rss_kib();
    let ratio = late as f64 / early as f64;
    println!(
        "long conversation: {turns} turns ({} model calls) in {:.1} s",
        turns * 2,
        started.elapsed().as_secs_f64()
    );
    println!("RSS after turn {early_turn}: {early} KiB");
    println!("RSS after turn {middle_turn}: {middle} KiB");
    println!("RSS after turn {turns}: {late} KiB");
    println!(
        "ratio {ratio:.3} ({:+.1}%; target within ±10%)",
        (ratio - 1.0) * 100.0
    );
}
