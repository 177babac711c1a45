//! Synchronous entry points for the `ploy` binary, which is synchronous in
//! `main`: each call builds a current-thread runtime, runs the async
//! pipeline, and returns the same values the async API does.

use std::{net::IpAddr, path::PathBuf, sync::Arc, time::Duration};

use tokio_util::sync::CancellationToken;

use crate::{
    door::SecretDoor,
    fetch::{Cancelled, FetchConfig, FetchOutcome, Fetcher, HopGate},
    local::check_not_this_machine,
    refusal::{Refusal, Stage},
    resolve::{
        HickoryResolver, HostsFileError, HostsFileResolver, Resolve, ResolveError, resolve_checked,
    },
    text::check_url_text,
};

/// Where names are answered from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameSource {
    /// The system's DNS servers, through hickory-resolver.
    System,
    /// A hosts(5)-format file; names missing from it are not found.
    HostsFile(PathBuf),
}

/// Why a command could not even start (not a refusal, not a fetch outcome).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The async runtime could not be built.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[from] std::io::Error),
    /// The hosts file is unusable.
    #[error(transparent)]
    Hosts(#[from] HostsFileError),
    /// The system resolver could not be built.
    #[error(transparent)]
    Resolver(#[from] ResolveError),
    /// TLS could not be configured.
    #[error("cannot configure TLS: {0}")]
    Tls(#[from] rustls::Error),
}

/// The verdict of `ploy check url`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UrlVerdict {
    /// The URL as given.
    pub url: String,
    /// The normalised URL, when the text stage passed.
    pub normalised: Option<String>,
    /// The checked addresses (empty when not resolved).
    pub addresses: Vec<IpAddr>,
    /// Whether resolution ran (false with `--no-resolve` or a refusal first).
    pub resolved: bool,
    /// The refusal, if any; `None` means allowed.
    pub refusal: Option<Refusal>,
}

impl UrlVerdict {
    /// Whether the URL is allowed.
    pub fn allowed(&self) -> bool {
        self.refusal.is_none()
    }
}

/// How long `check url` waits for the resolver.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

fn runtime() -> Result<tokio::runtime::Runtime, SetupError> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

fn resolver_for(source: &NameSource) -> Result<Arc<dyn Resolve>, SetupError> {
    Ok(match source {
        NameSource::System => Arc::new(HickoryResolver::from_system()?),
        NameSource::HostsFile(path) => Arc::new(HostsFileResolver::from_path(path)?),
    })
}

/// Runs the text stage, then (with `Some(source)`) resolution and the check
/// of every address. A name that cannot be resolved is refused (URL-2, fail
/// closed): an unchecked name is never "allowed".
pub fn check_url(url: &str, resolution: Option<&NameSource>) -> Result<UrlVerdict, SetupError> {
    let mut verdict = UrlVerdict {
        url: url.to_owned(),
        normalised: None,
        addresses: Vec::new(),
        resolved: false,
        refusal: None,
    };
    let checked = match check_url_text(url) {
        Ok(checked) => checked,
        Err(refusal) => {
            verdict.refusal = Some(refusal);
            return Ok(verdict);
        }
    };
    verdict.normalised = Some(checked.url().to_string());
    let Some(source) = resolution else {
        return Ok(verdict);
    };
    if let Some(ip) = checked.literal_address() {
        verdict.addresses = vec![ip];
        verdict.resolved = true;
        verdict.refusal = check_not_this_machine(&[ip], "the address is", Stage::Resolve).err();
        return Ok(verdict);
    }
    let Some(name) = checked.name() else {
        return Ok(verdict);
    };
    let rt = runtime()?;
    // Built inside the runtime: hickory's tokio provider wants its context.
    let resolver = rt.block_on(async { resolver_for(source) })?;
    let outcome = rt.block_on(resolve_checked(resolver.as_ref(), name, RESOLVE_TIMEOUT));
    verdict.resolved = true;
    match outcome {
        Ok(Ok(addresses)) => {
            // URL-2: never this machine, whatever the range.
            let what = format!("`{name}` resolves to");
            if let Err(refusal) = check_not_this_machine(&addresses, &what, Stage::Resolve) {
                verdict.refusal = Some(refusal);
            }
            verdict.addresses = addresses;
        }
        Ok(Err(refusal)) => verdict.refusal = Some(refusal),
        Err(err) => {
            verdict.refusal = Some(Refusal::new(
                "URL-2",
                Stage::Resolve,
                format!("{err}; a name that cannot be resolved and checked is refused"),
            ));
        }
    }
    Ok(verdict)
}

/// Fetches `url` through the full pipeline with production limits, the
/// production dialer and the given name source, `secrets` at the door
/// (BEYOND-6) and `gate` checking every hop's URL (the caller's permission
/// rules). Ctrl-C cancels the fetch.
pub fn fetch(
    url: &str,
    source: &NameSource,
    secrets: SecretDoor,
    gate: Option<HopGate>,
) -> Result<Result<FetchOutcome, Cancelled>, SetupError> {
    let rt = runtime()?;
    // The caller's door replaces the environment's one production() would
    // build (building a door is the costly part).
    let mut config = FetchConfig::with_tls(crate::fetch::default_tls_config()?);
    config.secrets = secrets;
    config.hop_gate = gate;
    let resolver = rt.block_on(async { resolver_for(source) })?;
    let fetcher = Fetcher::with_resolver(resolver, config);
    let cancel = CancellationToken::new();
    Ok(rt.block_on(async {
        let on_interrupt = cancel.clone();
        let watcher = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_interrupt.cancel();
            }
        });
        let result = fetcher.fetch(url, &cancel).await;
        watcher.abort();
        result
    }))
}
