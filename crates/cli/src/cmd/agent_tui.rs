//! `ploy` alone: the interactive terminal.

use std::process::ExitCode;

use ploy_secrets::SharedRedactor;

use super::agent::{AgentArgs, Failure};

/// Run the interactive terminal.
pub(crate) fn run(_args: &AgentArgs, _log: Option<&SharedRedactor>) -> Result<ExitCode, Failure> {
    Err(Failure {
        code: 2,
        message: "the interactive mode is not available yet; run one prompt with `ploy -p \"PROMPT\"`, or many with `ploy --mode rpc`".into(),
        hint: None,
    })
}
