//! Where ploy keeps its files: the config folder (user `settings.json`,
//! `trust.json`, the user's `skills/`) and the state folder (service files,
//! the database).
//!
//! The lookup lives in `ploy-dirs` (one copy for every crate: ploy-service
//! uses the same one); this module re-exports it so `ploy_trust::PloyDirs`
//! keeps working. `PLOY_CONFIG_DIR` and `PLOY_STATE_DIR` override the
//! platform's folders; tests always set both so nothing touches the real home.

pub use ploy_dirs::{CONFIG_DIR_ENV, DirsError, PloyDirs, STATE_DIR_ENV};
