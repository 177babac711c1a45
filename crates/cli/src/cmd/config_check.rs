//! `ploy config check [--settings FILE] [--json]`

use std::{path::PathBuf, process::ExitCode};

/// Arguments of `ploy config check`.
#[derive(Debug, clap::Args)]
pub struct ConfigCheckArgs {
    /// Settings file to validate (default: the user's settings.json).
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: ConfigCheckArgs) -> ExitCode {
    super::not_built("config check")
}
