//! `ploy check url`, `ploy fetch`, `ploy scrub` end to end: the real binary,
//! exit codes 0/1/2, rule IDs on stderr or in JSON. Full fetches are proven
//! in ploy-egress's library tests (a mapping dialer reaches loopback servers);
//! here the binary proves refusals and the text stage, and that a refused
//! target never sees a connection. No traffic leaves 127.0.0.1.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use support::{TempDir, json, stderr, stdout};

use std::{io::ErrorKind, net::TcpListener, process::Output};

fn ploy_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let dir = TempDir::new("url");
    let mut command = support::ploy_at_home(dir.path());
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    support::run(&mut command)
}

fn ploy(args: &[&str]) -> Output {
    ploy_env(args, &[])
}

// proves: URL-1
#[test]
fn check_url_text_stage_refuses_numeric_local_and_userinfo_forms() {
    for url in [
        "http://0x7f000001/",
        "http://2130706433/",
        "http://127.1/",
        "http://localhost./",
        "http://printer.local/",
        "http://user:pw@example.com/",
        "http://[::ffff:127.0.0.1]/",
        "file:///etc/passwd",
        "http://169.254.169.254/latest/meta-data/",
    ] {
        let out = ploy(&["check", "url", url, "--no-resolve"]);
        assert_eq!(out.status.code(), Some(1), "{url}: {}", stderr(&out));
        assert!(stderr(&out).contains("URL-1"), "{url}: {}", stderr(&out));
        assert!(stderr(&out).contains("hint:"), "{url}: {}", stderr(&out));
    }
}

// proves: URL-1
#[test]
fn check_url_text_stage_allows_a_public_url_and_says_so() {
    let out = ploy(&[
        "check",
        "url",
        "https://example.com/a?b=c#frag",
        "--no-resolve",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("text stage only"), "{}", stdout(&out));
}

// proves: URL-1
#[test]
fn check_url_json_carries_rule_stage_and_reason() {
    let out = ploy(&[
        "check",
        "url",
        "http://0177.0.0.1/",
        "--no-resolve",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let value = json(&out);
    assert_eq!(value["allowed"], false);
    assert_eq!(value["rule"], "URL-1");
    assert_eq!(value["stage"], "text");
    assert!(
        value["reason"].as_str().unwrap().contains("numeric"),
        "{value}"
    );

    let out = ploy(&[
        "check",
        "url",
        "https://example.com/",
        "--no-resolve",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let value = json(&out);
    assert_eq!(value["allowed"], true);
    assert_eq!(value["rule"], serde_json::Value::Null);
}

// proves: URL-2
#[test]
fn check_url_with_a_hosts_file_checks_every_address() {
    let dir = TempDir::new("url");
    let hosts = dir.write(
        "hosts",
        "# test hosts\n93.184.215.14 public.example.com\n10.1.2.3 private.example.com\n\
         93.184.215.14 mixed.example.com\n127.0.0.1 mixed.example.com\n\
         ::ffff:169.254.169.254 meta.example.com\n",
    );
    let hosts = hosts.to_str().unwrap();
    let out = ploy(&[
        "check",
        "url",
        "https://public.example.com/",
        "--hosts",
        hosts,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("93.184.215.14"), "{}", stdout(&out));

    for name in ["private", "mixed", "meta"] {
        let url = format!("https://{name}.example.com/");
        let out = ploy(&["check", "url", &url, "--hosts", hosts, "--json"]);
        assert_eq!(out.status.code(), Some(1), "{url}");
        let value = json(&out);
        assert_eq!(value["rule"], "URL-2", "{url}: {value}");
        assert_eq!(value["stage"], "resolve", "{url}");
    }

    // A name the file does not know is refused (no fallback to DNS).
    let out = ploy(&[
        "check",
        "url",
        "https://unknown.example.com/",
        "--hosts",
        hosts,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("URL-2"), "{}", stderr(&out));
}

// proves: URL-2
#[test]
fn check_url_usage_errors_exit_2() {
    assert_eq!(ploy(&["check", "url"]).status.code(), Some(2));
    let out = ploy(&[
        "check",
        "url",
        "https://example.com/",
        "--hosts",
        "/nonexistent/hosts",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("hosts"), "{}", stderr(&out));
    let dir = TempDir::new("url");
    let bad = dir.write("hosts", "not-an-address some.name\n");
    let out = ploy(&[
        "check",
        "url",
        "https://some.name/",
        "--hosts",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = ploy(&[
        "check",
        "url",
        "https://a.example/",
        "--no-resolve",
        "--hosts",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// Asserts nothing connected to the listener.
fn assert_no_connection(listener: &TcpListener) {
    listener.set_nonblocking(true).unwrap();
    match listener.accept() {
        Err(err) if err.kind() == ErrorKind::WouldBlock => {}
        Ok((_, peer)) => panic!("a refused fetch reached the server from {peer}"),
        Err(err) => panic!("accept failed: {err}"),
    }
}

// proves: URL-1, URL-2, BEYOND-1
#[test]
fn fetch_refuses_loopback_targets_and_never_connects() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = TempDir::new("url");
    let hosts = dir.write("hosts", "127.0.0.1 loop.example.com\n93.184.215.14 loop2.example.com\n127.0.0.2 loop2.example.com\n");
    let hosts = hosts.to_str().unwrap();

    let literal = format!("http://127.0.0.1:{port}/");
    let out = ploy(&["fetch", &literal]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("URL-1"), "{}", stderr(&out));

    let hex = format!("http://0x7f000001:{port}/");
    let out = ploy(&["fetch", &hex, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let value = json(&out);
    assert_eq!(value["outcome"], "refused");
    assert_eq!(value["rule"], "URL-1");

    for name in ["loop", "loop2"] {
        let named = format!("http://{name}.example.com:{port}/");
        let out = ploy(&["fetch", &named, "--hosts", hosts, "--json"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let value = json(&out);
        assert_eq!(value["outcome"], "refused", "{value}");
        assert_eq!(value["rule"], "URL-2", "{value}");
    }
    assert_no_connection(&listener);
}

// proves: SCRUB-1
#[test]
fn scrub_prints_the_clean_phrase_and_never_the_removed_text() {
    let out = ploy(&[
        "scrub",
        "tokio timeout alice@example.com 10.0.0.5 /home/alice/app.log",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "tokio timeout\n");

    let out = ploy(&["scrub", "rust tokio timeout error 504", "--json"]);
    let value = json(&out);
    assert_eq!(value["phrase"], "rust tokio timeout error 504");
    assert_eq!(value["removed"], serde_json::json!([]));

    let out = ploy(&[
        "scrub",
        "why alice@example.com token=abcdef123456",
        "--json",
    ]);
    let text = stdout(&out);
    assert!(
        !text.contains("alice") && !text.contains("abcdef123456"),
        "{text}"
    );
    let value = json(&out);
    assert_eq!(value["phrase"], "why");
    let removed: Vec<&str> = value["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        removed.contains(&"email") && removed.contains(&"secret_form"),
        "{removed:?}"
    );
}

// proves: SCRUB-1, SCRUB-2
#[test]
fn scrub_removes_secrets_from_the_environment_and_prints_nothing_when_empty() {
    let secret = "zq-unguessable-value-7781";
    let out = ploy_env(
        &["scrub", &format!("error with {secret} again")],
        &[("OPENAI_API_KEY", secret)],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "error with again\n");

    let out = ploy_env(&["scrub", secret, "--json"], &[("OPENAI_API_KEY", secret)]);
    let text = stdout(&out);
    assert!(!text.contains(secret), "{text}");
    let value = json(&out);
    assert_eq!(value["sent"], false);
    assert_eq!(value["phrase"], serde_json::Value::Null);
    assert_eq!(value["removed"], serde_json::json!(["known_secret"]));

    let out = ploy(&["scrub", "bob@example.com"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "", "an empty phrase prints nothing");
}

// proves: REDACT-1, BEYOND-6 (what `ploy fetch` prints passes the redactor:
// a secret this process knows never appears, even when the target text
// carries it; and such a target is refused at the door)
#[test]
fn fetch_output_never_shows_a_secret_from_the_environment() {
    const CANARY: &str = "sk-canary-7f3e9a1c5b2d4e6f";
    let dir = TempDir::new("url-fetch-redact");
    let hosts = dir.write("hosts", "# no names: every lookup fails\n");
    let hosts = hosts.to_str().expect("utf-8 path");
    let url = format!("http://{CANARY}.example/?key={CANARY}");
    for extra in [&[][..], &["--json"][..]] {
        let mut args = vec!["fetch", url.as_str(), "--hosts", hosts];
        args.extend_from_slice(extra);
        let out = ploy_env(&args, &[("MY_SERVICE_API_KEY", CANARY)]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let (so, se) = (stdout(&out), stderr(&out));
        assert!(
            !so.contains(CANARY) && !se.contains(CANARY),
            "secret printed: {so}{se}"
        );
        // The door refuses it before any lookup (BEYOND-6), without naming it.
        assert!(
            so.contains("BEYOND-6") || se.contains("BEYOND-6"),
            "the secret door refuses the request: {so}{se}"
        );
    }
}

// round8 #2: `ploy check url https://<key>.evil.example/` resolved the name
// and so sent a known secret to the resolver. The door checks the address
// first; with a hosts file a lookup would be recorded, so the refusal is
// shown to come before any resolution.
// proves: BEYOND-6
#[test]
fn check_url_never_resolves_a_name_that_carries_a_known_secret() {
    const KEY: &str = "sk-live-abcdef0123456789XYZ";
    let dir = TempDir::new("url-secret");
    let hosts = dir.path().join("hosts");
    std::fs::write(
        &hosts,
        format!("93.184.215.10 {}.evil.example\n", KEY.to_lowercase()),
    )
    .unwrap();
    let hosts = hosts.to_str().unwrap();
    let url = format!("https://{KEY}.evil.example/");
    for args in [
        vec!["check", "url", &url, "--hosts", hosts],
        vec!["check", "url", &url, "--no-resolve"],
        vec!["check", "url", &url, "--hosts", hosts, "--json"],
    ] {
        let out = ploy_env(&args, &[("MY_API_KEY", KEY)]);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(text.contains("BEYOND-6"), "{args:?}: {text}");
        assert!(
            !text.contains(KEY) && !text.contains(&KEY.to_lowercase()),
            "{text}"
        );
        assert!(!text.contains("93.184.215.10"), "resolved: {text}");
    }
    // Twin: without the key in the environment the same name is checked.
    let out = ploy(&["check", "url", &url, "--hosts", hosts]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
