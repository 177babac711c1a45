//! The by-value redactor (REDACT-1): one matcher over every secret value
//! and its encodings (`engine.rs`), searched once per input.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Read, Write};
use std::sync::Arc;

use crate::encodings::SecretForm;
use crate::engine::{Engine, Found};

/// What every secret value (or encoding of one) is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Secrets shorter than this many bytes are refused: they would redact
/// ordinary words (REDACT-1).
pub const MIN_SECRET_BYTES: usize = 8;

/// Why a secret value was not used for redaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectReason {
    /// Shorter than [`MIN_SECRET_BYTES`] (after trimming white space).
    TooShort,
}

/// A secret value the [`Redactor`] refused, named only by its mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedSecret {
    /// The value's [`mask`] (fully masked, since rejected values are short).
    pub mask: String,
    /// Length of the value in bytes.
    pub byte_len: usize,
    /// Why it was refused.
    pub reason: RejectReason,
}

impl fmt::Display for RejectedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason {
            RejectReason::TooShort => write!(
                f,
                "REDACT-1: a secret value of {} bytes ({}) is not redacted: values shorter than \
                 {MIN_SECRET_BYTES} bytes would redact ordinary words; use a longer secret",
                self.byte_len, self.mask
            ),
        }
    }
}

/// Names a secret by `…` and its last 4 characters, e.g. `…c2e9` (REDACT-1:
/// prefixes are secret material too). Values of fewer than 16 characters are
/// masked fully (`…****`): their last 4 would give away too much of them.
pub fn mask(secret: &str) -> String {
    const SHOWN: usize = 4;
    const MIN_CHARS_TO_SHOW: usize = 16;
    let count = secret.chars().count();
    if count < MIN_CHARS_TO_SHOW {
        return "…****".to_owned();
    }
    let tail: String = secret.chars().skip(count - SHOWN).collect();
    format!("…{tail}")
}

/// The password part of a `user:password` value, or of the user info of a
/// URL (`scheme://user:password@host/...`). `None` for anything else (one
/// colon, no white space, both parts non-empty; `host:port` yields the port,
/// which is too short to be used).
fn credential_password(value: &str) -> Option<&str> {
    let userinfo = match value.split_once("://") {
        Some((_, rest)) => {
            let authority = rest.split(['/', '?', '#']).next()?;
            authority.rsplit_once('@')?.0
        }
        None => value,
    };
    if userinfo.contains(char::is_whitespace) {
        return None;
    }
    let (user, password) = userinfo.split_once(':')?;
    (!user.is_empty() && !password.is_empty() && !password.contains(':')).then_some(password)
}

/// Where a known secret was found ([`Redactor::find_secret`]): its mask and
/// the form it was in, never the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretMatch {
    /// The secret's [`mask`] (`…` and its last 4 characters, or `…****`).
    pub mask: String,
    /// The form it was found in (plain, percent-encoded, base64, ...).
    pub form: SecretForm,
    /// Byte offset of the match in the searched input.
    pub start: usize,
    /// Byte offset just past the match.
    pub end: usize,
}

impl fmt::Display for SecretMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a known secret ({}) in {} form at bytes {}..{}",
            self.mask,
            self.form.as_str(),
            self.start,
            self.end
        )
    }
}

/// What a [`Redactor`] can do.
#[derive(Clone)]
enum Mode {
    /// No secrets: text passes unchanged.
    Empty,
    /// Normal operation.
    Search(Arc<Engine>),
    /// The matcher could not be built: fail closed, every non-empty input
    /// becomes a single [`REDACTED`].
    RedactAll { secrets: Arc<Vec<String>> },
}

/// Replaces every known secret value, and its common encodings, with
/// [`REDACTED`] (REDACT-1). Cheap to clone (shared matcher).
///
/// Guarantee: every byte of every occurrence of a secret or one of its
/// encodings (see the crate docs) is removed, even when occurrences overlap or
/// touch; runs of touching occurrences become one [`REDACTED`]. Every other
/// byte is kept as it was.
#[derive(Clone)]
pub struct Redactor {
    mode: Mode,
}

impl fmt::Debug for Redactor {
    // Never prints a value: only counts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (mode, patterns) = match &self.mode {
            Mode::Empty => ("empty", 0),
            Mode::Search(engine) => ("search", engine.info.len()),
            Mode::RedactAll { .. } => ("redact-all (matcher failed)", 0),
        };
        f.debug_struct("Redactor")
            .field("mode", &mode)
            .field("secrets", &self.len())
            .field("patterns", &patterns)
            .finish()
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::empty()
    }
}

impl Redactor {
    /// A redactor that knows no secrets.
    pub fn empty() -> Redactor {
        Redactor { mode: Mode::Empty }
    }

    /// Builds a redactor from secret values. Values shorter than
    /// [`MIN_SECRET_BYTES`] after trimming white space are refused and
    /// returned with the reason (never with the value). A value with white
    /// space around it is searched both as given and trimmed.
    pub fn new<I, S>(secrets: I) -> (Redactor, Vec<RejectedSecret>)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let (accepted, rejected) = Redactor::accept(secrets);
        (Redactor::from_accepted(accepted), rejected)
    }

    /// [`Redactor::new`] for a redactor used on a few short texts and then
    /// dropped (a hook's one reason, one request checked). The same as
    /// [`Redactor::new`] now that every redactor is built in one pass over
    /// its patterns (a hash table, `engine.rs`; issue 14); kept for the
    /// callers that say what they need (secrets5 #18: an automaton took
    /// seconds for a 60 KB `.env`).
    pub fn new_one_shot<I, S>(secrets: I) -> (Redactor, Vec<RejectedSecret>)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let (accepted, rejected) = Redactor::accept(secrets);
        (Redactor::from_accepted(accepted), rejected)
    }

    /// The values [`Redactor::new`] searches for `secrets` (each accepted
    /// value, its trimmed form, the password of a `user:password` value),
    /// and the refused ones; nothing is built.
    pub(crate) fn accept<I, S>(secrets: I) -> (Vec<String>, Vec<RejectedSecret>)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut accepted: Vec<String> = Vec::new();
        let mut rejected = Vec::new();
        for secret in secrets {
            let secret = secret.as_ref();
            let trimmed = secret.trim();
            if trimmed.len() < MIN_SECRET_BYTES {
                rejected.push(RejectedSecret {
                    mask: mask(secret),
                    byte_len: secret.len(),
                    reason: RejectReason::TooShort,
                });
                continue;
            }
            accepted.push(trimmed.to_owned());
            if trimmed.len() != secret.len() {
                accepted.push(secret.to_owned());
            }
            // The password of a `user:password` value (basic auth, `curl -u`,
            // htpasswd, a URL's user info) is a secret on its own: printed
            // alone or after another user name it must go too.
            accepted.extend(
                credential_password(trimmed)
                    .into_iter()
                    // A proxy's or a JDBC URL's password, a `Pwd=` of a
                    // connection string (secrets5 #13).
                    .chain(crate::shape::embedded_passwords(trimmed))
                    .filter(|password| password.len() >= MIN_SECRET_BYTES)
                    .filter(|password| *password != trimmed)
                    .map(str::to_owned)
                    .collect::<std::collections::BTreeSet<_>>(),
            );
        }
        (accepted, rejected)
    }

    /// Builds a redactor from the secret variables of an environment (by
    /// name or value shape, see [`crate::SecretSet::from_env`]); no path
    /// counts as existing, so `PWD`-like names are redacted too.
    pub fn from_env_vars<I>(vars: I) -> (Redactor, Vec<RejectedSecret>)
    where
        I: IntoIterator<Item = (String, String)>,
    {
        let set = crate::SecretSet::from_env(vars, &|_| false);
        Redactor::new(set.values())
    }

    /// Builds a redactor from the secret variables of this process's
    /// environment ([`crate::SecretSet::from_process_env`]).
    pub fn from_process_env() -> (Redactor, Vec<RejectedSecret>) {
        Redactor::new(crate::SecretSet::from_process_env().values())
    }

    /// A new redactor knowing this one's secrets and `more` (for tokens the
    /// program generates, keys entered later).
    pub fn with_more<I, S>(&self, more: I) -> (Redactor, Vec<RejectedSecret>)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        // One matcher, for the whole set (the new values are only
        // checked, not compiled on their own first).
        let mut all: Vec<String> = self.secrets().to_vec();
        let (extra, rejected) = Redactor::accept(more);
        all.extend(extra);
        (Redactor::from_accepted(all), rejected)
    }

    fn secrets(&self) -> &[String] {
        match &self.mode {
            Mode::Empty => &[],
            Mode::Search(engine) => &engine.secrets,
            Mode::RedactAll { secrets } => secrets,
        }
    }

    fn from_accepted(mut secrets: Vec<String>) -> Redactor {
        secrets.sort_unstable();
        secrets.dedup();
        if secrets.is_empty() {
            return Redactor::empty();
        }
        match Engine::build(secrets.clone()) {
            Ok(engine) => Redactor {
                mode: Mode::Search(Arc::new(engine)),
            },
            // Fail closed: a redactor that cannot search removes everything.
            Err(_) => Redactor {
                mode: Mode::RedactAll {
                    secrets: Arc::new(secrets),
                },
            },
        }
    }

    /// Number of distinct secret values known (trimmed and untrimmed forms of
    /// one value count separately).
    pub fn len(&self) -> usize {
        self.secrets().len()
    }

    /// Whether no secret is known (then [`Redactor::redact`] changes nothing).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `text` holds a secret or one of its encodings.
    pub fn contains_secret(&self, text: &str) -> bool {
        self.contains_secret_bytes(text.as_bytes())
    }

    /// Whether `bytes` hold a secret or one of its encodings.
    pub fn contains_secret_bytes(&self, bytes: &[u8]) -> bool {
        match &self.mode {
            Mode::Empty => false,
            Mode::Search(_) => self.find_secret(bytes).is_some(),
            Mode::RedactAll { .. } => !bytes.is_empty(),
        }
    }

    /// The first secret (or encoding of one) found in `bytes`, named by its
    /// mask and form, never by its value (BEYOND-6: the door refuses a
    /// request carrying one). Sees every form [`Redactor::redact_bytes`]
    /// removes. A redactor that could not be built answers with a match
    /// covering everything (fail closed).
    pub fn find_secret(&self, bytes: &[u8]) -> Option<SecretMatch> {
        match &self.mode {
            Mode::Empty => None,
            Mode::RedactAll { .. } => (!bytes.is_empty()).then(|| SecretMatch {
                mask: "…****".to_owned(),
                form: SecretForm::Plain,
                start: 0,
                end: bytes.len(),
            }),
            Mode::Search(engine) => {
                // Every occurrence, then the earliest and, of those, the
                // longest: the whole secret rather than one of its fragments.
                let mut found = Vec::new();
                engine.collect(bytes, true, &mut found);
                let first = found
                    .iter()
                    .min_by_key(|f| (f.start, std::cmp::Reverse(f.end)))?;
                Some(SecretMatch {
                    mask: mask(&engine.secrets[first.secret]),
                    form: first.form,
                    start: first.start,
                    end: first.end,
                })
            }
        }
    }

    /// `text` with every secret (and encoding of one) replaced by [`REDACTED`].
    /// Borrows when nothing was found.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self.redact_bytes(text.as_bytes()) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            // Matches start and end on character boundaries (patterns are
            // whole UTF-8 strings; widening adds ASCII), so this holds; if it
            // ever did not, fail closed.
            Cow::Owned(bytes) => {
                Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| REDACTED.to_owned()))
            }
        }
    }

    /// [`Redactor::redact`] for text that was cut at its end before it could
    /// be redacted whole (a download stopped at its size cap, a parser's input
    /// cap): also removes a partial secret at the very end, the longest
    /// suffix of at least 4 bytes that begins a known secret (ASCII case
    /// ignored), as written or escaped (CAP-1, REDACT-1). Any cut this
    /// program makes itself must come after [`Redactor::redact`] instead.
    pub fn redact_cut_tail<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let redacted = self.redact(text);
        let Mode::Search(engine) = &self.mode else {
            return redacted;
        };
        match engine.cut_tail_start(redacted.as_bytes()) {
            None => redacted,
            Some(mut start) => {
                while !redacted.is_char_boundary(start) {
                    start -= 1;
                }
                Cow::Owned(format!("{}{REDACTED}", &redacted[..start]))
            }
        }
    }

    /// Byte version of [`Redactor::redact`], for output that may not be UTF-8.
    pub fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let mut state = ScanState::default();
        if let Mode::Search(engine) = &self.mode {
            engine.collect(bytes, true, &mut state.spans);
            if state.spans.is_empty() {
                return Cow::Borrowed(bytes);
            }
            state.spans_ready = true;
        } else if !self.contains_secret_bytes(bytes) {
            return Cow::Borrowed(bytes);
        }
        let mut out = Vec::with_capacity(bytes.len());
        let _: Result<(), std::convert::Infallible> =
            self.scan(bytes, bytes.len(), &mut state, &mut |piece: &[u8]| {
                out.extend_from_slice(piece);
                Ok(())
            });
        Cow::Owned(out)
    }

    /// A push-style streaming redactor (see [`StreamRedactor`]).
    pub fn stream(&self) -> StreamRedactor {
        StreamRedactor {
            redactor: self.clone(),
            pending: Vec::new(),
            state: ScanState::default(),
        }
    }

    /// Copies `reader` to `writer` with every secret replaced, in bounded
    /// memory (one window of 1 MiB plus the longest pattern). Output is
    /// written after each read, except the last few bytes that a secret could
    /// still continue from, which wait for more input or the end. Returns the
    /// number of bytes read.
    pub fn redact_stream<R: Read, W: Write>(
        &self,
        mut reader: R,
        mut writer: W,
    ) -> io::Result<u64> {
        const WINDOW: usize = 1 << 20;
        let keep_back = self.keep_back();
        let mut buf = vec![0u8; WINDOW + keep_back];
        let mut filled = 0usize;
        let mut total = 0u64;
        let mut state = ScanState::default();
        loop {
            let read = match reader.read(&mut buf[filled..]) {
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            total += read as u64;
            filled += read;
            let at_eof = read == 0;
            let emit_end = if at_eof {
                filled
            } else {
                self.stream_cut(&buf[..filled], filled.saturating_sub(keep_back))
            };
            // Small reads (pipes) accumulate until a scan is worth its carry.
            if !at_eof && emit_end == 0 {
                continue;
            }
            self.scan(
                &buf[..filled],
                emit_end,
                &mut state,
                &mut |piece: &[u8]| writer.write_all(piece),
            )?;
            buf.copy_within(emit_end..filled, 0);
            filled -= emit_end;
            writer.flush()?;
            if at_eof {
                return Ok(total);
            }
        }
    }

    /// Where a stream ends this window's output, at or before `at`: never
    /// inside an escape unit, so the next window decodes as the whole text
    /// would (views).
    fn stream_cut(&self, window: &[u8], at: usize) -> usize {
        match &self.mode {
            Mode::Search(engine) => engine.safe_cut(window, at),
            Mode::Empty | Mode::RedactAll { .. } => at,
        }
    }

    /// Bytes a stream holds back between windows.
    fn keep_back(&self) -> usize {
        match &self.mode {
            Mode::Search(engine) => engine.keep_back,
            Mode::Empty | Mode::RedactAll { .. } => 0,
        }
    }

    /// Redacts `window[..emit_end]` into `emit`, given what earlier windows
    /// left in `state`. The caller keeps `window[emit_end..]` as the start of
    /// the next window. `emit_end` must leave at least `keep_back` bytes
    /// unless the stream has ended. A match touching the window's end is not
    /// widened to the right here; it starts after `emit_end` (or continues the
    /// open marker), so the next window finds it again with its neighbour.
    fn scan<E>(
        &self,
        window: &[u8],
        emit_end: usize,
        state: &mut ScanState,
        emit: &mut dyn FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let engine = match &self.mode {
            Mode::Empty => return emit(&window[..emit_end]),
            Mode::RedactAll { .. } => {
                if emit_end > 0 && !state.redact_all_emitted {
                    state.redact_all_emitted = true;
                    emit(REDACTED.as_bytes())?;
                }
                return Ok(());
            }
            Mode::Search(engine) => engine,
        };
        if !std::mem::take(&mut state.spans_ready) {
            engine.collect(window, !state.mid_line, &mut state.spans);
        }
        // The next window starts at `emit_end`: inside a line unless a
        // newline ends what is emitted now.
        if emit_end > 0 {
            state.mid_line = window[emit_end - 1] != b'\n';
        }
        state
            .spans
            .sort_unstable_by_key(|found| (found.start, found.end));

        // `cursor`: bytes before it are already emitted or covered by the
        // marker written last (when `in_marker`).
        let (mut cursor, mut in_marker) = match state.open_end {
            Some(end) => (end, true),
            None => (0, false),
        };
        for &Found { start, end, .. } in &state.spans {
            if in_marker && start <= cursor {
                cursor = cursor.max(end);
                continue;
            }
            if start >= emit_end {
                break;
            }
            emit(&window[cursor..start])?;
            emit(REDACTED.as_bytes())?;
            cursor = end;
            in_marker = true;
        }
        if cursor < emit_end {
            emit(&window[cursor..emit_end])?;
            cursor = emit_end;
            in_marker = false;
        }
        state.open_end = in_marker.then(|| cursor - emit_end);
        Ok(())
    }
}

/// What a scan leaves for the next window of the same stream.
#[derive(Debug, Default)]
struct ScanState {
    /// The last marker covers the next window up to this offset.
    open_end: Option<usize>,
    /// Scratch space for spans, reused between windows.
    spans: Vec<Found>,
    /// For the fail-closed mode: the single marker was written.
    redact_all_emitted: bool,
    /// `spans` already hold this window's spans (one-shot path).
    spans_ready: bool,
    /// This window starts inside a line (the previous one ended inside it).
    mid_line: bool,
}

/// Push-style streaming redaction: feed chunks of any size (split anywhere,
/// even inside a character or a secret) with [`StreamRedactor::push`], then
/// call [`StreamRedactor::finish`]. The concatenated output equals
/// [`Redactor::redact_bytes`] of the concatenated input.
pub struct StreamRedactor {
    redactor: Redactor,
    pending: Vec<u8>,
    state: ScanState,
}

impl fmt::Debug for StreamRedactor {
    // Held-back bytes may be part of a secret: only their count is shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamRedactor")
            .field("redactor", &self.redactor)
            .field("pending_bytes", &self.pending.len())
            .finish()
    }
}

impl StreamRedactor {
    /// Minimum new bytes per scan, so tiny chunks do not rescan the held-back
    /// bytes each time.
    const MIN_SCAN: usize = 4096;

    /// Adds `chunk`; appends to `out` whatever can already be released.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        self.pending.extend_from_slice(chunk);
        let keep_back = self.redactor.keep_back();
        if self.pending.len() < keep_back + Self::MIN_SCAN {
            return;
        }
        let emit_end = self
            .redactor
            .stream_cut(&self.pending, self.pending.len() - keep_back);
        let _: Result<(), std::convert::Infallible> = self.redactor.scan(
            &self.pending,
            emit_end,
            &mut self.state,
            &mut |piece: &[u8]| {
                out.extend_from_slice(piece);
                Ok(())
            },
        );
        self.pending.drain(..emit_end);
    }

    /// Ends the stream, appending the rest to `out`.
    pub fn finish(mut self, out: &mut Vec<u8>) {
        let end = self.pending.len();
        let _: Result<(), std::convert::Infallible> = self.redactor.scan(
            &self.pending,
            end,
            &mut self.state,
            &mut |piece: &[u8]| {
                out.extend_from_slice(piece);
                Ok(())
            },
        );
    }
}
