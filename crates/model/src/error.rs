//! What can go wrong talking to a model, as values.

use crate::upstream::{UpstreamError, UpstreamUrlError};

/// Why a model call failed. Every variant is a value the caller decides
/// on (retry, degrade, report); none panics, none carries the token.
///
/// The upstream's own error text ([`ModelError::Status`],
/// [`ModelError::Upstream`]) is the model server's output, cut to
/// [`MAX_ERROR_TEXT`] bytes: pass it through the redactor before showing it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The endpoint is not a loopback `http://` URL (GW-1).
    #[error(transparent)]
    Url(#[from] UpstreamUrlError),
    /// The gateway token cannot be sent as a header value.
    #[error("the gateway token is not a valid header value (it must be visible ASCII)")]
    BadToken,
    /// The request could not be encoded.
    #[error("the request could not be encoded as JSON: {reason}")]
    Encode {
        /// serde's message.
        reason: String,
    },
    /// The model server could not be reached or broke the exchange.
    #[error("the model is unavailable: {reason}")]
    Unavailable {
        /// What happened (connect refused, reset, protocol error).
        reason: String,
    },
    /// The model server was too slow (no headers in time, or silent too long).
    #[error("the model timed out: {reason}")]
    Timeout {
        /// Which limit, and how long.
        reason: String,
    },
    /// The model server answered with an HTTP error status.
    #[error("the model answered HTTP {status}: {message}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The server's error message (capped; untrusted text).
        message: String,
    },
    /// The model server reported an error inside a stream.
    #[error("the model reported an error: {message}")]
    Upstream {
        /// The server's error message (capped; untrusted text).
        message: String,
    },
    /// The reply is not the expected shape.
    #[error("the model's reply could not be read: {reason}")]
    BadReply {
        /// What was wrong.
        reason: String,
    },
    /// The reply is larger than the client's limit.
    #[error("the model's reply is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// The caller cancelled; the connection was closed.
    #[error("the model call was cancelled")]
    Cancelled,
}

impl ModelError {
    /// Whether trying again later may succeed (the server was down, slow or
    /// overloaded), as opposed to a request or reply that will not change.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Unavailable { .. } | Self::Timeout { .. } => true,
            Self::Status { status, .. } => *status == 429 || *status >= 500,
            _ => false,
        }
    }
}

impl From<UpstreamError> for ModelError {
    fn from(error: UpstreamError) -> Self {
        match error {
            UpstreamError::Timeout { .. } => Self::Timeout {
                reason: error.to_string(),
            },
            UpstreamError::Connect { .. } | UpstreamError::Protocol { .. } => Self::Unavailable {
                reason: error.to_string(),
            },
        }
    }
}

/// The longest piece of a server's error text kept in an error.
pub const MAX_ERROR_TEXT: usize = 2048;

/// The message of an OpenAI-style error value (`{"message": …}` or a
/// string), cut to [`MAX_ERROR_TEXT`] bytes.
pub(crate) fn error_message(error: &serde_json::Value) -> String {
    let text = error
        .get("message")
        .and_then(serde_json::Value::as_str)
        .or_else(|| error.as_str())
        .map_or_else(|| error.to_string(), str::to_owned);
    cut(text)
}

/// The text of an error body: its `error.message` when it is OpenAI-style
/// JSON, else the text itself; cut to [`MAX_ERROR_TEXT`] bytes.
pub(crate) fn error_body_message(body: &[u8]) -> String {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(body)
        && let Some(error) = value.get("error")
    {
        return error_message(error);
    }
    cut(String::from_utf8_lossy(body).trim().to_owned())
}

fn cut(mut text: String) -> String {
    if text.len() > MAX_ERROR_TEXT {
        let mut end = MAX_ERROR_TEXT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}
