//! `ploy keys`' side of the panel: the same routes and the same gate as the
//! page (Origin, Host, bearer; nonces, lockout and audit included), over a
//! loopback connection to the running service. Rotation of the admin token
//! uses the service API and its password instead (the token may be lost).

use std::net::SocketAddr;
use std::path::Path;

use bytes::Bytes;
use http::{Method, StatusCode, header};
use serde::Serialize;

use super::gate::DENIED_BODY;
use super::keys::{KeyView, Provider};
use super::nonce::NonceAction;
use super::{AdminToken, KeyList, NonceAnswer};
use crate::client::{ClientError, api_addr, exchange, runtime};
use crate::service_file;

/// Why a `ploy keys` call failed.
#[derive(Debug, thiserror::Error)]
pub enum PanelClientError {
    /// The service could not be found or reached.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The panel's one denial (ADMIN-2): it does not say why, on purpose.
    #[error(
        "the key panel refused the request (ADMIN-2). Either the admin token is wrong, or the \
         panel is locked after 100 failed tokens, or it is not mounted (public bind)"
    )]
    Denied,
    /// The panel answered with an error after authentication.
    #[error("the key panel refused: {message} (HTTP {status})")]
    Refused {
        /// The status.
        status: u16,
        /// The panel's message.
        message: String,
    },
}

impl PanelClientError {
    /// What a person can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            PanelClientError::Client(_) => "start the service with `ploy serve`",
            PanelClientError::Denied => {
                "check PLOY_ADMIN_TOKEN; `ploy keys admin-token --rotate` makes a new token and ends a lockout"
            }
            PanelClientError::Refused { .. } => "",
        }
    }
}

/// A connection to the running service's panel with an admin token.
#[derive(Debug)]
pub struct PanelClient {
    addr: SocketAddr,
    pid: u32,
    token: AdminToken,
}

#[derive(Serialize)]
struct AddBody<'a> {
    provider: Provider,
    key: &'a str,
}

#[derive(Serialize)]
struct NonceBody<'a> {
    action: NonceAction,
    mask: &'a str,
}

#[derive(Serialize)]
struct RemoveBody<'a> {
    mask: &'a str,
    nonce: &'a str,
}

#[derive(Serialize)]
struct ReplaceBody<'a> {
    mask: &'a str,
    key: &'a str,
    nonce: &'a str,
}

fn running(state_dir: &Path) -> Result<service_file::ServiceFile, ClientError> {
    match service_file::find_running(state_dir)? {
        Some((_, file)) => Ok(file),
        None => Err(ClientError::NotRunning {
            state_dir: state_dir.to_path_buf(),
        }),
    }
}

fn error_message(body: &Bytes) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
        .unwrap_or_else(|| String::from_utf8_lossy(body).chars().take(300).collect())
}

impl PanelClient {
    /// Finds the running service in `state_dir`; `token` is the admin token.
    pub fn connect(state_dir: &Path, token: AdminToken) -> Result<PanelClient, ClientError> {
        let file = running(state_dir)?;
        Ok(PanelClient {
            addr: api_addr(&file),
            pid: file.pid,
            token,
        })
    }

    fn call<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        route: &str,
        body: Option<Vec<u8>>,
    ) -> Result<T, PanelClientError> {
        let mut headers = vec![
            (
                header::AUTHORIZATION,
                format!("Bearer {}", self.token.expose()),
            ),
            // The gate wants the panel's own origin on every change.
            (header::ORIGIN, format!("http://{}", self.addr)),
        ];
        if body.is_some() {
            headers.push((header::CONTENT_TYPE, "application/json".into()));
        }
        let path = format!("/__keys/api/{route}");
        let (status, answer) = runtime()?
            .block_on(exchange(self.addr, method, &path, &headers, body))
            .map_err(|reason| ClientError::Unreachable {
                pid: self.pid,
                addr: self.addr,
                reason,
            })?;
        if status == StatusCode::UNAUTHORIZED && answer.as_ref() == DENIED_BODY.as_bytes() {
            return Err(PanelClientError::Denied);
        }
        if !status.is_success() {
            return Err(PanelClientError::Refused {
                status: status.as_u16(),
                message: error_message(&answer),
            });
        }
        serde_json::from_slice(&answer).map_err(|e| PanelClientError::Refused {
            status: status.as_u16(),
            message: format!("the answer does not parse: {e}"),
        })
    }

    fn post<T: serde::de::DeserializeOwned>(
        &self,
        route: &str,
        body: &impl Serialize,
    ) -> Result<T, PanelClientError> {
        let bytes = serde_json::to_vec(body).map_err(|e| PanelClientError::Refused {
            status: 0,
            message: e.to_string(),
        })?;
        self.call(Method::POST, route, Some(bytes))
    }

    /// `GET /__keys/api/keys`.
    pub fn list(&self) -> Result<Vec<KeyView>, PanelClientError> {
        self.call::<KeyList>(Method::GET, "keys", None)
            .map(|list| list.keys)
    }

    /// `POST /__keys/api/keys`.
    pub fn add(&self, provider: Provider, key: &str) -> Result<KeyView, PanelClientError> {
        self.post("keys", &AddBody { provider, key })
    }

    fn nonce(&self, action: NonceAction, mask: &str) -> Result<String, PanelClientError> {
        self.post::<NonceAnswer>("nonce", &NonceBody { action, mask })
            .map(|answer| answer.nonce)
    }

    /// A nonce, then `POST /__keys/api/remove`.
    pub fn remove(&self, mask: &str) -> Result<KeyView, PanelClientError> {
        let nonce = self.nonce(NonceAction::Remove, mask)?;
        self.post(
            "remove",
            &RemoveBody {
                mask,
                nonce: &nonce,
            },
        )
    }

    /// A nonce, then `POST /__keys/api/replace`.
    pub fn replace(&self, mask: &str, key: &str) -> Result<KeyView, PanelClientError> {
        let nonce = self.nonce(NonceAction::Replace, mask)?;
        self.post(
            "replace",
            &ReplaceBody {
                mask,
                key,
                nonce: &nonce,
            },
        )
    }
}

/// What `POST /v1/admin-token/rotate` answers.
#[derive(Clone, serde::Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RotateAnswer {
    /// The new admin token (shown once).
    pub admin_token: String,
}

/// `ploy keys admin-token --rotate`: asks the running service, with the
/// service password from its service file, for a new admin token.
pub fn rotate_admin_token(state_dir: &Path) -> Result<AdminToken, PanelClientError> {
    let file = running(state_dir)?;
    let addr = api_addr(&file);
    let headers = [(header::AUTHORIZATION, format!("Bearer {}", file.password))];
    let (status, body) = runtime()?
        .block_on(exchange(
            addr,
            Method::POST,
            "/v1/admin-token/rotate",
            &headers,
            None,
        ))
        .map_err(|reason| ClientError::Unreachable {
            pid: file.pid,
            addr,
            reason,
        })?;
    if !status.is_success() {
        return Err(PanelClientError::Refused {
            status: status.as_u16(),
            message: error_message(&body),
        });
    }
    serde_json::from_slice::<RotateAnswer>(&body)
        .map(|answer| AdminToken(answer.admin_token))
        .map_err(|e| PanelClientError::Refused {
            status: status.as_u16(),
            message: format!("the answer does not parse: {e}"),
        })
}
