//! A running service with its key panel, an injectable clock and raw HTTP
//! helpers, shared by the panel test files.
#![allow(dead_code)]

use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use ploy_service::panel::Clock;
use ploy_service::{
    ConfigFlags, ResearchSetup, RunningService, ServiceConfig, ServiceSection, StartOptions,
};

use super::{raw, status, without_date};

/// A clock the test moves forward (B-4: expiry without waiting).
pub struct TestClock {
    start: Instant,
    skip: Mutex<Duration>,
}

impl TestClock {
    pub fn new() -> Arc<TestClock> {
        Arc::new(TestClock {
            start: Instant::now(),
            skip: Mutex::new(Duration::ZERO),
        })
    }

    pub fn advance(&self, by: Duration) {
        *self.skip.lock().unwrap() += by;
    }
}

impl Clock for TestClock {
    fn monotonic(&self) -> Duration {
        self.start.elapsed() + *self.skip.lock().unwrap()
    }

    fn unix_seconds(&self) -> u64 {
        1_700_000_000 + self.monotonic().as_secs()
    }
}

/// One service with its panel.
pub struct PanelHarness {
    pub service: RunningService,
    pub state: tempfile::TempDir,
    pub clock: Arc<TestClock>,
    /// The admin token (the first one, or the latest rotation's).
    pub token: String,
    pub addr: SocketAddr,
    pub password: String,
}

/// A raw HTTP/1.1 request (`connection: close` is added).
pub fn request(
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Vec<u8> {
    let mut text = format!("{method} {target} HTTP/1.1\r\nconnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        text.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    } else {
        text.push_str("\r\n");
    }
    text.into_bytes()
}

impl PanelHarness {
    pub async fn start() -> PanelHarness {
        Self::start_in(tempfile::tempdir().unwrap(), "{}", Vec::new()).await
    }

    pub async fn start_in(
        state: tempfile::TempDir,
        section: &str,
        keys: Vec<String>,
    ) -> PanelHarness {
        Self::start_with(state, section, keys, StartOptions::default().research).await
    }

    /// [`PanelHarness::start_in`] with research set up (or not).
    pub async fn start_with(
        state: tempfile::TempDir,
        section: &str,
        keys: Vec<String>,
        research: Result<ResearchSetup, String>,
    ) -> PanelHarness {
        let clock = TestClock::new();
        let mut service = start_service_with(state.path(), section, keys, clock.clone(), research)
            .await
            .unwrap();
        let token = service
            .take_first_admin_token()
            .map(|t| t.expose().to_owned())
            .unwrap_or_default();
        let file: ploy_service::ServiceFile =
            serde_json::from_str(&std::fs::read_to_string(service.service_file()).unwrap())
                .unwrap();
        let addr = service.api_addr();
        PanelHarness {
            service,
            state,
            clock,
            token,
            addr,
            password: file.password,
        }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.addr.port())
    }

    pub fn origin(&self) -> String {
        format!("http://{}", self.host())
    }

    /// Sends raw bytes; returns the whole answer.
    pub async fn send(&self, bytes: &[u8]) -> Vec<u8> {
        raw(self.addr, bytes).await
    }

    /// A well-formed panel request with the right Host and Origin, the given
    /// token, and a JSON body when given.
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<&str>,
    ) -> (u16, String) {
        let host = self.host();
        let origin = self.origin();
        let bearer = format!("Bearer {token}");
        let mut headers = vec![
            ("host", host.as_str()),
            ("origin", origin.as_str()),
            ("authorization", bearer.as_str()),
        ];
        if body.is_some() {
            headers.push(("content-type", "application/json"));
        }
        let answer = self.send(&request(method, path, &headers, body)).await;
        (status(&answer), super::body(&answer))
    }

    /// The one denial as a no-token read gets it, without its `date`.
    pub async fn denial(&self) -> String {
        let host = self.host();
        let answer = self
            .send(&request(
                "GET",
                "/__keys/api/keys",
                &[("host", &host)],
                None,
            ))
            .await;
        assert_eq!(status(&answer), 401, "{}", String::from_utf8_lossy(&answer));
        without_date(&answer)
    }

    /// The keys as the panel lists them.
    pub async fn keys(&self) -> Vec<serde_json::Value> {
        let (code, body) = self
            .call("GET", "/__keys/api/keys", &self.token, None)
            .await;
        assert_eq!(code, 200, "{body}");
        let value: serde_json::Value = serde_json::from_str(&body).unwrap();
        value["keys"].as_array().unwrap().clone()
    }

    pub async fn add(&self, key: &str) -> (u16, String) {
        let body = serde_json::json!({"provider": "tavily", "key": key}).to_string();
        self.call("POST", "/__keys/api/keys", &self.token, Some(&body))
            .await
    }

    pub async fn nonce(&self, action: &str, mask: &str) -> String {
        let body = serde_json::json!({"action": action, "mask": mask}).to_string();
        let (code, answer) = self
            .call("POST", "/__keys/api/nonce", &self.token, Some(&body))
            .await;
        assert_eq!(code, 200, "{answer}");
        let value: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(value["expires_in"], 120);
        value["nonce"].as_str().unwrap().to_owned()
    }

    /// Rotates the admin token through the service API (password).
    pub async fn rotate(&mut self) -> (u16, String) {
        let host = self.host();
        let bearer = format!("Bearer {}", self.password);
        let answer = self
            .send(&request(
                "POST",
                "/v1/admin-token/rotate",
                &[("host", &host), ("authorization", &bearer)],
                Some(""),
            ))
            .await;
        let text = super::body(&answer);
        if status(&answer) == 200 {
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            self.token = value["admin_token"].as_str().unwrap().to_owned();
        }
        (status(&answer), text)
    }

    pub fn audit_lines(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.state.path().join("audit.log"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

pub async fn start_service(
    state: &std::path::Path,
    section: &str,
    keys: Vec<String>,
    clock: Arc<TestClock>,
) -> Result<RunningService, ploy_service::ServiceError> {
    start_service_with(
        state,
        section,
        keys,
        clock,
        StartOptions::default().research,
    )
    .await
}

pub async fn start_service_with(
    state: &std::path::Path,
    section: &str,
    keys: Vec<String>,
    clock: Arc<TestClock>,
    research: Result<ResearchSetup, String>,
) -> Result<RunningService, ploy_service::ServiceError> {
    let section = ServiceSection::parse(section, "test").unwrap();
    let config =
        ServiceConfig::load(section, ConfigFlags::default(), Some(state.to_path_buf())).unwrap();
    let options = StartOptions {
        keys: keys
            .into_iter()
            .map(|k| (ploy_service::panel::keys::Provider::Tavily, k))
            .collect(),
        keys_source: "PLOY_TAVILY_KEYS".into(),
        clock,
        research,
    };
    RunningService::start_with(config, None, options).await
}

/// Every log line of this test binary, at TRACE, *before* any redaction:
/// B-5 proves the panel never logs a key, not only that the redactor hides
/// it; B-1 counts the panel's refusals and admissions.
pub fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let sink = Arc::new(Mutex::new(Vec::new()));
        let writer_sink = sink.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || LogWriter(writer_sink.clone()))
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        sink
    })
    .clone()
}

struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl Write for LogWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
