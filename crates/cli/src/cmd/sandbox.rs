//! `ploy proof run`, `ploy sandbox run`, `ploy plan check`, `ploy doctor`

use std::{path::PathBuf, process::ExitCode};

/// Arguments of `ploy proof run`.
#[derive(Debug, clap::Args)]
pub struct ProofRunArgs {
    /// The proof line to validate and run.
    pub line: String,
    /// Project folder (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy sandbox run`.
#[derive(Debug, clap::Args)]
pub struct SandboxRunArgs {
    /// Project folder (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<String>,
}

/// Arguments of `ploy plan check`.
#[derive(Debug, clap::Args)]
pub struct PlanCheckArgs {
    /// Project folder (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn proof_run(_args: ProofRunArgs) -> ExitCode {
    super::not_built("proof run")
}

pub fn sandbox_run(_args: SandboxRunArgs) -> ExitCode {
    super::not_built("sandbox run")
}

pub fn plan_check(_args: PlanCheckArgs) -> ExitCode {
    super::not_built("plan check")
}

pub fn doctor(_args: DoctorArgs) -> ExitCode {
    super::not_built("doctor")
}
