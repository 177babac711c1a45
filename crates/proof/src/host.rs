//! Host programs (extensions): helper programs the user declared in their own
//! settings or on the command line, launched outside the sandbox with the
//! user's rights (TRUST-1: ploy is not a sandbox for what the user installs).
//!
//! Every process spawn in ploy lives in this crate, so the extension runner
//! lives here too. It knows nothing about what the lines mean: ploy-trust
//! builds the JSON request and reads the JSON response (see
//! `docs/extensions.md`).
//!
//! One exchange is one process:
//! 1. ploy starts the program in its own process group, writes ONE request line
//!    to its stdin and closes stdin;
//! 2. the program writes ONE response line to stdout and exits with status 0,
//!    all within the timeout;
//! 3. ploy then kills whatever the program left running in its process group.
//!
//! Anything else — the program cannot start, crashes, exits non-zero, is killed
//! by a signal, runs past the timeout, writes nothing, writes more than one
//! line, too many bytes, or bytes that are not UTF-8 — is a [`HostError`].
//! Callers treat every error as "no answer", never as a yes (fail closed).
//!
//! The environment is built in the parent (SBX-4, TRUST-6): ploy's environment
//! is cleared and only variables whose names do not look secret
//! ([`host_environment`]) are passed on. The protocol itself needs no
//! variable (the request travels on stdin). An extension that needs a key
//! reads it from its own configuration, not from ploy's environment.

use std::{
    ffi::OsString,
    io::{Read, Write},
    os::unix::process::CommandExt,
    path::PathBuf,
    process::{Child, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};

/// How much of a failing program's stderr is kept for the error message.
const STDERR_TAIL_BYTES: u64 = 2048;

/// A program to run for one exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostProgram {
    /// The executable (an absolute path, or a name looked up on `PATH`).
    pub program: PathBuf,
    /// Arguments passed after the program name.
    pub args: Vec<String>,
    /// Working directory of the program; `None` keeps ploy's own.
    pub working_dir: Option<PathBuf>,
}

/// Limits of one exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExchangeLimits {
    /// From spawn to exit: the program must have answered and exited by then.
    pub timeout: Duration,
    /// Largest response accepted, in bytes, newline included.
    pub max_response_bytes: usize,
}

impl Default for ExchangeLimits {
    /// Five seconds and 64 KiB: a yes/no answer needs far less of either.
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(5),
            max_response_bytes: 64 * 1024,
        }
    }
}

/// Why an exchange produced no answer. Callers must treat every variant as
/// "no answer", never as consent.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The request contains a line break, so it is not one JSON line.
    #[error("the request to an extension must be one line (it contains a line break)")]
    RequestNotOneLine,
    /// The program could not be started.
    #[error("could not start extension {program}: {source}")]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The program did not answer and exit in time; it was killed.
    #[error("extension {program} did not answer and exit within {timeout_ms} ms; it was stopped")]
    Timeout {
        /// The program.
        program: PathBuf,
        /// The limit that passed.
        timeout_ms: u128,
    },
    /// The program exited with a failure status or was killed by a signal.
    #[error("extension {program} failed ({status}){}", stderr_suffix(.stderr_tail))]
    Failed {
        /// The program.
        program: PathBuf,
        /// Exit status as text (code or signal).
        status: String,
        /// The start of its stderr, for diagnosis.
        stderr_tail: String,
    },
    /// The program exited successfully without writing a response line.
    #[error("extension {program} exited without writing a response line{}", stderr_suffix(.stderr_tail))]
    NoResponse {
        /// The program.
        program: PathBuf,
        /// The start of its stderr, for diagnosis.
        stderr_tail: String,
    },
    /// The program wrote more than one non-empty line.
    #[error("extension {program} wrote more than one line (the protocol is one response line)")]
    ExtraOutput {
        /// The program.
        program: PathBuf,
    },
    /// The response exceeded the byte limit.
    #[error("extension {program} wrote more than {limit} bytes")]
    TooLarge {
        /// The program.
        program: PathBuf,
        /// The limit in bytes.
        limit: usize,
    },
    /// The response is not UTF-8.
    #[error("extension {program} wrote a response that is not UTF-8")]
    NotUtf8 {
        /// The program.
        program: PathBuf,
    },
    /// Reading from or waiting for the program failed.
    #[error("lost contact with extension {program}: {source}")]
    Io {
        /// The program.
        program: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
}

fn stderr_suffix(tail: &str) -> String {
    let tail = tail.trim();
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr: {tail}")
    }
}

/// Runs `program` for one exchange: writes `request` (one line, no line
/// break inside) to its stdin and returns its one response line, without the
/// line break. See the module documentation for what counts as an answer.
pub fn exchange_line(
    program: &HostProgram,
    request: &str,
    limits: &ExchangeLimits,
) -> Result<String, HostError> {
    if request.contains(['\n', '\r']) {
        return Err(HostError::RequestNotOneLine);
    }
    let deadline = Instant::now() + limits.timeout;
    let mut child = spawn_host_program(program)?;
    let name = program.program.clone();
    let pid = Pid::from_child(&child);

    // Writing happens on its own thread: a program that never reads its stdin
    // must not block ploy (a broken pipe is fine; it may still answer).
    if let Some(mut stdin) = child.stdin.take() {
        let line = format!("{request}\n");
        thread::spawn(move || {
            let _ = stdin.write_all(line.as_bytes());
        });
    }

    let (out_tx, out_rx) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        // One byte over the limit is enough to know the limit was passed.
        let cap = u64::try_from(limits.max_response_bytes)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        thread::spawn(move || {
            let mut bytes = Vec::new();
            let read = stdout.take(cap).read_to_end(&mut bytes).map(|_| bytes);
            let _ = out_tx.send(read);
        });
    }
    let (err_tx, err_rx) = mpsc::channel();
    if let Some(stderr) = child.stderr.take() {
        thread::spawn(move || {
            let mut head = Vec::new();
            let mut stderr = stderr;
            let _ = (&mut stderr).take(STDERR_TAIL_BYTES).read_to_end(&mut head);
            // Keep draining so a chatty program never blocks on a full pipe.
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
            let _ = err_tx.send(String::from_utf8_lossy(&head).into_owned());
        });
    }

    let timeout_error = |name: PathBuf| HostError::Timeout {
        program: name,
        timeout_ms: limits.timeout.as_millis(),
    };

    let bytes = match out_rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(source)) => {
            stop_group(&mut child, pid);
            return Err(HostError::Io {
                program: name,
                source,
            });
        }
        Err(_) => {
            stop_group(&mut child, pid);
            return Err(timeout_error(name));
        }
    };
    if bytes.len() > limits.max_response_bytes {
        stop_group(&mut child, pid);
        return Err(HostError::TooLarge {
            program: name,
            limit: limits.max_response_bytes,
        });
    }

    // stdout is closed; the program must now exit by itself before the
    // deadline. WNOWAIT leaves it a zombie, so its pid (and group id) cannot be
    // reused while we clean up its group below.
    loop {
        match rustix::process::waitid(
            WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
        ) {
            Ok(Some(_)) => break,
            Ok(None) => {
                if Instant::now() >= deadline {
                    stop_group(&mut child, pid);
                    return Err(timeout_error(name));
                }
                thread::sleep(Duration::from_millis(2));
            }
            Err(errno) => {
                stop_group(&mut child, pid);
                return Err(HostError::Io {
                    program: name,
                    source: errno.into(),
                });
            }
        }
    }
    // Anything the program started in its group ends with the exchange.
    let _ = rustix::process::kill_process_group(pid, Signal::KILL);
    let status = child.wait().map_err(|source| HostError::Io {
        program: name.clone(),
        source,
    })?;
    let stderr_tail = err_rx
        .recv_timeout(Duration::from_millis(100))
        .unwrap_or_default();

    if !status.success() {
        return Err(HostError::Failed {
            program: name,
            status: status.to_string(),
            stderr_tail,
        });
    }
    let text = String::from_utf8(bytes).map_err(|_| HostError::NotUtf8 {
        program: name.clone(),
    })?;
    let mut lines = text.lines().filter(|line| !line.trim().is_empty());
    let Some(response) = lines.next() else {
        return Err(HostError::NoResponse {
            program: name,
            stderr_tail,
        });
    };
    if lines.next().is_some() {
        return Err(HostError::ExtraOutput { program: name });
    }
    Ok(response.to_owned())
}

/// Kills the program's whole process group, then reaps the program.
fn stop_group(child: &mut Child, pid: Pid) {
    // The leader is not reaped yet, so the group id still names its group.
    let _ = rustix::process::kill_process_group(pid, Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

/// The environment an extension receives, from `parent` (usually
/// `std::env::vars_os()`): every variable except those whose name looks like
/// a secret (SBX-4, using the sandbox's rule: `ploy_secrets::is_secret_env_name`
/// plus its stricter net of name parts). A name that is not UTF-8 cannot be
/// checked, so it is dropped (fail closed); values are passed as they are.
pub fn host_environment(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    parent
        .into_iter()
        .filter(|(name, _)| {
            name.to_str()
                .is_some_and(|name| !crate::sandbox::looks_secret(name))
        })
        .collect()
}

/// The one place in ploy that starts an extension program.
// Extensions run outside the sandbox by design (the user declared them; TRUST-1),
// so this is the door's second, documented way out besides the sandbox runner.
#[allow(clippy::disallowed_methods)]
fn spawn_host_program(program: &HostProgram) -> Result<Child, HostError> {
    let mut command = std::process::Command::new(&program.program);
    command
        .args(&program.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Own process group: on timeout or after the answer, the whole group is
        // killed, including anything the program forked.
        .process_group(0)
        // Cleared in the parent, before exec: the child never holds ploy's
        // secrets, not even in its initial /proc/<pid>/environ (SBX-4).
        .env_clear()
        .envs(host_environment(std::env::vars_os()));
    if let Some(dir) = &program.working_dir {
        command.current_dir(dir);
    }
    command.spawn().map_err(|source| HostError::Spawn {
        program: program.program.clone(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> HostProgram {
        HostProgram {
            program: PathBuf::from("/bin/sh"),
            args: vec!["-c".to_owned(), script.to_owned()],
            working_dir: None,
        }
    }

    fn limits(ms: u64) -> ExchangeLimits {
        ExchangeLimits {
            timeout: Duration::from_millis(ms),
            max_response_bytes: 1024,
        }
    }

    // proves: TRUST-6
    #[test]
    fn one_line_answer_is_returned_and_request_is_delivered() {
        let answer = exchange_line(
            &sh("read line; echo \"got:$line\""),
            "{\"a\":1}",
            &limits(10_000),
        );
        assert_eq!(answer.unwrap(), "got:{\"a\":1}");
    }

    // proves: TRUST-6
    #[test]
    fn crash_and_nonzero_exit_are_errors_even_after_a_yes_line() {
        let err = exchange_line(&sh("echo yes; exit 3"), "{}", &limits(10_000)).unwrap_err();
        assert!(matches!(err, HostError::Failed { .. }), "{err}");
        let err = exchange_line(&sh("echo yes; kill -SEGV $$"), "{}", &limits(10_000)).unwrap_err();
        assert!(matches!(err, HostError::Failed { .. }), "{err}");
        let err = exchange_line(&sh("echo boom >&2; exit 1"), "{}", &limits(10_000)).unwrap_err();
        assert!(err.to_string().contains("boom"), "{err}");
    }

    // proves: TRUST-6
    #[test]
    fn hang_is_a_timeout_and_the_whole_group_dies() {
        let marker = std::env::temp_dir().join(format!("ploy-host-orphan-{}", std::process::id()));
        let _ = std::fs::remove_file(&marker);
        // A background child that would write a file after the timeout: if the
        // group were not killed, the file would appear.
        let script = format!(
            "(sleep 0.4; touch {}) & echo yes; sleep 30",
            marker.display()
        );
        let started = Instant::now();
        let err = exchange_line(&sh(&script), "{}", &limits(150)).unwrap_err();
        assert!(matches!(err, HostError::Timeout { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        thread::sleep(Duration::from_millis(700));
        assert!(
            !marker.exists(),
            "a child of the timed-out extension survived"
        );
    }

    // proves: TRUST-6
    #[test]
    fn a_background_child_holding_stdout_cannot_stretch_the_exchange() {
        let err = exchange_line(&sh("echo yes; sleep 30 &"), "{}", &limits(200)).unwrap_err();
        assert!(matches!(err, HostError::Timeout { .. }), "{err}");
    }

    // proves: TRUST-6
    #[test]
    fn malformed_outputs_are_errors() {
        let l = limits(10_000);
        assert!(matches!(
            exchange_line(&sh("true"), "{}", &l).unwrap_err(),
            HostError::NoResponse { .. }
        ));
        assert!(matches!(
            exchange_line(&sh("echo a; echo b"), "{}", &l).unwrap_err(),
            HostError::ExtraOutput { .. }
        ));
        assert!(matches!(
            exchange_line(&sh("head -c 5000 /dev/zero | tr '\\0' a"), "{}", &l).unwrap_err(),
            HostError::TooLarge { .. }
        ));
        assert!(matches!(
            exchange_line(&sh("printf '\\377\\376\\n'"), "{}", &l).unwrap_err(),
            HostError::NotUtf8 { .. }
        ));
        assert!(matches!(
            exchange_line(&sh("echo x"), "a\nb", &l).unwrap_err(),
            HostError::RequestNotOneLine
        ));
        let missing = HostProgram {
            program: PathBuf::from("/nonexistent/ploy-extension"),
            args: Vec::new(),
            working_dir: None,
        };
        assert!(matches!(
            exchange_line(&missing, "{}", &l).unwrap_err(),
            HostError::Spawn { .. }
        ));
    }

    // proves: TRUST-6
    #[test]
    fn a_program_that_never_reads_stdin_can_still_answer() {
        let answer = exchange_line(
            &sh("echo '{\"ok\":true}'"),
            &"x".repeat(200_000),
            &limits(10_000),
        );
        assert_eq!(answer.unwrap(), "{\"ok\":true}");
    }

    // proves: TRUST-6
    #[test]
    fn an_answer_without_final_newline_counts() {
        let answer = exchange_line(&sh("printf ok"), "{}", &limits(10_000));
        assert_eq!(answer.unwrap(), "ok");
    }

    // proves: SBX-4
    #[test]
    fn host_environment_drops_every_secret_looking_name_and_keeps_the_rest() {
        let parent = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/me"),
            ("OPENAI_API_KEY", "canary"),
            ("aws_secret_access_key", "canary"),
            ("GITHUB_TOKEN", "canary"),
            ("DEPLOY_PASSWORD", "canary"),
            ("MY_PRIVATE_THING", "canary"),
            ("EDITOR", "vi"),
        ]
        .map(|(n, v)| (OsString::from(n), OsString::from(v)));
        let env = host_environment(parent);
        let names: Vec<&str> = env.iter().filter_map(|(n, _)| n.to_str()).collect();
        assert_eq!(names, ["PATH", "HOME", "EDITOR"]);
        assert!(env.iter().all(|(_, v)| v != "canary"));
    }

    // proves: SBX-4 (a name that cannot be checked is dropped)
    #[test]
    fn host_environment_drops_non_utf8_names() {
        use std::os::unix::ffi::OsStringExt;
        let odd = OsString::from_vec(b"API_\xffKEY".to_vec());
        let env = host_environment([(odd, OsString::from("canary"))]);
        assert!(env.is_empty());
    }
}
