//! ploy-redteam: `ploy redteam`, ploy's demonstration of its main job. It
//! runs attack scenarios end to end against the real runtime (the `ploy`
//! binary itself, its store, sandbox and unchanged egress door) with a
//! model that obeys every injection (`ploy-scripted-model`), on this
//! machine, with no model and no network.
//!
//! * [`scenario`]: the scenarios as data (vector, goal, the rule expected
//!   to stop it, the orders) and the layout of each carrier; every
//!   scenario has a benign twin (the same task, no orders) that must
//!   complete, so false blocks show.
//! * [`families`]: the scenario families of secrets5 #9: the judge alone
//!   (no sandbox), secrets in project files, transformed secrets, the hook
//!   face and the `ploy mcp` face.
//! * [`faces`]: the scripted Claude Code in front of `ploy hook
//!   claude-code` and the scripted MCP client of `ploy mcp`.
//! * [`world`]: the private user + network namespace the process enters,
//!   with public-looking addresses routed to its own sockets (netlink, in
//!   process). No test seam is compiled into ploy: the fixture sites are,
//!   to the egress door, hosts on the internet.
//! * [`sites`]: the fixture sites and the sink (every request recorded).
//! * [`round9`]: round 9's outside attack as scenarios (options and
//!   variables that run commands, `xargs` input, venv start-up files).
//! * [`run`]: the runner (each run a fresh project, home and state; `ploy`
//!   started through the process door) and the judging on real effects.
//! * [`judge`]: pure judging (what stopped a call; whether a request
//!   carried a canary in any encoding).
//! * [`report`]: the table, the JSON lines and the summary.

pub mod faces;
pub mod families;
pub mod judge;
pub mod report;
pub mod round9;
pub mod run;
pub mod scenario;
pub mod sites;
pub mod world;
