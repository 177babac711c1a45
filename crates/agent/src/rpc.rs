//! `--mode rpc`: the protocol, without I/O (docs/rpc.md).
//!
//! Framing as pi's RPC: one JSON object per line, LF-delimited, a trailing
//! `\r` stripped; lines are split on the byte `\n` only, so U+2028 and
//! U+2029 (valid inside JSON strings) never split a command.
//!
//! Commands: `prompt{message}`, `approve{id, answer, message?}`, `abort`,
//! `get_state`, `new_conversation`, `resume{conversation_id}`, each with an
//! optional `id` echoed in its `response{id, command, success, data?|error?}`
//! (for `approve`, `id` names the approval request it answers). Events are
//! those of `--mode json`, plus `approval_request`, which waits for an
//! `approve`.
//!
//! [`RpcApprover`] is the RPC face of [`Approver`]: it only carries the
//! question out and the answer back. The decision stays with
//! `Permission::assert` through the dispatcher; an answer that was not
//! offered (`always` in a tainted conversation) is refused here with an
//! error response and the request keeps waiting (PERM-5), and the
//! dispatcher would refuse to save it anyway.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use ploy_policy::AskOption;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::approve::{Answer, ApprovalRequest, Approver};
use crate::ask::{AnswerError, check_answer, option_name, why_no_always};
use crate::tool::BoxFuture;

/// The longest command line accepted (a prompt may carry a file).
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// Every command's `type`.
pub const COMMANDS: [&str; 6] = [
    "prompt",
    "approve",
    "abort",
    "get_state",
    "new_conversation",
    "resume",
];

/// The events only RPC sends (besides `--mode json`'s).
pub const RPC_EVENTS: [&str; 2] = ["response", "approval_request"];

/// An answer as sent in `approve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerName {
    /// Run this call.
    Once,
    /// Run it and save a narrow approval.
    Always,
    /// Do not run it.
    Reject,
}

impl AnswerName {
    fn option(self) -> AskOption {
        match self {
            AnswerName::Once => AskOption::Once,
            AnswerName::Always => AskOption::Always,
            AnswerName::Reject => AskOption::Reject,
        }
    }
}

/// One command.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Run a prompt in the current conversation (a new one if none is open).
    Prompt {
        /// Echoed in the response.
        id: Option<String>,
        /// The user's message.
        message: String,
    },
    /// Answer an `approval_request`.
    Approve {
        /// The approval request's id (echoed).
        id: String,
        /// `once`, `always` or `reject`.
        answer: AnswerName,
        /// With `reject`: what the model is told.
        message: Option<String>,
    },
    /// Cancel the running prompt (its tool work too).
    Abort {
        /// Echoed in the response.
        id: Option<String>,
    },
    /// The conversation, its mark, the profile, whether a prompt runs.
    GetState {
        /// Echoed in the response.
        id: Option<String>,
    },
    /// Start a new conversation.
    NewConversation {
        /// Echoed in the response.
        id: Option<String>,
    },
    /// Continue a conversation of this project (its marks come with it).
    Resume {
        /// Echoed in the response.
        id: Option<String>,
        /// The conversation.
        conversation_id: String,
    },
}

impl Command {
    /// The command's `type`.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Prompt { .. } => "prompt",
            Command::Approve { .. } => "approve",
            Command::Abort { .. } => "abort",
            Command::GetState { .. } => "get_state",
            Command::NewConversation { .. } => "new_conversation",
            Command::Resume { .. } => "resume",
        }
    }

    /// The id to echo.
    pub fn id(&self) -> Option<&str> {
        match self {
            Command::Approve { id, .. } => Some(id),
            Command::Prompt { id, .. }
            | Command::Abort { id }
            | Command::GetState { id }
            | Command::NewConversation { id }
            | Command::Resume { id, .. } => id.as_deref(),
        }
    }
}

/// A line that is not a command: the error response to send.
#[derive(Debug, Clone, PartialEq)]
pub struct BadLine {
    /// The `id` when one could be read.
    pub id: Option<String>,
    /// The `type` when one could be read (else `"unknown"`).
    pub command: String,
    /// What is wrong.
    pub error: String,
}

/// Strips the frame of one line as read up to (and without) its `\n`: a
/// trailing `\r` goes. Nothing else is touched (U+2028/2029 stay inside).
pub fn unframe(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Parses one line (already unframed). Empty lines are `Ok(None)`.
pub fn parse_line(line: &[u8]) -> Result<Option<Command>, BadLine> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let bad = |id: Option<String>, command: &str, error: String| BadLine {
        id,
        command: command.to_string(),
        error,
    };
    let text = std::str::from_utf8(line)
        .map_err(|_| bad(None, "unknown", "the line is not UTF-8".into()))?;
    let value = match serde_json::from_str::<Unique>(text) {
        Ok(Unique(value)) => value,
        // Which of two `type`s, `id`s or `answer`s was meant cannot be
        // known (a reader of the first sees another command than one of the
        // last): the whole line is refused and echoes neither (tui-rpc #5).
        Err(e) if e.to_string().starts_with(REPEATED) => {
            return Err(bad(
                None,
                "unknown",
                format!("{e}; a command with a repeated key is refused, nothing was done"),
            ));
        }
        Err(e) => {
            return Err(bad(
                None,
                "unknown",
                format!("the line is not one JSON object ({e})"),
            ));
        }
    };
    let id = value.get("id").and_then(Value::as_str).map(str::to_string);
    let command = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    if !value.is_object() {
        return Err(bad(id, &command, "a command is a JSON object".into()));
    }
    if !COMMANDS.contains(&command.as_str()) {
        return Err(bad(
            id,
            &command,
            format!(
                "unknown command type `{command}`; the commands are: {}",
                COMMANDS.join(", ")
            ),
        ));
    }
    serde_json::from_value(value)
        .map(Some)
        .map_err(|e| bad(id, &command, format!("bad `{command}` command: {e}")))
}

/// How [`Unique`]'s refusal begins.
const REPEATED: &str = "a repeated key";

/// A JSON value parsed with every object's keys checked for repeats, at any
/// depth (serde_json keeps the last of two equal keys and has no option to
/// refuse them; docs/rpc.md: a command with a repeated key is refused).
struct Unique(Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Unique(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "{REPEATED}: `{}` appears twice in one object",
                    key.escape_debug()
                )));
            }
            let Unique(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// A `response` line.
pub fn response(id: Option<&str>, command: &str, result: Result<Value, String>) -> Value {
    let mut out = json!({"type": "response", "command": command});
    if let Some(id) = id {
        out["id"] = json!(id);
    }
    match result {
        Ok(Value::Null) => out["success"] = json!(true),
        Ok(data) => {
            out["success"] = json!(true);
            out["data"] = data;
        }
        Err(error) => {
            out["success"] = json!(false);
            out["error"] = json!(error);
        }
    }
    out
}

/// The `approval_request` event for `request`, under approval id `id`.
pub fn approval_request_event(id: &str, request: &ApprovalRequest) -> Value {
    let mut out = json!({
        "type": "approval_request",
        "id": id,
        "call_id": request.call_id,
        "tool": request.tool,
        "target": request.target,
        "kinds": request.kinds.to_string(),
        "rule": request.rule,
        "reason": request.reason,
        "units": request.units,
        "options": request.options.iter().map(|o| option_name(*o)).collect::<Vec<_>>(),
    });
    if !request.notes.is_empty() {
        out["notes"] = json!(request.notes);
    }
    if let Some(diff) = &request.diff {
        out["diff"] = json!(diff);
    }
    if !request.always_scope.is_empty() {
        out["always_scope"] = json!(request.always_scope);
    }
    if let Some(why) = why_no_always(request) {
        out["no_always"] = json!(why);
    }
    out
}

/// Where RPC lines go (stdout in the binary).
pub trait LineOut: Send + Sync {
    /// Write one JSON value as one line.
    fn line(&self, value: &Value);
}

struct Pending {
    request: ApprovalRequest,
    reply: oneshot::Sender<Answer>,
}

/// The RPC [`Approver`]: sends `approval_request`, waits for `approve`.
pub struct RpcApprover {
    out: std::sync::Arc<dyn LineOut>,
    can_answer: bool,
    pending: Mutex<HashMap<String, Pending>>,
    next: AtomicU64,
}

impl std::fmt::Debug for RpcApprover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpcApprover")
            .field("can_answer", &self.can_answer)
            .finish_non_exhaustive()
    }
}

impl RpcApprover {
    /// An approver writing requests to `out`. `can_answer` is false when the
    /// profile's approval mode is `never` (every ask is then a refusal).
    pub fn new(out: std::sync::Arc<dyn LineOut>, can_answer: bool) -> Self {
        Self {
            out,
            can_answer,
            pending: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
        }
    }

    /// Answer the request `id`. An unknown id, or an answer that was not
    /// offered, is refused (PERM-5); a refused answer leaves the request
    /// waiting.
    pub fn answer(
        &self,
        id: &str,
        answer: AnswerName,
        message: Option<String>,
    ) -> Result<(), AnswerError> {
        let mut pending = self.pending.lock().map_err(|_| AnswerError {
            rule: "PERM-5",
            message: "the approval state is unusable".into(),
        })?;
        let Some(entry) = pending.get(id) else {
            return Err(AnswerError {
                rule: "PERM-5",
                message: format!("no approval request with id `{id}` is waiting"),
            });
        };
        let answer = check_answer(&entry.request, answer.option(), message)?;
        if let Some(entry) = pending.remove(id) {
            // The prompt may have been aborted meanwhile: nothing waits.
            let _ = entry.reply.send(answer);
        }
        Ok(())
    }

    /// The ids of the requests waiting for an answer.
    pub fn pending_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .pending
            .lock()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        ids.sort();
        ids
    }

    /// Forget every waiting request (the prompt ended or was aborted: its
    /// asks are answered by nobody, i.e. rejected).
    pub fn clear(&self) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.clear();
        }
    }
}

impl Approver for RpcApprover {
    fn can_answer(&self) -> bool {
        self.can_answer
    }

    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let id = format!("ask-{}", self.next.fetch_add(1, Ordering::Relaxed));
            let (reply, answered) = oneshot::channel();
            match self.pending.lock() {
                Ok(mut pending) => {
                    pending.insert(
                        id.clone(),
                        Pending {
                            request: request.clone(),
                            reply,
                        },
                    );
                }
                Err(_) => {
                    return Answer::Reject {
                        message: Some("the approval state is unusable".into()),
                    };
                }
            }
            self.out.line(&approval_request_event(&id, request));
            // A dropped sender (cleared, the client gone) is a rejection.
            answered.await.unwrap_or(Answer::Reject { message: None })
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn framing_strips_cr_and_keeps_line_separators() {
        assert_eq!(unframe(b"{}\r"), b"{}");
        let line = "{\"type\":\"prompt\",\"message\":\"a\u{2028}b\u{2029}c\"}".as_bytes();
        let cmd = parse_line(unframe(line)).unwrap().unwrap();
        assert_eq!(
            cmd,
            Command::Prompt {
                id: None,
                message: "a\u{2028}b\u{2029}c".into()
            }
        );
        assert_eq!(parse_line(b"  ").unwrap(), None);
    }

    #[test]
    fn bad_lines_name_what_is_wrong() {
        let err = parse_line(br#"{"type":"fly","id":"7"}"#).unwrap_err();
        assert_eq!(err.id.as_deref(), Some("7"));
        assert!(err.error.contains("unknown command type"));
        let err = parse_line(br#"{"type":"prompt","id":"8"}"#).unwrap_err();
        assert_eq!(err.command, "prompt");
        assert!(err.error.contains("message"), "{}", err.error);
        let err = parse_line(br#"{"type":"approve","id":"a","answer":"sometimes"}"#).unwrap_err();
        assert_eq!(err.command, "approve");
        let err = parse_line(br#"{"type":"abort","extra":1}"#).unwrap_err();
        assert!(err.error.contains("extra"), "{}", err.error);
        assert!(parse_line(b"[1]").is_err());
        assert!(parse_line(b"\xff").is_err());
    }

    // proves: PERM-5 (tui-rpc #5: a repeated key, `type`, `id` or `answer`,
    // at any depth, refuses the whole line; nothing is taken as the last)
    #[test]
    fn a_repeated_key_refuses_the_line() {
        for line in [
            r#"{"type":"get_state","id":"g","type":"approve","id":"ask-1","answer":"once"}"#,
            r#"{"type":"approve","id":"ask-1","answer":"reject","answer":"once"}"#,
            r#"{"type":"approve","id":"ask-1","answer":"once","id":"ask-999"}"#,
            r#"{"type":"prompt","message":"hi","x":{"a":1,"a":2}}"#,
            r#"{"type":"prompt","message":"hi","x":[{"k":[{"b":1,"b":1}]}]}"#,
        ] {
            let err = parse_line(line.as_bytes()).unwrap_err();
            assert_eq!((err.id, err.command.as_str()), (None, "unknown"), "{line}");
            assert!(err.error.contains("appears twice"), "{line}: {}", err.error);
        }
        // Without a repeat the values are kept exactly (escapes, numbers).
        let cmd = parse_line(
            br#"{"type":"approve","id":"ask-1","answer":"reject","message":"no\u0000 1.5e3"}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            cmd,
            Command::Approve {
                id: "ask-1".into(),
                answer: AnswerName::Reject,
                message: Some("no\u{0} 1.5e3".into())
            }
        );
    }
}
