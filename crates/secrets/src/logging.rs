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
#[derive(Debug, Clone, Default)]
pub struct SharedRedactor {
    inner: Arc<RwLock<Redactor>>,
}

impl SharedRedactor {
    /// Shares `redactor`.
    pub fn new(redactor: Redactor) -> SharedRedactor {
        SharedRedactor {
            inner: Arc::new(RwLock::new(redactor)),
        }
    }

    /// The current redactor, or `None` if a writer panicked while holding
    /// the lock (callers then fail closed).
    pub fn current(&self) -> Option<Redactor> {
        self.inner.read().ok().map(|guard| guard.clone())
    }

    /// Teaches the shared redactor more secrets; returns the refused ones.
    pub fn add_secrets<I, S>(&self, secrets: I) -> Vec<RejectedSecret>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        match self.inner.write() {
            Ok(mut guard) => {
                let (next, rejected) = guard.with_more(secrets);
                *guard = next;
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
    let shared = SharedRedactor::new(redactor);
    let level = std::env::var(LOG_LEVEL_ENV)
        .ok()
        .and_then(|value| value.parse::<LevelFilter>().ok())
        .unwrap_or(LevelFilter::WARN);
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
/// environment. Values too short to redact are only noted at debug level
/// (environments hold many short harmless ones, such as `XDG_SESSION_TYPE`).
pub fn init_logging_from_env() -> Result<SharedRedactor, LoggingError> {
    let (redactor, rejected) = Redactor::from_process_env();
    let shared = init_logging(redactor)?;
    for refused in rejected {
        tracing::debug!("{refused}");
    }
    Ok(shared)
}
