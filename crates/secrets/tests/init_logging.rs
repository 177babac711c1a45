//! `init_logging` installs one global subscriber and refuses a second (A-1:
//! a second, unredacted subscriber must not slip in silently).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use ploy_secrets::{LoggingError, Redactor, init_logging};

// proves: A-1 (installed once; a later attempt is reported with REDACT-1)
#[test]
fn init_logging_installs_once() {
    let (redactor, _) = Redactor::new(["installed-secret-value"]);
    let shared = init_logging(redactor).expect("first install");
    assert_eq!(shared.current().expect("readable").len(), 1);
    let second = init_logging(Redactor::empty());
    assert!(matches!(second, Err(LoggingError::AlreadyInstalled)));
    let message = second.err().map(|err| err.to_string()).unwrap_or_default();
    assert!(message.contains("REDACT-1"), "{message}");
}
