//! `ploy` starting `ploy` again: `ploy redteam` drives the real faces of the
//! agent (`ploy -p`, `--mode json`, `--mode rpc`) as child processes, so each
//! scenario runs exactly what a user runs (the release binary, its store,
//! its sandbox, its egress door) and nothing is called in-process behind the
//! binary's back. Started here because ploy-proof is the one process door.
//!
//! Only the running binary itself can be started (never a program named by
//! the caller): the environment is cleared and only the names the caller
//! gives are set, stdin, stdout and stderr are pipes, the child has its own
//! process group and dies with this process.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Stdio};

/// One run of this binary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnRun {
    /// The arguments (after the program name).
    pub args: Vec<OsString>,
    /// The whole environment of the child (nothing else is inherited).
    pub env: Vec<(OsString, OsString)>,
    /// The working directory.
    pub cwd: PathBuf,
}

/// Start this binary again as described by `run`, with piped stdio.
///
/// # Errors
/// The binary cannot be found or started.
#[allow(clippy::disallowed_methods)] // ploy-proof is the process door; `ploy redteam` starts ploy here.
pub fn spawn_own(run: &OwnRun) -> std::io::Result<Child> {
    let exe = std::env::current_exe()?;
    let mut command = std::process::Command::new(exe);
    command
        .args(&run.args)
        .env_clear()
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&run.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // SAFETY: die_with_parent only calls prctl (async-signal-safe).
    unsafe {
        command.pre_exec(die_with_parent);
    }
    command.spawn()
}

/// In a child between fork and exec: be killed when the parent dies, so
/// nothing outlives the `ploy` that started it. Async-signal-safe (one
/// `prctl`).
pub(crate) fn die_with_parent() -> std::io::Result<()> {
    // SAFETY: prctl with plain integer arguments.
    let set = unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    if set == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Kill `child`'s whole process group (the child and what it started).
pub fn kill_group(child: &Child) {
    if let Some(pid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}
