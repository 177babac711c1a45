//! The one operator-named host (a self-hosted SearXNG, issue 7) against real
//! loopback servers: exactly that host as written, on that port, passes the
//! address policy; every other name, port or spelling of the same address is
//! refused, and redirects away from it are checked as usual.
#![allow(clippy::disallowed_methods, clippy::expect_used)]

use std::{net::SocketAddr, sync::Arc};

use ploy_egress::{Dial, FetchOutcome, Fetcher, OperatorHost, Stage, TcpDial};
use ploy_testkit::net::*;
use ploy_testkit::{Received, Reply, WebServer};
use tokio_util::sync::CancellationToken;

async fn fetch(f: &Fetcher, url: &str) -> FetchOutcome {
    f.fetch(url, &CancellationToken::new())
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

fn searx_server() -> impl Fn(&Received) -> Reply + Send + Sync + 'static {
    |request| match request.target() {
        "/to-other-loopback" => Reply::redirect(302, "http://127.0.0.2/"),
        "/to-other-port" => Reply::redirect(302, "http://127.0.0.1:1/"),
        "/to-localhost" => Reply::redirect(302, "http://localhost/"),
        "/to-private-name" => Reply::redirect(302, "http://intranet.example.com/"),
        "/to-self" => Reply::redirect(302, "/search?q=x&format=json"),
        _ => Reply::ok("application/json", r#"{"results":[]}"#),
    }
}

// proves: URL-1, URL-2, BEYOND-1 (issue 7: the operator-named address)
#[tokio::test]
async fn the_named_literal_host_passes_with_the_real_dialer_and_nothing_else_does() {
    let server = WebServer::start(searx_server()).await;
    let bystander = WebServer::start(|_| Reply::ok("text/plain", "must not be read")).await;
    let port = server.addr().port();
    let resolver = ScriptedResolver::default();
    resolver.fixed("searx.example.com", &["127.0.0.1"]);
    let mut config = quick_config();
    config.operator_host =
        Some(OperatorHost::from_base_url(&format!("http://127.0.0.1:{port}/")).expect("operator"));
    let plain = Fetcher::new(
        Arc::new(resolver.clone()),
        Arc::new(TcpDial),
        quick_config(),
    );
    let f = Fetcher::new(Arc::new(resolver), Arc::new(TcpDial), config);

    let ok = page(
        fetch(
            &f,
            &format!("http://127.0.0.1:{port}/search?q=x&format=json"),
        )
        .await,
    );
    assert_eq!(ok.text, r#"{"results":[]}"#);
    assert_eq!(ok.connected_to, server.addr());
    // Without the operator setting the same URL is refused: it is opt-in.
    let r = refusal(fetch(&plain, &format!("http://127.0.0.1:{port}/search")).await);
    assert_eq!(r.rule, "URL-1");

    let other_port = bystander.addr().port();
    for (url, rule) in [
        (format!("http://127.0.0.1:{other_port}/"), "URL-1"),
        (format!("http://localhost:{port}/"), "URL-1"),
        (format!("http://[::ffff:127.0.0.1]:{port}/"), "URL-1"),
        (format!("http://[::1]:{port}/"), "URL-1"),
        (format!("http://2130706433:{port}/"), "URL-1"),
        (format!("http://127.1:{port}/"), "URL-1"),
        (format!("http://0x7f.0.0.1:{port}/"), "URL-1"),
        (format!("http://user@127.0.0.1:{port}/"), "URL-1"),
        (format!("http://127.0.0.2:{port}/"), "URL-1"),
        (format!("https://127.0.0.1:{port}/"), "URL-1"),
        (format!("http://searx.example.com:{port}/"), "URL-2"),
    ] {
        let r = refusal(fetch(&f, &url).await);
        assert_eq!(r.rule, rule, "{url}: {r}");
    }
    assert!(bystander.requests().is_empty());
    assert_eq!(server.requests().len(), 1, "only the named host:port");
}

// proves: URL-3 (redirects away from the operator host are checked normally)
#[tokio::test]
async fn a_redirect_from_the_operator_host_to_another_private_address_is_refused() {
    let server = WebServer::start(searx_server()).await;
    let port = server.addr().port();
    let resolver = ScriptedResolver::default();
    resolver.fixed("intranet.example.com", &["192.168.1.20"]);
    let mut config = quick_config();
    config.operator_host =
        Some(OperatorHost::from_base_url(&format!("http://127.0.0.1:{port}")).expect("operator"));
    let f = Fetcher::new(Arc::new(resolver), Arc::new(TcpDial), config);
    let base = format!("http://127.0.0.1:{port}");
    for (path, rule, stage) in [
        ("/to-other-loopback", "URL-1", Stage::Text),
        ("/to-other-port", "URL-1", Stage::Text),
        ("/to-localhost", "URL-1", Stage::Text),
        ("/to-private-name", "URL-2", Stage::Resolve),
    ] {
        let r = refusal(fetch(&f, &format!("{base}{path}")).await);
        assert_eq!((r.rule, r.stage), (rule, stage), "{path}: {r}");
        assert!(r.reason.contains("redirect"), "{path}: {}", r.reason);
    }
    // A redirect that stays on the operator host is followed.
    let ok = page(fetch(&f, &format!("{base}/to-self")).await);
    assert_eq!(ok.redirects, 1);
    assert_eq!(server.requests().len(), 6);
}

// proves: URL-1, URL-2, BEYOND-1 (issue 7: an operator-named private name)
#[tokio::test]
async fn a_named_private_host_passes_pinned_and_other_names_or_ports_do_not() {
    let server = WebServer::start(searx_server()).await;
    let dial = MapDial::default();
    dial.map("10.9.8.7", server.addr());
    let resolver = ScriptedResolver::default();
    // Rebinding after the first answer: the connection stays on the first.
    resolver.rebinding("searx.lan", &["10.9.8.7"], &["169.254.169.254"]);
    resolver.fixed("other.lan", &["10.9.8.7"]);
    resolver.fixed("alias.example.com", &["10.9.8.7"]);
    let mut config = quick_config();
    config.operator_host =
        Some(OperatorHost::from_base_url("http://searx.lan:8888/").expect("operator"));
    let f = fetcher(&resolver, &dial, config);

    let ok = page(fetch(&f, "http://SEARX.lan.:8888/search?q=x").await);
    assert_eq!(
        ok.connected_to,
        "10.9.8.7:8888".parse::<SocketAddr>().expect("addr")
    );
    for (url, rule) in [
        ("http://searx.lan:8889/", "URL-1"),
        ("http://searx.lan/", "URL-1"),
        ("http://other.lan:8888/", "URL-1"),
        ("http://alias.example.com:8888/", "URL-2"),
        ("http://10.9.8.7:8888/", "URL-1"),
        ("http://x@searx.lan:8888/", "URL-1"),
    ] {
        let r = refusal(fetch(&f, url).await);
        assert_eq!(r.rule, rule, "{url}: {r}");
    }
    for addr in dial.dialled() {
        assert_eq!(addr, "10.9.8.7:8888".parse().expect("addr"));
    }
    assert_eq!(server.requests().len(), 1);
}

// proves: URL-2, BEYOND-1 (an operator-named name resolving to metadata or link-local is still refused)
#[tokio::test]
async fn an_operator_name_resolving_to_metadata_is_refused_before_any_dial() {
    let server = WebServer::start(searx_server()).await;
    let dial = MapDial::default();
    dial.map("169.254.169.254", server.addr());
    dial.map("fe80::1", server.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("searx.lan", &["10.9.8.7", "169.254.169.254"]);
    resolver.fixed("six.lan", &["fe80::1"]);
    for (name, url) in [
        ("http://searx.lan:8888/", "http://searx.lan:8888/search"),
        ("http://six.lan:8888/", "http://six.lan:8888/search"),
    ] {
        let mut config = quick_config();
        config.operator_host = Some(OperatorHost::from_base_url(name).expect("operator"));
        let f = fetcher(&resolver, &dial, config);
        let r = refusal(fetch(&f, url).await);
        assert_eq!((r.rule, r.stage), ("URL-2", Stage::Resolve), "{url}: {r}");
    }
    assert!(dial.dialled().is_empty(), "{:?}", dial.dialled());
    assert!(server.requests().is_empty());
    // The production dialer refuses it too, even on the operator's port.
    let operator = OperatorHost::from_base_url("http://searx.lan:8888/").expect("operator");
    let addr: SocketAddr = "169.254.169.254:8888".parse().expect("addr");
    match TcpDial.dial_operator(addr, &operator).await {
        Ok(_) => panic!("metadata must never be dialled"),
        Err(err) => assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied),
    }
}

// proves: URL-1 (the operator allowance cannot be written in a bypass form)
#[test]
fn operator_hosts_are_parsed_strictly() {
    let ok = OperatorHost::from_base_url("https://Searx.Home.Arpa./").expect("name");
    assert_eq!((ok.host().as_str(), ok.port()), ("searx.home.arpa", 443));
    let ok = OperatorHost::from_base_url("http://[fd00::5]:8080/").expect("v6");
    assert_eq!((ok.host().as_str(), ok.port()), ("fd00::5", 8080));
    for bad in [
        "http://0x7f.1:8888/",
        "http://2130706433/",
        "http://127.1/",
        "http://user:pw@searx.lan/",
        "http://@searx.lan/",
        "file:///srv/searx",
        "ftp://searx.lan/",
        "http://searx.1/",
        "not a url",
        // Even the operator cannot name metadata, link-local or reserved ones.
        "http://169.254.169.254/",
        "http://168.63.129.16/",
        "http://[fe80::1]:8888/",
        "http://0.0.0.0:8888/",
        "http://224.0.0.1/",
        "http://[::ffff:169.254.169.254]/",
        "http://localhost:8888/",
    ] {
        assert!(OperatorHost::from_base_url(bad).is_err(), "{bad}");
    }
}

// proves: BEYOND-1 (the production dialer holds the operator allowance to its host and port)
#[tokio::test]
async fn the_production_dialer_only_dials_the_operator_port_and_address() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let operator =
        OperatorHost::from_base_url(&format!("http://127.0.0.1:{}/", port.wrapping_add(1)))
            .expect("operator");
    for addr in [
        format!("127.0.0.1:{port}"),
        format!("127.0.0.2:{}", port.wrapping_add(1)),
    ] {
        let addr: SocketAddr = addr.parse().expect("addr");
        match TcpDial.dial_operator(addr, &operator).await {
            Ok(_) => panic!("{addr} is not the operator host"),
            Err(err) => assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied, "{addr}"),
        }
    }
    let accepted =
        tokio::time::timeout(std::time::Duration::from_millis(50), listener.accept()).await;
    assert!(accepted.is_err(), "nothing connected");
    // The right port and address connects.
    let operator = OperatorHost::from_base_url(&format!("http://127.0.0.1:{port}/")).expect("op");
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
    assert!(TcpDial.dial_operator(addr, &operator).await.is_ok());
}
