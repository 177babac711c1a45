//! Which file a host `Bash` line's bare command names run (round7 #15).
//!
//! ploy judges `ls` as the system's `ls`. Claude Code's `Bash` runs the
//! line on the host, where bash looks a bare name up in `PATH`, in order:
//! an entry that is empty, `.` or relative (`bin`, `node_modules/.bin`)
//! names the working folder, an absolute entry inside the project is the
//! project, a temporary folder is anyone's (`ploy_dirs::unsafe_path_entry`).
//! A file there — the repository's, or one a page got an earlier edit to
//! write — runs instead of the program the rules judged. So when such an
//! entry comes before the program's own location (or the name resolves to
//! a file in the project), or the line changes `PATH` or bash's command
//! table itself, the call asks (PERM-7), whatever the allow rules say.
//!
//! The `PATH` is the hook's own: Claude Code starts its hooks and its
//! `Bash` tool from the same environment. What a shell start-up file adds to
//! `PATH` for the `Bash` tool is not seen (docs/hook.md).

use std::path::{Path, PathBuf};

use ploy_policy::{Action, ActionKind};

/// bash's `PATH` when none is set (its built-in default ends with `.`).
pub const BASH_DEFAULT_PATH: &str =
    "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.";

/// bash's builtins and keywords: never looked up in `PATH`.
const NOT_LOOKED_UP: &[&str] = &[
    ".",
    ":",
    "[",
    "[[",
    "]]",
    "{",
    "}",
    "!",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "case",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "coproc",
    "declare",
    "dirs",
    "disown",
    "do",
    "done",
    "echo",
    "elif",
    "else",
    "enable",
    "esac",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "fi",
    "for",
    "function",
    "getopts",
    "hash",
    "help",
    "history",
    "if",
    "in",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "select",
    "set",
    "shift",
    "shopt",
    "source",
    "test",
    "then",
    "time",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "until",
    "wait",
    "while",
];

/// Why a host line's bare command may run another file than the one judged
/// (PERM-7, round7 #15), or `None`. `path` is the `PATH` the line runs
/// under (`None`: unset, bash's default); `project` the project root and
/// `cwd` the folder the line starts in (relative entries are resolved
/// there).
pub fn path_question(
    action: &Action,
    line: &str,
    path: Option<&str>,
    project: &Path,
    cwd: &Path,
) -> Option<String> {
    if let Some(why) = changes_lookup(line) {
        return Some(format!(
            "{why}: a bare command name may then run a file the project holds instead of the \
             program ploy judged (round7 #15)"
        ));
    }
    let path = path.unwrap_or(BASH_DEFAULT_PATH);
    let mut seen: Vec<&str> = Vec::new();
    for unit in action.units() {
        if unit.kind != ActionKind::Shell {
            continue;
        }
        let Some(name) = program_as_written(unit.label()) else {
            continue;
        };
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        if let Some(why) = lookup_question(name, path, project, cwd) {
            return Some(why);
        }
    }
    None
}

/// The program a command unit's text starts with, when bash looks it up in
/// `PATH` (a bare name, not a builtin or keyword), after `NAME=value`
/// assignments.
fn program_as_written(text: &str) -> Option<&str> {
    let program = text.split(' ').find(|word| !is_assignment(word))?;
    let looked_up =
        !program.is_empty() && !program.contains('/') && !NOT_LOOKED_UP.contains(&program);
    looked_up.then_some(program)
}

fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Walk `path` for `name` as bash does: the question when an unsafe entry
/// comes before the first entry holding the program (or no entry holds it,
/// so an unsafe one may get it later), or when the program found is a file
/// of the project (a link into it).
fn lookup_question(name: &str, path: &str, project: &Path, cwd: &Path) -> Option<String> {
    for entry in path.split(':') {
        let why = ploy_dirs::unsafe_path_entry(entry, project)
            .or_else(|| ploy_dirs::unsafe_path_entry(entry, cwd))
            .or_else(|| {
                // An absolute entry that is a link into the project.
                let real = std::fs::canonicalize(entry).ok()?;
                ploy_dirs::unsafe_path_entry(&real.to_string_lossy(), project)
            });
        if let Some(why) = why {
            let shown = if entry.is_empty() { "(empty)" } else { entry };
            return Some(format!(
                "`{name}` is looked up in PATH, where `{shown}` ({why}) comes before the \
                 program ploy judged: a file the project holds there would run instead (round7 \
                 #15); take that entry out of PATH, or name the program by its full path"
            ));
        }
        let candidate = Path::new(entry).join(name);
        if is_executable(&candidate) {
            let real = std::fs::canonicalize(&candidate).unwrap_or(candidate.clone());
            if ploy_dirs::unsafe_path_entry(&real.to_string_lossy(), project).is_some() {
                return Some(format!(
                    "`{name}` is found in PATH at `{}`, which is the project's file `{}`: the \
                     project's program would run, not the one ploy judged (round7 #15)",
                    candidate.display(),
                    real.display()
                ));
            }
            return None;
        }
    }
    None
}

fn is_executable(path: &PathBuf) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Why a line changes where bash finds its programs, if it does: it names
/// `PATH` as a variable it sets (an assignment, `export`, `declare`,
/// `read`, `printf -v`, `for`, … anything but a `$PATH` read), or gives
/// bash a program's location itself (`hash -p`), or loads a builtin from a
/// file (`enable -f`).
fn changes_lookup(line: &str) -> Option<&'static str> {
    let bytes = line.as_bytes();
    let mut at = 0;
    while let Some(found) = line[at..].find("PATH") {
        let start = at + found;
        let end = start + 4;
        at = end;
        let before = start.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(end).copied();
        let word_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        if before.is_some_and(word_char) || after.is_some_and(word_char) {
            continue;
        }
        // `$PATH` and `${PATH…}` only read it.
        let read = before == Some(b'$')
            || (before == Some(b'{') && start >= 2 && bytes[start - 2] == b'$');
        if !read {
            return Some("the line sets `PATH`");
        }
    }
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        let option = pair[1].trim_matches(['"', '\'']);
        let is_option = |letter: char| {
            option.starts_with('-') && !option.starts_with("--") && option.contains(letter)
        };
        if pair[0] == "hash" && is_option('p') {
            return Some("the line gives bash a program's location itself (`hash -p`)");
        }
        if pair[0] == "enable" && is_option('f') {
            return Some("the line loads a bash builtin from a file (`enable -f`)");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_as_bash_looks_them_up() {
        assert_eq!(program_as_written("ls -la"), Some("ls"));
        assert_eq!(program_as_written("A=1 B+=2 make all"), Some("make"));
        assert_eq!(program_as_written("./bin/ls"), None);
        assert_eq!(program_as_written("/usr/bin/ls"), None);
        assert_eq!(program_as_written("echo hi"), None);
        assert_eq!(program_as_written("cd src"), None);
        assert_eq!(program_as_written("A=1"), None);
    }

    // proves: PERM-7 (round7 #15: a line that changes PATH or bash's
    // command table)
    #[test]
    fn lines_that_change_the_lookup_are_seen() {
        for line in [
            "PATH=bin:$PATH ls",
            "export PATH=.:$PATH; ls",
            "PATH+=:bin ls",
            "declare -x PATH=bin",
            "read PATH < f; ls",
            "printf -v PATH %s bin; ls",
            "for PATH in bin; do ls; done",
            "env PATH=bin ls",
            "hash -p ./x ls; ls",
            "enable -f ./x.so ls",
        ] {
            assert!(changes_lookup(line).is_some(), "{line}");
        }
        for line in [
            "echo $PATH",
            "echo \"${PATH}\" ${PATH%%:*}",
            "ls MYPATH=1",
            "echo PATHS",
            "hash ls",
            "enable -n kill",
        ] {
            assert_eq!(changes_lookup(line), None, "{line}");
        }
    }
}
