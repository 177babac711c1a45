//! How a run reaches its model: always through ploy's gateway, with its
//! token (GW-1..GW-4).
//!
//! 1. A running `ploy serve` (a live service file in the state folder): the
//!    gateway URL and token come over the password-protected API, exactly as
//!    `ploy exec` gets them. The service's pinned model wins; a different
//!    `--model` is reported in [`Connection::notes`].
//! 2. Otherwise a [`LocalGateway`] started for this run, in front of the
//!    upstream named by `--upstream`, settings `model.upstream`, the user's
//!    `service.upstream`, or Ollama's default; checked first, so a missing
//!    model server is one line saying how to start one.

use std::path::PathBuf;
use std::time::Duration;

use ploy_model::{ModelClient, ModelError, connect_loopback};
use ploy_service::ExecToken;
use ploy_service::client::{ClientError, exec_token};
use ploy_service::gateway::{GATEWAY_PATH, GatewayToken, LocalGateway};
use ploy_service::{ConfigFlags, ServiceConfig, ServiceSection};

/// The model named when nothing names one (what the quick start pulls).
pub const DEFAULT_MODEL: &str = "qwen2.5-coder:7b";

/// How long the check for a model server may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// What a person does when no model server answers.
pub const START_A_MODEL_SERVER: &str = "start one: Ollama `ollama serve` and `ollama pull qwen2.5-coder:7b`, or llama.cpp `llama-server --jinja -m MODEL.gguf --port 8080` with --upstream http://127.0.0.1:8080/v1/chat/completions";

/// What the connection is made from.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// The state folder (service files).
    pub state_dir: PathBuf,
    /// `--upstream`, else settings `model.upstream`.
    pub upstream: Option<String>,
    /// `--model`, else settings `model.model`.
    pub model: Option<String>,
    /// True when the model was named by `--model` (a different pinned model
    /// is then reported).
    pub model_from_flag: bool,
    /// The user's `service` section (timeouts, body limit, a pinned model
    /// and its upstream), for the run's own gateway.
    pub service: ServiceSection,
}

/// Which gateway the client talks to.
#[derive(Debug)]
pub enum Route {
    /// The running `ploy serve`.
    Service {
        /// The gateway's chat-completions URL.
        url: String,
    },
    /// A gateway started for this run (stops when the connection drops).
    Local {
        /// The gateway.
        gateway: LocalGateway,
        /// The upstream it forwards to.
        upstream: String,
    },
}

/// A model client through a gateway, and what a person should know.
#[derive(Debug)]
pub struct Connection {
    /// The client (sends the gateway token with every request).
    pub client: ModelClient,
    /// The gateway.
    pub route: Route,
    /// Lines for stderr (a pinned model that wins over `--model`, ...).
    pub notes: Vec<String>,
}

/// Why no connection was made. Each is one line for a person.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// No model server answers at the upstream.
    #[error("no model server answers at {url} ({reason}); {START_A_MODEL_SERVER}")]
    NoModelServer {
        /// The upstream URL.
        url: String,
        /// What the connect said.
        reason: String,
    },
    /// The settings or flags are wrong (a non-loopback upstream, ...).
    #[error("{0}")]
    Config(String),
    /// A service is running but did not hand out its gateway.
    #[error("{0}; stop it or fix it (`ploy status` shows it)")]
    Service(String),
    /// The run's gateway could not start.
    #[error("the model gateway could not start: {0}")]
    Gateway(String),
}

impl ConnectError {
    /// True for mistakes in the invocation or the settings (exit 2).
    pub fn is_usage(&self) -> bool {
        matches!(self, ConnectError::Config(_))
    }
}

/// The model the client names: a gateway's pinned model wins (reported when
/// `--model` asked for another), then the one asked for, then the default.
fn choose_model(
    pinned: Option<&String>,
    options: &ConnectOptions,
    by: &str,
    notes: &mut Vec<String>,
) -> String {
    match (pinned, &options.model) {
        (Some(pinned), Some(asked)) => {
            if pinned != asked && options.model_from_flag {
                notes.push(format!(
                    "note: {by} pins the model `{pinned}`; --model `{asked}` is not used"
                ));
            }
            pinned.clone()
        }
        (Some(pinned), None) => pinned.clone(),
        (None, Some(asked)) => asked.clone(),
        (None, None) => DEFAULT_MODEL.to_string(),
    }
}

/// What the state folder says about a running `ploy serve`: its gateway's
/// URL and token, or why there is none ([`find_service`]).
#[derive(Debug)]
pub struct ServiceLookup(Result<ExecToken, ClientError>);

impl ServiceLookup {
    /// The running service's gateway token, when one answered: a secret
    /// the run's redactor must know before anything can print it.
    pub fn token(&self) -> Option<&str> {
        self.0.as_ref().ok().map(|found| found.token.as_str())
    }

    /// True when no service runs: [`connect_with`] starts a gateway for
    /// this run (with the token given to it).
    pub fn not_running(&self) -> bool {
        matches!(self.0, Err(ClientError::NotRunning { .. }))
    }
}

/// Looks for a running `ploy serve` in `state_dir` (and, when one runs,
/// asks it for its gateway token). Must run inside a Tokio runtime with
/// more than one thread available for blocking work.
pub async fn find_service(state_dir: PathBuf) -> Result<ServiceLookup, ConnectError> {
    // The service client is blocking (its own small runtime).
    tokio::task::spawn_blocking(move || ServiceLookup(exec_token(&state_dir)))
        .await
        .map_err(|e| ConnectError::Service(format!("the service lookup failed: {e}")))
}

/// Connect (see the module docs). `redactor`, when given, learns a gateway
/// token made for this run before anything can log it. Must run inside a
/// Tokio runtime with more than one thread available for blocking work.
pub async fn connect(
    options: ConnectOptions,
    redactor: Option<&ploy_secrets::SharedRedactor>,
) -> Result<Connection, ConnectError> {
    let service = find_service(options.state_dir.clone()).await?;
    let token = GatewayToken::new().map_err(|e| ConnectError::Gateway(e.to_string()))?;
    connect_with(options, service, token, redactor).await
}

/// [`connect`] in two steps, so a caller can teach its redactor the token
/// before the connection is made (and build it meanwhile, issue 11):
/// `service` from [`find_service`]; `token` is the gateway's when no
/// service runs (unused otherwise). `redactor`, when given, learns the
/// token in use before anything can log it.
pub async fn connect_with(
    options: ConnectOptions,
    service: ServiceLookup,
    token: GatewayToken,
    redactor: Option<&ploy_secrets::SharedRedactor>,
) -> Result<Connection, ConnectError> {
    let mut notes = Vec::new();
    match service.0 {
        Ok(credentials) => {
            if let Some(redactor) = redactor {
                let _ = redactor.add_secrets([credentials.token.as_str()]);
            }
            let model = choose_model(
                credentials.model.as_ref(),
                &options,
                "the running ploy service",
                &mut notes,
            );
            if options.upstream.is_some() {
                notes.push(
                    "note: a ploy service is running; its gateway forwards to its own upstream, so --upstream / model.upstream is not used".into(),
                );
            }
            let url = format!(
                "{}{}",
                credentials.base_url.trim_end_matches("/v1"),
                GATEWAY_PATH
            );
            let client = ModelClient::from_url(&url, model)
                .and_then(|c| c.with_gateway_token(&credentials.token))
                .map_err(|e| ConnectError::Service(format!("the service's gateway: {e}")))?;
            Ok(Connection {
                client,
                route: Route::Service { url },
                notes,
            })
        }
        Err(ClientError::NotRunning { .. }) => {
            let flags = ConfigFlags {
                upstream: options.upstream.clone(),
                ..ConfigFlags::default()
            };
            let config = ServiceConfig::load(
                options.service.clone(),
                flags,
                Some(options.state_dir.clone()),
            )
            .map_err(|e| ConnectError::Config(e.to_string()))?;
            let upstream = config.upstream.to_string();
            if let Err(err) = connect_loopback(config.upstream.addr(), PROBE_TIMEOUT).await {
                return Err(ConnectError::NoModelServer {
                    url: upstream,
                    reason: err.to_string(),
                });
            }
            let model = choose_model(
                config.model.as_ref(),
                &options,
                "settings `service.model`",
                &mut notes,
            );
            let gateway = LocalGateway::start_with_token(&config, token, redactor)
                .await
                .map_err(|e| ConnectError::Gateway(e.to_string()))?;
            let client = ModelClient::from_url(&gateway.chat_url(), model)
                .and_then(|c| c.with_gateway_token(gateway.token()))
                .map_err(|e| ConnectError::Gateway(e.to_string()))?;
            Ok(Connection {
                client,
                route: Route::Local { gateway, upstream },
                notes,
            })
        }
        Err(err) => Err(ConnectError::Service(err.to_string())),
    }
}

/// A model error for a person: when the model server is down (directly or
/// behind a gateway, which answers 502), the line says how to start one.
pub fn describe_model_error(err: &ModelError) -> String {
    match err {
        ModelError::Unavailable { .. } => format!("{err}; {START_A_MODEL_SERVER}"),
        ModelError::Status { status: 502, .. } => {
            format!("{err}; no model server answers behind ploy's gateway: {START_A_MODEL_SERVER}")
        }
        _ => err.to_string(),
    }
}
