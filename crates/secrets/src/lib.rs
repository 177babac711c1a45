//! `ploy-secrets`: keeps secret values out of everything the model or a log sees.
//!
//! * [`Redactor`] replaces every known secret value, in any case and in
//!   any of the encodings below, with [`REDACTED`] (REDACT-1).
//! * [`StreamRedactor`] does the same over inputs larger than memory.
//! * [`mask`] names a secret by its last 4 characters only (REDACT-1).
//! * [`cap`] cuts text to a shared byte budget on code point boundaries (CAP-1).
//! * [`known_secrets`]: the one function building a run's [`SecretSet`]
//!   (environment, the project's secret files anywhere in it, credentials
//!   in its git configuration, credentials in its Spring, Rails and
//!   Compose settings files, the user's credential stores in the home
//!   folder, settings `secrets.env`/`secrets.files`); fails closed on an
//!   unreadable file.
//! * [`secret_file_kind`] / [`is_secret_file`] / [`secret_file_globs`]: the
//!   one name rule for files holding secrets (`.env*`, `.envrc`, `*.env`,
//!   `.aws/credentials`, `.netrc`, private keys, ..., any case): their reads
//!   ask by default (ploy-policy's built-in rules are these globs) and
//!   their values are known secrets.
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
//!   surrogate pairs, `\u{74}`, `\U00000074`, `\x74`, octal `\164`, CSS
//!   `\73 ` or `\6B`, Perl's `\x{73}`, `\N{U+0073}`, `\o{163}`, `\/`,
//!   `\\`, `\"`),
//!   HTML references (`&#116;`, `&#x74;`, zero-padded, `;` optional;
//!   every named reference of the HTML standard, `&lowbar;`), mixed
//!   freely and stacked up to 3 layers (`%252D`, a percent-encoded `&#45;`).
//!   A view is built only around a `%`, `\` or `&` that starts an escape, so
//!   text without one pays only a `memchr` (see `views.rs`);
//! * string escapes stacked up to 4 layers deep, each layer JSON or Rust's
//!   `{:?}` (`\"`, `\n` are listed, being too common to decode around);
//! * form encoding's `+` for a space;
//! * hex of the UTF-8 bytes, in either case, with or without separators:
//!   runs of hex digits grouped by white space, `:` or `,`, each group
//!   optionally `0x`-prefixed (`73 6b 2d`, `73:6b`, `0x73, 0x6b`, xxd's
//!   `736b 2d43`, `xxd -p` wrapped) are *decoded* (`runs.rs`), so the
//!   secret or any fragment of it (below) is found inside;
//! * base64, standard and URL-safe alphabets (also inside percent or JSON
//!   escapes, through the views), base32 and base32hex (RFC 4648), at every byte
//!   alignment a value can have inside a longer blob (for example
//!   `Basic base64(user:secret)`). Only the characters fully determined by
//!   the secret are searched for; the at most one partly determined
//!   character on each side is redacted with the match, so no character
//!   holding secret bits stays. Lines wrapped at any width (MIME's 76
//!   columns, `base64`'s default, PEM) are joined first (`runs.rs`);
//! * Ascii85 (`<~…~>`, `btoa`), RFC 1924 base85 (Python's `b85encode`,
//!   git) and Z85, at every alignment inside a longer blob: the groups of
//!   five characters holding only the secret's bytes are searched for
//!   (when they make at least 12 characters: every alignment for a secret
//!   of 16 bytes or more), and a match takes the at most five characters on
//!   each side whose group mixes in its bytes (round7 #13);
//! * uuencoded lines (`uuencode`, `binascii.b2a_uu`, Perl's `pack "u"`),
//!   decoded and joined across lines (`runs.rs`; round7 #13);
//! * a fragment: any [`FRAGMENT_CHARS`] (12) consecutive characters of a
//!   secret of at least [`FRAGMENT_MIN_SECRET_CHARS`] (24), or any
//!   [`SHORT_FRAGMENT_CHARS`] (14) of a secret of
//!   [`SHORT_FRAGMENT_MIN_SECRET_CHARS`] (16) to 23 characters, plain, escaped,
//!   in hex (decoded runs) or base64-encoded on its own (a piece of the
//!   secret given to `base64`);
//! * the password of a `user:password` value or of a URL's user info, or
//!   of a `password=`/`pwd=`-like parameter of a connection string, on
//!   its own (when at least [`MIN_SECRET_BYTES`] long);
//! * its bytes as a list of decimal numbers (`od -tu1`, `115,107,45`,
//!   byte arrays, joined by any of white space `,` `;` `.` `-` `_` `/`
//!   `:` `|` and quotes, `115.107.45` in a host name; zero-padded, also
//!   three digits a byte with no separator) or octal numbers (`od -b`,
//!   `163,153,55`), decoded (`runs.rs`; round6 #5);
//! * printed a few characters per line (`grep -o .`, `fold -w1` to
//!   `fold -w16`), also with a line-number prefix on each line (`grep -n
//!   -o .`, `grep -b -o .`, `cat -n`, `nl`), lines joined (`runs.rs`);
//! * as a list of quoted characters (Python's `print(list(s))`,
//!   `['s', 'k', …]`; a JSON array of one-character strings), joined;
//! * Unicode compatibility forms folded by NFKC (full-width, NFD),
//!   Cyrillic, Greek, Armenian and Latin-extension look-alike letters read
//!   as the ASCII letter they imitate ([`CONFUSABLES`]: `ѕк-…`, `Κ`, `ο`;
//!   round8 #8), Unicode tag characters (U+E0020..E007E) read as the ASCII
//!   they copy, and invisible characters between its characters removed
//!   (`runs.rs`).
//!
//! [`Redactor::redact_cut_tail`] also removes a partial secret (4 bytes or
//! more of its start) at the end of text that was cut before it could be
//! redacted whole.
//!
//! Not caught (known limits, not claimed): values shorter than
//! [`MIN_SECRET_BYTES`] (refused); a secret cut into pieces shorter than a
//! fragment (12 characters; 14 for a secret of 16 to 23), or any piece of
//! a secret shorter than 16 characters (no fragment rule), in any
//! encoding; characters reordered or
//! substituted (reversed, ROT13, Caesar shifts, every other character);
//! separators or markup *between characters* of the plain value on one
//! line (`s k - …`, `s,k,-`, `<b></b>`, ANSI codes: the scrubber takes
//! white space out for search phrases), except the quoted-character lists
//! above; lines of more than 16 characters joined (a long secret is still
//! caught by its fragments); base64 or base32
//! of a fragment inside a longer blob at another alignment; base32 of a
//! fragment; base64 wrapped by spaces rather than line breaks; hex grouped
//! by `-`; binary byte lists, a decimal big integer; `od -c` and `xxd -b`
//! output; other encodings
//! (UTF-16, quoted-printable, base85 wrapped over lines or of a short
//! secret at an alignment that leaves fewer than 12 characters, base58,
//! yEnc, nested base64/hex,
//! compression, encryption; the egress door decodes nested base64/hex,
//! gzip, zlib and UTF-16 with [`layer_views`]); look-alikes outside
//! [`CONFUSABLES`] (a letter imitated only loosely, Cherokee or
//! mathematical forms NFKC does not fold), and `l`/`I`/`1` or `O`/`0`
//! swapped inside ASCII; Perl's named characters (`\N{LATIN SMALL
//! LETTER S}`); tag characters, full-width forms or look-alikes that are
//! themselves percent- or otherwise escaped (the door decodes those
//! first); an escaped form longer than 12 bytes per secret
//! byte (deeper stacking); an escape glued to what precedes it so that the
//! parse differs (`%4` before a secret starting with `1` decodes as `%41`;
//! fragments still catch long secrets).
//!
//! # Cost
//!
//! One pass: a sampling prefilter (one 4-byte probe every `min_pattern - 3`
//! bytes, a hit confirmed by the 8-byte grams around it) finds candidate
//! windows, and one matcher over every pattern (a hash table by each
//! pattern's last bytes, `grams.rs`: built in one pass, no automaton to
//! compile) searches only those; a `memchr` for `%`, `\`, `&` decides
//! whether any escape view is decoded. Text made to hit the prefilter
//! everywhere (long runs of the value's hex) falls back to the matcher over
//! everything, and text dense with escapes is decoded around every escape
//! (up to 12 x the longest secret on each side): both still linear,
//! several times slower. The run views (`runs.rs`) add a test of one
//! 8-byte block in every 16 for hex and for numbers (bit tricks first), a
//! `memchr` for line breaks, one for quotes, and a scan for non-ASCII bytes
//! 8 at a time (a folded view is built only around a character that
//! folds). Measured at a machine load of 20-26 (2 cores), so CPU time,
//! not wall time: `bench/redact_vs_sed.sh` with 100 secrets
//! (`PLOY_BIN=` the `redact_stdin` example, the same library calls as
//! `ploy redact`) spends about 0.12 s of CPU on 33.5 MB, about 280 MB/s,
//! where the automaton-based engine with the same views spent 0.26 s
//! (about 30% of it building the automaton). The 1 GB/s target of issue
//! 14 is NOT met: the sampling prefilter's probes into its bit tables and
//! the run views' scans are what the decoding views cost.
//!
//! Pure: no I/O, except [`known_secrets`] (reads the environment and the
//! secret files), the log writer, which writes to the writer it is given,
//! and [`Redactor::redact_stream`], which reads and writes what it is handed.

// `teeth`: the rules switched off, so `ploy redteam` can show that every
// attack scenario then succeeds (each scenario can fail). Never in a
// release build.
#[cfg(all(feature = "teeth", not(debug_assertions)))]
compile_error!(
    "the `teeth` feature switches ploy's rules off; it is for the redteam CI step only and must never be in a release build"
);

pub mod cap;
mod config;
mod confusables;
mod encodings;
mod engine;
mod env;
mod extract;
mod files;
mod grams;
mod known;
mod layers;
pub mod logging;
mod name_globs;
mod redactor;
mod runs;
mod set;
pub mod shape;
mod views;

pub use config::PROJECT_CONFIG_FILES;
pub use confusables::{CONFUSABLES, confusable};
pub use views::unescape;

pub use encodings::{
    FRAGMENT_CHARS, FRAGMENT_MIN_SECRET_CHARS, SHORT_FRAGMENT_CHARS,
    SHORT_FRAGMENT_MIN_SECRET_CHARS, SecretForm,
};
pub use env::{
    EnvSecretReason, PATH_VALUED_NAMES, env_secret_reason, is_secret_env, is_secret_env_name,
    is_secret_key_name, secret_values_from_env,
};
pub use files::{
    CREDENTIAL_CONFIG_FILES, SECRET_FILE_NAMES, SecretFileKind, is_credential_config_file,
    is_secret_file, secret_file_glob_index, secret_file_globs, secret_file_kind,
};
pub use known::{
    HOME_CREDENTIAL_CACHES, HOME_CREDENTIAL_FILES, HOME_STORE_VARIABLES, KnownSecretsError,
    MAX_HOME_CACHE_FILES, MAX_PROJECT_SECRET_VALUES, MAX_SECRET_FILE_BYTES, MAX_SECRET_FILES,
    MAX_SECRET_FILES_BYTES, MAX_WALK_DEPTH, MAX_WALK_ENTRIES, SecretSources, WALK_SKIPPED_FOLDERS,
    is_project_env_file, known_secrets, secrets_root, sources_secrets,
};
pub use layers::{LayerViews, MAX_LAYER_BYTES, MAX_LAYER_DEPTH, layer_views};
pub use logging::{LoggingError, SharedRedactor, init_logging, init_logging_from_env};
pub use redactor::{
    MIN_SECRET_BYTES, REDACTED, Redactor, RejectReason, RejectedSecret, SecretMatch,
    StreamRedactor, mask,
};
pub use set::{DeclaredEnvError, SecretOrigin, SecretSet, UnusableSecret};
pub use shape::{ShapeRule, secret_shape, token_shape};
