//! `ploy-secrets`: keeps secret values out of everything the model or a log sees.
//!
//! * [`Redactor`] replaces every known secret value, and its common encodings
//!   (JSON-escaped, percent-encoded, hex, base64 standard and URL-safe at every
//!   alignment), with [`REDACTED`] in one linear pass (REDACT-1).
//! * [`StreamRedactor`] does the same over inputs larger than memory.
//! * [`mask`] names a secret by its last 4 characters only (REDACT-1).
//! * [`cap`] cuts text to a shared byte budget on code point boundaries (CAP-1).
//! * [`SecretSet`]: every secret value ploy knows (environment by name and by
//!   value shape, declared variables, secret files, values given by the
//!   program), each with its origin; one set feeds the redactor, the
//!   scrubber, the egress check and the sandbox's environment filter.
//! * [`is_secret_env`] / [`is_secret_env_name`]: the one name-and-value rule
//!   for environment variables (SBX-4, REDACT-1); [`secret_shape`]: values
//!   that look like credentials (provider prefixes, JWTs, PEM, entropy).
//! * [`Redactor::find_secret`]: where a known secret is, in any form the
//!   redactor removes, named by mask and form only (BEYOND-6).
//! * [`logging`]: a `tracing` writer that passes every log line through the
//!   redactor.
//!
//! # Encodings caught (REDACT-1)
//!
//! For every secret value `s` (each variant only when it differs):
//! * `s` itself;
//! * string escapes stacked up to 4 layers deep, each layer JSON (serde_json,
//!   JavaScript) or Rust's `{:?}` (JSON in a log line in JSON...);
//! * one layer of the other JSON conventions: ASCII-only with `\uXXXX` in
//!   lower and upper hex (Python `ensure_ascii`, Java), `\/` escaping (PHP,
//!   also applied to base64), HTML-safe `\u003c` escaping (Go);
//! * percent-encoding of standard base64 (`%2B`, `%2F`: a token in a query);
//! * percent-encoding: every non-unreserved byte encoded (upper and lower
//!   hex), form encoding (space as `+`), `encodeURIComponent` and `encodeURI`;
//! * hex of the UTF-8 bytes (lower and upper case);
//! * base64, standard and URL-safe alphabets, at the three byte alignments a
//!   value can have inside a longer encoded blob (for example
//!   `Basic base64(user:secret)`). Only the characters fully determined by the
//!   secret are searched for; the at most one partly determined character on
//!   each side is redacted with the match, so no character holding secret
//!   bits stays.
//!
//! Not caught (known limits): values shorter than [`MIN_SECRET_BYTES`]
//! (refused); case changes of the value or of its hex; base64 wrapped across
//! lines (MIME, PEM); other encodings (base32, UTF-16, compression,
//! encryption); encodings stacked in other orders than listed; in
//! percent-encoded base64, an edge character that is itself `%2B`/`%2F` (at
//! most 4 bits of the value).
//!
//! # Cost
//!
//! One pass: a sampling prefilter (one 4-byte probe every `min_pattern - 3`
//! bytes) finds candidate windows, and one aho-corasick automaton over every
//! pattern searches only those (linear time, no backtracking). Text made to
//! hit the prefilter everywhere (for example long runs of the value's hex)
//! falls back to the automaton over everything: still linear, several times
//! slower.
//!
//! Pure: no I/O, except the log writer, which writes to the writer it is given,
//! and [`Redactor::redact_stream`], which reads and writes what it is handed.

pub mod cap;
mod encodings;
mod env;
pub mod logging;
mod redactor;
mod set;
pub mod shape;

pub use encodings::SecretForm;
pub use env::{
    EnvSecretReason, PATH_VALUED_NAMES, env_secret_reason, is_secret_env, is_secret_env_name,
    secret_values_from_env,
};
pub use logging::{LoggingError, SharedRedactor, init_logging, init_logging_from_env};
pub use redactor::{
    MIN_SECRET_BYTES, REDACTED, Redactor, RejectReason, RejectedSecret, SecretMatch,
    StreamRedactor, mask,
};
pub use set::{DeclaredEnvError, SecretOrigin, SecretSet, UnusableSecret};
pub use shape::{ShapeRule, secret_shape, token_shape};
