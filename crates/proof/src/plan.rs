//! The project plan: `.ploy/plan.json`, steps with a title and a proof.
//!
//! ```json
//! { "steps": [ { "title": "It builds", "proof": "cargo build -q" } ] }
//! ```
//!
//! Unknown fields are refused (a typo must not silently drop a proof).
//! [`check_plan`] validates and runs every step's proof in the sandbox.

use std::path::{Path, PathBuf};

use ploy_secrets::Redactor;
use serde::{Deserialize, Serialize};

use crate::{
    proof_run::{ProofOutcome, ProofReport, run_proof},
    sandbox::Sandbox,
};

/// Where the plan lives, relative to the project folder.
pub const PLAN_FILE: &str = ".ploy/plan.json";

/// The plan file's largest accepted size.
pub const MAX_PLAN_BYTES: u64 = 1 << 20;

/// The plan: an ordered list of steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The steps, in order.
    pub steps: Vec<PlanStep>,
}

/// One step: what it is and the one-line proof that it is done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// A short title for people.
    pub title: String,
    /// The proof line (validated, then run in the sandbox).
    pub proof: String,
}

/// Why the plan could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// No plan file.
    #[error("no plan at {}: create it with {{\"steps\": [{{\"title\": \"...\", \"proof\": \"...\"}}]}}", path.display())]
    Missing {
        /// The expected path.
        path: PathBuf,
    },
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Too big to be a plan.
    #[error("{} is larger than {MAX_PLAN_BYTES} bytes; a plan is a short list of steps", path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
    },
    /// Not valid JSON or not the plan's shape.
    #[error("{} is malformed at line {line}, column {column}: {message}; expected {{\"steps\": [{{\"title\": \"...\", \"proof\": \"...\"}}]}}", path.display())]
    Malformed {
        /// The path.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde found.
        message: String,
    },
    /// A step has an empty title or proof, or there are no steps.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Parses plan text (`path` is only used in messages).
pub fn parse_plan(text: &str, path: &Path) -> Result<Plan, PlanError> {
    let plan: Plan = serde_json::from_str(text).map_err(|err| PlanError::Malformed {
        path: path.to_path_buf(),
        line: err.line(),
        column: err.column(),
        message: err.to_string(),
    })?;
    if plan.steps.is_empty() {
        return Err(PlanError::Invalid {
            path: path.to_path_buf(),
            message: "the plan has no steps".to_string(),
        });
    }
    for (index, step) in plan.steps.iter().enumerate() {
        for (field, value) in [("title", &step.title), ("proof", &step.proof)] {
            if value.trim().is_empty() {
                return Err(PlanError::Invalid {
                    path: path.to_path_buf(),
                    message: format!("step {} has an empty {field}", index + 1),
                });
            }
        }
    }
    Ok(plan)
}

/// Loads `<project>/.ploy/plan.json`.
pub fn load_plan(project: &Path) -> Result<Plan, PlanError> {
    let path = project.join(PLAN_FILE);
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(PlanError::Missing { path });
        }
        Err(source) => return Err(PlanError::Read { path, source }),
    };
    if meta.len() > MAX_PLAN_BYTES {
        return Err(PlanError::TooLarge { path });
    }
    let text = std::fs::read_to_string(&path).map_err(|source| PlanError::Read {
        path: path.clone(),
        source,
    })?;
    parse_plan(&text, &path)
}

/// One step's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepReport {
    /// 1-based step number.
    pub step: usize,
    /// The step's title.
    pub title: String,
    /// The proof's result.
    pub proof: ProofReport,
}

/// The whole plan's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanReport {
    /// Every step, in order.
    pub steps: Vec<StepReport>,
    /// True only when every step passed.
    pub all_passed: bool,
}

/// Validates and runs every step's proof in `sandbox`, in order; `progress`
/// is called before each step (with `None`) and after it (with its report).
pub fn check_plan(
    sandbox: &Sandbox,
    plan: &Plan,
    redactor: &Redactor,
    progress: &mut dyn FnMut(usize, &PlanStep, Option<&StepReport>),
) -> PlanReport {
    let mut steps = Vec::with_capacity(plan.steps.len());
    for (index, step) in plan.steps.iter().enumerate() {
        progress(index + 1, step, None);
        let report = StepReport {
            step: index + 1,
            title: step.title.clone(),
            proof: run_proof(sandbox, &step.proof, redactor),
        };
        progress(index + 1, step, Some(&report));
        steps.push(report);
    }
    let all_passed = steps
        .iter()
        .all(|step| step.proof.verdict == ProofOutcome::Passed);
    PlanReport { steps, all_passed }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: PROOF-6
    #[test]
    fn plan_parses_and_refuses_unknown_fields_and_empty_steps() {
        let path = Path::new(".ploy/plan.json");
        let plan = parse_plan(
            r#"{"steps":[{"title":"builds","proof":"cargo build -q"}]}"#,
            path,
        )
        .unwrap();
        assert_eq!(plan.steps[0].proof, "cargo build -q");
        for bad in [
            r#"{"steps":[{"title":"a","proof":"true","skip":true}]}"#,
            r#"{"steps":[{"title":"a"}]}"#,
            r#"{"steps":[],"extra":1}"#,
            r#"[{"title":"a","proof":"x"}]"#,
            r#"{"steps":[{"title":"a","proof":"x"}"#,
        ] {
            let err = parse_plan(bad, path).unwrap_err();
            assert!(matches!(err, PlanError::Malformed { .. }), "{bad}: {err}");
            assert!(err.to_string().contains("line 1"), "{err}");
        }
        for bad in [
            r#"{"steps":[]}"#,
            r#"{"steps":[{"title":" ","proof":"x"}]}"#,
            r#"{"steps":[{"title":"a","proof":""}]}"#,
        ] {
            assert!(matches!(
                parse_plan(bad, path).unwrap_err(),
                PlanError::Invalid { .. }
            ));
        }
    }
}
