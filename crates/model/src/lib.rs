//! ploy-model: the OpenAI-compatible chat-completions client.
//!
//! * [`upstream`]: the loopback-only endpoint ([`LoopbackUpstream`]) and
//!   [`connect_loopback`], the one network connect outside ploy-egress
//!   (GW-1: it refuses every non-loopback address at the connect itself).
//!   The gateway forwards raw bytes through it.
//! * [`types`]: the wire format, typed: [`Message`] (system / user /
//!   assistant / tool), [`ToolCall`], [`ToolSpec`], requests, replies and
//!   stream chunks. The scripted model uses the same types.
//! * [`ModelClient`]: [`ModelClient::chat`] for a whole turn and
//!   [`ModelClient::chat_stream`] for text deltas and complete tool calls as
//!   they arrive; both take a `CancellationToken`, and every failure is a
//!   [`ModelError`] value.
//! * [`stream`]: the pure SSE decoder and tool-call assembler.
//!
//! Whatever a model writes is untrusted: replies are size-capped, tool
//! calls must name a function, and arguments stay text until the caller
//! parses them ([`ToolCall::arguments_json`]).

pub mod client;
pub mod error;
pub mod stream;
pub mod types;
pub mod upstream;

pub use client::{ChatStream, DEFAULT_MAX_REPLY_BYTES, GATEWAY_TOKEN_HEADER, ModelClient};
pub use error::ModelError;
pub use stream::{Completion, StreamEvent};
pub use types::{
    AssistantMessage, ChatChunk, ChatCompletionRequest, ChatRequest, ChatResponse, FinishReason,
    FunctionCall, Message, ToolCall, ToolSpec, Usage,
};
pub use upstream::{
    DEFAULT_UPSTREAM, LoopbackUpstream, UpstreamError, UpstreamTimeouts, UpstreamUrlError,
    connect_loopback,
};
