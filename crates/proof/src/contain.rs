//! `ploy exec` containment (SVC-1): the program an agent user starts with
//! `ploy exec` must not reach the service's own secrets. It runs as the same
//! user as `ploy serve`, so file permissions cannot keep it from the service
//! file (the service password) or the config folder; namespaces do.
//!
//! The launcher (the running `ploy`, re-executed with the hidden first
//! argument [`CONTAIN_MARKER`]) sets up, in this order:
//!
//! 1. **helper** (the re-executed launcher): a new user namespace (the user's
//!    uid and gid mapped to 0), a new mount namespace and a new PID
//!    namespace. Mounts are made private, then an empty, read-only tmpfs is
//!    mounted over each hidden folder (ploy's state and config folders), and
//!    each is checked to be empty. The helper forks the namespace's PID 1.
//! 2. **PID 1**: mounts a fresh `/proc` (only the program's own processes:
//!    other processes' command lines are world-readable and can carry
//!    secrets, and `/proc/<pid>/root` of a process outside leads into a tree
//!    where nothing is hidden; the user namespace already refuses the latter,
//!    this removes the door itself), then enters a *nested* user namespace that maps the
//!    user's own uid and gid back (to 0 of the first, that is, the real
//!    uid). From there it no longer holds any capability over the mount
//!    namespace, which belongs to the first user namespace: the program
//!    cannot unmount the tmpfs, and in a mount namespace of its own the
//!    copied mounts are locked (the kernel refuses to unmount or reveal
//!    them). PID 1 re-resolves the working directory through the new mounts,
//!    refuses to start inside a hidden folder, reports `OK`, forks the
//!    program, forwards termination signals to it, reaps orphans, and exits
//!    with the program's status.
//! 3. **the program**: signal dispositions reset, then `execvp`.
//!
//! The network, the rest of the file system, the environment (minus
//! `PLOY_*`, removed by the caller) and the terminal are unchanged. Side
//! effects the docs state: the program sees only its own processes; files of
//! other users (root's included) show as owned by `nobody`; setuid programs
//! (`sudo`) cannot gain privileges; when the program ends, everything it
//! started inside ends with it.
//!
//! Fail closed: each step that fails is reported on a status pipe, the program
//! never starts, and the caller gets [`ContainError`] with the reason and
//! what to do.

use std::ffi::{CString, OsStr, OsString};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

/// The hidden first argument that turns the launcher into the containment
/// helper. `main` must call [`entry_if_requested`] before anything else.
pub const CONTAIN_MARKER: &str = "__ploy-exec-contain";

/// The exit code of the helper when containment could not be set up (the
/// program never ran); the caller reports the reason from the status pipe.
const SETUP_FAILED: u8 = 125;

/// The signals passed on to the program (a supervisor stopping the agent);
/// terminal signals (SIGINT, SIGQUIT) already reach the program directly,
/// since it stays in the terminal's foreground process group.
const FORWARDED: [libc::c_int; 4] = [libc::SIGTERM, libc::SIGHUP, libc::SIGUSR1, libc::SIGUSR2];

/// Why the program was not started in containment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContainError {
    /// A namespace, mount or check failed; nothing ran.
    #[error(
        "SVC-1: cannot hide ploy's folders from the program ({0}), so it was not started. \
         ploy exec needs unprivileged user namespaces (Debian/Ubuntu: sysctl \
         kernel.unprivileged_userns_clone=1; Ubuntu 24.04+: \
         kernel.apparmor_restrict_unprivileged_userns=0)"
    )]
    Setup(String),
    /// The working directory is inside a folder that is hidden.
    #[error(
        "SVC-1: the working directory {0} is inside ploy's own folders, which the program must \
         not see; run ploy exec from another folder"
    )]
    InsideHidden(PathBuf),
    /// A folder to hide does not exist or cannot be resolved.
    #[error("SVC-1: cannot resolve the folder to hide {path}: {reason}")]
    BadFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The program could not be executed (not found, not executable).
    #[error("could not start {program:?}: {reason}; check that it is installed and on PATH")]
    Exec {
        /// The program.
        program: String,
        /// Why.
        reason: String,
    },
    /// The launcher could not be started or waited for.
    #[error("SVC-1: the containment launcher failed: {0}")]
    Launcher(String),
    /// Standard input, output or error is a folder, or a file inside a
    /// hidden folder: a descriptor opened before the namespaces were made
    /// sees past the hiding, so the program was not started.
    #[error(
        "SVC-1: {0}; a descriptor opened outside sees past the hidden folders, so the program \
         was not started. Redirect it from a file outside ploy's folders (or /dev/null)"
    )]
    Stdio(String),
}

/// What the parent asks the helper to do.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Request {
    status_fd: RawFd,
    hide: Vec<PathBuf>,
    program: Vec<OsString>,
}

impl Request {
    /// The helper's arguments after the marker:
    /// `STATUS_FD COUNT HIDE... PROGRAM ARGS...`.
    fn to_args(&self) -> Vec<OsString> {
        let mut args = vec![
            OsString::from(self.status_fd.to_string()),
            OsString::from(self.hide.len().to_string()),
        ];
        args.extend(self.hide.iter().map(|p| p.as_os_str().to_owned()));
        args.extend(self.program.iter().cloned());
        args
    }

    fn parse(mut args: impl Iterator<Item = OsString>) -> Result<Self, String> {
        let mut number = |what: &str| -> Result<usize, String> {
            args.next()
                .and_then(|a| a.to_str().and_then(|s| s.parse::<usize>().ok()))
                .ok_or_else(|| format!("missing or bad {what}"))
        };
        let status_fd = RawFd::try_from(number("status fd")?).map_err(|e| e.to_string())?;
        let count = number("folder count")?;
        let hide: Vec<PathBuf> = args.by_ref().take(count).map(PathBuf::from).collect();
        if hide.len() != count {
            return Err("fewer folders than announced".into());
        }
        let program: Vec<OsString> = args.collect();
        if program.is_empty() {
            return Err("no program".into());
        }
        Ok(Self {
            status_fd,
            hide,
            program,
        })
    }
}

/// Runs `command` contained (see the module docs), with `launcher` (a binary
/// whose `main` calls [`entry_if_requested`] first) as the helper, the
/// current environment minus every `PLOY_*` variable plus `env`, stdio
/// inherited. `hide` are folders that must exist; each is resolved and
/// hidden. Returns the program's exit code (128 + signal when killed).
#[allow(clippy::disallowed_methods)] // ploy-proof is the process door: the one spawn of `ploy exec`.
pub fn run_contained<K, V>(
    launcher: &Path,
    command: &[String],
    env: &[(K, V)],
    hide: &[PathBuf],
) -> Result<i32, ContainError>
where
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    let mut resolved = Vec::with_capacity(hide.len());
    for path in hide {
        let canonical = path.canonicalize().map_err(|err| ContainError::BadFolder {
            path: path.clone(),
            reason: err.to_string(),
        })?;
        if !canonical.is_dir() {
            return Err(ContainError::BadFolder {
                path: path.clone(),
                reason: "not a folder".into(),
            });
        }
        resolved.push(canonical);
    }
    resolved.sort();
    resolved.dedup();
    check_stdio(&resolved)?;
    if let Ok(cwd) = std::env::current_dir()
        && let Some(_) = resolved.iter().find(|dir| cwd.starts_with(dir))
    {
        return Err(ContainError::InsideHidden(cwd));
    }

    let (read_end, write_end) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|err| ContainError::Launcher(format!("status pipe: {err}")))?;
    let request = Request {
        status_fd: write_end.as_raw_fd(),
        hide: resolved,
        program: command.iter().map(OsString::from).collect(),
    };
    let mut child = std::process::Command::new(launcher);
    child.arg(CONTAIN_MARKER).args(request.to_args());
    for (name, _) in std::env::vars_os() {
        if name.as_bytes().starts_with(b"PLOY_") {
            child.env_remove(name);
        }
    }
    for (key, value) in env {
        child.env(key, value);
    }
    let status_fd = write_end.as_raw_fd();
    // SAFETY: only async-signal-safe calls (fcntl, prctl) between fork and exec.
    unsafe {
        child.pre_exec(move || {
            // The helper inherits the status pipe's write end...
            if libc::fcntl(status_fd, libc::F_SETFD, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // ...and dies with this process, so nothing outlives `ploy exec`.
            crate::own::die_with_parent()
        });
    }
    let mut child = child
        .spawn()
        .map_err(|err| ContainError::Launcher(format!("{}: {err}", launcher.display())))?;
    drop(write_end);
    // The terminal's Ctrl-C reaches the program itself; this process only
    // waits for it and passes on a supervisor's SIGTERM/SIGHUP.
    let pid = i32::try_from(child.id()).unwrap_or(0);
    ignore_terminal_signals();
    forward_signals_to(pid);

    let mut status = Vec::new();
    let mut reader = std::fs::File::from(read_end);
    let read = reader.read_to_end(&mut status);
    let exit = child
        .wait()
        .map_err(|err| ContainError::Launcher(format!("wait: {err}")))?;
    read.map_err(|err| ContainError::Launcher(format!("status pipe: {err}")))?;
    let report = String::from_utf8_lossy(&status);
    let mut ok = false;
    for line in report.lines() {
        if line == "OK" {
            ok = true;
        } else if let Some(reason) = line.strip_prefix("EXEC ") {
            return Err(ContainError::Exec {
                program: command.first().cloned().unwrap_or_default(),
                reason: reason.to_owned(),
            });
        } else if let Some(reason) = line.strip_prefix("INSIDE ") {
            return Err(ContainError::InsideHidden(PathBuf::from(reason)));
        } else if let Some(reason) = line.strip_prefix("ERR ") {
            return Err(ContainError::Setup(reason.to_owned()));
        }
    }
    if !ok {
        return Err(ContainError::Setup(format!(
            "the helper ended before confirming the hidden folders ({})",
            describe(exit)
        )));
    }
    Ok(exit_code(exit))
}

/// Refuses a standard descriptor that is a folder (a lookup relative to it
/// walks the tree as it was before the tmpfs, e.g. `ploy exec … < ~`), or
/// that is a file inside a hidden folder (`< ~/.local/state/ploy/…`).
fn check_stdio(hidden: &[PathBuf]) -> Result<(), ContainError> {
    for (fd, name) in [
        (0, "standard input"),
        (1, "standard output"),
        (2, "standard error"),
    ] {
        // SAFETY: fstat on a descriptor number with a valid out pointer.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut stat) } != 0 {
            // Not open: nothing is inherited through it.
            continue;
        }
        if stat.st_mode & libc::S_IFMT == libc::S_IFDIR {
            return Err(ContainError::Stdio(format!("{name} is a folder")));
        }
        if let Ok(target) = std::fs::read_link(format!("/proc/self/fd/{fd}"))
            && let Some(dir) = hidden.iter().find(|dir| target.starts_with(dir))
        {
            return Err(ContainError::Stdio(format!(
                "{name} is a file inside {}",
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Closes every descriptor but 0, 1, 2 and `keep` (a directory or file
/// opened by whoever started `ploy exec` would otherwise reach the program,
/// and lookups relative to a folder descriptor see past the hiding), then
/// checks that none is left.
fn close_inherited(keep: RawFd) -> Result<(), String> {
    let open = || -> Result<Vec<RawFd>, String> {
        let entries = std::fs::read_dir("/proc/self/fd")
            .map_err(|err| format!("listing /proc/self/fd: {err}"))?;
        Ok(entries
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<RawFd>().ok())
            .filter(|&fd| fd > 2 && fd != keep)
            .collect())
    };
    for fd in open()? {
        // SAFETY: closing a descriptor number; the directory listing's own
        // descriptor is already closed, others belong to nobody here.
        unsafe { libc::close(fd) };
    }
    // What is still open now is only the listing's own descriptor.
    let left: Vec<RawFd> = open()?
        .into_iter()
        .filter(|&fd| std::fs::read_link(format!("/proc/self/fd/{fd}")).is_ok())
        .collect();
    if left.is_empty() {
        Ok(())
    } else {
        Err(format!("descriptors {left:?} could not be closed"))
    }
}

fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        _ => "unknown status".into(),
    }
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => 1,
    }
}

/// The helper's entry point: `None` unless this process was started with
/// [`CONTAIN_MARKER`] as its first argument. Call it first in `main`, before
/// any thread exists (a new user namespace needs a single-threaded process).
pub fn entry_if_requested() -> Option<ExitCode> {
    let mut args = std::env::args_os();
    if args.nth(1).as_deref() != Some(OsStr::new(CONTAIN_MARKER)) {
        return None;
    }
    let request = match Request::parse(args) {
        Ok(request) => request,
        Err(reason) => {
            eprintln!("ploy: {CONTAIN_MARKER} is internal to `ploy exec` ({reason})");
            return Some(ExitCode::from(2));
        }
    };
    // SAFETY: the fd number came from the parent, which left it open for us;
    // nothing else in this fresh process owns it.
    let status = unsafe { OwnedFd::from_raw_fd(request.status_fd) };
    // Closed again at the program's exec; only the helpers hold it.
    let _ = nix::fcntl::fcntl(
        &status,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
    );
    let mut status = Some(std::fs::File::from(status));
    match helper(&request, &mut status) {
        Ok(code) => Some(ExitCode::from(u8::try_from(code).unwrap_or(1))),
        Err(reason) => {
            report(&mut status, &reason);
            Some(ExitCode::from(SETUP_FAILED))
        }
    }
}

/// One line on the status pipe, if this process still holds it.
fn report(status: &mut Option<std::fs::File>, line: &str) {
    if let Some(file) = status.as_mut() {
        let _ = writeln!(file, "{line}");
    }
}

/// Step 1 (see the module docs). Returns PID 1's exit code, or the status
/// line to report (`ERR …`) when setup failed.
fn helper(request: &Request, status: &mut Option<std::fs::File>) -> Result<i32, String> {
    use nix::sched::{CloneFlags, unshare};
    use nix::unistd::{ForkResult, fork, getgid, getuid};

    // Die with `ploy exec` (set again: a race with its exit is closed by
    // checking the parent is still there).
    // SAFETY: prctl with plain integer arguments.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    if nix::unistd::getppid().as_raw() == 1 {
        return Err("ERR ploy exec ended before the program started".into());
    }
    close_inherited(status.as_ref().map_or(-1, std::os::fd::AsRawFd::as_raw_fd))
        .map_err(|err| format!("ERR {err}"))?;
    let uid = getuid().as_raw();
    let gid = getgid().as_raw();
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWPID)
        .map_err(|err| format!("ERR new user, mount and PID namespaces: {err}"))?;
    write_id_maps(0, uid, 0, gid).map_err(|err| format!("ERR {err}"))?;
    let cwd = std::env::current_dir().map_err(|err| format!("ERR working directory: {err}"))?;
    hide_folders(&request.hide).map_err(|err| format!("ERR {err}"))?;

    // SAFETY: this process is single-threaded (the helper starts before any
    // thread in `main`), so the child may run ordinary code after fork.
    match unsafe { fork() }.map_err(|err| format!("ERR fork: {err}"))? {
        ForkResult::Child => {
            let code = match pid_one(request, status, &cwd, uid, gid) {
                Ok(code) => code,
                Err(line) => {
                    report(status, &line);
                    i32::from(SETUP_FAILED)
                }
            };
            std::process::exit(code);
        }
        ForkResult::Parent { child } => {
            // Only PID 1 and the program may report from here on.
            drop(status.take());
            ignore_terminal_signals();
            forward_signals_to(child.as_raw());
            Ok(wait_for(child.as_raw()))
        }
    }
}

/// `setgroups deny`, then one-line uid and gid maps (`inside outside 1`).
fn write_id_maps(uid_in: u32, uid_out: u32, gid_in: u32, gid_out: u32) -> Result<(), String> {
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text.as_bytes())
            .map_err(|err| format!("writing /proc/self/{file}: {err}"))
    };
    write("setgroups", "deny".into())?;
    write("uid_map", format!("{uid_in} {uid_out} 1"))?;
    write("gid_map", format!("{gid_in} {gid_out} 1"))
}

/// Private mounts; every folder above a hidden one (up to, not including,
/// `/`) bound onto itself, so it is a mount point the program cannot rename
/// (renaming `~/.config` would move the tmpfs with it and free the path
/// `~/.config/ploy` for the program to fill); then an empty read-only tmpfs
/// over each folder, each checked afterwards (an empty tmpfs is what the
/// program must see).
fn hide_folders(hide: &[PathBuf]) -> Result<(), String> {
    use nix::mount::{MsFlags, mount};
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|err| format!("making mounts private: {err}"))?;
    let mut ancestors: Vec<&Path> = hide
        .iter()
        .flat_map(|dir| dir.ancestors().skip(1))
        .filter(|dir| dir.parent().is_some())
        .collect();
    ancestors.sort();
    ancestors.dedup();
    // Outermost first, so an inner bind is not hidden by an outer one.
    ancestors.sort_by_key(|dir| dir.components().count());
    for dir in ancestors {
        mount(
            Some(dir),
            dir,
            None::<&str>,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            None::<&str>,
        )
        .map_err(|err| format!("pinning {} (bind onto itself): {err}", dir.display()))?;
    }
    for dir in hide {
        mount(
            Some("tmpfs"),
            dir.as_path(),
            Some("tmpfs"),
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC | MsFlags::MS_RDONLY,
            Some("size=4k,nr_inodes=1,mode=0500"),
        )
        .map_err(|err| format!("mounting an empty tmpfs over {}: {err}", dir.display()))?;
        let fs = nix::sys::statfs::statfs(dir.as_path())
            .map_err(|err| format!("checking {}: {err}", dir.display()))?;
        let empty = std::fs::read_dir(dir)
            .map(|mut entries| entries.next().is_none())
            .unwrap_or(false);
        if fs.filesystem_type() != nix::sys::statfs::TMPFS_MAGIC || !empty {
            return Err(format!("{} is not hidden after the mount", dir.display()));
        }
    }
    Ok(())
}

/// Step 2: PID 1 of the new PID namespace.
fn pid_one(
    request: &Request,
    status: &mut Option<std::fs::File>,
    cwd: &Path,
    uid: u32,
    gid: u32,
) -> Result<i32, String> {
    use nix::mount::{MsFlags, mount};
    use nix::sched::{CloneFlags, unshare};
    use nix::unistd::{ForkResult, fork};

    // SAFETY: prctl with plain integer arguments.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
    .map_err(|err| format!("ERR mounting a fresh /proc: {err}"))?;
    unshare(CloneFlags::CLONE_NEWUSER)
        .map_err(|err| format!("ERR nested user namespace: {err}"))?;
    write_id_maps(uid, 0, gid, 0).map_err(|err| format!("ERR nested namespace: {err}"))?;
    // The old working directory may be a folder now hidden; go there again
    // through the mounts (a descriptor kept from before would see past them).
    if request.hide.iter().any(|dir| cwd.starts_with(dir)) {
        return Err(format!("INSIDE {}", cwd.display()));
    }
    std::env::set_current_dir(cwd)
        .map_err(|err| format!("ERR working directory {}: {err}", cwd.display()))?;

    let program = to_cstring(&request.program[0])?;
    let argv = request
        .program
        .iter()
        .map(to_cstring)
        .collect::<Result<Vec<_>, _>>()?;
    match status.as_mut() {
        Some(file) => writeln!(file, "OK").map_err(|err| format!("ERR status pipe: {err}"))?,
        None => return Err("ERR the status pipe is gone".into()),
    }

    // SAFETY: single-threaded process (see `helper`).
    match unsafe { fork() }.map_err(|err| format!("ERR fork: {err}"))? {
        ForkResult::Child => {
            reset_signals();
            if let Err(reason) = deny_terminal_injection() {
                report(status, &format!("ERR {reason}"));
                std::process::exit(i32::from(SETUP_FAILED));
            }
            let err = match nix::unistd::execvp(&program, &argv) {
                Err(err) => err,
                Ok(never) => match never {},
            };
            report(status, &format!("EXEC {}", err.desc()));
            std::process::exit(127);
        }
        ForkResult::Parent { child } => {
            drop(status.take());
            ignore_terminal_signals();
            forward_signals_to(child.as_raw());
            Ok(reap_until(child.as_raw()))
        }
    }
}

/// `ioctl(TIOCSTI)` pushes bytes into a terminal's input queue and
/// `ioctl(TIOCLINUX)` can do the same through the console's selection: the
/// program shares the user's terminal, so either would let it type a command
/// into the shell that started `ploy exec`, which runs outside every
/// namespace once the program ends (an escape found by testing). A seccomp
/// filter refuses both with EPERM, for native, x32 and i386 system calls;
/// every other call, and every other ioctl, is untouched. It is installed
/// with the capability the nested user namespace gives (no `no_new_privs`,
/// so nothing else about exec changes).
fn deny_terminal_injection() -> Result<(), String> {
    let program = terminal_injection_filter().ok_or_else(|| {
        "seccomp: ploy exec does not know this architecture's system call numbers".to_owned()
    })?;
    let fprog = libc::sock_fprog {
        len: u16::try_from(program.len()).map_err(|_| "seccomp: filter too long".to_owned())?,
        filter: program.as_ptr().cast_mut(),
    };
    // SAFETY: `fprog` points at `program`, alive for the call; the kernel
    // copies the filter.
    let done = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &fprog as *const libc::sock_fprog,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(format!(
            "installing the terminal-injection filter (seccomp): {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// The classic BPF program of [`deny_terminal_injection`].
fn terminal_injection_filter() -> Option<Vec<libc::sock_filter>> {
    // seccomp_data: nr at 0, arch at 4, args[n] at 16 + 8n (the request is
    // the low 32 bits of args[1], at 24 on little-endian machines).
    const LD: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JEQ: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const RET: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    let op = |code: u16, jt: u8, jf: u8, k: u32| libc::sock_filter { code, jt, jf, k };
    #[allow(clippy::unnecessary_cast)] // the request type differs between targets
    let (tiocsti, tioclinux) = (libc::TIOCSTI as u32, libc::TIOCLINUX as u32);
    // SYS_ioctl is a small positive number on every Linux target.
    let ioctl = u32::try_from(libc::SYS_ioctl).unwrap_or(u32::MAX);
    let (native, x32_ioctl, compat, compat_ioctl) = arch_numbers(ioctl)?;
    Some(vec![
        /* 0 */ op(LD, 0, 0, 4),
        /* 1 */ op(JEQ, 0, 3, native),
        /* 2 */ op(LD, 0, 0, 0),
        /* 3 */ op(JEQ, 4, 0, ioctl),
        /* 4 */ op(JEQ, 3, 7, x32_ioctl),
        /* 5 */ op(JEQ, 0, 6, compat),
        /* 6 */ op(LD, 0, 0, 0),
        /* 7 */ op(JEQ, 0, 4, compat_ioctl),
        /* 8 */ op(LD, 0, 0, 24),
        /* 9 */ op(JEQ, 1, 0, tiocsti),
        /* 10 */ op(JEQ, 0, 1, tioclinux),
        /* 11 */ op(RET, 0, 0, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
        /* 12 */ op(RET, 0, 0, libc::SECCOMP_RET_ALLOW),
    ])
}

/// (native audit arch, x32 ioctl number, compat audit arch, compat ioctl
/// number); `None` on an architecture whose numbers are not listed. Where
/// there is no x32 ABI the native number repeats, which adds no case.
#[cfg(target_arch = "x86_64")]
fn arch_numbers(_ioctl: u32) -> Option<(u32, u32, u32, u32)> {
    const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
    const AUDIT_ARCH_I386: u32 = 0x4000_0003;
    // x32 calls ioctl as 514 with bit 30 set; i386 calls it as 54.
    Some((AUDIT_ARCH_X86_64, 0x4000_0000 | 514, AUDIT_ARCH_I386, 54))
}

#[cfg(target_arch = "aarch64")]
fn arch_numbers(ioctl: u32) -> Option<(u32, u32, u32, u32)> {
    const AUDIT_ARCH_AARCH64: u32 = 0xC000_00B7;
    const AUDIT_ARCH_ARM: u32 = 0x4000_0028;
    // 32-bit ARM processes call ioctl as 54.
    Some((AUDIT_ARCH_AARCH64, ioctl, AUDIT_ARCH_ARM, 54))
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn arch_numbers(_ioctl: u32) -> Option<(u32, u32, u32, u32)> {
    // Another layout is not known here: refuse rather than guess (the
    // program is not started).
    None
}

fn to_cstring(text: &OsString) -> Result<CString, String> {
    CString::new(text.clone().into_vec())
        .map_err(|_| format!("ERR argument holds a NUL byte: {text:?}"))
}

/// The pid signals are passed on to (one per process: each level has one child).
static FORWARD_TO: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward(signal: libc::c_int) {
    let pid = FORWARD_TO.load(Ordering::Relaxed);
    if pid > 0 {
        // SAFETY: kill is async-signal-safe.
        unsafe { libc::kill(pid, signal) };
    }
}

/// Pass [`FORWARDED`] signals on to `pid`.
fn forward_signals_to(pid: i32) {
    FORWARD_TO.store(pid, Ordering::Relaxed);
    for signal in FORWARDED {
        // SAFETY: installs a handler that only calls kill (async-signal-safe).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = forward as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// SIGINT and SIGQUIT come from the terminal to the whole foreground group,
/// the program included; the levels above it only wait for it.
fn ignore_terminal_signals() {
    for signal in [libc::SIGINT, libc::SIGQUIT] {
        // SAFETY: setting a disposition to SIG_IGN.
        unsafe { libc::signal(signal, libc::SIG_IGN) };
    }
}

/// The program starts with every disposition at its default and no signal
/// blocked, as if started directly (ignored signals would survive exec).
fn reset_signals() {
    for signal in 1..libc::SIGRTMIN() {
        if signal != libc::SIGKILL && signal != libc::SIGSTOP {
            // SAFETY: setting a disposition to SIG_DFL.
            unsafe { libc::signal(signal, libc::SIG_DFL) };
        }
    }
    // SAFETY: an empty mask, applied to this thread.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
}

/// Waits for `pid` and returns its exit code (128 + signal when killed).
fn wait_for(pid: i32) -> i32 {
    use nix::sys::wait::{WaitStatus, waitpid};
    loop {
        match waitpid(nix::unistd::Pid::from_raw(pid), None) {
            Ok(WaitStatus::Exited(_, code)) => return code,
            Ok(WaitStatus::Signaled(_, signal, _)) => return 128 + signal as i32,
            Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return 1,
        }
    }
}

/// As PID 1: reaps every child (orphans are re-parented here) until the
/// program itself ends, and returns its exit code.
fn reap_until(program: i32) -> i32 {
    use nix::sys::wait::{WaitStatus, waitpid};
    loop {
        match waitpid(nix::unistd::Pid::from_raw(-1), None) {
            Ok(WaitStatus::Exited(pid, code)) if pid.as_raw() == program => return code,
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid.as_raw() == program => {
                return 128 + signal as i32;
            }
            Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_round_trips_through_the_arguments() {
        let request = Request {
            status_fd: 7,
            hide: vec![PathBuf::from("/a b/state"), PathBuf::from("/c")],
            program: vec!["sh".into(), "-c".into(), "echo 3 /x".into()],
        };
        let parsed = Request::parse(request.to_args().into_iter()).unwrap();
        assert_eq!(parsed, request);
        // Malformed: refused, never guessed.
        for bad in [
            vec!["x"],
            vec!["3"],
            vec!["3", "2", "/a"],
            vec!["3", "1", "/a"],
        ] {
            assert!(
                Request::parse(bad.into_iter().map(OsString::from)).is_err(),
                "parsed"
            );
        }
    }
}
