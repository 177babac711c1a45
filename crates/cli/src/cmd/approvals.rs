//! `ploy approvals [list|revoke ID] [--all] [--json]`
//!
//! The approvals a person saved with `always` (PERM-5): each narrow (one
//! program with its fixed arguments, one path or one URL) and scoped to the
//! project it was given in; they never outrank a deny and are ignored in a
//! tainted conversation (PERM-3/4). `list` shows this project's (`--all`:
//! every project's); `revoke ID` removes one. What is listed holds a
//! command line, a path or a URL the model chose: printed redacted and
//! `printable` (`--json`: `json_line`'s escapes), so a saved approval cannot
//! act on the terminal or erase its own line (tui-rpc #2). Exit 0 done,
//! 1 failed (an unknown ID, the store), 2 usage.

use std::process::ExitCode;

use ploy_agent::ask::printable;
use ploy_agent::event::json_line;
use ploy_policy::Approval;
use ploy_store::SavedApproval;
use serde_json::json;

use super::conversations::{Local, fail};

/// Arguments of `ploy approvals`.
#[derive(Debug, clap::Args)]
pub struct ApprovalsArgs {
    /// What to do (default: list).
    #[command(subcommand)]
    pub action: Option<ApprovalsAction>,
    /// Print machine-readable JSON.
    #[arg(long, global = true)]
    pub json: bool,
}

/// What `ploy approvals` does.
#[derive(Debug, clap::Subcommand)]
pub enum ApprovalsAction {
    /// List the saved approvals of this project.
    List {
        /// Every project's approvals, not only this one's.
        #[arg(long)]
        all: bool,
    },
    /// Remove one saved approval by its ID.
    Revoke {
        /// The approval's ID (from `ploy approvals list`).
        id: i64,
    },
}

/// One line saying what an approval allows (shared with the approval prompt).
pub fn describe(approval: &Approval) -> String {
    ploy_agent::approve::describe_approval(approval)
}

fn as_json(saved: &SavedApproval) -> serde_json::Value {
    json!({
        "id": saved.id,
        "scope": saved.approval.scope,
        "grant": saved.approval.grant,
        "project": saved.project,
        "created_at": saved.created_at,
        "description": describe(&saved.approval),
    })
}

/// Run `ploy approvals`.
pub fn run(args: ApprovalsArgs) -> ExitCode {
    let mut local = match Local::open() {
        Ok(local) => local,
        Err(failure) => return fail(&failure),
    };
    match args.action.unwrap_or(ApprovalsAction::List { all: false }) {
        ApprovalsAction::List { all } => {
            let listed = if all {
                local.store.approvals()
            } else {
                local.store.approvals_in(&local.project)
            };
            let saved = match listed {
                Ok(saved) => saved,
                Err(err) => return fail(&(1, err.to_string(), String::new())),
            };
            if args.json {
                let rows: Vec<_> = saved.iter().map(as_json).collect();
                println!(
                    "{}",
                    json_line(&json!({"project": local.project, "approvals": rows}))
                );
            } else if saved.is_empty() {
                println!("no saved approvals for {}", printable(&local.project));
            } else {
                for entry in &saved {
                    let project = if all {
                        format!("  [{}]", entry.project.as_deref().unwrap_or("no project"))
                    } else {
                        String::new()
                    };
                    let row = format!(
                        "{}{project}",
                        local.redactor.redact(&describe(&entry.approval))
                    );
                    println!("{:>5}  {}", entry.id, printable(&row));
                }
            }
            ExitCode::SUCCESS
        }
        ApprovalsAction::Revoke { id } => match local.store.remove_approval(id) {
            Ok(true) => {
                if args.json {
                    println!("{}", json_line(&json!({"revoked": id})));
                } else {
                    println!("revoked approval {id}");
                }
                ExitCode::SUCCESS
            }
            Ok(false) => fail(&(
                1,
                format!("there is no saved approval {id}"),
                "`ploy approvals list --all` shows every ID".into(),
            )),
            Err(err) => fail(&(1, err.to_string(), String::new())),
        },
    }
}
