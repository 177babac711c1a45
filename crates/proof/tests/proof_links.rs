//! Symbolic links in the project that lead out of it (outside attacker's
//! validate #19): a proof must never read a host file through one. The
//! proof run refuses an argument that leads out (PROOF-3), and what it
//! cannot see (links a program finds while walking a folder) resolves in
//! the sandbox's own view, where the host's secrets are hidden (SBX-3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{os::unix::fs::PermissionsExt, path::PathBuf};

use ploy_proof::{
    proof_run::{ProofOutcome, run_proof},
    sandbox::{Sandbox, SandboxPolicy},
};
use ploy_secrets::Redactor;

struct Fixture {
    project: PathBuf,
    secret: PathBuf,
    /// What this fixture's secret holds: its own, so that a run never
    /// finds the secret of a test running at the same time (see below).
    canary: String,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.project);
        let _ = std::fs::remove_file(&self.secret);
    }
}

/// The start of every fixture's canary.
const CANARY: &str = "CANARY-ETC-SECRET-19";

/// A project with links to the host's /etc and /etc/passwd, and a secret
/// file in /etc only its owner (root) may read. None when the test cannot
/// run here (recorded by `require_part!`).
///
/// Each fixture's secret holds its own canary (test name and process): the
/// sandbox binds /etc live, so a secret another test (of this process, run
/// in parallel, or of another process) writes into /etc after this test's
/// run looked for secrets there is visible in that run; the next run hides
/// it. With one canary for all, `grep -R CANARY` then found the other
/// test's secret and the view test failed now and then.
fn fixture(name: &str) -> Option<(Fixture, Sandbox)> {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if let Err(why) = if root {
        Ok(())
    } else {
        Err("writing a secret into /etc needs root; run the tests as root (CI does)")
    } {
        ploy_testkit::strict::require_part::<(), _>("root", Err(why));
        return None;
    }
    let project = std::env::temp_dir()
        .canonicalize()
        .unwrap()
        .join(format!("ploy-links-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&project);
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
    let secret = PathBuf::from(format!(
        "/etc/ploy-test-secret-{name}-{}",
        std::process::id()
    ));
    let canary = format!("{CANARY}-{name}-{}", std::process::id());
    // Private from its first byte: never readable by everyone, not even
    // between the write and a chmod.
    {
        use std::{io::Write, os::unix::fs::OpenOptionsExt};
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&secret)
            .unwrap();
        writeln!(file, "{canary}").unwrap();
    }
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::symlink("/etc", project.join("etcd")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", project.join("pw")).unwrap();
    std::os::unix::fs::symlink("/", project.join("rootl")).unwrap();
    let fixture = Fixture {
        project,
        secret,
        canary,
    };
    let sandbox = Sandbox::with_init(
        SandboxPolicy::new(&fixture.project),
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
    Some((fixture, sandbox))
}

// proves: PROOF-3 (outside attacker's validate #19: each line read a host
// file through a project link and passed)
#[test]
fn an_argument_leading_out_of_the_project_through_a_link_is_refused() {
    let Some((fixture, sandbox)) = fixture("args") else {
        return;
    };
    let redactor = Redactor::empty();
    let secret_name = fixture.secret.file_name().unwrap().to_string_lossy();
    for line in [
        "grep root pw".to_string(),
        "head -n 3 etcd/shadow".to_string(),
        format!("grep -q {} etcd/{secret_name}", fixture.canary),
        "grep -r root etcd/passwd".to_string(),
        "ls -l rootl/".to_string(),
        "grep -r -l -i -e token -e password rootl/etc".to_string(),
        "cargo check --manifest-path pw".to_string(),
        "grep -rq x --exclude-from pw src".to_string(),
        "grep -rq x --exclude-from=pw src".to_string(),
        "test -f src/main.rs && grep -q root pw".to_string(),
    ] {
        let report = run_proof(&sandbox, &line, &redactor);
        assert_eq!(report.verdict, ProofOutcome::Refused, "{line}: {report:?}");
        assert_eq!(report.rules, ["PROOF-3"], "{line}: {report:?}");
        assert!(
            report.refusals[0].detail.contains("outside"),
            "{line}: {report:?}"
        );
        assert!(report.plan.is_none(), "{line} ran");
    }
    // A project's own links still work.
    std::os::unix::fs::symlink("src/main.rs", fixture.project.join("main-link.rs")).unwrap();
    let report = run_proof(&sandbox, "grep -q main main-link.rs", &redactor);
    assert_eq!(report.verdict, ProofOutcome::Passed, "{report:?}");
}

// proves: SBX-3 (the host's secrets in /etc, readable by the user running
// ploy but not by everyone, are hidden in the sandbox: a link found while a
// program walks a folder, or a project's own program, resolves there)
#[test]
fn secrets_of_the_host_are_hidden_from_links_the_proof_run_cannot_see() {
    let Some((fixture, sandbox)) = fixture("view") else {
        return;
    };
    let redactor = Redactor::empty();
    // `-R` follows `etcd` while walking `.`: the argument check sees `.`.
    // (Not `rootl -> /`, which would walk the whole view.)
    std::fs::remove_file(fixture.project.join("rootl")).unwrap();
    let report = run_proof(
        &sandbox,
        &format!("grep -R -l {} .", fixture.canary),
        &redactor,
    );
    assert_ne!(report.verdict, ProofOutcome::Refused, "{report:?}");
    assert_ne!(report.verdict, ProofOutcome::Passed, "{report:?}");
    assert!(!report.timed_out, "{report:?}");
    assert!(!report.stdout.contains("ploy-test-secret"), "{report:?}");
    // What the run would show were the argument check not there: the plan
    // run directly in the sandbox, as a project's own program sees it.
    let secret_name = fixture.secret.file_name().unwrap().to_string_lossy();
    for (line, hidden) in [
        (format!("cat etcd/{secret_name}"), fixture.canary.as_str()),
        ("cat etcd/shadow".to_string(), "root:"),
        ("cat etcd/gshadow".to_string(), "root:"),
    ] {
        let plan = ploy_validate::validate(&line).plan().cloned().unwrap();
        let out = sandbox.run_plan(&plan).unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains(hidden), "{line} showed a secret: {stdout}");
    }
    // The system folders stay: what everyone may read is still there.
    let plan = ploy_validate::validate("grep -q root etcd/passwd")
        .plan()
        .cloned()
        .unwrap();
    assert!(sandbox.run_plan(&plan).unwrap().success());
}
