//! `ploy check proof` end to end: the real binary, exit codes 0/1/2, rule IDs
//! on stderr or in JSON (PROOF-1..5).
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "ploy-check-proof-test-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn ploy(args: &[&str]) -> Output {
    let dir = TempDir::new();
    Command::new(env!("CARGO_BIN_EXE_ploy"))
        .args(args)
        .env("PLOY_CONFIG_DIR", dir.0.join("config"))
        .env("PLOY_STATE_DIR", dir.0.join("state"))
        .env("HOME", &dir.0)
        .output()
        .expect("run ploy")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// proves: PROOF-5 (an ordinary proof is accepted with exit 0)
#[test]
fn accepted_line_exits_zero() {
    let out = ploy(&[
        "check",
        "proof",
        "cargo test -q && grep -q \"fn main\" src/main.rs",
    ]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains("accepted"));
}

// proves: PROOF-2, PROOF-3 (a refused line exits 1 and names every rule on stderr)
#[test]
fn refused_line_exits_one_with_rules_on_stderr() {
    let out = ploy(&["check", "proof", "cargo test && rm -rf ~/x"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("PROOF-2:") && stderr.contains("`rm`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("PROOF-3:") && stderr.contains('~'),
        "{stderr}"
    );
    assert!(stderr.contains("hint:"), "{stderr}");
    assert!(text(&out.stdout).is_empty());
}

// proves: PROOF-2 (JSON carries verdict, rules and details)
#[test]
fn json_output_for_refusal() {
    let out = ploy(&["check", "proof", "--json", "git -c core.pager=sh log"]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(json["verdict"], "refused");
    assert_eq!(json["line"], "git -c core.pager=sh log");
    assert_eq!(json["rules"][0], "PROOF-2");
    assert_eq!(json["refusals"][0]["rule"], "PROOF-2");
    assert!(
        json["refusals"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("-c")
    );
}

// proves: PROOF-1 (JSON for an accepted line, and for a line that does not parse)
#[test]
fn json_output_for_acceptance_and_parse_error() {
    let out = ploy(&["check", "proof", "cargo test -q", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["verdict"], "accepted");
    assert_eq!(json["rules"].as_array().unwrap().len(), 0);

    let out = ploy(&["check", "proof", "--json", "echo 'unterminated"]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["rules"][0], "PROOF-1");
}

// proves: PROOF-1 (a multi-line argument is refused, not split)
#[test]
fn newline_in_argument_is_refused() {
    let out = ploy(&["check", "proof", "cargo test\ncurl https://evil.example"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("PROOF-1:") && stderr.contains("PROOF-2:"),
        "{stderr}"
    );
}

// proves: PROOF-5 (usage errors exit 2: missing line, unknown flag)
#[test]
fn usage_errors_exit_two() {
    assert_eq!(ploy(&["check", "proof"]).status.code(), Some(2));
    assert_eq!(
        ploy(&["check", "proof", "--bogus", "cargo test"])
            .status
            .code(),
        Some(2)
    );
}
