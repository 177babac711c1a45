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
/// kernel file such as `/proc/kmsg`) is not read and not passed over for
/// the next name: the warning says why (TRUST-5, FAIL-1).
pub fn load_context_files(canonical_cwd: &Path, warnings: &mut Vec<String>) -> Vec<ContextFile> {
    let mut files = Vec::new();
    for dir in context_dirs(canonical_cwd) {
        // The first name that is there and not a folder (a link counts as
        // what it points to: a dangling one is not there).
        let Some(path) = CONTEXT_FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|path| std::fs::metadata(path).is_ok_and(|meta| !meta.is_dir()))
        else {
            continue;
        };
        match read_capped(&path, MAX_CONTEXT_FILE_BYTES) {
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
        let texts: Vec<String> = load_context_files(&sub, &mut warnings)
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
        let files = load_context_files(&cwd, &mut Vec::new());
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
        let texts: Vec<String> = load_context_files(&kernel_dir, &mut warnings)
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
