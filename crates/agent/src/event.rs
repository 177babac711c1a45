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

    /// The event as one JSON line (no trailing newline), [`json_line`].
    pub fn to_json_line(&self) -> String {
        json_line(self)
    }
}

/// `value` as one JSON line (no trailing newline) that is safe on a
/// terminal: besides JSON's own escapes (controls below U+0020, `"`, `\`),
/// every character that [`ploy_text::is_shown`] does not show (DEL, C1
/// controls such as U+009B, bidi controls, zero-width and tag characters,
/// U+2028/U+2029) is written as a `\uXXXX` escape. A JSON reader gets the
/// same string; a person who runs `--mode json` or `--json` on a terminal
/// never has it act on their terminal (tui-rpc #2).
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(128);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, ScreenSafe);
    // Serializing these plain values cannot fail; if it ever did, the line
    // says so rather than vanishing.
    if let Err(err) = value.serialize(&mut serializer) {
        return format!(r#"{{"type":"error","message":"event could not be serialized: {err}"}}"#);
    }
    // Only whole UTF-8 slices and ASCII escapes were written.
    String::from_utf8(out)
        .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

/// serde_json's compact output with every character a terminal would not
/// show as itself escaped (see [`json_line`]).
struct ScreenSafe;

impl serde_json::ser::Formatter for ScreenSafe {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if ploy_text::is_shown(c) {
                continue;
            }
            writer.write_all(&fragment.as_bytes()[start..at])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            start = at + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    // proves: PERM-3 (tui-rpc #2: JSON lines carry no raw terminal control;
    // a JSON reader gets the exact text back)
    #[test]
    fn json_lines_escape_what_a_terminal_would_act_on() {
        let text =
            "a\u{1b}]52;c;ZXZpbA==\u{7}\u{9b}2J\u{7f}\u{202e}\u{200b}\u{2028}\u{e0041}\t⚠ é 中";
        let line = json_line(&Event::Answer { text: text.into() });
        for c in line.chars() {
            assert!(
                ploy_text::is_shown(c),
                "U+{:04X} raw in {line}",
                u32::from(c)
            );
        }
        assert!(
            line.contains("\\u001b") && line.contains("\\u009b"),
            "{line}"
        );
        assert!(line.contains("\\udb40\\udc41"), "{line}");
        assert!(line.contains("⚠ é 中"), "{line}");
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["text"], text);
        assert_eq!(
            Event::End { exit_code: 0 }.to_json_line(),
            r#"{"type":"end","exit_code":0}"#
        );
    }
}
