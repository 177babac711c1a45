//! `ploy redact [--secret-env NAME]... [--secret-file FILE]`

use std::{path::PathBuf, process::ExitCode};

/// Arguments of `ploy redact`.
#[derive(Debug, clap::Args)]
pub struct RedactArgs {
    /// Also treat the value of this environment variable as a secret.
    #[arg(long = "secret-env", value_name = "NAME")]
    pub secret_env: Vec<String>,
    /// Read secret values from FILE, one per line.
    #[arg(long = "secret-file", value_name = "FILE")]
    pub secret_file: Vec<PathBuf>,
}

pub fn run(_args: RedactArgs) -> ExitCode {
    super::not_built("redact")
}
