//! The plan engine through the library: load `.ploy/plan.json`, validate and
//! run every proof in a real sandbox, report each step (PROOF-6, BEYOND-4).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use ploy_proof::{
    plan::{PlanError, check_plan, load_plan},
    proof_run::ProofOutcome,
    sandbox::{Sandbox, SandboxPolicy},
};
use ploy_secrets::Redactor;

struct Project(PathBuf);

impl Project {
    fn new(name: &str, plan: &str) -> Project {
        let dir = std::env::temp_dir()
            .canonicalize()
            .unwrap()
            .join(format!("ploy-plan-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".ploy")).unwrap();
        std::fs::write(dir.join(".ploy/plan.json"), plan).unwrap();
        std::fs::write(dir.join("notes.txt"), "keep me\n").unwrap();
        std::fs::write(dir.join("Makefile"), "test:\n\trm notes.txt\n").unwrap();
        Project(dir)
    }

    fn sandbox(&self) -> Sandbox {
        Sandbox::with_init(
            SandboxPolicy::new(&self.0),
            PathBuf::from(env!("CARGO_BIN_EXE_ploy-sandbox-run")),
        )
        .unwrap()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// proves: PROOF-6, BEYOND-4
#[test]
fn every_step_is_validated_then_run_in_the_sandbox_in_order() {
    let project = Project::new(
        "steps",
        r#"{"steps":[
            {"title":"notes exist","proof":"test -f notes.txt"},
            {"title":"make test deletes a file","proof":"make test"},
            {"title":"notes still exist","proof":"grep -q keep notes.txt"},
            {"title":"network","proof":"curl https://example.com"},
            {"title":"missing","proof":"test -f nope.txt"}
        ]}"#,
    );
    let plan = load_plan(&project.0).unwrap();
    let mut events = Vec::new();
    let report = check_plan(
        &project.sandbox(),
        &plan,
        &Redactor::empty(),
        &mut |n, step, done| events.push((n, step.title.clone(), done.is_some())),
    );
    let verdicts: Vec<ProofOutcome> = report.steps.iter().map(|s| s.proof.verdict).collect();
    assert_eq!(
        verdicts,
        [
            ProofOutcome::Passed,
            ProofOutcome::Passed,
            ProofOutcome::Passed,
            ProofOutcome::Refused,
            ProofOutcome::Failed
        ],
        "{report:?}"
    );
    // `make test` ran project code that deleted a file: only in the overlay.
    assert!(project.0.join("notes.txt").exists());
    assert!(report.steps[3].proof.rules.contains(&"PROOF-2".to_string()));
    assert!(!report.all_passed);
    assert_eq!(events.len(), 10);
    assert_eq!(events[0], (1, "notes exist".to_string(), false));
    assert_eq!(events[1], (1, "notes exist".to_string(), true));
}

// proves: PROOF-6
#[test]
fn a_missing_or_malformed_plan_is_a_clear_error() {
    let project = Project::new(
        "bad",
        r#"{"steps":[{"title":"x","proof":"test -f a","when":"always"}]}"#,
    );
    let err = load_plan(&project.0).unwrap_err();
    assert!(matches!(err, PlanError::Malformed { .. }));
    assert!(err.to_string().contains("unknown field `when`"), "{err}");
    std::fs::remove_file(project.0.join(".ploy/plan.json")).unwrap();
    assert!(matches!(
        load_plan(&project.0).unwrap_err(),
        PlanError::Missing { .. }
    ));
}
