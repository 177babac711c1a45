//! How the project is seen inside the sandbox, decided in the parent: which
//! paths are hidden (SBX-3), which stay read-only even in a writable project
//! (SBX-6: the PERM-7 paths of `ploy_policy::ProtectedPaths::protects`),
//! which socket files are cut off, and the project's build cache outside the
//! project (BEYOND-4). The init mounts exactly this list (`init::root`).

use std::{
    os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
};

use ploy_policy::ProtectedPaths;

use super::policy::{SENSITIVE_HOME_ENTRIES, SandboxError, refuse};

/// What a walk of the project found (SBX-6).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ProjectScan {
    /// PERM-7 paths (files or whole folders) to bind read-only onto themselves.
    pub protected: Vec<PathBuf>,
    /// Folders to bind onto themselves (writable) so that they cannot be
    /// renamed or replaced: every folder between the project root and a
    /// protected path. Parents come before children.
    pub pinned: Vec<PathBuf>,
    /// Socket files and named pipes: channels to a process outside.
    pub sockets: Vec<PathBuf>,
    /// Every protected entry found (a link itself, not its target), with
    /// what `protects` says it is.
    pub described: Vec<(PathBuf, String)>,
    /// Folders of the user's that could not be listed after a writable run
    /// and were given back `u+rx` to be checked ([`Unlistable::Repair`]).
    pub repaired: Vec<PathBuf>,
    /// Every entry named `__pycache__` (any case: a case-folding folder
    /// finds it under Python's spelling) outside the protected folders:
    /// bytecode Python would load instead of the project's sources, which
    /// an earlier writable run could have written (BEYOND-4, SBX-5).
    pub bytecode: Vec<PathBuf>,
    /// Whether one of them is not a plain folder (a link could lead
    /// Python to bytecode anywhere in the project).
    pub bytecode_odd: bool,
    /// Python extension modules beside a source of the same module
    /// (`m.so`, `m.abi3.so`, `m.cpython-311-x86_64-linux-gnu.so` next to
    /// `m.py`), outside the protected folders: Python's import system tries
    /// extension modules before sources, so such a file runs instead of the
    /// `.py` a person reads (round8 #6's class).
    pub extension_shadows: Vec<PathBuf>,
}

/// What a walk does with a folder it cannot list or enter that the program
/// could reach (SBX-6: a folder the scan cannot see into is never skipped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unlistable {
    /// Before a run: refuse it, naming the folder (nothing has run yet, so
    /// the user made it so, or an earlier run did).
    Refuse,
    /// After a writable run: the program made it so (the scan before the run
    /// listed everything it could reach), so give the owner back read and
    /// search permission (`u+rx`) and look inside; say so in a note.
    Repair,
}

/// Walks the project once, without following symbolic links, and collects
/// the PERM-7 paths (through the one PERM-7 function) and the socket files.
/// A protected folder is locked whole and not entered: a `.git` folder
/// included (`protects` names it: it holds git's hooks and configuration),
/// because git reads more of it than a list could name (a `commondir` file
/// makes git take its configuration from another folder).
///
/// Fails closed (SBX-6): a folder that cannot be listed, or listed but not
/// entered, hides what is in it, yet the program can reach it (it runs as
/// the folder's owner and can `chmod` it back). Only a folder of another
/// user that the user cannot even enter is passed over: nothing in it is
/// reachable from inside either.
pub(super) fn scan_project(
    project: &Path,
    unlistable: Unlistable,
) -> Result<ProjectScan, SandboxError> {
    let protected_paths = ProtectedPaths::names_only(project);
    let mut scan = ProjectScan::default();
    // (absolute folder, its path relative to the project, whether it lies
    // in a protected folder: there only socket files are looked for, since
    // a read-only mount does not stop a connect, e.g. to git's fsmonitor
    // daemon in `.git`)
    let mut stack: Vec<(PathBuf, String, bool)> =
        vec![(project.to_path_buf(), String::new(), false)];
    while let Some((dir, rel_dir, in_protected)) = stack.pop() {
        let entries = match open_for_scan(&dir, unlistable, &mut scan)? {
            Some(entries) => entries,
            None => continue,
        };
        let mut children: Vec<(PathBuf, String, bool)> = Vec::new();
        let mut listed = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|err| unreadable(&dir, &err))?;
            let kind = entry.file_type().map_err(|err| unreadable(&dir, &err))?;
            listed.push((entry, kind));
        }
        let repository = !in_protected && passes_for_a_repository(&listed);
        if !in_protected {
            scan.extension_shadows
                .extend(extension_shadows(&dir, &listed));
        }
        for (entry, kind) in listed {
            let path = entry.path();
            let name = entry.file_name();
            // A name that is not UTF-8 is none of PERM-7's names; a
            // protected path may still lie below it.
            let name = name.to_string_lossy();
            let rel = if rel_dir.is_empty() {
                name.to_string()
            } else {
                format!("{rel_dir}/{name}")
            };
            if kind.is_socket() || kind.is_fifo() {
                scan.sockets.push(path);
                continue;
            }
            if in_protected {
                // git's object store holds only content-addressed files git
                // wrote, and can be large: not walked.
                let object_store = name == "objects" && dir.file_name() == Some(".git".as_ref());
                if kind.is_dir() && !object_store {
                    children.push((path, rel, true));
                }
                continue;
            }
            if repository && REPOSITORY_PARTS.contains(&name.as_ref()) {
                // proof5 #16: this folder passes for a git repository, so
                // git there reads its `config` (core.fsmonitor) and hooks:
                // locked like `.git`'s, and if the run made the folder one,
                // the parts are new and are moved aside after it.
                if kind.is_dir() {
                    children.push((path.clone(), rel.clone(), true));
                }
                scan.protected.push(path.clone());
                scan.described.push((path, REPOSITORY_WHAT.to_string()));
                continue;
            }
            if let Some(hit) = protected_paths.protects(&rel) {
                if kind.is_dir() {
                    children.push((path.clone(), rel.clone(), true));
                }
                if kind.is_symlink() {
                    // Writes through the link land on its target: protect
                    // the target when it is inside the project (outside it,
                    // it is hidden or read-only anyway).
                    if let Ok(target) = path.canonicalize()
                        && target.starts_with(project)
                        && target != project
                    {
                        scan.protected.push(target);
                    }
                }
                // The entry itself, a link included: the init pins a link
                // so it cannot be swapped for a real file or folder.
                scan.protected.push(path.clone());
                scan.described.push((path, hit.what));
                continue;
            }
            if name.eq_ignore_ascii_case(BYTECODE_FOLDER) {
                scan.bytecode_odd |= !kind.is_dir();
                scan.bytecode.push(path.clone());
            }
            if kind.is_dir() {
                children.push((path, rel, false));
            }
        }
        // Depth-first in name order, so the result does not depend on the
        // order the file system lists entries in.
        children.sort();
        stack.extend(children.into_iter().rev());
    }
    add_hook_folders(project, &mut scan)?;
    scan.pinned
        .extend(ancestors_to_pin(project, &scan.protected));
    scan.pinned.sort();
    scan.pinned.dedup();
    scan.protected.sort();
    scan.protected.dedup();
    // A pinned folder that is itself protected is bound read-only instead.
    scan.pinned.retain(|dir| !scan.protected.contains(dir));
    Ok(scan)
}

/// Where Python keeps a folder's bytecode.
const BYTECODE_FOLDER: &str = "__pycache__";

/// The entries of `dir` that Python would import as an extension module
/// instead of a source file beside them: a name ending in `.so` whose part
/// before the first dot is the name of a `.py` file in the same folder
/// (every suffix of `importlib.machinery.EXTENSION_SUFFIXES` on Linux has
/// that shape). A folder is not an extension module.
fn extension_shadows(
    dir: &Path,
    listed: &[(std::fs::DirEntry, std::fs::FileType)],
) -> Vec<PathBuf> {
    let names: std::collections::HashSet<std::ffi::OsString> = listed
        .iter()
        .filter(|(_, kind)| !kind.is_dir())
        .map(|(entry, _)| entry.file_name())
        .collect();
    let mut found = Vec::new();
    for (entry, kind) in listed {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if kind.is_dir() || !name.ends_with(".so") {
            continue;
        }
        let Some((stem, _)) = name.split_once('.') else {
            continue;
        };
        if !stem.is_empty() && names.contains(std::ffi::OsStr::new(&format!("{stem}.py"))) {
            found.push(dir.join(name));
        }
    }
    found
}

/// The entries of a folder git takes as a repository that say what git
/// runs or where it reads that from (proof5 #16): locked, or moved aside
/// when the run made them.
const REPOSITORY_PARTS: [&str; 5] = ["HEAD", "config", "config.worktree", "commondir", "hooks"];

const REPOSITORY_WHAT: &str = "part of a folder git takes as a repository (it holds `HEAD`, \
     `objects/` and `refs/`): git there runs the programs its `config` names \
     (core.fsmonitor) and its hooks";

/// Whether a folder with these entries passes for a git repository: git's
/// discovery accepts any folder with a `HEAD` file and `objects/` and
/// `refs/` folders (or a `commondir` file naming where they are) as a bare
/// repository, wherever it is (outside attacker's proof5 #16: `docs/` or
/// the project root made one, the host's next `git status` there ran the
/// planted `core.fsmonitor`). Links count as what they may point to.
fn passes_for_a_repository(entries: &[(std::fs::DirEntry, std::fs::FileType)]) -> bool {
    let has = |wanted: &str, dir: bool| {
        entries.iter().any(|(entry, kind)| {
            entry.file_name() == wanted
                && (kind.is_symlink() || if dir { kind.is_dir() } else { !kind.is_dir() })
        })
    };
    has("HEAD", false) && ((has("objects", true) && has("refs", true)) || has("commondir", false))
}

/// Adds the folders `core.hooksPath` names inside the project, for every
/// repository found, the project's own and the one holding the project
/// (`ploy_dirs::git_hook_folders`, the reader PERM-7's callers use too), as
/// protected paths; when unsure where git takes hooks from, refuses.
fn add_hook_folders(project: &Path, scan: &mut ProjectScan) -> Result<(), SandboxError> {
    let nested: Vec<PathBuf> = scan
        .described
        .iter()
        .map(|(path, _)| path)
        .filter(|path| path.file_name() == Some(std::ffi::OsStr::new(".git")))
        .cloned()
        .collect();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let unsure = |why: String| {
        refuse(
            "SBX-6",
            format!(
                "cannot tell for sure where git takes its hooks from: {why}; nothing was \
                 run, because a hooks folder in the project must be locked (the host's \
                 next commit would run what the program wrote there). Fix the \
                 configuration"
            ),
        )
    };
    let all = ploy_dirs::git_hook_folders(project, &nested, home.as_deref())
        .map_err(|err| unsure(err.0))?;
    if all.iter().any(|folder| folder == project) {
        return Err(unsure(
            "core.hooksPath makes the project folder itself git's hooks folder, and it cannot \
             be locked without locking the whole project"
                .to_string(),
        ));
    }
    // Folders outside the project are not writable inside; one holding the
    // project has its hooks outside it too.
    let folders = all.into_iter().filter(|folder| folder.starts_with(project));
    for folder in folders {
        let Ok(meta) = folder.symlink_metadata() else {
            // Absent now: if the run makes it, it is moved aside afterwards.
            continue;
        };
        if meta.file_type().is_symlink()
            && let Ok(target) = folder.canonicalize()
            && target.starts_with(project)
            && target != project
        {
            scan.protected.push(target);
        }
        scan.protected.push(folder.clone());
        scan.described
            .push((folder, "git's hooks folder (core.hooksPath)".to_string()));
    }
    Ok(())
}

fn unreadable(dir: &Path, err: &dyn std::fmt::Display) -> SandboxError {
    refuse(
        "SBX-6",
        format!(
            "the folder {} cannot be read ({err}), so the PERM-7 paths in it (git's \
             configuration and hooks, agent settings) cannot be found and locked; nothing was \
             run. Give yourself read and search permission on it (`chmod u+rx`); an earlier \
             sandbox run may have taken it away",
            super::shown_path(dir)
        ),
    )
}

/// Opens `dir` for the walk: its entries, `None` when nothing in it is
/// reachable (another user's folder the user cannot enter), or the refusal.
fn open_for_scan(
    dir: &Path,
    unlistable: Unlistable,
    scan: &mut ProjectScan,
) -> Result<Option<std::fs::ReadDir>, SandboxError> {
    use rustix::fs::Access;
    let listable = |dir: &Path| rustix::fs::access(dir, Access::READ_OK | Access::EXEC_OK);
    let Err(denied) = listable(dir) else {
        return std::fs::read_dir(dir)
            .map(Some)
            .map_err(|err| unreadable(dir, &err));
    };
    let meta = dir
        .symlink_metadata()
        .map_err(|err| unreadable(dir, &err))?;
    // SAFETY: geteuid has no preconditions.
    let mine = meta.uid() == unsafe { libc::geteuid() };
    if !mine && rustix::fs::access(dir, Access::EXEC_OK).is_err() {
        return Ok(None);
    }
    if unlistable == Unlistable::Refuse || !mine {
        return Err(unreadable(dir, &std::io::Error::from(denied)));
    }
    let repaired = std::fs::Permissions::from_mode(meta.mode() | 0o500);
    std::fs::set_permissions(dir, repaired).map_err(|err| unreadable(dir, &err))?;
    scan.repaired.push(dir.to_path_buf());
    std::fs::read_dir(dir)
        .map(Some)
        .map_err(|err| unreadable(dir, &err))
}

/// Every folder strictly between the project root and a protected path: if
/// one of them could be renamed, a fresh writable copy of the protected path
/// could be put in its place.
fn ancestors_to_pin(project: &Path, protected: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in protected {
        let mut current = path.parent();
        while let Some(dir) = current {
            if dir == project || !dir.starts_with(project) {
                break;
            }
            out.push(dir.to_path_buf());
            current = dir.parent();
        }
    }
    out
}

/// Moves `path` aside to `path.ploy-blocked` (or `-2`, `-3`, ...), never
/// over an existing name, and returns where it went.
pub(super) fn quarantine(path: &Path) -> std::io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("no file name"))?
        .to_string_lossy()
        .into_owned();
    for n in 1..100 {
        let suffix = if n == 1 {
            String::new()
        } else {
            format!("-{n}")
        };
        let target = path.with_file_name(format!("{name}.ploy-blocked{suffix}"));
        match rustix::fs::renameat_with(
            rustix::fs::CWD,
            path,
            rustix::fs::CWD,
            &target,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => return Ok(target),
            Err(rustix::io::Errno::EXIST) => continue,
            Err(err) => return Err(err.into()),
        }
    }
    Err(std::io::Error::other("no free name to move it to"))
}

/// Paths inside the project to hide: sensitive paths under it, and top-level
/// entries named like a sensitive home entry (a copied `.ssh`, `.aws`...).
pub(super) fn masks_inside(project: &Path, sensitive: &[PathBuf]) -> Vec<PathBuf> {
    let mut masks: Vec<PathBuf> = sensitive
        .iter()
        .filter(|path| path.starts_with(project) && path.as_path() != project)
        .filter(|path| path.symlink_metadata().is_ok())
        .cloned()
        .collect();
    for entry in SENSITIVE_HOME_ENTRIES {
        let candidate = project.join(entry);
        if candidate.symlink_metadata().is_ok() && !masks.contains(&candidate) {
            masks.push(candidate);
        }
    }
    masks
}

/// A file in the project owned by a user or group that the sandbox's user
/// namespace cannot map: a proof that edits it fails with EOVERFLOW when the
/// copy-on-write layer copies it up. The first one found, with its owner.
pub fn unmapped_owner(project: &Path) -> Option<(PathBuf, u32, u32)> {
    // SAFETY: geteuid and getegid have no preconditions.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let mut stack = vec![project.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            // A bound on the work: this is a hint, not a check.
            if seen > 200_000 {
                return None;
            }
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.uid() != uid || meta.gid() != gid {
                return Some((entry.path(), meta.uid(), meta.gid()));
            }
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .canonicalize()
            .unwrap()
            .join(format!("ploy-view-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    // proves: SBX-6
    #[test]
    fn the_scan_finds_perm7_paths_pins_the_folders_above_them_and_finds_sockets() {
        let root = project("scan");
        for dir in [
            ".git/hooks",
            ".git/objects/ab",
            ".git/modules/sub/hooks",
            "vendor/lib/.git/hooks",
            ".claude",
            "src",
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        for file in [
            ".git/config",
            ".git/HEAD",
            ".git/modules/sub/config",
            ".git/modules/sub/HEAD",
            "vendor/lib/.git/config",
            ".envrc",
            "src/main.rs",
            "src/.mcp.json",
        ] {
            std::fs::write(root.join(file), "x").unwrap();
        }
        let socket = root.join("src/app.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let scan = scan_project(&root, Unlistable::Refuse).unwrap();
        let rel = |paths: &[PathBuf]| -> Vec<String> {
            paths
                .iter()
                .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(
            rel(&scan.protected),
            [
                ".claude",
                ".envrc",
                ".git",
                "src/.mcp.json",
                "vendor/lib/.git",
            ]
        );
        assert_eq!(rel(&scan.pinned), ["src", "vendor", "vendor/lib"]);
        assert_eq!(rel(&scan.sockets), ["src/app.sock"]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    // proof5 #16: a folder holding `HEAD`, `objects/` and `refs/` (the
    // project root too) is a repository to git: its config and HEAD are
    // locked; a folder with only some of the parts is not touched.
    // proves: SBX-6
    #[test]
    fn a_folder_that_passes_for_a_git_repository_has_its_parts_locked() {
        let root = project("bare");
        for dir in [
            "objects",
            "refs/heads",
            "docs/objects",
            "docs/refs",
            "half/objects",
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        for file in ["HEAD", "config", "docs/HEAD", "half/HEAD", "half/config"] {
            std::fs::write(root.join(file), "x").unwrap();
        }
        let scan = scan_project(&root, Unlistable::Refuse).unwrap();
        let rel: Vec<String> = scan
            .protected
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert_eq!(rel, ["HEAD", "config", "docs/HEAD"]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    // proves: SBX-6
    #[test]
    fn a_protected_symlink_protects_its_target_inside_the_project() {
        let root = project("link");
        std::fs::write(root.join("real-envrc"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("real-envrc"), root.join(".envrc")).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", root.join(".mcp.json")).unwrap();
        let scan = scan_project(&root, Unlistable::Refuse).unwrap();
        assert_eq!(
            scan.protected,
            vec![
                root.join(".envrc"),
                root.join(".mcp.json"),
                root.join("real-envrc")
            ]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    // proves: SBX-3
    #[test]
    fn sensitive_entries_inside_the_project_are_masked() {
        let base = project("mask");
        std::fs::create_dir_all(base.join(".ssh")).unwrap();
        std::fs::create_dir_all(base.join(".aws")).unwrap();
        std::fs::write(base.join(".netrc"), "machine x").unwrap();
        let masks = masks_inside(&base, &[]);
        for name in [".ssh", ".aws", ".netrc"] {
            assert!(
                masks.contains(&base.join(name)),
                "{name} not masked: {masks:?}"
            );
        }
        std::fs::remove_dir_all(&base).unwrap();
    }
}
