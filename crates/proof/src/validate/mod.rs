//! The proof validator (PROOF-1..5): a strict first filter on a real shell
//! parse (`ploy-shell`), never on regexes over the raw line.
//!
//! A proof is the one-line command a project step must pass. The model writes
//! it and may be under a hostile page's orders, so the validator refuses
//! anything it cannot fully see: every rule that trips is reported (rule ID and
//! a human reason), not just the first. It is only the first layer (PROOF-6):
//! an accepted line still runs inside the sandbox.
//!
//! Order of checks: the line itself (PROOF-1), then the shell constructs
//! (PROOF-3), then every simple command, nested ones included, with wrappers
//! unwrapped (PROOF-2, PROOF-3 paths, PROOF-4 inline code), then whether the
//! line verifies anything and whether its status is forced (PROOF-5).

mod inline;
mod programs;

use serde::Serialize;

use ploy_shell::{CommandLine, Separator, SimpleCommand, Word};

pub use programs::{DENIED_PROGRAMS, DeniedProgram};

/// PROOF-1: a proof is at most this many characters.
pub const MAX_PROOF_CHARS: usize = 400;

/// The validator's answer for one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", content = "refusals", rename_all = "snake_case")]
pub enum ProofVerdict {
    /// Every rule passed; the line may run in the sandbox.
    Accepted,
    /// At least one rule tripped; all of them are listed.
    Refused(Vec<ProofRefusal>),
}

impl ProofVerdict {
    /// True when the line was accepted.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Self::Accepted)
    }

    /// The refusals (empty when accepted).
    pub fn refusals(&self) -> &[ProofRefusal] {
        match self {
            Self::Accepted => &[],
            Self::Refused(refusals) => refusals,
        }
    }

    /// The distinct rule IDs that tripped, in first-seen order.
    pub fn rules(&self) -> Vec<&'static str> {
        let mut rules: Vec<&'static str> = Vec::new();
        for refusal in self.refusals() {
            if !rules.contains(&refusal.rule) {
                rules.push(refusal.rule);
            }
        }
        rules
    }
}

/// One tripped rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProofRefusal {
    /// The requirement ID, e.g. `"PROOF-3"`.
    pub rule: &'static str,
    /// Why, for a person (and the model): what was found and what to do.
    pub detail: String,
}

/// Validates one proof line. Never panics; anything it cannot check is refused.
pub fn validate(line: &str) -> ProofVerdict {
    let mut checker = Checker::default();
    checker.line(line, 0);
    if checker.refusals.is_empty() {
        ProofVerdict::Accepted
    } else {
        ProofVerdict::Refused(checker.refusals)
    }
}

/// How many wrappers (`sh -c`, `eval`, `env`, …) deep the validator follows.
const MAX_WRAPPER_DEPTH: usize = 4;

/// Collects refusals across the line and the wrapped lines inside it.
#[derive(Default)]
pub(crate) struct Checker {
    refusals: Vec<ProofRefusal>,
    /// Text prepended to details found inside a wrapper (`in sh -c: `).
    context: String,
    /// Argument values that are code or patterns (an awk program, a grep
    /// pattern, `python -c` code), checked by their own rules rather than as paths.
    code_values: Vec<String>,
}

impl Checker {
    /// Marks an argument value as code or a pattern, not a path.
    pub(crate) fn code(&mut self, value: &str) {
        self.code_values.push(value.to_owned());
    }

    pub(crate) fn refuse(&mut self, rule: &'static str, detail: impl Into<String>) {
        let detail = format!("{}{}", self.context, detail.into());
        if !self
            .refusals
            .iter()
            .any(|r| r.rule == rule && r.detail == detail)
        {
            self.refusals.push(ProofRefusal { rule, detail });
        }
    }

    /// Checks a whole line: on its own (depth 0) or as the text a wrapper runs
    /// (`sh -c '…'`, `eval …`), which must pass exactly as if it stood alone.
    pub(crate) fn line(&mut self, line: &str, depth: usize) {
        let chars = line.chars().count();
        if depth == 0 && chars > MAX_PROOF_CHARS {
            self.refuse(
                "PROOF-1",
                format!("the line is {chars} characters; a proof is one short line of at most {MAX_PROOF_CHARS}"),
            );
        }
        if line.contains(['\n', '\r']) {
            self.refuse(
                "PROOF-1",
                "the line contains a line break; a proof is exactly one line",
            );
        }
        if let Some(c) = line
            .chars()
            .find(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        {
            self.refuse(
                "PROOF-1",
                format!(
                    "the line contains the control character U+{:04X}; write plain text",
                    u32::from(c)
                ),
            );
        }
        if line.len() > ploy_shell::MAX_LINE_BYTES {
            return;
        }
        let summary = ploy_shell::analyze(line);
        if let Some(reason) = &summary.parse_error {
            self.refuse(
                "PROOF-1",
                format!("the line does not parse as one shell command line ({reason})"),
            );
            return;
        }
        self.constructs(&summary);
        let mut effective = Vec::new();
        for command in &summary.commands {
            let found = self.command(command, depth);
            if !command.nested {
                effective.push(found);
            }
        }
        self.redirects(&summary);
        for word in &summary.loose_words {
            self.word_paths(word, "a word");
        }
        self.verifies_something(&summary, &effective);
    }

    /// PROOF-3 (and PROOF-2 for definitions): constructs a proof never needs.
    fn constructs(&mut self, line: &CommandLine) {
        let c = &line.constructs;
        let found: [(bool, &'static str, &str); 22] = [
            (
                c.command_substitution,
                "PROOF-3",
                "command substitution `$(…)` runs a hidden command; run the check directly",
            ),
            (
                c.backticks,
                "PROOF-3",
                "backticks run a hidden command; run the check directly",
            ),
            (
                c.process_substitution,
                "PROOF-3",
                "process substitution `<(…)`/`>(…)` runs a hidden command",
            ),
            (
                c.parameter_expansion,
                "PROOF-3",
                "parameter expansion (`$x`, `${x}`, `$HOME`) makes the line depend on run-time values; write the value out",
            ),
            (
                c.arithmetic_expansion,
                "PROOF-3",
                "arithmetic expansion `$((…))`/`((…))` can run commands through array subscripts",
            ),
            (
                c.background,
                "PROOF-3",
                "`&` starts a background job; a proof runs in the foreground",
            ),
            (
                c.brace_in_command_position,
                "PROOF-3",
                "brace expansion in command position hides the program name",
            ),
            (
                c.brace_expansion && !c.brace_in_command_position,
                "PROOF-3",
                "brace expansion `{a,b}` produces words that are not written in the line; write them out",
            ),
            (
                c.glob_in_command_position,
                "PROOF-3",
                "a glob in command position (`/???/?m`) hides the program name",
            ),
            (
                c.glob && !c.glob_in_command_position,
                "PROOF-3",
                "an unquoted glob (`*`, `?`, `[…]`) names files only known at run time; quote it or name the files",
            ),
            (
                c.ansi_c_in_command_position,
                "PROOF-3",
                "an ANSI-C string `$'…'` in command position hides the program name",
            ),
            (
                c.ansi_c_string && !c.ansi_c_in_command_position,
                "PROOF-3",
                "an ANSI-C string `$'…'` decodes at run time, so its value cannot be checked; use plain quotes",
            ),
            (
                c.locale_string,
                "PROOF-3",
                "a locale string `$\"…\"` is translated at run time; use plain quotes",
            ),
            (
                c.tilde,
                "PROOF-3",
                "`~` points into the home folder; a proof works inside the project",
            ),
            (
                c.dynamic_command_name
                    && !(c.glob_in_command_position
                        || c.brace_in_command_position
                        || c.ansi_c_in_command_position),
                "PROOF-3",
                "the program name is computed at run time; write it out",
            ),
            (
                c.subshell,
                "PROOF-3",
                "a subshell `( … )` is not needed in a proof; join plain commands with &&",
            ),
            (
                c.brace_group,
                "PROOF-3",
                "a command group `{ …; }` is not needed in a proof; join plain commands with &&",
            ),
            (
                c.control_flow,
                "PROOF-3",
                "if/for/while/until/case are not allowed in a proof; write one plain check",
            ),
            (c.coprocess, "PROOF-3", "`coproc` starts a background job"),
            (
                c.heredoc,
                "PROOF-3",
                "a here-document needs more than one line; a proof is one line",
            ),
            (
                c.function_definition,
                "PROOF-2",
                "a function definition can shadow any command; define nothing in a proof",
            ),
            (
                c.assignment,
                "PROOF-2",
                "variable assignments (`PAGER=…`, `LD_PRELOAD=…`) change what programs do; a proof sets nothing",
            ),
        ];
        for (tripped, rule, detail) in found {
            if tripped {
                self.refuse(rule, detail);
            }
        }
        if line
            .separators
            .iter()
            .any(|s| matches!(s, Separator::Semicolon | Separator::Newline))
        {
            self.refuse(
                "PROOF-5",
                "`;` (or a line break) ignores the status of the command before it; join checks with &&",
            );
        }
    }

    /// PROOF-3: every redirection target, and no writes except to /dev/null.
    fn redirects(&mut self, line: &CommandLine) {
        for redirect in &line.redirects {
            let target = redirect.target.value.as_deref();
            let op = redirect.op.as_str();
            match redirect.op {
                ploy_shell::RedirectOp::HereDoc
                | ploy_shell::RedirectOp::HereDocStripTabs
                | ploy_shell::RedirectOp::HereString => continue,
                _ => {}
            }
            if target == Some("/dev/null") {
                continue;
            }
            if redirect.writes_file() {
                self.refuse(
                    "PROOF-3",
                    format!("`{op} {}` writes a file; a proof only reads (only /dev/null may be written)", redirect.target.raw),
                );
            }
            if matches!(
                redirect.op,
                ploy_shell::RedirectOp::DuplicateInput | ploy_shell::RedirectOp::DuplicateOutput
            ) && target.is_some_and(|v| v == "-" || v.bytes().all(|b| b.is_ascii_digit()))
            {
                continue;
            }
            self.word_paths(&redirect.target, "a redirection target");
        }
    }

    /// PROOF-3 path checks on one word: no absolute path, no `..` component.
    pub(crate) fn word_paths(&mut self, word: &Word, what: &str) {
        match &word.value {
            Some(value) => self.value_paths(value, what),
            None => {
                // Already refused by a construct rule; this keeps the check
                // closed even if a construct flag were ever missed.
                if !self.refusals.iter().any(|r| r.rule == "PROOF-3") {
                    self.refuse(
                        "PROOF-3",
                        format!(
                            "{what} `{}` is computed at run time and cannot be checked",
                            word.raw
                        ),
                    );
                }
            }
        }
    }

    pub(crate) fn value_paths(&mut self, value: &str, what: &str) {
        if is_absolute_path_text(value) {
            self.refuse(
                "PROOF-3",
                format!(
                    "{what} `{value}` is an absolute path; a proof uses paths inside the project"
                ),
            );
        }
        if has_parent_component(value) {
            self.refuse(
                "PROOF-3",
                format!("{what} `{value}` contains `..`; a proof stays inside the project"),
            );
        }
    }

    /// PROOF-2/3/4 on one simple command; returns what it effectively runs.
    fn command(&mut self, command: &SimpleCommand, depth: usize) -> Effective {
        for assignment in &command.assignments {
            self.word_paths(&assignment.value, "an assigned value");
        }
        let Some(program) = &command.program else {
            return Effective::Nothing;
        };
        if program.value.is_none() {
            // Refused by a construct rule; do not guess what it runs.
            self.word_paths(program, "the program");
            return Effective::Unknown;
        }
        // Computed arguments are already refused (PROOF-3); their raw text
        // stands in so the program's own rules are still reported.
        let mut all_static = true;
        let mut argv: Vec<String> = Vec::with_capacity(command.args.len() + 1);
        for word in std::iter::once(program).chain(command.args.iter()) {
            match &word.value {
                Some(v) => argv.push(v.clone()),
                None => {
                    all_static = false;
                    self.word_paths(word, "the argument");
                    argv.push(word.raw.clone());
                }
            }
        }
        self.code_values.clear();
        let mut effective = programs::check_argv(self, &argv, depth);
        // Each registration excuses one occurrence: `grep /etc/x /etc/x` still
        // has its second (file) operand checked. Equal values get equal checks,
        // so which occurrence is excused does not matter.
        let mut code_values = std::mem::take(&mut self.code_values);
        let words = std::iter::once(program).chain(command.args.iter());
        for (i, (value, word)) in argv.iter().zip(words).enumerate() {
            let is_code = i > 0
                && match code_values.iter().position(|c| c == value) {
                    Some(at) => {
                        code_values.swap_remove(at);
                        true
                    }
                    None => false,
                };
            if word.value.is_some() && !is_code {
                let what = if i == 0 {
                    "the program"
                } else {
                    "the argument"
                };
                self.value_paths(value, what);
            }
        }
        if !all_static {
            return Effective::Unknown;
        }
        if command.negated {
            effective.negated = true;
        }
        Effective::Runs(effective)
    }

    /// PROOF-5: the line must verify something and its status must not be forced.
    fn verifies_something(&mut self, line: &CommandLine, effective: &[Effective]) {
        let top: Vec<&SimpleCommand> = line.top_level().collect();
        if top.is_empty() && line.commands.is_empty() {
            self.refuse(
                "PROOF-5",
                "the line runs nothing; a proof must check something",
            );
            return;
        }
        let runs: Vec<&programs::Run> = effective
            .iter()
            .filter_map(|e| {
                if let Effective::Runs(run) = e {
                    Some(run)
                } else {
                    None
                }
            })
            .collect();
        if !runs.is_empty()
            && runs.len() == effective.len()
            && runs.iter().all(|r| {
                matches!(
                    r.class,
                    programs::Class::AlwaysSucceeds | programs::Class::NoOp
                )
            })
        {
            let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
            self.refuse(
                "PROOF-5",
                format!(
                    "the line only runs no-ops and printers ({}); a proof must check something",
                    names.join(", ")
                ),
            );
        }
        // The status of a pipeline is the status of its last command; the
        // status of `a || b` is b's when a fails.
        for (i, (command, found)) in top.iter().zip(effective.iter()).enumerate() {
            let Effective::Runs(run) = found else {
                continue;
            };
            let last_in_pipeline = top
                .get(i + 1)
                .is_none_or(|next| next.follows != Some(Separator::Pipe));
            if run.exits {
                self.refuse(
                    "PROOF-5",
                    format!(
                        "`{}` sets the status by hand; let the check's own status decide",
                        run.name
                    ),
                );
            }
            if command.follows == Some(Separator::Pipe)
                && last_in_pipeline
                && run.class != programs::Class::Verifies
                && !run.exits
            {
                self.refuse(
                    "PROOF-5",
                    format!("the pipeline's status is that of `{}`, which does not check anything; end it with the check (e.g. `grep -q`)", run.name),
                );
            }
            if command.follows == Some(Separator::Or)
                && run.class == programs::Class::AlwaysSucceeds
            {
                self.refuse(
                    "PROOF-5",
                    format!("`|| {}` forces the status to success; remove it", run.name),
                );
            }
            if run.negated && run.class != programs::Class::Verifies {
                self.refuse(
                    "PROOF-5",
                    format!(
                        "`! {}` forces the status; negate a real check or nothing",
                        run.name
                    ),
                );
            }
        }
    }
}

/// What one top-level simple command effectively runs, once wrappers are peeled.
pub(crate) enum Effective {
    /// Only assignments or redirections.
    Nothing,
    /// A computed word: already refused.
    Unknown,
    /// A known program.
    Runs(programs::Run),
}

/// True for text that is or contains an absolute path: `/x`, `--opt=/x`,
/// `-I/x`, `file:/x`, `x:/y` (PATH-like lists).
pub(crate) fn is_absolute_path_text(value: &str) -> bool {
    if value.starts_with('/') {
        return true;
    }
    // `--file=/etc/passwd`, `-o=/x`
    if value.contains("=/") {
        return true;
    }
    // `-I/usr/include`, `-f/etc/passwd`: a short option glued to a path.
    let bytes = value.as_bytes();
    if bytes.len() > 2 && bytes[0] == b'-' && bytes[1] != b'-' {
        let letters = bytes[1..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
        if letters > 0 && bytes.get(1 + letters) == Some(&b'/') {
            return true;
        }
    }
    false
}

/// True when a path component is `..` (also after `=` or `:` as in `--dir=../x`).
pub(crate) fn has_parent_component(value: &str) -> bool {
    value.split(['/', '=', ':', ',']).any(|part| part == "..")
}
