//! Redacted logs (A-1, REDACT-1): a `tracing_subscriber` writer that passes
//! every formatted log line through the [`Redactor`] before it reaches the
//! real writer.
//!
//! The binary installs it first thing, before anything logs:
//! `let _log_secrets = ploy_secrets::init_logging_from_env();`

use std::io::{self, Write};
use std::sync::{Arc, RwLock};

use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::MakeWriter;

use crate::redactor::{Redactor, RejectedSecret};

/// What replaces a log line when the redactor cannot be read (fail closed).
pub const WITHHELD_LINE: &str = "[REDACTED] log line withheld (REDACT-1: redactor unavailable)\n";

/// Environment variable naming the log level (`error`, `warn`, `info`,
/// `debug`, `trace`, `off`); `warn` when unset.
pub const LOG_LEVEL_ENV: &str = "PLOY_LOG";

/// Failure to install the logger.
#[derive(Debug, thiserror::Error)]
pub enum LoggingError {
    /// Another global subscriber was installed first; its lines would not be
    /// redacted, so this is reported rather than ignored.
    #[error(
        "REDACT-1: a global log subscriber is already installed, so log lines may not pass the \
         redactor; install ploy_secrets::init_logging before any other subscriber"
    )]
    AlreadyInstalled,
}

/// The redactor shared by the log writer, which can learn secrets later
/// (generated tokens, keys entered at run time). Cheap to clone.
///
/// It can be made [`SharedRedactor::deferred`]: the secret values are taken
/// at once, but the automaton over them (the costly part, about a
/// millisecond for a usual environment) is built on first use, so a command
/// that never logs never pays for it. Every use ([`SharedRedactor::current`],
/// [`SharedRedactor::add_secrets`]) builds it first, so no line is ever
/// written with fewer secrets than were given.
#[derive(Debug, Clone, Default)]
pub struct SharedRedactor {
    inner: Arc<RwLock<Slot>>,
}

/// A shared redactor's state: the redactor, and the secret values it is
/// still to be built from when it was deferred.
#[derive(Default)]
struct Slot {
    built: Redactor,
    deferred: Option<Vec<String>>,
}

impl std::fmt::Debug for Slot {
    // Never prints a value: only counts.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.deferred {
            None => self.built.fmt(f),
            Some(values) => write!(f, "Deferred({} secrets)", values.len()),
        }
    }
}

impl Slot {
    /// The built redactor, building it first if it was deferred.
    fn ready(&mut self) -> &Redactor {
        if let Some(values) = self.deferred.take() {
            // Short values were noted (or not, by level) where they were taken.
            let (built, _rejected) = Redactor::new(values);
            self.built = built;
        }
        &self.built
    }
}

impl SharedRedactor {
    /// Shares `redactor`.
    pub fn new(redactor: Redactor) -> SharedRedactor {
        SharedRedactor {
            inner: Arc::new(RwLock::new(Slot {
                built: redactor,
                deferred: None,
            })),
        }
    }

    /// Shares a redactor for `secrets` that is built on first use (see the
    /// type's docs). The values are kept from now on, so later changes to
    /// where they came from (e.g. the environment) change nothing.
    pub fn deferred<I, S>(secrets: I) -> SharedRedactor
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let values = secrets.into_iter().map(Into::into).collect();
        SharedRedactor {
            inner: Arc::new(RwLock::new(Slot {
                built: Redactor::empty(),
                deferred: Some(values),
            })),
        }
    }

    /// The current redactor (built now if it was deferred), or `None` if a
    /// writer panicked while holding the lock (callers then fail closed).
    pub fn current(&self) -> Option<Redactor> {
        if let Ok(guard) = self.inner.read()
            && guard.deferred.is_none()
        {
            return Some(guard.built.clone());
        }
        let mut guard = self.inner.write().ok()?;
        Some(guard.ready().clone())
    }

    /// Whether the redactor has been built (false only for a
    /// [`SharedRedactor::deferred`] one not used yet).
    pub fn is_built(&self) -> bool {
        self.inner
            .read()
            .is_ok_and(|guard| guard.deferred.is_none())
    }

    /// Starts building a deferred redactor on a new thread, so the build
    /// (the costly part of a start-up) runs while the caller does other
    /// work, e.g. `ploy -p` opening its store and its gateway before its
    /// first request (issue 11). Join the returned thread to wait for it.
    ///
    /// Nothing is ever searched with fewer secrets than were given: until
    /// the thread has installed its result the redactor stays deferred (a
    /// use meanwhile builds it itself, as without this call), and the result
    /// is installed only if the deferred values are still exactly the ones
    /// it was built from (secrets added meanwhile make it stale: the next
    /// use builds from all of them). `None` when there is nothing to build
    /// (already built), the lock is poisoned, or no thread could start
    /// (the first use then builds it, as without this call).
    pub fn build_in_background(&self) -> Option<std::thread::JoinHandle<()>> {
        let values = self.inner.read().ok()?.deferred.clone()?;
        let inner = Arc::clone(&self.inner);
        std::thread::Builder::new()
            .name("ploy-redactor".into())
            .spawn(move || {
                // Short values were noted (or not, by level) where they were taken.
                let (built, _rejected) = Redactor::new(&values);
                if let Ok(mut guard) = inner.write()
                    && guard.deferred.as_ref() == Some(&values)
                {
                    guard.built = built;
                    guard.deferred = None;
                }
            })
            .ok()
    }

    /// Teaches the shared redactor more secrets; returns the refused ones.
    /// A deferred redactor stays deferred: the accepted values join the
    /// ones it will be built from at its first use (one build for all,
    /// instead of one now and one more for each addition); values it
    /// already holds are not added again (so a build started by
    /// [`SharedRedactor::build_in_background`] stays current when a caller
    /// adds the same token or secrets twice).
    pub fn add_secrets<I, S>(&self, secrets: I) -> Vec<RejectedSecret>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        match self.inner.write() {
            Ok(mut guard) => {
                if let Some(values) = guard.deferred.as_mut() {
                    // Kept as given: the build takes them as `Redactor::new`
                    // does, exactly as if they had been there from the start.
                    let more: Vec<String> =
                        secrets.into_iter().map(|s| s.as_ref().to_owned()).collect();
                    let (_, rejected) = Redactor::accept(&more);
                    let held: std::collections::HashSet<&String> = values.iter().collect();
                    let new: Vec<String> = more
                        .into_iter()
                        .filter(|value| !held.contains(value))
                        .collect::<std::collections::BTreeSet<_>>()
                        .into_iter()
                        .collect();
                    values.extend(new);
                    return rejected;
                }
                let (next, rejected) = guard.built.with_more(secrets);
                guard.built = next;
                rejected
            }
            // A poisoned lock already makes every log line withheld.
            Err(_) => Vec::new(),
        }
    }
}

/// A [`MakeWriter`] whose writers redact each log line before passing it on.
#[derive(Debug, Clone)]
pub struct RedactingMakeWriter<M> {
    inner: M,
    redactor: SharedRedactor,
}

impl<M> RedactingMakeWriter<M> {
    /// Wraps `inner` (e.g. `std::io::stderr`) so every line passes `redactor`.
    pub fn new(inner: M, redactor: SharedRedactor) -> RedactingMakeWriter<M> {
        RedactingMakeWriter { inner, redactor }
    }
}

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for RedactingMakeWriter<M> {
    type Writer = RedactingWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter::new(self.inner.make_writer(), self.redactor.current())
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> Self::Writer {
        RedactingWriter::new(self.inner.make_writer_for(meta), self.redactor.current())
    }
}

/// Buffers what one event writes and releases it redacted: complete lines on
/// [`Write::flush`], everything when dropped (the fmt layer makes one writer
/// per event). Buffering means a secret split across `write` calls is still
/// caught.
pub struct RedactingWriter<W: Write> {
    inner: W,
    redactor: Option<Redactor>,
    pending: Vec<u8>,
}

impl<W: Write> std::fmt::Debug for RedactingWriter<W> {
    // The buffered line is not redacted yet: only its length is shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedactingWriter")
            .field("redactor", &self.redactor)
            .field("pending_bytes", &self.pending.len())
            .finish()
    }
}

impl<W: Write> RedactingWriter<W> {
    /// Wraps `inner`; `None` as redactor withholds every line (fail closed).
    pub fn new(inner: W, redactor: Option<Redactor>) -> RedactingWriter<W> {
        RedactingWriter {
            inner,
            redactor,
            pending: Vec::new(),
        }
    }

    fn release(&mut self, upto: usize) -> io::Result<()> {
        if upto == 0 {
            return Ok(());
        }
        let result = match &self.redactor {
            Some(redactor) => {
                let redacted = redactor.redact_bytes(&self.pending[..upto]);
                self.inner.write_all(&redacted)
            }
            None => self.inner.write_all(WITHHELD_LINE.as_bytes()),
        };
        self.pending.drain(..upto);
        result
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // Only whole lines: a secret may continue in the next write.
        let upto = self
            .pending
            .iter()
            .rposition(|&byte| byte == b'\n')
            .map_or(0, |at| at + 1);
        self.release(upto)?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for RedactingWriter<W> {
    fn drop(&mut self) {
        let all = self.pending.len();
        // Nowhere to report a failed log write from a destructor.
        let _ = self.release(all);
        let _ = self.inner.flush();
    }
}

/// Installs the global log subscriber: `tracing` fmt lines to standard error,
/// each passing `redactor`, at the level named by [`LOG_LEVEL_ENV`] (default
/// `warn`). Returns the shared redactor so secrets learned later can be added.
pub fn init_logging(redactor: Redactor) -> Result<SharedRedactor, LoggingError> {
    install(SharedRedactor::new(redactor), log_level())
}

/// The level named by [`LOG_LEVEL_ENV`], `warn` when unset or unreadable.
fn log_level() -> LevelFilter {
    std::env::var(LOG_LEVEL_ENV)
        .ok()
        .and_then(|value| value.parse::<LevelFilter>().ok())
        .unwrap_or(LevelFilter::WARN)
}

fn install(shared: SharedRedactor, level: LevelFilter) -> Result<SharedRedactor, LoggingError> {
    let subscriber = tracing_subscriber::fmt()
        .with_writer(RedactingMakeWriter::new(io::stderr, shared.clone()))
        .with_ansi(false)
        .with_max_level(level)
        .finish();
    tracing::subscriber::set_global_default(subscriber)
        .map_err(|_| LoggingError::AlreadyInstalled)?;
    Ok(shared)
}

/// [`init_logging`] with the secret-looking variables of this process's
/// environment, taken now. The automaton is built on the first log line or
/// other use ([`SharedRedactor::deferred`]): most commands never log, and
/// building it is most of a short command's start-up. At `debug` level and
/// finer it is built at once, and values too short to redact are noted
/// (environments hold many short harmless ones, such as `XDG_SESSION_TYPE`).
pub fn init_logging_from_env() -> Result<SharedRedactor, LoggingError> {
    let set = crate::SecretSet::from_process_env();
    let level = log_level();
    if level < LevelFilter::DEBUG {
        return install(SharedRedactor::deferred(set.values()), level);
    }
    let (redactor, rejected) = Redactor::new(set.values());
    let shared = install(SharedRedactor::new(redactor), level)?;
    for refused in rejected {
        tracing::debug!("{refused}");
    }
    Ok(shared)
}
