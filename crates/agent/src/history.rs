//! The conversation as the loop holds it: user, assistant (with tool calls)
//! and tool-result entries, and their stored form (ploy-store messages with
//! a JSON `meta` for the tool-call data).

use ploy_store::{Message, Role};
use serde::{Deserialize, Serialize};

/// One tool call as the model made it: ploy-model's wire type (its id, and
/// the function's name and arguments as the JSON text the model wrote). The
/// store keeps it in the same OpenAI shape.
pub use ploy_model::ToolCall;

/// One entry of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// The person's message.
    User(String),
    /// The model's message: its text and the tools it called.
    Assistant {
        /// The text (may be empty when it only called tools).
        text: String,
        /// The calls, in order.
        tool_calls: Vec<ToolCall>,
    },
    /// A tool's result (redacted and capped before it got here).
    Tool {
        /// The call it answers.
        call_id: String,
        /// The result text.
        text: String,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AssistantMeta {
    tool_calls: Vec<ToolCall>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolMeta {
    tool_call_id: String,
}

/// Why a stored message could not be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stored message {id} cannot be read back: {reason}")]
pub struct StoredEntryError {
    /// The message's store id.
    pub id: i64,
    /// Why.
    pub reason: String,
}

impl Entry {
    /// Bytes this entry costs in the model's window (text plus call data).
    pub fn size(&self) -> usize {
        match self {
            Entry::User(text) => text.len(),
            Entry::Assistant { text, tool_calls } => {
                text.len()
                    + tool_calls
                        .iter()
                        .map(|c| {
                            c.id.len() + c.function.name.len() + c.function.arguments.len() + 16
                        })
                        .sum::<usize>()
            }
            Entry::Tool { call_id, text } => call_id.len() + text.len(),
        }
    }

    /// The stored form: role, content and optional meta JSON.
    pub fn to_stored(&self) -> (Role, &str, Option<String>) {
        match self {
            Entry::User(text) => (Role::User, text, None),
            Entry::Assistant { text, tool_calls } => (
                Role::Assistant,
                text,
                (!tool_calls.is_empty())
                    .then(|| {
                        serde_json::to_string(&AssistantMeta {
                            tool_calls: tool_calls.clone(),
                        })
                        .ok()
                    })
                    .flatten(),
            ),
            Entry::Tool { call_id, text } => (
                Role::Tool,
                text,
                serde_json::to_string(&ToolMeta {
                    tool_call_id: call_id.clone(),
                })
                .ok(),
            ),
        }
    }

    /// Read a stored message back. System messages are not entries (the
    /// system prompt is rebuilt each run): `Ok(None)`.
    pub fn from_stored(message: &Message) -> Result<Option<Entry>, StoredEntryError> {
        let fail = |reason: String| StoredEntryError {
            id: message.id,
            reason,
        };
        Ok(match message.role {
            Role::System => None,
            Role::User => Some(Entry::User(message.content.clone())),
            Role::Assistant => {
                let tool_calls = match &message.meta {
                    Some(meta) => {
                        serde_json::from_str::<AssistantMeta>(meta)
                            .map_err(|e| fail(e.to_string()))?
                            .tool_calls
                    }
                    None => Vec::new(),
                };
                Some(Entry::Assistant {
                    text: message.content.clone(),
                    tool_calls,
                })
            }
            Role::Tool => {
                let meta = message
                    .meta
                    .as_deref()
                    .ok_or_else(|| fail("a tool result without its call id".into()))?;
                let meta: ToolMeta = serde_json::from_str(meta).map_err(|e| fail(e.to_string()))?;
                Some(Entry::Tool {
                    call_id: meta.tool_call_id,
                    text: message.content.clone(),
                })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn entries_round_trip_through_the_stored_form() {
        let entries = [
            Entry::User("hi".into()),
            Entry::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall::function(
                    "c1",
                    "read",
                    &serde_json::json!({"path": "a"}),
                )],
            },
            Entry::Tool {
                call_id: "c1".into(),
                text: "1\ta".into(),
            },
            Entry::Assistant {
                text: "done".into(),
                tool_calls: vec![],
            },
        ];
        for (i, entry) in entries.iter().enumerate() {
            let (role, content, meta) = entry.to_stored();
            let message = Message {
                id: i as i64,
                role,
                content: content.to_string(),
                meta,
                created_at: 0,
            };
            assert_eq!(Entry::from_stored(&message).unwrap().as_ref(), Some(entry));
        }
    }
}
