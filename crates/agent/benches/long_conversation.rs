//! Memory over a long conversation (issue 11 target: flat within ±10%):
//! one session, 1,000 prompts, each a `read` of a 2 KiB file and an
//! answer (2,000 model calls), against a minimal model on 127.0.0.1 that
//! keeps nothing (so only ploy's memory is measured). Prints the resident
//! set size after turn 100 and after turn 1,000, and their ratio.
//!
//! Run: `cargo bench -p ploy-agent --bench long_conversation` (add
//! `-- TURNS` for another count; the second reading is at the last turn).

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
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
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

/// A model that answers a `read` call to a new user message and text to a
/// tool result, and remembers nothing.
async fn forgetful_model() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/v1/chat/completions",
        listener.local_addr().unwrap()
    );
    tokio::spawn(async move {
        let mut n = 0u64;
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            n += 1;
            let id = n;
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 65536];
                let body = loop {
                    let read = socket.read(&mut chunk).await.unwrap_or(0);
                    if read == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..read]);
                    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                        continue;
                    };
                    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                    let len: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    while buf.len() < end + 4 + len {
                        let read = socket.read(&mut chunk).await.unwrap_or(0);
                        if read == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..read]);
                    }
                    break buf[end + 4..end + 4 + len].to_vec();
                };
                let request: Value = serde_json::from_slice(&body).unwrap_or_default();
                let last_is_tool = request["messages"]
                    .as_array()
                    .and_then(|m| m.last())
                    .is_some_and(|m| m["role"] == "tool");
                let message = if last_is_tool {
                    json!({"role": "assistant", "content": "The file holds 114 lines."})
                } else {
                    json!({"role": "assistant", "content": null, "tool_calls": [{
                        "id": format!("c{id}"), "type": "function",
                        "function": {"name": "read", "arguments": "{\"path\":\"src/lib.rs\"}"}
                    }]})
                };
                let reply = json!({"id": format!("r{id}"), "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
                .to_string();
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    url
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
    let url = runtime.block_on(forgetful_model());
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
    let mut early = 0;
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
    }
    let late = rss_kib();
    let ratio = late as f64 / early as f64;
    println!(
        "long conversation: {turns} turns ({} model calls) in {:.1} s",
        turns * 2,
        started.elapsed().as_secs_f64()
    );
    println!("RSS after turn {early_turn}: {early} KiB");
    println!("RSS after turn {turns}: {late} KiB");
    println!(
        "ratio {ratio:.3} ({:+.1}%; target within ±10%)",
        (ratio - 1.0) * 100.0
    );
}
