//! ploy-policy: the decision core. Pure: no I/O, no async, no clock.
//!
//! * [`Action`]: a tool call reduced to kinds (`read`, `edit`, `shell`,
//!   `external_directory`, `web`) and match units (paths, simple commands, URLs).
//! * [`Rules`]: allow / ask / deny layers (defaults < user < project when
//!   trusted), plus the conversation's own rules in [`ConversationRules`].
//! * [`ConversationRules`]: the `ploy_tainted` marks; they only accumulate.
//! * [`Approvals`]: saved answers (once / always).
//! * [`ProtectedPaths::protects`]: THE PERM-7 function (ploy's own files and
//!   other agents' resources); building an [`Action`] marks every unit that
//!   may write one.
//! * [`Permission::assert`]: THE one function, with a fixed order: deny rules →
//!   protected paths (PERM-7) → taint mark → allow/ask rules → saved
//!   approvals → default ask.
//! * [`site_rule`]: THE site rule (BROWSER-2, BEYOND-7): in a tainted
//!   conversation a navigation goes only to a site (registrable domain by
//!   the public suffix list, or the exact address) already visited.
//! * [`Decision::without_user`]: non-interactive callers turn `Ask` into a
//!   structured [`Refusal`] (PERM-5).
//! * [`ExecutionProfile`], [`Settings`], [`resolve`]: the settings format and
//!   its layering (PROFILE-1, PROFILE-2, CONFIG-1).
//!
//! Limits (documented):
//! * path placement is lexical: a symlink inside the project pointing out is
//!   not seen unless the caller passes the resolved path
//!   ([`Action::edit_resolved`], [`Action::shell_resolved`]; the sandbox
//!   guards the rest); relative paths are judged from the project root even
//!   after `cd sub` (conservative: `cd` out of the project is itself
//!   `external_directory`), except that PERM-7 judges a relative write after
//!   a `cd` below every folder the line changes to (and as protected when
//!   the folder is not named);
//! * PERM-7 sees the paths a line names; a program that writes protected
//!   files without naming them (`tar -xf x.tar` at the root, `git checkout
//!   branch`, a script) is not seen: the sandbox keeps those paths read-only
//!   (SBX-6); writers classified by name: `git config`, the tools' own
//!   configuration commands (`npm config set`, `pre-commit install`, …),
//!   patch appliers, and recursive copies whose source folder holds a
//!   protected name (with the caller's listing, [`ShellFacts`]);
//! * reading inside the project is allowed even when tainted (PERM-6);
//! * a command line's reads are judged as `read` units
//!   ([`Action::shell_judged`]): only programs in a fixed table are
//!   believed to read just their operands; any other program may read every
//!   file the read rules guard, so in a project holding a `.env` an allow
//!   rule for `cargo test` no longer runs it without asking (allow the
//!   read, or remove the file). The list of guarded files is the caller's
//!   (one walk of the project per command that needs it, capped);
//!   [`Action::shell`] alone assumes there are none;
//! * an allow rule grants whatever its program can do by itself: `awk *`
//!   allows `system()`, `make *` whatever the Makefile runs. Write narrow
//!   prefixes; the sandbox is the guard for what a program does. For git,
//!   npm and cargo ploy reads the words as the program does
//!   (`subcommand.rs`): deny and ask rules also see `git -C . push` as `git
//!   push`, `npm pub` as `npm publish`, `rm -fr` as `rm -rf`, and a
//!   subcommand ploy cannot name (an alias, `-c` configuration that names a
//!   program, an unknown option before it) asks;
//! * web actions ask by default (no built-in web allow).

// `teeth`: the rules switched off, so `ploy redteam` can show that every
// attack scenario then succeeds (each scenario can fail). Never in a
// release build.
#[cfg(all(feature = "teeth", not(debug_assertions)))]
compile_error!(
    "the `teeth` feature switches ploy's rules off; it is for the redteam CI step only and must never be in a release build"
);

mod action;
mod approvals;
mod conversation;
mod credentials;
mod decision;
mod environment;
mod launchers;
mod network;
mod options;
mod path;
mod permission;
mod profile;
mod protected;
mod reads;
mod rules;
mod settings;
mod shell;
mod site;
mod subcommand;

pub use action::{Action, ActionKind, KindSet, MEMORY_TARGET, MatchUnit, Target};
pub use approvals::{
    Approval, ApprovalError, ApprovalId, ApprovalScope, Approvals, Grant, escape_glob,
};
pub use conversation::{ConversationRules, TAINT_RULE, TaintMark, TaintSource};
pub use credentials::{CredentialPrint, printed_credential};
pub use decision::{AskOption, Basis, Decision, Refusal, Verdict};
pub use environment::{EnvironmentRead, environment_read, environment_read_of};
pub use path::{Placement, ProjectRoot, RootError};
pub use permission::Permission;
pub use profile::{ApprovalMode, ExecutionProfile, ProfileError, SandboxMode};
pub use protected::{GitHooks, PLAN_FILE, PloyFolders, Protected, ProtectedPaths};
pub use reads::GuardedFile;
pub use rules::{
    Effect, ProjectTrust, Rule, RuleError, RuleLayer, RuleSource, Rules, SECRET_FILE_PATTERNS,
    secret_file_patterns,
};
pub use settings::{
    DefaultProjectTrust, ExtensionDecl, MAX_EXTENSION_TIMEOUT_MS, ResolvedSettings,
    SecretsSettings, Settings, SettingsError, Sourced, ValueSource, resolve,
};
pub use shell::ShellFacts;
pub use site::{Site, SiteCheck, SiteError, site_of, site_rule};
