//! `ploy keys` as a user runs it against a real `ploy serve` (ADMIN-3,
//! ADMIN-5, ADMIN-6, ADMIN-7, ADMIN-10, ADMIN-11, STATE-1, B-5, B-6): keys
//! from standard input only, the admin token from PLOY_ADMIN_TOKEN, the
//! panel's own API and gate, rotation over the service password.
#![allow(clippy::disallowed_methods)] // runs the ploy binary and `kill`
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Command, Output};
use std::time::Duration;

use support::{Serve, TempDir, files_under};

const ENV_KEY: &str = "tvly-from-env-Ka81Jd73Hs62Ld9e";
const KEY: &str = "tvly-from-stdin-Pw72Qz81Mx03Vb5r";
const NEW_KEY: &str = "tvly-replacement-Yt56Re47Wq38Az2x";

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
    let serve = Serve::start(dirs.path(), &[], &[("PLOY_TAVILY_KEYS", ENV_KEY)]);
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
    let serve = Serve::start(dirs.path(), &["--config", config.to_str().unwrap()], &[]);
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

// proves: STATE-1, TAINT-1, BEYOND-6, URL-2 (`ploy research --service` runs on the service with the key its panel holds; the conversation is marked in the service's store)
#[test]
fn research_on_the_service_uses_the_key_the_panel_holds() {
    let dirs = TempDir::with_config_and_state("keys-research");
    dirs.write_settings(support::WORKSPACE_PROFILE);
    // Tavily's name answered with a documentation address: the door
    // refuses it before any packet is sent (URL-2), so the run shows
    // whether a key was there.
    dirs.write("config/research.json", r#"{"backends": ["tavily"]}"#);
    let hosts = dirs.write("hosts", "192.0.2.7 api.tavily.com\n");
    let serve = Serve::start(
        dirs.path(),
        &["--research-hosts", hosts.to_str().unwrap()],
        &[],
    );
    assert!(
        serve
            .out
            .lock()
            .unwrap()
            .contains("research offered at POST /v1/research"),
        "{}",
        serve.out.lock().unwrap()
    );
    let research = |extra: &[&str]| {
        let mut command = support::ploy(dirs.path());
        command
            .env_remove("PLOY_TAVILY_KEYS")
            .args([
                "research",
                "--service",
                "rust tokio timeout",
                "--no-answer",
                "--json",
            ])
            .args(extra);
        support::run(&mut command)
    };
    // No key in the panel: Tavily is not offered (A-6).
    let none = research(&[]);
    assert_eq!(none.status.code(), Some(1), "{}", text(&none));
    assert!(text(&none).contains("A-6"), "{}", text(&none));
    // --service does not take the local run's network options.
    let mixed = research(&["--hosts", "/dev/null"]);
    assert_eq!(mixed.status.code(), Some(2), "{}", text(&mixed));

    let token = rotate(&dirs);
    let add = keys(&dirs, &["add", "tavily"], Some(&token), KEY.as_bytes());
    assert!(add.status.success(), "{}", text(&add));
    let out = research(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["schema"], "ploy.research/1");
    assert_eq!(result["tainted"], true, "{result}");
    let searches = result["searches"].as_array().unwrap();
    assert!(!searches.is_empty(), "{result}");
    for search in searches {
        assert_eq!(search["backend"], "tavily", "{search}");
        assert_eq!(search["failure"]["rule"], "URL-2", "{search}");
    }
    // The conversation is the service's, marked.
    let id = result["conversation_id"].as_str().unwrap();
    let store = ploy_store::Store::open(dirs.state().join("ploy.db")).unwrap();
    assert_eq!(store.marks(id).unwrap().len(), 1);
    drop(store);

    let logged = serve.stop();
    for shown in [text(&out), text(&none), logged] {
        assert!(!shown.contains(KEY), "the key was shown: {shown}");
    }
}

/// The panel's mask (ploy-secrets' rule: `…` and the last 4 characters).
fn ploy_mask(key: &str) -> String {
    format!("…{}", &key[key.len() - 4..])
}
