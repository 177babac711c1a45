//! `ploy hook …`: ploy's rules in front of another agent's tool calls.
//! Thin: the judge, the formats and the settings edits live in `ploy-hook`.

use std::path::PathBuf;
use std::process::ExitCode;

use ploy_dirs::PloyDirs;
use ploy_hook::install;
use ploy_hook::serve::Mode;

/// `ploy hook` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum HookCommand {
    /// Answer one Claude Code hook event (its hook JSON on stdin). Always exit 0.
    ClaudeCode,
    /// Judge one call in the generic format ({"session","cwd","kind","target"} on stdin).
    Check(CheckArgs),
    /// Add ploy's hook to Claude Code's settings.json (a backup first; idempotent).
    Install(InstallArgs),
    /// Remove exactly the entries `ploy hook install` added.
    Uninstall(InstallArgs),
    /// Show which Claude Code settings files run ploy's hook, for which events.
    Status(StatusArgs),
}

/// Arguments of `ploy hook check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Print machine-readable JSON (the only format; accepted for clarity).
    #[arg(long)]
    pub json: bool,
}

/// The agent whose settings are edited.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code (`~/.claude/settings.json` or `.claude/settings.json`).
    ClaudeCode,
}

/// Arguments of `ploy hook install` / `uninstall`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// The agent.
    pub agent: Agent,
    /// The user's settings (`$CLAUDE_CONFIG_DIR/settings.json`, else
    /// `~/.claude/settings.json`); the default.
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// The project's settings (`.claude/settings.json` in the current folder);
    /// the entry runs `ploy` from PATH, so it works on every machine.
    #[arg(long)]
    pub project: bool,
}

/// Arguments of `ploy hook status`.
#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs a `ploy hook` subcommand.
pub fn run(command: HookCommand) -> ExitCode {
    match command {
        HookCommand::ClaudeCode => answer(Mode::ClaudeCode),
        HookCommand::Check(_) => answer(Mode::Check),
        HookCommand::Install(args) => change(&args, true),
        HookCommand::Uninstall(args) => change(&args, false),
        HookCommand::Status(args) => status(&args),
    }
}

/// Read stdin, judge within the budget (`ploy_hook::serve`), print. Exit 0
/// whatever happens: the answer itself says deny.
fn answer(mode: Mode) -> ExitCode {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("ploy"));
    let output = ploy_hook::serve::answer_stdin(mode, exe);
    if !output.is_empty() {
        println!("{output}");
    }
    ExitCode::SUCCESS
}

fn settings_path(args: &InstallArgs) -> Result<PathBuf, String> {
    if args.project {
        let cwd = std::env::current_dir().map_err(|e| format!("the current folder: {e}"))?;
        return Ok(cwd.join(".claude").join("settings.json"));
    }
    user_settings_path()
}

fn user_settings_path() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir).join("settings.json"));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| PathBuf::from(home).join(".claude").join("settings.json"))
        .ok_or_else(|| {
            "no HOME and no CLAUDE_CONFIG_DIR: cannot find Claude Code's settings".into()
        })
}

fn change(args: &InstallArgs, add: bool) -> ExitCode {
    let verb = if add { "install" } else { "uninstall" };
    let fail = |message: String, hint: &str| {
        eprintln!("ploy hook {verb}: {message}");
        eprintln!("hint: {hint}");
        ExitCode::from(1)
    };
    let path = match settings_path(args) {
        Ok(path) => path,
        Err(err) => return fail(err, "set HOME or CLAUDE_CONFIG_DIR, or use --project"),
    };
    if add {
        // A hook that cannot load ploy's settings denies every call: refuse
        // to install until they are valid (PROFILE-2, CONFIG-1).
        if let Err(err) = check_ploy_settings() {
            return fail(
                err,
                "create ploy's settings.json with a security_profile (`ploy config check` explains)",
            );
        }
    }
    let result = if add {
        let command = if args.project {
            // Runs on every machine that has ploy on PATH.
            install::hook_command("ploy")
        } else {
            match std::env::current_exe() {
                // The small hook binary next to ploy answers faster (same judge).
                Ok(exe) if exe.with_file_name(install::HOOK_BINARY).is_file() => {
                    install::hook_binary_command(
                        &exe.with_file_name(install::HOOK_BINARY).to_string_lossy(),
                    )
                }
                Ok(exe) => install::hook_command(&exe.to_string_lossy()),
                Err(err) => {
                    return fail(format!("where is ploy? {err}"), "run ploy by its full path");
                }
            }
        };
        install::install(&path, &command)
    } else {
        install::uninstall(&path)
    };
    match result {
        Ok(change) if change.events.is_empty() => {
            println!(
                "{}: nothing to {verb} ({})",
                change.path.display(),
                if add {
                    "ploy's hook is already there"
                } else {
                    "ploy's hook is not there"
                }
            );
            ExitCode::SUCCESS
        }
        Ok(change) => {
            if let Some(backup) = &change.backup {
                println!("backup: {}", backup.display());
            }
            println!(
                "{}: {} ploy's hook for {}",
                change.path.display(),
                if add { "added" } else { "removed" },
                change.events.join(", ")
            );
            ExitCode::SUCCESS
        }
        Err(err) => fail(
            err.to_string(),
            "fix the file (strict JSON) or edit it by hand",
        ),
    }
}

/// ploy's own settings must load for the hook to answer anything but deny.
fn check_ploy_settings() -> Result<(), String> {
    let dirs = PloyDirs::from_env().map_err(|e| e.to_string())?;
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    ploy_hook::Context::load(&dirs, &cwd)
        .map(|_| ())
        .map_err(|refused| format!("{}: {}", refused.requirement, refused.reason))
}

fn status(args: &StatusArgs) -> ExitCode {
    let mut paths = Vec::new();
    if let Ok(user) = user_settings_path() {
        paths.push(("user", user));
    }
    if let Ok(cwd) = std::env::current_dir() {
        paths.push(("project", cwd.join(".claude").join("settings.json")));
        paths.push((
            "project-local",
            cwd.join(".claude").join("settings.local.json"),
        ));
    }
    let mut rows = Vec::new();
    let mut failed = false;
    for (scope, path) in paths {
        match install::status(&path) {
            Ok(found) => rows.push((scope, found)),
            Err(err) => {
                eprintln!("ploy hook status: {err}");
                failed = true;
            }
        }
    }
    if args.json {
        let value: Vec<_> = rows
            .iter()
            .map(|(scope, found)| {
                serde_json::json!({
                    "scope": scope,
                    "path": found.path,
                    "exists": found.exists,
                    "events": found.events.iter().map(|(event, command)| {
                        serde_json::json!({"event": event, "command": command})
                    }).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(value));
    } else {
        for (scope, found) in &rows {
            let state = if !found.exists {
                "no file".to_string()
            } else if found.events.is_empty() {
                "not installed".to_string()
            } else {
                found
                    .events
                    .iter()
                    .map(|(event, _)| event.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            println!("{scope:14} {}: {state}", found.path.display());
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
