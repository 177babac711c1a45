//! Commands run on the host, outside the sandbox: the agent's `shell` tool
//! under the `danger-full-access` profile (the operator's attestation that
//! the whole machine is exposed, PROFILE-1). Still started here, in the one
//! process door, with:
//!
//! * the environment cleared except names that do not look secret (SBX-4's
//!   list; the same filter as extensions, [`crate::host::host_environment`]),
//!   and `PATH` without entries inside the working folder (the project),
//!   relative or empty ones (round7 #15);
//! * stdin from `/dev/null`, its own process group, killed whole at the wall
//!   time, on cancellation, and after it exits (nothing left behind);
//! * stdout and stderr each kept up to a byte cap (the rest read and
//!   dropped, so the program never blocks on a full pipe). Output is raw:
//!   the caller redacts it.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use crate::sandbox::Termination;

/// One command to run on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCommand {
    /// The program (looked up on `PATH` when it has no `/`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Wall time before the whole process group is killed.
    pub timeout: Duration,
    /// Bytes kept of each of stdout and stderr.
    pub output_bytes: usize,
}

/// What a host command produced (raw output: redact before showing it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCommandOutput {
    /// How it ended.
    pub termination: Termination,
    /// Whether the wall time killed it.
    pub timed_out: bool,
    /// Whether cancellation killed it.
    pub cancelled: bool,
    /// Kept stdout.
    pub stdout: Vec<u8>,
    /// Kept stderr.
    pub stderr: Vec<u8>,
    /// Whether stdout or stderr was longer than the cap.
    pub output_truncated: bool,
}

/// Why a host command could not run.
#[derive(Debug, thiserror::Error)]
pub enum HostCommandError {
    /// The program could not be started.
    #[error("could not start {program:?}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// Waiting for it failed.
    #[error("lost track of {program:?}: {source}")]
    Wait {
        /// The program.
        program: String,
        /// The operating system's reason.
        source: std::io::Error,
    },
}

fn drain(mut pipe: impl Read + Send + 'static, cap: usize) -> thread::JoinHandle<(Vec<u8>, bool)> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut longer = false;
        let mut buf = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    longer |= n > room;
                }
            }
        }
        (kept, longer)
    })
}

/// The environment of a host command run in `project`, from `parent`
/// (usually `std::env::vars_os()`): the extensions' filter ([`crate::host::host_environment`]), and `PATH` without the
/// entries the project can plant a program in (round7 #15:
/// [`crate::sandbox::child_path`]; a `PATH` that is not UTF-8 is replaced
/// by the default).
fn host_command_environment(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
    project: &std::path::Path,
) -> Vec<(OsString, OsString)> {
    let mut env = crate::host::host_environment(parent);
    let path = env
        .iter()
        .find(|(name, _)| name == "PATH")
        .and_then(|(_, value)| value.to_str())
        .map(str::to_string);
    env.retain(|(name, _)| name != "PATH");
    env.push((
        OsString::from("PATH"),
        OsString::from(crate::sandbox::child_path(path.as_deref(), project)),
    ));
    env
}

/// Run `command` on the host; `cancelled` is polled while it runs. Blocking.
#[allow(clippy::disallowed_methods)] // ploy-proof is the process door; the agent's unsandboxed shell starts here.
pub fn run_host_command(
    command: &HostCommand,
    cancelled: &dyn Fn() -> bool,
) -> Result<HostCommandOutput, HostCommandError> {
    let mut child = std::process::Command::new(&command.program)
        .args(&command.args)
        .current_dir(&command.cwd)
        .env_clear()
        .envs(host_command_environment(std::env::vars_os(), &command.cwd))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|source| HostCommandError::Spawn {
            program: command.program.clone(),
            source,
        })?;
    let pid = Pid::from_child(&child);
    let stdout = child.stdout.take().map(|p| drain(p, command.output_bytes));
    let stderr = child.stderr.take().map(|p| drain(p, command.output_bytes));
    let started = Instant::now();
    let mut timed_out = false;
    let mut was_cancelled = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(source) => {
                let _ = rustix::process::kill_process_group(pid, Signal::KILL);
                let _ = child.wait();
                return Err(HostCommandError::Wait {
                    program: command.program.clone(),
                    source,
                });
            }
        }
        if started.elapsed() >= command.timeout {
            timed_out = true;
        } else if cancelled() {
            was_cancelled = true;
        }
        if timed_out || was_cancelled {
            let _ = rustix::process::kill_process_group(pid, Signal::KILL);
            match child.wait() {
                Ok(status) => break status,
                Err(source) => {
                    return Err(HostCommandError::Wait {
                        program: command.program.clone(),
                        source,
                    });
                }
            }
        }
        thread::sleep(Duration::from_millis(5));
    };
    // Whatever the command left running in its group goes too, so the pipes
    // close and nothing outlives the call.
    let _ = rustix::process::kill_process_group(pid, Signal::KILL);
    let (stdout, out_longer) = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
    let (stderr, err_longer) = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let termination = match (status.code(), status.signal()) {
        (Some(code), _) => Termination::Exited(code),
        (None, Some(signal)) => Termination::Signaled(signal),
        (None, None) => Termination::Exited(1),
    };
    Ok(HostCommandOutput {
        termination,
        timed_out,
        cancelled: was_cancelled,
        stdout,
        stderr,
        output_truncated: out_longer || err_longer,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    // proves: PERM-7 (round7 #15: the agent's host shell ran a project
    // file `bin/ls` for a judged `ls` when PATH had a relative or in-project
    // entry)
    #[test]
    fn round7_15_host_commands_get_no_project_path_entries() {
        let project = std::path::Path::new("/home/me/app");
        let parent = [
            (
                OsString::from("PATH"),
                OsString::from("bin:.:/home/me/app/node_modules/.bin::/usr/bin:/bin"),
            ),
            (OsString::from("LANG"), OsString::from("C")),
        ];
        let env = host_command_environment(parent, project);
        let paths: Vec<&OsString> = env
            .iter()
            .filter(|(n, _)| n == "PATH")
            .map(|(_, v)| v)
            .collect();
        assert_eq!(paths, [&OsString::from("/usr/bin:/bin")]);
        assert!(env.iter().any(|(n, _)| n == "LANG"));
        // Only unsafe entries, or none: the plain default, never unset.
        let env =
            host_command_environment([(OsString::from("PATH"), OsString::from(".:bin"))], project);
        assert!(
            env.iter().any(|(n, v)| n == "PATH"
                && v.to_str().is_some_and(|v| v.starts_with("/usr/local/bin:")))
        );
        let env = host_command_environment([], project);
        assert!(env.iter().any(|(n, _)| n == "PATH"));
    }

    fn bash(line: &str, timeout: Duration) -> HostCommand {
        HostCommand {
            program: "bash".into(),
            args: vec!["-c".into(), line.into()],
            cwd: std::env::temp_dir(),
            timeout,
            output_bytes: 64,
        }
    }

    #[test]
    fn output_status_cap_and_timeout() {
        let out = run_host_command(
            &bash("echo hi; echo err >&2; exit 3", Duration::from_secs(10)),
            &|| false,
        )
        .unwrap();
        assert_eq!(out.termination, Termination::Exited(3));
        assert_eq!(out.stdout, b"hi\n");
        assert_eq!(out.stderr, b"err\n");
        let out = run_host_command(
            &bash("head -c 100000 /dev/zero", Duration::from_secs(10)),
            &|| false,
        )
        .unwrap();
        assert_eq!(out.stdout.len(), 64);
        assert!(out.output_truncated);
        let started = Instant::now();
        let out =
            run_host_command(&bash("sleep 30", Duration::from_millis(200)), &|| false).unwrap();
        assert!(out.timed_out);
        assert!(started.elapsed() < Duration::from_secs(10));
        let out = run_host_command(&bash("sleep 30", Duration::from_secs(30)), &|| true).unwrap();
        assert!(out.cancelled);
    }

    // proves: SBX-4
    #[test]
    fn secret_looking_variables_are_not_passed() {
        // SAFETY: test-only; the variable is read by the child through env_clear/envs.
        unsafe { std::env::set_var("PLOY_HOSTCMD_TEST_TOKEN", "s3cr3t-value-123") };
        let out = run_host_command(&bash("env", Duration::from_secs(10)), &|| false).unwrap();
        let mut cmd = bash(
            "env | grep -c PLOY_HOSTCMD_TEST_TOKEN || true",
            Duration::from_secs(10),
        );
        cmd.output_bytes = 1024;
        let counted = run_host_command(&cmd, &|| false).unwrap();
        assert_eq!(String::from_utf8_lossy(&counted.stdout).trim(), "0");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("s3cr3t"));
    }
}
