//! `cat`, `head`, `tail`, `wc`, `ls` (GNU coreutils 9.1) and `diff`, `cmp`
//! (GNU diffutils 3.8): option tables as in their sources, in order.

use super::options::{Arg, GNU, Item, Short, Table, long, short};
use super::{
    At, Ctx, Facts, Rule, Use, Val, has, operands, prints_for_any_input, read_options, values,
    zero_count,
};
use crate::vacuity::{Cond, PathTest, path_key};
use crate::{PROOF_2, PROOF_3, PROOF_5};

const NO: Arg = Arg::No;
const REQ: Arg = Arg::Required;
const OPT: Arg = Arg::Optional;

/// `--help` / `--version`: print and exit 0, whatever the project holds.
pub(super) const HELP_VERSION: [Rule; 2] = [
    ("help", Use::No(PROOF_5, "prints help and verifies nothing")),
    (
        "version",
        Use::No(PROOF_5, "prints a version and verifies nothing"),
    ),
];

const DIGITS: [Short; 10] = [
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
];

const fn with_digits<const N: usize, const M: usize>(shorts: [Short; N]) -> [Short; M] {
    let mut out = [short('0', NO, "digit"); M];
    let mut i = 0;
    while i < N {
        out[i] = shorts[i];
        i += 1;
    }
    let mut d = 0;
    while d < 10 {
        out[N + d] = DIGITS[d];
        d += 1;
    }
    out
}

/// The files a reading program (`cat`, `head`, `wc`, …) opens, and when
/// it succeeds: every file readable (`-` is standard input, which always
/// reads: empty at the head of a pipeline, a pipe after it).
fn reads_files(ctx: &mut Ctx, items: &[Item]) -> Option<Facts> {
    let files = operands(items);
    for (file, _) in &files {
        if *file != "-" {
            ctx.path(file, "the file");
        }
    }
    Some(Facts {
        status: Cond::all(
            files
                .iter()
                .filter(|(f, _)| *f != "-")
                .map(|(f, _)| Cond::path(PathTest::ReadableFile, f)),
        ),
    })
}

// ---- cat -------------------------------------------------------------

const CAT: Table = Table {
    syntax: GNU,
    shorts: &[
        short('b', NO, "b"),
        short('e', NO, "e"),
        short('n', NO, "n"),
        short('s', NO, "s"),
        short('t', NO, "t"),
        short('u', NO, "u"),
        short('v', NO, "v"),
        short('A', NO, "A"),
        short('E', NO, "E"),
        short('T', NO, "T"),
    ],
    longs: &[
        long("number-nonblank", NO, "b"),
        long("number", NO, "n"),
        long("squeeze-blank", NO, "s"),
        long("show-nonprinting", NO, "v"),
        long("show-ends", NO, "E"),
        long("show-tabs", NO, "T"),
        long("show-all", NO, "A"),
        long("help", NO, "help"),
        long("version", NO, "version"),
    ],
};

const CAT_RULES: &[Rule] = &[
    ("b", Use::Flag),
    ("e", Use::Flag),
    ("n", Use::Flag),
    ("s", Use::Flag),
    ("t", Use::Flag),
    ("u", Use::Flag),
    ("v", Use::Flag),
    ("A", Use::Flag),
    ("E", Use::Flag),
    ("T", Use::Flag),
    HELP_VERSION[0],
    HELP_VERSION[1],
];

pub(super) fn cat(ctx: &mut Ctx, args: &[String], _at: &At) -> Option<Facts> {
    let items = read_options(ctx, &CAT, CAT_RULES, args)?;
    reads_files(ctx, &items)
}

// ---- head / tail -----------------------------------------------------

const HEAD_SHORTS: [Short; 15] = with_digits([
    short('c', REQ, "c"),
    short('n', REQ, "n"),
    short('q', NO, "q"),
    short('v', NO, "v"),
    short('z', NO, "z"),
]);

const HEAD: Table = Table {
    syntax: GNU,
    shorts: &HEAD_SHORTS,
    longs: &[
        long("bytes", REQ, "c"),
        long("lines", REQ, "n"),
        long("-presume-input-pipe", NO, "presume"),
        long("quiet", NO, "q"),
        long("silent", NO, "q"),
        long("verbose", NO, "v"),
        long("zero-terminated", NO, "z"),
        long("help", NO, "help"),
        long("version", NO, "version"),
    ],
};

const TAIL_SHORTS: [Short; 18] = with_digits([
    short('c', REQ, "c"),
    short('n', REQ, "n"),
    short('f', NO, "f"),
    short('F', NO, "F"),
    short('q', NO, "q"),
    short('s', REQ, "s"),
    short('v', NO, "v"),
    short('z', NO, "z"),
]);

const TAIL: Table = Table {
    syntax: GNU,
    shorts: &TAIL_SHORTS,
    longs: &[
        long("bytes", REQ, "c"),
        long("follow", OPT, "follow"),
        long("lines", REQ, "n"),
        long("max-unchanged-stats", REQ, "max-unchanged-stats"),
        long("-disable-inotify", NO, "disable-inotify"),
        long("pid", REQ, "pid"),
        long("-presume-input-pipe", NO, "presume"),
        long("quiet", NO, "q"),
        long("retry", NO, "retry"),
        long("silent", NO, "q"),
        long("sleep-interval", REQ, "s"),
        long("verbose", NO, "v"),
        long("zero-terminated", NO, "z"),
        long("help", NO, "help"),
        long("version", NO, "version"),
    ],
};

const FOLLOWS: Use = Use::No(
    PROOF_2,
    "keeps following the file and never ends; a proof reads and exits",
);

const HEAD_TAIL_RULES: &[Rule] = &[
    ("c", Use::Value(Val::Count)),
    ("n", Use::Value(Val::Count)),
    ("q", Use::Flag),
    ("v", Use::Flag),
    ("z", Use::Flag),
    (
        "digit",
        Use::No(PROOF_2, "is the obsolete count form; write `-n NUM`"),
    ),
    ("f", FOLLOWS),
    ("F", FOLLOWS),
    ("follow", FOLLOWS),
    ("retry", FOLLOWS),
    ("pid", FOLLOWS),
    ("s", FOLLOWS),
    ("max-unchanged-stats", FOLLOWS),
    HELP_VERSION[0],
    HELP_VERSION[1],
];

fn head_or_tail(ctx: &mut Ctx, table: &Table, args: &[String]) -> Option<Facts> {
    // The obsolete `head -5 file` / `tail +5 file` forms are parsed by hand
    // before getopt, differently by version: refused, with the modern form.
    if let Some(first) = args.first()
        && (first.starts_with('+')
            || (first.starts_with('-') && first[1..].starts_with(|c: char| c.is_ascii_digit())))
    {
        ctx.refuse(
            PROOF_2,
            format!(
                "`{first}` is the obsolete count form; write `-n {}`",
                first.trim_start_matches(['-', '+'])
            ),
        );
        return None;
    }
    let items = read_options(ctx, table, HEAD_TAIL_RULES, args)?;
    if ctx.program == "tail"
        && let Some((plus, _)) = operands(&items)
            .into_iter()
            .find(|(o, _)| o.starts_with('+'))
    {
        ctx.refuse(
            PROOF_2,
            format!("`{plus}` reads as a count to some versions of tail and a file to others; write `-n {plus}`"),
        );
        return None;
    }
    // Every count is judged by its value as head and tail read it (round8
    // #1b: `tail -n +1M` starts past a million lines), never its spelling.
    let mut counts: Vec<(char, u128, &str)> = Vec::new();
    for value in values(&items, "n").chain(values(&items, "c")) {
        let (sign, digits) = match value.strip_prefix(['+', '-']) {
            Some(rest) => (value.chars().next().unwrap_or(' '), rest),
            None => (' ', value),
        };
        match super::gnu_count(digits) {
            Some(count) => counts.push((sign, count, value)),
            None => ctx.refuse(
                PROOF_2,
                format!("`{value}` is not a count {} reads (digits, then at most one of the suffixes b, K, M, G, … with an optional B or iB)", ctx.program),
            ),
        }
    }
    // `head -n -N` prints all but the last N: nothing at all once N passes
    // the file's length (`-n -999999999999`), so a pipe reading it checks
    // nothing.
    if ctx.program == "head"
        && let Some((_, _, v)) = counts.iter().find(|(sign, n, _)| *sign == '-' && *n > 0)
    {
        ctx.refuse(
            PROOF_5,
            format!("`{v}` prints all but the last {}, which is nothing for any file shorter than that; count from the start (`-n 5`)", v.trim_start_matches('-')),
        );
    }
    // `head -n 0`, `tail -c 0` print nothing; `head -n -0` (all but the
    // last 0) and `tail -n +0` (from the start) print everything.
    if has(&items, "v") {
        let files: Vec<&str> = operands(&items).into_iter().map(|(f, _)| f).collect();
        prints_for_any_input(ctx, &files, "`-v` (a header line)");
    }
    let prints_all = if ctx.program == "tail" { '+' } else { '-' };
    // `tail -n +N` starts at line N: from the 100,000th line on (proof5
    // #17, `tail -n +99999999999999`, `tail -n +1M`) it prints nothing in
    // any real project.
    ctx.silent = counts.iter().any(|(sign, n, _)| {
        (*n == 0 && *sign != prints_all)
            || (ctx.program == "tail" && *sign == '+' && *n >= super::BEYOND_ANY_PROJECT)
    });
    reads_files(ctx, &items)
}

pub(super) fn head(ctx: &mut Ctx, args: &[String], _at: &At) -> Option<Facts> {
    head_or_tail(ctx, &HEAD, args)
}

pub(super) fn tail(ctx: &mut Ctx, args: &[String], _at: &At) -> Option<Facts> {
    head_or_tail(ctx, &TAIL, args)
}

// ---- wc ----------------------------------------------------------------

const WC: Table = Table {
    syntax: GNU,
    shorts: &[
        short('c', NO, "c"),
        short('l', NO, "l"),
        short('L', NO, "L"),
        short('m', NO, "m"),
        short('w', NO, "w"),
    ],
    longs: &[
        long("bytes", NO, "c"),
        long("chars", NO, "m"),
        long("lines", NO, "l"),
        long("words", NO, "w"),
        long("debug", NO, "debug"),
        long("files0-from", REQ, "files0-from"),
        long("max-line-length", NO, "L"),
        long("help", NO, "help"),
        long("version", NO, "version"),
    ],
};

const WC_RULES: &[Rule] = &[
    ("c", Use::Flag),
    ("l", Use::Flag),
    ("L", Use::Flag),
    ("m", Use::Flag),
    ("w", Use::Flag),
    (
        "files0-from",
        Use::No(
            PROOF_3,
            "reads the names of the files to count from a file, where the validator cannot check them; name the files",
        ),
    ),
    HELP_VERSION[0],
    HELP_VERSION[1],
];

pub(super) fn wc(ctx: &mut Ctx, args: &[String], _at: &At) -> Option<Facts> {
    let items = read_options(ctx, &WC, WC_RULES, args)?;
    let files: Vec<&str> = operands(&items).into_iter().map(|(f, _)| f).collect();
    prints_for_any_input(ctx, &files, "`wc` (a count)");
    reads_files(ctx, &items)
}

// ---- ls ----------------------------------------------------------------

const LS: Table = Table {
    syntax: GNU,
    shorts: &[
        short('a', NO, "a"),
        short('b', NO, "b"),
        short('c', NO, "c"),
        short('d', NO, "d"),
        short('f', NO, "f"),
        short('g', NO, "g"),
        short('h', NO, "h"),
        short('i', NO, "i"),
        short('k', NO, "k"),
        short('l', NO, "l"),
        short('m', NO, "m"),
        short('n', NO, "n"),
        short('o', NO, "o"),
        short('p', NO, "p"),
        short('q', NO, "q"),
        short('r', NO, "r"),
        short('s', NO, "s"),
        short('t', NO, "t"),
        short('u', NO, "u"),
        short('v', NO, "v"),
        short('w', REQ, "w"),
        short('x', NO, "x"),
        short('A', NO, "A"),
        short('B', NO, "B"),
        short('C', NO, "C"),
        short('D', NO, "D"),
        short('F', NO, "F"),
        short('G', NO, "G"),
        short('H', NO, "H"),
        short('I', REQ, "I"),
        short('L', NO, "L"),
        short('N', NO, "N"),
        short('Q', NO, "Q"),
        short('R', NO, "R"),
        short('S', NO, "S"),
        short('T', REQ, "T"),
        short('U', NO, "U"),
        short('X', NO, "X"),
        short('Z', NO, "Z"),
        short('1', NO, "1"),
    ],
    longs: &[
        long("all", NO, "a"),
        long("escape", NO, "b"),
        long("directory", NO, "d"),
        long("dired", NO, "D"),
        long("full-time", NO, "full-time"),
        long("group-directories-first", NO, "group-directories-first"),
        long("human-readable", NO, "h"),
        long("inode", NO, "i"),
        long("kibibytes", NO, "k"),
        long("numeric-uid-gid", NO, "n"),
        long("no-group", NO, "G"),
        long("hide-control-chars", NO, "q"),
        long("reverse", NO, "r"),
        long("size", NO, "s"),
        long("width", REQ, "w"),
        long("almost-all", NO, "A"),
        long("ignore-backups", NO, "B"),
        long("classify", OPT, "F"),
        long("file-type", NO, "file-type"),
        long("si", NO, "si"),
        long("dereference-command-line", NO, "H"),
        long("dereference-command-line-symlink-to-dir", NO, "dclstd"),
        long("hide", REQ, "hide"),
        long("ignore", REQ, "I"),
        long("indicator-style", REQ, "indicator-style"),
        long("dereference", NO, "L"),
        long("literal", NO, "N"),
        long("quote-name", NO, "Q"),
        long("quoting-style", REQ, "quoting-style"),
        long("recursive", NO, "R"),
        long("format", REQ, "format"),
        long("show-control-chars", NO, "show-control-chars"),
        long("sort", REQ, "sort"),
        long("tabsize", REQ, "T"),
        long("time", REQ, "time"),
        long("time-style", REQ, "time-style"),
        long("zero", NO, "zero"),
        long("color", OPT, "color"),
        long("hyperlink", OPT, "hyperlink"),
        long("block-size", REQ, "block-size"),
        long("context", NO, "Z"),
        long("author", NO, "author"),
        long("help", NO, "help"),
        long("version", NO, "version"),
    ],
};

const WHEN: Val = Val::Choice(&[
    "never", "always", "auto", "no", "none", "yes", "force", "tty", "if-tty",
]);

const LS_RULES: &[Rule] = &[
    ("a", Use::Flag),
    ("A", Use::Flag),
    ("d", Use::Flag),
    ("l", Use::Flag),
    ("1", Use::Flag),
    ("R", Use::Flag),
    ("h", Use::Flag),
    ("r", Use::Flag),
    ("t", Use::Flag),
    ("S", Use::Flag),
    ("s", Use::Flag),
    ("i", Use::Flag),
    ("F", Use::Value(Val::Choice(&["never", "always", "auto"]))),
    ("color", Use::Value(WHEN)),
    HELP_VERSION[0],
    HELP_VERSION[1],
];

pub(super) fn ls(ctx: &mut Ctx, args: &[String], _at: &At) -> Option<Facts> {
    let items = read_options(ctx, &LS, LS_RULES, args)?;
    let paths = operands(&items);
    for (path, _) in &paths {
        ctx.path(path, "the path");
    }
    if has(&items, "a") {
        ctx.fixed_lines =
            Some("with `-a` prints `.` and `..` whatever the project holds; use `-A`");
    }
    if has(&items, "d") && paths.iter().all(|(p, _)| path_key(p).0 == ".") {
        ctx.refuse(
            PROOF_5,
            "`ls -d` of the project folder prints `.` whatever the project holds",
        );
    }
    if paths.iter().all(|(p, _)| path_key(p).0 == ".") {
        ctx.note = Some(
            "`ls` of the project folder succeeds whatever the project holds; name the paths that must exist",
        );
    }
    // No operand lists the project folder, which always exists.
    Some(Facts {
        status: Cond::all(paths.iter().map(|(p, _)| Cond::path(PathTest::Present, p))),
    })
}

// ---- diff ---------------------------------------------------------------

const DIFF_SHORTS: [Short; 46] = with_digits([
    short('a', NO, "a"),
    short('b', NO, "b"),
    short('B', NO, "B"),
    short('c', NO, "c"),
    short('C', REQ, "C"),
    short('d', NO, "d"),
    short('D', REQ, "D"),
    short('e', NO, "e"),
    short('E', NO, "E"),
    short('f', NO, "f"),
    short('F', REQ, "F"),
    short('h', NO, "h"),
    short('H', NO, "H"),
    short('i', NO, "i"),
    short('I', REQ, "I"),
    short('l', NO, "l"),
    short('L', REQ, "L"),
    short('n', NO, "n"),
    short('N', NO, "N"),
    short('p', NO, "p"),
    short('P', NO, "P"),
    short('q', NO, "q"),
    short('r', NO, "r"),
    short('s', NO, "s"),
    short('S', REQ, "S"),
    short('t', NO, "t"),
    short('T', NO, "T"),
    short('u', NO, "u"),
    short('U', REQ, "U"),
    short('v', NO, "v"),
    short('w', NO, "w"),
    short('W', REQ, "W"),
    short('x', REQ, "x"),
    short('X', REQ, "X"),
    short('y', NO, "y"),
    short('Z', NO, "Z"),
]);

const DIFF: Table = Table {
    syntax: GNU,
    shorts: &DIFF_SHORTS,
    longs: &[
        long("binary", NO, "binary"),
        long("brief", NO, "q"),
        long("changed-group-format", REQ, "changed-group-format"),
        long("color", OPT, "color"),
        long("context", OPT, "C"),
        long("ed", NO, "e"),
        long("exclude", REQ, "x"),
        long("exclude-from", REQ, "X"),
        long("expand-tabs", NO, "t"),
        long("forward-ed", NO, "f"),
        long("from-file", REQ, "from-file"),
        long("help", NO, "help"),
        long("horizon-lines", REQ, "horizon-lines"),
        long("ifdef", REQ, "D"),
        long("ignore-all-space", NO, "w"),
        long("ignore-blank-lines", NO, "B"),
        long("ignore-case", NO, "i"),
        long("ignore-file-name-case", NO, "ignore-file-name-case"),
        long("ignore-matching-lines", REQ, "I"),
        long("ignore-space-change", NO, "b"),
        long("ignore-tab-expansion", NO, "E"),
        long("ignore-trailing-space", NO, "Z"),
        long("inhibit-hunk-merge", NO, "inhibit-hunk-merge"),
        long("initial-tab", NO, "T"),
        long("label", REQ, "L"),
        long("left-column", NO, "left-column"),
        long("line-format", REQ, "line-format"),
        long("minimal", NO, "d"),
        long("new-file", NO, "N"),
        long("new-group-format", REQ, "new-group-format"),
        long("new-line-format", REQ, "new-line-format"),
        long("no-dereference", NO, "no-dereference"),
        long("no-ignore-file-name-case", NO, "no-ignore-file-name-case"),
        long("normal", NO, "normal"),
        long("old-group-format", REQ, "old-group-format"),
        long("old-line-format", REQ, "old-line-format"),
        long("paginate", NO, "l"),
        long("palette", REQ, "palette"),
        long("rcs", NO, "n"),
        long("recursive", NO, "r"),
        long("report-identical-files", NO, "s"),
        long("sdiff-merge-assist", NO, "sdiff-merge-assist"),
        long("show-c-function", NO, "p"),
        long("show-function-line", REQ, "F"),
        long("side-by-side", NO, "y"),
        long("speed-large-files", NO, "H"),
        long("starting-file", REQ, "S"),
        long("strip-trailing-cr", NO, "strip-trailing-cr"),
        long("suppress-blank-empty", NO, "suppress-blank-empty"),
        long("suppress-common-lines", NO, "suppress-common-lines"),
        long("tabsize", REQ, "tabsize"),
        long("text", NO, "a"),
        long("to-file", REQ, "to-file"),
        long("unchanged-group-format", REQ, "unchanged-group-format"),
        long("unchanged-line-format", REQ, "unchanged-line-format"),
        long("unidirectional-new-file", NO, "P"),
        long("unified", OPT, "U"),
        long("version", NO, "v"),
        long("width", REQ, "W"),
        long("-presume-output-tty", NO, "presume-output-tty"),
    ],
};

const DIFF_RULES: &[Rule] = &[
    ("a", Use::Flag),
    ("b", Use::Flag),
    ("B", Use::Flag),
    ("c", Use::Flag),
    ("C", Use::Value(Val::Count)),
    ("d", Use::Flag),
    ("e", Use::Flag),
    ("E", Use::Flag),
    ("f", Use::Flag),
    ("F", Use::Value(Val::Pattern)),
    ("H", Use::Flag),
    ("i", Use::Flag),
    ("L", Use::Value(Val::Text)),
    ("n", Use::Flag),
    ("p", Use::Flag),
    ("q", Use::Flag),
    ("r", Use::Flag),
    ("s", Use::Flag),
    ("t", Use::Flag),
    ("T", Use::Flag),
    ("u", Use::Flag),
    ("U", Use::Value(Val::Count)),
    ("w", Use::Flag),
    ("W", Use::Value(Val::Count)),
    ("y", Use::Flag),
    ("Z", Use::Flag),
    ("binary", Use::Flag),
    ("color", Use::Value(WHEN)),
    ("horizon-lines", Use::Value(Val::Count)),
    ("ignore-file-name-case", Use::Flag),
    ("no-ignore-file-name-case", Use::Flag),
    ("inhibit-hunk-merge", Use::Flag),
    ("left-column", Use::Flag),
    ("no-dereference", Use::Flag),
    ("normal", Use::Flag),
    ("strip-trailing-cr", Use::Flag),
    ("suppress-blank-empty", Use::Flag),
    ("suppress-common-lines", Use::Flag),
    ("tabsize", Use::Value(Val::Count)),
    (
        "l",
        Use::No(PROOF_2, "pipes the output through `pr`, another program"),
    ),
    ("I", EQUALS_ANYTHING),
    ("x", EQUALS_ANYTHING),
    ("X", EQUALS_ANYTHING),
    ("N", EQUALS_ANYTHING),
    ("P", EQUALS_ANYTHING),
    (
        "digit",
        Use::No(PROOF_2, "is the obsolete context form; write `-C NUM`"),
    ),
    ("help", Use::No(PROOF_5, "prints help and verifies nothing")),
    (
        "v",
        Use::No(PROOF_5, "prints a version and verifies nothing"),
    ),
];

/// Options that can make any two files compare equal (`-I ''` ignores
/// every line, `-N` compares two missing files as empty, `-x '*'` skips
/// everything): a proof compares what it names.
const EQUALS_ANYTHING: Use = Use::No(
    PROOF_5,
    "can make any two files compare equal (ignored lines, excluded or missing files); compare the files as they are",
);

/// PROOF-5: comparing a path with itself always finds them equal.
fn same_path(ctx: &mut Ctx, a: &str, b: &str) {
    // `src` and `src/` are one folder (the slash only requires a folder).
    if a != "-" && path_key(a).0 == path_key(b).0 {
        ctx.refuse(
            PROOF_5,
            format!("compares `{a}` with itself, which verifies nothing"),
        );
    }
}

pub(super) fn diff(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let items = read_options(ctx, &DIFF, DIFF_RULES, args)?;
    ctx.identify(
        &items,
        &[
            "q",
            "s",
            "u",
            "U",
            "c",
            "C",
            "t",
            "T",
            "p",
            "F",
            "y",
            "W",
            "normal",
            "color",
            "L",
            "d",
            "H",
            "horizon-lines",
            "tabsize",
            "suppress-common-lines",
            "suppress-blank-empty",
            "left-column",
            "e",
            "f",
            "n",
            "inhibit-hunk-merge",
        ],
        &[],
    );
    let files = operands(&items);
    if files.len() != 2 {
        ctx.refuse(
            PROOF_2,
            "compares exactly two paths: `diff -q expected actual`",
        );
        return None;
    }
    for (file, _) in &files {
        if *file != "-" {
            ctx.path(file, "the path");
        }
    }
    if files.iter().all(|(f, _)| *f == "-") {
        ctx.refuse(PROOF_2, "both sides are standard input");
    }
    same_path(ctx, files[0].0, files[1].0);
    let exist = Cond::all(
        files
            .iter()
            .filter(|(f, _)| *f != "-")
            .map(|(f, _)| Cond::path(PathTest::Exists, f)),
    );
    Some(Facts {
        status: exist.and(ctx.outcome(at)),
    })
}

const CMP: Table = Table {
    syntax: GNU,
    shorts: &[
        short('b', NO, "b"),
        short('c', NO, "c"),
        short('i', REQ, "i"),
        short('l', NO, "l"),
        short('n', REQ, "n"),
        short('s', NO, "s"),
        short('v', NO, "v"),
    ],
    longs: &[
        long("print-bytes", NO, "b"),
        long("print-chars", NO, "c"),
        long("ignore-initial", REQ, "i"),
        long("verbose", NO, "l"),
        long("bytes", REQ, "n"),
        long("silent", NO, "s"),
        long("quiet", NO, "s"),
        long("version", NO, "v"),
        long("help", NO, "help"),
    ],
};

const CMP_RULES: &[Rule] = &[
    ("b", Use::Flag),
    ("c", Use::Flag),
    (
        "i",
        Use::No(
            PROOF_5,
            "skips bytes, which can make any two files compare equal; compare the files as they are",
        ),
    ),
    ("l", Use::Flag),
    ("n", Use::Value(Val::Count)),
    ("s", Use::Flag),
    ("help", Use::No(PROOF_5, "prints help and verifies nothing")),
    (
        "v",
        Use::No(PROOF_5, "prints a version and verifies nothing"),
    ),
];

pub(super) fn cmp(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let items = read_options(ctx, &CMP, CMP_RULES, args)?;
    ctx.identify(&items, &["s", "l", "b", "c"], &[]);
    let ops = operands(&items);
    if ops.len() != 2 {
        ctx.refuse(
            PROOF_2,
            "compares two files, from their start: `cmp expected actual` (skip counts can make any two files equal)",
        );
        return None;
    }
    if values(&items, "n").any(zero_count) {
        ctx.refuse(
            PROOF_5,
            "`-n 0` compares nothing, so any two files are equal",
        );
    }
    ctx.silent = has(&items, "s");
    for (file, _) in &ops[..2] {
        if *file != "-" {
            ctx.path(file, "the file");
        }
    }
    same_path(ctx, ops[0].0, ops[1].0);
    let readable = Cond::all(
        ops[..2]
            .iter()
            .filter(|(f, _)| *f != "-")
            .map(|(f, _)| Cond::path(PathTest::ReadableFile, f)),
    );
    Some(Facts {
        status: readable.and(ctx.outcome(at)),
    })
}

/// The GNU option tables (see [`super::gnu_table`]).
pub(crate) const GNU_TABLES: &[(&str, &Table)] = &[
    ("cat", &CAT),
    ("head", &HEAD),
    ("tail", &TAIL),
    ("wc", &WC),
    ("ls", &LS),
    ("diff", &DIFF),
    ("cmp", &CMP),
];
