//! The key panel at `/__keys` (ADMIN-1..ADMIN-12, STATE-1): a control plane
//! for search API keys on the service's API listener, with its own gate.
//!
//! * [`gate`]: Origin → Host → bearer, byte-identical 401 denials, lockout.
//! * [`keys`]: the keys, in memory only.
//! * [`nonce`]: confirmation nonces for removals and replacements.
//! * [`files`]: `state.json` (the admin token's digest) and `audit.log`.
//! * [`page`]: the HTML page, its script and its CSP.
//! * [`client`]: `ploy keys`' side (the same routes, the same gate).
//!
//! Routes (documented in docs/api.md): `GET /__keys` (the page, Host check
//! only); `GET|POST /__keys/api/keys`, `POST /__keys/api/nonce`,
//! `POST /__keys/api/remove`, `POST /__keys/api/replace` (the full gate).
//! On a public bind none of this is mounted (ADMIN-10).

pub mod client;
pub mod files;
pub mod gate;
pub mod keys;
pub mod nonce;
pub mod page;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use ploy_secrets::SharedRedactor;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::api::full;
use crate::auth::{HostAllowlist, new_secret};
use crate::server::Body;
use files::{AdminState, AuditLog, AuditRecord, PanelFileError};
use gate::{DENIED_BODY, Gate, Refusal};
use keys::{KeyError, KeyStore, KeyView, PendingChange, Provider};
use nonce::{NONCE_TTL, NonceAction, NonceError, NonceStore};

/// The page's path.
pub const PAGE_PATH: &str = "/__keys";
/// Largest request body the panel reads.
pub const BODY_LIMIT: usize = 16 * 1024;

/// Time as the panel sees it; a seam so tests can expire nonces without
/// waiting (B-4).
pub trait Clock: Send + Sync {
    /// Monotonic time since an arbitrary start (nonce ages).
    fn monotonic(&self) -> Duration;
    /// Seconds since the Unix epoch (audit lines, `added_at`).
    fn unix_seconds(&self) -> u64;
}

/// The real clock.
#[derive(Debug)]
pub struct SystemClock {
    start: Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock {
            start: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn monotonic(&self) -> Duration {
        self.start.elapsed()
    }

    fn unix_seconds(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    }
}

/// The admin token itself: shown once, then only its digest is kept.
/// `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct AdminToken(String);

impl AdminToken {
    /// The token's text, to print once or send as a bearer.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Wraps a token typed by the user or read from `PLOY_ADMIN_TOKEN`.
    pub fn from_user(text: &str) -> AdminToken {
        AdminToken(text.trim().to_owned())
    }
}

impl std::fmt::Debug for AdminToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdminToken([REDACTED])")
    }
}

/// Why the panel could not start or change its credential.
#[derive(Debug, thiserror::Error)]
pub enum PanelError {
    /// A panel file is unsafe or unwritable.
    #[error(transparent)]
    File(#[from] PanelFileError),
    /// The OS random generator failed.
    #[error(
        "ADMIN-3: the operating system's random generator failed ({0}); no admin token without it"
    )]
    Random(String),
    /// A key given at start (`PLOY_TAVILY_KEYS`) cannot be kept.
    #[error("STATE-1: a key from {source_name} is refused: {reason}")]
    StartKey {
        /// Where the key came from.
        source_name: String,
        /// Why (masks only).
        reason: String,
    },
}

/// The mounted panel's state.
pub struct Panel {
    gate: Gate,
    keys: Arc<KeyStore>,
    nonces: Mutex<NonceStore>,
    audit: AuditLog,
    state_dir: PathBuf,
    clock: Arc<dyn Clock>,
    redactor: Option<SharedRedactor>,
    /// Serialises rotations (file write + swap).
    rotation: Mutex<()>,
}

impl std::fmt::Debug for Panel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Panel")
            .field("gate", &self.gate)
            .field("keys", &self.keys)
            .field("state_dir", &self.state_dir)
            .finish_non_exhaustive()
    }
}

fn fresh_token() -> Result<AdminToken, PanelError> {
    new_secret()
        .map(AdminToken)
        .map_err(|e| PanelError::Random(e.to_string()))
}

fn digest_of(token: &AdminToken) -> [u8; 32] {
    Sha256::digest(token.expose().as_bytes()).into()
}

fn teach(redactor: Option<&SharedRedactor>, secret: &str) -> bool {
    match redactor {
        Some(redactor) => redactor.add_secrets([secret]).is_empty(),
        None => true,
    }
}

/// A JSON body the panel could not read; no part of the body is echoed.
fn body_error(error: &serde_json::Error, expected: &str) -> String {
    use serde_json::error::Category;
    let what = match error.classify() {
        Category::Data => "an unknown field, a missing field, a wrong type or an unknown value",
        Category::Syntax | Category::Eof => "not valid JSON",
        Category::Io => "unreadable",
    };
    format!(
        "the request body is {what} (line {}, column {}); expected {expected}, and nothing else",
        error.line(),
        error.column()
    )
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AddRequest {
    provider: Provider,
    key: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NonceRequest {
    action: NonceAction,
    mask: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoveRequest {
    mask: String,
    nonce: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplaceRequest {
    mask: String,
    key: String,
    nonce: String,
}

/// `GET /__keys/api/keys`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyList {
    /// The keys, by mask.
    pub keys: Vec<KeyView>,
}

/// `POST /__keys/api/nonce`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NonceAnswer {
    /// The nonce (64 hex digits).
    pub nonce: String,
    /// Seconds it stays good (120).
    pub expires_in: u64,
}

/// The status and JSON answer of one panel operation.
type Answer = (StatusCode, serde_json::Value);

fn refused(status: StatusCode, kind: &str, message: &str) -> Answer {
    (
        status,
        serde_json::json!({ "error": { "type": kind, "message": message } }),
    )
}

fn key_error_answer(error: &KeyError) -> Answer {
    let status = match error {
        KeyError::NotFound(_) => StatusCode::NOT_FOUND,
        KeyError::Duplicate(_) | KeyError::MaskTaken(_) | KeyError::Full => StatusCode::CONFLICT,
        KeyError::Malformed(_) | KeyError::NotRedactable => StatusCode::BAD_REQUEST,
    };
    refused(status, "refused", &error.to_string())
}

/// A `mask` field that is not a mask's shape: refused without echoing it.
fn not_a_mask() -> Answer {
    refused(
        StatusCode::BAD_REQUEST,
        "bad_request",
        "ADMIN-11: `mask` must be `…` and the last 4 characters of a key, as the key list shows it",
    )
}

/// What the audit line names as the target for a client-given mask.
fn audit_target(mask: &str) -> &str {
    if keys::is_mask(mask) {
        mask
    } else {
        "(not a mask)"
    }
}

fn audit_failed(error: &PanelFileError) -> Answer {
    refused(
        StatusCode::SERVICE_UNAVAILABLE,
        "audit_unavailable",
        &format!(
            "ADMIN-7: the change was refused because its audit line could not be written: {error}"
        ),
    )
}

fn panel_headers(response: &mut Response<Body>, csp: &str) {
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, value);
    }
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
}

/// The one denial (ADMIN-2): same status, headers and body for every cause.
pub(crate) fn denied() -> Response<Body> {
    let mut response = full(
        StatusCode::UNAUTHORIZED,
        "application/json",
        Bytes::from_static(DENIED_BODY.as_bytes()),
    );
    panel_headers(&mut response, page::API_CSP);
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"ploy-keys\""),
    );
    response
}

fn json_answer((status, value): Answer) -> Response<Body> {
    let bytes = serde_json::to_vec(&value).unwrap_or_else(|_| b"{}".to_vec());
    let mut response = full(status, "application/json", Bytes::from(bytes));
    panel_headers(&mut response, page::API_CSP);
    response
}

/// Whether `path` belongs to the panel (the page or anything under it).
pub fn is_panel_path(path: &str) -> bool {
    path == PAGE_PATH || path.starts_with("/__keys/")
}

/// What [`Panel::open`] found or made.
#[derive(Debug)]
pub struct Opened {
    /// The panel.
    pub panel: Arc<Panel>,
    /// The admin token when this start made the first one (no `state.json`
    /// existed): to be shown once. `None` when a digest was already kept.
    pub first_token: Option<AdminToken>,
}

impl Panel {
    /// Opens the panel's files in `state_dir` (checking the folder, the
    /// audit log and `state.json`), making the first admin token when there
    /// is no `state.json` yet. `redactor`, when given, learns the admin
    /// token and every key added.
    pub fn open(
        state_dir: &Path,
        hosts: HostAllowlist,
        keys: Arc<KeyStore>,
        clock: Arc<dyn Clock>,
        redactor: Option<SharedRedactor>,
    ) -> Result<Opened, PanelError> {
        files::check_state_dir(state_dir)?;
        let audit = AuditLog::new(state_dir);
        audit.check()?;
        let (digest, first_token) = match files::read_state(state_dir)? {
            Some(state) => {
                let digest = state.digest().map_err(|reason| PanelFileError::Invalid {
                    path: state_dir.join(files::STATE_FILE),
                    reason,
                })?;
                (digest, None)
            }
            None => {
                let token = fresh_token()?;
                if !teach(redactor.as_ref(), token.expose()) {
                    return Err(PanelError::Random(
                        "REDACT-1: the log redactor refused the admin token".into(),
                    ));
                }
                files::write_state(
                    state_dir,
                    &AdminState {
                        version: 1,
                        admin_token_sha256: hex::encode(digest_of(&token)),
                        updated_at: clock.unix_seconds(),
                    },
                )?;
                (digest_of(&token), Some(token))
            }
        };
        let panel = Panel {
            gate: Gate::new(hosts, digest),
            keys,
            nonces: Mutex::new(NonceStore::default()),
            audit,
            state_dir: state_dir.to_path_buf(),
            clock,
            redactor,
            rotation: Mutex::new(()),
        };
        Ok(Opened {
            panel: Arc::new(panel),
            first_token,
        })
    }

    /// The gate (for its failure count and allowlist).
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The audit log.
    pub fn audit_log(&self) -> &AuditLog {
        &self.audit
    }

    fn record(&self, action: &str, target: &str, origin: &str, result: &str) -> AuditRecord {
        AuditRecord {
            time: self.clock.unix_seconds(),
            action: action.to_owned(),
            target: target.to_owned(),
            origin: origin.to_owned(),
            result: result.to_owned(),
        }
    }

    /// Writes a line for a refused attempt; its failure only gets logged
    /// (the answer is a refusal either way).
    fn audit_refusal(&self, action: &str, target: &str, origin: &str, reason: &str) {
        let line = self.record(action, target, origin, &format!("refused: {reason}"));
        if let Err(error) = self.audit.append(&line) {
            tracing::error!(%error, "ADMIN-7: could not write the audit line of a refused change");
        }
    }

    /// Writes the line of a change, then applies it; if the line cannot be
    /// written the change is dropped (fail closed, ADMIN-7).
    fn audit_and_commit(
        &self,
        action: &str,
        target: &str,
        origin: &str,
        change: PendingChange<'_>,
    ) -> Answer {
        match self
            .audit
            .append(&self.record(action, target, origin, "ok"))
        {
            Ok(()) => {
                let view = change.view.clone();
                change.commit();
                let status = if action == "add" {
                    StatusCode::CREATED
                } else {
                    StatusCode::OK
                };
                (status, serde_json::to_value(view).unwrap_or_default())
            }
            Err(error) => {
                drop(change);
                tracing::error!(%error, "ADMIN-7: change refused, audit log unwritable");
                audit_failed(&error)
            }
        }
    }

    /// Rotates the admin token (`POST /v1/admin-token/rotate`, behind the
    /// service password): the audit line first, then `state.json`, then the
    /// swap. The old token, every outstanding nonce and a lockout end here.
    pub fn rotate(&self, origin: &str) -> Result<AdminToken, PanelError> {
        let _serial = self
            .rotation
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let token = fresh_token()?;
        if !teach(self.redactor.as_ref(), token.expose()) {
            return Err(PanelError::Random(
                "REDACT-1: the log redactor refused the admin token".into(),
            ));
        }
        self.audit
            .append(&self.record("rotate-admin-token", "", origin, "ok"))?;
        let digest = digest_of(&token);
        let written = files::write_state(
            &self.state_dir,
            &AdminState {
                version: 1,
                admin_token_sha256: hex::encode(digest),
                updated_at: self.clock.unix_seconds(),
            },
        );
        if let Err(error) = written {
            self.audit_refusal("rotate-admin-token", "", origin, &error.to_string());
            return Err(error.into());
        }
        self.nonces_lock().clear();
        self.gate.rotate(digest);
        tracing::warn!("ADMIN-3: the key panel's admin token was rotated");
        Ok(token)
    }

    fn nonces_lock(&self) -> std::sync::MutexGuard<'_, NonceStore> {
        self.nonces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn add(&self, origin: &str, request: AddRequest) -> Answer {
        let mask = ploy_secrets::mask(&request.key);
        let now = self.clock.unix_seconds();
        let change = self
            .acceptable(&request.key)
            .and_then(|()| self.keys.prepare_add(request.provider, &request.key, now));
        match change {
            Ok(change) => self.audit_and_commit("add", &mask, origin, change),
            Err(error) => {
                self.audit_refusal("add", &mask, origin, &error.to_string());
                key_error_answer(&error)
            }
        }
    }

    fn nonce(&self, origin: &str, request: &NonceRequest) -> Answer {
        if !keys::is_mask(&request.mask) {
            return not_a_mask();
        }
        if !self.keys.list().iter().any(|k| k.mask == request.mask) {
            return key_error_answer(&KeyError::NotFound(request.mask.clone()));
        }
        let nonce = match new_secret() {
            Ok(nonce) => nonce,
            Err(e) => {
                return refused(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    &format!("ADMIN-6: the random generator failed: {e}"),
                );
            }
        };
        self.nonces_lock().issue(
            &nonce,
            request.action,
            &request.mask,
            origin,
            self.clock.monotonic(),
        );
        (
            StatusCode::OK,
            serde_json::to_value(NonceAnswer {
                nonce,
                expires_in: NONCE_TTL.as_secs(),
            })
            .unwrap_or_default(),
        )
    }

    fn redeem(
        &self,
        nonce: &str,
        action: NonceAction,
        mask: &str,
        origin: &str,
    ) -> Result<(), NonceError> {
        self.nonces_lock()
            .redeem(nonce, action, mask, origin, self.clock.monotonic())
    }

    /// The confirmation step of a removal or replacement (ADMIN-6): the mask
    /// must be a mask's shape and the nonce good for this action, key and
    /// origin. A refusal is audited and answered.
    fn confirm(
        &self,
        action: NonceAction,
        mask: &str,
        nonce: &str,
        origin: &str,
    ) -> Result<(), Answer> {
        let name = match action {
            NonceAction::Remove => "remove",
            NonceAction::Replace => "replace",
        };
        if !keys::is_mask(mask) {
            self.audit_refusal(name, audit_target(mask), origin, "not a mask");
            return Err(not_a_mask());
        }
        self.redeem(nonce, action, mask, origin).map_err(|error| {
            self.audit_refusal(name, mask, origin, &error.to_string());
            refused(StatusCode::BAD_REQUEST, "nonce_refused", &error.to_string())
        })
    }

    /// A key's shape is acceptable and the log redactor holds it.
    fn acceptable(&self, key: &str) -> Result<(), KeyError> {
        keys::validate_key(key)?;
        if teach(self.redactor.as_ref(), key) {
            Ok(())
        } else {
            Err(KeyError::NotRedactable)
        }
    }

    fn remove(&self, origin: &str, request: &RemoveRequest) -> Answer {
        if let Err(answer) =
            self.confirm(NonceAction::Remove, &request.mask, &request.nonce, origin)
        {
            return answer;
        }
        match self.keys.prepare_remove(&request.mask) {
            Ok(change) => self.audit_and_commit("remove", &request.mask, origin, change),
            Err(error) => {
                self.audit_refusal("remove", &request.mask, origin, &error.to_string());
                key_error_answer(&error)
            }
        }
    }

    fn replace(&self, origin: &str, request: &ReplaceRequest) -> Answer {
        if let Err(answer) =
            self.confirm(NonceAction::Replace, &request.mask, &request.nonce, origin)
        {
            return answer;
        }
        let now = self.clock.unix_seconds();
        let change = self
            .acceptable(&request.key)
            .and_then(|()| self.keys.prepare_replace(&request.mask, &request.key, now));
        match change {
            Ok(change) => {
                let target = format!("{} -> {}", request.mask, change.view.mask);
                self.audit_and_commit("replace", &target, origin, change)
            }
            Err(error) => {
                self.audit_refusal("replace", &request.mask, origin, &error.to_string());
                key_error_answer(&error)
            }
        }
    }

    fn on_refusal(&self, refusal: Refusal, origin_hint: &str) {
        tracing::debug!(refusal = refusal.as_str(), "key panel request refused");
        if let Refusal::Credential {
            locked_now: true, ..
        } = refusal
        {
            tracing::warn!(
                "ADMIN-5: the key panel is locked after {} failed admin tokens; rotate the token \
                 (`ploy keys admin-token --rotate`) or restart the service",
                gate::LOCKOUT_LIMIT
            );
            self.audit_refusal(
                "lockout",
                "",
                origin_hint,
                "100 failed admin tokens; the panel refuses everything until rotation or restart",
            );
        }
    }
}

/// Reads a JSON request body: exactly one `Content-Type: application/json`
/// (optionally `; charset=utf-8`), at most [`BODY_LIMIT`] bytes.
async fn read_json<T: serde::de::DeserializeOwned>(
    request: Request<Incoming>,
    expected: &str,
) -> Result<T, Answer> {
    let bad = |message: String| refused(StatusCode::BAD_REQUEST, "bad_request", &message);
    let mut types = request.headers().get_all(header::CONTENT_TYPE).iter();
    let content_type = match (types.next(), types.next()) {
        (Some(value), None) => value.to_str().unwrap_or_default().to_ascii_lowercase(),
        _ => String::new(),
    };
    let essence: Vec<&str> = content_type.split(';').map(str::trim).collect();
    let json = match essence.as_slice() {
        ["application/json"] => true,
        ["application/json", charset] => *charset == "charset=utf-8",
        _ => false,
    };
    if !json {
        return Err(bad(
            "the request body must be sent as `Content-Type: application/json`".into(),
        ));
    }
    let body = Limited::new(request.into_body(), BODY_LIMIT)
        .collect()
        .await
        .map_err(|_| {
            bad(format!(
                "the request body is over {} KiB",
                BODY_LIMIT / 1024
            ))
        })?
        .to_bytes();
    serde_json::from_slice(&body).map_err(|e| bad(body_error(&e, expected)))
}

fn page_response() -> Response<Body> {
    let nonce = match new_secret() {
        Ok(secret) => secret[..32].to_owned(),
        Err(e) => {
            return json_answer(refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                &format!(
                    "ADMIN-8: the random generator failed ({e}); no page without a fresh nonce"
                ),
            ));
        }
    };
    let mut response = full(
        StatusCode::OK,
        "text/html; charset=utf-8",
        Bytes::from(page::page_html(&nonce)),
    );
    panel_headers(&mut response, &page::page_csp(&nonce));
    response
}

/// Runs one blocking panel operation (file writes, fsync) off the async
/// workers.
async fn blocking(
    panel: &Arc<Panel>,
    work: impl FnOnce(&Panel) -> Answer + Send + 'static,
) -> Response<Body> {
    let panel = panel.clone();
    match tokio::task::spawn_blocking(move || work(&panel)).await {
        Ok(answer) => json_answer(answer),
        Err(_) => json_answer(refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the panel operation failed",
        )),
    }
}

/// Serves one panel request (the path is a panel path).
pub(crate) async fn handle(panel: &Arc<Panel>, request: Request<Incoming>) -> Response<Body> {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    if path == PAGE_PATH && method == Method::GET {
        return match panel.gate.check_page(request.uri(), request.headers()) {
            Ok(()) => page_response(),
            Err(refusal) => {
                panel.on_refusal(refusal, "");
                denied()
            }
        };
    }
    let admitted = match panel.gate.check(&method, request.uri(), request.headers()) {
        Ok(admitted) => admitted,
        Err(refusal) => {
            panel.on_refusal(refusal, "");
            return denied();
        }
    };
    tracing::debug!("key panel request admitted");
    let origin = admitted.origin;
    let route = path.strip_prefix("/__keys/api/").unwrap_or_default();
    match (&method, route) {
        (&Method::GET, "keys") => json_answer((
            StatusCode::OK,
            serde_json::to_value(KeyList {
                keys: panel.keys.list(),
            })
            .unwrap_or_default(),
        )),
        (&Method::POST, "keys") => {
            match read_json::<AddRequest>(request, r#"{"provider":"tavily","key":"…"}"#).await {
                Ok(add) => blocking(panel, move |p| p.add(&origin, add)).await,
                Err(answer) => json_answer(answer),
            }
        }
        (&Method::POST, "nonce") => {
            match read_json::<NonceRequest>(
                request,
                r#"{"action":"remove"|"replace","mask":"…abcd"}"#,
            )
            .await
            {
                Ok(ask) => json_answer(panel.nonce(&origin, &ask)),
                Err(answer) => json_answer(answer),
            }
        }
        (&Method::POST, "remove") => {
            match read_json::<RemoveRequest>(request, r#"{"mask":"…abcd","nonce":"…"}"#).await {
                Ok(remove) => blocking(panel, move |p| p.remove(&origin, &remove)).await,
                Err(answer) => json_answer(answer),
            }
        }
        (&Method::POST, "replace") => {
            match read_json::<ReplaceRequest>(request, r#"{"mask":"…abcd","key":"…","nonce":"…"}"#)
                .await
            {
                Ok(replace) => blocking(panel, move |p| p.replace(&origin, &replace)).await,
                Err(answer) => json_answer(answer),
            }
        }
        (_, "keys" | "nonce" | "remove" | "replace") => json_answer(refused(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "see docs/api.md for the panel's routes and methods",
        )),
        _ if path == PAGE_PATH => json_answer(refused(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "the page is GET only",
        )),
        _ => json_answer(refused(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such panel route; see docs/api.md",
        )),
    }
}
