//! The OpenAI chat-completions wire format, typed.
//!
//! One definition for both sides: ploy's client serializes requests and
//! reads replies with these types, and the scripted model
//! (`ploy-scripted-model`) reads requests and writes replies with the same
//! ones, so the two can never drift apart. Unknown fields are ignored when
//! reading (servers add their own), and optional fields are left out when
//! writing (some servers reject `null` or an empty `tool_calls`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// One message of a conversation, tagged by `role` on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// Instructions from the program (`{"role":"system","content":…}`).
    System {
        /// The text.
        #[serde(deserialize_with = "text_content")]
        content: String,
    },
    /// The person's words (`{"role":"user","content":…}`).
    User {
        /// The text.
        #[serde(deserialize_with = "text_content")]
        content: String,
    },
    /// What the model said: text, tool calls, or both.
    Assistant(AssistantMessage),
    /// The result of one tool call (`{"role":"tool","tool_call_id":…}`).
    Tool {
        /// The [`ToolCall::id`] this answers.
        tool_call_id: String,
        /// The result text.
        #[serde(deserialize_with = "text_content")]
        content: String,
    },
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::System {
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::Assistant(AssistantMessage {
            content: Some(content.into()),
            tool_calls: Vec::new(),
        })
    }

    /// The result of tool call `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self::Tool {
            tool_call_id: tool_call_id.into(),
            content: content.into(),
        }
    }

    /// The role as written on the wire.
    pub fn role(&self) -> &'static str {
        match self {
            Self::System { .. } => "system",
            Self::User { .. } => "user",
            Self::Assistant(_) => "assistant",
            Self::Tool { .. } => "tool",
        }
    }

    /// The message's text (empty for an assistant message with only tool calls).
    pub fn text(&self) -> &str {
        match self {
            Self::System { content } | Self::User { content } | Self::Tool { content, .. } => {
                content
            }
            Self::Assistant(message) => message.content.as_deref().unwrap_or(""),
        }
    }
}

/// An assistant message: the reply of one model turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The text, if any (`null` on the wire when the turn is only tool calls).
    #[serde(default, deserialize_with = "optional_text_content")]
    pub content: Option<String>,
    /// The tool calls the model asks for, in order.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_empty"
    )]
    pub tool_calls: Vec<ToolCall>,
}

/// One tool call proposed by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id; the result message names it in `tool_call_id`.
    pub id: String,
    /// Always `"function"` (the only kind the wire format has).
    #[serde(rename = "type", default)]
    pub kind: ToolKind,
    /// The function and its arguments.
    pub function: FunctionCall,
}

impl ToolCall {
    /// A function call with `arguments` serialized as the wire's JSON string.
    pub fn function(id: impl Into<String>, name: impl Into<String>, arguments: &Value) -> Self {
        Self {
            id: id.into(),
            kind: ToolKind::Function,
            function: FunctionCall {
                name: name.into(),
                arguments: arguments.to_string(),
            },
        }
    }

    /// The arguments parsed as JSON. The model's text is untrusted: an
    /// error here is the model's mistake, to be reported back to it.
    pub fn arguments_json(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(&self.function.arguments)
    }
}

/// The kind of a tool (the wire's `type`). Only functions exist.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    /// A function tool.
    #[default]
    Function,
}

/// The function part of a [`ToolCall`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them: a JSON text in a string.
    #[serde(default)]
    pub arguments: String,
}

/// A tool offered to the model (`tools: [{"type":"function","function":…}]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Always `"function"`.
    #[serde(rename = "type", default)]
    pub kind: ToolKind,
    /// Name, description and JSON-schema parameters.
    pub function: FunctionSpec,
}

impl ToolSpec {
    /// A function tool.
    pub fn function(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
    ) -> Self {
        Self {
            kind: ToolKind::Function,
            function: FunctionSpec {
                name: name.into(),
                description: Some(description.into()),
                parameters,
            },
        }
    }
}

/// The function part of a [`ToolSpec`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionSpec {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON schema of the arguments object.
    #[serde(default)]
    pub parameters: Value,
}

/// What a caller asks of the model. The model name and `stream` are set by
/// the client (see [`ChatCompletionRequest`] for the full wire body).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools offered (left out when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    /// `"auto"`, `"none"`, `"required"` or a named function; left out when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    /// Sampling temperature; left out when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to generate; left out when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

impl ChatRequest {
    /// A request with `messages` and nothing else.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }

    /// The same request offering `tools`.
    pub fn with_tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = tools;
        self
    }
}

/// The whole body of `POST /v1/chat/completions`, as a server reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletionRequest {
    /// The model name.
    #[serde(default)]
    pub model: String,
    /// Whether the reply is an SSE stream of [`ChatChunk`]s.
    #[serde(default)]
    pub stream: bool,
    /// The rest of the request.
    #[serde(flatten)]
    pub request: ChatRequest,
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// The token limit.
    Length,
    /// The turn ends with tool calls to run.
    ToolCalls,
    /// The server's content filter.
    ContentFilter,
    /// Anything else a server may send.
    #[serde(other)]
    Other,
}

/// Token counts, when the server reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Tokens written.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Both.
    #[serde(default)]
    pub total_tokens: u64,
}

/// A non-streamed reply (`"object": "chat.completion"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The server's id for the reply.
    #[serde(default)]
    pub id: String,
    /// The model that answered.
    #[serde(default)]
    pub model: String,
    /// The choices (ploy asks for one).
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// Token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

impl ChatResponse {
    /// The first choice's message: the reply.
    pub fn message(&self) -> Option<&AssistantMessage> {
        self.choices.first().map(|choice| &choice.message)
    }

    /// The first choice's finish reason.
    pub fn finish_reason(&self) -> Option<FinishReason> {
        self.choices.first().and_then(|choice| choice.finish_reason)
    }
}

/// One choice of a [`ChatResponse`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Its index.
    #[serde(default)]
    pub index: u32,
    /// The reply.
    pub message: AssistantMessage,
    /// Why the model stopped.
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
}

/// One streamed event's data (`"object": "chat.completion.chunk"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatChunk {
    /// The server's id for the reply.
    #[serde(default)]
    pub id: String,
    /// The model that answers.
    #[serde(default)]
    pub model: String,
    /// The deltas (ploy asks for one choice).
    #[serde(default)]
    pub choices: Vec<ChunkChoice>,
    /// Token counts (some servers send them in the last chunk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// One choice's delta in a [`ChatChunk`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChunkChoice {
    /// Its index.
    #[serde(default)]
    pub index: u32,
    /// What is new.
    #[serde(default)]
    pub delta: Delta,
    /// Set on the last delta.
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
}

/// The new part of the reply in one chunk.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// `"assistant"` on the first delta.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// New text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// New pieces of tool calls.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_empty"
    )]
    pub tool_calls: Vec<ToolCallDelta>,
}

/// A piece of a streamed tool call: the first piece carries the id and the
/// name, later pieces carry more of the arguments text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallDelta {
    /// Which tool call of the turn this piece belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// The call's id (first piece).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `"function"` (first piece).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    /// Name and/or more arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<FunctionDelta>,
}

/// The function part of a [`ToolCallDelta`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionDelta {
    /// The name (first piece).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// More of the arguments text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
}

/// Message content as servers send it: a string, `null`, or an array of
/// parts whose `text` fields are joined (other part kinds are dropped:
/// ploy sends and reads text only).
fn optional_text_content<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    let value = Option::<Value>::deserialize(deserializer)?;
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(Value::Array(parts)) => Ok(Some(
            parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
        )),
        Some(other) => Err(serde::de::Error::custom(format!(
            "message content must be a string, null or an array of text parts, not {other}"
        ))),
    }
}

fn text_content<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(optional_text_content(deserializer)?.unwrap_or_default())
}

fn null_as_empty<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_match_the_wire_format() {
        let call = ToolCall::function("call_1", "shell", &json!({"command": "ls"}));
        let messages = vec![
            Message::system("be brief"),
            Message::user("list"),
            Message::Assistant(AssistantMessage {
                content: None,
                tool_calls: vec![call.clone()],
            }),
            Message::tool_result("call_1", "a.txt"),
        ];
        let wire = serde_json::to_value(&messages).unwrap();
        assert_eq!(
            wire,
            json!([
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "list"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "shell", "arguments": "{\"command\":\"ls\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
            ])
        );
        let back: Vec<Message> = serde_json::from_value(wire).unwrap();
        assert_eq!(back, messages);
        assert_eq!(call.arguments_json().unwrap(), json!({"command": "ls"}));
    }

    #[test]
    fn servers_variations_are_read() {
        // Content as parts, null tool_calls, missing `type`, unknown fields.
        let reply: ChatResponse = serde_json::from_value(json!({
            "id": "x", "object": "chat.completion", "created": 1, "system_fingerprint": "y",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
                "message": {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                    "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
        }))
        .unwrap();
        let message = reply.message().unwrap();
        assert_eq!(message.content.as_deref(), Some("ab"));
        assert_eq!(message.tool_calls[0].function.name, "f");
        assert_eq!(reply.finish_reason(), Some(FinishReason::ToolCalls));
        let odd: ChatResponse = serde_json::from_value(json!({
            "choices": [{"message": {"content": "x", "tool_calls": null}, "finish_reason": "eos"}]
        }))
        .unwrap();
        assert_eq!(odd.finish_reason(), Some(FinishReason::Other));
        assert!(
            serde_json::from_value::<ChatResponse>(
                json!({"choices": [{"message": {"content": 5}}]})
            )
            .is_err()
        );
    }

    #[test]
    fn a_server_reads_the_full_request() {
        let request: ChatCompletionRequest = serde_json::from_value(json!({
            "model": "m", "stream": true, "temperature": 0.5,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "shell", "parameters": {"type": "object"}}}]
        }))
        .unwrap();
        assert!(request.stream);
        assert_eq!(request.model, "m");
        assert_eq!(request.request.messages, [Message::user("hi")]);
        assert_eq!(request.request.tools[0].function.name, "shell");
        assert_eq!(request.request.temperature, Some(0.5));
        // An unknown role is not a message.
        assert!(
            serde_json::from_value::<Message>(json!({"role": "developer", "content": "x"}))
                .is_err()
        );
    }
}
