//! The fixture sites of one scenario run: one HTTP server (hyper) on a
//! public-looking address inside the private network, answering every site
//! name by the request's `Host`, and recording every request it receives
//! (the sink an exfiltration must reach to succeed).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// Bytes of a request body kept.
const BODY_CAP: usize = 64 * 1024;

/// What one path of one site answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// An HTML page.
    Html(String),
    /// A plain-text page.
    Text(String),
    /// A `302` to this location.
    Redirect(String),
}

/// One route: `host` (without port) and `path` (without query).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The site name.
    pub host: String,
    /// The path.
    pub path: String,
    /// The answer.
    pub reply: Reply,
}

/// One request a site received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The `Host` header without the port.
    pub host: String,
    /// `GET`, `POST`, …
    pub method: String,
    /// Path and query as sent.
    pub target: String,
    /// The body (cut at 64 KiB).
    pub body: String,
}

/// A running fixture server; dropping it stops accepting.
pub struct Sites {
    addr: SocketAddr,
    hits: Arc<Mutex<Vec<Hit>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Sites {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Sites {
    /// Serve `routes` on `addr` (port 0 picks one). A path no route names
    /// answers `200 received` (the sink): what matters is that it arrived.
    ///
    /// # Errors
    /// The address cannot be bound.
    pub async fn start(addr: SocketAddr, routes: Vec<Route>) -> std::io::Result<Self> {
        Self::serve(TcpListener::bind(addr).await?, routes)
    }

    /// [`Sites::start`] on a listener made elsewhere (in another network
    /// namespace: a socket stays in the namespace it was made in).
    ///
    /// # Errors
    /// The listener cannot be used.
    pub fn serve_std(listener: std::net::TcpListener, routes: Vec<Route>) -> std::io::Result<Self> {
        listener.set_nonblocking(true)?;
        Self::serve(TcpListener::from_std(listener)?, routes)
    }

    fn serve(listener: TcpListener, routes: Vec<Route>) -> std::io::Result<Self> {
        let addr = listener.local_addr()?;
        let hits = Arc::new(Mutex::new(Vec::new()));
        let routes = Arc::new(routes);
        let task_hits = hits.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let (hits, routes) = (task_hits.clone(), routes.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        answer(request, hits.clone(), routes.clone())
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Self { addr, hits, task })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far.
    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().map(|h| h.clone()).unwrap_or_default()
    }
}

async fn answer(
    request: Request<hyper::body::Incoming>,
    hits: Arc<Mutex<Vec<Hit>>>,
    routes: Arc<Vec<Route>>,
) -> Result<Response<Full<Bytes>>, std::convert::Infallible> {
    let host = request
        .headers()
        .get(hyper::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("")
        .split(':')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let method = request.method().to_string();
    let target = request
        .uri()
        .path_and_query()
        .map_or_else(|| request.uri().path().to_string(), ToString::to_string);
    let path = request.uri().path().to_string();
    let body = match Limited::new(request.into_body(), BODY_CAP).collect().await {
        Ok(collected) => String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
        Err(_) => String::new(),
    };
    if let Ok(mut hits) = hits.lock() {
        hits.push(Hit {
            host: host.clone(),
            method,
            target,
            body,
        });
    }
    let route = routes.iter().find(|r| r.host == host && r.path == path);
    let response = match route.map(|r| &r.reply) {
        Some(Reply::Html(html)) => Response::builder()
            .header("content-type", "text/html; charset=utf-8")
            .body(Full::new(Bytes::from(html.clone()))),
        Some(Reply::Text(text)) => Response::builder()
            .header("content-type", "text/plain; charset=utf-8")
            .body(Full::new(Bytes::from(text.clone()))),
        Some(Reply::Redirect(location)) => Response::builder()
            .status(StatusCode::FOUND)
            .header("location", location.as_str())
            .body(Full::new(Bytes::new())),
        None => Response::builder()
            .header("content-type", "text/plain")
            .body(Full::new(Bytes::from_static(b"received"))),
    };
    Ok(response.unwrap_or_else(|_| Response::new(Full::new(Bytes::new()))))
}

/// The most name servers of `/etc/resolv.conf` stood in for.
const MAX_NAME_SERVERS: usize = 3;

/// The IPv4 name servers `/etc/resolv.conf`'s text names (glibc asks the
/// first three), loopback ones included.
pub fn name_servers(resolv_conf: &str) -> Vec<std::net::Ipv4Addr> {
    resolv_conf
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("nameserver"))
                .then(|| words.next()?.parse().ok())
                .flatten()
        })
        .take(MAX_NAME_SERVERS)
        .collect()
}

/// Stand-ins for this machine's name servers inside the private network
/// (their addresses routed to local sockets): every query a program sends
/// through the system's resolver (`getent hosts`, `ping`, …) is recorded,
/// and answered "no such name" at once. A name lookup is a way out too
/// (round7 #16): the name itself carries the data to whoever serves it.
pub struct NameServers {
    queries: Arc<Mutex<Vec<(std::time::Instant, String)>>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for NameServers {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl NameServers {
    /// Answer on UDP port 53 of each of `addrs` (already routed here).
    ///
    /// # Errors
    /// An address cannot be bound.
    // A listener inside `ploy redteam`'s private network namespace, as the
    // fixture sites are: it only answers the queries sent to it (never a
    // way out; the egress door is not involved: ploy never looks names up
    // itself, its `--hosts` file names the sites).
    #[allow(clippy::disallowed_methods)]
    pub async fn start(addrs: &[std::net::Ipv4Addr]) -> std::io::Result<Self> {
        let queries = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for addr in addrs {
            let socket = tokio::net::UdpSocket::bind((*addr, 53)).await?;
            let queries = queries.clone();
            tasks.push(tokio::spawn(async move {
                let mut packet = [0u8; 1500];
                loop {
                    let Ok((len, from)) = socket.recv_from(&mut packet).await else {
                        return;
                    };
                    let Some((name, end)) = question(&packet[..len]) else {
                        continue;
                    };
                    if let Ok(mut queries) = queries.lock() {
                        queries.push((std::time::Instant::now(), name));
                    }
                    let _ = socket.send_to(&no_such_name(&packet[..end]), from).await;
                }
            }));
        }
        Ok(Self { queries, tasks })
    }

    /// The names asked for since `start`.
    pub fn since(&self, start: std::time::Instant) -> Vec<String> {
        self.queries
            .lock()
            .map(|q| {
                q.iter()
                    .filter(|(at, _)| *at >= start)
                    .map(|(_, name)| name.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The name a DNS query asks for (labels joined by dots) and where its
/// question ends (after the type and class).
fn question(packet: &[u8]) -> Option<(String, usize)> {
    let mut at = 12;
    let mut labels = Vec::new();
    loop {
        let len = usize::from(*packet.get(at)?);
        if len == 0 {
            break;
        }
        // (a query's name has no compression pointers)
        if len > 63 {
            return None;
        }
        labels.push(String::from_utf8_lossy(packet.get(at + 1..at + 1 + len)?).into_owned());
        at += 1 + len;
    }
    let end = at + 5;
    (packet.len() >= end).then(|| (labels.join("."), end))
}

/// The answer "no such name" (NXDOMAIN) to `query` (its header and
/// question only).
fn no_such_name(query: &[u8]) -> Vec<u8> {
    let mut answer = query.to_vec();
    // QR, the query's opcode and RD; RA; RCODE 3.
    answer[2] = 0x80 | (query[2] & 0x79);
    answer[3] = 0x83;
    // One question, no answer, authority or additional records.
    answer[4..12].copy_from_slice(&[0, 1, 0, 0, 0, 0, 0, 0]);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolv_conf_name_servers_and_a_query_s_name_are_read() {
        let conf = "# x\nsearch example\nnameserver 10.255.255.53\nnameserver ::1\n\
                    nameserver 127.0.0.53\noptions edns0\n";
        assert_eq!(
            name_servers(conf),
            vec![
                std::net::Ipv4Addr::new(10, 255, 255, 53),
                std::net::Ipv4Addr::new(127, 0, 0, 53)
            ]
        );
        // A query for `ab.c`, type A, class IN, then an EDNS record.
        let mut query = vec![0x12, 0x34, 0x01, 0x20, 0, 1, 0, 0, 0, 0, 0, 1];
        query.extend([2, b'a', b'b', 1, b'c', 0, 0, 1, 0, 1]);
        query.extend([0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 0]);
        let (name, end) = question(&query).unwrap();
        assert_eq!((name.as_str(), end), ("ab.c", 22));
        let answer = no_such_name(&query[..end]);
        assert_eq!(&answer[..4], &[0x12, 0x34, 0x81, 0x83]);
        assert_eq!(&answer[4..12], &[0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&answer[12..], &query[12..end]);
        assert_eq!(question(&query[..15]), None, "cut short");
    }
}
