//! `ploy trust …` end to end: the real binary, with PLOY_CONFIG_DIR and
//! PLOY_STATE_DIR in a temporary folder (nothing touches the real home).
#![allow(clippy::disallowed_methods, clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::TempDir;

use std::{
    fs,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

struct Env {
    tmp: TempDir,
}

impl Env {
    fn new() -> Self {
        Self {
            tmp: TempDir::with_config_and_state("trust"),
        }
    }

    fn root(&self) -> &Path {
        self.tmp.path()
    }

    fn config(&self) -> PathBuf {
        self.tmp.config()
    }

    /// A project with a settings file (a resource that needs trust).
    fn project(&self, name: &str) -> PathBuf {
        let dir = self.root().join(name);
        fs::create_dir_all(dir.join(".ploy")).unwrap();
        fs::write(dir.join(".ploy/settings.json"), "{}").unwrap();
        dir
    }

    fn ploy(&self, cwd: &Path, args: &[&str]) -> Output {
        support::run(
            support::ploy_at_home(self.root())
                .args(args)
                .current_dir(cwd),
        )
    }

    fn json(&self, cwd: &Path, args: &[&str]) -> serde_json::Value {
        let out = self.ploy(cwd, args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

// proves: TRUST-7
#[test]
fn status_without_a_tty_never_asks_and_skips() {
    let env = Env::new();
    let project = env.project("p");
    let v = env.json(&project, &["trust", "--json"]);
    assert_eq!(v["trusted"], false);
    assert_eq!(v["decided_by"], "non_interactive");
    assert_eq!(v["dir"], project.to_str().unwrap());
    let resources = v["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!(
        resources[0],
        project.join(".ploy/settings.json").to_str().unwrap()
    );
    assert!(
        !env.config().join("trust.json").exists(),
        "status saved something"
    );
}

// proves: TRUST-2
#[test]
fn a_plain_project_needs_no_decision_and_trusted_is_null() {
    let env = Env::new();
    let dir = env.root().join("plain");
    fs::create_dir_all(dir.join(".ploy")).unwrap();
    let v = env.json(&dir, &["trust", "status", "--json"]);
    assert!(v["trusted"].is_null());
    assert_eq!(v["decided_by"], "no_resources");
    assert_eq!(v["resources"].as_array().unwrap().len(), 0);
}

// proves: TRUST-7
#[test]
fn approve_flags_override_for_one_run_only() {
    let env = Env::new();
    let project = env.project("p");
    let v = env.json(&project, &["trust", "-a", "--json"]);
    assert_eq!(
        (v["trusted"].clone(), v["decided_by"].clone()),
        (true.into(), "flag".into())
    );
    let v = env.json(&project, &["trust", "--no-approve", "--json"]);
    assert_eq!(
        (v["trusted"].clone(), v["decided_by"].clone()),
        (false.into(), "flag".into())
    );
    // `-na`, as users type it (main.rs rewrites it to --no-approve).
    let v = env.json(&project, &["trust", "status", "-na", "--json"]);
    assert_eq!(
        (v["trusted"].clone(), v["decided_by"].clone()),
        (false.into(), "flag".into())
    );
    // Overrides are never saved.
    assert!(!env.config().join("trust.json").exists());
    let v = env.json(&project, &["trust", "--json"]);
    assert_eq!(v["decided_by"], "non_interactive");
    // Both at once is a usage error.
    let out = env.ploy(&project, &["trust", "-a", "--no-approve"]);
    assert_eq!(out.status.code(), Some(2));
}

// proves: TRUST-3
#[test]
fn allow_deny_forget_save_by_canonical_path() {
    let env = Env::new();
    let project = env.project("p");
    let link = env.root().join("link");
    std::os::unix::fs::symlink(&project, &link).unwrap();
    let sub = project.join("src");
    fs::create_dir_all(&sub).unwrap();

    // Allow through a symlink and a `..` path: one canonical key.
    let v = env.json(env.root(), &["trust", "allow", "link", "--json"]);
    assert_eq!(v["dir"], project.to_str().unwrap());
    let v = env.json(&sub, &["trust", "allow", "../../p/src/..", "--json"]);
    assert_eq!(v["dir"], project.to_str().unwrap());
    let file = env.config().join("trust.json");
    assert_eq!(
        fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let saved: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["projects"].as_object().unwrap().len(), 1);

    let v = env.json(&project, &["trust", "--json"]);
    assert_eq!(v["trusted"], true);
    assert_eq!(v["decided_by"], "saved");
    assert_eq!(v["saved"]["dir"], project.to_str().unwrap());

    env.json(&project, &["trust", "deny", "--json"]);
    let v = env.json(&link, &["trust", "--json"]);
    assert_eq!(
        (v["trusted"].clone(), v["decided_by"].clone()),
        (false.into(), "saved".into())
    );

    let v = env.json(&project, &["trust", "forget", "--json"]);
    assert_eq!(v["removed"], true);
    let v = env.json(&project, &["trust", "forget", "--json"]);
    assert_eq!(v["removed"], false);
    let v = env.json(&project, &["trust", "--json"]);
    assert_eq!(v["decided_by"], "non_interactive");
}

// proves: TRUST-3
#[test]
fn malformed_and_loose_trust_files_are_loud() {
    let env = Env::new();
    let project = env.project("p");
    let file = env.config().join("trust.json");
    fs::write(
        &file,
        "{\n  \"version\": 1,\n  \"projects\": {\n    \"/x\": {\"trusted\": maybe}\n  }\n}\n",
    )
    .unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
    for args in [
        &["trust"][..],
        &["trust", "allow"],
        &["trust", "-a"],
        &["config", "show"],
    ] {
        let out = env.ploy(&project, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(file.to_str().unwrap()) && err.contains("line 4"),
            "{args:?}: {err}"
        );
        assert!(err.contains("hint:"), "{err}");
        assert!(out.stdout.is_empty(), "{args:?} printed a decision");
    }

    fs::write(&file, "{\"version\": 1, \"projects\": {}}").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
    let out = env.ploy(&project, &["trust"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("0644"));

    fs::set_permissions(&file, fs::Permissions::from_mode(0o620)).unwrap();
    let out = env.ploy(&project, &["trust", "allow"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("chmod 600"), "{err}");
}

// proves: TRUST-6
#[test]
fn a_crashing_user_extension_is_no_answer_and_a_yes_one_decides() {
    let env = Env::new();
    let project = env.project("p");
    let crash = env.tmp.write_executable(
        "crash.sh",
        "#!/bin/sh\necho '{\"result\":{\"decision\":\"yes\"}}'\nexit 7\n",
    );
    let yes = env.tmp.write_executable(
        "yes.sh",
        "#!/bin/sh\nread l\necho '{\"result\":{\"decision\":\"yes\"}}'\n",
    );
    let settings = env.config().join("settings.json");
    fs::write(
        &settings,
        format!(
            "{{\"extensions\": [{{\"command\": {:?}, \"timeout_ms\": 20000}}]}}",
            crash.to_str().unwrap()
        ),
    )
    .unwrap();
    let v = env.json(&project, &["trust", "--json"]);
    assert_eq!(v["trusted"], false);
    assert_eq!(v["decided_by"], "non_interactive");
    assert_eq!(v["extensions"][0]["answer"]["answer"], "no_answer");

    fs::write(
        &settings,
        format!(
            "{{\"extensions\": [{{\"command\": {:?}}}, {{\"command\": {:?}, \"timeout_ms\": 20000}}]}}",
            crash.to_str().unwrap(),
            yes.to_str().unwrap()
        ),
    )
    .unwrap();
    let v = env.json(&project, &["trust", "--json"]);
    assert_eq!(v["trusted"], true);
    assert_eq!(v["decided_by"], "extension");
}

// With a real terminal (a pty from util-linux `script`), the question is
// asked and the answer is saved.
// proves: TRUST-4
#[test]
fn with_a_tty_the_question_is_asked_and_trust_parent_is_saved() {
    let env = Env::new();
    let project = env.project("org/p");
    let script = Path::new("/usr/bin/script");
    assert!(
        script.exists(),
        "util-linux `script` is needed for the pty test"
    );
    let line = format!("{} trust", support::PLOY);
    let mut command = Command::new(script);
    let mut child = support::point_at(&mut command, env.root())
        .args(["-qec", &line, "/dev/null"])
        .current_dir(&project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"2\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Trust parent folder"), "{text}");
    assert!(text.contains("decided by: prompt"), "{text}");
    let v = env.json(&project, &["trust", "--json"]);
    assert_eq!(v["decided_by"], "saved");
    assert_eq!(v["saved"]["dir"], env.root().join("org").to_str().unwrap());
}
