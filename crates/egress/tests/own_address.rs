//! URL-2, issue 14 item 7: a redirect to this machine's own interface
//! address is refused, whatever the address's range.
//!
//! The test makes its own network: `unshare` gives a fresh user and network
//! namespace ("this machine", A) with only loopback and one end of a veth
//! pair; a thread there moves into a second network namespace (B, "the
//! internet") holding the other end. A's interface carries 11.22.33.1 and B's
//! 11.22.33.2: addresses the policy's ranges call public, so only the
//! own-address rule can refuse them. Neither namespace has a route anywhere
//! else, so no packet of this test leaves them (nothing reaches the real
//! 11.0.0.0/8). In A a service listens on all addresses; B's web server
//! redirects to it. The production fetcher (production dialer, a fixed name
//! table) must read B's page, refuse the redirect, and the service must see
//! no connection.
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

use std::{
    io::{BufRead, BufReader, Write},
    net::{IpAddr, SocketAddr, TcpListener, TcpStream},
    process::Command,
    sync::Arc,
    time::Duration,
};

use ploy_egress::{FetchConfig, FetchOutcome, Fetcher, StaticResolver, check_ip};
use tokio_util::sync::CancellationToken;

const INNER: &str = "PLOY_OWN_ADDRESS_INNER";
const OWN: &str = "11.22.33.1";
const REMOTE: &str = "11.22.33.2";
const LATER: &str = "11.22.33.7";
const SERVICE_PORT: u16 = 8081;
/// A prefix this machine routes to itself (`ip route add local …`), and an
/// address inside it.
const ANYIP: &str = "11.44.0.0";
const ANYIP_HOST: &str = "11.44.5.6";

fn tool(name: &str) -> Result<(), String> {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
        .unwrap_or(false);
    if found {
        Ok(())
    } else {
        Err(format!("`{name}` is not on PATH (iproute2 / util-linux)"))
    }
}

fn network_namespaces() -> Result<(), String> {
    let status = Command::new("unshare")
        .args(["--user", "--map-root-user", "--net", "true"])
        .status()
        .map_err(|err| format!("unshare: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("unprivileged user and network namespaces are disabled here".into())
    }
}

// proves: URL-2 (this machine's own addresses are refused whatever their
// range, read fresh: a redirect to an interface address, the address itself,
// a name for it, an address added after the fetcher was built, and an
// address of a `local` route, outside attack sandbox #6)
#[test]
fn a_redirect_to_this_machines_own_address_is_refused_in_a_test_network() {
    for name in ["unshare", "ip"] {
        ploy_testkit::require_part!(name, tool(name));
    }
    ploy_testkit::require_part!("network namespaces", network_namespaces());
    let me = std::env::current_exe().unwrap();
    let output = Command::new("unshare")
        .args(["--user", "--map-root-user", "--net", "--"])
        .arg(me)
        .args([
            "--ignored",
            "--exact",
            "inside_the_test_network",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(INNER, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("1 passed") && stderr.contains("INSIDE-DONE"),
        "the inner test did not run: {stdout}\n{stderr}"
    );
}

fn ip(args: &[&str]) {
    let status = Command::new("ip").args(args).status().unwrap();
    assert!(status.success(), "ip {args:?}");
}

/// B's web server: `/` redirects to the service on A's own address, `/later`
/// to an address A gets only after the fetcher exists, `/ok` is a page.
fn serve_remote(listener: TcpListener) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { return };
        let mut line = String::new();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        reader.read_line(&mut line).unwrap_or(0);
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                break;
            }
        }
        let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
        let reply = match path.as_str() {
            "/ok" => "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 9\r\nconnection: close\r\n\r\nremote ok".to_owned(),
            "/later" => format!(
                "HTTP/1.1 302 Found\r\nlocation: http://{LATER}:{SERVICE_PORT}/admin\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            ),
            _ => format!(
                "HTTP/1.1 302 Found\r\nlocation: http://{OWN}:{SERVICE_PORT}/admin\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            ),
        };
        let _ = stream.write_all(reply.as_bytes());
    }
}

/// Runs only inside the namespaces the test above makes (it is ignored
/// otherwise, and refuses to run without them).
#[test]
#[ignore = "runs inside the network namespace made by a_redirect_to_this_machines_own_address_is_refused_in_a_test_network"]
fn inside_the_test_network() {
    assert_eq!(
        std::env::var(INNER).as_deref(),
        Ok("1"),
        "run through the outer test: it makes the network namespaces"
    );
    // A: loopback and one veth end with a public-range address.
    ip(&["link", "set", "lo", "up"]);
    ip(&["link", "add", "v0", "type", "veth", "peer", "name", "v1"]);
    ip(&["addr", "add", &format!("{OWN}/24"), "dev", "v0"]);
    ip(&["link", "set", "v0", "up"]);
    // The policy's ranges alone would let both addresses through.
    for address in [OWN, REMOTE, LATER] {
        assert!(check_ip(address.parse().unwrap()).is_ok(), "{address}");
    }

    // B: a thread in a network namespace of its own (network namespaces are
    // per thread), holding the other veth end and the web server.
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let (moved_tx, moved_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET).unwrap();
        ready_tx.send(nix::unistd::gettid().as_raw()).unwrap();
        moved_rx.recv().unwrap();
        // Processes started from this thread are in B as well.
        ip(&["link", "set", "lo", "up"]);
        ip(&["addr", "add", &format!("{REMOTE}/24"), "dev", "v1"]);
        ip(&["link", "set", "v1", "up"]);
        let listener = TcpListener::bind((REMOTE, 80)).unwrap();
        ready_tx.send(0).unwrap();
        serve_remote(listener);
    });
    let b_thread = ready_rx.recv().unwrap();
    ip(&["link", "set", "v1", "netns", &b_thread.to_string()]);
    moved_tx.send(()).unwrap();
    ready_rx.recv().unwrap();

    // A's service, bound on every address: the redirect's target.
    let service = TcpListener::bind(("0.0.0.0", SERVICE_PORT)).unwrap();
    service.set_nonblocking(true).unwrap();
    // The network works: A reaches its service on its own address directly
    // (so a refusal below is the rule, not an unreachable address)...
    let probe = TcpStream::connect_timeout(
        &SocketAddr::new(OWN.parse().unwrap(), SERVICE_PORT),
        Duration::from_secs(2),
    );
    assert!(probe.is_ok(), "the test network is broken: {probe:?}");
    drop(probe);
    std::thread::sleep(Duration::from_millis(50));
    while service.accept().is_ok() {}

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let own: IpAddr = OWN.parse().unwrap();
    let remote: IpAddr = REMOTE.parse().unwrap();
    let resolver = StaticResolver::new([
        ("remote.test", vec![remote]),
        ("own.test", vec![own]),
        ("mixed.test", vec![remote, own]),
    ]);
    runtime.block_on(async {
        let config = FetchConfig::production().unwrap();
        let fetcher = Fetcher::with_resolver(Arc::new(resolver), config);
        let cancel = CancellationToken::new();
        let fetch = |url: &'static str| {
            let fetcher = fetcher.clone();
            let cancel = cancel.clone();
            async move { fetcher.fetch(url, &cancel).await.unwrap() }
        };
        // ...and B's pages are read through the production dialer.
        match fetch("http://remote.test/ok").await {
            FetchOutcome::Page(page) => assert_eq!(page.text, "remote ok"),
            other => panic!("the remote page must be read: {other:?}"),
        }
        let refused = |outcome: FetchOutcome, what: &str| match outcome {
            FetchOutcome::Refused(refusal) => {
                assert_eq!(refusal.rule, "URL-2", "{what}: {refusal:?}");
                assert!(
                    refusal.reason.contains("an address of this machine")
                        && refusal.reason.contains("v0"),
                    "{what}: {refusal:?}"
                );
            }
            other => panic!("{what} must be refused: {other:?}"),
        };
        refused(
            fetch("http://remote.test/").await,
            "the redirect to A's address",
        );
        refused(fetch("http://11.22.33.1:8081/").await, "A's address itself");
        refused(
            fetch("http://own.test:8081/").await,
            "a name for A's address",
        );
        refused(
            fetch("http://mixed.test/ok").await,
            "a name with A's address among others",
        );
        // An address added now is refused at once (no stale list).
        ip(&["addr", "add", &format!("{LATER}/32"), "dev", "v0"]);
        refused(
            fetch("http://remote.test/later").await,
            "an address added later",
        );
        // The production dialer refuses it on its own as well.
        let dialled =
            ploy_egress::Dial::dial(&ploy_egress::TcpDial, SocketAddr::new(own, SERVICE_PORT))
                .await;
        assert!(
            matches!(&dialled, Err(err) if err.kind() == std::io::ErrorKind::PermissionDenied),
            "{:?}",
            dialled.as_ref().err()
        );
        // Outside attack sandbox #6: a `local` route makes a whole prefix
        // this machine (AnyIP) though no interface holds its addresses.
        ip(&["route", "add", "local", &format!("{ANYIP}/16"), "dev", "lo"]);
        let anyip = SocketAddr::new(ANYIP_HOST.parse().unwrap(), SERVICE_PORT);
        assert!(check_ip(anyip.ip()).is_ok(), "a public-range address");
        let probe = TcpStream::connect_timeout(&anyip, Duration::from_secs(2));
        assert!(probe.is_ok(), "the local route does not deliver: {probe:?}");
        drop(probe);
        std::thread::sleep(Duration::from_millis(50));
        while service.accept().is_ok() {}
        match fetch("http://11.44.5.6:8081/admin").await {
            FetchOutcome::Refused(refusal) => {
                assert_eq!(refusal.rule, "URL-2", "{refusal:?}");
                assert!(
                    refusal.reason.contains("`local` route for 11.44.0.0/16"),
                    "{refusal:?}"
                );
            }
            other => panic!("an address of a local route must be refused: {other:?}"),
        }
    });
    // What the service received: nothing.
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        service.accept().is_err(),
        "a connection reached the service bound on all addresses"
    );
    eprintln!("INSIDE-DONE");
}
