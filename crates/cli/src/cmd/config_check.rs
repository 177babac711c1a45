//! `ploy config check [--settings FILE] [--json]`
//!
//! Validates one settings file (the user's by default) and prints the
//! resolved execution profile and rule layers. Exit 0 valid, 1 invalid (with
//! reasons), 2 usage. The checks themselves live in ploy-policy; the default
//! location comes from ploy-trust (`PLOY_CONFIG_DIR`, else the platform's
//! config folder for "ploy").

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use ploy_policy::{ProjectTrust, ResolvedSettings, Settings, SettingsError, resolve};
use serde_json::json;

/// Arguments of `ploy config check`.
#[derive(Debug, clap::Args)]
pub struct ConfigCheckArgs {
    /// Settings file to validate (default: the user's settings.json).
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// One reason the check failed: requirement, key, line, message, hint.
struct Problem {
    requirement: &'static str,
    file: String,
    key: Option<String>,
    line: Option<usize>,
    message: String,
    hint: String,
}

const PROFILE_EXAMPLE: &str =
    r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"}}"#;

/// Run `ploy config check`.
pub fn run(args: ConfigCheckArgs) -> ExitCode {
    let (path, is_default) = match &args.settings {
        Some(path) => (path.clone(), false),
        None => match ploy_trust::PloyDirs::from_env() {
            Ok(dirs) => (dirs.settings_file(), true),
            Err(err) => {
                return fail(
                    &args,
                    Problem {
                        requirement: "PROFILE-2",
                        file: String::from("(no config folder)"),
                        key: None,
                        line: None,
                        message: err.to_string(),
                        hint: "set PLOY_CONFIG_DIR or pass --settings FILE".into(),
                    },
                );
            }
        },
    };
    let file = path.display().to_string();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) => return fail(&args, read_problem(&path, is_default, &err)),
    };
    let checked = Settings::parse(&text, &file).and_then(|settings| {
        // A file checked alone: its rules are the user layer; project
        // settings join only after trust (see `ploy config show`).
        let resolved = resolve(Some(&settings), None, ProjectTrust::Untrusted)?;
        Ok((settings, resolved))
    });
    match checked {
        Ok((settings, resolved)) => match check_secrets(&settings) {
            Ok(notes) => {
                print_valid(&args, &file, &settings, &resolved, &notes);
                ExitCode::SUCCESS
            }
            Err(message) => fail(
                &args,
                Problem {
                    requirement: "REDACT-1",
                    file,
                    key: Some("secrets".into()),
                    line: None,
                    message,
                    hint: "make the file readable, or remove it from settings `secrets.files`"
                        .into(),
                },
            ),
        },
        Err(err) => fail(&args, settings_problem(&file, &err)),
    }
}

/// The settings' `secrets` lists (and the current folder's `.env` files,
/// taken as the project) checked on this machine, as the agent, the hook
/// and `ploy mcp` will read them: an error when a file exists but cannot be
/// read (they refuse to start, REDACT-1); notes for a variable that is not
/// set or a file that is not there (nothing to protect yet; a typo shows).
fn check_secrets(settings: &Settings) -> Result<Vec<String>, String> {
    let declared = settings.secrets();
    let project = std::env::current_dir().ok();
    let sources =
        ploy_secrets::SecretSources::new(project.as_deref(), &declared.env, &declared.files);
    let mut notes = Vec::new();
    for name in &declared.env {
        if std::env::var_os(name).is_none() {
            notes.push(format!("secrets.env: {name} is not set here"));
        }
    }
    for named in &declared.files {
        match sources.resolve_file(named) {
            Some(path) if !path.exists() => notes.push(format!(
                "secrets.files: {named} ({}) does not exist",
                path.display()
            )),
            Some(_) => {}
            None => notes.push(format!(
                "secrets.files: {named} has no folder to be found in (no HOME or project)"
            )),
        }
    }
    ploy_secrets::sources_secrets(&sources, &|name| std::env::var_os(name), &|path| {
        path.exists()
    })
    .map_err(|err| err.to_string())?;
    Ok(notes)
}

fn read_problem(path: &Path, is_default: bool, err: &std::io::Error) -> Problem {
    let file = path.display().to_string();
    if err.kind() == std::io::ErrorKind::NotFound {
        Problem {
            requirement: "PROFILE-2",
            file: file.clone(),
            key: None,
            line: None,
            message: format!(
                "settings file {file} not found; the execution profile (security_profile) is mandatory (PROFILE-2)"
            ),
            hint: if is_default {
                format!("create {file} with {PROFILE_EXAMPLE} (or set PLOY_CONFIG_DIR)")
            } else {
                format!("check the path, or create it with {PROFILE_EXAMPLE}")
            },
        }
    } else {
        Problem {
            requirement: "CONFIG-1",
            file: file.clone(),
            key: None,
            line: None,
            message: format!("cannot read {file}: {err}"),
            hint: "check that the file exists, is readable and is UTF-8 JSON".into(),
        }
    }
}

fn settings_problem(file: &str, err: &SettingsError) -> Problem {
    let hint = match err {
        SettingsError::ForbiddenProfile { .. } => {
            "there is no override for PROFILE-1; use approval \"ask\" or sandbox \"workspace-write\"".to_string()
        }
        SettingsError::MissingProfile { .. } => format!("add {PROFILE_EXAMPLE}"),
        SettingsError::Rule { .. } => "fix the glob pattern (see `ploy config check --help`)".to_string(),
        SettingsError::Invalid { .. } => "fix the key named above; unknown keys and values are refused".to_string(),
    };
    Problem {
        requirement: err.requirement(),
        file: file.to_string(),
        key: Some(err.key().to_string()),
        line: err.line(),
        message: err.to_string(),
        hint,
    }
}

fn fail(args: &ConfigCheckArgs, problem: Problem) -> ExitCode {
    if args.json {
        let out = json!({
            "valid": false,
            "file": problem.file,
            "errors": [{
                "requirement": problem.requirement,
                "key": problem.key,
                "line": problem.line,
                "message": problem.message,
                "hint": problem.hint,
            }],
        });
        println!("{out}");
    } else {
        eprintln!("ploy: invalid settings: {}", problem.message);
        eprintln!("hint: {}", problem.hint);
    }
    ExitCode::from(1)
}

fn print_valid(
    args: &ConfigCheckArgs,
    file: &str,
    settings: &Settings,
    resolved: &ResolvedSettings,
    secret_notes: &[String],
) {
    let layers: Vec<_> = resolved
        .rules
        .layers()
        .iter()
        .map(|layer| {
            json!({
                "source": layer.source(),
                "origin": layer.origin(),
                "rules": layer.rules(),
            })
        })
        .collect();
    if args.json {
        let out = json!({
            "valid": true,
            "file": file,
            "security_profile": {
                "sandbox": resolved.profile.sandbox(),
                "approval": resolved.profile.approval(),
            },
            "layers": layers,
            "default_project_trust": resolved.default_project_trust,
            "extensions": settings.extension_decls().map(<[_]>::len).unwrap_or(0),
            "secrets": {
                "env": settings.secrets().env,
                "files": settings.secrets().files,
                "notes": secret_notes,
            },
        });
        println!("{out}");
        return;
    }
    println!("settings: {file}: valid");
    println!(
        "execution profile: sandbox={} approval={}",
        resolved.profile.sandbox(),
        resolved.profile.approval()
    );
    println!("rule layers (lowest precedence first; deny in any layer wins):");
    for layer in resolved.rules.layers() {
        let origin = layer
            .origin()
            .map(|o| format!(" ({o})"))
            .unwrap_or_default();
        println!(
            "  {}{origin}: {} rule(s)",
            layer.source(),
            layer.rules().len()
        );
        for rule in layer.rules() {
            println!("    {rule}");
        }
    }
    println!("  project: loaded only when the project is trusted (see `ploy config show`)");
    println!("  conversation: per conversation, highest precedence");
    let secrets = settings.secrets();
    println!(
        "secrets: {} variable(s), {} file(s) named, plus the environment and the project's .env files",
        secrets.env.len(),
        secrets.files.len()
    );
    for note in secret_notes {
        println!("  note: {note}");
    }
    println!(
        "default_project_trust: {} (from {})",
        match resolved.default_project_trust.value {
            ploy_policy::DefaultProjectTrust::Ask => "ask",
            ploy_policy::DefaultProjectTrust::Never => "never",
            ploy_policy::DefaultProjectTrust::Always => "always",
        },
        match resolved.default_project_trust.source {
            ploy_policy::ValueSource::Default => "default",
            ploy_policy::ValueSource::User => "user settings",
            ploy_policy::ValueSource::Project => "project settings",
        }
    );
}
