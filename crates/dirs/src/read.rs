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
    // The name first: a device or FIFO is refused without being opened at
    // all (opening some devices has effects of its own).
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) if gone(&err) => return Ok(FileRead::Missing),
        Err(err) => return Err(BoundedReadError::Io(err)),
    };
    if let Some(early) = judge(&meta, max)? {
        return Ok(early);
    }
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(file) => file,
        Err(err) if gone(&err) => return Ok(FileRead::Missing),
        Err(err) => return Err(BoundedReadError::Io(err)),
    };
    // Then the file opened: the name may point elsewhere by now.
    let meta = file.metadata().map_err(BoundedReadError::Io)?;
    if let Some(early) = judge(&meta, max)? {
        return Ok(early);
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(BoundedReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(BoundedReadError::TooLarge { max });
    }
    Ok(FileRead::Bytes(bytes))
}

/// `Some` when the metadata settles the answer without reading.
fn judge(meta: &std::fs::Metadata, max: u64) -> Result<Option<FileRead>, BoundedReadError> {
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
    if meta.len() > max {
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
