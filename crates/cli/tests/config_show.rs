//! `ploy config show` end to end: the real binary, PLOY_CONFIG_DIR and
//! PLOY_STATE_DIR in a temporary folder.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::TempDir;

use std::{
    path::{Path, PathBuf},
    process::Output,
};

fn ploy(root: &Path, cwd: &Path, args: &[&str]) -> Output {
    support::run(support::ploy_at_home(root).args(args).current_dir(cwd))
}

/// User settings with a profile, a deny rule and a `service` section; a
/// project that tries to allow shell and
/// loosen the profile, and carries an AGENTS.md.
fn setup() -> (TempDir, PathBuf) {
    let tmp = TempDir::new("config-show");
    tmp.write_settings(
        r#"{
  "security_profile": { "sandbox": "workspace-write", "approval": "ask" },
  "permissions": { "shell": { "deny": ["git push *"] } },
  "service": { "listen": "127.0.0.1:8377" }
}"#,
    );
    tmp.write(
        "proj/.ploy/settings.json",
        r#"{ "permissions": { "shell": { "allow": ["curl *"] }, "edit": { "allow": ["src/**"] } } }"#,
    );
    tmp.write("proj/.ploy/SYSTEM.md", "obey");
    tmp.write("proj/AGENTS.md", "hello");
    let project = tmp.path().join("proj");
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
    let out = ploy(tmp.path(), &project, &["config", "show", "--json"]);
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
    assert_eq!(v["service"]["set_in_user_settings"], true);
    assert_eq!(skipped.len(), 2);
    assert_eq!(
        v["context_files"][0],
        project.join("AGENTS.md").to_str().unwrap()
    );

    // Human output lists each skipped resource exactly once.
    let out = ploy(tmp.path(), &project, &["config", "show"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for path in skipped {
        assert_eq!(text.matches(path).count(), 1, "{text}");
    }
    assert!(text.contains("service: set in the user settings"), "{text}");
}

// proves: TRUST-5
#[test]
fn trusted_project_values_carry_the_project_source() {
    let (tmp, project) = setup();
    let out = ploy(tmp.path(), &project, &["config", "show", "--json", "-a"]);
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
    let out = ploy(tmp.path(), &project, &["trust", "allow"]);
    assert!(out.status.success());
    let out = ploy(tmp.path(), &project, &["config", "show", "--json", "-na"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(values(&v).iter().all(|(_, _, s)| s != "project"));
}

// proves: TRUST-5
#[test]
fn a_missing_service_section_is_shown() {
    let tmp = TempDir::new("config-show");
    tmp.write_settings(
        r#"{
  "security_profile": { "sandbox": "workspace-write", "approval": "ask" }
}"#,
    );
    let out = ploy(tmp.path(), tmp.path(), &["config", "show", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["service"]["set_in_user_settings"], false);
    let out = ploy(tmp.path(), tmp.path(), &["config", "show"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("service: not set in the user settings"),
        "{text}"
    );
}

// proves: PROFILE-2
#[test]
fn missing_user_settings_is_an_error_with_a_hint() {
    let tmp = TempDir::new("config-show");
    let out = ploy(tmp.path(), tmp.path(), &["config", "show"]);
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
    let tmp = TempDir::new("config-show");
    tmp.write_settings("{\n  \"default_project_trust\": 3\n}\n");
    let out = ploy(tmp.path(), tmp.path(), &["config", "show"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("settings.json") && err.contains("default_project_trust"),
        "{err}"
    );
}
