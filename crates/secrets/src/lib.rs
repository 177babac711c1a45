//! `ploy-secrets`: keeps secret values out of everything the model or a log sees.
//!
//! * [`Redactor`] replaces every known secret value, in any case and in
//!   any of the encodings below, with [`REDACTED`] (REDACT-1).
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
//! # Forms caught (REDACT-1, BEYOND-6)
//!
//! ASCII case is ignored everywhere (a secret retyped in capitals, its hex
//! or base32 in either or mixed case). For every secret value `s`:
//! * `s` itself;
//! * **escapes, each character of `s` encoded or not, as the writer
//!   pleases**, found by decoding views of the input (not by listing
//!   encodings): percent (`%74`, `%2d`, `%u0074`), backslash (`\u0074` with
//!   surrogate pairs, `\u{74}`, `\U00000074`, `\x74`, octal `\164`, `\/`, `\\`, `\"`),
//!   HTML references (`&#116;`, `&#x74;`, zero-padded, `;` optional;
//!   every named reference of the HTML standard, `&lowbar;`), mixed
//!   freely and stacked up to 3 layers (`%252D`, a percent-encoded `&#45;`).
//!   A view is built only around a `%`, `\` or `&` that starts an escape, so
//!   text without one pays only a `memchr` (see `views.rs`);
//! * string escapes stacked up to 4 layers deep, each layer JSON or Rust's
//!   `{:?}` (`\"`, `\n` are listed, being too common to decode around);
//! * form encoding's `+` for a space;
//! * hex of the UTF-8 bytes;
//! * base64, standard and URL-safe alphabets (also inside percent or JSON
//!   escapes, through the views), and base32 (RFC 4648), at every byte
//!   alignment a value can have inside a longer blob (for example
//!   `Basic base64(user:secret)`). Only the characters fully determined by
//!   the secret are searched for; the at most one partly determined
//!   character on each side is redacted with the match, so no character
//!   holding secret bits stays;
//! * a fragment: any [`FRAGMENT_CHARS`] (12) consecutive characters of a
//!   secret of at least [`FRAGMENT_MIN_SECRET_CHARS`] (24), plain or escaped.
//!
//! [`Redactor::redact_cut_tail`] also removes a partial secret (4 bytes or
//! more of its start) at the end of text that was cut before it could be
//! redacted whole.
//!
//! Not caught (known limits): values shorter than [`MIN_SECRET_BYTES`]
//! (refused); base64 or base32 wrapped across lines (MIME, PEM); base64 or
//! base32 of a fragment; other encodings (UTF-16, compression, encryption,
//! homoglyphs: the scrubber folds those for search phrases); an escaped form
//! longer than 12 bytes per secret byte (deeper stacking); an escape glued
//! to what precedes it so that the parse differs (`%4` before a secret
//! starting with `1` decodes as `%41`; fragments still catch long secrets).
//!
//! # Cost
//!
//! One pass: a sampling prefilter (one 4-byte probe every `min_pattern - 3`
//! bytes) finds candidate windows, and one aho-corasick automaton over every
//! pattern searches only those (linear time, no backtracking); a `memchr`
//! for `%`, `\`, `&` decides whether any view is decoded. Text made to hit
//! the prefilter everywhere (long runs of the value's hex) falls back to the
//! automaton over everything, and text dense with escapes is decoded around
//! every escape (up to 12 x the longest secret on each side): both still
//! linear, several times slower.
//!
//! Pure: no I/O, except the log writer, which writes to the writer it is given,
//! and [`Redactor::redact_stream`], which reads and writes what it is handed.

pub mod cap;
mod encodings;
mod engine;
mod env;
pub mod logging;
mod redactor;
mod set;
pub mod shape;
mod views;

pub use views::unescape;

pub use encodings::{FRAGMENT_CHARS, FRAGMENT_MIN_SECRET_CHARS, SecretForm};
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
