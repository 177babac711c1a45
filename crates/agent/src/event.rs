//! The event stream: what happens in a run, one value per step. `--mode
//! json` prints each as one JSON line (schemas in docs/rpc.md); `-p` prints
//! only the answer; the interactive and RPC faces (later) read the same
//! events. Every text in an event has passed the redactor.

use serde::Serialize;
use serde_json::Value;

/// One event. Serialized with a `type` field naming the variant.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The run started: which conversation, which project, whether it is
    /// already marked (TAINT-2: a continued conversation keeps its marks).
    Session {
        /// The conversation id.
        conversation_id: String,
        /// The canonical project folder.
        project: String,
        /// True when the conversation carries a `ploy_tainted` mark.
        tainted: bool,
    },
    /// A piece of the model's streamed text.
    MessageDelta {
        /// The new text.
        text: String,
    },
    /// A whole message (the prompt, or the model's text of one turn).
    Message {
        /// `user` or `assistant`.
        role: String,
        /// The text.
        text: String,
    },
    /// The model called a tool.
    ToolCall {
        /// The model's id for the call.
        id: String,
        /// The tool.
        name: String,
        /// The arguments (as parsed JSON when they parse, else the raw text).
        args: Value,
    },
    /// The permission decision on a tool call (PERM-1).
    Decision {
        /// The call's id.
        id: String,
        /// `allow`, `ask` or `deny`.
        verdict: String,
        /// The requirement ID that decided (`PERM-3`, `PERM-5`, ...).
        rule: String,
        /// Why, in one sentence.
        reason: String,
        /// The answers a person could give (`once`, `always`, `reject`);
        /// empty unless `ask`.
        options: Vec<String>,
    },
    /// A tool's result as the model sees it (redacted, capped).
    ToolResult {
        /// The call's id.
        id: String,
        /// False for a refusal or an error.
        ok: bool,
        /// The text given to the model.
        output: String,
    },
    /// The conversation was marked `ploy_tainted` (TAINT-1).
    Mark {
        /// Why.
        reason: String,
        /// What set it.
        source: String,
    },
    /// The final answer of the prompt.
    Answer {
        /// The text.
        text: String,
    },
    /// Something went wrong (the model, a limit, the store).
    Error {
        /// What, for a person.
        message: String,
        /// The requirement ID or limit, when one applies.
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
    /// The run ended with this exit code.
    End {
        /// 0 answered, 1 model/runtime error, 2 usage, 3 limit, 130 interrupted.
        exit_code: i32,
    },
}

impl Event {
    /// Every event's `type` name (docs/rpc.md documents each; a test checks
    /// that the two lists agree).
    pub const KINDS: [&'static str; 10] = [
        "session",
        "message_delta",
        "message",
        "tool_call",
        "decision",
        "tool_result",
        "mark",
        "answer",
        "error",
        "end",
    ];

    /// The event's `type` name.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Session { .. } => "session",
            Event::MessageDelta { .. } => "message_delta",
            Event::Message { .. } => "message",
            Event::ToolCall { .. } => "tool_call",
            Event::Decision { .. } => "decision",
            Event::ToolResult { .. } => "tool_result",
            Event::Mark { .. } => "mark",
            Event::Answer { .. } => "answer",
            Event::Error { .. } => "error",
            Event::End { .. } => "end",
        }
    }

    /// The event as one JSON line (no trailing newline).
    pub fn to_json_line(&self) -> String {
        // Serializing these plain values cannot fail; if it ever did, the
        // line says so rather than vanishing.
        serde_json::to_string(self).unwrap_or_else(|err| {
            format!(r#"{{"type":"error","message":"event could not be serialized: {err}"}}"#)
        })
    }
}

/// Where events go. Implementations must be cheap and must not block for
/// long (the loop calls them inline).
pub trait EventSink: Send + Sync {
    /// Receive one event.
    fn emit(&self, event: &Event);
}

/// Drops every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: &Event) {}
}

/// Keeps every event (tests, embedding).
#[derive(Debug, Default)]
pub struct CollectEvents(std::sync::Mutex<Vec<Event>>);

impl CollectEvents {
    /// The events so far.
    pub fn events(&self) -> Vec<Event> {
        self.0.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

impl EventSink for CollectEvents {
    fn emit(&self, event: &Event) {
        if let Ok(mut events) = self.0.lock() {
            events.push(event.clone());
        }
    }
}
