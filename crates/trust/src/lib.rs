//! ploy-trust: project trust, the load gate for project-local files
//! (TRUST-1..8).
//!
//! A cloned repository can carry settings, extensions, skills and system
//! prompts that would change what the agent does before the user has looked
//! at anything. Nothing project-local that needs trust loads until the user
//! (or a rule the user set) has decided. Trust is a **load gate, not a
//! sandbox** (TRUST-1): a trusted project's files load with the user's rights.
//!
//! Where to start reading:
//! * [`paths`]: where ploy keeps its files (`PLOY_CONFIG_DIR`, `PLOY_STATE_DIR`).
//! * [`detect`]: which resources need trust (TRUST-2).
//! * [`store`]: the trust file, canonical keys, locked atomic writes (TRUST-3).
//! * [`resolve`](mod@resolve): THE one decision function and its fixed order
//!   (TRUST-3, TRUST-4, TRUST-6, TRUST-7).
//! * [`extension`]: the JSON-lines extension protocol (`project_trust`);
//!   processes are started by `ploy_proof::host`.
//! * [`load`]: what loads before and after the decision (TRUST-5, TRUST-6),
//!   settings layering with sources, context files, skills.

pub mod context;
pub mod detect;
pub mod extension;
pub mod load;
pub mod paths;
pub mod prompt;
pub mod resolve;
pub mod skills;
pub mod store;

use std::path::{Path, PathBuf};

pub use detect::{DetectOptions, Resource, ResourceKind, detect};
pub use extension::{ExtensionAnswer, ExtensionOrigin, ExtensionOutcome, ExtensionSpec};
pub use load::{
    Decided, LoadOptions, LoadedProject, ShownValue, UserSettings, decide, effective_values,
    load_project, load_user_settings,
};
pub use paths::PloyDirs;
pub use prompt::{LinePrompt, PromptChoice, PromptRequest, ScriptedPrompt, TrustPrompt};
pub use resolve::{
    DecidedBy, DefaultProjectTrust, NonInteractiveReason, Resolution, TrustRequest, Ui, UiMode,
    resolve,
};
pub use store::{SavedMatch, TrustStore};

impl From<ploy_dirs::DirsError> for TrustError {
    fn from(err: ploy_dirs::DirsError) -> Self {
        match err {
            ploy_dirs::DirsError::NoHome { hint } => TrustError::NoHome { hint },
            other @ ploy_dirs::DirsError::NotPrivate { .. } => TrustError::Folder(other),
        }
    }
}

/// Everything that can stop trust handling. Each message names the file or
/// directory, the requirement, and what to do.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// No home folder and no `PLOY_CONFIG_DIR` / `PLOY_STATE_DIR`.
    #[error("cannot find ploy's config folder (no home directory); {hint}")]
    NoHome {
        /// What to set.
        hint: String,
    },
    /// The directory does not exist or cannot be resolved.
    #[error("cannot resolve directory {path}: {source} (TRUST-3 keys decisions by canonical path)")]
    BadDirectory {
        /// The path as given.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The path is not a directory.
    #[error("{path} is not a directory (TRUST-3: decisions are saved for directories)")]
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// A key that is not canonical and absolute.
    #[error("{path} is not a canonical absolute directory (TRUST-3)")]
    NotCanonical {
        /// The path.
        path: PathBuf,
    },
    /// The trust file cannot be parsed.
    #[error(
        "trust file {path} is malformed at line {line}: {reason} (TRUST-3). Fix it or move it \
         away; until then ploy trusts no project from it"
    )]
    TrustFileMalformed {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The trust file is writable by group or others.
    #[error(
        "trust file {path} has mode {mode:04o}: other users can write it and so trust any \
         project for you (TRUST-3). Fix: chmod 600 {path}"
    )]
    TrustFileWritableByOthers {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The trust file belongs to another user.
    #[error(
        "trust file {path} is owned by uid {owner}, not by you (uid {me}) (TRUST-3). Fix: \
         chown it to yourself or remove it"
    )]
    TrustFileOwner {
        /// The file.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// The current effective uid.
        me: u32,
    },
    /// The trust file path is a directory or device.
    #[error("trust file {path} is not a regular file (TRUST-3)")]
    TrustFileNotAFile {
        /// The path.
        path: PathBuf,
    },
    /// A settings file is invalid (CONFIG-1 and friends; the message names the
    /// file, key and line).
    #[error("{0}")]
    Settings(#[from] ploy_policy::SettingsError),
    /// The `extensions` section of a settings file is invalid.
    #[error("{origin}: key `extensions{key}`: {message} (TRUST-6)")]
    ExtensionsInvalid {
        /// The settings file.
        origin: String,
        /// Where inside `extensions` (e.g. `[2].command`).
        key: String,
        /// What is wrong.
        message: String,
    },
    /// ploy's config folder cannot be made owner-only (SVC-1).
    #[error(transparent)]
    Folder(ploy_dirs::DirsError),
    /// Reading or writing a file failed.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What ploy was doing.
        action: &'static str,
        /// The operating system's reason.
        source: std::io::Error,
    },
}

/// The canonical form of a directory: absolute, symlinks and `..` resolved
/// (TRUST-3). A symlinked project and a `..`-laden path give the same key.
pub fn canonical_dir(path: &Path) -> Result<PathBuf, TrustError> {
    let canonical = std::fs::canonicalize(path).map_err(|source| TrustError::BadDirectory {
        path: path.to_path_buf(),
        source,
    })?;
    if !canonical.is_dir() {
        return Err(TrustError::NotADirectory { path: canonical });
    }
    Ok(canonical)
}
