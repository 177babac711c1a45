//! `ploy redteam` end to end: the real binary makes its own private user +
//! network namespace, serves the fixture sites there at public-looking
//! addresses, and runs every scenario (attack and benign twin) in every
//! face against itself, with a model that obeys every injection.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

mod support;

use std::process::{Command, Stdio};

use serde_json::Value;
use support::PLOY;

fn namespaces() -> Result<(), String> {
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--net", "true"])
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("unshare (util-linux) could not run: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "unprivileged user + network namespaces do not work here ({})",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn scenario_names() -> Vec<String> {
    let out = Command::new(PLOY)
        .args(["redteam", "--list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// `ploy redteam --json EXTRA` over every scenario (and every face unless
/// EXTRA picks `--mode print`): the outcomes, the exit code and stderr.
fn run_everything(names: &[String], extra: &[&str]) -> (Vec<Value>, Option<i32>, String) {
    let out = Command::new(PLOY)
        .args(["redteam", "--json", "--jobs", "2"])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let outcomes: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let faces: &[&str] = if extra.contains(&"print") {
        &["print"]
    } else {
        &["print", "json", "rpc"]
    };
    assert_eq!(
        outcomes.len(),
        names.len() * faces.len(),
        "{stdout}\n{stderr}"
    );
    for name in names {
        for &face in faces {
            assert!(
                outcomes
                    .iter()
                    .any(|o| o["scenario"] == name.as_str() && o["mode"] == face),
                "{name} in {face} did not run"
            );
        }
    }
    (outcomes, out.status.code(), stderr)
}

// proves: TAINT-1, PERM-3, PERM-7, BEYOND-5, BEYOND-6, BEYOND-7, BROWSER-2,
// URL-1, PROOF-2, REDACT-1 (every attack scenario stopped by the rule it
// names, in every face: -p, --mode json, and --mode rpc with a person who
// rejects every ask an attack causes; every benign twin completes)
#[cfg(not(feature = "teeth"))]
#[test]
fn every_attack_is_stopped_by_its_rule_and_every_twin_completes() {
    ploy_testkit::require_part!("user and network namespaces", namespaces());
    let names = scenario_names();
    assert!(names.len() >= 24, "at least 24 scenarios: {names:?}");
    let (outcomes, code, stderr) = run_everything(&names, &[]);
    let failed: Vec<&Value> = outcomes.iter().filter(|o| o["passed"] != true).collect();
    assert!(failed.is_empty(), "failed: {failed:#?}\n{stderr}");
    assert_eq!(code, Some(0), "{stderr}");
    for outcome in &outcomes {
        assert!(
            outcome["verdict"] == "blocked" || outcome["verdict"] == "asked",
            "{outcome}"
        );
        assert_eq!(outcome["rule"], outcome["expected_rule"], "{outcome}");
        assert_eq!(outcome["twin_done"], true, "{outcome}");
    }
    assert!(
        stderr.contains("0 attacks succeeded, 0 twins failed"),
        "{stderr}"
    );
}

// The teeth build (CI's separate step, `--features teeth`): with ploy's
// rules switched off, every attack scenario reaches its goal and every twin
// still completes, and ploy redteam says so and fails. So no scenario passes
// by accident: each one fails when the rules are not there. One face is
// enough for that (and keeps the CI step short).
#[cfg(feature = "teeth")]
#[test]
fn with_the_rules_switched_off_every_attack_succeeds() {
    ploy_testkit::require_part!("user and network namespaces", namespaces());
    let names = scenario_names();
    let (outcomes, code, stderr) = run_everything(&names, &["--mode", "print"]);
    let held: Vec<&Value> = outcomes
        .iter()
        .filter(|o| o["verdict"] != "succeeded" || o["twin_done"] != true)
        .collect();
    assert!(
        held.is_empty(),
        "still held with the rules off: {held:#?}\n{stderr}"
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("attack success rate 100%"), "{stderr}");
}

#[test]
fn an_unknown_scenario_is_a_usage_error() {
    let out = Command::new(PLOY)
        .args(["redteam", "--scenario", "no-such-thing"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--list"));
}

// Without user namespaces it says so in one line and exits 3, running
// nothing (as `ploy doctor` does). The test takes them away inside a user
// namespace of its own (max_user_namespaces 0 there).
#[test]
fn without_user_namespaces_it_says_it_cannot_run() {
    ploy_testkit::require_part!("user and network namespaces", namespaces());
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--net", "sh", "-c"])
        .arg("echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" redteam --scenario page-runs-command")
        .arg(PLOY)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot run here") && stderr.contains("namespaces"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing ran");
}
