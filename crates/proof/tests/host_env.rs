//! An extension never receives ploy's secret-looking environment variables
//! (SBX-4, TRUST-6): checked end to end with a real ploy process holding
//! canaries and a real extension program printing its whole environment.
#![allow(clippy::disallowed_methods)] // re-runs this test binary with canaries set

use std::path::PathBuf;
use std::time::Duration;

use ploy_proof::host::{ExchangeLimits, HostProgram, exchange_line};

/// Set in the re-run child: it then performs the exchange itself.
const CHILD_MARKER: &str = "PLOY_HOST_ENV_TEST_CHILD";
const CANARY: &str = "canary-7f3a9c1e5b";

fn run_extension_and_check() {
    let program = HostProgram {
        program: PathBuf::from("/bin/sh"),
        // The whole environment on one line, so the one-line protocol holds.
        args: vec!["-c".to_owned(), "env | tr '\\n' ' '; echo".to_owned()],
        working_dir: None,
    };
    let limits = ExchangeLimits {
        timeout: Duration::from_secs(10),
        max_response_bytes: 1024 * 1024,
    };
    let seen = match exchange_line(&program, "{}", &limits) {
        Ok(seen) => seen,
        Err(err) => panic!("the extension gave no answer: {err}"),
    };
    assert!(
        !seen.contains(CANARY),
        "a secret reached the extension: {seen}"
    );
    assert!(!seen.contains("OPENAI_API_KEY"), "{seen}");
    assert!(!seen.contains("MY_SERVICE_TOKEN"), "{seen}");
    assert!(!seen.contains("db_password"), "{seen}");
    // Ordinary variables still arrive, so the test sees a real environment.
    assert!(seen.contains("PLOY_HOST_ENV_PLAIN=visible"), "{seen}");
}

// proves: SBX-4
// proves: TRUST-6
#[test]
fn secret_canaries_in_ploys_environment_never_reach_an_extension() {
    if std::env::var_os(CHILD_MARKER).is_some() {
        run_extension_and_check();
        return;
    }
    // The canaries must be in ploy's OWN environment (inherited at exec), so
    // this test runs itself again as a child process that holds them.
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "secret_canaries_in_ploys_environment_never_reach_an_extension",
            "--test-threads=1",
        ])
        .env(CHILD_MARKER, "1")
        .env("OPENAI_API_KEY", CANARY)
        .env("MY_SERVICE_TOKEN", CANARY)
        .env("db_password", CANARY)
        .env("PLOY_HOST_ENV_PLAIN", "visible")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the child run failed: {stdout}");
    // A filter that matched nothing would also exit 0: require the one run.
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test: {stdout}"
    );
}
