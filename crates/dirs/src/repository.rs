//! Folders that pass for a git repository outside `.git` (proof5 #16).
//!
//! git's discovery takes any folder holding a `HEAD` file and `objects/`
//! and `refs/` folders (or `HEAD` and a `commondir` file naming where they
//! are) as a bare repository, wherever it is: a `docs/config` next to
//! `docs/HEAD`, `docs/objects/` and `docs/refs/` is git's configuration
//! (`core.fsmonitor` runs on the host's next `git status` in `docs/`). The
//! sandbox locks such folders' parts; the agent's edit tools and the hook
//! ask [`repository_part`] whether a write makes or changes one, so PERM-7
//! asks for it as for `.git/**`.
//!
//! [`passes_for_a_repository`] is the pure rule; [`repository_part`] looks
//! at the filesystem (four `lstat`s per folder on the way).

use std::path::{Component, Path, PathBuf};

/// The entries of a repository folder that steer what git runs or where it
/// reads that from: a write of one, in a folder that passes (or would pass
/// after the write) for a repository, is PERM-7.
pub const REPOSITORY_PARTS: [&str; 12] = [
    "HEAD",
    "config",
    "config.worktree",
    "commondir",
    "hooks",
    "objects",
    "refs",
    "packed-refs",
    "info",
    "index",
    "worktrees",
    "modules",
];

/// What a folder holds of a repository's shape.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// A `HEAD` that is not a folder.
    pub head: bool,
    /// An `objects` folder.
    pub objects: bool,
    /// A `refs` folder.
    pub refs: bool,
    /// A `commondir` that is not a folder.
    pub commondir: bool,
}

/// The pure rule: git's discovery takes a folder with this shape as a
/// repository (`HEAD` + `objects/` + `refs/`, or `HEAD` + `commondir`).
pub fn passes_for_a_repository(shape: Shape) -> bool {
    shape.head && ((shape.objects && shape.refs) || shape.commondir)
}

/// `shape` after a write of `name` directly below the folder (`below`: the
/// write goes further down, so `name` is a folder).
pub fn shape_after_write(mut shape: Shape, name: &str, below: bool) -> Shape {
    match (name, below) {
        ("HEAD", false) => shape.head = true,
        ("commondir", false) => shape.commondir = true,
        ("objects", _) => shape.objects = true,
        ("refs", _) => shape.refs = true,
        _ => {}
    }
    shape
}

/// The folder a write of `written` (absolute, links already resolved)
/// makes or keeps a repository and whose git part it writes, if any: for
/// each folder on the way from `written`'s parent up to `stop` (included;
/// the project root), what it holds now plus what the write adds. `None`
/// when the write touches no repository part. Links in the folders looked
/// at count as what they may point to.
pub fn repository_part(stop: &Path, written: &Path) -> Option<PathBuf> {
    let names: Vec<&std::ffi::OsStr> = written
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    let mut folder = PathBuf::from("/");
    let mut folders = Vec::new();
    for name in &names {
        folders.push(folder.clone());
        folder.push(name);
    }
    for (depth, folder) in folders.iter().enumerate().rev() {
        if !folder.starts_with(stop) {
            break;
        }
        let Some(name) = names[depth].to_str() else {
            continue;
        };
        if !REPOSITORY_PARTS.contains(&name) {
            continue;
        }
        let below = depth + 1 < names.len();
        let shape = shape_after_write(shape_of(folder), name, below);
        if passes_for_a_repository(shape) {
            return Some(folder.clone());
        }
    }
    None
}

/// [`repository_part`] as the reason a person is shown (PERM-7).
pub fn repository_part_reason(stop: &Path, written: &Path) -> Option<String> {
    repository_part(stop, written).map(|folder| {
        format!(
            "`{}` is part of a folder git takes as a repository (`{}` holds, or would \
             hold, `HEAD` with `objects/` and `refs/`): git there runs the programs its \
             `config` names and its hooks",
            written.display(),
            folder.display()
        )
    })
}

/// What `folder` holds of a repository's shape now.
fn shape_of(folder: &Path) -> Shape {
    let kind = |name: &str| std::fs::symlink_metadata(folder.join(name)).ok();
    // A link may point to either: it counts as both.
    let file = |name: &str| kind(name).is_some_and(|m| !m.is_dir());
    let dir = |name: &str| kind(name).is_some_and(|m| m.is_dir() || m.file_type().is_symlink());
    Shape {
        head: file("HEAD"),
        objects: dir("objects"),
        refs: dir("refs"),
        commondir: file("commondir"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: PERM-7 (proof5 #16: the pure rule and what a write adds)
    #[test]
    fn a_write_that_completes_or_changes_a_repository_shape_is_found() {
        let full = Shape {
            head: true,
            objects: true,
            refs: true,
            commondir: false,
        };
        assert!(passes_for_a_repository(full));
        assert!(!passes_for_a_repository(Shape {
            head: false,
            ..full
        }));
        assert!(!passes_for_a_repository(Shape {
            refs: false,
            ..full
        }));
        let linked = Shape {
            head: true,
            commondir: true,
            ..Shape::default()
        };
        assert!(passes_for_a_repository(linked));
        let missing_head = Shape {
            head: false,
            ..full
        };
        assert!(passes_for_a_repository(shape_after_write(
            missing_head,
            "HEAD",
            false
        )));
        assert!(!passes_for_a_repository(shape_after_write(
            missing_head,
            "HEAD",
            true
        )));

        let dir = std::env::temp_dir().join(format!("ploy-dirs-repo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("docs/objects")).unwrap();
        std::fs::create_dir_all(dir.join("docs/refs/heads")).unwrap();
        std::fs::create_dir_all(dir.join("src")).unwrap();
        // `docs` holds objects/ and refs/: writing its HEAD makes it a
        // repository; its config is git's once HEAD is there.
        assert_eq!(
            repository_part(&dir, &dir.join("docs/HEAD")),
            Some(dir.join("docs"))
        );
        assert_eq!(repository_part(&dir, &dir.join("docs/config")), None);
        std::fs::write(dir.join("docs/HEAD"), "ref: refs/heads/main\n").unwrap();
        for part in ["config", "hooks/pre-commit", "refs/heads/main", "commondir"] {
            assert_eq!(
                repository_part(&dir, &dir.join("docs").join(part)),
                Some(dir.join("docs")),
                "{part}"
            );
        }
        // Ordinary files of such a folder, and other folders, are not parts.
        assert_eq!(repository_part(&dir, &dir.join("docs/guide.md")), None);
        assert_eq!(repository_part(&dir, &dir.join("src/config")), None);
        // The project root itself: HEAD + commondir.
        std::fs::write(dir.join("HEAD"), "x").unwrap();
        assert_eq!(
            repository_part(&dir, &dir.join("commondir")),
            Some(dir.clone())
        );
        assert_eq!(repository_part(&dir, &dir.join("README.md")), None);
        // Above the stop folder nothing is looked at.
        assert_eq!(
            repository_part(&dir.join("docs"), &dir.join("commondir")),
            None
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
