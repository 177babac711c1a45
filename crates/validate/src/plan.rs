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
    /// returns its raw status (its deciding command's, see
    /// [`Pipeline::deciding_command`]). The init calls it with its real
    /// runner; only the pipelines whose turn comes are run, in order.
    ///
    /// `!` inverts only an answer: a pipeline whose deciding command said
    /// "no" with its documented status ([`PlanCommand::negative_answers`],
    /// grep's 1, not its 2), after every earlier command of the pipeline
    /// ended well ([`PipelineEnd::upstream_ok`]). A usage error, an I/O
    /// error or a signal stays a failure under `!` (outside attacker's
    /// validate #20: `! head -n 1x f` passed in every state).
    pub fn evaluate(&self, run_pipeline: impl FnMut(&Pipeline) -> PipelineEnd) -> i32 {
        self.fold(&mut ExitStatuses {
            run: run_pipeline,
            upstream_ok: true,
        })
    }

    /// Folds the plan's status in the domain `statuses`: this is the only
    /// place the and-or structure is walked (left to right, `!` applied to
    /// a pipeline's raw status, each connector handed to the domain). The
    /// concrete domain ([`ProofPlan::evaluate`]) and the validator's
    /// symbolic one (PROOF-5: can the line fail at all?) both go through it.
    pub fn fold<D: StatusDomain>(&self, statuses: &mut D) -> D::Status {
        let mut status = pipeline_status(&self.first, statuses);
        for (connector, pipeline) in &self.rest {
            status = match connector {
                Connector::And => {
                    statuses.and_then(status, &mut |d: &mut D| pipeline_status(pipeline, d))
                }
                Connector::Or => {
                    statuses.or_else(status, &mut |d: &mut D| pipeline_status(pipeline, d))
                }
            };
        }
        status
    }
}

impl ProofPlan {
    /// The plan written as a POSIX shell line: words that are not plain
    /// are single-quoted, so the text reads back (through the validator)
    /// as this exact plan. For people, and for runners that still need a
    /// line.
    pub fn to_line(&self) -> String {
        let mut out = String::new();
        for (connector, pipeline) in self.pipelines() {
            match connector {
                Some(Connector::And) => out.push_str(" && "),
                Some(Connector::Or) => out.push_str(" || "),
                None => {}
            }
            if pipeline.negated {
                out.push_str("! ");
            }
            for (i, command) in pipeline.commands.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                out.push_str(&command.to_line());
            }
        }
        out
    }
}

impl PlanCommand {
    /// The command as shell words (see [`ProofPlan::to_line`]).
    pub fn to_line(&self) -> String {
        let mut words: Vec<String> = self.argv.iter().map(|w| quote(w)).collect();
        match self.stdout {
            StreamTarget::Null => words.push(">/dev/null".into()),
            StreamTarget::Inherit | StreamTarget::Stdout => {}
        }
        match self.stderr {
            StreamTarget::Null => words.push("2>/dev/null".into()),
            StreamTarget::Stdout => words.push("2>&1".into()),
            StreamTarget::Inherit => {}
        }
        words.join(" ")
    }
}

/// A word as the shell must see it: plain words as they are, others in
/// single quotes (`'` written as `'\''`).
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    '-' | '_' | '.' | '/' | '=' | ',' | '+' | '%' | '@' | ':' | '^'
                )
        });
    let keyword = matches!(word, "!" | "[" | "]");
    if plain || (keyword && word != "!") {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

impl Pipeline {
    /// The command whose exit status is the pipeline's: the last one (POSIX,
    /// without `pipefail`). The others' statuses are discarded.
    pub fn deciding_command(&self) -> Option<&PlanCommand> {
        self.commands.last()
    }

    /// This pipeline's status under `!`, given how it ended: 1 after a 0;
    /// 0 only after the deciding command's documented "no"
    /// ([`PlanCommand::negative_answers`]) with every earlier command ended
    /// well; otherwise the failure as it is (a usage or I/O error, a
    /// signal, an earlier command that failed and fed the last one nothing).
    pub fn negated_status(&self, end: PipelineEnd) -> i32 {
        if end.status == 0 {
            return 1;
        }
        let answered_no = end.upstream_ok
            && self
                .deciding_command()
                .is_some_and(|command| command.negative_answers().contains(&end.status));
        if answered_no { 0 } else { end.status }
    }
}

/// How one pipeline ended, as the runner saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PipelineEnd {
    /// The deciding (last) command's status; 128 + n when signal n ended it.
    pub status: i32,
    /// Whether every earlier command of the pipeline ended well: status 0,
    /// or SIGPIPE (a later command stopped reading, as `grep -q` does once
    /// it has its answer). A failed `head -n 1x f` in `head -n 1x f | grep
    /// -q .` feeds grep nothing, and grep's "no" then says nothing.
    pub upstream_ok: bool,
}

impl PipelineEnd {
    /// A pipeline whose earlier commands (if any) all ended well.
    pub fn of(status: i32) -> PipelineEnd {
        PipelineEnd {
            status,
            upstream_ok: true,
        }
    }
}

impl PlanCommand {
    /// The exit statuses with which this command's program answers "no"
    /// (a search that found nothing, a test that is false, files that
    /// differ), as distinct from its errors; empty when the program has no
    /// such answer (`head`, `cat`, `find`, build tools, project scripts:
    /// their failure is an error) or its statuses are not the same in every
    /// version (`yq`: the Go yq exits 1 on errors too). `!` passes only on
    /// these ([`Pipeline::negated_status`]).
    pub fn negative_answers(&self) -> &'static [i32] {
        match self.argv.first().map(String::as_str) {
            // grep/rg: 1 none selected, 2 error; test/[: 1 false, 2 error;
            // diff/cmp: 1 different, 2 trouble; git: 1 from `diff
            // --quiet`, `grep`, `merge-base --is-ancestor`, `ls-files
            // --error-unmatch`, 128 fatal, 129 usage.
            Some("grep" | "rg" | "test" | "[" | "diff" | "cmp" | "git") => &[1],
            // jq -e: 1 the last output false or null, 4 no output at all;
            // 2 usage or system error, 3 compile error, 5 run-time error.
            Some("jq") => &[1, 4],
            _ => &[],
        }
    }
}

/// A pipeline's status in a domain: its raw status, inverted by `!`.
fn pipeline_status<D: StatusDomain>(pipeline: &Pipeline, statuses: &mut D) -> D::Status {
    let raw = statuses.pipeline(pipeline);
    if pipeline.negated {
        statuses.negate(pipeline, raw)
    } else {
        raw
    }
}

/// A domain the plan's status can be computed in (see [`ProofPlan::fold`]).
pub trait StatusDomain {
    /// A status in this domain.
    type Status;
    /// The raw status of one pipeline (before `!`).
    fn pipeline(&mut self, pipeline: &Pipeline) -> Self::Status;
    /// `!` on `pipeline`'s raw status, just returned by
    /// [`StatusDomain::pipeline`]: success becomes failure, and the
    /// program's "no" becomes success.
    fn negate(&mut self, pipeline: &Pipeline, status: Self::Status) -> Self::Status;
    /// `left && right`: `right` gives the next pipeline's status; call it
    /// only when that pipeline may run.
    fn and_then(
        &mut self,
        left: Self::Status,
        right: &mut dyn FnMut(&mut Self) -> Self::Status,
    ) -> Self::Status;
    /// `left || right`, as [`StatusDomain::and_then`].
    fn or_else(
        &mut self,
        left: Self::Status,
        right: &mut dyn FnMut(&mut Self) -> Self::Status,
    ) -> Self::Status;
}

/// Exit statuses as POSIX defines them: 0 is success; `&&` runs the next
/// pipeline only after a 0, `||` only after anything else. `!` maps 0 to 1
/// and only the program's documented "no" to 0 ([`Pipeline::negated_status`];
/// POSIX maps every non-zero status to 0, which turned usage errors into
/// passes).
struct ExitStatuses<F> {
    run: F,
    /// The last pipeline's [`PipelineEnd::upstream_ok`], for `negate`.
    upstream_ok: bool,
}

impl<F: FnMut(&Pipeline) -> PipelineEnd> StatusDomain for ExitStatuses<F> {
    type Status = i32;

    fn pipeline(&mut self, pipeline: &Pipeline) -> i32 {
        let end = (self.run)(pipeline);
        self.upstream_ok = end.upstream_ok;
        end.status
    }

    fn negate(&mut self, pipeline: &Pipeline, status: i32) -> i32 {
        pipeline.negated_status(PipelineEnd {
            status,
            upstream_ok: self.upstream_ok,
        })
    }

    fn and_then(&mut self, left: i32, right: &mut dyn FnMut(&mut Self) -> i32) -> i32 {
        if left == 0 { right(self) } else { left }
    }

    fn or_else(&mut self, left: i32, right: &mut dyn FnMut(&mut Self) -> i32) -> i32 {
        if left != 0 { right(self) } else { left }
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
            PipelineEnd::of(status_of(&p.commands[0].argv[0]))
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
            first: pipe("ok", true),
            rest: vec![],
        };
        assert_eq!(run(&plan).0, 1);
    }

    fn negated(argv: &[&str], end: PipelineEnd) -> i32 {
        let mut command = cmd(argv[0]);
        command.argv = argv.iter().map(|a| a.to_string()).collect();
        let plan = ProofPlan {
            first: Pipeline {
                negated: true,
                commands: vec![cmd("cat"), command],
            },
            rest: vec![],
        };
        plan.evaluate(|_| end)
    }

    // proves: PROOF-5 (outside attacker's validate #20: `!` turned a usage
    // error, exit 2, into a pass in every state)
    #[test]
    fn negation_passes_only_on_the_programs_documented_no() {
        let end = PipelineEnd::of;
        // The documented "no": a pass.
        assert_eq!(negated(&["grep", "-q", "x", "f"], end(1)), 0);
        assert_eq!(negated(&["rg", "-q", "x", "f"], end(1)), 0);
        assert_eq!(negated(&["test", "-f", "x"], end(1)), 0);
        assert_eq!(negated(&["git", "diff", "--quiet"], end(1)), 0);
        assert_eq!(negated(&["jq", "-e", ".a", "f.json"], end(4)), 0);
        // A usage or I/O error stays a failure, with its own status.
        assert_eq!(negated(&["grep", "-q", "-m", "1x", "x", "f"], end(2)), 2);
        assert_eq!(negated(&["test", "1x", "-eq", "1"], end(2)), 2);
        assert_eq!(negated(&["cmp", "-n", "-1", "a", "b"], end(2)), 2);
        assert_eq!(
            negated(&["git", "diff", "--quiet", "-U", "x"], end(128)),
            128
        );
        assert_eq!(negated(&["jq", "-e", "--indent", "9", "."], end(2)), 2);
        assert_eq!(negated(&["jq", "-e", "("], end(3)), 3);
        // Programs without a "no": every failure is an error.
        assert_eq!(negated(&["head", "-n", "1x", "f"], end(1)), 1);
        assert_eq!(negated(&["find", "src", "-type", "z"], end(1)), 1);
        assert_eq!(negated(&["yq", "-e", "("], end(1)), 1);
        // A signal is never a "no".
        assert_eq!(negated(&["grep", "-q", "x"], end(128 + 9)), 128 + 9);
        // An earlier command that failed fed the search nothing.
        let fed_nothing = PipelineEnd {
            status: 1,
            upstream_ok: false,
        };
        assert_eq!(negated(&["grep", "-q", "."], fed_nothing), 1);
        // Success under `!` is a failure, as always.
        assert_eq!(negated(&["grep", "-q", "x"], end(0)), 1);
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
