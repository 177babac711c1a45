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
