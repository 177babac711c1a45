//! `ploy serve`, `ploy status`, `ploy exec`
//!
//! `ploy serve` takes its `service` section from `--config FILE` when given,
//! else from the user's settings (`settings.json` in the config folder). A
//! missing user settings file means defaults; a malformed one is an error
//! (CONFIG-1), never a silent default. Project settings are never read: the
//! service is the user's, not a repository's.

use std::path::PathBuf;
use std::process::ExitCode;

use std::io::IsTerminal;

use ploy_service::config::{STATE_DIR_ENV, state_dir_from_env};
use ploy_service::panel::keys::Provider;
use ploy_service::{
    ConfigFlags, PanelStatus, RunningService, ServiceConfig, ServiceSection, StartOptions,
};

/// Arguments of `ploy serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// API listen address (default: 127.0.0.1 on a free port). Non-loopback
    /// addresses are refused (ADMIN-10).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<String>,
    /// Gateway listen address (default: 127.0.0.1 on a free port; loopback only).
    #[arg(long, value_name = "ADDR:PORT")]
    pub gateway_listen: Option<String>,
    /// A JSON file whose `service` object configures the service (unknown
    /// keys are errors). Flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The model upstream (loopback http:// only; default Ollama's
    /// http://127.0.0.1:11434/v1/chat/completions).
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// Pin every gateway request to this model name.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Gateway request body limit in bytes (default 4 MiB).
    #[arg(long, value_name = "BYTES")]
    pub body_limit: Option<usize>,
    /// Answer the names research looks up (POST /v1/research) from a
    /// hosts(5)-format file instead of DNS, as `ploy research --hosts`.
    #[arg(long, value_name = "FILE")]
    pub research_hosts: Option<PathBuf>,
}

/// Arguments of `ploy status`.
#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// Print machine-readable JSON (running, pid, api_port, gateway_port).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy exec`.
#[derive(Debug, clap::Args)]
pub struct ExecArgs {
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<String>,
}

fn fail(command: &str, error: impl std::fmt::Display, hint: &str, code: u8) -> ExitCode {
    eprintln!("ploy {command}: {error}");
    if !hint.is_empty() {
        eprintln!("hint: {hint}");
    }
    ExitCode::from(code)
}

fn load_section(path: &PathBuf) -> Result<ServiceSection, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("CONFIG-1: {}: {e}", path.display()))?;
    match value.get("service") {
        Some(section) => ServiceSection::from_value(section.clone(), &path.display().to_string())
            .map_err(|e| e.to_string()),
        None => Err(format!(
            "CONFIG-1: {} has no `service` object",
            path.display()
        )),
    }
}

/// The `service` section of the user's settings, or the defaults when the file
/// does not exist or has no such section.
fn user_section() -> Result<ServiceSection, String> {
    let dirs = ploy_trust::PloyDirs::from_env().map_err(|e| e.to_string())?;
    let user = ploy_trust::load_user_settings(&dirs).map_err(|e| e.to_string())?;
    match user.settings.as_ref().and_then(|s| s.service()) {
        Some(section) => {
            ServiceSection::from_value(section.clone(), &user.path.display().to_string())
                .map_err(|e| e.to_string())
        }
        None => Ok(ServiceSection::default()),
    }
}

/// `ploy serve`: run the service in the foreground until SIGINT/SIGTERM.
/// The process's log redactor (installed first thing in main) learns the
/// service password and the gateway token (GW-4: no log line can carry them).
pub fn serve_with_redactor(
    args: ServeArgs,
    redactor: Option<&ploy_secrets::SharedRedactor>,
) -> ExitCode {
    let section = match &args.config {
        Some(path) => match load_section(path) {
            Ok(section) => section,
            Err(e) => return fail("serve", e, "fix the named key or value", 2),
        },
        None => match user_section() {
            Ok(section) => section,
            Err(e) => return fail("serve", e, "fix the named key or value", 2),
        },
    };
    let flags = ConfigFlags {
        listen: args.listen,
        gateway_listen: args.gateway_listen,
        upstream: args.upstream,
        model: args.model,
        body_limit_bytes: args.body_limit,
    };
    let state_env = std::env::var_os(STATE_DIR_ENV).map(PathBuf::from);
    let config = match ServiceConfig::load(section, flags, state_env) {
        Ok(config) => config,
        Err(e) => {
            return fail(
                "serve",
                e,
                "listen on loopback, e.g. --listen 127.0.0.1:0 (the default)",
                2,
            );
        }
    };
    let upstream = config.upstream.to_string();
    let research = research_setup(&config, args.research_hosts.as_deref());
    match &research {
        Ok(_) => println!("ploy serve: research offered at POST /v1/research"),
        Err(reason) => eprintln!("ploy serve: research is not offered: {reason}"),
    }
    // STATE-1: the keys the service starts with come from the environment
    // only, as for `ploy research`; the panel changes them in memory.
    let options = StartOptions {
        keys: ploy_research::TavilyKeys::from_env()
            .values()
            .iter()
            .map(|key| (Provider::Tavily, key.clone()))
            .collect(),
        keys_source: ploy_research::TavilyKeys::ENV.into(),
        research,
        ..StartOptions::default()
    };
    let result = ploy_service::run_until_signal(config, redactor, options, |service| {
        println!(
            "ploy serve: running (pid {}): api http://{} gateway http://{}/v1 upstream {} service file {}",
            std::process::id(),
            service.api_addr(),
            service.gateway_addr(),
            upstream,
            service.service_file().display()
        );
        announce_panel(service);
    });
    match result {
        Ok(()) => {
            println!("ploy serve: stopped");
            ExitCode::SUCCESS
        }
        Err(e) => fail("serve", e, "", 1),
    }
}

/// What `POST /v1/research` runs with, as `ploy research` loads it: the
/// user's settings (PROFILE-1/2, the user's rules), `research.json` in the
/// config folder, the system resolver (or the `--research-hosts` file),
/// the environment's secrets, and the
/// answer model (`--model` / `service.model`, else PLOY_MODEL) on the
/// service's upstream. `Err`: why research is not offered (the service
/// still runs; the route answers with this reason).
fn research_setup(
    config: &ServiceConfig,
    hosts: Option<&std::path::Path>,
) -> Result<ploy_service::ResearchSetup, String> {
    let dirs = ploy_trust::PloyDirs::from_env().map_err(|e| e.to_string())?;
    let user = ploy_trust::load_user_settings(&dirs).map_err(|e| e.to_string())?;
    // The service serves no one project: the environment and settings
    // `secrets` are its known secrets.
    let secrets = ploy_research::command::run_secrets(None, user.settings.as_ref())
        .map_err(|e| e.to_string())?;
    let parts = ploy_research::command::EngineParts::load(&dirs.config, hosts, secrets)
        .map_err(|e| format!("{e} (hint: {})", e.hint()))?;
    let model = ploy_research::command::answer_model(
        config.model.clone(),
        Some(&config.upstream.to_string()),
    )
    .map_err(|e| e.to_string())?
    .map(std::sync::Arc::from);
    ploy_service::ResearchSetup::new(user.settings.as_ref(), parts, model)
        .map_err(|e| e.to_string())
}

/// Tells the operator where the key panel is, shows a first admin token
/// once (only to a terminal), or says loudly why the panel is not mounted.
fn announce_panel(service: &mut RunningService) {
    match service.panel_status() {
        PanelStatus::Mounted { url } => println!("ploy serve: key panel {url}"),
        PanelStatus::NotMounted { reason } => {
            eprintln!("ploy serve: WARNING: {reason}");
            return;
        }
    }
    let Some(token) = service.take_first_admin_token() else {
        return;
    };
    if std::io::stdout().is_terminal() {
        println!(
            "ploy serve: the key panel's admin token (shown once, only its digest is kept; \
             `ploy keys admin-token --rotate` makes a new one):\n\n    {}\n",
            token.expose()
        );
    } else {
        println!(
            "ploy serve: a key panel admin token was made but is not printed because standard \
             output is not a terminal; run `ploy keys admin-token --rotate` to get one"
        );
    }
}

/// `ploy status`: is a service running? Exit 0 when it is, 3 when not.
pub fn status(args: StatusArgs) -> ExitCode {
    let state_dir = match state_dir_from_env() {
        Ok(dir) => dir,
        Err(e) => return fail("status", e, "", 1),
    };
    let report = match ploy_service::client::status(&state_dir) {
        Ok(report) => report,
        Err(e) => return fail("status", e, "", 1),
    };
    if args.json {
        match serde_json::to_string(&report) {
            Ok(line) => println!("{line}"),
            Err(e) => return fail("status", e, "", 1),
        }
    } else if let (true, Some(pid), Some(api), Some(gateway)) = (
        report.running,
        report.pid,
        report.api_port,
        report.gateway_port,
    ) {
        println!("ploy service: running (pid {pid}), api port {api}, gateway port {gateway}");
    } else {
        println!("ploy service: not running ({})", report.detail);
    }
    if report.running {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    }
}

/// `ploy exec -- PROGRAM ARGS`: run PROGRAM with OPENAI_BASE_URL and
/// OPENAI_API_KEY (the gateway token) in its environment only, with ploy's
/// state and config folders hidden and no `PLOY_*` variable (SVC-1).
pub fn exec(args: ExecArgs) -> ExitCode {
    let state_dir = match state_dir_from_env() {
        Ok(dir) => dir,
        Err(e) => return fail("exec", e, "", 1),
    };
    let hide = match folders_to_hide(&state_dir) {
        Ok(hide) => hide,
        Err(e) => return fail("exec", e, "", 1),
    };
    let launcher = match std::env::current_exe() {
        Ok(path) => path,
        Err(e) => {
            return fail(
                "exec",
                format!("SVC-1: cannot find the ploy binary: {e}"),
                "",
                1,
            );
        }
    };
    let credentials = match ploy_service::client::exec_token(&state_dir) {
        Ok(credentials) => credentials,
        Err(e) => return fail("exec", e, "start the service with `ploy serve`", 1),
    };
    let env = [
        ("OPENAI_BASE_URL", credentials.base_url.as_str()),
        ("OPENAI_API_KEY", credentials.token.as_str()),
    ];
    match ploy_proof::exec::run_with_env(&launcher, &args.command, &env, &hide) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => fail("exec", e, "", 127),
    }
}

/// The folders the program must not see: the state and config folders in use
/// (made owner-only, created when missing, so there is a folder to cover and
/// the program cannot plant settings where ploy will read them), and the
/// platform's default folders when they exist and differ (a program started
/// without `PLOY_*` variables would look there).
fn folders_to_hide(state_dir: &std::path::Path) -> Result<Vec<PathBuf>, String> {
    let dirs = ploy_trust::PloyDirs::from_env().map_err(|e| e.to_string())?;
    let mut hide = Vec::new();
    for dir in [state_dir.to_path_buf(), dirs.state, dirs.config] {
        ploy_dirs::ensure_private_dir(&dir).map_err(|e| e.to_string())?;
        hide.push(dir);
    }
    for dir in [
        ploy_dirs::platform_state_dir(),
        ploy_dirs::platform_config_dir(),
    ]
    .into_iter()
    .flatten()
    {
        if dir.is_dir() {
            hide.push(dir);
        }
    }
    Ok(hide)
}
