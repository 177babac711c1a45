//! The running service: two loopback listeners (API, gateway), the service
//! file, and clean shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::combinators::UnsyncBoxBody;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use ploy_secrets::SharedRedactor;
use ploy_store::Store;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::ServiceError;
use crate::auth::{HostAllowlist, SecretDigest, new_secret};
use crate::config::ServiceConfig;
use crate::panel::keys::{KeyStore, Provider};
use crate::panel::{AdminToken, Clock, Panel, PanelError, SystemClock};
use crate::research::{ResearchSetup, ServiceResearch};
use crate::service_file::{self, ServiceFile};
use crate::{api, gateway};

/// The response body type of both listeners.
pub type Body = UnsyncBoxBody<Bytes, io::Error>;

/// State shared by the handlers.
pub(crate) struct Shared {
    pub(crate) config: ServiceConfig,
    pub(crate) store: Arc<Mutex<Store>>,
    pub(crate) password: SecretDigest,
    /// The gateway token itself: needed to hand it to `ploy exec` (GW-4).
    /// Memory only; never logged, never written to a file.
    pub(crate) gateway_token: String,
    pub(crate) gateway_token_digest: SecretDigest,
    pub(crate) api_hosts: HostAllowlist,
    pub(crate) api_addr: SocketAddr,
    pub(crate) gateway_addr: SocketAddr,
    pub(crate) pid: u32,
    /// The key panel; `None` on a public bind (ADMIN-10).
    pub(crate) panel: Option<Arc<Panel>>,
    /// The keys (STATE-1), read by research at each request.
    pub(crate) keys: Arc<KeyStore>,
    /// Research (`POST /v1/research`), or why it is not offered.
    pub(crate) research: Result<Arc<ServiceResearch>, String>,
}

/// What the service starts with besides its configuration.
pub struct StartOptions {
    /// Keys to hold from the start (`PLOY_TAVILY_KEYS`), with where they
    /// came from (for error messages).
    pub keys: Vec<(Provider, String)>,
    /// Where the start keys came from, e.g. `PLOY_TAVILY_KEYS`.
    pub keys_source: String,
    /// The panel's clock (tests inject one to expire nonces).
    pub clock: Arc<dyn Clock>,
    /// Research for `POST /v1/research` (the profile, rules, engine parts
    /// and answer model), or why the service does not offer it: the route
    /// then answers 503 with this reason.
    pub research: Result<ResearchSetup, String>,
}

impl Default for StartOptions {
    fn default() -> Self {
        StartOptions {
            keys: Vec::new(),
            keys_source: "the start options".into(),
            clock: Arc::new(SystemClock::default()),
            research: Err(
                "research is not set up in this service (started without a research setup)".into(),
            ),
        }
    }
}

impl std::fmt::Debug for StartOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartOptions")
            .field("keys", &self.keys.len())
            .field("keys_source", &self.keys_source)
            .field("research", &self.research)
            .finish_non_exhaustive()
    }
}

/// Whether the key panel is mounted, and what a person must be told.
#[derive(Debug)]
pub enum PanelStatus {
    /// Mounted at `url`. When this start made the first admin token, show
    /// it once ([`RunningService::take_first_admin_token`]).
    Mounted {
        /// `http://127.0.0.1:<port>/__keys`.
        url: String,
    },
    /// Not mounted (ADMIN-10): the reason, to say loudly.
    NotMounted {
        /// Why.
        reason: String,
    },
}

/// A started service. Call [`RunningService::shutdown`] to stop it and
/// remove its service file.
pub struct RunningService {
    api_addr: SocketAddr,
    gateway_addr: SocketAddr,
    service_file: PathBuf,
    shutdown: CancellationToken,
    tasks: JoinSet<()>,
    panel_status: PanelStatus,
    first_admin_token: Option<AdminToken>,
    keys: Arc<KeyStore>,
    panel: Option<Arc<Panel>>,
}

impl std::fmt::Debug for RunningService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningService")
            .field("api_addr", &self.api_addr)
            .field("gateway_addr", &self.gateway_addr)
            .field("service_file", &self.service_file)
            .finish_non_exhaustive()
    }
}

impl RunningService {
    /// Start the service: check for a live one, clean stale service files,
    /// open the store, bind both listeners, write `service-<pid>.json`.
    /// `redactor`, when given, learns the password and the gateway token so
    /// no log line can carry them.
    pub async fn start(
        config: ServiceConfig,
        redactor: Option<&SharedRedactor>,
    ) -> Result<RunningService, ServiceError> {
        RunningService::start_with(config, redactor, StartOptions::default()).await
    }

    /// [`RunningService::start`] with start keys and a clock. The key panel
    /// is opened (its folder, `audit.log` and `state.json` checked; the
    /// first admin token made if there is none) only on a loopback bind.
    pub async fn start_with(
        config: ServiceConfig,
        redactor: Option<&SharedRedactor>,
        options: StartOptions,
    ) -> Result<RunningService, ServiceError> {
        let pid = std::process::id();
        service_file::ensure_state_dir(&config.state_dir)?;
        for stale in service_file::clean_stale(&config.state_dir, pid)? {
            tracing::info!(file = %stale.display(), "removed a stale service file");
        }
        let db_path = config.state_dir.join("ploy.db");
        let store = tokio::task::spawn_blocking(move || Store::open(db_path))
            .await
            .map_err(|e| ServiceError::Internal(e.to_string()))??;

        let api_listener = TcpListener::bind(config.api_listen)
            .await
            .map_err(|source| ServiceError::Bind {
                addr: config.api_listen,
                source,
            })?;
        let gateway_listener =
            TcpListener::bind(config.gateway_listen)
                .await
                .map_err(|source| ServiceError::Bind {
                    addr: config.gateway_listen,
                    source,
                })?;
        let api_addr = local_addr(&api_listener, config.api_listen)?;
        let gateway_addr = local_addr(&gateway_listener, config.gateway_listen)?;

        let password = new_secret().map_err(|e| ServiceError::Random(e.to_string()))?;
        let gateway_token = new_secret().map_err(|e| ServiceError::Random(e.to_string()))?;
        if let Some(redactor) = redactor {
            let rejected = redactor.add_secrets([password.as_str(), gateway_token.as_str()]);
            if !rejected.is_empty() {
                // A random 64-hex secret is always accepted; if not, refuse to
                // run rather than risk unredacted logs.
                return Err(ServiceError::Internal(
                    "REDACT-1: the log redactor refused the service secrets".into(),
                ));
            }
        }
        let file = ServiceFile {
            pid,
            api_host: api_addr.ip().to_string(),
            api_port: api_addr.port(),
            gateway_port: gateway_addr.port(),
            password: password.clone(),
        };
        let keys = Arc::new(KeyStore::new());
        load_start_keys(&keys, &options, redactor)?;
        let (panel, panel_status, first_admin_token) = if api_addr.ip().is_loopback() {
            let hosts = match &config.admin_allowed_hosts {
                Some(names) => HostAllowlist::from_hosts(
                    names
                        .iter()
                        .map(|name| format!("{name}:{}", api_addr.port()))
                        .collect(),
                ),
                None => HostAllowlist::for_listener(api_addr),
            };
            let state_dir = config.state_dir.clone();
            let (keys, clock, redactor) = (keys.clone(), options.clock.clone(), redactor.cloned());
            let opened = tokio::task::spawn_blocking(move || {
                Panel::open(&state_dir, hosts, keys, clock, redactor)
            })
            .await
            .map_err(|e| ServiceError::Internal(e.to_string()))??;
            let url = format!("http://{api_addr}{}", crate::panel::PAGE_PATH);
            tracing::info!(%url, "key panel mounted");
            (
                Some(opened.panel),
                PanelStatus::Mounted { url },
                opened.first_token,
            )
        } else {
            let reason = format!(
                "ADMIN-10: the API listens on the non-loopback address {api_addr} \
                 (allow_public_bind), so the key panel (/__keys) is NOT mounted: its routes \
                 answer like any unknown path. Manage keys with PLOY_TAVILY_KEYS, or run the \
                 service on loopback to use the panel."
            );
            tracing::warn!("{reason}");
            (None, PanelStatus::NotMounted { reason }, None)
        };
        let service_file = service_file::write(&config.state_dir, &file)?;
        let research = options
            .research
            .map(|setup| Arc::new(ServiceResearch::new(setup, [&password, &gateway_token])));
        match &research {
            Ok(_) => tracing::info!("research offered at POST /v1/research"),
            Err(reason) => tracing::warn!("research is not offered: {reason}"),
        }

        let shared = Arc::new(Shared {
            password: SecretDigest::of(&password),
            gateway_token_digest: SecretDigest::of(&gateway_token),
            gateway_token,
            api_hosts: HostAllowlist::for_listener(api_addr),
            api_addr,
            gateway_addr,
            pid,
            store: Arc::new(Mutex::new(store)),
            config,
            panel: panel.clone(),
            keys: keys.clone(),
            research,
        });
        let shutdown = CancellationToken::new();
        let mut tasks = JoinSet::new();
        {
            let head = HeadLimits::of(&shared.config);
            let shared_api = shared.clone();
            tasks.spawn(accept_loop(
                api_listener,
                head,
                shutdown.clone(),
                move |req| api::handle(shared_api.clone(), req),
            ));
            let gateway = Arc::new(gateway::GatewayState::new(
                &shared.config,
                shared.gateway_token_digest.clone(),
                gateway_addr,
            ));
            tasks.spawn(accept_loop(
                gateway_listener,
                head,
                shutdown.clone(),
                move |req| gateway::handle(gateway.clone(), req),
            ));
        }
        tracing::info!(%api_addr, %gateway_addr, pid, "ploy service started");
        Ok(RunningService {
            api_addr,
            gateway_addr,
            service_file,
            shutdown,
            tasks,
            panel_status,
            first_admin_token,
            keys,
            panel,
        })
    }

    /// Whether the key panel is mounted, and where.
    pub fn panel_status(&self) -> &PanelStatus {
        &self.panel_status
    }

    /// The first admin token, when this start made it (no `state.json`
    /// existed). Returned once: show it to the operator, then it is gone
    /// from this process (only its digest stays).
    pub fn take_first_admin_token(&mut self) -> Option<AdminToken> {
        self.first_admin_token.take()
    }

    /// The keys the service holds (STATE-1).
    pub fn keys(&self) -> &Arc<KeyStore> {
        &self.keys
    }

    /// The mounted panel, if any.
    pub fn panel(&self) -> Option<&Arc<Panel>> {
        self.panel.as_ref()
    }

    /// The API's bound address.
    pub fn api_addr(&self) -> SocketAddr {
        self.api_addr
    }

    /// The gateway's bound address.
    pub fn gateway_addr(&self) -> SocketAddr {
        self.gateway_addr
    }

    /// The service file's path.
    pub fn service_file(&self) -> &std::path::Path {
        &self.service_file
    }

    /// Stop both listeners, end open connections, remove the service file.
    pub async fn shutdown(mut self) -> Result<(), ServiceError> {
        self.shutdown.cancel();
        while self.tasks.join_next().await.is_some() {}
        match std::fs::remove_file(&self.service_file) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(ServiceError::File(service_file::ServiceFileError::Io {
                path: self.service_file.clone(),
                source,
            })),
        }
    }
}

/// Puts the start keys in the store, each checked as a panel key and
/// taught to the log redactor first (REDACT-1).
fn load_start_keys(
    keys: &KeyStore,
    options: &StartOptions,
    redactor: Option<&SharedRedactor>,
) -> Result<(), ServiceError> {
    let now = options.clock.unix_seconds();
    for (provider, key) in &options.keys {
        let refused = |reason: String| {
            ServiceError::Panel(PanelError::StartKey {
                source_name: options.keys_source.clone(),
                reason: format!("{} ({reason})", ploy_secrets::mask(key)),
            })
        };
        if let Some(redactor) = redactor
            && !redactor.add_secrets([key.as_str()]).is_empty()
        {
            return Err(refused("the log redactor refused it".into()));
        }
        keys.prepare_add(*provider, key, now)
            .map_err(|e| refused(e.to_string()))?
            .commit();
    }
    Ok(())
}

fn local_addr(listener: &TcpListener, asked: SocketAddr) -> Result<SocketAddr, ServiceError> {
    listener.local_addr().map_err(|source| ServiceError::Bind {
        addr: asked,
        source,
    })
}

/// How long a client may take to send its request head, and how big the
/// head may be (from the service configuration).
#[derive(Debug, Clone, Copy)]
pub(crate) struct HeadLimits {
    pub(crate) timeout: std::time::Duration,
    pub(crate) bytes: usize,
}

impl HeadLimits {
    pub(crate) fn of(config: &ServiceConfig) -> Self {
        Self {
            timeout: config.request_header_timeout,
            bytes: config.header_limit,
        }
    }
}

/// Serves HTTP/1.1 connections on `listener` with `handler` until `shutdown`.
pub(crate) async fn accept_loop<F, Fut>(
    listener: TcpListener,
    head: HeadLimits,
    shutdown: CancellationToken,
    handler: F,
) where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response<Body>> + Send + 'static,
{
    let mut connections = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
            // Reap finished connection tasks so the set stays small.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(error) => {
                // EMFILE and friends: back off briefly instead of spinning.
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let handler = handler.clone();
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(head.timeout)
            .max_buf_size(head.bytes.max(8192))
            .keep_alive(true);
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let service = service_fn(move |req| {
                let handler = handler.clone();
                async move { Ok::<_, Infallible>(handler(req).await) }
            });
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                result = connection => {
                    if let Err(error) = result {
                        tracing::debug!(%error, "connection ended with an error");
                    }
                }
                () = shutdown.cancelled() => {}
            }
        });
    }
    connections.shutdown().await;
}
