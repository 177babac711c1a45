//! ploy-dirs: where ploy keeps its files, looked up in one place.
//!
//! * the config folder: the user's `settings.json`, `trust.json`, `skills/`;
//! * the state folder: service files, the database (there is no audit log yet).
//!
//! The platform's folders come from the `directories` crate (XDG on Linux:
//! the config dir, and the state dir or else the local data dir).
//! `PLOY_CONFIG_DIR` and `PLOY_STATE_DIR` override them when set and non-empty;
//! tests always set both so nothing touches the real home.
//!
//! This crate depends on nothing of ploy's, so every crate that needs the
//! folders (ploy-trust, ploy-service, the CLI) can use it without a cycle and
//! without pulling in the others (ploy-service must not depend on the sandbox
//! code that ploy-trust brings).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Environment variable that overrides the config folder.
pub const CONFIG_DIR_ENV: &str = "PLOY_CONFIG_DIR";
/// Environment variable that overrides the state folder.
pub const STATE_DIR_ENV: &str = "PLOY_STATE_DIR";

/// Why ploy's folders could not be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirsError {
    /// No home folder and no override: ploy never guesses a place for its files.
    #[error("cannot find ploy's config folder (no home directory); {hint}")]
    NoHome {
        /// What to set.
        hint: String,
    },
}

/// The platform's config folder for "ploy", if there is a home folder.
pub fn platform_config_dir() -> Option<PathBuf> {
    let project = directories::ProjectDirs::from("", "", "ploy")?;
    Some(project.config_dir().to_path_buf())
}

/// The platform's state folder for "ploy" (the XDG state dir on Linux, else
/// the local data dir), if there is a home folder.
pub fn platform_state_dir() -> Option<PathBuf> {
    let project = directories::ProjectDirs::from("", "", "ploy")?;
    Some(
        project
            .state_dir()
            .unwrap_or_else(|| project.data_local_dir())
            .to_path_buf(),
    )
}

/// An override as the environment gives it: unset and empty both mean "none".
fn non_empty(value: Option<OsString>) -> Option<PathBuf> {
    value.filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The state folder as given: `PLOY_STATE_DIR` when set and non-empty, else
/// the platform's; `None` when neither exists. Not made absolute (the
/// service's historical behaviour; [`PloyDirs`] makes its folders absolute).
pub fn state_dir_from_env() -> Option<PathBuf> {
    non_empty(std::env::var_os(STATE_DIR_ENV)).or_else(platform_state_dir)
}

/// ploy's two folders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PloyDirs {
    /// Config folder: `settings.json`, `trust.json`, `skills/`, `AGENTS.md`.
    pub config: PathBuf,
    /// State folder: service files and the database.
    pub state: PathBuf,
}

impl PloyDirs {
    /// The folders from `PLOY_CONFIG_DIR` / `PLOY_STATE_DIR`, else the
    /// platform's folders for "ploy". Fails when neither can be found (no home
    /// directory and no override): ploy never guesses a place to keep trust.
    pub fn from_env() -> Result<Self, DirsError> {
        Self::from_overrides(
            std::env::var_os(CONFIG_DIR_ENV).map(PathBuf::from),
            std::env::var_os(STATE_DIR_ENV).map(PathBuf::from),
        )
    }

    /// The folders from explicit overrides, falling back to the platform's
    /// folders for whichever is `None` (or empty). Relative overrides are made
    /// absolute against the current directory.
    pub fn from_overrides(
        config: Option<PathBuf>,
        state: Option<PathBuf>,
    ) -> Result<Self, DirsError> {
        let no_home = || DirsError::NoHome {
            hint: format!("set {CONFIG_DIR_ENV} and {STATE_DIR_ENV}"),
        };
        let config = non_empty(config.map(PathBuf::into_os_string));
        let state = non_empty(state.map(PathBuf::into_os_string));
        let config = match config {
            Some(config) => config,
            None => platform_config_dir().ok_or_else(no_home)?,
        };
        let state = match state {
            Some(state) => state,
            None => platform_state_dir().ok_or_else(no_home)?,
        };
        Ok(Self {
            config: absolute(&config),
            state: absolute(&state),
        })
    }

    /// Explicit folders (tests, embedding).
    pub fn new(config: impl Into<PathBuf>, state: impl Into<PathBuf>) -> Self {
        Self {
            config: config.into(),
            state: state.into(),
        }
    }

    /// The user's settings file.
    pub fn settings_file(&self) -> PathBuf {
        self.config.join("settings.json")
    }

    /// The user's trust file.
    pub fn trust_file(&self) -> PathBuf {
        self.config.join("trust.json")
    }

    /// The user's own skills folder.
    pub fn skills_dir(&self) -> PathBuf {
        self.config.join("skills")
    }
}

/// A relative override is taken from the current directory, so the trust file
/// does not move when ploy is started elsewhere.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: TRUST-3 (the trust file has one fixed place per config folder)
    #[test]
    fn overrides_win_and_files_sit_inside_config() {
        let dirs = PloyDirs::from_overrides(
            Some(PathBuf::from("/x/config")),
            Some(PathBuf::from("/x/state")),
        )
        .unwrap();
        assert_eq!(dirs.config, PathBuf::from("/x/config"));
        assert_eq!(dirs.state, PathBuf::from("/x/state"));
        assert_eq!(dirs.trust_file(), PathBuf::from("/x/config/trust.json"));
        assert_eq!(
            dirs.settings_file(),
            PathBuf::from("/x/config/settings.json")
        );
        assert_eq!(dirs.skills_dir(), PathBuf::from("/x/config/skills"));
    }

    // proves: TRUST-3
    #[test]
    fn empty_override_falls_back_to_the_platform() {
        let dirs =
            PloyDirs::from_overrides(Some(PathBuf::new()), Some(PathBuf::from("/s"))).unwrap();
        assert_ne!(dirs.config, PathBuf::new());
        assert!(dirs.config.ends_with("ploy"), "{}", dirs.config.display());
        assert_eq!(Some(dirs.config), platform_config_dir());
        let dirs =
            PloyDirs::from_overrides(Some(PathBuf::from("/c")), Some(PathBuf::new())).unwrap();
        assert_eq!(Some(dirs.state), platform_state_dir());
    }

    // proves: TRUST-3 (a relative override does not move with the working directory)
    #[test]
    fn relative_overrides_are_made_absolute() {
        let dirs = PloyDirs::from_overrides(
            Some(PathBuf::from("rel/config")),
            Some(PathBuf::from("rel/state")),
        )
        .unwrap();
        assert!(dirs.config.is_absolute() && dirs.config.ends_with("rel/config"));
        assert!(dirs.state.is_absolute() && dirs.state.ends_with("rel/state"));
    }

    // proves: TRUST-3 (the service's and trust's state folders agree)
    #[test]
    fn platform_state_dir_is_the_state_or_local_data_folder_named_ploy() {
        if let Some(state) = platform_state_dir() {
            assert!(state.ends_with("ploy"), "{}", state.display());
        }
    }
}
