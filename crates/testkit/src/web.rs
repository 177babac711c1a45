//! One fixture web server for every test: real HTTP/1.1 (hyper) on
//! 127.0.0.1:0, optionally TLS, with the replies declared by the test.
//!
//! A test gives a handler (`Fn(&Received) -> Reply`) or a [`Routes`]
//! table. Every request is logged whole ([`Received`]: method, target,
//! headers, body) before the handler runs, so a test can assert what was
//! sent — or that nothing was. Replies cover what the network code under
//! test must survive: plain pages with any status, content type and
//! headers; redirects; large and gzip-bomb bodies; slow answers and
//! trickling bodies; a server that never answers; and raw wire bytes
//! (malformed heads, lying framing) for the cases no HTTP library will
//! produce. Raw replies are written on the connection hyper hands back
//! after the request was parsed, so parsing is always hyper's.

use std::convert::Infallible;
use std::io::Write as _;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, StreamBody, combinators::UnsyncBoxBody};
use hyper::body::{Frame, Incoming};
use hyper_util::rt::TokioIo;
use ploy_scripted_model::record;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpListener;

/// The most request body bytes logged per request.
const MAX_LOGGED_BODY: usize = 16 * 1024 * 1024;

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// `GET`, `POST`, …
    pub method: String,
    /// The request target as sent: path and query.
    pub target: String,
    /// Header names (lower case) and values, in the order hyper kept them;
    /// repeated headers appear once per value.
    pub headers: Vec<(String, String)>,
    /// The body, byte for byte.
    pub body: Vec<u8>,
    /// When it arrived.
    pub at: Instant,
}

impl Received {
    /// The path, without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The request target (path and query), as in the request line.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// A decoded query parameter.
    pub fn query(&self, key: &str) -> Option<String> {
        let query = self.target.split_once('?')?.1;
        url::form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    }

    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        record::header(&self.headers, name)
    }

    /// Every value of header `name` (any case).
    pub fn header_values(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The request head as text: request line and `name: value` lines
    /// (names in lower case), ending with the blank line.
    pub fn head(&self) -> String {
        record::head_text(&self.method, &self.target, &self.headers)
    }

    /// Head and body as one text: everything the request carried.
    pub fn text(&self) -> String {
        format!("{}{}", self.head(), self.body_text())
    }
}

/// What the server does with one request.
#[derive(Debug, Clone)]
pub struct Reply {
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    /// A well-formed response written by hyper.
    Http {
        status: u16,
        headers: Vec<(String, String)>,
        body: Bytes,
        /// Wait this long before answering.
        delay: Duration,
        /// Send the body in pieces of this size with this pause before each
        /// piece after the first (chunked framing).
        trickle: Option<(usize, Duration)>,
    },
    /// Bytes written straight on the connection, then close or stall.
    Raw { bytes: Vec<u8>, then_stall: bool },
}

impl Reply {
    /// 200 with `content_type` and `body`.
    pub fn ok(content_type: &str, body: impl AsRef<[u8]>) -> Self {
        Self::with_headers(200, &[("content-type", content_type)], body)
    }

    /// 200 `text/html; charset=utf-8`.
    pub fn html(body: impl AsRef<[u8]>) -> Self {
        Self::ok("text/html; charset=utf-8", body)
    }

    /// 200 `application/json`.
    pub fn json(body: impl AsRef<[u8]>) -> Self {
        Self::ok("application/json", body)
    }

    /// 200 `text/plain; charset=utf-8`.
    pub fn text(body: impl AsRef<[u8]>) -> Self {
        Self::ok("text/plain; charset=utf-8", body)
    }

    /// `status` with a short `text/plain` body (`error`).
    pub fn status(status: u16) -> Self {
        Self::with_headers(status, &[("content-type", "text/plain")], "error")
    }

    /// A redirect to `location`.
    pub fn redirect(status: u16, location: &str) -> Self {
        Self::with_headers(
            status,
            &[("location", location), ("content-type", "text/plain")],
            "",
        )
    }

    /// `status` with exactly these headers (repeats allowed; no implicit
    /// content type) and `body`; hyper adds `content-length` and `date`.
    pub fn with_headers(status: u16, headers: &[(&str, &str)], body: impl AsRef<[u8]>) -> Self {
        Self {
            kind: Kind::Http {
                status,
                headers: headers
                    .iter()
                    .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                    .collect(),
                body: Bytes::copy_from_slice(body.as_ref()),
                delay: Duration::ZERO,
                trickle: None,
            },
        }
    }

    /// `bytes` written as they are (a malformed head, lying framing, a body
    /// that ends only when the connection closes); then the server closes.
    pub fn raw(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            kind: Kind::Raw {
                bytes: bytes.into(),
                then_stall: false,
            },
        }
    }

    /// `bytes` written as they are, then the connection stays open and
    /// silent until the client hangs up ([`WebServer::closed_at`]).
    pub fn raw_then_stall(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            kind: Kind::Raw {
                bytes: bytes.into(),
                then_stall: true,
            },
        }
    }

    /// A server that reads the request and never answers.
    pub fn never() -> Self {
        Self::raw_then_stall(Vec::new())
    }

    /// A gzip body that inflates to `inflated` zero bytes (a decompression bomb).
    pub fn gzip_bomb(content_type: &str, inflated: usize) -> Self {
        let zeros = vec![0u8; inflated.min(1 << 20)];
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let mut left = inflated;
        while left > 0 {
            let n = left.min(zeros.len());
            // Writing to a Vec cannot fail.
            let _ = encoder.write_all(&zeros[..n]);
            left -= n;
        }
        let body = encoder.finish().unwrap_or_default();
        Self::with_headers(
            200,
            &[("content-type", content_type), ("content-encoding", "gzip")],
            body,
        )
    }

    /// The same reply with another status.
    pub fn status_code(mut self, code: u16) -> Self {
        if let Kind::Http { status, .. } = &mut self.kind {
            *status = code;
        }
        self
    }

    /// Adds a header (repeats allowed).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Kind::Http { headers, .. } = &mut self.kind {
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }

    /// The same body gzip-compressed, with `content-encoding: gzip`.
    pub fn gzipped(mut self) -> Self {
        if let Kind::Http { body, headers, .. } = &mut self.kind {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            let _ = encoder.write_all(body);
            *body = Bytes::from(encoder.finish().unwrap_or_default());
            headers.push(("content-encoding".into(), "gzip".into()));
        }
        self
    }

    /// Answers only after `delay`.
    pub fn delayed(mut self, by: Duration) -> Self {
        if let Kind::Http { delay, .. } = &mut self.kind {
            *delay = by;
        }
        self
    }

    /// Sends the body in `piece`-byte pieces, pausing `pause` before each
    /// piece after the first (chunked framing; a slow body). A client that
    /// hangs up mid-body is noted in [`WebServer::closed_at`].
    pub fn trickled(mut self, piece: usize, pause: Duration) -> Self {
        if let Kind::Http { trickle, .. } = &mut self.kind {
            *trickle = Some((piece.max(1), pause));
        }
        self
    }

    /// Sends the head (with the full `content-length`) and the first
    /// `after` body bytes, then stays open and silent until the client
    /// hangs up.
    pub fn stall_after(self, after: usize) -> Self {
        match self.kind {
            Kind::Http {
                status,
                headers,
                body,
                ..
            } => {
                let mut bytes = format!("HTTP/1.1 {status} X\r\n").into_bytes();
                for (name, value) in &headers {
                    bytes.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
                }
                bytes.extend_from_slice(
                    format!(
                        "content-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    )
                    .as_bytes(),
                );
                bytes.extend_from_slice(&body[..after.min(body.len())]);
                Self::raw_then_stall(bytes)
            }
            Kind::Raw { .. } => self,
        }
    }
}

/// A route table: the first route whose method (if given) and path match
/// answers; otherwise the fallback (404 by default).
#[derive(Debug, Clone)]
pub struct Routes {
    routes: Vec<(Option<String>, String, Reply)>,
    fallback: Reply,
}

impl Default for Routes {
    fn default() -> Self {
        Self::new()
    }
}

impl Routes {
    /// No routes; everything is 404.
    pub fn new() -> Self {
        Self {
            routes: Vec::new(),
            fallback: Reply::status(404),
        }
    }

    /// `reply` for any method on `path`.
    pub fn at(mut self, path: &str, reply: Reply) -> Self {
        self.routes.push((None, path.to_owned(), reply));
        self
    }

    /// `reply` for `method` on `path`.
    pub fn on(mut self, method: &str, path: &str, reply: Reply) -> Self {
        self.routes
            .push((Some(method.to_ascii_uppercase()), path.to_owned(), reply));
        self
    }

    /// The reply when no route matches.
    pub fn otherwise(mut self, reply: Reply) -> Self {
        self.fallback = reply;
        self
    }

    /// The reply for `request`.
    pub fn answer(&self, request: &Received) -> Reply {
        self.routes
            .iter()
            .find(|(method, path, _)| {
                path == request.path() && method.as_ref().is_none_or(|m| *m == request.method)
            })
            .map_or_else(|| self.fallback.clone(), |(_, _, reply)| reply.clone())
    }
}

type Handler = Arc<dyn Fn(&Received) -> Reply + Send + Sync>;

struct Shared {
    handler: Handler,
    log: Mutex<Vec<Received>>,
    connections: AtomicUsize,
    closed_at: Mutex<Vec<Instant>>,
    stalled: AtomicUsize,
}

/// A running fixture server. Dropping it stops accepting.
pub struct WebServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    /// The accepting task (none for a server on its own thread).
    task: Option<tokio::task::JoinHandle<()>>,
    /// For a server on its own thread: dropping this stops its runtime.
    _thread: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for WebServer {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

impl std::fmt::Debug for WebServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl WebServer {
    /// Plain HTTP on 127.0.0.1:0, answering with `handler`.
    pub async fn start(handler: impl Fn(&Received) -> Reply + Send + Sync + 'static) -> Self {
        Self::start_inner(Arc::new(handler), None).await
    }

    /// [`start`](Self::start) on a thread of its own with its own runtime,
    /// for synchronous tests; dropping the server stops the thread.
    #[allow(clippy::expect_used)] // a test cannot run without its server
    pub fn start_in_thread(handler: impl Fn(&Received) -> Reply + Send + Sync + 'static) -> Self {
        let (ready, started) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the fixture server");
            runtime.block_on(async move {
                let server = Self::start(handler).await;
                let _ = ready.send((server.addr, server.shared.clone()));
                let _ = stopped.await;
                drop(server);
            });
        });
        let (addr, shared) = started.recv().expect("the fixture server started");
        Self {
            addr,
            shared,
            task: None,
            _thread: Some(stop),
        }
    }

    /// Plain HTTP on 127.0.0.1:0, answering from `routes`.
    pub async fn routes(routes: Routes) -> Self {
        Self::start(move |request| routes.answer(request)).await
    }

    /// HTTPS with `tls` (see [`crate::tls::tls_for`]).
    pub async fn start_tls(
        tls: Arc<rustls::ServerConfig>,
        handler: impl Fn(&Received) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Self::start_inner(
            Arc::new(handler),
            Some(tokio_rustls::TlsAcceptor::from(tls)),
        )
        .await
    }

    async fn start_inner(handler: Handler, tls: Option<tokio_rustls::TlsAcceptor>) -> Self {
        #[allow(clippy::expect_used)] // a test cannot run without its server
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        #[allow(clippy::expect_used)]
        let addr = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared {
            handler,
            log: Mutex::new(Vec::new()),
            connections: AtomicUsize::new(0),
            closed_at: Mutex::new(Vec::new()),
            stalled: AtomicUsize::new(0),
        });
        let accepting = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                accepting.connections.fetch_add(1, Ordering::SeqCst);
                let (shared, tls) = (accepting.clone(), tls.clone());
                tokio::spawn(async move {
                    match tls {
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(stream).await {
                                serve_connection(stream, shared).await;
                            }
                        }
                        None => serve_connection(stream, shared).await,
                    }
                });
            }
        });
        Self {
            addr,
            shared,
            task: Some(task),
            _thread: None,
        }
    }

    /// The listening address (127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Received> {
        lock(&self.shared.log).clone()
    }

    /// How many requests arrived.
    pub fn request_count(&self) -> usize {
        lock(&self.shared.log).len()
    }

    /// How many TCP connections were accepted.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// When each stalled or trickling reply saw its client hang up.
    pub fn closed_at(&self) -> Vec<Instant> {
        lock(&self.shared.closed_at).clone()
    }

    /// How many replies are stalled right now (open and silent).
    pub fn stalled(&self) -> usize {
        self.shared.stalled.load(Ordering::SeqCst)
    }

    /// Waits until `n` requests have arrived; panics after `limit`.
    pub async fn wait_for_requests(&self, n: usize, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.request_count() < n {
            assert!(
                Instant::now() < deadline,
                "{} of {n} requests arrived within {limit:?}",
                self.request_count()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A test that panicked while holding the lock must not hide the log.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Passes reads through; passes writes through until a raw reply takes
/// over, then swallows what hyper writes (its placeholder response).
struct Swallow<S> {
    inner: S,
    swallow: Arc<AtomicBool>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Swallow<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Swallow<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.swallow.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.swallow.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.swallow.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// A raw reply waiting for hyper to hand the connection back: the bytes,
/// and whether to stall after them.
type RawSlot = Arc<Mutex<Option<(Vec<u8>, bool)>>>;

async fn serve_connection<S>(io: S, shared: Arc<Shared>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let swallow = Arc::new(AtomicBool::new(false));
    let raw: RawSlot = Arc::new(Mutex::new(None));
    let service = {
        let (swallow, raw, shared) = (swallow.clone(), raw.clone(), shared.clone());
        hyper::service::service_fn(move |request: Request<Incoming>| {
            let (swallow, raw, shared) = (swallow.clone(), raw.clone(), shared.clone());
            async move { Ok::<_, Infallible>(answer(request, &shared, &swallow, &raw).await) }
        })
    };
    let wrapped = Swallow {
        inner: io,
        swallow: swallow.clone(),
    };
    let connection = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(wrapped), service)
        .without_shutdown();
    let Ok(parts) = connection.await else {
        return;
    };
    let Some((bytes, then_stall)) = lock(&raw).take() else {
        return;
    };
    let mut io = parts.io.into_inner().inner;
    if io.write_all(&bytes).await.is_err() || io.flush().await.is_err() {
        lock(&shared.closed_at).push(Instant::now());
        return;
    }
    if !then_stall {
        let _ = io.shutdown().await;
        return;
    }
    shared.stalled.fetch_add(1, Ordering::SeqCst);
    let mut sink = [0u8; 512];
    loop {
        match io.read(&mut sink).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    lock(&shared.closed_at).push(Instant::now());
    shared.stalled.fetch_sub(1, Ordering::SeqCst);
}

async fn answer(
    request: Request<Incoming>,
    shared: &Arc<Shared>,
    swallow: &AtomicBool,
    raw: &Mutex<Option<(Vec<u8>, bool)>>,
) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = http_body_util::Limited::new(body, MAX_LOGGED_BODY)
        .collect()
        .await
        .map(|collected| collected.to_bytes().to_vec())
        .unwrap_or_default();
    let received = Received {
        method: parts.method.as_str().to_owned(),
        target: record::target(&parts),
        headers: record::headers(&parts),
        body,
        at: Instant::now(),
    };
    lock(&shared.log).push(received.clone());
    let reply = (shared.handler)(&received);
    match reply.kind {
        Kind::Raw { bytes, then_stall } => {
            *lock(raw) = Some((bytes, then_stall));
            swallow.store(true, Ordering::SeqCst);
            let mut response = Response::new(empty());
            response
                .headers_mut()
                .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
        Kind::Http {
            status,
            headers,
            body,
            delay,
            trickle,
        } => {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let body = match trickle {
                None => Full::new(body).boxed_unsync(),
                Some((piece, pause)) => trickle_body(body, piece, pause, shared.clone()),
            };
            let mut response = Response::new(body);
            *response.status_mut() =
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            for (name, value) in headers {
                if let (Ok(name), Ok(value)) = (
                    HeaderName::from_bytes(name.as_bytes()),
                    HeaderValue::from_str(&value),
                ) {
                    response.headers_mut().append(name, value);
                }
            }
            response
        }
    }
}

fn empty() -> Body {
    Full::new(Bytes::new()).boxed_unsync()
}

/// Notes a trickling body dropped before its end (the client hung up).
struct HangUpGuard {
    shared: Arc<Shared>,
    done: bool,
}

impl HangUpGuard {
    /// The body reached its end.
    fn finish(mut self) {
        self.done = true;
    }
}

impl Drop for HangUpGuard {
    fn drop(&mut self) {
        if !self.done {
            lock(&self.shared.closed_at).push(Instant::now());
        }
    }
}

fn trickle_body(body: Bytes, piece: usize, pause: Duration, shared: Arc<Shared>) -> Body {
    let guard = HangUpGuard {
        shared,
        done: false,
    };
    let stream = futures_util::stream::unfold(
        (body, 0usize, guard),
        move |(body, offset, guard)| async move {
            if offset >= body.len() {
                guard.finish();
                return None;
            }
            if offset > 0 {
                tokio::time::sleep(pause).await;
            }
            let end = (offset + piece).min(body.len());
            let frame = Frame::data(body.slice(offset..end));
            Some((Ok::<_, Infallible>(frame), (body, end, guard)))
        },
    );
    StreamBody::new(stream).boxed_unsync()
}
