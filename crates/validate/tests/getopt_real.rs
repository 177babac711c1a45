//! The validator's GNU option tables against the real programs: for every
//! prefix of every long option of grep, cat, head, tail, wc, ls, diff, cmp
//! and make, the validator must resolve the abbreviation exactly as the
//! installed program does (glibc `getopt_long`): the same option, the same
//! "ambiguous", the same "unrecognized". A table that drifts from the
//! installed version fails here.
#![allow(clippy::disallowed_methods)] // runs the real GNU programs on bogus options
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ploy_validate::{GNU_PROGRAMS, LongOption, gnu_long_option, gnu_long_options};

/// A missing program fails the test under PLOY_TEST_STRICT=1 (CI), and
/// skips it with a message otherwise.
// Test-kit spot: replace with the shared strict helper once it lands.
fn installed(program: &str) -> bool {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false);
    if !found {
        assert!(
            std::env::var_os("PLOY_TEST_STRICT").is_none_or(|v| v != "1"),
            "{program} is not installed (scripts/setup.sh installs it); PLOY_TEST_STRICT=1"
        );
        eprintln!("skipped: {program} is not installed");
    }
    found
}

/// Runs `program args` in an empty folder with empty input, for at most
/// five seconds; returns its standard error.
fn stderr_of(program: &str, args: &[&str], dir: &std::path::Path) -> String {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .env_remove("POSIXLY_CORRECT")
        .env_remove("MAKEFLAGS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// What the real program made of `--name=…` and `--name`.
#[derive(Debug, PartialEq)]
enum Real {
    Resolved(String),
    /// Took a value without complaint (an option with an optional or
    /// required value whose name the program did not print).
    TookValue,
    Ambiguous,
    Unknown,
}

fn quoted_option(text: &str, before: &str) -> Option<String> {
    let start = text.find(before)? + before.len();
    let rest = &text[start..];
    let end = rest.find('\'')?;
    Some(rest[..end].trim_start_matches('-').to_string())
}

fn real(program: &str, name: &str, dir: &std::path::Path) -> Real {
    let with_value = stderr_of(program, &[&format!("--{name}=ploy-bogus")], dir);
    if with_value.contains("is ambiguous") {
        return Real::Ambiguous;
    }
    if with_value.contains("unrecognized option") {
        return Real::Unknown;
    }
    if with_value.contains("doesn't allow an argument") {
        return Real::Resolved(quoted_option(&with_value, "option '").unwrap());
    }
    let without = stderr_of(program, &[&format!("--{name}")], dir);
    if without.contains("requires an argument") {
        return Real::Resolved(quoted_option(&without, "option '").unwrap());
    }
    Real::TookValue
}

// proves: PROOF-2 (GNU abbreviations resolve exactly as the installed programs resolve them)
#[test]
fn gnu_abbreviations_match_the_installed_programs() {
    let dir = std::env::temp_dir().join(format!("ploy-getopt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut mismatches = Vec::new();
    let mut compared = 0;
    let mut resolved_by_name = 0;
    for program in GNU_PROGRAMS {
        if !installed(program) {
            continue;
        }
        let names = gnu_long_options(program).unwrap();
        let mut prefixes: Vec<String> = Vec::new();
        for name in &names {
            for end in 1..=name.len() {
                let prefix = name[..end].to_string();
                if !prefix.starts_with('-') && !prefixes.contains(&prefix) {
                    prefixes.push(prefix);
                }
            }
        }
        // Text no option starts with.
        prefixes.push("zz-ploy".into());
        for prefix in &prefixes {
            let mine = gnu_long_option(program, prefix).unwrap();
            let theirs = real(program, prefix, &dir);
            compared += 1;
            if matches!(theirs, Real::Resolved(_) | Real::Ambiguous | Real::Unknown) {
                resolved_by_name += 1;
            }
            let agree = match (&mine, &theirs) {
                (LongOption::Exact(n) | LongOption::Abbreviation(n), Real::Resolved(r)) => n == r,
                (LongOption::Exact(_) | LongOption::Abbreviation(_), Real::TookValue) => true,
                (LongOption::Ambiguous(_), Real::Ambiguous) => true,
                (LongOption::Unknown, Real::Unknown) => true,
                _ => false,
            };
            if !agree {
                mismatches.push(format!(
                    "{program} --{prefix}: validator {mine:?}, program {theirs:?}"
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{compared} readings compared, {resolved_by_name} named by the program");
    // Most readings name the option (or refuse): the comparison is not vacuous.
    assert!(
        compared == 0 || resolved_by_name * 4 > compared * 3,
        "{resolved_by_name} of {compared}"
    );
    assert!(
        mismatches.is_empty(),
        "{} of {compared} readings differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
