//! The host's secrets under `/etc`, `/opt` and `/usr/local` (SBX-3): every
//! file and folder there that is not readable by everyone is hidden in the
//! sandbox, and the list is kept between runs in ploy's state folder, so
//! that a run does not walk them (`/etc` alone is about 1,400 entries, the
//! largest part of a run's start-up) when nothing there changed.
//!
//! The kept list is used only when it can be trusted:
//! * every folder of the walk is exactly as it was (device, inode, mode,
//!   owner, group, change and modification times): an entry added, removed
//!   or renamed anywhere in the tree changes its folder's modification time,
//!   a folder made private changes its own change time, and something
//!   mounted over a folder changes its device or inode; any difference and
//!   `/etc` is walked again;
//! * it was made from a walk in which no folder had changed during the two
//!   seconds before the walk or during it (file times come from a coarse
//!   clock, so a change right before or during the walk might not move a
//!   time the list recorded);
//! * it is younger than [`CACHE_MAX_AGE`]: the one change it cannot see is
//!   a file made private in place (`chmod 600 /etc/x`, `chgrp`), which
//!   touches only the file's own change time; such a file is hidden from
//!   the first run after the list expires, [`CACHE_MAX_AGE`] at the most;
//! * the file is a plain file of the user's, not writable by others, in
//!   the state folder (which the sandbox hides), read without following
//!   links, and of the expected shape; otherwise it is ignored and
//!   rewritten.
//!
//! Without a state folder (no home, no `PLOY_STATE_DIR`) every run walks.

use std::{
    io::{Read, Write},
    os::unix::fs::{MetadataExt, OpenOptionsExt},
    path::{Path, PathBuf},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use serde::{Deserialize, Serialize};

use super::policy::{SandboxError, refuse};

/// The system folders walked for secrets: the host's own configuration,
/// where a system keeps its password hashes (`/etc/shadow`, `gshadow`),
/// TLS and SSH host keys, `sudoers`, database and VPN credentials; and the
/// folders where software is installed by hand, often by the user and with
/// its configuration beside it (proof5 #13: a `0600` token under `/opt` or
/// `/usr/local`, e.g. `/opt/conda/.condarc`, `/usr/local/etc/npmrc`, an
/// app's `/opt/app/.env`, was readable in the sandbox). The rest of `/usr`
/// holds what the package manager installed, meant to be read by everyone,
/// and is too large to walk before every run.
pub(super) const SECRET_SYSTEM_FOLDERS: &[&str] = &["/etc", "/opt", "/usr/local"];

/// The longest walk of one system folder; past it the run is refused
/// rather than started with secrets unseen (SBX-3, fail closed).
const SYSTEM_WALK_LIMIT: usize = 50_000;

/// The kept list's file in ploy's state folder.
pub(super) const CACHE_FILE: &str = "system-secrets.json";

/// How long a kept list is used at most: the bound on how long a file made
/// private in place under `/etc` can stay visible (see the module's notes).
pub(super) const CACHE_MAX_AGE: Duration = Duration::from_secs(60);

/// A walk in which a folder changed this recently (before its start) is not
/// kept: file times come from a coarse clock.
const SETTLE: Duration = Duration::from_secs(2);

/// The kept list's format; another number is ignored.
const CACHE_FORMAT: u32 = 1;

/// The largest kept list read (a bound on a corrupted file).
const CACHE_MAX_BYTES: u64 = 8 << 20;

/// What the kept list says.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Kept {
    format: u32,
    /// Seconds since the epoch when the walk started.
    walked_at: u64,
    /// The folders walked.
    roots: Vec<String>,
    /// Every folder the walk looked at, as it was.
    folders: Vec<Stamp>,
    /// What to hide.
    secrets: Vec<String>,
}

/// A folder as the walk saw it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Stamp {
    path: String,
    dev: u64,
    ino: u64,
    mode: u32,
    uid: u32,
    gid: u32,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(path: &Path, meta: &std::fs::Metadata) -> Option<Stamp> {
        Some(Stamp {
            path: path.to_str()?.to_string(),
            dev: meta.dev(),
            ino: meta.ino(),
            mode: meta.mode(),
            uid: meta.uid(),
            gid: meta.gid(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    /// Whether the folder is still exactly as stamped.
    fn unchanged(&self) -> bool {
        let path = Path::new(&self.path);
        path.symlink_metadata()
            .ok()
            .and_then(|meta| Stamp::of(path, &meta))
            .is_some_and(|now| now == *self)
    }

    /// Whether neither time is at or after `since` (seconds, nanoseconds).
    fn settled_before(&self, since: (i64, i64)) -> bool {
        self.mtime < since && self.ctime < since
    }
}

/// The entries of [`SECRET_SYSTEM_FOLDERS`] (among the folders bound
/// read-only; `/usr/local` through `/usr`) that are not readable by everyone: a file without `o+r`, a
/// folder without `o+r` or `o+x`. The system marks its secrets that way; the
/// user running ploy may still read them (root reads `/etc/shadow`, a member
/// of `ssl-cert` reads `/etc/ssl/private`), and a project link
/// (`etcd -> /etc`) or a program of the proof would then show them (outside
/// attacker's validate #19). They are hidden in the sandbox (SBX-3). A
/// folder is hidden whole and not entered. Links are not followed: a link
/// resolves inside the sandbox's own view, where its target is hidden too.
///
/// With `state`, ploy's state folder, the list is kept there and used
/// again while it can be trusted (see the module's notes).
pub(super) fn system_secrets(
    read_only: &[PathBuf],
    state: Option<&Path>,
) -> Result<Vec<PathBuf>, SandboxError> {
    let roots: Vec<&Path> = SECRET_SYSTEM_FOLDERS
        .iter()
        .map(Path::new)
        .filter(|root| read_only.iter().any(|dir| root.starts_with(dir)))
        .collect();
    secrets_of(&roots, state.map(|dir| dir.join(CACHE_FILE)).as_deref())
}

/// [`system_secrets`] for explicit `roots` and kept-list file.
fn secrets_of(roots: &[&Path], kept: Option<&Path>) -> Result<Vec<PathBuf>, SandboxError> {
    if roots.is_empty() {
        return Ok(Vec::new());
    }
    let root_names: Option<Vec<String>> = roots
        .iter()
        .map(|root| root.to_str().map(str::to_string))
        .collect();
    if let (Some(file), Some(names)) = (kept, &root_names)
        && let Some(secrets) = read_kept(file, names, SystemTime::now())
    {
        return Ok(secrets);
    }
    let started = SystemTime::now();
    let walk = walk(roots)?;
    if let (Some(file), Some(names)) = (kept, root_names)
        && let Some(kept) = walk.to_keep(started, names)
    {
        // A list that cannot be kept costs the next run a walk, nothing more.
        let _ = write_kept(file, &kept);
    }
    Ok(walk.secrets)
}

/// What a walk found.
struct Walk {
    secrets: Vec<PathBuf>,
    /// Every folder looked at; `None` once one could not be stamped (a
    /// name that is not UTF-8): such a walk is not kept.
    folders: Option<Vec<Stamp>>,
}

impl Walk {
    /// The list to keep, when the walk may be trusted later: no folder
    /// changed in the [`SETTLE`] before the walk started (nor since).
    fn to_keep(&self, started: SystemTime, roots: Vec<String>) -> Option<Kept> {
        let folders = self.folders.as_ref()?;
        let since = started
            .checked_sub(SETTLE)?
            .duration_since(UNIX_EPOCH)
            .ok()?;
        let since = (
            i64::try_from(since.as_secs()).ok()?,
            i64::from(since.subsec_nanos()),
        );
        if !folders.iter().all(|stamp| stamp.settled_before(since)) {
            return None;
        }
        let secrets: Option<Vec<String>> = self
            .secrets
            .iter()
            .map(|path| path.to_str().map(str::to_string))
            .collect();
        Some(Kept {
            format: CACHE_FORMAT,
            walked_at: started.duration_since(UNIX_EPOCH).ok()?.as_secs(),
            roots,
            folders: folders.clone(),
            secrets: secrets?,
        })
    }
}

/// Walks `roots` for entries not readable by everyone.
fn walk(roots: &[&Path]) -> Result<Walk, SandboxError> {
    let mut secrets = Vec::new();
    let mut folders = Some(Vec::new());
    let mut stamp = |path: &Path, meta: &std::fs::Metadata| {
        if let Some(list) = folders.as_mut() {
            match Stamp::of(path, meta) {
                Some(stamp) => list.push(stamp),
                None => folders = None,
            }
        }
    };
    for root in roots {
        let mut seen = 0usize;
        let Ok(meta) = root.symlink_metadata() else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        stamp(root, &meta);
        let mut stack = vec![(root.to_path_buf(), meta)];
        while let Some((dir, meta)) = stack.pop() {
            if meta.mode() & 0o005 != 0o005 {
                secrets.push(dir);
                continue;
            }
            let entries = std::fs::read_dir(&dir).map_err(|err| system_unreadable(&dir, &err))?;
            for entry in entries {
                let entry = entry.map_err(|err| system_unreadable(&dir, &err))?;
                seen += 1;
                if seen > SYSTEM_WALK_LIMIT {
                    return Err(refuse(
                        "SBX-3",
                        format!(
                            "{} holds more than {SYSTEM_WALK_LIMIT} entries, too many to look \
                             for secrets in before a run; nothing was run",
                            root.display()
                        ),
                    ));
                }
                let path = entry.path();
                let meta = path
                    .symlink_metadata()
                    .map_err(|err| system_unreadable(&path, &err))?;
                if meta.file_type().is_symlink() {
                    continue;
                }
                if meta.is_dir() {
                    stamp(&path, &meta);
                    stack.push((path, meta));
                } else if meta.mode() & 0o004 == 0 {
                    secrets.push(path);
                }
            }
        }
    }
    secrets.sort();
    Ok(Walk { secrets, folders })
}

fn system_unreadable(path: &Path, err: &dyn std::fmt::Display) -> SandboxError {
    refuse(
        "SBX-3",
        format!(
            "{} cannot be read ({err}), so the secrets in it cannot be found and hidden from \
             the sandbox; nothing was run",
            path.display()
        ),
    )
}

/// The kept list's secrets, when the list can be trusted for `roots` now.
fn read_kept(file: &Path, roots: &[String], now: SystemTime) -> Option<Vec<PathBuf>> {
    let mut opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(file)
        .ok()?;
    let meta = opened.metadata().ok()?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !meta.is_file() || meta.uid() != me || meta.mode() & 0o022 != 0 {
        return None;
    }
    let mut text = Vec::new();
    Read::by_ref(&mut opened)
        .take(CACHE_MAX_BYTES)
        .read_to_end(&mut text)
        .ok()?;
    let kept: Kept = serde_json::from_slice(&text).ok()?;
    let walked_at = UNIX_EPOCH.checked_add(Duration::from_secs(kept.walked_at))?;
    let age = now.duration_since(walked_at).ok()?;
    if kept.format != CACHE_FORMAT
        || kept.roots != roots
        || age >= CACHE_MAX_AGE
        || kept.folders.is_empty()
        || !kept.folders.iter().all(Stamp::unchanged)
    {
        return None;
    }
    Some(kept.secrets.into_iter().map(PathBuf::from).collect())
}

/// Writes the kept list: private to the user, replaced whole (a reader sees
/// the old list or the new one).
fn write_kept(file: &Path, kept: &Kept) -> std::io::Result<()> {
    let dir = file
        .parent()
        .ok_or_else(|| std::io::Error::other("no folder"))?;
    ploy_dirs::ensure_private_dir(dir).map_err(|err| std::io::Error::other(err.to_string()))?;
    let text = serde_json::to_vec(kept)?;
    let temporary = file.with_extension(format!("{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&temporary)?;
    let written = out.write_all(&text).and_then(|()| out.flush());
    drop(out);
    match written.and_then(|()| std::fs::rename(&temporary, file)) {
        Ok(()) => Ok(()),
        Err(err) => {
            let _ = std::fs::remove_file(&temporary);
            Err(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    struct Tree {
        base: PathBuf,
    }

    impl Tree {
        /// `etc/` with a public file, a private file and a private folder,
        /// its times set back past [`SETTLE`] so a walk of it is kept.
        fn new(name: &str) -> Tree {
            let base = std::env::temp_dir()
                .canonicalize()
                .unwrap()
                .join(format!("ploy-secrets-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&base);
            let etc = base.join("etc");
            std::fs::create_dir_all(etc.join("ssl/private")).unwrap();
            std::fs::create_dir_all(etc.join("app")).unwrap();
            std::fs::write(etc.join("hostname"), "box").unwrap();
            std::fs::write(etc.join("shadow"), "root:hash").unwrap();
            std::fs::set_permissions(etc.join("shadow"), mode(0o600)).unwrap();
            std::fs::set_permissions(etc.join("ssl/private"), mode(0o700)).unwrap();
            std::fs::create_dir_all(base.join("state")).unwrap();
            let tree = Tree { base };
            tree.age();
            tree
        }

        fn etc(&self) -> PathBuf {
            self.base.join("etc")
        }

        fn kept(&self) -> PathBuf {
            self.base.join("state").join(CACHE_FILE)
        }

        fn secrets(&self) -> Vec<String> {
            let etc = self.etc();
            secrets_of(&[etc.as_path()], Some(&self.kept()))
                .unwrap()
                .iter()
                .map(|path| path.strip_prefix(&etc).unwrap().display().to_string())
                .collect()
        }

        /// Waits until every change is older than [`SETTLE`] (a folder's
        /// change time cannot be set back).
        fn age(&self) {
            std::thread::sleep(SETTLE + Duration::from_millis(100));
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::set_permissions(self.etc().join("ssl/private"), mode(0o700));
            let _ = std::fs::remove_dir_all(&self.base);
        }
    }

    fn mode(bits: u32) -> std::fs::Permissions {
        std::fs::Permissions::from_mode(bits)
    }

    // proves: SBX-3 (the kept list is used, and never hides less than a
    // fresh walk would after any change it can see)
    #[test]
    fn the_kept_list_is_used_only_while_the_folders_are_unchanged() {
        let tree = Tree::new("kept");
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        assert!(tree.kept().exists(), "a settled walk is kept");
        // The kept list is what the next run uses: a forged list (written
        // as the user) shows that it is read.
        let mut kept: Kept = serde_json::from_slice(&std::fs::read(tree.kept()).unwrap()).unwrap();
        kept.secrets
            .push(tree.etc().join("hostname").display().to_string());
        std::fs::write(tree.kept(), serde_json::to_vec(&kept).unwrap()).unwrap();
        assert_eq!(tree.secrets(), ["shadow", "ssl/private", "hostname"]);

        // A new private file in a sub-folder: that folder's time moved, so
        // the list is walked again and the file is hidden.
        std::fs::write(tree.etc().join("app/token"), "t").unwrap();
        std::fs::set_permissions(tree.etc().join("app/token"), mode(0o600)).unwrap();
        assert_eq!(tree.secrets(), ["app/token", "shadow", "ssl/private"]);
        // Walked right after the change: not kept (coarse file times), so
        // the next run walks again too and finds the same.
        assert_eq!(tree.secrets(), ["app/token", "shadow", "ssl/private"]);

        // A folder made private in place (its own change time moves).
        tree.age();
        assert_eq!(tree.secrets(), ["app/token", "shadow", "ssl/private"]);
        std::fs::set_permissions(tree.etc().join("app"), mode(0o700)).unwrap();
        assert_eq!(tree.secrets(), ["app", "shadow", "ssl/private"]);
    }

    // proves: SBX-3 (a kept list that cannot be trusted is not used)
    #[test]
    fn an_expired_foreign_or_broken_kept_list_is_walked_again() {
        let tree = Tree::new("distrust");
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        let forged = |tree: &Tree, edit: &dyn Fn(&mut Kept)| {
            let mut kept: Kept =
                serde_json::from_slice(&std::fs::read(tree.kept()).unwrap()).unwrap();
            kept.secrets.clear();
            edit(&mut kept);
            std::fs::write(tree.kept(), serde_json::to_vec(&kept).unwrap()).unwrap();
        };
        // Older than the bound: walked again.
        forged(&tree, &|kept| kept.walked_at -= CACHE_MAX_AGE.as_secs() + 1);
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        // Writable by others: not trusted.
        forged(&tree, &|_| {});
        std::fs::set_permissions(tree.kept(), mode(0o622)).unwrap();
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        // A link in its place: not followed.
        forged(&tree, &|_| {});
        let real = tree.base.join("state/elsewhere.json");
        std::fs::rename(tree.kept(), &real).unwrap();
        std::os::unix::fs::symlink(&real, tree.kept()).unwrap();
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        // Garbage, or another format: walked again.
        std::fs::write(tree.kept(), "{not json").unwrap();
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        forged(&tree, &|kept| kept.format += 1);
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        // Another set of folders: walked again.
        forged(&tree, &|kept| kept.roots = vec!["/elsewhere".to_string()]);
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
    }

    // proves: SBX-3
    #[test]
    fn without_a_state_folder_every_run_walks() {
        let tree = Tree::new("nostate");
        let etc = tree.etc();
        let found = secrets_of(&[etc.as_path()], None).unwrap();
        assert_eq!(found, [etc.join("shadow"), etc.join("ssl/private")]);
        assert!(!tree.kept().exists());
    }
}
