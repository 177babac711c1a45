//! ploy-proof: the one door to running commands.
//!
//! * [`proof_run`] and [`plan`]: proofs validated by `ploy-validate` (PROOF-1..5),
//!   then the validated plan run in the sandbox (PROOF-6).
//! * [`pytest_config`]: the pytest configuration files a proof's pytest run
//!   would read, judged before the run and in the sandbox (PROOF-5).
//! * [`git_index`]: git index flags that hide changes from git proofs (PROOF-5).
//! * [`sandbox`]: the Linux sandbox that fails closed (SBX-1..5, BEYOND-3, BEYOND-4).
//! * [`host_command`]: the agent's `shell` under `danger-full-access` (host,
//!   unsandboxed, environment filtered, process group killed at the end).
//! * [`host`]: launching user-approved helper programs (extensions) outside the
//!   sandbox, kept here so that every process spawn lives in this one crate.
//! * [`exec`] and [`contain`]: `ploy exec`, a program started with ploy's own
//!   folders hidden and without `PLOY_*` variables (SVC-1).
//! * [`own`]: this binary started again (`ploy redteam` drives the real
//!   faces of the agent as child processes).

pub mod contain;
pub mod exec;
pub mod git_index;
pub mod host;
pub mod host_command;
pub mod own;
pub mod plan;
pub mod proof_run;
pub mod pytest_config;
pub mod sandbox;
