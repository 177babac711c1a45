//! The strict-mode helper, run for real: this test binary runs itself again
//! as a child whose one test misses a fake part, once strict and once not.

#![allow(clippy::disallowed_methods, clippy::unwrap_used)] // runs this test binary again (the child)

use std::process::Command;

use ploy_testkit::strict::{SKIP_LOG_ENV, STRICT_ENV};

/// Set only in the child run: the fake test below does its work only there.
const CHILD: &str = "PLOY_TESTKIT_STRICT_CHILD";

/// The child's test: a part that never exists. Outside the child run it is
/// a no-op (it is a fixture of the test below, not a test of its own).
#[test]
fn fake_missing_part() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let missing: Result<(), &str> = Err("this part never exists (the strict-mode test)");
    ploy_testkit::require_part!("fake-part", missing);
    panic!("require_part! let a test run without its part");
}

fn child(strict: &str, log: Option<&std::path::Path>) -> std::process::Output {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", "fake_missing_part", "--test-threads=1"])
        .env(CHILD, "1")
        .env(STRICT_ENV, strict)
        .env_remove(SKIP_LOG_ENV);
    if let Some(log) = log {
        command.env(SKIP_LOG_ENV, log);
    }
    command.output().unwrap()
}

// PLOY_TEST_STRICT=1 with a missing part fails the test, naming the part
// and the reason; without it the test stops early and the skip is counted.
#[test]
fn a_missing_part_fails_under_strict_mode_and_is_logged_otherwise() {
    let strict = child("1", None);
    let stdout = String::from_utf8_lossy(&strict.stdout);
    assert!(!strict.status.success(), "strict run passed:\n{stdout}");
    assert!(stdout.contains("1 failed"), "{stdout}");
    assert!(
        stdout.contains("PLOY_TEST_STRICT is set and strict::fake_missing_part cannot get its real part: missing fake-part: this part never exists"),
        "{stdout}"
    );

    let dir = std::env::temp_dir().join(format!("ploy-testkit-skiplog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("skips");
    let lenient = child("0", Some(&log));
    let stdout = String::from_utf8_lossy(&lenient.stdout);
    assert!(lenient.status.success(), "lenient run failed:\n{stdout}");
    let skips = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        skips,
        "SKIP strict::fake_missing_part: missing fake-part: this part never exists (the strict-mode test)\n"
    );
}
