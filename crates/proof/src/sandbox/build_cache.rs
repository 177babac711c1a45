//! The build cache a proof writes into (BEYOND-4, SBX-5; outside attacker's
//! proof5 #2, #2b, #2c, #6 and #6b).
//!
//! What a build tool writes (`CARGO_TARGET_DIR`, `GOCACHE`, npm's cache,
//! Python's bytecode, …) goes to a folder outside the project, on the host's
//! disk, mounted at [`super::BUILD_CACHE_MOUNT`]: the project's own
//! `target/` stays copy-on-write, so nothing a proof builds lands where the
//! host later runs it.
//!
//! That folder is **private to one run and removed when the run ends**.
//! It used to be one folder per project, kept between runs so that builds
//! stayed incremental; attacked, that let one proof decide the verdict of
//! every later one: a project script planted Python bytecode for the
//! system's `unittest` and `yq` under `PYTHONPYCACHEPREFIX` (a failing test
//! and a false `yq -e` then "passed", and `yq` ran `sh`), a replaced test
//! binary with fingerprints dated 2100 kept `cargo test` passing after the
//! source changed, and two proofs of one project running at once shared the
//! live folder (a socket between two sandboxes, outputs rewritten mid-run).
//! A proof may only run what it builds itself from the project and the
//! system; no cache an earlier run could write is trustworthy, because any
//! build runs project code (build scripts, tests) that can write anything
//! there, and cargo trusts modification times. So there is no reuse between
//! runs: each proof builds from scratch (the cost is measured in
//! ARCHITECTURE.md), and its scratch folder goes when it ends.
//!
//! Layout: `<root>/<project name>-<16 hex of SHA-256(project path)>/` holds
//! a `lock` file and one `run-…` folder per live run. Every run holds the
//! lock shared; a run that gets it exclusively (no other run of the project
//! is live) first removes everything else there: folders of runs that died
//! before their clean-up, and what the older kept-between-runs cache left
//! (possibly planted).
//!
//! Removal never gives up on a hostile tree (proof5 #6b): it walks with
//! `openat`/`unlinkat` holding one folder open at a time (no descriptor per
//! level, no recursion: depth is bounded by nothing but the disk), gives
//! the owner back `u+rwx` on each folder before entering it, never follows
//! a link, and checks each step back up against the inode it came from.

use std::{
    ffi::{CStr, CString, OsStr},
    os::{
        fd::{AsFd, OwnedFd},
        unix::{
            ffi::OsStrExt,
            fs::{DirBuilderExt, MetadataExt},
        },
    },
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};
use sha2::{Digest, Sha256};

use super::policy::{SandboxError, refuse};

/// The project's folder under `root`: `<root>/<folder name>-<16 hex of
/// SHA-256(project path)>`, created private to the user. Refused when it
/// would lie inside the project (the host could then run what a proof
/// built) or is not a plain folder of this user (BEYOND-4).
pub(super) fn project_cache_dir(root: &Path, project: &Path) -> Result<PathBuf, SandboxError> {
    let refuse_cache = |reason: String| refuse("BEYOND-4", reason);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(root)
        .map_err(|err| {
            refuse_cache(format!(
                "cannot create the build cache folder {}: {err}",
                root.display()
            ))
        })?;
    let root = root
        .canonicalize()
        .map_err(|err| refuse_cache(format!("cannot resolve {}: {err}", root.display())))?;
    if root.starts_with(project) || project.starts_with(&root) {
        return Err(refuse_cache(format!(
            "the build cache {} must lie outside the project {} (what a proof builds must never \
             land where the host runs it); move ploy's state folder",
            root.display(),
            project.display()
        )));
    }
    let digest = Sha256::digest(project.as_os_str().as_encoded_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let name: String = project
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let dir = root.join(format!("{name}-{hex}"));
    private_dir(&dir).map_err(refuse_cache)?;
    Ok(dir)
}

/// Creates `dir` (0700) unless it exists, then checks that it is a folder
/// of this user closed to others.
fn private_dir(dir: &Path) -> Result<(), String> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(err) => {
            return Err(format!(
                "cannot create the build cache {}: {err}",
                dir.display()
            ));
        }
    }
    let meta = dir
        .symlink_metadata()
        .map_err(|err| format!("cannot inspect {}: {err}", dir.display()))?;
    if !meta.is_dir()
        || meta.uid() != rustix::process::geteuid().as_raw()
        || meta.mode() & 0o022 != 0
    {
        return Err(format!(
            "the build cache {} is not a folder owned by you and closed to others; remove it",
            dir.display()
        ));
    }
    Ok(())
}

/// One run's private build cache: created empty before the run, removed
/// after it ([`RunCache::finish`]). Holds the project's lock shared while
/// it lives, so no other run's clean-up removes it.
#[derive(Debug)]
pub(super) struct RunCache {
    dir: PathBuf,
    /// Set once [`RunCache::finish`] removed (or tried to remove) the folder.
    finished: bool,
    /// The project's `lock` file, locked shared (released on drop).
    _lock: OwnedFd,
}

/// Distinguishes runs of one process started in the same nanosecond.
static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

impl RunCache {
    /// A fresh, empty build cache for one run under `project_dir` (from
    /// [`project_cache_dir`]). When no other run of the project is live, it
    /// first removes everything a dead run or the older shared cache left
    /// there; the notes say what could not be removed.
    pub(super) fn create(project_dir: &Path) -> Result<(RunCache, Vec<String>), SandboxError> {
        let refuse_cache = |reason: String| refuse("BEYOND-4", reason);
        let lock_path = project_dir.join("lock");
        let lock = rustix::fs::open(
            &lock_path,
            OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|err| {
            refuse_cache(format!(
                "cannot open the build cache's lock {}: {err}",
                lock_path.display()
            ))
        })?;
        let mut notes = Vec::new();
        if rustix::fs::flock(&lock, FlockOperation::NonBlockingLockExclusive).is_ok() {
            notes.extend(sweep(project_dir));
        }
        // From exclusive (or nothing) to shared; waits only while another
        // run sweeps.
        rustix::fs::flock(&lock, FlockOperation::LockShared).map_err(|err| {
            refuse_cache(format!(
                "cannot lock the build cache {}: {err}",
                project_dir.display()
            ))
        })?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = project_dir.join(format!(
            "run-{}-{nanos}-{}",
            std::process::id(),
            RUN_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|err| {
                refuse_cache(format!(
                    "cannot create this run's build cache {}: {err}",
                    dir.display()
                ))
            })?;
        Ok((
            RunCache {
                dir,
                finished: false,
                _lock: lock,
            },
            notes,
        ))
    }

    /// The run's folder on the host.
    pub(super) fn path(&self) -> &Path {
        &self.dir
    }

    /// Removes the run's folder and everything in it (every process of the
    /// run is dead by now). Returns a note when that failed; what is left
    /// is removed before a later run of the project, never mounted again.
    pub(super) fn finish(mut self) -> Vec<String> {
        self.finished = true;
        match remove_tree(&self.dir) {
            Ok(()) => Vec::new(),
            Err(err) => vec![format!(
                "BEYOND-4: this run's build cache {} could not be removed ({err}); it is never \
                 used again, and the next run of this project removes it",
                self.dir.display()
            )],
        }
    }
}

impl Drop for RunCache {
    /// A run that ended before it started (a refused view) leaves nothing.
    fn drop(&mut self) {
        if !self.finished {
            let _ = remove_tree(&self.dir);
        }
    }
}

/// Removes everything in the project's cache folder but its lock: folders
/// of runs that died before their clean-up, and what the older shared cache
/// kept (it may hold planted bytecode or binaries). Called only with the
/// lock held exclusively, so no run is live.
fn sweep(project_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(project_dir) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    for entry in entries.flatten() {
        if entry.file_name() == OsStr::new("lock") {
            continue;
        }
        if let Err(err) = remove_tree(&entry.path()) {
            notes.push(format!(
                "BEYOND-4: {} in the build cache could not be removed ({err}); it is never \
                 mounted in a run; remove it by hand",
                entry.path().display()
            ));
        }
    }
    notes
}

/// Removes `path` and, when it is a folder, everything below it, however
/// deep and whatever its permissions: one folder open at a time (plus the
/// one being listed), `u+rwx` given back to each folder before it is
/// entered, links removed and never followed. Nothing may be writing to
/// the tree meanwhile (the run's processes are dead); a step back up that
/// does not land on the folder it came from stops the removal.
pub(crate) fn remove_tree(path: &Path) -> std::io::Result<()> {
    let parent = path.parent().unwrap_or(Path::new("/"));
    let name = CString::new(
        path.file_name()
            .ok_or_else(|| std::io::Error::other("no file name"))?
            .as_bytes(),
    )
    .map_err(std::io::Error::other)?;
    let top = rustix::fs::open(
        parent,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let stat = rustix::fs::statat(&top, &name, AtFlags::SYMLINK_NOFOLLOW)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return Ok(rustix::fs::unlinkat(&top, &name, AtFlags::empty())?);
    }
    // (name, inode) of each folder entered below `top`, outermost first.
    let mut down: Vec<(CString, u64)> = Vec::new();
    let mut current = enter(&top, &name)?;
    down.push((name, rustix::fs::fstat(&current)?.st_ino));
    loop {
        match clear_files(&current)? {
            Some(sub) => {
                let next = enter(&current, &sub)?;
                let ino = rustix::fs::fstat(&next)?.st_ino;
                down.push((sub, ino));
                current = next;
            }
            None => {
                let Some((name, _)) = down.pop() else {
                    return Ok(());
                };
                if down.is_empty() {
                    return Ok(rustix::fs::unlinkat(&top, &name, AtFlags::REMOVEDIR)?);
                }
                let up = rustix::fs::openat(
                    &current,
                    c"..",
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )?;
                let expected = down.last().map(|(_, ino)| *ino);
                if Some(rustix::fs::fstat(&up)?.st_ino) != expected {
                    return Err(std::io::Error::other(
                        "a folder moved while it was being removed",
                    ));
                }
                rustix::fs::unlinkat(&up, &name, AtFlags::REMOVEDIR)?;
                current = up;
            }
        }
    }
}

/// Gives the owner `u+rwx` on the folder `name` in `dir` (a run may
/// `chmod 000` one so that its removal fails), then opens it without
/// following a link.
fn enter(dir: &impl AsFd, name: &CStr) -> std::io::Result<OwnedFd> {
    let stat = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return Err(std::io::Error::other("not a folder"));
    }
    if stat.st_mode & 0o700 != 0o700 {
        // Checked a folder just above and nothing runs meanwhile; the open
        // below refuses a link should one have taken its place.
        rustix::fs::chmodat(
            dir,
            name,
            Mode::from_raw_mode((stat.st_mode & 0o7777) | 0o700),
            AtFlags::empty(),
        )?;
    }
    Ok(rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Unlinks every entry of the folder `dir` that is not a folder, up to the
/// first sub-folder, whose name it returns (`None`: the folder is empty).
fn clear_files(dir: &OwnedFd) -> std::io::Result<Option<CString>> {
    let mut listing = rustix::fs::Dir::read_from(dir)?;
    while let Some(entry) = listing.read() {
        let entry = entry?;
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => FileType::from_raw_mode(
                rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?.st_mode,
            ),
            kind => kind,
        };
        if kind == FileType::Directory {
            return Ok(Some(name.to_owned()));
        }
        rustix::fs::unlinkat(dir, name, AtFlags::empty())?;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .canonicalize()
            .unwrap()
            .join(format!("ploy-cache-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    // proves: BEYOND-4
    #[test]
    fn the_cache_folder_is_per_project_private_and_never_inside_the_project() {
        let base = scratch("project");
        let (one, two) = (base.join("one"), base.join("two"));
        std::fs::create_dir_all(&one).unwrap();
        std::fs::create_dir_all(&two).unwrap();
        let root = base.join("state/build-cache");
        let a = project_cache_dir(&root, &one).unwrap();
        let b = project_cache_dir(&root, &two).unwrap();
        assert_ne!(a, b);
        assert_eq!(
            project_cache_dir(&root, &one).unwrap(),
            a,
            "stable per project"
        );
        assert_eq!(a.metadata().unwrap().mode() & 0o777, 0o700);
        let inside = project_cache_dir(&one.join("cache"), &one).unwrap_err();
        assert_eq!(inside.rule(), "BEYOND-4", "{inside}");
        assert_eq!(
            project_cache_dir(&base, &one).unwrap_err().rule(),
            "BEYOND-4"
        );
        std::fs::remove_dir_all(&base).unwrap();
    }

    // A tree built like proof5 #6b's: deeper than any descriptor-per-level
    // walk can go (1024 open files), with a `chmod 000` folder holding a
    // link out, a `chmod 000` folder at the bottom, many files at the top.
    // proves: BEYOND-4 (what a run left is removed, whatever its shape)
    #[test]
    fn removal_survives_deep_locked_and_linked_trees() {
        let base = scratch("deep");
        let tree = base.join("tree");
        std::fs::create_dir(&tree).unwrap();
        for i in 0..2000 {
            std::fs::write(tree.join(format!("f{i}")), "").unwrap();
        }
        let locked = tree.join("noread/x");
        std::fs::create_dir_all(&locked).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", locked.join("lnk")).unwrap();
        let outside = base.join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("keep"), "kept").unwrap();
        std::os::unix::fs::symlink(&outside, tree.join("to-outside")).unwrap();
        std::fs::set_permissions(tree.join("noread"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        // 3000 levels, built with *at calls (a path this long exceeds PATH_MAX).
        let mut fd =
            rustix::fs::open(&tree, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
        for _ in 0..3000 {
            rustix::fs::mkdirat(&fd, c"d", Mode::from_raw_mode(0o700)).unwrap();
            fd = rustix::fs::openat(&fd, c"d", OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())
                .unwrap();
        }
        rustix::fs::mkdirat(&fd, c"bottom", Mode::from_raw_mode(0)).unwrap();
        drop(fd);
        remove_tree(&tree).unwrap();
        assert!(tree.symlink_metadata().is_err());
        // Links were removed, never followed.
        assert_eq!(
            std::fs::read_to_string(outside.join("keep")).unwrap(),
            "kept"
        );
        assert!(Path::new("/etc/passwd").exists());
        // A single file or link is removed as itself.
        std::os::unix::fs::symlink(&outside, base.join("one-link")).unwrap();
        remove_tree(&base.join("one-link")).unwrap();
        assert!(outside.join("keep").exists());
        std::fs::remove_dir_all(&base).unwrap();
    }

    // proves: BEYOND-4 (proof5 #2c: runs of one project never share a cache)
    #[test]
    fn each_run_gets_its_own_empty_cache_and_it_goes_with_the_run() {
        let base = scratch("runs");
        let project = base.join("project");
        std::fs::create_dir(&project).unwrap();
        let dir = project_cache_dir(&base.join("state/build-cache"), &project).unwrap();
        // What the older shared cache kept (possibly planted) is removed by
        // the first run that finds no other run live.
        std::fs::create_dir_all(dir.join("pycache/usr/lib")).unwrap();
        std::fs::write(dir.join("pycache/usr/lib/x.pyc"), "planted").unwrap();
        let (one, notes) = RunCache::create(&dir).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        assert!(!dir.join("pycache").exists());
        let (two, _) = RunCache::create(&dir).unwrap();
        assert_ne!(one.path(), two.path());
        std::fs::write(one.path().join("built"), "one").unwrap();
        assert!(std::fs::read_dir(two.path()).unwrap().next().is_none());
        // A run whose clean-up never happened (it died): kept while another
        // run is live, removed by the next run that finds none.
        let dead = one.path().to_path_buf();
        std::mem::forget(one);
        let (three, _) = RunCache::create(&dir).unwrap();
        assert!(dead.exists(), "a live run's sweep must not run");
        assert!(three.finish().is_empty());
        assert!(two.finish().is_empty());
        // `one`'s lock descriptor was leaked by forget: the sweep cannot
        // take the lock exclusively from this same process until it is
        // closed, as a crashed process's would be. Stand in for that.
        let (four, notes) = {
            // A second, fresh sweep under an exclusive lock of our own.
            assert!(sweep(&dir).is_empty());
            RunCache::create(&dir).unwrap()
        };
        assert!(notes.is_empty());
        assert!(!dead.exists(), "a dead run's cache is swept");
        assert!(four.finish().is_empty());
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["lock"]);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
