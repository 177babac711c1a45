//! The pinned guarded fetcher: text check → resolve → check every address →
//! dial the checked address → TLS against the host name → one GET with fixed
//! headers → redirects by hand (each one the whole pipeline again) → a body
//! streamed through decompression and cut at the cap.

use std::{
    fmt, io,
    net::{IpAddr, SocketAddr},
    pin::Pin,
    sync::Arc,
    time::Duration,
};

use bytes::Bytes;
use futures_util::TryStreamExt;
use http_body_util::{BodyExt, Either, Empty, Full};
use hyper_util::rt::TokioIo;
use rustls::{ClientConfig, RootCertStore, pki_types::ServerName};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::{io::StreamReader, sync::CancellationToken};
use url::Position;

use crate::{
    address::{check_ip, check_operator_ip, dial_form},
    dial::{BoxedStream, Dial, TcpDial},
    door::{Credential, Part, SecretDoor},
    local::check_not_this_machine,
    refusal::{Refusal, Stage},
    resolve::{HickoryResolver, Resolve, ResolveError, resolve_checked},
    text::{CheckedUrl, OperatorHost, check_url_text_with},
};

/// The body cap, applied after decompression (FETCH-1): 1.5 MiB.
pub const MAX_BODY_BYTES: usize = 1_572_864;
/// Redirects followed at most (URL-3); the next one is refused.
pub const MAX_REDIRECTS: usize = 4;
/// The fixed User-Agent; no other identifying header is ever sent.
pub const USER_AGENT: &str = concat!("ploy/", env!("CARGO_PKG_VERSION"), " (guarded fetch)");

const ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.9,application/json;q=0.8,text/*;q=0.7";
const ACCEPT_ENCODING: &str = "gzip, deflate, br";
/// The largest JSON body [`Fetcher::post_json`] sends: a search request is
/// a phrase and a few options, so anything bigger is not one.
pub const MAX_POST_BODY_BYTES: usize = 16 * 1024;
/// The longest bearer token [`Fetcher::post_json`] sends.
const MAX_BEARER_CHARS: usize = 512;
/// Read buffer size for the body loop; the cap can be overshot by at most
/// this much in memory before it is cut.
const READ_CHUNK: usize = 16 * 1024;

/// Limits and TLS trust for a [`Fetcher`].
#[derive(Clone)]
pub struct FetchConfig {
    /// Time allowed to resolve one name.
    pub resolve_timeout: Duration,
    /// Time allowed to connect (dial plus TLS handshake) for one hop.
    pub connect_timeout: Duration,
    /// Time allowed for each read: the response head and every body chunk.
    pub read_timeout: Duration,
    /// Time allowed for the whole fetch, redirects included.
    pub total_timeout: Duration,
    /// TLS client configuration (roots, protocol versions). Production uses
    /// [`default_tls_config`]; tests inject their own roots through
    /// [`tls_config_with_roots`].
    pub tls: Arc<ClientConfig>,
    /// The one operator-named host the address policy lets through (a
    /// self-hosted SearXNG). `None` everywhere except the fetcher a backend
    /// built from operator configuration uses ([`Fetcher::with_operator_host`]).
    pub operator_host: Option<OperatorHost>,
    /// BEYOND-6: the secret values no request may carry. [`FetchConfig::production`]
    /// starts with the secrets of the process's environment; callers that
    /// know more (keys in memory, `--secret-file`, settings) set it with
    /// [`Fetcher::with_secrets`].
    pub secrets: SecretDoor,
    /// A check every hop's URL passes before anything is resolved (the
    /// caller's permission rules: a `web` deny rule refuses a redirect to a
    /// denied site too). `None`: no such check.
    pub hop_gate: Option<HopGate>,
}

/// A check of one hop's URL (as it will be requested), made before the name
/// is resolved; `Err` refuses the fetch with that refusal.
pub type HopGate = Arc<dyn Fn(&str) -> Result<(), Refusal> + Send + Sync>;

impl FetchConfig {
    /// Default limits (resolve 5 s, connect 10 s, read 15 s, total 45 s) with
    /// the given TLS configuration.
    pub fn with_tls(tls: Arc<ClientConfig>) -> Self {
        Self {
            resolve_timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(15),
            total_timeout: Duration::from_secs(45),
            tls,
            operator_host: None,
            secrets: SecretDoor::empty(),
            hop_gate: None,
        }
    }

    /// Default limits with the compiled-in Mozilla roots, and the secrets of
    /// this process's environment at the door (BEYOND-6).
    pub fn production() -> Result<Self, rustls::Error> {
        let mut config = Self::with_tls(default_tls_config()?);
        config.secrets = SecretDoor::from_process_env();
        Ok(config)
    }
}

impl fmt::Debug for FetchConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FetchConfig")
            .field("resolve_timeout", &self.resolve_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .field("total_timeout", &self.total_timeout)
            .field("operator_host", &self.operator_host)
            .field("secrets", &self.secrets)
            .field("hop_gate", &self.hop_gate.is_some())
            .finish_non_exhaustive()
    }
}

/// TLS with the Mozilla root store compiled in (webpki-roots): the same
/// trust on every machine, no OS certificate store surprises.
pub fn default_tls_config() -> Result<Arc<ClientConfig>, rustls::Error> {
    let roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    tls_config_with_roots(roots)
}

/// TLS (ring provider, TLS 1.2+, HTTP/1.1 only) trusting exactly `roots`.
pub fn tls_config_with_roots(roots: RootCertStore) -> Result<Arc<ClientConfig>, rustls::Error> {
    let mut config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// A fetched text page.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Page {
    /// The final HTTP status (2xx).
    pub status: u16,
    /// The URL the page came from, after redirects.
    pub final_url: String,
    /// The media type, lowercase, without parameters.
    pub content_type: String,
    /// The character encoding used to decode the body.
    pub charset: String,
    /// The body as text.
    pub text: String,
    /// The decoded body was longer than [`MAX_BODY_BYTES`] and was cut.
    pub truncated: bool,
    /// Body bytes kept (after decompression).
    pub body_bytes: usize,
    /// Redirects followed.
    pub redirects: usize,
    /// The address actually connected to for the final hop.
    pub connected_to: SocketAddr,
}

/// Which limit ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutPhase {
    /// Resolving a name.
    Resolve,
    /// Connecting (dial and TLS handshake).
    Connect,
    /// Waiting for the response head or a body chunk.
    Read,
    /// The whole fetch.
    Total,
}

/// Every way a fetch can end, as a value (FAIL-1). Cancellation is the one
/// exception and is returned as `Err(Cancelled)` by [`Fetcher::fetch`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum FetchOutcome {
    /// A text page was read.
    Page(Page),
    /// A rule refused the fetch.
    Refused(Refusal),
    /// The server answered with a status that is neither 2xx nor a
    /// followable redirect.
    HttpStatus {
        /// The status code.
        status: u16,
        /// The URL that answered.
        url: String,
        /// Redirects followed before it.
        redirects: usize,
    },
    /// Resolution, connection, TLS or the HTTP exchange failed.
    NetworkError {
        /// The URL being fetched.
        url: String,
        /// What failed.
        detail: String,
    },
    /// A time limit ran out.
    TimedOut {
        /// Which limit.
        phase: TimeoutPhase,
        /// The URL being fetched.
        url: String,
    },
}

/// The fetch was cancelled; the only outcome that is not a [`FetchOutcome`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the fetch was cancelled")]
pub struct Cancelled;

/// The guarded fetcher. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Fetcher {
    resolver: Arc<dyn Resolve>,
    dialer: Arc<dyn Dial>,
    config: FetchConfig,
}

impl fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fetcher")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// What one request carries: a GET, the one POST shape (JSON with a
/// bearer token) that API backends need, or a web form (no credential).
#[derive(Clone, Copy)]
enum RequestKind<'a> {
    Get,
    PostJson {
        credential: &'a Credential,
        body: &'a Bytes,
    },
    PostForm {
        body: &'a Bytes,
    },
}

/// What one hop produced.
enum Hop {
    Done(FetchOutcome),
    /// The status (301, 302, 303, 307 or 308) and the Location.
    Redirect(u16, String),
}

/// Aborts the HTTP connection task when the fetch ends or is dropped, so a
/// cancelled fetch leaves nothing running.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Fetcher {
    /// A fetcher over the given seams.
    pub fn new(resolver: Arc<dyn Resolve>, dialer: Arc<dyn Dial>, config: FetchConfig) -> Self {
        Self {
            resolver,
            dialer,
            config,
        }
    }

    /// The production fetcher: system DNS through hickory, plain TCP dial.
    /// Call it inside a tokio runtime (hickory's provider uses its context).
    pub fn production(config: FetchConfig) -> Result<Self, ResolveError> {
        Ok(Self::new(
            Arc::new(HickoryResolver::from_system()?),
            Arc::new(TcpDial),
            config,
        ))
    }

    /// The production dialer with another resolver (e.g. a hosts file).
    pub fn with_resolver(resolver: Arc<dyn Resolve>, config: FetchConfig) -> Self {
        Self::new(resolver, Arc::new(TcpDial), config)
    }

    /// The same fetcher, letting `operator` (and only it) past the address
    /// policy. Use it only for a backend whose base URL came from the
    /// operator's configuration file, never for model or page input.
    pub fn with_operator_host(&self, operator: OperatorHost) -> Self {
        let mut config = self.config.clone();
        config.operator_host = Some(operator);
        Self {
            resolver: self.resolver.clone(),
            dialer: self.dialer.clone(),
            config,
        }
    }

    /// The same fetcher with `secrets` at the door (BEYOND-6): every
    /// request carrying one of them, in any form the door sees, is refused
    /// before anything is resolved or sent.
    pub fn with_secrets(&self, secrets: SecretDoor) -> Self {
        let mut fetcher = self.clone();
        fetcher.config.secrets = secrets;
        fetcher
    }

    /// The same fetcher with `gate` checking every hop's URL before it is
    /// resolved (the caller's permission rules).
    pub fn with_hop_gate(&self, gate: HopGate) -> Self {
        let mut fetcher = self.clone();
        fetcher.config.hop_gate = Some(gate);
        fetcher
    }

    /// Fetches `url` (GET) through the whole pipeline. Returns every outcome
    /// as a value; `Err(Cancelled)` only when `cancel` fires, which stops the
    /// fetch at once (the total timeout is joined with it).
    pub async fn fetch(
        &self,
        url: &str,
        cancel: &CancellationToken,
    ) -> Result<FetchOutcome, Cancelled> {
        self.guarded(url, RequestKind::Get, cancel).await
    }

    /// POSTs a JSON `body` to `url` with `Authorization: Bearer <token>`
    /// (an API search backend such as Tavily), through the same pipeline as
    /// [`Fetcher::fetch`]: text check, the secret door, checked resolution,
    /// pinned dial, TLS, body cap and content-type policy. The headers are
    /// fixed (Host, User-Agent, Accept and Content-Type `application/json`,
    /// Authorization, Content-Length, Connection; never Cookie or Referer).
    /// The key goes only to the origin its [`Credential`] was declared for,
    /// and only in that header (BEYOND-6): another origin, or the key
    /// anywhere in the URL or the body, is refused before anything is
    /// sent. A body over [`MAX_POST_BODY_BYTES`] or an unusable token is
    /// refused too. A redirect is refused, never followed: it would re-send
    /// the key and the body somewhere else (URL-3, A-1). The token never
    /// appears in the outcome, even if the server echoes it.
    pub async fn post_json(
        &self,
        url: &str,
        credential: &Credential,
        body: Vec<u8>,
        cancel: &CancellationToken,
    ) -> Result<FetchOutcome, Cancelled> {
        if let Some(refused) = over_post_cap(
            body.len(),
            "the request body",
            "(a search request is a phrase and a few options)",
        ) {
            return Ok(refused);
        }
        if !bearer_is_usable(credential.token()) {
            return Ok(FetchOutcome::Refused(Refusal::new(
                "CONFIG-1",
                Stage::Request,
                format!(
                    "the bearer token is empty, longer than {MAX_BEARER_CHARS} characters, or holds characters other than visible ASCII (it is not shown); check the key"
                ),
            )));
        }
        let body = Bytes::from(body);
        let outcome = self
            .guarded(
                url,
                RequestKind::PostJson {
                    credential,
                    body: &body,
                },
                cancel,
            )
            .await?;
        Ok(without_secret(outcome, credential.token()))
    }

    /// POSTs a web form: `body` (already `application/x-www-form-urlencoded`)
    /// to `url`, through the same pipeline as [`Fetcher::fetch`] (text
    /// check, the secret door on the URL, every header and the body —
    /// BEYOND-6 —, the hop gate, checked resolution, pinned dial, TLS, body
    /// cap). No credential, no Cookie, no Referer, no Origin. A body over
    /// [`MAX_POST_BODY_BYTES`] is refused. A 301, 302 or 303 answer is
    /// followed as a GET of its Location (the body is not sent again, as
    /// browsers do), each hop through the whole pipeline and the hop gate; a
    /// 307 or 308, which asks for the body to be sent again to another
    /// location, is refused (URL-3): the body goes to one checked address
    /// only.
    pub async fn post_form(
        &self,
        url: &str,
        body: Vec<u8>,
        cancel: &CancellationToken,
    ) -> Result<FetchOutcome, Cancelled> {
        if let Some(refused) = over_post_cap(body.len(), "the form's body", "(nothing was sent)") {
            return Ok(refused);
        }
        let body = Bytes::from(body);
        self.guarded(url, RequestKind::PostForm { body: &body }, cancel)
            .await
    }

    async fn guarded(
        &self,
        url: &str,
        kind: RequestKind<'_>,
        cancel: &CancellationToken,
    ) -> Result<FetchOutcome, Cancelled> {
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(Cancelled),
            done = tokio::time::timeout(self.config.total_timeout, self.run(url, kind)) => {
                Ok(done.unwrap_or_else(|_| FetchOutcome::TimedOut {
                    phase: TimeoutPhase::Total,
                    url: url.to_owned(),
                }))
            }
        }
    }

    async fn run(&self, url: &str, kind: RequestKind<'_>) -> FetchOutcome {
        let operator = self.config.operator_host.as_ref();
        // BEYOND-6 on the URL as the caller wrote it (the parser normalises
        // case, escapes and IDNA; both spellings are searched).
        if let Err(refusal) = self.config.secrets.check_text(Part::Url, url, true) {
            return FetchOutcome::Refused(refusal);
        }
        let mut current = match check_url_text_with(url, operator) {
            Ok(checked) => checked,
            Err(refusal) => return FetchOutcome::Refused(refusal),
        };
        let mut redirects = 0;
        let mut kind = kind;
        loop {
            // The request is built and checked before the name is resolved,
            // and exactly this request is sent.
            let request = match self.checked_request(&current, kind) {
                Ok(request) => request,
                Err(refusal) => {
                    return FetchOutcome::Refused(if redirects > 0 {
                        Refusal {
                            reason: format!("redirect {redirects}: {}", refusal.reason),
                            ..refusal
                        }
                    } else {
                        refusal
                    });
                }
            };
            match self.hop(&current, redirects, request).await {
                Hop::Done(outcome) => return outcome,
                Hop::Redirect(..) if matches!(kind, RequestKind::PostJson { .. }) => {
                    // The location is not shown: a hostile API could put
                    // anything in it, and it is never dialled.
                    return FetchOutcome::Refused(Refusal::new(
                        "URL-3",
                        Stage::Redirect,
                        "the server answered the POST with a redirect; a request carrying a key and a body is never re-sent to another location, so it was not followed (check the API base URL)",
                    ));
                }
                Hop::Redirect(307 | 308, _) if matches!(kind, RequestKind::PostForm { .. }) => {
                    return FetchOutcome::Refused(Refusal::new(
                        "URL-3",
                        Stage::Redirect,
                        "the server answered the form with a 307/308 redirect, which asks for the body to be sent again to another location; a form body goes to one checked address only, so it was not followed",
                    ));
                }
                Hop::Redirect(_, location) => {
                    // After a form, the next hop is a GET without the body
                    // (what 301/302/303 mean for a browser).
                    if matches!(kind, RequestKind::PostForm { .. }) {
                        kind = RequestKind::Get;
                    }
                    // BEYOND-6 on the Location as the server wrote it; the
                    // joined URL is checked with the next hop's request.
                    if let Err(refusal) =
                        self.config
                            .secrets
                            .check_text(Part::Location, &location, true)
                    {
                        return FetchOutcome::Refused(Refusal {
                            reason: format!("redirect {}: {}", redirects + 1, refusal.reason),
                            ..refusal
                        });
                    }
                    if redirects >= MAX_REDIRECTS {
                        return FetchOutcome::Refused(Refusal::new(
                            "URL-3",
                            Stage::Redirect,
                            format!(
                                "more than {MAX_REDIRECTS} redirects (the next one was to `{location}`)"
                            ),
                        ));
                    }
                    let next = match current.join_checked_with(&location, operator) {
                        Ok(next) => next,
                        Err(refusal) => {
                            return FetchOutcome::Refused(Refusal {
                                reason: format!(
                                    "redirect {} to `{location}`: {}",
                                    redirects + 1,
                                    refusal.reason
                                ),
                                ..refusal
                            });
                        }
                    };
                    if current.is_https() && !next.is_https() {
                        return FetchOutcome::Refused(Refusal::new(
                            "URL-3",
                            Stage::Redirect,
                            format!("redirect from https to plain http (`{next}`) is a downgrade"),
                        ));
                    }
                    redirects += 1;
                    current = next;
                }
            }
        }
    }

    /// One request to one checked URL: resolve, check, pin, TLS, request.
    async fn hop(
        &self,
        target: &CheckedUrl,
        redirects: usize,
        request: http::Request<RequestBody>,
    ) -> Hop {
        let url_text = target.url().as_str().to_owned();
        let network = |detail: String| {
            Hop::Done(FetchOutcome::NetworkError {
                url: url_text.clone(),
                detail,
            })
        };
        let timed_out = |phase| {
            Hop::Done(FetchOutcome::TimedOut {
                phase,
                url: url_text.clone(),
            })
        };

        let addresses: Vec<IpAddr> = match (target.literal_address(), target.name()) {
            (Some(ip), _) => vec![ip],
            (None, Some(name)) if target.is_operator_host() => {
                // The operator named this host: its addresses are not judged
                // by the policy, but they are still resolved once and pinned.
                match tokio::time::timeout(self.config.resolve_timeout, self.resolver.resolve(name))
                    .await
                {
                    Err(_) => return timed_out(TimeoutPhase::Resolve),
                    Ok(Err(err)) => return network(err.to_string()),
                    Ok(Ok(addresses)) if addresses.is_empty() => {
                        return network(format!("name `{name}` has no addresses"));
                    }
                    Ok(Ok(addresses)) => {
                        // URL-2 for the operator's host: every address must
                        // be its machine, its networks or public.
                        if let Some(refusal) =
                            addresses.iter().find_map(|ip| check_operator_ip(*ip).err())
                        {
                            return Hop::Done(FetchOutcome::Refused(Refusal::new(
                                "URL-2",
                                Stage::Resolve,
                                format!(
                                    "the operator-named host `{name}` resolves to a refused address: {refusal}"
                                ),
                            )));
                        }
                        addresses
                    }
                }
            }
            (None, Some(name)) => {
                match resolve_checked(self.resolver.as_ref(), name, self.config.resolve_timeout)
                    .await
                {
                    Ok(Ok(addresses)) => addresses,
                    Ok(Err(refusal)) => {
                        let refusal = if redirects > 0 {
                            Refusal {
                                reason: format!("redirect {redirects}: {}", refusal.reason),
                                ..refusal
                            }
                        } else {
                            refusal
                        };
                        return Hop::Done(FetchOutcome::Refused(refusal));
                    }
                    Err(ResolveError::TimedOut(_)) => return timed_out(TimeoutPhase::Resolve),
                    Err(err) => return network(err.to_string()),
                }
            }
            (None, None) => return network("the URL has no host".to_owned()),
        };
        // URL-2: never back to this machine, whatever the range (a public
        // address on an interface). The operator's host may be this machine
        // by design (a self-hosted SearXNG).
        if !target.is_operator_host() {
            let what = match target.name() {
                Some(name) => format!("`{name}` resolves to"),
                None => "the address is".to_owned(),
            };
            let what = if redirects > 0 {
                format!("redirect {redirects}: {what}")
            } else {
                what
            };
            if let Err(refusal) = check_not_this_machine(&addresses, &what, Stage::Resolve) {
                return Hop::Done(FetchOutcome::Refused(refusal));
            }
        }

        let connected = tokio::time::timeout(
            self.config.connect_timeout,
            self.connect(target, &addresses),
        )
        .await;
        let (stream, connected_to) = match connected {
            Err(_) => return timed_out(TimeoutPhase::Connect),
            Ok(Err(ConnectError::Refused(refusal))) => {
                return Hop::Done(FetchOutcome::Refused(refusal));
            }
            Ok(Err(ConnectError::Io(detail))) => return network(detail),
            Ok(Ok(pair)) => pair,
        };

        let io = TokioIo::new(stream);
        let (mut sender, connection) = match hyper::client::conn::http1::handshake(io).await {
            Ok(pair) => pair,
            Err(err) => return network(format!("HTTP handshake failed: {err}")),
        };
        let _connection = AbortOnDrop(tokio::spawn(async move {
            // The connection's own error shows up in the request's result.
            let _ = connection.await;
        }));

        let response = match tokio::time::timeout(
            self.config.read_timeout,
            sender.send_request(request),
        )
        .await
        {
            Err(_) => return timed_out(TimeoutPhase::Read),
            Ok(Err(err)) => return network(format!("HTTP request failed: {err}")),
            Ok(Ok(response)) => response,
        };

        let status = response.status();
        if matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
            && let Some(location) = response.headers().get(http::header::LOCATION)
        {
            return Hop::Redirect(
                status.as_u16(),
                String::from_utf8_lossy(location.as_bytes()).into_owned(),
            );
        }
        if !status.is_success() {
            return Hop::Done(FetchOutcome::HttpStatus {
                status: status.as_u16(),
                url: url_text.clone(),
                redirects,
            });
        }

        let header = |name: http::header::HeaderName| {
            response
                .headers()
                .get(name)
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        };
        let (media_type, charset_label) = match header(http::header::CONTENT_TYPE) {
            Some(value) => parse_content_type(&value),
            None => {
                return Hop::Done(FetchOutcome::Refused(Refusal::new(
                    "FETCH-1",
                    Stage::Content,
                    "the response has no Content-Type; only text types are read",
                )));
            }
        };
        if !is_text_type(&media_type) {
            return Hop::Done(FetchOutcome::Refused(Refusal::new(
                "FETCH-1",
                Stage::Content,
                format!(
                    "content type `{media_type}` is not text; only text, HTML, JSON and XML are read"
                ),
            )));
        }
        let encoding = header(http::header::CONTENT_ENCODING).unwrap_or_default();
        let encoding = encoding.trim().to_ascii_lowercase();

        let body = response
            .into_body()
            .into_data_stream()
            .map_err(io::Error::other);
        let raw = StreamReader::new(body);
        let mut reader: Pin<Box<dyn AsyncRead + Send>> = match encoding.as_str() {
            "" | "identity" => Box::pin(raw),
            "gzip" | "x-gzip" => Box::pin(async_compression::tokio::bufread::GzipDecoder::new(raw)),
            "deflate" => Box::pin(async_compression::tokio::bufread::ZlibDecoder::new(raw)),
            "br" => Box::pin(async_compression::tokio::bufread::BrotliDecoder::new(raw)),
            other => {
                return Hop::Done(FetchOutcome::Refused(Refusal::new(
                    "FETCH-1",
                    Stage::Content,
                    format!("content encoding `{other}` is not supported (gzip, deflate, br)"),
                )));
            }
        };

        let mut body = Vec::new();
        let mut chunk = vec![0u8; READ_CHUNK];
        let mut truncated = false;
        loop {
            let read = match tokio::time::timeout(self.config.read_timeout, reader.read(&mut chunk))
                .await
            {
                Err(_) => return timed_out(TimeoutPhase::Read),
                Ok(Err(err)) => return network(format!("reading the body failed: {err}")),
                Ok(Ok(read)) => read,
            };
            if read == 0 {
                break;
            }
            let room = MAX_BODY_BYTES - body.len();
            if read > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk[..read]);
            if body.len() == MAX_BODY_BYTES {
                // Exactly at the cap: one more byte means the body was cut.
                let mut probe = [0u8; 1];
                match tokio::time::timeout(self.config.read_timeout, reader.read(&mut probe)).await
                {
                    Ok(Ok(0)) => {}
                    Ok(Ok(_)) => truncated = true,
                    Err(_) => return timed_out(TimeoutPhase::Read),
                    Ok(Err(err)) => return network(format!("reading the body failed: {err}")),
                }
                break;
            }
        }

        let (text, charset) = decode_text(&body, charset_label.as_deref(), truncated);
        Hop::Done(FetchOutcome::Page(Page {
            status: status.as_u16(),
            final_url: url_text.clone(),
            content_type: media_type,
            charset,
            text,
            truncated,
            body_bytes: body.len(),
            redirects,
            connected_to,
        }))
    }

    /// Builds the request for `target` and passes it through the checks
    /// made before anything is resolved: the secret door on its target,
    /// every header and the body (BEYOND-6; a credential only to its own
    /// origin, in its own header), then the caller's hop gate.
    fn checked_request(
        &self,
        target: &CheckedUrl,
        kind: RequestKind<'_>,
    ) -> Result<http::Request<RequestBody>, Refusal> {
        let door = &self.config.secrets;
        let url = target.url();
        door.check_text(Part::Url, url.as_str(), true)?;
        let request = build_request(target, kind).map_err(|err| {
            Refusal::new(
                "FETCH-2",
                Stage::Request,
                format!("the request cannot be built: {err}"),
            )
        })?;
        // Pieces of a secret spread over the URL, the headers and the body
        // count together (tui-rpc #12).
        let mut pieces = door.pieces();
        pieces.text(url.as_str(), true);
        let credential = match kind {
            RequestKind::PostJson { credential, body } => {
                pieces.body(body);
                credential.check_destination(url)?;
                // The key itself, whatever the door knows: never in the URL,
                // another header or the body.
                let own = credential.own_door();
                own.check_text(Part::Url, url.as_str(), true)?;
                own.check_body(body)?;
                door.check_body(body)?;
                Some(own)
            }
            RequestKind::PostForm { body } => {
                pieces.body(body);
                door.check_body(body)?;
                None
            }
            RequestKind::Get => None,
        };
        for (name, value) in request.headers() {
            if name == http::header::AUTHORIZATION && credential.is_some() {
                // The one place the declared key may be.
                continue;
            }
            let text = String::from_utf8_lossy(value.as_bytes());
            door.check_text(Part::Header(name.as_str()), &text, false)?;
            pieces.text(&text, false);
            if let Some(own) = &credential {
                own.check_text(Part::Header(name.as_str()), &text, false)?;
            }
        }
        pieces.finish()?;
        if let Some(gate) = &self.config.hop_gate {
            gate(url.as_str())?;
        }
        Ok(request)
    }

    /// Dials the checked addresses in order until one connects, then wraps
    /// TLS verified against the URL's host. Each address is checked once more
    /// right before it is dialled.
    async fn connect(
        &self,
        target: &CheckedUrl,
        addresses: &[IpAddr],
    ) -> Result<(BoxedStream, SocketAddr), ConnectError> {
        let port = target.port();
        let mut last_error = String::from("no address to connect to");
        let mut dialled = None;
        let operator = self
            .config
            .operator_host
            .as_ref()
            .filter(|_| target.is_operator_host());
        for ip in addresses {
            // The operator's host is judged by the operator policy (its own
            // machine and networks, never metadata or link-local).
            let checked = match operator {
                Some(_) => check_operator_ip(*ip),
                None => check_ip(*ip),
            };
            if let Err(refusal) = checked {
                return Err(ConnectError::Refused(Refusal::new(
                    "BEYOND-1",
                    Stage::Dial,
                    refusal.to_string(),
                )));
            }
            let addr = SocketAddr::new(dial_form(*ip), port);
            let attempt = match operator {
                Some(operator) => self.dialer.dial_operator(addr, operator).await,
                None => self.dialer.dial(addr).await,
            };
            match attempt {
                Ok(stream) => {
                    dialled = Some((stream, addr));
                    break;
                }
                Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {
                    return Err(ConnectError::Refused(Refusal::new(
                        "BEYOND-1",
                        Stage::Dial,
                        err.to_string(),
                    )));
                }
                Err(err) => last_error = format!("connecting to {addr} failed: {err}"),
            }
        }
        let Some((stream, addr)) = dialled else {
            return Err(ConnectError::Io(last_error));
        };
        if !target.is_https() {
            return Ok((stream, addr));
        }
        let server_name = match (target.name(), target.literal_address()) {
            (Some(name), _) => ServerName::try_from(name.to_owned()).map_err(|err| {
                ConnectError::Io(format!("`{name}` is not a TLS server name: {err}"))
            })?,
            (None, Some(ip)) => ServerName::IpAddress(ip.into()),
            (None, None) => return Err(ConnectError::Io("the URL has no host".to_owned())),
        };
        let connector = tokio_rustls::TlsConnector::from(self.config.tls.clone());
        let tls = connector
            .connect(server_name, stream)
            .await
            .map_err(|err| ConnectError::Io(format!("TLS with {addr} failed: {err}")))?;
        Ok((Box::new(tls), addr))
    }
}

enum ConnectError {
    Refused(Refusal),
    Io(String),
}

/// The request body type: nothing for a GET, the bytes for a POST.
type RequestBody = Either<Empty<Bytes>, Full<Bytes>>;

/// The three request shapes ploy sends, with fixed headers and nothing else
/// (no Cookie, no Referer, no proxy headers): a GET (no Authorization), a
/// JSON POST with exactly one Authorization header, marked sensitive, or a
/// form POST (no Authorization).
fn build_request(
    target: &CheckedUrl,
    kind: RequestKind<'_>,
) -> Result<http::Request<RequestBody>, http::Error> {
    let url = target.url();
    let path = &url[Position::BeforePath..Position::AfterQuery];
    let path = if path.is_empty() { "/" } else { path };
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    match kind {
        RequestKind::Get => http::Request::builder()
            .method(http::Method::GET)
            .uri(path)
            .header(http::header::HOST, host)
            .header(http::header::USER_AGENT, USER_AGENT)
            .header(http::header::ACCEPT, ACCEPT)
            .header(http::header::ACCEPT_ENCODING, ACCEPT_ENCODING)
            .header(http::header::CONNECTION, "close")
            .body(Either::Left(Empty::new())),
        RequestKind::PostJson { credential, body } => {
            let mut authorization =
                http::HeaderValue::try_from(format!("Bearer {}", credential.token()))?;
            authorization.set_sensitive(true);
            http::Request::builder()
                .method(http::Method::POST)
                .uri(path)
                .header(http::header::HOST, host)
                .header(http::header::USER_AGENT, USER_AGENT)
                .header(http::header::ACCEPT, "application/json")
                .header(http::header::CONTENT_TYPE, "application/json")
                .header(http::header::AUTHORIZATION, authorization)
                .header(http::header::CONTENT_LENGTH, body.len())
                .header(http::header::CONNECTION, "close")
                .body(Either::Right(Full::new(body.clone())))
        }
        RequestKind::PostForm { body } => http::Request::builder()
            .method(http::Method::POST)
            .uri(path)
            .header(http::header::HOST, host)
            .header(http::header::USER_AGENT, USER_AGENT)
            .header(http::header::ACCEPT, ACCEPT)
            .header(http::header::ACCEPT_ENCODING, ACCEPT_ENCODING)
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(http::header::CONTENT_LENGTH, body.len())
            .header(http::header::CONNECTION, "close")
            .body(Either::Right(Full::new(body.clone()))),
    }
}

/// The refusal of a POST body of `len` bytes over [`MAX_POST_BODY_BYTES`]
/// (EGRESS-2), or `None`.
fn over_post_cap(len: usize, what: &str, why: &str) -> Option<FetchOutcome> {
    (len > MAX_POST_BODY_BYTES).then(|| {
        FetchOutcome::Refused(Refusal::new(
            "EGRESS-2",
            Stage::Request,
            format!("{what} is {len} bytes; at most {MAX_POST_BODY_BYTES} are sent {why}"),
        ))
    })
}

/// A bearer token a header can carry: visible ASCII, bounded.
fn bearer_is_usable(bearer: &str) -> bool {
    !bearer.is_empty()
        && bearer.len() <= MAX_BEARER_CHARS
        && bearer.bytes().all(|b| b.is_ascii_graphic())
}

/// Removes every copy of `secret` from the text an outcome carries (a
/// server may echo the key back in its body or an error): A-1.
fn without_secret(outcome: FetchOutcome, secret: &str) -> FetchOutcome {
    const SHOWN: &str = "[REDACTED]";
    let clean = |text: String| {
        if text.contains(secret) {
            text.replace(secret, SHOWN)
        } else {
            text
        }
    };
    match outcome {
        FetchOutcome::Page(page) => FetchOutcome::Page(Page {
            text: clean(page.text),
            final_url: clean(page.final_url),
            ..page
        }),
        FetchOutcome::Refused(refusal) => FetchOutcome::Refused(Refusal {
            reason: clean(refusal.reason),
            ..refusal
        }),
        FetchOutcome::HttpStatus {
            status,
            url,
            redirects,
        } => FetchOutcome::HttpStatus {
            status,
            url: clean(url),
            redirects,
        },
        FetchOutcome::NetworkError { url, detail } => FetchOutcome::NetworkError {
            url: clean(url),
            detail: clean(detail),
        },
        FetchOutcome::TimedOut { phase, url } => FetchOutcome::TimedOut {
            phase,
            url: clean(url),
        },
    }
}

/// Splits `type/subtype; charset=x` into the lowercase media type and the
/// charset label, if any.
fn parse_content_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let charset = parts.find_map(|param| {
        let (key, val) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| val.trim().trim_matches('"').to_owned())
    });
    (media, charset)
}

/// FETCH-1: only text is read.
fn is_text_type(media: &str) -> bool {
    media.starts_with("text/")
        || media == "application/json"
        || media == "application/xml"
        || media == "application/xhtml+xml"
        || (media.starts_with("application/")
            && (media.ends_with("+json") || media.ends_with("+xml")))
}

/// Decodes the body with the declared charset (a BOM wins; unknown labels
/// fall back to UTF-8). A body cut at the cap drops a trailing partial
/// UTF-8 sequence instead of showing a replacement character.
fn decode_text(body: &[u8], label: Option<&str>, truncated: bool) -> (String, String) {
    let declared = label
        .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    let mut bytes = body;
    if truncated
        && declared == encoding_rs::UTF_8
        && let Err(err) = std::str::from_utf8(bytes)
        && err.error_len().is_none()
    {
        bytes = &bytes[..err.valid_up_to()];
    }
    let (text, used, _) = declared.decode(bytes);
    (text.into_owned(), used.name().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: FETCH-1
    #[test]
    fn only_text_types_are_read() {
        for ok in [
            "text/html",
            "text/plain",
            "application/json",
            "application/ld+json",
            "application/xml",
            "application/atom+xml",
            "application/xhtml+xml",
        ] {
            assert!(is_text_type(ok), "{ok}");
        }
        for bad in [
            "application/octet-stream",
            "image/png",
            "application/pdf",
            "application/zip",
            "video/mp4",
            "application/x-sh",
            "",
            "texthtml",
        ] {
            assert!(!is_text_type(bad), "{bad}");
        }
    }

    // proves: FETCH-1
    #[test]
    fn charset_is_decoded_explicitly() {
        let (media, label) = parse_content_type("Text/HTML; Charset=\"ISO-8859-1\"");
        assert_eq!(media, "text/html");
        let (text, used) = decode_text(&[0x63, 0x61, 0x66, 0xe9], label.as_deref(), false);
        assert_eq!(text, "café");
        assert_eq!(used, "windows-1252");
        let (cut, _) = decode_text("ab€".as_bytes()[..3].as_ref(), None, true);
        assert_eq!(cut, "ab");
    }
}
