//! `ploy check url`, `ploy fetch`, `ploy scrub`

use std::{path::PathBuf, process::ExitCode};

/// Arguments of `ploy check url`.
#[derive(Debug, clap::Args)]
pub struct CheckUrlArgs {
    /// The URL to check.
    pub url: String,
    /// Run only the text stage (no DNS).
    #[arg(long)]
    pub no_resolve: bool,
    /// Answer names from a hosts(5)-format file instead of DNS.
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy fetch`.
#[derive(Debug, clap::Args)]
pub struct FetchArgs {
    /// The URL to fetch.
    pub url: String,
    /// Answer names from a hosts(5)-format file instead of DNS.
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy scrub`.
#[derive(Debug, clap::Args)]
pub struct ScrubArgs {
    /// The search phrase to scrub.
    pub phrase: String,
    /// Print machine-readable JSON (which classes were removed, never the text).
    #[arg(long)]
    pub json: bool,
}

pub fn check(_args: CheckUrlArgs) -> ExitCode {
    super::not_built("check url")
}

pub fn fetch(_args: FetchArgs) -> ExitCode {
    super::not_built("fetch")
}

pub fn scrub(_args: ScrubArgs) -> ExitCode {
    super::not_built("scrub")
}
