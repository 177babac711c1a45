//! ploy-agent: the agent loop.
//!
//! A model proposes tool calls; this crate makes each one walk through the
//! doors, and nothing else:
//!
//! 1. [`dispatch`]: the ONE path from a tool call to a side effect. The tool
//!    parses its arguments and classifies them into `ploy_policy::Action`s
//!    ([`tool::Tool::prepare`]); [`ploy_policy::Permission::assert`] decides;
//!    an `Ask` goes to the [`approve::Approver`] (in `-p` and `--mode json`
//!    nobody can answer, so it is a structured refusal, PERM-5); only an
//!    allowed call gets the [`tool::Cleared`] token that
//!    [`tool::Tool::run`] requires, and only the dispatcher can make one.
//! 2. Every result passes the redactor, then the 50 KiB cap (redaction first,
//!    so a cut never leaves half a secret), before the model or the store
//!    sees it ([`dispatch::finish_output`]).
//! 3. [`tools`]: `read`, `list`, `glob`, `grep`, `edit`, `write`, `shell`,
//!    `web_fetch`, `web_search`, `research`, `plan_add_step`, `plan_check`.
//! 4. [`window`]: what the model sees of a long conversation (the store
//!    keeps everything).
//! 5. [`limits`]: turns, wall time, the loop guard.
//! 6. [`event`]: the event stream (`--mode json`, docs/rpc.md).
//!
//! 7. [`ask`]: the approval prompt as pure code (what a person is shown,
//!    which answers are accepted), shared by the terminal and [`rpc`].
//! 8. [`rpc`]: `--mode rpc`'s protocol and its [`approve::Approver`].
//!
//! Extension points: a face implements [`approve::Approver`]; more tools (browser, memory) implement
//! [`tool::Tool`] and are added to the [`tool::Registry`].

pub mod approve;
pub mod ask;
pub mod config;
pub mod connect;
pub mod dispatch;
pub mod event;
pub mod history;
pub mod limits;
pub mod marker;
pub mod rpc;
pub mod session;
pub mod tool;
pub mod tools;
pub mod window;
