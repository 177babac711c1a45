//! `ploy keys` as a user runs it against a real `ploy serve` (ADMIN-3,
//! ADMIN-5, ADMIN-6, ADMIN-7, ADMIN-10, ADMIN-11, STATE-1, B-5, B-6): keys
//! from standard input only, the admin token from PLOY_ADMIN_TOKEN, the
//! panel's own API and gate, rotation over the service password.
#![allow(clippy::disallowed_methods)] // runs the ploy binary and `kill`
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use support::TempDir;

const ENV_KEY: &str = "tvly-from-env-Ka81Jd73Hs62Ld9e";
const KEY: &str = "tvly-from-stdin-Pw72Qz81Mx03Vb5r";
const NEW_KEY: &str = "tvly-replacement-Yt56Re47Wq38Az2x";

fn collect(reader: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = text.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { return };
            let mut sink = sink.lock().unwrap();
            sink.push_str(&line);
            sink.push('\n');
        }
    });
    text
}

struct Serve {
    child: Child,
    out: Arc<Mutex<String>>,
    err: Arc<Mutex<String>>,
}

impl Serve {
    fn start(dirs: &TempDir, args: &[&str], env: &[(&str, &str)]) -> Serve {
        let mut command = support::ploy(dirs.path());
        command
            .env("PLOY_LOG", "trace")
            .arg("serve")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let out = collect(child.stdout.take().unwrap());
        let err = collect(child.stderr.take().unwrap());
        let deadline = Instant::now() + Duration::from_secs(20);
        while !out.lock().unwrap().contains("running") {
            assert!(
                Instant::now() < deadline,
                "ploy serve did not start: {}",
                err.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
        Serve { child, out, err }
    }

    fn stop(mut self) -> String {
        Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        let _ = self.child.wait();
        std::thread::sleep(Duration::from_millis(100));
        format!("{}{}", self.out.lock().unwrap(), self.err.lock().unwrap())
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// `ploy keys ARGS` in a new session (no controlling terminal, so no
/// prompt can open), with `token` as PLOY_ADMIN_TOKEN and `stdin` piped in.
fn keys(dirs: &TempDir, args: &[&str], token: Option<&str>, stdin: &[u8]) -> Output {
    let mut command = Command::new("setsid");
    command.arg("-w").arg(support::PLOY).arg("keys").args(args);
    support::point_at(&mut command, dirs.path());
    command.env_remove("PLOY_ADMIN_TOKEN");
    if let Some(token) = token {
        command.env("PLOY_ADMIN_TOKEN", token);
    }
    support::run_with_input(&mut command, stdin)
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn rotate(dirs: &TempDir) -> String {
    let output = keys(dirs, &["admin-token", "--rotate", "--json"], None, b"");
    assert!(output.status.success(), "{}", text(&output));
    let value: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim()).unwrap();
    value["admin_token"].as_str().unwrap().to_owned()
}

// proves: ADMIN-3, ADMIN-6, ADMIN-7, ADMIN-11, STATE-1, B-5
#[test]
fn keys_commands_go_through_the_panel_and_no_key_reaches_a_file_or_a_log() {
    let dirs = TempDir::with_config_and_state("keys");
    let serve = Serve::start(&dirs, &[], &[("PLOY_TAVILY_KEYS", ENV_KEY)]);
    {
        let out = serve.out.lock().unwrap();
        assert!(out.contains("key panel http://127.0.0.1:"), "{out}");
        // Standard output is a pipe: the first token is not printed.
        assert!(out.contains("not printed"), "{out}");
    }
    // No token, no terminal: a clear usage error, nothing asked.
    let none = keys(&dirs, &["list"], None, b"");
    assert_eq!(none.status.code(), Some(2), "{}", text(&none));
    assert!(text(&none).contains("PLOY_ADMIN_TOKEN"), "{}", text(&none));
    // A wrong token: the panel's one denial, explained without a cause.
    let wrong = keys(&dirs, &["list"], Some("wrong-token"), b"");
    assert_eq!(wrong.status.code(), Some(1), "{}", text(&wrong));
    assert!(text(&wrong).contains("ADMIN-2"), "{}", text(&wrong));

    let token = rotate(&dirs);
    assert_eq!(token.len(), 64);
    let list = keys(&dirs, &["list", "--json"], Some(&token), b"");
    assert!(list.status.success(), "{}", text(&list));
    let env_mask = ploy_mask(ENV_KEY);
    assert!(text(&list).contains(&env_mask), "{}", text(&list));

    // Add: the key comes from standard input.
    let add = keys(
        &dirs,
        &["add", "tavily"],
        Some(&token),
        format!("{KEY}\n").as_bytes(),
    );
    assert!(add.status.success(), "{}", text(&add));
    let mask = ploy_mask(KEY);
    assert_eq!(
        String::from_utf8_lossy(&add.stdout).trim(),
        format!("added tavily key {mask}")
    );
    // Empty input and two lines are refused before anything is sent.
    let empty = keys(&dirs, &["add", "tavily"], Some(&token), b"");
    assert_eq!(empty.status.code(), Some(2), "{}", text(&empty));
    let two = keys(
        &dirs,
        &["add", "tavily"],
        Some(&token),
        b"tvly-aaaaaaaaaaaaaaaa\ntvly-bbbbbbbbbbbbbbbb\n",
    );
    assert_eq!(two.status.code(), Some(2), "{}", text(&two));
    // The same key again: refused by the panel, named by mask.
    let again = keys(&dirs, &["add", "tavily"], Some(&token), KEY.as_bytes());
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again).contains("already held"), "{}", text(&again));

    // Replace (the ASCII `...` form of the mask is accepted), then remove.
    let replace = keys(
        &dirs,
        &["replace", &mask.replace('…', "..."), "--json"],
        Some(&token),
        NEW_KEY.as_bytes(),
    );
    assert!(replace.status.success(), "{}", text(&replace));
    let view: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&replace.stdout).trim()).unwrap();
    assert_eq!(view["mask"], ploy_mask(NEW_KEY));
    let remove = keys(&dirs, &["remove", &ploy_mask(NEW_KEY)], Some(&token), b"");
    assert!(remove.status.success(), "{}", text(&remove));
    let missing = keys(&dirs, &["remove", &ploy_mask(NEW_KEY)], Some(&token), b"");
    assert_eq!(missing.status.code(), Some(1));
    let list = keys(&dirs, &["list"], Some(&token), b"");
    assert!(
        text(&list).contains(&env_mask) && !text(&list).contains(&mask),
        "{}",
        text(&list)
    );

    // A second rotation ends the first token.
    let newer = rotate(&dirs);
    assert_ne!(newer, token);
    assert_eq!(
        keys(&dirs, &["list"], Some(&token), b"").status.code(),
        Some(1)
    );
    assert!(keys(&dirs, &["list"], Some(&newer), b"").status.success());

    let logged = serve.stop();
    // The audit log has every change and refusal, by mask.
    let audit = std::fs::read_to_string(dirs.state().join("audit.log")).unwrap();
    for needle in [
        "\"add\"",
        "\"replace\"",
        "\"remove\"",
        "rotate-admin-token",
        &mask,
    ] {
        assert!(audit.contains(needle), "{needle} not in {audit}");
    }
    // B-5/STATE-1: no key value in any file under the state and config
    // folders, nor in anything the service printed or logged at TRACE.
    for path in files_under(&dirs.state())
        .into_iter()
        .chain(files_under(&dirs.config()))
    {
        let bytes = std::fs::read(&path).unwrap();
        for secret in [ENV_KEY, KEY, NEW_KEY, token.as_str(), newer.as_str()] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "a secret is in {}",
                path.display()
            );
        }
    }
    for secret in [ENV_KEY, KEY, NEW_KEY, token.as_str(), newer.as_str()] {
        assert!(
            !logged.contains(secret),
            "a secret is in the service's output"
        );
    }
}

// proves: B-6, ADMIN-10
#[test]
fn serve_on_a_public_bind_says_loudly_that_the_panel_is_not_mounted() {
    let dirs = TempDir::with_config_and_state("keys-public");
    let config = dirs.write(
        "config/service.json",
        r#"{"service":{"allow_public_bind":true,"listen":"0.0.0.0:0"}}"#,
    );
    let serve = Serve::start(&dirs, &["--config", config.to_str().unwrap()], &[]);
    std::thread::sleep(Duration::from_millis(200));
    let rotate = keys(&dirs, &["admin-token", "--rotate"], None, b"");
    assert_eq!(rotate.status.code(), Some(1), "{}", text(&rotate));
    assert!(text(&rotate).contains("ADMIN-10"), "{}", text(&rotate));
    let list = keys(&dirs, &["list"], Some("any-token"), b"");
    assert_eq!(list.status.code(), Some(1), "{}", text(&list));
    let logged = serve.stop();
    assert!(
        logged.contains("WARNING: ADMIN-10") && logged.contains("NOT mounted"),
        "{logged}"
    );
    assert!(!dirs.state().join("state.json").exists());
}

/// The panel's mask (ploy-secrets' rule: `…` and the last 4 characters).
fn ploy_mask(key: &str) -> String {
    format!("…{}", &key[key.len() - 4..])
}
