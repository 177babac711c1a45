//! The init's process runner: it runs a typed [`ProofPlan`] itself, never
//! through a shell (PROOF-6: what runs is exactly what was checked).
//!
//! Pipes and statuses are as POSIX defines them: each command of a pipeline
//! gets the previous one's stdout as its stdin, the pipeline's status is its
//! last command's (128 + signal when a signal ended it), and the and-or list
//! is evaluated by [`ProofPlan::evaluate`], the one place those rules live.
//! The runner is PID 1 of the sandbox, so it also reaps every orphan.
//!
//! Before a command starts, every descriptor above 2 is closed
//! (`close_range`, as close-on-exec so the exec-error pipe still works until
//! the exec succeeds): nothing the init or ploy held reaches the program.

use std::{
    collections::HashMap,
    ffi::{CString, OsStr, OsString},
    os::{
        fd::{AsRawFd, OwnedFd, RawFd},
        unix::ffi::{OsStrExt, OsStringExt},
    },
    time::{Duration, Instant},
};

use ploy_validate::{Pipeline, PipelineEnd, PlanCommand, ProofPlan, StreamTarget};

/// How a plan ended, as the init reports it to the parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PlanEnd {
    /// The plan's status (0..=255), as a shell would give it.
    Code(i32),
    /// The last command that ran was killed by this signal (and the status
    /// was not inverted by `!`): the plan's status is 128 + signal.
    Signal(i32),
}

/// What stops a run early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RunError {
    /// A command could not be started (only fatal for a single program; in a
    /// plan it is status 127 or 126, as in a shell).
    Exec(String),
    /// The init itself failed (fork, pipe): nothing more runs.
    Init(String),
    /// A limit stopped the sandbox (the memory guard killed everything):
    /// nothing more runs and the result is a failure, whatever `||` follows.
    Limit(String),
}

/// Called between waits: the memory guard.
pub(super) trait Watch {
    /// Checks the sandbox; returns how long to wait before the next check.
    fn tick(&mut self) -> Duration;
    /// Why the sandbox was stopped, once it was: nothing more may start.
    fn stopped(&self) -> Option<String>;
    /// Something a descriptor the watcher set up reported (a name made in
    /// the project): looked at now, outside the schedule of [`Self::tick`].
    fn watched(&mut self);
}

/// Runs commands as PID 1 of the sandbox.
pub(super) struct Runner<'w> {
    envp: Vec<CString>,
    path: Vec<OsString>,
    devnull: OwnedFd,
    /// Raw wait statuses of reaped children the runner started, by pid.
    reaped: HashMap<libc::pid_t, libc::c_int>,
    /// Whether a command that cannot be started ends the run (a single
    /// program: the caller wants an error, not status 127).
    exec_errors_fatal: bool,
    watch: &'w mut dyn Watch,
    /// When the watcher checks next.
    next_check: Instant,
}

/// The watcher's first check, after the work started: a program that exits
/// at once (the common case of a quick check) never pays for a scan, and no
/// process can grow past its own RLIMIT_DATA before it.
const FIRST_CHECK: Duration = Duration::from_millis(5);

impl<'w> Runner<'w> {
    /// A runner with the init's own environment (the program's, built by the
    /// parent) and `/dev/null` for `>/dev/null`.
    pub(super) fn new(exec_errors_fatal: bool, watch: &'w mut dyn Watch) -> Result<Self, RunError> {
        let mut envp = Vec::new();
        for (name, value) in std::env::vars_os() {
            let mut entry = name.into_vec();
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            envp.push(
                CString::new(entry)
                    .map_err(|_| RunError::Init("an environment entry has a NUL byte".into()))?,
            );
        }
        let path = std::env::var_os("PATH")
            .map(|path| {
                // Absolute entries only (proof5 #11): a relative one names
                // the project, where a file `grep` would pass for the checker.
                std::env::split_paths(&path)
                    .filter(|entry| entry.is_absolute())
                    .map(OsString::from)
                    .collect()
            })
            .unwrap_or_default();
        let devnull = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .map_err(|err| RunError::Init(format!("open /dev/null: {err}")))?;
        Ok(Runner {
            envp,
            path,
            devnull: OwnedFd::from(devnull),
            reaped: HashMap::new(),
            exec_errors_fatal,
            watch,
            next_check: Instant::now() + FIRST_CHECK,
        })
    }

    /// Runs the plan and returns how it ended.
    pub(super) fn run_plan(&mut self, plan: &ProofPlan) -> Result<PlanEnd, RunError> {
        let mut failure: Option<RunError> = None;
        // (status, the signal that ended the last command, whether inverted)
        let mut last: (i32, Option<i32>, bool) = (0, None, false);
        let status = plan.evaluate(|pipeline| {
            if failure.is_some() {
                // Nothing runs after an init failure; the status is unused.
                return PipelineEnd::of(127);
            }
            if let Some(reason) = self.watch.stopped() {
                failure = Some(RunError::Limit(reason));
                return PipelineEnd::of(127);
            }
            match self.run_pipeline(pipeline) {
                Ok((end, signal)) => {
                    last = (end.status, signal, pipeline.negated);
                    end
                }
                Err(err) => {
                    failure = Some(err);
                    PipelineEnd::of(127)
                }
            }
        });
        if let Some(err) = failure {
            return Err(err);
        }
        if let Some(reason) = self.watch.stopped() {
            return Err(RunError::Limit(reason));
        }
        // The and-or list's status is the last pipeline's that ran: when
        // that pipeline was not inverted and a signal ended its last command,
        // say so (as the shell's 128 + n would).
        Ok(match last {
            (raw, Some(signal), false) if raw == status => PlanEnd::Signal(signal),
            _ => PlanEnd::Code(status),
        })
    }

    /// Runs one pipeline and returns how it ended (the last command's
    /// status, and whether every earlier one ended well, for `!`) and, when
    /// a signal ended the last command, the signal.
    fn run_pipeline(
        &mut self,
        pipeline: &Pipeline,
    ) -> Result<(PipelineEnd, Option<i32>), RunError> {
        let count = pipeline.commands.len();
        let mut pids = Vec::with_capacity(count);
        let mut stdin: Option<OwnedFd> = None;
        let mut failure = None;
        for (index, command) in pipeline.commands.iter().enumerate() {
            if let Some(reason) = self.watch.stopped() {
                failure = Some(RunError::Limit(reason));
                break;
            }
            let last = index + 1 == count;
            let (next_stdin, pipe_write) = if last {
                (None, None)
            } else {
                match pipe() {
                    Ok((read, write)) => (Some(read), Some(write)),
                    Err(err) => {
                        failure = Some(RunError::Init(format!("pipe: {err}")));
                        break;
                    }
                }
            };
            // The first command reads the init's stdin, which the parent set
            // to /dev/null: a program never reads the caller's input.
            let stdin_fd = stdin.as_ref().map_or(0, |fd| fd.as_raw_fd());
            let stdout_fd = match command.stdout {
                StreamTarget::Null => self.devnull.as_raw_fd(),
                // `check` refuses Stdout on stdout; treat it as inherit anyway.
                StreamTarget::Inherit | StreamTarget::Stdout => {
                    pipe_write.as_ref().map_or(1, |fd| fd.as_raw_fd())
                }
            };
            let stderr_fd = match command.stderr {
                StreamTarget::Inherit => 2,
                StreamTarget::Null => self.devnull.as_raw_fd(),
                StreamTarget::Stdout => stdout_fd,
            };
            // round8 #7: pytest's configuration as it is now in the
            // sandbox's copy (a command before it may have written one).
            if let Some(problem) = pytest_config_now(command) {
                failure = Some(RunError::Exec(format!("PROOF-5: {problem}")));
                break;
            }
            match self.spawn(command, [stdin_fd, stdout_fd, stderr_fd]) {
                Ok(pid) => pids.push(pid),
                Err(err) => {
                    failure = Some(err);
                    break;
                }
            }
            // The init keeps no end of a pipe between commands: a reader sees
            // end-of-file when its writer ends.
            drop(pipe_write);
            stdin = next_stdin;
        }
        drop(stdin);
        // Every started command is waited for, even after a failure, so no
        // process of this pipeline outlives it unreaped.
        self.wait_for(&pids)?;
        if let Some(err) = failure {
            return Err(err);
        }
        let raw = pids
            .last()
            .and_then(|pid| self.reaped.remove(pid))
            .ok_or_else(|| RunError::Init("the pipeline's last command was not reaped".into()))?;
        // Earlier commands: 0, or stopped by SIGPIPE because a later one had
        // its answer and stopped reading.
        // One not reaped counts as not ended well.
        let mut upstream_ok = true;
        for pid in &pids[..pids.len().saturating_sub(1)] {
            upstream_ok &= self.reaped.remove(pid).is_some_and(|earlier| {
                matches!(status_of(earlier), (0, None) | (_, Some(libc::SIGPIPE)))
            });
        }
        let (status, signal) = status_of(raw);
        Ok((
            PipelineEnd {
                status,
                upstream_ok,
            },
            signal,
        ))
    }

    /// Forks and executes one command with the given stdin, stdout, stderr.
    fn spawn(&mut self, command: &PlanCommand, fds: [RawFd; 3]) -> Result<libc::pid_t, RunError> {
        let mut argv = Vec::with_capacity(command.argv.len());
        for arg in &command.argv {
            argv.push(CString::new(arg.as_bytes()).map_err(|_| {
                RunError::Exec(format!(
                    "an argument of `{}` has a NUL byte",
                    command.argv[0]
                ))
            })?);
        }
        let program = &command.argv[0];
        let candidates = self.candidates(program)?;
        let argv_ptrs: Vec<*const libc::c_char> = argv
            .iter()
            .map(|arg| arg.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect();
        let envp_ptrs: Vec<*const libc::c_char> = self
            .envp
            .iter()
            .map(|var| var.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect();
        let (error_read, error_write) =
            pipe().map_err(|err| RunError::Init(format!("exec-error pipe: {err}")))?;
        let message_prefix = format!("ploy sandbox: cannot execute `{program}`: ");
        // SAFETY: the init is single-threaded, so the child may use any
        // function until it execs or exits.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(RunError::Init(format!(
                "fork: {}",
                std::io::Error::last_os_error()
            )));
        }
        if pid == 0 {
            // SAFETY: the child side; never returns.
            unsafe {
                exec_child(
                    fds,
                    &candidates,
                    &argv_ptrs,
                    &envp_ptrs,
                    error_write.as_raw_fd(),
                    &message_prefix,
                )
            }
        }
        drop(error_write);
        let mut errno_bytes = [0u8; 4];
        let mut error_file = std::fs::File::from(error_read);
        let got = read_full(&mut error_file, &mut errno_bytes);
        if got == errno_bytes.len() && self.exec_errors_fatal {
            let err = std::io::Error::from_raw_os_error(i32::from_ne_bytes(errno_bytes));
            // The child exits at once; reap it before reporting.
            self.wait_for(&[pid])?;
            self.reaped.remove(&pid);
            return Err(RunError::Exec(format!("cannot execute `{program}`: {err}")));
        }
        Ok(pid)
    }

    /// The paths to try for `program`: itself when it names a path, else
    /// each `PATH` entry joined with it (no shell fallback for files without
    /// a `#!` line: ENOEXEC is an error).
    fn candidates(&self, program: &str) -> Result<Vec<CString>, RunError> {
        let to_c = |bytes: &[u8]| {
            CString::new(bytes).map_err(|_| RunError::Exec("a path has a NUL byte".into()))
        };
        if program.contains('/') {
            return Ok(vec![to_c(program.as_bytes())?]);
        }
        let mut out = Vec::new();
        for dir in &self.path {
            let dir: &OsStr = if dir.is_empty() { OsStr::new(".") } else { dir };
            let mut full = dir.as_bytes().to_vec();
            full.push(b'/');
            full.extend_from_slice(program.as_bytes());
            out.push(to_c(&full)?);
        }
        Ok(out)
    }

    /// Waits until every pid in `pids` is reaped, reaping orphans too and
    /// letting the watcher act between waits.
    pub(super) fn wait_for(&mut self, pids: &[libc::pid_t]) -> Result<(), RunError> {
        loop {
            self.reap_ready();
            if pids.iter().all(|pid| self.reaped.contains_key(pid)) {
                return Ok(());
            }
            // The watcher runs on its own schedule, not at every child's
            // end (a build starts and reaps thousands of short processes).
            let now = Instant::now();
            if now >= self.next_check {
                self.next_check = now + self.watch.tick();
            }
            if wait_for_child_signal(self.next_check.saturating_duration_since(now))
                == Woke::Watched
            {
                // Something the watcher asked to hear about happened (a name
                // made in the project, SBX-6): it looks at once; its other
                // checks (the memory sum) keep their schedule, so a build
                // making thousands of files does not sum memory as often.
                self.watch.watched();
            }
        }
    }

    /// Reaps every child that has ended, without blocking.
    fn reap_ready(&mut self) {
        loop {
            let mut raw = 0;
            // SAFETY: waitpid with a live out-pointer.
            let pid = unsafe { libc::waitpid(-1, &mut raw, libc::WNOHANG) };
            if pid <= 0 {
                return;
            }
            self.reaped.insert(pid, raw);
        }
    }
}

/// A shell's status for a raw wait status, and the signal when one ended it.
/// Why the pytest configuration files `command` (a pytest run) would read
/// from the working folder, the project, make it decide nothing, if they
/// would ([`crate::pytest_config::pytest_config_problem`]); `None` for
/// every other command.
fn pytest_config_now(command: &PlanCommand) -> Option<String> {
    let single = ProofPlan {
        first: Pipeline {
            negated: false,
            commands: vec![command.clone()],
        },
        rest: Vec::new(),
    };
    ploy_validate::needed(&single)
        .into_iter()
        .find_map(|need| match need {
            ploy_validate::Needed::PytestConfig(start) => {
                crate::pytest_config::pytest_config_problem(std::path::Path::new("."), &start)
            }
            _ => None,
        })
}

fn status_of(raw: libc::c_int) -> (i32, Option<i32>) {
    if libc::WIFSIGNALED(raw) {
        let signal = libc::WTERMSIG(raw);
        (128 + signal, Some(signal))
    } else {
        (libc::WEXITSTATUS(raw), None)
    }
}

/// The signal a watched descriptor raises when it has something to read
/// (`init/created.rs` sets it up with `O_ASYNC`; SIGIO is what the kernel
/// sends when no other signal is chosen).
pub(super) const WATCH_SIGNAL: libc::c_int = libc::SIGIO;

/// Blocks SIGCHLD and [`WATCH_SIGNAL`] so that [`wait_for_child_signal`]
/// can wait for them. Called by the init before any child exists; children
/// unblock them.
pub(super) fn block_child_signal() {
    // SAFETY: sigset functions on a local set, then sigprocmask.
    unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGCHLD);
        libc::sigaddset(&mut set, WATCH_SIGNAL);
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Why [`wait_for_child_signal`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Woke {
    /// A child ended, the time passed, or another wake-up.
    Other,
    /// A descriptor the watcher set up has something to read.
    Watched,
}

/// Sleeps until a child ends, a watched descriptor has something to read,
/// or `timeout` passes (both signals are blocked, so they stay pending
/// until taken here; a program cannot fake SIGCHLD: PID 1 never receives a
/// signal it has no handler for from inside its namespace, and a
/// [`WATCH_SIGNAL`] a program sends is told apart by its origin and only
/// ever costs one more look).
fn wait_for_child_signal(timeout: Duration) -> Woke {
    let spec = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: a local set, siginfo and timespec; the result only says why
    // it woke.
    unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGCHLD);
        libc::sigaddset(&mut set, WATCH_SIGNAL);
        let mut info = std::mem::zeroed::<libc::siginfo_t>();
        let signal = libc::sigtimedwait(&set, &mut info, &spec);
        // From the kernel's signal-driven I/O: si_code is POLL_IN and
        // friends (positive); kill(2) from a program gives SI_USER (0).
        if signal == WATCH_SIGNAL && info.si_code > 0 {
            Woke::Watched
        } else {
            Woke::Other
        }
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    Ok(rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?)
}

fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> usize {
    use std::io::Read;
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    got
}

/// The child side of [`Runner::spawn`]: install the descriptors, reset the
/// signals, close everything above 2 at exec, try each candidate path.
///
/// # Safety
/// Called only in a freshly forked child of the single-threaded init.
unsafe fn exec_child(
    [stdin, stdout, stderr]: [RawFd; 3],
    candidates: &[CString],
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
    error_pipe: RawFd,
    message_prefix: &str,
) -> ! {
    // SAFETY: plain system calls on descriptors this child owns.
    unsafe {
        // In this order no target overwrites a later source: stdin's source
        // is 0 or >= 3, stdout's 1 or >= 3, stderr's 2, >= 3 or 1 (its
        // stdout, already in place).
        for (source, target) in [(stdin, 0), (stdout, 1), (stderr, 2)] {
            if source != target && libc::dup2(source, target) < 0 {
                libc::_exit(126);
            }
        }
        // The Rust runtime of the init ignores SIGPIPE; a program gets the
        // default, as from a shell (`yes | head -1` ends quietly). SIGCHLD is
        // unblocked again.
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        let mut empty = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        // Nothing above 2 survives the exec: not the status channel, not a
        // descriptor ploy inherited from its caller (the exec-error pipe
        // stays open until the exec succeeds).
        if libc::close_range(
            3,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC as libc::c_int,
        ) != 0
        {
            libc::_exit(126);
        }
        let mut errno = libc::ENOENT;
        let mut saw_eacces = false;
        for candidate in candidates {
            libc::execve(candidate.as_ptr(), argv.as_ptr(), envp.as_ptr());
            errno = *libc::__errno_location();
            match errno {
                libc::EACCES => saw_eacces = true,
                libc::ENOENT | libc::ENOTDIR => {}
                _ => break,
            }
        }
        if saw_eacces && matches!(errno, libc::ENOENT | libc::ENOTDIR) {
            errno = libc::EACCES;
        }
        let bytes = errno.to_ne_bytes();
        libc::write(error_pipe, bytes.as_ptr().cast(), bytes.len());
        let message = format!(
            "{message_prefix}{}\n",
            std::io::Error::from_raw_os_error(errno)
        );
        libc::write(2, message.as_ptr().cast(), message.len());
        libc::_exit(if errno == libc::ENOENT { 127 } else { 126 })
    }
}
