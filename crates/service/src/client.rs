//! The local side of the API used by `ploy status` and `ploy exec`: reads the
//! service file and calls the running service over loopback.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde::Serialize;

use crate::api::{ExecToken, Health};
use crate::service_file::{self, ServiceFile, ServiceFileError};
use ploy_model::connect_loopback;

/// How long a local API call may take in total.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);
/// How long `ploy research --service` waits for its answer: two search
/// rounds, the pages and a local answer model.
const RESEARCH_TIMEOUT: Duration = Duration::from_secs(900);

/// Failures of the local client.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// No live service file.
    #[error(
        "no ploy service is running (no live service file in {state_dir}); start one with `ploy serve`"
    )]
    NotRunning {
        /// The state folder searched.
        state_dir: PathBuf,
    },
    /// The service file could not be read.
    #[error(transparent)]
    File(#[from] ServiceFileError),
    /// The service did not answer.
    #[error(
        "the ploy service (pid {pid}) at {addr} does not answer: {reason}; restart it with `ploy serve`"
    )]
    Unreachable {
        /// Its pid.
        pid: u32,
        /// The API address.
        addr: SocketAddr,
        /// Why.
        reason: String,
    },
    /// The service answered with an error.
    #[error("the ploy service refused {what} (HTTP {status}): {body}")]
    Refused {
        /// What was asked.
        what: &'static str,
        /// The status.
        status: u16,
        /// The answer's body.
        body: String,
    },
    /// The async runtime could not start.
    #[error("could not start the async runtime: {0}")]
    Runtime(String),
}

/// What `ploy status --json` prints. Never contains a secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusReport {
    /// True when a service file names a live process and its health route answered.
    pub running: bool,
    /// The service's pid, when a service file was found.
    pub pid: Option<u32>,
    /// The API port, when known.
    pub api_port: Option<u16>,
    /// The gateway port, when known.
    pub gateway_port: Option<u16>,
    /// One human line: what was found.
    pub detail: String,
}

pub(crate) fn api_addr(file: &ServiceFile) -> SocketAddr {
    let ip = file
        .api_host
        .parse::<IpAddr>()
        .ok()
        .filter(|ip| !ip.is_unspecified())
        .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    SocketAddr::new(ip, file.api_port)
}

/// One HTTP/1.1 exchange with the local service over a loopback stream from
/// [`connect_loopback`]: `Host` is the address itself; `headers` are added.
pub(crate) async fn exchange(
    addr: SocketAddr,
    method: Method,
    path: &str,
    headers: &[(header::HeaderName, String)],
    body: Option<Vec<u8>>,
) -> Result<(StatusCode, Bytes), String> {
    exchange_within(CALL_TIMEOUT, addr, method, path, headers, body).await
}

/// [`exchange`] with its own time limit (research takes minutes).
async fn exchange_within(
    limit: Duration,
    addr: SocketAddr,
    method: Method,
    path: &str,
    headers: &[(header::HeaderName, String)],
    body: Option<Vec<u8>>,
) -> Result<(StatusCode, Bytes), String> {
    let exchange = async {
        let stream = connect_loopback(addr, CALL_TIMEOUT)
            .await
            .map_err(|e| e.to_string())?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        let driver = tokio::spawn(connection);
        let mut builder = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, addr.to_string());
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        let request = builder
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|e| e.to_string())?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        driver.abort();
        Ok((status, body))
    };
    match tokio::time::timeout(limit, exchange).await {
        Ok(result) => result,
        Err(_) => Err(format!("no answer within {limit:?}")),
    }
}

async fn call(
    file: &ServiceFile,
    method: Method,
    path: &str,
) -> Result<(StatusCode, Bytes), String> {
    exchange(
        api_addr(file),
        method,
        path,
        &[(header::AUTHORIZATION, format!("Bearer {}", file.password))],
        None,
    )
    .await
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, ClientError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ClientError::Runtime(e.to_string()))
}

/// Report whether a service is running in `state_dir` (blocking).
pub fn status(state_dir: &Path) -> Result<StatusReport, ClientError> {
    let Some((path, file)) = service_file::find_running(state_dir)? else {
        return Ok(StatusReport {
            running: false,
            pid: None,
            api_port: None,
            gateway_port: None,
            detail: format!("no live service file in {}", state_dir.display()),
        });
    };
    let answer = runtime()?.block_on(call(&file, Method::GET, "/v1/health"));
    let (running, detail) = match answer {
        Ok((StatusCode::OK, body)) => match serde_json::from_slice::<Health>(&body) {
            Ok(health) if health.pid == file.pid => (true, "service is up".to_string()),
            Ok(health) => (
                false,
                format!(
                    "{} names pid {} but the API answers as pid {}",
                    path.display(),
                    file.pid,
                    health.pid
                ),
            ),
            Err(e) => (false, format!("health answer does not parse: {e}")),
        },
        Ok((status, _)) => (false, format!("health check refused (HTTP {status})")),
        Err(reason) => (
            false,
            format!(
                "process {} is alive but its API does not answer: {reason}",
                file.pid
            ),
        ),
    };
    Ok(StatusReport {
        running,
        pid: Some(file.pid),
        api_port: Some(file.api_port),
        gateway_port: Some(file.gateway_port),
        detail,
    })
}

/// Fetch the gateway URL and token for `ploy exec` from the running service
/// (blocking). The token comes over the authenticated loopback API and is
/// never written anywhere (GW-4).
pub fn exec_token(state_dir: &Path) -> Result<ExecToken, ClientError> {
    let Some((_, file)) = service_file::find_running(state_dir)? else {
        return Err(ClientError::NotRunning {
            state_dir: state_dir.to_path_buf(),
        });
    };
    let addr = api_addr(&file);
    let (status, body) = runtime()?
        .block_on(call(&file, Method::POST, "/v1/exec-token"))
        .map_err(|reason| ClientError::Unreachable {
            pid: file.pid,
            addr,
            reason,
        })?;
    if status != StatusCode::OK {
        return Err(ClientError::Refused {
            what: "the gateway token",
            status: status.as_u16(),
            body: String::from_utf8_lossy(&body).into_owned(),
        });
    }
    serde_json::from_slice(&body).map_err(|e| ClientError::Refused {
        what: "the gateway token",
        status: status.as_u16(),
        body: format!("answer does not parse: {e}"),
    })
}

/// `ploy research --service`: runs `request` on the running service
/// (`POST /v1/research`, with the service password) and returns its answer,
/// the same strict JSON as `ploy research --json` (blocking).
pub fn research(
    state_dir: &Path,
    request: &crate::research::ResearchRequest,
) -> Result<String, ClientError> {
    let Some((_, file)) = service_file::find_running(state_dir)? else {
        return Err(ClientError::NotRunning {
            state_dir: state_dir.to_path_buf(),
        });
    };
    let addr = api_addr(&file);
    let body = serde_json::to_vec(request).map_err(|e| ClientError::Runtime(e.to_string()))?;
    let (status, answer) = runtime()?
        .block_on(exchange_within(
            RESEARCH_TIMEOUT,
            addr,
            Method::POST,
            "/v1/research",
            &[
                (header::AUTHORIZATION, format!("Bearer {}", file.password)),
                (header::CONTENT_TYPE, "application/json".to_owned()),
            ],
            Some(body),
        ))
        .map_err(|reason| ClientError::Unreachable {
            pid: file.pid,
            addr,
            reason,
        })?;
    let text = String::from_utf8_lossy(&answer).into_owned();
    if status != StatusCode::OK {
        return Err(ClientError::Refused {
            what: "the research",
            status: status.as_u16(),
            body: text,
        });
    }
    Ok(text)
}
