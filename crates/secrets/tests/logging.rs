//! The redacting log writer (A-1, REDACT-1), exercised through a real
//! `tracing` fmt subscriber whose output is captured.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::Write;
use std::sync::{Arc, Mutex};

use common::{encodings_of, leaks};
use ploy_secrets::logging::{RedactingMakeWriter, RedactingWriter, WITHHELD_LINE};
use ploy_secrets::{REDACTED, Redactor, SharedRedactor};
use tracing_subscriber::fmt::MakeWriter;

mod common;

const SECRET: &str = "sk-log-canary-5b1e77aa90c2e9";

/// Collects everything the log writer passes on.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

struct CaptureWriter(Arc<Mutex<Vec<u8>>>);

impl Write for CaptureWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Capture {
    type Writer = CaptureWriter;
    fn make_writer(&'a self) -> CaptureWriter {
        CaptureWriter(self.0.clone())
    }
}

impl Capture {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).expect("utf8 log")
    }
}

fn subscriber(capture: &Capture, shared: &SharedRedactor) -> impl tracing::Subscriber + use<> {
    tracing_subscriber::fmt()
        .with_writer(RedactingMakeWriter::new(capture.clone(), shared.clone()))
        .with_ansi(false)
        .with_max_level(tracing::Level::TRACE)
        .finish()
}

#[derive(Debug)]
#[allow(dead_code)]
struct Request {
    url: String,
    headers: Vec<(String, String)>,
}

// proves: A-1, REDACT-1 (messages, fields, Debug values and spans are redacted
// in every covered encoding)
#[test]
fn every_log_line_passes_the_redactor() {
    let capture = Capture::default();
    let (redactor, _) = Redactor::new([SECRET]);
    let shared = SharedRedactor::new(redactor);
    tracing::subscriber::with_default(subscriber(&capture, &shared), || {
        let span = tracing::info_span!("call", key = SECRET);
        let _entered = span.enter();
        tracing::info!("message with {SECRET} inline");
        tracing::warn!(api_key = SECRET, "field value");
        tracing::error!(api_key = ?SECRET, "debug field value");
        let request = Request {
            url: format!("https://api.example.invalid/v1?key={SECRET}"),
            headers: vec![("authorization".into(), format!("Bearer {SECRET}"))],
        };
        tracing::debug!(?request, "outgoing");
        for encoded in encodings_of(SECRET) {
            tracing::trace!(body = %encoded, "upstream echoed");
        }
    });
    let logged = capture.text();
    assert!(logged.lines().count() >= 5, "{logged}");
    assert!(logged.contains(REDACTED));
    assert!(!leaks(&logged, SECRET), "secret in log:\n{logged}");
    for encoded in encodings_of(SECRET) {
        assert!(!logged.contains(&encoded), "encoding {encoded} in log");
    }
    assert!(
        logged.contains("message with [REDACTED] inline"),
        "{logged}"
    );
}

// proves: A-1 (a secret learned after logging started is redacted from then on)
#[test]
fn secrets_added_later_are_redacted() {
    let capture = Capture::default();
    let shared = SharedRedactor::new(Redactor::empty());
    let token = "generated-session-token-123456";
    tracing::subscriber::with_default(subscriber(&capture, &shared), || {
        let rejected = shared.add_secrets([token, "short"]);
        assert_eq!(rejected.len(), 1);
        tracing::warn!("token is {token}");
    });
    let logged = capture.text();
    assert!(!logged.contains(token), "{logged}");
    assert!(logged.contains("token is [REDACTED]"), "{logged}");
}

// proves: A-1 (a secret split across two writes of one event is still caught;
// flush releases only whole lines)
#[test]
fn secret_split_across_writes_is_caught() {
    let capture = Capture::default();
    let (redactor, _) = Redactor::new([SECRET]);
    {
        let mut writer = RedactingWriter::new(capture.make_writer(), Some(redactor.clone()));
        let (head, tail) = SECRET.split_at(10);
        writer
            .write_all(format!("line one {head}").as_bytes())
            .unwrap();
        writer.flush().unwrap();
        // Nothing released yet: the line is not complete.
        assert_eq!(capture.text(), "");
        writer
            .write_all(format!("{tail} end\nsecond {head}").as_bytes())
            .unwrap();
        writer.flush().unwrap();
        assert_eq!(capture.text(), "line one [REDACTED] end\n");
        writer.write_all(tail.as_bytes()).unwrap();
    }
    assert_eq!(capture.text(), "line one [REDACTED] end\nsecond [REDACTED]");
}

// proves: A-1 (fail closed: without a redactor, lines are withheld, not written)
#[test]
fn without_redactor_lines_are_withheld() {
    let capture = Capture::default();
    {
        let mut writer = RedactingWriter::new(capture.make_writer(), None);
        writer
            .write_all(format!("key {SECRET}\n").as_bytes())
            .unwrap();
        let debug = format!("{writer:?}");
        assert!(!debug.contains(SECRET), "{debug}");
    }
    assert_eq!(capture.text(), WITHHELD_LINE);
}

// proves: A-1, REDACT-1 (a deferred redactor — ploy's start-up one — is built
// before the first line is written: that line and every later one are
// redacted; secrets added before the first use join the deferred ones)
#[test]
fn a_deferred_redactor_redacts_from_the_first_line() {
    let capture = Capture::default();
    let shared = SharedRedactor::deferred([SECRET.to_owned()]);
    assert!(!shared.is_built(), "nothing is built before a use");
    tracing::subscriber::with_default(subscriber(&capture, &shared), || {
        tracing::warn!("first line {SECRET}");
    });
    assert!(shared.is_built());
    let logged = capture.text();
    assert!(logged.contains("first line [REDACTED]"), "{logged}");
    assert!(!leaks(&logged, SECRET), "{logged}");

    let learned = "learned-before-first-use-7f3a";
    let later = SharedRedactor::deferred([SECRET]);
    assert!(later.add_secrets([learned]).is_empty());
    let redactor = later.current().expect("readable");
    assert_eq!(redactor.len(), 2, "deferred and added secrets both kept");
    let line = format!("{SECRET} and {learned}");
    assert_eq!(redactor.redact(&line), "[REDACTED] and [REDACTED]");
    let debug = format!("{later:?} {:?}", SharedRedactor::deferred([SECRET]));
    assert!(!debug.contains(SECRET), "{debug}");
}

// proves: A-1, REDACT-1 (secrets added to a deferred redactor — the
// gateway token, the project's `.env` values at `ploy -p`'s start — are
// checked at once (a short one is refused as with a built redactor), stay
// deferred without a build, and are all searched from the first use, in
// every encoding, exactly as a redactor built from all of them at once)
#[test]
fn secrets_added_to_a_deferred_redactor_wait_for_one_build() {
    let token = "gw-token-added-while-deferred-9c41";
    let user_pass = "svc:pass-word-from-dotenv-77";
    let shared = SharedRedactor::deferred([SECRET]);
    let rejected = shared.add_secrets([token, "short"]);
    assert_eq!(
        rejected.len(),
        1,
        "the short value is refused: {rejected:?}"
    );
    assert!(shared.add_secrets([user_pass]).is_empty());
    assert!(!shared.is_built(), "adding builds nothing");

    let redactor = shared.current().expect("readable");
    assert!(shared.is_built());
    let (all_at_once, _) = Redactor::new([SECRET, token, "short", user_pass]);
    assert_eq!(redactor.len(), all_at_once.len());
    for secret in [SECRET, token, user_pass, "pass-word-from-dotenv-77"] {
        for text in encodings_of(secret) {
            let line = format!("x {text} y");
            let out = redactor.redact(&line);
            assert_eq!(out, all_at_once.redact(&line), "{line}");
            assert!(out.contains(REDACTED) && !leaks(&out, secret), "{out}");
        }
    }
}

/// Secret values enough to make a build take a while (the threads below
/// race it).
fn many_secrets() -> Vec<String> {
    (0..40)
        .map(|i| format!("sk-background-build-{i:04}-0a1b2c3d4e5f"))
        .collect()
}

// proves: A-1, REDACT-1 (a deferred redactor built on another thread —
// `ploy -p` builds it while it connects, issue 11 — is installed whole:
// every value given before the build started is searched, in every
// encoding, exactly as by a redactor built from them at once)
#[test]
fn a_background_build_redacts_every_value_given_before_it() {
    let token = "gw-token-given-before-the-build-51c0";
    let shared = SharedRedactor::deferred(many_secrets());
    assert!(shared.add_secrets([token]).is_empty());
    let building = shared.build_in_background().expect("a thread");
    building.join().expect("the build thread ends");
    assert!(shared.is_built(), "the thread's result is installed");
    assert!(
        shared.build_in_background().is_none(),
        "nothing left to build"
    );
    let redactor = shared.current().expect("readable");
    let mut values = many_secrets();
    values.push(token.to_owned());
    let (all_at_once, _) = Redactor::new(&values);
    assert_eq!(redactor.len(), all_at_once.len());
    for secret in [token, values[0].as_str(), values[39].as_str()] {
        for text in encodings_of(secret) {
            let line = format!("x {text} y");
            let out = redactor.redact(&line);
            assert!(out.contains(REDACTED) && !leaks(&out, secret), "{out}");
        }
    }
}

// proves: A-1, REDACT-1 (a secret learned while a background build runs
// is never lost: the build, made without it, is not installed over it; the
// next use builds from every value — and a value given twice, such as the
// gateway token a caller taught first, does not make the build stale)
#[test]
fn a_secret_learned_during_a_background_build_is_never_dropped() {
    let learned = "learned-during-the-build-e2d94f";
    let shared = SharedRedactor::deferred(many_secrets());
    let building = shared.build_in_background().expect("a thread");
    assert!(shared.add_secrets([learned]).is_empty());
    building.join().expect("the build thread ends");
    let redactor = shared.current().expect("readable");
    for text in encodings_of(learned) {
        let line = format!("x {text} y");
        let out = redactor.redact(&line);
        assert!(out.contains(REDACTED) && !leaks(&out, learned), "{out}");
    }
    assert_eq!(redactor.len(), 41, "every value, the learned one too");

    let token = "gw-token-taught-twice-0c7e11";
    let twice = SharedRedactor::deferred(many_secrets());
    assert!(twice.add_secrets([token]).is_empty());
    let building = twice.build_in_background().expect("a thread");
    assert!(twice.add_secrets([token]).is_empty());
    building.join().expect("the build thread ends");
    assert!(
        twice.is_built(),
        "a value it already held does not make the build stale"
    );
    assert_eq!(twice.current().expect("readable").len(), 41);
}
