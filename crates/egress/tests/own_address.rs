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
//! no connection. The links, addresses and the remote site are
//! `ploy-redteam`'s world (netlink in process) and fixture server, the ones
//! `ploy redteam` runs on.
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

use std::{
    net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream},
    process::Command,
    sync::Arc,
    time::Duration,
};

use ploy_egress::{FetchConfig, FetchOutcome, Fetcher, StaticResolver, check_ip};
use ploy_redteam::sites::{Reply, Route, Sites};
use ploy_redteam::world::{self, Net};
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
    // The network is built over netlink by ploy-redteam's world (the one
    // `ploy redteam` uses), the remote site is its fixture server.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let own: Ipv4Addr = OWN.parse().unwrap();
    let remote: Ipv4Addr = REMOTE.parse().unwrap();
    // A: loopback and one veth end with a public-range address.
    let net = runtime.block_on(async {
        let net = Net::connect().unwrap();
        net.up("lo").await.unwrap();
        net.veth("v0", "v1").await.unwrap();
        net.address("v0", own, 24).await.unwrap();
        net.up("v0").await.unwrap();
        net
    });
    // The policy's ranges alone would let both addresses through.
    for address in [OWN, REMOTE, LATER] {
        assert!(check_ip(address.parse().unwrap()).is_ok(), "{address}");
    }

    // B: a thread in a network namespace of its own (network namespaces are
    // per thread), holding the other veth end and the web server.
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let (moved_tx, moved_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        world::enter_network_only().unwrap();
        ready_tx.send(nix::unistd::gettid().as_raw()).unwrap();
        moved_rx.recv().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let net = Net::connect().unwrap();
            net.up("lo").await.unwrap();
            net.address("v1", remote, 24).await.unwrap();
            net.up("v1").await.unwrap();
            let route = |path: &str, reply: Reply| Route {
                host: "remote.test".into(),
                path: path.into(),
                reply,
            };
            let _sites = Sites::start(
                SocketAddr::new(IpAddr::V4(remote), 80),
                vec![
                    route("/ok", Reply::Text("remote ok".into())),
                    route(
                        "/later",
                        Reply::Redirect(format!("http://{LATER}:{SERVICE_PORT}/admin")),
                    ),
                    route(
                        "/",
                        Reply::Redirect(format!("http://{OWN}:{SERVICE_PORT}/admin")),
                    ),
                ],
            )
            .await
            .unwrap();
            ready_tx.send(0).unwrap();
            std::future::pending::<()>().await;
        });
    });
    let b_thread = ready_rx.recv().unwrap();
    runtime.block_on(async {
        net.move_to("v1", u32::try_from(b_thread).unwrap())
            .await
            .unwrap();
    });
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

    let (own, remote) = (IpAddr::V4(own), IpAddr::V4(remote));
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
        net.address("v0", LATER.parse().unwrap(), 32).await.unwrap();
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
        net.route_local(ANYIP.parse().unwrap(), 16).await.unwrap();
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
