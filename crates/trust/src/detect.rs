//! Detection (TRUST-2): which project-local resources that need trust exist,
//! looked for from the working directory.
//!
//! * in `<cwd>/.ploy`: `settings.json`; the folders `extensions`, `skills`,
//!   `prompts`, `themes` when not empty; `SYSTEM.md`, `APPEND_SYSTEM.md`;
//! * `.agents/skills` (not empty) in the working directory or any ancestor,
//!   except the user's own `~/.agents/skills`, which is the user's and loads
//!   as a user resource.
//!
//! An empty `.ploy` (or one holding only empty folders) needs no decision.
//! Fail closed: a path that exists but cannot be read (a folder we may not
//! list, a dangling symlink) counts as a resource, because we cannot show it
//! is empty.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// The kinds of resources that need trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    /// `.ploy/settings.json`
    Settings,
    /// `.ploy/extensions/` (not empty)
    Extensions,
    /// `.ploy/skills/` (not empty)
    Skills,
    /// `.ploy/prompts/` (not empty)
    Prompts,
    /// `.ploy/themes/` (not empty)
    Themes,
    /// `.ploy/SYSTEM.md`
    SystemPrompt,
    /// `.ploy/APPEND_SYSTEM.md`
    AppendSystemPrompt,
    /// `.agents/skills/` (not empty) in the working directory or an ancestor.
    AgentsSkills,
}

impl ResourceKind {
    /// Every kind, in display order.
    pub const ALL: [ResourceKind; 8] = [
        ResourceKind::Settings,
        ResourceKind::Extensions,
        ResourceKind::Skills,
        ResourceKind::Prompts,
        ResourceKind::Themes,
        ResourceKind::SystemPrompt,
        ResourceKind::AppendSystemPrompt,
        ResourceKind::AgentsSkills,
    ];

    /// Human name used in messages.
    pub fn label(self) -> &'static str {
        match self {
            ResourceKind::Settings => "project settings",
            ResourceKind::Extensions => "project extensions",
            ResourceKind::Skills => "project skills",
            ResourceKind::Prompts => "project prompts",
            ResourceKind::Themes => "project themes",
            ResourceKind::SystemPrompt => "project system prompt",
            ResourceKind::AppendSystemPrompt => "project system prompt addition",
            ResourceKind::AgentsSkills => "project .agents skills",
        }
    }
}

/// One resource found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resource {
    /// What it is.
    pub kind: ResourceKind,
    /// Where it is.
    pub path: PathBuf,
}

/// Options of detection.
#[derive(Debug, Clone, Default)]
pub struct DetectOptions {
    /// The user's home folder: its `.agents/skills` is the user's own, not a
    /// project resource. `None` excludes nothing.
    pub home: Option<PathBuf>,
}

impl DetectOptions {
    /// Options for the current user (home from the platform).
    pub fn for_current_user() -> Self {
        Self {
            home: directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()),
        }
    }
}

/// Finds the resources that need trust from `cwd` (which should be
/// canonical; see [`crate::canonical_dir`]).
pub fn detect(cwd: &Path, options: &DetectOptions) -> Vec<Resource> {
    let mut found = Vec::new();
    let ploy = cwd.join(".ploy");
    let files = [
        (ResourceKind::Settings, "settings.json"),
        (ResourceKind::SystemPrompt, "SYSTEM.md"),
        (ResourceKind::AppendSystemPrompt, "APPEND_SYSTEM.md"),
    ];
    let folders = [
        (ResourceKind::Extensions, "extensions"),
        (ResourceKind::Skills, "skills"),
        (ResourceKind::Prompts, "prompts"),
        (ResourceKind::Themes, "themes"),
    ];
    if present(&ploy) {
        for (kind, name) in files {
            let path = ploy.join(name);
            if present(&path) {
                found.push(Resource { kind, path });
            }
        }
        for (kind, name) in folders {
            let path = ploy.join(name);
            if non_empty_folder(&path) {
                found.push(Resource { kind, path });
            }
        }
    }
    for dir in cwd.ancestors() {
        if options.home.as_deref() == Some(dir) {
            continue;
        }
        let path = dir.join(".agents").join("skills");
        if non_empty_folder(&path) {
            found.push(Resource {
                kind: ResourceKind::AgentsSkills,
                path,
            });
        }
    }
    found.sort_by(|a, b| a.kind.cmp(&b.kind).then_with(|| a.path.cmp(&b.path)));
    found
}

/// Exists as anything, including a dangling symlink (fail closed).
fn present(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// A folder with at least one entry. Something that exists but cannot be
/// listed counts (fail closed); a missing path does not.
fn non_empty_folder(path: &Path) -> bool {
    if !present(path) {
        return false;
    }
    match std::fs::read_dir(path) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    // proves: TRUST-2
    #[test]
    fn empty_ploy_and_empty_subfolders_need_no_decision() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join(".ploy/skills")).unwrap();
        fs::create_dir_all(root.join(".ploy/extensions")).unwrap();
        fs::create_dir_all(root.join(".agents/skills")).unwrap();
        assert!(detect(&root, &DetectOptions::default()).is_empty());
    }

    // proves: TRUST-2
    #[test]
    fn unrelated_files_in_ploy_need_no_decision() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join(".ploy")).unwrap();
        fs::write(root.join(".ploy/plan.json"), "{}").unwrap();
        assert!(detect(&root, &DetectOptions::default()).is_empty());
    }

    // proves: TRUST-2
    #[test]
    fn dangling_symlink_counts_fail_closed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join(".ploy")).unwrap();
        std::os::unix::fs::symlink("/nonexistent/x", root.join(".ploy/settings.json")).unwrap();
        let found = detect(&root, &DetectOptions::default());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, ResourceKind::Settings);
    }

    // proves: TRUST-2
    #[test]
    fn home_agents_skills_is_the_users_not_the_projects() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        fs::create_dir_all(home.join(".agents/skills/a")).unwrap();
        let project = home.join("src/p");
        fs::create_dir_all(&project).unwrap();
        let options = DetectOptions {
            home: Some(home.clone()),
        };
        assert!(detect(&project, &options).is_empty());
        assert_eq!(detect(&project, &DetectOptions::default()).len(), 1);
    }
}
