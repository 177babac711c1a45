//! The service API (documented in docs/api.md).
//!
//! Every request is checked in this fixed order, and every failure gets the
//! same bytes ([`API_DENIED_BODY`], 403):
//! 1. Host is in the allowlist (loopback names/addresses with the API port);
//! 2. Origin, when present, is the service's own;
//! 3. `Authorization: Bearer <service password>` (SHA-256 digests compared in
//!    constant time).
//!
//! No CORS header is ever sent, so no web page can read an answer.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use ploy_policy::TaintMark;
use ploy_store::{ConversationSummary, Message, StoreError};
use serde::{Deserialize, Serialize};

use crate::auth::bearer;
use crate::server::{Body, Shared};

/// The one body of every API refusal (host, origin or password), byte for byte.
pub const API_DENIED_BODY: &str = "{\"error\":{\"type\":\"ploy_refused\",\"message\":\"SVC-1: refused. The ploy service API answers only local clients that send a loopback Host, no foreign Origin, and the service password from the service file.\"}}";

/// Largest API request body (conversation titles are small).
const API_BODY_LIMIT: usize = 64 * 1024;

/// `GET /v1/health`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Health {
    /// Always `"ok"`.
    pub status: String,
    /// The service's pid.
    pub pid: u32,
    /// The API port.
    pub api_port: u16,
    /// The gateway port.
    pub gateway_port: u16,
    /// The store's schema version.
    pub store_schema: u32,
}

/// `POST /v1/conversations` request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateConversation {
    /// The title (1-200 characters).
    pub title: String,
}

/// `GET /v1/conversations/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConversationDetail {
    /// The conversation.
    pub conversation: ConversationSummary,
    /// Its `ploy_tainted` marks (TAINT-2), oldest first.
    pub ploy_tainted: Vec<TaintMark>,
    /// Its messages, oldest first.
    pub messages: Vec<Message>,
}

/// `POST /v1/exec-token`: what `ploy exec` puts in the child's environment.
#[derive(Clone, Serialize, Deserialize)]
pub struct ExecToken {
    /// `OPENAI_BASE_URL`: `http://127.0.0.1:<gateway port>/v1`.
    pub base_url: String,
    /// `OPENAI_API_KEY`: the gateway token (GW-4). Never log it.
    pub token: String,
    /// The model the gateway pins into every request (`service.model` /
    /// `ploy serve --model`), if any: a client's own choice is replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl std::fmt::Debug for ExecToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecToken")
            .field("base_url", &self.base_url)
            .field("token", &"[REDACTED]")
            .field("model", &self.model)
            .finish()
    }
}

pub(crate) fn full(status: StatusCode, content_type: &'static str, bytes: Bytes) -> Response<Body> {
    let mut response = Response::new(
        Full::new(bytes)
            .map_err(|never: std::convert::Infallible| match never {})
            .boxed_unsync(),
    );
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}

pub(crate) fn json<T: Serialize>(status: StatusCode, value: &T) -> Response<Body> {
    match serde_json::to_vec(value) {
        Ok(bytes) => full(status, "application/json", Bytes::from(bytes)),
        Err(_) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "could not encode the answer",
        ),
    }
}

/// A JSON error in the OpenAI shape: `{"error":{"type":..,"message":..}}`.
pub(crate) fn error(status: StatusCode, kind: &str, message: &str) -> Response<Body> {
    json(
        status,
        &serde_json::json!({ "error": { "type": kind, "message": message } }),
    )
}

fn denied() -> Response<Body> {
    full(
        StatusCode::FORBIDDEN,
        "application/json",
        Bytes::from_static(API_DENIED_BODY.as_bytes()),
    )
}

pub(crate) async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    // The key panel has its own gate (Origin → Host → admin token, 401).
    // Unmounted (public bind), its paths fall through to the API below and
    // answer like any unknown path (ADMIN-10).
    if let Some(panel) = &shared.panel
        && crate::panel::is_panel_path(request.uri().path())
    {
        return crate::panel::handle(panel, request).await;
    }
    // The fixed order: Host, then Origin, then the password.
    if !shared.api_hosts.host_ok(request.uri(), request.headers())
        || !shared.api_hosts.origin_ok(request.headers())
        || !bearer(request.headers()).is_some_and(|given| shared.password.matches(given))
    {
        return denied();
    }
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let segments: Vec<&str> = path.split('/').collect();
    match (&method, segments.as_slice()) {
        (&Method::GET, ["", "v1", "health"]) => health(&shared).await,
        (&Method::GET, ["", "v1", "conversations"]) => {
            let store = shared.store.clone();
            store_call(move || store.lock().map_err(poisoned)?.list_conversations()).await
        }
        (&Method::POST, ["", "v1", "conversations"]) => create(&shared, request).await,
        (&Method::GET, ["", "v1", "conversations", id]) if !id.is_empty() => {
            let store = shared.store.clone();
            let id = id.to_string();
            store_call(move || {
                let store = store.lock().map_err(poisoned)?;
                Ok(ConversationDetail {
                    conversation: store.conversation(&id)?,
                    ploy_tainted: store.marks(&id)?,
                    messages: store.messages(&id)?,
                })
            })
            .await
        }
        (&Method::POST, ["", "v1", "exec-token"]) => exec_token(&shared),
        (&Method::POST, ["", "v1", "research"]) => crate::research::handle(shared, request).await,
        (&Method::POST, ["", "v1", "admin-token", "rotate"]) => rotate_admin_token(&shared).await,
        _ => error(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such API route; see docs/api.md",
        ),
    }
}

async fn health(shared: &Shared) -> Response<Body> {
    let store = shared.store.clone();
    let version = tokio::task::spawn_blocking(move || {
        store
            .lock()
            .map_err(poisoned)
            .and_then(|s| s.file_schema_version())
    })
    .await;
    match version {
        Ok(Ok(store_schema)) => json(
            StatusCode::OK,
            &Health {
                status: "ok".into(),
                pid: shared.pid,
                api_port: shared.api_addr.port(),
                gateway_port: shared.gateway_addr.port(),
                store_schema,
            },
        ),
        Ok(Err(e)) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "store_error",
            &e.to_string(),
        ),
        Err(_) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "health check failed",
        ),
    }
}

/// Reads a JSON API body of at most 64 KiB into `T` (unknown fields are
/// refused by `T`); the error is the answer to send.
pub(crate) async fn read_json_body<T: serde::de::DeserializeOwned>(
    request: Request<Incoming>,
) -> Result<T, Response<Body>> {
    let body = match Limited::new(request.into_body(), API_BODY_LIMIT)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return Err(error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                "the request body is over 64 KiB",
            ));
        }
    };
    serde_json::from_slice(&body).map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            &format!("the request body does not parse (see docs/api.md): {e}"),
        )
    })
}

async fn create(shared: &Shared, request: Request<Incoming>) -> Response<Body> {
    let create: CreateConversation = match read_json_body(request).await {
        Ok(create) => create,
        Err(answer) => return answer,
    };
    let length = create.title.chars().count();
    if length == 0 || length > 200 {
        return error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "title must be 1-200 characters",
        );
    }
    let store = shared.store.clone();
    let response = store_call(move || {
        store
            .lock()
            .map_err(poisoned)?
            .create_conversation(&create.title)
    })
    .await;
    if response.status() == StatusCode::OK {
        let (mut parts, body) = response.into_parts();
        parts.status = StatusCode::CREATED;
        return Response::from_parts(parts, body);
    }
    response
}

fn exec_token(shared: &Shared) -> Response<Body> {
    // GW-1/ADMIN-10: on a public bind the gateway's token is never handed out.
    if !shared.api_addr.ip().is_loopback() {
        return error(
            StatusCode::FORBIDDEN,
            "ploy_refused",
            "GW-4: the gateway token is only handed out on a loopback API bind",
        );
    }
    tracing::info!("gateway token handed to a local client (ploy exec)");
    json(
        StatusCode::OK,
        &ExecToken {
            base_url: format!("http://{}/v1", shared.gateway_addr),
            token: shared.gateway_token.clone(),
            model: shared.config.model.clone(),
        },
    )
}

/// `POST /v1/admin-token/rotate` (ADMIN-3): a new admin token for the key
/// panel, shown once in the answer; the old one, its nonces and any lockout
/// end. Behind the service password, so a locked-out operator can recover.
async fn rotate_admin_token(shared: &Shared) -> Response<Body> {
    let Some(panel) = shared.panel.clone() else {
        return error(
            StatusCode::CONFLICT,
            "panel_not_mounted",
            "ADMIN-10: the key panel is not mounted on a public bind, so there is no admin token to rotate",
        );
    };
    match tokio::task::spawn_blocking(move || panel.rotate("service-api")).await {
        Ok(Ok(token)) => json(
            StatusCode::OK,
            &crate::panel::client::RotateAnswer {
                admin_token: token.expose().to_owned(),
            },
        ),
        Ok(Err(e)) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "rotation_failed",
            &format!("the admin token was not rotated (the old one still works): {e}"),
        ),
        Err(_) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "rotation failed",
        ),
    }
}

fn poisoned<T>(_: std::sync::PoisonError<T>) -> StoreError {
    StoreError::Other {
        path: "ploy.db".into(),
        reason: "the store lock was poisoned by an earlier panic; restart the service".into(),
    }
}

async fn store_call<T, F>(work: F) -> Response<Body>
where
    T: Serialize + Send + 'static,
    F: FnOnce() -> Result<T, StoreError> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(value)) => json(StatusCode::OK, &value),
        Ok(Err(StoreError::NoSuchConversation { id })) => error(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("no conversation with id {id:?}"),
        ),
        Ok(Err(e)) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "store_error",
            &e.to_string(),
        ),
        Err(_) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "store task failed",
        ),
    }
}
