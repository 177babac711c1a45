//! `ploy-secrets`: keeps secret values out of everything the model or a log sees.
//!
//! * [`Redactor`] replaces every known secret value, and its common encodings
//!   (JSON-escaped, percent-encoded, hex, base64 standard and URL-safe at every
//!   alignment), with [`REDACTED`] in one linear pass (REDACT-1).
//! * [`StreamRedactor`] does the same over inputs larger than memory.
//! * [`mask`] names a secret by its last 4 characters only (REDACT-1).
//! * [`cap`] cuts text to a shared byte budget on code point boundaries (CAP-1).
//! * [`is_secret_env_name`] / [`secret_values_from_env`]: one shared list of
//!   secret-looking environment variable names (SBX-4, REDACT-1).
//! * [`logging`]: a `tracing` writer that passes every log line through the
//!   redactor.
//!
//! Pure: no I/O, except the log writer, which writes to the writer it is given,
//! and [`Redactor::redact_stream`], which reads and writes what it is handed.

pub mod cap;
mod encodings;
mod env;
pub mod logging;
mod redactor;

pub use env::{is_secret_env_name, secret_values_from_env};
pub use logging::{LoggingError, SharedRedactor, init_logging, init_logging_from_env};
pub use redactor::{
    MIN_SECRET_BYTES, REDACTED, Redactor, RejectReason, RejectedSecret, StreamRedactor, mask,
};
