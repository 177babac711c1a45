//! round8 #7: a project's pytest configuration adds its `addopts` to the
//! proof's command line (`addopts = --co` collects the tests, runs none,
//! and passes). `ploy proof run` reads the configuration before the run,
//! and the sandbox's init reads it again right before pytest starts (a
//! command earlier on the line can write one into the sandbox's copy).
//! The real sandbox, the real pytest.
#![allow(clippy::disallowed_methods)] // the test runs the host's pytest to show the attack is real
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::Command,
};

use ploy_proof::{
    proof_run::{ProofOutcome, run_proof},
    sandbox::{Sandbox, SandboxPolicy},
};
use ploy_secrets::Redactor;

struct Project(PathBuf);

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const VACUOUS: &str = "[pytest]\naddopts = -q\n    --co\n";

/// A project whose one test fails, and a sandbox for it; None when pytest
/// or the sandbox cannot run here (`require_part!`).
fn project(name: &str) -> Option<(Project, Sandbox)> {
    let pytest = Command::new("pytest").arg("--version").output();
    ploy_testkit::strict::require_part(
        "pytest",
        match pytest {
            Ok(out) if out.status.success() => Ok(()),
            Ok(out) => Err(format!("pytest --version: {:?}", out.status)),
            Err(err) => Err(err.to_string()),
        },
    )?;
    let root = std::env::temp_dir()
        .canonicalize()
        .unwrap()
        .join(format!("ploy-proof-pytest-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(
        root.join("tests/test_a.py"),
        "def test_fails():\n    assert 1 == 2\n",
    )
    .unwrap();
    let project = Project(root);
    let sandbox = Sandbox::with_init(
        SandboxPolicy::new(&project.0),
        PathBuf::from(env!("CARGO_BIN_EXE_ploy-sandbox-run")),
    )
    .unwrap();
    let probe = sandbox.probe();
    let usable = if probe.can_run() {
        Ok(())
    } else {
        Err(format!("the sandbox cannot run here: {probe:?}"))
    };
    ploy_testkit::strict::require_part("user namespaces", usable)?;
    Some((project, sandbox))
}

fn host_pytest_passes(root: &Path) -> bool {
    Command::new("pytest")
        .args(["-q", "-p", "no:cacheprovider", "tests"])
        .current_dir(root)
        .output()
        .unwrap()
        .status
        .success()
}

// proves: PROOF-5
#[test]
fn round8_7_pytest_config_that_runs_no_test_is_refused() {
    let Some((project, sandbox)) = project("addopts") else {
        return;
    };
    let root = &project.0;
    let redactor = Redactor::empty();
    // Without a configuration the failing test fails the proof.
    let report = run_proof(&sandbox, "pytest -q tests", &redactor);
    assert_eq!(report.verdict, ProofOutcome::Failed, "{report:?}");
    for (file, text) in [
        ("pytest.ini", VACUOUS),
        ("tests/pytest.ini", VACUOUS),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"--co\"\n",
        ),
        ("setup.cfg", "[tool:pytest]\naddopts = -k nothing_fails\n"),
    ] {
        std::fs::write(root.join(file), text).unwrap();
        if file.ends_with("pytest.ini") {
            // The host's own pytest passes (the attack is real here).
            assert!(
                host_pytest_passes(root),
                "{file}: the fixture does not pass"
            );
        }
        for line in ["pytest -q tests", "pytest -q tests/test_a.py"] {
            let report = run_proof(&sandbox, line, &redactor);
            assert_eq!(
                report.verdict,
                ProofOutcome::Refused,
                "{file} {line}: {report:?}"
            );
            assert_eq!(report.rules, ["PROOF-5"], "{file} {line}: {report:?}");
            assert!(report.refusals[0].detail.contains(file), "{report:?}");
        }
        std::fs::remove_file(root.join(file)).unwrap();
    }
    // A configuration that leaves every test running is fine.
    std::fs::write(
        root.join("pytest.ini"),
        "[pytest]\naddopts = -ra --strict-markers\n",
    )
    .unwrap();
    let report = run_proof(&sandbox, "pytest -q tests", &redactor);
    assert_eq!(report.verdict, ProofOutcome::Failed, "{report:?}");
}

// A project script earlier on the line writes the configuration into the
// sandbox's copy after the check before the run: the init's own look, right
// before pytest starts, stops the run.
// proves: PROOF-5
#[test]
fn round8_7_pytest_config_written_during_the_run_is_refused() {
    let Some((project, sandbox)) = project("written") else {
        return;
    };
    let root = &project.0;
    let script = root.join("gen.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '{}' > pytest.ini\n",
            VACUOUS.replace('\n', "\\n")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let redactor = Redactor::empty();
    let report = run_proof(&sandbox, "./gen.sh && pytest -q tests", &redactor);
    assert_ne!(report.verdict, ProofOutcome::Passed, "{report:?}");
    assert!(
        report
            .refusals
            .iter()
            .any(|r| r.detail.contains("PROOF-5") && r.detail.contains("pytest.ini")),
        "{report:?}"
    );
    // The sandbox's copy was the one written: the project holds no config.
    assert!(!root.join("pytest.ini").exists());
}
