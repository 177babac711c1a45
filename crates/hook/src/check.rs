//! `ploy hook check --json`: the same judge for agents without Claude
//! Code's hook format (a pi extension, an OpenCode plugin, a script).
//!
//! Input (stdin), one JSON object:
//! `{"session": "…", "cwd": "/abs/folder", "kind": "read" | "edit" | "shell"
//! | "web" | "web_search", "target": "path, command line, URL or phrase"}`.
//!
//! Output (stdout), one JSON object, exit code 0:
//! `{"decision": "none" | "allow" | "ask" | "deny", "reason": "…",
//! "requirement": "PERM-3"}`. `none` is the Claude Code adapter's empty
//! answer: ploy's rules let it through, the agent's own rules decide
//! (`allow` instead with `hook.answer_allow`). A `web` or `web_search` check
//! marks the session before answering (call it before fetching: TAINT-1); if
//! the mark cannot be written the answer is `deny` (TAINT-3). Any failure is
//! a `deny` with its reason.

use std::path::Path;

use serde_json::{Value, json};

use crate::claude::{HookEnv, MAX_INPUT_BYTES};
use crate::judge::{Answer, Context, Refused};
use crate::map::generic_call;
use crate::session::Sessions;

/// The agent name generic sessions are stored under.
pub const AGENT: &str = "check";

/// Judge one generic check; returns the JSON line to print. Never fails.
pub fn run(input: &[u8], env: &HookEnv<'_>) -> String {
    let answer = std::panic::catch_unwind(|| judge(input, env)).unwrap_or_else(|_| Answer::Deny {
        reason: "ploy's check failed unexpectedly; refusing".into(),
        requirement: "FAIL-1",
    });
    let redactor = crate::judge::process_env_redactor();
    let (decision, reason, requirement) = match answer {
        Answer::NoDecision => ("none", String::new(), None),
        Answer::Allow { reason } => ("allow", reason, None),
        Answer::Ask {
            reason,
            requirement,
        } => ("ask", reason, Some(requirement)),
        Answer::Deny {
            reason,
            requirement,
        } => ("deny", reason, Some(requirement)),
    };
    json!({
        "decision": decision,
        "reason": redactor.redact(&reason),
        "requirement": requirement,
    })
    .to_string()
}

fn judge(input: &[u8], env: &HookEnv<'_>) -> Answer {
    match parse_and_judge(input, env) {
        Ok(answer) => answer,
        Err(refused) => Answer::from_refused(refused),
    }
}

fn parse_and_judge(input: &[u8], env: &HookEnv<'_>) -> Result<Answer, Refused> {
    if input.len() > MAX_INPUT_BYTES {
        return Err(Refused::new(
            "FAIL-1",
            format!("the check input is larger than {MAX_INPUT_BYTES} bytes"),
        ));
    }
    let value: Value = serde_json::from_slice(input)
        .map_err(|err| Refused::new("FAIL-1", format!("the check input is not JSON ({err})")))?;
    let text = |name: &str| -> Result<&str, Refused> {
        value.get(name).and_then(Value::as_str).ok_or_else(|| {
            Refused::new("FAIL-1", format!("the check input has no `{name}` string"))
        })
    };
    if let Some(object) = value.as_object()
        && let Some(extra) = object
            .keys()
            .find(|k| !matches!(k.as_str(), "session" | "cwd" | "kind" | "target"))
    {
        return Err(Refused::new(
            "FAIL-1",
            format!("unknown field `{extra}` (session, cwd, kind, target)"),
        ));
    }
    let session = text("session")?;
    if session.is_empty() || session.len() > 512 {
        return Err(Refused::new("FAIL-1", "`session` must be 1 to 512 bytes"));
    }
    let dirs = env
        .dirs
        .as_ref()
        .map_err(|err| Refused::new("CONFIG-1", err.clone()))?;
    let ctx = Context::load(dirs, Path::new(text("cwd")?))?;
    let call = generic_call(&ctx, text("kind")?, text("target")?)?;
    let sessions = Sessions::new(&ctx.state_dir, AGENT).binding_ancestors();
    Ok(ctx.judge(&sessions, session, &call))
}
