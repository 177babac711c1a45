//! No silent skips.
//!
//! A test that cannot get a real part it needs (headless Chromium, root,
//! `chattr`, an unprivileged user, namespaces…) calls [`require_part`] (or
//! the [`require_part!`](crate::require_part!) macro) with the part's name
//! and either the part or the reason it is missing:
//!
//! * part present: the test gets it and runs;
//! * part missing, `PLOY_TEST_STRICT` set (anything but empty or `0`; CI
//!   sets `1`): the test **fails**, naming the part and the reason;
//! * part missing otherwise: the test stops early, and one line
//!   `SKIP <test>: missing <part>: <reason>` is appended to the file named by
//!   `PLOY_TEST_SKIP_LOG` (set by `scripts/test.sh`, which prints those lines
//!   and counts them as skipped in its closing line) and printed to stderr.
//!
//! cargo hides a passing test's output, so the file is what makes a skip
//! visible; a test that returns early without calling this is a silent skip.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

/// Set to anything but empty or `0`: a missing part fails the test.
pub const STRICT_ENV: &str = "PLOY_TEST_STRICT";

/// The file each skip is appended to (one line per skip).
pub const SKIP_LOG_ENV: &str = "PLOY_TEST_SKIP_LOG";

/// What to do about a missing part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Fail the test (CI).
    Strict,
    /// Record the skip and let the test return early.
    Lenient,
}

impl Mode {
    /// The mode `PLOY_TEST_STRICT` asks for.
    pub fn from_env() -> Self {
        Self::from_value(
            std::env::var_os(STRICT_ENV)
                .as_deref()
                .and_then(|v| v.to_str()),
        )
    }

    /// The mode for a value of `PLOY_TEST_STRICT`: unset, empty and `0` are
    /// lenient; anything else (even unreadable) is strict.
    pub fn from_value(value: Option<&str>) -> Self {
        match value.map(str::trim) {
            None | Some("" | "0") => Self::Lenient,
            Some(_) => Self::Strict,
        }
    }
}

/// The part, or `None` after recording why the test cannot run (the test
/// then returns). Panics, failing the test, when `PLOY_TEST_STRICT` is set.
///
/// `part` names the missing thing the way a person would install or grant
/// it ("chromium", "root", "chattr"); `available` carries the part or a
/// reason that says how to get it.
#[track_caller]
pub fn require_part<T, E: std::fmt::Display>(part: &str, available: Result<T, E>) -> Option<T> {
    match available {
        Ok(value) => Some(value),
        Err(reason) => {
            let log = std::env::var_os(SKIP_LOG_ENV);
            let missing = Missing {
                test: current_test(),
                part: part.to_owned(),
                reason: reason.to_string(),
            };
            match decide(Mode::from_env(), log.as_deref().map(Path::new), &missing) {
                Ok(()) => None,
                Err(failure) => panic!("{failure}"),
            }
        }
    }
}

/// Stops the test unless the part is there; see [`require_part`].
///
/// ```
/// fn find_chromium() -> Result<std::path::PathBuf, String> {
///     Err("no chromium on PATH; install it (Debian: apt-get install -y chromium)".into())
/// }
///
/// fn browser_test() {
///     let chromium = ploy_testkit::require_part!("chromium", find_chromium());
///     assert!(chromium.is_absolute());
/// }
/// ```
#[macro_export]
macro_rules! require_part {
    ($part:expr, $available:expr $(,)?) => {
        match $crate::strict::require_part($part, $available) {
            Some(value) => value,
            None => return,
        }
    };
}

/// A test's missing part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The test (`<binary>::<test path>`).
    pub test: String,
    /// The part, named the way a person would install or grant it.
    pub part: String,
    /// Why it is missing, and how to get it.
    pub reason: String,
}

impl Missing {
    /// `missing <part>: <reason>` on one line (a newline in the reason would
    /// split the skip count).
    fn what(&self) -> String {
        let reason = self.reason.replace(['\n', '\r'], " ");
        format!("missing {}: {reason}", self.part)
    }

    /// The line recorded for the skip: `SKIP <test>: missing <part>: <reason>`.
    pub fn skip_line(&self) -> String {
        format!("SKIP {}: {}", self.test, self.what())
    }
}

/// What happens to a skip in `mode`: strict is an error (the test's
/// failure message); lenient appends the line to `log` (when set) and
/// prints it. An unwritable log is a failure too: a skip nobody counts is
/// a silent skip.
pub fn decide(mode: Mode, log: Option<&Path>, missing: &Missing) -> Result<(), String> {
    if mode == Mode::Strict {
        return Err(format!(
            "{STRICT_ENV} is set and {} cannot get its real part: {}",
            missing.test,
            missing.what()
        ));
    }
    let line = missing.skip_line();
    eprintln!("{line}");
    if let Some(log) = log {
        let written = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            // One write of the whole line, so parallel tests do not interleave.
            .and_then(|mut file| file.write_all(format!("{line}\n").as_bytes()));
        if let Err(error) = written {
            return Err(format!(
                "could not record the skip in {} ({error}): {line}",
                log.display()
            ));
        }
    }
    Ok(())
}

/// The running test's name: libtest names each test's thread after it.
fn current_test() -> String {
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("a test");
    let binary = std::env::args()
        .next()
        .and_then(|path| {
            Path::new(&path)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .map(|name| match name.rsplit_once('-') {
            // cargo's test binaries end in `-<hash>`.
            Some((stem, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => stem.to_owned(),
            _ => name,
        })
        .unwrap_or_default();
    if binary.is_empty() {
        name.to_owned()
    } else {
        format!("{binary}::{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_fail_closed() {
        assert_eq!(Mode::from_value(None), Mode::Lenient);
        assert_eq!(Mode::from_value(Some("")), Mode::Lenient);
        assert_eq!(Mode::from_value(Some("0")), Mode::Lenient);
        assert_eq!(Mode::from_value(Some("1")), Mode::Strict);
        assert_eq!(Mode::from_value(Some("yes")), Mode::Strict);
        assert_eq!(Mode::from_value(Some("false")), Mode::Strict);
    }

    #[test]
    fn strict_is_a_failure_naming_the_part_and_lenient_is_one_logged_line() {
        let missing = |test: &str, part: &str, reason: &str| Missing {
            test: test.into(),
            part: part.into(),
            reason: reason.into(),
        };
        let chromium = missing("t::x", "chromium", "not on PATH\ninstall it");
        assert_eq!(
            chromium.skip_line(),
            "SKIP t::x: missing chromium: not on PATH install it"
        );
        let failure = decide(Mode::Strict, None, &chromium).unwrap_err();
        assert_eq!(
            failure,
            "PLOY_TEST_STRICT is set and t::x cannot get its real part: missing chromium: not on PATH install it"
        );

        let dir = std::env::temp_dir().join(format!("ploy-testkit-strict-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("skips");
        decide(Mode::Lenient, Some(&log), &chromium).unwrap();
        decide(Mode::Lenient, Some(&log), &missing("t::y", "root", "r")).unwrap();
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            text,
            "SKIP t::x: missing chromium: not on PATH install it\nSKIP t::y: missing root: r\n"
        );
        // A log that cannot be written is not a quiet skip.
        assert!(decide(Mode::Lenient, Some(&dir.join("no/such/dir/x")), &chromium).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_present_part_is_handed_over() {
        assert_eq!(require_part("x", Ok::<_, String>(5)), Some(5));
    }
}
