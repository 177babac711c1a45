//! Reading options the way each program reads them.
//!
//! GNU tools use glibc's `getopt_long`: options may follow operands (until
//! `--`), short options cluster (`-qs`), a short option that takes a value
//! takes the rest of its cluster (`-eroot`, `-C..`) or else the next
//! argument, and a long option may be abbreviated to any unique prefix of
//! its name (`--sil` is `--silent`). [`scan`] reproduces that resolution
//! exactly (over each program's *whole* long-option table, hidden options
//! included): an exact name wins; otherwise every option whose name starts
//! with the text matches, and the match is ambiguous unless all of them
//! have the first one's argument style and value (glibc compares each
//! later match with the first only).
//!
//! Other programs (git, cargo, rg, pytest, npm, go) accept only exact long
//! names here: their parsers differ in how they abbreviate, so the
//! validator accepts no abbreviation for them, and an exact name means the
//! same option to every one of those parsers. They also differ on
//! `-o=value` and on separate values that start with `-`; both are refused
//! for them ([`Syntax::strict_values`]).

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arg {
    /// A flag (`no_argument`).
    No,
    /// A value, glued or in the next argument (`required_argument`).
    Required,
    /// A value only when glued (`-jN`, `--jobs=N`) (`optional_argument`).
    Optional,
}

/// A long option as the program's table declares it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Long {
    pub name: &'static str,
    pub arg: Arg,
    /// The option's identity (getopt's `val`): aliases share it.
    pub id: &'static str,
}

/// A short option.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Short {
    pub ch: char,
    pub arg: Arg,
    pub id: &'static str,
}

pub(crate) const fn long(name: &'static str, arg: Arg, id: &'static str) -> Long {
    Long { name, arg, id }
}

pub(crate) const fn short(ch: char, arg: Arg, id: &'static str) -> Short {
    Short { ch, arg, id }
}

/// How a family of parsers reads arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Syntax {
    /// glibc unique-prefix resolution of long options.
    pub abbreviations: bool,
    /// Options may follow operands (until `--`).
    pub permute: bool,
    /// Short flags may be grouped (`-qs`).
    pub clusters: bool,
    /// Long options are written with one dash (Go: `-run`); `--run` too.
    pub single_dash_long: bool,
    /// Refuse `-o=value` and a separate value starting with `-`, which the
    /// exact-name parsers read differently from one another.
    pub strict_values: bool,
    /// A long option's value must be glued with `=` (git: separate values
    /// are read as operands by some of its option parsers).
    pub long_values_glued: bool,
}

/// glibc `getopt_long` with argument permutation.
pub(crate) const GNU: Syntax = Syntax {
    abbreviations: true,
    permute: true,
    clusters: true,
    single_dash_long: false,
    strict_values: false,
    long_values_glued: false,
};

/// Exact long names, clusters, options anywhere (clap, lexopt, argparse).
pub(crate) const EXACT: Syntax = Syntax {
    abbreviations: false,
    permute: true,
    clusters: true,
    single_dash_long: false,
    strict_values: true,
    long_values_glued: false,
};

/// git: exact names; long values only with `=`.
pub(crate) const GIT: Syntax = Syntax {
    long_values_glued: true,
    ..EXACT
};

/// Go's `flag` package as `go test` uses it: `-name`, `--name`,
/// `-name=value`, `-name value`; no clusters.
pub(crate) const GO: Syntax = Syntax {
    abbreviations: false,
    permute: true,
    clusters: false,
    single_dash_long: true,
    strict_values: true,
    long_values_glued: false,
};

/// A program's whole option table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    pub syntax: Syntax,
    pub shorts: &'static [Short],
    pub longs: &'static [Long],
}

/// One argument as the program reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// An option, with its value if it took one.
    Opt {
        id: &'static str,
        /// As written, without the value (`--sil`, `-e`).
        written: String,
        /// The full name (`--silent`, `-e`).
        name: String,
        value: Option<String>,
    },
    /// A non-option argument.
    Operand(String),
    /// `--`: every later argument is an operand.
    EndOfOptions,
}

/// Why the program would not read the options as written, or would read
/// them as something not in its table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// No option of that name or letter.
    Unknown(String),
    /// An abbreviation that matches several options.
    Ambiguous(String, Vec<&'static str>),
    /// A value is missing.
    MissingValue(String),
    /// A flag was given a value (`--count=3`).
    UnexpectedValue(String),
    /// A form the exact-name parsers read differently (`-o=x`, `-o -x`,
    /// `--opt value` for git).
    Unclear(String, String),
}

impl ScanError {
    pub(crate) fn describe(&self, program: &str) -> String {
        match self {
            ScanError::Unknown(o) => {
                format!("`{program}` has no option `{o}` that a proof may use")
            }
            ScanError::Ambiguous(o, names) => format!(
                "`{o}` is ambiguous to `{program}` (it abbreviates {}); write the option in full",
                names
                    .iter()
                    .map(|n| format!("`--{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ScanError::MissingValue(o) => format!("`{o}` needs a value"),
            ScanError::UnexpectedValue(o) => format!("`{o}` takes no value"),
            ScanError::Unclear(o, how) => format!("`{o}`: {how}"),
        }
    }
}

/// Resolves a long option name as glibc does: exact match first, else a
/// unique prefix (matches identical to the first one do not count).
pub(crate) fn resolve_long(
    longs: &'static [Long],
    name: &str,
    abbreviations: bool,
) -> Result<&'static Long, ScanError> {
    if let Some(exact) = longs.iter().find(|l| l.name == name) {
        return Ok(exact);
    }
    if !abbreviations || name.is_empty() {
        return Err(ScanError::Unknown(format!("--{name}")));
    }
    let mut matches = longs.iter().filter(|l| l.name.starts_with(name));
    let Some(first) = matches.next() else {
        return Err(ScanError::Unknown(format!("--{name}")));
    };
    let others: Vec<&Long> = matches
        .filter(|l| l.arg != first.arg || l.id != first.id)
        .collect();
    if others.is_empty() {
        Ok(first)
    } else {
        let mut names = vec![first.name];
        names.extend(others.iter().map(|l| l.name));
        Err(ScanError::Ambiguous(format!("--{name}"), names))
    }
}

/// Reads `args` (without the program name) as `table` says.
pub(crate) fn scan(table: &Table, args: &[String]) -> Result<Vec<Item>, ScanError> {
    let syntax = table.syntax;
    let mut items = Vec::with_capacity(args.len());
    let mut options_done = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if options_done || arg == "-" || !arg.starts_with('-') {
            items.push(Item::Operand(arg.clone()));
            if !syntax.permute {
                options_done = true;
            }
            continue;
        }
        if arg == "--" {
            items.push(Item::EndOfOptions);
            options_done = true;
            continue;
        }
        let long_body = if let Some(body) = arg.strip_prefix("--") {
            Some(body)
        } else if syntax.single_dash_long {
            arg.strip_prefix('-')
        } else {
            None
        };
        if let Some(body) = long_body {
            let (name, glued) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let written = format!("--{name}");
            let option = resolve_long(table.longs, name, syntax.abbreviations)?;
            let full = format!("--{}", option.name);
            let value = match option.arg {
                Arg::No => {
                    if glued.is_some() {
                        return Err(ScanError::UnexpectedValue(full));
                    }
                    None
                }
                Arg::Optional => glued,
                Arg::Required => match glued {
                    Some(v) => Some(v),
                    None => {
                        if syntax.long_values_glued {
                            return Err(ScanError::Unclear(
                                written,
                                format!("write the value glued: `{full}=VALUE`"),
                            ));
                        }
                        let Some(next) = args.get(i) else {
                            return Err(ScanError::MissingValue(full));
                        };
                        if syntax.strict_values && next.starts_with('-') {
                            return Err(ScanError::Unclear(
                                written,
                                format!(
                                    "its value `{next}` starts with `-`, which some parsers read \
                                     as an option; write `{full}={next}`"
                                ),
                            ));
                        }
                        i += 1;
                        Some(next.clone())
                    }
                },
            };
            items.push(Item::Opt {
                id: option.id,
                written,
                name: full,
                value,
            });
            continue;
        }
        // A cluster of short options.
        let letters: Vec<char> = arg.chars().skip(1).collect();
        let mut j = 0;
        while j < letters.len() {
            let c = letters[j];
            let Some(option) = table.shorts.iter().find(|s| s.ch == c) else {
                return Err(ScanError::Unknown(format!("-{c}")));
            };
            let written = format!("-{c}");
            j += 1;
            match option.arg {
                Arg::No => {
                    if j < letters.len() && !syntax.clusters {
                        return Err(ScanError::Unclear(
                            arg.clone(),
                            "write each option separately".into(),
                        ));
                    }
                    items.push(Item::Opt {
                        id: option.id,
                        written: written.clone(),
                        name: written,
                        value: None,
                    });
                }
                Arg::Optional | Arg::Required => {
                    let rest: String = letters[j..].iter().collect();
                    j = letters.len();
                    let value = if !rest.is_empty() {
                        if syntax.strict_values && rest.starts_with('=') {
                            return Err(ScanError::Unclear(
                                arg.clone(),
                                format!(
                                    "parsers disagree on `{written}=`; write `{written} {}`",
                                    &rest[1..]
                                ),
                            ));
                        }
                        Some(rest)
                    } else if option.arg == Arg::Optional {
                        None
                    } else {
                        let Some(next) = args.get(i) else {
                            return Err(ScanError::MissingValue(written));
                        };
                        if syntax.strict_values && next.starts_with('-') && next != "-" {
                            return Err(ScanError::Unclear(
                                written.clone(),
                                format!(
                                    "its value `{next}` starts with `-`, which some parsers read \
                                     as an option"
                                ),
                            ));
                        }
                        i += 1;
                        Some(next.clone())
                    };
                    items.push(Item::Opt {
                        id: option.id,
                        written: written.clone(),
                        name: written,
                        value,
                    });
                }
            }
        }
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONGS: &[Long] = &[
        long("color", Arg::Optional, "color"),
        long("colour", Arg::Optional, "color"),
        long("context", Arg::Required, "C"),
        long("count", Arg::No, "c"),
        long("quiet", Arg::No, "q"),
        long("silent", Arg::No, "q"),
        long("regexp", Arg::Required, "e"),
        long("group-separator", Arg::Required, "gs"),
        long("no-group-separator", Arg::No, "gs"),
    ];
    const SHORTS: &[Short] = &[
        short('q', Arg::No, "q"),
        short('c', Arg::No, "c"),
        short('e', Arg::Required, "e"),
        short('j', Arg::Optional, "j"),
    ];
    const TABLE: Table = Table {
        syntax: GNU,
        shorts: SHORTS,
        longs: LONGS,
    };

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn ids(list: &[&str]) -> Vec<(String, Option<String>)> {
        scan(&TABLE, &args(list))
            .unwrap()
            .into_iter()
            .map(|item| match item {
                Item::Opt { name, value, .. } => (name, value),
                Item::Operand(o) => (format!("operand {o}"), None),
                Item::EndOfOptions => ("--".into(), None),
            })
            .collect()
    }

    #[test]
    fn getopt_long_prefixes_resolve_as_glibc() {
        assert_eq!(ids(&["--sil"])[0].0, "--silent");
        assert_eq!(ids(&["--q"])[0].0, "--quiet");
        // color and colour share a value: not ambiguous, the first wins.
        assert_eq!(
            ids(&["--col=never"])[0],
            ("--color".into(), Some("never".into()))
        );
        assert!(matches!(
            scan(&TABLE, &args(&["--co"])),
            Err(ScanError::Ambiguous(..))
        ));
        assert!(matches!(
            scan(&TABLE, &args(&["--cou=1"])),
            Err(ScanError::UnexpectedValue(_))
        ));
        // Same value, different argument style: ambiguous in glibc.
        const ALIASES: &[Long] = &[long("ab", Arg::No, "x"), long("abc", Arg::Required, "x")];
        assert!(matches!(
            resolve_long(ALIASES, "a", true),
            Err(ScanError::Ambiguous(..))
        ));
        assert_eq!(resolve_long(ALIASES, "ab", true).map(|l| l.name), Ok("ab"));
        assert!(matches!(
            scan(&TABLE, &args(&["--x"])),
            Err(ScanError::Unknown(_))
        ));
    }

    #[test]
    fn clusters_values_and_permutation() {
        assert_eq!(
            ids(&["-qceroot", "f", "-c"]),
            vec![
                ("-q".into(), None),
                ("-c".into(), None),
                ("-e".into(), Some("root".into())),
                ("operand f".into(), None),
                ("-c".into(), None),
            ]
        );
        assert_eq!(ids(&["-e", "-x"])[0], ("-e".into(), Some("-x".into())));
        assert_eq!(ids(&["-j", "4"])[1].0, "operand 4");
        assert_eq!(ids(&["-j4"])[0], ("-j".into(), Some("4".into())));
        assert_eq!(
            ids(&["--context", "3"])[0],
            ("--context".into(), Some("3".into()))
        );
        assert_eq!(ids(&["--", "-q"])[1].0, "operand -q");
        assert_eq!(ids(&["-"])[0].0, "operand -");
    }

    #[test]
    fn exact_parsers_refuse_unclear_forms() {
        let exact = Table {
            syntax: EXACT,
            ..TABLE
        };
        assert!(scan(&exact, &args(&["--sil"])).is_err());
        assert!(scan(&exact, &args(&["-e=x"])).is_err());
        assert!(scan(&exact, &args(&["-e", "-x"])).is_err());
        assert!(scan(&exact, &args(&["--regexp", "-x"])).is_err());
        let git = Table {
            syntax: GIT,
            ..TABLE
        };
        assert!(scan(&git, &args(&["--regexp", "x"])).is_err());
        assert!(scan(&git, &args(&["--regexp=x"])).is_ok());
    }
}
