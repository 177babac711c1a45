//! `ploy check proof 'LINE' [--json]`

use std::process::ExitCode;

/// Arguments of `ploy check proof`.
#[derive(Debug, clap::Args)]
pub struct CheckProofArgs {
    /// The proof line to validate.
    pub line: String,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: CheckProofArgs) -> ExitCode {
    super::not_built("check proof")
}
