//! `ploy-validate`: the proof validator (PROOF-1..6), pure.
//!
//! A proof is the one-line check a project step must pass. The model writes
//! it, possibly under a hostile page's orders, so the validator accepts only
//! what it can fully see and turns it into a typed [`ProofPlan`]: simple
//! commands as argv vectors joined by `&&`, `||`, `|` and `!`, with
//! `/dev/null` as the only redirection target. The sandbox's init runs that
//! plan itself; no proof path hands the line to a shell, so what runs is
//! exactly what was checked.
//!
//! The line is read twice, by two independent readers, and refused unless
//! both agree: `ploy-shell` (a real bash parser, which names the construct
//! that is not allowed: substitutions, expansions, `&>`, `time`, …) and a
//! small strict reader ([`reader`]) that knows only the subset of shell
//! syntax that means the same to bash, to dash and to the plan runner.
//! Every command is then checked against the allowlist grammar
//! ([`grammar`]): the program, its options as the real program reads them
//! (GNU abbreviations included), their values, and every path (PROOF-2,
//! PROOF-3, PROOF-4). Last, the plan must be able to both pass and fail
//! (PROOF-5, [`vacuity`]). Every rule that trips is reported, with its ID
//! and a reason that says what to write instead. It is only the first
//! layer (PROOF-6): an accepted plan still runs inside the sandbox.

// `teeth`: the rules switched off, so `ploy redteam` can show that every
// attack scenario then succeeds (each scenario can fail). Never in a
// release build.
#[cfg(all(feature = "teeth", not(debug_assertions)))]
compile_error!(
    "the `teeth` feature switches ploy's rules off; it is for the redteam CI step only and must never be in a release build"
);

mod bash;
mod grammar;
pub mod plan;
mod pytest_config;
mod reader;
mod vacuity;

use serde::Serialize;

pub use plan::{
    Connector, Pipeline, PipelineEnd, PlanCommand, PlanError, ProofPlan, StatusDomain, StreamTarget,
};
pub use pytest_config::{PYTEST_CONFIG_FILES, pytest_config_refusals};

/// PROOF-1: a proof is at most this many characters.
pub const MAX_PROOF_CHARS: usize = 400;

pub(crate) const PROOF_1: &str = "PROOF-1";
pub(crate) const PROOF_2: &str = "PROOF-2";
pub(crate) const PROOF_3: &str = "PROOF-3";
pub(crate) const PROOF_4: &str = "PROOF-4";
pub(crate) const PROOF_5: &str = "PROOF-5";

/// One tripped rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProofRefusal {
    /// The requirement ID, e.g. `"PROOF-3"`.
    pub rule: &'static str,
    /// Why, for a person (and the model): what was found and what to write
    /// instead.
    pub detail: String,
}

pub(crate) type Refusal = ProofRefusal;

impl ProofRefusal {
    pub(crate) fn new(rule: &'static str, detail: impl Into<String>) -> ProofRefusal {
        ProofRefusal {
            rule,
            detail: detail.into(),
        }
    }
}

/// The validator's answer for one line. As JSON:
/// `{"verdict":"accepted","plan":{…}}` or
/// `{"verdict":"refused","refusals":[{"rule":"PROOF-3","detail":"…"}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum ProofVerdict {
    /// Every rule passed: this plan (and nothing else) may run in the sandbox.
    Accepted {
        /// What runs.
        plan: ProofPlan,
    },
    /// At least one rule tripped; all of them are listed.
    Refused {
        /// Every tripped rule, in the order found.
        refusals: Vec<ProofRefusal>,
    },
}

impl ProofVerdict {
    /// True when the line was accepted.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Self::Accepted { .. })
    }

    /// The plan to run, when accepted.
    pub fn plan(&self) -> Option<&ProofPlan> {
        match self {
            Self::Accepted { plan } => Some(plan),
            Self::Refused { .. } => None,
        }
    }

    /// The refusals (empty when accepted).
    pub fn refusals(&self) -> &[ProofRefusal] {
        match self {
            Self::Accepted { .. } => &[],
            Self::Refused { refusals } => refusals,
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

/// What a program of a plan is to the validator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgramKind {
    /// A checker whose behaviour is fully known (`test`, `grep`, `cat`,
    /// read-only `git`, …): it reads the paths the validator checked and
    /// starts no other program.
    Checker,
    /// A build tool (`cargo`, `make`, `npm`, `pytest`, `go`): it runs the
    /// project's own code, which the sandbox contains (PROOF-6).
    BuildTool,
    /// A project script named by its relative path: project code.
    ProjectScript,
}

/// What `program` (a plan's `argv[0]`) is, or `None` when a proof may not
/// run it.
pub fn program_kind(program: &str) -> Option<ProgramKind> {
    if program.contains('/') {
        return (!program.starts_with('/')).then_some(ProgramKind::ProjectScript);
    }
    grammar::PROGRAMS
        .iter()
        .find(|p| p.name == program)
        .map(|p| {
            if p.runs_project_code {
                ProgramKind::BuildTool
            } else {
                ProgramKind::Checker
            }
        })
}

/// Every program a proof may run by name, with its kind (the allowlist
/// documented in docs/proofs.md).
pub fn allowed_programs() -> Vec<(&'static str, ProgramKind)> {
    grammar::PROGRAMS
        .iter()
        .filter_map(|p| program_kind(p.name).map(|kind| (p.name, kind)))
        .collect()
}

/// Something the project must hold for a command of an accepted plan to
/// decide anything. The validator is pure and never looks at the disk, so
/// `ploy proof run` checks each of these before the run and refuses the
/// line (PROOF-5) when one is missing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum Needed {
    /// A path (relative to the project) that must exist: a git pathspec,
    /// which matches nothing silently when it names no file, so `git diff
    /// --quiet -- zzz` passes whatever the work tree holds.
    Path(String),
    /// A top-level Python module that must be the project's own, `NAME.py`
    /// or `NAME/__init__.py` in the project folder: otherwise unittest
    /// imports an installed module of that name and runs its tests
    /// (`python3 -m unittest crcmod.test` passes on an empty project).
    PythonModule(String),
    /// A make goal that must not name a file or folder of the project
    /// unless the project's makefile declares it `.PHONY`: make calls an
    /// existing file with no rule (or no newer prerequisite) up to date and
    /// passes without running anything (`make src`, or `make check` once
    /// the project holds a file named `check`).
    MakeGoal(String),
    /// The start folder of `python3 -m unittest discover`, which must hold
    /// a test file that discovery reaches: a `test*.py` module in the
    /// folder, or in a package (a folder with `__init__.py`) below it,
    /// through packages only. Python 3.11 passes a discovery that finds no
    /// test ("Ran 0 tests … OK": `discover -s docs`).
    UnittestStart(String),
    /// A unittest test name (`tests.test_api`, `tests/test_api.py`,
    /// `tests.test_api.TestX.test_y`), whose module must not be a package
    /// of the project: unittest runs only the tests a package's
    /// `__init__.py` defines, none of its modules', so `python3 -m unittest
    /// tests` passes with "Ran 0 tests … OK" on Python 3.11.
    UnittestName(String),
    /// A folder or path pytest starts its search for a configuration file
    /// from (an argument that does not start with `-`, or `.`): every
    /// [`PYTEST_CONFIG_FILES`] file in it and in the folders above it, up
    /// to the project folder, must pass [`pytest_config_refusals`], since
    /// pytest adds its `addopts` to the proof's command line (round8 #7:
    /// `addopts = --co` collects the tests and runs none).
    PytestConfig(String),
}

/// What the project must hold for `plan` (an accepted plan) to decide
/// anything; see [`Needed`]. Empty for most plans.
pub fn needed(plan: &ProofPlan) -> Vec<Needed> {
    let mut out: Vec<Needed> = Vec::new();
    for command in plan.commands() {
        let at = grammar::At {
            head: true,
            upstream: "",
            argv: &command.argv,
            negated: false,
        };
        if let Ok(checked) = grammar::check(&command.argv, &at) {
            for need in checked.needed {
                if !out.contains(&need) {
                    out.push(need);
                }
            }
        }
    }
    out
}

/// How a GNU program reads a long option the way glibc's `getopt_long`
/// resolves it (see [`gnu_long_option`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LongOption {
    /// The exact name of an option.
    Exact(&'static str),
    /// A unique abbreviation of this option.
    Abbreviation(&'static str),
    /// An abbreviation of several options: the program refuses it.
    Ambiguous(Vec<&'static str>),
    /// No option of the program starts with this text.
    Unknown,
}

/// The GNU programs of the allowlist whose long options abbreviate.
pub const GNU_PROGRAMS: &[&str] = &[
    "grep", "cat", "head", "tail", "wc", "ls", "diff", "cmp", "make",
];

/// How `program` (one of [`GNU_PROGRAMS`]) reads `--name` (`name` without
/// the dashes): the validator's reading, which its tests compare with the
/// real programs'. `None` for other programs.
pub fn gnu_long_option(program: &str, name: &str) -> Option<LongOption> {
    let table = grammar::gnu_table(program)?;
    Some(
        match grammar::options::resolve_long(table.longs, name, true) {
            Ok(option) if option.name == name => LongOption::Exact(option.name),
            Ok(option) => LongOption::Abbreviation(option.name),
            Err(grammar::options::ScanError::Ambiguous(_, names)) => LongOption::Ambiguous(names),
            Err(_) => LongOption::Unknown,
        },
    )
}

/// Every long option name of `program` (one of [`GNU_PROGRAMS`]), hidden
/// ones included, in the program's own table order.
pub fn gnu_long_options(program: &str) -> Option<Vec<&'static str>> {
    grammar::gnu_table(program).map(|table| table.longs.iter().map(|l| l.name).collect())
}

/// Collects refusals without repeats.
#[derive(Default)]
struct Refusals(Vec<Refusal>);

impl Refusals {
    fn push(&mut self, refusal: Refusal) {
        if !self.0.contains(&refusal) {
            self.0.push(refusal);
        }
    }

    fn extend(&mut self, refusals: impl IntoIterator<Item = Refusal>) {
        for refusal in refusals {
            self.push(refusal);
        }
    }
}

/// Validates one proof line. Never panics; anything it cannot check is
/// refused.
pub fn validate(line: &str) -> ProofVerdict {
    let mut refusals = Refusals::default();
    let plan = check_line(line, &mut refusals);
    match plan {
        Some(plan) if refusals.0.is_empty() || cfg!(feature = "teeth") => {
            ProofVerdict::Accepted { plan }
        }
        _ => {
            if refusals.0.is_empty() {
                refusals.push(Refusal::new(PROOF_1, "the line could not be checked"));
            }
            ProofVerdict::Refused {
                refusals: refusals.0,
            }
        }
    }
}

fn check_line(line: &str, refusals: &mut Refusals) -> Option<ProofPlan> {
    let chars = line.chars().count();
    if chars > MAX_PROOF_CHARS {
        refusals.push(Refusal::new(
            PROOF_1,
            format!("the line is {chars} characters; a proof is one short line of at most {MAX_PROOF_CHARS}"),
        ));
    }
    if line.contains(['\n', '\r']) {
        refusals.push(Refusal::new(
            PROOF_1,
            "the line contains a line break; a proof is exactly one line",
        ));
    }
    if let Some(c) = line
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        refusals.push(Refusal::new(
            PROOF_1,
            format!(
                "the line contains the control character U+{:04X}; write plain text",
                u32::from(c)
            ),
        ));
    }
    // Invisible and direction-changing characters make the line read one
    // way to a person and another to a program.
    if let Some(c) = line.chars().find(|c| ploy_text::is_invisible(*c)) {
        refusals.push(Refusal::new(
            PROOF_1,
            format!(
                "the line contains the invisible or direction-changing character U+{:04X}; write plain text",
                u32::from(c)
            ),
        ));
    }
    if line.len() > ploy_shell::MAX_LINE_BYTES {
        return None;
    }
    let summary = ploy_shell::analyze(line);
    if let Some(reason) = &summary.parse_error {
        refusals.push(Refusal::new(
            PROOF_1,
            format!("the line does not parse as one shell command line ({reason})"),
        ));
        return None;
    }
    if summary.commands.is_empty() {
        refusals.push(Refusal::new(
            PROOF_5,
            "the line runs nothing; a proof must check something",
        ));
    }
    let constructs = bash::construct_refusals(&summary);
    let read = reader::read(line);
    let plan = match (read, constructs.is_empty()) {
        (Ok(plan), true) if bash::agrees(&summary, &plan) => Some(plan),
        (Ok(plan), true) => match bash::plan_of(&summary) {
            Some(bash_plan) => {
                refusals.push(Refusal::new(
                    PROOF_3,
                    format!(
                        "bash reads this line as `{}` but the plan runner would run `{}`; write it so both agree",
                        bash_plan.to_line(),
                        plan.to_line()
                    ),
                ));
                None
            }
            None => {
                refusals.push(Refusal::new(
                    PROOF_3,
                    "bash reads this line as something other than plain commands joined by && and ||",
                ));
                None
            }
        },
        (Err(refusal), true) => {
            refusals.push(refusal);
            None
        }
        (_, false) => {
            refusals.extend(constructs);
            None
        }
    };
    match plan {
        Some(plan) => {
            if let Err(err) = plan.check() {
                refusals.push(Refusal::new(PROOF_1, err.to_string()));
                return None;
            }
            check_plan(&plan, refusals);
            Some(plan)
        }
        None => {
            // Still report every program-level rule bash's reading trips.
            for argv in bash::all_argvs(&summary) {
                let at = grammar::At {
                    head: true,
                    upstream: "",
                    argv: &argv,
                    negated: false,
                };
                if let Err(found) = grammar::check(&argv, &at) {
                    refusals.extend(found);
                }
            }
            None
        }
    }
}

/// The grammar on every command, then PROOF-5 on the plan.
fn check_plan(plan: &ProofPlan, refusals: &mut Refusals) {
    let mut deciding = Vec::new();
    let mut notes = Vec::new();
    let mut complete = true;
    for (_, pipeline) in plan.pipelines() {
        let mut upstream = String::new();
        let mut last = None;
        // The previous command, when its output checks nothing, and why.
        let mut useless_before: Option<(&PlanCommand, &'static str)> = None;
        for (index, command) in pipeline.commands.iter().enumerate() {
            if let Some((before, why)) = useless_before.take() {
                refusals.push(Refusal::new(
                    PROOF_5,
                    format!(
                        "`{}` {why}, so `{}` checks nothing",
                        before.to_line(),
                        command.argv.join(" ")
                    ),
                ));
            }
            if index == 0 {
                reads_empty_stdin(command, refusals);
            }
            // Error messages name the operand ("ls: cannot access 'x'"),
            // so a filter reading them matches whatever the project holds.
            if index + 1 < pipeline.commands.len() && command.stderr == StreamTarget::Stdout {
                refusals.push(Refusal::new(
                    PROOF_5,
                    format!(
                        "`{}` sends its error messages into the pipe (`2>&1`), so the next command matches them whatever the project holds; drop `2>&1` or put it on the last command",
                        command.argv.join(" ")
                    ),
                ));
            }
            let at = grammar::At {
                head: index == 0,
                upstream: &upstream,
                argv: &command.argv,
                negated: pipeline.negated,
            };
            match grammar::check(&command.argv, &at) {
                Ok(checked) => {
                    useless_before = if checked.silent || command.stdout == StreamTarget::Null {
                        Some((command, "prints nothing whatever the project holds"))
                    } else {
                        checked.fixed_lines.map(|why| (command, why))
                    };
                    upstream.push_str(&checked.identity);
                    upstream.push_str("\0|\0");
                    last = Some(checked);
                }
                Err(found) => {
                    complete = false;
                    refusals.extend(found);
                }
            }
        }
        match last {
            Some(checked) => {
                deciding.push(checked.status);
                notes.push(checked.note);
            }
            None => complete = false,
        }
    }
    project_code_decides(plan, refusals);
    looks_like_an_option(plan, refusals);
    compares_its_own_input(plan, refusals);
    negated_without_a_no(plan, refusals);
    if !complete || !refusals.0.is_empty() {
        return;
    }
    // PROOF-5: every pipeline must be able to pass and fail, and so must
    // the whole line.
    for ((_, pipeline), (cond, note)) in plan.pipelines().zip(deciding.iter().zip(&notes)) {
        match vacuity::outcome(cond) {
            vacuity::Outcome::Depends => {}
            vacuity::Outcome::Fixed(passes) => refusals.push(Refusal::new(
                PROOF_5,
                format!(
                    "`{}` verifies nothing: {}",
                    ProofPlan {
                        first: pipeline.clone(),
                        rest: Vec::new(),
                    }
                    .to_line(),
                    note.map(str::to_string)
                        .unwrap_or_else(|| fixed_reason(passes != pipeline.negated))
                ),
            )),
            vacuity::Outcome::TooComplex => refusals.push(too_complex()),
        }
    }
    if !refusals.0.is_empty() {
        return;
    }
    match vacuity::outcome_of(&vacuity::plan_condition(plan, &deciding)) {
        vacuity::Outcome::Depends => {}
        vacuity::Outcome::Fixed(passes) => refusals.push(Refusal::new(
            PROOF_5,
            format!(
                "the line verifies nothing: taken together its checks {} (e.g. `|| true`, or a check joined with its own negation)",
                if passes {
                    "always pass, whatever the project holds"
                } else {
                    "can never pass"
                }
            ),
        )),
        vacuity::Outcome::TooComplex => refusals.push(too_complex()),
    }
}

/// PROOF-5: `!` passes only on the deciding program's documented "no"
/// ([`PlanCommand::negative_answers`]; the runner applies it, outside
/// attacker's validate #20). A checker without one (`head`, `cat`, `find`,
/// `yq`…) fails only on errors, so `! head …` could never pass: refused
/// here with the reason, rather than failing at every run. Project code
/// under `!` is refused by [`project_code_decides`].
fn negated_without_a_no(plan: &ProofPlan, refusals: &mut Refusals) {
    for (_, pipeline) in plan.pipelines().filter(|(_, p)| p.negated) {
        let Some(command) = pipeline.deciding_command() else {
            continue;
        };
        let program = command.argv[0].as_str();
        if program_kind(program) == Some(ProgramKind::Checker)
            && command.negative_answers().is_empty()
        {
            refusals.push(Refusal::new(
                PROOF_5,
                format!("`! {program} …` can never pass: {program} has no \"no\" answer, only errors, and `!` passes only on a program's \"no\" (a usage error is not one); check positively or with a program that answers no (`! grep -q x f`, `test ! -e x`, `! cmp -s a b`)"),
            ));
        }
    }
}

/// Characters drawn like `-` that no program reads as one (hyphens, dashes,
/// minus signs, their full-width and small forms).
fn is_dash_lookalike(c: char) -> bool {
    matches!(
        c,
        '\u{02D7}' | '\u{1806}' | '\u{2010}'
            ..='\u{2015}'
                | '\u{2043}'
                | '\u{2212}'
                | '\u{2796}'
                | '\u{2E3A}'
                | '\u{2E3B}'
                | '\u{FE58}'
                | '\u{FE63}'
                | '\u{FF0D}'
    )
}

/// PROOF-1: an argument that starts with a character drawn like `-` reads
/// as an option to a person and as an operand to the program: `cargo test
/// '‐‐release'` (U+2010) is a test-name filter that matches no test, so
/// the line passes without running any. Quoted or not, it is refused.
fn looks_like_an_option(plan: &ProofPlan, refusals: &mut Refusals) {
    for (_, pipeline) in plan.pipelines() {
        for command in &pipeline.commands {
            if let Some(arg) = command
                .argv
                .iter()
                .find(|a| a.chars().next().is_some_and(is_dash_lookalike))
            {
                let c = arg.chars().next().map_or(0, u32::from);
                refusals.push(Refusal::new(
                    PROOF_1,
                    format!(
                        "`{arg}` starts with U+{c:04X}, which looks like `-` but is not one: a person reads an option, the program an operand; write `-` for an option (a pattern that starts with it: `--regexp={arg}`)"
                    ),
                ));
            }
        }
    }
}

/// PROOF-5: `cat f | diff - f` (or `cmp`) compares `f` with itself through
/// the pipe, which verifies only that `f` is readable (outside attacker's
/// validate #3, the pipe form). Plain `cat` stages in between pass the
/// file on unchanged.
fn compares_its_own_input(plan: &ProofPlan, refusals: &mut Refusals) {
    for (_, pipeline) in plan.pipelines() {
        for (index, command) in pipeline.commands.iter().enumerate().skip(1) {
            let Some((program, args)) = command.argv.split_first() else {
                continue;
            };
            if !matches!(program.as_str(), "diff" | "cmp") || !args.iter().any(|a| a == "-") {
                continue;
            }
            let source = pipeline.commands[..index]
                .iter()
                .rev()
                .find(|c| c.argv.len() != 1 || c.argv[0] != "cat")
                .and_then(|c| match c.argv.as_slice() {
                    [cat, file] if cat == "cat" && !file.starts_with('-') => Some(file),
                    _ => None,
                });
            let Some(source) = source else {
                continue;
            };
            let key = vacuity::path_key(source).0;
            if args
                .iter()
                .any(|a| a != "-" && !a.starts_with('-') && vacuity::path_key(a).0 == key)
            {
                refusals.push(Refusal::new(
                    PROOF_5,
                    format!(
                        "`{}` compares `{source}` (through the pipe) with itself, which verifies nothing",
                        command.to_line()
                    ),
                ));
            }
        }
    }
}

/// PROOF-5: at the head of a pipeline the plan runner gives a command an
/// empty standard input (`/dev/null`), so a checker told to read it (`grep
/// -q x -`, `grep -f - f`, `--file=-`, `diff - f`, `cat - | …`) reads
/// nothing and its outcome is fixed (`! grep -q x -` passes on any
/// project). `test`, `[` and `find` take `-` as a path named `-`; project
/// code is its own business.
fn reads_empty_stdin(command: &PlanCommand, refusals: &mut Refusals) {
    let Some((program, args)) = command.argv.split_first() else {
        return;
    };
    if program_kind(program) != Some(ProgramKind::Checker)
        || matches!(program.as_str(), "test" | "[" | "find")
    {
        return;
    }
    let stdin = |arg: &String| {
        arg == "-"
            || arg.ends_with("=-")
            // A short option with its value glued: `-f-`.
            || (arg.len() > 2 && arg.starts_with('-') && !arg.starts_with("--") && arg.ends_with('-'))
    };
    if let Some(arg) = args.iter().find(|a| stdin(a)) {
        refusals.push(Refusal::new(
            PROOF_5,
            format!(
                "`{arg}` makes `{program}` read its standard input, which is empty (/dev/null) at the start of a pipeline, so the outcome is fixed; name the file (a file called `-` is `./-`)"
            ),
        ));
    }
}

/// PROOF-5: a build tool or a project script runs the project's own code,
/// which the validator cannot see, so its exit status is the only thing it
/// tells: the line must pass only when that status is success. Three forms
/// throw the status away and are refused: a pipe that sends its output on
/// (the last command decides: `cargo test | grep -v x` passes when the tests
/// fail), a leading `!` (passes when it fails), and `||` on either side
/// (`cargo test || ls src` passes through the fallback; `test -f x || make
/// check` passes without running it). By the left-to-right and-or rule, a
/// pipeline is required exactly when no `||` stands at or after it.
fn project_code_decides(plan: &ProofPlan, refusals: &mut Refusals) {
    let pipelines: Vec<_> = plan.pipelines().collect();
    // `A || ! B`, `! A || B`: when B is A spelled another way (`grep -q x
    // f || ! grep -qe x f`, `cmp a b || ! diff a b`), the line passes
    // whatever the project holds, and no list of spellings is complete.
    if pipelines.iter().any(|(c, _)| *c == Some(Connector::Or))
        && pipelines.iter().any(|(_, p)| p.negated)
    {
        refusals.push(Refusal::new(
            PROOF_5,
            "`||` and a negated check `!` on one line can join a check with its own negation spelled another way, which passes whatever the project holds; write the line without `!` or without `||` (`test ! -e x` is fine: it is one check)",
        ));
    }
    let last_or = pipelines
        .iter()
        .rposition(|(connector, _)| *connector == Some(Connector::Or));
    for (index, (_, pipeline)) in pipelines.iter().enumerate() {
        let count = pipeline.commands.len();
        for (position, command) in pipeline.commands.iter().enumerate() {
            let runs_project_code = command
                .argv
                .first()
                .and_then(|p| program_kind(p))
                .is_some_and(|kind| {
                    matches!(kind, ProgramKind::BuildTool | ProgramKind::ProjectScript)
                });
            if !runs_project_code {
                continue;
            }
            let shown = command.argv.join(" ");
            let why = if position + 1 < count {
                "sends its output into a pipe, where its exit status is lost (the last command decides, so the line can pass when it fails, on whatever it printed)"
            } else if pipeline.negated {
                "is negated with `!`, so the line passes when it fails"
            } else if last_or.is_some_and(|or_at| or_at == index) {
                "runs only after `||`, so the line passes without it whenever the check before passes"
            } else if last_or.is_some_and(|or_at| or_at > index) {
                "is followed by `||`, so when it fails the line passes through the fallback"
            } else {
                continue;
            };
            refusals.push(Refusal::new(
                PROOF_5,
                format!(
                    "`{shown}` runs the project's code and {why}; its exit status must decide the proof: run it on its own and join other checks with `&&`"
                ),
            ));
        }
    }
}

fn fixed_reason(passes: bool) -> String {
    if passes {
        "it passes whatever the project holds (a comparison of fixed text, a folder that always exists, a tautology)".into()
    } else {
        "it can never pass (a comparison of fixed text that is false, a path that cannot exist)"
            .into()
    }
}

fn too_complex() -> Refusal {
    Refusal::new(
        PROOF_5,
        "the line repeats the same checks too often to tell whether it verifies anything; write each check once",
    )
}
