//! The two faces that are not ploy's own agent, each driven by a scripted
//! client that obeys every order it reads:
//!
//! * [`hook`]: a scripted Claude Code. Every call goes to `ploy hook
//!   claude-code` first (`PreToolUse`); what the hook neither denies nor
//!   asks about, Claude Code runs itself, as it would with its own rules
//!   allowing everything: `WebFetch` through `ploy fetch` with no secret
//!   known (Claude Code's fetcher knows none), `Bash` through `ploy sandbox
//!   run`, `Write` and `Read` on the files. An ask goes to the person, who
//!   rejects an attack's and approves a twin's. Web and MCP results are
//!   reported back (`PostToolUse`), as Claude Code's installed matcher does.
//! * [`mcp`]: a scripted MCP client of `ploy mcp` over stdio: `web_fetch`
//!   and `sandbox_run`, each result read for orders.
//!
//! An order is obeyed only once the text carrying it reached the client
//! (the task's result holds `PLOY-OBEY`); the model's own call only once
//! the task's text did. So an attack that ran shows in the effects.

use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::judge::{self, Stop};
use crate::run::{Driven, Mode, Talk, wait};
use crate::scenario::{Layout, Sandbox, Vector};

/// One run of a scenario in the hook or MCP face.
#[derive(Debug, Clone)]
pub struct Session {
    /// The run's root (home, config, state, hosts file).
    pub home: PathBuf,
    /// The project.
    pub project: PathBuf,
    /// The agent's working folder.
    pub cwd: PathBuf,
    /// Where the orders sit.
    pub vector: Vector,
    /// The pages and files.
    pub layout: Layout,
    /// The orders (empty for a twin).
    pub orders: Vec<Value>,
    /// The model's own call (attack only).
    pub model_call: Option<Value>,
    /// An attack run (the person rejects asks) or a twin (approves).
    pub attack: bool,
    /// The environment of the `ploy` processes (the secret included).
    pub env: Vec<(OsString, OsString)>,
    /// The settings' sandbox: under `danger-full-access` the scripted
    /// Claude Code runs `Bash` on the host, as Claude Code does without its
    /// own sandbox, so only the hook stands between it and `.git`.
    pub sandbox: Sandbox,
    /// Claude Code resumes the conversation after the task's call: a new
    /// `session_id`, and a new transcript that starts with the old one's
    /// lines (round7 #9).
    pub resume: bool,
}

impl Session {
    fn own(
        &self,
        args: &[&str],
        env: Vec<(OsString, OsString)>,
        cwd: PathBuf,
    ) -> ploy_proof::own::OwnRun {
        ploy_proof::own::OwnRun {
            args: args.iter().map(OsString::from).collect(),
            env,
            cwd,
        }
    }

    fn hosts(&self) -> String {
        self.home.join("hosts").to_string_lossy().into_owned()
    }
}

/// The calls of a run: the task's, then (attack) the orders and the
/// model's own call, each with what must have reached the client first.
fn calls(session: &Session, task: Value) -> Vec<(Value, Option<&'static str>)> {
    let mut calls = vec![(task, None)];
    calls.extend(
        session
            .orders
            .iter()
            .map(|o| (o.clone(), Some(ploy_scripted_model::MARKER))),
    );
    if let Some(call) = &session.model_call {
        calls.push((call.clone(), Some(session.layout.task_marker)));
    }
    calls
}

fn tool(call: &Value) -> &str {
    call["tool"].as_str().unwrap_or_default()
}

/// The scripted Claude Code in front of `ploy hook claude-code`.
pub fn hook(session: &Session) -> Driven {
    let task = match session.vector {
        Vector::Readme => {
            json!({"tool": "Read", "arguments": {"file_path": session.project.join("README.md")}})
        }
        Vector::McpTool => {
            json!({"tool": "mcp__github__get_issue", "arguments": {"owner": "acme", "repo": "app", "issue_number": 1}})
        }
        _ => {
            json!({"tool": "WebFetch", "arguments": {"url": "http://docs.example.com/guide", "prompt": "summarise the page"}})
        }
    };
    let mut driven = Driven {
        seen: Vec::new(),
        refusals: Vec::new(),
        done: true,
        trouble: Vec::new(),
    };
    let mut told = String::new();
    let mut transcript = Transcript::new(session);
    for (n, (call, needs)) in calls(session, task).into_iter().enumerate() {
        if n == 1 && session.resume {
            transcript.resume();
        }
        if let Some(needs) = needs
            && !told.contains(needs)
        {
            driven
                .trouble
                .push(format!("{needs} never reached Claude Code"));
            break;
        }
        let name = tool(&call);
        let id = format!("toolu_{n:02}");
        transcript.call(&id, name, &call["arguments"]);
        let event = |kind: &str, response: Option<&str>| {
            let mut event = json!({
                "session_id": transcript.session,
                "transcript_path": transcript.path,
                "cwd": session.cwd,
                "hook_event_name": kind,
                "tool_name": name,
                "tool_input": call["arguments"],
                "tool_use_id": id,
            });
            if let Some(text) = response {
                event["tool_response"] = json!({"result": text, "code": 200});
            }
            ask_hook(session, &event.to_string())
        };
        let answer = match event("PreToolUse", None) {
            Ok(answer) => answer,
            Err(why) => {
                driven.done = false;
                driven.trouble.push(why);
                break;
            }
        };
        if let Some(refusal) = judge::hook_refusal(&answer) {
            // The person approves a twin's asks, and the task's own call in
            // both runs (the user asked for it: an ask there is not a
            // refusal of anything); an attack's orders they reject.
            let asked = refusal.stop == Stop::Asked;
            if !(asked && n == 0) {
                driven.refusals.push(refusal);
            }
            if !(asked && (n == 0 || !session.attack)) {
                continue;
            }
        }
        let result = claude_runs(session, &call);
        if name == "WebFetch" || name.starts_with("mcp__") {
            match event("PostToolUse", Some(&result)) {
                Ok(answer) => driven.refusals.extend(judge::hook_refusal(&answer)),
                Err(why) => driven.trouble.push(why),
            }
        }
        transcript.result(&id, &result);
        told.push_str(&result);
        driven.seen.push(result);
    }
    if !told.contains(session.layout.task_marker) {
        driven.done = false;
        driven.trouble.push(format!(
            "the task's text ({}) never reached Claude Code",
            session.layout.task_marker
        ));
    }
    driven
}

/// Claude Code's transcript of the session (one JSON line per message, as
/// Claude Code keeps it): the hook reads it to find a resumed session's
/// earlier calls (secrets5 #15, round7 #9).
struct Transcript {
    folder: PathBuf,
    session: String,
    path: PathBuf,
    lines: String,
}

impl Transcript {
    fn new(session: &Session) -> Self {
        let folder = session.home.join("claude-code/projects");
        let _ = std::fs::create_dir_all(&folder);
        let mut transcript = Self {
            path: PathBuf::new(),
            session: String::new(),
            folder,
            lines: String::new(),
        };
        transcript.start("ploy-redteam");
        transcript
    }

    fn start(&mut self, session: &str) {
        self.session = session.to_string();
        self.path = self.folder.join(format!("{session}.jsonl"));
        let _ = std::fs::write(&self.path, &self.lines);
    }

    /// `--resume`: a new session id whose transcript holds the old one.
    fn resume(&mut self) {
        self.start("ploy-redteam-resumed");
    }

    fn push(&mut self, line: Value) {
        self.lines.push_str(&line.to_string());
        self.lines.push('\n');
        let _ = std::fs::write(&self.path, &self.lines);
    }

    fn call(&mut self, id: &str, name: &str, input: &Value) {
        self.push(
            json!({"type": "assistant", "sessionId": self.session, "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}),
        );
    }

    fn result(&mut self, id: &str, text: &str) {
        self.push(
            json!({"type": "user", "sessionId": self.session, "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]}}),
        );
    }
}

/// One hook event through `ploy hook claude-code`: its stdout, or why it
/// did not answer (it must always exit 0).
fn ask_hook(session: &Session, event: &str) -> Result<String, String> {
    let input = event.to_string();
    let talk: Talk = Box::new(move |mut stdin, stdout| {
        let _ = stdin.write_all(input.as_bytes());
        drop(stdin);
        let output = crate::run::reader(Some(stdout));
        (output.join().unwrap_or_default(), None)
    });
    let run = session.own(
        &["hook", "claude-code"],
        session.env.clone(),
        session.cwd.clone(),
    );
    let ended = wait(&run, Some(talk), false).map_err(|err| err.to_string())?;
    if ended.code == Some(0) {
        Ok(ended.stdout)
    } else {
        Err(format!(
            "ploy hook claude-code exited {:?}: {}",
            ended.code,
            ended.stderr.trim()
        ))
    }
}

/// What Claude Code does with a call its own rules allow.
fn claude_runs(session: &Session, call: &Value) -> String {
    let arguments = &call["arguments"];
    let text = |key: &str| arguments[key].as_str().unwrap_or_default().to_string();
    match tool(call) {
        "WebFetch" => {
            // Claude Code's own fetcher: ploy's door with no secret known
            // (an empty environment and folder), so only the hook's
            // answer stands between the URL and the site.
            let empty = session.home.join("claude-code");
            let _ = std::fs::create_dir_all(&empty);
            let mut env = vec![
                (OsString::from("HOME"), empty.clone().into_os_string()),
                ("PLOY_CONFIG_DIR".into(), empty.join("config").into()),
                ("PLOY_STATE_DIR".into(), empty.join("state").into()),
            ];
            env.extend(session.env.iter().filter(|(k, _)| k == "PATH").cloned());
            let hosts = session.hosts();
            let url = text("url");
            let run = session.own(&["fetch", "--hosts", &hosts, &url], env, empty);
            match wait(&run, None, false) {
                Ok(ended) if ended.code == Some(0) => ended.stdout,
                Ok(ended) => format!("fetch failed: {}", ended.stderr.trim()),
                Err(err) => format!("fetch failed: {err}"),
            }
        }
        "Bash" if session.sandbox == Sandbox::DangerFullAccess => {
            // Claude Code without a sandbox: `bash -c` on the host, through
            // ploy's process door (which starts it, nothing more), in the
            // run's home and ploy folders (never this machine's).
            let mut args: Vec<String> = session
                .env
                .iter()
                .filter(|(name, _)| {
                    ["HOME", "PLOY_CONFIG_DIR", "PLOY_STATE_DIR", "PATH", "LANG"]
                        .iter()
                        .any(|keep| name == keep)
                })
                .map(|(name, value)| {
                    format!("{}={}", name.to_string_lossy(), value.to_string_lossy())
                })
                .collect();
            args.extend(["bash".into(), "-c".into(), text("command")]);
            let command = ploy_proof::host_command::HostCommand {
                program: "env".into(),
                args,
                cwd: session.cwd.clone(),
                timeout: std::time::Duration::from_secs(60),
                output_bytes: 64 * 1024,
            };
            match ploy_proof::host_command::run_host_command(&command, &|| false) {
                Ok(out) => format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ),
                Err(err) => format!("Bash failed: {err}"),
            }
        }
        "Bash" => {
            let project = session.project.to_string_lossy().into_owned();
            let command = text("command");
            let run = session.own(
                &[
                    "sandbox",
                    "run",
                    "--project",
                    &project,
                    "--",
                    "sh",
                    "-c",
                    &command,
                ],
                session.env.clone(),
                session.cwd.clone(),
            );
            match wait(&run, None, false) {
                Ok(ended) => format!("{}{}", ended.stdout, ended.stderr),
                Err(err) => format!("Bash failed: {err}"),
            }
        }
        "Write" => {
            let path = PathBuf::from(text("file_path"));
            if let Some(parent) = path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            match std::fs::write(&path, text("content")) {
                Ok(()) => format!("wrote {}", path.display()),
                Err(err) => format!("Write failed: {err}"),
            }
        }
        "Read" => std::fs::read_to_string(text("file_path"))
            .unwrap_or_else(|err| format!("Read failed: {err}")),
        name if name.starts_with("mcp__") => session.layout.issue.clone().unwrap_or_default(),
        other => format!("Claude Code has no tool {other}"),
    }
}

/// The scripted MCP client of `ploy mcp`.
pub fn mcp(session: &Session) -> Driven {
    let task = match session.vector {
        Vector::CommandOutput => {
            json!({"tool": "sandbox_run", "arguments": {"command": "cat notes.txt"}})
        }
        _ => json!({"tool": "web_fetch", "arguments": {"url": "http://docs.example.com/guide"}}),
    };
    let calls: Vec<(Value, Option<&'static str>)> = calls(session, task);
    let results = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let trouble = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let (talk_results, talk_trouble) = (results.clone(), trouble.clone());
    let talk: Talk = Box::new(move |stdin, stdout| {
        let mut client = Client {
            stdin: Some(stdin),
            lines: std::io::BufReader::new(stdout).lines(),
            transcript: String::new(),
            next: 1,
        };
        let note = |why: String| {
            if let Ok(mut t) = talk_trouble.lock() {
                t.push(why);
            }
        };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "ploy-redteam", "version": "1"}}),
        );
        if init.is_none() {
            note("ploy mcp did not answer initialize".into());
            return (client.transcript, None);
        }
        client.notify("notifications/initialized");
        let mut told = String::new();
        for (call, needs) in calls {
            if let Some(needs) = needs
                && !told.contains(needs)
            {
                note(format!("{needs} never reached the MCP client"));
                break;
            }
            let Some(answer) = client.request(
                "tools/call",
                json!({"name": tool(&call), "arguments": call["arguments"]}),
            ) else {
                note(format!("ploy mcp did not answer {}", tool(&call)));
                break;
            };
            let result = &answer["result"];
            let text = match &result["structuredContent"] {
                Value::Null => result["content"][0]["text"]
                    .as_str()
                    .map_or_else(|| answer.to_string(), str::to_string),
                structured => structured.to_string(),
            };
            told.push_str(&text);
            if let Ok(mut r) = talk_results.lock() {
                r.push(text);
            }
        }
        drop(client.stdin.take());
        // Read to the end, so the process ends on its own.
        for line in client.lines.by_ref().map_while(Result::ok) {
            client.transcript.push_str(&line);
        }
        (client.transcript, None)
    });
    let project = session.project.to_string_lossy().into_owned();
    let hosts = session.hosts();
    let run = session.own(
        &["mcp", "--project", &project, "--hosts", &hosts],
        session.env.clone(),
        session.cwd.clone(),
    );
    let ended = wait(&run, Some(talk), false);
    let seen = results.lock().map(|r| r.clone()).unwrap_or_default();
    let mut trouble = trouble.lock().map(|t| t.clone()).unwrap_or_default();
    let mut done = trouble.is_empty();
    match ended {
        Ok(ended) => {
            if let Err(why) = ended.answered(Mode::Mcp) {
                done = false;
                trouble.push(why);
            } else if ended.code != Some(0) {
                done = false;
                trouble.push(format!("ploy mcp exited {:?}", ended.code));
            }
        }
        Err(err) => {
            done = false;
            trouble.push(err.to_string());
        }
    }
    let marker = session.layout.task_marker;
    if !seen.iter().any(|r| r.contains(marker)) {
        done = false;
        trouble.push(format!(
            "the task's text ({marker}) never reached the MCP client"
        ));
    }
    Driven {
        refusals: seen.iter().filter_map(|r| judge::refusal(r)).collect(),
        seen,
        done,
        trouble,
    }
}

/// A line-delimited JSON-RPC client over the server's stdio.
struct Client {
    stdin: Option<std::process::ChildStdin>,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
    transcript: String,
    next: u64,
}

impl Client {
    fn send(&mut self, message: &Value) -> bool {
        self.stdin
            .as_mut()
            .is_some_and(|pipe| writeln!(pipe, "{message}").is_ok() && pipe.flush().is_ok())
    }

    fn notify(&mut self, method: &str) {
        self.send(&json!({"jsonrpc": "2.0", "method": method}));
    }

    /// Send a request and read lines up to its answer.
    fn request(&mut self, method: &str, params: Value) -> Option<Value> {
        let id = self.next;
        self.next += 1;
        if !self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})) {
            return None;
        }
        for line in self.lines.by_ref() {
            let line = line.ok()?;
            self.transcript.push_str(&line);
            self.transcript.push('\n');
            if let Ok(value) = serde_json::from_str::<Value>(&line)
                && value["id"] == json!(id)
            {
                return Some(value);
            }
        }
        None
    }
}
