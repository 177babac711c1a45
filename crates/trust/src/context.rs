//! Context files (TRUST-5): `AGENTS.override.md`, `AGENTS.md`, `CLAUDE.md`.
//! They load whatever the trust decision, unless context loading is off,
//! because they are text the model reads, not settings or code ploy runs
//! (and prompt injection from repository text is a limit ploy admits, not one
//! trust could close).
//!
//! Which files: in each directory from the repository root (the nearest
//! ancestor holding `.git`) down to the working directory — or only the
//! working directory when there is no repository — the first of
//! `AGENTS.override.md`, `AGENTS.md`, `CLAUDE.md` that exists (the override
//! replaces the ordinary file of its folder). Outer folders come first, so
//! nearer instructions come later and read as more specific.
//!
//! Where a file leads: a context file is read only when its real path (every
//! symbolic link on the way resolved, a link to a link and a linked parent
//! folder included) is inside the project — the outermost folder above — or
//! inside the user's own ploy config folder. `AGENTS.md -> ~/.ssh/id_rsa` or
//! `CLAUDE.md -> /etc/shadow` in a cloned repository would otherwise put a
//! file the repository's author cannot read into the system prompt, which
//! goes to the model; such a file is skipped with a warning naming it and
//! TRUST-5. The file read is the resolved path that was checked.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// File names looked for in each folder, first match wins.
pub const CONTEXT_FILE_NAMES: [&str; 3] = ["AGENTS.override.md", "AGENTS.md", "CLAUDE.md"];

/// Largest context file read; longer files are cut with a warning.
pub const MAX_CONTEXT_FILE_BYTES: usize = 256 * 1024;

/// A context file, read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its text (cut at [`MAX_CONTEXT_FILE_BYTES`] on a character boundary).
    pub text: String,
}

/// The folders context files are read from, outermost first.
pub fn context_dirs(canonical_cwd: &Path) -> Vec<PathBuf> {
    let repo_root = canonical_cwd
        .ancestors()
        .find(|dir| dir.join(".git").symlink_metadata().is_ok());
    let mut dirs: Vec<PathBuf> = match repo_root {
        Some(root) => canonical_cwd
            .ancestors()
            .take_while(|dir| dir.starts_with(root))
            .map(Path::to_path_buf)
            .collect(),
        None => vec![canonical_cwd.to_path_buf()],
    };
    dirs.reverse();
    dirs
}

/// Reads the context files for `canonical_cwd`. Unreadable files become
/// warnings, never errors: context is optional text. A name that is there
/// but is no regular file (a FIFO, a device, a link to either or to a
/// kernel file such as `/proc/kmsg`), or that leads out of the project and
/// out of `config_dir` (the user's ploy config folder, where a person may
/// keep shared instructions), is not read and not passed over for the next
/// name: the warning says why (TRUST-5, FAIL-1).
pub fn load_context_files(
    canonical_cwd: &Path,
    config_dir: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Vec<ContextFile> {
    let dirs = context_dirs(canonical_cwd);
    // The project: the repository root, or the working directory alone.
    let project = dirs
        .first()
        .cloned()
        .unwrap_or_else(|| canonical_cwd.to_path_buf());
    let config_dir = config_dir.and_then(|dir| dir.canonicalize().ok());
    let mut files = Vec::new();
    for dir in dirs {
        // The first name that is there and not a folder (a link counts as
        // what it points to: a dangling one is not there).
        let Some(path) = CONTEXT_FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|path| std::fs::metadata(path).is_ok_and(|meta| !meta.is_dir()))
        else {
            continue;
        };
        let real = match path.canonicalize() {
            Ok(real) => real,
            Err(err) => {
                warnings.push(format!(
                    "context file {} was not read: where it leads cannot be resolved: {err} (TRUST-5)",
                    path.display()
                ));
                continue;
            }
        };
        if let Some(why) = leads_elsewhere(&path, &real, &project, config_dir.as_deref()) {
            warnings.push(format!(
                "context file {} was not read: it leads to {}, {why} (TRUST-5: context files come from the project)",
                path.display(),
                real.display(),
            ));
            continue;
        }
        // The resolved path is what was checked, so it is what is read.
        match read_capped(&real, MAX_CONTEXT_FILE_BYTES) {
            Ok((text, cut)) => {
                if cut {
                    warnings.push(format!(
                        "context file {} is longer than {MAX_CONTEXT_FILE_BYTES} bytes; the rest was cut",
                        path.display()
                    ));
                }
                files.push(ContextFile { path, text });
            }
            Err(why) => warnings.push(format!(
                "context file {} was not read: {why}",
                path.display()
            )),
        }
    }
    files
}

/// The real path of `path`, a file a trusted project ships (`.ploy/SYSTEM.md`,
/// a skill's `SKILL.md`, a prompt), when it stays inside `project`; else
/// why not (TRUST-5, as for context files: a link out of the project,
/// `.ploy/SYSTEM.md -> ~/.ssh/id_rsa`, or to one of its secret files, is
/// not read). Trust lets a project's own files in, never the user's other
/// files through its links. The returned path is the one to read.
pub(crate) fn resolve_within(path: &Path, project: &Path) -> Result<PathBuf, String> {
    let real = path
        .canonicalize()
        .map_err(|err| format!("where it leads cannot be resolved: {err}"))?;
    match leads_elsewhere(path, &real, project, None) {
        Some(why) => Err(format!("it leads to {}, {why}", real.display())),
        None => Ok(real),
    }
}

/// The project a trusted resource belongs to: the repository root above
/// the folder holding its `.ploy` or `.agents` folder, or that folder when
/// there is no repository (the same project as the context files').
pub(crate) fn project_of_resource(resource: &Path) -> PathBuf {
    let owner = resource
        .parent()
        .and_then(Path::parent)
        .unwrap_or(resource)
        .to_path_buf();
    context_dirs(&owner).into_iter().next().unwrap_or(owner)
}

/// Why the context file `path`, whose real path is `real`, must not be
/// read, or `None` (module docs). Inside the project: any file but a
/// secret file reached through a link (`AGENTS.md -> .env`: its values
/// would reach the model without the question the built-in read rule asks,
/// PERM-2). Inside the config folder: only Markdown (instructions a person
/// keeps there), never `settings.json`, `trust.json` or anything else the
/// folder holds.
fn leads_elsewhere(
    path: &Path,
    real: &Path,
    project: &Path,
    config_dir: Option<&Path>,
) -> Option<String> {
    if let Ok(inside) = real.strip_prefix(project) {
        // Only a link can change the name (a plain AGENTS.md costs no
        // glob); the name is judged inside the project, not by the
        // folders the project itself lives in.
        if real != path && ploy_secrets::is_secret_file(&inside.to_string_lossy()) {
            return Some("a secret file (PERM-2: reading it asks)".to_owned());
        }
        return None;
    }
    let markdown = real
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("md"));
    if config_dir.is_some_and(|dir| real.starts_with(dir)) && markdown {
        return None;
    }
    Some(format!(
        "outside the project {} (and no Markdown file of the ploy config folder)",
        project.display()
    ))
}

/// Reads up to `cap` bytes of a UTF-8 (lossy) text file; returns whether it
/// was cut. Through `ploy_dirs::read_bounded_prefix`: a regular file only,
/// opened non-blocking and checked after the open, never a kernel file, so
/// a FIFO or `/proc/kmsg` named like an instruction file cannot hang the
/// agent's start (FAIL-1). `Err` says why, for a warning.
pub(crate) fn read_capped(path: &Path, cap: usize) -> Result<(String, bool), String> {
    let max = u64::try_from(cap).unwrap_or(u64::MAX);
    let bytes = match ploy_dirs::read_bounded_prefix(path, max) {
        Ok((ploy_dirs::FileRead::Bytes(bytes), cut)) => (bytes, cut),
        Ok((ploy_dirs::FileRead::Missing, _)) => return Err("it is not there".to_owned()),
        Ok((ploy_dirs::FileRead::Folder, _)) => return Err("it is a folder".to_owned()),
        Err(err) => return Err(format!("{err} (FAIL-1)")),
    };
    let (bytes, cut) = bytes;
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if cut {
        // A cut may split a character; drop the replacement it became.
        while text.ends_with('\u{FFFD}') {
            text.pop();
        }
    }
    Ok((text, cut))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    // proves: TRUST-5
    #[test]
    fn repo_root_to_cwd_with_override_first() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        fs::write(root.join("AGENTS.md"), "outside repo").unwrap();
        let repo = root.join("repo");
        let sub = repo.join("a/b");
        fs::create_dir_all(&sub).unwrap();
        fs::create_dir(repo.join(".git")).unwrap();
        fs::write(repo.join("AGENTS.md"), "repo").unwrap();
        fs::write(repo.join("CLAUDE.md"), "repo claude (shadowed)").unwrap();
        fs::write(repo.join("a/CLAUDE.md"), "a claude").unwrap();
        fs::write(sub.join("AGENTS.md"), "b agents (shadowed)").unwrap();
        fs::write(sub.join("AGENTS.override.md"), "b override").unwrap();
        let mut warnings = Vec::new();
        let texts: Vec<String> = load_context_files(&sub, None, &mut warnings)
            .into_iter()
            .map(|f| f.text)
            .collect();
        assert_eq!(texts, ["repo", "a claude", "b override"]);
        assert!(warnings.is_empty());
    }

    // proves: TRUST-5
    #[test]
    fn without_a_repo_only_cwd() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        fs::write(root.join("AGENTS.md"), "parent").unwrap();
        let cwd = root.join("p");
        fs::create_dir(&cwd).unwrap();
        fs::write(cwd.join("CLAUDE.md"), "here").unwrap();
        let files = load_context_files(&cwd, None, &mut Vec::new());
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].text, "here");
    }

    /// A FIFO at `path`, made by mkfifo(3) (a test starts no process:
    /// only ploy-proof does, PROOF-6).
    fn mkfifo(path: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(
            unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) },
            0,
            "mkfifo {}",
            path.display()
        );
    }

    // proves: FAIL-1, TRUST-5 (a FIFO nobody writes, a link to one, or a
    // link to a kernel file, named like a context file, is not read: no
    // hang at the agent's start, no kernel or process state in the
    // model's context, and a warning says why)
    #[test]
    fn fifos_and_kernel_files_named_like_context_files_are_refused_with_a_reason() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        fs::create_dir(root.join(".git")).unwrap();
        let (fifo_dir, link_dir, kernel_dir) =
            (root.join("a"), root.join("a/b"), root.join("a/b/c"));
        fs::create_dir_all(&kernel_dir).unwrap();
        mkfifo(&fifo_dir.join("AGENTS.md"));
        // The repository root's CLAUDE.md stays readable beside a FIFO.
        fs::write(root.join("CLAUDE.md"), "root").unwrap();
        fs::write(fifo_dir.join("CLAUDE.md"), "not taken instead").unwrap();
        std::os::unix::fs::symlink(fifo_dir.join("AGENTS.md"), link_dir.join("CLAUDE.md")).unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", kernel_dir.join("AGENTS.md")).unwrap();
        // Each read is refused at once: a direct call too (the old code
        // blocked here forever on the FIFO).
        for path in [fifo_dir.join("AGENTS.md"), link_dir.join("CLAUDE.md")] {
            let why = read_capped(&path, 64).unwrap_err();
            assert!(why.contains("FIFO"), "{why}");
        }
        let why = read_capped(&kernel_dir.join("AGENTS.md"), 64).unwrap_err();
        assert!(why.contains("proc"), "{why}");
        let mut warnings = Vec::new();
        let texts: Vec<String> = load_context_files(&kernel_dir, None, &mut warnings)
            .into_iter()
            .map(|f| f.text)
            .collect();
        assert_eq!(texts, ["root"]);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        for (warning, name) in
            warnings
                .iter()
                .zip(["a/AGENTS.md", "a/b/CLAUDE.md", "a/b/c/AGENTS.md"])
        {
            assert!(
                warning.contains(name) && warning.contains("not read"),
                "{warning}"
            );
        }
    }

    /// A repository in `root/repo` with a folder `a/b`, and a file
    /// outside it (`root/outside/secret`, standing for `~/.ssh/id_rsa`).
    fn repo_with_an_outside_file() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let repo = root.join("repo");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::create_dir_all(repo.join("a/b")).unwrap();
        fs::create_dir(root.join("outside")).unwrap();
        let secret = root.join("outside/secret");
        fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY----- outside").unwrap();
        (tmp, repo, secret)
    }

    fn texts_and_warnings(cwd: &Path, config: Option<&Path>) -> (Vec<String>, Vec<String>) {
        let mut warnings = Vec::new();
        let texts = load_context_files(cwd, config, &mut warnings)
            .into_iter()
            .map(|f| f.text)
            .collect();
        (texts, warnings)
    }

    // proves: TRUST-5 (a context file that is a link out of the
    // repository — direct, through a chain of links, or through a linked
    // parent folder — is not read into the system prompt; a warning names
    // the file and the rule, and no other name of its folder is taken
    // instead)
    #[test]
    fn context_files_leading_out_of_the_project_are_skipped_with_a_warning() {
        use std::os::unix::fs::symlink;
        let (_tmp, repo, secret) = repo_with_an_outside_file();
        let outside = secret.parent().unwrap().to_path_buf();
        fs::write(repo.join("CLAUDE.md"), "not taken instead").unwrap();
        // Direct: AGENTS.md -> ~/.ssh/id_rsa.
        symlink(&secret, repo.join("AGENTS.md")).unwrap();
        // A chain: a/CLAUDE.md -> a/hop (inside) -> ../../outside/secret.
        symlink("hop", repo.join("a/CLAUDE.md")).unwrap();
        symlink("../../outside/secret", repo.join("a/hop")).unwrap();
        // A linked parent folder: a/b/AGENTS.md -> docs/secret, docs -> outside.
        symlink(&outside, repo.join("a/b/docs")).unwrap();
        symlink("docs/secret", repo.join("a/b/AGENTS.md")).unwrap();
        let (texts, warnings) = texts_and_warnings(&repo.join("a/b"), None);
        assert!(texts.is_empty(), "{texts:?}");
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        for (warning, name) in
            warnings
                .iter()
                .zip(["repo/AGENTS.md", "repo/a/CLAUDE.md", "repo/a/b/AGENTS.md"])
        {
            assert!(
                warning.contains(name)
                    && warning.contains("TRUST-5")
                    && warning.contains("outside the project")
                    && !warning.contains("PRIVATE KEY"),
                "{warning}"
            );
        }
        // /etc/shadow-like absolute targets the same way, whatever exists.
        for target in ["/etc/passwd", "/etc/hostname"] {
            if Path::new(target).exists() {
                fs::remove_file(repo.join("AGENTS.md")).unwrap();
                symlink(target, repo.join("AGENTS.md")).unwrap();
                let (texts, warnings) = texts_and_warnings(&repo, None);
                assert!(texts.is_empty(), "{target}: {texts:?}");
                assert!(warnings[0].contains(target), "{warnings:?}");
            }
        }
    }

    // proves: TRUST-5 (links that stay inside the project still load, a
    // Markdown file of the user's ploy config folder too; a link to the
    // config folder's settings or to a secret file of the project does not)
    #[test]
    fn links_inside_the_project_or_to_the_config_folders_markdown_load() {
        use std::os::unix::fs::symlink;
        let (tmp, repo, _secret) = repo_with_an_outside_file();
        let config = tmp.path().canonicalize().unwrap().join("config");
        fs::create_dir(&config).unwrap();
        fs::write(config.join("AGENTS.md"), "shared instructions").unwrap();
        fs::write(config.join("settings.json"), "{\"secrets\": []}").unwrap();
        fs::create_dir(repo.join("docs")).unwrap();
        fs::write(repo.join("docs/agents.md"), "repo instructions").unwrap();
        symlink("docs/agents.md", repo.join("AGENTS.md")).unwrap();
        symlink(config.join("AGENTS.md"), repo.join("a/AGENTS.md")).unwrap();
        symlink(config.join("settings.json"), repo.join("a/b/AGENTS.md")).unwrap();
        let (texts, warnings) = texts_and_warnings(&repo.join("a/b"), Some(&config));
        assert_eq!(texts, ["repo instructions", "shared instructions"]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("a/b/AGENTS.md") && warnings[0].contains("TRUST-5"),
            "{warnings:?}"
        );
        // Without the config folder given, its Markdown is outside too.
        let (texts, _) = texts_and_warnings(&repo.join("a"), None);
        assert_eq!(texts, ["repo instructions"]);
        // A link to the project's own secret file: not read (PERM-2).
        fs::write(repo.join(".env"), "API_KEY=value-never-in-the-prompt").unwrap();
        fs::remove_file(repo.join("AGENTS.md")).unwrap();
        symlink(".env", repo.join("AGENTS.md")).unwrap();
        let (texts, warnings) = texts_and_warnings(&repo, None);
        assert!(texts.is_empty(), "{texts:?}");
        assert!(
            warnings[0].contains("secret file") && warnings[0].contains("TRUST-5"),
            "{warnings:?}"
        );
    }

    #[test]
    fn long_files_are_cut_on_a_character_boundary() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("AGENTS.md");
        fs::write(&path, "é".repeat(MAX_CONTEXT_FILE_BYTES)).unwrap();
        let (text, cut) = read_capped(&path, 5).unwrap();
        assert!(cut);
        assert_eq!(text, "éé");
    }
}
