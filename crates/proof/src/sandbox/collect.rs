//! Collecting what a run produced: stdout and stderr (capped), the private
//! status channel, the init's exit, and the wall-time limit, in one poll
//! loop without threads.

use std::{
    io::Read,
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

use serde::{Deserialize, Serialize};

use super::launch::InitProcess;

/// How the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum Termination {
    /// Exited with this status.
    Exited(i32),
    /// Killed by this signal (e.g. 9 after the wall-time limit, 25 SIGXFSZ).
    Signaled(i32),
}

impl Termination {
    /// The shell-style exit code: the status, or 128 + signal.
    pub fn exit_code(self) -> i32 {
        match self {
            Termination::Exited(code) => code,
            Termination::Signaled(signal) => 128 + signal,
        }
    }
}

/// What one sandboxed run produced. Output is raw (not redacted): redact it
/// before showing it (`ploy_secrets::Redactor`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunOutput {
    /// How the program ended.
    pub termination: Termination,
    /// Whether the wall-time limit killed it.
    pub timed_out: bool,
    /// Whether the caller's stop flag killed it ([`super::Sandbox::stop_on`]).
    pub cancelled: bool,
    /// Wall time from launch to exit.
    pub duration: Duration,
    /// Captured stdout (at most `limits.output_bytes`).
    pub stdout: Vec<u8>,
    /// Captured stderr (at most `limits.output_bytes`).
    pub stderr: Vec<u8>,
    /// Whether stdout or stderr was longer than the cap.
    pub output_truncated: bool,
    /// Whether the sandbox's memory in total went past the limit, so the init
    /// killed every process in it.
    pub memory_exceeded: bool,
    /// What the person should know about this run (e.g. a PERM-7 path the
    /// program created in a writable project, SBX-6), one line each.
    pub notes: Vec<String>,
}

impl RunOutput {
    /// True when the program exited with status 0, in time and within the
    /// memory limit.
    pub fn success(&self) -> bool {
        !self.timed_out && !self.memory_exceeded && self.termination == Termination::Exited(0)
    }
}

/// Bytes read from one pipe, capped.
#[derive(Default)]
pub(super) struct Captured {
    pub kept: Vec<u8>,
    pub truncated: bool,
}

impl Captured {
    fn push(&mut self, bytes: &[u8], cap: usize) {
        let room = cap.saturating_sub(self.kept.len());
        if bytes.len() > room {
            self.truncated = true;
        }
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

/// What [`collect`] gathered.
pub(super) struct Collected {
    pub stdout: Captured,
    pub stderr: Captured,
    pub status: Captured,
    pub timed_out: bool,
    pub cancelled: bool,
}

/// How long to keep draining output after the launcher exited (everything in
/// the sandbox is dead by then; this only guards against a stuck pipe).
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// How often a stop flag is looked at while the program runs.
const STOP_POLL: Duration = Duration::from_millis(50);

/// Largest status report kept (a few lines per layer).
pub(super) const STATUS_CAP: usize = 64 * 1024;

/// One poll loop, no threads: reads stdout, stderr and the status pipe
/// (capped), notices the init's exit through a pidfd, and kills it at the
/// deadline. Fewer hand-offs between threads keeps start-up fast under load.
pub(super) fn collect(
    child: &mut InitProcess,
    status: std::fs::File,
    deadline: Instant,
    cap: usize,
    stop: Option<&AtomicBool>,
) -> Collected {
    let mut out = Collected {
        stdout: Captured::default(),
        stderr: Captured::default(),
        status: Captured::default(),
        timed_out: false,
        cancelled: false,
    };
    let mut pipes: [Option<std::fs::File>; 3] =
        [child.stdout.take(), child.stderr.take(), Some(status)];
    // Without a pidfd (a kernel before 5.3) the loop polls the exit every 5 ms.
    let pidfd = child.pidfd();
    let mut exited_at: Option<Instant> = None;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if exited_at.is_none() && pidfd.is_none() && child.try_wait().is_some() {
            exited_at = Some(Instant::now());
        }
        let open = pipes.iter().any(Option::is_some);
        if !open && exited_at.is_some() {
            break;
        }
        let now = Instant::now();
        if exited_at.is_none() && stop.is_some_and(|flag| flag.load(Ordering::Relaxed)) {
            // The caller gave up on the run: as at the deadline, SIGKILL to
            // the init ends everything in the sandbox.
            child.kill();
            out.cancelled = true;
            exited_at = Some(now);
            continue;
        }
        let until = match exited_at {
            Some(at) => at + DRAIN_GRACE,
            None => deadline,
        };
        if now >= until {
            if exited_at.is_some() {
                break;
            }
            // SIGKILL to the init, PID 1 of the sandbox: the kernel kills
            // everything else in its PID namespace.
            child.kill();
            out.timed_out = true;
            exited_at = Some(now);
            continue;
        }
        let mut wait = until.saturating_duration_since(now);
        if pidfd.is_none() && exited_at.is_none() {
            wait = wait.min(Duration::from_millis(5));
        }
        if stop.is_some() && exited_at.is_none() {
            wait = wait.min(STOP_POLL);
        }
        // Poll entries: the open pipes in order, then the pidfd while the
        // init runs. `owners` maps each entry back to its pipe.
        let mut owners: Vec<Option<usize>> = Vec::with_capacity(4);
        let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(4);
        for (index, pipe) in pipes.iter().enumerate() {
            if let Some(pipe) = pipe {
                fds.push(PollFd::new(pipe, PollFlags::IN));
                owners.push(Some(index));
            }
        }
        if let (Some(pidfd), None) = (&pidfd, exited_at) {
            fds.push(PollFd::new(pidfd, PollFlags::IN));
            owners.push(None);
        }
        let timeout = Timespec::try_from(wait.max(Duration::from_millis(1))).ok();
        match poll(&mut fds, timeout.as_ref()) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => break,
        }
        let ready: Vec<Option<usize>> = fds
            .iter()
            .zip(&owners)
            .filter(|(fd, _)| !fd.revents().is_empty())
            .map(|(_, owner)| *owner)
            .collect();
        drop(fds);
        for owner in ready {
            let Some(index) = owner else {
                exited_at = Some(Instant::now());
                continue;
            };
            let Some(pipe) = pipes[index].as_mut() else {
                continue;
            };
            match pipe.read(&mut buf) {
                Ok(0) => pipes[index] = None,
                Ok(n) => {
                    let (target, limit) = match index {
                        0 => (&mut out.stdout, cap),
                        1 => (&mut out.stderr, cap),
                        _ => (&mut out.status, STATUS_CAP),
                    };
                    target.push(&buf[..n], limit);
                }
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => pipes[index] = None,
            }
        }
    }
    out
}
