//! `ploy research "QUESTION" [--json] [--no-answer] [--backend NAME]... [--hosts FILE]`

use std::{path::PathBuf, process::ExitCode};

/// Arguments of `ploy research`.
#[derive(Debug, clap::Args)]
pub struct ResearchArgs {
    /// The question to research.
    pub question: String,
    /// Print machine-readable JSON (the strict result schema).
    #[arg(long)]
    pub json: bool,
    /// Stop after the dossier; do not ask the answer model.
    #[arg(long)]
    pub no_answer: bool,
    /// Search backend(s) to use: duckduckgo, wikipedia, tavily, searxng.
    #[arg(long = "backend", value_name = "NAME")]
    pub backends: Vec<String>,
    /// Answer names from a hosts(5)-format file instead of DNS.
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Continue this conversation instead of starting a new one.
    #[arg(long, value_name = "ID")]
    pub conversation: Option<String>,
}

pub fn run(_args: ResearchArgs) -> ExitCode {
    eprintln!("ploy: `research` is not built yet");
    ExitCode::from(2)
}
