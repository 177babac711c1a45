//! [`known_secrets`]: the one function that builds a run's [`SecretSet`]
//! (REDACT-1, BEYOND-6) from everything ploy may know: the environment, the
//! project's environment files, and what the user's settings add
//! (`secrets.env`, `secrets.files`). The agent, `ploy hook`, `ploy mcp`,
//! `ploy research` and `ploy fetch` all call it, so a value the redactor
//! removes from a tool's output is also a value the egress door refuses to
//! send.
//!
//! # The project's secret files
//!
//! Every file of the project whose name the secret-file rule names
//! ([`crate::secret_file_kind`]: `.env`, `.env.*`, `.envrc`, `*.env`, any
//! case, `.aws/credentials`, `.netrc`, `.pgpass`, private keys, ...), in the
//! project folder and in the folders below it (a bounded walk, see
//! `project_secret_files`: version control, build output and dependency
//! folders are skipped, at most [`MAX_WALK_ENTRIES`] entries, depth
//! [`MAX_WALK_DEPTH`]). An environment file is read as the environment it
//! becomes ([`SecretSet::add_env_file_text`]: secret-looking names and
//! credential-shaped values); a credential file by what it holds
//! ([`SecretSet::add_secret_file_text`]). A folder of one of these names
//! (`python -m venv .env`) or a link to nothing holds no value and is
//! passed over. Reading any of these files asks by default (ploy-policy's
//! built-in rules are the same name rule), so a file past the walk's
//! bounds is still not read without a person's answer.
//!
//! # The project's configuration files
//!
//! Credentials written into git's configuration (`.git/config`, a
//! worktree's, remote URLs with user info, `insteadOf` rewrites) and into
//! the package managers' files in the project folder (`.npmrc`,
//! `.yarnrc.yml`, `.pypirc`): see `config.rs` for what counts
//! (tui-rpc #8).
//!
//! # Failing closed
//!
//! A file that exists but cannot be read (permissions, an I/O error, larger
//! than [`MAX_SECRET_FILE_BYTES`]), or a project folder that cannot be
//! listed, is an error naming the file: ploy cannot know what it holds, so
//! the caller refuses to start rather than run as if it were empty. A file
//! that is not valid UTF-8 (an encrypted `.env.gpg`) is read as far as it is
//! text: its bytes are not printable secrets. A file named in
//! `secrets.files` that does not exist, or a variable named in
//! `secrets.env` that is not set, holds nothing to leak and is skipped
//! (`ploy config check` reports both); a value of such a file or variable
//! too short to redact ([`crate::MIN_SECRET_BYTES`]) is an error, since the
//! user asked for it by name.

use std::path::{Path, PathBuf};

use crate::files::SecretFileKind;
use crate::set::{SecretOrigin, SecretSet};

/// Largest secret file read (1 MiB): a larger `.env` is not a list of
/// variables, and reading it whole on every hook call would be slow.
pub const MAX_SECRET_FILE_BYTES: u64 = 1 << 20;

/// Most secret values taken from the project's files (4,096; a `.env` of
/// 60 KB holds about 1,100). Each value is searched in some 70 forms, so
/// beyond this the set is not a project's configuration but a way to make
/// every check slow (secrets5 #18): an error, as for an unreadable file.
pub const MAX_PROJECT_SECRET_VALUES: usize = 4096;

/// Where a run's secrets come from, besides the process environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretSources {
    /// The project folder, whose environment files are read (module docs).
    pub project: Option<PathBuf>,
    /// More variables whose values are secret (settings `secrets.env`).
    pub env: Vec<String>,
    /// More secret files (settings `secrets.files`): every value counts.
    /// A relative path is taken from the project folder; `~/` is the home
    /// folder.
    pub files: Vec<String>,
    /// The home folder, for `~/` in [`SecretSources::files`].
    pub home: Option<PathBuf>,
}

impl SecretSources {
    /// The sources of a run in `project` with the settings' `secrets`
    /// lists (`env`, `files`) and the `HOME` of this process.
    pub fn new(project: Option<&Path>, env: &[String], files: &[String]) -> SecretSources {
        SecretSources {
            project: project.map(Path::to_path_buf),
            env: env.to_vec(),
            files: files.to_vec(),
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }

    /// Where the secret file `named` (as written in settings) is: `~/…`
    /// under the home folder, a relative path under the project, else as
    /// written. `None` when it needs a folder that is not known.
    pub fn resolve_file(&self, named: &str) -> Option<PathBuf> {
        if let Some(rest) = named.strip_prefix("~/") {
            return self.home.as_ref().map(|home| home.join(rest));
        }
        let path = Path::new(named);
        if path.is_absolute() {
            return Some(path.to_path_buf());
        }
        self.project.as_ref().map(|project| project.join(path))
    }
}

/// A secret source that exists but cannot be used: the caller refuses to
/// run (REDACT-1, BEYOND-6: fail closed). Names the file or variable, never
/// a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KnownSecretsError {
    /// A secret file (or the project folder) cannot be read.
    #[error(
        "REDACT-1: cannot read {path} ({reason}); it may hold secrets ploy must keep out of \
         outputs and requests, so nothing runs until it can be read (fix its permissions, \
         or move it out of the project)"
    )]
    Unreadable {
        /// The file or folder.
        path: String,
        /// What the system said.
        reason: String,
    },
    /// A variable named in `secrets.env` holds bytes that are not UTF-8.
    #[error(
        "REDACT-1: the secret variable {0} (settings secrets.env) is not valid UTF-8 and cannot \
         be redacted"
    )]
    NotUtf8(String),
    /// A value the user named is too short to redact.
    #[error(
        "REDACT-1: {0}; a secret named in settings `secrets` must be at least 8 bytes (shorter \
         values cannot be redacted without hitting ordinary words)"
    )]
    TooShort(String),
}

/// Whether `name` is one of the project's environment files: a secret
/// file of kind [`SecretFileKind::Env`] ([`crate::secret_file_kind`]; `.env`,
/// `.env.*`/`.env-*` except the templates, `.envrc`, `*.env`, any case).
pub fn is_project_env_file(name: &str) -> bool {
    crate::secret_file_kind(name) == Some(SecretFileKind::Env)
}

/// Folders the secret-file walk does not enter: version control data (git's
/// configuration is read on its own), build output and installed
/// dependencies, which hold other people's files and many entries.
pub const WALK_SKIPPED_FOLDERS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".jj",
    "target",
    "node_modules",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".gradle",
    ".next",
    ".nuxt",
    "vendor",
];

/// How many folder entries the secret-file walk looks at; past it the walk
/// stops (folders nearer the top are listed first). Files not reached are
/// not known secrets, but reading them still asks (the name rule).
pub const MAX_WALK_ENTRIES: usize = 50_000;

/// How deep the secret-file walk goes below the project folder.
pub const MAX_WALK_DEPTH: usize = 16;

/// How many secret files one project may hold; more is an error (fail
/// closed: ploy would not know them all).
pub const MAX_SECRET_FILES: usize = 256;

/// How many bytes all of a project's secret files may hold together; more
/// is an error (fail closed).
pub const MAX_SECRET_FILES_BYTES: u64 = 8 << 20;

/// The run's secrets: this process's environment ([`SecretSet::from_process_env`]),
/// the project's environment files, the variables and files the settings
/// name (module docs). Errors name what could not be read.
pub fn known_secrets(sources: &SecretSources) -> Result<SecretSet, KnownSecretsError> {
    let mut set = SecretSet::from_process_env();
    set.extend(sources_secrets(
        sources,
        &|name| std::env::var_os(name),
        &|path| path.exists(),
    )?);
    Ok(set)
}

/// [`known_secrets`] without the process environment; `lookup` answers a
/// variable, `path_exists` whether a path exists (for `PWD`-like names in
/// environment files).
pub fn sources_secrets(
    sources: &SecretSources,
    lookup: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    path_exists: &dyn Fn(&Path) -> bool,
) -> Result<SecretSet, KnownSecretsError> {
    let mut set = SecretSet::new();
    if let Some(start) = &sources.project {
        let project = &secrets_root(start, sources.home.as_deref());
        let mut total = 0u64;
        for (path, kind) in project_secret_files(project)? {
            if let Some(text) = read_secret_file(&path)? {
                total += text.len() as u64;
                if total > MAX_SECRET_FILES_BYTES {
                    return Err(KnownSecretsError::Unreadable {
                        path: project.display().to_string(),
                        reason: format!(
                            "its secret files hold more than {MAX_SECRET_FILES_BYTES} bytes together"
                        ),
                    });
                }
                set.add_secret_file_text(&path.display().to_string(), &text, kind, path_exists);
            }
        }
        for path in git_config_files(start, project)? {
            if let Some(text) = read_secret_file(&path)? {
                set.add_config_text(&path.display().to_string(), &text);
            }
        }
        if set.len() > MAX_PROJECT_SECRET_VALUES {
            return Err(KnownSecretsError::Unreadable {
                path: project.display().to_string(),
                reason: format!(
                    "its secret files hold {} secret values, more than the \
                     {MAX_PROJECT_SECRET_VALUES} ploy checks every request against",
                    set.len()
                ),
            });
        }
    }
    let mut named = SecretSet::new();
    for name in &sources.env {
        let Some(value) = lookup(name) else { continue };
        let value = value
            .into_string()
            .map_err(|_| KnownSecretsError::NotUtf8(name.clone()))?;
        named.insert(value, SecretOrigin::DeclaredEnv { name: name.clone() });
    }
    for file in &sources.files {
        let Some(path) = sources.resolve_file(file) else {
            continue;
        };
        if let Some(text) = read_secret_file(&path)? {
            named.add_file_text(file, &text);
        }
    }
    if let Some(unusable) = named.unusable().first() {
        return Err(KnownSecretsError::TooShort(unusable.to_string()));
    }
    set.extend(named);
    Ok(set)
}

/// The project's secret files ([`crate::secret_file_kind`]) in the
/// project folder and the folders below it, each with its kind, nearer the
/// top first and sorted by name within a folder. Folders are walked, never
/// followed through a symbolic link, not past [`MAX_WALK_DEPTH`], skipping
/// [`WALK_SKIPPED_FOLDERS`] and Python virtual environments (a folder with
/// `pyvenv.cfg`, often named `.env`); at most [`MAX_WALK_ENTRIES`] entries
/// are looked at. A symbolic link with a secret file's name is listed (its
/// reader follows it, checking what it finds). The project folder must be
/// listable (an error otherwise); a folder below it that cannot be opened is
/// passed over (a program of the same user cannot read it either).
fn project_secret_files(
    project: &Path,
) -> Result<Vec<(PathBuf, SecretFileKind)>, KnownSecretsError> {
    let unreadable = |path: &Path, err: std::io::Error| KnownSecretsError::Unreadable {
        path: path.display().to_string(),
        reason: err.to_string(),
    };
    let mut found = Vec::new();
    let mut pending = std::collections::VecDeque::from([(project.to_path_buf(), String::new(), 0)]);
    let mut seen = 0usize;
    while let Some((folder, relative, depth)) = pending.pop_front() {
        let entries = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(err) if depth == 0 => return Err(unreadable(&folder, err)),
            Err(_) => continue,
        };
        let mut listed = Vec::new();
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) if depth == 0 => return Err(unreadable(&folder, err)),
                Err(_) => break,
            };
            seen += 1;
            if seen > MAX_WALK_ENTRIES {
                break;
            }
            listed.push(entry);
        }
        listed.sort_by_key(std::fs::DirEntry::file_name);
        for entry in listed {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let location = if relative.is_empty() {
                name.to_owned()
            } else {
                format!("{relative}/{name}")
            };
            // The entry itself, never what a link points to.
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                let path = entry.path();
                if depth < MAX_WALK_DEPTH
                    && !WALK_SKIPPED_FOLDERS.contains(&name)
                    && !path.join("pyvenv.cfg").exists()
                {
                    pending.push_back((path, location, depth + 1));
                }
                continue;
            }
            if let Some(kind) = crate::secret_file_kind(&location) {
                if found.len() >= MAX_SECRET_FILES {
                    return Err(KnownSecretsError::Unreadable {
                        path: project.display().to_string(),
                        reason: format!("it holds more than {MAX_SECRET_FILES} secret files"),
                    });
                }
                found.push((entry.path(), kind));
            }
        }
        if seen > MAX_WALK_ENTRIES {
            break;
        }
    }
    Ok(found)
}

/// The folder whose secret files a run started in `start` knows (round7
/// #2): the outermost git work tree holding `start` — a folder with a
/// `.git` entry (a repository's folder, a submodule's or a worktree's
/// `.git` file) — looking up from `start`, never at or above the home
/// folder nor at `/`; `start` itself when no folder above holds `.git`.
/// So a run started in `backend/`, in a submodule or in a vendored
/// repository still knows the root's `.env`.
pub fn secrets_root(start: &Path, home: Option<&Path>) -> PathBuf {
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let home = home.map(|home| std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf()));
    let mut root = start.clone();
    for folder in start.ancestors() {
        if folder.parent().is_none() || home.as_deref() == Some(folder) {
            break;
        }
        if folder.join(".git").symlink_metadata().is_ok() {
            root = folder.to_path_buf();
        }
    }
    root
}

/// Git's configuration files of every work tree from `start` up to `root`
/// ([`secrets_root`]): a nested repository's remote may hold its own token.
fn git_config_files(start: &Path, root: &Path) -> Result<Vec<PathBuf>, KnownSecretsError> {
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let mut files = Vec::new();
    for folder in start.ancestors() {
        files.extend(project_config_files(folder)?);
        if folder == root || !folder.starts_with(root) {
            break;
        }
    }
    if !start.starts_with(root) {
        files.extend(project_config_files(root)?);
    }
    Ok(files)
}

/// The project's configuration files that may hold credentials
/// (`config.rs`): git's `config` and `config.worktree` (through `.git`, a
/// folder or a worktree's `gitdir:` file, and its `commondir`)
/// (the package managers' files are secret files, found by the walk).
/// Paths that do not exist are listed too (the
/// reader passes over them); a `.git` file that cannot be read is an error.
fn project_config_files(project: &Path) -> Result<Vec<PathBuf>, KnownSecretsError> {
    let mut files: Vec<PathBuf> = Vec::new();
    let dot_git = project.join(".git");
    let git_dirs = match std::fs::symlink_metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => vec![dot_git],
        Ok(meta) if meta.is_file() => {
            let text = read_secret_file(&dot_git)?.unwrap_or_default();
            match text.trim().strip_prefix("gitdir:") {
                Some(gitdir) => {
                    let gitdir = project.join(gitdir.trim());
                    let common = std::fs::read_to_string(gitdir.join("commondir"))
                        .ok()
                        .map(|common| gitdir.join(common.trim()));
                    std::iter::once(gitdir).chain(common).collect()
                }
                None => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    for dir in git_dirs {
        for name in ["config", "config.worktree"] {
            files.push(dir.join(name));
        }
    }
    Ok(files)
}

/// A secret file's text: `None` when there is nothing there (no such
/// file, a link to nothing, a folder), an error when something is there
/// that cannot be read (module docs).
fn read_secret_file(path: &Path) -> Result<Option<String>, KnownSecretsError> {
    // Opened non-blocking and checked after the open: a FIFO or a device
    // (or a link to one, or a file swapped for one) never blocks or feeds
    // the reader without end (secrets5 #18).
    match ploy_dirs::read_bounded(path, MAX_SECRET_FILE_BYTES) {
        Ok(ploy_dirs::FileRead::Bytes(bytes)) => {
            Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
        }
        Ok(ploy_dirs::FileRead::Missing | ploy_dirs::FileRead::Folder) => Ok(None),
        Err(err) => Err(KnownSecretsError::Unreadable {
            path: path.display().to_string(),
            reason: err.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// tui-rpc #8's remote, as `git clone https://user:token@…` stores it.
    const REMOTE_TOKEN: &str = "ghp_R3alT0kenValue1234567890abcdefABCD";

    // proves: REDACT-1 (tui-rpc #8: a token in the project's git remote URL, in a
    // worktree's common config too, is a known secret and is redacted)
    #[test]
    fn git_remote_credentials_are_known_secrets() {
        let config = format!(
            "[remote \"origin\"]\n\turl = https://alice:{REMOTE_TOKEN}@github.com/alice/repo.git\n"
        );
        let dir = project(&[]);
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join(".git/config"), &config).unwrap();
        std::fs::write(
            dir.join(".npmrc"),
            "//r.example/:_authToken=Zm9vYmFyYmF6cXV4\n",
        )
        .unwrap();
        let set = sources_secrets(&sources(&dir), &|_| None, &|_| false).unwrap();
        let values: Vec<&str> = set.values().collect();
        assert!(values.contains(&REMOTE_TOKEN), "{set:?}");
        assert!(values.contains(&"Zm9vYmFyYmF6cXV4"), "{set:?}");
        let shown =
            format!("url = https://alice:{REMOTE_TOKEN}@github.com/ and ?d=alice:{REMOTE_TOKEN}");
        let out = set.redactor().redact(&shown).into_owned();
        assert!(!out.contains("R3alT0ken"), "{out}");

        // A worktree: `.git` is a `gitdir:` file; the remote is in the common config.
        let main = project(&[]);
        std::fs::create_dir_all(main.join(".git/worktrees/wt")).unwrap();
        std::fs::write(main.join(".git/config"), &config).unwrap();
        std::fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        let worktree = project(&[]);
        std::fs::write(
            worktree.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()),
        )
        .unwrap();
        let set = sources_secrets(&sources(&worktree), &|_| None, &|_| false).unwrap();
        assert!(set.values().any(|v| v == REMOTE_TOKEN), "{set:?}");

        // No git, no package files: nothing, and no error.
        let plain = project(&[]);
        assert!(
            sources_secrets(&sources(&plain), &|_| None, &|_| false)
                .unwrap()
                .is_empty()
        );
    }

    fn project(files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "ploy-known-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        dir
    }

    fn sources(project: &Path) -> SecretSources {
        SecretSources {
            project: Some(project.to_path_buf()),
            ..SecretSources::default()
        }
    }

    fn none(_: &str) -> Option<std::ffi::OsString> {
        None
    }

    // proves: REDACT-1, BEYOND-6 (agent #2: a project's .env values are known secrets)
    #[test]
    fn project_env_files_give_secret_values_and_skip_configuration() {
        let dir = project(&[
            (
                ".env",
                "DB_PASSWORD=Hunter2Hunter2Zebra\nSTRIPE=sk_live_51HxAbCdEfGhIjKlMn\nNODE_ENV=production\nAPP_NAME=myproject\n",
            ),
            (".env.local", "export API_TOKEN='tok-local-0123456789'\n"),
            (
                ".envrc",
                "layout python\nexport GH_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a\n",
            ),
            (".env.example", "DB_PASSWORD=example-placeholder-1\n"),
            ("notes.env", "SECRET=now-a-project-env-file\n"),
            ("notes.txt", "SECRET=not-a-secret-file-name\n"),
        ]);
        let set = sources_secrets(&sources(&dir), &none, &|_| false).unwrap();
        let mut values: Vec<&str> = set.values().collect();
        values.sort();
        assert_eq!(
            values,
            [
                "Hunter2Hunter2Zebra",
                "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                "now-a-project-env-file",
                "sk_live_51HxAbCdEfGhIjKlMn",
                "tok-local-0123456789",
            ]
        );
        let origins: Vec<String> = set.origins().map(ToString::to_string).collect();
        assert!(
            origins.iter().any(|o| o.ends_with("/.env line 1")),
            "{origins:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // proves: REDACT-1, BEYOND-6 (secrets5 #1: env files in sub-folders, any
    // case and name shape, are known secrets; dependency and VCS folders
    // are not walked; #10: credential files copied into the project)
    #[test]
    fn secret_files_anywhere_in_the_project_are_known() {
        let dir = project(&[]);
        let write = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "backend/.envrc",
            "export AWS_SECRET_ACCESS_KEY=EnvrcSecr3tKeyValue88\n",
        );
        write("backend/.ENV", "X_PASSWORD=UpperEnvPassw0rd66\n");
        write("backend/.env-prod", "DB_PASSWORD=DashEnvPassw0rd55\n");
        write("backend/prod.env", "API_TOKEN=SuffixEnvTok3n44\n");
        write("config/.env.local", "SECRET_KEY=NestedLocalS3cret33\n");
        write(
            "deep/a/b/c/.env",
            "STRIPE=sk_live_51HxAbCdEfGhIjKlMn\nNODE_ENV=production\n",
        );
        write(
            ".aws/credentials",
            "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
        );
        write(
            ".netrc",
            "machine db.internal login alice password Plain.Passw0rd-Netrc77\n",
        );
        write(".pgpass", "db.internal:5432:app:alice:PgpassPlainPw2024x\n");
        write("node_modules/pkg/.env", "TOKEN=DependencyTok3nValue\n");
        write(".git/.env", "TOKEN=GitFolderTok3nValue\n");
        write("venvish/pyvenv.cfg", "home = /usr/bin\n");
        write("venvish/.env", "TOKEN=VenvFolderTok3nValue\n");
        write("src/main.rs", "fn main() {}\n");
        // A link to a folder is not followed (no loops, nothing outside).
        let outside = project(&[(".env", "TOKEN=OutsideTok3nValue9\n")]);
        std::os::unix::fs::symlink(&outside, dir.join("linked")).unwrap();
        std::os::unix::fs::symlink(&dir, dir.join("config/loop")).unwrap();

        let set = sources_secrets(&sources(&dir), &none, &|_| false).unwrap();
        let values: Vec<&str> = set.values().collect();
        for expected in [
            "EnvrcSecr3tKeyValue88",
            "UpperEnvPassw0rd66",
            "DashEnvPassw0rd55",
            "SuffixEnvTok3n44",
            "NestedLocalS3cret33",
            "sk_live_51HxAbCdEfGhIjKlMn",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "Plain.Passw0rd-Netrc77",
            "PgpassPlainPw2024x",
        ] {
            assert!(values.contains(&expected), "{expected}: {set:?}");
        }
        for skipped in [
            "DependencyTok3nValue",
            "GitFolderTok3nValue",
            "VenvFolderTok3nValue",
            "OutsideTok3nValue9",
            "production",
        ] {
            assert!(!values.contains(&skipped), "{skipped}: {set:?}");
        }
        let out = set
            .redactor()
            .redact("GET /c?k=EnvrcSecr3tKeyValue88&u=UpperEnvPassw0rd66")
            .into_owned();
        assert!(
            !out.contains("Secr3t") && !out.contains("Passw0rd"),
            "{out}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_dir_all(&outside).unwrap();
    }

    // proves: REDACT-1 (secrets5 #1: a FIFO named like an env file in a
    // sub-folder fails closed at once, it does not hang the walk)
    #[test]
    fn a_fifo_in_a_sub_folder_fails_closed_without_hanging() {
        let dir = project(&[]);
        std::fs::create_dir_all(dir.join("svc")).unwrap();
        let fifo = dir.join("svc/.envrc");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let err = sources_secrets(&sources(&dir), &none, &|_| false).unwrap_err();
        assert!(err.to_string().contains("svc/.envrc"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // proves: REDACT-1 (the walk's bounds: too many secret files fail closed)
    #[test]
    fn too_many_secret_files_fail_closed() {
        let dir = project(&[]);
        for i in 0..=MAX_SECRET_FILES {
            std::fs::write(dir.join(format!("f{i}.env")), "A=b\n").unwrap();
        }
        let err = sources_secrets(&sources(&dir), &none, &|_| false).unwrap_err();
        assert!(err.to_string().contains("secret files"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // proves: REDACT-1 (a folder named .env, a dangling link: nothing to read)
    #[test]
    fn folders_and_dangling_links_are_passed_over() {
        let dir = project(&[]);
        std::fs::create_dir(dir.join(".env")).unwrap();
        std::os::unix::fs::symlink(dir.join("gone"), dir.join(".env.prod")).unwrap();
        let set = sources_secrets(&sources(&dir), &none, &|_| false).unwrap();
        assert!(set.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // proves: REDACT-1, BEYOND-6 (fail closed: an unreadable .env stops the run)
    #[test]
    #[allow(clippy::disallowed_methods)] // the fixture's FIFO is made by mkfifo(1)
    fn an_unreadable_env_file_is_an_error_naming_it() {
        let dir = project(&[(".env", "DB_PASSWORD=Hunter2Hunter2Zebra\n")]);
        let file = dir.join(".env");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
        let result = sources_secrets(&sources(&dir), &none, &|_| false);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        // root reads any file; the rule is then shown by the FIFO below.
        if let Err(err) = result {
            let text = err.to_string();
            assert!(text.contains("REDACT-1") && text.contains(".env"), "{text}");
            assert!(!text.contains("Hunter2"), "{text}");
        }
        std::fs::remove_file(&file).unwrap();
        let c_path = std::ffi::CString::new(file.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        let made = unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) };
        assert_eq!(made, 0, "mkfifo {}", file.display());
        let err = sources_secrets(&sources(&dir), &none, &|_| false).unwrap_err();
        assert!(
            matches!(&err, KnownSecretsError::Unreadable { path, .. } if path.ends_with("/.env")),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // proves: REDACT-1 (settings secrets.env / secrets.files: every value counts)
    #[test]
    fn settings_name_variables_and_files() {
        let dir = project(&[(
            "deploy.txt",
            "NODE_ENV=production-east\nplain-line-secret-42\n",
        )]);
        let lookup = |name: &str| (name == "DEPLOY_X").then(|| "value-of-deploy-x".into());
        let mut src = sources(&dir);
        src.env = vec!["DEPLOY_X".into(), "NOT_SET_HERE".into()];
        src.files = vec!["deploy.txt".into(), "missing.txt".into()];
        let set = sources_secrets(&src, &lookup, &|_| false).unwrap();
        let values: Vec<&str> = set.values().collect();
        assert_eq!(
            values,
            [
                "value-of-deploy-x",
                "production-east",
                "plain-line-secret-42"
            ]
        );
        // A value named by the user that is too short: an error, not a gap.
        std::fs::write(dir.join("deploy.txt"), "short\n").unwrap();
        let err = sources_secrets(&src, &lookup, &|_| false).unwrap_err();
        assert!(matches!(err, KnownSecretsError::TooShort(_)), "{err}");
        assert!(!err.to_string().contains("short\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // proves: REDACT-1, BEYOND-6 (round7 #2: a run started below the
    // repository's root — a plain sub-folder, a nested repository, a
    // submodule — knows the root's `.env`; the home folder is never walked)
    #[test]
    fn a_run_below_the_root_knows_the_enclosing_repositorys_secrets() {
        const ROOT: &str = "Zq8vK2mP9xL4nR7tW3yB";
        let repo = project(&[(".env", &format!("DB_PASSWORD={ROOT}\n"))]);
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("plain")).unwrap();
        std::fs::create_dir_all(repo.join("sub1/.git")).unwrap();
        std::fs::create_dir_all(repo.join("sub2/deeper")).unwrap();
        std::fs::write(repo.join("sub2/.git"), "gitdir: ../.git/modules/sub2\n").unwrap();
        std::fs::write(repo.join("sub1/.env"), "SUB_TOKEN=NestedRepoTok3n-44\n").unwrap();
        for start in ["", "plain", "sub1", "sub2", "sub2/deeper"] {
            let set = sources_secrets(&sources(&repo.join(start)), &none, &|_| false).unwrap();
            assert!(set.values().any(|v| v == ROOT), "{start}: {set:?}");
            assert!(
                set.values().any(|v| v == "NestedRepoTok3n-44"),
                "{start}: {set:?}"
            );
        }
        // The home folder is never the root, even when it is a repository
        // (dotfiles): a run in a folder of it walks that folder only.
        let mut src = sources(&repo.join("plain"));
        src.home = Some(repo.clone());
        std::fs::write(repo.join("plain/.env"), "PLAIN_TOKEN=PlainFolderTok3n-55\n").unwrap();
        let set = sources_secrets(&src, &none, &|_| false).unwrap();
        assert!(set.values().any(|v| v == "PlainFolderTok3n-55"), "{set:?}");
        assert!(!set.values().any(|v| v == ROOT), "{set:?}");
        assert_eq!(
            secrets_root(&repo.join("sub2/deeper"), None),
            std::fs::canonicalize(&repo).unwrap()
        );
        std::fs::remove_dir_all(&repo).unwrap();
    }

    #[test]
    fn file_names_resolve_from_project_and_home() {
        let src = SecretSources {
            project: Some("/p".into()),
            home: Some("/h".into()),
            ..SecretSources::default()
        };
        assert_eq!(src.resolve_file("a/b"), Some(PathBuf::from("/p/a/b")));
        assert_eq!(src.resolve_file("~/x"), Some(PathBuf::from("/h/x")));
        assert_eq!(src.resolve_file("/abs"), Some(PathBuf::from("/abs")));
        assert!(is_project_env_file(".env.production"));
        assert!(!is_project_env_file(".env.example"));
        assert!(!is_project_env_file("env"));
    }
}
