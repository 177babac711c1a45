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
    pub(crate) gateway_hosts: HostAllowlist,
    pub(crate) api_addr: SocketAddr,
    pub(crate) gateway_addr: SocketAddr,
    pub(crate) pid: u32,
}

/// A started service. Call [`RunningService::shutdown`] to stop it and
/// remove its service file.
pub struct RunningService {
    api_addr: SocketAddr,
    gateway_addr: SocketAddr,
    service_file: PathBuf,
    shutdown: CancellationToken,
    tasks: JoinSet<()>,
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
        let service_file = service_file::write(&config.state_dir, &file)?;

        let shared = Arc::new(Shared {
            password: SecretDigest::of(&password),
            gateway_token_digest: SecretDigest::of(&gateway_token),
            gateway_token,
            api_hosts: HostAllowlist::for_listener(api_addr),
            gateway_hosts: HostAllowlist::for_listener(gateway_addr),
            api_addr,
            gateway_addr,
            pid,
            store: Arc::new(Mutex::new(store)),
            config,
        });
        let shutdown = CancellationToken::new();
        let mut tasks = JoinSet::new();
        {
            let shared_api = shared.clone();
            tasks.spawn(accept_loop(
                api_listener,
                shared.clone(),
                shutdown.clone(),
                move |req| api::handle(shared_api.clone(), req),
            ));
            let shared_gw = shared.clone();
            tasks.spawn(accept_loop(
                gateway_listener,
                shared.clone(),
                shutdown.clone(),
                move |req| gateway::handle(shared_gw.clone(), req),
            ));
        }
        tracing::info!(%api_addr, %gateway_addr, pid, "ploy service started");
        Ok(RunningService {
            api_addr,
            gateway_addr,
            service_file,
            shutdown,
            tasks,
        })
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

fn local_addr(listener: &TcpListener, asked: SocketAddr) -> Result<SocketAddr, ServiceError> {
    listener.local_addr().map_err(|source| ServiceError::Bind {
        addr: asked,
        source,
    })
}

async fn accept_loop<F, Fut>(
    listener: TcpListener,
    shared: Arc<Shared>,
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
            .header_read_timeout(shared.config.request_header_timeout)
            .max_buf_size(shared.config.header_limit.max(8192))
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
