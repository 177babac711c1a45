//! `ploy research` end to end: the real binary, with PLOY_CONFIG_DIR and
//! PLOY_STATE_DIR in a temporary folder. No packet leaves the machine: the
//! backends' names are answered by a hosts file with a documentation
//! address (192.0.2.1), which the egress door refuses before connecting.
#![allow(clippy::disallowed_methods, clippy::unwrap_used, clippy::expect_used)]

use std::{
    fs,
    path::PathBuf,
    process::{Command, Output, Stdio},
    sync::atomic::{AtomicUsize, Ordering},
};

use serde_json::Value;

/// A temporary folder removed on drop (std only: the CLI has no dev-deps).
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "ploy-cli-research-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(path.join("config")).unwrap();
        fs::create_dir_all(path.join("state")).unwrap();
        fs::write(
            path.join("hosts"),
            "192.0.2.1 html.duckduckgo.com\n192.0.2.1 en.wikipedia.org\n",
        )
        .unwrap();
        Self(path)
    }

    fn with_profile(self) -> Self {
        fs::write(
            self.0.join("config/settings.json"),
            r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"}}"#,
        )
        .unwrap();
        self
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ploy"))
            .arg("research")
            .args(args)
            .arg("--hosts")
            .arg(self.0.join("hosts"))
            .env("PLOY_CONFIG_DIR", self.0.join("config"))
            .env("PLOY_STATE_DIR", self.0.join("state"))
            .env_remove("PLOY_MODEL")
            .env_remove("PLOY_TAVILY_KEYS")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn db(&self) -> PathBuf {
        self.0.join("state/ploy.db")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// proves: PROFILE-2
#[test]
fn without_an_attested_profile_nothing_runs() {
    let dir = TempDir::new();
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
    let dir = TempDir::new();
    fs::write(
        dir.0.join("config/settings.json"),
        r#"{"security_profile": {"sandbox": "danger-full-access", "approval": "never"}}"#,
    )
    .unwrap();
    let out = dir.run(&["rust", "--no-answer"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("PROFILE-1"), "{stderr}");
    assert!(!stderr.contains("←"), "{stderr}");
}

// proves: CONFIG-1
#[test]
fn unknown_backend_or_config_key_fails_loudly() {
    let dir = TempDir::new().with_profile();
    let out = dir.run(&["rust", "--backend", "bing"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("CONFIG-1"),
        "{}",
        text(&out.stderr)
    );
    fs::write(dir.0.join("config/research.json"), r#"{"max_pages": 99}"#).unwrap();
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
    let dir = TempDir::new().with_profile();
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
    let dir = TempDir::new().with_profile();
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
