//! The model gateway (GW-1..GW-4).
//!
//! Only `POST /v1/chat/completions` with the gateway token passes; every
//! other request (wrong Host, any Origin, other method, other path, query,
//! missing or wrong token) gets [`GATEWAY_DENIED_BODY`] with 403, byte for
//! byte. A passing request's JSON body is forwarded to the loopback upstream
//! with none of the client's headers; the answer streams back chunk by chunk.

use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::{Frame, Incoming};

use crate::api::{error, full};
use crate::auth::bearer;
use crate::server::{Body, Shared};
use ploy_model::{UpstreamError, UpstreamTimeouts};

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

/// True when the request carries the token: in `x-ploy-token` (exactly one
/// such header), or, when that header is absent, as `Authorization: Bearer`.
fn token_ok(shared: &Shared, request: &Request<Incoming>) -> bool {
    let headers = request.headers();
    let mut values = headers.get_all(TOKEN_HEADER).iter();
    match (values.next(), values.next()) {
        (Some(value), None) => shared.gateway_token_digest.matches(value.as_bytes()),
        (Some(_), Some(_)) => false,
        (None, _) => {
            bearer(headers).is_some_and(|given| shared.gateway_token_digest.matches(given))
        }
    }
}

pub(crate) async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    let allowed = shared.gateway_hosts.host_ok(request.uri(), request.headers())
        // No browser page is ever a legitimate gateway client: any Origin is refused.
        && request.headers().get(header::ORIGIN).is_none()
        && request.method() == Method::POST
        && request.uri().path() == GATEWAY_PATH
        && request.uri().query().is_none()
        && token_ok(&shared, &request);
    if !allowed {
        return denied();
    }
    let limit = shared.config.body_limit;
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
    let forwarded = match (&shared.config.model, parsed.as_object_mut()) {
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
    let timeouts = UpstreamTimeouts {
        connect: shared.config.connect_timeout,
        first_byte: shared.config.first_byte_timeout,
        idle: shared.config.idle_timeout,
    };
    match shared.config.upstream.post_json(forwarded, timeouts).await {
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
