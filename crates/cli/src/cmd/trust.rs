//! `ploy trust [status|allow|deny|forget] [DIR] [--json]`
//!
//! Thin: the decision lives in `ploy_trust::decide`; this module parses,
//! calls and prints. Exit 0 done, 1 refused/failed (with a hint), 2 usage.

use std::{
    io::IsTerminal,
    path::{Path, PathBuf},
    process::ExitCode,
};

use ploy_trust::{
    ExtensionAnswer, LinePrompt, LoadOptions, PloyDirs, Resolution, TrustError, TrustStore, UiMode,
    canonical_dir, decide,
};

/// Arguments of `ploy trust`.
#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// What to do: status (default), allow, deny or forget.
    #[arg(value_enum, default_value_t = TrustAction::Status)]
    pub action: TrustAction,
    /// The project directory (default: the current directory).
    pub dir: Option<PathBuf>,
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

/// What `ploy trust` does.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum TrustAction {
    /// Show the decision and the rule that made it.
    Status,
    /// Save "trusted" for the canonical directory.
    Allow,
    /// Save "not trusted" for the canonical directory.
    Deny,
    /// Remove the saved decision for the canonical directory.
    Forget,
}

/// Runs `ploy trust`.
pub fn run(args: TrustArgs) -> ExitCode {
    match run_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("ploy: {err}");
            eprintln!("hint: {}", hint(&err));
            ExitCode::from(1)
        }
    }
}

/// The flag of `-a` / `--no-approve` as the resolver takes it.
pub(crate) fn flag_of(approve: bool, no_approve: bool) -> Option<bool> {
    match (approve, no_approve) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

/// One actionable next step per error kind.
pub(crate) fn hint(err: &TrustError) -> String {
    match err {
        TrustError::NoHome { .. } => "set PLOY_CONFIG_DIR and PLOY_STATE_DIR".to_owned(),
        TrustError::BadDirectory { .. } | TrustError::NotADirectory { .. } => {
            "give an existing directory".to_owned()
        }
        TrustError::TrustFileMalformed { path, .. } => format!(
            "fix the JSON in {} or move it away (its decisions are then forgotten)",
            path.display()
        ),
        TrustError::TrustFileWritableByOthers { path, .. } => {
            format!("chmod 600 {}", path.display())
        }
        TrustError::TrustFileOwner { path, .. } => {
            format!("chown the file to yourself or remove {}", path.display())
        }
        TrustError::Settings(_) | TrustError::ExtensionsInvalid { .. } => {
            "fix the settings file named above (`ploy config check` shows every problem)".to_owned()
        }
        _ => "check the path and its permissions".to_owned(),
    }
}

fn run_inner(args: &TrustArgs) -> Result<(), TrustError> {
    let dirs = PloyDirs::from_env()?;
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    match args.action {
        TrustAction::Status => status(&dirs, &dir, args),
        TrustAction::Allow | TrustAction::Deny => {
            let trusted = matches!(args.action, TrustAction::Allow);
            let canonical = canonical_dir(&dir)?;
            TrustStore::save(&dirs.trust_file(), &canonical, trusted)?;
            if args.json {
                print_json(&serde_json::json!({
                    "dir": canonical,
                    "action": if trusted { "allow" } else { "deny" },
                    "trusted": trusted,
                    "trust_file": dirs.trust_file(),
                }));
            } else {
                println!(
                    "saved: {} is {} (in {})",
                    canonical.display(),
                    if trusted { "trusted" } else { "not trusted" },
                    dirs.trust_file().display()
                );
            }
            Ok(())
        }
        TrustAction::Forget => {
            let canonical = canonical_dir(&dir)?;
            let removed = TrustStore::forget(&dirs.trust_file(), &canonical)?;
            if args.json {
                print_json(&serde_json::json!({
                    "dir": canonical,
                    "action": "forget",
                    "removed": removed,
                    "trust_file": dirs.trust_file(),
                }));
            } else if removed {
                println!("forgotten: the decision saved for {}", canonical.display());
            } else {
                println!(
                    "nothing to forget: no decision is saved for exactly {}",
                    canonical.display()
                );
            }
            Ok(())
        }
    }
}

fn status(dirs: &PloyDirs, dir: &Path, args: &TrustArgs) -> Result<(), TrustError> {
    let mut options = LoadOptions::new(dir);
    options.flag = flag_of(args.approve, args.no_approve);
    options.mode = UiMode::Interactive;
    options.stdin_is_tty = std::io::stdin().is_terminal();
    let mut prompt = LinePrompt::new(std::io::stdin().lock(), std::io::stderr());
    let decided = decide(dirs, &options, &mut prompt)?;
    for warning in &decided.warnings {
        eprintln!("{warning}");
    }
    let r = &decided.resolution;
    if args.json {
        print_json(&status_json(r, &decided.warnings));
    } else {
        print_status(r);
    }
    Ok(())
}

pub(crate) fn status_json(r: &Resolution, warnings: &[String]) -> serde_json::Value {
    serde_json::json!({
        "dir": r.cwd,
        "trusted": r.trusted,
        "decided_by": r.decided_by,
        "reason": r.reason,
        "resources": r.resources.iter().map(|x| &x.path).collect::<Vec<_>>(),
        "resource_kinds": r.resources,
        "saved": r.saved,
        "remembered": r.remember,
        "extensions": r.extensions,
        "warnings": warnings,
    })
}

fn print_status(r: &Resolution) {
    let verdict = match r.trusted {
        Some(true) => "trusted",
        Some(false) => "not trusted",
        None => "no decision needed",
    };
    println!("{}: {verdict}", r.cwd.display());
    println!(
        "decided by: {} ({})",
        serde_json::to_value(r.decided_by)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        r.reason
    );
    if r.resources.is_empty() {
        println!("resources that need trust: none");
    } else {
        println!("resources that need trust:");
        for resource in &r.resources {
            println!("  {} ({})", resource.path.display(), resource.kind.label());
        }
    }
    match &r.saved {
        Some(saved) => println!(
            "saved decision: {} → {}",
            saved.dir.display(),
            if saved.trusted {
                "trusted"
            } else {
                "not trusted"
            }
        ),
        None => println!("saved decision: none"),
    }
    for outcome in &r.extensions {
        let answer = match &outcome.answer {
            ExtensionAnswer::Yes { remember } => format!("yes{}", remembered(*remember)),
            ExtensionAnswer::No { remember } => format!("no{}", remembered(*remember)),
            ExtensionAnswer::NoAnswer { reason } => format!("no answer ({reason})"),
        };
        println!("extension {}: {answer}", outcome.extension.display());
    }
    if let Some(saved) = &r.remember {
        println!(
            "remembered: {} → {}",
            saved.dir.display(),
            if saved.trusted {
                "trusted"
            } else {
                "not trusted"
            }
        );
    }
}

fn remembered(remember: bool) -> &'static str {
    if remember { ", remember" } else { "" }
}

pub(crate) fn print_json(value: &serde_json::Value) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        Err(err) => eprintln!("ploy: could not encode JSON: {err}"),
    }
}
