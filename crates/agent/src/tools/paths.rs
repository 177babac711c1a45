//! Paths the model names, resolved for checking and acting.
//!
//! The policy places paths lexically; a symbolic link inside the project
//! that points outside would fool it. So every path is resolved here first
//! (the longest existing prefix canonicalized, the rest appended), the
//! action is built on the resolved path, and the tool then opens exactly
//! that path: reads with `O_NOFOLLOW` on the last component, writes
//! ([`write_atomic`]) through `openat2(RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS)` for every folder on the way, so a link swapped in
//! between check and open is refused rather than followed.

use std::fs::{File, OpenOptions};
use std::io::Read as _;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

use crate::tool::{ToolContext, ToolError};

/// A resolved path: what the model wrote and the canonical path acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// As the model wrote it.
    pub given: String,
    /// The resolved absolute path (what the action is built on).
    pub real: PathBuf,
}

impl ResolvedPath {
    /// The resolved path as text for `Action` (lossy only for non-UTF-8
    /// names, which then match no allow rule).
    pub fn check(&self) -> String {
        self.real.to_string_lossy().into_owned()
    }

    /// The path as shown back to the model: relative to the project when
    /// inside it.
    pub fn shown(&self, project: &Path) -> String {
        shown(&self.real, project)
    }
}

/// `path` relative to `project` when inside it, else absolute.
pub fn shown(path: &Path, project: &Path) -> String {
    match path.strip_prefix(project) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// Resolve `given` (relative to the project, absolute, or `~/...`).
pub fn resolve(ctx: &ToolContext, given: &str) -> Result<ResolvedPath, ToolError> {
    if given.trim().is_empty() {
        return Err(ToolError::new("the path is empty"));
    }
    if given.contains('\0') {
        return Err(ToolError::new("the path contains a NUL byte"));
    }
    let expanded = if given == "~" || given.starts_with("~/") {
        let home = ctx
            .home
            .as_ref()
            .ok_or_else(|| ToolError::new("`~` cannot be expanded: no home folder is known"))?;
        home.join(given.trim_start_matches('~').trim_start_matches('/'))
    } else if given.starts_with('~') {
        return Err(ToolError::new(
            "`~user` paths are not supported; write the absolute path",
        ));
    } else if Path::new(given).is_absolute() {
        PathBuf::from(given)
    } else {
        ctx.project.join(given)
    };
    Ok(ResolvedPath {
        given: given.to_string(),
        real: canonical_prefix(&expanded),
    })
}

/// Canonicalize the longest existing prefix of `path` (symbolic links
/// resolved by the kernel) and append the rest, normalised lexically (a part
/// that does not exist cannot be a link).
pub fn canonical_prefix(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    let components: Vec<Component<'_>> = path.components().collect();
    for split in (0..components.len()).rev() {
        let head: PathBuf = components[..split].iter().collect();
        if head.as_os_str().is_empty() {
            continue;
        }
        if let Ok(mut real) = head.canonicalize() {
            for component in &components[split..] {
                match component {
                    Component::ParentDir => {
                        real.pop();
                    }
                    Component::CurDir => {}
                    other => real.push(other.as_os_str()),
                }
            }
            return real;
        }
    }
    path.to_path_buf()
}

/// Open `path` for reading without following a link in its last component.
/// Non-blocking: a FIFO in the project (nobody writing it) must not hang
/// the open, so the caller's check that it is a regular file gets to run
/// (FAIL-1); reads of a regular file are not affected by `O_NONBLOCK`.
pub fn open_nofollow(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

/// Read at most `max` bytes of a regular file (no link followed at the end).
/// Returns the bytes and whether the file was longer.
pub fn read_capped(path: &Path, max: u64) -> std::io::Result<(Vec<u8>, bool)> {
    let file = open_nofollow(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    let longer = bytes.len() as u64 > max;
    bytes.truncate(max as usize);
    Ok((bytes, longer))
}

/// True when the bytes look binary (a NUL in the first 8 KiB).
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|b| *b == 0)
}

/// Write `content` to `path` atomically: a new file next to it (created
/// exclusively, never through a link), synced, then renamed over the path.
/// The mode of an existing file is kept.
///
/// `path` is the resolved path the person approved (no symbolic link in
/// it: [`resolve`] canonicalised it). Every folder on the way is opened with
/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, from the project root
/// when `path` is inside `project`, from `/` otherwise, and the file is
/// created and renamed relative to the folder so opened: a folder swapped
/// for a link after the ask makes the write fail instead of landing where
/// the link points (outside attack tui-rpc #7). Where `openat2` is missing
/// (Linux before 5.6, or a seccomp filter refusing it) nothing is written
/// (fail closed) and the error says why.
pub fn write_atomic(project: &Path, path: &Path, content: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::ffi::OsStrExt as _;

    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path has no file name"))?;
    let parent = path
        .parent()
        .ok_or_else(|| std::io::Error::other("the path has no parent folder"))?;
    // The project root as the person configured it (links in it are the
    // person's own): the start folder, opened normally.
    let canonical = project.canonicalize().ok();
    let (base, below) = match parent.strip_prefix(project) {
        Ok(below) => (project, below),
        Err(_) => match canonical.as_deref().map(|c| (c, parent.strip_prefix(c))) {
            Some((c, Ok(below))) => (c, below),
            _ => (Path::new("/"), parent.strip_prefix("/").unwrap_or(parent)),
        },
    };
    let mut folder: std::os::fd::OwnedFd = rustix::fs::open(
        base,
        rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )?;
    for part in below.components() {
        let Component::Normal(part) = part else {
            return Err(std::io::Error::other(format!(
                "`{}` is not a resolved path (it holds `.` or `..`)",
                path.display()
            )));
        };
        folder = open_beneath_dir(&folder, part.as_bytes(), true)?;
    }
    let mode = rustix::fs::statat(&folder, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .ok()
        .filter(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile
        })
        .map(|st| st.st_mode & 0o7777)
        .unwrap_or(0o644);
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = format!(
        ".{}.ploy-tmp-{}-{n}",
        name.to_string_lossy(),
        std::process::id()
    );
    let result = (|| {
        let fd = openat2_checked(
            &folder,
            tmp.as_bytes(),
            rustix::fs::OFlags::WRONLY
                | rustix::fs::OFlags::CREATE
                | rustix::fs::OFlags::EXCL
                | rustix::fs::OFlags::NOFOLLOW
                | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::from_raw_mode(mode),
        )?;
        let mut file = File::from(fd);
        file.write_all(content)?;
        rustix::fs::fchmod(&file, rustix::fs::Mode::from_raw_mode(mode))?;
        file.sync_all()?;
        rustix::fs::renameat(&folder, tmp.as_str(), &folder, name)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(&folder, tmp.as_str(), rustix::fs::AtFlags::empty());
    }
    result
}

/// Opens (creating it when `create` and it is missing) the folder `name`
/// below `dir`, never through a symbolic link and never above `dir`.
fn open_beneath_dir<Fd: std::os::fd::AsFd>(
    dir: Fd,
    name: &[u8],
    create: bool,
) -> std::io::Result<std::os::fd::OwnedFd> {
    let flags =
        rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC;
    match openat2_checked(&dir, name, flags, rustix::fs::Mode::empty()) {
        Err(err) if create && err.kind() == std::io::ErrorKind::NotFound => {
            match rustix::fs::mkdirat(&dir, name, rustix::fs::Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(err) => return Err(err.into()),
            }
            openat2_checked(&dir, name, flags, rustix::fs::Mode::empty())
        }
        other => other,
    }
}

/// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`; a link on the way
/// and a missing `openat2` are errors a person can act on.
fn openat2_checked<Fd: std::os::fd::AsFd>(
    dir: Fd,
    name: &[u8],
    flags: rustix::fs::OFlags,
    mode: rustix::fs::Mode,
) -> std::io::Result<std::os::fd::OwnedFd> {
    let resolve = rustix::fs::ResolveFlags::BENEATH | rustix::fs::ResolveFlags::NO_SYMLINKS;
    rustix::fs::openat2(dir, name, flags, mode, resolve).map_err(|err| match err {
        rustix::io::Errno::NOSYS => std::io::Error::other(
            "this kernel has no openat2 (Linux 5.6 or later is needed): ploy cannot write \
             without following a swapped-in link, so nothing was written",
        ),
        rustix::io::Errno::LOOP | rustix::io::Errno::XDEV => std::io::Error::other(format!(
            "`{}` is now a symbolic link (or leaves the folder approved): the folders changed \
             after the approval, so nothing was written",
            String::from_utf8_lossy(name)
        )),
        other => other.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: FAIL-1 (a FIFO named like a project file is refused at once
    // by the read, edit and grep tools' reader; the blocking open waited
    // forever for a writer)
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("notes.md");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let err = read_capped(&fifo, 1024).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        std::fs::write(dir.path().join("plain.md"), "text").unwrap();
        let (bytes, longer) = read_capped(&dir.path().join("plain.md"), 1024).unwrap();
        assert_eq!((bytes.as_slice(), longer), (&b"text"[..], false));
    }
}
