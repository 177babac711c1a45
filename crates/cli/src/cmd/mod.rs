//! One module per command group. Each owns its clap arguments and a `run`.

pub mod check_proof;
pub mod config_check;
pub mod config_show;
pub mod redact;
pub mod sandbox;
pub mod service;
pub mod trust;
pub mod url;

use std::process::ExitCode;

/// Temporary answer for a command whose library is still being built in this
/// session. Exit 2 with a clear message; never pretends to have done the work.
pub(crate) fn not_built(what: &str) -> ExitCode {
    eprintln!("ploy: `{what}` is not built yet");
    ExitCode::from(2)
}
