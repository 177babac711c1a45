//! `service-<pid>.json` (SVC-1): how local clients find the running service
//! and its password.
//!
//! The file is created owner-only (0600) with `O_CREAT|O_EXCL|O_NOFOLLOW`, so
//! a symlink or file planted at its path is never followed or reused. It is
//! removed on clean shutdown; files whose process is gone are removed at the
//! next start.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What a service file holds. `password` is the service password (SVC-1):
/// never print it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceFile {
    /// The service's process id.
    pub pid: u32,
    /// The API's address (`127.0.0.1` unless bound publicly on purpose).
    pub api_host: String,
    /// The API's port.
    pub api_port: u16,
    /// The gateway's port (on 127.0.0.1).
    pub gateway_port: u16,
    /// The service password, 64 hex digits.
    pub password: String,
}

impl std::fmt::Debug for ServiceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceFile")
            .field("pid", &self.pid)
            .field("api_host", &self.api_host)
            .field("api_port", &self.api_port)
            .field("gateway_port", &self.gateway_port)
            .field("password", &"[REDACTED]")
            .finish()
    }
}

/// Service-file failures.
#[derive(Debug, thiserror::Error)]
pub enum ServiceFileError {
    /// Another service is alive.
    #[error(
        "SVC-1: a ploy service is already running (pid {pid}, {file}); stop it first \
         (`kill {pid}`), or check it with `ploy status`"
    )]
    AlreadyRunning {
        /// Its pid.
        pid: u32,
        /// Its file.
        file: PathBuf,
    },
    /// Something already exists at our file's path (a planted file or symlink).
    #[error(
        "SVC-1: {file} already exists and is not ours (a planted file or symlink?); \
         ploy will not follow or overwrite it: inspect and remove it"
    )]
    Occupied {
        /// The path.
        file: PathBuf,
    },
    /// File-system failure.
    #[error("SVC-1: {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The state folder cannot be made owner-only (another user's, not a
    /// folder, cannot be created or tightened).
    #[error(transparent)]
    Folder(ploy_dirs::DirsError),
    /// A service file that does not parse.
    #[error("SVC-1: {path} is not a valid service file ({reason}); remove it")]
    Invalid {
        /// The path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// The path of the service file for `pid`.
pub fn path_for(state_dir: &Path, pid: u32) -> PathBuf {
    state_dir.join(format!("service-{pid}.json"))
}

/// Create the state folder (0700) if missing, or tighten an existing one
/// that grants group or other access (SVC-1: it holds the service file and
/// the conversation store); one owned by another user is refused.
pub fn ensure_state_dir(state_dir: &Path) -> Result<(), ServiceFileError> {
    match ploy_dirs::ensure_private_dir(state_dir) {
        Ok(ploy_dirs::PrivateDir::Tightened { was }) => {
            tracing::warn!(
                "SVC-1: the state folder {} had mode {was:o} (group or other access); tightened to owner-only",
                state_dir.display()
            );
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(err) => Err(ServiceFileError::Folder(err)),
    }
}

/// True when a process with this pid exists (signal 0 probe; EPERM means it
/// exists but belongs to someone else).
pub fn pid_alive(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(raw), None) {
        Ok(()) => true,
        Err(errno) => errno == nix::errno::Errno::EPERM,
    }
}

/// The `service-<pid>.json` files in the state folder, with their pids.
pub fn list(state_dir: &Path) -> Result<Vec<(u32, PathBuf)>, ServiceFileError> {
    let entries = match fs::read_dir(state_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ServiceFileError::Io {
                path: state_dir.to_path_buf(),
                source,
            });
        }
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let pid = name
            .strip_prefix("service-")
            .and_then(|rest| rest.strip_suffix(".json"))
            .and_then(|digits| digits.parse::<u32>().ok());
        if let Some(pid) = pid {
            found.push((pid, entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// Before a start: refuse when another service is alive; remove the files of
/// dead ones (stale). Our own pid's file, if any, is reported as occupied.
pub fn clean_stale(state_dir: &Path, own_pid: u32) -> Result<Vec<PathBuf>, ServiceFileError> {
    let mut removed = Vec::new();
    for (pid, path) in list(state_dir)? {
        if pid == own_pid {
            continue;
        }
        if pid_alive(pid) {
            return Err(ServiceFileError::AlreadyRunning { pid, file: path });
        }
        // symlink_metadata + remove_file never follow a planted symlink.
        match fs::remove_file(&path) {
            Ok(()) => removed.push(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(source) => return Err(ServiceFileError::Io { path, source }),
        }
    }
    Ok(removed)
}

/// Write the file: mode 0600, `O_CREAT|O_EXCL|O_NOFOLLOW`, fsynced.
pub fn write(state_dir: &Path, contents: &ServiceFile) -> Result<PathBuf, ServiceFileError> {
    let path = path_for(state_dir, contents.pid);
    let mut file = match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(&path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            return Err(ServiceFileError::Occupied { file: path });
        }
        Err(source) => return Err(ServiceFileError::Io { path, source }),
    };
    let json = serde_json::to_vec_pretty(contents).map_err(|e| ServiceFileError::Invalid {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let written = file.write_all(&json).and_then(|()| file.sync_all());
    if let Err(source) = written {
        let _ = fs::remove_file(&path);
        return Err(ServiceFileError::Io { path, source });
    }
    Ok(path)
}

/// Read a service file without following symlinks.
pub fn read(path: &Path) -> Result<ServiceFile, ServiceFileError> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)
        .map_err(|source| ServiceFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    serde_json::from_reader(io::BufReader::new(file)).map_err(|e| ServiceFileError::Invalid {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// The live service's file, if one is running: the newest live entry.
pub fn find_running(state_dir: &Path) -> Result<Option<(PathBuf, ServiceFile)>, ServiceFileError> {
    for (pid, path) in list(state_dir)?.into_iter().rev() {
        if pid_alive(pid) {
            let contents = read(&path)?;
            if contents.pid != pid {
                return Err(ServiceFileError::Invalid {
                    path,
                    reason: format!("its pid {} does not match its name", contents.pid),
                });
            }
            return Ok(Some((path, contents)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn sample(pid: u32) -> ServiceFile {
        ServiceFile {
            pid,
            api_host: "127.0.0.1".into(),
            api_port: 1,
            gateway_port: 2,
            password: "ab".repeat(32),
        }
    }

    // proves: SVC-1
    #[test]
    fn file_is_0600_and_a_planted_symlink_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &sample(4242)).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(read(&path).unwrap(), sample(4242));

        let target = dir.path().join("target.txt");
        fs::write(&target, b"do not touch").unwrap();
        std::os::unix::fs::symlink(&target, path_for(dir.path(), 4343)).unwrap();
        let err = write(dir.path(), &sample(4343)).unwrap_err();
        assert!(matches!(err, ServiceFileError::Occupied { .. }), "{err}");
        assert_eq!(fs::read(&target).unwrap(), b"do not touch");
        // Reading through a planted symlink is refused as well.
        assert!(read(&path_for(dir.path(), 4343)).is_err());
    }

    // proves: SVC-1
    #[test]
    fn stale_files_are_cleaned_and_live_ones_refuse() {
        let dir = tempfile::tempdir().unwrap();
        // A pid far above pid_max is never alive.
        let stale = write(dir.path(), &sample(999_999_999)).unwrap();
        let removed = clean_stale(dir.path(), std::process::id()).unwrap();
        assert_eq!(removed, vec![stale.clone()]);
        assert!(!stale.exists());
        // pid 1 (init) is always alive.
        write(dir.path(), &sample(1)).unwrap();
        let err = clean_stale(dir.path(), std::process::id()).unwrap_err();
        assert!(
            matches!(err, ServiceFileError::AlreadyRunning { pid: 1, .. }),
            "{err}"
        );
        assert!(format!("{:?}", sample(1)).contains("REDACTED"));
        assert!(!format!("{:?}", sample(1)).contains(&"ab".repeat(32)));
    }
}
