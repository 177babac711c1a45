//! A-1, secret canary by value: secrets that come from the environment, from
//! a config file and from a token the program made never reach a result or a
//! log line, in any covered encoding, even when an upstream response echoes
//! them back.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use base64::Engine as _;
use common::{encodings_of, leaks};
use ploy_secrets::logging::RedactingMakeWriter;
use ploy_secrets::{REDACTED, Redactor, SharedRedactor, mask};

mod common;

const ENV_CANARY: &str = "sk-env-CANARY-0d4c8e1f9a7b";
const CONFIG_CANARY: &str = "cfg/CANARY+key=\"quoted\"é";
const GENERATED_CANARY: &str = "tok_generated_CANARY_77f1";

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

struct CaptureWriter(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for CaptureWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Capture {
    type Writer = CaptureWriter;
    fn make_writer(&'a self) -> CaptureWriter {
        CaptureWriter(self.0.clone())
    }
}

/// The config file as a user would write it (on disk, read back).
fn config_secret_from_file() -> String {
    let dir = std::env::temp_dir().join(format!("ploy-secrets-canary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("settings.json");
    let config = serde_json::json!({ "search": { "api_key": CONFIG_CANARY } });
    std::fs::write(&path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    let read: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    read["search"]["api_key"].as_str().unwrap().to_owned()
}

/// An upstream response that echoes every canary in every covered encoding.
fn hostile_upstream_response() -> String {
    let mut echoes = Vec::new();
    for canary in [ENV_CANARY, CONFIG_CANARY, GENERATED_CANARY] {
        echoes.extend(encodings_of(canary));
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("user:{canary}"));
        echoes.push(format!("Authorization: Basic {basic}"));
    }
    serde_json::json!({
        "answer": format!("your key is {ENV_CANARY}; config key {CONFIG_CANARY}"),
        "snippets": echoes,
        "debug": { "echo": format!("{:?}", [ENV_CANARY, CONFIG_CANARY, GENERATED_CANARY]) },
    })
    .to_string()
}

// proves: A-1, REDACT-1 (canaries from env, config and the program never
// reach results or logs, in any covered encoding)
#[test]
fn canaries_never_reach_results_or_logs() {
    let environment = vec![
        ("PATH".to_owned(), "/usr/bin".to_owned()),
        ("TAVILY_API_KEY".to_owned(), ENV_CANARY.to_owned()),
    ];
    let (redactor, rejected) = Redactor::from_env_vars(environment);
    assert!(rejected.is_empty());
    let (redactor, _) = redactor.with_more([config_secret_from_file()]);
    let shared = SharedRedactor::new(redactor);
    shared.add_secrets([GENERATED_CANARY]);
    let redactor = shared.current().unwrap();
    assert_eq!(redactor.len(), 3);

    let response = hostile_upstream_response();
    for canary in [ENV_CANARY, CONFIG_CANARY, GENERATED_CANARY] {
        assert!(
            leaks(&response, canary),
            "the test response must hold {canary}"
        );
    }

    // Result: the tool result built from the response, redacted, then
    // serialised again (a second JSON layer).
    let result_text = redactor.redact(&response).into_owned();
    let result_json = serde_json::json!({ "tool": "search", "text": result_text }).to_string();
    // Log: the same response logged through the redacting writer.
    let capture = Capture::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(RedactingMakeWriter::new(capture.clone(), shared.clone()))
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        tracing::warn!(%response, "upstream answered");
        tracing::warn!(?response, "upstream answered (debug)");
        tracing::warn!(key = %mask(ENV_CANARY), "using key");
    });
    let logged = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();

    for (place, text) in [
        ("result", &result_text),
        ("result json", &result_json),
        ("log", &logged),
    ] {
        assert!(text.contains(REDACTED), "{place} shows no redaction");
        for canary in [ENV_CANARY, CONFIG_CANARY, GENERATED_CANARY] {
            assert!(!leaks(text, canary), "{canary} leaked into {place}: {text}");
            for encoded in encodings_of(canary) {
                assert!(!text.contains(&encoded), "{place} holds {encoded}");
            }
        }
    }
    // The key is named only by its mask.
    assert!(logged.contains("key=…9a7b"), "{logged}");
}
