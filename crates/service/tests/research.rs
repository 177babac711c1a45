//! `POST /v1/research` (issue 15 item 1) over real loopback sockets: a
//! running service, its key panel, and a fixture Tavily API and page
//! server on 127.0.0.1 reached through the egress seams (a table resolver
//! answering public-looking addresses, a dialer mapping them to loopback).
//! Proves that research uses the keys the panel holds at that moment, that
//! the conversation is marked in the service's store before anything is
//! sent (and nothing is sent when it cannot be), and that no secret leaves.
#![allow(clippy::disallowed_methods)] // test servers and clients
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use ploy_policy::Settings;
use ploy_research::ResearchConfig;
use ploy_research::command::EngineParts;
use ploy_secrets::{SecretOrigin, SecretSet};
use ploy_service::ResearchSetup;
use ploy_service::api::API_DENIED_BODY;
use ploy_testkit::net::{MapDial, PUB_A, PUB_B, ScriptedResolver, fetcher, quick_config};
use ploy_testkit::{Reply, WebServer};
use support::panel::{PanelHarness, request};
use support::{body, status};

const KEY_A: &str = "tvly-dev-researchAAAAAAAAAAAAAAAA1aaa";
const KEY_B: &str = "tvly-dev-researchBBBBBBBBBBBBBBBB2bbb";
/// A secret of the service's environment (the door's and redactor's set).
const CANARY: &str = "canary-env-secret-Zq81Lm27Xv63Pw09";
const TAVILY_HOST: &str = "api.tavily.test";
const PAGES_HOST: &str = "pages.test";
const PROFILE: &str = r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"}}"#;

/// The fixture Tavily API and page server, and what they saw.
struct Backends {
    tavily: WebServer,
    pages: WebServer,
    resolver: ScriptedResolver,
    dial: MapDial,
    /// Taint marks in the store when each Tavily request arrived.
    marks_seen: Arc<Mutex<Vec<i64>>>,
}

impl Backends {
    /// `db`: the service's store, read by the Tavily fixture as each
    /// request arrives (WAL: a reader does not disturb the writer).
    async fn start(db: std::path::PathBuf) -> Backends {
        let marks_seen = Arc::new(Mutex::new(Vec::new()));
        let seen = marks_seen.clone();
        let tavily = WebServer::start(move |request| {
            let count = rusqlite::Connection::open(&db)
                .and_then(|c| c.query_row("SELECT count(*) FROM taint_marks", [], |r| r.get(0)))
                .unwrap_or(-1);
            seen.lock().unwrap().push(count);
            // The API echoes the key it got into a result (a hostile or
            // buggy backend): it must come back redacted.
            let echo = request.header("authorization").unwrap_or("").to_owned();
            let json = serde_json::json!({
                "query": "q",
                "results": [{
                    "title": "Tokio timeouts",
                    "url": format!("http://{PAGES_HOST}/a"),
                    "content": format!("snippet {echo}"),
                    "score": 0.9
                }],
                "response_time": 0.1
            });
            Reply::json(json.to_string())
        })
        .await;
        let pages = WebServer::start(|_| {
            Reply::html(
                "<html><head><title>A</title></head><body><article><p>Use tokio::time::timeout \
                 around the future; PAGETEXT.</p></article></body></html>",
            )
        })
        .await;
        let resolver = ScriptedResolver::default();
        resolver.fixed(TAVILY_HOST, &[PUB_A]);
        resolver.fixed(PAGES_HOST, &[PUB_B]);
        let dial = MapDial::default();
        dial.map(PUB_A, tavily.addr());
        dial.map(PUB_B, pages.addr());
        Backends {
            tavily,
            pages,
            resolver,
            dial,
            marks_seen,
        }
    }

    fn setup(&self) -> ResearchSetup {
        let config = ResearchConfig::parse(&format!(
            r#"{{"backends": ["tavily"], "tavily_url": "http://{TAVILY_HOST}/"}}"#
        ))
        .unwrap();
        let mut secrets = SecretSet::new();
        secrets.insert(
            CANARY,
            SecretOrigin::Given {
                label: "test canary".into(),
            },
        );
        let parts = EngineParts::new(
            config,
            fetcher(&self.resolver, &self.dial, quick_config()),
            secrets,
        );
        let settings = Settings::parse(PROFILE, "test settings").unwrap();
        ResearchSetup::new(Some(&settings), parts, None).unwrap()
    }

    /// Every request both fixtures received, as text (head and body),
    /// with the `Authorization` line (Tavily's declared credential) left
    /// out; each Tavily request must have had exactly one.
    fn all_requests_without_bearer(&self) -> String {
        for r in self.tavily.requests() {
            assert_eq!(r.header_values("authorization").len(), 1, "{}", r.head());
        }
        for r in self.pages.requests() {
            assert!(r.header_values("authorization").is_empty(), "{}", r.head());
        }
        self.tavily
            .requests()
            .iter()
            .chain(self.pages.requests().iter())
            .map(|r| {
                r.text()
                    .lines()
                    .filter(|line| !line.to_ascii_lowercase().starts_with("authorization:"))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

async fn start() -> (PanelHarness, Backends) {
    let state = tempfile::tempdir().unwrap();
    let backends = Backends::start(state.path().join("ploy.db")).await;
    let setup = backends.setup();
    let harness = PanelHarness::start_with(state, "{}", Vec::new(), Ok(setup)).await;
    (harness, backends)
}

/// `POST /v1/research` with the service password. Read for up to 120 s
/// (not the raw client's 10): a run is two rounds of searches and pages,
/// and the tests share two cores with everything else.
async fn research(h: &PanelHarness, json: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = h.host();
    let bearer = format!("Bearer {}", h.password);
    let headers = [
        ("host", host.as_str()),
        ("authorization", bearer.as_str()),
        ("content-type", "application/json"),
    ];
    let mut stream = support::connect(h.addr).await;
    stream
        .write_all(&request("POST", "/v1/research", &headers, Some(json)))
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(120),
        stream.read_to_end(&mut answer),
    )
    .await
    .expect("the service answered within 120 s")
    .unwrap();
    (status(&answer), body(&answer))
}

/// A service API call with the password.
async fn api(h: &PanelHarness, method: &str, path: &str, json: Option<&str>) -> (u16, String) {
    let host = h.host();
    let bearer = format!("Bearer {}", h.password);
    let mut headers = vec![("host", host.as_str()), ("authorization", bearer.as_str())];
    if json.is_some() {
        headers.push(("content-type", "application/json"));
    }
    let answer = h.send(&request(method, path, &headers, json)).await;
    (status(&answer), body(&answer))
}

async fn replace_key(h: &PanelHarness, old: &str, new: &str) {
    let mask = ploy_secrets::mask(old);
    let nonce = h.nonce("replace", &mask).await;
    let body = serde_json::json!({"mask": mask, "key": new, "nonce": nonce}).to_string();
    let (code, text) = h
        .call("POST", "/__keys/api/replace", &h.token, Some(&body))
        .await;
    assert_eq!(code, 200, "{text}");
}

async fn remove_key(h: &PanelHarness, key: &str) {
    let mask = ploy_secrets::mask(key);
    let nonce = h.nonce("remove", &mask).await;
    let body = serde_json::json!({"mask": mask, "nonce": nonce}).to_string();
    let (code, text) = h
        .call("POST", "/__keys/api/remove", &h.token, Some(&body))
        .await;
    assert_eq!(code, 200, "{text}");
}

fn bearers(backends: &Backends) -> Vec<String> {
    backends
        .tavily
        .requests()
        .iter()
        .map(|r| r.header("authorization").unwrap_or("").to_owned())
        .collect()
}

const ASK: &str = r#"{"question": "rust tokio timeout error", "no_answer": true}"#;

// proves: STATE-1, BEYOND-6, REDACT-1, TAINT-1, EGRESS-2 (research through the service uses the panel's keys of the moment; keys go only to Tavily's header; nothing secret in any result)
#[tokio::test]
async fn research_uses_the_keys_the_panel_holds_and_no_secret_leaves() {
    let (h, backends) = start().await;

    // No key held: Tavily is not offered (A-6), nothing is sent, no
    // conversation is made.
    let (code, text) = research(&h, ASK).await;
    assert_eq!(code, 400, "{text}");
    assert!(text.contains("A-6") && text.contains("tavily"), "{text}");
    assert!(backends.tavily.requests().is_empty());
    let (_, list) = api(&h, "GET", "/v1/conversations", None).await;
    assert_eq!(list.trim(), "[]", "{list}");

    // A key added through the panel is used at once.
    let (code, text) = h.add(KEY_A).await;
    assert_eq!(code, 201, "{text}");
    let (code, text) = research(&h, ASK).await;
    assert_eq!(code, 200, "{text}");
    let output: ploy_research::ResearchOutput = serde_json::from_str(&text).unwrap();
    assert!(output.tainted, "{text}");
    assert_eq!(output.searches[0].hits, 1, "{text}");
    assert!(text.contains("PAGETEXT"), "the page was read: {text}");
    let sent = bearers(&backends);
    assert!(!sent.is_empty(), "it searched");
    assert!(
        sent.iter().all(|b| *b == format!("Bearer {KEY_A}")),
        "{sent:?}"
    );
    // The key echoed by the API comes back redacted; the mask may show.
    assert!(!text.contains(KEY_A), "{text}");
    // The conversation is the service's and carries the marks: the route's,
    // written before anything was sent, then the run's naming the page it
    // read (tui-rpc #12: a mark names its page).
    let (code, detail) = api(
        &h,
        "GET",
        &format!("/v1/conversations/{}", output.conversation_id),
        None,
    )
    .await;
    assert_eq!(code, 200, "{detail}");
    let detail: serde_json::Value = serde_json::from_str(&detail).unwrap();
    let marks = detail["ploy_tainted"].as_array().unwrap();
    assert_eq!(marks.len(), 2, "{detail}");
    assert_eq!(marks[0]["source"]["value"], "research", "{detail}");
    assert_eq!(marks[1]["source"]["type"], "url", "{detail}");

    // Replaced in the panel: the next run uses the new key only.
    replace_key(&h, KEY_A, KEY_B).await;
    let before = bearers(&backends).len();
    let (code, text) = research(&h, ASK).await;
    assert_eq!(code, 200, "{text}");
    let sent = bearers(&backends).split_off(before);
    assert!(!sent.is_empty(), "it searched");
    assert!(
        sent.iter().all(|b| *b == format!("Bearer {KEY_B}")),
        "{sent:?}"
    );

    // A question carrying the service password, an environment secret and
    // the key itself: none of them reaches either fixture in any part of a
    // request (the key only as Tavily's Authorization header), and none is
    // in the answer.
    let before = backends.tavily.requests().len();
    let question = format!(
        "why does {} fail with {CANARY} and {KEY_B} in tokio",
        h.password
    );
    let (code, text) = research(
        &h,
        &serde_json::json!({"question": question, "no_answer": true}).to_string(),
    )
    .await;
    assert_eq!(code, 200, "{text}");
    assert!(backends.tavily.requests().len() > before, "it searched");
    for secret in [h.password.as_str(), CANARY, KEY_A, KEY_B] {
        assert!(!text.contains(secret), "a secret in the answer: {text}");
    }
    // Everything sent, with Tavily's Authorization header taken out.
    let sent = backends.all_requests_without_bearer();
    for secret in [h.password.as_str(), CANARY, KEY_A, KEY_B] {
        assert!(!sent.contains(secret), "a secret was sent: {sent}");
    }

    // Removed in the panel: Tavily is no longer offered, nothing is sent.
    remove_key(&h, KEY_B).await;
    let before = backends.tavily.requests().len();
    let (code, text) = research(&h, ASK).await;
    assert_eq!(code, 400, "{text}");
    assert_eq!(backends.tavily.requests().len(), before);
    h.service.shutdown().await.unwrap();
}

// proves: TAINT-1, TAINT-3 (the mark is in the service's store before the first request leaves; no mark, nothing sent)
#[tokio::test]
async fn the_mark_is_written_before_anything_is_sent_or_nothing_is_sent() {
    let (h, backends) = start().await;
    h.add(KEY_A).await;
    let db = h.state.path().join("ploy.db");

    // Another writer holds the store: neither a new conversation nor a
    // named one can be marked, and neither fixture sees a request.
    let (code, created) = api(
        &h,
        "POST",
        "/v1/conversations",
        Some(r#"{"title": "agent"}"#),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    let id = serde_json::from_str::<serde_json::Value>(&created).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let locker = rusqlite::Connection::open(&db).unwrap();
    locker.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let named = serde_json::json!({"question": "rust tokio timeout error", "no_answer": true, "conversation": id}).to_string();
    for ask in [ASK, named.as_str()] {
        let (code, text) = research(&h, ask).await;
        assert_eq!(code, 503, "{text}");
        assert!(text.contains("TAINT-3"), "{text}");
        assert!(!text.contains("PAGETEXT"), "{text}");
    }
    assert!(backends.tavily.requests().is_empty(), "sent without a mark");
    assert!(backends.pages.requests().is_empty(), "read without a mark");
    locker.execute_batch("ROLLBACK;").unwrap();
    let (_, detail) = api(&h, "GET", &format!("/v1/conversations/{id}"), None).await;
    assert!(detail.contains(r#""ploy_tainted":[]"#), "{detail}");

    // The store free again: the conversation is marked, and the mark was
    // already in the store when the search request arrived.
    let (code, text) = research(&h, &named).await;
    assert_eq!(code, 200, "{text}");
    let seen = backends.marks_seen.lock().unwrap().clone();
    assert!(!seen.is_empty() && seen.iter().all(|n| *n >= 1), "{seen:?}");
    let (_, detail) = api(&h, "GET", &format!("/v1/conversations/{id}"), None).await;
    let detail: serde_json::Value = serde_json::from_str(&detail).unwrap();
    let marks = detail["ploy_tainted"].as_array().unwrap();
    // The route's mark first (before the search left), then the run's.
    assert_eq!(marks[0]["source"]["value"], "research", "{detail}");
    assert!(!marks.is_empty() && marks.len() <= 2, "{detail}");

    // A conversation the store does not have: refused, nothing sent.
    let before = backends.tavily.requests().len();
    let (code, text) = research(
        &h,
        r#"{"question": "rust", "no_answer": true, "conversation": "no-such-id"}"#,
    )
    .await;
    assert_eq!(code, 404, "{text}");
    assert_eq!(backends.tavily.requests().len(), before);
    h.service.shutdown().await.unwrap();
}

// proves: SVC-1, CONFIG-1, PROFILE-2 (the route is behind the password; bad requests and a service without research refuse, naming why)
#[tokio::test]
async fn the_route_is_behind_the_password_and_refuses_bad_requests() {
    let (h, backends) = start().await;
    h.add(KEY_A).await;
    // No password, a wrong one, a foreign Origin: the API's one denial.
    let host = h.host();
    for headers in [
        vec![("host", host.as_str())],
        vec![("host", host.as_str()), ("authorization", "Bearer nope")],
    ] {
        let answer = h
            .send(&request("POST", "/v1/research", &headers, Some(ASK)))
            .await;
        assert_eq!(status(&answer), 403);
        assert_eq!(body(&answer), API_DENIED_BODY);
    }
    for (ask, says) in [
        (r#"{"question": "q", "keys": ["x"]}"#, "unknown field"),
        (r#"{"question": ""}"#, "1-2000"),
        (r#"{"question": "q", "backends": ["bing"]}"#, "CONFIG-1"),
        ("not json", "does not parse"),
    ] {
        let (code, text) = research(&h, ask).await;
        assert_eq!(code, 400, "{ask}: {text}");
        assert!(text.contains(says), "{ask}: {text}");
    }
    assert!(backends.tavily.requests().is_empty());
    let (_, list) = api(&h, "GET", "/v1/conversations", None).await;
    assert_eq!(list.trim(), "[]", "no conversation was made: {list}");
    h.service.shutdown().await.unwrap();

    // A service started without research says why.
    let h = PanelHarness::start_with(
        tempfile::tempdir().unwrap(),
        "{}",
        Vec::new(),
        Err("PROFILE-2: no settings.json".into()),
    )
    .await;
    let (code, text) = research(&h, ASK).await;
    assert_eq!(code, 503, "{text}");
    assert!(
        text.contains("research_unavailable") && text.contains("PROFILE-2"),
        "{text}"
    );
    h.service.shutdown().await.unwrap();

    // No settings: no setup (PROFILE-2).
    let parts = EngineParts::new(
        ResearchConfig::default(),
        fetcher(&backends.resolver, &backends.dial, quick_config()),
        SecretSet::new(),
    );
    let err = ResearchSetup::new(None, parts, None).unwrap_err();
    assert_eq!(err.requirement(), "PROFILE-2");
}
