//! The line as bash reads it (`ploy-shell`, a real bash parser): every
//! construct a proof never needs is refused with its own reason, and the
//! top-level commands give a second plan to compare with the plan reader's.

use ploy_shell::{CommandLine, RedirectOp, Separator, SimpleCommand};

use crate::plan::{Connector, Pipeline, PlanCommand, ProofPlan, StreamTarget};
use crate::{PROOF_2, PROOF_3, PROOF_5, Refusal};

/// PROOF-3 (and PROOF-2 for definitions): constructs bash found.
pub(crate) fn construct_refusals(line: &CommandLine) -> Vec<Refusal> {
    let c = &line.constructs;
    let found: [(bool, &'static str, &str); 24] = [
        (
            c.command_substitution || c.backticks,
            PROOF_3,
            "command substitution (`$(…)` or backticks) runs a hidden command; run the check directly",
        ),
        (
            c.process_substitution,
            PROOF_3,
            "process substitution `<(…)`/`>(…)` runs a hidden command",
        ),
        (
            c.parameter_expansion,
            PROOF_3,
            "parameter expansion (`$x`, `${x}`, `$HOME`) makes the line depend on run-time values; write the value out",
        ),
        (
            c.arithmetic_expansion,
            PROOF_3,
            "arithmetic expansion `$((…))`/`((…))` can run commands through array subscripts",
        ),
        (
            c.background || c.coprocess,
            PROOF_3,
            "`&` (or `coproc`) starts a background job; a proof runs in the foreground",
        ),
        (
            c.brace_expansion,
            PROOF_3,
            "brace expansion `{a,b}` produces words that are not written in the line; write them out",
        ),
        (
            c.glob,
            PROOF_3,
            "an unquoted glob (`*`, `?`, `[…]`) names files only known at run time; quote it or name the files",
        ),
        (
            c.ansi_c_string || c.locale_string,
            PROOF_3,
            "an ANSI-C `$'…'` or locale `$\"…\"` string decodes at run time; use plain single quotes",
        ),
        (
            c.tilde,
            PROOF_3,
            "`~` points into the home folder; a proof works inside the project",
        ),
        (
            c.dynamic_command_name,
            PROOF_3,
            "the program name is computed at run time; write it out",
        ),
        (
            c.subshell,
            PROOF_3,
            "a subshell `( … )` is not part of a proof; join plain commands with &&",
        ),
        (
            c.brace_group,
            PROOF_3,
            "a command group `{ …; }` is not part of a proof; join plain commands with &&",
        ),
        (
            c.control_flow,
            PROOF_3,
            "if/for/while/until/case are not part of a proof; write one plain check",
        ),
        (
            c.heredoc || c.herestring,
            PROOF_3,
            "here-documents and here-strings feed hidden input; name a file as an argument",
        ),
        (
            c.extended_test,
            PROOF_3,
            "`[[ … ]]` is bash only; write `test …` or `[ … ]`",
        ),
        (
            c.timed,
            PROOF_3,
            "`time` is a keyword to bash but the program /usr/bin/time to sh; a proof does not time itself",
        ),
        (
            c.function_definition,
            PROOF_2,
            "a function definition can shadow any command; define nothing in a proof",
        ),
        (
            c.assignment,
            PROOF_2,
            "variable assignments (`PAGER=…`, `LD_PRELOAD=…`) change what programs do; a proof sets nothing",
        ),
        (
            c.redirect_writes && !writes_only_dev_null(line),
            PROOF_3,
            "a redirection writes a file; a proof writes no file (only `>/dev/null`)",
        ),
        (
            line.redirects.iter().any(|r| {
                matches!(
                    r.op,
                    RedirectOp::Read | RedirectOp::DuplicateInput | RedirectOp::ReadWrite
                )
            }),
            PROOF_3,
            "input redirection reads a file the validator cannot check; name the file as an argument",
        ),
        (
            line.redirects.iter().any(|r| {
                matches!(
                    r.op,
                    RedirectOp::OutputAndError | RedirectOp::AppendOutputAndError
                )
            }),
            PROOF_3,
            "`&>` is read as one redirection by bash but as `&` then `>` by sh; write `>/dev/null 2>&1`",
        ),
        (
            line.separators
                .iter()
                .any(|s| matches!(s, Separator::Semicolon)),
            PROOF_5,
            "`;` ignores the status of the command before it; join checks with &&",
        ),
        (
            line.commands.iter().any(|c| c.nested) && !nested_explained(c),
            PROOF_3,
            "the line nests commands; a proof is plain commands joined by && and ||",
        ),
        (
            line.top_level().any(|c| c.program.is_none()),
            PROOF_3,
            "a command with no program (only assignments or redirections)",
        ),
    ];
    found
        .into_iter()
        .filter(|(tripped, _, _)| *tripped)
        .map(|(_, rule, detail)| Refusal::new(rule, detail))
        .collect()
}

/// Nested commands are already explained by one of the constructs above.
fn nested_explained(c: &ploy_shell::Constructs) -> bool {
    c.command_substitution
        || c.backticks
        || c.process_substitution
        || c.subshell
        || c.brace_group
        || c.control_flow
        || c.function_definition
        || c.coprocess
        || c.heredoc
        || c.arithmetic_expansion
        || c.parameter_expansion
}

fn writes_only_dev_null(line: &CommandLine) -> bool {
    line.redirects
        .iter()
        .filter(|r| r.writes_file())
        .all(|r| r.target.value.as_deref() == Some("/dev/null"))
}

/// Whether bash's reading of the line is exactly `plan` (compared in place:
/// the common, agreeing case builds nothing).
pub(crate) fn agrees(line: &CommandLine, plan: &ProofPlan) -> bool {
    let mut top = line.top_level();
    for (connector, pipeline) in plan.pipelines() {
        for (index, expected) in pipeline.commands.iter().enumerate() {
            let Some(command) = top.next() else {
                return false;
            };
            let follows = match (index, connector) {
                (0, None) => None,
                (0, Some(Connector::And)) => Some(Separator::And),
                (0, Some(Connector::Or)) => Some(Separator::Or),
                _ => Some(Separator::Pipe),
            };
            let same_words = command.program.as_ref().and_then(|w| w.value.as_deref())
                == expected.argv.first().map(String::as_str)
                && command.args.len() + 1 == expected.argv.len()
                && command
                    .args
                    .iter()
                    .zip(&expected.argv[1..])
                    .all(|(w, a)| w.value.as_deref() == Some(a.as_str()));
            if command.follows != follows
                || command.negated != pipeline.negated
                || !plain(command)
                || !same_words
                || streams(command) != Some((expected.stdout, expected.stderr))
            {
                return false;
            }
        }
    }
    top.next().is_none()
}

/// The plan bash's reading gives, when the line is a plain and-or list of
/// pipelines of static simple commands. `None` when it is not (the
/// constructs above say why).
pub(crate) fn plan_of(line: &CommandLine) -> Option<ProofPlan> {
    let mut first: Option<Pipeline> = None;
    let mut rest: Vec<(Connector, Pipeline)> = Vec::new();
    for command in line.top_level() {
        let plan_command = plan_command(command)?;
        match command.follows {
            None => {
                first = Some(Pipeline {
                    negated: command.negated,
                    commands: vec![plan_command],
                });
            }
            Some(Separator::Pipe) => {
                let current = rest.last_mut().map(|(_, p)| p).or(first.as_mut())?;
                current.commands.push(plan_command);
            }
            Some(Separator::And | Separator::Or) => {
                let connector = if command.follows == Some(Separator::And) {
                    Connector::And
                } else {
                    Connector::Or
                };
                rest.push((
                    connector,
                    Pipeline {
                        negated: command.negated,
                        commands: vec![plan_command],
                    },
                ));
            }
            Some(_) => return None,
        }
    }
    Some(ProofPlan {
        first: first?,
        rest,
    })
}

/// A simple command with nothing but words and redirections.
fn plain(command: &SimpleCommand) -> bool {
    !(command.nested || command.background || command.timed || !command.assignments.is_empty())
}

fn plan_command(command: &SimpleCommand) -> Option<PlanCommand> {
    if !plain(command) {
        return None;
    }
    let mut argv = vec![command.program.as_ref()?.value.clone()?];
    for arg in &command.args {
        argv.push(arg.value.clone()?);
    }
    let (stdout, stderr) = streams(command)?;
    Some(PlanCommand {
        argv,
        stdout,
        stderr,
    })
}

/// Where the command's stdout and stderr go, applying its redirections left
/// to right as bash does; `None` for anything but the plan's three forms.
fn streams(command: &SimpleCommand) -> Option<(StreamTarget, StreamTarget)> {
    #[derive(Clone, Copy, PartialEq)]
    enum Sink {
        Out,
        Err,
        Null,
    }
    let (mut out, mut err) = (Sink::Out, Sink::Err);
    for redirect in &command.redirects {
        let target = redirect.target.value.as_deref()?;
        let slot = match redirect.fd.unwrap_or(1) {
            1 => &mut out,
            2 => &mut err,
            _ => return None,
        };
        match redirect.op {
            RedirectOp::Write if target == "/dev/null" => *slot = Sink::Null,
            RedirectOp::DuplicateOutput if redirect.fd == Some(2) && target == "1" => {
                err = out;
            }
            _ => return None,
        }
    }
    let stdout = match out {
        Sink::Out => StreamTarget::Inherit,
        Sink::Null => StreamTarget::Null,
        Sink::Err => return None,
    };
    let stderr = match (err, out) {
        (Sink::Err, _) => StreamTarget::Inherit,
        (Sink::Null, _) => StreamTarget::Null,
        (Sink::Out, Sink::Out) => StreamTarget::Stdout,
        _ => return None,
    };
    Some((stdout, stderr))
}

/// Every simple command bash sees (nested ones included), as text argv
/// vectors: computed words stand as written. Used to report every
/// program-level refusal of a line that has no plan.
pub(crate) fn all_argvs(line: &CommandLine) -> Vec<Vec<String>> {
    line.commands
        .iter()
        .filter_map(|command| {
            // After `time`, brush reads `time`'s own options (`-p`, `-f`)
            // where the program would be.
            if command.timed
                && command
                    .program_name()
                    .is_some_and(|name| name.starts_with('-'))
            {
                return None;
            }
            let program = command.program.as_ref()?;
            let mut argv = vec![program.value.clone().unwrap_or_else(|| program.raw.clone())];
            argv.extend(
                command
                    .args
                    .iter()
                    .map(|w| w.value.clone().unwrap_or_else(|| w.raw.clone())),
            );
            Some(argv)
        })
        .collect()
}
