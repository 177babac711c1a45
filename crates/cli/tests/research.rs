//! `ploy research` end to end: the real binary, with PLOY_CONFIG_DIR and
//! PLOY_STATE_DIR in a temporary folder. No packet leaves the machine: the
//! backends' names are answered by a hosts file with a documentation
//! address (192.0.2.1), which the egress door refuses before connecting.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use ploy_testkit::{Reply, WebServer};
use support::{TempDir, text};

use std::{
    path::PathBuf,
    process::{Output, Stdio},
};

use serde_json::Value;

/// A temp root with `config/`, `state/` and a hosts file answering the
/// backends' names with a documentation address.
struct Research(TempDir);

impl Research {
    fn new() -> Self {
        let dir = TempDir::with_config_and_state("research");
        dir.write(
            "hosts",
            "192.0.2.1 html.duckduckgo.com\n192.0.2.1 en.wikipedia.org\n",
        );
        Self(dir)
    }

    fn with_profile(self) -> Self {
        self.0.write_settings(support::WORKSPACE_PROFILE);
        self
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with_keys(args, None)
    }

    /// Runs with `PLOY_TAVILY_KEYS` set to `keys` (or unset).
    fn run_with_keys(&self, args: &[&str], keys: Option<&str>) -> Output {
        let mut command = support::ploy(self.0.path());
        command
            .arg("research")
            .args(args)
            .arg("--hosts")
            .arg(self.0.path().join("hosts"))
            .env_remove("PLOY_MODEL")
            .env_remove("PLOY_TAVILY_KEYS")
            .stdin(Stdio::null());
        if let Some(keys) = keys {
            command.env("PLOY_TAVILY_KEYS", keys);
        }
        command.output().unwrap()
    }

    fn db(&self) -> PathBuf {
        self.0.state().join("ploy.db")
    }
}

// proves: PROFILE-2
#[test]
fn without_an_attested_profile_nothing_runs() {
    let dir = Research::new();
    let out = dir.run(&["rust borrow checker", "--no-answer"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("PROFILE-2"), "{stderr}");
    assert!(stderr.contains("hint:"), "{stderr}");
    assert!(!stderr.contains("←"), "no phrase was sent: {stderr}");
    assert!(!dir.db().exists(), "no conversation was created");
}

// proves: PROFILE-1, A-4
#[test]
fn forbidden_profile_refuses_at_load() {
    let dir = Research::new();
    dir.0.write_settings(
        r#"{"security_profile": {"sandbox": "danger-full-access", "approval": "never"}}"#,
    );
    let out = dir.run(&["rust", "--no-answer"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("PROFILE-1"), "{stderr}");
    assert!(!stderr.contains("←"), "{stderr}");
}

// proves: CONFIG-1
#[test]
fn unknown_backend_or_config_key_fails_loudly() {
    let dir = Research::new().with_profile();
    let out = dir.run(&["rust", "--backend", "bing"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("CONFIG-1"),
        "{}",
        text(&out.stderr)
    );
    dir.0.write("config/research.json", r#"{"max_pages": 99}"#);
    let out = dir.run(&["rust"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("CONFIG-1") && stderr.contains("max_pages"),
        "{stderr}"
    );
}

// proves: FAIL-1, PLUGIN-1, TAINT-1, SCRUB-1, EGRESS-2
#[test]
fn refused_backends_give_a_structured_result_and_a_marked_conversation() {
    let dir = Research::new().with_profile();
    let out = dir.run(&[
        "why does /home/bob/app/.env break for bob@example.org? rust dotenv",
        "--no-answer",
        "--json",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let result: Value = serde_json::from_slice(&out.stdout).expect("strict JSON on stdout");
    assert_eq!(result["schema"], "ploy.research/1");
    assert!(
        result["notice"]
            .as_str()
            .unwrap()
            .starts_with("UNTRUSTED CONTENT")
    );
    assert_eq!(result["status"], "dossier");
    assert_eq!(result["tainted"], true);
    let searches = result["searches"].as_array().unwrap();
    assert!(!searches.is_empty());
    for search in searches {
        let failure = &search["failure"];
        assert_eq!(failure["rule"], "URL-2", "{search}");
        assert!(
            failure["reason"].as_str().unwrap().contains("192.0.2.1"),
            "{search}"
        );
    }
    // Progress shows the phrases as sent, scrubbed.
    assert!(stderr.contains("round 1: duckduckgo ←"), "{stderr}");
    for private in ["/home/bob", "bob@example.org", ".env"] {
        assert!(!stderr.contains(private), "{private} in {stderr}");
        for phrase in result["phrases"].as_array().unwrap() {
            assert!(!phrase["phrase"].as_str().unwrap().contains(private));
        }
    }
    // The conversation in the state folder is marked.
    let id = result["conversation_id"].as_str().unwrap().to_owned();
    let store = ploy_store::Store::open(dir.db()).unwrap();
    assert_eq!(store.marks(&id).unwrap().len(), 1);
    drop(store);

    // --conversation continues it; an unknown one is refused.
    let again = dir.run(&[
        "rust dotenv",
        "--no-answer",
        "--json",
        "--conversation",
        &id,
    ]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["conversation_id"], id.as_str());
    let unknown = dir.run(&["rust", "--no-answer", "--conversation", "nope"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("hint:"));
}

// proves: FAIL-1 (no model named: the dossier is the result, with a reason)
#[test]
fn without_a_model_the_dossier_is_printed_with_the_reason() {
    let dir = Research::new().with_profile();
    let out = dir.run(&["rust ownership", "--backend", "wikipedia"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("[UNTRUSTED CONTENT"), "{stdout}");
    assert!(
        stderr.contains("PLOY_MODEL") || stderr.contains("no source"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("duckduckgo ←"),
        "only the named backend: {stderr}"
    );
}

const TAVILY_KEY: &str = "tvly-cliCanaryK3y0987654321zyx";

// proves: EGRESS-2, A-1, A-6, URL-2 (`--backend tavily` with a key from the environment)
#[test]
fn tavily_with_an_environment_key_goes_through_the_door_and_never_shows_the_key() {
    let dir = Research::new().with_profile();
    // Without a key Tavily is not offered, and with nothing else the run
    // fails loudly instead of crashing (A-6).
    let out = dir.run(&["rust ownership", "--backend", "tavily", "--no-answer"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("PLOY_TAVILY_KEYS"),
        "{}",
        text(&out.stderr)
    );

    // With a key it is offered; its API name answers a loopback address
    // here, which the door refuses before any byte (and the key) is sent.
    dir.0.write("hosts", "127.0.0.1 api.tavily.com\n");
    let out = dir.run_with_keys(
        &[
            "rust ownership",
            "--backend",
            "tavily",
            "--no-answer",
            "--json",
        ],
        Some(TAVILY_KEY),
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let result: Value = serde_json::from_str(&stdout).expect("strict JSON");
    let searches = result["searches"].as_array().unwrap();
    assert!(!searches.is_empty(), "{stdout}");
    for search in searches {
        assert_eq!(search["backend"], "tavily", "{search}");
        assert_eq!(search["failure"]["rule"], "URL-2", "{search}");
    }
    assert!(stderr.contains("tavily"), "{stderr}");
    assert!(
        !stdout.contains(TAVILY_KEY) && !stderr.contains(TAVILY_KEY),
        "the key was shown:\n{stdout}\n{stderr}"
    );
    assert!(!stderr.contains("not built"), "{stderr}");
}

/// A SearXNG fixture on 127.0.0.1:0 (the test kit's web server): answers
/// every request with one result pointing back at itself (127.0.0.1, its
/// port), and logs the requests.
fn searx_fixture() -> (u16, WebServer) {
    let server = WebServer::start_in_thread(|request| {
        let host = request.header("host").unwrap_or_default();
        let port = host.rsplit(':').next().unwrap_or_default();
        Reply::json(format!(
            r#"{{"query":"q","results":[{{"url":"http://127.0.0.1:{port}/internal","title":"Internal","content":"x"}}]}}"#
        ))
    });
    (server.addr().port(), server)
}

// proves: URL-1, CONFIG-1, BEYOND-1 (issue 7: SearXNG on the operator-named loopback address, through the production dialer)
#[test]
fn searxng_on_the_operator_named_loopback_address_is_searched_but_its_links_are_not_read() {
    let dir = Research::new().with_profile();
    let (port, requests) = searx_fixture();
    dir.0.write(
        "config/research.json",
        format!(r#"{{"backends": ["searxng"], "searxng_url": "http://127.0.0.1:{port}/"}}"#),
    );
    let out = dir.run(&["rust ownership", "--no-answer", "--json"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let result: Value = serde_json::from_str(&stdout).expect("strict JSON");
    let search = &result["searches"][0];
    assert_eq!(search["backend"], "searxng", "{stdout}");
    assert_eq!(search["hits"], 1, "{stdout}");
    assert!(search["failure"].is_null(), "{stdout}");
    // The result link points at the same loopback host: read by the
    // ordinary fetcher, it is refused (the allowance is the backend's only).
    let skipped = result["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{stdout}");
    assert_eq!(skipped[0]["failure"]["rule"], "URL-1", "{stdout}");
    let searches = result["searches"].as_array().unwrap().len();
    assert_eq!(
        requests.request_count(),
        searches,
        "only the searches reached the operator host"
    );

    // The operator may name the instance by a name instead (resolved once,
    // pinned; here from the hosts file).
    let (port_b, requests_b) = searx_fixture();
    dir.0.write("hosts", "127.0.0.1 searx.example.com\n");
    dir.0.write(
        "config/research.json",
        format!(
            r#"{{"backends": ["searxng"], "searxng_url": "http://searx.example.com:{port_b}/"}}"#
        ),
    );
    let out = dir.run(&["rust ownership", "--no-answer", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).expect("strict JSON");
    assert!(
        result["searches"][0]["hits"] == 1,
        "a named host works by name too: {result}"
    );
    assert_eq!(
        requests_b.request_count(),
        result["searches"].as_array().unwrap().len()
    );
}
