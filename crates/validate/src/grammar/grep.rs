//! `grep` (GNU grep 3.8, its option table in order) and `rg` (ripgrep,
//! exact names).

use super::coreutils::HELP_VERSION;
use super::options::{Arg, EXACT, GNU, Item, Short, Table, long, short};
use super::regex::{self, Flavor};
use super::{At, Ctx, Facts, Rule, Use, Val, has, operands, read_options, values, zero_count};
use crate::vacuity::{Cond, PathTest};
use crate::{PROOF_2, PROOF_3, PROOF_5};

/// PROOF-5 (outside attacker's proof5 #10d): patterns read from a file
/// come from the project, which the model writes: an empty file matches
/// nothing (`! grep -q -f pats f` passes on any file) and an empty line
/// matches every line (`grep -q -f pats f` passes on any non-empty file).
pub(super) const PATTERN_FILE: Use = Use::No(
    PROOF_5,
    "reads the patterns from a project file, which can be empty (matching nothing) or hold an empty line (matching everything); write the patterns in the line with `-e PATTERN`",
);

const NO: Arg = Arg::No;
const REQ: Arg = Arg::Required;
const OPT: Arg = Arg::Optional;

const GREP_SHORTS: &[Short] = &[
    short('0', NO, "digit"),
    short('1', NO, "digit"),
    short('2', NO, "digit"),
    short('3', NO, "digit"),
    short('4', NO, "digit"),
    short('5', NO, "digit"),
    short('6', NO, "digit"),
    short('7', NO, "digit"),
    short('8', NO, "digit"),
    short('9', NO, "digit"),
    short('A', REQ, "A"),
    short('B', REQ, "B"),
    short('C', REQ, "C"),
    short('D', REQ, "D"),
    short('E', NO, "E"),
    short('F', NO, "F"),
    short('G', NO, "G"),
    short('H', NO, "H"),
    short('I', NO, "I"),
    short('P', NO, "P"),
    short('T', NO, "T"),
    short('U', NO, "U"),
    short('V', NO, "V"),
    short('X', REQ, "X"),
    short('a', NO, "a"),
    short('b', NO, "b"),
    short('c', NO, "c"),
    short('d', REQ, "d"),
    short('e', REQ, "e"),
    short('f', REQ, "f"),
    short('h', NO, "h"),
    short('i', NO, "i"),
    short('L', NO, "L"),
    short('l', NO, "l"),
    short('m', REQ, "m"),
    short('n', NO, "n"),
    short('o', NO, "o"),
    short('q', NO, "q"),
    short('R', NO, "R"),
    short('r', NO, "r"),
    short('s', NO, "s"),
    short('u', NO, "u"),
    short('v', NO, "v"),
    short('w', NO, "w"),
    short('x', NO, "x"),
    short('y', NO, "y"),
    short('Z', NO, "Z"),
    short('z', NO, "z"),
];

const GREP: Table = Table {
    syntax: GNU,
    shorts: GREP_SHORTS,
    longs: &[
        long("basic-regexp", NO, "G"),
        long("extended-regexp", NO, "E"),
        long("fixed-regexp", NO, "F"),
        long("fixed-strings", NO, "F"),
        long("perl-regexp", NO, "P"),
        long("after-context", REQ, "A"),
        long("before-context", REQ, "B"),
        long("binary-files", REQ, "binary-files"),
        long("byte-offset", NO, "b"),
        long("context", REQ, "C"),
        long("color", OPT, "color"),
        long("colour", OPT, "color"),
        long("count", NO, "c"),
        long("devices", REQ, "D"),
        long("directories", REQ, "d"),
        long("exclude", REQ, "exclude"),
        long("exclude-from", REQ, "exclude-from"),
        long("exclude-dir", REQ, "exclude-dir"),
        long("file", REQ, "f"),
        long("files-with-matches", NO, "l"),
        long("files-without-match", NO, "L"),
        long("group-separator", REQ, "group-separator"),
        long("help", NO, "help"),
        long("include", REQ, "include"),
        long("ignore-case", NO, "i"),
        long("no-ignore-case", NO, "no-ignore-case"),
        long("initial-tab", NO, "T"),
        long("label", REQ, "label"),
        long("line-buffered", NO, "line-buffered"),
        long("line-number", NO, "n"),
        long("line-regexp", NO, "x"),
        long("max-count", REQ, "m"),
        long("no-filename", NO, "h"),
        long("no-group-separator", NO, "group-separator"),
        long("no-messages", NO, "s"),
        long("null", NO, "Z"),
        long("null-data", NO, "z"),
        long("only-matching", NO, "o"),
        long("quiet", NO, "q"),
        long("recursive", NO, "r"),
        long("dereference-recursive", NO, "R"),
        long("regexp", REQ, "e"),
        long("invert-match", NO, "v"),
        long("silent", NO, "q"),
        long("text", NO, "a"),
        long("binary", NO, "U"),
        long("unix-byte-offsets", NO, "u"),
        long("version", NO, "V"),
        long("with-filename", NO, "H"),
        long("word-regexp", NO, "w"),
    ],
};

const WHEN: Val = Val::Choice(&["never", "always", "auto"]);

const GREP_RULES: &[Rule] = &[
    ("A", Use::Value(Val::Count)),
    ("B", Use::Value(Val::Count)),
    ("C", Use::Value(Val::Count)),
    ("D", Use::Value(Val::Choice(&["read", "skip"]))),
    ("d", Use::Value(Val::Choice(&["read", "skip", "recurse"]))),
    ("E", Use::Flag),
    ("F", Use::Flag),
    ("G", Use::Flag),
    ("P", Use::Flag),
    ("H", Use::Flag),
    ("h", Use::Flag),
    ("I", Use::Flag),
    ("T", Use::Flag),
    ("U", Use::Flag),
    ("a", Use::Flag),
    ("b", Use::Flag),
    ("c", Use::Flag),
    ("e", Use::Value(Val::Pattern)),
    ("f", PATTERN_FILE),
    ("i", Use::Flag),
    ("y", Use::Flag),
    ("no-ignore-case", Use::Flag),
    ("L", Use::Flag),
    ("l", Use::Flag),
    ("m", Use::Value(Val::Count)),
    ("n", Use::Flag),
    ("o", Use::Flag),
    ("q", Use::Flag),
    ("R", Use::Flag),
    ("r", Use::Flag),
    ("s", Use::Flag),
    ("v", Use::Flag),
    ("w", Use::Flag),
    ("x", Use::Flag),
    ("Z", Use::Flag),
    ("z", Use::Flag),
    (
        "binary-files",
        Use::Value(Val::Choice(&["binary", "text", "without-match"])),
    ),
    ("color", Use::Value(WHEN)),
    ("exclude", Use::Value(Val::Pattern)),
    ("include", Use::Value(Val::Pattern)),
    ("exclude-dir", Use::Value(Val::Pattern)),
    ("exclude-from", Use::Value(Val::Path)),
    ("group-separator", Use::Value(Val::Text)),
    ("label", Use::Value(Val::Text)),
    ("line-buffered", Use::Flag),
    (
        "digit",
        Use::No(PROOF_2, "is the obsolete context form; write `-C NUM`"),
    ),
    (
        "u",
        Use::No(PROOF_2, "is obsolete and ignored by current grep"),
    ),
    (
        "X",
        Use::No(
            PROOF_2,
            "is an undocumented matcher switch; write -E, -F, -G or -P",
        ),
    ),
    (
        "V",
        Use::No(PROOF_5, "prints a version and verifies nothing"),
    ),
    ("help", Use::No(PROOF_5, "prints help and verifies nothing")),
];

/// When a searching program succeeds: its unknown result, and (when it
/// names files) the files exist; with `-q` one found match is enough.
/// `need_file`: the program reads each operand as a file (grep without
/// `-r`: a folder is an error), so `README.md/` can never be read.
fn search_status(ctx: &Ctx, files: &[&str], quiet: bool, need_file: bool, at: &At) -> Cond {
    let test = if need_file {
        PathTest::ReadableFile
    } else {
        PathTest::Exists
    };
    let files: Vec<Cond> = files
        .iter()
        .filter(|f| **f != "-")
        .map(|f| Cond::path(test, f))
        .collect();
    let exist = if quiet {
        if files.is_empty() {
            Cond::Const(true)
        } else {
            Cond::any(files)
        }
    } else {
        Cond::all(files)
    };
    exist.and(ctx.outcome(at))
}

/// PROOF-5: a pattern that can match the empty string (`''`, `.*`, `^`,
/// `$`, `x*`, `a\|`, round8 #4) matches every line, and with `-v` none, so
/// the search answers alike whatever the files hold (`! grep -qv '' f`
/// passes on any file, `grep -q '.*' f` on any file with a line). Each
/// pattern is read in every language the options name (grep splits a
/// pattern at line breaks into several). `listing` is rg's `--files`,
/// which takes no pattern. A count of every line (`grep -c '' f`, the idiom
/// for the number of lines) depends on the file and stays; under `-x` a
/// pattern must match the whole line, so only `.*`-like patterns match
/// every line there. `default` is the program's own pattern language.
pub(super) fn empty_pattern(ctx: &mut Ctx, items: &[Item], listing: bool, default: Flavor) {
    let operand_is_pattern = !(has(items, "e") || has(items, "f") || listing);
    let counts_lines = has(items, "c") && !has(items, "v");
    if counts_lines {
        return;
    }
    let mut flavors: Vec<Flavor> = [
        ("G", Flavor::Basic),
        ("E", Flavor::Extended),
        ("P", Flavor::Perl),
        ("F", Flavor::Fixed),
    ]
    .into_iter()
    .filter(|(id, _)| has(items, id))
    .map(|(_, flavor)| flavor)
    .collect();
    if flavors.is_empty() {
        flavors.push(default);
    }
    let whole_line = has(items, "x");
    let operand = operand_is_pattern
        .then(|| operands(items).first().map(|(o, _)| *o))
        .flatten();
    let everything = values(items, "e").chain(operand).find(|pattern| {
        pattern.split('\n').any(|one| {
            one.is_empty()
                || flavors.iter().any(|flavor| {
                    regex::matches_empty(one, *flavor)
                        && (!whole_line
                            || *flavor != Flavor::Fixed
                                && matches!(
                                    one.trim_start_matches('^').trim_end_matches('$'),
                                    ".*" | "\\(.*\\)" | "(.*)"
                                ))
                })
        })
    });
    if let Some(pattern) = everything {
        ctx.refuse(
            PROOF_5,
            format!("the pattern `{pattern}` can match the empty string, so it matches every line (and with `-v`, none): the search answers alike whatever the files hold; write the text to look for"),
        );
    }
}

/// PROOF-5 (round8 #1a): under `!`, a search that narrows which files it
/// reads can select none and pass whatever the files hold. Judged on the
/// options as the program resolved them (`--incl=*.rs` is `--include`,
/// `--dir=skip` is `--directories`), never on their spelling.
fn negated_narrowing(ctx: &mut Ctx, items: &[Item], narrowing: &[&str]) {
    let found = items.iter().find_map(|item| match item {
        Item::Opt {
            id, written, name, ..
        } if narrowing.contains(id) => Some(if written == name {
            format!("`{written}`")
        } else {
            format!("`{written}` (`{name}`)")
        }),
        _ => None,
    });
    if let Some(option) = found {
        ctx.refuse(
            PROOF_5,
            format!("{option} narrows which files a negated search reads; it can select none, and then `! {} …` passes whatever the files hold; search without narrowing (`! grep -rq TODO src`)", ctx.program),
        );
    }
}

/// PROOF-5 for `-m 0`, and `-q` prints nothing.
fn quiet_and_max_count(ctx: &mut Ctx, items: &[Item]) {
    if values(items, "m").any(zero_count) {
        ctx.refuse(
            PROOF_5,
            "`-m 0` stops before reading anything, so it can never find a match",
        );
    }
    ctx.silent = has(items, "q");
}

pub(super) fn grep(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let items = read_options(ctx, &GREP, GREP_RULES, args)?;
    quiet_and_max_count(ctx, &items);
    empty_pattern(ctx, &items, false, Flavor::Basic);
    if at.negated {
        negated_narrowing(
            ctx,
            &items,
            &[
                "include",
                "exclude",
                "exclude-dir",
                "exclude-from",
                "d",
                "D",
            ],
        );
    }
    ctx.identify(
        &items,
        &[
            "q",
            "s",
            "c",
            "n",
            "b",
            "H",
            "h",
            "T",
            "Z",
            "color",
            "line-buffered",
            "label",
            "o",
            "A",
            "B",
            "C",
            "group-separator",
            "m",
            "U",
            "l",
        ],
        &[("y", "i")],
    );
    let mut ops = operands(&items).into_iter().map(|(o, _)| o);
    if !(has(&items, "e") || has(&items, "f")) && ops.next().is_none() {
        ctx.refuse(PROOF_2, "needs a pattern: `grep -q PATTERN FILE`");
        return None;
    }
    let files: Vec<&str> = ops.collect();
    for file in files.iter().filter(|f| **f != "-") {
        ctx.path(file, "the file");
    }
    let recursive = has(&items, "r")
        || has(&items, "R")
        || items
            .iter()
            .any(|i| matches!(i, Item::Opt { id: "d", value: Some(v), .. } if v == "recurse"));
    if files.is_empty() && !recursive && at.head {
        ctx.refuse(
            PROOF_5,
            "reads standard input, which is empty here; name the files to search (`grep -q PATTERN FILE`)",
        );
        return None;
    }
    // A negated search that skips binary files (`-I`) passes when the
    // project puts a NUL byte in the file that holds the match.
    if at.negated
        && let Some(written) = items.iter().find_map(|i| match i {
            Item::Opt {
                id: "I", written, ..
            } => Some(written.as_str()),
            Item::Opt {
                id: "binary-files",
                value: Some(v),
                written,
                ..
            } if v == "without-match" => Some(written.as_str()),
            _ => None,
        })
    {
        ctx.refuse(
            PROOF_5,
            format!("`{written}` skips files that look binary, and one NUL byte makes any file look so; then `! grep …` passes whatever the file holds; leave it out"),
        );
    }
    if !recursive {
        for (id, what) in [("c", "`grep -c` (a count)"), ("L", "`grep -L`")] {
            if has(&items, id) {
                super::prints_for_any_input(ctx, &files, what);
            }
        }
    }
    Some(Facts {
        status: search_status(ctx, &files, has(&items, "q"), !recursive, at),
    })
}

// ---- rg ----------------------------------------------------------------

const RG: Table = Table {
    syntax: EXACT,
    shorts: &[
        short('q', NO, "q"),
        short('i', NO, "i"),
        short('S', NO, "S"),
        short('s', NO, "s"),
        short('v', NO, "v"),
        short('w', NO, "w"),
        short('x', NO, "x"),
        short('c', NO, "c"),
        short('l', NO, "l"),
        short('n', NO, "n"),
        short('N', NO, "N"),
        short('F', NO, "F"),
        short('e', REQ, "e"),
        short('f', REQ, "f"),
        short('g', REQ, "g"),
        short('t', REQ, "t"),
        short('T', REQ, "T"),
        short('u', NO, "u"),
        short('L', NO, "L"),
        short('m', REQ, "m"),
        short('A', REQ, "A"),
        short('B', REQ, "B"),
        short('C', REQ, "C"),
        short('o', NO, "o"),
        short('U', NO, "U"),
        short('P', NO, "P"),
        short('H', NO, "H"),
        short('I', NO, "I"),
        short('a', NO, "a"),
        short('0', NO, "0"),
        short('j', REQ, "j"),
        short('d', REQ, "d"),
        short('r', REQ, "r"),
        short('z', NO, "z"),
        short('h', NO, "help"),
        short('V', NO, "version"),
    ],
    longs: &[
        long("quiet", NO, "q"),
        long("ignore-case", NO, "i"),
        long("smart-case", NO, "S"),
        long("case-sensitive", NO, "s"),
        long("invert-match", NO, "v"),
        long("word-regexp", NO, "w"),
        long("line-regexp", NO, "x"),
        long("count", NO, "c"),
        long("count-matches", NO, "count-matches"),
        long("files-with-matches", NO, "l"),
        long("files-without-match", NO, "files-without-match"),
        long("line-number", NO, "n"),
        long("no-line-number", NO, "N"),
        long("fixed-strings", NO, "F"),
        long("regexp", REQ, "e"),
        long("file", REQ, "f"),
        long("glob", REQ, "g"),
        long("iglob", REQ, "iglob"),
        long("type", REQ, "t"),
        long("type-not", REQ, "T"),
        long("unrestricted", NO, "u"),
        long("hidden", NO, "hidden"),
        long("no-ignore", NO, "no-ignore"),
        long("follow", NO, "L"),
        long("max-count", REQ, "m"),
        long("after-context", REQ, "A"),
        long("before-context", REQ, "B"),
        long("context", REQ, "C"),
        long("only-matching", NO, "o"),
        long("multiline", NO, "U"),
        long("pcre2", NO, "P"),
        long("with-filename", NO, "H"),
        long("no-filename", NO, "I"),
        long("text", NO, "a"),
        long("null", NO, "0"),
        long("threads", REQ, "j"),
        long("max-depth", REQ, "d"),
        long("no-config", NO, "no-config"),
        long("color", REQ, "color"),
        long("files", NO, "files"),
        long("json", NO, "json"),
        long("replace", REQ, "r"),
        long("search-zip", NO, "z"),
        long("pre", REQ, "pre"),
        long("pre-glob", REQ, "pre-glob"),
        long("ignore-file", REQ, "ignore-file"),
        long("hostname-bin", REQ, "hostname-bin"),
        long("type-add", REQ, "type-add"),
        long("help", NO, "help"),
        long("version", NO, "version"),
    ],
};

const RUNS_PROGRAMS: &str = "makes rg start other programs; a proof runs no hidden program";

const RG_RULES: &[Rule] = &[
    ("q", Use::Flag),
    ("i", Use::Flag),
    ("S", Use::Flag),
    ("s", Use::Flag),
    ("v", Use::Flag),
    ("w", Use::Flag),
    ("x", Use::Flag),
    ("c", Use::Flag),
    ("count-matches", Use::Flag),
    ("l", Use::Flag),
    ("files-without-match", Use::Flag),
    ("n", Use::Flag),
    ("N", Use::Flag),
    ("F", Use::Flag),
    ("e", Use::Value(Val::Pattern)),
    ("f", PATTERN_FILE),
    ("g", Use::Value(Val::Pattern)),
    ("iglob", Use::Value(Val::Pattern)),
    ("t", Use::Value(Val::Name)),
    ("T", Use::Value(Val::Name)),
    ("u", Use::Flag),
    ("hidden", Use::Flag),
    ("no-ignore", Use::Flag),
    ("L", Use::Flag),
    ("m", Use::Value(Val::Count)),
    ("A", Use::Value(Val::Count)),
    ("B", Use::Value(Val::Count)),
    ("C", Use::Value(Val::Count)),
    ("o", Use::Flag),
    ("U", Use::Flag),
    ("P", Use::Flag),
    ("H", Use::Flag),
    ("I", Use::Flag),
    ("a", Use::Flag),
    ("0", Use::Flag),
    ("j", Use::Value(Val::Count)),
    ("d", Use::Value(Val::Count)),
    ("no-config", Use::Flag),
    ("color", Use::Value(WHEN)),
    ("files", Use::Flag),
    ("json", Use::Flag),
    ("r", Use::Value(Val::Text)),
    ("ignore-file", Use::Value(Val::Path)),
    (
        "z",
        Use::No(
            PROOF_2,
            "decompresses by running gzip, xz and other programs",
        ),
    ),
    ("pre", Use::No(PROOF_2, RUNS_PROGRAMS)),
    ("pre-glob", Use::No(PROOF_2, RUNS_PROGRAMS)),
    ("hostname-bin", Use::No(PROOF_2, RUNS_PROGRAMS)),
    (
        "type-add",
        Use::No(PROOF_2, "is not needed in a proof; use -g GLOB"),
    ),
    HELP_VERSION[0],
    HELP_VERSION[1],
];

pub(super) fn rg(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let items = read_options(ctx, &RG, RG_RULES, args)?;
    quiet_and_max_count(ctx, &items);
    empty_pattern(ctx, &items, has(&items, "files"), Flavor::Perl);
    ctx.identify(
        &items,
        &[
            "q",
            "c",
            "count-matches",
            "l",
            "n",
            "N",
            "H",
            "I",
            "color",
            "json",
            "o",
            "A",
            "B",
            "C",
            "j",
            "0",
            "no-config",
            "m",
        ],
        &[],
    );
    let mut ops = operands(&items).into_iter().map(|(o, _)| o);
    let listing = has(&items, "files");
    if !(has(&items, "e") || has(&items, "f") || listing) && ops.next().is_none() {
        ctx.refuse(PROOF_2, "needs a pattern: `rg -q PATTERN PATH`");
        return None;
    }
    let paths: Vec<&str> = ops.collect();
    for path in paths.iter().filter(|p| **p != "-") {
        ctx.path(path, "the path");
    }
    if paths.is_empty() && at.head {
        // rg reads standard input or searches the folder depending on what
        // its input is: a proof names the paths.
        ctx.refuse(
            PROOF_3,
            "name the paths to search (`rg -q PATTERN src`); without them rg guesses between standard input and the folder",
        );
        return None;
    }
    if at.negated {
        unrestricted_when_negated(ctx, &items);
        negated_narrowing(ctx, &items, &["g", "iglob", "t", "T", "d", "ignore-file"]);
    }
    // `--json` prints a summary record whatever it finds.
    if has(&items, "json") {
        ctx.fixed_lines = Some("prints a JSON summary record whatever it finds");
    }
    Some(Facts {
        status: search_status(ctx, &paths, has(&items, "q"), false, at),
    })
}

/// PROOF-5 (outside attacker's proof5 #10): rg skips what the project's
/// own `.ignore`, `.rgignore` and `.gitignore` files name, hidden files,
/// and (in folders) files with a NUL byte, so `! rg -q TODO src` passes on
/// a project full of TODOs once it holds a `.ignore` with `*`. Negated, rg
/// must read everything: `-uuu` (`--no-ignore`, `--hidden`, and `-a` or a
/// third `-u`).
fn unrestricted_when_negated(ctx: &mut Ctx, items: &[Item]) {
    let count = |id: &str| {
        items
            .iter()
            .filter(|i| matches!(i, Item::Opt { id: x, .. } if *x == id))
            .count()
    };
    let u = count("u");
    let missing: Vec<&str> = [
        (u >= 1 || count("no-ignore") > 0, "--no-ignore"),
        (u >= 2 || count("hidden") > 0, "--hidden"),
        (u >= 3 || count("a") > 0, "-a"),
    ]
    .into_iter()
    .filter_map(|(set, name)| (!set).then_some(name))
    .collect();
    if !missing.is_empty() {
        ctx.refuse(
            PROOF_5,
            format!("a negated rg search skips files the project's own ignore files (`.ignore`, `.rgignore`, `.gitignore`) name, hidden files and binary-looking files, so it can search nothing and pass; add `-uuu` (missing: {}), or use `! grep -rq PATTERN DIR`", missing.join(" ")),
        );
    }
}

/// The GNU grep table (see [`super::gnu_table`]).
pub(crate) const GREP_TABLE: &Table = &GREP;
