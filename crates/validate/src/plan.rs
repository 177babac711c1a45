//! The typed plan a validated proof line becomes, and the one place that
//! says how its exit status is computed (POSIX: a pipeline's status is its
//! last command's, `!` inverts it, `&&`/`||` are left-associative and
//! short-circuit).
//!
//! The plan is the contract between the validator (which builds it) and the
//! sandbox init (which runs it): it crosses the process boundary as JSON, and
//! [`ProofPlan::check`] is run again on the receiving side, so a malformed
//! plan is refused there too.

use serde::{Deserialize, Serialize};

/// Largest number of pipelines in one plan (a 400-character line cannot
/// need more; the bound keeps a forged plan cheap to refuse).
pub const MAX_PIPELINES: usize = 64;
/// Largest number of commands in one pipeline.
pub const MAX_PIPELINE_COMMANDS: usize = 16;
/// Largest number of arguments (program included) in one command.
pub const MAX_ARGV: usize = 256;

/// A validated proof: pipelines joined by `&&` / `||`, evaluated left to
/// right as POSIX defines an and-or list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProofPlan {
    /// The first pipeline; it always runs.
    pub first: Pipeline,
    /// Each later pipeline with the connector before it.
    pub rest: Vec<(Connector, Pipeline)>,
}

/// The connector between two pipelines of an and-or list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Connector {
    /// `&&`: run the next pipeline only if the status so far is 0.
    And,
    /// `||`: run the next pipeline only if the status so far is not 0.
    Or,
}

/// Commands joined by `|`, optionally negated with a leading `!`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// `!` before the pipeline: status 0 becomes 1, anything else becomes 0.
    pub negated: bool,
    /// The commands, left to right; each one's stdout feeds the next one's
    /// stdin. Never empty.
    pub commands: Vec<PlanCommand>,
}

/// One simple command: an argv vector, run as is (no shell, no expansion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanCommand {
    /// `argv[0]` is a program name looked up on the sandbox's `PATH`, or a
    /// project script by relative path (`./check.sh`, `scripts/test.sh`).
    pub argv: Vec<String>,
    /// Where stdout goes: the pipe to the next command (or the collected
    /// output for the last command), or `/dev/null`.
    pub stdout: StreamTarget,
    /// Where stderr goes.
    pub stderr: StreamTarget,
}

/// Where an output stream of a command goes. `/dev/null` is the only file a
/// plan may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamTarget {
    /// As without a redirection: stdout to the pipe or collected output,
    /// stderr to the collected output.
    Inherit,
    /// `>/dev/null` (or `2>/dev/null`).
    Null,
    /// `2>&1`: stderr goes where this command's stdout goes. Only valid for
    /// stderr.
    Stdout,
}

/// Why a plan is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError(pub String);

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed proof plan: {}", self.0)
    }
}

impl std::error::Error for PlanError {}

impl ProofPlan {
    /// Every pipeline, in order (the first one's connector is `None`).
    pub fn pipelines(&self) -> impl Iterator<Item = (Option<Connector>, &Pipeline)> {
        std::iter::once((None, &self.first)).chain(self.rest.iter().map(|(c, p)| (Some(*c), p)))
    }

    /// Every command of every pipeline, in order.
    pub fn commands(&self) -> impl Iterator<Item = &PlanCommand> {
        self.pipelines().flat_map(|(_, p)| p.commands.iter())
    }

    /// Structural checks, done by the builder and again by whoever receives
    /// a plan over a process boundary: bounded sizes, no empty pipeline or
    /// argv, no NUL byte in an argument, `Stdout` only on stderr.
    pub fn check(&self) -> Result<(), PlanError> {
        if self.rest.len() + 1 > MAX_PIPELINES {
            return Err(PlanError(format!("more than {MAX_PIPELINES} pipelines")));
        }
        for (_, pipeline) in self.pipelines() {
            if pipeline.commands.is_empty() {
                return Err(PlanError("an empty pipeline".into()));
            }
            if pipeline.commands.len() > MAX_PIPELINE_COMMANDS {
                return Err(PlanError(format!(
                    "a pipeline of more than {MAX_PIPELINE_COMMANDS} commands"
                )));
            }
            for command in &pipeline.commands {
                if command.argv.is_empty() || command.argv[0].is_empty() {
                    return Err(PlanError("a command with no program".into()));
                }
                if command.argv.len() > MAX_ARGV {
                    return Err(PlanError(format!("more than {MAX_ARGV} arguments")));
                }
                if command.argv.iter().any(|a| a.contains('\0')) {
                    return Err(PlanError("a NUL byte in an argument".into()));
                }
                if command.stdout == StreamTarget::Stdout {
                    return Err(PlanError("stdout redirected to itself".into()));
                }
            }
        }
        Ok(())
    }

    /// The plan's exit status, given a function that runs one pipeline and
    /// returns its raw status (the last command's). This is the only place
    /// the and-or semantics live; the init calls it with its real runner.
    pub fn evaluate(&self, mut run_pipeline: impl FnMut(&Pipeline) -> i32) -> i32 {
        let apply =
            |p: &Pipeline, raw: i32| -> i32 { if p.negated { i32::from(raw == 0) } else { raw } };
        let mut status = apply(&self.first, run_pipeline(&self.first));
        for (connector, pipeline) in &self.rest {
            let run = match connector {
                Connector::And => status == 0,
                Connector::Or => status != 0,
            };
            if run {
                status = apply(pipeline, run_pipeline(pipeline));
            }
        }
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(name: &str) -> PlanCommand {
        PlanCommand {
            argv: vec![name.to_string()],
            stdout: StreamTarget::Inherit,
            stderr: StreamTarget::Inherit,
        }
    }

    fn pipe(name: &str, negated: bool) -> Pipeline {
        Pipeline {
            negated,
            commands: vec![cmd(name)],
        }
    }

    fn status_of(name: &str) -> i32 {
        match name {
            "ok" => 0,
            "fail" => 1,
            _ => 7,
        }
    }

    fn run(plan: &ProofPlan) -> (i32, Vec<String>) {
        let mut ran = Vec::new();
        let status = plan.evaluate(|p| {
            ran.push(p.commands[0].argv[0].clone());
            status_of(&p.commands[0].argv[0])
        });
        (status, ran)
    }

    #[test]
    fn and_or_lists_follow_posix() {
        // fail && x || ok  → x skipped, ok runs, status 0
        let plan = ProofPlan {
            first: pipe("fail", false),
            rest: vec![
                (Connector::And, pipe("x", false)),
                (Connector::Or, pipe("ok", false)),
            ],
        };
        assert_eq!(run(&plan), (0, vec!["fail".into(), "ok".into()]));
        // ok || x && other → x skipped, other runs with status 0 so far → 7
        let plan = ProofPlan {
            first: pipe("ok", false),
            rest: vec![
                (Connector::Or, pipe("x", false)),
                (Connector::And, pipe("other", false)),
            ],
        };
        assert_eq!(run(&plan), (7, vec!["ok".into(), "other".into()]));
    }

    #[test]
    fn negation_inverts_the_pipeline_status() {
        let plan = ProofPlan {
            first: pipe("other", true),
            rest: vec![],
        };
        assert_eq!(run(&plan).0, 0);
        let plan = ProofPlan {
            first: pipe("ok", true),
            rest: vec![],
        };
        assert_eq!(run(&plan).0, 1);
    }

    #[test]
    fn check_refuses_malformed_plans() {
        let empty = ProofPlan {
            first: Pipeline {
                negated: false,
                commands: vec![],
            },
            rest: vec![],
        };
        assert!(empty.check().is_err());
        let mut nul = cmd("grep");
        nul.argv.push("a\0b".into());
        let plan = ProofPlan {
            first: Pipeline {
                negated: false,
                commands: vec![nul],
            },
            rest: vec![],
        };
        assert!(plan.check().is_err());
        let mut self_loop = cmd("grep");
        self_loop.stdout = StreamTarget::Stdout;
        let plan = ProofPlan {
            first: Pipeline {
                negated: false,
                commands: vec![self_loop],
            },
            rest: vec![],
        };
        assert!(plan.check().is_err());
        assert!(
            ProofPlan {
                first: pipe("ok", false),
                rest: vec![]
            }
            .check()
            .is_ok()
        );
    }

    #[test]
    fn plans_round_trip_as_json_and_refuse_unknown_fields() {
        let plan = ProofPlan {
            first: pipe("ok", true),
            rest: vec![(Connector::Or, pipe("fail", false))],
        };
        let json = serde_json::to_string(&plan).unwrap();
        assert_eq!(serde_json::from_str::<ProofPlan>(&json).unwrap(), plan);
        let forged = json.replacen("\"negated\"", "\"shell\":true,\"negated\"", 1);
        assert!(serde_json::from_str::<ProofPlan>(&forged).is_err());
    }
}
