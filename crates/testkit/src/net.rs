//! The loopback seams for ploy-egress's fetcher: a resolver that answers
//! public-looking addresses, and a dialer that maps those addresses to
//! loopback fixture servers. The fetcher's address checks see the public
//! address; the bytes go to 127.0.0.1. Nothing else is ever dialled.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ploy_egress::{
    BoxedStream, Dial, DialFuture, FetchConfig, Fetcher, Resolve, ResolveError, ResolveFuture,
    default_tls_config,
};

/// A public-looking IPv4 test address (documentation-adjacent; mapped to a
/// loopback server, never dialled for real).
pub const PUB_A: &str = "93.184.215.14";
/// A second public-looking IPv4 test address.
pub const PUB_B: &str = "93.184.215.15";
/// A third.
pub const PUB_C: &str = "93.184.215.16";
/// A fourth.
pub const PUB_D: &str = "93.184.215.17";
/// A fifth.
pub const PUB_E: &str = "93.184.215.18";
/// A public-looking IPv6 test address.
pub const PUB_V6: &str = "2606:2800:21f:cb07:6820:80da:af6b:8b2c";

/// Parses a test address.
#[track_caller]
pub fn ip(text: &str) -> IpAddr {
    match text.parse() {
        Ok(ip) => ip,
        Err(error) => panic!("test address {text:?} does not parse: {error}"),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Maps public test addresses to loopback servers and logs every dial. An
/// address without a mapping is refused (and logged); a mapping to anything
/// but loopback is refused when dialled: no test packet leaves 127.0.0.1.
#[derive(Clone, Default)]
pub struct MapDial {
    map: Arc<Mutex<HashMap<IpAddr, SocketAddr>>>,
    dialled: Arc<Mutex<Vec<SocketAddr>>>,
}

impl std::fmt::Debug for MapDial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapDial")
            .field("dialled", &self.dialled())
            .finish_non_exhaustive()
    }
}

impl MapDial {
    /// Dials to `public` (any port) go to `server`.
    pub fn map(&self, public: &str, server: SocketAddr) -> &Self {
        lock(&self.map).insert(ip(public), server);
        self
    }

    /// Every address the fetcher asked to dial, in order (the public ones).
    pub fn dialled(&self) -> Vec<SocketAddr> {
        lock(&self.dialled).clone()
    }
}

impl Dial for MapDial {
    fn dial(&self, addr: SocketAddr) -> DialFuture<'_> {
        Box::pin(async move {
            lock(&self.dialled).push(addr);
            let target = lock(&self.map).get(&addr.ip()).copied();
            let Some(target) = target else {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionRefused,
                    format!("no test server for {addr}"),
                ));
            };
            if !target.ip().is_loopback() {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("test dials go to loopback only, not {target}"),
                ));
            }
            // The test seam's one connect: loopback only (checked above).
            #[allow(clippy::disallowed_methods)]
            let stream = tokio::net::TcpStream::connect(target).await?;
            Ok(Box::new(stream) as BoxedStream)
        })
    }
}

/// A table resolver whose answers can change from one query to the next
/// (DNS rebinding). Unknown names are "not found".
#[derive(Clone, Default)]
pub struct ScriptedResolver {
    answers: Arc<Mutex<HashMap<String, Vec<Vec<IpAddr>>>>>,
    queries: Arc<AtomicUsize>,
}

impl std::fmt::Debug for ScriptedResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedResolver")
            .field("queries", &self.queries())
            .finish_non_exhaustive()
    }
}

impl ScriptedResolver {
    /// `name` answers `first` on the first query and `later` on every later one.
    pub fn rebinding(&self, name: &str, first: &[&str], later: &[&str]) -> &Self {
        let first = first.iter().map(|a| ip(a)).collect();
        let later = later.iter().map(|a| ip(a)).collect();
        lock(&self.answers).insert(name.to_owned(), vec![first, later]);
        self
    }

    /// `name` always answers `addrs`.
    pub fn fixed(&self, name: &str, addrs: &[&str]) -> &Self {
        let addrs = addrs.iter().map(|a| ip(a)).collect();
        lock(&self.answers).insert(name.to_owned(), vec![addrs]);
        self
    }

    /// How many queries were made.
    pub fn queries(&self) -> usize {
        self.queries.load(Ordering::SeqCst)
    }
}

impl Resolve for ScriptedResolver {
    fn resolve<'a>(&'a self, name: &'a str) -> ResolveFuture<'a> {
        Box::pin(async move {
            self.queries.fetch_add(1, Ordering::SeqCst);
            let mut answers = lock(&self.answers);
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

/// [`fetch_config`] with 2 s reads and 10 s in total.
pub fn quick_config() -> FetchConfig {
    let mut config = fetch_config(Duration::from_secs(2));
    config.total_timeout = Duration::from_secs(10);
    config
}

/// The fetcher's configuration with short limits, so failing paths end
/// fast: `read` for reads, 2 s to connect and resolve, 3 × `read` in total.
pub fn fetch_config(read: Duration) -> FetchConfig {
    #[allow(clippy::expect_used)] // the compiled-in roots always load
    let mut config = FetchConfig::with_tls(default_tls_config().expect("TLS roots"));
    config.resolve_timeout = Duration::from_secs(2);
    config.connect_timeout = Duration::from_secs(2);
    config.read_timeout = read;
    config.total_timeout = read * 3;
    config
}

/// A real [`Fetcher`] over the seams.
pub fn fetcher<R: Resolve + Clone + 'static>(
    resolver: &R,
    dial: &MapDial,
    config: FetchConfig,
) -> Fetcher {
    Fetcher::new(Arc::new(resolver.clone()), Arc::new(dial.clone()), config)
}
