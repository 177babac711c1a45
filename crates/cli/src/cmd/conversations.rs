//! `ploy conversations [list|show ID|rm ID] [--all] [--json]`
//!
//! The agent's conversations with their `ploy_tainted` marks (TAINT-2). A
//! mark is never removed from a conversation; the whole conversation (its
//! messages, tool calls, decisions and marks) may be deleted with `rm`.
//! `list` shows this project's (`--all`: every conversation, research runs
//! included). Everything printed passes the redactor, then the terminal
//! escaper (titles, messages, tool arguments and reasons hold what a person,
//! the model or a page wrote: `printable`, and for `--json` `json_line`'s
//! escapes; tui-rpc #2). Exit 0 done, 1 failed (an unknown ID, the store),
//! 2 usage.

use std::process::ExitCode;

use ploy_agent::ask::printable;
use ploy_agent::event::json_line;
use ploy_secrets::Redactor;
use ploy_store::{ConversationSummary, Store, StoreError};
use serde_json::json;

/// The store, the canonical project folder and the process redactor.
pub(crate) struct Local {
    pub(crate) store: Store,
    pub(crate) project: String,
    pub(crate) redactor: Redactor,
}

/// A failure: exit code, message, hint (may be empty).
pub(crate) type Problem = (u8, String, String);

/// Print a failure on stderr and return its exit code.
pub(crate) fn fail(problem: &Problem) -> ExitCode {
    let (code, message, hint) = problem;
    eprintln!("ploy: {}", printable(message));
    if !hint.is_empty() {
        eprintln!("hint: {}", printable(hint));
    }
    ExitCode::from(*code)
}

impl Local {
    /// Open the store in the state folder; the project is the canonical
    /// current directory (as `ploy -p` keys it).
    pub(crate) fn open() -> Result<Local, Problem> {
        let dirs = ploy_trust::PloyDirs::from_env().map_err(|e| {
            (
                2,
                e.to_string(),
                "set PLOY_CONFIG_DIR and PLOY_STATE_DIR".to_string(),
            )
        })?;
        let project = ploy_trust::canonical_dir(std::path::Path::new("."))
            .map_err(|e| (1, e.to_string(), String::new()))?
            .to_string_lossy()
            .into_owned();
        ploy_dirs::ensure_private_dir(&dirs.state)
            .map_err(|e| (1, e.to_string(), String::new()))?;
        let store = Store::open(dirs.state.join("ploy.db")).map_err(|e| {
            (
                1,
                e.to_string(),
                "check that the state folder (PLOY_STATE_DIR) is readable".to_string(),
            )
        })?;
        Ok(Local {
            store,
            project,
            redactor: Redactor::from_process_env().0,
        })
    }
}

/// Arguments of `ploy conversations`.
#[derive(Debug, clap::Args)]
pub struct ConversationsArgs {
    /// What to do (default: list).
    #[command(subcommand)]
    pub action: Option<ConversationsAction>,
    /// Print machine-readable JSON.
    #[arg(long, global = true)]
    pub json: bool,
}

/// What `ploy conversations` does.
#[derive(Debug, clap::Subcommand)]
pub enum ConversationsAction {
    /// List this project's conversations, newest last, with their marks.
    List {
        /// Every conversation, not only this project's.
        #[arg(long)]
        all: bool,
    },
    /// Show one conversation: its marks, messages, tool calls and decisions.
    Show {
        /// The conversation's ID.
        id: String,
    },
    /// Delete one whole conversation (its marks go with it, never alone).
    Rm {
        /// The conversation's ID.
        id: String,
    },
}

fn store_problem(err: StoreError) -> Problem {
    match err {
        StoreError::NoSuchConversation { .. } => (
            1,
            err.to_string(),
            "`ploy conversations list --all` shows every ID".into(),
        ),
        other => (1, other.to_string(), String::new()),
    }
}

/// Run `ploy conversations`.
pub fn run(args: ConversationsArgs) -> ExitCode {
    let mut local = match Local::open() {
        Ok(local) => local,
        Err(problem) => return fail(&problem),
    };
    let done = match args
        .action
        .unwrap_or(ConversationsAction::List { all: false })
    {
        ConversationsAction::List { all } => list(&local, all, args.json),
        ConversationsAction::Show { id } => show(&local, &id, args.json),
        ConversationsAction::Rm { id } => remove(&mut local, &id, args.json),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => fail(&problem),
    }
}

fn list(local: &Local, all: bool, json: bool) -> Result<(), Problem> {
    let listed = if all {
        local.store.list_conversations()
    } else {
        local.store.conversations_in(&local.project)
    };
    let conversations = listed.map_err(store_problem)?;
    let mut rows = Vec::new();
    for conversation in &conversations {
        let marks = local.store.marks(&conversation.id).map_err(store_problem)?;
        rows.push((conversation, marks));
    }
    if json {
        let rows: Vec<_> = rows
            .iter()
            .map(|(c, marks)| summary_json(local, c, marks))
            .collect();
        println!(
            "{}",
            json_line(&json!({"project": local.project, "conversations": rows}))
        );
        return Ok(());
    }
    if rows.is_empty() {
        println!("no conversations for {}", printable(&local.project));
    }
    for line in text_rows(local, &rows) {
        println!("{line}");
    }
    Ok(())
}

/// One line per conversation: id, title and, when marked, the mark as every
/// face shows it (`⚠ tainted: read https://…`, ploy_agent::ask::mark_label),
/// redacted and [`printable`].
pub(crate) fn text_rows(
    local: &Local,
    rows: &[(&ConversationSummary, Vec<ploy_policy::TaintMark>)],
) -> Vec<String> {
    rows.iter()
        .map(|(conversation, marks)| {
            let mark = if marks.is_empty() {
                String::new()
            } else {
                format!(
                    "  {}",
                    local.redactor.redact(&ploy_agent::ask::mark_label(marks))
                )
            };
            let row = format!(
                "{}  {}{mark}",
                conversation.id,
                local.redactor.redact(&conversation.title)
            );
            printable(&row).into_owned()
        })
        .collect()
}

/// This project's conversations as [`text_rows`] (the interactive
/// `/conversations`).
pub(crate) fn project_rows(local: &Local) -> Result<Vec<String>, Problem> {
    let conversations = local
        .store
        .conversations_in(&local.project)
        .map_err(store_problem)?;
    let mut rows = Vec::new();
    for conversation in &conversations {
        let marks = local.store.marks(&conversation.id).map_err(store_problem)?;
        rows.push((conversation, marks));
    }
    Ok(text_rows(local, &rows))
}

fn summary_json(
    local: &Local,
    conversation: &ConversationSummary,
    marks: &[ploy_policy::TaintMark],
) -> serde_json::Value {
    json!({
        "id": conversation.id,
        "title": local.redactor.redact(&conversation.title),
        "created_at": conversation.created_at,
        "project": conversation.project,
        "tainted": !marks.is_empty(),
        "marks": marks.iter().map(|m| json!({
            "reason": local.redactor.redact(&m.reason),
            "source": m.source.to_string(),
        })).collect::<Vec<_>>(),
    })
}

fn show(local: &Local, id: &str, json: bool) -> Result<(), Problem> {
    let conversation = local.store.conversation(id).map_err(store_problem)?;
    let marks = local.store.marks(id).map_err(store_problem)?;
    let messages = local.store.messages(id).map_err(store_problem)?;
    let calls = local.store.tool_calls(id).map_err(store_problem)?;
    let decisions = local.store.decisions(id).map_err(store_problem)?;
    let redact = |text: &str| local.redactor.redact(text).into_owned();
    // What a person reads: redacted, then escaped for the terminal.
    let shown = |text: &str| printable(&local.redactor.redact(text)).into_owned();
    if json {
        let value = json!({
            "conversation": summary_json(local, &conversation, &marks),
            "messages": messages.iter().map(|m| json!({
                "id": m.id,
                "role": m.role,
                "content": redact(&m.content),
                "meta": m.meta.as_deref().map(redact),
                "created_at": m.created_at,
            })).collect::<Vec<_>>(),
            "tool_calls": calls.iter().map(|c| json!({
                "id": c.call_id,
                "name": c.name,
                "args": redact(&c.args),
                "created_at": c.created_at,
            })).collect::<Vec<_>>(),
            "decisions": decisions.iter().map(|d| json!({
                "id": d.call_id,
                "verdict": d.verdict,
                "rule": d.rule,
                "reason": redact(&d.reason),
                "answer": d.answer,
                "created_at": d.created_at,
            })).collect::<Vec<_>>(),
        });
        println!("{}", json_line(&value));
        return Ok(());
    }
    println!(
        "conversation {}  {}",
        conversation.id,
        shown(&conversation.title)
    );
    println!(
        "project: {}",
        shown(conversation.project.as_deref().unwrap_or("(none)"))
    );
    if marks.is_empty() {
        println!("marks: none");
    }
    for mark in &marks {
        println!(
            "⚠ tainted: {} ({})",
            shown(&mark.reason),
            shown(&mark.source.to_string())
        );
    }
    for message in &messages {
        println!("--- {:?} #{}", message.role, message.id);
        if !message.content.is_empty() {
            println!("{}", shown(&message.content));
        }
        if let Some(meta) = &message.meta {
            println!("  {}", shown(meta));
        }
    }
    for decision in &decisions {
        let call = calls.iter().find(|c| c.call_id == decision.call_id);
        println!(
            "decision {}: {} {} → {} ({}: {}){}",
            shown(&decision.call_id),
            call.map(|c| shown(&c.name)).unwrap_or_else(|| "?".into()),
            call.map(|c| shown(&c.args)).unwrap_or_default(),
            shown(&decision.verdict),
            shown(&decision.rule),
            shown(&decision.reason),
            decision
                .answer
                .as_deref()
                .map(|a| format!(", answer: {}", shown(a)))
                .unwrap_or_default()
        );
    }
    Ok(())
}

fn remove(local: &mut Local, id: &str, json: bool) -> Result<(), Problem> {
    match local.store.delete_conversation(id).map_err(store_problem)? {
        true => {
            if json {
                println!("{}", json_line(&json!({"removed": id})));
            } else {
                println!(
                    "removed conversation {id} (its messages, tool calls, decisions and marks)"
                );
            }
            Ok(())
        }
        false => Err((
            1,
            format!("there is no conversation {id}"),
            "`ploy conversations list --all` shows every ID".into(),
        )),
    }
}
