//! What a simple command reads (PERM-1, PERM-2): the `read` side of the
//! shell judge.
//!
//! The read rules (the built-in `read ask` for `.env`, `*.pem`, … and any
//! user rule) must hold for a command line as they hold for the `read` tool,
//! or `cat .env` under an allow rule for `cat *` hands the file to the model
//! (outside attack on the agent, #2). So every simple command gets a *read
//! set*, judged as `read` units by `Permission::assert`:
//!
//! * a program this table knows as a reader: every operand (and the value
//!   glued to an option or after `=`), over-reading on purpose: a pattern or
//!   an option value judged as a path is a harmless extra `read` unit;
//! * a recursive reader (`grep -r`, `rg`, `cp -r`, `tar`, …): also every
//!   guarded project file below each operand (`.` when it names none);
//! * a program known to read no file content by its operands (`echo`, `ls`,
//!   `mkdir`, a wrapper whose wrapped command is judged on its own): nothing;
//! * any other program (`cargo`, `python`, a script, a computed name): it may
//!   read anything, so every guarded file of the project is in its read set.
//!
//! Allowlist thinking: only the names below are believed; everything else is
//! read as "may read every file".

use ploy_shell::Word;

/// Programs that read no file *content* through their operands (names,
/// metadata, or nothing at all). Wrappers are here too: the command they
/// wrap is judged on its own.
const NO_CONTENT: &[&str] = &[
    "echo", "printf", "true", "false", ":", "pwd", "date", "sleep", "mkdir", "rmdir", "touch",
    "rm", "test", "[", "cd", "pushd", "popd", "dirs", "type", "which", "ls", "stat", "du", "tree",
    "realpath", "readlink", "basename", "dirname", "chmod", "chown", "chgrp", "kill", "export",
    "unset", "set", "exit", "return", "shift", "local", "seq", "whoami", "id", "uname", "hostname",
    "mktemp", "yes", "wait", "umask", "read", "tr", "tee", "find", "nproc", "printenv", "env",
    "command", "builtin", "exec", "nohup", "setsid", "time", "unbuffer", "nice", "timeout",
    "xargs", "sudo", "doas", "stdbuf", "ionice", "chrt", "taskset", "watch", "eval",
];

/// Programs that read the files named by their operands and nothing else.
const READERS: &[&str] = &[
    "cat",
    "tac",
    "head",
    "tail",
    "less",
    "more",
    "most",
    "nl",
    "od",
    "xxd",
    "hexdump",
    "hd",
    "strings",
    "base64",
    "base32",
    "basenc",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "wc",
    "file",
    "sort",
    "uniq",
    "cut",
    "paste",
    "join",
    "comm",
    "cmp",
    "fold",
    "fmt",
    "pr",
    "rev",
    "expand",
    "unexpand",
    "iconv",
    "column",
    "jq",
    "yq",
    "bat",
    "batcat",
    "sed",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "dd",
    "split",
    "csplit",
    "shuf",
    "look",
    "zcat",
    "zless",
    "zmore",
    "bzcat",
    "xzcat",
    "zstdcat",
    "gzip",
    "gunzip",
    "bzip2",
    "bunzip2",
    "xz",
    "unxz",
    "zstd",
    "unzstd",
    "lz4",
    "install",
    "truncate",
    "dos2unix",
    "unix2dos",
    "patch",
    "ed",
    "source",
    ".",
    "view",
];

/// Programs that read operands as folders, recursively, whatever their flags.
const ALWAYS_RECURSIVE: &[&str] = &[
    "rg", "ag", "ack", "tar", "zip", "7z", "rsync", "scp", "mv", "ln", "cpio", "pax",
];

/// Programs that read recursively only with a flag (`-r`, `-R`, `-a`, `--recursive`).
const RECURSIVE_WITH_FLAG: &[&str] = &["grep", "egrep", "fgrep", "zgrep", "cp", "diff"];

/// Options that make a recursive reader take its file list from a file or
/// from standard input: what it reads is then unknown.
const LIST_FROM_INPUT: &[&str] = &[
    "-T",
    "--files-from",
    "--files-from0",
    "--include-from",
    "-@",
    "--names-stdin",
];

/// git subcommands that print no file content of the work tree or the
/// index, whatever their options (round7 #4: the ones with an option that
/// prints a patch, or opens an editor on one, are [`GIT_OPTION_TABLES`]).
const GIT_NO_CONTENT: &[&str] = &[
    "branch",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "describe",
    "remote",
    "check-ignore",
    "init",
    "rm",
    "mv",
    "switch",
    "fetch",
    "pull",
    "push",
    "clone",
];

/// The options of one git subcommand known to print no file content
/// (round7 #4; allowlist: any other option may print a patch, as `git
/// status -v`, `git commit --dry-run -v`, `git add -p` do).
struct GitOptions {
    /// Short letters that take no value (`-s`, clusters `-sb`).
    flags: &'static str,
    /// Short letters whose value is the rest of the cluster or the next word.
    values: &'static str,
    /// Short letters whose value may only be glued (`-uno`).
    glued: &'static str,
    /// Long options without a value, or with an `=value`.
    long: &'static [&'static str],
    /// Long options that take a value (`=value` or the next word).
    long_values: &'static [&'static str],
    /// Options (short letter or long) whose value is a file git reads
    /// (`commit -F FILE`): a read of that file.
    files: &'static [&'static str],
}

/// Options of `git status`, `commit`, `add`, `checkout`, `restore`, `reset`,
/// `stash push` known to print no file content.
const GIT_OPTION_TABLES: &[(&str, GitOptions)] = &[
    (
        "status",
        GitOptions {
            flags: "sbz",
            values: "",
            glued: "u",
            long: &[
                "--short",
                "--branch",
                "--porcelain",
                "--long",
                "--show-stash",
                "--untracked-files",
                "--ignored",
                "--ignore-submodules",
                "--column",
                "--no-column",
                "--ahead-behind",
                "--no-ahead-behind",
                "--renames",
                "--no-renames",
                "--find-renames",
                "--null",
            ],
            long_values: &[],
            files: &[],
        },
    ),
    (
        "commit",
        GitOptions {
            flags: "aqsnoiz",
            values: "mFC",
            glued: "uS",
            long: &[
                "--all",
                "--quiet",
                "--signoff",
                "--no-signoff",
                "--no-verify",
                "--verify",
                "--amend",
                "--no-edit",
                "--allow-empty",
                "--allow-empty-message",
                "--reset-author",
                "--only",
                "--include",
                "--no-gpg-sign",
                "--gpg-sign",
                "--no-post-rewrite",
                "--null",
                "--untracked-files",
                "--pathspec-file-nul",
            ],
            long_values: &[
                "--message",
                "--file",
                "--reuse-message",
                "--fixup",
                "--squash",
                "--author",
                "--date",
                "--cleanup",
                "--trailer",
                "--pathspec-from-file",
            ],
            files: &["-F", "--file", "--pathspec-from-file"],
        },
    ),
    (
        "add",
        GitOptions {
            flags: "AufnvN",
            values: "",
            glued: "",
            long: &[
                "--all",
                "--update",
                "--force",
                "--dry-run",
                "--verbose",
                "--intent-to-add",
                "--ignore-errors",
                "--ignore-missing",
                "--renormalize",
                "--no-all",
                "--ignore-removal",
                "--no-ignore-removal",
                "--refresh",
                "--sparse",
                "--chmod",
                "--pathspec-file-nul",
                "--no-warn-embedded-repo",
            ],
            long_values: &["--pathspec-from-file"],
            files: &["--pathspec-from-file"],
        },
    ),
    (
        "checkout",
        GitOptions {
            flags: "qfmtl",
            values: "bB",
            glued: "",
            long: &[
                "--quiet",
                "--force",
                "--merge",
                "--detach",
                "--ours",
                "--theirs",
                "--track",
                "--no-track",
                "--guess",
                "--no-guess",
                "--progress",
                "--no-progress",
                "--overwrite-ignore",
                "--no-overwrite-ignore",
                "--ignore-other-worktrees",
                "--recurse-submodules",
                "--no-recurse-submodules",
                "--ignore-skip-worktree-bits",
                "--pathspec-file-nul",
                "--conflict",
                "--overlay",
                "--no-overlay",
            ],
            long_values: &["--orphan", "--pathspec-from-file"],
            files: &["--pathspec-from-file"],
        },
    ),
    (
        "restore",
        GitOptions {
            flags: "qWS",
            values: "s",
            glued: "",
            long: &[
                "--staged",
                "--worktree",
                "--ours",
                "--theirs",
                "--merge",
                "--conflict",
                "--ignore-unmerged",
                "--overlay",
                "--no-overlay",
                "--quiet",
                "--progress",
                "--no-progress",
                "--recurse-submodules",
                "--no-recurse-submodules",
                "--ignore-skip-worktree-bits",
                "--pathspec-file-nul",
            ],
            long_values: &["--source", "--pathspec-from-file"],
            files: &["--pathspec-from-file"],
        },
    ),
    (
        "reset",
        GitOptions {
            flags: "qN",
            values: "",
            glued: "",
            long: &[
                "--soft",
                "--mixed",
                "--hard",
                "--merge",
                "--keep",
                "--quiet",
                "--no-quiet",
                "--refresh",
                "--no-refresh",
                "--recurse-submodules",
                "--no-recurse-submodules",
                "--intent-to-add",
                "--pathspec-file-nul",
            ],
            long_values: &["--pathspec-from-file"],
            files: &["--pathspec-from-file"],
        },
    ),
    (
        "stash push",
        GitOptions {
            flags: "uakqS",
            values: "m",
            glued: "",
            long: &[
                "--include-untracked",
                "--no-include-untracked",
                "--all",
                "--keep-index",
                "--no-keep-index",
                "--quiet",
                "--staged",
                "--pathspec-file-nul",
            ],
            long_values: &["--message", "--pathspec-from-file"],
            files: &["--pathspec-from-file"],
        },
    ),
    (
        "tag",
        GitOptions {
            flags: "asfdlv",
            values: "muF",
            glued: "n",
            long: &[
                "--annotate",
                "--sign",
                "--no-sign",
                "--force",
                "--delete",
                "--verify",
                "--list",
                "--no-column",
                "--column",
                "--create-reflog",
                "--ignore-case",
                "--omit-empty",
            ],
            long_values: &[
                "--message",
                "--file",
                "--local-user",
                "--cleanup",
                "--sort",
                "--format",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "--trailer",
            ],
            files: &["-F", "--file"],
        },
    ),
];

/// Stat-only options of `git stash show` (without one, `stash.showPatch`
/// in the user's configuration may make it print the patch).
const GIT_STAT_OPTIONS: &[&str] = &[
    "--stat",
    "--name-only",
    "--name-status",
    "--numstat",
    "--shortstat",
    "--summary",
    "--dirstat",
    "--compact-summary",
];

/// `git stash` subcommands that print no file content.
const GIT_STASH_QUIET: &[&str] = &["pop", "apply", "drop", "clear", "branch", "create", "store"];

/// grep's options that take their value as the next word.
const GREP_VALUE_OPTIONS: &[&str] = &[
    "-A",
    "-B",
    "-C",
    "-D",
    "-d",
    "-e",
    "-f",
    "-m",
    "--after-context",
    "--before-context",
    "--context",
    "--devices",
    "--directories",
    "--regexp",
    "--file",
    "--max-count",
    "--label",
    "--include",
    "--exclude",
    "--exclude-from",
    "--exclude-dir",
    "--binary-files",
    "--group-separator",
];

/// ripgrep's (and ag's) options that take their value as the next word.
const RG_VALUE_OPTIONS: &[&str] = &[
    "-A",
    "-B",
    "-C",
    "-E",
    "-M",
    "-T",
    "-e",
    "-f",
    "-g",
    "-j",
    "-m",
    "-r",
    "-t",
    "-d",
    "-G",
    "--after-context",
    "--before-context",
    "--context",
    "--encoding",
    "--max-columns",
    "--type-not",
    "--regexp",
    "--file",
    "--glob",
    "--iglob",
    "--threads",
    "--max-count",
    "--replace",
    "--type",
    "--colors",
    "--color",
    "--context-separator",
    "--field-context-separator",
    "--field-match-separator",
    "--max-depth",
    "--maxdepth",
    "--depth",
    "--max-filesize",
    "--path-separator",
    "--pre",
    "--pre-glob",
    "--sort",
    "--sortr",
    "--type-add",
    "--type-clear",
    "--engine",
    "--dfa-size-limit",
    "--regex-size-limit",
    "--ignore-file",
    "--file-search-regex",
    "--ignore-dir",
];

/// One project file whose `read` the rules do not allow outright (an ask or
/// a deny), as the caller found it on disk ([`crate::ShellFacts::guarded`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardedFile {
    /// Where it sits, project-relative and `/`-separated (`sub/.env`; for a
    /// symbolic link, the link's own path).
    pub location: String,
    /// The path whose read is guarded, as `read` rules see it: the same
    /// path, or (a link) the path it points to.
    pub judged: String,
}

/// The read set of one simple command, by its program's basename.
#[derive(Debug)]
pub(crate) enum Reads<'w> {
    /// Reads no file content named by its operands.
    Nothing,
    /// Reads these words as paths; `recursive`: below them too.
    Words {
        /// Every word that may name a file read.
        words: Vec<&'w Word>,
        /// The command walks folders named by `words`.
        recursive: bool,
        /// It also reads the current folder (a recursive search with no
        /// folder named: `grep -r x`, `rg x`).
        current_folder: bool,
    },
    /// Reads what ploy cannot tell (the reason, for the notes).
    Unknown(String),
}

fn text_of(word: &Word) -> &str {
    word.value.as_deref().unwrap_or(&word.raw)
}

/// The read set of `name args…` (`name`: the program's basename, `None`
/// when it is computed at run time).
pub(crate) fn reads_of<'w>(name: Option<&str>, args: &[&'w Word]) -> Reads<'w> {
    let Some(name) = name else {
        return Reads::Unknown("its program name is computed at run time".into());
    };
    let texts: Vec<&str> = args.iter().map(|w| text_of(w)).collect();
    let all = || args.to_vec();
    if name == "git" {
        return git_reads(args, &texts);
    }
    if NO_CONTENT.contains(&name) {
        return Reads::Nothing;
    }
    let recursive_flag = RECURSIVE_WITH_FLAG.contains(&name) && has_recursive_flag(name, &texts);
    let recursive = ALWAYS_RECURSIVE.contains(&name) || recursive_flag;
    if recursive && texts.iter().any(|t| list_from_input(t)) {
        return Reads::Unknown(format!(
            "`{name}` takes the list of files it reads from input"
        ));
    }
    if READERS.contains(&name) || recursive || RECURSIVE_WITH_FLAG.contains(&name) {
        let current_folder = match name {
            "rg" | "ag" | "ack" => search_names_no_folder(&texts, RG_VALUE_OPTIONS, name),
            _ if recursive_flag && name != "cp" && name != "diff" => {
                search_names_no_folder(&texts, GREP_VALUE_OPTIONS, name)
            }
            _ => false,
        };
        return Reads::Words {
            words: all(),
            recursive,
            current_folder,
        };
    }
    Reads::Unknown(format!(
        "`{name}` is not a program whose reads ploy knows; it may read any file"
    ))
}

fn list_from_input(text: &str) -> bool {
    LIST_FROM_INPUT
        .iter()
        .any(|o| text == *o || text.starts_with(&format!("{o}=")))
}

fn git_reads<'w>(args: &[&'w Word], texts: &[&str]) -> Reads<'w> {
    let start = match crate::subcommand::git_start(texts) {
        Ok(Some(start)) => start,
        Ok(None) => return Reads::Nothing,
        Err(why) => return Reads::Unknown(format!("{why}; it may print any file")),
    };
    let sub = texts[start];
    let rest = &texts[start + 1..];
    let rest_words = &args[start + 1..];
    let may_print = |what: &str| {
        Reads::Unknown(format!(
            "`git {sub}{what}` may print the content of any file in the project"
        ))
    };
    match sub {
        "log" | "shortlog" | "reflog" => match rest.iter().find(|t| git_prints_patches(t)) {
            Some(option) => may_print(&format!(" {option}")),
            None => Reads::Nothing,
        },
        "stash" => {
            let at = rest.iter().position(|t| !t.starts_with('-'));
            match at.map(|i| rest[i]) {
                None | Some("push" | "save") => {
                    let from = at.map_or(0, |i| i + 1);
                    let table = git_table("stash push");
                    git_options(sub, table, &rest[from..], &rest_words[from..])
                }
                Some("list") => match rest.iter().find(|t| git_prints_patches(t)) {
                    Some(option) => may_print(&format!(" list {option}")),
                    None => Reads::Nothing,
                },
                Some("show") => {
                    let stat = rest.iter().any(|t| {
                        GIT_STAT_OPTIONS
                            .iter()
                            .any(|o| *t == *o || t.starts_with(&format!("{o}=")))
                    });
                    match rest.iter().find(|t| git_prints_patches(t)) {
                        Some(option) => may_print(&format!(" show {option}")),
                        None if stat => Reads::Nothing,
                        None => Reads::Unknown(
                            "`git stash show` without `--stat` may print the stash's patch \
                             (`stash.showPatch`), any file of the project included"
                                .into(),
                        ),
                    }
                }
                Some(quiet) if GIT_STASH_QUIET.contains(&quiet) => Reads::Nothing,
                Some(other) => may_print(&format!(" {other}")),
            }
        }
        "commit"
            if !rest.iter().any(|t| {
                t.strip_prefix('-')
                    .is_some_and(|c| !c.starts_with('-') && c.contains(['m', 'F', 'C']))
                    || [
                        "--message",
                        "--file",
                        "--reuse-message",
                        "--no-edit",
                        "--fixup",
                    ]
                    .iter()
                    .any(|o| t.starts_with(o))
            }) =>
        {
            Reads::Unknown(
                "`git commit` with no message opens an editor on a template that may hold \
                 the staged changes (`commit.verbose`), any file of the project included"
                    .into(),
            )
        }
        _ if GIT_NO_CONTENT.contains(&sub) => Reads::Nothing,
        _ => match git_table(sub) {
            Some(table) => git_options(sub, Some(table), rest, rest_words),
            None => may_print(""),
        },
    }
}

fn git_table(name: &str) -> Option<&'static GitOptions> {
    GIT_OPTION_TABLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| t)
}

/// The read set of `git SUB` whose options are in `table` (round7 #4):
/// nothing, the files a file option names, or every file (an option not in
/// the table may print a patch: `-v`, `-p`, `--dry-run`, an abbreviation).
fn git_options<'w>(
    sub: &str,
    table: Option<&GitOptions>,
    rest: &[&str],
    words: &[&'w Word],
) -> Reads<'w> {
    let Some(table) = table else {
        return Reads::Unknown(format!("`git {sub}` may print the content of any file"));
    };
    let unknown = |option: &str| {
        Reads::Unknown(format!(
            "`git {sub} {option}` may print the content of any file in the project (an option \
             ploy does not know to print none: a patch, a diff, an editor's template)"
        ))
    };
    let mut files: Vec<&'w Word> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let arg = rest[i];
        i += 1;
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, _)) => (format!("--{name}"), true),
                None => (arg.to_string(), false),
            };
            if table.long.contains(&name.as_str()) {
                continue;
            }
            if !table.long_values.contains(&name.as_str()) {
                return unknown(arg);
            }
            let value_at = if inline { i - 1 } else { i };
            if table.files.contains(&name.as_str())
                && let Some(word) = words.get(value_at)
            {
                files.push(word);
            }
            if !inline {
                i += 1;
            }
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, letter) in cluster.char_indices() {
                if table.flags.contains(letter) {
                    continue;
                }
                let glued = &cluster[at + letter.len_utf8()..];
                if table.glued.contains(letter) {
                    break;
                }
                if !table.values.contains(letter) {
                    return unknown(arg);
                }
                let value_at = if glued.is_empty() { i } else { i - 1 };
                if table.files.contains(&format!("-{letter}").as_str())
                    && let Some(word) = words.get(value_at)
                {
                    files.push(word);
                }
                if glued.is_empty() {
                    i += 1;
                }
                break;
            }
        }
    }
    if files.is_empty() {
        Reads::Nothing
    } else {
        Reads::Words {
            words: files,
            recursive: false,
            current_folder: false,
        }
    }
}

/// A `git log` option that prints file content (patches).
fn git_prints_patches(text: &str) -> bool {
    [
        "-p",
        "-u",
        "-U",
        "--patch",
        "-L",
        "--word-diff",
        "--cc",
        "--color-words",
        "--full-diff",
        "--textconv",
        "--ext-diff",
        "--remerge-diff",
        "--diff-merges",
        "-m",
        "-c",
        "--stat-with-patch",
        // Pickaxe searches answer whether a string is in a file's history:
        // `git log -S sk_live_5 --oneline` finds a secret a guess at a time.
        "-S",
        "-G",
        "--pickaxe",
    ]
    .iter()
    .any(|o| text.starts_with(o))
}

/// `-r`, `-R`, `-a` (cp), `--recursive`, `--dereference-recursive`,
/// `--archive`, `-d recurse`, `--directories=recurse`, or a short-option
/// cluster holding `r`/`R` (over-reading `-e` glued patterns is harmless).
fn has_recursive_flag(name: &str, texts: &[&str]) -> bool {
    texts.iter().enumerate().any(|(i, t)| {
        matches!(
            *t,
            "--recursive" | "--dereference-recursive" | "--archive" | "--directories=recurse"
        ) || (*t == "-d" || *t == "--directories")
            && texts.get(i + 1).is_some_and(|v| *v == "recurse")
            || (t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].chars().any(|c| {
                    c == 'r'
                        || c == 'R'
                        || (name == "cp" && c == 'a')
                        || (name == "diff" && c == 'N')
                }))
    })
}

/// For a recursive search (`grep -r`, `rg`): true when no word names a
/// folder or file to search, so it searches the current folder. The first
/// operand is the pattern unless `-e`/`-f` gives it; words after an option
/// that takes a value are that value. An option not known to take no value
/// is assumed to take none (the list above is each tool's manual).
fn search_names_no_folder(texts: &[&str], value_options: &[&str], name: &str) -> bool {
    let mut operands = 0usize;
    let mut pattern_given = false;
    let mut files_mode = false;
    let mut i = 0;
    while i < texts.len() {
        let t = texts[i];
        if t == "--" {
            operands += texts.len() - i - 1;
            break;
        }
        if t.starts_with('-') && t.len() > 1 {
            if matches!(t, "-e" | "-f" | "--regexp" | "--file")
                || t.starts_with("--regexp=")
                || t.starts_with("--file=")
            {
                pattern_given = true;
            }
            if matches!(t, "--files" | "-l" | "--files-with-matches") && name == "rg" {
                files_mode |= t == "--files";
            }
            if value_options.contains(&t) {
                i += 2;
                continue;
            }
            // A short cluster ending in a value option (`-ie PATTERN`).
            if !t.starts_with("--")
                && let Some(last) = t.chars().last()
                && value_options.contains(&format!("-{last}").as_str())
                && t.len() > 2
            {
                if last == 'e' || last == 'f' {
                    pattern_given = true;
                }
                i += 2;
                continue;
            }
            i += 1;
            continue;
        }
        operands += 1;
        i += 1;
    }
    let pattern_words = usize::from(!pattern_given && !files_mode);
    operands <= pattern_words
}

/// True when `name` (a glob component, bash's default options) may match
/// a name starting with `.`: only when it starts with `.` itself, or
/// `dotglob` is on.
pub(crate) fn component_matches(pattern: &str, name: &str, dot_globs: bool) -> bool {
    // extglob forms globset does not speak: may match anything.
    if ["@(", "!(", "+(", "?(", "*("]
        .iter()
        .any(|form| pattern.contains(form))
    {
        return true;
    }
    if name.starts_with('.') && !pattern.starts_with('.') && !pattern.starts_with('[') && !dot_globs
    {
        return false;
    }
    match globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
    {
        Ok(glob) => glob.compile_matcher().is_match(name),
        // Not understood: may match anything (fail closed).
        Err(_) => true,
    }
}

/// True when the glob `pattern` (project-relative, `/`-separated) matches
/// `location`, or (for a recursive reader) one of its parent folders.
pub(crate) fn glob_reaches(
    pattern: &str,
    location: &str,
    recursive: bool,
    dot_globs: bool,
) -> bool {
    let pattern: Vec<&str> = pattern
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let location: Vec<&str> = location.split('/').collect();
    let fits = if recursive {
        location.len() >= pattern.len()
    } else {
        location.len() == pattern.len()
    };
    fits && pattern
        .iter()
        .zip(&location)
        .all(|(p, l)| component_matches(p, l, dot_globs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        let summary = ploy_shell::analyze(line);
        summary.commands[0].args.clone()
    }

    fn current(line: &str) -> bool {
        let summary = ploy_shell::analyze(line);
        let command = &summary.commands[0];
        let args: Vec<&Word> = command.args.iter().collect();
        match reads_of(command.program_basename(), &args) {
            Reads::Words { current_folder, .. } => current_folder,
            other => panic!("{line}: {other:?}"),
        }
    }

    // proves: PERM-2 (a recursive search with no folder reads the current one)
    #[test]
    fn searches_without_a_folder_read_the_current_one() {
        for line in [
            "grep -r KEY",
            "grep -rn -A 3 KEY",
            "grep -r --context 2 KEY",
            "grep -r -e KEY -e OTHER",
            "grep -R -ie KEY",
            "rg KEY",
            "rg -g .env KEY",
            "rg --files",
            "rg -uu -r X KEY",
        ] {
            assert!(current(line), "{line}");
        }
        for line in ["grep -r KEY src", "rg KEY src", "grep -r -e KEY src"] {
            assert!(!current(line), "{line}");
        }
    }

    // proves: PERM-2 (unknown programs may read anything)
    #[test]
    fn unknown_programs_and_git_content_are_unknown() {
        for (name, line) in [
            ("python3", "x.py"),
            ("cargo", "test"),
            ("git", "show HEAD:.env"),
            ("git", "-C . diff"),
            ("tar", "-T list -cf a.tar"),
        ] {
            let w = words(&format!("{name} {line}"));
            let args: Vec<&Word> = w.iter().collect();
            assert!(
                matches!(reads_of(Some(name), &args), Reads::Unknown(_)),
                "{name} {line}"
            );
        }
        assert!(matches!(reads_of(None, &[]), Reads::Unknown(_)));
        assert!(matches!(reads_of(Some("git"), &[]), Reads::Nothing));
    }

    #[test]
    fn globs_follow_bash_dot_rules() {
        assert!(glob_reaches(".e*", ".env", false, false));
        assert!(!glob_reaches("*", ".env", false, false));
        assert!(glob_reaches("*", ".env", false, true));
        assert!(glob_reaches("*", "sub/.env", true, false));
        assert!(!glob_reaches("*", "sub/.env", false, false));
        assert!(glob_reaches("s*/.env", "sub/.env", false, false));
        assert!(glob_reaches("./.e?v", ".env", false, false));
        assert!(glob_reaches("[.]env", ".env", false, false));
        assert!(glob_reaches("@(.env|x)", ".env", false, false));
    }
}
