//! The key panel's two files in the state folder, both owner-only:
//!
//! * `state.json` (ADMIN-3): the SHA-256 digest of the admin token, never the
//!   token. Read with `O_NOFOLLOW`, its type, owner and mode checked on the
//!   open descriptor; replaced atomically (a fresh `O_EXCL|O_NOFOLLOW` 0600
//!   temporary file, fsync, rename, fsync of the folder).
//! * `audit.log` (ADMIN-7): one JSON line per attempted change, opened for
//!   each line with `O_WRONLY|O_APPEND|O_CREAT|O_NOFOLLOW`, mode 0600, the
//!   mode and owner checked on the descriptor before anything is written,
//!   then fsynced. A line that cannot be written refuses the change.
//!
//! The folder itself must be a real directory owned by this user and not
//! writable by group or others: otherwise someone else could swap the files
//! between two checks.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The admin state file's name in the state folder.
pub const STATE_FILE: &str = "state.json";
/// The audit log's name in the state folder.
pub const AUDIT_FILE: &str = "audit.log";

/// Largest `state.json` read (it holds one digest).
const STATE_FILE_LIMIT: u64 = 4096;

/// A refused or failed panel file operation; every message names the file,
/// the requirement and what to do.
#[derive(Debug, thiserror::Error)]
pub enum PanelFileError {
    /// The file is a symlink, not a regular file, or not ours.
    #[error(
        "{requirement}: {path} is refused: {reason}. ploy never follows or writes through it; \
         inspect it, remove it, and restart (`ploy keys admin-token --rotate` makes a new token)"
    )]
    Unsafe {
        /// ADMIN-3 (state.json) or ADMIN-7 (audit.log).
        requirement: &'static str,
        /// The path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// An I/O failure.
    #[error("{requirement}: {path}: {source}")]
    Io {
        /// ADMIN-3 (state.json) or ADMIN-7 (audit.log).
        requirement: &'static str,
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// `state.json` does not parse.
    #[error("ADMIN-3: {path} is not a valid panel state file ({reason}); remove it and restart")]
    Invalid {
        /// The path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// What `state.json` holds: the admin token's digest (ADMIN-3) and when it
/// was set. Never the token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminState {
    /// The format version (1).
    pub version: u32,
    /// SHA-256 of the admin token, 64 hex digits.
    pub admin_token_sha256: String,
    /// When the token was made, Unix seconds.
    pub updated_at: u64,
}

impl AdminState {
    /// The digest as 32 bytes, or why it is malformed.
    pub fn digest(&self) -> Result<[u8; 32], String> {
        if self.version != 1 {
            return Err(format!("unknown version {}", self.version));
        }
        let mut digest = [0u8; 32];
        hex::decode_to_slice(&self.admin_token_sha256, &mut digest)
            .map_err(|e| format!("admin_token_sha256: {e}"))?;
        Ok(digest)
    }
}

fn io_error(requirement: &'static str, path: &Path) -> impl FnOnce(io::Error) -> PanelFileError {
    let path = path.to_path_buf();
    move |source| {
        if source.raw_os_error() == Some(nix::libc::ELOOP) {
            PanelFileError::Unsafe {
                requirement,
                path,
                reason: "it is a symbolic link".into(),
            }
        } else {
            PanelFileError::Io {
                requirement,
                path,
                source,
            }
        }
    }
}

/// Checks an open descriptor: a regular file, owned by this user, with no
/// permission for group or others.
fn check_descriptor(
    file: &File,
    requirement: &'static str,
    path: &Path,
) -> Result<(), PanelFileError> {
    let meta = file.metadata().map_err(io_error(requirement, path))?;
    let unsafe_because = |reason: String| PanelFileError::Unsafe {
        requirement,
        path: path.to_path_buf(),
        reason,
    };
    if !meta.file_type().is_file() {
        return Err(unsafe_because("it is not a regular file".into()));
    }
    let euid = nix::unistd::geteuid().as_raw();
    if meta.uid() != euid {
        return Err(unsafe_because(format!(
            "it belongs to uid {}, not to this user (uid {euid})",
            meta.uid()
        )));
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(unsafe_because(format!(
            "its mode is {mode:04o}; it must be 0600 (run `chmod 600` on it if you made it so)"
        )));
    }
    if meta.nlink() != 1 {
        return Err(unsafe_because(format!(
            "it has {} hard links; a planted link could expose it",
            meta.nlink()
        )));
    }
    Ok(())
}

/// Checks the state folder: a directory (not a symlink) of this user that
/// group and others cannot write.
pub fn check_state_dir(dir: &Path) -> Result<(), PanelFileError> {
    let meta = std::fs::symlink_metadata(dir).map_err(io_error("ADMIN-3", dir))?;
    let unsafe_because = |reason: String| PanelFileError::Unsafe {
        requirement: "ADMIN-3",
        path: dir.to_path_buf(),
        reason,
    };
    if !meta.file_type().is_dir() {
        return Err(unsafe_because(
            "the state folder is not a directory (a symbolic link?)".into(),
        ));
    }
    let euid = nix::unistd::geteuid().as_raw();
    if meta.uid() != euid {
        return Err(unsafe_because(format!(
            "the state folder belongs to uid {}, not to this user",
            meta.uid()
        )));
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(unsafe_because(format!(
            "the state folder's mode is {mode:04o}: others could replace the panel's files (chmod 700 it)"
        )));
    }
    Ok(())
}

/// Reads `state.json`: `Ok(None)` when it does not exist (first start).
pub fn read_state(dir: &Path) -> Result<Option<AdminState>, PanelFileError> {
    let path = dir.join(STATE_FILE);
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC | nix::libc::O_NONBLOCK)
        .open(&path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error("ADMIN-3", &path)(e)),
    };
    check_descriptor(&file, "ADMIN-3", &path)?;
    let mut text = String::new();
    file.take(STATE_FILE_LIMIT + 1)
        .read_to_string(&mut text)
        .map_err(io_error("ADMIN-3", &path))?;
    if text.len() as u64 > STATE_FILE_LIMIT {
        return Err(PanelFileError::Invalid {
            path,
            reason: format!("larger than {STATE_FILE_LIMIT} bytes"),
        });
    }
    let state: AdminState = serde_json::from_str(&text).map_err(|e| PanelFileError::Invalid {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    state
        .digest()
        .map_err(|reason| PanelFileError::Invalid { path, reason })?;
    Ok(Some(state))
}

/// Replaces `state.json` atomically. A symlink or anything but a regular
/// file of ours at the path is refused (nothing is written through it).
pub fn write_state(dir: &Path, state: &AdminState) -> Result<(), PanelFileError> {
    let path = dir.join(STATE_FILE);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(PanelFileError::Unsafe {
                requirement: "ADMIN-3",
                path,
                reason: "it is a symbolic link".into(),
            });
        }
        Ok(meta) if !meta.file_type().is_file() => {
            return Err(PanelFileError::Unsafe {
                requirement: "ADMIN-3",
                path,
                reason: "it is not a regular file".into(),
            });
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error("ADMIN-3", &path)(e)),
    }
    let mut suffix = [0u8; 8];
    getrandom::fill(&mut suffix).map_err(|e| PanelFileError::Io {
        requirement: "ADMIN-3",
        path: path.clone(),
        source: io::Error::other(e.to_string()),
    })?;
    let temp = dir.join(format!(".{STATE_FILE}.{}.tmp", hex::encode(suffix)));
    let json = serde_json::to_vec_pretty(state).map_err(|e| PanelFileError::Invalid {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
            .open(&temp)?;
        file.write_all(&json)?;
        file.write_all(b"\n")?;
        file.sync_all()?;
        std::fs::rename(&temp, &path)?;
        File::open(dir)?.sync_all()
    })();
    if let Err(source) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(io_error("ADMIN-3", &path)(source));
    }
    Ok(())
}

/// One audit line (ADMIN-7): what was attempted, on which key (by mask
/// only, ADMIN-11), from which origin, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditRecord {
    /// Unix seconds.
    pub time: u64,
    /// `add`, `remove`, `replace`, `rotate-admin-token`, `lockout`.
    pub action: String,
    /// The key's mask (`…last4`), or empty when there is no key.
    pub target: String,
    /// The request's Origin (checked by the gate), or `service-api`.
    pub origin: String,
    /// `ok`, or `refused: <reason>`.
    pub result: String,
}

/// The append-only audit log in the state folder.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
}

impl AuditLog {
    /// The log at `dir/audit.log`. Call [`AuditLog::check`] at start so a
    /// planted file is found before the first change.
    pub fn new(dir: &Path) -> AuditLog {
        AuditLog {
            path: dir.join(AUDIT_FILE),
        }
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn open(&self) -> Result<File, PanelFileError> {
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC | nix::libc::O_NONBLOCK)
            .open(&self.path)
            .map_err(io_error("ADMIN-7", &self.path))?;
        check_descriptor(&file, "ADMIN-7", &self.path)?;
        Ok(file)
    }

    /// Opens (creating it if needed) and checks the log without writing.
    pub fn check(&self) -> Result<(), PanelFileError> {
        self.open().map(drop)
    }

    /// Appends one line and fsyncs it. An error means the line is not
    /// known to be written: the caller must refuse the change (fail closed).
    pub fn append(&self, record: &AuditRecord) -> Result<(), PanelFileError> {
        let mut line = serde_json::to_vec(record).map_err(|e| PanelFileError::Io {
            requirement: "ADMIN-7",
            path: self.path.clone(),
            source: io::Error::other(e.to_string()),
        })?;
        // serde_json escapes every control character, so a line is one line.
        line.push(b'\n');
        let mut file = self.open()?;
        // One write call: O_APPEND makes it land whole at the end.
        file.write_all(&line)
            .and_then(|()| file.sync_data())
            .map_err(io_error("ADMIN-7", &self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn state() -> AdminState {
        AdminState {
            version: 1,
            admin_token_sha256: "ab".repeat(32),
            updated_at: 7,
        }
    }

    fn record(action: &str) -> AuditRecord {
        AuditRecord {
            time: 1,
            action: action.into(),
            target: "…abcd".into(),
            origin: "http://127.0.0.1:1".into(),
            result: "ok".into(),
        }
    }

    // proves: ADMIN-3
    #[test]
    fn state_round_trips_0600_atomically() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_state(dir.path()).unwrap(), None);
        write_state(dir.path(), &state()).unwrap();
        let path = dir.path().join(STATE_FILE);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(read_state(dir.path()).unwrap(), Some(state()));
        let mut next = state();
        next.updated_at = 8;
        write_state(dir.path(), &next).unwrap();
        assert_eq!(read_state(dir.path()).unwrap(), Some(next));
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from(STATE_FILE)]);
    }

    // proves: ADMIN-3
    #[test]
    fn state_symlink_wide_mode_and_junk_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, b"keep").unwrap();
        symlink(&target, dir.path().join(STATE_FILE)).unwrap();
        let err = read_state(dir.path()).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        let err = write_state(dir.path(), &state()).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");

        let dir = tempfile::tempdir().unwrap();
        write_state(dir.path(), &state()).unwrap();
        let path = dir.path().join(STATE_FILE);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = read_state(dir.path()).unwrap_err();
        assert!(err.to_string().contains("0644"), "{err}");

        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(
            &path,
            br#"{"version":1,"admin_token_sha256":"zz","updated_at":1}"#,
        )
        .unwrap();
        assert!(matches!(
            read_state(dir.path()),
            Err(PanelFileError::Invalid { .. })
        ));
        std::fs::write(
            &path,
            br#"{"version":1,"admin_token_sha256":"00","updated_at":1,"token":"x"}"#,
        )
        .unwrap();
        assert!(read_state(dir.path()).is_err());
    }

    // proves: ADMIN-7
    #[test]
    fn audit_appends_lines_0600_and_refuses_symlinks_and_wide_modes() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        log.check().unwrap();
        log.append(&record("add")).unwrap();
        log.append(&record("remove")).unwrap();
        let text = std::fs::read_to_string(log.path()).unwrap();
        let lines: Vec<AuditRecord> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines, vec![record("add"), record("remove")]);
        let mode = std::fs::metadata(log.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);

        std::fs::set_permissions(log.path(), std::fs::Permissions::from_mode(0o640)).unwrap();
        assert!(log.append(&record("add")).is_err());
        assert_eq!(std::fs::read_to_string(log.path()).unwrap(), text);

        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, b"keep").unwrap();
        symlink(&target, dir.path().join(AUDIT_FILE)).unwrap();
        let log = AuditLog::new(dir.path());
        let err = log.append(&record("add")).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(log.check().is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");

        // A hard link to another file of ours is refused too.
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other");
        std::fs::write(&other, b"").unwrap();
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::hard_link(&other, dir.path().join(AUDIT_FILE)).unwrap();
        assert!(AuditLog::new(dir.path()).check().is_err());
    }

    // proves: ADMIN-7, ADMIN-11
    #[test]
    fn audit_lines_cannot_be_split_by_hostile_fields() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        let mut hostile = record("remove");
        hostile.target = "…ab\n{\"action\":\"forged\"}\r\u{2028}".into();
        hostile.result = "refused: \u{0}\n".into();
        log.append(&hostile).unwrap();
        let text = std::fs::read_to_string(log.path()).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{text:?}");
        let back: AuditRecord = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(back, hostile);
    }

    // proves: ADMIN-3
    #[test]
    fn state_dir_must_be_private() {
        let dir = tempfile::tempdir().unwrap();
        check_state_dir(dir.path()).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(check_state_dir(dir.path()).is_err());
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let link = tempfile::tempdir().unwrap();
        let at = link.path().join("state");
        symlink(dir.path(), &at).unwrap();
        assert!(check_state_dir(&at).is_err());
    }
}
