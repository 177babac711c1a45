//! Test support: a scripted OpenAI-compatible model on 127.0.0.1 (a real
//! HTTP server; every request is kept so tests can check what the model
//! saw), a temporary project and home, and a session builder.
//!
//! The "obedient" script reads the newest tool result or user message and
//! does what it says: a line `DO <tool> <json args>` becomes that tool call.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod web;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ploy_agent::approve::NoPerson;
use ploy_agent::config::AgentConfig;
use ploy_agent::event::CollectEvents;
use ploy_agent::session::{Outcome, Resume, Session, SessionSetup};
use ploy_agent::tools::builtin_registry;
use ploy_model::ModelClient;
use ploy_policy::{
    ApprovalMode, ExecutionProfile, PloyFolders, ProjectTrust, Rule, RuleLayer, RuleSource, Rules,
    SandboxMode,
};
use ploy_secrets::Redactor;
use ploy_store::Store;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// What the scripted model answers for one request.
pub type Script = Arc<dyn Fn(&Value, usize) -> Value + Send + Sync>;

/// A running scripted model.
pub struct ScriptedModel {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Value>>>,
}

impl ScriptedModel {
    /// Every request body's text, joined (what the model ever saw).
    pub fn everything_seen(&self) -> String {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Start a scripted model answering with `script(request, index)` (an
/// assistant message object).
pub async fn scripted(script: Script) -> ScriptedModel {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/v1/chat/completions",
        listener.local_addr().unwrap()
    );
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let seen = seen.clone();
            let script = script.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 65536];
                let body = loop {
                    let n = socket.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(end) = find(&buf, b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                        let len: usize = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .map(|v| v.trim().parse().unwrap())
                            .unwrap_or(0);
                        while buf.len() < end + 4 + len {
                            let n = socket.read(&mut chunk).await.unwrap_or(0);
                            if n == 0 {
                                return;
                            }
                            buf.extend_from_slice(&chunk[..n]);
                        }
                        break buf[end + 4..end + 4 + len].to_vec();
                    }
                };
                let request: Value = serde_json::from_slice(&body).unwrap();
                let index = {
                    let mut seen = seen.lock().unwrap();
                    seen.push(request.clone());
                    seen.len() - 1
                };
                let message = script(&request, index);
                let finish = if message.get("tool_calls").is_some() {
                    "tool_calls"
                } else {
                    "stop"
                };
                let reply = json!({
                    "id": format!("r{index}"),
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                })
                .to_string();
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    ScriptedModel { url, requests }
}

/// An assistant message calling one tool.
pub fn call(id: &str, name: &str, args: Value) -> Value {
    json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}],
    })
}

/// An assistant message with text only.
pub fn say(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

/// The newest message's text in a request.
pub fn last_text(request: &Value) -> String {
    request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string()
}

/// The obedient model: it follows every `DO <tool> <json>` line it reads in
/// the newest message (the prompt or a tool result, page text included),
/// one per turn, in order; when none is left it answers "done".
pub fn obedient() -> Script {
    Arc::new(|request: &Value, index: usize| {
        // Every DO line in every message so far, in order; the number of
        // tool results so far says how many were obeyed already.
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let mut orders = Vec::new();
        for message in &messages {
            let text = message["content"].as_str().unwrap_or("");
            // Tool results may be JSON with escaped text: undo the escapes
            // there (the prompt is read as written).
            let text = if message["role"] == "tool" {
                text.replace("\\n", "\n").replace("\\\"", "\"")
            } else {
                text.to_string()
            };
            for line in text.lines() {
                if let Some(rest) = line.trim().strip_prefix("DO ")
                    && let Some((tool, args)) = rest.split_once(' ')
                    && let Ok(args) = serde_json::from_str::<Value>(args)
                {
                    orders.push((tool.to_string(), args));
                }
            }
        }
        let done = messages.iter().filter(|m| m["role"] == "tool").count();
        match orders.get(done) {
            Some((tool, args)) => call(&format!("call{index}"), tool, args.clone()),
            None => say("done"),
        }
    })
}

/// A temporary project (with `src/lib.rs` and `.git/hooks/`) and home.
pub struct World {
    pub dir: tempfile::TempDir,
    pub project: PathBuf,
    pub home: PathBuf,
    pub state: PathBuf,
}

impl World {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let project = base.join("proj");
        let home = base.join("home");
        let state = base.join("state");
        for d in [&project, &home, &state] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
        std::fs::write(
            project.join("src/lib.rs"),
            "pub fn answer() -> u32 { 42 }\n",
        )
        .unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE-KEY-CANARY-0123456789\n").unwrap();
        Self {
            dir,
            project,
            home,
            state,
        }
    }

    pub fn db(&self) -> PathBuf {
        self.state.join("ploy.db")
    }

    pub fn store(&self) -> Store {
        Store::open(self.db()).unwrap()
    }

    pub fn key(&self) -> String {
        self.project.to_string_lossy().into_owned()
    }
}

/// Rules: the built-in defaults plus a user layer.
pub fn rules(user: &[Rule]) -> Rules {
    let layer = RuleLayer::new(RuleSource::User, user.to_vec()).unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

/// Options of one test run.
pub struct Run {
    pub rules: Rules,
    pub redactor: Redactor,
    pub config: AgentConfig,
    pub resume: Resume,
    pub profile: ExecutionProfile,
    pub web: Option<ploy_agent::tools::web::WebSetup>,
}

impl Run {
    pub fn new(rules: Rules) -> Self {
        Self {
            rules,
            redactor: Redactor::empty(),
            config: AgentConfig::default(),
            resume: Resume::New,
            // The agent crate's tests have no sandbox launcher (the test
            // binary is not one); `shell` runs on the host here. The CLI's
            // tests run the real sandbox.
            profile: ExecutionProfile::new(SandboxMode::DangerFullAccess, ApprovalMode::Ask)
                .unwrap(),
            web: None,
        }
    }
}

/// Run one prompt in `world` against `model`; returns the outcome, the
/// events and the conversation id.
pub async fn run_prompt(
    world: &World,
    model: &ScriptedModel,
    run: Run,
    prompt: &str,
) -> (Outcome, Arc<CollectEvents>, String) {
    let events = Arc::new(CollectEvents::default());
    let setup = SessionSetup {
        store: world.store(),
        project: world.project.clone(),
        rules: run.rules,
        profile: run.profile,
        redactor: run.redactor,
        web: run.web,
        model: ModelClient::from_url(&model.url, "scripted").unwrap(),
        config: run.config,
        resume: run.resume,
        title: prompt.lines().next().unwrap_or("").to_string(),
        system_prompt: "system".into(),
        events: events.clone(),
        registry: builtin_registry().unwrap(),
        launcher: None,
        home: Some(world.home.clone()),
        ploy_folders: PloyFolders {
            config_dir: Some(world.dir.path().join("config")),
            state_dir: Some(world.state.clone()),
            trust_file: None,
            home: Some(world.home.clone()),
        },
    };
    let mut session = Session::open(setup).unwrap();
    let id = session.conversation_id().to_string();
    let outcome = session
        .prompt(prompt, &NoPerson, &CancellationToken::new())
        .await;
    (outcome, events, id)
}

/// True when `path` exists.
pub fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// Every tool result of a run: (ok, output), in order.
pub fn tool_results(events: &[ploy_agent::event::Event]) -> Vec<(bool, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            ploy_agent::event::Event::ToolResult { ok, output, .. } => Some((*ok, output.clone())),
            _ => None,
        })
        .collect()
}

/// From now on every mark write of `world`'s store fails (as on a full
/// disk), while messages are still stored: a trigger on the marks table.
pub fn fail_mark_writes(world: &World) {
    drop(world.store()); // the schema exists
    rusqlite::Connection::open(world.db())
        .unwrap()
        .execute_batch(
            "CREATE TRIGGER no_marks BEFORE INSERT ON taint_marks
             BEGIN SELECT RAISE(ABORT, 'the disk is full (test)'); END;",
        )
        .unwrap();
}
