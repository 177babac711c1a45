//! `ploy config show [--json]`

use std::process::ExitCode;

/// Arguments of `ploy config show`.
#[derive(Debug, clap::Args)]
pub struct ConfigShowArgs {
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
    /// Trust the project for this run only.
    #[arg(short = 'a', long = "approve", conflicts_with = "no_approve")]
    pub approve: bool,
    /// Do not trust the project for this run.
    #[arg(long = "no-approve", visible_alias = "na")]
    pub no_approve: bool,
}

pub fn run(_args: ConfigShowArgs) -> ExitCode {
    super::not_built("config show")
}
