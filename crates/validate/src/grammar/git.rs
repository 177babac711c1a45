//! `git`, read-only: `diff`, `status`, `log`, `show`, `ls-files`, `grep`.
//! Exact option names only (git abbreviates long options, so `--ext` would
//! be `--ext-diff`: anything not written in full is refused), long values
//! glued with `=`. Options that make git start another program
//! (`--ext-diff`, `--textconv`, `--show-signature`, `-O`), write a file
//! (`--output`) or read outside the repository (`--no-index`, `-C`,
//! `--git-dir`, `-c`) are refused.

use super::options::{Arg, GIT, Item, Long, Short, Table, long, short};
use super::{
    At, Ctx, Facts, Rule, Use, Val, has, join, operands, read_options, values, zero_count,
};
use crate::vacuity::Cond;
use crate::{PROOF_2, PROOF_3, PROOF_5};

const NO: Arg = Arg::No;
const REQ: Arg = Arg::Required;
const OPT: Arg = Arg::Optional;

const RUNS: &str = "makes git start a program named in its configuration";

/// Options shared by the commands that show diffs (`diff`, `log`, `show`).
const DIFF_LONGS: &[Long] = &[
    long("patch", NO, "p"),
    long("no-patch", NO, "s"),
    long("stat", OPT, "stat"),
    long("numstat", NO, "numstat"),
    long("shortstat", NO, "shortstat"),
    long("summary", NO, "summary"),
    long("raw", NO, "raw"),
    long("name-only", NO, "name-only"),
    long("name-status", NO, "name-status"),
    long("check", NO, "check"),
    long("no-color", NO, "no-color"),
    long("color", OPT, "color"),
    long("ignore-all-space", NO, "w"),
    long("ignore-space-change", NO, "b"),
    long("ignore-space-at-eol", NO, "ignore-space-at-eol"),
    long("ignore-cr-at-eol", NO, "ignore-cr-at-eol"),
    long("ignore-blank-lines", NO, "ignore-blank-lines"),
    long("unified", OPT, "U"),
    long("no-ext-diff", NO, "no-ext-diff"),
    long("no-textconv", NO, "no-textconv"),
    long("no-renames", NO, "no-renames"),
    long("diff-filter", REQ, "diff-filter"),
    long("minimal", NO, "minimal"),
    long("text", NO, "a"),
    long("ext-diff", NO, "ext-diff"),
    long("textconv", NO, "textconv"),
    long("output", REQ, "output"),
    long("no-index", NO, "no-index"),
    long("relative", OPT, "relative"),
];

const DIFF_SHORTS: &[Short] = &[
    short('p', NO, "p"),
    short('u', NO, "p"),
    short('s', NO, "s"),
    short('w', NO, "w"),
    short('b', NO, "b"),
    short('U', OPT, "U"),
    short('z', NO, "z"),
    short('R', NO, "R"),
    short('a', NO, "a"),
    short('O', REQ, "O"),
];

const DIFF_RULES: &[Rule] = &[
    ("p", Use::Flag),
    ("s", Use::Flag),
    ("stat", Use::Value(Val::Text)),
    ("numstat", Use::Flag),
    ("shortstat", Use::Flag),
    ("summary", Use::Flag),
    ("raw", Use::Flag),
    ("name-only", Use::Flag),
    ("name-status", Use::Flag),
    ("check", Use::Flag),
    ("no-color", Use::Flag),
    (
        "color",
        Use::Value(Val::Choice(&["never", "always", "auto"])),
    ),
    ("w", Use::Flag),
    ("b", Use::Flag),
    ("ignore-space-at-eol", Use::Flag),
    ("ignore-cr-at-eol", Use::Flag),
    ("ignore-blank-lines", Use::Flag),
    ("U", Use::Value(Val::Count)),
    ("no-ext-diff", Use::Flag),
    ("no-textconv", Use::Flag),
    ("no-renames", Use::Flag),
    ("diff-filter", Use::Value(Val::Text)),
    ("minimal", Use::Flag),
    ("a", Use::Flag),
    ("z", Use::Flag),
    ("R", Use::Flag),
    ("ext-diff", Use::No(PROOF_2, RUNS)),
    ("textconv", Use::No(PROOF_2, RUNS)),
    (
        "output",
        Use::No(PROOF_2, "writes a file; a proof writes no file"),
    ),
    (
        "no-index",
        Use::No(PROOF_3, "compares paths outside the repository"),
    ),
    (
        "O",
        Use::No(PROOF_3, "reads an order file the validator cannot check"),
    ),
    ("relative", Use::No(PROOF_2, "is not needed in a proof")),
];

// ---- diff ----------------------------------------------------------------

const DIFF_ONLY_LONGS: &[Long] = &[
    long("quiet", NO, "quiet"),
    long("exit-code", NO, "exit-code"),
    long("cached", NO, "cached"),
    long("staged", NO, "cached"),
];
const DIFF_ALL_LONGS: [Long; 33] = join(DIFF_LONGS, DIFF_ONLY_LONGS);
const DIFF_TABLE: Table = Table {
    syntax: GIT,
    shorts: DIFF_SHORTS,
    longs: &DIFF_ALL_LONGS,
};
const DIFF_ALL_RULES: [Rule; 35] = join(
    DIFF_RULES,
    &[
        ("quiet", Use::Flag),
        ("exit-code", Use::Flag),
        ("cached", Use::Flag),
    ],
);

// ---- log / show --------------------------------------------------------

const LOG_ONLY_LONGS: &[Long] = &[
    long("oneline", NO, "oneline"),
    long("max-count", REQ, "n"),
    long("skip", REQ, "skip"),
    long("format", REQ, "format"),
    long("pretty", OPT, "format"),
    long("grep", REQ, "grep"),
    long("author", REQ, "author"),
    long("committer", REQ, "committer"),
    long("since", REQ, "date-limit"),
    long("until", REQ, "date-limit"),
    long("after", REQ, "date-limit"),
    long("before", REQ, "date-limit"),
    long("all", NO, "all"),
    long("no-merges", NO, "no-merges"),
    long("merges", NO, "merges"),
    long("first-parent", NO, "first-parent"),
    long("follow", NO, "follow"),
    long("reverse", NO, "reverse"),
    long("regexp-ignore-case", NO, "i"),
    long("extended-regexp", NO, "E"),
    long("fixed-strings", NO, "F"),
    long("invert-grep", NO, "invert-grep"),
    long("all-match", NO, "all-match"),
    long("no-decorate", NO, "no-decorate"),
    long("abbrev-commit", NO, "abbrev-commit"),
    long("date", REQ, "date"),
    long("quiet", NO, "quiet"),
    long("show-signature", NO, "show-signature"),
];
const LOG_LONGS: [Long; 57] = join(DIFF_LONGS, LOG_ONLY_LONGS);
const LOG_ONLY_SHORTS: &[Short] = &[
    short('n', REQ, "n"),
    short('i', NO, "i"),
    short('E', NO, "E"),
    short('F', NO, "F"),
];
const LOG_SHORTS: [Short; 14] = join(DIFF_SHORTS, LOG_ONLY_SHORTS);
const LOG_TABLE: Table = Table {
    syntax: GIT,
    shorts: &LOG_SHORTS,
    longs: &LOG_LONGS,
};
const LOG_ONLY_RULES: &[Rule] = &[
    ("oneline", Use::Flag),
    ("n", Use::Value(Val::Count)),
    ("skip", Use::Value(Val::Count)),
    ("format", Use::Value(Val::Text)),
    ("grep", Use::Value(Val::Pattern)),
    ("author", Use::Value(Val::Pattern)),
    ("committer", Use::Value(Val::Pattern)),
    ("date-limit", Use::Value(Val::Text)),
    ("all", Use::Flag),
    ("no-merges", Use::Flag),
    ("merges", Use::Flag),
    ("first-parent", Use::Flag),
    ("follow", Use::Flag),
    ("reverse", Use::Flag),
    ("i", Use::Flag),
    ("E", Use::Flag),
    ("F", Use::Flag),
    ("invert-grep", Use::Flag),
    ("all-match", Use::Flag),
    ("no-decorate", Use::Flag),
    ("abbrev-commit", Use::Flag),
    ("date", Use::Value(Val::Text)),
    ("quiet", Use::Flag),
    (
        "show-signature",
        Use::No(PROOF_2, "runs gpg to check signatures"),
    ),
];
const LOG_RULES: [Rule; 56] = join(DIFF_RULES, LOG_ONLY_RULES);

// ---- status ----------------------------------------------------------

const STATUS_TABLE: Table = Table {
    syntax: GIT,
    shorts: &[
        short('s', NO, "s"),
        short('b', NO, "b"),
        short('u', OPT, "u"),
        short('z', NO, "z"),
    ],
    longs: &[
        long("short", NO, "s"),
        long("branch", NO, "b"),
        long("porcelain", OPT, "porcelain"),
        long("long", NO, "long"),
        long("untracked-files", OPT, "u"),
        long("ignored", OPT, "ignored"),
        long("no-renames", NO, "no-renames"),
        long("ignore-submodules", OPT, "ignore-submodules"),
        long("show-stash", NO, "show-stash"),
        long("ahead-behind", NO, "ahead-behind"),
        long("no-ahead-behind", NO, "ahead-behind"),
    ],
};
const STATUS_RULES: &[Rule] = &[
    ("s", Use::Flag),
    ("b", Use::Flag),
    ("z", Use::Flag),
    (
        "porcelain",
        Use::Value(Val::Choice(&["v1", "v2", "1", "2"])),
    ),
    ("long", Use::Flag),
    ("u", Use::Value(Val::Choice(&["no", "normal", "all"]))),
    (
        "ignored",
        Use::Value(Val::Choice(&["traditional", "no", "matching"])),
    ),
    ("no-renames", Use::Flag),
    (
        "ignore-submodules",
        Use::Value(Val::Choice(&["none", "untracked", "dirty", "all"])),
    ),
    ("show-stash", Use::Flag),
    ("ahead-behind", Use::Flag),
];

// ---- ls-files --------------------------------------------------------

const LS_FILES_TABLE: Table = Table {
    syntax: GIT,
    shorts: &[
        short('c', NO, "c"),
        short('m', NO, "m"),
        short('d', NO, "d"),
        short('o', NO, "o"),
        short('i', NO, "i"),
        short('s', NO, "s"),
        short('u', NO, "u"),
        short('k', NO, "k"),
        short('t', NO, "t"),
        short('z', NO, "z"),
        short('x', REQ, "x"),
        short('X', REQ, "X"),
    ],
    longs: &[
        long("error-unmatch", NO, "error-unmatch"),
        long("cached", NO, "c"),
        long("modified", NO, "m"),
        long("deleted", NO, "d"),
        long("others", NO, "o"),
        long("ignored", NO, "i"),
        long("stage", NO, "s"),
        long("unmerged", NO, "u"),
        long("killed", NO, "k"),
        long("exclude-standard", NO, "exclude-standard"),
        long("full-name", NO, "full-name"),
        long("directory", NO, "directory"),
        long("no-empty-directory", NO, "no-empty-directory"),
        long("exclude", REQ, "x"),
        long("exclude-from", REQ, "X"),
    ],
};
const LS_FILES_RULES: &[Rule] = &[
    ("error-unmatch", Use::Flag),
    ("c", Use::Flag),
    ("m", Use::Flag),
    ("d", Use::Flag),
    ("o", Use::Flag),
    ("i", Use::Flag),
    ("s", Use::Flag),
    ("u", Use::Flag),
    ("k", Use::Flag),
    ("t", Use::Flag),
    ("z", Use::Flag),
    ("exclude-standard", Use::Flag),
    ("full-name", Use::Flag),
    ("directory", Use::Flag),
    ("no-empty-directory", Use::Flag),
    ("x", Use::Value(Val::Pattern)),
    ("X", Use::Value(Val::Path)),
];

// ---- grep ----------------------------------------------------------------

const GREP_TABLE: Table = Table {
    syntax: GIT,
    shorts: &[
        short('q', NO, "q"),
        short('e', REQ, "e"),
        short('f', REQ, "f"),
        short('i', NO, "i"),
        short('w', NO, "w"),
        short('v', NO, "v"),
        short('n', NO, "n"),
        short('l', NO, "l"),
        short('L', NO, "L"),
        short('c', NO, "c"),
        short('E', NO, "E"),
        short('F', NO, "F"),
        short('G', NO, "G"),
        short('P', NO, "P"),
        short('h', NO, "h"),
        short('H', NO, "H"),
        short('I', NO, "I"),
        short('a', NO, "a"),
        short('r', NO, "r"),
        short('z', NO, "z"),
        short('o', NO, "o"),
        short('m', REQ, "m"),
        short('A', REQ, "A"),
        short('B', REQ, "B"),
        short('C', REQ, "C"),
        short('O', OPT, "O"),
    ],
    longs: &[
        long("quiet", NO, "q"),
        long("ignore-case", NO, "i"),
        long("word-regexp", NO, "w"),
        long("invert-match", NO, "v"),
        long("line-number", NO, "n"),
        long("files-with-matches", NO, "l"),
        long("name-only", NO, "l"),
        long("files-without-match", NO, "L"),
        long("count", NO, "c"),
        long("extended-regexp", NO, "E"),
        long("fixed-strings", NO, "F"),
        long("basic-regexp", NO, "G"),
        long("perl-regexp", NO, "P"),
        long("text", NO, "a"),
        long("recursive", NO, "r"),
        long("null", NO, "z"),
        long("only-matching", NO, "o"),
        long("max-count", REQ, "m"),
        long("max-depth", REQ, "max-depth"),
        long("cached", NO, "cached"),
        long("untracked", NO, "untracked"),
        long("exclude-standard", NO, "exclude-standard"),
        long("no-exclude-standard", NO, "no-exclude-standard"),
        long("and", NO, "and"),
        long("or", NO, "or"),
        long("not", NO, "not"),
        long("all-match", NO, "all-match"),
        long("threads", REQ, "threads"),
        long("no-index", NO, "no-index"),
        long("open-files-in-pager", OPT, "O"),
    ],
};
const GREP_RULES: &[Rule] = &[
    ("q", Use::Flag),
    ("e", Use::Value(Val::Pattern)),
    ("f", super::grep::PATTERN_FILE),
    ("i", Use::Flag),
    ("w", Use::Flag),
    ("v", Use::Flag),
    ("n", Use::Flag),
    ("l", Use::Flag),
    ("L", Use::Flag),
    ("c", Use::Flag),
    ("E", Use::Flag),
    ("F", Use::Flag),
    ("G", Use::Flag),
    ("P", Use::Flag),
    ("h", Use::Flag),
    ("H", Use::Flag),
    ("I", Use::Flag),
    ("a", Use::Flag),
    ("r", Use::Flag),
    ("z", Use::Flag),
    ("o", Use::Flag),
    ("m", Use::Value(Val::Count)),
    ("A", Use::Value(Val::Count)),
    ("B", Use::Value(Val::Count)),
    ("C", Use::Value(Val::Count)),
    ("max-depth", Use::Value(Val::Count)),
    ("cached", Use::Flag),
    ("untracked", Use::Flag),
    ("exclude-standard", Use::Flag),
    ("no-exclude-standard", Use::Flag),
    ("and", Use::Flag),
    ("or", Use::Flag),
    ("not", Use::Flag),
    ("all-match", Use::Flag),
    ("threads", Use::Value(Val::Count)),
    (
        "no-index",
        Use::No(PROOF_3, "searches files outside the repository's index"),
    ),
    (
        "O",
        Use::No(PROOF_2, "opens the matching files in a pager program"),
    ),
];

/// Whether a `--format`/`--pretty` value prints nothing but line breaks
/// (`--format=`, `--pretty=format:`, `tformat:%n`).
fn empty_format(format: &str) -> bool {
    user_format(format).is_some_and(|body| body.replace("%n", "").is_empty())
}

/// git's own format names (`--pretty=NAME`), which print each commit's id.
const BUILTIN_FORMATS: &[&str] = &[
    "oneline",
    "short",
    "medium",
    "full",
    "fuller",
    "reference",
    "email",
    "mboxrd",
    "raw",
];

/// The placeholder text of a `--format`/`--pretty` value that git reads as
/// a format of its own (`format:…`, `tformat:…`, anything with `%`, and
/// the empty value); `None` for a format name.
fn user_format(value: &str) -> Option<&str> {
    value
        .strip_prefix("format:")
        .or_else(|| value.strip_prefix("tformat:"))
        .or_else(|| (value.is_empty() || value.contains('%')).then_some(value))
}

/// Whether a user format prints something that depends on the repository
/// (round8 #1c): a commit's ids, names, dates, message, references or
/// trailers. Everything else git's format language has prints the same
/// text for every commit of every repository: `%n`, `%%`, `%x20`, colours
/// (`%Cred`, `%C(…)`), layout (`%w(…)`, `%<(…)`, `%>|(…)`), the marks `%m`,
/// reflog fields (empty without `-g`), a lone modifier (`%+`), and literal
/// text. One modifier (`+`, `-`, ` `) may stand before a placeholder.
fn format_varies(body: &str) -> bool {
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            i += 1;
            continue;
        }
        i += 1;
        if matches!(chars.get(i), Some('+' | '-' | ' ')) {
            i += 1;
        }
        let rest: String = chars[i..].iter().take(12).collect();
        let person = |c: Option<&char>| {
            matches!(
                c,
                Some(
                    'n' | 'N'
                        | 'e'
                        | 'E'
                        | 'l'
                        | 'L'
                        | 'd'
                        | 'D'
                        | 'r'
                        | 't'
                        | 'i'
                        | 'I'
                        | 's'
                        | 'h'
                )
            )
        };
        match chars.get(i) {
            Some('H' | 'h' | 'T' | 't' | 'P' | 'p' | 'd' | 'D' | 's' | 'f' | 'b' | 'B') => {
                return true;
            }
            Some('a' | 'c') if person(chars.get(i + 1)) => return true,
            Some('(') if rest.starts_with("(trailers") || rest.starts_with("(decorate") => {
                return true;
            }
            // `%C(…)`, `%w(…)`, `%<(…)`, `%>>(…)`: skip the parenthesised
            // argument, which is no placeholder.
            Some('C' | 'w' | '<' | '>') => {
                let open = chars[i..].iter().position(|c| *c == '(');
                let close = chars[i..].iter().position(|c| *c == ')');
                if let (Some(open), Some(close)) = (open, close)
                    && open <= 3
                    && close > open
                {
                    i += close + 1;
                    continue;
                }
                i += 1;
            }
            Some('%') => i += 1,
            _ => {}
        }
    }
    false
}

/// PROOF-2 and PROOF-5 on `--format`/`--pretty` values (round8 #1c). A
/// name git does not ship is looked up as `pretty.NAME` in the
/// repository's configuration, and git abbreviates names too, so only the
/// builtin names written in full are read as names; a user format that
/// prints nothing the repository decides has a fixed output.
fn judge_formats(ctx: &mut Ctx, items: &[Item]) {
    for value in values(items, "format") {
        match user_format(value) {
            None if !BUILTIN_FORMATS.contains(&value) => ctx.refuse(
                PROOF_2,
                format!("`{value}` is not one of git's format names ({}); git would look it up in the repository's configuration (`pretty.{value}`) or read it as an abbreviation; write a name in full or `--format=%h %s`", super::list(BUILTIN_FORMATS)),
            ),
            Some(body) if !body.replace("%n", "").is_empty() && !format_varies(body) => {
                ctx.fixed_lines = Some(
                    "prints only a fixed text for each commit (its format has no placeholder the repository decides: `%h`, `%s`, `%an`, …)",
                );
            }
            _ => {}
        }
    }
}

/// Whether a revision operand stands for a range of commits rather than
/// one (round8 #1d): `A..B`, `A...B`, `^A`, and git's shorthands `A^!`
/// (A without its parents), `A^@` (A's parents, not A) and `A^-N`
/// (`A^N..A`, `A^-` is `A^1..A`).
fn is_range(operand: &str) -> bool {
    if operand.contains("..")
        || operand.starts_with('^')
        || operand.ends_with("^!")
        || operand.ends_with("^@")
    {
        return true;
    }
    operand
        .rfind("^-")
        .is_some_and(|at| operand[at + 2..].bytes().all(|b| b.is_ascii_digit()))
}

/// PROOF-5 (outside attacker's proof5 #10b, #17): under `!`, a git listing
/// must not hide what the project's own files can hide. `.gitignore` (a new
/// one hides itself too) empties `git status` of untracked files unless
/// `--ignored` shows them; `-uno` hides them in the line; `git ls-files`'
/// exclude lists (`-x '*'`, `--exclude-standard`) and `--diff-filter` can
/// select nothing at all.
fn negated_selection(ctx: &mut Ctx, sub: &str, items: &[Item]) {
    let ignored_shown = items.iter().any(
        |i| matches!(i, Item::Opt { id: "ignored", value, .. } if value.as_deref() != Some("no")),
    );
    let untracked_hidden = items
        .iter()
        .any(|i| matches!(i, Item::Opt { id: "u", value: Some(v), .. } if v == "no"));
    let narrowing = items.iter().find_map(|i| match i {
        Item::Opt { id, written, .. }
            if (sub == "ls-files" && matches!(*id, "x" | "X" | "exclude-standard"))
                || (matches!(sub, "diff" | "log" | "show") && *id == "diff-filter") =>
        {
            Some(written.as_str())
        }
        _ => None,
    });
    if sub == "status" && !ignored_shown {
        ctx.refuse(
            PROOF_5,
            "a negated `git status` does not list what `.gitignore` names, and the project can write a `.gitignore` that names everything (itself included), so `! git status … | grep -q .` passes with new files present; add `--ignored` (`-uall --ignored` lists each file)",
        );
    }
    let submodules_hidden = items.iter().find_map(|i| match i {
        Item::Opt {
            id: "ignore-submodules",
            written,
            value,
            ..
        } if value.as_deref() != Some("none") => Some(written.as_str()),
        _ => None,
    });
    if let Some(written) = submodules_hidden {
        ctx.refuse(
            PROOF_5,
            format!("`{written}` hides changes inside submodules, so a negated `git status` passes with them present; leave it out"),
        );
    }
    if matches!(sub, "log" | "show") {
        negated_history(ctx, items);
    }
    if sub == "status" && untracked_hidden {
        ctx.refuse(
            PROOF_5,
            "`-uno` hides new files, so a negated `git status` passes with new files present; leave it out",
        );
    }
    if let Some(written) = narrowing {
        ctx.refuse(
            PROOF_5,
            format!("`{written}` narrows what a negated git listing shows, and it can select nothing (`-x '*'`, a `.gitignore` naming everything, `--diff-filter=X`); then `! git … | grep -q …` passes whatever the project holds; leave it out"),
        );
    }
}

/// PROOF-5 for `git grep` (round6 #7), as for grep and rg: `-m 0`
/// (`--max-count=0`, `-qm0`) stops before the first match, so `! git grep
/// -q -m 0 TODO` passes on a tree full of TODOs. Under `!`, whatever
/// narrows what can match helps the line pass whatever the files hold:
/// `-I` (a NUL byte makes a file binary), `--max-depth` (files deeper are
/// not read), `--cached` (the index, not the work tree), and the pattern
/// algebra `--and`, `--not`, `--all-match`
/// (`-e TODO --and -e zzz` matches nothing); a negated search is one plain
/// pattern or several joined by `--or`.
fn grep_selects_something(ctx: &mut Ctx, items: &[Item], negated: bool) {
    if values(items, "m").any(zero_count) {
        ctx.refuse(
            PROOF_5,
            "`-m 0` (`--max-count=0`) stops before the first match, so it can never find one (and `! git grep -m 0 …` passes whatever the files hold); leave it out",
        );
    }
    if !negated {
        return;
    }
    // By default git grep reads the tracked files only: a new file, or one
    // the project untracks (`git rm --cached`), is never searched, and
    // `--untracked` still skips what `.gitignore` names (a `.gitignore`
    // the project writes can name everything). As `! rg` needs `-uuu`.
    if !(has(items, "untracked") && has(items, "no-exclude-standard")) {
        ctx.refuse(
            PROOF_5,
            "a negated `git grep` reads only the files git tracks (a new or untracked file is never searched) and, with `--untracked`, skips what `.gitignore` names, which the project can write; add `--untracked --no-exclude-standard`, or use `! grep -rq PATTERN DIR`",
        );
    }
    let narrowing = items.iter().find_map(|i| match i {
        Item::Opt { id, written, .. }
            if matches!(
                *id,
                "I" | "max-depth" | "and" | "not" | "all-match" | "cached"
            ) =>
        {
            Some(written.as_str())
        }
        _ => None,
    });
    if let Some(written) = narrowing {
        ctx.refuse(
            PROOF_5,
            format!("`{written}` narrows what a negated `git grep` can match (binary files skipped, folders below a depth, the index instead of the files, patterns that must hold together), so it can match nothing and `! git grep …` passes whatever the files hold; search with plain patterns (`! git grep -q -e TODO -e FIXME`)"),
        );
    }
}

/// PROOF-5 under `!` for `git log` and `git show`: "no commit says x"
/// holds whenever the listing selects no commit, and its filters can
/// select none whatever the history holds: dates (`--since=2999-01-01`),
/// people and messages (`--author=zzz`, `--grep`, `--invert-grep`,
/// `--all-match`), merges (`--merges`, `--no-merges`, `--first-parent`),
/// ranges (`HEAD..HEAD`, `A...B`, `^A`), and paths after `--`
/// (an untracked path has no history). A negated listing reads the whole
/// history or the last commits (`-n N`) of named revisions.
fn negated_history(ctx: &mut Ctx, items: &[Item]) {
    let filter = items.iter().find_map(|i| match i {
        Item::Opt { id, written, .. }
            if matches!(
                *id,
                "date-limit"
                    | "author"
                    | "committer"
                    | "grep"
                    | "invert-grep"
                    | "all-match"
                    | "merges"
                    | "no-merges"
                    | "first-parent"
            ) =>
        {
            Some(written.clone())
        }
        _ => None,
    });
    let range = operands(items)
        .into_iter()
        .find(|(op, after)| *after || is_range(op))
        .map(|(op, after)| {
            if after {
                format!("-- {op}")
            } else {
                op.to_string()
            }
        });
    if let Some(what) = filter.or(range) {
        ctx.refuse(
            PROOF_5,
            format!("`{what}` selects which commits a negated `git log`/`git show` lists, and it can select none (a future date, an author or range with no commit, a path with no history), so `! git log … | grep -q …` passes whatever the history holds; list the history whole or its last commits (`git log -n 20 --format=%s`)"),
        );
    }
}

/// Global options before the subcommand.
fn global(ctx: &mut Ctx, arg: &str) -> bool {
    match arg {
        "--no-pager" | "-P" | "--no-optional-locks" => true,
        "-c" | "--config-env" => {
            ctx.refuse(
                PROOF_2,
                format!(
                    "`{arg}` sets configuration (a pager, an editor, an alias can run any program)"
                ),
            );
            false
        }
        a if a.starts_with("--config-env=") || a.starts_with("-c") => {
            ctx.refuse(
                PROOF_2,
                format!(
                    "`{a}` sets configuration (a pager, an editor, an alias can run any program)"
                ),
            );
            false
        }
        "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => {
            ctx.refuse(
                PROOF_3,
                format!("`{arg}` points git at another folder or repository"),
            );
            false
        }
        a if a.starts_with("-C")
            || a.starts_with("--git-dir=")
            || a.starts_with("--work-tree=")
            || a.starts_with("--namespace=") =>
        {
            ctx.refuse(
                PROOF_3,
                format!("`{a}` points git at another folder or repository"),
            );
            ctx.text(a, "the argument");
            false
        }
        "-p" | "--paginate" => {
            ctx.refuse(PROOF_2, format!("`{arg}` runs a pager program"));
            false
        }
        a if a.starts_with("--exec-path") => {
            ctx.refuse(
                PROOF_2,
                format!("`{a}` makes git run its commands from another folder"),
            );
            false
        }
        a => {
            ctx.refuse(
                PROOF_2,
                format!("`{a}` is not a git option a proof may use (`--no-pager` only)"),
            );
            false
        }
    }
}

const SUBCOMMANDS: &[&str] = &["diff", "status", "log", "show", "ls-files", "grep"];

/// A revision or pathspec operand: no pathspec magic, and any path part
/// (the whole, or after `REV:`) relative and inside the project.
fn check_operand(ctx: &mut Ctx, operand: &str, after_dashdash: bool) {
    if operand.starts_with(':') {
        ctx.refuse(
            PROOF_3,
            format!("`{operand}`: pathspec magic (`:/`, `:(top)`, `:!`) can reach outside the project folder; name the path plainly"),
        );
        return;
    }
    if operand.starts_with('-') && !after_dashdash {
        ctx.refuse(
            PROOF_2,
            format!("`{operand}` is not an option a proof may use"),
        );
        return;
    }
    let path = match operand.split_once(':') {
        Some((_, path)) if !after_dashdash => path,
        _ => operand,
    };
    ctx.path(path, "the path");
}

pub(super) fn git(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        if !global(ctx, arg) {
            return None;
        }
        i += 1;
    }
    let Some(sub) = args.get(i) else {
        ctx.refuse(
            PROOF_2,
            "needs a read-only subcommand: `git diff --quiet`, `git status --porcelain`, …",
        );
        return None;
    };
    let rest = &args[i + 1..];
    ctx.program = format!("git {sub}");
    // `git log -3`: a count written as an option.
    let rest: Vec<String> = if matches!(sub.as_str(), "log" | "show") {
        rest.iter()
            .map(|a| match a.strip_prefix('-') {
                Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                    format!("--max-count={n}")
                }
                _ => a.clone(),
            })
            .collect()
    } else {
        rest.to_vec()
    };
    let (table, rules): (&Table, &[Rule]) = match sub.as_str() {
        "diff" => (&DIFF_TABLE, &DIFF_ALL_RULES),
        "log" | "show" => (&LOG_TABLE, &LOG_RULES),
        "status" => (&STATUS_TABLE, STATUS_RULES),
        "ls-files" => (&LS_FILES_TABLE, LS_FILES_RULES),
        "grep" => (&GREP_TABLE, GREP_RULES),
        other => {
            let what = match other {
                "push" | "fetch" | "pull" | "clone" | "remote" | "submodule" | "ls-remote"
                | "send-email" | "request-pull" => "uses the network",
                "commit" | "add" | "rm" | "mv" | "reset" | "checkout" | "switch" | "restore"
                | "clean" | "stash" | "merge" | "rebase" | "cherry-pick" | "revert" | "tag"
                | "branch" | "config" | "gc" | "init" | "apply" | "am" | "notes" | "worktree"
                | "update-index" | "update-ref" | "filter-branch" | "replace" => {
                    "changes the repository"
                }
                _ => "is not one a proof may use",
            };
            ctx.refuse(
                PROOF_2,
                format!(
                    "the subcommand `{other}` {what}; a proof may use {}",
                    super::list(SUBCOMMANDS)
                ),
            );
            return None;
        }
    };
    let items = read_options(ctx, table, rules, &rest)?;
    // Signature placeholders (`%G?`, `%GS`, …) make git run gpg, and
    // `%(describe)` runs `git describe` as a child process.
    // git allows one modifier between `%` and a placeholder (`%+GG`,
    // `%-GS`, `% (describe)`): it does not change what runs.
    let unmodified = |f: &str| f.replace("%+", "%").replace("%-", "%").replace("% ", "%");
    if values(&items, "format").any(|f| unmodified(f).contains("%G")) {
        ctx.refuse(
            PROOF_2,
            "`%G…` format placeholders verify signatures by running gpg",
        );
    }
    if values(&items, "format").any(|f| unmodified(f).contains("%(describe")) {
        ctx.refuse(
            PROOF_2,
            "`%(describe)` makes git start another git process; not needed in a proof",
        );
    }
    judge_formats(ctx, &items);
    // `git log -n 0` (`-0`, `--max-count=0`) shows no commit at all, a
    // skip past a million commits none in any real repository, and an
    // empty format only empty lines (proof5 #17).
    ctx.silent = has(&items, "quiet")
        || (sub == "grep" && has(&items, "q"))
        || (matches!(sub.as_str(), "log" | "show")
            && (values(&items, "n").any(zero_count)
                || values(&items, "skip").any(super::beyond_any_project)
                || values(&items, "format").any(empty_format)));
    // `git status` prints a branch header whatever the tree holds in the
    // long form and with `-b` (proof5 #17: `git status -sb | grep -q .`
    // passed on a fresh, empty repository).
    if sub == "status"
        && (has(&items, "b")
            || has(&items, "long")
            || !(has(&items, "s") || has(&items, "porcelain")))
    {
        ctx.fixed_lines = Some(
            "prints a branch header whatever the tree holds; use `git status --porcelain` without `-b`",
        );
    }
    if sub == "grep" {
        grep_selects_something(ctx, &items, at.negated);
        super::grep::empty_pattern(ctx, &items, false, super::regex::Flavor::Basic);
    }
    if at.negated {
        negated_selection(ctx, sub, &items);
    }
    // Output shapes only; for `log`, `-n` (a count) is not among them.
    ctx.identify(
        &items,
        &[
            "stat",
            "numstat",
            "shortstat",
            "summary",
            "raw",
            "name-only",
            "name-status",
            "no-color",
            "color",
            "p",
            "s",
            "U",
            "z",
            "oneline",
            "format",
            "abbrev-commit",
            "no-decorate",
            "date",
            "t",
            "full-name",
            "threads",
        ],
        &[("quiet", "exit-code")],
    );
    let ops = operands(&items);
    let mut ops_iter = ops.iter();
    if sub == "grep" && !(has(&items, "e") || has(&items, "f")) {
        // The first operand is the pattern.
        if ops_iter.next().is_none() {
            ctx.refuse(PROOF_2, "needs a pattern: `git grep -q PATTERN`");
            return None;
        }
    }
    for (operand, after) in ops_iter {
        check_operand(ctx, operand, *after);
        // A pathspec that matches no file is a silent "no difference", "no
        // match" or "nothing listed" (proof5 #10c: `git diff --quiet --
        // zzz`, `! git grep -q TODO -- zzz`): it must name a path the
        // project holds. `ls-files` and `status` take pathspecs only.
        // `git grep PATTERN HEAD` searches a commit's tree, which a
        // step's work does not change (`! git grep -q TODO HEAD` passes
        // with TODOs in the work tree): every operand of git grep must be
        // a path the project holds (a name that is both a path and a
        // revision is an error to git).
        if *after || matches!(sub.as_str(), "ls-files" | "status" | "grep") {
            ctx.needed.push(crate::Needed::Path((*operand).to_string()));
        }
    }
    let status = match sub.as_str() {
        "diff" if !(has(&items, "quiet") || has(&items, "exit-code")) => {
            ctx.note = Some("`git diff` exits 0 whatever it finds; add `--quiet` or `--exit-code`");
            Cond::Const(true)
        }
        "status" => {
            ctx.note = Some(
                "`git status` exits 0 in any repository; check its output (`git status --porcelain | grep -q …`) or use `git diff --quiet`",
            );
            Cond::Const(true)
        }
        // `git log --grep=x`, `git log -- path`, `git show`: the filters
        // shape the output, never the status.
        "log" | "show" if !ops.iter().any(|(_, after_dashdash)| !after_dashdash) => {
            ctx.note = Some(
                "`git log` and `git show` exit 0 in any repository with a commit, whatever they find (`--grep`, `--author`, `--since` and paths after `--` filter the output, not the status); name a revision (`git show v1.0`, `git show HEAD:src/main.rs`) or check the output (`git log --oneline | grep -q …`)",
            );
            Cond::Const(true)
        }
        "ls-files" if ops.is_empty() && has(&items, "error-unmatch") => {
            ctx.note = Some(
                "`git ls-files --error-unmatch` with no path has nothing to miss; name the paths",
            );
            Cond::Const(true)
        }
        "diff" if has(&items, "diff-filter") => {
            ctx.note = Some(
                "`--diff-filter` can select no kind of change at all, so the diff finds nothing whatever the project holds; leave it out",
            );
            Cond::Const(true)
        }
        "diff"
            if ops.iter().filter(|(_, after)| !after).count() > 1
                || ops.iter().any(|(op, after)| !after && is_range(op)) =>
        {
            ctx.note = Some(
                "`git diff` between two revisions compares history, which a step's work does not change (and a revision compared with itself always passes); compare the work tree: `git diff --quiet` or `git diff --quiet HEAD -- src`",
            );
            Cond::Const(true)
        }
        "ls-files" if !has(&items, "error-unmatch") => {
            ctx.note = Some("`git ls-files` exits 0 whatever it lists; add `--error-unmatch PATH`");
            Cond::Const(true)
        }
        _ => ctx.outcome(at),
    };
    Some(Facts { status })
}
