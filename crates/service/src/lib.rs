//! ploy-service: the local service started by `ploy serve`.
//!
//! * [`api`]: the HTTP API behind the service password (SVC-1), checked in a
//!   fixed order (Host → Origin → password) with constant refusal bytes.
//! * [`gateway`]: the token-gated model gateway (GW-1..GW-4) in front of a
//!   loopback OpenAI-compatible upstream, streaming.
//! * The loopback-only upstream and the one connect this crate uses
//!   ([`ploy_model::connect_loopback`]) live in ploy-model.
//! * [`service_file`]: `service-<pid>.json` (0600, O_EXCL|O_NOFOLLOW).
//! * [`config`]: the `service` section and flags (CONFIG-1, ADMIN-10).
//! * [`client`]: `ploy status` / `ploy exec`'s side of the API.
//! * [`panel`]: the key panel at `/__keys` (ADMIN-1..12, STATE-1) and
//!   `ploy keys`' client.
//! * [`research`]: `POST /v1/research`, research with the panel's keys
//!   (STATE-1), the conversation marked in the service's store first
//!   (TAINT-1, TAINT-3).

pub mod api;
pub mod auth;
pub mod client;
pub mod config;
pub mod gateway;
pub mod panel;
pub mod research;
pub mod server;
pub mod service_file;

use std::net::SocketAddr;

pub use api::{ExecToken, Health};
pub use client::{ClientError, StatusReport};
pub use config::{ConfigError, ConfigFlags, ServiceConfig, ServiceSection};
pub use ploy_model::LoopbackUpstream;
pub use research::{ResearchRequest, ResearchSetup};
pub use server::{PanelStatus, RunningService, StartOptions};
pub use service_file::{ServiceFile, ServiceFileError};

/// Why the service could not start or stop.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Bad configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Service-file problem (already running, planted file, I/O).
    #[error(transparent)]
    File(#[from] ServiceFileError),
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] ploy_store::StoreError),
    /// A listener could not be bound.
    #[error("could not listen on {addr}: {source}; pick another port or stop what uses it")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The error.
        source: std::io::Error,
    },
    /// The OS random generator failed (no secrets without it: fail closed).
    #[error("SVC-1: the operating system's random generator failed ({0}); cannot make secrets")]
    Random(String),
    /// The key panel could not start (unsafe files, start keys refused).
    #[error(transparent)]
    Panel(#[from] panel::PanelError),
    /// Signal handling or runtime failure.
    #[error("service runtime error: {0}")]
    Internal(String),
}

/// Start the service, call `on_ready` once it listens, and run until SIGINT
/// or SIGTERM; then stop and remove the service file. Blocking.
pub fn run_until_signal(
    config: ServiceConfig,
    redactor: Option<&ploy_secrets::SharedRedactor>,
    options: StartOptions,
    on_ready: impl FnOnce(&mut RunningService),
) -> Result<(), ServiceError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ServiceError::Internal(e.to_string()))?;
    runtime.block_on(async move {
        use tokio::signal::unix::{SignalKind, signal};
        // Install the handlers before anything can be told we are ready.
        let mut terminate = signal(SignalKind::terminate())
            .map_err(|e| ServiceError::Internal(format!("SIGTERM handler: {e}")))?;
        let mut interrupt = signal(SignalKind::interrupt())
            .map_err(|e| ServiceError::Internal(format!("SIGINT handler: {e}")))?;
        let mut service = RunningService::start_with(config, redactor, options).await?;
        on_ready(&mut service);
        tokio::select! {
            _ = terminate.recv() => tracing::info!("SIGTERM: stopping"),
            _ = interrupt.recv() => tracing::info!("SIGINT: stopping"),
        }
        service.shutdown().await
    })
}
