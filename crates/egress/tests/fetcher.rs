//! The real guarded fetcher against real loopback servers, through a table
//! resolver answering public-looking addresses and a dialer that maps them to
//! 127.0.0.1. Each test tries to break one rule.
#![allow(clippy::disallowed_methods, clippy::expect_used)]

use std::{
    io::Write,
    time::{Duration, Instant},
};

use ploy_egress::{
    Cancelled, FetchOutcome, MAX_BODY_BYTES, Stage, TimeoutPhase, USER_AGENT, tls_config_with_roots,
};
use ploy_testkit::net::*;
use ploy_testkit::tls::tls_for;
use ploy_testkit::{Received, Reply, WebServer};
use tokio_util::sync::CancellationToken;

fn page(outcome: FetchOutcome) -> ploy_egress::Page {
    match outcome {
        FetchOutcome::Page(page) => page,
        other => panic!("expected a page, got {other:?}"),
    }
}

fn refusal(outcome: FetchOutcome) -> ploy_egress::Refusal {
    match outcome {
        FetchOutcome::Refused(refusal) => refusal,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

async fn fetch(f: &ploy_egress::Fetcher, url: &str) -> FetchOutcome {
    f.fetch(url, &CancellationToken::new())
        .await
        .expect("not cancelled")
}

// proves: URL-2
#[tokio::test]
async fn one_public_and_one_private_address_is_refused_and_nothing_is_dialled() {
    let server = WebServer::start(|_| Reply::ok("text/plain", "secret intranet page")).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("mixed.example.com", &[PUB_A, "10.0.0.7"]);
    resolver.fixed("mixed6.example.com", &[PUB_V6, "fd00::7"]);
    let f = fetcher(&resolver, &dial, quick_config());
    for url in ["http://mixed.example.com/", "http://mixed6.example.com/"] {
        let r = refusal(fetch(&f, url).await);
        assert_eq!(r.rule, "URL-2");
        assert_eq!(r.stage, Stage::Resolve);
    }
    assert!(
        dial.dialled().is_empty(),
        "nothing may be dialled: {:?}",
        dial.dialled()
    );
    assert!(server.requests().is_empty());
}

// proves: BEYOND-1
#[tokio::test]
async fn rebinding_after_the_check_cannot_move_the_connection() {
    let server = WebServer::start(|_| Reply::ok("text/html; charset=utf-8", "<p>public</p>")).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    // Public on the first query, loopback on every later one.
    resolver.rebinding("rebind.example.com", &[PUB_A], &["127.0.0.1"]);
    let f = fetcher(&resolver, &dial, quick_config());
    let page = page(fetch(&f, "http://rebind.example.com/").await);
    assert_eq!(page.text, "<p>public</p>");
    assert_eq!(
        page.connected_to,
        format!("{PUB_A}:80").parse().expect("addr")
    );
    assert_eq!(resolver.queries(), 1, "resolved once, then pinned");
    let dialled = dial.dialled();
    assert_eq!(dialled.len(), 1);
    assert_eq!(
        dialled[0].ip(),
        ip(PUB_A),
        "the checked address, never 127.0.0.1"
    );
}

// proves: BEYOND-1, URL-3
#[tokio::test]
async fn a_redirect_re_resolves_and_a_rebound_name_is_refused_then() {
    let server = WebServer::start(|request| match request.target() {
        "/start" => Reply::redirect(302, "/again"),
        _ => Reply::ok("text/plain", "should never be read"),
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.rebinding("rebind.example.com", &[PUB_A], &["127.0.0.1"]);
    let f = fetcher(&resolver, &dial, quick_config());
    let r = refusal(fetch(&f, "http://rebind.example.com/start").await);
    assert_eq!(r.rule, "URL-2");
    assert!(r.reason.contains("127.0.0.1"), "{}", r.reason);
    assert_eq!(resolver.queries(), 2);
    assert_eq!(server.requests().len(), 1);
}

// proves: URL-3
#[tokio::test]
async fn redirects_to_private_numeric_and_local_targets_are_refused() {
    let server = WebServer::start(|request| {
        let location = match request.target() {
            "/to-private" => "http://10.0.0.1/",
            "/to-metadata" => "http://169.254.169.254/latest/meta-data/",
            "/to-decimal" => "http://2130706433/",
            "/to-hex" => "http://0x7f000001/",
            "/to-octal" => "http://0177.0.0.1/",
            "/to-short" => "//127.1/",
            "/to-localhost-dot" => "http://localhost./",
            "/to-mapped" => "http://[::ffff:127.0.0.1]/",
            "/to-name-private" => "http://private.example.com/",
            "/to-userinfo" => "http://user:pw@public.example.com/",
            "/to-file" => "file:///etc/passwd",
            "/to-backslash" => "\\\\127.0.0.1\\x",
            "/hop1" => "/hop2",
            "/hop2" => "http://[::1]:8080/",
            _ => return Reply::ok("text/plain", "ok"),
        };
        Reply::redirect(302, location)
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("public.example.com", &[PUB_A]);
    resolver.fixed("private.example.com", &["192.168.1.20"]);
    let f = fetcher(&resolver, &dial, quick_config());
    for (path, rule) in [
        ("/to-private", "URL-1"),
        ("/to-metadata", "URL-1"),
        ("/to-decimal", "URL-1"),
        ("/to-hex", "URL-1"),
        ("/to-octal", "URL-1"),
        ("/to-short", "URL-1"),
        ("/to-localhost-dot", "URL-1"),
        ("/to-mapped", "URL-1"),
        ("/to-name-private", "URL-2"),
        ("/to-userinfo", "URL-1"),
        ("/to-file", "URL-1"),
        ("/to-backslash", "URL-1"),
        ("/hop1", "URL-1"),
    ] {
        let r = refusal(fetch(&f, &format!("http://public.example.com{path}")).await);
        assert_eq!(r.rule, rule, "{path}: {r}");
        assert!(r.reason.contains("redirect"), "{path}: {}", r.reason);
    }
    for addr in dial.dialled() {
        assert_eq!(
            addr.ip(),
            ip(PUB_A),
            "only the checked public address is ever dialled"
        );
    }
}

fn chain_server() -> impl Fn(&Received) -> Reply + Send + Sync + 'static {
    // /r/N/L redirects to /r/N+1/L until N == L, then answers.
    |request| {
        let parts: Vec<&str> = request.target().split('/').collect();
        let n: usize = parts.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
        let limit: usize = parts.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
        if n < limit {
            // Alternate statuses so 301, 302, 303, 307 and 308 are all followed.
            let status = [301, 302, 303, 307, 308][n % 5];
            Reply::redirect(status, &format!("/r/{}/{limit}", n + 1))
        } else {
            Reply::ok("text/plain", format!("end of chain at {n}"))
        }
    }
}

// proves: URL-3
#[tokio::test]
async fn four_redirects_are_followed_and_the_fifth_is_refused() {
    let server = WebServer::start(chain_server()).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("chain.example.com", &[PUB_A]);
    let f = fetcher(&resolver, &dial, quick_config());

    let ok = page(fetch(&f, "http://chain.example.com/r/0/4").await);
    assert_eq!(ok.redirects, 4);
    assert_eq!(ok.text, "end of chain at 4");

    let before = server.requests().len();
    let r = refusal(fetch(&f, "http://chain.example.com/r/0/5").await);
    assert_eq!(r.rule, "URL-3");
    assert_eq!(r.stage, Stage::Redirect);
    // Five requests were made (the original and four redirects); the fifth
    // redirect target was never requested.
    let heads = server.requests();
    assert_eq!(heads.len() - before, 5);
    assert!(!heads.iter().any(|h| h.target() == "/r/5/5"));
    // Every request, 303 or 307 alike, is a GET.
    assert!(heads.iter().all(|h| h.method == "GET"));
}

// proves: URL-3, BEYOND-1
#[tokio::test]
async fn https_is_verified_and_a_downgrade_to_http_is_refused() {
    let (server_tls, ca) = tls_for(&["secure.example.com"]);
    let server = WebServer::start_tls(server_tls, |request| match request.target() {
        "/down" => Reply::redirect(302, "http://secure.example.com/plain"),
        "/down-literal" => Reply::redirect(301, &format!("http://{PUB_A}/")),
        _ => Reply::ok("text/plain", "over tls"),
    })
    .await;
    let plain = WebServer::start(|_| Reply::ok("text/plain", "plain http, must not be read")).await;
    let dial = MapDial::default();
    dial.map(PUB_B, server.addr());
    dial.map(PUB_A, plain.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("secure.example.com", &[PUB_B]);
    resolver.fixed("wrong-name.example.com", &[PUB_B]);
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca).expect("root");
    let mut config = quick_config();
    config.tls = tls_config_with_roots(roots).expect("tls");
    let f = fetcher(&resolver, &dial, config);

    let ok = page(fetch(&f, "https://secure.example.com/").await);
    assert_eq!(ok.text, "over tls");

    for path in ["/down", "/down-literal"] {
        let r = refusal(fetch(&f, &format!("https://secure.example.com{path}")).await);
        assert_eq!(r.rule, "URL-3", "{path}");
        assert_eq!(r.stage, Stage::Redirect);
    }
    assert!(
        plain.requests().is_empty(),
        "the http target was never contacted"
    );

    // The certificate is for secure.example.com: a different name is refused
    // even though the address is the same (TLS is verified against the name).
    match fetch(&f, "https://wrong-name.example.com/").await {
        FetchOutcome::NetworkError { detail, .. } => assert!(detail.contains("TLS"), "{detail}"),
        other => panic!("expected a TLS failure, got {other:?}"),
    }
    // The production roots do not trust the test CA.
    let f = fetcher(&resolver, &dial, quick_config());
    assert!(matches!(
        fetch(&f, "https://secure.example.com/").await,
        FetchOutcome::NetworkError { .. }
    ));
}

/// 32 MiB of zeros gzipped to a few tens of KiB (built once, before any
/// timer starts: debug-build compression is slow).
static GZIP_BOMB: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let zeros = vec![0u8; 1024 * 1024];
    for _ in 0..32 {
        encoder.write_all(&zeros).expect("gzip");
    }
    encoder.finish().expect("gzip")
});

fn body_server() -> impl Fn(&Received) -> Reply + Send + Sync + 'static {
    |request| match request.target() {
        "/over" => Reply::ok("text/plain", vec![b'a'; MAX_BODY_BYTES + 1]),
        "/exact" => Reply::ok("text/plain", vec![b'b'; MAX_BODY_BYTES]),
        "/unframed" => {
            // No Content-Length: the body runs until the server closes.
            let mut bytes =
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
                    .to_vec();
            bytes.extend(vec![b'c'; MAX_BODY_BYTES * 2]);
            Reply::raw(bytes)
        }
        "/lying" => {
            // Content-Length claims little; chunked framing sends much more.
            let mut bytes = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
            let chunk = vec![b'd'; 256 * 1024];
            for _ in 0..8 {
                bytes.extend(format!("{:x}\r\n", chunk.len()).as_bytes());
                bytes.extend(&chunk);
                bytes.extend(b"\r\n");
            }
            bytes.extend(b"0\r\n\r\n");
            Reply::raw(bytes)
        }
        "/bomb" => Reply::with_headers(
            200,
            &[("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
            &*GZIP_BOMB,
        ),
        "/gzip-small" => {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            encoder.write_all("grüße".as_bytes()).expect("gzip");
            let body = encoder.finish().expect("gzip");
            Reply::with_headers(
                200,
                &[
                    ("Content-Type", "text/plain; charset=utf-8"),
                    ("Content-Encoding", "gzip"),
                ],
                body,
            )
        }
        "/latin1" => Reply::ok("text/html; charset=ISO-8859-1", [0x63, 0x61, 0x66, 0xe9]),
        _ => Reply::ok("text/plain", "small"),
    }
}

// proves: FETCH-1
#[tokio::test]
async fn bodies_stop_at_the_cap_whatever_the_framing_says() {
    let server = WebServer::start(body_server()).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("big.example.com", &[PUB_A]);
    let f = fetcher(&resolver, &dial, quick_config());

    let over = page(fetch(&f, "http://big.example.com/over").await);
    assert!(over.truncated);
    assert_eq!(over.body_bytes, MAX_BODY_BYTES);
    assert_eq!(over.text.len(), MAX_BODY_BYTES);

    let exact = page(fetch(&f, "http://big.example.com/exact").await);
    assert!(!exact.truncated, "exactly the cap is not truncated");
    assert_eq!(exact.body_bytes, MAX_BODY_BYTES);

    let unframed = page(fetch(&f, "http://big.example.com/unframed").await);
    assert!(unframed.truncated);
    assert_eq!(unframed.body_bytes, MAX_BODY_BYTES);

    let lying = page(fetch(&f, "http://big.example.com/lying").await);
    assert!(lying.truncated);
    assert_eq!(lying.body_bytes, MAX_BODY_BYTES);
}

// proves: FETCH-1
#[tokio::test]
async fn a_gzip_bomb_stops_at_the_cap_after_decompression() {
    let server = WebServer::start(body_server()).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("bomb.example.com", &[PUB_A]);
    let f = fetcher(&resolver, &dial, quick_config());
    assert!(
        GZIP_BOMB.len() < MAX_BODY_BYTES / 8,
        "the bomb is small on the wire"
    );
    let started = Instant::now();
    let bomb = page(fetch(&f, "http://bomb.example.com/bomb").await);
    assert!(bomb.truncated);
    assert_eq!(
        bomb.body_bytes, MAX_BODY_BYTES,
        "capped after decompression, not before"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "stopped early, did not inflate 32 MiB"
    );

    let small = page(fetch(&f, "http://bomb.example.com/gzip-small").await);
    assert_eq!(small.text, "grüße");
    assert!(!small.truncated);

    let latin = page(fetch(&f, "http://bomb.example.com/latin1").await);
    assert_eq!(latin.text, "café");
    assert_eq!(latin.charset, "windows-1252");
}

// proves: FETCH-1
#[tokio::test]
async fn binary_and_unlabelled_content_is_refused() {
    let server = WebServer::start(|request| match request.target() {
        "/bin" => Reply::ok("application/octet-stream", [0u8, 1, 2, 3]),
        "/png" => Reply::ok("image/png", [0x89, b'P', b'N', b'G']),
        "/pdf" => Reply::ok("application/pdf", b"%PDF-1.7"),
        "/none" => Reply::with_headers(200, &[], b"who knows"),
        "/zstd" => Reply::with_headers(
            200,
            &[("Content-Type", "text/plain"), ("Content-Encoding", "zstd")],
            b"x",
        ),
        "/json" => Reply::ok("application/problem+json", b"{\"a\":1}"),
        _ => Reply::ok("text/plain", "ok"),
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("types.example.com", &[PUB_A]);
    let f = fetcher(&resolver, &dial, quick_config());
    for path in ["/bin", "/png", "/pdf", "/none", "/zstd"] {
        let r = refusal(fetch(&f, &format!("http://types.example.com{path}")).await);
        assert_eq!(r.rule, "FETCH-1", "{path}");
        assert_eq!(r.stage, Stage::Content, "{path}");
    }
    let json = page(fetch(&f, "http://types.example.com/json").await);
    assert_eq!(json.content_type, "application/problem+json");
}

// proves: CANCEL-1, FAIL-1
#[tokio::test]
async fn a_server_that_never_answers_hits_the_read_timeout() {
    let server = WebServer::start(|_| Reply::raw_then_stall(Vec::new())).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("silent.example.com", &[PUB_A]);
    let mut config = quick_config();
    config.read_timeout = Duration::from_millis(300);
    let f = fetcher(&resolver, &dial, config);
    let started = Instant::now();
    let outcome = fetch(&f, "http://silent.example.com/").await;
    assert!(
        matches!(
            outcome,
            FetchOutcome::TimedOut {
                phase: TimeoutPhase::Read,
                ..
            }
        ),
        "{outcome:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

// proves: CANCEL-1
#[tokio::test]
async fn a_trickling_server_hits_the_total_timeout() {
    let server = WebServer::start(|_| {
        // The head and one byte of a long body, then silence: the read
        // timeout is long, so only the total limit can end this fetch.
        Reply::raw_then_stall(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\nx"
                .to_vec(),
        )
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("slow.example.com", &[PUB_A]);
    let mut config = quick_config();
    config.read_timeout = Duration::from_secs(30);
    config.total_timeout = Duration::from_millis(400);
    let f = fetcher(&resolver, &dial, config);
    let started = Instant::now();
    let outcome = fetch(&f, "http://slow.example.com/").await;
    assert!(
        matches!(
            outcome,
            FetchOutcome::TimedOut {
                phase: TimeoutPhase::Total,
                ..
            }
        ),
        "{outcome:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

// proves: CANCEL-1
#[tokio::test]
async fn cancellation_mid_body_stops_at_once_and_closes_the_connection() {
    let mut head =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10000000\r\n\r\n".to_vec();
    head.extend(vec![b'z'; 64 * 1024]);
    let server = WebServer::start(move |_| Reply::raw_then_stall(head.clone())).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("cancel.example.com", &[PUB_A]);
    let mut config = quick_config();
    config.read_timeout = Duration::from_secs(60);
    config.total_timeout = Duration::from_secs(60);
    let f = fetcher(&resolver, &dial, config);
    let cancel = CancellationToken::new();
    let task = {
        let (f, cancel) = (f.clone(), cancel.clone());
        tokio::spawn(async move { f.fetch("http://cancel.example.com/", &cancel).await })
    };
    // Wait until the server has sent part of the body.
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.requests().is_empty() {
        assert!(Instant::now() < deadline, "the request never arrived");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cancelled_at = Instant::now();
    cancel.cancel();
    let result = tokio::time::timeout(Duration::from_secs(1), task)
        .await
        .expect("the fetch stops at once")
        .expect("no panic");
    assert_eq!(result, Err(Cancelled));
    assert!(cancelled_at.elapsed() < Duration::from_millis(500));
    // The connection is closed, not left running.
    let deadline = Instant::now() + Duration::from_secs(2);
    while server.closed_at().is_empty() {
        assert!(
            Instant::now() < deadline,
            "the connection stayed open after cancel"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// proves: FETCH-2
#[tokio::test]
async fn no_cookie_is_ever_sent_even_after_set_cookie() {
    let server = WebServer::start(|request| match request.target() {
        "/login" => Reply::with_headers(
            302,
            &[
                ("Set-Cookie", "session=s3cr3t; Path=/"),
                ("Set-Cookie", "tracker=1; Domain=example.com"),
                ("Location", "/after"),
            ],
            b"",
        ),
        _ => Reply::with_headers(
            200,
            &[("Content-Type", "text/plain"), ("Set-Cookie", "again=2")],
            b"ok",
        ),
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("cookies.example.com", &[PUB_A]);
    let f = fetcher(&resolver, &dial, quick_config());
    page(fetch(&f, "http://cookies.example.com/login").await);
    page(fetch(&f, "http://cookies.example.com/again").await);
    let heads: Vec<String> = server.requests().iter().map(Received::text).collect();
    assert_eq!(heads.len(), 3);
    for head in &heads {
        let lower = head.to_ascii_lowercase();
        assert!(!lower.contains("\r\ncookie:"), "a cookie was sent: {head}");
        assert!(
            !lower.contains("\r\nreferer:"),
            "a referer was sent: {head}"
        );
        assert!(!lower.contains("\r\nauthorization:"), "{head}");
        assert!(head.starts_with("GET "), "{head}");
        assert!(head.contains(USER_AGENT), "{head}");
        // Only our fixed header set.
        let names: Vec<String> = head
            .lines()
            .skip(1)
            .filter_map(|line| line.split_once(':').map(|(n, _)| n.to_ascii_lowercase()))
            .collect();
        for name in &names {
            assert!(
                [
                    "host",
                    "user-agent",
                    "accept",
                    "accept-encoding",
                    "connection"
                ]
                .contains(&name.as_str()),
                "unexpected header {name}"
            );
        }
    }
}

// proves: FAIL-1
#[tokio::test]
async fn failures_are_values_not_panics_or_errors() {
    let server = WebServer::start(|request| match request.target() {
        "/missing" => Reply::with_headers(404, &[("Content-Type", "text/plain")], b"nope"),
        "/loop" => Reply::redirect(302, "/loop"),
        "/no-location" => Reply::with_headers(302, &[], b""),
        "/garbage" => Reply::raw(b"NOT HTTP AT ALL\r\n\r\n".to_vec()),
        _ => Reply::ok("text/plain", "ok"),
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    // PUB_B is not mapped: the dial fails like a refused connection.
    let resolver = ScriptedResolver::default();
    resolver.fixed("fail.example.com", &[PUB_A]);
    resolver.fixed("down.example.com", &[PUB_B]);
    let f = fetcher(&resolver, &dial, quick_config());
    assert!(matches!(
        fetch(&f, "http://fail.example.com/missing").await,
        FetchOutcome::HttpStatus { status: 404, .. }
    ));
    assert!(matches!(
        fetch(&f, "http://fail.example.com/no-location").await,
        FetchOutcome::HttpStatus { status: 302, .. }
    ));
    assert_eq!(
        refusal(fetch(&f, "http://fail.example.com/loop").await).rule,
        "URL-3"
    );
    assert!(matches!(
        fetch(&f, "http://fail.example.com/garbage").await,
        FetchOutcome::NetworkError { .. }
    ));
    assert!(matches!(
        fetch(&f, "http://down.example.com/").await,
        FetchOutcome::NetworkError { .. }
    ));
    assert!(matches!(
        fetch(&f, "http://unknown.example.com/").await,
        FetchOutcome::NetworkError { .. }
    ));
    assert_eq!(refusal(fetch(&f, "not a url").await).rule, "URL-1");
}

// proves: BEYOND-1, URL-1
#[tokio::test]
async fn literal_public_addresses_are_checked_and_dialled_directly() {
    let server = WebServer::start(|_| Reply::ok("text/plain", "literal")).await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    dial.map(PUB_V6, server.addr());
    let resolver = ScriptedResolver::default();
    let f = fetcher(&resolver, &dial, quick_config());
    assert_eq!(
        page(fetch(&f, &format!("http://{PUB_A}/")).await).text,
        "literal"
    );
    let v6 = page(fetch(&f, &format!("http://[{PUB_V6}]:8080/")).await);
    assert_eq!(
        v6.connected_to,
        format!("[{PUB_V6}]:8080").parse().expect("addr")
    );
    // Mapped IPv6 is dialled as the IPv4 address it stands for.
    let mapped = page(fetch(&f, &format!("http://[::ffff:{PUB_A}]/")).await);
    assert_eq!(mapped.connected_to.ip(), ip(PUB_A));
    assert_eq!(resolver.queries(), 0);
    assert_eq!(
        refusal(fetch(&f, "http://127.0.0.1/").await).stage,
        Stage::Text
    );
    assert!(dial.dialled().iter().all(|a| !a.ip().is_loopback()));
}
