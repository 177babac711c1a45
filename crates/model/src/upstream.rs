//! The loopback model upstream, and the one network connect outside
//! ploy-egress.
//!
//! ploy-egress owns all egress. The one named exception is
//! [`connect_loopback`]: it opens TCP connections only to loopback addresses
//! (the validated model upstream, the service's gateway, and the local
//! service's own API for `ploy status` / `ploy exec`), and checks that again
//! at the moment of connecting. Nothing else in ploy-model connects anywhere.

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use http::{HeaderName, HeaderValue, Request, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// The default model upstream (Ollama's OpenAI-compatible endpoint).
pub const DEFAULT_UPSTREAM: &str = "http://127.0.0.1:11434/v1/chat/completions";

/// An upstream URL that is not an acceptable loopback `http://` URL (GW-1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("GW-1: the model upstream {url:?} is refused: {reason}")]
pub struct UpstreamUrlError {
    /// The URL given.
    pub url: String,
    /// Why, and what is accepted.
    pub reason: String,
}

/// Open a TCP connection to a loopback address; anything else is refused.
///
/// This is the ONE function outside ploy-egress allowed past the network door
/// (clippy's `disallowed_methods`): the model upstream and the service's own
/// API are both on loopback, and ploy-egress (which refuses loopback by
/// design) is the door for everything else.
#[allow(clippy::disallowed_methods)]
pub async fn connect_loopback(addr: SocketAddr, timeout: Duration) -> io::Result<TcpStream> {
    if !addr.ip().is_loopback() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("GW-1: refusing to connect to non-loopback address {addr}"),
        ));
    }
    match tokio::time::timeout(timeout, TcpStream::connect(addr)).await {
        Ok(result) => {
            let stream = result?;
            stream.set_nodelay(true)?;
            Ok(stream)
        }
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("connecting to {addr} took longer than {timeout:?}"),
        )),
    }
}

/// Idle upstream connections kept for reuse (keep-alive).
const MAX_IDLE_CONNECTIONS: usize = 64;

/// One open HTTP/1 connection to the upstream. Dropping it closes the socket.
struct UpstreamConnection {
    sender: SendRequest<Full<Bytes>>,
    _driver: AbortOnDrop,
}

/// Connections whose last exchange ended cleanly; only those are reused. A
/// connection whose response was abandoned (client cancel, timeout, error) is
/// dropped, which closes it, so the upstream sees the cancel.
type IdlePool = Arc<Mutex<Vec<UpstreamConnection>>>;

/// A validated model upstream: `http://` on a loopback address.
#[derive(Clone)]
pub struct LoopbackUpstream {
    addr: SocketAddr,
    authority: String,
    path: String,
    text: String,
    idle: IdlePool,
}

impl fmt::Debug for LoopbackUpstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackUpstream")
            .field("url", &self.text)
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl PartialEq for LoopbackUpstream {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.addr == other.addr
    }
}

impl Eq for LoopbackUpstream {}

impl fmt::Display for LoopbackUpstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a forward to the upstream failed.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The connection could not be made.
    #[error("the model upstream at {addr} is not answering ({source})")]
    Connect {
        /// The upstream address.
        addr: SocketAddr,
        /// The I/O error.
        source: io::Error,
    },
    /// The upstream took too long to send its response headers.
    #[error("the model upstream at {addr} sent no response within {after:?}")]
    Timeout {
        /// The upstream address.
        addr: SocketAddr,
        /// The limit.
        after: Duration,
    },
    /// HTTP-level failure talking to the upstream.
    #[error("the model upstream at {addr} broke the HTTP exchange ({source})")]
    Protocol {
        /// The upstream address.
        addr: SocketAddr,
        /// hyper's error.
        source: hyper::Error,
    },
}

/// Timeouts for one forward.
#[derive(Debug, Clone, Copy)]
pub struct UpstreamTimeouts {
    /// TCP connect.
    pub connect: Duration,
    /// Until the response headers.
    pub first_byte: Duration,
    /// Longest silence between body chunks.
    pub idle: Duration,
}

/// The upstream's answer: status, content type and a body stream that
/// yields chunks as they arrive. Dropping the stream closes the upstream
/// connection (client cancel → upstream cancel).
pub struct UpstreamResponse {
    /// The upstream's status.
    pub status: StatusCode,
    /// The upstream's `content-type`, if any.
    pub content_type: Option<HeaderValue>,
    /// The body, chunk by chunk.
    pub body: Box<dyn Stream<Item = io::Result<Bytes>> + Send + Unpin>,
}

impl fmt::Debug for UpstreamResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpstreamResponse")
            .field("status", &self.status)
            .field("content_type", &self.content_type)
            .finish_non_exhaustive()
    }
}

/// Aborts the upstream connection task when the response body is dropped,
/// so a client's disconnect closes the upstream socket at once.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl LoopbackUpstream {
    /// Validate an upstream URL: `http`, a loopback address (or `localhost`,
    /// taken as 127.0.0.1 without a DNS lookup), no credentials, no query or
    /// fragment.
    pub fn parse(text: &str) -> Result<LoopbackUpstream, UpstreamUrlError> {
        let refuse = |reason: &str| UpstreamUrlError {
            url: text.to_string(),
            reason: reason.to_string(),
        };
        let url = url::Url::parse(text).map_err(|e| refuse(&format!("not a URL ({e})")))?;
        if url.scheme() != "http" {
            return Err(refuse(
                "only http:// is supported (the upstream is on this machine's loopback)",
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(refuse("credentials in the URL are not allowed"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(refuse("a query or fragment is not allowed"));
        }
        let ip = match url.host() {
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
            Some(url::Host::Domain(name)) if name.eq_ignore_ascii_case("localhost") => {
                IpAddr::V4(Ipv4Addr::LOCALHOST)
            }
            Some(url::Host::Domain(_)) => {
                return Err(refuse(
                    "use a loopback address (127.0.0.1, [::1] or localhost); names are not resolved",
                ));
            }
            None => return Err(refuse("no host")),
        };
        if !ip.is_loopback() {
            return Err(refuse(
                "the upstream must be on loopback (127.0.0.0/8 or ::1); ploy-egress is the only door to other addresses",
            ));
        }
        let port = url.port_or_known_default().unwrap_or(80);
        let addr = SocketAddr::new(ip, port);
        Ok(LoopbackUpstream {
            addr,
            authority: addr.to_string(),
            path: url.path().to_string(),
            text: url.to_string(),
            idle: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// The upstream's socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// POST `body` (JSON) to the upstream. Only `host`, `content-type`,
    /// `content-length` and `accept` are sent: none of the client's headers,
    /// and never the gateway token.
    pub async fn post_json(
        &self,
        body: Bytes,
        timeouts: UpstreamTimeouts,
    ) -> Result<UpstreamResponse, UpstreamError> {
        self.post_json_with(body, timeouts, None).await
    }

    /// [`post_json`](Self::post_json) plus at most one extra header, chosen
    /// by the caller (the gateway token, when the upstream is ploy's own
    /// gateway). The gateway itself never passes one.
    pub async fn post_json_with(
        &self,
        body: Bytes,
        timeouts: UpstreamTimeouts,
        extra: Option<&(HeaderName, HeaderValue)>,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let addr = self.addr;
        // A reused connection may have been closed by the upstream meanwhile;
        // then the request was not sent and one retry on a new connection is
        // safe. A new connection gets no retry.
        loop {
            let (mut connection, reused) = match self.take_idle() {
                Some(connection) => (connection, true),
                None => (self.open(timeouts.connect).await?, false),
            };
            if let Err(source) = connection.sender.ready().await {
                if reused {
                    continue;
                }
                return Err(UpstreamError::Protocol { addr, source });
            }
            let request = self.request(body.clone(), addr, extra)?;
            let sent = tokio::time::timeout(
                timeouts.first_byte,
                connection.sender.try_send_request(request),
            )
            .await;
            let response = match sent {
                Ok(Ok(response)) => response,
                Ok(Err(mut error)) => {
                    if reused && error.take_message().is_some() {
                        continue;
                    }
                    return Err(UpstreamError::Protocol {
                        addr,
                        source: error.into_error(),
                    });
                }
                Err(_) => {
                    return Err(UpstreamError::Timeout {
                        addr,
                        after: timeouts.first_byte,
                    });
                }
            };
            let status = response.status();
            let content_type = response.headers().get(header::CONTENT_TYPE).cloned();
            let body = body_stream(
                response.into_body(),
                connection,
                self.idle.clone(),
                timeouts.idle,
            );
            return Ok(UpstreamResponse {
                status,
                content_type,
                body: Box::new(Box::pin(body)),
            });
        }
    }

    fn take_idle(&self) -> Option<UpstreamConnection> {
        let mut idle = self.idle.lock().ok()?;
        while let Some(connection) = idle.pop() {
            if !connection.sender.is_closed() {
                return Some(connection);
            }
        }
        None
    }

    async fn open(&self, connect_timeout: Duration) -> Result<UpstreamConnection, UpstreamError> {
        let addr = self.addr;
        let stream = connect_loopback(addr, connect_timeout)
            .await
            .map_err(|source| UpstreamError::Connect { addr, source })?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|source| UpstreamError::Protocol { addr, source })?;
        let driver = AbortOnDrop(tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "upstream connection ended with an error");
            }
        }));
        Ok(UpstreamConnection {
            sender,
            _driver: driver,
        })
    }

    fn request(
        &self,
        body: Bytes,
        addr: SocketAddr,
        extra: Option<&(HeaderName, HeaderValue)>,
    ) -> Result<Request<Full<Bytes>>, UpstreamError> {
        let length = body.len();
        let mut builder = Request::post(self.path.as_str());
        if let Some((name, value)) = extra {
            builder = builder.header(name, value);
        }
        builder
            .header(header::HOST, self.authority.as_str())
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::CONTENT_LENGTH, length)
            .header(header::ACCEPT, "application/json, text/event-stream")
            .body(Full::new(body))
            // The parts are fixed strings and a validated path: unreachable in
            // practice, but never panic in the service.
            .map_err(|e| UpstreamError::Connect {
                addr,
                source: io::Error::other(e.to_string()),
            })
    }
}

/// The upstream body as a stream of data chunks, each passed on as soon as it
/// arrives. A silence longer than `idle` ends the stream with an error. When
/// the body ends cleanly the connection goes back to the idle pool; when the
/// stream is dropped early, the connection is dropped, which closes it.
fn body_stream(
    incoming: Incoming,
    connection: UpstreamConnection,
    pool: IdlePool,
    idle: Duration,
) -> impl Stream<Item = io::Result<Bytes>> + Send {
    futures_util::stream::unfold(Some((incoming, connection)), move |state| {
        let pool = pool.clone();
        async move {
            let (mut incoming, connection) = state?;
            loop {
                match tokio::time::timeout(idle, incoming.frame()).await {
                    Err(_) => {
                        let error = io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!("the model upstream was silent for {idle:?}"),
                        );
                        return Some((Err(error), None));
                    }
                    Ok(None) => {
                        if let Ok(mut idle_connections) = pool.lock()
                            && idle_connections.len() < MAX_IDLE_CONNECTIONS
                            && !connection.sender.is_closed()
                        {
                            idle_connections.push(connection);
                        }
                        return None;
                    }
                    Ok(Some(Err(e))) => return Some((Err(io::Error::other(e)), None)),
                    Ok(Some(Ok(frame))) => {
                        // Trailers carry no data: skip them.
                        if let Ok(data) = frame.into_data()
                            && !data.is_empty()
                        {
                            return Some((Ok(data), Some((incoming, connection))));
                        }
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: GW-1
    #[test]
    fn upstream_must_be_loopback_http() {
        for bad in [
            "https://127.0.0.1:11434/v1/chat/completions",
            "http://192.168.1.2:11434/v1/chat/completions",
            "http://10.0.0.1/v1/chat/completions",
            "http://example.com/v1/chat/completions",
            "http://localhost.evil.example/v1/chat/completions",
            "http://user:pw@127.0.0.1:11434/v1/chat/completions",
            "http://127.0.0.1:11434/v1/chat/completions?x=1",
            "http://[::ffff:8.8.8.8]:80/",
            "http://0.0.0.0:11434/",
            "ftp://127.0.0.1/",
            "not a url",
        ] {
            assert!(LoopbackUpstream::parse(bad).is_err(), "{bad} accepted");
        }
        let ok = LoopbackUpstream::parse("http://localhost:11434/v1/chat/completions").unwrap();
        assert_eq!(ok.addr(), "127.0.0.1:11434".parse().unwrap());
        let ok = LoopbackUpstream::parse("http://[::1]:8080/x").unwrap();
        assert!(ok.addr().ip().is_loopback());
        let ok = LoopbackUpstream::parse("http://127.0.0.2:9/y").unwrap();
        assert!(ok.addr().ip().is_loopback());
    }

    // proves: GW-1
    #[tokio::test]
    async fn connect_refuses_non_loopback() {
        let err = connect_loopback("192.0.2.1:80".parse().unwrap(), Duration::from_millis(100))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
    }
}
