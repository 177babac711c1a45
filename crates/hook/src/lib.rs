//! ploy-hook: ploy's rules for the agents people already use.
//!
//! None of the common coding agents has ploy's taint rule: a saved "always
//! allow" keeps working after the agent has read a hostile page. This crate
//! puts ploy's one decision function (`ploy_policy::Permission::assert`) in
//! front of their tool calls, without ploy's own agent loop:
//!
//! * [`claude`]: `ploy hook claude-code`, one command for every Claude Code
//!   hook event (Claude Code's hook JSON on stdin, its answer on stdout);
//! * [`check`]: `ploy hook check --json`, the same judge in a plain format
//!   for other agents (pi extensions, OpenCode plugins, scripts);
//! * [`install`]: `ploy hook install | uninstall | status claude-code`.
//!
//! How a call is judged ([`judge`]): the host's tool call becomes ploy
//! actions ([`map`]); the session (`session_id`) is one ploy conversation in
//! ploy's store ([`session`]), so its `ploy_tainted` mark persists across
//! hook processes and restarts (TAINT-2). A web tool marks the session
//! *before* it runs (TAINT-1; no mark, no fetch: TAINT-3). After that, shell,
//! edit and outside-the-folder calls ask, naming the page, whatever ploy's
//! allow rules and saved approvals say (PERM-3); deny rules still deny;
//! ploy's own files and other agents' resources always ask (PERM-7).
//!
//! What ploy answers: `deny` when ploy refuses; `ask` when ploy knows
//! something the host does not (a mark, a protected path, an ask rule, a
//! part no allow rule may cover, an edit or a path outside the folder the
//! host tool does not show); otherwise nothing, so the host's own
//! permission rules decide: ploy only ever narrows what the host allows.
//! `hook.answer_allow` makes ploy's rules the only ones (`allow` and `ask`).
//!
//! What ploy cannot prevent: Claude Code lets a call proceed when its hook
//! times out, is killed or is not installed; the hook therefore answers in
//! milliseconds, the install sets a timeout, and a call the judge cannot
//! finish within [`serve::BUDGET`] is refused before that timeout (FAIL-1). A shell command is judged by
//! what its text names; what a program does by itself is the sandbox's to
//! contain (`hook.sandbox_bash` runs Bash calls in `ploy sandbox run`).

pub mod check;
pub mod claude;
pub mod config;
pub mod host;
pub mod install;
pub mod judge;
pub mod map;
pub mod path_lookup;
pub mod quote;
pub mod serve;
pub mod session;

pub use claude::HookEnv;
pub use config::{HookConfigError, HookSettings, ToolKind};
pub use judge::{Answer, Call, Context, Refused};
pub use session::Sessions;
