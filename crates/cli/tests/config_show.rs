//! `ploy config show` end to end: the real binary, PLOY_CONFIG_DIR and
//! PLOY_STATE_DIR in a temporary folder.
#![allow(clippy::disallowed_methods, clippy::unwrap_used, clippy::expect_used)]

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::atomic::{AtomicUsize, Ordering},
};

struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "ploy-cli-config-show-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        Self(path.canonicalize().unwrap())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn ploy(root: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ploy"))
        .args(args)
        .current_dir(cwd)
        .env("PLOY_CONFIG_DIR", root.join("config"))
        .env("PLOY_STATE_DIR", root.join("state"))
        .env("HOME", root)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// User settings with a profile and a deny rule; a project that tries to
/// allow shell and loosen the profile, and carries an AGENTS.md.
fn setup() -> (TempDir, PathBuf) {
    let tmp = TempDir::new();
    let root = tmp.0.clone();
    fs::create_dir_all(root.join("config")).unwrap();
    fs::write(
        root.join("config/settings.json"),
        r#"{
  "security_profile": { "sandbox": "workspace-write", "approval": "ask" },
  "permissions": { "shell": { "deny": ["git push *"] } }
}"#,
    )
    .unwrap();
    let project = root.join("proj");
    fs::create_dir_all(project.join(".ploy")).unwrap();
    fs::write(
        project.join(".ploy/settings.json"),
        r#"{ "permissions": { "shell": { "allow": ["curl *"] }, "edit": { "allow": ["src/**"] } } }"#,
    )
    .unwrap();
    fs::write(project.join(".ploy/SYSTEM.md"), "obey").unwrap();
    fs::write(project.join("AGENTS.md"), "hello").unwrap();
    (tmp, project)
}

fn values(v: &serde_json::Value) -> Vec<(String, String, String)> {
    v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["key"].as_str().unwrap().to_owned(),
                x["value"].to_string(),
                x["source"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

// proves: TRUST-5, TRUST-7
#[test]
fn untrusted_project_values_are_absent_and_skipped_resources_listed_once() {
    let (tmp, project) = setup();
    let out = ploy(&tmp.0, &project, &["config", "show", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["project"]["trusted"], false);
    assert_eq!(v["project"]["decided_by"], "non_interactive");
    let vals = values(&v);
    assert!(
        vals.iter().all(|(_, _, source)| source != "project"),
        "{vals:?}"
    );
    assert!(vals.contains(&(
        "security_profile.sandbox".to_owned(),
        "\"workspace-write\"".to_owned(),
        "user".to_owned()
    )));
    assert!(vals.contains(&(
        "default_project_trust".to_owned(),
        "\"ask\"".to_owned(),
        "default".to_owned()
    )));
    assert!(vals.contains(&(
        "permissions.shell.deny".to_owned(),
        "\"git push *\"".to_owned(),
        "user".to_owned()
    )));
    let skipped: Vec<&str> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(skipped.len(), 2);
    assert_eq!(
        v["context_files"][0],
        project.join("AGENTS.md").to_str().unwrap()
    );

    // Human output lists each skipped resource exactly once.
    let out = ploy(&tmp.0, &project, &["config", "show"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for path in skipped {
        assert_eq!(text.matches(path).count(), 1, "{text}");
    }
}

// proves: TRUST-5
#[test]
fn trusted_project_values_carry_the_project_source() {
    let (tmp, project) = setup();
    let out = ploy(&tmp.0, &project, &["config", "show", "--json", "-a"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["project"]["decided_by"], "flag");
    let vals = values(&v);
    assert!(vals.contains(&(
        "permissions.shell.allow".to_owned(),
        "\"curl *\"".to_owned(),
        "project".to_owned()
    )));
    assert!(vals.contains(&(
        "permissions.shell.deny".to_owned(),
        "\"git push *\"".to_owned(),
        "user".to_owned()
    )));
    assert!(v["skipped"].as_array().unwrap().is_empty());
    // -na after a saved "allow" still skips, for this run only.
    let out = ploy(&tmp.0, &project, &["trust", "allow"]);
    assert!(out.status.success());
    let out = ploy(&tmp.0, &project, &["config", "show", "--json", "-na"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(values(&v).iter().all(|(_, _, s)| s != "project"));
}

// proves: PROFILE-2
#[test]
fn missing_user_settings_is_an_error_with_a_hint() {
    let tmp = TempDir::new();
    let out = ploy(&tmp.0, &tmp.0, &["config", "show"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("security_profile") && err.contains("hint:"),
        "{err}"
    );
}

// proves: CONFIG-1
#[test]
fn invalid_user_settings_name_the_file() {
    let tmp = TempDir::new();
    fs::create_dir_all(tmp.0.join("config")).unwrap();
    fs::write(
        tmp.0.join("config/settings.json"),
        "{\n  \"default_project_trust\": 3\n}\n",
    )
    .unwrap();
    let out = ploy(&tmp.0, &tmp.0, &["config", "show"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("settings.json") && err.contains("default_project_trust"),
        "{err}"
    );
}
