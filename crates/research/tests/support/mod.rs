//! Test support: real HTTP servers on 127.0.0.1 that serve fixture
//! responses in each backend's documented format and record what they
//! receive; a dialer that maps public-looking addresses to them; a table
//! resolver. No packet leaves 127.0.0.1.
#![allow(
    dead_code,
    clippy::disallowed_methods,
    clippy::expect_used,
    clippy::unwrap_used,
    missing_docs
)]

use std::{
    collections::HashMap,
    io,
    net::{IpAddr, SocketAddr},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use ploy_egress::{
    BoxedStream, Dial, DialFuture, FetchConfig, Fetcher, StaticResolver, default_tls_config,
};
use ploy_research::{BoxFuture, ModelError, PhraseProposal, ResearchModel};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};

/// Public-looking test addresses (each mapped to one loopback server).
pub const DDG_IP: &str = "93.184.215.14";
pub const WIKI_IP: &str = "93.184.215.15";
pub const PAGES_IP: &str = "93.184.215.16";
pub const SEARX_IP: &str = "93.184.215.17";
pub const DDG_HOST: &str = "html.duckduckgo.com";
pub const WIKI_HOST: &str = "en.wikipedia.org";
pub const PAGES_HOST: &str = "pages.example.org";
pub const SEARX_HOST: &str = "searx.example.net";
/// A name that resolves to a private address.
pub const PRIVATE_HOST: &str = "intranet.example.org";
/// Tavily's API host and its public-looking test address.
pub const TAVILY_HOST: &str = "api.tavily.com";
pub const TAVILY_IP: &str = "93.184.215.18";
/// An operator's SearXNG on a private address (issue 7).
pub const LAN_SEARX_HOST: &str = "searx.lan";
pub const LAN_SEARX_IP: &str = "10.9.8.7";

/// What a fixture server answers.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    pub extra_headers: Vec<(String, String)>,
    /// Wait this long before answering.
    pub delay: Duration,
    /// Send the head and this much of the body, then stay open and silent.
    pub stall_after: Option<usize>,
}

impl Reply {
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status: 200,
            content_type: content_type.to_owned(),
            body: body.into(),
            extra_headers: Vec::new(),
            delay: Duration::ZERO,
            stall_after: None,
        }
    }
    pub fn html(body: impl Into<Vec<u8>>) -> Self {
        Self::ok("text/html; charset=utf-8", body)
    }
    pub fn json(body: impl Into<Vec<u8>>) -> Self {
        Self::ok("application/json", body)
    }
    pub fn status(status: u16) -> Self {
        Self {
            status,
            ..Self::ok("text/plain", "error")
        }
    }
    pub fn redirect(location: &str) -> Self {
        Self {
            status: 302,
            extra_headers: vec![("Location".into(), location.into())],
            ..Self::ok("text/plain", "")
        }
    }
    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
    pub fn stalling(mut self, after: usize) -> Self {
        self.stall_after = Some(after);
        self
    }
}

/// One received request.
#[derive(Debug, Clone)]
pub struct Received {
    pub head: String,
    pub path: String,
    pub body: String,
}

impl Received {
    /// A decoded query parameter.
    pub fn query(&self, key: &str) -> Option<String> {
        let url = url::Url::parse(&format!("http://x{}", self.path)).ok()?;
        url.query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    }
}

type Handler = Arc<dyn Fn(&Received) -> Reply + Send + Sync>;

/// A real HTTP/1.1 server on 127.0.0.1:0.
pub struct Fixture {
    pub addr: SocketAddr,
    pub received: Arc<Mutex<Vec<Received>>>,
    /// When each stalled connection saw its client hang up.
    pub closed_at: Arc<Mutex<Vec<Instant>>>,
    /// Connections currently stalled (open and silent).
    pub stalled: Arc<Mutex<usize>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Fixture {
    pub async fn start(handler: impl Fn(&Received) -> Reply + Send + Sync + 'static) -> Self {
        let handler: Handler = Arc::new(handler);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let received = Arc::new(Mutex::new(Vec::new()));
        let closed_at = Arc::new(Mutex::new(Vec::new()));
        let stalled = Arc::new(Mutex::new(0));
        let (log, closed, stalls) = (received.clone(), closed_at.clone(), stalled.clone());
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (handler, log, closed, stalls) =
                    (handler.clone(), log.clone(), closed.clone(), stalls.clone());
                tokio::spawn(serve(stream, handler, log, closed, stalls));
            }
        });
        Self {
            addr,
            received,
            closed_at,
            stalled,
            task,
        }
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().expect("lock").clone()
    }
}

async fn serve(
    mut stream: tokio::net::TcpStream,
    handler: Handler,
    log: Arc<Mutex<Vec<Received>>>,
    closed: Arc<Mutex<Vec<Instant>>>,
    stalls: Arc<Mutex<usize>>,
) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    if length > 0 && stream.read_exact(&mut body).await.is_err() {
        return;
    }
    let body = String::from_utf8_lossy(&body).into_owned();
    let request = Received { head, path, body };
    log.lock().expect("lock").push(request.clone());
    let reply = handler(&request);
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut out = format!(
        "HTTP/1.1 {} X\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.content_type,
        reply.body.len()
    );
    for (name, value) in &reply.extra_headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    match reply.stall_after {
        Some(after) => bytes.extend_from_slice(&reply.body[..after.min(reply.body.len())]),
        None => bytes.extend_from_slice(&reply.body),
    }
    if stream.write_all(&bytes).await.is_err() {
        return;
    }
    let _ = stream.flush().await;
    if reply.stall_after.is_some() {
        *stalls.lock().expect("lock") += 1;
        let mut sink = [0u8; 64];
        loop {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => {
                    closed.lock().expect("lock").push(Instant::now());
                    *stalls.lock().expect("lock") -= 1;
                    return;
                }
                Ok(_) => {}
            }
        }
    }
    let _ = stream.shutdown().await;
}

/// Maps public test addresses to loopback servers and logs every dial.
#[derive(Clone, Default)]
pub struct MapDial {
    map: Arc<Mutex<HashMap<IpAddr, SocketAddr>>>,
    pub dialled: Arc<Mutex<Vec<SocketAddr>>>,
}

impl MapDial {
    pub fn map(&self, public: &str, server: SocketAddr) {
        self.map
            .lock()
            .expect("lock")
            .insert(public.parse().expect("ip"), server);
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

/// The world of one test: fixture servers for DuckDuckGo, Wikipedia, the
/// pages and SearXNG, a resolver answering public-looking addresses, and a
/// fetcher over them.
pub struct World {
    pub dial: MapDial,
    pub fetcher: Fetcher,
}

impl World {
    /// `servers`: (public IP, server). Names resolve per the fixed table.
    pub fn new(servers: &[(&str, &Fixture)], read_timeout: Duration) -> Self {
        let dial = MapDial::default();
        for (ip, server) in servers {
            dial.map(ip, server.addr);
        }
        let ip = |s: &str| -> IpAddr { s.parse().expect("ip") };
        let resolver = StaticResolver::new([
            (DDG_HOST, vec![ip(DDG_IP)]),
            (WIKI_HOST, vec![ip(WIKI_IP)]),
            (PAGES_HOST, vec![ip(PAGES_IP)]),
            ("slow.example.org", vec![ip(PAGES_IP)]),
            (SEARX_HOST, vec![ip(SEARX_IP)]),
            (PRIVATE_HOST, vec![ip("10.20.30.40")]),
            (TAVILY_HOST, vec![ip(TAVILY_IP)]),
            (LAN_SEARX_HOST, vec![ip(LAN_SEARX_IP)]),
        ]);
        let mut config = FetchConfig::with_tls(default_tls_config().expect("tls"));
        config.read_timeout = read_timeout;
        config.connect_timeout = Duration::from_secs(2);
        config.total_timeout = read_timeout * 3;
        let fetcher = Fetcher::new(Arc::new(resolver), Arc::new(dial.clone()), config);
        Self { dial, fetcher }
    }
}

pub fn ddg_url() -> url::Url {
    url::Url::parse(&format!("http://{DDG_HOST}/html/")).expect("url")
}
pub fn wiki_url() -> url::Url {
    url::Url::parse(&format!("http://{WIKI_HOST}/w/api.php")).expect("url")
}
pub fn searx_url() -> url::Url {
    url::Url::parse(&format!("http://{SEARX_HOST}/")).expect("url")
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A DuckDuckGo HTML results page in the endpoint's format: `(url, title,
/// snippet)` per result, links wrapped in `//duckduckgo.com/l/?uddg=`.
pub fn ddg_page(results: &[(&str, &str, &str)]) -> String {
    let mut out = String::from(
        "<!DOCTYPE html><html><head><title>q at DuckDuckGo</title></head><body><div id=\"links\" class=\"results\">\n",
    );
    out.push_str("<div class=\"result results_links results_links_deep result--ad\"><div class=\"links_main\"><h2 class=\"result__title\"><a class=\"result__a\" href=\"https://ad.example.com/\">Sponsored</a></h2></div></div>\n");
    for (url, title, snippet) in results {
        let encoded: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
        out.push_str(&format!(
            "<div class=\"result results_links results_links_deep web-result \"><div class=\"links_main links_deep result__body\">\
             <h2 class=\"result__title\"><a rel=\"nofollow\" class=\"result__a\" href=\"//duckduckgo.com/l/?uddg={encoded}&amp;rut=0f1e\">{}</a></h2>\
             <div class=\"result__extras\"><div class=\"result__extras__url\"><a class=\"result__url\" href=\"x\">{}</a></div></div>\
             <a class=\"result__snippet\" href=\"//duckduckgo.com/l/?uddg={encoded}\">{}</a></div></div>\n",
            escape_html(title),
            escape_html(url),
            snippet
        ));
    }
    out.push_str("</div></body></html>");
    out
}

/// A Wikipedia `formatversion=2` generator=search + extracts response.
pub fn wiki_json(pages: &[(&str, &str)]) -> String {
    let pages: Vec<_> = pages
        .iter()
        .enumerate()
        .map(|(i, (title, extract))| {
            serde_json::json!({
                "pageid": 1000 + i, "ns": 0, "title": title, "index": i + 1,
                "extract": extract,
                "contentmodel": "wikitext", "pagelanguage": "en",
                "fullurl": format!("https://en.wikipedia.org/wiki/{}", title.replace(' ', "_")),
                "canonicalurl": format!("https://en.wikipedia.org/wiki/{}", title.replace(' ', "_")),
            })
        })
        .collect();
    serde_json::json!({"batchcomplete": true, "continue": {"gsroffset": 5, "continue": "gsroffset||"}, "query": {"pages": pages}}).to_string()
}

/// An article page.
pub fn article(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>{title}</title><script>var x=1;</script></head><body>\
         <nav><a href=\"/\">Home</a> | <a href=\"/about\">About</a></nav>\
         <main><h1>{title}</h1><p>{body}</p></main><footer>(c) site</footer></body></html>"
    )
}

/// A scripted in-process model: fixed proposals, records each dossier.
#[derive(Default)]
pub struct ScriptedModel {
    pub phrases: Vec<String>,
    pub another_round: bool,
    pub answer: String,
    pub proposals_asked: Mutex<usize>,
    pub dossiers: Mutex<Vec<String>>,
}

impl ResearchModel for ScriptedModel {
    fn propose_phrases<'a>(
        &'a self,
        _question: &'a str,
        _round: usize,
    ) -> BoxFuture<'a, Result<PhraseProposal, ModelError>> {
        Box::pin(async move {
            *self.proposals_asked.lock().expect("lock") += 1;
            if self.phrases.is_empty() {
                return Err(ModelError::Unavailable("scripted: no phrases".into()));
            }
            Ok(PhraseProposal {
                phrases: self.phrases.clone(),
                another_round: self.another_round,
            })
        })
    }

    fn answer<'a>(&'a self, dossier_json: &'a str) -> BoxFuture<'a, Result<String, ModelError>> {
        Box::pin(async move {
            self.dossiers
                .lock()
                .expect("lock")
                .push(dossier_json.to_owned());
            Ok(self.answer.clone())
        })
    }
}
