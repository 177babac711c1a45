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
//! # The project's settings files (round8 #12)
//!
//! The walk also finds [`crate::CREDENTIAL_CONFIG_FILES`] (Spring's
//! `application*.properties`/`.yml`, Rails' `database.yml`, Docker
//! Compose files): their reads do not ask, but the values of their
//! secret-named entries are known secrets (`extract.rs`,
//! `config_file_values`).
//!
//! # The user's credential stores (round8 #4)
//!
//! With a home folder ([`SecretSources::home`]), the stores command-line
//! tools keep logins in ([`HOME_CREDENTIAL_FILES`]: `~/.aws/credentials`,
//! gh's `hosts.yml`, `~/.npmrc`, `~/.git-credentials`,
//! `~/.docker/config.json`, `~/.netrc`, ...; the AWS caches
//! [`HOME_CREDENTIAL_CACHES`]; and where [`HOME_STORE_VARIABLES`] move
//! them) are read as the secret files their names make them. A program of
//! the run can read them as well as ploy can (same user), so their values
//! must be known to the redactor and the door.
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
//! (`ploy config check` reports both); a home credential store this user
//! may not read is passed over (no program of the user can read it
//! either: `sudo docker login` leaves a `config.json` owned by root), one
//! that is a FIFO, a device or too large is an error; a value of such a file or variable
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
        for (path, used) in project_secret_files(project)? {
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
                let label = path.display().to_string();
                match used {
                    FileUse::Secret(kind) => {
                        set.add_secret_file_text(&label, &text, kind, path_exists);
                    }
                    FileUse::Config => set.add_credential_config_text(&label, &text),
                }
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
    if let Some(home) = &sources.home {
        set.extend(home_store_secrets(home, lookup, path_exists)?);
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

/// How a file the walk found is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileUse {
    /// A secret file, by its kind ([`crate::secret_file_kind`]).
    Secret(SecretFileKind),
    /// A project configuration file ([`crate::is_credential_config_file`]).
    Config,
}

/// The user's credential stores, relative to the home folder (round8 #4):
/// where command-line tools keep their logins. Each is also a secret file
/// by name ([`crate::secret_file_kind`] gives how it is read), and each
/// may be moved by a variable ([`HOME_STORE_VARIABLES`]).
pub const HOME_CREDENTIAL_FILES: &[&str] = &[
    ".aws/credentials",
    ".aws/config",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".config/glab-cli/config.yml",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".config/pip/pip.conf",
    ".gem/credentials",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".git-credentials",
    ".config/git/credentials",
    ".docker/config.json",
    ".netrc",
    ".pgpass",
    ".my.cnf",
    ".smbcredentials",
    ".config/rclone/rclone.conf",
    ".s3cfg",
    ".kube/config",
    ".vault-token",
    ".config/gcloud/application_default_credentials.json",
    ".cache/huggingface/token",
    ".terraform.d/credentials.tfrc.json",
];

/// Folders of the home folder whose `*.json` files are credential caches
/// (AWS single sign-on and CLI sessions), at most [`MAX_HOME_CACHE_FILES`]
/// of each.
pub const HOME_CREDENTIAL_CACHES: &[&str] = &[".aws/sso/cache", ".aws/cli/cache"];

/// Most files read from one of [`HOME_CREDENTIAL_CACHES`] (the newest
/// logins are not told apart from the oldest: a folder of more is an
/// error, as too many project secret files are).
pub const MAX_HOME_CACHE_FILES: usize = 64;

/// Variables that move a credential store, with the store they move (one of
/// [`HOME_CREDENTIAL_FILES`]) and the file's name inside the folder they
/// name (empty: the variable names the file). A moved store is read there
/// as well as at its usual place.
pub const HOME_STORE_VARIABLES: &[(&str, &str, &str)] = &[
    ("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials", ""),
    ("AWS_CONFIG_FILE", ".aws/config", ""),
    ("GH_CONFIG_DIR", ".config/gh/hosts.yml", "hosts.yml"),
    ("XDG_CONFIG_HOME", ".config/gh/hosts.yml", "gh/hosts.yml"),
    (
        "XDG_CONFIG_HOME",
        ".config/git/credentials",
        "git/credentials",
    ),
    (
        "XDG_CONFIG_HOME",
        ".config/rclone/rclone.conf",
        "rclone/rclone.conf",
    ),
    ("NPM_CONFIG_USERCONFIG", ".npmrc", ""),
    ("DOCKER_CONFIG", ".docker/config.json", "config.json"),
    ("NETRC", ".netrc", ""),
    ("PGPASSFILE", ".pgpass", ""),
    ("CARGO_HOME", ".cargo/credentials.toml", "credentials.toml"),
    ("CARGO_HOME", ".cargo/credentials", "credentials"),
    ("GEM_HOST_API_KEY_FILE", ".gem/credentials", ""),
    ("KUBECONFIG", ".kube/config", ""),
    ("RCLONE_CONFIG", ".config/rclone/rclone.conf", ""),
    ("HF_TOKEN_PATH", ".cache/huggingface/token", ""),
];

/// The secrets of the user's credential stores under `home` (round8 #4):
/// [`HOME_CREDENTIAL_FILES`] (and where [`HOME_STORE_VARIABLES`], answered
/// by `lookup`, move them), the `*.json` of [`HOME_CREDENTIAL_CACHES`],
/// each read as the secret file its name makes it. Read as the project's
/// secret files are (bounded, regular files only: a FIFO, a device or a
/// file over [`MAX_SECRET_FILE_BYTES`] is an error),
/// except that a store this user may not read is passed over: no program
/// of this user can read it either (`sudo docker login` leaves a
/// `config.json` owned by root), so it holds nothing a run could leak.
fn home_store_secrets(
    home: &Path,
    lookup: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    path_exists: &dyn Fn(&Path) -> bool,
) -> Result<SecretSet, KnownSecretsError> {
    let mut files: Vec<(PathBuf, SecretFileKind)> = Vec::new();
    let kind_of = |store: &str| crate::secret_file_kind(store).unwrap_or(SecretFileKind::KeyValue);
    for store in HOME_CREDENTIAL_FILES {
        files.push((home.join(store), kind_of(store)));
    }
    for (variable, store, inside) in HOME_STORE_VARIABLES {
        // Only an absolute path: a relative one depends on where a tool
        // runs, and is read from the project by the walk anyway.
        let Some(moved) = lookup(variable).map(PathBuf::from) else {
            continue;
        };
        // `KUBECONFIG` may list several files.
        for path in std::env::split_paths(&moved) {
            let path = if inside.is_empty() {
                path
            } else {
                path.join(inside)
            };
            if path.is_absolute() && !files.iter().any(|(known, _)| *known == path) {
                files.push((path, kind_of(store)));
            }
        }
    }
    for cache in HOME_CREDENTIAL_CACHES {
        let folder = home.join(cache);
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut listed: Vec<PathBuf> = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|ext| ext == "json") {
                if listed.len() >= MAX_HOME_CACHE_FILES {
                    return Err(KnownSecretsError::Unreadable {
                        path: folder.display().to_string(),
                        reason: format!(
                            "it holds more than {MAX_HOME_CACHE_FILES} credential cache files"
                        ),
                    });
                }
                listed.push(path);
            }
        }
        listed.sort();
        files.extend(
            listed
                .into_iter()
                .map(|path| (path, SecretFileKind::KeyValue)),
        );
    }
    let mut set = SecretSet::new();
    let mut total = 0u64;
    for (path, kind) in files {
        let text = match ploy_dirs::read_bounded(&path, MAX_SECRET_FILE_BYTES) {
            Ok(ploy_dirs::FileRead::Bytes(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(ploy_dirs::FileRead::Missing | ploy_dirs::FileRead::Folder) => continue,
            Err(ploy_dirs::BoundedReadError::Io(err))
                if err.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                continue;
            }
            Err(err) => {
                return Err(KnownSecretsError::Unreadable {
                    path: path.display().to_string(),
                    reason: err.to_string(),
                });
            }
        };
        total += text.len() as u64;
        if total > MAX_SECRET_FILES_BYTES {
            return Err(KnownSecretsError::Unreadable {
                path: home.display().to_string(),
                reason: format!(
                    "its credential stores hold more than {MAX_SECRET_FILES_BYTES} bytes together"
                ),
            });
        }
        set.add_secret_file_text(&path.display().to_string(), &text, kind, path_exists);
    }
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
fn project_secret_files(project: &Path) -> Result<Vec<(PathBuf, FileUse)>, KnownSecretsError> {
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
            listed.push((entry.file_name(), entry));
        }
        // By name, each name read once (sorting by `DirEntry::file_name`
        // allocated two names per comparison: a quarter of the walk's CPU
        // on a 10,000-file project, issue 11). Names in a folder are unique.
        listed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (name, entry) in listed {
            let Some(name) = name.to_str() else { continue };
            // Joined by hand: `format!` cost more than the name rule on
            // every entry of a large project (issue 11).
            let mut location = String::with_capacity(relative.len() + 1 + name.len());
            if !relative.is_empty() {
                location.push_str(&relative);
                location.push('/');
            }
            location.push_str(name);
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
            let used = match crate::secret_file_kind(&location) {
                Some(kind) => Some(FileUse::Secret(kind)),
                None => crate::is_credential_config_file(&location).then_some(FileUse::Config),
            };
            if let Some(used) = used {
                if found.len() >= MAX_SECRET_FILES {
                    return Err(KnownSecretsError::Unreadable {
                        path: project.display().to_string(),
                        reason: format!(
                            "it holds more than {MAX_SECRET_FILES} secret files (settings \
                             files holding credentials included)"
                        ),
                    });
                }
                found.push((entry.path(), used));
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

    /// Writes `files` (path relative to `dir`, text) below `dir`.
    fn write_all(dir: &Path, files: &[(&str, &str)]) {
        for (rel, text) in files {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    /// The user's credential stores as their tools write them, each with
    /// the secret values in it (round8 #4).
    const HOME_STORES: &[(&str, &str, &[&str])] = &[
        (
            ".aws/credentials",
            "[default]\naws_access_key_id = AKIAQWERTYUIOPASDFGH\n\
             aws_secret_access_key = hOmEsEcReT/K7MDENG/bPxRfiCYzzKEYa1\n\
             aws_session_token = IQoJb3JpZ2luX2VjEHomeSessionTok3n\n",
            &[
                "AKIAQWERTYUIOPASDFGH",
                "hOmEsEcReT/K7MDENG/bPxRfiCYzzKEYa1",
                "IQoJb3JpZ2luX2VjEHomeSessionTok3n",
            ],
        ),
        (
            ".aws/config",
            "[profile dev]\nregion = eu-west-1\naws_session_token = CfgSessi0nTok3nValue99\n\
             [sso-session corp]\nsso_region = eu-west-1\n",
            &["CfgSessi0nTok3nValue99"],
        ),
        (
            ".aws/sso/cache/0a1b2c.json",
            "{\"startUrl\": \"https://corp.awsapps.com/start\", \"region\": \"eu-west-1\", \
             \"accessToken\": \"aoaAAAAAGhSsoAcc3ssTok3nXyZ\", \"expiresAt\": \"2030-01-01T00:00:00Z\"}",
            &["aoaAAAAAGhSsoAcc3ssTok3nXyZ"],
        ),
        (
            ".config/gh/hosts.yml",
            "github.com:\n    user: alice\n    oauth_token: gho_HomeGhOauthTok3n1234567890abcd\n\
             \x20   git_protocol: https\n",
            &["gho_HomeGhOauthTok3n1234567890abcd"],
        ),
        (
            ".npmrc",
            "registry=https://registry.npmjs.org/\n\
             //registry.npmjs.org/:_authToken=npm_HomeNpmAuthTok3n0123456789abcd\n\
             //npm.corp.example/:_password=TnBtQ29ycFBhc3N3MHJk\n\
             _auth=YWxpY2U6TnBtQXV0aFBhc3N3MHJk\n",
            &[
                "npm_HomeNpmAuthTok3n0123456789abcd",
                "TnBtQ29ycFBhc3N3MHJk",
                "NpmCorpPassw0rd",
                "NpmAuthPassw0rd",
            ],
        ),
        (
            ".git-credentials",
            "https://alice:GitCredsPassw0rd-77@github.com\n",
            &["GitCredsPassw0rd-77"],
        ),
        (
            ".docker/config.json",
            "{\"auths\": {\"https://index.docker.io/v1/\": {\"auth\": \"YWxpY2U6RG9ja2VyUGFzc3cwcmQtOTk=\"}, \
             \"ghcr.io\": {\"identitytoken\": \"DockerIdentityTok3n-0123456789\"}}, \"credsStore\": \"desktop\"}",
            &[
                "YWxpY2U6RG9ja2VyUGFzc3cwcmQtOTk=",
                "DockerPassw0rd-99",
                "DockerIdentityTok3n-0123456789",
            ],
        ),
        (
            ".netrc",
            "machine api.example.com login alice password NetrcHomePassw0rd-5\n",
            &["NetrcHomePassw0rd-5"],
        ),
        (
            ".pypirc",
            "[distutils]\nindex-servers = pypi\n[pypi]\nusername = __token__\n\
             password = pypi-AgEIcHlwaS5vcmcHomePypiTok3n\n",
            &["pypi-AgEIcHlwaS5vcmcHomePypiTok3n"],
        ),
        (
            ".gem/credentials",
            "---\n:rubygems_api_key: rubygems_HomeGemApiKey0123456789abcdef\n",
            &["rubygems_HomeGemApiKey0123456789abcdef"],
        ),
        (
            ".cargo/credentials.toml",
            "[registry]\ntoken = \"cioHomeCargoTok3n0123456789abcdef\"\n",
            &["cioHomeCargoTok3n0123456789abcdef"],
        ),
    ];

    // proves: REDACT-1, BEYOND-6 (round8 #4: the user's credential stores in
    // the home folder — AWS, gh, npm, git, Docker, netrc, PyPI, RubyGems,
    // Cargo — are known secrets: redacted from outputs, so refused by the
    // door, which searches with the same redactor)
    #[test]
    fn round8_4_home_credential_stores_are_known_secrets() {
        let home = project(&[]);
        write_all(
            &home,
            &HOME_STORES
                .iter()
                .map(|(rel, text, _)| (*rel, *text))
                .collect::<Vec<_>>(),
        );
        let src = SecretSources {
            home: Some(home.clone()),
            ..SecretSources::default()
        };
        let set = sources_secrets(&src, &none, &|_| false).unwrap();
        let values: Vec<&str> = set.values().collect();
        let redactor = set.redactor();
        for (store, _, secrets) in HOME_STORES {
            assert!(
                crate::secret_file_kind(store).is_some(),
                "{store} must be a secret file by name (its reads ask)"
            );
            for secret in *secrets {
                assert!(values.contains(secret), "{store}: {secret}: {set:?}");
                let sent = format!("GET /collect?d={secret}&x=1");
                assert!(redactor.find_secret(sent.as_bytes()).is_some(), "{store}");
                let shown = redactor.redact(&sent).into_owned();
                assert!(!shown.contains(secret), "{store}: {shown}");
            }
        }
        // Names of what a credential is for are not secrets.
        for public in [
            "alice",
            "https://registry.npmjs.org/",
            "eu-west-1",
            "__token__",
        ] {
            assert!(!values.contains(&public), "{public}: {set:?}");
        }
        // A store moved by its variable is read where it is.
        let moved = project(&[(
            "creds",
            "[default]\naws_secret_access_key = MovedAwsSecr3tKey-0042\n",
        )]);
        let lookup = |name: &str| {
            (name == "AWS_SHARED_CREDENTIALS_FILE").then(|| moved.join("creds").into_os_string())
        };
        let set = sources_secrets(&src, &lookup, &|_| false).unwrap();
        assert!(
            set.values().any(|v| v == "MovedAwsSecr3tKey-0042"),
            "{set:?}"
        );
        // Without a home folder nothing of it is read.
        let set = sources_secrets(&SecretSources::default(), &none, &|_| false).unwrap();
        assert!(set.is_empty());
        std::fs::remove_dir_all(&home).unwrap();
        std::fs::remove_dir_all(&moved).unwrap();
    }

    // proves: REDACT-1, BEYOND-6 (round8 #4: a credential store that is a
    // FIFO fails closed at once, naming it, as a project's `.env` does)
    #[test]
    fn round8_4_an_odd_home_credential_store_fails_closed() {
        let home = project(&[]);
        std::fs::create_dir_all(home.join(".docker")).unwrap();
        let fifo = home.join(".docker/config.json");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let src = SecretSources {
            home: Some(home.clone()),
            ..SecretSources::default()
        };
        let err = sources_secrets(&src, &none, &|_| false).unwrap_err();
        assert!(
            err.to_string().contains(".docker/config.json") && err.to_string().contains("REDACT-1"),
            "{err}"
        );
        std::fs::remove_dir_all(&home).unwrap();
    }

    // proves: REDACT-1, BEYOND-6 (round8 #12: credentials in a project's
    // Spring, Rails and Compose settings and in its `.smbcredentials`,
    // `token.json`, `credentials.json`, `.my.cnf`, `rclone.conf`,
    // `.htpasswd` are known, taken by the one name rule for keys;
    // references and ordinary settings are not)
    #[test]
    fn round8_12_project_configuration_credentials_are_known() {
        let dir = project(&[]);
        write_all(
            &dir,
            &[
                (
                    "src/main/resources/application.properties",
                    "server.port=8080\nspring.datasource.url=jdbc:postgresql://db:5432/app\n\
                     spring.datasource.username=appuser\nspring.datasource.password=SpringDsPassw0rd-1\n\
                     app.jwt.secret=SpringJwtS3cretValue-2\napp.api-token=${API_TOKEN}\n",
                ),
                (
                    "src/main/resources/application-prod.yml",
                    "spring:\n  datasource:\n    username: produser\n    password: SpringYmlPassw0rd-3\n\
                     \x20 mail:\n    host: smtp.example.com\ngithub:\n  token: \"${GH:SpringDefaultTok3n-4}\"\n",
                ),
                (
                    "config/database.yml",
                    "default: &default\n  adapter: postgresql\n  host: localhost\n\
                     production:\n  <<: *default\n  password: RailsDbPassw0rd-5\n\
                     staging:\n  password: <%= ENV[\"STAGING_DB_PASSWORD\"] %>\n",
                ),
                ("config/master.key", "0f5d3c8e9a7b6c5d4e3f2a1b0c9d8e7f\n"),
                (
                    "docker-compose.yml",
                    "services:\n  auth:\n    image: postgres:16-alpine\n    environment:\n\
                     \x20     POSTGRES_USER: postgres\n      POSTGRES_PASSWORD: ComposePgPassw0rd-6\n\
                     \x20 mysql:\n    image: mysql:8.0.36\n    environment:\n\
                     \x20     - MYSQL_ROOT_PASSWORD=ComposeMyRootPw-7\n      - MYSQL_DATABASE=appdatabase\n",
                ),
                (
                    "token.json",
                    "{\"token\": \"ya29.GoogleAccessTok3n-8\", \"refresh_token\": \"1//GoogleRefreshTok3n-9\", \
                     \"client_id\": \"123.apps.googleusercontent.com\", \"client_secret\": \"GOCSPX-GoogleClientS3cret\"}",
                ),
                (
                    "credentials.json",
                    "{\"installed\": {\"client_id\": \"123.apps.googleusercontent.com\", \
                     \"client_secret\": \"GOCSPX-InstalledClientS3c\", \"redirect_uris\": [\"http://localhost\"]}}",
                ),
                (
                    ".smbcredentials",
                    "username=alice\npassword=SmbMountPassw0rd-10\ndomain=CORP\n",
                ),
                (
                    "ops/.my.cnf",
                    "[client]\nuser=app\npassword=\"MyCnfPassw0rd-11\"\n",
                ),
                (
                    "ops/rclone.conf",
                    "[drive]\ntype = drive\ntoken = {\"access_token\":\"ya29.RcloneAccessTok3n-12\",\"token_type\":\"Bearer\",\"expiry\":\"2030-01-01T00:00:00Z\"}\n\
                     [box]\ntype = sftp\npass = RcloneObscuredPass-13\n",
                ),
                (
                    "web/.htpasswd",
                    "alice:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/\nbob:$2y$05$HtpasswdBcryptHashValue.Abcdefghij\n",
                ),
            ],
        );
        let set = sources_secrets(&sources(&dir), &none, &|_| false).unwrap();
        let values: Vec<&str> = set.values().collect();
        for secret in [
            "SpringDsPassw0rd-1",
            "SpringJwtS3cretValue-2",
            "SpringYmlPassw0rd-3",
            "SpringDefaultTok3n-4",
            "RailsDbPassw0rd-5",
            "0f5d3c8e9a7b6c5d4e3f2a1b0c9d8e7f",
            "ComposePgPassw0rd-6",
            "ComposeMyRootPw-7",
            "ya29.GoogleAccessTok3n-8",
            "1//GoogleRefreshTok3n-9",
            "GOCSPX-GoogleClientS3cret",
            "GOCSPX-InstalledClientS3c",
            "SmbMountPassw0rd-10",
            "MyCnfPassw0rd-11",
            "ya29.RcloneAccessTok3n-12",
            "RcloneObscuredPass-13",
            "$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/",
            "$2y$05$HtpasswdBcryptHashValue.Abcdefghij",
        ] {
            assert!(values.contains(&secret), "{secret}: {set:?}");
            let out = set.redactor().redact(&format!("v={secret};")).into_owned();
            assert!(!out.contains(secret), "{secret}: {out}");
        }
        for ordinary in [
            "8080",
            "jdbc:postgresql://db:5432/app",
            "appuser",
            "produser",
            "smtp.example.com",
            "${API_TOKEN}",
            "<%= ENV[\"STAGING_DB_PASSWORD\"] %>",
            "postgres:16-alpine",
            "mysql:8.0.36",
            "postgres",
            "appdatabase",
            "localhost",
        ] {
            assert!(!values.contains(&ordinary), "{ordinary}: {set:?}");
        }
        // The settings files are read without asking (not secret files).
        for config in [
            "src/main/resources/application.properties",
            "config/database.yml",
            "docker-compose.yml",
        ] {
            assert!(!crate::is_secret_file(config), "{config}");
            assert!(crate::is_credential_config_file(config), "{config}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
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
