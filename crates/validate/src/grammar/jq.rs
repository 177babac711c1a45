//! `jq` (1.6/1.7) and `yq` (read-only). jq reads its own arguments: exact
//! long names, clusters of one-letter flags, `--arg NAME VALUE` taking two
//! arguments; the first operand is the filter, the others are input files
//! (or strings after `--args`). Filters may not load modules or files.

use super::{At, Ctx, Facts, Val, check_value};
use crate::vacuity::{Cond, PathTest};
use crate::{PROOF_2, PROOF_3, PROOF_4, PROOF_5};

/// Flags jq accepts in a cluster, and their long names.
const JQ_FLAGS: &[(char, &str)] = &[
    ('e', "exit-status"),
    ('r', "raw-output"),
    ('j', "join-output"),
    ('c', "compact-output"),
    ('s', "slurp"),
    ('S', "sort-keys"),
    ('a', "ascii-output"),
    ('M', "monochrome-output"),
    ('C', "color-output"),
    ('R', "raw-input"),
];

/// Long flags with no short form that a proof may use.
const JQ_LONG_FLAGS: &[&str] = &["tab", "seq", "stream", "unbuffered"];

/// Words of a filter that reach the module system or files.
const JQ_FILE_WORDS: &[&str] = &["import", "include", "modulemeta", "get_search_list"];

/// Words of a mikefarah-yq expression that read files or the environment.
const YQ_FILE_WORDS: &[&str] = &[
    "load",
    "load_str",
    "load_xml",
    "load_props",
    "load_base64",
    "strload",
    "env",
    "strenv",
    "envsubst",
    "eval",
];

/// The identifier words of a filter (`[A-Za-z0-9_]` runs), ignoring
/// nothing: a word inside a string counts too (refusing more, never less).
fn words(filter: &str) -> impl Iterator<Item = &str> {
    filter
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

fn check_filter(ctx: &mut Ctx, filter: &str, forbidden: &[&[&str]]) {
    // `env` and `$ENV` read the environment (jq's and yq's spellings); a
    // field of that name (`.env`, `.a.env`) is data.
    let mut start = 0;
    for word in words(filter) {
        // Words come in order, separated by other characters: the first
        // match from the end of the previous one is this word.
        let Some(found) = filter[start..].find(word) else {
            break;
        };
        let at = start + found;
        start = at + word.len();
        if matches!(word, "env" | "ENV") && filter.as_bytes().get(at.wrapping_sub(1)) != Some(&b'.')
        {
            ctx.refuse(
                PROOF_4,
                format!("the filter uses `{word}`, which reads the environment; a proof's filter reads only its input"),
            );
        }
    }
    for word in words(filter) {
        if forbidden.iter().any(|list| list.contains(&word)) {
            ctx.refuse(
                PROOF_4,
                format!("the filter uses `{word}`, which reads modules, files or the environment; a proof's filter reads only its input"),
            );
        }
    }
}

/// A reader of JSON/YAML input files: each must be a readable file.
fn input_status(ctx: &mut Ctx, files: &[String], at: &At, what: &str) -> Option<Facts> {
    for file in files {
        ctx.path(file, "the input file");
    }
    if files.is_empty() && at.head {
        ctx.refuse(
            PROOF_5,
            format!(
                "reads standard input, which is empty here; name the file (`{what} FILTER FILE`)"
            ),
        );
        return None;
    }
    Some(Facts {
        status: Cond::all(files.iter().map(|f| Cond::path(PathTest::ReadableFile, f)))
            .and(ctx.outcome(at)),
    })
}

/// jq flags that only shape the output.
const JQ_NEUTRAL: &[&str] = &[
    "-r",
    "-j",
    "-c",
    "-S",
    "-a",
    "-M",
    "-C",
    "--raw-output",
    "--join-output",
    "--compact-output",
    "--sort-keys",
    "--ascii-output",
    "--monochrome-output",
    "--color-output",
    "--tab",
    "--seq",
    "--unbuffered",
];

pub(super) fn jq(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    // Output-only flags leave the identity, in clusters too (`-er` is `-e`).
    let significant: Vec<String> = args
        .iter()
        .filter(|a| !JQ_NEUTRAL.contains(&a.as_str()))
        .filter_map(|a| match a.strip_prefix('-') {
            Some(letters) if !letters.starts_with('-') && !letters.is_empty() => {
                let mut kept: Vec<char> = letters
                    .chars()
                    .filter(|c| !"rjcSaMC".contains(*c))
                    .collect();
                kept.sort_unstable();
                kept.dedup();
                (!kept.is_empty()).then(|| format!("-{}", kept.into_iter().collect::<String>()))
            }
            _ => Some(a.clone()),
        })
        .collect();
    ctx.identity = Some(format!("jq\0{}", significant.join("\0")));
    let mut filter: Option<&String> = None;
    let mut files: Vec<String> = Vec::new();
    let mut strings_follow = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "-" || arg == "--" {
            ctx.refuse(
                PROOF_2,
                format!("`{arg}` is read differently by jq versions; name the input file"),
            );
            continue;
        }
        if !arg.starts_with('-') {
            if filter.is_none() {
                filter = Some(arg);
            } else if strings_follow {
                // A string for `$ARGS`, not a file (checked all the same:
                // versions differ on where `--args` applies).
                ctx.text(arg, "the argument");
            } else {
                files.push(arg.clone());
            }
            continue;
        }
        if let Some(name) = arg.strip_prefix("--") {
            let takes = |n: usize| -> Option<&[String]> { args.get(i..i + n) };
            match name {
                n if JQ_FLAGS.iter().any(|(_, l)| *l == n) || JQ_LONG_FLAGS.contains(&n) => {}
                "indent" => match takes(1) {
                    Some([n]) => {
                        check_value(ctx, Val::Count, n, "the value of --indent");
                        i += 1;
                    }
                    _ => ctx.refuse(PROOF_2, "`--indent` needs a number"),
                },
                "arg" | "argjson" => match takes(2) {
                    Some([_, _]) => i += 2,
                    _ => ctx.refuse(PROOF_2, format!("`--{name}` needs a name and a value")),
                },
                "slurpfile" | "rawfile" => match takes(2) {
                    Some([_, file]) => {
                        ctx.path(file, &format!("the file of --{name}"));
                        i += 2;
                    }
                    _ => ctx.refuse(PROOF_2, format!("`--{name}` needs a name and a file")),
                },
                "args" | "jsonargs" => strings_follow = true,
                "null-input" => ctx.refuse(
                    PROOF_5,
                    "`--null-input` reads no input, so the result is fixed by the line",
                ),
                "from-file" => ctx.refuse(
                    PROOF_2,
                    "`--from-file` reads the filter from a file; write the filter in the line",
                ),
                "library-path" | "argfile" | "run-tests" => ctx.refuse(
                    PROOF_3,
                    format!("`--{name}` reads modules or files the validator cannot check"),
                ),
                "help" | "version" | "build-configuration" => {
                    ctx.refuse(
                        PROOF_5,
                        format!("`--{name}` prints text and verifies nothing"),
                    );
                }
                _ => ctx.refuse(
                    PROOF_2,
                    format!("`{arg}` is not a jq option a proof may use"),
                ),
            }
            continue;
        }
        // A cluster of one-letter flags (`-er`).
        let letters: Vec<char> = arg.chars().skip(1).collect();
        let mut seen = Vec::new();
        for c in letters {
            if seen.contains(&c) {
                ctx.refuse(PROOF_2, format!("`{arg}` repeats `-{c}`, which jq refuses"));
            }
            seen.push(c);
            match c {
                c if JQ_FLAGS.iter().any(|(s, _)| *s == c) => {}
                'n' => ctx.refuse(
                    PROOF_5,
                    "`-n` reads no input, so the result is fixed by the line",
                ),
                'f' => ctx.refuse(
                    PROOF_2,
                    "`-f` reads the filter from a file; write the filter in the line",
                ),
                'L' => ctx.refuse(
                    PROOF_3,
                    "`-L` loads modules from a folder the validator cannot check",
                ),
                'h' | 'V' => {
                    ctx.refuse(PROOF_5, format!("`-{c}` prints text and verifies nothing"))
                }
                _ => ctx.refuse(
                    PROOF_2,
                    format!("`-{c}` is not a jq option a proof may use"),
                ),
            }
        }
    }
    let Some(filter) = filter else {
        ctx.refuse(PROOF_2, "needs a filter: `jq -e '.name' package.json`");
        return None;
    };
    check_filter(ctx, filter, &[JQ_FILE_WORDS]);
    // `--slurp` turns an empty input into `[]`, printed all the same.
    let slurps = args
        .iter()
        .any(|a| a == "--slurp" || (a.starts_with('-') && !a.starts_with("--") && a.contains('s')));
    if slurps {
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        super::prints_for_any_input(ctx, &names, "`jq --slurp` (an array)");
    }
    input_status(ctx, &files, at, "jq")
}

/// `yq`: either the Python wrapper around jq or mikefarah's yq, whichever
/// is installed; only forms both read alike are allowed.
pub(super) fn yq(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let mut filter: Option<&String> = None;
    let mut files = Vec::new();
    for arg in args {
        match arg.as_str() {
            "-e" | "-r" | "-y" | "-c" => {}
            "-i" | "--in-place" => {
                ctx.refuse(PROOF_2, "`-i` rewrites the file; a proof changes nothing")
            }
            a if a.starts_with('-') => ctx.refuse(
                PROOF_2,
                format!(
                    "`{a}` is not a yq option a proof may use (-e, -r, -y, -c, each on its own)"
                ),
            ),
            _ if filter.is_none() => filter = Some(arg),
            _ => files.push(arg.clone()),
        }
    }
    let Some(filter) = filter else {
        ctx.refuse(PROOF_2, "needs a filter: `yq -e '.name' config.yaml`");
        return None;
    };
    if matches!(
        filter.as_str(),
        "eval" | "e" | "eval-all" | "ea" | "completion" | "shell-completion" | "help"
    ) {
        ctx.refuse(
            PROOF_2,
            format!("`{filter}` is a yq subcommand; write the filter first"),
        );
    }
    check_filter(ctx, filter, &[JQ_FILE_WORDS, YQ_FILE_WORDS]);
    input_status(ctx, &files, at, "yq")
}
