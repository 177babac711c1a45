//! `ploy research` as one blocking call, so the CLI stays thin: load the
//! profile gate and configuration, open the store in the state folder, pick
//! or create the conversation, build the fetcher (system DNS or a hosts
//! file) with the secret door (BEYOND-6) and the permission gate (every
//! request an `Action::web` through `Permission::assert`), run on a small
//! runtime with Ctrl-C as the cancellation signal.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use ploy_egress::{FetchConfig, Fetcher, HopGate, HostsFileResolver, SecretDoor};
use ploy_model::LoopbackUpstream;
use ploy_policy::{ConversationRules, ExecutionProfile, ProjectTrust, Rules, Settings};
use ploy_secrets::{KnownSecretsError, Redactor, SecretSet, SecretSources};
use ploy_store::Store;
use tokio_util::sync::CancellationToken;

use crate::{
    backend::{PostJson, TavilyKeys},
    model::{ChatModel, ResearchModel},
    run::{Progress, Research, ResearchOutput, RunRequest, RunStatus, StoreMarker},
    tools::{BackendName, LoadError, ResearchConfig, ResearchTools, build_engine},
    web_gate::web_gate,
};

/// The environment variable naming the answer model.
pub const MODEL_ENV: &str = "PLOY_MODEL";
/// The research configuration file in the config folder.
pub const CONFIG_FILE: &str = "research.json";
/// The store file in the state folder.
pub const STORE_FILE: &str = "ploy.db";

/// What `ploy research` was asked to do.
#[derive(Debug, Clone)]
pub struct CommandOptions {
    /// The question.
    pub question: String,
    /// Backends named on the command line (none: the configured ones).
    pub backends: Vec<String>,
    /// A hosts(5) file answering names instead of DNS.
    pub hosts: Option<PathBuf>,
    /// An existing conversation (none: a new one).
    pub conversation: Option<String>,
    /// Ask the answer model.
    pub want_answer: bool,
    /// The model upstream URL (loopback; default the service's).
    pub upstream: Option<String>,
    /// The answer model's name (default `PLOY_MODEL`).
    pub model: Option<String>,
    /// The config folder (`research.json`).
    pub config_dir: PathBuf,
    /// The state folder (`ploy.db`).
    pub state_dir: PathBuf,
    /// The project whose environment files (`.env`, …) hold known secrets
    /// (the current folder for `ploy research`; none: the environment and
    /// settings only).
    pub project: Option<PathBuf>,
}

/// The known secrets of a run in `project` under the user's `settings`
/// (`ploy_secrets::known_secrets` with the settings' `secrets` lists): what
/// the redactor removes and the door refuses (REDACT-1, BEYOND-6).
pub fn run_secrets(
    project: Option<&Path>,
    settings: Option<&Settings>,
) -> Result<SecretSet, KnownSecretsError> {
    let declared = settings.map(Settings::secrets).cloned().unwrap_or_default();
    ploy_secrets::known_secrets(&SecretSources::new(project, &declared.env, &declared.files))
}

/// Why the command could not run. Each names its requirement and a hint.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// Loading refused (profile, configuration).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The hosts file or the resolver could not be set up.
    #[error("FAIL-1: {0}")]
    Network(String),
    /// The conversation store could not be opened or used.
    #[error("TAINT-3: the conversation store: {0}")]
    Store(String),
    /// The run was cancelled (Ctrl-C).
    #[error("CANCEL-1: cancelled")]
    Cancelled,
    /// A secret file cannot be read, so the door cannot know what it holds.
    #[error(transparent)]
    Secrets(#[from] KnownSecretsError),
}

impl CommandError {
    /// A hint for a person.
    pub fn hint(&self) -> String {
        match self {
            CommandError::Load(LoadError::Profile { .. }) => {
                "add {\"security_profile\": {\"sandbox\": \"workspace-write\", \"approval\": \"ask\"}} to settings.json in the config folder (PLOY_CONFIG_DIR)".into()
            }
            CommandError::Load(LoadError::Config(_)) => format!(
                "fix {CONFIG_FILE} in the config folder, or the --backend names (duckduckgo, wikipedia, tavily, searxng)"
            ),
            CommandError::Network(_) => {
                "--hosts takes a hosts(5) file: `ADDRESS NAME` per line".into()
            }
            CommandError::Store(_) => {
                "check that the state folder (PLOY_STATE_DIR) is writable, or pass an existing --conversation ID".into()
            }
            CommandError::Cancelled => "nothing was given to the model".into(),
            CommandError::Secrets(_) => {
                "make the named file readable, or fix settings `secrets` (`ploy config check`)"
                    .into()
            }
        }
    }
}

/// Runs `ploy research` to the end. `settings` is the user's parsed
/// settings (`None` when there is no file: PROFILE-2 refuses).
pub fn run_command(
    options: &CommandOptions,
    settings: Option<&Settings>,
    progress: &(dyn Fn(&Progress) + Send + Sync),
) -> Result<ResearchOutput, CommandError> {
    // PROFILE-1/2 first: nothing is opened or sent without an attested,
    // valid profile (the tool registers only then, below, as well).
    let (settings, _, rules) = profile_and_rules(settings)?;

    let secrets = run_secrets(options.project.as_deref(), Some(settings))?;
    let redactor = secrets.redactor();
    let (marker, conversation_id, conversation_rules) = open_conversation(
        &options.state_dir,
        options.conversation.as_deref(),
        &options.question,
        &redactor,
    )?;
    let (engine, notes) = command_engine(
        &options.config_dir,
        &options.backends,
        options.hosts.as_deref(),
        secrets,
        &redactor,
        web_gate("research", rules, conversation_rules),
    )?;
    for note in notes {
        tracing::warn!("{note}");
    }
    let tools = ResearchTools::register(settings, engine)?;

    let model = if options.want_answer {
        answer_model(options.model.clone(), options.upstream.as_deref())?
    } else {
        None
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|err| CommandError::Network(format!("cannot start the runtime: {err}")))?;
    runtime.block_on(async {
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        let signal = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_signal.cancel();
            }
        });
        let result = tools
            .engine()
            .run(
                RunRequest {
                    question: &options.question,
                    conversation_id: &conversation_id,
                    want_answer: options.want_answer,
                },
                model.as_deref(),
                &marker,
                progress,
                &cancel,
            )
            .await;
        signal.abort();
        let mut output = result.map_err(|_| CommandError::Cancelled)?;
        if options.want_answer && model.is_none() && output.status == RunStatus::Dossier {
            output.failure = Some(crate::backend::Failure::new(
                "FAIL-1",
                format!(
                    "no answer model is named (pass --model NAME or set {MODEL_ENV}); the dossier is the result"
                ),
            ));
        }
        Ok(output)
    })
}

/// The user's settings, their attested profile and the user's rules, as
/// research needs them: no settings → PROFILE-2; a forbidden or invalid
/// profile → its requirement (PROFILE-1). Project settings never count.
pub fn profile_and_rules(
    settings: Option<&Settings>,
) -> Result<(&Settings, ExecutionProfile, Rules), LoadError> {
    let settings = settings.ok_or_else(|| LoadError::Profile {
        requirement: "PROFILE-2",
        reason: "there is no settings.json, so no execution profile is attested; research does not run without one".into(),
    })?;
    let resolved =
        ploy_policy::resolve(Some(settings), None, ProjectTrust::Untrusted).map_err(|err| {
            LoadError::Profile {
                requirement: err.requirement(),
                reason: err.to_string(),
            }
        })?;
    Ok((settings, resolved.profile, resolved.rules))
}

/// The engine as `ploy research` and the agent's web tools build it:
/// `research.json` in `config_dir`, the `backends` named (none: the
/// configured ones), a fetcher answering names from the system resolver or
/// from the hosts(5) file `hosts`, with the secret door (BEYOND-6: every
/// secret of `secrets` ([`run_secrets`]) and the Tavily keys, which leave
/// only as their declared credential) and `gate` on every request (PERM-1: each search,
/// page and redirect hop an `Action::web` through `Permission::assert`).
/// Returns the engine and notes for a person (a backend left out, and why).
pub fn command_engine(
    config_dir: &Path,
    backends: &[String],
    hosts: Option<&Path>,
    secrets: SecretSet,
    redactor: &Redactor,
    gate: HopGate,
) -> Result<(Research, Vec<String>), CommandError> {
    EngineParts::load(config_dir, hosts, secrets)?.engine(
        backends,
        TavilyKeys::from_env(),
        redactor,
        gate,
    )
}

/// What an engine is built from, except the Tavily keys and the permission
/// gate, which may change from one run to the next: `ploy serve` loads it
/// once and builds an engine per request with the keys its panel holds at
/// that moment (STATE-1) and the gate of the request's conversation.
#[derive(Clone)]
pub struct EngineParts {
    config: ResearchConfig,
    fetcher: Fetcher,
    secrets: SecretSet,
}

impl std::fmt::Debug for EngineParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secrets are named by count only (REDACT-1).
        f.debug_struct("EngineParts")
            .field("config", &self.config)
            .field("secrets", &self.secrets.len())
            .finish_non_exhaustive()
    }
}

impl EngineParts {
    /// `research.json` in `config_dir`, the production fetcher (system DNS,
    /// or the hosts(5) file `hosts`) and the run's `secrets` ([`run_secrets`]).
    pub fn load(
        config_dir: &Path,
        hosts: Option<&Path>,
        secrets: SecretSet,
    ) -> Result<Self, CommandError> {
        let config = load_config(config_dir)?;
        let fetch_config = FetchConfig::production()
            .map_err(|err| CommandError::Network(format!("TLS setup failed: {err}")))?;
        let fetcher = match hosts {
            Some(path) => {
                let resolver = HostsFileResolver::from_path(path)
                    .map_err(|err| CommandError::Network(err.to_string()))?;
                Fetcher::with_resolver(Arc::new(resolver), fetch_config)
            }
            None => Fetcher::production(fetch_config).map_err(|err| {
                CommandError::Network(format!("the system resolver is unavailable: {err}"))
            })?,
        };
        Ok(Self::new(config, fetcher, secrets))
    }

    /// The parts themselves: a configuration, a fetcher (its own resolver
    /// and dialer) and the secrets no request may carry.
    pub fn new(config: ResearchConfig, fetcher: Fetcher, secrets: SecretSet) -> Self {
        Self {
            config,
            fetcher,
            secrets,
        }
    }

    /// Adds values no request may carry and no result may show (a running
    /// service's password and gateway token).
    pub fn add_secrets<'a>(&mut self, label: &str, values: impl IntoIterator<Item = &'a str>) {
        for value in values {
            self.secrets.insert(
                value,
                ploy_secrets::SecretOrigin::Given {
                    label: label.to_owned(),
                },
            );
        }
    }

    /// The redactor for results: the secrets above (the engine adds the
    /// Tavily keys it is built with).
    pub fn redactor(&self) -> Redactor {
        self.secrets.redactor()
    }

    /// Whether an engine could be built with `backends` and `keys`
    /// (names known, at least one backend usable), without building it:
    /// cheap, so a caller can refuse before it writes or sends anything.
    pub fn check(&self, backends: &[String], keys: &TavilyKeys) -> Result<(), CommandError> {
        let chosen = backends
            .iter()
            .map(|name| BackendName::parse(name))
            .collect::<Result<Vec<_>, _>>()?;
        self.config.limits()?;
        self.config.backends(&chosen, keys.clone(), None)?;
        Ok(())
    }

    /// An engine with `keys` for Tavily and `gate` on every request: the
    /// fetcher gets the secret door (the secrets and the keys; a key leaves
    /// only as Tavily's declared credential, BEYOND-6) and the gate, and
    /// Tavily POSTs through that same fetcher.
    pub fn engine(
        &self,
        backends: &[String],
        keys: TavilyKeys,
        redactor: &Redactor,
        gate: HopGate,
    ) -> Result<(Research, Vec<String>), CommandError> {
        let chosen = backends
            .iter()
            .map(|name| BackendName::parse(name))
            .collect::<Result<Vec<_>, _>>()?;
        let door = SecretDoor::new(
            self.secrets
                .values()
                .chain(keys.values().iter().map(String::as_str)),
        );
        let fetcher = self.fetcher.with_secrets(door).with_hop_gate(gate);
        // build_engine teaches the keys to the redactor.
        let poster: Arc<dyn PostJson> = Arc::new(fetcher.clone());
        Ok(build_engine(
            &self.config,
            &chosen,
            keys,
            Some(poster),
            fetcher,
            redactor,
        )?)
    }
}

/// The answer model named by `model` (else `PLOY_MODEL`) on the loopback
/// `upstream` (else the service's gateway); `None` when no model is named
/// (`ploy research`, `ploy mcp`).
pub fn answer_model(
    model: Option<String>,
    upstream: Option<&str>,
) -> Result<Option<Box<dyn ResearchModel>>, CommandError> {
    let name = model.or_else(|| std::env::var(MODEL_ENV).ok().filter(|m| !m.is_empty()));
    let Some(name) = name else {
        return Ok(None);
    };
    let url = upstream.unwrap_or(ploy_model::DEFAULT_UPSTREAM);
    let upstream = LoopbackUpstream::parse(url)
        .map_err(|err| LoadError::Config(format!("the model upstream: {err}")))?;
    Ok(Some(Box::new(ChatModel::new(upstream, name))))
}

fn load_config(config_dir: &Path) -> Result<ResearchConfig, CommandError> {
    let path = config_dir.join(CONFIG_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => ResearchConfig::parse(&text).map_err(|err| {
            CommandError::Load(LoadError::Config(format!("{}: {err}", path.display())))
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(ResearchConfig::default()),
        Err(err) => Err(CommandError::Load(LoadError::Config(format!(
            "cannot read {}: {err}",
            path.display()
        )))),
    }
}

fn open_conversation(
    state_dir: &Path,
    conversation: Option<&str>,
    question: &str,
    redactor: &Redactor,
) -> Result<(StoreMarker, String, ConversationRules), CommandError> {
    // The state folder holds the store: created 0700, tightened when it
    // grants group or other access (SVC-1).
    if let ploy_dirs::PrivateDir::Tightened { was } = ploy_dirs::ensure_private_dir(state_dir)
        .map_err(|err| CommandError::Store(err.to_string()))?
    {
        tracing::warn!(
            "SVC-1: the state folder {} had mode {was:o}; tightened to owner-only",
            state_dir.display()
        );
    }
    let mut store = Store::open(state_dir.join(STORE_FILE))
        .map_err(|err| CommandError::Store(err.to_string()))?;
    let id = match conversation {
        Some(id) => {
            store
                .conversation(id)
                .map_err(|err| CommandError::Store(err.to_string()))?;
            id.to_owned()
        }
        None => {
            let redacted = redactor.redact(question);
            let title: String = redacted.chars().take(60).collect();
            store
                .create_conversation(&format!("research: {title}"))
                .map_err(|err| CommandError::Store(err.to_string()))?
                .id
        }
    };
    // The conversation's own rules and marks (a tainted conversation given
    // with --conversation keeps its mark; nothing here removes one).
    let rules = store
        .conversation_rules(&id)
        .map_err(|err| CommandError::Store(err.to_string()))?;
    Ok((StoreMarker::new(store), id, rules))
}
