//! [`ModelClient`]: chat completions on the loopback upstream.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use http::{HeaderName, HeaderValue};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::error::{ModelError, error_body_message};
use crate::stream::{Assembler, Completion, SseDecoder, StreamEvent};
use crate::types::{ChatRequest, ChatResponse};
use crate::upstream::{LoopbackUpstream, UpstreamTimeouts};

/// The header ploy's gateway reads its token from.
pub const GATEWAY_TOKEN_HEADER: &str = "x-ploy-token";

/// Default limit on a reply's content (text, tool names and arguments).
pub const DEFAULT_MAX_REPLY_BYTES: usize = 4 * 1024 * 1024;

/// The most bytes of an error body read (the rest is dropped).
const MAX_ERROR_BODY: usize = 64 * 1024;

/// A streamed body's raw bytes may exceed its content by this factor (each
/// token travels in its own JSON event) before the stream is cut.
const STREAM_OVERHEAD: usize = 16;

/// An OpenAI-compatible chat-completions client for one model on a loopback
/// endpoint: a local model server (Ollama, llama.cpp, vLLM) or ploy's own
/// gateway (with [`with_gateway_token`](Self::with_gateway_token)).
///
/// Cheap to clone; clones share the pool of idle connections.
#[derive(Clone)]
pub struct ModelClient {
    upstream: LoopbackUpstream,
    model: String,
    token: Option<(HeaderName, HeaderValue)>,
    timeouts: UpstreamTimeouts,
    max_reply_bytes: usize,
}

impl fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the token: only whether there is one.
        f.debug_struct("ModelClient")
            .field("upstream", &self.upstream)
            .field("model", &self.model)
            .field("gateway_token", &self.token.is_some())
            .field("timeouts", &self.timeouts)
            .field("max_reply_bytes", &self.max_reply_bytes)
            .finish()
    }
}

/// The whole request body: the caller's request plus the client's model
/// and the stream switch.
#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    stream: bool,
    #[serde(flatten)]
    request: &'a ChatRequest,
}

impl ModelClient {
    /// A client for `model` on a validated loopback endpoint (the URL of a
    /// `/v1/chat/completions`). Default timeouts: 3 s to connect, 300 s to
    /// the response headers (a local model may load first), 60 s of silence
    /// inside a body.
    pub fn new(upstream: LoopbackUpstream, model: impl Into<String>) -> Self {
        Self {
            upstream,
            model: model.into(),
            token: None,
            timeouts: UpstreamTimeouts {
                connect: Duration::from_secs(3),
                first_byte: Duration::from_secs(300),
                idle: Duration::from_secs(60),
            },
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
        }
    }

    /// [`new`](Self::new) from URL text; anything but a loopback `http://`
    /// URL is refused (GW-1).
    pub fn from_url(url: &str, model: impl Into<String>) -> Result<Self, ModelError> {
        Ok(Self::new(LoopbackUpstream::parse(url)?, model))
    }

    /// Sends `token` in `x-ploy-token` with every request: for a program
    /// talking to ploy's gateway. The value is marked sensitive and never
    /// printed by `Debug`.
    pub fn with_gateway_token(mut self, token: &str) -> Result<Self, ModelError> {
        let mut value = HeaderValue::from_str(token).map_err(|_| ModelError::BadToken)?;
        value.set_sensitive(true);
        self.token = Some((HeaderName::from_static(GATEWAY_TOKEN_HEADER), value));
        Ok(self)
    }

    /// The same client with other timeouts.
    pub fn with_timeouts(mut self, timeouts: UpstreamTimeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// The same client with another limit on a reply's content.
    pub fn with_max_reply_bytes(mut self, limit: usize) -> Self {
        self.max_reply_bytes = limit;
        self
    }

    /// The model name sent with every request.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The endpoint.
    pub fn upstream(&self) -> &LoopbackUpstream {
        &self.upstream
    }

    /// One whole turn, not streamed (`"stream": false`). Cancelling closes
    /// the connection and returns [`ModelError::Cancelled`].
    pub async fn chat(
        &self,
        request: &ChatRequest,
        cancel: &CancellationToken,
    ) -> Result<Completion, ModelError> {
        self.send(request, false, cancel).await?.collect().await
    }

    /// One turn, streamed (`"stream": true`): text deltas as they arrive,
    /// each tool call once complete, then [`StreamEvent::Done`]. A server
    /// that answers plain JSON anyway is read the same way. Cancelling (or
    /// dropping the stream) closes the connection, so the model server
    /// stops generating.
    pub async fn chat_stream(
        &self,
        request: &ChatRequest,
        cancel: &CancellationToken,
    ) -> Result<ChatStream, ModelError> {
        self.send(request, true, cancel).await
    }

    async fn send(
        &self,
        request: &ChatRequest,
        stream: bool,
        cancel: &CancellationToken,
    ) -> Result<ChatStream, ModelError> {
        let wire = WireRequest {
            model: &self.model,
            stream,
            request,
        };
        let body = serde_json::to_vec(&wire).map_err(|err| ModelError::Encode {
            reason: err.to_string(),
        })?;
        let post =
            self.upstream
                .post_json_with(Bytes::from(body), self.timeouts, self.token.as_ref());
        let response = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ModelError::Cancelled),
            response = post => response?,
        };
        let event_stream = response
            .content_type
            .as_ref()
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim_start().starts_with("text/event-stream"));
        let mut reply = ChatStream {
            body: Some(response.body),
            sse: event_stream.then(|| SseDecoder::new(self.max_reply_bytes.saturating_add(65536))),
            json: Vec::new(),
            assembler: Assembler::new(self.max_reply_bytes),
            pending: VecDeque::new(),
            cancel: cancel.clone(),
            received: 0,
            max_reply_bytes: self.max_reply_bytes,
            finished: false,
        };
        if !response.status.is_success() {
            let body = reply.read_all(MAX_ERROR_BODY).await?;
            return Err(ModelError::Status {
                status: response.status.as_u16(),
                message: error_body_message(&body),
            });
        }
        Ok(reply)
    }
}

/// A reply being read. Call [`next`](Self::next) until it returns `None`,
/// or [`collect`](Self::collect) for the whole turn. Dropping it closes the
/// connection.
pub struct ChatStream {
    body: Option<Box<dyn Stream<Item = io::Result<Bytes>> + Send + Unpin>>,
    /// Present for a `text/event-stream` body; a JSON body collects in `json`.
    sse: Option<SseDecoder>,
    json: Vec<u8>,
    assembler: Assembler,
    pending: VecDeque<StreamEvent>,
    cancel: CancellationToken,
    received: usize,
    max_reply_bytes: usize,
    finished: bool,
}

impl fmt::Debug for ChatStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatStream")
            .field("streamed", &self.sse.is_some())
            .field("received", &self.received)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl ChatStream {
    /// The next event; `None` after [`StreamEvent::Done`] or an error.
    pub async fn next(&mut self) -> Option<Result<StreamEvent, ModelError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if self.finished {
                return None;
            }
            match self.step().await {
                Ok(events) => self.pending.extend(events),
                Err(error) => {
                    self.close();
                    return Some(Err(error));
                }
            }
        }
    }

    /// Reads to the end and returns the whole turn.
    pub async fn collect(mut self) -> Result<Completion, ModelError> {
        while let Some(event) = self.next().await {
            if let StreamEvent::Done(completion) = event? {
                return Ok(completion);
            }
        }
        Err(ModelError::BadReply {
            reason: "the reply ended without a result".into(),
        })
    }

    /// Reads one chunk of the body and returns the events it completes.
    async fn step(&mut self) -> Result<Vec<StreamEvent>, ModelError> {
        let chunk = self.read_chunk().await?;
        let Some(bytes) = chunk else {
            self.close();
            return self.end();
        };
        self.received = self.received.saturating_add(bytes.len());
        let Some(decoder) = self.sse.as_mut() else {
            if self.received > self.max_reply_bytes {
                return Err(ModelError::TooLarge {
                    limit: self.max_reply_bytes,
                });
            }
            self.json.extend_from_slice(&bytes);
            return Ok(Vec::new());
        };
        if self.received > self.max_reply_bytes.saturating_mul(STREAM_OVERHEAD) {
            return Err(ModelError::TooLarge {
                limit: self.max_reply_bytes,
            });
        }
        let mut events = Vec::new();
        for data in decoder.push(&bytes)? {
            events.extend(self.assembler.push_event(&data)?);
            if self.assembler.is_done() {
                // `[DONE]`: nothing after it counts.
                self.close();
                break;
            }
        }
        Ok(events)
    }

    /// The body ended: finish what was read.
    fn end(&mut self) -> Result<Vec<StreamEvent>, ModelError> {
        let Some(decoder) = self.sse.as_mut() else {
            let response: ChatResponse =
                serde_json::from_slice(&self.json).map_err(|err| ModelError::BadReply {
                    reason: format!("the reply is not a chat completion ({err})"),
                })?;
            let completion = Completion::from_response(response)?;
            let mut events = Vec::new();
            if let Some(text) = completion.message.content.clone().filter(|t| !t.is_empty()) {
                events.push(StreamEvent::Text(text));
            }
            events.extend(
                completion
                    .message
                    .tool_calls
                    .iter()
                    .cloned()
                    .map(StreamEvent::ToolCall),
            );
            events.push(StreamEvent::Done(completion));
            return Ok(events);
        };
        let mut events = Vec::new();
        if let Some(data) = decoder.finish()? {
            events.extend(self.assembler.push_event(&data)?);
        }
        if self.assembler.is_done() {
            return Ok(events);
        }
        // No `[DONE]`: complete only if the model said why it stopped;
        // otherwise the server went away mid-reply.
        if !self.assembler.has_finish_reason() {
            return Err(ModelError::BadReply {
                reason: "the stream ended before the reply was complete".into(),
            });
        }
        events.extend(self.assembler.finish()?);
        Ok(events)
    }

    /// The next body chunk, or `None` at its end; cancellation wins.
    async fn read_chunk(&mut self) -> Result<Option<Bytes>, ModelError> {
        let Some(body) = self.body.as_mut() else {
            return Ok(None);
        };
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(ModelError::Cancelled),
            chunk = body.next() => match chunk {
                None => Ok(None),
                Some(Ok(bytes)) => Ok(Some(bytes)),
                Some(Err(error)) if error.kind() == io::ErrorKind::TimedOut => {
                    Err(ModelError::Timeout { reason: error.to_string() })
                }
                Some(Err(error)) => Err(ModelError::Unavailable { reason: error.to_string() }),
            },
        }
    }

    /// Reads the whole body (for an error answer), up to `limit` bytes.
    async fn read_all(&mut self, limit: usize) -> Result<Vec<u8>, ModelError> {
        let mut all = Vec::new();
        while let Some(bytes) = self.read_chunk().await? {
            let room = limit.saturating_sub(all.len());
            all.extend_from_slice(&bytes[..bytes.len().min(room)]);
            if all.len() >= limit {
                break;
            }
        }
        self.close();
        Ok(all)
    }

    /// Drops the body (closing the connection unless it ended cleanly).
    fn close(&mut self) {
        self.body = None;
        self.finished = true;
    }
}
