//! `ploy mcp`: ploy's doors as an MCP server over stdio. Thin: the server
//! lives in `ploy-mcp`. stdout carries the protocol; logs go to stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use ploy_dirs::PloyDirs;

/// Arguments of `ploy mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// The project the command tools run in (default: the current folder).
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// Answer names from this hosts(5) file instead of DNS (`ADDRESS NAME` lines).
    #[arg(long)]
    pub hosts: Option<PathBuf>,
    /// The session name: with the project and the client's name it names
    /// the session whose marks the server keeps across restarts (TAINT-2);
    /// a new name starts clean (default: `default`).
    #[arg(long)]
    pub session: Option<String>,
}

/// Serves until the client closes stdin.
pub fn run(args: McpArgs) -> ExitCode {
    let fail = |message: String, hint: &str| {
        eprintln!("ploy mcp: {message}");
        eprintln!("hint: {hint}");
        ExitCode::from(1)
    };
    let dirs = match PloyDirs::from_env() {
        Ok(dirs) => dirs,
        Err(err) => return fail(err.to_string(), "set PLOY_CONFIG_DIR and PLOY_STATE_DIR"),
    };
    let project = match args.project.map_or_else(std::env::current_dir, Ok) {
        Ok(project) => project,
        Err(err) => return fail(format!("the current folder: {err}"), "pass --project DIR"),
    };
    let server = match ploy_mcp::Server::new(ploy_mcp::Options {
        dirs,
        project,
        hosts: args.hosts,
        session: args.session,
    }) {
        Ok(server) => server,
        Err(err) => {
            return fail(
                err,
                "pass --project with an existing folder and a plain --session name",
            );
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => return fail(format!("cannot start the runtime: {err}"), "retry"),
    };
    match runtime.block_on(ploy_mcp::serve_stdio(server)) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away: quiet, as every command on a closed stdout.
        Err(ploy_mcp::ServeError::ClientGone) => crate::out::closed_exit(),
        Err(err) => fail(err.to_string(), "the client must speak MCP over stdio"),
    }
}
