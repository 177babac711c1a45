//! `Fetcher::post_json` (the Tavily entry) against real loopback servers,
//! through the same seams as `fetcher.rs`: a table resolver answering
//! public-looking addresses and a dialer mapping them to 127.0.0.1. Each test
//! tries to make the key or the body go somewhere it must not.
#![allow(clippy::disallowed_methods, clippy::expect_used)]

use std::{
    io::Write,
    sync::{Arc, Mutex},
    time::Duration,
};

use ploy_egress::{
    Cancelled, FetchOutcome, MAX_BODY_BYTES, MAX_POST_BODY_BYTES, Stage, USER_AGENT,
    tls_config_with_roots,
};
use ploy_testkit::net::*;
use ploy_testkit::tls::tls_for;
use ploy_testkit::{Received, Reply, WebServer};
use tokio_util::sync::CancellationToken;

const KEY: &str = "tvly-CANARYkey0123456789abcdefXYZ";
const BODY: &str = r#"{"query":"rust tokio timeout","max_results":5}"#;
const TAVILY_ANSWER: &str =
    r#"{"results":[{"title":"T","url":"https://example.com/","content":"c"}]}"#;

/// POSTs with `bearer` declared for `url`'s own origin (as a backend
/// declares its key for its configured base URL; a URL that has none, such
/// as `file:`, gets a key declared for api.example.com).
async fn post(f: &ploy_egress::Fetcher, url: &str, bearer: &str, body: &[u8]) -> FetchOutcome {
    let credential = ploy_egress::Credential::bearer_for(bearer, url)
        .or_else(|| ploy_egress::Credential::bearer_for(bearer, "http://api.example.com/"))
        .expect("declared");
    f.post_json(url, &credential, body.to_vec(), &CancellationToken::new())
        .await
        .expect("not cancelled")
}

fn refusal(outcome: FetchOutcome) -> ploy_egress::Refusal {
    match outcome {
        FetchOutcome::Refused(refusal) => refusal,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn page(outcome: FetchOutcome) -> ploy_egress::Page {
    match outcome {
        FetchOutcome::Page(page) => page,
        other => panic!("expected a page, got {other:?}"),
    }
}

/// The body a recorded request carried (after the blank line).
fn body_of(request: &str) -> &str {
    request.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("")
}

// proves: EGRESS-2, FETCH-2, BEYOND-1
#[tokio::test]
async fn the_server_receives_exactly_the_fixed_headers_and_the_body_over_verified_tls() {
    let (server_tls, ca) = tls_for(&["api.example.com"]);
    let server =
        WebServer::start_tls(server_tls, |_| Reply::ok("application/json", TAVILY_ANSWER)).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("api.example.com", &[PUB_A]);
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca).expect("root");
    let mut config = quick_config();
    config.tls = tls_config_with_roots(roots).expect("tls");
    let f = fetcher(&resolver, &dial, config);

    let got = page(post(&f, "https://api.example.com/search", KEY, BODY.as_bytes()).await);
    assert_eq!(got.text, TAVILY_ANSWER);
    assert_eq!(got.content_type, "application/json");
    assert_eq!(got.connected_to.ip(), ip(PUB_A));

    let requests: Vec<String> = server.requests().iter().map(Received::text).collect();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert!(
        request.starts_with("POST /search HTTP/1.1\r\n"),
        "{request}"
    );
    assert_eq!(body_of(request), BODY, "the body arrives byte for byte");
    let head = request.split("\r\n\r\n").next().expect("head");
    let mut headers: Vec<(String, String)> = head
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    headers.sort();
    let expected = vec![
        ("accept".to_owned(), "application/json".to_owned()),
        ("authorization".to_owned(), format!("Bearer {KEY}")),
        ("connection".to_owned(), "close".to_owned()),
        ("content-length".to_owned(), BODY.len().to_string()),
        ("content-type".to_owned(), "application/json".to_owned()),
        ("host".to_owned(), "api.example.com".to_owned()),
        ("user-agent".to_owned(), USER_AGENT.to_owned()),
    ];
    assert_eq!(
        headers, expected,
        "exactly the fixed headers, once each (no cookie, no referer)"
    );
}

// proves: URL-3, A-1
#[tokio::test]
async fn a_redirect_is_refused_and_the_key_never_reaches_the_redirect_target() {
    let catcher = WebServer::start(|_| Reply::ok("application/json", "{}")).await;
    let server = WebServer::start(|request| match request.target() {
        "/s301" => Reply::redirect(301, "http://catcher.example.com/steal"),
        "/s302" => Reply::redirect(302, "http://catcher.example.com/steal"),
        "/s303" => Reply::redirect(303, "http://catcher.example.com/steal"),
        "/s307" => Reply::redirect(307, "http://catcher.example.com/steal"),
        "/s308" => Reply::redirect(308, "http://catcher.example.com/steal"),
        "/same-host" => Reply::redirect(307, "/search"),
        "/echo-in-location" => {
            Reply::redirect(302, &format!("http://catcher.example.com/?k={KEY}"))
        }
        _ => Reply::ok("application/json", "{}"),
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    dial.map(PUB_B, catcher.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("api.example.com", &[PUB_A]);
    resolver.fixed("catcher.example.com", &[PUB_B]);
    let f = fetcher(&resolver, &dial, quick_config());

    let paths = [
        "/s301",
        "/s302",
        "/s303",
        "/s307",
        "/s308",
        "/same-host",
        "/echo-in-location",
    ];
    for path in paths {
        let outcome = post(
            &f,
            &format!("http://api.example.com{path}"),
            KEY,
            BODY.as_bytes(),
        )
        .await;
        let shown = format!("{outcome:?}");
        let r = refusal(outcome);
        assert_eq!(r.rule, "URL-3", "{path}: {r}");
        assert_eq!(r.stage, Stage::Redirect, "{path}");
        assert!(
            !shown.contains(KEY),
            "{path}: the key is in the outcome: {shown}"
        );
    }
    assert!(
        catcher.requests().is_empty(),
        "the redirect target was never contacted"
    );
    for addr in dial.dialled() {
        assert_eq!(addr.ip(), ip(PUB_A), "only the API address is ever dialled");
    }
    // Even a same-host redirect is not re-sent: one request per POST.
    assert_eq!(server.requests().len(), paths.len());
}

// proves: URL-1, URL-2, A-1
#[tokio::test]
async fn private_numeric_and_mixed_targets_are_refused_before_anything_is_sent() {
    let server = WebServer::start(|_| Reply::ok("application/json", "{}")).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("mixed.example.com", &[PUB_A, "10.0.0.9"]);
    resolver.fixed("six.example.com", &[PUB_A, "fd00::9"]);
    resolver.fixed("intranet.example.com", &["192.168.1.4"]);
    let f = fetcher(&resolver, &dial, quick_config());
    let port = server.addr().port();
    for (url, rule) in [
        (format!("http://127.0.0.1:{port}/search"), "URL-1"),
        ("http://10.0.0.1/search".to_owned(), "URL-1"),
        ("http://169.254.169.254/latest".to_owned(), "URL-1"),
        ("http://0x7f.1/search".to_owned(), "URL-1"),
        ("http://[::ffff:127.0.0.1]/search".to_owned(), "URL-1"),
        ("http://localhost./search".to_owned(), "URL-1"),
        (format!("http://u:{KEY}@api.example.com/"), "URL-1"),
        ("file:///etc/passwd".to_owned(), "URL-1"),
        ("http://mixed.example.com/search".to_owned(), "URL-2"),
        ("http://six.example.com/search".to_owned(), "URL-2"),
        ("http://intranet.example.com/search".to_owned(), "URL-2"),
    ] {
        let outcome = post(&f, &url, KEY, BODY.as_bytes()).await;
        assert!(!format!("{outcome:?}").contains(KEY), "{url}");
        assert_eq!(refusal(outcome).rule, rule, "{url}");
    }
    assert!(dial.dialled().is_empty(), "{:?}", dial.dialled());
    assert!(server.requests().is_empty());
}

// proves: FETCH-1, EGRESS-2, A-1
#[tokio::test]
async fn caps_and_content_type_apply_and_bad_requests_never_leave() {
    let server = WebServer::start(|request| match request.target() {
        "/big" => Reply::ok("application/json", vec![b' '; MAX_BODY_BYTES + 1]),
        "/binary" => Reply::ok("application/octet-stream", b"\x00\x01"),
        _ => Reply::ok("application/json", "{}"),
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("api.example.com", &[PUB_A]);
    let f = fetcher(&resolver, &dial, quick_config());

    let big = page(post(&f, "http://api.example.com/big", KEY, BODY.as_bytes()).await);
    assert!(big.truncated);
    assert_eq!(big.body_bytes, MAX_BODY_BYTES);
    let r = refusal(post(&f, "http://api.example.com/binary", KEY, BODY.as_bytes()).await);
    assert_eq!((r.rule, r.stage), ("FETCH-1", Stage::Content));
    let sent_before = server.requests().len();
    assert_eq!(sent_before, 2);

    // Over the send cap by one byte: refused, nothing dialled.
    let dialled_before = dial.dialled().len();
    let r = refusal(
        post(
            &f,
            "http://api.example.com/search",
            KEY,
            &vec![b'x'; MAX_POST_BODY_BYTES + 1],
        )
        .await,
    );
    assert_eq!((r.rule, r.stage), ("EGRESS-2", Stage::Request));
    // Exactly at the cap is sent.
    page(
        post(
            &f,
            "http://api.example.com/search",
            KEY,
            &vec![b' '; MAX_POST_BODY_BYTES],
        )
        .await,
    );
    assert_eq!(dial.dialled().len(), dialled_before + 1);

    // Tokens that would smuggle a header, or are empty: refused, never shown.
    let dialled_before = dial.dialled().len();
    for bad in [
        "",
        "has space",
        "tvly-abc\r\nX-Injected: 1",
        "tvly-é-nonascii",
        &"k".repeat(513),
    ] {
        let outcome = post(&f, "http://api.example.com/search", bad, BODY.as_bytes()).await;
        let r = refusal(outcome);
        assert_eq!((r.rule, r.stage), ("CONFIG-1", Stage::Request), "{bad:?}");
        if !bad.is_empty() {
            assert!(!r.reason.contains(bad), "the token is shown: {}", r.reason);
        }
    }
    assert_eq!(dial.dialled().len(), dialled_before, "nothing was dialled");
    assert_eq!(server.requests().len(), sent_before + 1);
}

/// A `MakeWriter` collecting every log line into one buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

// proves: A-1
#[tokio::test(flavor = "current_thread")]
async fn the_key_never_appears_in_outcomes_or_logs_even_when_the_server_echoes_it() {
    let logs = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(logs.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    tracing::trace!("capture is live");

    let server = WebServer::start(|request| {
        // The server echoes the Authorization header it received.
        let echoed = request
            .header("authorization")
            .map(|value| format!("authorization: {value}"))
            .unwrap_or_default();
        match request.target() {
            "/missing" => Reply::with_headers(404, &[("Content-Type", "text/plain")], echoed),
            "/stall" => Reply::raw_then_stall(b"HTTP/1.1 200 OK\r\n".to_vec()),
            _ => Reply::ok(
                "application/json",
                format!(r#"{{"echo":"{echoed}","again":"{KEY}"}}"#),
            ),
        }
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("api.example.com", &[PUB_A]);
    let f = fetcher(&resolver, &dial, quick_config());

    let mut outcomes = Vec::new();
    for path in ["/search", "/missing", "/stall"] {
        outcomes.push(
            post(
                &f,
                &format!("http://api.example.com{path}"),
                KEY,
                BODY.as_bytes(),
            )
            .await,
        );
    }
    // The key did reach the server (so the test could have failed).
    assert!(server.requests()[0].text().contains(KEY));
    let echoed = page(outcomes[0].clone());
    assert!(echoed.text.contains("[REDACTED]"), "{}", echoed.text);
    for outcome in &outcomes {
        let debug = format!("{outcome:?}");
        let json = serde_json::to_string(outcome).expect("serialise");
        assert!(!debug.contains(KEY), "{debug}");
        assert!(!json.contains(KEY), "{json}");
        assert!(!debug.contains("CANARYkey"), "{debug}");
    }
    let logged = String::from_utf8(logs.0.lock().expect("lock").clone()).expect("utf8");
    assert!(logged.contains("capture is live"), "the capture works");
    assert!(
        !logged.contains("CANARYkey"),
        "the key was logged: {logged}"
    );
}

// proves: CANCEL-1
#[tokio::test]
async fn cancelling_a_post_stops_it_at_once() {
    let server = WebServer::start(|_| {
        Reply::raw_then_stall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
                .to_vec(),
        )
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("api.example.com", &[PUB_A]);
    let mut config = quick_config();
    config.read_timeout = Duration::from_secs(30);
    config.total_timeout = Duration::from_secs(60);
    let f = fetcher(&resolver, &dial, config);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let credential =
        ploy_egress::Credential::bearer_for(KEY, "http://api.example.com/").expect("declared");
    let result = f
        .post_json(
            "http://api.example.com/search",
            &credential,
            BODY.into(),
            &cancel,
        )
        .await;
    assert_eq!(result, Err(Cancelled));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}
