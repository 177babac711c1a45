//! `find` (GNU findutils): starting points, then an expression of tests
//! and operators. No action except printing: `-exec`, `-ok`, `-delete`,
//! `-fprint` and the like are refused.

use super::{At, Ctx, Facts, Val, check_value, zero_count};
use crate::vacuity::{Cond, PathTest};
use crate::{PROOF_2, PROOF_3, PROOF_5};

/// `-mindepth` from which find prints nothing in any real project.
const MAX_DEPTH: u64 = 32;

/// What follows an expression word, and whether a proof may use it.
enum Primary {
    /// No argument.
    Flag,
    /// One argument of this kind.
    Arg(Val),
    /// Refused under this rule.
    No(&'static str, &'static str),
}

const RUNS: Primary = Primary::No(PROOF_2, "runs programs; a proof runs no hidden program");
const WRITES: Primary = Primary::No(PROOF_2, "writes a file; a proof writes no file");
const NUMBER: Primary = Primary::Arg(Val::Count);
const PATTERN: Primary = Primary::Arg(Val::Pattern);

fn primary(word: &str) -> Option<Primary> {
    Some(match word {
        // Operators.
        "(" | ")" | "!" | "," | "-not" | "-a" | "-and" | "-o" | "-or" => Primary::Flag,
        // Global options and positional options.
        "-maxdepth" | "-mindepth" => NUMBER,
        "-depth"
        | "-xdev"
        | "-mount"
        | "-noleaf"
        | "-daystart"
        | "-ignore_readdir_race"
        | "-noignore_readdir_race"
        | "-warn"
        | "-nowarn" => Primary::Flag,
        "-regextype" => Primary::Arg(Val::Choice(&[
            "findutils-default",
            "ed",
            "emacs",
            "gnu-awk",
            "grep",
            "posix-awk",
            "awk",
            "posix-basic",
            "posix-egrep",
            "egrep",
            "posix-extended",
            "posix-minimal-basic",
            "sed",
        ])),
        "-follow" => Primary::No(PROOF_3, "follows symbolic links out of the folder; drop it"),
        "-d" => Primary::No(PROOF_2, "is an obsolete spelling; write -depth"),
        // Tests.
        "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex"
        | "-iregex" | "-lname" | "-ilname" => PATTERN,
        "-type" | "-xtype" => Primary::Arg(Val::Text),
        "-size" | "-mtime" | "-mmin" | "-atime" | "-amin" | "-ctime" | "-cmin" | "-used"
        | "-links" | "-inum" | "-uid" | "-gid" => NUMBER,
        "-perm" => Primary::Arg(Val::Text),
        "-user" | "-group" | "-fstype" => Primary::Arg(Val::Name),
        "-newer" | "-anewer" | "-cnewer" | "-samefile" => Primary::Arg(Val::Path),
        "-empty" | "-readable" | "-writable" | "-executable" | "-nouser" | "-nogroup" | "-true" => {
            Primary::Flag
        }
        "-false" => Primary::No(
            PROOF_5,
            "matches nothing, so find prints nothing whatever the project holds",
        ),
        // Actions.
        "-print" | "-print0" | "-prune" => Primary::Flag,
        "-quit" => Primary::No(
            PROOF_5,
            "is not needed in a proof; find's exit status does not depend on it",
        ),
        "-exec" | "-execdir" | "-ok" | "-okdir" => RUNS,
        "-delete" => Primary::No(PROOF_2, "deletes files; a proof changes nothing"),
        "-fprint" | "-fprint0" | "-fls" | "-fprintf" => WRITES,
        "-printf" | "-ls" => Primary::No(PROOF_2, "is not needed in a proof; use -print"),
        "-files0-from" => Primary::No(
            PROOF_3,
            "reads starting points from a file the validator cannot check; name them",
        ),
        "-context" => Primary::No(PROOF_2, "is not needed in a proof"),
        "-help" | "--help" | "-version" | "--version" => {
            Primary::No(PROOF_5, "prints text and verifies nothing")
        }
        w if w.starts_with("-newer") => {
            Primary::No(PROOF_2, "is not needed in a proof; write -newer FILE")
        }
        _ => return None,
    })
}

/// findutils' `looks_like_expression`: where the starting points end.
fn starts_expression(arg: &str) -> bool {
    match arg {
        "!" | "(" | ")" | "," => true,
        a => a.starts_with('-') && a.len() > 1,
    }
}

pub(super) fn find(ctx: &mut Ctx, args: &[String], _at: &At) -> Option<Facts> {
    let mut i = 0;
    // Leading options: only -P (never follow links), the default.
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-P" => i += 1,
            "--" => {
                i += 1;
                break;
            }
            "-H" | "-L" => {
                ctx.refuse(
                    PROOF_3,
                    format!("`{arg}` follows symbolic links out of the folder; drop it"),
                );
                return None;
            }
            a if a.starts_with("-D") || a.starts_with("-O") => {
                ctx.refuse(
                    PROOF_2,
                    format!("`{a}` is a debugging option, not needed in a proof"),
                );
                return None;
            }
            _ => break,
        }
    }
    let mut starts = Vec::new();
    while let Some(arg) = args.get(i) {
        if starts_expression(arg) {
            break;
        }
        ctx.path(arg, "the starting point");
        starts.push(arg.clone());
        i += 1;
    }
    let only_project = starts.iter().all(|s| crate::vacuity::path_key(s).0 == ".");
    if only_project
        && args[i..].iter().all(|w| {
            matches!(
                w.as_str(),
                "-print" | "-depth" | "-xdev" | "-mount" | "-noleaf" | "-daystart"
            )
        })
    {
        ctx.fixed_lines =
            Some("prints `.` whatever the project holds; filter it (`find . -name X`)");
    }
    if only_project {
        ctx.note = Some(
            "`find` in the project folder succeeds whatever it finds; pipe it into `grep -q`, or name the folders that must exist",
        );
    }
    while let Some(word) = args.get(i) {
        i += 1;
        if word == "-maxdepth" && only_project && args.get(i).is_some_and(|v| zero_count(v)) {
            ctx.refuse(
                PROOF_5,
                "`-maxdepth 0` from the project folder only ever names `.` itself",
            );
        }
        // A project is never that deep (PATH_MAX allows about 2,000
        // levels, real trees a few dozen): `-mindepth 99` prints nothing
        // (proof5 #17).
        if word == "-mindepth"
            && let Some(value) = args.get(i)
            && value.bytes().all(|b| b.is_ascii_digit())
            && value.trim_start_matches('0').len() >= 2
            && value
                .trim_start_matches('0')
                .parse::<u64>()
                .map_or(true, |d| d >= MAX_DEPTH)
        {
            ctx.silent = true;
        }
        if matches!(word.as_str(), "-maxdepth" | "-mindepth")
            && let Some(value) = args.get(i)
            && (value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()))
        {
            ctx.refuse(
                PROOF_5,
                format!("`{word} {value}`: find takes a plain non-negative number and stops with an error on anything else, so the outcome is fixed"),
            );
        }
        match primary(word) {
            None => {
                if word.starts_with('-') {
                    ctx.refuse(
                        PROOF_2,
                        format!("`{word}` is not a find test a proof may use"),
                    );
                } else {
                    ctx.refuse(
                        PROOF_2,
                        format!("`{word}` stands where a test or operator is expected (starting points come first)"),
                    );
                }
            }
            Some(Primary::Flag) => {}
            Some(Primary::No(rule, why)) => {
                ctx.refuse(rule, format!("`{word}` {why}"));
                if matches!(word.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                    return None;
                }
            }
            Some(Primary::Arg(kind)) => match args.get(i) {
                Some(value) => {
                    check_value(ctx, kind, value, &format!("the argument of {word}"));
                    i += 1;
                }
                None => ctx.refuse(PROOF_2, format!("`{word}` needs an argument")),
            },
        }
    }
    // find fails when a starting point is missing; without one it searches
    // the project folder, which is always there.
    Some(Facts {
        status: Cond::all(starts.iter().map(|s| Cond::path(PathTest::Present, s))),
    })
}
