//! Starting the sandbox's init: one `clone` directly into new user, mount,
//! PID, network, IPC and UTS namespaces (the init is PID 1; no intermediate
//! process), with exactly the environment the parent built (SBX-4), stdin
//! from `/dev/null`, piped output, the status channel and the request on
//! their private descriptors, and nothing else: every other descriptor the
//! caller holds closes at the exec.
//!
//! System calls: `rustix` wherever it has a safe call; `libc` only for what
//! it lacks (the `clone` with namespace flags and its child side, which runs
//! on a borrowed stack sharing the parent's memory and may only make plain
//! system calls, `close_range`, `mount_setattr`, `sigtimedwait`, and the
//! wait-status macros). `nix` is not used.

use std::{
    ffi::CString,
    os::{
        fd::{AsFd, AsRawFd, OwnedFd},
        unix::process::ExitStatusExt,
    },
    path::Path,
    process::ExitStatus,
    sync::atomic::AtomicBool,
    time::{Duration, Instant},
};

use rustix::{
    fs::{MemfdFlags, SealFlags},
    pipe::PipeFlags,
    process::{Pid, PidfdFlags},
    thread::CapabilitySet,
};

use super::{
    INIT_MARKER,
    collect::{Collected, collect},
    policy::{Layer, SandboxError},
    protocol::{InitRequest, REQUEST_FD, STATUS_FD, StatusReport},
};

/// What one launch gave back, before interpretation.
pub(super) struct Launched {
    /// The checked status report, or why it is not trusted.
    pub report: Result<StatusReport, String>,
    /// The init's own exit status.
    pub init_status: ExitStatus,
    /// Whether the wall-time limit killed the init.
    pub timed_out: bool,
    /// Whether the stop flag killed the init.
    pub cancelled: bool,
    /// From launch to the init's end.
    pub duration: Duration,
    /// Output, capped.
    pub stdout: Vec<u8>,
    /// Output, capped.
    pub stderr: Vec<u8>,
    /// Whether stdout or stderr was cut.
    pub output_truncated: bool,
}

/// Starts `init` as the sandbox's PID 1 with `request`, collects its output
/// and report, and enforces the wall-time limit.
pub(super) fn launch(
    init: &Path,
    request: &InitRequest,
    env: &[(String, String)],
    stop: Option<&AtomicBool>,
) -> Result<Launched, SandboxError> {
    let request_json = serde_json::to_string(request)
        .map_err(|err| SandboxError::Launcher(format!("cannot encode the request: {err}")))?;
    let request_fd = sealed_memfd("ploy-sandbox-request", request_json.as_bytes())
        .map_err(|err| SandboxError::Launcher(format!("cannot pass the request: {err}")))?;
    let (status_read, status_write) = rustix::pipe::pipe_with(PipeFlags::CLOEXEC)
        .map_err(|err| SandboxError::Launcher(format!("cannot create the status pipe: {err}")))?;
    let started = Instant::now();
    let mut child = spawn_init(
        init,
        (request.uid, request.gid),
        &request_fd,
        env,
        &status_write,
    )
    .map_err(|err| match err {
        SpawnError::Namespaces(err) => SandboxError::LayerMissing {
            layer: Layer::UserNamespaces,
            detail: format!("new user, mount, pid, net, ipc and uts namespaces: {err}"),
        },
        SpawnError::Other(detail) => {
            SandboxError::Launcher(format!("cannot start {}: {detail}", init.display()))
        }
    })?;
    drop(status_write);
    drop(request_fd);
    let Collected {
        stdout,
        stderr,
        status,
        timed_out,
        cancelled,
    } = collect(
        &mut child,
        std::fs::File::from(status_read),
        started + Duration::from_millis(request.limits.wall_ms),
        request.limits.output_bytes,
        stop,
    );
    let init_status = child
        .wait()
        .map_err(|err| SandboxError::Launcher(format!("cannot wait for the init: {err}")))?;
    let text = String::from_utf8_lossy(&status.kept);
    Ok(Launched {
        report: StatusReport::parse(&text, init_status.code()),
        init_status,
        timed_out,
        cancelled,
        duration: started.elapsed(),
        output_truncated: stdout.truncated || stderr.truncated,
        stdout: stdout.kept,
        stderr: stderr.kept,
    })
}

/// The init: PID 1 of the sandbox's fresh PID namespace, a child of the
/// calling thread, with its output pipes.
pub(super) struct InitProcess {
    pid: Pid,
    pub(super) stdout: Option<std::fs::File>,
    pub(super) stderr: Option<std::fs::File>,
    status: Option<ExitStatus>,
}

impl InitProcess {
    /// A pidfd for the init, to poll for its exit (`None` before Linux 5.3).
    pub(super) fn pidfd(&self) -> Option<OwnedFd> {
        rustix::process::pidfd_open(self.pid, PidfdFlags::empty()).ok()
    }

    /// Reaps the init if it has ended (never blocks).
    pub(super) fn try_wait(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            let mut raw = 0;
            // SAFETY: waitpid on our own unreaped child, WNOHANG. libc keeps
            // the raw status, which ExitStatus understands.
            if unsafe { libc::waitpid(self.pid.as_raw_nonzero().get(), &mut raw, libc::WNOHANG) }
                == self.pid.as_raw_nonzero().get()
            {
                self.status = Some(ExitStatus::from_raw(raw));
            }
        }
        self.status
    }

    /// SIGKILL to PID 1, which tears down the whole PID namespace.
    pub(super) fn kill(&self) {
        if self.status.is_none() {
            // Our unreaped child: its pid cannot be reused before we reap it.
            let _ = rustix::process::kill_process(self.pid, rustix::process::Signal::KILL);
        }
    }

    /// Waits for the init to end and reaps it.
    pub(super) fn wait(&mut self) -> std::io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.status {
                return Ok(status);
            }
            let mut raw = 0;
            // SAFETY: blocking waitpid on our own unreaped child.
            let rc = unsafe { libc::waitpid(self.pid.as_raw_nonzero().get(), &mut raw, 0) };
            if rc == self.pid.as_raw_nonzero().get() {
                self.status = Some(ExitStatus::from_raw(raw));
            } else {
                let err = std::io::Error::last_os_error();
                if err.kind() != std::io::ErrorKind::Interrupted {
                    return Err(err);
                }
            }
        }
    }
}

/// Why the init could not be started.
enum SpawnError {
    /// The kernel refused the new namespaces (SBX-5: the user-namespaces layer).
    Namespaces(std::io::Error),
    /// Anything else (pipes, paths, exec of the init).
    Other(String),
}

/// Namespaces the init is created in: PID 1 of a fresh PID namespace, inside
/// new user, mount, network, IPC and UTS namespaces.
const INIT_NAMESPACES: libc::c_int = libc::CLONE_NEWUSER
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS;

/// Everything the clone child needs, prepared before `clone` (the child may
/// not allocate: it shares the parent's memory).
struct ChildSetup {
    path: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    /// Descriptors to install as 0, 1, 2, [`STATUS_FD`] and [`REQUEST_FD`],
    /// all >= 10.
    fds: [libc::c_int; 5],
    empty_mask: libc::sigset_t,
    /// `/proc/self/setgroups`, `uid_map`, `gid_map` and what to write in each.
    id_maps: [(*const libc::c_char, *const libc::c_char); 3],
    /// The errno of a failed step, read by the parent.
    failed: std::sync::atomic::AtomicI32,
    /// Which step failed (an index into [`CHILD_STEPS`]).
    failed_step: std::sync::atomic::AtomicI32,
}

/// The child's steps, as named in errors; steps 1-3 are the user namespace's.
const CHILD_STEPS: [&str; 6] = [
    "session and signals",
    "setgroups",
    "uid_map",
    "gid_map",
    "descriptors",
    "exec",
];

/// The child side of the init's `clone`: only plain system calls, then exec.
///
/// The ID maps are written here, before exec, while the child still holds
/// every capability in its new user namespace; the capabilities are kept
/// across exec as ambient ones (a non-root exec would drop them) so the
/// init can build the sandbox, and it drops them all before anything runs.
extern "C" fn init_child(arg: *mut libc::c_void) -> libc::c_int {
    use std::sync::atomic::Ordering;
    // SAFETY: `arg` is the parent's ChildSetup, alive while the parent is
    // suspended (CLONE_VFORK); every call below is async-signal-safe.
    unsafe {
        let setup = &*(arg as *const ChildSetup);
        let fail = |setup: &ChildSetup, step: i32| -> libc::c_int {
            let errno = *libc::__errno_location();
            setup.failed_step.store(step, Ordering::SeqCst);
            setup.failed.store(errno.max(1), Ordering::SeqCst);
            libc::_exit(127)
        };
        // Signals arrive blocked (the parent blocked them around clone): a
        // handler of the parent must never run here, on shared memory. Reset
        // every handled signal to its default (exec would anyway) and SIGPIPE
        // too (as std's Command does), then unblock all: the sandbox starts
        // clean even when a service thread blocked some.
        for signal in 1..65 {
            let mut current = std::mem::zeroed::<libc::sigaction>();
            if libc::sigaction(signal, std::ptr::null(), &mut current) != 0 {
                continue;
            }
            if current.sa_sigaction != libc::SIG_DFL
                && (current.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
            {
                let mut default = std::mem::zeroed::<libc::sigaction>();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        // Own session: no controlling terminal to push input into. The
        // sandbox dies with the thread that started it.
        if libc::sigprocmask(libc::SIG_SETMASK, &setup.empty_mask, std::ptr::null_mut()) != 0
            || libc::setsid() < 0
            || libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
        {
            return fail(setup, 0);
        }
        for (step, (path, text)) in setup.id_maps.iter().enumerate() {
            let fd = libc::open(*path, libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return fail(setup, step as i32 + 1);
            }
            let len = libc::strlen(*text);
            let written = libc::write(fd, (*text).cast(), len);
            if written != len as isize {
                return fail(setup, step as i32 + 1);
            }
            libc::close(fd);
        }
        keep_capabilities_across_exec();
        for (target, fd) in [0, 1, 2, STATUS_FD, REQUEST_FD].into_iter().zip(setup.fds) {
            if libc::dup2(fd, target) < 0 {
                return fail(setup, 4);
            }
        }
        // Nothing else the caller holds reaches the init (a descriptor ploy
        // inherited from its own caller, e.g. `exec 8<~/.ssh/id_rsa`): every
        // other descriptor closes at exec.
        if libc::close_range(
            (REQUEST_FD + 1) as libc::c_uint,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC as libc::c_int,
        ) != 0
        {
            return fail(setup, 4);
        }
        libc::execve(setup.path, setup.argv, setup.envp);
        fail(setup, 5)
    }
}

/// The capabilities the init needs (inside its user namespace) to build
/// the sandbox, and no others: mounts, `pivot_root` and the host name
/// (`SYS_ADMIN`), dropping the bounding set (`SETPCAP`), the IPC caps in
/// `/proc/sys` (`SYS_RESOURCE`), and for the copy-on-write layer, whose
/// copy-up acts with the mounter's capabilities, reading and re-owning the
/// user's own files whatever their mode (`DAC_OVERRIDE`, `CHOWN`,
/// `FOWNER`). Raising these few instead of all 41 spares the start-up a
/// system call each; the init drops them all before anything runs.
const INIT_CAPABILITIES: CapabilitySet = CapabilitySet::SYS_ADMIN
    .union(CapabilitySet::SETPCAP)
    .union(CapabilitySet::SYS_RESOURCE)
    .union(CapabilitySet::DAC_OVERRIDE)
    .union(CapabilitySet::CHOWN)
    .union(CapabilitySet::FOWNER);

/// Makes the child's [`INIT_CAPABILITIES`] (inside its new user namespace
/// only) ambient so they survive exec. Failures are left to show up as a
/// refused mount in the init, which stops the run (SBX-5). Plain system
/// calls through rustix (no allocation): safe in the clone child.
fn keep_capabilities_across_exec() {
    let Ok(mut sets) = rustix::thread::capabilities(None) else {
        return;
    };
    sets.inheritable = sets.permitted & INIT_CAPABILITIES;
    if rustix::thread::set_capabilities(None, sets).is_err() {
        return;
    }
    for one in sets.inheritable.iter() {
        let _ = rustix::thread::configure_capability_in_ambient_set(one, true);
    }
}

/// A memfd holding `bytes`, sealed against any change, read from offset 0.
fn sealed_memfd(name: &str, bytes: &[u8]) -> std::io::Result<OwnedFd> {
    use std::io::{Seek, Write};
    let fd = rustix::fs::memfd_create(name, MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)?;
    let mut file = std::fs::File::from(fd);
    file.write_all(bytes)?;
    file.rewind()?;
    rustix::fs::fcntl_add_seals(
        &file,
        SealFlags::SEAL | SealFlags::SHRINK | SealFlags::GROW | SealFlags::WRITE,
    )?;
    Ok(OwnedFd::from(file))
}

/// A descriptor moved to number 10 or above (so installing 0..4 in the child
/// cannot overwrite another), close-on-exec.
fn high_fd(fd: impl AsFd) -> std::io::Result<OwnedFd> {
    Ok(rustix::io::fcntl_dupfd_cloexec(fd, 10)?)
}

/// The one place the sandbox starts its init: created directly as PID 1 of
/// new user, mount, PID, network, IPC and UTS namespaces (one `clone`, no
/// intermediate process), with exactly `env` (SBX-4), stdin from /dev/null,
/// piped output, its own session, killed when the spawning thread dies, the
/// status pipe and the request on their descriptors. `CLONE_VM |
/// CLONE_VFORK` (as posix_spawn does) spares copying the parent's page tables.
fn spawn_init(
    init: &Path,
    (uid, gid): (u32, u32),
    request: &OwnedFd,
    env: &[(String, String)],
    status_write: &OwnedFd,
) -> Result<InitProcess, SpawnError> {
    use std::os::unix::ffi::OsStrExt;
    let other =
        |what: &str, err: &dyn std::fmt::Display| SpawnError::Other(format!("{what}: {err}"));
    let c_string = |bytes: &[u8]| {
        CString::new(bytes)
            .map_err(|_| SpawnError::Other("an argument contains a NUL byte".to_string()))
    };
    let path = c_string(init.as_os_str().as_bytes())?;
    // The marker lets a binary that is not the dedicated init (a test
    // helper) serve as its own init; the dedicated one ignores it.
    let args = [path.clone(), c_string(INIT_MARKER.as_bytes())?];
    let mut env_strings = Vec::with_capacity(env.len());
    for (name, value) in env {
        env_strings.push(c_string(format!("{name}={value}").as_bytes())?);
    }
    let argv: Vec<*const libc::c_char> = args
        .iter()
        .map(|arg| arg.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let envp: Vec<*const libc::c_char> = env_strings
        .iter()
        .map(|var| var.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let stdin = std::fs::File::open("/dev/null").map_err(|err| other("open /dev/null", &err))?;
    let (out_read, out_write) =
        rustix::pipe::pipe_with(PipeFlags::CLOEXEC).map_err(|err| other("stdout pipe", &err))?;
    let (err_read, err_write) =
        rustix::pipe::pipe_with(PipeFlags::CLOEXEC).map_err(|err| other("stderr pipe", &err))?;
    let child_fds = [
        high_fd(&stdin).map_err(|err| other("stdin", &err))?,
        high_fd(&out_write).map_err(|err| other("stdout pipe", &err))?,
        high_fd(&err_write).map_err(|err| other("stderr pipe", &err))?,
        high_fd(status_write).map_err(|err| other("status pipe", &err))?,
        high_fd(request).map_err(|err| other("request", &err))?,
    ];
    drop((stdin, out_write, err_write));
    // SAFETY: sigemptyset initializes the set it is given.
    let empty_mask = unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        set
    };
    let id_texts = [
        c_string(b"/proc/self/setgroups")?,
        c_string(b"deny")?,
        c_string(b"/proc/self/uid_map")?,
        c_string(format!("{uid} {uid} 1").as_bytes())?,
        c_string(b"/proc/self/gid_map")?,
        c_string(format!("{gid} {gid} 1").as_bytes())?,
    ];
    let setup = ChildSetup {
        id_maps: [
            (id_texts[0].as_ptr(), id_texts[1].as_ptr()),
            (id_texts[2].as_ptr(), id_texts[3].as_ptr()),
            (id_texts[4].as_ptr(), id_texts[5].as_ptr()),
        ],
        failed_step: std::sync::atomic::AtomicI32::new(0),
        path: path.as_ptr(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        fds: child_fds.each_ref().map(|fd| fd.as_raw_fd()),
        empty_mask,
        failed: std::sync::atomic::AtomicI32::new(0),
    };
    // The child runs on its own stack until exec; 256 KiB is far more than
    // the few system calls it makes.
    let mut stack = vec![0u8; 256 * 1024];
    // SAFETY: one past the end of the live allocation; clone aligns nothing,
    // so round down to 16 bytes as the x86-64 and aarch64 ABIs require.
    let stack_top = unsafe { stack.as_mut_ptr().add(stack.len()) } as usize & !15;
    let flags = libc::CLONE_VM | libc::CLONE_VFORK | INIT_NAMESPACES | libc::SIGCHLD;
    // SAFETY: the child only reads `setup` (alive until clone returns, as
    // CLONE_VFORK suspends us until the child execs or exits) and makes
    // async-signal-safe calls on its own stack; the signal masks are live
    // sets restored right after.
    let (pid, clone_error) = unsafe {
        // Block every signal across clone (as posix_spawn does) so none is
        // handled in the child before it resets the handlers.
        let mut all = std::mem::zeroed::<libc::sigset_t>();
        let mut previous = std::mem::zeroed::<libc::sigset_t>();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut previous);
        let pid = libc::clone(
            init_child,
            stack_top as *mut libc::c_void,
            flags,
            &setup as *const ChildSetup as *mut libc::c_void,
        );
        let clone_error = std::io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut());
        (pid, clone_error)
    };
    drop(stack);
    let Some(pid) = (pid > 0).then(|| Pid::from_raw(pid)).flatten() else {
        return Err(SpawnError::Namespaces(clone_error));
    };
    let failed = setup.failed.load(std::sync::atomic::Ordering::SeqCst);
    let mut process = InitProcess {
        pid,
        stdout: Some(std::fs::File::from(out_read)),
        stderr: Some(std::fs::File::from(err_read)),
        status: None,
    };
    if failed != 0 {
        let _ = process.wait();
        let step = setup.failed_step.load(std::sync::atomic::Ordering::SeqCst);
        let name = CHILD_STEPS.get(step as usize).copied().unwrap_or("set-up");
        let err = std::io::Error::from_raw_os_error(failed);
        return Err(if (1..=3).contains(&step) {
            SpawnError::Namespaces(std::io::Error::new(err.kind(), format!("{name}: {err}")))
        } else {
            SpawnError::Other(format!("{name}: {err}"))
        });
    }
    Ok(process)
}
