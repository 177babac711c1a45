//! `proof run`: validate a proof line, then run it in the sandbox (PROOF-6).
//!
//! The validator is the first filter; the sandbox is the safeguard. An
//! accepted line runs as `/bin/sh -c LINE` inside the sandbox, with the
//! project copy-on-write (BEYOND-4). Output is capped by the sandbox and
//! redacted here before anyone sees it.

use std::time::Duration;

use ploy_secrets::Redactor;
use serde::Serialize;

use crate::{
    sandbox::{Sandbox, SandboxError, Termination},
    validate::{ProofVerdict, validate},
};

/// The shell that runs an accepted proof line inside the sandbox.
pub const PROOF_SHELL: &str = "/bin/sh";

/// The end of a proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProofOutcome {
    /// Accepted, ran, exited 0 in time.
    Passed,
    /// Accepted, ran, and did not exit 0 in time.
    Failed,
    /// Not run: the validator or the sandbox refused it.
    Refused,
}

impl ProofOutcome {
    /// `passed`, `failed` or `refused`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProofOutcome::Passed => "passed",
            ProofOutcome::Failed => "failed",
            ProofOutcome::Refused => "refused",
        }
    }
}

/// One rule that refused the proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProofRuleHit {
    /// The requirement ID (PROOF-n, SBX-n, BEYOND-n).
    pub rule: String,
    /// Why.
    pub detail: String,
}

/// Everything about one proof run; serialized as `ploy proof run --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProofReport {
    /// The proof line.
    pub line: String,
    /// passed / failed / refused.
    pub verdict: ProofOutcome,
    /// Rule IDs that refused it (empty unless refused).
    pub rules: Vec<String>,
    /// Each refusal with its detail.
    pub refusals: Vec<ProofRuleHit>,
    /// The exit code (128 + signal when killed); none when it did not run.
    pub exit_code: Option<i32>,
    /// Whether the wall-time limit stopped it.
    pub timed_out: bool,
    /// Milliseconds from validation to the end.
    pub time_ms: u64,
    /// Captured stdout, capped and redacted.
    pub stdout: String,
    /// Captured stderr, capped and redacted.
    pub stderr: String,
    /// Whether the output was longer than the cap.
    pub output_truncated: bool,
}

impl ProofReport {
    fn refused(line: &str, refusals: Vec<ProofRuleHit>, elapsed: Duration) -> ProofReport {
        let mut rules: Vec<String> = refusals.iter().map(|hit| hit.rule.clone()).collect();
        rules.dedup();
        ProofReport {
            line: line.to_string(),
            verdict: ProofOutcome::Refused,
            rules,
            refusals,
            exit_code: None,
            timed_out: false,
            time_ms: elapsed.as_millis() as u64,
            stdout: String::new(),
            stderr: String::new(),
            output_truncated: false,
        }
    }

    /// The first refusal as `RULE: detail`, or the failure, in one line.
    pub fn summary(&self) -> String {
        match self.verdict {
            ProofOutcome::Passed => "passed".to_string(),
            ProofOutcome::Failed if self.timed_out => {
                "failed: stopped at the wall-time limit".to_string()
            }
            ProofOutcome::Failed => format!("failed: exit {}", self.exit_code.unwrap_or(-1)),
            ProofOutcome::Refused => self
                .refusals
                .first()
                .map(|hit| format!("refused {}: {}", hit.rule, hit.detail))
                .unwrap_or_else(|| "refused".to_string()),
        }
    }
}

/// Validates `line` and, when accepted, runs it in `sandbox`.
pub fn run_proof(sandbox: &Sandbox, line: &str, redactor: &Redactor) -> ProofReport {
    let started = std::time::Instant::now();
    if let ProofVerdict::Refused(refusals) = validate(line) {
        let hits = refusals
            .into_iter()
            .map(|refusal| ProofRuleHit {
                rule: refusal.rule.to_string(),
                detail: redactor.redact(&refusal.detail).into_owned(),
            })
            .collect();
        return ProofReport::refused(line, hits, started.elapsed());
    }
    match sandbox.run(PROOF_SHELL, &["-c".to_string(), line.to_string()]) {
        Err(err) => ProofReport::refused(line, vec![sandbox_hit(&err)], started.elapsed()),
        Ok(out) => {
            let passed = out.success();
            ProofReport {
                line: line.to_string(),
                verdict: if passed {
                    ProofOutcome::Passed
                } else {
                    ProofOutcome::Failed
                },
                rules: Vec::new(),
                refusals: Vec::new(),
                exit_code: Some(match out.termination {
                    Termination::Exited(code) => code,
                    Termination::Signaled(signal) => 128 + signal,
                }),
                timed_out: out.timed_out,
                time_ms: started.elapsed().as_millis() as u64,
                stdout: redactor
                    .redact(&String::from_utf8_lossy(&out.stdout))
                    .into_owned(),
                stderr: redactor
                    .redact(&String::from_utf8_lossy(&out.stderr))
                    .into_owned(),
                output_truncated: out.output_truncated,
            }
        }
    }
}

fn sandbox_hit(err: &SandboxError) -> ProofRuleHit {
    ProofRuleHit {
        rule: err.rule().to_string(),
        detail: err.to_string(),
    }
}
