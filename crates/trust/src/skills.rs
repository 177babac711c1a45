//! Skills: `SKILL.md` files whose YAML front matter has `name` and
//! `description`, found in the user's skills folder and, when the project is
//! trusted, in the project's skill folders (TRUST-5).
//!
//! ```markdown
//! ---
//! name: release-notes
//! description: Write release notes from the git log.
//! ---
//! Steps…
//! ```
//!
//! A file with missing or malformed front matter is skipped with a warning
//! naming it; one bad skill never stops the others.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How deep below a skills folder `SKILL.md` files are looked for.
pub const MAX_SKILL_DEPTH: usize = 4;

/// Largest `SKILL.md` read.
const MAX_SKILL_BYTES: usize = 256 * 1024;

/// Who a skill belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillSource {
    /// The user's own folder.
    User,
    /// A trusted project's folder.
    Project,
}

/// A discovered skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skill {
    /// `name` from the front matter.
    pub name: String,
    /// `description` from the front matter.
    pub description: String,
    /// The `SKILL.md` file.
    pub path: PathBuf,
    /// Whose it is.
    pub source: SkillSource,
}

#[derive(Deserialize)]
struct FrontMatter {
    name: String,
    description: String,
}

/// Parses the front matter of a `SKILL.md` text: `(name, description)`.
pub fn parse_front_matter(text: &str) -> Result<(String, String), String> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    match lines.next() {
        Some(first) if first.trim_end() == "---" => {}
        _ => return Err("does not start with a `---` front matter line".to_owned()),
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("front matter has no closing `---` line".to_owned());
    }
    let front: FrontMatter =
        serde_yaml_ng::from_str(&yaml).map_err(|e| format!("front matter: {e}"))?;
    let name = front.name.trim().to_owned();
    let description = front.description.trim().to_owned();
    if name.is_empty() || description.is_empty() {
        return Err("front matter `name` and `description` must not be empty".to_owned());
    }
    Ok((name, description))
}

/// Finds every `SKILL.md` under `root` (at most [`MAX_SKILL_DEPTH`] folders
/// deep; symlinked folders are not followed, so a loop cannot trap the walk).
pub fn discover_skills(root: &Path, source: SkillSource, warnings: &mut Vec<String>) -> Vec<Skill> {
    discover(root, source, None, warnings)
}

/// [`discover_skills`] for a trusted project's skills folder: a `SKILL.md`
/// whose real path (links followed, the folder's own included) leaves
/// `project`, or is one of its secret files, is skipped with a warning
/// naming it and TRUST-5 (`skills/x/SKILL.md -> ~/.ssh/id_rsa` is never
/// read); a skill's path is the resolved one, so a later read of its body
/// reads what was checked.
pub fn discover_project_skills(
    root: &Path,
    project: &Path,
    warnings: &mut Vec<String>,
) -> Vec<Skill> {
    discover(root, SkillSource::Project, Some(project), warnings)
}

fn discover(
    root: &Path,
    source: SkillSource,
    within: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Vec<Skill> {
    let mut skills = Vec::new();
    let mut files = Vec::new();
    collect(root, 0, &mut files);
    files.sort();
    for found in files {
        let path = match within {
            None => found,
            Some(project) => match crate::context::resolve_within(&found, project) {
                Ok(real) => real,
                Err(why) => {
                    warnings.push(format!(
                        "skill {} skipped: {why} (TRUST-5: a trusted project's skills come \
                         from the project)",
                        found.display()
                    ));
                    continue;
                }
            },
        };
        let parsed = crate::context::read_capped(&path, MAX_SKILL_BYTES)
            .and_then(|(text, _)| parse_front_matter(&text));
        match parsed {
            Ok((name, description)) => skills.push(Skill {
                name,
                description,
                path,
                source,
            }),
            Err(why) => warnings.push(format!("skill {} skipped: {why}", path.display())),
        }
    }
    skills
}

fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            if depth < MAX_SKILL_DEPTH {
                collect(&path, depth + 1, out);
            }
        } else if entry.file_name() == "SKILL.md" && path.is_file() {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn front_matter_is_read_and_bad_ones_are_reasons() {
        assert_eq!(
            parse_front_matter("---\nname: a\ndescription: \"does b: c\"\nlicense: MIT\n---\nbody")
                .unwrap(),
            ("a".to_owned(), "does b: c".to_owned())
        );
        assert!(parse_front_matter("---\r\nname: a\r\ndescription: d\r\n---\r\n").is_ok());
        for bad in [
            "name: a\ndescription: d\n",
            "---\nname: a\ndescription: d\n",
            "---\nname: a\n---\n",
            "---\nname: [a\ndescription: d\n---\n",
            "---\nname: ''\ndescription: d\n---\n",
        ] {
            assert!(parse_front_matter(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn discovery_walks_nested_folders_and_survives_loops() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::create_dir_all(root.join("a")).unwrap();
        fs::create_dir_all(root.join("group/b")).unwrap();
        fs::create_dir_all(root.join("bad")).unwrap();
        fs::write(
            root.join("a/SKILL.md"),
            "---\nname: a\ndescription: A\n---\n",
        )
        .unwrap();
        fs::write(
            root.join("group/b/SKILL.md"),
            "---\nname: b\ndescription: B\n---\n",
        )
        .unwrap();
        fs::write(root.join("bad/SKILL.md"), "no front matter").unwrap();
        std::os::unix::fs::symlink(root, root.join("a/loop")).unwrap();
        let mut warnings = Vec::new();
        let skills = discover_skills(root, SkillSource::User, &mut warnings);
        let names: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("bad/SKILL.md"));
    }
}
