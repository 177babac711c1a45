//! `!` in a proof passes only on the program's documented "no", never on a
//! usage error (outside attacker's validate #20: each line below passed in
//! every state of the project, because the program stopped at start-up with
//! a usage error and `!` turned that into a pass).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

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

// proves: PROOF-5 (validate #20), PROOF-6
#[test]
fn a_usage_error_under_negation_is_a_failure_and_a_real_no_a_pass() {
    let project = Project(
        std::env::temp_dir()
            .canonicalize()
            .unwrap()
            .join(format!("ploy-negation-{}", std::process::id())),
    );
    let _ = std::fs::remove_dir_all(&project.0);
    std::fs::create_dir_all(project.0.join("src")).unwrap();
    std::fs::write(project.0.join("f"), "hello\n").unwrap();
    std::fs::write(project.0.join("a"), "a\n").unwrap();
    std::fs::write(project.0.join("b"), "b\n").unwrap();
    std::fs::write(project.0.join("f.json"), "{\"a\":1}\n").unwrap();
    let sandbox = Sandbox::with_init(
        SandboxPolicy::new(&project.0),
        PathBuf::from(env!("CARGO_BIN_EXE_ploy-sandbox-run")),
    )
    .unwrap();
    let probe = sandbox.probe();
    ploy_testkit::require_part!(
        "user namespaces",
        if probe.can_run() {
            Ok(())
        } else {
            Err(format!("the sandbox cannot run here: {probe:?}"))
        }
    );
    let redactor = Redactor::empty();
    let outcome = |line: &str| {
        let report = run_proof(&sandbox, line, &redactor);
        (report.verdict, report)
    };
    // The program rejects an option value and stops (exit 2, or jq's 2/3):
    // not a "no", so `!` does not make it a pass.
    for line in [
        "! grep -q -A -1 x f",
        "! grep -q -m 1x x f",
        "! cmp -s -n -1 a b",
        "! diff -q --tabsize=0 a b",
        "! jq -e --indent 9 . f.json",
        "! rg -q -t zzz x f",
        "! test 1x -eq 1",
        "! grep -q -E '(' f",
        "! head -n 1x f | grep -q .",
    ] {
        let (verdict, report) = outcome(line);
        // Refused by the validator is fine too; passing is not.
        assert_ne!(verdict, ProofOutcome::Passed, "{line}: {report:?}");
        if verdict == ProofOutcome::Failed {
            assert_ne!(report.exit_code, Some(0), "{line}: {report:?}");
        }
    }
    // The same checks, well formed: the program's "no" is a pass…
    for line in [
        "! grep -q -A 1 zzz f",
        "! grep -q -m 1 zzz f",
        "! cmp -s a b",
        "! diff -q a b",
        "! jq -e .missing f.json",
        "! rg -quuu zzz f",
        "! test -e nope",
        "! grep -q -E '(z)' f",
        "! cat f | grep -q zzz",
    ] {
        let (verdict, report) = outcome(line);
        assert_eq!(verdict, ProofOutcome::Passed, "{line}: {report:?}");
    }
    // …and its "yes" a failure.
    for line in ["! grep -q hello f", "! cmp -s a a2", "! test -f f"] {
        if line.contains("a2") {
            std::fs::write(project.0.join("a2"), "a\n").unwrap();
        }
        let (verdict, report) = outcome(line);
        assert_eq!(verdict, ProofOutcome::Failed, "{line}: {report:?}");
    }
}
