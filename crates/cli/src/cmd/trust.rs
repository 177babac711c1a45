//! `ploy trust [status|allow|deny|forget] [DIR] [--json]`

use std::{path::PathBuf, process::ExitCode};

/// Arguments of `ploy trust`.
#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// What to do: status (default), allow, deny or forget.
    #[arg(value_enum, default_value_t = TrustAction::Status)]
    pub action: TrustAction,
    /// The project directory (default: the current directory).
    pub dir: Option<PathBuf>,
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

/// What `ploy trust` does.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum TrustAction {
    /// Show the decision and the rule that made it.
    Status,
    /// Save "trusted" for the canonical directory.
    Allow,
    /// Save "not trusted" for the canonical directory.
    Deny,
    /// Remove the saved decision for the canonical directory.
    Forget,
}

pub fn run(_args: TrustArgs) -> ExitCode {
    super::not_built("trust")
}
