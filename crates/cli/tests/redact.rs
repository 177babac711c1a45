//! `ploy redact` end to end (REDACT-1, A-1): the real binary, real pipes.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use support::{TempDir, stderr};

use std::io::{Read, Write};
use std::process::{Output, Stdio};

const ENV_SECRET: &str = "sk-ant-CANARY-env-3f9a1c77d2e4";
const FLAG_SECRET: &str = "flag-secret-CANARY-81be0d";
const FILE_SECRET_1: &str = "file-secret-one-CANARY";
const FILE_SECRET_2: &str = "file secret two \"quoted\" é";

/// `ploy redact ARGS` with a clean environment plus `env`, fed `input`.
fn redact(args: &[&str], env: &[(&str, &str)], input: &[u8]) -> Output {
    let home = TempDir::new("redact");
    let mut command = support::ploy_with_clean_env(home.path());
    command.arg("redact").args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    support::run_with_input(&mut command, input)
}

/// Strict UTF-8: redaction must never leave broken text behind.
fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf8 stdout")
}

// proves: REDACT-1, A-1 (the secret-looking variables of its own environment
// are known by default, raw and encoded)
#[test]
fn environment_secrets_are_redacted_by_default() {
    let input = format!(
        "key={ENV_SECRET}\njson=\"{}\"\nurl=?k={}\n",
        ENV_SECRET, "sk-ant-CANARY-env-3f9a1c77d2e4"
    );
    let output = redact(
        &[],
        &[
            ("ANTHROPIC_API_KEY", ENV_SECRET),
            ("HOME", "/nonexistent-home"),
        ],
        input.as_bytes(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    assert_eq!(
        out,
        "key=[REDACTED]\njson=\"[REDACTED]\"\nurl=?k=[REDACTED]\n"
    );
    // A key-shaped value is a secret under any name (issue 14).
    let output = redact(&[], &[("GREETING", ENV_SECRET)], input.as_bytes());
    assert!(output.status.success());
    assert_eq!(
        stdout(&output),
        "key=[REDACTED]\njson=\"[REDACTED]\"\nurl=?k=[REDACTED]\n"
    );
    // An ordinary value under a name that is not secret-looking is not used.
    let plain = "hello there, ordinary greeting words\n";
    let output = redact(
        &[],
        &[("GREETING", "ordinary greeting words")],
        plain.as_bytes(),
    );
    assert!(output.status.success());
    assert_eq!(stdout(&output), plain);
}

// proves: REDACT-1 (--secret-env and --secret-file add secrets; encodings caught)
#[test]
fn flag_and_file_secrets_are_redacted() {
    let dir = TempDir::new("redact");
    // CRLF line ends and blank lines are tolerated.
    let file = dir.write(
        "secrets.txt",
        format!("{FILE_SECRET_1}\r\n\n{FILE_SECRET_2}\n"),
    );
    let json_two = serde_json::to_string(FILE_SECRET_2).unwrap();
    let input = format!(
        "a {FLAG_SECRET} b {FILE_SECRET_1} c {json_two} d {} e\n",
        FLAG_SECRET
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    let output = redact(
        &[
            "--secret-env",
            "MY_VALUE",
            "--secret-file",
            file.to_str().unwrap(),
        ],
        &[("MY_VALUE", FLAG_SECRET)],
        input.as_bytes(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "a [REDACTED] b [REDACTED] c \"[REDACTED]\" d [REDACTED] e\n"
    );
    assert!(!stderr(&output).contains("CANARY"));
}

// proves: REDACT-1 (fail closed: a named variable that is unset stops the
// command with exit 1 and a clear message; nothing is copied)
#[test]
fn unset_secret_env_fails_closed() {
    let output = redact(&["--secret-env", "PLOY_TEST_UNSET"], &[], b"data\n");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "copied without the secret");
    let err = stderr(&output);
    assert!(err.contains("PLOY_TEST_UNSET"), "{err}");
    assert!(err.contains("not set"), "{err}");
    assert!(err.contains("REDACT-1"), "{err}");
    assert!(err.contains("hint:"), "{err}");
}

// proves: REDACT-1 (fail closed: an unreadable secret file stops the command)
#[test]
fn unreadable_secret_file_fails_closed() {
    let dir = TempDir::new("redact");
    let missing = dir.path().join("missing.txt");
    let output = redact(
        &["--secret-file", missing.to_str().unwrap()],
        &[],
        b"data\n",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let err = stderr(&output);
    assert!(err.contains("missing.txt"), "{err}");
    assert!(err.contains("REDACT-1"), "{err}");

    // A directory is not a readable secret file either.
    let output = redact(
        &["--secret-file", dir.path().to_str().unwrap()],
        &[],
        b"data\n",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
}

// proves: REDACT-1 (a secret asked for that is too short to redact is refused,
// never silently skipped; the message does not print it)
#[test]
fn too_short_requested_secret_fails_closed() {
    let dir = TempDir::new("redact");
    let file = dir.write("secrets.txt", format!("{FILE_SECRET_1}\nshort\n"));
    let output = redact(
        &["--secret-file", file.to_str().unwrap()],
        &[],
        b"short data\n",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let err = stderr(&output);
    assert!(err.contains("line 2"), "{err}");
    assert!(err.contains("8 bytes"), "{err}");
    assert!(
        !err.contains("short\n") && !err.contains(FILE_SECRET_1),
        "{err}"
    );

    let output = redact(
        &["--secret-env", "PIN_CODE"],
        &[("PIN_CODE", "1234")],
        b"1234\n",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(!stderr(&output).contains("1234"));
}

// proves: REDACT-1 (streams a large input; secrets at the 1 MiB window edges
// and everywhere else are removed, everything else is byte-identical)
#[test]
fn large_input_streams_with_secrets_across_windows() {
    let line = "2026-11-29 INFO ordinary log line with é✓😀 and numbers 0123456789\n";
    let mut input = String::new();
    let mut expected = String::new();
    let mut index = 0usize;
    while input.len() < 24 << 20 {
        input.push_str(line);
        expected.push_str(line);
        // Place secrets so that some straddle every 1 MiB window boundary.
        let next_edge = (input.len() / (1 << 20) + 1) << 20;
        let distance = next_edge - input.len();
        if distance < ENV_SECRET.len() + line.len() || index.is_multiple_of(997) {
            input.push_str(ENV_SECRET);
            input.push('\n');
            expected.push_str("[REDACTED]\n");
        }
        index += 1;
    }
    let output = redact(&[], &[("OPENAI_API_KEY", ENV_SECRET)], input.as_bytes());
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(output.stdout.len(), expected.len());
    assert!(
        output.stdout == expected.as_bytes(),
        "output differs from expected"
    );
}

// proves: REDACT-1 (streaming: output starts before the input ends)
#[test]
fn output_flows_before_input_ends() {
    let home = TempDir::new("redact");
    let mut child = support::ploy_with_clean_env(home.path())
        .arg("redact")
        .env("GITHUB_TOKEN", ENV_SECRET)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let chunk = format!("{}{ENV_SECRET}\n", "x".repeat(4096));
    stdin.write_all(chunk.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Read some output while stdin is still open.
    let mut first = vec![0u8; 1024];
    let got = stdout.read(&mut first).unwrap();
    assert!(got > 0);
    assert!(first[..got].iter().all(|&b| b == b'x'));
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert!(rest.ends_with("[REDACTED]\n"), "{rest}");
    assert!(!rest.contains(ENV_SECRET));
    assert!(child.wait().unwrap().success());
}
