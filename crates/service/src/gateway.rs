//! The model gateway (GW-1..GW-4).
//!
//! Only `POST /v1/chat/completions` with the gateway token passes; every
//! other request (wrong Host, any Origin, other method, other path, query,
//! missing or wrong token) gets [`GATEWAY_DENIED_BODY`] with 403, byte for
//! byte. A passing request's JSON body is forwarded to the loopback upstream
//! with none of the client's headers; the answer streams back chunk by chunk.
//!
//! The gateway runs inside `ploy serve`, or alone for one run of the agent
//! ([`LocalGateway`], when no service is running): the same handler, the
//! same checks, a token made for that run.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::{Frame, Incoming};

use crate::ServiceError;
use crate::api::{error, full};
use crate::auth::{HostAllowlist, SecretDigest, bearer, new_secret};
use crate::config::ServiceConfig;
use crate::server::{Body, HeadLimits, accept_loop};
use ploy_model::{LoopbackUpstream, UpstreamError, UpstreamTimeouts};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The only path the gateway serves.
pub const GATEWAY_PATH: &str = "/v1/chat/completions";

/// Header carrying the gateway token (ploy-model's client sends it).
pub const TOKEN_HEADER: &str = ploy_model::GATEWAY_TOKEN_HEADER;

/// The one body of every gateway refusal, byte for byte.
pub const GATEWAY_DENIED_BODY: &str = "{\"error\":{\"type\":\"ploy_refused\",\"message\":\"GW-2/GW-3: refused. The ploy gateway accepts only POST /v1/chat/completions from programs started by `ploy exec`, carrying the gateway token.\"}}";

fn denied() -> Response<Body> {
    full(
        StatusCode::FORBIDDEN,
        "application/json",
        Bytes::from_static(GATEWAY_DENIED_BODY.as_bytes()),
    )
}

/// What the gateway answers with: its token (as a digest), the Host values
/// it accepts, and where and how it forwards.
pub(crate) struct GatewayState {
    token: SecretDigest,
    hosts: HostAllowlist,
    body_limit: usize,
    model: Option<String>,
    upstream: LoopbackUpstream,
    timeouts: UpstreamTimeouts,
}

impl GatewayState {
    /// The gateway of `config`, listening on `bound`, accepting `token`.
    pub(crate) fn new(config: &ServiceConfig, token: SecretDigest, bound: SocketAddr) -> Self {
        Self {
            token,
            hosts: HostAllowlist::for_listener(bound),
            body_limit: config.body_limit,
            model: config.model.clone(),
            upstream: config.upstream.clone(),
            timeouts: UpstreamTimeouts {
                connect: config.connect_timeout,
                first_byte: config.first_byte_timeout,
                idle: config.idle_timeout,
            },
        }
    }
}

/// True when the request carries the token: in `x-ploy-token` (exactly one
/// such header), or, when that header is absent, as `Authorization: Bearer`.
fn token_ok(state: &GatewayState, request: &Request<Incoming>) -> bool {
    let headers = request.headers();
    let mut values = headers.get_all(TOKEN_HEADER).iter();
    match (values.next(), values.next()) {
        (Some(value), None) => state.token.matches(value.as_bytes()),
        (Some(_), Some(_)) => false,
        (None, _) => bearer(headers).is_some_and(|given| state.token.matches(given)),
    }
}

pub(crate) async fn handle(state: Arc<GatewayState>, request: Request<Incoming>) -> Response<Body> {
    let allowed = state.hosts.host_ok(request.uri(), request.headers())
        // No browser page is ever a legitimate gateway client: any Origin is refused.
        && request.headers().get(header::ORIGIN).is_none()
        && request.method() == Method::POST
        && request.uri().path() == GATEWAY_PATH
        && request.uri().query().is_none()
        && token_ok(&state, &request);
    if !allowed {
        return denied();
    }
    let limit = state.body_limit;
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return too_large(limit);
    }
    let body = match Limited::new(request.into_body(), limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return too_large(limit),
    };
    let mut parsed: serde_json::Value = match serde_json::from_slice(&body) {
        Ok(value @ serde_json::Value::Object(_)) => value,
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                "the gateway forwards only a JSON object body (an OpenAI chat completion request)",
            );
        }
    };
    let forwarded = match (&state.model, parsed.as_object_mut()) {
        // Pin the configured model: a program cannot pick another one.
        (Some(model), Some(object)) => {
            object.insert("model".into(), serde_json::Value::String(model.clone()));
            match serde_json::to_vec(&parsed) {
                Ok(bytes) => Bytes::from(bytes),
                Err(_) => {
                    return error(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "internal",
                        "could not encode",
                    );
                }
            }
        }
        _ => body,
    };
    match state.upstream.post_json(forwarded, state.timeouts).await {
        Ok(upstream) => {
            let stream = upstream.body.map(|chunk| chunk.map(Frame::data));
            let mut response = Response::new(BodyExt::boxed_unsync(StreamBody::new(stream)));
            *response.status_mut() = upstream.status;
            let headers = response.headers_mut();
            if let Some(content_type) = upstream.content_type {
                headers.insert(header::CONTENT_TYPE, content_type);
            }
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
            response
        }
        Err(e @ UpstreamError::Timeout { .. }) => {
            tracing::warn!(error = %e, "upstream timeout");
            error(
                StatusCode::GATEWAY_TIMEOUT,
                "upstream_timeout",
                &format!("GW-1: {e}; check the model server"),
            )
        }
        Err(e) => {
            tracing::warn!(error = %e, "upstream unavailable");
            error(
                StatusCode::BAD_GATEWAY,
                "upstream_unavailable",
                &format!("GW-1: {e}; start the model server or fix service.upstream"),
            )
        }
    }
}

fn too_large(limit: usize) -> Response<Body> {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "invalid_request_error",
        &format!(
            "the request body is over the gateway's limit of {limit} bytes (service.body_limit_bytes)"
        ),
    )
}

/// A gateway alone, for one run of the agent when no `ploy serve` is
/// running: the same handler and checks as the service's gateway (GW-1..4),
/// on 127.0.0.1, with a token made for this run and held only in memory.
/// Stops when dropped or [`LocalGateway::shutdown`].
pub struct LocalGateway {
    addr: SocketAddr,
    token: String,
    shutdown: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for LocalGateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("LocalGateway")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// A gateway token (GW-4) made before its [`LocalGateway`] starts: a
/// 256-bit secret from the operating system's random source; only
/// [`GatewayToken::new`] makes one, so a gateway never runs with a token
/// anyone chose.
pub struct GatewayToken(String);

impl std::fmt::Debug for GatewayToken {
    // A secret: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GatewayToken(..)")
    }
}

impl GatewayToken {
    /// A new random token.
    pub fn new() -> Result<GatewayToken, ServiceError> {
        new_secret()
            .map(GatewayToken)
            .map_err(|e| ServiceError::Random(e.to_string()))
    }

    /// The token's text, to teach a redactor before the gateway starts.
    /// A secret: never print or log it.
    pub fn secret(&self) -> &str {
        &self.0
    }
}

impl LocalGateway {
    /// Start a gateway with `config`'s gateway settings (listen address,
    /// upstream, pinned model, body limit, timeouts). `redactor`, when
    /// given, learns the token first, so no log line can carry it. Must be
    /// called inside a Tokio runtime.
    pub async fn start(
        config: &ServiceConfig,
        redactor: Option<&ploy_secrets::SharedRedactor>,
    ) -> Result<LocalGateway, ServiceError> {
        LocalGateway::start_with_token(config, GatewayToken::new()?, redactor).await
    }

    /// [`LocalGateway::start`] with a token made beforehand, so a redactor
    /// knowing it can be built while the gateway starts (`ploy -p`, issue
    /// 11).
    pub async fn start_with_token(
        config: &ServiceConfig,
        token: GatewayToken,
        redactor: Option<&ploy_secrets::SharedRedactor>,
    ) -> Result<LocalGateway, ServiceError> {
        let GatewayToken(token) = token;
        if let Some(redactor) = redactor
            && !redactor.add_secrets([token.as_str()]).is_empty()
        {
            return Err(ServiceError::Internal(
                "REDACT-1: the log redactor refused the gateway token".into(),
            ));
        }
        let listener = TcpListener::bind(config.gateway_listen)
            .await
            .map_err(|source| ServiceError::Bind {
                addr: config.gateway_listen,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| ServiceError::Bind {
            addr: config.gateway_listen,
            source,
        })?;
        let state = Arc::new(GatewayState::new(config, SecretDigest::of(&token), addr));
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(accept_loop(
            listener,
            HeadLimits::of(config),
            shutdown.clone(),
            move |req| handle(state.clone(), req),
        ));
        Ok(LocalGateway {
            addr,
            token,
            shutdown,
            task: Some(task),
        })
    }

    /// The gateway's address (127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The chat-completions URL a client posts to.
    pub fn chat_url(&self) -> String {
        format!("http://{}{GATEWAY_PATH}", self.addr)
    }

    /// The token a client sends in `x-ploy-token` (GW-3). A secret: never
    /// print or log it.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Stop listening and end open connections.
    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for LocalGateway {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}
