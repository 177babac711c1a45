//! `ploy [-p "PROMPT"] [--mode text|json|rpc] [--continue | --conversation ID]
//! [--model NAME] [--upstream URL] [--hosts FILE] [-a | -na]`
//!
//! `-p` runs one prompt (text or JSON events); `--mode rpc` reads commands
//! on stdin (agent_rpc.rs); `ploy` alone is the interactive terminal
//! (agent_tui.rs). All three open sessions through [`Wiring`].
//!
//! Thin: trust and settings load in ploy-trust / ploy-policy, the model
//! connection and the loop live in ploy-agent, the web engine in
//! ploy-research. This module wires them, prints, and maps the outcome to an
//! exit code: 0 answered (refusals included), 1 model/server/runtime error,
//! 2 usage or settings, 3 a limit, 130 interrupted.
//!
//! Non-interactive (TRUST-7, PERM-5): no question is ever asked. Project
//! trust without a saved decision follows `default_project_trust` (`ask`
//! and `never` skip, `always` trusts) unless `-a` / `-na` says otherwise; a
//! permission that asks is refused and the refusal goes to the model.
//! Stdin, when piped, is read once and put before the prompt; it is never
//! read for an answer.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use ploy_agent::approve::NoPerson;
use ploy_agent::ask::printable;
use ploy_agent::config::AgentConfig;
use ploy_agent::connect::{ConnectOptions, Route, connect_with, find_service};
use ploy_agent::event::{Event, EventSink, json_line};
use ploy_agent::session::{Outcome, Resume, Session, SessionError, SessionSetup, system_prompt};
use ploy_agent::tools::builtin_registry;
use ploy_agent::tools::web::WebSetup;
use ploy_policy::PloyFolders;
use ploy_research::model::ChatModel;
use ploy_secrets::{Redactor, SharedRedactor};
use ploy_service::ServiceSection;
use ploy_service::gateway::GatewayToken;
use ploy_store::Store;
use ploy_trust::{LoadOptions, LoadedProject, PloyDirs, ScriptedPrompt, UiMode, load_project};
use tokio_util::sync::CancellationToken;

/// The most piped stdin read before the prompt (beyond: a usage error).
const MAX_STDIN_BYTES: usize = 4 * 1024 * 1024;

const EXIT_RUNTIME: u8 = 1;
const EXIT_USAGE: u8 = 2;

/// The agent's flags (on `ploy` itself, not a subcommand).
#[derive(Debug, clap::Args)]
pub struct AgentArgs {
    /// Run PROMPT to its end and print the final answer (piped stdin is put
    /// before it; nobody is asked anything: an ask is a refusal).
    #[arg(short = 'p', long = "print", value_name = "PROMPT")]
    pub print: Option<String>,
    /// How the agent talks: `text` (the answer on stdout), `json` (one JSON
    /// event per line on stdout) or `rpc` (JSON commands on stdin, events
    /// and responses on stdout); see docs/rpc.md.
    #[arg(long, value_enum, value_name = "MODE")]
    pub mode: Option<Mode>,
    /// Continue the newest conversation of this project (its marks too).
    #[arg(short = 'c', long = "continue", conflicts_with = "conversation")]
    pub continue_latest: bool,
    /// Continue this conversation (it must belong to this project).
    #[arg(long, value_name = "ID")]
    pub conversation: Option<String>,
    /// The model name (a running service's pinned model wins).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The model server's chat-completions URL (loopback http:// only), used
    /// when no `ploy serve` is running.
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// Answer web names from a hosts(5)-format file instead of DNS.
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Trust the project for this run only (TRUST-7).
    #[arg(short = 'a', long = "approve", conflicts_with = "no_approve")]
    pub approve: bool,
    /// Do not trust the project for this run (`-na`).
    #[arg(long = "no-approve", visible_alias = "na")]
    pub no_approve: bool,
}

/// How a run prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// The final answer on stdout; tool activity on stderr.
    Text,
    /// One JSON event per line on stdout (docs/rpc.md).
    Json,
    /// JSON commands on stdin, JSON events and responses on stdout
    /// (docs/rpc.md); approvals are answered with `approve` commands.
    Rpc,
}

/// Why a run could not start, for a person (and the `error` event).
pub(crate) struct Failure {
    pub(crate) code: u8,
    pub(crate) message: String,
    pub(crate) hint: Option<String>,
}

pub(crate) fn usage(message: impl Into<String>, hint: impl Into<String>) -> Failure {
    Failure {
        code: EXIT_USAGE,
        message: message.into(),
        hint: Some(hint.into()),
    }
}

pub(crate) fn runtime(message: impl Into<String>) -> Failure {
    Failure {
        code: EXIT_RUNTIME,
        message: message.into(),
        hint: None,
    }
}

/// Prints events: JSON lines on stdout, or a short trace on stderr. Every
/// text in an event has passed the redactor already; every text printed
/// passes [`printable`] (JSON lines: `json_line`'s escapes), as it may carry
/// what the model or a page wrote (tui-rpc #2).
struct Printer {
    json: bool,
}

impl EventSink for Printer {
    fn emit(&self, event: &Event) {
        if self.json {
            // stdout is line-buffered: each event leaves at its newline. A
            // closed stdout ends the process quietly (out.rs).
            println!("{}", event.to_json_line());
            return;
        }
        match event {
            Event::ToolCall { name, args, .. } => {
                eprintln!("ploy: tool {} {}", printable(name), json_line(args))
            }
            Event::Decision {
                verdict,
                rule,
                reason,
                ..
            } => match verdict.as_str() {
                "deny" => eprintln!("ploy:   refused ({rule}): {}", printable(reason)),
                "ask" => eprintln!(
                    "ploy:   refused (PERM-5: it asks under {rule} and nobody can answer): {}",
                    printable(reason)
                ),
                _ => {}
            },
            Event::Mark { reason, .. } => {
                eprintln!(
                    "ploy: this conversation is now marked ploy_tainted: {}",
                    printable(reason)
                )
            }
            _ => {}
        }
    }
}

impl Printer {
    fn fail(&self, failure: &Failure) -> ExitCode {
        eprintln!("ploy: {}", printable(&failure.message));
        if let Some(hint) = &failure.hint {
            eprintln!("hint: {}", printable(hint));
        }
        if self.json {
            self.emit(&Event::Error {
                message: failure.message.clone(),
                rule: None,
            });
            self.emit(&Event::End {
                exit_code: i32::from(failure.code),
            });
        }
        ExitCode::from(failure.code)
    }
}

/// Run `ploy` with the agent's flags. `log` is the process's log redactor
/// (it learns the gateway token, and every printed text is redacted with it).
pub fn run(args: AgentArgs, log: Option<&SharedRedactor>) -> ExitCode {
    let printer = Printer {
        json: matches!(args.mode, Some(Mode::Json | Mode::Rpc)),
    };
    match run_inner(&args, log, &printer) {
        Ok(code) => code,
        Err(failure) => printer.fail(&failure),
    }
}

/// The prompt: piped stdin (if any) before `-p`'s text.
fn prompt_text(print: &str) -> Result<String, Failure> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(print.to_string());
    }
    let mut piped = Vec::new();
    stdin
        .lock()
        .take(MAX_STDIN_BYTES as u64 + 1)
        .read_to_end(&mut piped)
        .map_err(|e| runtime(format!("reading stdin: {e}")))?;
    if piped.len() > MAX_STDIN_BYTES {
        return Err(usage(
            format!("piped stdin is longer than {MAX_STDIN_BYTES} bytes"),
            "pipe less, or name a file in the prompt for the model to read",
        ));
    }
    let piped = String::from_utf8(piped)
        .map_err(|_| usage("piped stdin is not UTF-8 text", "pipe text"))?;
    Ok(match (piped.trim().is_empty(), print.is_empty()) {
        (true, _) => print.to_string(),
        (false, true) => piped,
        (false, false) => format!("{}\n\n{print}", piped.trim_end()),
    })
}

fn load(
    args: &AgentArgs,
    dirs: &PloyDirs,
    mode: UiMode,
    prompt: Option<&mut dyn ploy_trust::TrustPrompt>,
) -> Result<LoadedProject, Failure> {
    let mut options = LoadOptions::new(".");
    options.flag = match (args.approve, args.no_approve) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    options.mode = mode;
    // TRUST-7: a question only in the interactive mode on a terminal; in
    // -p, json and rpc the resolver does not ask, and this prompt would
    // refuse if it ever did.
    options.stdin_is_tty = prompt.is_some();
    let mut never = ScriptedPrompt::failing("non-interactive run (TRUST-7)");
    let prompt: &mut dyn ploy_trust::TrustPrompt = match prompt {
        Some(prompt) => prompt,
        None => &mut never,
    };
    load_project(dirs, &options, prompt).map_err(|e| {
        usage(
            e.to_string(),
            "fix the file named above (`ploy config check` validates settings)",
        )
    })
}

/// What every face opens sessions from: settings, rules, profile, the
/// project and its system prompt (loaded once per process).
pub(crate) struct Wiring {
    pub(crate) dirs: PloyDirs,
    pub(crate) rules: ploy_policy::Rules,
    pub(crate) profile: ploy_policy::ExecutionProfile,
    pub(crate) config: AgentConfig,
    pub(crate) service: ServiceSection,
    pub(crate) project: PathBuf,
    pub(crate) system_prompt: String,
    pub(crate) hosts: Option<PathBuf>,
    /// One line: whether the project's files were trusted, and why (`/trust`).
    pub(crate) trust: String,
    /// The run's known secrets: the environment, the project's `.env`
    /// files, settings `secrets` (REDACT-1, BEYOND-6).
    pub(crate) secrets: ploy_secrets::SecretSet,
}

/// The model connection and the redactor that knows its token.
pub(crate) struct Linked {
    pub(crate) connection: ploy_agent::connect::Connection,
    pub(crate) redactor: Redactor,
}

impl Wiring {
    /// Load trust, settings and the agent's configuration; `prompt` asks
    /// the trust question in the interactive mode (TRUST-7: never otherwise).
    pub(crate) fn load(
        args: &AgentArgs,
        mode: UiMode,
        prompt: Option<&mut dyn ploy_trust::TrustPrompt>,
    ) -> Result<Self, Failure> {
        let dirs = PloyDirs::from_env()
            .map_err(|e| usage(e.to_string(), "set PLOY_CONFIG_DIR and PLOY_STATE_DIR"))?;
        let loaded = load(args, &dirs, mode, prompt)?;
        for warning in &loaded.warnings {
            eprintln!("ploy: {}", printable(&warning.to_string()));
        }
        if let Some(notice) = loaded.skipped_notice() {
            eprintln!("ploy: {}", printable(&notice.to_string()));
        }
        let resolved = loaded.resolved_settings().map_err(|e| {
            usage(
                e.to_string(),
                "add {\"security_profile\": {\"sandbox\": \"workspace-write\", \"approval\": \"ask\"}} to settings.json in the config folder",
            )
        })?;
        let user_settings = loaded.user.settings.as_ref();
        let config = AgentConfig::from_settings(user_settings).map_err(|e| {
            usage(
                e.to_string(),
                "fix the `model` / `agent` settings named above",
            )
        })?;
        let service = match user_settings.and_then(|s| s.service()) {
            Some(section) => {
                ServiceSection::from_value(section.clone(), &loaded.user.path.display().to_string())
                    .map_err(|e| usage(e.to_string(), "fix the `service` settings named above"))?
            }
            None => ServiceSection::default(),
        };
        let project = loaded.resolution.cwd.clone();
        // Fail closed: a secret file that cannot be read stops the run
        // before anything reaches the model (REDACT-1, BEYOND-6).
        let secrets =
            ploy_research::command::run_secrets(Some(&project), user_settings).map_err(|e| {
                usage(
                    e.to_string(),
                    "make the named file readable, or fix settings `secrets` (`ploy config check`)",
                )
            })?;
        let context: Vec<(PathBuf, String)> = loaded
            .context_files
            .iter()
            .chain(loaded.system_prompt.iter())
            .chain(loaded.append_system_prompt.iter())
            .map(|f| (f.path.clone(), f.text.clone()))
            .collect();
        // The state folder holds the store: created 0700, tightened when it
        // grants group or other access (SVC-1).
        if let ploy_dirs::PrivateDir::Tightened { was } =
            ploy_dirs::ensure_private_dir(&dirs.state).map_err(|e| runtime(e.to_string()))?
        {
            eprintln!(
                "ploy: SVC-1: the state folder {} had mode {was:o}; tightened to owner-only",
                dirs.state.display()
            );
        }
        Ok(Self {
            system_prompt: system_prompt(&project, &context),
            dirs,
            rules: resolved.rules,
            profile: resolved.profile,
            config,
            service,
            project,
            hosts: args.hosts.clone(),
            trust: trust_line(&loaded.resolution),
            secrets,
        })
    }

    /// The conversation to open first (`--continue`, `--conversation ID`).
    pub(crate) fn resume_of(args: &AgentArgs) -> Resume {
        match (&args.conversation, args.continue_latest) {
            (Some(id), _) => Resume::Id(id.clone()),
            (None, true) => Resume::Latest,
            (None, false) => Resume::New,
        }
    }

    /// Connect to the model (the running service's gateway, or one for
    /// this process), with the redactor that knows every secret of the run.
    ///
    /// The redactor is built on its own thread while the connection is
    /// made (issue 11: its build is the costliest step before the first
    /// request); this returns only once it is built, so nothing is shown or
    /// sent before it exists. The gateway token in use is known first (the
    /// running service's, or the one made here for this run's gateway), so
    /// one build covers everything.
    pub(crate) async fn link(
        &self,
        args: &AgentArgs,
        log: Option<&SharedRedactor>,
    ) -> Result<Linked, Failure> {
        let service = find_service(self.dirs.state.clone())
            .await
            .map_err(|e| runtime(e.to_string()))?;
        let token = GatewayToken::new().map_err(|e| runtime(e.to_string()))?;
        let token_in_use = match service.token() {
            Some(token) => Some(token.to_owned()),
            None if service.not_running() => Some(token.secret().to_owned()),
            None => None,
        };
        // Every secret the run knows (the project's `.env` values too, for
        // the log as well), the gateway token included.
        let building = log.and_then(|log| {
            log.add_secrets(self.secrets.values());
            log.add_secrets(token_in_use.iter());
            log.build_in_background()
        });
        let connection = connect_with(
            ConnectOptions {
                state_dir: self.dirs.state.clone(),
                upstream: args
                    .upstream
                    .clone()
                    .or_else(|| self.config.upstream.clone()),
                model: args.model.clone().or_else(|| self.config.model.clone()),
                model_from_flag: args.model.is_some(),
                service: self.service.clone(),
            },
            service,
            token,
            log,
        )
        .await;
        if let Some(building) = building {
            // Waited for even when the connection failed: the failure is
            // printed through the redactor's log.
            let _ = tokio::task::spawn_blocking(move || building.join()).await;
        }
        let connection = connection.map_err(|e| {
            if e.is_usage() {
                usage(e.to_string(), "--upstream takes a loopback http:// chat-completions URL, e.g. http://127.0.0.1:11434/v1/chat/completions")
            } else {
                runtime(e.to_string())
            }
        })?;
        for note in &connection.notes {
            eprintln!("ploy: {}", printable(&note.to_string()));
        }
        if let Route::Local { upstream, .. } = &connection.route {
            tracing::info!(%upstream, "a model gateway was started for this run");
        }
        let redactor = match log {
            Some(log) => log.current(),
            None => None,
        }
        .unwrap_or_else(|| {
            Redactor::new(self.secrets.values().map(str::to_owned).chain(token_in_use)).0
        });
        Ok(Linked {
            connection,
            redactor,
        })
    }

    /// Open a session (a new conversation titled by `first_prompt`, or a
    /// resumed one with its marks, TAINT-2).
    pub(crate) fn open(
        &self,
        linked: &Linked,
        resume: Resume,
        first_prompt: &str,
        events: Arc<dyn EventSink>,
    ) -> Result<Session, Failure> {
        // The full check of a grown store runs while the first request is
        // made; no decision is made before it passed (issue 11).
        let store = Store::open_checking_in_background(self.dirs.state.join("ploy.db"))
            .map_err(|e| runtime(e.to_string()))?;
        let client = linked.connection.client.clone();
        let web = WebSetup {
            config_dir: self.dirs.config.clone(),
            hosts: self.hosts.clone(),
            answer_model: Some(Arc::new(ChatModel::with_client(client.clone()))),
            research: None,
            secrets: self.secrets.clone(),
        };
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let setup = SessionSetup {
            store,
            project: self.project.clone(),
            rules: self.rules.clone(),
            profile: self.profile,
            redactor: linked.redactor.clone(),
            web: Some(web),
            model: client,
            config: self.config.clone(),
            resume,
            title: first_prompt
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .to_string(),
            system_prompt: self.system_prompt.clone(),
            events,
            registry: builtin_registry().map_err(|e| runtime(e.to_string()))?,
            launcher: None,
            home: home.clone(),
            ploy_folders: PloyFolders {
                config_dir: Some(self.dirs.config.clone()),
                state_dir: Some(self.dirs.state.clone()),
                trust_file: Some(self.dirs.trust_file()),
                home,
            },
        };
        Session::open(setup).map_err(|e| match e {
            SessionError::OtherProject { .. }
            | SessionError::Store(ploy_store::StoreError::NoSuchConversation { .. }) => usage(
                e.to_string(),
                "`ploy conversations` lists this project's conversations",
            ),
            other => runtime(other.to_string()),
        })
    }
}

fn trust_line(resolution: &ploy_trust::Resolution) -> String {
    let state = if resolution.is_trusted() {
        "trusted"
    } else {
        "not trusted (its settings, context files and extensions are not loaded)"
    };
    format!(
        "{}: {state}; decided by {:?}: {}",
        resolution.cwd.display(),
        resolution.decided_by,
        resolution.reason
    )
}

/// A multi-threaded runtime of two workers (the model client, the gateway,
/// the blocking tool work).
pub(crate) fn runtime_for_agent() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| runtime(format!("cannot start the async runtime: {e}")))
}

fn run_inner(
    args: &AgentArgs,
    log: Option<&SharedRedactor>,
    printer: &Printer,
) -> Result<ExitCode, Failure> {
    let mode = args.mode.unwrap_or(Mode::Text);
    if mode == Mode::Rpc {
        if args.print.is_some() {
            return Err(usage(
                "--mode rpc reads its prompts from stdin as commands; it takes no -p",
                "ploy --mode rpc, then write {\"type\":\"prompt\",\"message\":\"...\"} lines (docs/rpc.md)",
            ));
        }
        return super::agent_rpc::run(args, log);
    }
    let Some(print) = &args.print else {
        if mode == Mode::Json {
            return Err(usage(
                "--mode json needs -p PROMPT",
                "ploy -p \"PROMPT\" --mode json, or ploy --mode rpc for many prompts",
            ));
        }
        return super::agent_tui::run(args, log);
    };
    let prompt = prompt_text(print)?;
    if prompt.trim().is_empty() {
        return Err(usage("the prompt is empty", "ploy -p \"PROMPT\""));
    }
    let ui = if mode == Mode::Json {
        UiMode::Json
    } else {
        UiMode::Print
    };
    let wiring = Wiring::load(args, ui, None)?;
    let rt = runtime_for_agent()?;
    let result = rt.block_on(async {
        let linked = wiring.link(args, log).await?;
        let events: Arc<dyn EventSink> = Arc::new(Printer { json: printer.json });
        let mut session = wiring.open(&linked, Wiring::resume_of(args), &prompt, events)?;
        let cancel = CancellationToken::new();
        let on_signal = cancel.clone();
        let signal = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_signal.cancel();
            }
        });
        let outcome = session.prompt(&prompt, &NoPerson, &cancel).await;
        signal.abort();
        drop(linked);
        Ok(outcome)
    });
    // A sandboxed command still running after an interrupt is not waited
    // for: it dies with this process (PDEATHSIG).
    rt.shutdown_background();
    let outcome = result?;
    let code = outcome.exit_code();
    match &outcome {
        // The answer is the model's text: shown, never acted on by the
        // terminal (tui-rpc #2).
        Outcome::Answered(text) if !printer.json => println!("{}", printable(text)),
        Outcome::Answered(_) => {}
        Outcome::Limit(hit) => eprintln!("ploy: {}", printable(&hit.to_string())),
        Outcome::Model(message) | Outcome::Runtime(message) => {
            eprintln!("ploy: {}", printable(message))
        }
        Outcome::Interrupted => eprintln!("ploy: interrupted"),
    }
    if printer.json {
        printer.emit(&Event::End { exit_code: code });
    }
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(EXIT_RUNTIME)))
}
