//! The gateway and the API against real listeners and a real upstream on
//! 127.0.0.1 (GW-1..GW-4, SVC-1).
#![allow(clippy::disallowed_methods)] // test servers and clients
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use ploy_policy::{TaintMark, TaintSource};
use ploy_service::api::API_DENIED_BODY;
use ploy_service::gateway::GATEWAY_DENIED_BODY;
use ploy_service::{ConfigFlags, RunningService, ServiceConfig, ServiceFile, ServiceSection};
use ploy_testkit::{Reply, WebServer};
use support::{body, post, raw, status, without_date};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn start_service(state: &Path, upstream: &str, section: &str) -> RunningService {
    let mut section = ServiceSection::parse(section, "test").unwrap();
    section.upstream = Some(upstream.to_string());
    let config =
        ServiceConfig::load(section, ConfigFlags::default(), Some(state.to_path_buf())).unwrap();
    RunningService::start(config, None).await.unwrap()
}

fn service_file(service: &RunningService) -> ServiceFile {
    let text = std::fs::read_to_string(service.service_file()).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn host(addr: SocketAddr) -> String {
    format!("127.0.0.1:{}", addr.port())
}

/// The gateway token, obtained the way `ploy exec` does: the service file's
/// password, then POST /v1/exec-token.
async fn gateway_token(service: &RunningService) -> String {
    exec_token_answer(service).await["token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The whole `POST /v1/exec-token` answer.
async fn exec_token_answer(service: &RunningService) -> serde_json::Value {
    let file = service_file(service);
    let answer = raw(
        service.api_addr(),
        &post(
            &host(service.api_addr()),
            "/v1/exec-token",
            &[&format!("authorization: Bearer {}", file.password)],
            "",
        ),
    )
    .await;
    assert_eq!(status(&answer), 200, "{}", String::from_utf8_lossy(&answer));
    let value: serde_json::Value = serde_json::from_str(&body(&answer)).unwrap();
    assert_eq!(
        value["base_url"],
        format!("http://127.0.0.1:{}/v1", service.gateway_addr().port())
    );
    value
}

const CHAT: &str = r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#;

// proves: GW-2
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_other_method_and_path_is_refused() {
    let state = tempfile::tempdir().unwrap();
    let upstream = support::upstream(1, 0).await;
    let service = start_service(state.path(), &upstream.url(), "{}").await;
    let token = gateway_token(&service).await;
    let gw = service.gateway_addr();
    let token_header = format!("x-ploy-token: {token}");

    // Positive control: the one allowed request passes.
    let ok = raw(
        gw,
        &post(&host(gw), "/v1/chat/completions", &[&token_header], CHAT),
    )
    .await;
    assert_eq!(status(&ok), 200, "{}", String::from_utf8_lossy(&ok));
    assert_eq!(upstream.requests().len(), 1);

    let paths = [
        "/",
        "/v1/models",
        "/api/tags",
        "/api/generate",
        "/v1/chat/completions/",
        "/V1/chat/completions",
        "/v1/Chat/Completions",
        "//v1/chat/completions",
        "/%2fv1/chat/completions",
        "/%2Fv1%2Fchat%2Fcompletions",
        "/v1/chat/completions%2F",
        "/v1/chat/completions?x=1",
        "/v1/chat/completions?",
        "/v1/./chat/completions",
        "/v1/chat/../chat/completions",
        "/v1/chat/completions;x",
        "/v1/chat/completions%00",
        "/v1/completions",
        "/v1/embeddings",
        "*",
        "http://127.0.0.1/v1/chat/completions",
    ];
    let methods = [
        "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "PROPFIND", "FOO",
    ];
    let mut checked = 0;
    for method in methods {
        for path in paths {
            if method == "POST" && path == "/v1/chat/completions" {
                continue;
            }
            let request = format!(
                "{method} {path} HTTP/1.1\r\nhost: {}\r\n{token_header}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{CHAT}",
                host(gw),
                CHAT.len()
            );
            let answer = raw(gw, request.as_bytes()).await;
            let code = status(&answer);
            // hyper itself rejects some malformed targets with 400 before our
            // handler runs; either way nothing reaches the upstream.
            assert!(code == 403 || code == 400, "{method} {path}: {code}");
            if code == 403 && method != "HEAD" {
                assert_eq!(body(&answer), GATEWAY_DENIED_BODY, "{method} {path}");
            }
            checked += 1;
        }
        // The exact path with every other method.
        if method != "POST" {
            let request = format!(
                "{method} /v1/chat/completions HTTP/1.1\r\nhost: {}\r\n{token_header}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
                host(gw)
            );
            let answer = raw(gw, request.as_bytes()).await;
            assert_eq!(status(&answer), 403, "{method} /v1/chat/completions");
            checked += 1;
        }
    }
    assert!(checked > 200);
    assert_eq!(
        upstream.requests().len(),
        1,
        "a refused request reached the upstream"
    );
    // No CORS is ever granted.
    assert!(
        !String::from_utf8_lossy(&ok)
            .to_ascii_lowercase()
            .contains("access-control")
    );
    service.shutdown().await.unwrap();
}

// proves: GW-3
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_token_problem_gets_the_same_403_bytes() {
    let state = tempfile::tempdir().unwrap();
    let upstream = support::upstream(1, 0).await;
    let service = start_service(state.path(), &upstream.url(), "{}").await;
    let token = gateway_token(&service).await;
    let gw = service.gateway_addr();
    let other = "0".repeat(64);
    let cases: Vec<Vec<String>> = vec![
        vec![],
        vec![format!("x-ploy-token: {other}")],
        vec![format!("authorization: Bearer {other}")],
        vec![format!("x-api-key: {token}")],
        vec![format!("api-key: {token}")],
        vec![format!("cookie: x-ploy-token={token}")],
        vec![format!("x-ploy-tokens: {token}")],
        vec![format!("authorization: {token}")],
        vec![format!("authorization: bearer {token}")],
        vec![format!("authorization: Bearer  {token}")],
        vec![format!("authorization: Basic {token}")],
        vec![format!("x-ploy-token: Bearer {token}")],
        vec![format!("x-ploy-token: {token}x")],
        vec![format!("x-ploy-token: {}", &token[..63])],
        vec![format!("x-ploy-token: {}", token.to_uppercase())],
        // A trailing non-breaking space (not HTTP white space) and an encoded one.
        vec![format!("x-ploy-token: {token}\u{a0}")],
        vec![format!("x-ploy-token: {token}%20")],
        vec![format!("authorization: Bearer {token}\u{a0}")],
        vec!["x-ploy-token: ".to_string()],
        // A wrong x-ploy-token is not rescued by a right bearer.
        vec![
            format!("x-ploy-token: {other}"),
            format!("authorization: Bearer {token}"),
        ],
        // Two token headers, even if one is right.
        vec![
            format!("x-ploy-token: {token}"),
            format!("x-ploy-token: {other}"),
        ],
        vec![
            format!("x-ploy-token: {token}"),
            format!("x-ploy-token: {token}"),
        ],
    ];
    let mut answers = Vec::new();
    for headers in &cases {
        let refs: Vec<&str> = headers.iter().map(String::as_str).collect();
        let answer = raw(gw, &post(&host(gw), "/v1/chat/completions", &refs, CHAT)).await;
        assert_eq!(status(&answer), 403, "{headers:?}");
        answers.push(without_date(&answer));
    }
    // Byte-for-byte identical (apart from the Date header).
    for (answer, headers) in answers.iter().zip(&cases) {
        assert_eq!(answer, &answers[0], "{headers:?}");
    }
    assert!(answers[0].ends_with(GATEWAY_DENIED_BODY));
    // Trailing white space: HTTP strips optional white space around field
    // values (RFC 9110 §5.5), so " TOKEN " on the wire IS the token. A
    // trailing non-white-space byte is not.
    let trailing_dot = raw(
        gw,
        &post(
            &host(gw),
            "/v1/chat/completions",
            &[&format!("x-ploy-token: {token}.")],
            CHAT,
        ),
    )
    .await;
    assert_eq!(without_date(&trailing_dot), answers[0]);
    // Documented: trailing spaces/tabs on the wire are stripped by the HTTP
    // parser before ploy sees the value, so they cannot make a wrong token
    // right or a right one wrong; ploy compares the exact remaining bytes.
    for padded in [
        format!("x-ploy-token: {token} "),
        format!("x-ploy-token: {token}\t\t"),
    ] {
        let answer = raw(
            gw,
            &post(&host(gw), "/v1/chat/completions", &[&padded], CHAT),
        )
        .await;
        assert_eq!(status(&answer), 200, "{padded:?}");
    }
    for padded in [
        format!("x-ploy-token: {other} "),
        format!("x-ploy-token:  {other}\t"),
    ] {
        let answer = raw(
            gw,
            &post(&host(gw), "/v1/chat/completions", &[&padded], CHAT),
        )
        .await;
        assert_eq!(without_date(&answer), answers[0], "{padded:?}");
    }
    // Only the two padded-but-right requests reached the upstream.
    assert_eq!(
        upstream.requests().len(),
        2,
        "a refused request reached the upstream"
    );

    // Both accepted forms work.
    for header in [
        format!("x-ploy-token: {token}"),
        format!("authorization: Bearer {token}"),
    ] {
        let answer = raw(
            gw,
            &post(&host(gw), "/v1/chat/completions", &[&header], CHAT),
        )
        .await;
        assert_eq!(status(&answer), 200, "{header}");
    }
    service.shutdown().await.unwrap();
}

// proves: GW-3, SVC-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rebinding_hosts_and_foreign_origins_are_refused_on_both_listeners() {
    let state = tempfile::tempdir().unwrap();
    let upstream = support::upstream(1, 0).await;
    let service = start_service(state.path(), &upstream.url(), "{}").await;
    let token = gateway_token(&service).await;
    let password = service_file(&service).password;
    let gw = service.gateway_addr();
    let api = service.api_addr();
    let bad_hosts = |port: u16| {
        vec![
            Some("evil.example".to_string()),
            Some(format!("evil.example:{port}")),
            Some(String::new()),
            Some(format!(":{port}")),
            Some("127.0.0.1".to_string()),
            Some(format!("127.0.0.1:{}", port.wrapping_add(1))),
            Some(format!("127.0.0.1.evil.example:{port}")),
            Some(format!("0.0.0.0:{port}")),
            None,
        ]
    };
    let gw_token = format!("x-ploy-token: {token}");
    let api_password = format!("authorization: Bearer {password}");
    for (addr, path, auth, denied) in [
        (
            gw,
            "/v1/chat/completions",
            gw_token.as_str(),
            GATEWAY_DENIED_BODY,
        ),
        (
            api,
            "/v1/conversations",
            api_password.as_str(),
            API_DENIED_BODY,
        ),
    ] {
        for bad in bad_hosts(addr.port()) {
            let host_line = match &bad {
                Some(h) => format!("host: {h}\r\n"),
                None => String::new(),
            };
            let request = format!(
                "POST {path} HTTP/1.1\r\n{host_line}{auth}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{CHAT}",
                CHAT.len()
            );
            let answer = raw(addr, request.as_bytes()).await;
            let code = status(&answer);
            assert!(code == 403 || code == 400, "{addr} host {bad:?}: {code}");
            if code == 403 {
                assert_eq!(body(&answer), denied, "{addr} host {bad:?}");
            }
        }
        // Two Host headers.
        let request = format!(
            "POST {path} HTTP/1.1\r\nhost: {}\r\nhost: evil.example\r\n{auth}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
            host(addr)
        );
        let code = status(&raw(addr, request.as_bytes()).await);
        assert!(code == 403 || code == 400, "double host: {code}");
        // A page on another localhost port (or anywhere) sends an Origin.
        for origin in [
            "http://evil.example".to_string(),
            "null".to_string(),
            format!("http://127.0.0.1:{}", addr.port().wrapping_add(1)),
            format!("http://localhost:{}", addr.port().wrapping_add(1)),
        ] {
            let answer = raw(
                addr,
                &post(
                    &host(addr),
                    path,
                    &[auth, &format!("origin: {origin}")],
                    CHAT,
                ),
            )
            .await;
            assert_eq!(status(&answer), 403, "{addr} origin {origin}");
            assert_eq!(body(&answer), denied);
        }
    }
    // A CORS preflight is refused and grants nothing.
    let preflight = format!(
        "OPTIONS /v1/chat/completions HTTP/1.1\r\nhost: {}\r\norigin: http://evil.example\r\naccess-control-request-method: POST\r\naccess-control-request-headers: x-ploy-token\r\nconnection: close\r\n\r\n",
        host(gw)
    );
    let answer = raw(gw, preflight.as_bytes()).await;
    assert_eq!(status(&answer), 403);
    assert!(
        !String::from_utf8_lossy(&answer)
            .to_ascii_lowercase()
            .contains("access-control")
    );
    assert_eq!(upstream.requests().len(), 0);
    // The API accepts its own origin.
    let own = format!("origin: http://127.0.0.1:{}", api.port());
    let answer = raw(
        api,
        &post(
            &host(api),
            "/v1/conversations",
            &[&api_password, &own],
            r#"{"title":"t"}"#,
        ),
    )
    .await;
    assert_eq!(status(&answer), 201, "{}", String::from_utf8_lossy(&answer));
    service.shutdown().await.unwrap();
}

// proves: SVC-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_needs_the_password_and_serves_conversations_with_marks() {
    let state = tempfile::tempdir().unwrap();
    let upstream = support::upstream(1, 0).await;
    let service = start_service(state.path(), &upstream.url(), "{}").await;
    let api = service.api_addr();
    let file = service_file(&service);
    let auth = format!("authorization: Bearer {}", file.password);
    // Without, or with a wrong / near password: the same bytes.
    let mut denials = Vec::new();
    for headers in [
        vec![],
        vec![format!("authorization: Bearer {}", "f".repeat(64))],
        vec![format!("authorization: Bearer {}", &file.password[..63])],
        vec![format!("authorization: Bearer {}0", file.password)],
        vec![format!("x-ploy-token: {}", file.password)],
        vec![format!("authorization: {}", file.password)],
    ] {
        let refs: Vec<&str> = headers.iter().map(String::as_str).collect();
        for path in ["/v1/health", "/v1/conversations", "/v1/exec-token", "/nope"] {
            let answer = raw(api, &post(&host(api), path, &refs, "")).await;
            assert_eq!(status(&answer), 403, "{path} {headers:?}");
            denials.push(without_date(&answer));
        }
    }
    assert!(denials.iter().all(|d| d == &denials[0]));
    assert!(denials[0].ends_with(API_DENIED_BODY));

    let get = |path: &str| {
        format!(
            "GET {path} HTTP/1.1\r\nhost: {}\r\n{auth}\r\nconnection: close\r\n\r\n",
            host(api)
        )
    };
    let health = raw(api, get("/v1/health").as_bytes()).await;
    assert_eq!(status(&health), 200);
    let health: serde_json::Value = serde_json::from_str(&body(&health)).unwrap();
    assert_eq!(health["pid"], std::process::id());
    assert_eq!(health["gateway_port"], service.gateway_addr().port());

    let created = raw(
        api,
        &post(
            &host(api),
            "/v1/conversations",
            &[&auth],
            r#"{"title":"research"}"#,
        ),
    )
    .await;
    assert_eq!(status(&created), 201);
    let created: serde_json::Value = serde_json::from_str(&body(&created)).unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    // Unknown fields and bad titles are refused.
    for bad in [
        r#"{"title":"x","admin":true}"#,
        r#"{"title":""}"#,
        "not json",
    ] {
        let answer = raw(api, &post(&host(api), "/v1/conversations", &[&auth], bad)).await;
        assert_eq!(status(&answer), 400, "{bad}");
    }
    // Mark it through the store (a second connection to the same database,
    // as the research engine will), then read it back through the API.
    {
        let mut store = ploy_store::Store::open(state.path().join("ploy.db")).unwrap();
        store
            .mark_tainted(
                &id,
                &TaintMark {
                    reason: "browser_read returned a page".into(),
                    source: TaintSource::Url("https://example.invalid/".into()),
                },
            )
            .unwrap();
    }
    let detail = raw(api, get(&format!("/v1/conversations/{id}")).as_bytes()).await;
    assert_eq!(status(&detail), 200);
    let detail: serde_json::Value = serde_json::from_str(&body(&detail)).unwrap();
    assert_eq!(detail["conversation"]["tainted"], true);
    assert_eq!(
        detail["ploy_tainted"][0]["reason"],
        "browser_read returned a page"
    );
    assert_eq!(detail["ploy_tainted"][0]["source"]["type"], "url");
    let list = raw(api, get("/v1/conversations").as_bytes()).await;
    let list: serde_json::Value = serde_json::from_str(&body(&list)).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    let missing = raw(api, get("/v1/conversations/nope").as_bytes()).await;
    assert_eq!(status(&missing), 404);
    service.shutdown().await.unwrap();
}

// proves: GW-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_chunk_by_chunk_and_client_cancel_cancels_upstream() {
    let state = tempfile::tempdir().unwrap();
    let upstream = support::upstream(6, 300).await;
    let service = start_service(state.path(), &upstream.url(), "{}").await;
    let token = gateway_token(&service).await;
    let gw = service.gateway_addr();
    let request = post(
        &host(gw),
        "/v1/chat/completions",
        &[&format!("x-ploy-token: {token}")],
        r#"{"model":"m","stream":true,"messages":[]}"#,
    );

    // 1. The first chunk arrives long before the upstream finishes (6 × 300 ms).
    let started = Instant::now();
    let mut stream = support::connect(gw).await;
    stream.write_all(&request).await.unwrap();
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&received).contains("part0") {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "closed before the first chunk");
        received.extend_from_slice(&buf[..n]);
    }
    let first = started.elapsed();
    assert!(
        first < Duration::from_millis(900),
        "first chunk after {first:?}"
    );
    assert!(!String::from_utf8_lossy(&received).contains("part1"));
    assert_eq!(upstream.finished(), 0, "upstream already finished");
    let text = String::from_utf8_lossy(&received).to_ascii_lowercase();
    assert!(text.contains("content-type: text/event-stream"), "{text}");

    // 2. Hang up mid-stream: the upstream sees the cancel.
    drop(stream);
    let deadline = Instant::now() + Duration::from_secs(3);
    while upstream.cancelled() == 0 {
        assert!(Instant::now() < deadline, "upstream never saw the cancel");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(upstream.finished(), 0);

    // 3. A full stream arrives whole.
    let answer = raw(gw, &request).await;
    let text = String::from_utf8_lossy(&answer);
    for i in 0..6 {
        assert!(text.contains(&format!("part{i} ")), "{text}");
    }
    assert!(text.contains("[DONE]"));
    service.shutdown().await.unwrap();
}

// proves: GW-4
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_and_client_headers_are_not_forwarded_and_model_is_pinned() {
    let state = tempfile::tempdir().unwrap();
    let upstream = support::upstream(1, 0).await;
    let service = start_service(state.path(), &upstream.url(), r#"{"model":"pinned-model"}"#).await;
    let token = gateway_token(&service).await;
    // The pinned model is told to local clients (the agent says so when its
    // --model differs).
    assert_eq!(exec_token_answer(&service).await["model"], "pinned-model");
    let gw = service.gateway_addr();
    let answer = raw(
        gw,
        &post(
            &host(gw),
            "/v1/chat/completions",
            &[
                &format!("authorization: Bearer {token}"),
                "x-client-secret: do-not-forward-me",
                "cookie: session=abc123",
                "user-agent: agent/1.0",
            ],
            CHAT,
        ),
    )
    .await;
    assert_eq!(status(&answer), 200);
    let (head, sent_body) = {
        let sent = &upstream.requests()[0];
        (
            sent.head().to_ascii_lowercase(),
            sent.body.clone().into_bytes(),
        )
    };
    assert!(!head.contains(&token), "token forwarded: {head}");
    for name in [
        "authorization",
        "x-ploy-token",
        "x-client-secret",
        "cookie",
        "user-agent",
        "origin",
    ] {
        assert!(
            !head.contains(&format!("{name}:")),
            "{name} forwarded: {head}"
        );
    }
    assert!(
        head.contains(&format!("host: {}", upstream.addr())),
        "{head}"
    );
    let sent: serde_json::Value = serde_json::from_slice(&sent_body).unwrap();
    assert_eq!(sent["model"], "pinned-model");
    assert_eq!(sent["messages"][0]["content"], "hi");
    service.shutdown().await.unwrap();
}

// proves: GW-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_down_is_a_json_502_and_limits_hold() {
    let state = tempfile::tempdir().unwrap();
    // A port with nothing listening: bind, note the port, close.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let service = start_service(
        state.path(),
        &format!("http://{closed}/v1/chat/completions"),
        r#"{"body_limit_bytes":1024}"#,
    )
    .await;
    let token = gateway_token(&service).await;
    let gw = service.gateway_addr();
    let auth = format!("x-ploy-token: {token}");
    let started = Instant::now();
    let answer = raw(gw, &post(&host(gw), "/v1/chat/completions", &[&auth], CHAT)).await;
    assert_eq!(status(&answer), 502);
    assert!(started.elapsed() < Duration::from_secs(5));
    let error: serde_json::Value = serde_json::from_str(&body(&answer)).unwrap();
    assert_eq!(error["error"]["type"], "upstream_unavailable");
    assert!(error["error"]["message"].as_str().unwrap().contains("GW-1"));

    let big = format!(
        r#"{{"model":"m","messages":[{{"role":"user","content":"{}"}}]}}"#,
        "a".repeat(2000)
    );
    let answer = raw(gw, &post(&host(gw), "/v1/chat/completions", &[&auth], &big)).await;
    assert_eq!(status(&answer), 413);
    // Chunked (no content-length) over the limit is cut too.
    let chunk = "b".repeat(1500);
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: {}\r\n{auth}\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
        host(gw),
        chunk.len()
    );
    assert_eq!(status(&raw(gw, request.as_bytes()).await), 413);
    // A non-JSON body is refused, not forwarded.
    let answer = raw(
        gw,
        &post(&host(gw), "/v1/chat/completions", &[&auth], "[1,2]"),
    )
    .await;
    assert_eq!(status(&answer), 400);
    // Oversized headers are refused by the server.
    let huge = format!("x-filler: {}", "h".repeat(40 * 1024));
    let answer = raw(
        gw,
        &post(&host(gw), "/v1/chat/completions", &[&auth, &huge], CHAT),
    )
    .await;
    let code = status(&answer);
    assert!(
        code == 431 || code == 400 || answer.is_empty(),
        "huge headers: {code}"
    );
    service.shutdown().await.unwrap();
}

// proves: GW-4, SVC-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_starts_two_tokens_no_secret_on_disk_file_0600_removed_at_shutdown() {
    use std::os::unix::fs::PermissionsExt;
    let state = tempfile::tempdir().unwrap();
    let upstream = support::upstream(1, 0).await;
    let mut secrets = Vec::new();
    for _ in 0..2 {
        let service = start_service(state.path(), &upstream.url(), "{}").await;
        let path = service.service_file().to_path_buf();
        assert_eq!(
            path.file_name().unwrap().to_str().unwrap(),
            format!("service-{}.json", std::process::id())
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let token = gateway_token(&service).await;
        // Use the gateway once so the store and logs have had their chance.
        let gw = service.gateway_addr();
        let answer = raw(
            gw,
            &post(
                &host(gw),
                "/v1/chat/completions",
                &[&format!("x-ploy-token: {token}")],
                CHAT,
            ),
        )
        .await;
        assert_eq!(status(&answer), 200);
        // The token is in no file under the state folder (db, WAL, service file).
        for entry in walk(state.path()) {
            let bytes = std::fs::read(&entry).unwrap();
            assert!(
                !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                "token found in {}",
                entry.display()
            );
        }
        secrets.push((token, service_file(&service).password));
        service.shutdown().await.unwrap();
        assert!(!path.exists(), "service file left after shutdown");
    }
    assert_ne!(
        secrets[0].0, secrets[1].0,
        "the token must be new at every start"
    );
    assert_ne!(
        secrets[0].1, secrets[1].1,
        "the password must be new at every start"
    );
    assert_ne!(secrets[0].0, secrets[0].1);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if path.is_file() {
            files.push(path);
        }
    }
    files
}

// proves: SVC-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_service_file_blocks_a_second_start() {
    let state = tempfile::tempdir().unwrap();
    // pid 1 is always alive: its file stands for another running service.
    let planted = ServiceFile {
        pid: 1,
        api_host: "127.0.0.1".into(),
        api_port: 1,
        gateway_port: 2,
        password: "ab".repeat(32),
    };
    ploy_service::service_file::write(state.path(), &planted).unwrap();
    let section = ServiceSection::parse("{}", "test").unwrap();
    let config = ServiceConfig::load(
        section,
        ConfigFlags::default(),
        Some(state.path().to_path_buf()),
    )
    .unwrap();
    let err = RunningService::start(config, None).await.unwrap_err();
    assert!(err.to_string().contains("already running"), "{err}");
}

// proves: GW-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_end_slow_clients_and_silent_upstreams() {
    let state = tempfile::tempdir().unwrap();
    // An upstream that accepts and then says nothing at all.
    let mute = WebServer::start(|_| Reply::never()).await;
    let mute_addr = mute.addr();
    let service = start_service(
        state.path(),
        &format!("http://{mute_addr}/v1/chat/completions"),
        r#"{"first_byte_timeout_ms":300,"request_header_timeout_ms":300}"#,
    )
    .await;
    let token = gateway_token(&service).await;
    let gw = service.gateway_addr();
    let started = Instant::now();
    let answer = raw(
        gw,
        &post(
            &host(gw),
            "/v1/chat/completions",
            &[&format!("x-ploy-token: {token}")],
            CHAT,
        ),
    )
    .await;
    assert_eq!(status(&answer), 504, "{}", String::from_utf8_lossy(&answer));
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(body(&answer).contains("upstream_timeout"));

    // A client that never finishes its request head is cut off.
    let mut slow = support::connect(gw).await;
    slow.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nhost: ")
        .await
        .unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(Duration::from_secs(5), slow.read(&mut buf)).await;
    assert!(read.is_ok(), "slow client still connected after 5 s");
    assert!(started.elapsed() < Duration::from_secs(3));
    service.shutdown().await.unwrap();

    // A stream that goes silent longer than idle_timeout_ms is ended, and the
    // upstream connection is closed.
    let upstream = support::upstream(4, 2000).await;
    let state = tempfile::tempdir().unwrap();
    let service = start_service(state.path(), &upstream.url(), r#"{"idle_timeout_ms":300}"#).await;
    let token = gateway_token(&service).await;
    let gw = service.gateway_addr();
    let started = Instant::now();
    let answer = raw(
        gw,
        &post(
            &host(gw),
            "/v1/chat/completions",
            &[&format!("x-ploy-token: {token}")],
            r#"{"stream":true,"messages":[]}"#,
        ),
    )
    .await;
    let text = String::from_utf8_lossy(&answer);
    assert!(text.contains("part0"), "{text}");
    assert!(!text.contains("part1"), "{text}");
    assert!(started.elapsed() < Duration::from_millis(1900));
    let deadline = Instant::now() + Duration::from_secs(3);
    while upstream.cancelled() == 0 {
        assert!(Instant::now() < deadline, "upstream never saw the close");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    service.shutdown().await.unwrap();
}

/// A keep-alive upstream that counts TCP connections; a body with
/// `"stream":true` gets 20 events, one piece every 100 ms.
async fn keep_alive_upstream() -> WebServer {
    WebServer::start(|request| {
        if request.body_text().contains("\"stream\":true") {
            let events: String = (0..20).map(|i| format!("data: c{i}\n\n")).collect();
            Reply::ok("text/event-stream", events).trickled(10, Duration::from_millis(100))
        } else {
            Reply::json("{\"ok\":true}")
        }
    })
    .await
}

// proves: GW-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_connections_are_reused_only_after_a_clean_end() {
    let upstream_server = keep_alive_upstream().await;
    let upstream = upstream_server.addr();
    let state = tempfile::tempdir().unwrap();
    let service = start_service(
        state.path(),
        &format!("http://{upstream}/v1/chat/completions"),
        "{}",
    )
    .await;
    let token = gateway_token(&service).await;
    let gw = service.gateway_addr();
    let auth = format!("x-ploy-token: {token}");
    for _ in 0..5 {
        let answer = raw(gw, &post(&host(gw), "/v1/chat/completions", &[&auth], CHAT)).await;
        assert_eq!(status(&answer), 200);
        assert!(body(&answer).contains("ok"));
    }
    assert_eq!(
        upstream_server.connections(),
        1,
        "keep-alive connection not reused"
    );

    // Cancel a stream mid-way: that connection must be closed, not reused.
    let mut stream = support::connect(gw).await;
    stream
        .write_all(&post(
            &host(gw),
            "/v1/chat/completions",
            &[&auth],
            r#"{"stream":true}"#,
        ))
        .await
        .unwrap();
    let mut buf = [0u8; 4096];
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("c0") {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0);
        seen.extend_from_slice(&buf[..n]);
    }
    drop(stream);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let answer = raw(gw, &post(&host(gw), "/v1/chat/completions", &[&auth], CHAT)).await;
    assert_eq!(status(&answer), 200);
    assert_eq!(
        upstream_server.connections(),
        2,
        "the cancelled stream's connection was reused or extra connections opened"
    );
    service.shutdown().await.unwrap();
}

// proves: GW-1, GW-2, GW-3, GW-4
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_gateway_for_one_run_checks_like_the_service_gateway() {
    use ploy_service::gateway::LocalGateway;
    let state = tempfile::tempdir().unwrap();
    let upstream = support::upstream(1, 0).await;
    let mut section = ServiceSection::parse(r#"{"model":"pinned"}"#, "test").unwrap();
    section.upstream = Some(upstream.url());
    let config =
        ServiceConfig::load(section, ConfigFlags::default(), Some(state.path().into())).unwrap();
    let gateway = LocalGateway::start(&config, None).await.unwrap();
    let other = LocalGateway::start(&config, None).await.unwrap();
    assert_ne!(gateway.token(), other.token(), "a new token per run (GW-4)");
    assert!(gateway.addr().ip().is_loopback(), "GW-1");
    assert!(!format!("{gateway:?}").contains(gateway.token()));
    assert!(gateway.chat_url().ends_with("/v1/chat/completions"));
    let gw = gateway.addr();
    // No token, another run's token, another path: the same refusal bytes.
    for (path, headers) in [
        ("/v1/chat/completions", vec![]),
        (
            "/v1/chat/completions",
            vec![format!("x-ploy-token: {}", other.token())],
        ),
        (
            "/v1/models",
            vec![format!("x-ploy-token: {}", gateway.token())],
        ),
    ] {
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        let answer = raw(gw, &post(&host(gw), path, &headers, CHAT)).await;
        assert_eq!(status(&answer), 403, "{path}");
        assert_eq!(body(&answer), GATEWAY_DENIED_BODY);
    }
    assert!(
        upstream.requests().is_empty(),
        "nothing refused reached the model"
    );
    let token_header = format!("x-ploy-token: {}", gateway.token());
    let answer = raw(
        gw,
        &post(&host(gw), "/v1/chat/completions", &[&token_header], CHAT),
    )
    .await;
    assert_eq!(status(&answer), 200, "{}", String::from_utf8_lossy(&answer));
    let sent = &upstream.requests()[0];
    let body: serde_json::Value = serde_json::from_str(&sent.body).unwrap();
    assert_eq!(body["model"], "pinned");
    assert!(!sent.head().contains(gateway.token()));
    gateway.shutdown().await;
    assert!(
        tokio::net::TcpStream::connect(gw).await.is_err(),
        "stopped with the run"
    );
}
