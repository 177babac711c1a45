//! Where ploy keeps its files: the config folder (user `settings.json`,
//! `trust.json`, the user's `skills/`) and the state folder (service files,
//! database, audit log).
//!
//! The platform's folders come from the `directories` crate (XDG on Linux).
//! `PLOY_CONFIG_DIR` and `PLOY_STATE_DIR` override them; tests always set both
//! so nothing touches the real home.

use std::path::{Path, PathBuf};

use crate::TrustError;

/// Environment variable that overrides the config folder.
pub const CONFIG_DIR_ENV: &str = "PLOY_CONFIG_DIR";
/// Environment variable that overrides the state folder.
pub const STATE_DIR_ENV: &str = "PLOY_STATE_DIR";

/// ploy's two folders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PloyDirs {
    /// Config folder: `settings.json`, `trust.json`, `skills/`, `AGENTS.md`.
    pub config: PathBuf,
    /// State folder: service files, database, audit log.
    pub state: PathBuf,
}

impl PloyDirs {
    /// The folders from `PLOY_CONFIG_DIR` / `PLOY_STATE_DIR`, else the
    /// platform's folders for "ploy". Fails when neither can be found (no home
    /// directory and no override): ploy never guesses a place to keep trust.
    pub fn from_env() -> Result<Self, TrustError> {
        Self::from_overrides(
            std::env::var_os(CONFIG_DIR_ENV).map(PathBuf::from),
            std::env::var_os(STATE_DIR_ENV).map(PathBuf::from),
        )
    }

    /// The folders from explicit overrides, falling back to the platform's
    /// folders for whichever is `None` (or empty).
    pub fn from_overrides(
        config: Option<PathBuf>,
        state: Option<PathBuf>,
    ) -> Result<Self, TrustError> {
        let config = config.filter(|p| !p.as_os_str().is_empty());
        let state = state.filter(|p| !p.as_os_str().is_empty());
        let (config, state) = match (config, state) {
            (Some(config), Some(state)) => (config, state),
            (config, state) => {
                let project = directories::ProjectDirs::from("", "", "ploy").ok_or_else(|| {
                    TrustError::NoHome {
                        hint: format!("set {CONFIG_DIR_ENV} and {STATE_DIR_ENV}"),
                    }
                })?;
                let platform_state = project
                    .state_dir()
                    .unwrap_or_else(|| project.data_local_dir())
                    .to_path_buf();
                (
                    config.unwrap_or_else(|| project.config_dir().to_path_buf()),
                    state.unwrap_or(platform_state),
                )
            }
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
    }

    #[test]
    fn empty_override_falls_back_to_the_platform() {
        let dirs =
            PloyDirs::from_overrides(Some(PathBuf::new()), Some(PathBuf::from("/s"))).unwrap();
        assert_ne!(dirs.config, PathBuf::new());
        assert!(dirs.config.ends_with("ploy"), "{}", dirs.config.display());
    }
}
