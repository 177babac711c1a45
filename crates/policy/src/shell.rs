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
//! not parse. Wrappers (`env`, `xargs`, `sudo`, `timeout`, `nice`, `find
//! -exec`, …) add a unit for the wrapped command: both must be allowed, and a
//! deny on either denies. Strings run by `eval` / `sh -c` are analysed too, so
//! deny rules see inside them.

use ploy_shell::{CommandLine, RedirectOp, SimpleCommand, Word};

use crate::action::{Action, ActionKind, KindSet, MatchUnit, Target, push_path_units};
use crate::path::{Placement, ProjectRoot};

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
const NAME_CHANGERS: [&str; 6] = ["alias", "unalias", "trap", "enable", "hash", "shopt"];

struct Builder<'r> {
    root: &'r ProjectRoot,
    kinds: KindSet,
    units: Vec<MatchUnit>,
    notes: Vec<String>,
}

impl Action {
    /// Run a shell command line. `root` is the project root the command runs in.
    pub fn shell(tool: impl Into<String>, line: &str, root: &ProjectRoot) -> Self {
        let mut builder = Builder {
            root,
            kinds: KindSet::EMPTY,
            units: Vec::new(),
            notes: Vec::new(),
        };
        builder.kinds.insert(ActionKind::Shell);
        builder.line(line, 0, None);
        Self {
            tool: tool.into(),
            target: Target::Command(line.to_string()),
            kinds: builder.kinds,
            units: builder.units,
            notes: builder.notes,
        }
    }
}

fn text_of(word: &Word) -> &str {
    word.value.as_deref().unwrap_or(&word.raw)
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
            self.notes.push(format!(
                "{why}: classified as shell + edit + external_directory"
            ));
            for kind in [
                ActionKind::Shell,
                ActionKind::Edit,
                ActionKind::ExternalDirectory,
            ] {
                self.blocked_unit(kind, line, &why);
            }
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
            }
            Some(shell) if SHELLS.contains(&shell) => {
                let why = format!("{shell} runs a script or string the policy cannot match");
                self.push_command_unit(
                    assignments,
                    words,
                    Some(blocker.clone().unwrap_or_else(|| why.clone())),
                );
                if let Some(script) = shell_c_string(args) {
                    self.line(text_of(script), depth + 1, Some(&why));
                }
                return;
            }
            _ => {}
        }
        self.push_command_unit(assignments, words, blocker.clone());
        if let Some(name) = name {
            match inner_command(name, args) {
                Inner::Words(start) => {
                    let inner = &args[start..];
                    if !inner.is_empty() {
                        self.command_words(&[], inner, depth + 1, blocker.as_deref());
                    }
                }
                Inner::Unknown(why) => {
                    let text: Vec<&str> = args.iter().map(|w| text_of(w)).collect();
                    self.blocked_unit(ActionKind::Shell, &text.join(" "), &why);
                }
                Inner::None => {}
            }
            if name == "find" {
                for (start, end) in find_exec_ranges(args) {
                    let inner = &args[start..end];
                    if !inner.is_empty() {
                        self.command_words(&[], inner, depth + 1, blocker.as_deref());
                    }
                }
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
            let mut bare: Vec<&str> = vec![base];
            bare.extend(words[1..].iter().map(|w| text_of(w)));
            let bare = bare.join(" ");
            if !unit.candidates.contains(&bare) {
                unit.deny_candidates.push(bare);
            }
        }
        self.units.push(unit);
    }

    fn redirect(&mut self, op: RedirectOp, writes: bool, target: &Word) {
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
                push_path_units(
                    &mut self.kinds,
                    &mut self.units,
                    &mut self.notes,
                    ActionKind::Edit,
                    path,
                    self.root,
                );
            }
            Some(path) => self.outside_path(path),
            None => {
                let why = format!("redirect target `{}` is computed at run time", target.raw);
                if writes {
                    self.blocked_unit(ActionKind::Edit, &target.raw, &why);
                }
                self.blocked_unit(ActionKind::ExternalDirectory, &target.raw, &why);
            }
        }
    }

    /// A word that may be a path: outside the project → `external_directory`.
    fn path_word(&mut self, word: &Word) {
        let flags = &word.flags;
        let computed = flags.parameter_expansion
            || flags.command_substitution
            || flags.backticks
            || flags.arithmetic_expansion
            || flags.ansi_c
            || flags.locale_string
            || flags.brace_expansion
            || flags.tilde
            || flags.process_substitution;
        if computed {
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

/// Absolute, home-relative, or climbing out with `..`: worth placing.
fn looks_like_escape(text: &str) -> bool {
    text.starts_with('/')
        || text.starts_with('~')
        || text == ".."
        || text.starts_with("../")
        || text.contains("/../")
        || text.ends_with("/..")
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

enum Inner {
    /// The wrapped command starts at this argument index.
    Words(usize),
    /// It wraps something this analysis cannot see.
    Unknown(String),
    /// Not a wrapper.
    None,
}

/// Where a wrapper's command starts among its arguments.
fn inner_command(name: &str, args: &[&Word]) -> Inner {
    // (options that take a separate value, number of positional values before the command)
    let (with_value, positionals): (&[&str], usize) = match name {
        "env" => {
            if args.iter().any(|w| {
                let t = text_of(w);
                t == "-S"
                    || t.starts_with("--split-string")
                    || (t.starts_with("-S") && !t.starts_with("--"))
            }) {
                return Inner::Unknown("env -S splits a string into a command".into());
            }
            (&["-u", "--unset", "-C", "--chdir"], 0)
        }
        "command" | "builtin" | "exec" | "nohup" | "setsid" | "time" | "unbuffer" => {
            (&["-a", "-f", "-o"], 0)
        }
        "nice" => (&["-n", "--adjustment"], 0),
        "timeout" => (&["-s", "--signal", "-k", "--kill-after"], 1),
        "xargs" => (
            &[
                "-a",
                "--arg-file",
                "-d",
                "--delimiter",
                "-E",
                "-e",
                "-I",
                "-i",
                "-L",
                "-l",
                "-n",
                "--max-args",
                "-P",
                "--max-procs",
                "-s",
                "--max-chars",
            ],
            0,
        ),
        "sudo" | "doas" => (
            &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"],
            0,
        ),
        "stdbuf" => (&["-i", "-o", "-e"], 0),
        "ionice" => (&["-c", "-n", "-p", "-P", "-u"], 0),
        "chrt" => (&["-p"], 1),
        "taskset" => (&[], 1),
        "flock" => (&["-w", "--timeout", "-E", "--conflict-exit-code"], 1),
        "watch" => (&["-n", "--interval", "-d"], 0),
        "strace" | "ltrace" => (&["-e", "-o", "-p", "-s", "-u", "-E"], 0),
        _ => return Inner::None,
    };
    let mut i = 0;
    let mut positional_left = positionals;
    while i < args.len() {
        let text = text_of(args[i]);
        if text == "--" {
            i += 1;
            break;
        }
        if text.starts_with('-') && text.len() > 1 {
            i += if with_value.contains(&text) { 2 } else { 1 };
            continue;
        }
        if name == "env" && text.contains('=') {
            i += 1;
            continue;
        }
        if positional_left > 0 {
            positional_left -= 1;
            i += 1;
            continue;
        }
        break;
    }
    if positional_left > 0 && i < args.len() {
        // `timeout -- 5 rm x`: the duration comes after `--`.
        i += positional_left;
    }
    Inner::Words(i.min(args.len()))
}

/// `find … -exec CMD … ;` (also `-execdir`, `-ok`, `-okdir`, ended by `;` or `+`).
fn find_exec_ranges(args: &[&Word]) -> Vec<(usize, usize)> {
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
