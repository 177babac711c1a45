//! A closed stdout ends every printing command quietly (issue 10 item 5):
//! exit code 141 (128 + SIGPIPE, what a shell reports for `seq 1 100000 |
//! head -c 1`), nothing on stderr about the pipe, no panic. Each command's
//! stdout is a pipe whose reading end is closed before the command starts,
//! so its first write fails with EPIPE; each command is also run once with
//! a readable stdout to show that it does print there (or the case would
//! prove nothing).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Command, Output, Stdio};

use support::{TempDir, ploy, stderr, stdout};

/// The command with stdout into a pipe nobody reads.
fn run_into_closed_pipe(command: &mut Command) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    command
        .stdout(writer)
        .stderr(Stdio::piped())
        .stdin(Stdio::null());
    command.output().unwrap()
}

struct Case {
    args: Vec<String>,
    stdin: Option<&'static str>,
}

fn case(args: &[&str]) -> Case {
    Case {
        args: args.iter().map(|a| a.to_string()).collect(),
        stdin: None,
    }
}

/// A root with settings, a project holding a plan and a data file, and an
/// empty hosts file (no name resolves: nothing leaves the machine).
fn world() -> TempDir {
    let dir = TempDir::with_config_and_state("epipe");
    dir.write_settings(support::WORKSPACE_PROFILE);
    dir.write("proj/data.txt", "a\nb\na\n");
    dir.write(
        "proj/.ploy/plan.json",
        r#"{"steps": [{"title": "data has a", "proof": "grep -c a data.txt"}]}"#,
    );
    dir.write(
        "hosts",
        "192.0.2.1 html.duckduckgo.com\n192.0.2.1 en.wikipedia.org\n",
    );
    dir
}

fn command_for(dir: &TempDir, case: &Case) -> Command {
    let mut command = ploy(dir.path());
    command
        .args(&case.args)
        .current_dir(dir.path().join("proj"))
        .env("HOME", dir.path())
        .env_remove("PLOY_MODEL");
    command
}

// proves: issue 10 item 5 (every command that prints exits quietly on EPIPE)
#[test]
fn every_printing_command_exits_quietly_into_a_closed_pipe() {
    let dir = world();
    let hosts = dir.path().join("hosts");
    let hosts = hosts.to_str().unwrap();
    // Nothing listens here: `ploy -p --mode json` prints its error and end
    // events.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = format!(
        "http://{}/v1/chat/completions",
        closed.local_addr().unwrap()
    );
    drop(closed);
    let cases = vec![
        case(&["--help"]),
        case(&["-p", "hi", "--mode", "json", "--upstream", &upstream]),
        case(&["conversations"]),
        case(&["conversations", "list", "--json"]),
        case(&["approvals"]),
        case(&["approvals", "--json"]),
        case(&["--version"]),
        case(&["config", "check"]),
        case(&["config", "show"]),
        case(&["config", "show", "--json"]),
        case(&["check", "url", "https://example.com/", "--no-resolve"]),
        case(&["check", "url", "http://127.0.0.1/", "--json"]),
        case(&["check", "proof", "cargo test"]),
        case(&["check", "proof", "rm -rf .", "--json"]),
        case(&[
            "fetch",
            "http://nowhere.example/",
            "--hosts",
            hosts,
            "--json",
        ]),
        case(&["scrub", "rust ownership for /home/bob"]),
        Case {
            args: vec!["redact".into()],
            stdin: Some("a line to copy\n"),
        },
        case(&["hook", "status"]),
        case(&["hook", "status", "--json"]),
        Case {
            args: vec!["hook".into(), "check".into(), "--json".into()],
            stdin: Some("{}"),
        },
        Case {
            args: vec!["hook".into(), "claude-code".into()],
            stdin: Some("not json"),
        },
        Case {
            args: vec!["mcp".into()],
            stdin: Some(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n",
            ),
        },
        case(&["doctor"]),
        case(&["doctor", "--json"]),
        case(&["trust", "status"]),
        case(&["trust", "status", "--json"]),
        case(&["status"]),
        case(&["sandbox", "run", "--json", "--", "seq", "1", "100000"]),
        case(&["sandbox", "run", "--", "seq", "1", "100000"]),
        case(&["proof", "run", "grep -c a data.txt"]),
        case(&["proof", "run", "grep -c a data.txt", "--json"]),
        case(&["plan", "check"]),
        case(&["plan", "check", "--json"]),
        case(&[
            "research",
            "rust ownership",
            "--no-answer",
            "--json",
            "--hosts",
            hosts,
        ]),
    ];
    let mut failures = Vec::new();
    for case in &cases {
        let label = case.args.join(" ");
        // With a reader: the command does print to stdout.
        let readable = match case.stdin {
            Some(input) => support::run_with_input(&mut command_for(&dir, case), input.as_bytes()),
            None => command_for(&dir, case)
                .stdin(Stdio::null())
                .output()
                .unwrap(),
        };
        if readable.stdout.is_empty() {
            failures.push(format!(
                "{label}: prints nothing with a reader, so the case proves nothing: {}",
                stderr(&readable)
            ));
            continue;
        }
        // Into a closed pipe.
        let mut command = command_for(&dir, case);
        let out = match case.stdin {
            // The input is tiny: it fits the pipe before ploy reads it.
            Some(input) => {
                let (reader, mut writer) = std::io::pipe().unwrap();
                std::io::Write::write_all(&mut writer, input.as_bytes()).unwrap();
                drop(writer);
                let (out_reader, out_writer) = std::io::pipe().unwrap();
                drop(out_reader);
                command
                    .stdin(reader)
                    .stdout(out_writer)
                    .stderr(Stdio::piped())
                    .output()
                    .unwrap()
            }
            None => run_into_closed_pipe(&mut command),
        };
        let err = stderr(&out);
        if out.status.code() != Some(141) {
            failures.push(format!(
                "{label}: exit {:?}, want 141; stderr: {err}",
                out.status
            ));
        }
        for noise in ["panicked", "Broken pipe", "os error 32", "backtrace"] {
            if err.contains(noise) {
                failures.push(format!("{label}: stderr mentions `{noise}`: {err}"));
            }
        }
        assert!(out.stdout.is_empty(), "{}", stdout(&out));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// proves: issue 10 item 5 (stdout and stderr both closed: `2>&1 | head -c 1`)
#[test]
fn a_closed_stderr_as_well_is_quiet() {
    let dir = world();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let writer2 = writer.try_clone().unwrap();
    let out = command_for(&dir, &case(&["proof", "run", "rm -rf ."]))
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .status()
        .unwrap();
    // The refusal goes to stderr, which is closed: no panic, the quiet code.
    assert_eq!(out.code(), Some(141), "{out:?}");
}
