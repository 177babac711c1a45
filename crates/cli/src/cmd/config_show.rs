//! `ploy config show [--json]`
//!
//! The effective settings, each value with its source (default, user,
//! project), and the project resources skipped when the project is not
//! trusted. The layering lives in ploy-trust / ploy-policy; this prints.
//! It also shows whether the user's settings carry a `service` section (its
//! content is not printed: `ploy serve` validates it).

use std::{io::IsTerminal, process::ExitCode};

use ploy_trust::{
    LinePrompt, LoadOptions, LoadedProject, PloyDirs, ShownValue, TrustError, UiMode,
    effective_values, load_project,
};

use super::trust::{flag_of, hint, print_json};

/// Arguments of `ploy config show`.
#[derive(Debug, clap::Args)]
pub struct ConfigShowArgs {
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
    /// Trust the project for this run only.
    #[arg(short = 'a', long = "approve", conflicts_with = "no_approve")]
    pub approve: bool,
    /// Do not trust the project for this run.
    #[arg(long = "no-approve", visible_alias = "na")]
    pub no_approve: bool,
}

/// Runs `ploy config show`.
pub fn run(args: ConfigShowArgs) -> ExitCode {
    let loaded = match load(&args) {
        Ok(loaded) => loaded,
        Err(err) => {
            eprintln!("ploy: {err}");
            eprintln!("hint: {}", hint(&err));
            return ExitCode::from(1);
        }
    };
    for warning in &loaded.warnings {
        eprintln!("{warning}");
    }
    let values = match effective_values(&loaded) {
        Ok(values) => values,
        Err(err) => {
            eprintln!("ploy: {err}");
            eprintln!("hint: fix the settings file named above (`ploy config check` validates it)");
            return ExitCode::from(1);
        }
    };
    if args.json {
        print_json(&as_json(&loaded, &values));
    } else {
        print_human(&loaded, &values);
    }
    ExitCode::SUCCESS
}

fn load(args: &ConfigShowArgs) -> Result<LoadedProject, TrustError> {
    let dirs = PloyDirs::from_env()?;
    let mut options = LoadOptions::new(".");
    options.flag = flag_of(args.approve, args.no_approve);
    options.mode = UiMode::Interactive;
    options.stdin_is_tty = std::io::stdin().is_terminal();
    let mut prompt = LinePrompt::new(std::io::stdin().lock(), std::io::stderr());
    load_project(&dirs, &options, &mut prompt)
}

/// Whether the user's settings have a `service` section (`ploy serve` reads
/// it from there only).
fn service_is_set(loaded: &LoadedProject) -> bool {
    loaded
        .user
        .settings
        .as_ref()
        .is_some_and(|settings| settings.service().is_some())
}

fn as_json(loaded: &LoadedProject, values: &[ShownValue]) -> serde_json::Value {
    let r = &loaded.resolution;
    serde_json::json!({
        "project": {
            "dir": r.cwd,
            "trusted": r.trusted,
            "decided_by": r.decided_by,
            "reason": r.reason,
        },
        "files": {
            "user_settings": loaded.user.path,
            "project_settings": loaded.project_settings.as_ref().map(|s| s.origin()),
        },
        "values": values,
        "service": { "set_in_user_settings": service_is_set(loaded) },
        "skipped": loaded.skipped,
        "context_files": loaded.context_files.iter().map(|f| &f.path).collect::<Vec<_>>(),
        "skills": loaded.skills,
        "warnings": loaded.warnings,
    })
}

fn print_human(loaded: &LoadedProject, values: &[ShownValue]) {
    let r = &loaded.resolution;
    let verdict = match r.trusted {
        Some(true) => "trusted",
        Some(false) => "not trusted",
        None => "no decision needed",
    };
    println!("project: {} ({verdict}: {})", r.cwd.display(), r.reason);
    println!("user settings: {}", loaded.user.path.display());
    let width = values.iter().map(|v| v.key.len()).max().unwrap_or(0);
    for v in values {
        println!("{:width$}  {}  ({})", v.key, v.value, v.source);
    }
    if service_is_set(loaded) {
        println!("service: set in the user settings (used by `ploy serve` without --config)");
    } else {
        println!("service: not set in the user settings (`ploy serve` uses its defaults)");
    }
    if let Some(notice) = loaded.skipped_notice() {
        println!("{notice}");
    }
    for file in &loaded.context_files {
        println!("context file: {}", file.path.display());
    }
}
