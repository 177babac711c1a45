//! `ploy serve`, `ploy status`, `ploy exec`

use std::process::ExitCode;

/// Arguments of `ploy serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// API listen address (default: 127.0.0.1 on a free port). Non-loopback
    /// addresses are refused (ADMIN-10).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<String>,
    /// Gateway listen address (default: 127.0.0.1 on a free port; loopback only).
    #[arg(long, value_name = "ADDR:PORT")]
    pub gateway_listen: Option<String>,
}

/// Arguments of `ploy status`.
#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// Print machine-readable JSON (running, pid, api_port, gateway_port).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy exec`.
#[derive(Debug, clap::Args)]
pub struct ExecArgs {
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<String>,
}

pub fn serve(_args: ServeArgs) -> ExitCode {
    super::not_built("serve")
}

pub fn status(_args: StatusArgs) -> ExitCode {
    super::not_built("status")
}

pub fn exec(_args: ExecArgs) -> ExitCode {
    super::not_built("exec")
}
