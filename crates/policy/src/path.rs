//! Lexical placement of a path relative to the project root.
//!
//! Pure: nothing here touches the filesystem. A path is normalised by its
//! text alone (`.` dropped, `..` pops a component), then compared with the
//! project root. Limit (documented): a symbolic link inside the project that
//! points outside is not seen here; the sandbox is the guard for that.

use std::path::{Path, PathBuf};

use crate::protected::{PloyFolders, ProtectedPaths, normalise};

/// The project root: an absolute, lexically normalised directory, with the
/// PERM-7 list that applies to paths placed from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectRoot {
    root: PathBuf,
    protected: ProtectedPaths,
}

/// Why a project root was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RootError {
    /// The root must be absolute so that placement is unambiguous.
    #[error(
        "PERM-1: project root `{0}` is not an absolute path; pass the canonical project directory"
    )]
    NotAbsolute(String),
    /// The filesystem root as a project would make every path "inside".
    #[error(
        "PERM-1: project root `{0}` is the filesystem root; nothing would count as outside \
         the project. Run ploy from the project folder"
    )]
    FilesystemRoot(String),
}

/// Where a path lies with respect to the project root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Inside the project; the project-relative path (`""` is the root).
    Inside {
        /// Path relative to the root, `/`-separated, normalised.
        relative: String,
        /// Absolute normalised path.
        absolute: String,
    },
    /// Outside the project; the absolute normalised form, or the `~` form for
    /// home-relative paths (the home directory is not known to a pure crate).
    Outside {
        /// Normalised text used for matching rules.
        normalised: String,
    },
}

impl Placement {
    /// True when the path lies outside the project.
    pub fn is_outside(&self) -> bool {
        matches!(self, Self::Outside { .. })
    }
}

impl ProjectRoot {
    /// A project root from an absolute path (normalised lexically). Its
    /// PERM-7 list knows only the names protected wherever they are; add
    /// ploy's folders with [`Self::with_ploy_folders`].
    pub fn new(root: impl AsRef<Path>) -> Result<Self, RootError> {
        let root = root.as_ref();
        if !root.is_absolute() {
            return Err(RootError::NotAbsolute(root.display().to_string()));
        }
        let root = normalise(root);
        if root.parent().is_none() {
            return Err(RootError::FilesystemRoot(root.display().to_string()));
        }
        let protected = ProtectedPaths::names_only(&root);
        Ok(Self { root, protected })
    }

    /// The same root, with ploy's config and state folders, trust file and
    /// the home folder added to its PERM-7 list.
    pub fn with_ploy_folders(mut self, folders: &PloyFolders) -> Self {
        self.protected = ProtectedPaths::new(&self.root, folders).with_hooks_of(&self.protected);
        self
    }

    /// The same root, its PERM-7 list also protecting the folders git takes
    /// hooks from (`core.hooksPath`, read by the caller with
    /// `ploy_dirs::git_hook_folders`; unknown = every path asks).
    pub fn with_git_hooks(mut self, hooks: &crate::GitHooks) -> Self {
        self.protected = self.protected.with_git_hooks(hooks);
        self
    }

    /// The PERM-7 list paths placed from this root are checked against.
    pub fn protected(&self) -> &ProtectedPaths {
        &self.protected
    }

    /// The normalised root path.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Place a path given as text (relative paths are taken from the root).
    ///
    /// `~` and `~user` forms are always outside: the home directory is never
    /// the project as far as this check knows, and guessing would fail open.
    pub fn place(&self, raw: &str) -> Placement {
        if raw.starts_with('~') {
            return Placement::Outside {
                normalised: tilde_normalise(raw),
            };
        }
        let joined = if Path::new(raw).is_absolute() {
            normalise(Path::new(raw))
        } else {
            normalise(&self.root.join(raw))
        };
        match joined.strip_prefix(&self.root) {
            Ok(rel) => Placement::Inside {
                relative: slash_string(rel),
                absolute: slash_string(&joined),
            },
            Err(_) => Placement::Outside {
                normalised: slash_string(&joined),
            },
        }
    }
}

/// `~/a/../b` → `~/b`; the `~` or `~user` head is kept as the anchor.
pub(crate) fn tilde_normalise(raw: &str) -> String {
    let (head, rest) = raw.split_once('/').unwrap_or((raw, ""));
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        head.to_string()
    } else {
        format!("{head}/{}", parts.join("/"))
    }
}

fn slash_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> ProjectRoot {
        ProjectRoot::new("/home/u/proj").unwrap()
    }

    // proves: PERM-1
    #[test]
    fn escapes_are_outside() {
        let r = root();
        for raw in [
            "../x",
            "a/../../x",
            "/etc/passwd",
            "~/.ssh/id_rsa",
            "~",
            "~root/x",
            "/home/u/proj/../proj2/f",
            "/home/u/projX/f",
            "./../../../../..",
            "/",
        ] {
            assert!(r.place(raw).is_outside(), "{raw} must be outside");
        }
    }

    // proves: PERM-1
    #[test]
    fn inside_paths_stay_inside() {
        let r = root();
        for raw in [
            "a",
            "./a/b",
            "a/../b",
            "/home/u/proj/src/x.rs",
            ".",
            "a/b/../../c",
        ] {
            assert!(!r.place(raw).is_outside(), "{raw} must be inside");
        }
        assert_eq!(
            r.place("src/./a/../main.rs"),
            Placement::Inside {
                relative: "src/main.rs".into(),
                absolute: "/home/u/proj/src/main.rs".into()
            }
        );
    }

    // proves: PERM-1
    #[test]
    fn relative_and_filesystem_roots_refused() {
        assert!(ProjectRoot::new("proj").is_err());
        for root in ["/", "/..", "/a/..", "//"] {
            assert!(
                matches!(ProjectRoot::new(root), Err(RootError::FilesystemRoot(_))),
                "{root}"
            );
        }
    }

    #[test]
    fn tilde_forms_normalise() {
        assert_eq!(tilde_normalise("~/a/../.ssh//k"), "~/.ssh/k");
        assert_eq!(tilde_normalise("~"), "~");
    }
}
