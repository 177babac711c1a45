//! One module per command group. Each owns its clap arguments and a `run`.

pub mod agent;
pub mod agent_rpc;
pub mod agent_tui;
pub mod approvals;
pub mod check_proof;
pub mod config_check;
pub mod config_show;
pub mod conversations;
pub mod hook;
pub mod keys;
pub mod mcp;
pub mod redact;
pub mod redteam;
pub mod research;
pub mod sandbox;
pub mod service;
pub mod trust;
pub mod url;
