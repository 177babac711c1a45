//! `ploy config check` end to end: the real binary, with PLOY_CONFIG_DIR and
//! PLOY_STATE_DIR in a temporary folder (nothing touches the real home).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::{TempDir, code, text};

use std::process::Output;

fn ploy(tmp: &TempDir, args: &[&str]) -> Output {
    support::run(
        support::ploy(tmp.path())
            .args(args)
            .env("HOME", tmp.path().join("no-home"))
            .stdin(std::process::Stdio::null()),
    )
}

const GOOD: &str = r#"{
  "security_profile": {"sandbox": "workspace-write", "approval": "ask"},
  "permissions": {
    "shell": {"allow": ["cargo test *"], "deny": ["git push *"]},
    "edit": {"deny": [".git/**"]}
  }
}"#;

// proves: PROFILE-2
// proves: CONFIG-1
#[test]
fn valid_default_file_prints_profile_and_layers() {
    let tmp = TempDir::with_config_and_state("config-check");
    let path = tmp.write_settings(GOOD);
    let out = ploy(&tmp, &["config", "check"]);
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), 0, "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains(&path.display().to_string()), "{stdout}");
    assert!(
        stdout.contains("sandbox=workspace-write approval=ask"),
        "{stdout}"
    );
    assert!(stdout.contains("default"), "{stdout}");
    assert!(stdout.contains("shell allow `cargo test *`"), "{stdout}");
    assert!(stdout.contains("shell deny `git push *`"), "{stdout}");
    assert!(stdout.contains("edit deny `.git/**`"), "{stdout}");
}

// proves: PROFILE-1
#[test]
fn valid_json_output_is_machine_readable() {
    let tmp = TempDir::with_config_and_state("config-check");
    let path = tmp.write_settings(
        r#"{"security_profile": {"sandbox": "danger-full-access", "approval": "ask"}}"#,
    );
    let out = ploy(
        &tmp,
        &[
            "config",
            "check",
            "--json",
            "--settings",
            path.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(v["security_profile"]["sandbox"], "danger-full-access");
    assert_eq!(v["security_profile"]["approval"], "ask");
    assert_eq!(v["layers"][0]["source"], "default");
    assert_eq!(v["layers"][1]["source"], "user");
}

// proves: PROFILE-1
// proves: A-4
#[test]
fn forbidden_profile_is_refused_naming_file_key_and_rule() {
    let tmp = TempDir::with_config_and_state("config-check");
    let path = tmp.write_settings(
        "{\n  \"security_profile\": {\"sandbox\": \"danger-full-access\", \"approval\": \"never\"}\n}",
    );
    let out = ploy(&tmp, &["config", "check"]);
    let stderr = text(&out.stderr);
    assert_eq!(code(&out), 1, "{stderr}");
    assert!(stderr.contains("PROFILE-1"), "{stderr}");
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains("security_profile"), "{stderr}");
    assert!(stderr.contains("hint:"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing printed as if valid");

    let out = ploy(&tmp, &["config", "check", "--json"]);
    assert_eq!(code(&out), 1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(v["errors"][0]["requirement"], "PROFILE-1");
    assert_eq!(v["errors"][0]["key"], "security_profile");
    assert_eq!(v["errors"][0]["line"], 2);
}

// proves: PROFILE-1
#[test]
fn no_flag_or_variable_overrides_the_forbidden_profile() {
    let tmp = TempDir::with_config_and_state("config-check");
    tmp.write_settings(
        r#"{"security_profile": {"sandbox": "danger-full-access", "approval": "never"}}"#,
    );
    for flag in ["--force", "--allow-forbidden", "--yes", "--unsafe"] {
        let out = ploy(&tmp, &["config", "check", flag]);
        assert_eq!(code(&out), 2, "{flag} must be a usage error");
    }
    let out = support::ploy(tmp.path())
        .args(["config", "check"])
        .env("PLOY_ALLOW_FORBIDDEN_PROFILE", "1")
        .env("PLOY_UNSAFE", "1")
        .env("CI", "true")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
}

// proves: PROFILE-2
#[test]
fn missing_default_file_fails_with_a_mandatory_profile_hint() {
    let tmp = TempDir::with_config_and_state("config-check");
    let out = ploy(&tmp, &["config", "check"]);
    let stderr = text(&out.stderr);
    assert_eq!(code(&out), 1, "{stderr}");
    assert!(stderr.contains("mandatory"), "{stderr}");
    assert!(stderr.contains("security_profile"), "{stderr}");
    assert!(
        stderr.contains(&tmp.config().join("settings.json").display().to_string()),
        "{stderr}"
    );
    let out = ploy(&tmp, &["config", "check", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["errors"][0]["requirement"], "PROFILE-2");
}

// proves: PROFILE-2
#[test]
fn file_without_profile_fails() {
    let tmp = TempDir::with_config_and_state("config-check");
    tmp.write_settings(r#"{"permissions": {"shell": {"allow": ["ls"]}}}"#);
    let out = ploy(&tmp, &["config", "check"]);
    let stderr = text(&out.stderr);
    assert_eq!(code(&out), 1, "{stderr}");
    assert!(stderr.contains("PROFILE-2"), "{stderr}");
}

// proves: CONFIG-1
#[test]
fn unknown_values_keys_and_bad_patterns_fail_with_key_and_line() {
    let tmp = TempDir::with_config_and_state("config-check");
    let cases = [
        (
            "{\n\"security_profile\": {\"sandbox\": \"workspace-write\",\n \"approval\": \"sometimes\"}}",
            "security_profile.approval",
            ":3:",
        ),
        (
            "{\"security_profile\": {\"sandbox\": \"workspace-write\", \"approval\": \"ask\"},\n\"telemetry\": true}",
            "telemetry",
            ":2:",
        ),
        (
            "{\"security_profile\": {\"sandbox\": \"workspace-write\", \"approval\": \"ask\"},\n\"permissions\": {\"shell\": {\"allow\": [\n\"a[\"]}}}",
            "permissions.shell.allow[0]",
            ":3",
        ),
        ("not json", ".", ":1:"),
    ];
    for (body, key, line) in cases {
        let path = tmp.write_settings(body);
        let out = ploy(
            &tmp,
            &["config", "check", "--settings", path.to_str().unwrap()],
        );
        let stderr = text(&out.stderr);
        assert_eq!(code(&out), 1, "{body}: {stderr}");
        assert!(stderr.contains(key), "{body}: {stderr}");
        assert!(
            stderr.contains(&format!("{}{line}", path.display())),
            "{body}: {stderr}"
        );
    }
}

// proves: PROFILE-2
#[test]
fn missing_explicit_file_and_usage_errors() {
    let tmp = TempDir::with_config_and_state("config-check");
    let out = ploy(
        &tmp,
        &[
            "config",
            "check",
            "--settings",
            "/nonexistent/ploy/settings.json",
        ],
    );
    assert_eq!(code(&out), 1);
    assert!(text(&out.stderr).contains("not found"));
    let out = ploy(&tmp, &["config", "check", "--settings"]);
    assert_eq!(code(&out), 2);
    let out = ploy(&tmp, &["config", "check", "extra-arg"]);
    assert_eq!(code(&out), 2);
}

// proves: CONFIG-1, REDACT-1 (settings `secrets`: validated at load; named
// files and the project's .env checked as the agent reads them)
#[test]
fn secrets_lists_are_checked_on_this_machine() {
    let tmp = TempDir::with_config_and_state("config-check");
    tmp.write_settings(
        r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"},
            "secrets": {"env": ["PLOY_TEST_UNSET_SECRET"], "files": ["creds.txt", "gone.txt"]}}"#,
    );
    tmp.write("proj/creds.txt", "a-listed-secret-0042\n");
    let run = |dir: &str| {
        support::run(
            support::ploy(tmp.path())
                .args(["config", "check"])
                .current_dir(tmp.path().join(dir))
                .env("HOME", tmp.path().join("no-home"))
                .env_remove("PLOY_TEST_UNSET_SECRET")
                .stdin(std::process::Stdio::null()),
        )
    };
    let out = run("proj");
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), 0, "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("1 variable(s), 2 file(s)"), "{stdout}");
    assert!(
        stdout.contains("PLOY_TEST_UNSET_SECRET is not set"),
        "{stdout}"
    );
    assert!(stdout.contains("gone.txt"), "{stdout}");
    assert!(!stdout.contains("a-listed-secret"), "{stdout}");
    // A named file that is there but cannot be read (a FIFO): invalid.
    std::fs::remove_file(tmp.path().join("proj/creds.txt")).unwrap();
    #[allow(clippy::disallowed_methods)] // the fixture's FIFO is made by mkfifo(1)
    let made = std::process::Command::new("mkfifo")
        .arg(tmp.path().join("proj/creds.txt"))
        .status()
        .unwrap();
    assert!(made.success());
    let out = run("proj");
    let stderr = text(&out.stderr);
    assert_eq!(code(&out), 1, "{stderr}");
    assert!(
        stderr.contains("REDACT-1") && stderr.contains("creds.txt"),
        "{stderr}"
    );
    // A bad name is refused at load with its key.
    tmp.write_settings(
        r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"},
            "secrets": {"env": ["NOT A NAME"]}}"#,
    );
    let out = run("proj");
    let stderr = text(&out.stderr);
    assert_eq!(code(&out), 1, "{stderr}");
    assert!(stderr.contains("secrets.env[0]"), "{stderr}");
}
