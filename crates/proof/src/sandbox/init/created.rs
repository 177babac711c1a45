//! SBX-6 while a writable run lasts (found attacking the sandbox, #3): a
//! PERM-7 path that did not exist at the start (`.envrc`, `.mcp.json`, a
//! `.claude` or `.git` folder) cannot be locked, since the kernel has no way
//! to forbid one name in a writable folder. The init (PID 1, in the
//! sandbox's own view of the project) watches every writable folder of the
//! project with inotify; the moment such a path appears it is moved aside
//! (`NAME.ploy-blocked`, nothing deleted) and every process is killed, so
//! the run fails. The inotify descriptor raises a signal at the init the
//! moment an event is queued (signal-driven I/O), so the path exists only
//! until the init is next scheduled (microseconds on an idle machine; on a
//! loaded one, as long as the scheduler keeps the init waiting), not until
//! the guard's next timed check, and it is moved aside even if ploy itself
//! dies meanwhile. That short window cannot be closed: no kernel interface
//! open to an unprivileged user refuses one name in a writable folder
//! (docs/proofs.md says so). New folders are watched as they appear (and
//! what was made in them before the watch, checked). Lost events (the
//! queue overflowed) stop the run too: fail closed.
//!
//! A socket file that appears in the project stops the run the same way
//! (left in place): a host program made it, or one inside did; either way
//! the sandbox cannot cut it off once the run started (sockets present at
//! the start are covered), and a program inside could reach the process
//! listening on it.

use std::{
    collections::HashMap,
    ffi::OsStr,
    mem::MaybeUninit,
    os::{
        fd::OwnedFd,
        unix::{ffi::OsStrExt, fs::FileTypeExt},
    },
    path::{Path, PathBuf},
};

use ploy_policy::ProtectedPaths;
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};

/// Makes the inotify descriptor raise [`super::runner::WATCH_SIGNAL`] at the init
/// (blocked first, then taken by the init's wait) the moment an event is
/// queued, so a created PERM-7 path or socket is acted on as soon as the
/// init runs again, not at the guard's next scheduled check (up to 50 ms
/// later).
fn wake_on_events(fd: &OwnedFd) -> Result<(), String> {
    use std::os::fd::AsRawFd;
    super::runner::block_child_signal();
    let raw = fd.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own, with integer arguments (rustix
    // has no F_SETOWN/O_ASYNC). Without F_SETSIG the signal is SIGIO, sent
    // as SI_KERNEL.
    let failed = unsafe {
        libc::fcntl(raw, libc::F_SETOWN, libc::getpid()) != 0
            || libc::fcntl(
                raw,
                libc::F_SETFL,
                libc::fcntl(raw, libc::F_GETFL) | libc::O_ASYNC | libc::O_NONBLOCK,
            ) != 0
    };
    if failed {
        return Err(format!(
            "cannot be woken by the project's watch: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Watches the project's writable folders for new PERM-7 paths.
pub(super) struct CreationWatch {
    fd: OwnedFd,
    dirs: HashMap<i32, PathBuf>,
    project: PathBuf,
    protected: ProtectedPaths,
    /// Paths bound read-only (nothing can be created in them): not watched.
    read_only: Vec<PathBuf>,
    /// What was found, for the person.
    found: Vec<String>,
}

impl CreationWatch {
    /// Watches every folder of `project` outside `read_only`. Fails when a
    /// folder cannot be watched (e.g. `fs.inotify.max_user_watches`): the
    /// run is then refused, since the guard would be blind there.
    pub(super) fn start(project: &Path, read_only: &[PathBuf]) -> Result<Self, String> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)
            .map_err(|err| format!("inotify: {err}"))?;
        wake_on_events(&fd)?;
        let mut watch = CreationWatch {
            fd,
            dirs: HashMap::new(),
            project: project.to_path_buf(),
            protected: ProtectedPaths::names_only(project),
            read_only: read_only.to_vec(),
            found: Vec::new(),
        };
        watch.watch_tree(project.to_path_buf(), false)?;
        Ok(watch)
    }

    /// Watches `top` and every folder below it; with `check`, also checks
    /// every entry found (they may have been made before the watch).
    fn watch_tree(&mut self, top: PathBuf, check: bool) -> Result<(), String> {
        let mut stack = vec![top];
        while let Some(dir) = stack.pop() {
            if self.read_only.iter().any(|locked| dir.starts_with(locked)) {
                continue;
            }
            let flags = WatchFlags::CREATE
                | WatchFlags::MOVED_TO
                | WatchFlags::ONLYDIR
                | WatchFlags::DONT_FOLLOW
                | WatchFlags::EXCL_UNLINK;
            let wd = match inotify::add_watch(&self.fd, &dir, flags) {
                Ok(wd) => wd,
                // Gone again (a build's temporary folder), or no longer a
                // folder: nothing to watch.
                Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) if check => continue,
                // At the start: another user's folder (the scan before the
                // run refuses an unreadable folder of the user's own), in
                // which the program cannot make anything either. During the
                // run it is one the program closed: stop (fail closed).
                Err(rustix::io::Errno::ACCESS) if !check => continue,
                Err(err) => {
                    return Err(format!(
                        "cannot watch {} for new PERM-7 paths ({err}; raise \
                         fs.inotify.max_user_watches if the project has very many folders)",
                        dir.display()
                    ));
                }
            };
            self.dirs.insert(wd, dir.clone());
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(err) if check && err.kind() == std::io::ErrorKind::NotFound => continue,
                Err(err) => return Err(format!("cannot list {} ({err})", dir.display())),
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if check && self.check(&path) {
                    continue;
                }
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                    stack.push(path);
                }
            }
        }
        Ok(())
    }

    /// True (and moved aside) when `path` is a PERM-7 path; true (and
    /// left alone) when it is a socket file.
    fn check(&mut self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.project) else {
            return false;
        };
        if path
            .symlink_metadata()
            .is_ok_and(|meta| meta.file_type().is_socket())
        {
            // A socket a host program (a dev server, an editor's language
            // server, git's fsmonitor daemon) made in the project during
            // the run leads to that program outside the sandbox (sandbox
            // attack #2): the sandbox cannot cover it once the run started,
            // nor tell who made it, so the run stops. It is not moved: it
            // may be the host service's own.
            self.found.push(format!(
                "SBX-6: a socket file appeared in the project during the run ({}); a program \
                 inside could reach whatever listens on it, so every process in the sandbox was \
                 stopped. Run again once it exists (sockets present at the start are cut off)",
                super::super::shown_path(rel)
            ));
            return true;
        }
        let Some(hit) = self.protected.protects(&rel.to_string_lossy()) else {
            return false;
        };
        let shown = super::super::shown_path(rel);
        self.found.push(match super::super::view::quarantine(path) {
            Ok(moved) => format!(
                "SBX-6: the program created {shown} ({}) during the run; it was moved aside to {} \
                 at once and every process in the sandbox was stopped. Review it; rename it back \
                 only if you made it yourself",
                hit.what,
                super::super::shown_path(moved.strip_prefix(&self.project).unwrap_or(&moved))
            ),
            Err(err) => format!(
                "SBX-6: the program created {shown} ({}) during the run and it could not be \
                 moved aside ({err}); every process was stopped: review it before any tool reads it",
                hit.what
            ),
        });
        true
    }

    /// Reads what happened since the last call; true once a PERM-7 path
    /// was created (or events were lost).
    pub(super) fn poll(&mut self) -> bool {
        let mut buf = [MaybeUninit::<u8>::uninit(); 16 * 1024];
        let mut seen: Vec<(PathBuf, bool)> = Vec::new();
        let mut lost = false;
        {
            let mut reader = inotify::Reader::new(&self.fd, &mut buf);
            while let Ok(event) = reader.next() {
                if event.events().contains(ReadFlags::QUEUE_OVERFLOW) {
                    lost = true;
                    continue;
                }
                let (Some(dir), Some(name)) = (self.dirs.get(&event.wd()), event.file_name())
                else {
                    continue;
                };
                let path = dir.join(OsStr::from_bytes(name.to_bytes()));
                seen.push((path, event.events().contains(ReadFlags::ISDIR)));
            }
        }
        if lost {
            self.found.push(
                "SBX-6: too many files were created at once to check each for a PERM-7 path \
                 (the watch queue overflowed); every process in the sandbox was stopped"
                    .to_string(),
            );
        }
        for (path, is_dir) in seen {
            if !self.check(&path)
                && is_dir
                && let Err(err) = self.watch_tree(path, true)
            {
                self.found.push(format!(
                    "SBX-6: {err}; every process in the sandbox was stopped"
                ));
            }
        }
        !self.found.is_empty()
    }

    /// What was found, once something was.
    pub(super) fn found(&self) -> Option<String> {
        (!self.found.is_empty()).then(|| self.found.join("; "))
    }
}
