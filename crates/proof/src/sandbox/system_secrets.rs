//! The host's secrets under `/etc`, `/opt` and `/usr/local` (SBX-3): every
//! file and folder there that is not readable by everyone, and every file
//! named like a credential file even when readable by everyone
//! ([`SYSTEM_CREDENTIAL_CONFIGS`] and the secret-file rule; round8 #5), is
//! hidden in the sandbox. What a look found is kept between runs in ploy's state folder,
//! folder by folder, so that a run lists only the folders that changed:
//! `/etc` alone is about 1,400 entries, and a conda installation under
//! `/opt` is hundreds of thousands, far too many to look at before every
//! run; checking that a folder is unchanged costs one `lstat`.
//!
//! A folder's kept record (which of its entries are private, which are
//! folders) is used only when it can be trusted:
//! * the folder is exactly as it was (device, inode, mode, owner, group,
//!   change and modification times): an entry added, removed or renamed in
//!   it changes its modification time, the folder made private changes its
//!   own change time, and something mounted over it changes its device or
//!   inode; any difference and that folder (only) is listed again, its
//!   entries looked at one by one;
//! * it had not changed during the two seconds before it was listed
//!   ([`SETTLE`]): file times come from a coarse clock, so a change right
//!   before or during the listing might not move a time the record holds;
//!   such a folder is listed again at the next run, until it settles;
//! * it was listed less than [`CACHE_MAX_AGE`] ago: the one change a record
//!   cannot see is a file made private in place (`chmod 600 /etc/x`,
//!   `chgrp`), which touches only the file's own change time; such a file is
//!   hidden from the first run after its folder's record expires,
//!   [`CACHE_MAX_AGE`] at the most;
//! * (not a record's limit, the look's) the folders are bound live, as
//!   bubblewrap binds them: a private file written there after the run
//!   looked (while it starts or runs) is visible in that run, and hidden
//!   from the next one;
//! * the file is a plain file of the user's, not writable by others, in
//!   the state folder (which the sandbox hides), read without following
//!   links, and of the expected shape; otherwise it is ignored and
//!   rewritten.
//!
//! The bound (fail closed): a root that needs more than
//! [`SYSTEM_WALK_LIMIT`] entries looked at in one run is hidden whole in
//! that run (an empty read-only folder) and the run says so, rather than run
//! with secrets unseen or refuse every run. What was looked at is kept, so
//! the next runs go on from there.
//!
//! Without a state folder (no home, no `PLOY_STATE_DIR`) every run lists
//! every folder.

use std::{
    collections::HashMap,
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

/// The most entries one run looks at (folders checked plus entries listed)
/// in one system folder; past it that folder is hidden whole in the run
/// (SBX-3, fail closed). A large conda installation (~500,000 entries) fits;
/// once kept, a run checks only its folders (about one entry in ten).
pub(super) const SYSTEM_WALK_LIMIT: usize = 2_000_000;

/// The kept list's file in ploy's state folder.
pub(super) const CACHE_FILE: &str = "system-secrets.json";

/// How long a folder's kept record is used at most: the bound on how long a
/// file made private in place can stay visible (see the module's notes).
pub(super) const CACHE_MAX_AGE: Duration = Duration::from_secs(60);

/// A folder that changed this recently (before it was listed) is listed
/// again at the next run: file times come from a coarse clock.
const SETTLE: Duration = Duration::from_secs(2);

/// The kept list's format; another number is ignored (3: credential
/// configuration files readable by everyone are recorded too).
const CACHE_FORMAT: u32 = 3;

/// Package managers' and tools' configuration files that commonly hold
/// registry tokens or passwords and that a system keeps readable by
/// everyone, under the names they have in system folders (round8 #5:
/// `/usr/local/etc/npmrc`, `/etc/pip.conf` were readable in the sandbox).
/// Matched like the secret-file rule (the path's last parts, ASCII case
/// ignored), in addition to it. Hidden in the sandbox (SBX-3).
pub(super) const SYSTEM_CREDENTIAL_CONFIGS: &[&str] = &[
    // npm's global configuration (`$PREFIX/etc/npmrc`) and yarn 1's.
    "npmrc",
    "yarnrc",
    // RubyGems' and Bundler's (`/etc/gemrc`, `/usr/local/bundle/config`).
    "gemrc",
    ".gemrc",
    "bundle/config",
    // conda's channel tokens (`/opt/conda/.condarc`, `/etc/conda/condarc`).
    "condarc",
    ".condarc",
    // cargo's registry tokens where CARGO_HOME is a system folder
    // (`/usr/local/cargo` in the Rust images).
    "cargo/config",
    "cargo/config.toml",
    // uv's and Poetry's index credentials.
    "uv/uv.toml",
    "auth.toml",
    // curl's and git's credential stores under their system names.
    "netrc",
    "git-credentials",
    // registries' logins where DOCKER_CONFIG points into a system folder.
    "docker/config.json",
];

/// Whether `path`, readable by everyone, is a credential file to hide: a
/// name the secret-file rule knows (`ploy_secrets::secret_file_kind`:
/// `pip.conf`, `.netrc`, `credentials`, `auth.json`, `.env`, ...) or one of
/// [`SYSTEM_CREDENTIAL_CONFIGS`]. Certificates (`*.pem`) stay visible:
/// the rule names them as possible private keys, but in system folders they
/// are the public CA bundles TLS needs (a private key there is not readable
/// by everyone, and hidden by that).
fn is_credential_config(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    let lower = text.to_ascii_lowercase();
    if lower.ends_with(".pem") {
        return false;
    }
    if ploy_secrets::secret_file_kind(text).is_some() {
        return true;
    }
    SYSTEM_CREDENTIAL_CONFIGS.iter().any(|name| {
        lower
            .strip_suffix(name)
            .is_some_and(|head| head.ends_with('/'))
    })
}

/// The largest kept list read (a bound on a corrupted file); about 200
/// bytes per folder.
const CACHE_MAX_BYTES: u64 = 256 << 20;

/// What the kept list says.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Kept {
    format: u32,
    /// The folders walked.
    roots: Vec<String>,
    /// Every folder looked at, as it was, and what it held.
    folders: Vec<Folder>,
}

/// One folder as a run listed it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Folder {
    #[serde(rename = "p")]
    path: String,
    #[serde(rename = "s")]
    stamp: Stamp,
    /// Seconds since the epoch when its entries were looked at.
    #[serde(rename = "t")]
    listed_at: u64,
    /// Whether it had not changed in the [`SETTLE`] before it was listed.
    #[serde(rename = "k")]
    settled: bool,
    /// The folder itself is not open to everyone: hidden whole, not entered.
    #[serde(rename = "h")]
    hidden: bool,
    /// Names of its entries that are not folders and either not readable
    /// by everyone or named like a credential file.
    #[serde(rename = "x")]
    secrets: Vec<String>,
    /// Names of its sub-folders (each has its own record).
    #[serde(rename = "d")]
    folders: Vec<String>,
}

/// A folder's identity and times, as `lstat` gives them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    mode: u32,
    uid: u32,
    gid: u32,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            mode: meta.mode(),
            uid: meta.uid(),
            gid: meta.gid(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether neither time is at or after `since` (seconds, nanoseconds).
    fn settled_before(&self, since: (i64, i64)) -> bool {
        self.mtime < since && self.ctime < since
    }
}

/// What to hide for the system folders, and what the run should be told.
#[derive(Debug, Default)]
pub(super) struct SystemSecrets {
    /// Paths to hide (SBX-3).
    pub masks: Vec<PathBuf>,
    /// Why a whole system folder is hidden, when one is.
    pub notes: Vec<String>,
}

/// The entries of [`SECRET_SYSTEM_FOLDERS`] (among the folders bound
/// read-only; `/usr/local` through `/usr`) that are not readable by
/// everyone: a file without `o+r`, a folder without `o+r` or `o+x`; and the
/// files named like credential files whatever their mode
/// ([`SYSTEM_CREDENTIAL_CONFIGS`], round8 #5). The system marks its secrets that way; the
/// user running ploy may still read them (root reads `/etc/shadow`, a member
/// of `ssl-cert` reads `/etc/ssl/private`), and a project link
/// (`etcd -> /etc`) or a program of the proof would then show them (outside
/// attacker's validate #19). They are hidden in the sandbox (SBX-3). A
/// folder is hidden whole and not entered. Links are not followed: a link
/// resolves inside the sandbox's own view, where its target is hidden too.
///
/// With `state`, ploy's state folder, what was found is kept there, folder
/// by folder, and used again while it can be trusted (see the module's
/// notes).
pub(super) fn system_secrets(
    read_only: &[PathBuf],
    state: Option<&Path>,
) -> Result<SystemSecrets, SandboxError> {
    let roots: Vec<&Path> = SECRET_SYSTEM_FOLDERS
        .iter()
        .map(Path::new)
        .filter(|root| read_only.iter().any(|dir| root.starts_with(dir)))
        .collect();
    secrets_of(
        &roots,
        state.map(|dir| dir.join(CACHE_FILE)).as_deref(),
        SYSTEM_WALK_LIMIT,
    )
}

/// [`system_secrets`] for explicit `roots`, kept-list file and bound.
fn secrets_of(
    roots: &[&Path],
    kept: Option<&Path>,
    limit: usize,
) -> Result<SystemSecrets, SandboxError> {
    if roots.is_empty() {
        return Ok(SystemSecrets::default());
    }
    let root_names: Option<Vec<String>> = roots
        .iter()
        .map(|root| root.to_str().map(str::to_string))
        .collect();
    let started = SystemTime::now();
    let before = match (kept, &root_names) {
        (Some(file), Some(names)) => read_kept(file, names),
        _ => None,
    };
    let mut look = Look::new(before.as_ref(), started)?;
    let mut found = SystemSecrets::default();
    for root in roots {
        look.root(root, limit, &mut found)?;
    }
    found.masks.sort();
    if let (Some(file), Some(roots), true) = (kept, root_names, look.changed) {
        // A list that cannot be kept costs the next run a walk, nothing more.
        let _ = write_kept(
            file,
            &Kept {
                format: CACHE_FORMAT,
                roots,
                folders: look.folders,
            },
        );
    }
    Ok(found)
}

/// One run's look at the system folders: the kept records it may use, and
/// the records it makes.
struct Look<'k> {
    /// Trusted kept records by path.
    kept: HashMap<&'k str, &'k Folder>,
    /// Seconds since the epoch now.
    now: u64,
    /// Changes at or after this are too recent to trust (seconds, nanoseconds).
    unsettled_from: (i64, i64),
    /// The records to keep.
    folders: Vec<Folder>,
    /// Whether anything was listed (the kept list is then rewritten).
    changed: bool,
}

impl<'k> Look<'k> {
    fn new(before: Option<&'k Kept>, started: SystemTime) -> Result<Look<'k>, SandboxError> {
        let clock = || {
            refuse(
                "SBX-3",
                "the system clock is before 1970, so the kept list of the host's secrets \
                 cannot be dated; set the clock; nothing was run"
                    .to_string(),
            )
        };
        let now = started.duration_since(UNIX_EPOCH).map_err(|_| clock())?;
        let since = now.saturating_sub(SETTLE);
        let now_secs = now.as_secs();
        let kept = before
            .map(|kept| {
                kept.folders
                    .iter()
                    .filter(|folder| {
                        folder.settled
                            && folder.listed_at <= now_secs
                            && now_secs - folder.listed_at < CACHE_MAX_AGE.as_secs()
                    })
                    .map(|folder| (folder.path.as_str(), folder))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Look {
            kept,
            now: now_secs,
            unsettled_from: (
                i64::try_from(since.as_secs()).map_err(|_| clock())?,
                i64::from(since.subsec_nanos()),
            ),
            folders: Vec::new(),
            changed: before.is_none(),
        })
    }

    /// Looks at one root: its secrets go to `found.masks`; past `limit`
    /// entries the root itself is hidden instead, with a note.
    fn root(&mut self, root: &Path, limit: usize, found: &mut SystemSecrets) -> StepResult {
        match root.symlink_metadata() {
            Ok(meta) if meta.is_dir() => {}
            _ => return Ok(()),
        }
        let mut secrets = Vec::new();
        let mut seen = 0usize;
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            // Gone, or no longer a folder, since its parent was listed: its
            // parent's record is not settled, and nothing is there to hide.
            let Ok(meta) = dir.symlink_metadata() else {
                continue;
            };
            if !meta.is_dir() {
                continue;
            }
            seen += 1;
            let stamp = Stamp::of(&meta);
            let reused = dir
                .to_str()
                .and_then(|path| self.kept.get(path))
                .filter(|folder| folder.stamp == stamp)
                .map(|folder| (*folder).clone());
            let (folder, odd) = match reused {
                Some(folder) => (folder, Vec::new()),
                None => {
                    self.changed = true;
                    self.list(&dir, stamp, &mut seen, limit)?
                }
            };
            if seen > limit {
                secrets.clear();
                found.notes.push(format!(
                    "SBX-3: {} holds more than {limit} entries, too many to look at for \
                     secrets in one run; it is hidden in this sandbox (what was looked at is \
                     kept, so a later run may show it)",
                    root.display()
                ));
                secrets.push(root.to_path_buf());
                self.keep_unvisited(root);
                break;
            }
            if folder.hidden {
                secrets.push(dir.clone());
            } else {
                secrets.extend(folder.secrets.iter().map(|name| dir.join(name)));
                stack.extend(folder.folders.iter().map(|name| dir.join(name)));
            }
            for (path, is_dir) in odd {
                if is_dir {
                    stack.push(path);
                } else {
                    secrets.push(path);
                }
            }
            // A folder whose path is not UTF-8 has no record: it is listed
            // at every run.
            if dir.to_str().is_some() {
                self.folders.push(folder);
            }
        }
        found.masks.extend(secrets);
        Ok(())
    }

    /// Carries the trusted kept records under `root` that this run did not
    /// reach (it stopped at the bound) over to the list it keeps, so the
    /// next run goes on from where the earlier ones got.
    fn keep_unvisited(&mut self, root: &Path) {
        let visited: std::collections::HashSet<&str> = self
            .folders
            .iter()
            .map(|folder| folder.path.as_str())
            .collect();
        let mut carried: Vec<Folder> = self
            .kept
            .iter()
            .filter(|(path, _)| Path::new(path).starts_with(root) && !visited.contains(*path))
            .map(|(_, folder)| (*folder).clone())
            .collect();
        self.folders.append(&mut carried);
    }

    /// Lists `dir`: which entries are private, which are folders. Entries
    /// whose names are not UTF-8 cannot be recorded by name: they come back
    /// by path (folders to enter, `true`, or private files), and the record
    /// is marked unsettled so the folder is listed again at every run.
    fn list(
        &self,
        dir: &Path,
        stamp: Stamp,
        seen: &mut usize,
        limit: usize,
    ) -> StepResult<(Folder, Vec<(PathBuf, bool)>)> {
        let mut folder = Folder {
            path: dir.to_string_lossy().into_owned(),
            settled: stamp.settled_before(self.unsettled_from),
            hidden: stamp.mode & 0o005 != 0o005,
            stamp,
            listed_at: self.now,
            secrets: Vec::new(),
            folders: Vec::new(),
        };
        let mut odd = Vec::new();
        if folder.hidden {
            return Ok((folder, odd));
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            // Removed since it was looked at: nothing in it to hide (and
            // listed again at the next run, as for an entry, below).
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                folder.settled = false;
                return Ok((folder, odd));
            }
            Err(err) => return Err(system_unreadable(dir, &err)),
        };
        for entry in entries {
            let entry = entry.map_err(|err| system_unreadable(dir, &err))?;
            *seen += 1;
            if *seen > limit {
                break;
            }
            let path = entry.path();
            let meta = match path.symlink_metadata() {
                Ok(meta) => meta,
                // Removed (or renamed away) since the folder was read:
                // nothing is there to hide. Refusing would fail the run
                // whenever anything on the host removes a file in these
                // folders at the wrong moment (as a package manager or a
                // test's clean-up does). The removal moved the folder's
                // times, perhaps within the tick of those recorded, so the
                // record is marked unsettled: listed again at the next run.
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                    folder.settled = false;
                    continue;
                }
                Err(err) => return Err(system_unreadable(&path, &err)),
            };
            if meta.file_type().is_symlink() {
                continue;
            }
            let (is_dir, private) = (meta.is_dir(), meta.mode() & 0o004 == 0);
            if !is_dir && !private && !is_credential_config(&path) {
                continue;
            }
            match entry.file_name().to_str() {
                Some(name) if is_dir => folder.folders.push(name.to_string()),
                Some(name) => folder.secrets.push(name.to_string()),
                None => {
                    folder.settled = false;
                    odd.push((path, is_dir));
                }
            }
        }
        Ok((folder, odd))
    }
}

type StepResult<T = ()> = Result<T, SandboxError>;

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

/// The kept list, when it is the user's own, of this format and for `roots`.
fn read_kept(file: &Path, roots: &[String]) -> Option<Kept> {
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
    (kept.format == CACHE_FORMAT && kept.roots == roots).then_some(kept)
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

        fn look(&self, limit: usize) -> SystemSecrets {
            secrets_of(&[self.etc().as_path()], Some(&self.kept()), limit).unwrap()
        }

        fn secrets(&self) -> Vec<String> {
            let etc = self.etc();
            let mut found: Vec<String> = self
                .look(SYSTEM_WALK_LIMIT)
                .masks
                .iter()
                .map(|path| path.strip_prefix(&etc).unwrap().display().to_string())
                .collect();
            found.sort();
            found
        }

        /// Edits the kept list as the user could (the kept list is the
        /// user's own file).
        fn forge(&self, edit: impl Fn(&mut Kept)) {
            let mut kept: Kept =
                serde_json::from_slice(&std::fs::read(self.kept()).unwrap()).unwrap();
            edit(&mut kept);
            std::fs::write(self.kept(), serde_json::to_vec(&kept).unwrap()).unwrap();
        }

        /// The record of `etc/<rel>` in the kept list.
        fn record<'k>(&self, kept: &'k mut Kept, rel: &str) -> &'k mut Folder {
            let path = if rel.is_empty() {
                self.etc()
            } else {
                self.etc().join(rel)
            };
            kept.folders
                .iter_mut()
                .find(|folder| Path::new(&folder.path) == path)
                .unwrap()
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

    // proves: SBX-3 (an entry removed while its folder is being looked at
    // is gone, not unreadable: the run goes on, and what stays is hidden;
    // before, such a run was refused, which made proof_links flaky when one
    // test removed its /etc secret while another's run was looking)
    #[test]
    fn an_entry_removed_during_the_look_does_not_refuse_the_run() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let base = std::env::temp_dir()
            .canonicalize()
            .unwrap()
            .join(format!("ploy-secrets-vanish-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let etc = base.join("etc");
        std::fs::create_dir_all(&etc).unwrap();
        std::fs::write(etc.join("shadow"), "root:hash").unwrap();
        std::fs::set_permissions(etc.join("shadow"), mode(0o600)).unwrap();
        let stop = AtomicBool::new(false);
        let (runs, failures) = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    for i in 0..64 {
                        let _ = std::fs::write(etc.join(format!("tmp{i}")), "x");
                        let _ = std::fs::create_dir(etc.join(format!("dir{i}")));
                    }
                    for i in 0..64 {
                        let _ = std::fs::remove_file(etc.join(format!("tmp{i}")));
                        let _ = std::fs::remove_dir(etc.join(format!("dir{i}")));
                    }
                }
            });
            let started = std::time::Instant::now();
            let (mut runs, mut failures) = (0, Vec::new());
            while runs < 3000 && started.elapsed() < Duration::from_secs(3) {
                match secrets_of(&[etc.as_path()], None, SYSTEM_WALK_LIMIT) {
                    Ok(found) => assert_eq!(found.masks, [etc.join("shadow")]),
                    Err(err) => failures.push(err.to_string()),
                }
                runs += 1;
            }
            stop.store(true, Ordering::Relaxed);
            (runs, failures)
        });
        let _ = std::fs::remove_dir_all(&base);
        assert!(
            failures.is_empty(),
            "{} of {runs}: {:?}",
            failures.len(),
            failures.first()
        );
    }

    // proves: SBX-3 (the kept records are used, and never hide less than a
    // fresh walk would after any change they can see)
    #[test]
    fn the_kept_list_is_used_only_while_the_folders_are_unchanged() {
        let tree = Tree::new("kept");
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        assert!(tree.kept().exists(), "a settled walk is kept");
        // The kept list is what the next run uses: a forged record (written
        // as the user) shows that it is read.
        tree.forge(|kept| tree.record(kept, "").secrets.push("hostname".into()));
        assert_eq!(tree.secrets(), ["hostname", "shadow", "ssl/private"]);

        // A new private file in a sub-folder: that folder's time moved, so
        // it is listed again and the file is hidden; the unchanged root's
        // record (forged above) is still used: only the changed folder is
        // listed.
        std::fs::write(tree.etc().join("app/token"), "t").unwrap();
        std::fs::set_permissions(tree.etc().join("app/token"), mode(0o600)).unwrap();
        assert_eq!(
            tree.secrets(),
            ["app/token", "hostname", "shadow", "ssl/private"]
        );
        // Listed right after the change: not settled (coarse file times), so
        // the next run lists it again and finds the same; a forged record of
        // it is not used.
        tree.forge(|kept| tree.record(kept, "app").secrets.clear());
        assert_eq!(
            tree.secrets(),
            ["app/token", "hostname", "shadow", "ssl/private"]
        );

        // A folder made private in place (its own change time moves).
        tree.age();
        std::fs::set_permissions(tree.etc().join("app"), mode(0o700)).unwrap();
        assert_eq!(tree.secrets(), ["app", "hostname", "shadow", "ssl/private"]);
        // A new public sub-folder with a private file: the parent changed,
        // the new folder is entered.
        std::fs::create_dir(tree.etc().join("new")).unwrap();
        std::fs::write(tree.etc().join("new/key"), "k").unwrap();
        std::fs::set_permissions(tree.etc().join("new/key"), mode(0o640)).unwrap();
        assert_eq!(tree.secrets(), ["app", "new/key", "shadow", "ssl/private"]);
    }

    // proves: SBX-3 (a file made private in place, which no folder time
    // shows, is hidden once its folder's record expires)
    #[test]
    fn a_file_made_private_in_place_is_hidden_when_its_record_expires() {
        let tree = Tree::new("inplace");
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        std::fs::set_permissions(tree.etc().join("hostname"), mode(0o600)).unwrap();
        // Within the bound the kept record is used (the documented window).
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        tree.forge(|kept| tree.record(kept, "").listed_at -= CACHE_MAX_AGE.as_secs());
        assert_eq!(tree.secrets(), ["hostname", "shadow", "ssl/private"]);
    }

    // proves: SBX-3 (a kept list that cannot be trusted is not used)
    #[test]
    fn an_expired_foreign_or_broken_kept_list_is_walked_again() {
        let tree = Tree::new("distrust");
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        let emptied = |tree: &Tree, edit: &dyn Fn(&mut Kept)| {
            tree.forge(|kept| {
                for folder in &mut kept.folders {
                    folder.secrets.clear();
                    folder.hidden = false;
                }
                edit(kept);
            });
        };
        // Older than the bound, or dated in the future: listed again.
        emptied(&tree, &|kept| {
            for folder in &mut kept.folders {
                folder.listed_at -= CACHE_MAX_AGE.as_secs();
            }
        });
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        emptied(&tree, &|kept| {
            for folder in &mut kept.folders {
                folder.listed_at += 3600;
            }
        });
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        // Writable by others: not trusted.
        emptied(&tree, &|_| {});
        std::fs::set_permissions(tree.kept(), mode(0o622)).unwrap();
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        // A link in its place: not followed.
        emptied(&tree, &|_| {});
        let real = tree.base.join("state/elsewhere.json");
        std::fs::rename(tree.kept(), &real).unwrap();
        std::os::unix::fs::symlink(&real, tree.kept()).unwrap();
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        // Garbage, or another format: walked again.
        std::fs::write(tree.kept(), "{not json").unwrap();
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        emptied(&tree, &|kept| kept.format += 1);
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        // Another set of folders: walked again.
        emptied(&tree, &|kept| kept.roots = vec!["/elsewhere".to_string()]);
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
        // A record whose stamp differs from the folder (another inode):
        // listed again.
        emptied(&tree, &|kept| {
            for folder in &mut kept.folders {
                folder.stamp.ino ^= 1;
            }
        });
        assert_eq!(tree.secrets(), ["shadow", "ssl/private"]);
    }

    // proves: SBX-3 (past the bound the whole folder is hidden, never run
    // with secrets unseen; what was looked at is kept and the next run goes
    // on from there)
    #[test]
    fn a_folder_too_large_to_look_at_is_hidden_whole() {
        let tree = Tree::new("bound");
        for i in 0..40 {
            std::fs::create_dir(tree.etc().join(format!("d{i}"))).unwrap();
            std::fs::write(tree.etc().join(format!("d{i}/f")), "x").unwrap();
        }
        std::fs::write(tree.etc().join("d7/secret"), "s").unwrap();
        std::fs::set_permissions(tree.etc().join("d7/secret"), mode(0o600)).unwrap();
        tree.age();
        let first = tree.look(60);
        assert_eq!(first.masks, [tree.etc()], "{first:?}");
        assert!(
            first
                .notes
                .iter()
                .any(|note| note.contains("SBX-3") && note.contains("hidden in this sandbox")),
            "{first:?}"
        );
        // Each later run looks at the kept folders (one entry each) and
        // lists more, until the whole tree is known.
        let mut runs = 0;
        let done = loop {
            runs += 1;
            let look = tree.look(60);
            if look.notes.is_empty() || runs > 10 {
                break look;
            }
            assert_eq!(look.masks, [tree.etc()]);
        };
        let mut masks = done.masks.clone();
        masks.sort();
        assert_eq!(
            masks,
            [
                tree.etc().join("d7/secret"),
                tree.etc().join("shadow"),
                tree.etc().join("ssl/private")
            ],
            "{done:?} after {runs} runs"
        );
    }

    // proves: SBX-3 (round8 #5: credential configuration readable by
    // everyone is hidden by name; certificates and other files stay)
    #[test]
    fn credential_files_readable_by_everyone_are_hidden_by_name() {
        let tree = Tree::new("names");
        let etc = tree.etc();
        for name in [
            "npmrc",
            "pip.conf",
            "conda/.condarc",
            "bundle/config",
            "cargo/credentials.toml",
            "NPMRC",
            "ssl/certs/ca.pem",
            "npmrc.d/readme",
            "mynpmrc",
        ] {
            let path = etc.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "x").unwrap();
            std::fs::set_permissions(&path, mode(0o644)).unwrap();
        }
        let mut found = secrets_of(&[etc.as_path()], None, SYSTEM_WALK_LIMIT)
            .unwrap()
            .masks;
        found.sort();
        let expected: Vec<PathBuf> = [
            "NPMRC",
            "bundle/config",
            "cargo/credentials.toml",
            "conda/.condarc",
            "npmrc",
            "pip.conf",
            "shadow",
            "ssl/private",
        ]
        .iter()
        .map(|name| etc.join(name))
        .collect();
        assert_eq!(found, expected);
    }

    // proves: SBX-3
    #[test]
    fn without_a_state_folder_every_run_walks() {
        let tree = Tree::new("nostate");
        let etc = tree.etc();
        let mut found = secrets_of(&[etc.as_path()], None, SYSTEM_WALK_LIMIT)
            .unwrap()
            .masks;
        found.sort();
        assert_eq!(found, [etc.join("shadow"), etc.join("ssl/private")]);
        assert!(!tree.kept().exists());
    }
}
