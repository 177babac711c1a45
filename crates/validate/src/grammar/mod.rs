//! The allowlist grammar (PROOF-2, PROOF-3, PROOF-4): which programs a proof
//! may run and, for each, which options exist, which of them a proof may
//! use, what their values are, and which operands are paths.
//!
//! Each program's option table is data: every option the real program
//! knows (so abbreviations resolve as the program resolves them, see
//! [`options`]), and a list of rules saying which of them a proof may use
//! and with what kind of value. Anything not in the rules is refused with
//! the nearest allowed form. Every path a program will open is checked:
//! absolute paths, `~`, `..` and paths glued to options are refused.
//!
//! Checkers (`test`, `grep`, `cat`, read-only `git`, …) behave in a fully
//! known way. Build tools (`cargo`, `make`, `npm`, `pytest`, `go`) and
//! project scripts run the project's own code: their option grammars are
//! still checked, but what they do is contained by the sandbox (PROOF-6).

mod build;
mod coreutils;
mod find;
mod git;
mod grep;
mod jq;
pub(crate) mod options;
mod regex;
mod script;
mod testexpr;

use crate::vacuity::Cond;
use crate::{PROOF_2, PROOF_3, PROOF_4, PROOF_5, Refusal};
pub(crate) use build::pytest_addopts;
use options::{Item, Table, scan};

/// Where a command stands in its pipeline.
pub(crate) struct At<'a> {
    /// First in its pipeline: its standard input is empty (`/dev/null`).
    pub head: bool,
    /// The identities of the commands feeding its input (empty at the head).
    pub upstream: &'a str,
    /// The command itself.
    pub argv: &'a [String],
    /// Its pipeline is negated (`! … | …`): whatever narrows what the
    /// command reads or prints helps the line pass, so selections the
    /// project's own files can empty (ignore files, exclude lists) are
    /// refused there (PROOF-5).
    pub negated: bool,
}

impl At<'_> {
    /// Identifies what the command's outcome depends on when its program
    /// gives no canonical identity: the commands feeding its input and its
    /// argv. Equal keys are equal outcomes.
    pub(crate) fn key(&self) -> String {
        let mut key = self.upstream.to_string();
        for (i, arg) in self.argv.iter().enumerate() {
            if i > 0 {
                key.push('\0');
            }
            key.push_str(arg);
        }
        key
    }
}

/// What the validator knows about a command it accepted.
pub(crate) struct Facts {
    /// When the command succeeds.
    pub status: Cond,
}

/// A program a proof may run.
pub(crate) struct Program {
    /// The name as written in the proof (looked up on the sandbox's PATH).
    pub name: &'static str,
    /// Checks the arguments; `None` when something was refused.
    pub check: fn(&mut Ctx, &[String], &At) -> Option<Facts>,
    /// Runs the project's own code (build tools): contained by the sandbox.
    pub runs_project_code: bool,
}

impl Program {
    const fn checker(
        name: &'static str,
        check: fn(&mut Ctx, &[String], &At) -> Option<Facts>,
    ) -> Program {
        Program {
            name,
            check,
            runs_project_code: false,
        }
    }

    const fn runner(
        name: &'static str,
        check: fn(&mut Ctx, &[String], &At) -> Option<Facts>,
    ) -> Program {
        Program {
            name,
            check,
            runs_project_code: true,
        }
    }
}

/// Every program a proof may run, by name.
pub(crate) const PROGRAMS: &[Program] = &[
    Program::checker("test", testexpr::test),
    Program::checker("[", testexpr::bracket),
    Program::checker("grep", grep::grep),
    Program::checker("rg", grep::rg),
    Program::checker("diff", coreutils::diff),
    Program::checker("cmp", coreutils::cmp),
    Program::checker("wc", coreutils::wc),
    Program::checker("head", coreutils::head),
    Program::checker("tail", coreutils::tail),
    Program::checker("cat", coreutils::cat),
    Program::checker("ls", coreutils::ls),
    Program::checker("find", find::find),
    Program::checker("jq", jq::jq),
    Program::checker("yq", jq::yq),
    Program::checker("git", git::git),
    Program::runner("cargo", build::cargo),
    Program::runner("go", build::go),
    Program::runner("npm", build::npm),
    Program::runner("pnpm", build::npm),
    Program::runner("yarn", build::npm),
    Program::runner("pytest", build::pytest),
    Program::runner("python3", build::python3),
    Program::runner("make", build::make),
];

/// Collects refusals for one command.
pub(crate) struct Ctx {
    pub refusals: Vec<Refusal>,
    /// The program being checked, for messages.
    pub program: String,
    /// Why the command's status is fixed, when it is (PROOF-5 message).
    pub note: Option<&'static str>,
    /// The command prints nothing on stdout, whatever the project holds
    /// (`grep -q`, `test`, `cmp -s`): a command reading its output reads
    /// nothing (PROOF-5).
    pub silent: bool,
    /// Its output always starts with the same lines (`find .` prints `.`,
    /// `ls -a` prints `.` and `..`), so a search of it can match those
    /// (PROOF-5): why, when so.
    pub fixed_lines: Option<&'static str>,
    /// What the command's outcome depends on, canonically: options that
    /// only shape the output (`-q`, `-s`, `--color`) left out, aliases
    /// merged, so `make check` and `make -s check` are one outcome and
    /// `make check || ! make -s check` is seen to pass always (PROOF-5).
    pub identity: Option<String>,
    /// What the project must hold for the command to decide anything,
    /// checked on the disk by `ploy proof run` ([`crate::needed`]).
    pub needed: Vec<crate::Needed>,
}

impl Ctx {
    pub(crate) fn new(program: &str) -> Ctx {
        Ctx {
            refusals: Vec::new(),
            program: program.to_string(),
            note: None,
            silent: false,
            fixed_lines: None,
            identity: None,
            needed: Vec::new(),
        }
    }

    pub(crate) fn refuse(&mut self, rule: &'static str, detail: impl AsRef<str>) {
        let detail = format!("`{}`: {}", self.program, detail.as_ref());
        if !self
            .refusals
            .iter()
            .any(|r| r.rule == rule && r.detail == detail)
        {
            self.refusals.push(Refusal::new(rule, detail));
        }
    }

    pub(crate) fn ok(&self) -> bool {
        self.refusals.is_empty()
    }

    /// The unknown outcome of this command at `at` (see [`Ctx::identity`]).
    pub(crate) fn outcome(&self, at: &At) -> Cond {
        Cond::Unknown(match &self.identity {
            Some(identity) => format!("{}{identity}", at.upstream),
            None => at.key(),
        })
    }

    /// Sets the command's canonical identity from its read options:
    /// `neutral` ids only shape the output and are left out; `same` maps
    /// ids with the same effect on the outcome to one.
    pub(crate) fn identify(&mut self, items: &[Item], neutral: &[&str], same: &[(&str, &str)]) {
        let mut options: Vec<(&str, Option<&str>)> = items
            .iter()
            .filter_map(|item| match item {
                Item::Opt { id, value, .. } if !neutral.contains(id) => {
                    let id = same.iter().find(|(a, _)| a == id).map_or(*id, |(_, b)| *b);
                    Some((id, value.as_deref()))
                }
                _ => None,
            })
            .collect();
        options.sort_unstable();
        options.dedup();
        let mut identity = self.program.clone();
        for (id, value) in options {
            identity.push('\0');
            identity.push_str(id);
            if let Some(value) = value {
                identity.push('=');
                identity.push_str(value);
            }
        }
        identity.push_str("\0--");
        for item in items {
            if let Item::Operand(o) = item {
                identity.push('\0');
                identity.push_str(o);
            }
        }
        self.identity = Some(identity);
    }

    /// PROOF-3 on a path the program opens: relative, inside the project.
    /// Its pieces after `=`, `:` or `,` are checked too: a path such as
    /// `--x=/etc` is harmless to the program that opens it, but refusing it
    /// costs nothing and no program can read it as an absolute path.
    pub(crate) fn path(&mut self, value: &str, what: &str) {
        if let Some(problem) = text_problem(value) {
            self.refuse(PROOF_3, format!("{what} `{value}` {problem}"));
        }
    }

    /// PROOF-3 on text handed to project code or of unknown use: every
    /// piece that could be read as a path (after `=`, `:`, `,` or a short
    /// option's letters) must be relative and inside the project.
    pub(crate) fn text(&mut self, value: &str, what: &str) {
        if let Some(problem) = text_problem(value) {
            self.refuse(PROOF_3, format!("{what} `{value}` {problem}"));
        }
    }

    /// [`Ctx::text`] for text that the project's recipes or scripts may
    /// paste into a shell command (make's `$@`/`$*`, npm's script line):
    /// only characters that mean nothing to a shell, so no code rides in
    /// on it (`make 'test-x;id'` with a `test-%:` rule runs `id`).
    pub(crate) fn shell_text(&mut self, value: &str, what: &str) {
        self.text(value, what);
        if let Some(c) = value
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || "._/+,:=@%-".contains(*c)))
        {
            self.refuse(
                crate::PROOF_4,
                format!("{what} `{value}` contains `{c}`; the project's recipes and scripts can paste it into a shell command, so only letters, digits and `._/+,:=@%-` may be used"),
            );
        }
    }
}

/// Why a path is not a relative path inside the project, if it is not.
pub(crate) fn path_problem(value: &str) -> Option<&'static str> {
    if value.starts_with('/') {
        Some("is an absolute path; a proof uses paths inside the project")
    } else if value.starts_with('~') {
        Some("starts with `~` (the home folder); a proof uses paths inside the project")
    } else if value.split('/').any(|part| part == "..") {
        Some("contains `..`; a proof stays inside the project")
    } else {
        None
    }
}

/// [`path_problem`] on every piece of `value` that a program could read as
/// a path: the whole text, the text after a leading option (`-I/x`,
/// `--out=/x`), and the pieces between `=`, `:` and `,`.
pub(crate) fn text_problem(value: &str) -> Option<&'static str> {
    let unflagged = value.trim_start_matches('-');
    let glued = (unflagged.len() != value.len())
        .then(|| unflagged.trim_start_matches(|c: char| c.is_ascii_alphabetic()));
    std::iter::once(value)
        .chain(glued)
        .chain(value.split(['=', ':', ',']))
        .find_map(path_problem)
}

/// What an option's value is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Val {
    /// A path the program opens (checked, PROOF-3).
    Path,
    /// A regular expression, glob or literal the program matches with; it
    /// names no file.
    Pattern,
    /// Text with no file meaning to the program (a label, a format).
    Text,
    /// A number (digits, optionally a unit suffix: `10`, `1K`, `-5`, `+3`).
    Count,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A name: letters, digits and `_.:+@/-`, not starting with `-`
    /// (a package, a feature list, a target triple, a lint).
    Name,
}

/// What a proof may do with one option (by its id in the program's table).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Use {
    /// Allowed; takes no value.
    Flag,
    /// Allowed; its value (if given) is of this kind.
    Value(Val),
    /// Refused under this rule, for this reason.
    No(&'static str, &'static str),
}

/// One option rule: the option's id, and what a proof may do with it.
pub(crate) type Rule = (&'static str, Use);

/// `a` then `b` as one array, for tables built from shared parts (the
/// length is checked at compile time: a wrong `N` does not build).
pub(crate) const fn join<T: Copy, const N: usize>(a: &[T], b: &[T]) -> [T; N] {
    assert!(a.len() + b.len() == N && !a.is_empty());
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// PROOF-5: a program that prints a line for its standard input whatever
/// that holds (a count: `wc`, `grep -c`; a header: `head -v`; `grep -L`'s
/// "(standard input)"; jq's `--slurp` array) prints it just the same when
/// the command before it failed and sent nothing, so the filter after it
/// can pass without the check before it: `cat f | wc -l | grep -q '[0-9]'`
/// passes on an empty project. Refused when `files` (the operands it reads)
/// leave it reading standard input; `what` names the form.
pub(crate) fn prints_for_any_input(ctx: &mut Ctx, files: &[&str], what: &str) {
    if files.is_empty() || files.contains(&"-") {
        ctx.refuse(
            PROOF_5,
            format!("{what} prints a line for its standard input even when the command before it failed and sent nothing, so a check after it can pass on a missing file; count or show the file itself (`wc -l FILE`, `grep -c PATTERN FILE`)"),
        );
    }
}

/// PROOF-5: a count of zero (`-m 0`, `-n 0`) makes a program read or
/// compare nothing.
pub(crate) fn zero_count(value: &str) -> bool {
    let digits = value.trim_start_matches(['-', '+']);
    !digits.is_empty()
        && digits
            .chars()
            .take_while(char::is_ascii_digit)
            .all(|c| c == '0')
        && digits.starts_with('0')
}

/// PROOF-5 (outside attacker's proof5 #17): a start no project file or
/// history reaches (`tail -n +99999999999999`, `git log --skip=999999`):
/// a count of six digits or more skips at least 100,000 lines, bytes or
/// commits, so what follows prints nothing for the files and histories a
/// proof checks (refusing a real skip that large costs little).
pub(crate) fn beyond_any_project(value: &str) -> bool {
    let digits = value.trim_start_matches(['+', '-']).trim_start_matches('0');
    digits.chars().take_while(char::is_ascii_digit).count() >= 6
}

/// The smallest start [`beyond_any_project`] means, as a number.
pub(crate) const BEYOND_ANY_PROJECT: u128 = 100_000;

/// A count as GNU head and tail read it (`xstrtoumax` with the suffixes
/// `bkKmMGTPEZYRQ0`), without its sign: digits, then optionally one suffix
/// (`b` = 512; `k`/`K` = 1024, `m`/`M` = 1024², … `Q` = 1024¹⁰), which
/// `B` turns into a power of 1000 (`KB`) and `iB` leaves at 1024 (`KiB`).
/// Saturates instead of overflowing; `None` when head and tail refuse the
/// value (round8 #1b: `tail -n +1M` is a start past a million lines, and
/// must be judged by its value, never its spelling).
pub(crate) fn gnu_count(value: &str) -> Option<u128> {
    let digits_end = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    let (digits, suffix) = value.split_at(digits_end);
    if digits.is_empty() {
        return None;
    }
    let number = digits.bytes().fold(0u128, |n, d| {
        n.saturating_mul(10).saturating_add(u128::from(d - b'0'))
    });
    let mut rest = suffix.chars();
    let Some(unit) = rest.next() else {
        return Some(number);
    };
    let base: u128 = match rest.as_str() {
        "" | "iB" => 1024,
        "B" | "D" => 1000,
        _ => return None,
    };
    let power = match unit {
        // `b` is 512 bytes whatever follows it (`bB`, `biB`).
        'b' => return Some(number.saturating_mul(512)),
        'k' | 'K' => 1,
        'm' | 'M' => 2,
        'G' => 3,
        'T' => 4,
        'P' => 5,
        'E' => 6,
        'Z' => 7,
        'Y' => 8,
        'R' => 9,
        'Q' => 10,
        _ => return None,
    };
    Some(number.saturating_mul(base.saturating_pow(power)))
}

/// The values given to option `id` in `items`.
pub(crate) fn values<'a>(items: &'a [Item], id: &'a str) -> impl Iterator<Item = &'a str> {
    items.iter().filter_map(move |item| match item {
        Item::Opt {
            id: x,
            value: Some(v),
            ..
        } if *x == id => Some(v.as_str()),
        _ => None,
    })
}

/// Checks one value of an option or operand.
pub(crate) fn check_value(ctx: &mut Ctx, kind: Val, value: &str, what: &str) {
    match kind {
        Val::Path => ctx.path(value, what),
        Val::Pattern | Val::Text => {}
        Val::Count => {
            let digits = value.trim_start_matches(['-', '+']);
            let number: String = digits.chars().take_while(char::is_ascii_digit).collect();
            let unit = &digits[number.len()..];
            if number.is_empty() || unit.len() > 3 || !unit.chars().all(|c| c.is_ascii_alphabetic())
            {
                ctx.refuse(PROOF_2, format!("{what} `{value}` is not a number"));
            }
        }
        Val::Choice(choices) => {
            if !choices.contains(&value) {
                ctx.refuse(
                    PROOF_2,
                    format!("{what} `{value}` is not one of {}", list(choices)),
                );
            }
        }
        Val::Name => {
            if value.is_empty()
                || value.starts_with('-')
                || !value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.:+@/-,".contains(c))
            {
                ctx.refuse(
                    PROOF_2,
                    format!("{what} `{value}` is not a plain name (letters, digits, `_.:+@/-`)"),
                );
            } else {
                ctx.text(value, what);
            }
        }
    }
}

/// `a`, `b`, `c` quoted for messages.
pub(crate) fn list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The options of a program a proof may use, spelled in full, for hints.
fn allowed_names(table: &Table, rules: &[Rule]) -> Vec<String> {
    let allowed = |id: &str| {
        rules
            .iter()
            .any(|(r, u)| *r == id && !matches!(u, Use::No(..)))
    };
    let mut names: Vec<String> = table
        .shorts
        .iter()
        .filter(|s| allowed(s.id))
        .map(|s| format!("-{}", s.ch))
        .chain(
            table
                .longs
                .iter()
                .filter(|l| allowed(l.id))
                .map(|l| format!("--{}", l.name)),
        )
        .collect();
    names.dedup();
    names
}

/// The closest of `candidates` to `written`, if any is close.
pub(crate) fn nearest<'a>(
    written: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .filter_map(|c| {
            let limit = if c.len().min(written.len()) <= 4 {
                1
            } else {
                2
            };
            // Lengths further apart than the limit cannot be that close.
            if c.len().abs_diff(written.len()) > limit {
                return None;
            }
            let d = edit_distance(written.as_bytes(), c.as_bytes());
            (d <= limit && d < c.len().max(written.len())).then_some((d, c))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over bytes (names and options are ASCII; anything
/// else only makes the distance larger).
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let old = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = old;
        }
    }
    row[b.len()]
}

/// The allowed programs, quoted and joined (for messages; built once).
fn allowed_list() -> &'static str {
    static LIST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LIST.get_or_init(|| list(&PROGRAMS.iter().map(|p| p.name).collect::<Vec<_>>()))
}

/// Scans `args` with `table` and applies `rules`: every option is checked
/// (unknown ones refused with the nearest allowed form; values checked by
/// kind). Returns the items, or `None` when the arguments cannot be read.
pub(crate) fn read_options(
    ctx: &mut Ctx,
    table: &Table,
    rules: &[Rule],
    args: &[String],
) -> Option<Vec<Item>> {
    let items = match scan(table, args) {
        Ok(items) => items,
        Err(err) => {
            let mut detail = err.describe(&ctx.program);
            if let options::ScanError::Unknown(written) = &err {
                let abbreviates: Vec<&options::Long> = written
                    .strip_prefix("--")
                    .map(|w| {
                        table
                            .longs
                            .iter()
                            .filter(|l| !w.is_empty() && l.name.starts_with(w))
                            .collect()
                    })
                    .unwrap_or_default();
                let names = allowed_names(table, rules);
                if let [target] = abbreviates.as_slice() {
                    // git (and others) would read it as this option: say so,
                    // with that option's own verdict.
                    detail = format!(
                        "`{written}` abbreviates `--{}`; options must be written in full",
                        target.name
                    );
                    if let Some((_, Use::No(rule, why))) =
                        rules.iter().find(|(id, _)| *id == target.id)
                    {
                        ctx.refuse(rule, format!("`--{}` {why}", target.name));
                    }
                } else if let Some(close) = nearest(written, names.iter().map(String::as_str)) {
                    detail.push_str(&format!("; did you mean `{close}`?"));
                } else if !names.is_empty() && names.len() <= 12 {
                    detail.push_str(&format!("; it may use {}", names.join(" ")));
                } else {
                    detail.push_str("; docs/proofs.md lists the options a proof may use");
                }
            }
            ctx.refuse(PROOF_2, detail);
            // Glued values (`-C..`, `-f/x`) are still checked as paths.
            for arg in args.iter().filter(|a| a.starts_with('-')) {
                ctx.text(arg, "the argument");
            }
            return None;
        }
    };
    for item in &items {
        let Item::Opt {
            id,
            written,
            name,
            value,
        } = item
        else {
            continue;
        };
        // Built only for a refusal: most options are accepted, and these
        // strings were a measurable share of validating a line.
        let spelled = || {
            if written == name {
                format!("`{written}`")
            } else {
                format!("`{written}` (read as `{name}`)")
            }
        };
        match rules.iter().find(|(r, _)| r == id).map(|(_, u)| *u) {
            None => {
                let names = allowed_names(table, rules);
                let hint = nearest(name, names.iter().map(String::as_str))
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                ctx.refuse(
                    PROOF_2,
                    format!("{} is not an option a proof may use{hint}", spelled()),
                );
                if let Some(v) = value {
                    ctx.text(v, &format!("the value of {name}"));
                }
            }
            Some(Use::No(rule, why)) => {
                ctx.refuse(rule, format!("{} {why}", spelled()));
                if let Some(v) = value {
                    ctx.text(v, &format!("the value of {name}"));
                }
            }
            Some(Use::Flag) => {}
            Some(Use::Value(kind)) => {
                if let Some(v) = value {
                    check_value(ctx, kind, v, &format!("the value of {name}"));
                }
            }
        }
    }
    Some(items)
}

/// The option ids present in `items`.
pub(crate) fn has(items: &[Item], id: &str) -> bool {
    items
        .iter()
        .any(|i| matches!(i, Item::Opt { id: x, .. } if *x == id))
}

/// The operands in `items`, in order, with whether each came after `--`.
pub(crate) fn operands(items: &[Item]) -> Vec<(&str, bool)> {
    let mut after = false;
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::EndOfOptions => after = true,
            Item::Operand(o) => out.push((o.as_str(), after)),
            Item::Opt { .. } => {}
        }
    }
    out
}

/// Programs that verify nothing by themselves (PROOF-5).
const NO_OPS: &[&str] = &[
    "true", "false", ":", "echo", "printf", "exit", "return", "sleep", "pwd", "yes", "whoami",
    "id", "date", "uname", "printenv", "seq", "tty", "clear", "wait", "logname", "groups", "nproc",
    "arch",
];

/// Interpreters: they run code given inline, on stdin or in a file.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "yash",
    "fish",
    "csh",
    "tcsh",
    "ash",
    "busybox",
    "toybox",
    "python",
    "python2",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "perl",
    "ruby",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "Rscript",
    "R",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "osascript",
    "pwsh",
    "powershell",
    "expect",
    "guile",
    "racket",
    "julia",
    "groovy",
    "jshell",
    "irb",
    "ghci",
    "runghc",
    "bc",
    "dc",
    "m4",
    "sqlite3",
    "gdb",
    "vim",
    "vi",
    "nvim",
    "emacs",
    "ed",
    "ex",
    "java",
    "dotnet",
];

/// Programs that start another program given in their arguments.
const LAUNCHERS: &[&str] = &[
    "env",
    "timeout",
    "nice",
    "nohup",
    "stdbuf",
    "setarch",
    "linux32",
    "linux64",
    "setsid",
    "ionice",
    "chrt",
    "taskset",
    "xargs",
    "parallel",
    "exec",
    "command",
    "builtin",
    "eval",
    "source",
    ".",
    "sudo",
    "su",
    "doas",
    "runuser",
    "pkexec",
    "ifne",
    "rlwrap",
    "xvfb-run",
    "run-parts",
    "watch",
    "script",
    "strace",
    "ltrace",
    "valgrind",
    "time",
    "flock",
    "chroot",
    "unshare",
    "nsenter",
    "firejail",
    "bwrap",
    "systemd-run",
    "npx",
    "pnpx",
    "bunx",
    "uvx",
    "pipx",
    "dbus-run-session",
    "xdg-open",
    "open",
    "fakeroot",
    "proot",
    "catchsegv",
    "sg",
    "newgrp",
    "entr",
    "tmux",
    "screen",
    "expect",
    "unbuffer",
    "faketime",
    "torsocks",
    "proxychains",
    "chpst",
    "setpriv",
    "capsh",
    "prlimit",
    "numactl",
    "cgexec",
    "with-contenv",
];

/// Hints for programs people reach for, pointing at the allowed form.
const HINTS: &[(&str, &str)] = &[
    (
        "python",
        "write the check as a test and run `python3 -m pytest -q tests/test_x.py`, or make it an executable project script (`./check.py`)",
    ),
    (
        "node",
        "run the project's tests with `npm test`, or make the check an executable project script (`./check.js`)",
    ),
    (
        "sh",
        "run the script itself by its relative path (`./check.sh`, `scripts/test.sh`)",
    ),
    ("sed", "check text with `grep -q`"),
    ("awk", "check text with `grep -q`"),
    (
        "perl",
        "check text with `grep -q`, or make the check an executable project script",
    ),
    ("stat", "check a path with `test -e PATH` (or -f, -d, -s)"),
    ("file", "check a path with `test -f PATH`"),
    ("pip", "a proof installs nothing; run `python3 -m pytest`"),
    ("sort", "compare with `diff -q expected actual` or `cmp`"),
    (
        "tar",
        "list nothing: check the files the build produced with `test -f`",
    ),
    (
        "cd",
        "a proof runs in the project folder; name paths relative to it",
    ),
];

/// A command the grammar accepted.
pub(crate) struct Checked {
    /// When it succeeds.
    pub status: Cond,
    /// Why its status is fixed, when the program knows it is.
    pub note: Option<&'static str>,
    /// It prints nothing on stdout, whatever the project holds.
    pub silent: bool,
    /// Its output always holds the same lines (see [`Ctx::fixed_lines`]).
    pub fixed_lines: Option<&'static str>,
    /// What its outcome depends on (see [`Ctx::identity`]), or its argv.
    pub identity: String,
    /// What the project must hold (see [`Ctx::needed`]).
    pub needed: Vec<crate::Needed>,
}

/// Checks one command: the program must be in the allowlist (or a project
/// script by relative path), and its arguments must follow its grammar.
pub(crate) fn check(argv: &[String], at: &At) -> Result<Checked, Vec<Refusal>> {
    let Some(program) = argv.first() else {
        return Err(vec![Refusal::new(PROOF_2, "a command with no program")]);
    };
    let args = &argv[1..];
    let mut ctx = Ctx::new(program);
    let facts = if program.contains('/') {
        script::script(&mut ctx, program, args, at)
    } else if let Some(entry) = PROGRAMS.iter().find(|p| p.name == program) {
        (entry.check)(&mut ctx, args, at)
    } else {
        unknown_program(&mut ctx, program, args);
        None
    };
    match facts {
        Some(facts) if ctx.ok() => Ok(Checked {
            status: facts.status,
            note: ctx.note,
            silent: ctx.silent,
            fixed_lines: ctx.fixed_lines,
            identity: ctx.identity.unwrap_or_else(|| argv.join("\0")),
            needed: ctx.needed,
        }),
        _ => {
            if ctx.refusals.is_empty() {
                ctx.refuse(PROOF_2, "the arguments do not follow the program's grammar");
            }
            Err(ctx.refusals)
        }
    }
}

fn base_name(program: &str) -> &str {
    // `python3.12` → `python3`, `nodejs` stays.
    let trimmed = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if trimmed.is_empty() { program } else { trimmed }
}

/// Interpreters whose first operand is their program text.
const CODE_FIRST: &[&str] = &[
    "awk", "gawk", "mawk", "nawk", "sed", "dc", "bc", "m4", "jshell",
];

/// Subcommands that run code given inline (`deno eval '…'`).
const EVAL_WORDS: &[&str] = &["eval", "e", "repl", "run-script", "-"];

fn unknown_program(ctx: &mut Ctx, program: &str, args: &[String]) {
    let base = base_name(program);
    let allowed: Vec<&str> = PROGRAMS.iter().map(|p| p.name).collect();
    let hint = HINTS
        .iter()
        .find(|(name, _)| *name == program || *name == base)
        .map(|(_, hint)| format!("; {hint}"))
        .or_else(|| {
            nearest(program, allowed.iter().copied()).map(|n| format!("; did you mean `{n}`?"))
        })
        .unwrap_or_else(|| {
            format!(
                "; a proof may run {} and project scripts by relative path (`./check.sh`)",
                allowed_list()
            )
        });
    if NO_OPS.contains(&program) {
        ctx.refuse(
            PROOF_5,
            "verifies nothing (it succeeds or prints whatever the project holds); a proof runs a check such as `test -f`, `grep -q` or the project's tests",
        );
        ctx.refuse(PROOF_2, "is not a program a proof may run");
    } else if INTERPRETERS.contains(&program) || INTERPRETERS.contains(&base) {
        ctx.refuse(
            PROOF_2,
            format!("is an interpreter, not a program a proof may run{hint}"),
        );
        let inline = if base.starts_with("python") || base.starts_with("pypy") {
            build::python_reads_code(args)
        } else {
            CODE_FIRST.contains(&base)
                || args
                    .first()
                    .is_some_and(|a| EVAL_WORDS.contains(&a.as_str()))
                || args.iter().any(|a| {
                    a == "-"
                        || a.starts_with("--eval")
                        || a.starts_with("--print")
                        || a.starts_with("--command")
                        || a.starts_with("--exec")
                        || (a.starts_with('-')
                            && !a.starts_with("--")
                            && a.chars().skip(1).any(|c| "ceEprnsxiSf".contains(c)))
                })
                || !args.iter().any(|a| !a.starts_with('-'))
        };
        if inline {
            ctx.refuse(
                PROOF_4,
                "runs code given inline, in a program file or on standard input; write the check as a test file in the project and run it with the project's test runner",
            );
        }
    } else if LAUNCHERS.contains(&program) {
        ctx.refuse(
            PROOF_2,
            format!("starts other programs, which the validator cannot check; run the check directly{hint}"),
        );
    } else {
        ctx.refuse(PROOF_2, format!("is not a program a proof may run{hint}"));
    }
    for arg in args {
        ctx.text(arg, "the argument");
    }
}

/// The GNU programs whose long options abbreviate (glibc `getopt_long`),
/// with their whole option tables.
pub(crate) fn gnu_table(program: &str) -> Option<&'static Table> {
    match program {
        "grep" => Some(grep::GREP_TABLE),
        "make" => Some(build::MAKE_TABLE),
        other => coreutils::GNU_TABLES
            .iter()
            .find(|(name, _)| *name == other)
            .map(|(_, table)| *table),
    }
}
