//! `ploy serve`, `ploy status`, `ploy exec` as a user runs them (SVC-1, GW-4,
//! ADMIN-10, CONFIG-1). Real processes, real loopback sockets, temp folders.
#![allow(clippy::disallowed_methods)] // runs the ploy binary, `kill`, and test sockets
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use ploy_testkit::scripted_model::{Script, ScriptedModel, Turn, serve_in_thread};
use support::{TempDir, collect, files_under};

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A temp root with `config/`; the state folder is left to the service.
fn dirs() -> TempDir {
    let dirs = TempDir::new("service");
    std::fs::create_dir_all(dirs.config()).unwrap();
    dirs
}

fn ploy(dirs: &TempDir) -> Command {
    let mut command = support::ploy(dirs.path());
    command.env("PLOY_LOG", "trace");
    command
}

fn run(dirs: &TempDir, args: &[&str]) -> Output {
    ploy(dirs).args(args).output().unwrap()
}

/// A loopback OpenAI-compatible upstream (the scripted model) answering
/// `hello from upstream` to every request.
fn fake_upstream() -> ScriptedModel {
    serve_in_thread(Script::new().repeat(Turn::text("hello from upstream"))).unwrap()
}

fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "ploy serve did not stop");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn gateway_post(port: u16, token: &str) -> String {
    let body = r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#;
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nauthorization: Bearer {token}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

// proves: SVC-1, GW-4
#[test]
fn serve_status_exec_and_sigterm_end_to_end() {
    let dirs = dirs();
    let model = fake_upstream();
    let upstream = model.url();
    // A stale file from a dead service (pid above pid_max) is cleaned at start.
    std::fs::create_dir_all(dirs.state()).unwrap();
    let stale = dirs.state().join("service-999999999.json");
    std::fs::write(&stale, b"{}").unwrap();

    let mut serve = ploy(&dirs)
        .args(["serve", "--upstream", &upstream])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let serve_out = collect(serve.stdout.take().unwrap());
    let serve_err = collect(serve.stderr.take().unwrap());
    let file = dirs.state().join(format!("service-{}.json", serve.id()));
    wait_for("the ready line", || {
        serve_out.lock().unwrap().contains("running")
    });
    assert!(file.exists());
    assert!(!stale.exists(), "stale service file not cleaned");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "service file must be owner-only");
    let contents: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let password = contents["password"].as_str().unwrap().to_string();
    assert_eq!(password.len(), 64);

    // status --json: running, the ports, never a secret.
    let status = run(&dirs, &["status", "--json"]);
    assert!(status.status.success(), "{status:?}");
    let stdout = String::from_utf8(status.stdout).unwrap();
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(report["running"], true);
    assert_eq!(report["pid"], serve.id());
    assert_eq!(report["api_port"], contents["api_port"]);
    assert_eq!(report["gateway_port"], contents["gateway_port"]);
    assert!(!stdout.contains(&password));
    let human = run(&dirs, &["status"]);
    assert!(String::from_utf8_lossy(&human.stdout).contains("running"));

    // exec: the child gets OPENAI_BASE_URL and OPENAI_API_KEY.
    let exec = run(
        &dirs,
        &[
            "exec",
            "--",
            "sh",
            "-c",
            r#"printf '%s\n%s\n' "$OPENAI_BASE_URL" "$OPENAI_API_KEY""#,
        ],
    );
    assert!(exec.status.success(), "{exec:?}");
    let printed = String::from_utf8(exec.stdout).unwrap();
    let mut lines = printed.lines();
    let base_url = lines.next().unwrap().to_string();
    let token = lines.next().unwrap().to_string();
    let gateway_port = contents["gateway_port"].as_u64().unwrap() as u16;
    assert_eq!(base_url, format!("http://127.0.0.1:{gateway_port}/v1"));
    assert_eq!(token.len(), 64);
    assert_ne!(token, password);
    assert!(!String::from_utf8_lossy(&exec.stderr).contains(&token));
    // The exit code passes through.
    let code = run(&dirs, &["exec", "--", "sh", "-c", "exit 5"]);
    assert_eq!(code.status.code(), Some(5));
    // The token works at the gateway (through to the upstream).
    let answer = gateway_post(gateway_port, &token);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("hello from upstream"));

    // A second `ploy serve` while the first is alive: a clear error.
    let second = run(&dirs, &["serve"]);
    assert!(!second.status.success());
    let second_err = String::from_utf8_lossy(&second.stderr);
    assert!(second_err.contains("already running"), "{second_err}");
    assert!(second_err.contains(&serve.id().to_string()), "{second_err}");

    // SIGTERM: clean stop, service file removed.
    let killed = Command::new("kill")
        .args(["-TERM", &serve.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let exit = wait_exit(&mut serve);
    assert!(exit.success(), "{exit:?}");
    assert!(!file.exists(), "service file left after SIGTERM");
    std::thread::sleep(Duration::from_millis(100));

    // GW-4 canary: neither secret in any file under the state and config
    // folders, nor in any line the service printed or logged (PLOY_LOG=trace).
    for path in files_under(&dirs.state())
        .into_iter()
        .chain(files_under(&dirs.config()))
    {
        let bytes = std::fs::read(&path).unwrap();
        for secret in [&token, &password] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "a secret is in {}",
                path.display()
            );
        }
    }
    let logged = format!("{}{}", serve_out.lock().unwrap(), serve_err.lock().unwrap());
    assert!(logged.contains("running"));
    assert!(!logged.contains(&token), "token in the service's output");
    assert!(
        !logged.contains(&password),
        "password in the service's output"
    );

    let after = run(&dirs, &["status", "--json"]);
    assert_eq!(after.status.code(), Some(3));
    let report: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&after.stdout).trim()).unwrap();
    assert_eq!(report["running"], false);
}

// proves: ADMIN-10, GW-1
#[test]
fn serve_refuses_public_and_lan_binds() {
    let dirs = dirs();
    for (flag, addr, id) in [
        ("--listen", "0.0.0.0:0", "ADMIN-10"),
        ("--listen", "192.168.1.23:0", "ADMIN-10"),
        ("--listen", "10.0.0.5:8080", "ADMIN-10"),
        ("--listen", "[::]:0", "ADMIN-10"),
        ("--gateway-listen", "0.0.0.0:0", "ADMIN-10"),
        ("--gateway-listen", "192.168.1.23:0", "GW-1"),
        ("--gateway-listen", "[::1]:0", "GW-1"),
    ] {
        let output = run(&dirs, &["serve", flag, addr]);
        assert_eq!(output.status.code(), Some(2), "{flag} {addr}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("refusing"), "{flag} {addr}: {stderr}");
        assert!(stderr.contains(id), "{flag} {addr}: {stderr}");
        assert!(
            files_under(&dirs.state()).is_empty(),
            "a refused serve wrote files"
        );
    }
}

// proves: CONFIG-1, GW-1
#[test]
fn serve_config_errors_name_the_key() {
    let dirs = dirs();
    let config = dirs.config().join("service.json");
    std::fs::write(&config, r#"{"service":{"lissten":"127.0.0.1:0"}}"#).unwrap();
    let output = run(&dirs, &["serve", "--config", config.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("lissten"));
    let output = run(
        &dirs,
        &[
            "serve",
            "--upstream",
            "http://192.168.1.5:11434/v1/chat/completions",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("GW-1") && stderr.contains("loopback"),
        "{stderr}"
    );
}

// proves: GW-4
#[test]
fn exec_and_status_without_a_service() {
    let dirs = dirs();
    let exec = run(&dirs, &["exec", "--", "true"]);
    assert_eq!(exec.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&exec.stderr).contains("no ploy service is running"));
    let status = run(&dirs, &["status"]);
    assert_eq!(status.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&status.stdout).contains("not running"));
}

fn write_user_settings(dirs: &TempDir, text: &str) -> PathBuf {
    dirs.write_settings(text)
}

// proves: CONFIG-1, ADMIN-10
#[test]
fn serve_reads_the_user_settings_service_section_and_fails_loudly_on_a_bad_one() {
    let dirs = dirs();
    // An unknown key inside `service` names the key and the file.
    let path = write_user_settings(&dirs, r#"{"service": {"lissten": "127.0.0.1:0"}}"#);
    let output = run(&dirs, &["serve"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("lissten") && stderr.contains(path.to_str().unwrap()),
        "{stderr}"
    );
    // A value from the section is really applied: a public bind is refused.
    write_user_settings(&dirs, r#"{"service": {"listen": "10.1.2.3:0"}}"#);
    let output = run(&dirs, &["serve"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("ADMIN-10"));
    // A section that is not an object, and a malformed file: loud errors.
    for text in [
        r#"{"service": "127.0.0.1:0"}"#,
        r#"{"service": {"#,
        r#"{"servic": {}}"#,
    ] {
        write_user_settings(&dirs, text);
        let output = run(&dirs, &["serve"]);
        assert_eq!(output.status.code(), Some(2), "{text}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("CONFIG-1"), "{text}: {stderr}");
    }
    // `--config` wins: the broken user section is not read at all.
    write_user_settings(&dirs, r#"{"service": {"lissten": "127.0.0.1:0"}}"#);
    let config = dirs.config().join("service.json");
    std::fs::write(&config, r#"{"service":{"listen":"10.1.2.3:0"}}"#).unwrap();
    let output = run(&dirs, &["serve", "--config", config.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ADMIN-10") && !stderr.contains("lissten"),
        "{stderr}"
    );
}

// proves: CONFIG-1
#[test]
fn serve_listens_where_the_user_settings_say_and_runs_without_a_settings_file() {
    let dirs = dirs();
    let port = {
        let probe = TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    write_user_settings(
        &dirs,
        &format!(r#"{{"service": {{"listen": "127.0.0.1:{port}"}}}}"#),
    );
    for with_settings in [true, false] {
        if !with_settings {
            std::fs::remove_file(dirs.config().join("settings.json")).unwrap();
        }
        let mut serve = ploy(&dirs)
            .arg("serve")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let serve_out = collect(serve.stdout.take().unwrap());
        let serve_err = collect(serve.stderr.take().unwrap());
        let started = Instant::now();
        while !serve_out.lock().unwrap().contains("running")
            && serve.try_wait().unwrap().is_none()
            && started.elapsed() < Duration::from_secs(20)
        {
            std::thread::sleep(Duration::from_millis(25));
        }
        let line = serve_out.lock().unwrap().clone();
        let _ = serve.kill();
        let _ = serve.wait();
        assert!(
            line.contains("running"),
            "{line} / {}",
            serve_err.lock().unwrap()
        );
        let on_port = line.contains(&format!("api http://127.0.0.1:{port} "));
        assert_eq!(on_port, with_settings, "{line}");
    }
}
