//! Reading a streamed reply (pure: bytes in, events out, no I/O).
//!
//! [`SseDecoder`] cuts a `text/event-stream` body into events' `data`
//! texts; [`Assembler`] turns the [`ChatChunk`]s they carry into
//! [`StreamEvent`]s: text as it arrives, and each tool call once it is
//! complete (its pieces are joined first, so a caller never sees half an
//! arguments string). Both enforce size limits: a model is untrusted output.

use std::collections::BTreeMap;

use crate::error::ModelError;
use crate::types::{
    AssistantMessage, ChatChunk, ChatResponse, FinishReason, FunctionCall, ToolCall, ToolKind,
    Usage,
};

/// The most tool calls one turn may carry.
pub const MAX_TOOL_CALLS: usize = 128;

/// One thing that happened in a streamed reply.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// More of the reply's text.
    Text(String),
    /// A complete tool call (id, name, the whole arguments text).
    ToolCall(ToolCall),
    /// The end: the whole reply, assembled. Always the last event.
    Done(Completion),
}

/// A whole model turn: what a non-streamed reply gives at once, and what a
/// stream adds up to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completion {
    /// The assistant message (text and tool calls, in order).
    pub message: AssistantMessage,
    /// Why the model stopped, if it said.
    pub finish_reason: Option<FinishReason>,
    /// Token counts, if reported.
    pub usage: Option<Usage>,
}

impl Completion {
    /// The first choice of a non-streamed reply; a reply with no choice is
    /// not an answer.
    pub fn from_response(response: ChatResponse) -> Result<Self, ModelError> {
        let usage = response.usage;
        let Some(choice) = response.choices.into_iter().next() else {
            return Err(ModelError::BadReply {
                reason: "the reply has no choices".into(),
            });
        };
        Ok(Self {
            message: choice.message,
            finish_reason: choice.finish_reason,
            usage,
        })
    }
}

/// Splits an SSE body into the `data` of each event. Comments, `event:`,
/// `id:` and `retry:` lines are ignored; several `data:` lines of one event
/// are joined with `\n` (the SSE rule).
#[derive(Debug)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: Option<String>,
    max_event: usize,
}

impl SseDecoder {
    /// A decoder refusing any event (or line) longer than `max_event` bytes.
    pub fn new(max_event: usize) -> Self {
        Self {
            line: Vec::new(),
            data: None,
            max_event,
        }
    }

    /// Feeds bytes; returns the events completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<String>, ModelError> {
        let mut events = Vec::new();
        for &byte in bytes {
            if byte != b'\n' {
                self.line.push(byte);
                if self.line.len() > self.max_event {
                    return Err(self.too_large());
                }
                continue;
            }
            if self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
            let line = std::mem::take(&mut self.line);
            if line.is_empty() {
                if let Some(data) = self.data.take() {
                    events.push(data);
                }
                continue;
            }
            let Some(rest) = line.strip_prefix(b"data:") else {
                // A comment (`:`) or a field ploy does not use.
                continue;
            };
            let rest = rest.strip_prefix(b" ").unwrap_or(rest);
            let text = String::from_utf8(rest.to_vec()).map_err(|_| ModelError::BadReply {
                reason: "an event of the stream is not UTF-8".into(),
            })?;
            let data = match &mut self.data {
                Some(data) => {
                    // A second data line of the same event.
                    data.push('\n');
                    data.push_str(&text);
                    data
                }
                None => self.data.insert(text),
            };
            if data.len() > self.max_event {
                return Err(self.too_large());
            }
        }
        Ok(events)
    }

    /// The end of the body: an event left without its blank line still counts.
    pub fn finish(&mut self) -> Result<Option<String>, ModelError> {
        if !self.line.is_empty() {
            self.push(b"\n")?;
        }
        Ok(self.data.take())
    }

    fn too_large(&self) -> ModelError {
        ModelError::TooLarge {
            limit: self.max_event,
        }
    }
}

/// A tool call being assembled from its pieces.
#[derive(Debug, Clone, Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Joins a stream's [`ChatChunk`]s into [`StreamEvent`]s.
#[derive(Debug)]
pub struct Assembler {
    text: String,
    calls: BTreeMap<u32, PartialCall>,
    /// The index of the call receiving pieces. Indices only grow, so a call
    /// is complete once a later one starts.
    current: Option<u32>,
    finish_reason: Option<FinishReason>,
    usage: Option<Usage>,
    size: usize,
    max_size: usize,
    done: bool,
}

impl Assembler {
    /// An assembler refusing a reply whose text, names and arguments add up
    /// to more than `max_size` bytes.
    pub fn new(max_size: usize) -> Self {
        Self {
            text: String::new(),
            calls: BTreeMap::new(),
            current: None,
            finish_reason: None,
            usage: None,
            size: 0,
            max_size,
            done: false,
        }
    }

    /// Whether the reply has ended (`[DONE]` seen, or [`finish`](Self::finish) called).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Whether the model has said why it stopped (a `finish_reason`).
    pub fn has_finish_reason(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// Feeds one event's data; returns what it completes. `[DONE]` ends the
    /// reply; an `{"error": …}` event is the upstream's error.
    pub fn push_event(&mut self, data: &str) -> Result<Vec<StreamEvent>, ModelError> {
        if self.done {
            return Ok(Vec::new());
        }
        let data = data.trim();
        if data == "[DONE]" {
            return self.finish();
        }
        let value: serde_json::Value =
            serde_json::from_str(data).map_err(|err| ModelError::BadReply {
                reason: format!("a stream event is not JSON ({err})"),
            })?;
        if let Some(error) = value.get("error") {
            return Err(ModelError::Upstream {
                message: crate::error::error_message(error),
            });
        }
        let chunk: ChatChunk =
            serde_json::from_value(value).map_err(|err| ModelError::BadReply {
                reason: format!("a stream event is not a chat.completion.chunk ({err})"),
            })?;
        self.push_chunk(chunk)
    }

    /// Feeds one parsed chunk; returns what it completes.
    pub fn push_chunk(&mut self, chunk: ChatChunk) -> Result<Vec<StreamEvent>, ModelError> {
        let mut events = Vec::new();
        if self.done {
            return Ok(events);
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        // ploy asks for one choice; others (if a server sends them) are ignored.
        let Some(choice) = chunk.choices.into_iter().find(|c| c.index == 0) else {
            return Ok(events);
        };
        if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
            self.grow(text.len())?;
            self.text.push_str(&text);
            events.push(StreamEvent::Text(text));
        }
        for piece in choice.delta.tool_calls {
            let index = match (piece.index, self.current) {
                (Some(index), _) => index,
                // No index: a piece with an id starts the next call, one
                // without continues the current call.
                (None, Some(current)) if piece.id.is_none() => current,
                (None, Some(current)) => current.saturating_add(1),
                (None, None) => 0,
            };
            match self.current {
                Some(current) if index < current => {
                    return Err(ModelError::BadReply {
                        reason: format!("tool call {index} continued after call {current} began"),
                    });
                }
                Some(current) if index > current => events.push(self.completed(current)?),
                _ => {}
            }
            self.current = Some(index);
            if !self.calls.contains_key(&index) && self.calls.len() >= MAX_TOOL_CALLS {
                return Err(ModelError::BadReply {
                    reason: format!("more than {MAX_TOOL_CALLS} tool calls in one turn"),
                });
            }
            let call = self.calls.entry(index).or_default();
            if let Some(id) = piece.id.filter(|id| !id.is_empty()) {
                call.id = Some(id);
            }
            let mut added = 0;
            if let Some(function) = piece.function {
                if let Some(name) = function.name {
                    added += name.len();
                    call.name.push_str(&name);
                }
                if let Some(arguments) = function.arguments {
                    added += arguments.len();
                    call.arguments.push_str(&arguments);
                }
            }
            self.grow(added)?;
        }
        if let Some(reason) = choice.finish_reason {
            self.finish_reason = Some(reason);
        }
        Ok(events)
    }

    /// The end of the reply: the last open call is complete. Returns its
    /// [`StreamEvent::ToolCall`] (if any) and then [`StreamEvent::Done`]
    /// with the whole message. After the first call, returns nothing.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>, ModelError> {
        if self.done {
            return Ok(Vec::new());
        }
        self.done = true;
        let mut events = Vec::new();
        if let Some(current) = self.current {
            events.push(self.completed(current)?);
        }
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        for (index, call) in std::mem::take(&mut self.calls) {
            tool_calls.push(complete(index, call)?);
        }
        let text = std::mem::take(&mut self.text);
        events.push(StreamEvent::Done(Completion {
            message: AssistantMessage {
                content: (!text.is_empty()).then_some(text),
                tool_calls,
            },
            finish_reason: self.finish_reason,
            usage: self.usage,
        }));
        Ok(events)
    }

    /// The event for call `index`, now complete (it stays in `calls` for the
    /// final message).
    fn completed(&self, index: u32) -> Result<StreamEvent, ModelError> {
        let call = self.calls.get(&index).ok_or_else(|| ModelError::BadReply {
            reason: format!("tool call {index} vanished"),
        })?;
        Ok(StreamEvent::ToolCall(complete(index, call.clone())?))
    }

    fn grow(&mut self, added: usize) -> Result<(), ModelError> {
        self.size = self.size.saturating_add(added);
        if self.size > self.max_size {
            return Err(ModelError::TooLarge {
                limit: self.max_size,
            });
        }
        Ok(())
    }
}

/// A finished call: it must have a name; a missing id is given one that
/// is stable within the turn (some local servers send none).
fn complete(index: u32, call: PartialCall) -> Result<ToolCall, ModelError> {
    if call.name.is_empty() {
        return Err(ModelError::BadReply {
            reason: format!("tool call {index} has no function name"),
        });
    }
    Ok(ToolCall {
        id: call.id.unwrap_or_else(|| format!("call_{index}")),
        kind: ToolKind::Function,
        function: FunctionCall {
            name: call.name,
            arguments: call.arguments,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunk(delta: serde_json::Value, finish: Option<&str>) -> String {
        json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
    }

    /// Feeds `body` to a decoder and assembler `split` bytes at a time.
    fn run(body: &str, split: usize) -> Result<Vec<StreamEvent>, ModelError> {
        let mut decoder = SseDecoder::new(1 << 16);
        let mut assembler = Assembler::new(1 << 16);
        let mut events = Vec::new();
        for piece in body.as_bytes().chunks(split) {
            for data in decoder.push(piece)? {
                events.extend(assembler.push_event(&data)?);
            }
        }
        if let Some(data) = decoder.finish()? {
            events.extend(assembler.push_event(&data)?);
        }
        events.extend(assembler.finish()?);
        Ok(events)
    }

    fn sse(events: &[String]) -> String {
        events.iter().map(|e| format!("data: {e}\n\n")).collect()
    }

    #[test]
    fn text_and_tool_calls_assemble_under_any_chunking() {
        let body = sse(&[
            chunk(json!({"role": "assistant", "content": "Hel"}), None),
            chunk(json!({"content": "lo"}), None),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                "function": {"name": "shell", "arguments": "{\"comm"}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": "and\":\"ls\"}"}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"index": 1, "id": "call_b",
                "function": {"name": "read", "arguments": "{}"}}]}),
                Some("tool_calls"),
            ),
            "[DONE]".to_owned(),
        ]);
        let mut expected = None;
        for split in [1, 2, 3, 7, 64, body.len()] {
            let events = run(&body, split).unwrap();
            let text: String = events
                .iter()
                .filter_map(|e| match e {
                    StreamEvent::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(text, "Hello");
            let calls: Vec<&ToolCall> = events
                .iter()
                .filter_map(|e| match e {
                    StreamEvent::ToolCall(call) => Some(call),
                    _ => None,
                })
                .collect();
            assert_eq!(calls.len(), 2, "{events:?}");
            assert_eq!(calls[0].id, "call_a");
            assert_eq!(calls[0].function.arguments, "{\"command\":\"ls\"}");
            assert_eq!(calls[1].function.name, "read");
            let Some(StreamEvent::Done(done)) = events.last() else {
                panic!("no Done last: {events:?}");
            };
            assert_eq!(done.message.content.as_deref(), Some("Hello"));
            assert_eq!(done.message.tool_calls.len(), 2);
            assert_eq!(done.finish_reason, Some(FinishReason::ToolCalls));
            // The first call is reported as soon as the second begins.
            let first = events
                .iter()
                .position(|e| matches!(e, StreamEvent::ToolCall(_)))
                .unwrap();
            assert!(first < events.len() - 2);
            match &expected {
                None => expected = Some(events),
                Some(previous) => assert_eq!(previous, &events, "split {split}"),
            }
        }
    }

    #[test]
    fn sse_details_are_honoured() {
        // Comments, other fields, CRLF, two data lines in one event.
        let body = ": keep-alive\r\nevent: message\r\nid: 1\r\ndata: {\"choices\":[{\"index\":0,\r\ndata: \"delta\":{\"content\":\"x\"}}]}\r\n\r\ndata: [DONE]\r\n\r\n";
        let events = run(body, 5).unwrap();
        assert_eq!(events[0], StreamEvent::Text("x".into()));
        // Missing indices: an id starts a call, a piece without one continues it.
        let body = sse(&[
            chunk(
                json!({"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{"}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"function": {"arguments": "}"}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"id": "b", "function": {"name": "g"}}]}),
                Some("tool_calls"),
            ),
        ]);
        let events = run(&body, 9).unwrap();
        let Some(StreamEvent::Done(done)) = events.last() else {
            panic!("{events:?}");
        };
        assert_eq!(done.message.tool_calls[0].function.arguments, "{}");
        assert_eq!(done.message.tool_calls[1].id, "b");
    }

    #[test]
    fn hostile_streams_are_errors_not_panics() {
        // A call without a name.
        let body = sse(&[chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}),
            None,
        )]);
        assert!(matches!(run(&body, 4), Err(ModelError::BadReply { .. })));
        // Going back to an earlier call.
        let body = sse(&[
            chunk(
                json!({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "g"}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": "x"}}]}),
                None,
            ),
        ]);
        assert!(matches!(run(&body, 4), Err(ModelError::BadReply { .. })));
        // Not JSON; an error event.
        assert!(matches!(
            run("data: {nope\n\n", 3),
            Err(ModelError::BadReply { .. })
        ));
        assert_eq!(
            run("data: {\"error\":{\"message\":\"model not found\"}}\n\n", 3),
            Err(ModelError::Upstream {
                message: "model not found".into()
            })
        );
        // Too much: one long line, and many small deltas.
        let mut decoder = SseDecoder::new(100);
        assert!(matches!(
            decoder.push(&[b'a'; 101]),
            Err(ModelError::TooLarge { limit: 100 })
        ));
        let mut assembler = Assembler::new(10);
        let mut result = Ok(Vec::new());
        for _ in 0..11 {
            result = assembler.push_event(&chunk(json!({"content": "x"}), None));
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(ModelError::TooLarge { limit: 10 }));
        // Too many calls.
        let mut assembler = Assembler::new(1 << 20);
        let mut result = Ok(Vec::new());
        for index in 0..=MAX_TOOL_CALLS {
            result = assembler.push_event(&chunk(
                json!({"tool_calls": [{"index": index, "id": "i", "function": {"name": "f"}}]}),
                None,
            ));
            if result.is_err() {
                break;
            }
        }
        assert!(matches!(result, Err(ModelError::BadReply { .. })));
    }
}
