//! Shell command classification (PERM-1, PERM-2) on top of `ploy-shell`.
//!
//! A command line becomes one `shell` unit per simple command (nested ones
//! included), matched one at a time, never on the raw line. Extra kinds:
//! * a redirect that writes a file → `edit` (with the target as its unit);
//! * any path argument, assignment value or redirect target outside the
//!   project → `external_directory`; a word computed at run time
//!   (`$x`, `$(…)`, `~`, `{a,b}`, `$'…'`) may be anything → `external_directory`
//!   too, and no allow rule can cover it;
//! * a line that does not parse → `shell` + `edit` + `external_directory`,
//!   nothing coverable by an allow rule (the most restrictive reading).
//!
//! Allow rules cannot cover a command whose program is computed, which holds a
//! substitution, which runs a string (`eval`, `sh -c`, `source`), which
//! changes what later names mean (`alias`, functions), or a line that does
//! not parse. Launchers (`env`, `xargs`, `sudo`, `timeout`, `nice`, `find
//! -exec`, `npm exec`, `npx`, … see [`crate::launchers`]) add a unit for the
//! command they start: both must be allowed, and a deny on either denies; a
//! command line a launcher hands to a shell (`script -c`, `npm exec -c`) is
//! judged like `sh -c`. Strings run by `eval` / `sh -c` are analysed too, so
//! deny rules see inside them.

use std::collections::HashSet;

use ploy_shell::{CommandLine, RedirectOp, SimpleCommand, Word};

use crate::action::{Action, ActionKind, KindSet, MatchUnit, Target, push_path_units};
use crate::options::Effect;
use crate::path::{Placement, ProjectRoot};
use crate::reads::{GuardedFile, Reads, glob_reaches, reads_of};

/// How deep `sh -c` / `eval` strings are followed before giving up (closed).
const MAX_DEPTH: usize = 4;

/// Device files that are not project files and not a way out of it.
const HARMLESS_DEVICES: [&str; 8] = [
    "/dev/null",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// Shells whose `-c STRING` runs a string.
const SHELLS: [&str; 11] = [
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox", "su", "runuser",
];

/// Builtins that change what later command names run, or run code the line does not show.
/// (`fc` re-runs lines of the history list, which `history -s` fills with any text.)
const NAME_CHANGERS: [&str; 7] = ["alias", "unalias", "trap", "enable", "hash", "shopt", "fc"];

/// Programs whose path arguments are only read: for every other program, an
/// argument naming a PERM-7 path is an `edit` of it (fail closed: `cp`, `mv`,
/// `tee`, `ln`, `tar -C`, `rsync`, a script, anything not listed here).
const READERS: [&str; 41] = [
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ls",
    "stat",
    "file",
    "wc",
    "diff",
    "cmp",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "bat",
    "tree",
    "du",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "test",
    "[",
    "echo",
    "printf",
    "strings",
    "od",
    "hexdump",
    "nl",
    "cd",
    "pushd",
    "type",
    "which",
];

/// git subcommands that never write files in the work tree or `.git/config`.
const GIT_READERS: [&str; 14] = [
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "ls-files",
    "ls-tree",
    "grep",
    "cat-file",
    "rev-parse",
    "check-ignore",
    "shortlog",
    "describe",
    "add",
];

/// `find` actions that write or run something.
const FIND_WRITERS: [&str; 9] = [
    "-delete", "-fprint", "-fprint0", "-fprintf", "-fls", "-exec", "-execdir", "-ok", "-okdir",
];

/// `git config` forms that only read.
const GIT_CONFIG_READS: [&str; 9] = [
    "--get",
    "--get-all",
    "--get-regexp",
    "--get-urlmatch",
    "--list",
    "-l",
    "get",
    "list",
    "--show-origin",
];

/// The caller's resolver of symbolic links: a written path → where it lands.
type Resolver<'r> = &'r dyn Fn(&str) -> Option<String>;

/// The caller's lister of guarded project files ([`ShellFacts::guarded`]).
type GuardedList<'r> = &'r dyn Fn() -> Option<Vec<GuardedFile>>;

/// What the shell judge may learn from the filesystem: the caller's I/O,
/// handed in so the judge stays pure (see [`Action::shell_judged`]).
#[derive(Clone, Copy)]
pub struct ShellFacts<'a> {
    /// Where a written path really lands (symbolic links followed), or
    /// `None` when it cannot tell (see [`Action::shell_resolved`]).
    pub resolve: Option<Resolver<'a>>,
    /// The project's files whose `read` the rules do not allow outright
    /// (an ask or a deny: `.env`, `*.pem`, a user's `read ask` pattern),
    /// or `None` when they could not be listed. Called at most once, and
    /// only when the line reads something it does not name (a recursive
    /// read, a glob, a program whose reads are unknown).
    pub guarded: GuardedList<'a>,
    /// For a written path already resolved (see `resolve`): why it is a
    /// protected path no name shows, found from the filesystem (a part of
    /// a folder git takes as a repository outside `.git`,
    /// `ploy_dirs::repository_part_reason`; proof5 #16), or `None`.
    pub protected_by_shape: Option<Resolver<'a>>,
    /// For a folder a recursive copy reads (`cp -r SRC`, `rsync -a SRC/`,
    /// as written on the line): the paths below it, relative to it and
    /// `/`-separated, that hold a protected name (PERM-7), or `None` when
    /// they cannot be listed (the copy then asks). The judge re-roots each
    /// at the copy's target (round7 #12: `cp -r tpl/. .` writes
    /// `tpl/.claude/settings.json` as `.claude/settings.json`). `None`
    /// here: not looked at (text only, as [`Action::shell`]).
    pub protected_below: Option<Lister<'a>>,
}

/// The caller's lister of protected names below a folder
/// ([`ShellFacts::protected_below`]).
type Lister<'r> = &'r dyn Fn(&str) -> Option<Vec<String>>;

impl std::fmt::Debug for ShellFacts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellFacts").finish_non_exhaustive()
    }
}

/// No guarded files known: for callers that judge text alone.
fn none_guarded() -> Option<Vec<GuardedFile>> {
    Some(Vec::new())
}

struct Builder<'r> {
    /// The caller's lister of protected names below a copied folder
    /// ([`ShellFacts::protected_below`]).
    protected_below: Option<Lister<'r>>,
    /// The caller's check of a resolved written path against repository
    /// shapes ([`ShellFacts::protected_by_shape`]).
    shape: Option<Resolver<'r>>,
    root: &'r ProjectRoot,
    kinds: KindSet,
    units: Vec<MatchUnit>,
    notes: Vec<String>,
    /// Folders the line changes to (`cd`, `pushd`), static operands only.
    cd_dirs: Vec<String>,
    /// The line changes to a folder it does not name (`cd`, `cd -`, `popd`,
    /// a computed operand): relative write targets may land anywhere.
    cd_unknown: bool,
    /// The line sets `CDPATH` (or may: see [`names_variable`]).
    cdpath: bool,
    /// A `cd` the line holds may go through `CDPATH` to any folder: every
    /// relative path it may write, argument or redirect, may be protected.
    cd_anywhere: bool,
    /// The line may make globs match names that start with `.` (it
    /// mentions `dotglob` or `GLOBIGNORE`).
    dot_globs: bool,
    /// The caller's resolver of symbolic links (see [`Action::shell_resolved`]).
    resolve: Option<Resolver<'r>>,
    /// The caller's list of guarded project files ([`ShellFacts::guarded`]).
    guarded_source: GuardedList<'r>,
    /// That list, once asked for.
    guarded: Option<Option<Vec<GuardedFile>>>,
    /// The command being judged takes its operands from input (`xargs
    /// CMD`, `find -exec CMD {}`): its read set is not on the line.
    from_input: bool,
    /// Paths already given a `read` unit (one unit per path).
    read_seen: HashSet<String>,
    /// The secrets the line reads by naming them: secret files given to a
    /// reader, credential stores a command prints from
    /// ([`Action::secret_reads`]).
    secret_reads: Vec<String>,
}

impl Action {
    /// Run a shell command line. `root` is the project root the command runs in.
    ///
    /// Paths are placed by their text: a write through a symbolic link
    /// (`echo x > link/pre-commit`, `link` → `.git/hooks`) is not seen as a
    /// PERM-7 write here; callers that can look at the filesystem use
    /// [`Self::shell_resolved`].
    ///
    /// Reads are judged from the text too: the paths a known reader names
    /// are `read` units, but what a recursive read, a glob or an unknown
    /// program reads is not seen (no guarded files are known). Callers that
    /// run the command use [`Self::shell_judged`].
    pub fn shell(tool: impl Into<String>, line: &str, root: &ProjectRoot) -> Self {
        Self::shell_with(
            tool.into(),
            line,
            root,
            ShellFacts {
                resolve: None,
                guarded: &none_guarded,
                protected_by_shape: None,
                protected_below: None,
            },
        )
    }

    /// The shell judge with what the caller learnt from the filesystem
    /// ([`ShellFacts`]): written paths resolved through symbolic links
    /// (PERM-7), and the project's guarded files, so that every simple
    /// command's *read set* is judged as `read` units (PERM-1, PERM-2):
    ///
    /// * the operands of a known reader (`cat`, `head`, `sed`, `cp`, `dd
    ///   if=`, `source`, …), an input redirect (`< .env`), nested commands
    ///   (`$(cat .env)`, `sh -c 'cat .env'`);
    /// * a recursive reader (`grep -r`, `rg`, `cp -r`, `tar`, …): every
    ///   guarded file below its operands (the current folder when it names
    ///   none); a glob operand: every guarded file it may match;
    /// * a program whose reads ploy does not know (`cargo`, `python`, a
    ///   script, `xargs CMD`, `git show`): every guarded file of the project.
    ///
    /// So a `read ask` rule (the built-in one for `.env`) asks for `cat .env`
    /// under an allow rule for `cat *`, and for `cargo test` when the project
    /// holds a `.env`. A word computed at run time in a read position, or a
    /// list of guarded files that could not be made, is a `read` unit no
    /// allow rule can cover.
    pub fn shell_judged(
        tool: impl Into<String>,
        line: &str,
        root: &ProjectRoot,
        facts: ShellFacts<'_>,
    ) -> Self {
        Self::shell_with(tool.into(), line, root, facts)
    }

    /// [`Self::shell`], with the caller's resolver of symbolic links: for
    /// every path the line may write (redirect targets, arguments of
    /// programs that may write), `resolve(path)` returns where it really
    /// lands (the canonical form of the part that exists, followed by the
    /// rest), or `None` when it cannot tell; a resolved form that is a PERM-7
    /// path makes the action ask. Resolution is the caller's I/O; this stays
    /// pure.
    pub fn shell_resolved(
        tool: impl Into<String>,
        line: &str,
        root: &ProjectRoot,
        resolve: &dyn Fn(&str) -> Option<String>,
    ) -> Self {
        Self::shell_with(
            tool.into(),
            line,
            root,
            ShellFacts {
                resolve: Some(resolve),
                guarded: &none_guarded,
                protected_by_shape: None,
                protected_below: None,
            },
        )
    }

    fn shell_with(tool: String, line: &str, root: &ProjectRoot, facts: ShellFacts<'_>) -> Self {
        let mut builder = Builder {
            protected_below: facts.protected_below,
            resolve: facts.resolve,
            shape: facts.protected_by_shape,
            guarded_source: facts.guarded,
            guarded: None,
            from_input: false,
            read_seen: HashSet::new(),
            secret_reads: Vec::new(),
            root,
            kinds: KindSet::EMPTY,
            units: Vec::new(),
            notes: Vec::new(),
            cd_dirs: Vec::new(),
            cd_unknown: false,
            cdpath: false,
            cd_anywhere: false,
            dot_globs: line.contains("dotglob") || line.contains("GLOBIGNORE"),
        };
        builder.kinds.insert(ActionKind::Shell);
        builder.line(line, 0, None);
        Self {
            tool,
            target: Target::Command(line.to_string()),
            kinds: builder.kinds,
            units: builder.units,
            notes: builder.notes,
            navigation: false,
            form_post: false,
            secret_reads: builder.secret_reads,
        }
    }
}

fn text_of(word: &Word) -> &str {
    word.value.as_deref().unwrap_or(&word.raw)
}

/// A word with this plain text (an option's value taken as a path or a
/// program name).
fn static_word(text: &str) -> Word {
    Word {
        raw: text.to_string(),
        value: Some(text.to_string()),
        flags: ploy_shell::WordFlags::default(),
    }
}

/// Builtins that take a variable *name* (with an optional array subscript):
/// bash evaluates the subscript of an indexed array as arithmetic, and
/// arithmetic runs the `$(…)` it holds, quoted or not (`test -v
/// 'a[$(rm x)]'`, `printf -v 'a[$(…)]' x`, `read 'a[$(…)]'`; found by an
/// outside attacker, tui-rpc #3).
const NAME_TAKERS: [&str; 7] = [
    "read",
    "mapfile",
    "readarray",
    "printf",
    "unset",
    "wait",
    "getopts",
];

/// Builtins that declare variables: a subscript in a name, the integer
/// attribute (`-i`: every later assignment is arithmetic) or a name reference
/// (`-n`: the referenced name may carry a subscript) evaluate code.
const DECLARERS: [&str; 5] = ["declare", "typeset", "local", "export", "readonly"];

/// `[[ a -eq b ]]` evaluates both operands as arithmetic.
const ARITHMETIC_TESTS: [&str; 6] = ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

/// Why the line may run code bash assembles at run time from text the
/// summary holds as data (PERM-2: no allow rule may cover it), if it may.
///
/// Bash evaluates arithmetic in `((…))`, `$((…))`, `let`, `[[ … -eq … ]]`,
/// indexed-array subscripts and variables with the integer attribute, and
/// arithmetic follows variable values recursively and runs the command
/// substitutions it meets (`x='a[$(id)]'; echo $((x))`); bash also expands
/// some variables itself (`PS4='$(id)'; set -x`). So: any arithmetic
/// context, any subscript that is not a number, a name-taking builtin given
/// a subscript, and an assigned value holding a substitution are code.
fn evaluation_hazard(summary: &CommandLine) -> Option<String> {
    if summary.constructs.arithmetic_expansion {
        return Some(
            "the line evaluates arithmetic (`((…))`, `$((…))`), which runs commands hidden in \
             the variables and array subscripts it reads"
                .into(),
        );
    }
    for command in &summary.commands {
        for assignment in &command.assignments {
            if let Some((_, subscript)) = assignment.name.split_once('[')
                && !subscript
                    .trim_end_matches(']')
                    .bytes()
                    .all(|b| b.is_ascii_digit())
            {
                return Some(format!(
                    "the assignment to `{}` evaluates its subscript as arithmetic",
                    assignment.name
                ));
            }
            if holds_substitution(&assignment.value.raw) {
                return Some(format!(
                    "the value assigned to `{}` holds a command that bash may expand later \
                     (`PS4` under `set -x`, `${{x@P}}`)",
                    assignment.name
                ));
            }
        }
        let Some(name) = command.program_basename() else {
            continue;
        };
        let args: Vec<&str> = command.args.iter().map(text_of).collect();
        if name == "let" {
            return Some("`let` evaluates arithmetic".into());
        }
        if name == "[[" {
            // Every arithmetic comparison's operands must be plain numbers.
            let arithmetic = args
                .iter()
                .enumerate()
                .filter(|(_, a)| ARITHMETIC_TESTS.contains(a));
            for (pos, _) in arithmetic {
                let operands = [pos.checked_sub(1), Some(pos + 1)];
                let literal = operands.iter().all(|i| {
                    i.and_then(|i| args.get(i)).is_some_and(|a| {
                        let digits = a.strip_prefix('-').unwrap_or(a);
                        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                    })
                });
                if !literal {
                    return Some("`[[ … -eq … ]]` evaluates its operands as arithmetic".into());
                }
            }
        }
        let names_subscript = args.iter().any(|a| a.contains('['));
        // `printf '[%s]' x` and `wait %1` take no name unless `-v` / `-p`.
        let takes_name = match name {
            "printf" => args.iter().any(|a| a.starts_with("-v")),
            "wait" => args.iter().any(|a| a.starts_with('-') && a.contains('p')),
            "[" | "[[" => false,
            _ => NAME_TAKERS.contains(&name),
        };
        if takes_name && names_subscript {
            return Some(format!(
                "`{name}` takes a variable name, and bash evaluates a subscript in it"
            ));
        }
        if matches!(name, "test" | "[" | "[[")
            && args.iter().any(|a| matches!(*a, "-v" | "-R"))
            && args.iter().any(|a| a.contains('[') && *a != "[[")
        {
            return Some(format!(
                "`{name} -v` takes a variable name, and bash evaluates a subscript in it"
            ));
        }
        if DECLARERS.contains(&name)
            && (names_subscript
                || args.iter().any(|a| holds_substitution(a))
                || args.iter().any(|a| {
                    (a.starts_with('-') || a.starts_with('+'))
                        && a.len() > 1
                        && a[1..].contains(['i', 'n'])
                }))
        {
            return Some(format!(
                "`{name}` with a subscript, `-i` or `-n` makes bash evaluate later values as code"
            ));
        }
    }
    None
}

/// Text holding `$(` or a backquote: a command, once bash expands it.
fn holds_substitution(text: &str) -> bool {
    text.contains("$(") || text.contains('`')
}

/// True when a word runs another command when expanded.
fn runs_commands(word: &Word) -> bool {
    word.flags.command_substitution || word.flags.backticks || word.flags.process_substitution
}

impl Builder<'_> {
    fn blocked_unit(&mut self, kind: ActionKind, text: &str, why: &str) {
        self.kinds.insert(kind);
        self.units
            .push(MatchUnit::blocked(kind, vec![text.to_string()], why));
    }

    /// A line whose effect cannot be known (it does not parse, or bash
    /// assembles code from it at run time): the most restrictive reading,
    /// shell + edit + external_directory, none coverable by an allow rule.
    fn unknowable(&mut self, line: &str, why: &str) {
        self.notes.push(format!(
            "{why}: classified as shell + edit + external_directory"
        ));
        for kind in [
            ActionKind::Shell,
            ActionKind::Edit,
            ActionKind::ExternalDirectory,
        ] {
            self.blocked_unit(kind, line, why);
        }
    }

    fn line(&mut self, line: &str, depth: usize, outer_blocker: Option<&str>) {
        if depth > MAX_DEPTH {
            self.blocked_unit(
                ActionKind::Shell,
                line,
                "commands nested too deep to analyse",
            );
            return;
        }
        let summary: CommandLine = ploy_shell::analyze(line);
        let mut blocker = outer_blocker.map(str::to_string);
        if let Some(err) = &summary.parse_error {
            let why = format!("the line does not parse ({err})");
            self.unknowable(line, &why);
            blocker.get_or_insert(why);
        }
        if summary.constructs.function_definition {
            blocker.get_or_insert_with(|| {
                "the line defines a shell function (a later name may run it)".into()
            });
        }
        if summary.constructs.coprocess {
            blocker.get_or_insert_with(|| "the line starts a coprocess".into());
        }
        if summary.commands.iter().any(|c| {
            c.program_basename()
                .is_some_and(|p| NAME_CHANGERS.contains(&p))
        }) {
            blocker.get_or_insert_with(|| {
                "the line changes what command names run (alias, trap, …)".into()
            });
        }
        if let Some(why) = evaluation_hazard(&summary) {
            // What runs depends on text bash evaluates as code at run time:
            // the most restrictive reading, as for a line that does not parse.
            self.unknowable(line, &why);
            blocker.get_or_insert(why);
        }
        self.writer_variables(line, &summary);
        for command in &summary.commands {
            self.note_folder_change(command);
        }
        if summary.commands.is_empty() && summary.parse_error.is_none() {
            self.blocked_unit(ActionKind::Shell, line, "no command found in the line");
        }
        for command in &summary.commands {
            self.simple_command(command, depth, blocker.as_deref());
        }
        for redirect in &summary.redirects {
            self.redirect(redirect.op, redirect.writes_file(), &redirect.target);
        }
        for word in &summary.loose_words {
            self.path_word(word);
        }
    }

    fn simple_command(
        &mut self,
        command: &SimpleCommand,
        depth: usize,
        line_blocker: Option<&str>,
    ) {
        let assignments: Vec<String> = command
            .assignments
            .iter()
            .map(|a| {
                format!(
                    "{}{}{}",
                    a.name,
                    if a.append { "+=" } else { "=" },
                    text_of(&a.value)
                )
            })
            .collect();
        let words: Vec<&Word> = command.program.iter().chain(command.args.iter()).collect();
        let mut blocker = line_blocker.map(str::to_string);
        if command.assignments.iter().any(|a| runs_commands(&a.value)) {
            blocker.get_or_insert_with(|| "an assignment runs another command".into());
        }
        self.command_words(&assignments, &words, depth, blocker.as_deref());
        // Paths: every argument and assignment value; the program when it is a
        // path or computed (a computed name may be any path).
        for assignment in &command.assignments {
            self.path_word(&assignment.value);
        }
        if let Some(program) = &command.program
            && (program.value.is_none()
                || program.raw.contains('/')
                || program.raw.starts_with('~'))
        {
            self.path_word(program);
        }
        for arg in &command.args {
            self.path_word(arg);
        }
        self.protected_arguments(command);
        // `cd` alone goes home, `cd -` to the previous folder, `popd`/`pushd`
        // to the stack: all possibly outside, and later relative paths follow.
        if let Some(name) = command.program_basename()
            && matches!(name, "cd" | "pushd" | "popd")
        {
            let operands: Vec<&Word> = command
                .args
                .iter()
                .filter(|w| !text_of(w).starts_with('-') || text_of(w) == "-")
                .collect();
            if name != "cd" || operands.is_empty() || operands.iter().any(|w| text_of(w) == "-") {
                self.blocked_unit(
                    ActionKind::ExternalDirectory,
                    &format!(
                        "{name} {}",
                        command
                            .args
                            .iter()
                            .map(text_of)
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                    &format!("`{name}` may change to a folder outside the project"),
                );
            }
        }
    }

    /// Push the unit for one command given as words (program first), then the
    /// units of whatever it wraps.
    fn command_words(
        &mut self,
        assignments: &[String],
        words: &[&Word],
        depth: usize,
        blocker: Option<&str>,
    ) {
        let Some(program) = words.first() else {
            // Assignments alone (`cmd=rm`): a unit of their own.
            if !assignments.is_empty() {
                self.push_command_unit(assignments, &[], blocker.map(str::to_string));
            }
            return;
        };
        let mut blocker = blocker.map(str::to_string);
        if program.value.is_none() {
            blocker.get_or_insert_with(|| {
                format!("the program name `{}` is computed at run time", program.raw)
            });
        }
        if words.iter().any(|w| runs_commands(w)) {
            blocker
                .get_or_insert_with(|| "an argument runs another command ($(…), `…`, <(…))".into());
        }
        let name = program
            .value
            .as_deref()
            .map(|p| p.rsplit('/').next().unwrap_or(p));
        let args = &words[1..];
        match name {
            Some("eval") => {
                let why = "eval runs a string".to_string();
                let inner: Vec<&str> = args.iter().map(|w| text_of(w)).collect();
                self.push_command_unit(
                    assignments,
                    words,
                    Some(blocker.clone().unwrap_or_else(|| why.clone())),
                );
                self.line(&inner.join(" "), depth + 1, Some(&why));
                return;
            }
            Some("source" | ".") => {
                blocker.get_or_insert_with(|| {
                    "source runs a script file the policy cannot see".into()
                });
                self.read_words(args, false);
                self.read_everything("the script it runs may read any file");
            }
            Some(shell) if SHELLS.contains(&shell) => {
                let why = format!("{shell} runs a script or string the policy cannot match");
                self.push_command_unit(
                    assignments,
                    words,
                    Some(blocker.clone().unwrap_or_else(|| why.clone())),
                );
                match shell_c_string(args) {
                    Some(script) => self.line(text_of(script), depth + 1, Some(&why)),
                    None => {
                        self.read_words(args, false);
                        self.read_everything(&format!(
                            "`{shell}` runs a script that may read any file"
                        ));
                    }
                }
                return;
            }
            Some(_) => self.command_reads(name, args),
            None => self.command_reads(None, args),
        }
        let own = self.units.len();
        self.push_command_unit(assignments, words, blocker.clone());
        if let Some(name) = name {
            self.option_effects(name, args, depth, blocker.as_deref());
            self.hidden_protected_writes(name, args);
            self.printed_credential(name, args);
        }
        if let Some(name) = name {
            if let Some(launched) = crate::launchers::launched(name, args) {
                self.launched(name, args, own, launched, depth, blocker.as_deref());
            }
            if name == "find" {
                for (start, end) in find_exec_ranges(args) {
                    let inner = &args[start..end];
                    if !inner.is_empty() {
                        let outer = std::mem::replace(&mut self.from_input, true);
                        self.command_words(&[], inner, depth + 1, blocker.as_deref());
                        self.from_input = outer;
                    }
                }
            }
        }
    }

    /// What a launcher starts (see [`crate::launchers`]): each command a
    /// simple command of its own (both must be allowed, a deny on either
    /// denies; only deny and ask rules see a possible project script), each
    /// command line handed to a shell judged as shell with the launcher's
    /// own unit out of reach of allow rules (as `sh -c`), and what ploy
    /// cannot see a unit no allow rule covers. `own` is the launcher's unit.
    fn launched(
        &mut self,
        name: &str,
        args: &[&Word],
        own: usize,
        launched: crate::launchers::Launched,
        depth: usize,
        blocker: Option<&str>,
    ) {
        for start in &launched.starts {
            let inner = &args[*start..];
            if inner.is_empty() {
                continue;
            }
            if launched.deny_only {
                let program = crate::launchers::program_name(text_of(inner[0]));
                let rest: Vec<&str> = inner[1..].iter().map(|w| text_of(w)).collect();
                // A package's program may be the tool itself (`pnpm husky`,
                // `pnpm dlx husky`): what it arms asks as for the tool.
                if let Some((path, why)) = armed_config(program, &rest) {
                    self.push_protected_edit(program, path, why);
                }
                let mut forms = vec![
                    std::iter::once(program)
                        .chain(rest.iter().copied())
                        .collect::<Vec<_>>()
                        .join(" "),
                ];
                forms.extend(crate::subcommand::normalise(program, &rest).forms);
                if let Some(unit) = self.units.get_mut(own) {
                    for form in forms {
                        if !unit.deny_candidates.contains(&form) {
                            unit.deny_candidates.push(form);
                        }
                    }
                }
                continue;
            }
            let outer = self.from_input;
            self.from_input |= name == "xargs";
            self.command_words(&[], inner, depth + 1, blocker);
            self.from_input = outer;
        }
        if !launched.lines.is_empty() {
            let why = format!("`{name}` runs a command line the policy cannot match");
            if let Some(unit) = self.units.get_mut(own) {
                unit.allow_blocker.get_or_insert(why.clone());
            }
            for line in &launched.lines {
                self.line(line, depth + 1, Some(&why));
            }
        }
        if let Some(why) = launched.unknown {
            let text: Vec<&str> = args.iter().map(|w| text_of(w)).collect();
            self.notes.push(why.clone());
            self.blocked_unit(
                ActionKind::Shell,
                &format!("{name} {}", text.join(" ")),
                &why,
            );
            self.read_everything(&why);
        }
    }

    /// What a known program's options do beyond reading (tui-rpc #9, see
    /// [`crate::options`]): a file it writes is an `edit` unit (PERM-7
    /// included), a program it runs a `shell` unit of its own (its
    /// arguments come from the outer program, as for `xargs`), what no rule
    /// can name a blocked unit; words ploy cannot read make the command's
    /// own unit one no allow rule covers.
    fn option_effects(&mut self, name: &str, args: &[&Word], depth: usize, blocker: Option<&str>) {
        let judged = crate::options::judge(name, args, self.from_input);
        if let Some(why) = judged.unknown {
            self.notes.push(why.clone());
            if let Some(unit) = self
                .units
                .iter_mut()
                .rev()
                .find(|u| u.kind == ActionKind::Shell)
            {
                unit.allow_blocker.get_or_insert(why);
            }
        }
        for effect in judged.effects {
            match effect {
                Effect::Writes(path) => {
                    self.kinds.insert(ActionKind::Edit);
                    self.notes.push(format!("`{name}` writes `{path}`"));
                    // (The option's word was placed as a path with the
                    // other arguments: `external_directory` when outside.)
                    let protected = self.write_protection(&static_word(&path), false);
                    push_path_units(
                        &mut self.kinds,
                        &mut self.units,
                        &mut self.notes,
                        ActionKind::Edit,
                        &path,
                        self.root,
                        protected,
                    );
                }
                Effect::Runs(program) => {
                    self.notes.push(format!("`{name}` runs `{program}`"));
                    let word = static_word(&program);
                    let outer = std::mem::replace(&mut self.from_input, true);
                    self.command_words(&[], &[&word], depth + 1, blocker);
                    self.from_input = outer;
                }
                Effect::Blocked(kind, text, why) => {
                    self.notes.push(why.clone());
                    self.blocked_unit(kind, &text, &why);
                }
            }
        }
    }

    /// A command that prints a stored credential (`gh auth token`, `aws
    /// configure get …`, `pass show x`; round8 #4): a `read` of the store
    /// it prints from, which the secret-file read rule asks for (PERM-2).
    fn printed_credential(&mut self, name: &str, args: &[&Word]) {
        let texts: Vec<&str> = args.iter().map(|w| text_of(w)).collect();
        if let Some(print) = crate::credentials::printed_credential(name, &texts) {
            self.notes.push(format!(
                "`{}` prints a stored credential (a read of `{}`)",
                print.command, print.store
            ));
            self.note_secret_read(&print.store);
            self.read_unit(&print.store);
        }
    }

    /// Record a secret the line reads by naming it (once).
    fn note_secret_read(&mut self, path: &str) {
        if !self.secret_reads.iter().any(|p| p == path) {
            self.secret_reads.push(path.to_string());
        }
    }

    /// The read set of one simple command (see [`Action::shell_judged`]).
    fn command_reads(&mut self, name: Option<&str>, args: &[&Word]) {
        if self.from_input {
            self.read_everything("its operands come from input (xargs, find -exec)");
        }
        match reads_of(name, args) {
            Reads::Nothing => {}
            Reads::Unknown(why) => self.read_everything(&why),
            Reads::Words {
                words,
                recursive,
                current_folder,
            } => {
                self.read_words(&words, recursive);
                if current_folder {
                    self.read_path(".", recursive);
                }
            }
        }
    }

    /// Every word that may name a file read: static words (and their glued
    /// or `=` values) are paths, globs are matched against the guarded
    /// files, anything computed is a `read` no allow rule covers.
    fn read_words(&mut self, words: &[&Word], recursive: bool) {
        for word in words {
            match word.value.as_deref() {
                Some(text) => {
                    for candidate in protected_candidates(text, false) {
                        if candidate != "-" {
                            self.read_path(candidate, recursive);
                        }
                    }
                }
                None if plain_glob(word) => self.read_glob(&word.raw, recursive),
                None => self.blocked_read(
                    &word.raw,
                    &format!(
                        "`{}` is computed at run time and may name a file a read rule asks for",
                        word.raw
                    ),
                ),
            }
        }
    }

    fn blocked_read(&mut self, text: &str, why: &str) {
        if self.read_seen.insert(format!("\0{text}")) {
            self.notes.push(format!("may read `{text}`: {why}"));
            self.kinds.insert(ActionKind::Read);
            let mut candidates = vec![text.to_string()];
            // `"$HOME/.aws/credentials"` names the file `~/.aws/credentials`
            // does: read rules (the secret-file asks) see that form too.
            if let Some(home) = home_form(text)
                && home != text
            {
                candidates.push(home);
            }
            if let Some(secret) = candidates
                .iter()
                .find(|c| ploy_secrets::is_secret_file(c))
                .cloned()
            {
                self.note_secret_read(&secret);
            }
            self.units
                .push(MatchUnit::blocked(ActionKind::Read, candidates, why));
        }
    }

    /// One `read` unit per path (placed from the root and below each folder
    /// the line `cd`s to); a recursive read adds the guarded files below it.
    fn read_path(&mut self, path: &str, recursive: bool) {
        if HARMLESS_DEVICES.contains(&path) {
            return;
        }
        if ploy_secrets::is_secret_file(path) {
            self.note_secret_read(path);
        }
        let mut variants = vec![path.to_string()];
        if !path.starts_with('/') && !path.starts_with('~') {
            variants.extend(self.cd_dirs.iter().map(|dir| format!("{dir}/{path}")));
        }
        for variant in variants {
            self.read_unit(&variant);
            if recursive && let Placement::Inside { relative, .. } = self.root.place(&variant) {
                self.read_guarded(&format!("`{path}` is read recursively"), |file| {
                    relative.is_empty()
                        || file.location == relative
                        || file
                            .location
                            .strip_prefix(relative.as_str())
                            .is_some_and(|rest| rest.starts_with('/'))
                });
            }
        }
        if recursive && self.cd_unknown {
            self.read_everything("the line changes to a folder ploy cannot name");
        }
    }

    fn read_unit(&mut self, path: &str) {
        if self.read_seen.insert(path.to_string()) {
            push_path_units(
                &mut self.kinds,
                &mut self.units,
                &mut self.notes,
                ActionKind::Read,
                path,
                self.root,
                None,
            );
            self.kinds.insert(ActionKind::Read);
            self.read_through_links(path);
        }
    }

    /// A read path that leads elsewhere through symbolic links (round8
    /// #10: `cat config.txt` where `config.txt -> .env`, committed in a
    /// cloned repository) also reads where it leads, as the read tool
    /// judges it: a `read` unit for the resolved path (the caller's
    /// resolver, [`ShellFacts::resolve`]).
    fn read_through_links(&mut self, path: &str) {
        let Some(resolve) = self.resolve else {
            return;
        };
        let Some(real) = resolve(path) else {
            return;
        };
        let lexical = match self.root.place(path) {
            Placement::Inside { absolute, .. } => absolute,
            Placement::Outside { normalised } => normalised,
        };
        let resolved = match self.root.place(&real) {
            Placement::Inside { absolute, .. } => absolute,
            Placement::Outside { normalised } => normalised,
        };
        if resolved != lexical && self.read_seen.insert(real.clone()) {
            self.notes.push(format!(
                "`{path}` leads to `{real}` through a symbolic link"
            ));
            if ploy_secrets::is_secret_file(&real) {
                self.note_secret_read(&real);
            }
            push_path_units(
                &mut self.kinds,
                &mut self.units,
                &mut self.notes,
                ActionKind::Read,
                &real,
                self.root,
                None,
            );
        }
    }

    /// A glob operand: every guarded file it may match (bash's rules: a
    /// leading `.` only by a leading `.`, unless the line turns `dotglob`
    /// on), from the root and below each folder the line `cd`s to.
    fn read_glob(&mut self, pattern: &str, recursive: bool) {
        let mut patterns = Vec::new();
        match self.root.place(pattern) {
            Placement::Inside { relative, .. } => patterns.push(relative),
            // Outside: `external_directory` already asks for it.
            Placement::Outside { .. } => return,
        }
        if !pattern.starts_with('/') {
            patterns.extend(self.cd_dirs.iter().map(|dir| format!("{dir}/{pattern}")));
        }
        if self.cd_unknown {
            self.read_everything("the line changes to a folder ploy cannot name");
        }
        let dot_globs = self.dot_globs;
        for pattern in patterns {
            self.read_guarded(&format!("`{pattern}` may match it"), |file| {
                glob_reaches(&pattern, &file.location, recursive, dot_globs)
            });
        }
    }

    /// Every guarded file of the project is read (the command may read
    /// anything).
    fn read_everything(&mut self, why: &str) {
        self.read_guarded(why, |_| true);
    }

    /// A `read` unit for every guarded file `reaches` selects; when the list
    /// could not be made, one `read` unit no allow rule covers.
    fn read_guarded(&mut self, why: &str, reaches: impl Fn(&GuardedFile) -> bool) {
        if self.guarded.is_none() {
            self.guarded = Some((self.guarded_source)());
        }
        let Some(Some(files)) = &self.guarded else {
            self.blocked_read(
                ".",
                "ploy could not list the project's files a read rule asks for, so it cannot \
                 tell what this reads",
            );
            return;
        };
        let hits: Vec<String> = files
            .iter()
            .filter(|f| reaches(f))
            .map(|f| f.judged.clone())
            .collect();
        for judged in hits {
            if !self.read_seen.contains(&judged) {
                self.notes.push(format!("may read `{judged}`: {why}"));
                self.read_unit(&judged);
            }
        }
    }

    fn push_command_unit(
        &mut self,
        assignments: &[String],
        words: &[&Word],
        blocker: Option<String>,
    ) {
        let mut parts: Vec<&str> = assignments.iter().map(String::as_str).collect();
        parts.extend(words.iter().map(|w| text_of(w)));
        let candidate = parts.join(" ");
        let mut unit = MatchUnit::new(ActionKind::Shell, vec![candidate]);
        unit.allow_blocker = blocker;
        // Deny rules also see the command without assignments and with the
        // program's basename (`X=1 /bin/rm -rf .` is still `rm -rf .`).
        if let Some(program) = words.first() {
            let base = text_of(program).rsplit('/').next().unwrap_or_default();
            let args: Vec<&str> = words[1..].iter().map(|w| text_of(w)).collect();
            let mut bare: Vec<&str> = vec![base];
            bare.extend(args.iter().copied());
            let bare = bare.join(" ");
            if !unit.candidates.contains(&bare) {
                unit.deny_candidates.push(bare);
            }
            // And as the program reads its words: global options skipped,
            // aliases resolved, option clusters merged (integrations #6).
            let normal = crate::subcommand::normalise(base, &args);
            for form in normal.forms {
                if !unit.candidates.contains(&form) && !unit.deny_candidates.contains(&form) {
                    unit.deny_candidates.push(form);
                }
            }
            if let Some(why) = normal.unknown {
                unit.allow_blocker.get_or_insert(why);
            }
            unit.unplaced = normal.unplaced;
            unit.words = std::iter::once(base)
                .chain(args.iter().copied())
                .map(str::to_string)
                .collect();
            // A program named with a registry prefix or a version
            // (`npm:npm`, `npm@10` as a launcher starts it) is that program.
            let name = crate::launchers::program_name(base);
            if name != base {
                let mut words = vec![name];
                words.extend(args.iter().copied());
                let form = words.join(" ");
                if !unit.deny_candidates.contains(&form) {
                    unit.deny_candidates.push(form);
                }
                for form in crate::subcommand::normalise(name, &args).forms {
                    if !unit.deny_candidates.contains(&form) {
                        unit.deny_candidates.push(form);
                    }
                }
            }
            // Commands among its words (round6 #10): ask when a deny or ask
            // rule names one, since ploy does not know whether it runs them.
            match crate::launchers::inner_forms(name, &args) {
                Ok(forms) => unit.inner_candidates = forms,
                Err(why) => {
                    unit.allow_blocker.get_or_insert(why);
                }
            }
        }
        self.units.push(unit);
    }

    fn redirect(&mut self, op: RedirectOp, writes: bool, target: &Word) {
        // `< f` and `<> f` read `f` (`<&` takes a descriptor number).
        let reads = matches!(op, RedirectOp::Read | RedirectOp::ReadWrite);
        if reads
            && writes
            && let Some(path) = target.value.as_deref()
        {
            self.read_path(path, false);
        }
        match op {
            RedirectOp::HereDoc | RedirectOp::HereDocStripTabs | RedirectOp::HereString => return,
            RedirectOp::DuplicateInput | RedirectOp::DuplicateOutput if !writes => return,
            _ => {}
        }
        match target.value.as_deref() {
            Some(path) if HARMLESS_DEVICES.contains(&path) => {}
            Some(path) if writes => {
                self.kinds.insert(ActionKind::Edit);
                self.notes
                    .push(format!("redirect `{}` writes `{path}`", op.as_str()));
                let protected = self.write_protection(target, true);
                push_path_units(
                    &mut self.kinds,
                    &mut self.units,
                    &mut self.notes,
                    ActionKind::Edit,
                    path,
                    self.root,
                    protected,
                );
            }
            Some(path) => {
                self.outside_path(path);
                if reads {
                    self.read_path(path, false);
                }
            }
            None => {
                let why = format!("redirect target `{}` is computed at run time", target.raw);
                if reads {
                    self.blocked_read(&target.raw, &why);
                }
                if writes {
                    self.kinds.insert(ActionKind::Edit);
                    let protected = self.write_protection(target, true);
                    self.units.push(
                        MatchUnit::blocked(ActionKind::Edit, vec![target.raw.clone()], &why)
                            .protecting(protected),
                    );
                }
                self.blocked_unit(ActionKind::ExternalDirectory, &target.raw, &why);
            }
        }
    }

    /// Record a folder change (`cd`, `pushd`, `popd`): later relative writes
    /// may land below it (PERM-7).
    fn note_folder_change(&mut self, command: &SimpleCommand) {
        let Some(name) = command.program_basename() else {
            return;
        };
        if !matches!(name, "cd" | "pushd" | "popd" | "chdir") {
            return;
        }
        let operands: Vec<&Word> = command
            .args
            .iter()
            .filter(|w| !text_of(w).starts_with('-') || text_of(w) == "-")
            .collect();
        if name == "popd" || operands.is_empty() {
            self.cd_unknown = true;
        }
        for operand in operands {
            match operand.value.as_deref() {
                // With `CDPATH` set, bash tries each of its folders first
                // for an operand that does not start with `/`, `.` or
                // `..` (round7 #10: `CDPATH=.git cd hooks`).
                Some(dir) if self.cdpath && !cdpath_ignores(dir) => {
                    self.cd_unknown = true;
                    self.cd_anywhere = true;
                }
                Some(dir) if dir != "-" && !operand.flags.glob => {
                    self.cd_dirs.push(dir.to_string())
                }
                _ => self.cd_unknown = true,
            }
        }
    }

    /// PERM-7 writes no path on the line shows (round7 #17, #18, #19):
    /// ploy's own commands that change its settings, trust, hook
    /// installation, approvals or store; `history -w`/`-a` (they write the
    /// file `HISTFILE` names, which may be inherited); `git init`/`git
    /// clone` with a template folder (git copies its `hooks/` into
    /// `.git/hooks`).
    fn hidden_protected_writes(&mut self, name: &str, args: &[&Word]) {
        let texts: Vec<&str> = args.iter().map(|w| text_of(w)).collect();
        if let Some(why) = ploy_state_change(name, &texts) {
            self.push_protected_edit(name, PLOY_STATE, why);
        }
        if name == "history"
            && texts
                .iter()
                .any(|t| t.starts_with('-') && !t.starts_with("--") && t.contains(['w', 'a']))
        {
            self.push_protected_edit(
                "history",
                "$HISTFILE",
                "`history -w`/`-a` writes bash's history list to the file `HISTFILE` names \
                 (set on the line or inherited), which may be one of ploy's own files or a \
                 file that runs code (.git/config, a git hook)"
                    .into(),
            );
        }
        if name == "git"
            && let Some(why) = git_template(&texts)
        {
            self.push_protected_edit("git", ".git/hooks", why);
        }
        if name == "git"
            && let Some((path, why)) = git_view_change(&texts)
        {
            self.push_protected_edit("git", path, why);
        }
        if let Some((path, why)) = armed_config(name, &texts) {
            self.push_protected_edit(name, path, why);
        }
        if let Some(why) = patch_applier(name, &texts) {
            self.push_protected_edit(name, "the files the patch names", why);
        }
        if let Some(list) = self.protected_below {
            for (source, target) in recursive_copies(name, &texts) {
                self.copied_protected_names(name, &source, &target, list);
            }
        }
    }

    /// A recursive copy of `source` into `target` (round7 #12): each
    /// protected name below the source, re-rooted where the copy may put
    /// it (`target/REL`, or `target/SOURCE-NAME/REL` when the target is an
    /// existing folder), is a PERM-7 write; a source that cannot be
    /// listed is one too (fail closed).
    fn copied_protected_names(&mut self, name: &str, source: &str, target: &str, list: Lister<'_>) {
        let Some(found) = list(source) else {
            self.push_protected_edit(
                name,
                target,
                format!(
                    "`{name}` copies the folder `{source}`, which ploy could not list: it may \
                     hold one of ploy's own files or another agent's resources"
                ),
            );
            return;
        };
        let base_name = source
            .trim_end_matches('/')
            .trim_end_matches("/.")
            .rsplit('/')
            .next()
            .unwrap_or_default();
        let target = target.trim_end_matches('/');
        let join = |dir: &str, rel: &str| {
            if dir.is_empty() || dir == "." {
                rel.to_string()
            } else {
                format!("{dir}/{rel}")
            }
        };
        for rel in found.iter().take(64) {
            let mut places = vec![join(target, rel)];
            if !base_name.is_empty() && base_name != "." && base_name != ".." {
                places.push(join(&join(target, base_name), rel));
            }
            for place in places {
                if let Some(why) = self.protected_after_cd(&place, false) {
                    self.push_protected_edit(
                        name,
                        &place,
                        format!("`{name}` copies `{source}`'s `{rel}` to `{place}`: {why}"),
                    );
                    return;
                }
            }
        }
    }

    /// Variables a line sets that make bash or git write a file, or take a
    /// folder, the line does not show as a path (round7 #10, #17, #18):
    /// each one named anywhere in the line (an assignment, `printf -v`,
    /// `read`, `for NAME in`, `export`, …) is a PERM-7 write no allow rule
    /// covers.
    fn writer_variables(&mut self, line: &str, summary: &CommandLine) {
        for (variable, path, why) in WRITER_VARIABLES {
            if names_variable(line, summary, variable) {
                self.push_protected_edit("bash", path, why.to_string());
            }
        }
        if names_variable(line, summary, "CDPATH") {
            self.cdpath = true;
        }
    }

    /// PERM-7 for a word the command may write (a redirect target, or an
    /// argument of a program not known to only read): `Some(reason)` when it
    /// names, or may name, a protected path.
    ///
    /// * a static word: the word, its `=` value and a glued short option's
    ///   value (arguments only), each judged from the project root and below
    ///   every folder the line `cd`s to;
    /// * a glob (`.g*/hoo?s/x`): each protected name a component may match
    ///   is tried in its place (bash's default: a leading `.` must be
    ///   written, unless the line mentions `dotglob` or `GLOBIGNORE`);
    /// * a `~` form: judged as written;
    /// * any other expansion (`$x`, `$(…)`, quotes mixed with globs, …): may
    ///   be anything, so protected.
    fn write_protection(&self, word: &Word, redirect: bool) -> Option<String> {
        let text: &str = match word.value.as_deref() {
            Some(value) => value,
            None => {
                // A `~` form is judged as written (see above).
                let f = ploy_shell::WordFlags {
                    tilde: false,
                    ..word.flags
                };
                let plain = !(expands_beyond_glob(&f) || f.quoted);
                if !plain {
                    return Some(format!(
                        "`{}` is computed at run time and may name one of ploy's own files or \
                         another agent's resources",
                        word.raw
                    ));
                }
                &word.raw
            }
        };
        let candidates = if redirect {
            vec![text]
        } else {
            protected_candidates(text, true)
        };
        for candidate in candidates {
            let Some(expanded) = glob_variants(candidate, self.dot_globs) else {
                return Some(format!(
                    "`{candidate}` is a pattern with too many ways to name one of ploy's own \
                     files or another agent's resources"
                ));
            };
            for path in expanded {
                if let Some(why) = self.protected_after_cd(&path, redirect) {
                    return Some(why);
                }
            }
        }
        None
    }

    /// PERM-7 for one concrete path, judged from the project root and below
    /// every folder the line names in a `cd`. A folder change the line does
    /// not name makes a relative *redirect* target protected; it is not
    /// applied to arguments (every word would then be suspect).
    fn protected_after_cd(&self, path: &str, redirect: bool) -> Option<String> {
        let relative = !path.starts_with('/') && !path.starts_with('~');
        if self.cd_anywhere && relative {
            return Some(format!(
                "`{path}` is written after a `cd` that `CDPATH` may send to any folder \
                 (.git/hooks, .claude, …); it may be one of ploy's own files or another \
                 agent's resources"
            ));
        }
        if redirect && self.cd_unknown && relative {
            return Some(format!(
                "`{path}` is written after the line changes to a folder ploy cannot name; \
                 it may be one of ploy's own files or another agent's resources"
            ));
        }
        let protected = self.root.protected();
        let lexical = if self.cd_dirs.is_empty() {
            protected.protects(path)
        } else {
            protected.protects_below(&self.cd_dirs, path)
        };
        if let Some(hit) = lexical {
            return Some(hit.to_string());
        }
        let resolve = self.resolve?;
        let below = self.cd_dirs.iter().map(|dir| format!("{dir}/{path}"));
        let reals: Vec<String> = std::iter::once(path.to_string())
            .chain(below)
            .filter_map(|p| resolve(&p))
            .collect();
        if let Some(hit) = reals.iter().find_map(|real| protected.protects(real)) {
            return Some(format!("{hit} (through a symbolic link)"));
        }
        let shape = self.shape?;
        reals.iter().find_map(|real| shape(real))
    }

    /// Arguments (and static assignment values) of a program that may write
    /// them: one naming a PERM-7 path, or computed at run time, is an `edit`
    /// unit that always asks. `git config` that sets a value edits git's
    /// configuration.
    fn protected_arguments(&mut self, command: &SimpleCommand) {
        let Some(program) = command.program.as_ref() else {
            return;
        };
        let name = program
            .value
            .as_deref()
            .map(|p| p.rsplit('/').next().unwrap_or(p));
        let args: Vec<&str> = command.args.iter().map(text_of).collect();
        if name == Some("git") {
            let sub = git_subcommand(&args);
            if sub == Some("config") && !args.iter().any(|a| GIT_CONFIG_READS.contains(a)) {
                self.push_protected_edit(
                    "git",
                    ".git/config",
                    "`git config` writes git's configuration (it names programs git runs: \
                     hooks path, aliases, filters)"
                        .to_string(),
                );
                return;
            }
            if sub.is_some_and(|s| GIT_READERS.contains(&s)) {
                return;
            }
        } else if let Some(name) = name {
            let find_reads = name == "find" && !args.iter().any(|a| FIND_WRITERS.contains(a));
            if READERS.contains(&name) || find_reads {
                return;
            }
        }
        let static_assignments = command
            .assignments
            .iter()
            .map(|a| &a.value)
            .filter(|w| w.value.is_some());
        let mut found: Vec<(String, String)> = Vec::new();
        for word in static_assignments.chain(command.args.iter()) {
            if let Some(why) = self.write_protection(word, false) {
                found.push((text_of(word).to_string(), why));
            }
        }
        let name = name.unwrap_or("the command");
        for (path, why) in found {
            self.push_protected_edit(name, &path, why);
        }
    }

    fn push_protected_edit(&mut self, program: &str, path: &str, why: String) {
        self.kinds.insert(ActionKind::Edit);
        self.notes.push(format!("`{program}` may write `{path}`"));
        let candidates = match self.root.place(path) {
            Placement::Inside { relative, absolute } => vec![relative, absolute],
            Placement::Outside { normalised } => vec![normalised],
        };
        self.units
            .push(MatchUnit::new(ActionKind::Edit, candidates).protecting(Some(why)));
    }

    /// A word that may be a path: outside the project → `external_directory`.
    fn path_word(&mut self, word: &Word) {
        let flags = &word.flags;
        if expands_beyond_glob(flags) {
            self.blocked_unit(
                ActionKind::ExternalDirectory,
                &word.raw,
                &format!(
                    "`{}` is computed at run time and may name a path outside the project",
                    word.raw
                ),
            );
            return;
        }
        // A glob alone expands to names under the written prefix: judge the
        // text. But a component like `.*` or `.?` may expand to `..` (older
        // bash, or `globskipdots` off): possibly outside.
        if flags.glob
            && word
                .raw
                .split('/')
                .any(|part| part.starts_with('.') && part.contains(['*', '?', '[']))
        {
            self.blocked_unit(
                ActionKind::ExternalDirectory,
                &word.raw,
                &format!("`{}` may expand to `..`", word.raw),
            );
            return;
        }
        let text = word.value.as_deref().unwrap_or(&word.raw);
        for candidate in path_candidates(text) {
            self.outside_path(candidate);
        }
    }

    fn outside_path(&mut self, path: &str) {
        if HARMLESS_DEVICES.contains(&path) {
            return;
        }
        if let Placement::Outside { normalised } = self.root.place(path) {
            self.kinds.insert(ActionKind::ExternalDirectory);
            self.notes
                .push(format!("`{path}` is outside the project ({normalised})"));
            self.units.push(MatchUnit::new(
                ActionKind::ExternalDirectory,
                vec![normalised],
            ));
        }
    }
}

/// The parts of an argument that may be paths: the word itself (unless it is
/// an option) and the value after `=` (`--out=/tmp/x`, `DESTDIR=/x`).
fn path_candidates(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if !text.starts_with('-') && looks_like_escape(text) {
        out.push(text);
    }
    // A short option with its value glued on: `-C/etc`, `-o../x`.
    if let Some(rest) = text.strip_prefix('-')
        && !rest.starts_with('-')
        && let Some(value) = rest.get(1..)
        && looks_like_escape(value)
    {
        out.push(value);
    }
    if let Some((_, value)) = text.split_once('=')
        && looks_like_escape(value)
    {
        out.push(value);
    }
    out
}

/// The parts of an argument that may name a path: the word, the value
/// after `=`, and a short option's glued value (`-C.git`). With
/// `every_suffix` (PERM-7 for words a program may write), the glued value
/// may start after any letter of a cluster of flags (`curl
/// -sSo.git/hooks/x`: `-s` and `-S` take no value, `-o` takes the rest;
/// secrets5 #5): which letter takes a value is the program's business, so
/// every suffix is a candidate (an extra one only makes the answer
/// stricter).
fn protected_candidates(text: &str, every_suffix: bool) -> Vec<&str> {
    let mut out = Vec::new();
    if !text.is_empty() && (!text.starts_with('-') || text == "-") {
        out.push(text);
    }
    if let Some(rest) = text.strip_prefix('-')
        && !rest.starts_with('-')
    {
        let starts: Vec<usize> = rest.char_indices().skip(1).map(|(at, _)| at).collect();
        let starts = if every_suffix {
            &starts[..]
        } else {
            &starts[..starts.len().min(1)]
        };
        out.extend(starts.iter().map(|at| &rest[*at..]));
    }
    if let Some((_, value)) = text.split_once('=')
        && !value.is_empty()
    {
        out.push(value);
    }
    out
}

/// Most concrete paths one pattern is expanded into for PERM-7; past this,
/// the pattern is treated as protected.
const MAX_GLOB_VARIANTS: usize = 64;

/// The concrete paths to judge for a word that may hold glob characters:
/// each component with `*`, `?` or `[` is replaced by every protected name
/// it matches (case-insensitively), or kept as written when it matches none.
/// `None` when there are too many combinations (the caller fails closed).
fn glob_variants(text: &str, dot_globs: bool) -> Option<Vec<String>> {
    if !text.contains(['*', '?', '[']) {
        return Some(vec![text.to_string()]);
    }
    let mut variants = vec![String::new()];
    for (i, component) in text.split('/').enumerate() {
        let choices: Vec<String> = if component.contains(['*', '?', '[']) {
            let matched = crate::protected::names_matching(component, dot_globs);
            if matched.is_empty() {
                vec![component.to_string()]
            } else {
                matched
            }
        } else {
            vec![component.to_string()]
        };
        let mut next = Vec::with_capacity(variants.len() * choices.len());
        for prefix in &variants {
            for choice in &choices {
                next.push(if i == 0 {
                    choice.clone()
                } else {
                    format!("{prefix}/{choice}")
                });
            }
        }
        if next.len() > MAX_GLOB_VARIANTS {
            return None;
        }
        variants = next;
    }
    Some(variants)
}

/// git's subcommand: the first word after the global options (`-C dir`,
/// `-c k=v`, `--git-dir=…`); `None` when there is none or ploy cannot tell
/// (then the command is not taken for a reader).
fn git_subcommand<'a>(args: &[&'a str]) -> Option<&'a str> {
    match crate::subcommand::git_start(args) {
        Ok(Some(start)) => Some(args[start]),
        _ => None,
    }
}

/// A computed word's text with its quotes removed and a leading `$HOME`
/// or `${HOME}` written `~` (`"$HOME"/.netrc` → `~/.netrc`), or `None`
/// when it does not start at the home folder.
fn home_form(raw: &str) -> Option<String> {
    let plain: String = raw.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
    let rest = plain
        .strip_prefix("${HOME}")
        .or_else(|| plain.strip_prefix("$HOME"))
        .or_else(|| plain.strip_prefix('~'))?;
    (rest.is_empty() || rest.starts_with('/')).then(|| format!("~{rest}"))
}

/// Absolute, home-relative, or climbing out with `..`: worth placing.
fn looks_like_escape(text: &str) -> bool {
    text.starts_with('/')
        || text.starts_with('~')
        || text == ".."
        || text.starts_with("../")
        || text.contains("/../")
        || text.ends_with("/..")
}

/// A glob word with no other expansion (`.e*`, `src/*.rs`): matched
/// against the guarded files.
fn plain_glob(word: &Word) -> bool {
    word.flags.glob && !expands_beyond_glob(&word.flags) && !word.flags.quoted
}

/// True when a word's run-time value depends on more than a glob: a
/// parameter, a command, arithmetic, `$'…'`/`$"…"`, braces, `~`, `<(…)`.
pub(crate) fn expands_beyond_glob(f: &ploy_shell::WordFlags) -> bool {
    f.parameter_expansion
        || f.command_substitution
        || f.backticks
        || f.arithmetic_expansion
        || f.ansi_c
        || f.locale_string
        || f.brace_expansion
        || f.tilde
        || f.process_substitution
}

/// `sh -c STRING`, `su user -c STRING`: the string run, if any (`-c`,
/// `-ec`, `-lc`, `--command`). Scans every argument: reading a string that
/// is not really a script only adds units for deny rules to see (the
/// command is already out of reach of allow rules), so over-reading is safe.
fn shell_c_string<'w>(args: &[&'w Word]) -> Option<&'w Word> {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let text = text_of(arg);
        let short_c = text.starts_with('-') && !text.starts_with("--") && text.contains('c');
        if short_c || text == "--command" {
            return iter.next().copied();
        }
    }
    None
}

/// `find … -exec CMD … ;` (also `-execdir`, `-ok`, `-okdir`, ended by `;` or `+`).
pub(crate) fn find_exec_ranges(args: &[&Word]) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if matches!(text_of(args[i]), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i + 1;
            let mut end = start;
            while end < args.len() && !matches!(text_of(args[end]), ";" | "+") {
                end += 1;
            }
            ranges.push((start, end));
            i = end;
        }
        i += 1;
    }
    ranges
}

/// Variables through which bash or git write a file, or take programs from
/// a folder, that no path on the line shows: (name, what is written, why);
/// a name is matched anywhere in a longer one (`GIT_CONFIG_KEY_0`).
const WRITER_VARIABLES: [(&str, &str, &str); 3] = [
    (
        "HISTFILE",
        "$HISTFILE",
        "the line sets `HISTFILE`: bash writes its history list (`history -w`/`-a`, shell exit) \
         to the file it names, which may be one of ploy's own files or a file that runs code \
         (.git/config, a git hook) (round7 #17)",
    ),
    (
        "GIT_TEMPLATE_DIR",
        ".git/hooks",
        "the line sets `GIT_TEMPLATE_DIR`: `git init`/`git clone` copy the template folder's \
         hooks into .git/hooks, where git runs them (round7 #18)",
    ),
    (
        "GIT_CONFIG",
        ".git/config",
        "the line sets a `GIT_CONFIG*` variable: git takes configuration from it (hooks path, \
         template folder, programs it runs)",
    ),
];

/// Where ploy's own state is (a label for the `edit` unit of a ploy command
/// that changes it; ploy's folders are PERM-7).
const PLOY_STATE: &str = "ploy's settings, trust, hook installation, approvals or store";

/// ploy's commands that only read (exact leading words, for `ploy` and,
/// after `hook`, for `ploy-hook`): every other ploy command may change
/// ploy's own state or settings and asks (round7 #19).
const PLOY_READ_ONLY: [&[&str]; 16] = [
    &["--version"],
    &["-V"],
    &["--help"],
    &["-h"],
    &["help"],
    &["config", "check"],
    &["config", "show"],
    &["check", "url"],
    &["check", "proof"],
    &["scrub"],
    &["doctor"],
    &["status"],
    &["hook", "status"],
    &["trust", "status"],
    &["approvals", "list"],
    &["conversations", "list"],
];

/// Why running ploy `name` with `args` may change ploy's own settings,
/// trust, hook installation, approvals or store (PERM-7, round7 #19), or
/// `None` for a program that is not ploy or a form that only reads.
fn ploy_state_change(name: &str, args: &[&str]) -> Option<String> {
    let words: Vec<&str> = match name {
        "ploy" => args.to_vec(),
        "ploy-hook" => std::iter::once("hook")
            .chain(args.iter().copied())
            .collect(),
        _ if name.starts_with("ploy-") => {
            std::iter::once(name).chain(args.iter().copied()).collect()
        }
        _ => return None,
    };
    let read_only = PLOY_READ_ONLY
        .iter()
        .any(|form| words.len() >= form.len() && words[..form.len()] == **form)
        || words.first() == Some(&"conversations") && words.get(1) == Some(&"show");
    if read_only {
        return None;
    }
    Some(format!(
        "`{name} {}` is ploy's own command: it may change ploy's settings, trust, hook \
         installation, approvals or store (only its read-only forms are ordinary commands)",
        args.join(" ")
    ))
}

/// Why `git ARGS` installs hooks from a template folder (`git init`/`git
/// clone` with `--template` or any abbreviation of it, or any setting of
/// `init.templateDir`), if it does (PERM-7, round7 #18).
fn git_template(args: &[&str]) -> Option<String> {
    let sub = git_subcommand(args);
    let setting = args
        .iter()
        .find(|a| a.to_ascii_lowercase().contains("templatedir"));
    let option = matches!(sub, Some("init" | "clone"))
        .then(|| {
            args.iter().find(|a| {
                let name = a.split('=').next().unwrap_or_default();
                name.len() >= 3 && "--template".starts_with(name)
            })
        })
        .flatten();
    let what = setting.or(option)?;
    Some(format!(
        "`git … {what}` copies a template folder's hooks into .git/hooks, where git runs them"
    ))
}

/// `git update-index` options that only refresh the index's file
/// information (what `git status` does itself): every other option sets
/// what git takes as unchanged, or writes entries.
const UPDATE_INDEX_REFRESH: [&str; 7] = [
    "--refresh",
    "--really-refresh",
    "-q",
    "--ignore-missing",
    "--unmerged",
    "--ignore-submodules",
    "--verbose",
];

/// Why `git ARGS` changes what later checks of the work tree see (PERM-7,
/// round8 #11), and the file it writes: `git update-index` in any form but
/// a refresh (`--assume-unchanged`, `--skip-worktree`, `--fsmonitor-valid`
/// and their `--no-` forms hide a file's changes from `git status`/`git
/// diff`, and so from a proof that checks them; `--cacheinfo`/`--index-info`
/// write entries the work tree does not hold), and `git sparse-checkout`
/// in any form but `list`/`check-rules` (it marks files skip-worktree and
/// takes them out of the work tree). git's settings for the same
/// (`core.sparseCheckout`, `index.*`) are `git config` writes, PERM-7 as
/// every one is.
fn git_view_change(args: &[&str]) -> Option<(&'static str, String)> {
    let start = crate::subcommand::git_start(args).ok()??;
    let rest = &args[start + 1..];
    let what = match args[start] {
        "update-index" => {
            let refresh_only =
                !rest.is_empty() && rest.iter().all(|a| UPDATE_INDEX_REFRESH.contains(a));
            if refresh_only {
                return None;
            }
            (
                ".git/index",
                "sets which files git takes as unchanged (`--assume-unchanged`,                  `--skip-worktree`, `--fsmonitor-valid`) or writes index entries: a file's                  changes may then be hidden from `git status`/`git diff` and the checks that                  use them",
            )
        }
        "sparse-checkout" => {
            let first = rest.iter().find(|a| !a.starts_with('-')).copied();
            if matches!(first, Some("list" | "check-rules")) {
                return None;
            }
            (
                ".git/info/sparse-checkout",
                "marks files skip-worktree and takes them out of the work tree: their changes                  are hidden from `git status`/`git diff` and the checks that use them",
            )
        }
        _ => return None,
    };
    Some((
        what.0,
        format!(
            "`git {}` {} (ploy's own protections: what later checks see)",
            rest.iter()
                .fold(args[start].to_string(), |line, a| format!("{line} {a}")),
            what.1
        ),
    ))
}

/// Tools whose `config` command writes their configuration file, which
/// names programs they run or where they fetch code from (npm's
/// `script-shell`/`node-options`, yarn's `yarnPath`, pip's index, gh's
/// editor and pager, Bundler's gem path): any `config` action other than a
/// read arms code for the user's next ordinary command (round7 #5).
const CONFIG_TOOLS: [(&str, &str); 10] = [
    ("npm", ".npmrc"),
    ("pnpm", ".npmrc"),
    ("yarn", ".yarnrc.yml"),
    ("bun", "bunfig.toml"),
    ("pip", "pip.conf"),
    ("pip3", "pip.conf"),
    ("poetry", "poetry.toml"),
    ("conda", ".condarc"),
    ("gh", "gh/config.yml"),
    ("bundle", ".bundle/config"),
];

/// `config` actions that only read.
const CONFIG_READS: [&str; 11] = [
    "get", "list", "ls", "show", "view", "--get", "--list", "-l", "--show", "debug", "--help",
];

/// Tool commands that arm code the project holds, or a git hook, for the
/// user's next ordinary command (round7 #5): program, its words, the file
/// it writes or arms, and what runs.
const ARMING: [(&str, &[&str], &str, &str); 16] = [
    (
        "npm",
        &["set"],
        ".npmrc",
        "npm's configuration names programs every npm command runs",
    ),
    (
        "pnpm",
        &["set"],
        ".npmrc",
        "pnpm's configuration names programs pnpm runs",
    ),
    (
        "yarn",
        &["set"],
        ".yarnrc.yml",
        "`yarn set version` installs a yarn release the project's `yarnPath` runs",
    ),
    (
        "yarn",
        &["plugin"],
        ".yarn/plugins",
        "a yarn plugin runs in every yarn command",
    ),
    (
        "pre-commit",
        &["install"],
        ".git/hooks/pre-commit",
        "the installed git hook runs `.pre-commit-config.yaml`'s hooks at every commit",
    ),
    (
        "pre-commit",
        &["init-templatedir"],
        ".git/hooks",
        "git copies the template's hooks into every new repository",
    ),
    (
        "prek",
        &["install"],
        ".git/hooks/pre-commit",
        "the installed git hook runs the project's hooks at every commit",
    ),
    (
        "husky",
        &[],
        ".husky",
        "husky points git's `core.hooksPath` at `.husky`, whose files run at every commit",
    ),
    (
        "direnv",
        &["allow"],
        ".envrc",
        "direnv runs the allowed `.envrc` at the next `cd` into the project",
    ),
    (
        "direnv",
        &["permit"],
        ".envrc",
        "direnv runs the allowed `.envrc` at the next `cd` into the project",
    ),
    (
        "direnv",
        &["grant"],
        ".envrc",
        "direnv runs the allowed `.envrc` at the next `cd` into the project",
    ),
    (
        "mise",
        &["trust"],
        "mise.toml",
        "mise runs a trusted config's hooks and env scripts",
    ),
    (
        "git",
        &["lfs", "install"],
        ".git/hooks",
        "`git lfs install` writes git hooks and filter programs into git's configuration",
    ),
    (
        "git",
        &["maintenance"],
        ".gitconfig",
        "`git maintenance` writes git's configuration and schedules git to run",
    ),
    (
        "gh",
        &["alias"],
        "gh/config.yml",
        "a gh alias may run a shell command (`--shell`)",
    ),
    (
        "rustup",
        &["toolchain", "link"],
        "rustup toolchains",
        "a linked toolchain runs a folder's programs as cargo and rustc",
    ),
];

/// Agents whose `mcp` command writes the servers they start (`.mcp.json`,
/// `~/.codex/config.toml`, `~/.gemini/settings.json`), and whose `config`
/// command may set their hooks.
const AGENT_CLIS: [&str; 6] = [
    "claude",
    "codex",
    "gemini",
    "opencode",
    "cursor-agent",
    "qwen",
];

/// Why `name args…` writes or arms configuration that runs code on the
/// user's next ordinary command (PERM-7, round7 #5), and the file it
/// writes: `<tool> config <any write>`, `npm set`, `pre-commit install`,
/// `husky`, `direnv allow`, `mise trust`, `git lfs install`, `claude mcp
/// add`, … Operands are matched after the tool's options.
fn armed_config(name: &str, args: &[&str]) -> Option<(&'static str, String)> {
    // The command word (after the tool's options), canonical for npm's
    // aliases and abbreviations (`npm c set`), then the operands after it.
    let (at, command) = match name {
        "npm" | "pnpm" => {
            let (starts, _) = crate::subcommand::npm_starts(args);
            match starts
                .iter()
                .find_map(|s| crate::subcommand::npm_command_at(args, *s).map(|c| (*s, c)))
            {
                Some(found) => found,
                None => (0, args.first().copied().unwrap_or_default()),
            }
        }
        "git" => {
            let sub = git_subcommand(args)?;
            (args.iter().position(|a| *a == sub).unwrap_or(0), sub)
        }
        _ => match args.iter().position(|a| !a.starts_with('-')) {
            Some(i) => (i, args[i]),
            None => (0, ""),
        },
    };
    let words: Vec<&str> = std::iter::once(command)
        .chain(
            args.iter()
                .skip(at + 1)
                .copied()
                .filter(|a| !a.starts_with('-')),
        )
        .filter(|w| !w.is_empty())
        .collect();
    let first = words.first().copied();
    if let Some((_, file)) = CONFIG_TOOLS.iter().find(|(tool, _)| *tool == name)
        && first == Some("config")
    {
        // `conda config --set k v` writes; `--get`/`--show` alone reads.
        let option_write = args.iter().any(|a| {
            [
                "--set",
                "--add",
                "--append",
                "--prepend",
                "--remove",
                "--remove-key",
            ]
            .contains(a)
        });
        let option_read = args.iter().any(|a| CONFIG_READS.contains(a));
        let action = words.get(1).copied().unwrap_or("list");
        if option_write || !(option_read || CONFIG_READS.contains(&action)) {
            return Some((
                file,
                format!(
                    "`{name} config {action} …` writes {name}'s configuration ({file}), which \
                     names programs {name} runs or where it fetches code: it arms code for the \
                     user's next ordinary command"
                ),
            ));
        }
    }
    if AGENT_CLIS.contains(&name)
        && matches!(
            first,
            Some("mcp" | "config" | "plugin" | "plugins" | "extensions")
        )
        && !words
            .get(1)
            .is_some_and(|a| ["list", "get", "ls", "show", "serve"].contains(a))
    {
        return Some((
            ".mcp.json",
            format!(
                "`{name} {} …` changes the MCP servers, plugins or settings {name} starts or \
                 runs (`.mcp.json`, the user's agent configuration)",
                words.join(" ")
            ),
        ));
    }
    ARMING.iter().find_map(|(tool, prefix, file, what)| {
        (*tool == name && words.len() >= prefix.len() && words[..prefix.len()] == **prefix).then(
            || {
                (
                    *file,
                    format!(
                        "`{name} {}` arms code for the user's next ordinary command: {what}",
                        args.join(" ")
                    ),
                )
            },
        )
    })
}

/// Why `name args…` writes the files a patch names (`git apply`, `git am`,
/// `patch`): the write set is in a file ploy does not read, and a patch
/// creates any path, `.claude/settings.json` included (PERM-7, round7
/// #12). Forms that only check or show a patch are not writes.
fn patch_applier(name: &str, args: &[&str]) -> Option<String> {
    let writes = match name {
        "patch" => !args
            .iter()
            .any(|a| *a == "--dry-run" || *a == "-C" || *a == "--check"),
        "git" => match git_subcommand(args) {
            Some("apply") => {
                let shows = args
                    .iter()
                    .any(|a| ["--check", "--stat", "--numstat", "--summary"].contains(a));
                !shows || args.contains(&"--apply")
            }
            Some("am") => !args
                .iter()
                .any(|a| ["--abort", "--quit", "--show-current-patch", "--skip"].contains(a)),
            _ => false,
        },
        _ => false,
    };
    writes.then(|| {
        format!(
            "`{name} {}` writes the files a patch names (any path, ploy's own files and other \
             agents' resources included), which ploy does not read from the line",
            args.join(" ")
        )
    })
}

/// The recursive copies `name args…` makes, as (source, target) pairs:
/// `cp -r|-R|-a` and `rsync -r|-a` (the last operand is the target, or
/// `-t DIR`), remote `host:path` words left out.
fn recursive_copies(name: &str, args: &[&str]) -> Vec<(String, String)> {
    let (values, recursive_letters): (&[&str], &str) = match name {
        "cp" => (&["-t", "--target-directory", "-S", "--suffix"], "rRa"),
        "rsync" => (
            &[
                "-e",
                "--rsh",
                "-f",
                "--filter",
                "--exclude",
                "--include",
                "--exclude-from",
                "--include-from",
                "--files-from",
                "-T",
                "--temp-dir",
                "-B",
                "--block-size",
                "--backup-dir",
                "--suffix",
                "--chmod",
                "--chown",
                "--log-file",
                "--compare-dest",
                "--copy-dest",
                "--link-dest",
                "--partial-dir",
                "--timeout",
                "--port",
                "--password-file",
                "-M",
                "--remote-option",
                "--out-format",
                "--max-size",
                "--min-size",
                "--bwlimit",
            ],
            "ra",
        ),
        _ => return Vec::new(),
    };
    let mut recursive = false;
    let mut target_dir: Option<&str> = None;
    let mut operands: Vec<&str> = Vec::new();
    let mut i = 0;
    let mut options_end = false;
    while i < args.len() {
        let arg = args[i];
        i += 1;
        if options_end || arg == "-" || !arg.starts_with('-') {
            operands.push(arg);
            continue;
        }
        if arg == "--" {
            options_end = true;
            continue;
        }
        let option = arg.split('=').next().unwrap_or_default();
        if matches!(option, "--recursive" | "--archive") {
            recursive = true;
        } else if values.contains(&option) {
            let value = if arg.contains('=') {
                arg.split_once('=').map(|(_, v)| v)
            } else {
                i += 1;
                args.get(i - 1).copied()
            };
            if matches!(option, "-t" | "--target-directory") {
                target_dir = value;
            }
        } else if !arg.starts_with("--") {
            let cluster = &arg[1..];
            if cluster.chars().any(|c| recursive_letters.contains(c)) {
                recursive = true;
            }
            // `-tDIR`: the target folder glued to its letter.
            if name == "cp"
                && let Some(at) = cluster.find('t')
                && at + 1 < cluster.len()
            {
                target_dir = Some(&cluster[at + 1..]);
            }
        }
    }
    if !recursive {
        return Vec::new();
    }
    let (sources, target) = match target_dir {
        Some(dir) => (operands.as_slice(), dir),
        None => match operands.split_last() {
            Some((target, sources)) if !sources.is_empty() => (sources, *target),
            _ => return Vec::new(),
        },
    };
    let remote = |w: &str| w.split('/').next().is_some_and(|first| first.contains(':'));
    if remote(target) {
        return Vec::new();
    }
    sources
        .iter()
        .filter(|s| !remote(s))
        .map(|s| (s.to_string(), target.to_string()))
        .collect()
}

/// True when `variable` may be set by `line`: named anywhere in its text or
/// in a word's value (quotes removed), or a builtin that sets variables is
/// given a name computed at run time (`printf -v "$v"`, `read "$v"`).
fn names_variable(line: &str, summary: &CommandLine, variable: &str) -> bool {
    if line.contains(variable) || line.contains("${!") {
        return true;
    }
    summary.commands.iter().any(|command| {
        let assigned = command
            .assignments
            .iter()
            .any(|a| a.name.contains(variable) || text_of(&a.value).contains(variable));
        let args = || command.program.iter().chain(command.args.iter());
        let named = args().any(|w| text_of(w).contains(variable));
        assigned || named || sets_computed_name(command)
    })
}

/// A builtin that sets variables given a name computed at run time
/// (`printf -v "$v"`, `read "$v"`, `export "$v=…"`): it may set any variable.
fn sets_computed_name(command: &SimpleCommand) -> bool {
    let computed = |raw: &str| raw.contains('$') || raw.contains('`');
    let name = command.program_basename().unwrap_or_default();
    let raws: Vec<&str> = command.args.iter().map(|a| a.raw.as_str()).collect();
    match name {
        "printf" => raws.iter().enumerate().any(|(i, raw)| {
            (*raw == "-v" && raws.get(i + 1).is_some_and(|n| computed(n)))
                || raw
                    .strip_prefix("-v")
                    .is_some_and(|n| !n.is_empty() && computed(n))
        }),
        _ if DECLARERS.contains(&name) => raws
            .iter()
            .any(|raw| computed(raw.split('=').next().unwrap_or_default())),
        _ if NAME_TAKERS.contains(&name) => raws.iter().any(|raw| computed(raw)),
        _ => false,
    }
}

/// bash does not look a `cd` operand up in `CDPATH` when it starts with
/// `/`, or is `.`/`..` or starts with `./`/`../`.
fn cdpath_ignores(dir: &str) -> bool {
    dir.starts_with('/')
        || matches!(dir, "." | "..")
        || dir.starts_with("./")
        || dir.starts_with("../")
}
