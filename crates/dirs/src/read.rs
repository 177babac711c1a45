//! [`read_bounded`]: the one way ploy reads a small file a project (or
//! anyone but ploy) may have put there — an environment file, git's
//! configuration and what it includes, a package manager's file — without
//! hanging or reading without end (secrets5 #18, FAIL-1).
//!
//! A FIFO nobody writes blocks `open(2)` and `read(2)` forever; `/dev/zero`
//! never ends; a file can be swapped for either between a `stat` and an
//! `open`. So the file is opened non-blocking (`O_NONBLOCK`: opening a FIFO
//! returns at once, and no terminal becomes the controlling one with
//! `O_NOCTTY`), the *opened* file is checked with `fstat` (a regular file,
//! not what the name pointed to a moment ago), and at most `max + 1` bytes
//! are read, so a file over the cap is told apart from one at the cap.
//! Symbolic links are followed (`.env -> ../shared/.env` is ordinary); what
//! they reach passes the same checks.
//!
//! A regular file of the kernel's own file systems (`/proc`, `/sys`,
//! debugfs, tracefs, securityfs, cgroup, bpf, efivarfs, pstore) is refused
//! too, before it is opened and again after: `/proc/kmsg` is a "regular"
//! file whose read waits for the next kernel message (and takes it from the
//! system log), `/proc/self/environ` hands out the process's environment,
//! and nothing a project or a person puts in place as a settings,
//! instruction or environment file lives there.
//!
//! [`read_bounded_prefix`] is the same read for text that may be longer
//! than what ploy takes of it (an instruction file): the rest is cut, not
//! refused.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What [`read_bounded`] found at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRead {
    /// Nothing there (no such file, a link to nothing, a path through a
    /// file): nothing to read.
    Missing,
    /// A folder (`python -m venv .env`): no text; the caller decides.
    Folder,
    /// A regular file's bytes, at most the cap.
    Bytes(Vec<u8>),
}

/// Why a file that is there was not read. Names no content.
#[derive(Debug, thiserror::Error)]
pub enum BoundedReadError {
    /// A FIFO, socket or device: reading it could block forever or never end.
    #[error("it is a {0}, not a regular file (reading it could block or never end)")]
    NotRegular(&'static str),
    /// A file of the kernel's own file systems (`/proc`, `/sys`, …): its
    /// read can wait for an event (`/proc/kmsg`) or hand out the state of
    /// a process (`/proc/self/environ`).
    #[error("it is a file of the kernel's {0} file system, not a file anyone puts in place")]
    KernelFile(&'static str),
    /// Larger than the cap (or grew past it while being read).
    #[error("it holds more than the {max} bytes ploy reads from such a file")]
    TooLarge {
        /// The cap.
        max: u64,
    },
    /// What the system said.
    #[error("{0}")]
    Io(std::io::Error),
}

/// Reads the regular file at `path`, at most `max` bytes (module docs).
/// `Err` for something there that must not or cannot be read; the caller
/// fails closed with its own requirement.
pub fn read_bounded(path: &Path, max: u64) -> Result<FileRead, BoundedReadError> {
    read_regular(path, max, Over::Refuse).map(|(read, _)| read)
}

/// [`read_bounded`] for text of which ploy takes at most `max` bytes: a
/// longer regular file is cut at `max` (`true` says it was), not refused.
/// Every other check is the same (a FIFO, a device, a kernel file: `Err`).
pub fn read_bounded_prefix(path: &Path, max: u64) -> Result<(FileRead, bool), BoundedReadError> {
    read_regular(path, max, Over::Cut)
}

/// What a file longer than the cap gets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Over {
    Refuse,
    Cut,
}

fn read_regular(path: &Path, max: u64, over: Over) -> Result<(FileRead, bool), BoundedReadError> {
    // The name first: a device, a FIFO or a kernel file is refused without
    // being opened at all (opening some has effects of its own).
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) if gone(&err) => return Ok((FileRead::Missing, false)),
        Err(err) => return Err(BoundedReadError::Io(err)),
    };
    if let Some(early) = judge(&meta, max, over)? {
        return Ok((early, false));
    }
    kernel_file_system(statfs_path(path))?;
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(file) => file,
        Err(err) if gone(&err) => return Ok((FileRead::Missing, false)),
        Err(err) => return Err(BoundedReadError::Io(err)),
    };
    // Then the file opened: the name may point elsewhere by now.
    let meta = file.metadata().map_err(BoundedReadError::Io)?;
    if let Some(early) = judge(&meta, max, over)? {
        return Ok((early, false));
    }
    kernel_file_system(statfs_file(&file))?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(max)).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(BoundedReadError::Io)?;
    let longer = bytes.len() as u64 > max;
    if longer && over == Over::Refuse {
        return Err(BoundedReadError::TooLarge { max });
    }
    bytes.truncate(usize::try_from(max).unwrap_or(usize::MAX));
    Ok((FileRead::Bytes(bytes), longer))
}

/// The kernel's file systems whose "regular" files are no file anyone puts
/// in place (linux/magic.h).
const KERNEL_FILE_SYSTEMS: [(i64, &str); 11] = [
    (0x9fa0, "proc"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0xcafe_4a11, "bpf"),
    (0xde5e_81e4, "efivarfs"),
    (0x6165_676c, "pstore"),
    (0x6265_6570, "configfs"),
];

/// `Err` when `f_type` is one of [`KERNEL_FILE_SYSTEMS`]; a `statfs` that
/// fails is an error too (the check cannot be made: fail closed).
fn kernel_file_system(f_type: std::io::Result<i64>) -> Result<(), BoundedReadError> {
    let f_type = f_type.map_err(BoundedReadError::Io)?;
    match KERNEL_FILE_SYSTEMS
        .iter()
        .find(|(magic, _)| *magic == f_type)
    {
        Some((_, name)) => Err(BoundedReadError::KernelFile(name)),
        None => Ok(()),
    }
}

fn statfs_path(path: &Path) -> std::io::Result<i64> {
    let stat = nix::sys::statfs::statfs(path).map_err(std::io::Error::from)?;
    Ok(fs_type(stat))
}

fn statfs_file(file: &std::fs::File) -> std::io::Result<i64> {
    let stat = nix::sys::statfs::fstatfs(file).map_err(std::io::Error::from)?;
    Ok(fs_type(stat))
}

#[allow(clippy::unnecessary_cast)] // `f_type`'s C type differs by target
fn fs_type(stat: nix::sys::statfs::Statfs) -> i64 {
    stat.filesystem_type().0 as i64
}

/// `Some` when the metadata settles the answer without reading.
fn judge(
    meta: &std::fs::Metadata,
    max: u64,
    over: Over,
) -> Result<Option<FileRead>, BoundedReadError> {
    let kind = meta.file_type();
    if kind.is_dir() {
        return Ok(Some(FileRead::Folder));
    }
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "FIFO"
        } else if kind.is_socket() {
            "socket"
        } else if kind.is_char_device() {
            "character device"
        } else if kind.is_block_device() {
            "block device"
        } else {
            "special file"
        };
        return Err(BoundedReadError::NotRegular(what));
    }
    if over == Over::Refuse && meta.len() > max {
        return Err(BoundedReadError::TooLarge { max });
    }
    Ok(None)
}

fn gone(err: &std::io::Error) -> bool {
    matches!(
        err.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "ploy-read-bounded-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    // proves: FAIL-1 (secrets5 #18: a FIFO nobody writes, /dev/zero, a link
    // to either: refused at once, never a hang or a read without end)
    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let dir = scratch("fifo");
        let fifo = dir.join("fifo");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink(&fifo, dir.join("to-fifo")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join("to-zero")).unwrap();
        let started = Instant::now();
        for path in [
            fifo.clone(),
            dir.join("to-fifo"),
            "/dev/zero".into(),
            dir.join("to-zero"),
            "/dev/null".into(),
        ] {
            let err = read_bounded(&path, 1 << 20).unwrap_err();
            assert!(
                matches!(err, BoundedReadError::NotRegular(_)),
                "{}: {err}",
                path.display()
            );
        }
        // Not a timing assertion on the code: a hang would never get here.
        assert!(started.elapsed().as_secs() < 60);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // proves: FAIL-1 (a link to a kernel file, `/proc/kmsg` or
    // `/proc/self/environ` named like a settings or instruction file, is
    // refused before it is opened: `/proc/kmsg`'s read would wait for the
    // next kernel message and take it from the log)
    #[test]
    fn kernel_files_are_refused_before_they_are_opened() {
        let dir = scratch("kernel");
        // `/proc/self/stat` stands for them all: harmless to open, procfs.
        for (name, target) in [
            ("to-stat", "/proc/self/stat"),
            ("to-kmsg", "/proc/kmsg"),
            ("to-environ", "/proc/self/environ"),
            ("to-sys", "/sys/kernel/mm/transparent_hugepage/enabled"),
        ] {
            let link = dir.join(name);
            std::os::unix::fs::symlink(target, &link).unwrap();
            if std::fs::metadata(target).is_err() {
                continue; // not on this kernel (and then not a hang either)
            }
            for read in [
                read_bounded(&link, 1 << 20).map(|_| ()),
                read_bounded_prefix(&link, 1 << 20).map(|_| ()),
            ] {
                let err = read.unwrap_err();
                assert!(
                    matches!(err, BoundedReadError::KernelFile(_)),
                    "{target}: {err}"
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // proves: FAIL-1 (the prefix read cuts instead of refusing, and refuses
    // a FIFO like the whole read)
    #[test]
    fn the_prefix_read_cuts_long_files_and_refuses_fifos() {
        let dir = scratch("prefix");
        std::fs::write(dir.join("long"), vec![b'a'; 65]).unwrap();
        std::fs::write(dir.join("at"), vec![b'a'; 64]).unwrap();
        assert_eq!(
            read_bounded_prefix(&dir.join("long"), 64).unwrap(),
            (FileRead::Bytes(vec![b'a'; 64]), true)
        );
        assert_eq!(
            read_bounded_prefix(&dir.join("at"), 64).unwrap(),
            (FileRead::Bytes(vec![b'a'; 64]), false)
        );
        let fifo = dir.join("fifo");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            read_bounded_prefix(&fifo, 64),
            Err(BoundedReadError::NotRegular("FIFO"))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // proves: FAIL-1 (a file over the cap is refused, one at the cap read whole)
    #[test]
    fn the_cap_is_exact_and_missing_or_folders_are_said() {
        let dir = scratch("cap");
        std::fs::write(dir.join("at"), vec![b'a'; 64]).unwrap();
        std::fs::write(dir.join("over"), vec![b'a'; 65]).unwrap();
        std::fs::create_dir(dir.join("folder")).unwrap();
        std::os::unix::fs::symlink(dir.join("nothing"), dir.join("dangling")).unwrap();
        assert_eq!(
            read_bounded(&dir.join("at"), 64).unwrap(),
            FileRead::Bytes(vec![b'a'; 64])
        );
        assert!(matches!(
            read_bounded(&dir.join("over"), 64),
            Err(BoundedReadError::TooLarge { max: 64 })
        ));
        assert_eq!(
            read_bounded(&dir.join("folder"), 64).unwrap(),
            FileRead::Folder
        );
        assert_eq!(
            read_bounded(&dir.join("dangling"), 64).unwrap(),
            FileRead::Missing
        );
        assert_eq!(
            read_bounded(&dir.join("at/below"), 64).unwrap(),
            FileRead::Missing
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
