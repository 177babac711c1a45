//! Paths the model names, resolved for checking and acting.
//!
//! The policy places paths lexically; a symbolic link inside the project
//! that points outside would fool it. So every path is resolved here first
//! (the longest existing prefix canonicalized, the rest appended), the
//! action is built on the resolved path, and the tool then opens exactly
//! that path, with `O_NOFOLLOW` on the last component so a link swapped in
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
pub fn open_nofollow(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
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
pub fn write_atomic(path: &Path, content: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::PermissionsExt;

    let parent = path
        .parent()
        .ok_or_else(|| std::io::Error::other("the path has no parent folder"))?;
    std::fs::create_dir_all(parent)?;
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path has no file name"))?;
    let mode = std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o644);
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = parent.join(format!(
        ".{}.ploy-tmp-{}-{n}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)?;
        file.write_all(content)?;
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
