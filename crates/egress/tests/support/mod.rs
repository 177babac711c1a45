//! Test support: real loopback servers, a dialer that maps public test
//! addresses to them, and resolvers that answer public-looking addresses.
//! No packet leaves 127.0.0.1.
#![allow(dead_code, clippy::disallowed_methods, clippy::expect_used)]

use std::{
    collections::HashMap,
    io,
    net::{IpAddr, SocketAddr},
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use ploy_egress::{
    BoxedStream, Dial, DialFuture, FetchConfig, Fetcher, Resolve, ResolveError, ResolveFuture,
    default_tls_config,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt},
    net::TcpListener,
};

/// A public-looking IPv4 test address (mapped to a loopback server).
pub const PUB_A: &str = "93.184.215.14";
/// A second public-looking IPv4 test address.
pub const PUB_B: &str = "93.184.215.15";
/// A public-looking IPv6 test address.
pub const PUB_V6: &str = "2606:2800:21f:cb07:6820:80da:af6b:8b2c";

pub fn ip(s: &str) -> IpAddr {
    s.parse().expect("test address parses")
}

/// What a test server sends back for one request.
pub struct Reply {
    /// Raw bytes written after the request head was read.
    pub bytes: Vec<u8>,
    /// After writing, keep the connection open and silent (never finish).
    pub then_stall: bool,
}

impl Reply {
    pub fn raw(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            bytes: bytes.into(),
            then_stall: false,
        }
    }

    pub fn stall_after(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            bytes: bytes.into(),
            then_stall: true,
        }
    }

    /// A complete response with Content-Length and Connection: close.
    pub fn ok(content_type: &str, body: impl AsRef<[u8]>) -> Self {
        Self::with_headers(200, &[("Content-Type", content_type)], body)
    }

    pub fn with_headers(status: u16, headers: &[(&str, &str)], body: impl AsRef<[u8]>) -> Self {
        let body = body.as_ref();
        let mut out = format!(
            "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        for (name, value) in headers {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
        out.push_str("\r\n");
        let mut bytes = out.into_bytes();
        bytes.extend_from_slice(body);
        Self::raw(bytes)
    }

    pub fn redirect(status: u16, location: &str) -> Self {
        Self::with_headers(
            status,
            &[("Location", location), ("Content-Type", "text/plain")],
            b"",
        )
    }
}

type Handler = Arc<dyn Fn(&str) -> Reply + Send + Sync>;

/// A real HTTP/1.1 server on 127.0.0.1:0 (optionally TLS) that records
/// every request head it receives.
pub struct TestServer {
    pub addr: SocketAddr,
    pub requests: Arc<Mutex<Vec<String>>>,
    /// Connections whose client went away while the server stalled.
    pub closed_by_client: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl TestServer {
    pub async fn start(handler: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Self {
        Self::start_inner(Arc::new(handler), None).await
    }

    pub async fn start_tls(
        tls: Arc<rustls::ServerConfig>,
        handler: impl Fn(&str) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Self::start_inner(
            Arc::new(handler),
            Some(tokio_rustls::TlsAcceptor::from(tls)),
        )
        .await
    }

    async fn start_inner(handler: Handler, tls: Option<tokio_rustls::TlsAcceptor>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let closed_by_client = Arc::new(AtomicUsize::new(0));
        let (log, closed) = (requests.clone(), closed_by_client.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let (handler, log, closed, tls) =
                    (handler.clone(), log.clone(), closed.clone(), tls.clone());
                tokio::spawn(async move {
                    match tls {
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(stream).await {
                                serve(stream, handler, log, closed).await;
                            }
                        }
                        None => serve(stream, handler, log, closed).await,
                    }
                });
            }
        });
        Self {
            addr,
            requests,
            closed_by_client,
            task,
        }
    }

    pub fn request_heads(&self) -> Vec<String> {
        self.requests.lock().expect("lock").clone()
    }
}

async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    handler: Handler,
    log: Arc<Mutex<Vec<String>>>,
    closed: Arc<AtomicUsize>,
) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let mut head = String::from_utf8_lossy(&head).into_owned();
    // A request with a body (the JSON POST): read it and log it after the head.
    let length = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())?
    });
    if let Some(length) = length {
        let mut body = vec![0u8; length.min(1 << 20)];
        if stream.read_exact(&mut body).await.is_err() {
            return;
        }
        head.push_str(&String::from_utf8_lossy(&body));
    }
    log.lock().expect("lock").push(head.clone());
    let reply = handler(&head);
    if stream.write_all(&reply.bytes).await.is_err() {
        return;
    }
    let _ = stream.flush().await;
    if reply.then_stall {
        // Wait silently; note when the client hangs up.
        let mut sink = [0u8; 64];
        loop {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => {
                    closed.fetch_add(1, Ordering::SeqCst);
                    return;
                }
                Ok(_) => {}
            }
        }
    }
    let _ = stream.shutdown().await;
}

/// The request path of a recorded head.
pub fn path_of(head: &str) -> &str {
    head.split_whitespace().nth(1).unwrap_or("")
}

/// Maps public test addresses to loopback servers and logs every dial. An
/// address it has no mapping for is refused (and logged): nothing else is
/// ever connected to.
#[derive(Clone, Default)]
pub struct MapDial {
    map: Arc<Mutex<HashMap<IpAddr, SocketAddr>>>,
    pub dialled: Arc<Mutex<Vec<SocketAddr>>>,
}

impl MapDial {
    pub fn map(&self, public: &str, server: SocketAddr) -> &Self {
        self.map.lock().expect("lock").insert(ip(public), server);
        self
    }

    pub fn dialled(&self) -> Vec<SocketAddr> {
        self.dialled.lock().expect("lock").clone()
    }
}

impl Dial for MapDial {
    fn dial(&self, addr: SocketAddr) -> DialFuture<'_> {
        Box::pin(async move {
            self.dialled.lock().expect("lock").push(addr);
            let target = self.map.lock().expect("lock").get(&addr.ip()).copied();
            let Some(target) = target else {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionRefused,
                    format!("no test server for {addr}"),
                ));
            };
            let stream = tokio::net::TcpStream::connect(target).await?;
            Ok(Box::new(stream) as BoxedStream)
        })
    }
}

/// A table resolver whose answers can change with each query (rebinding).
#[derive(Clone, Default)]
pub struct ScriptedResolver {
    answers: Arc<Mutex<HashMap<String, Vec<Vec<IpAddr>>>>>,
    pub queries: Arc<AtomicUsize>,
}

impl ScriptedResolver {
    /// `name` answers `first` on the first query and `later` on every later one.
    pub fn rebinding(&self, name: &str, first: &[&str], later: &[&str]) -> &Self {
        let first = first.iter().map(|a| ip(a)).collect();
        let later = later.iter().map(|a| ip(a)).collect();
        self.answers
            .lock()
            .expect("lock")
            .insert(name.to_owned(), vec![first, later]);
        self
    }

    /// `name` always answers `addrs`.
    pub fn fixed(&self, name: &str, addrs: &[&str]) -> &Self {
        let addrs: Vec<IpAddr> = addrs.iter().map(|a| ip(a)).collect();
        self.answers
            .lock()
            .expect("lock")
            .insert(name.to_owned(), vec![addrs]);
        self
    }
}

impl Resolve for ScriptedResolver {
    fn resolve<'a>(&'a self, name: &'a str) -> ResolveFuture<'a> {
        Box::pin(async move {
            self.queries.fetch_add(1, Ordering::SeqCst);
            let mut answers = self.answers.lock().expect("lock");
            let Some(list) = answers.get_mut(name) else {
                return Err(ResolveError::NotFound(name.to_owned()));
            };
            if list.len() > 1 {
                Ok(list.remove(0))
            } else {
                Ok(list[0].clone())
            }
        })
    }
}

/// Short limits so failing paths end fast.
pub fn quick_config() -> FetchConfig {
    let mut config = FetchConfig::with_tls(default_tls_config().expect("tls"));
    config.resolve_timeout = Duration::from_secs(2);
    config.connect_timeout = Duration::from_secs(2);
    config.read_timeout = Duration::from_secs(2);
    config.total_timeout = Duration::from_secs(10);
    config
}

pub fn fetcher(resolver: &ScriptedResolver, dial: &MapDial, config: FetchConfig) -> Fetcher {
    Fetcher::new(Arc::new(resolver.clone()), Arc::new(dial.clone()), config)
}

/// A test CA and a server certificate it signs for `names`; returns the
/// server TLS config and the CA certificate (to inject as the only root).
pub fn tls_for(names: &[&str]) -> (Arc<rustls::ServerConfig>, CertificateDer<'static>) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("ca params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("ca key"))
        .expect("ca cert");
    let leaf_key = KeyPair::generate().expect("leaf key");
    let leaf = CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
        .expect("leaf params")
        .signed_by(&leaf_key, &ca)
        .expect("leaf cert");
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("versions")
    .with_no_client_auth()
    .with_single_cert(vec![leaf.der().clone()], key)
    .expect("server cert");
    (Arc::new(config), ca.der().clone())
}
