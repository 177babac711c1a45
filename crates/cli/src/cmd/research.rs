//! `ploy research "QUESTION" [--json] [--no-answer] [--backend NAME]... [--hosts FILE]`
//! `ploy research --service "QUESTION" [--json] [--no-answer] [--backend NAME]... [--conversation ID]`
//!
//! Thin: the run lives in ploy-research (`ploy_research::command`), or, with
//! `--service`, in the running service (`POST /v1/research`, with the keys
//! its panel holds and the conversation in its store). This
//! prints progress on stderr (phrases after scrubbing, results, pages read,
//! bytes) and then the answer with numbered citations, the dossier, or the
//! strict JSON result.

use std::{path::PathBuf, process::ExitCode};

use ploy_research::{
    Progress, ResearchOutput, RunStatus,
    command::{CommandError, CommandOptions, run_command},
};

/// Arguments of `ploy research`.
#[derive(Debug, clap::Args)]
pub struct ResearchArgs {
    /// The question to research.
    pub question: String,
    /// Print machine-readable JSON (the strict result schema).
    #[arg(long)]
    pub json: bool,
    /// Stop after the dossier; do not ask the answer model.
    #[arg(long)]
    pub no_answer: bool,
    /// Search backend(s) to use: duckduckgo, wikipedia, tavily, searxng.
    #[arg(long = "backend", value_name = "NAME")]
    pub backends: Vec<String>,
    /// Run on the running service (`ploy serve`): its panel's keys, its
    /// store, its answer model and its research configuration.
    #[arg(long, conflicts_with_all = ["hosts", "model", "upstream"])]
    pub service: bool,
    /// Answer names from a hosts(5)-format file instead of DNS.
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Continue this conversation instead of starting a new one.
    #[arg(long, value_name = "ID")]
    pub conversation: Option<String>,
    /// The answer model's name (default: the PLOY_MODEL variable).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The model upstream (an http:// loopback chat-completions URL).
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
}

const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_INTERRUPTED: u8 = 130;

/// Run `ploy research`.
pub fn run(args: ResearchArgs) -> ExitCode {
    let dirs = match ploy_trust::PloyDirs::from_env() {
        Ok(dirs) => dirs,
        Err(err) => {
            eprintln!("ploy: {err}");
            eprintln!("hint: set PLOY_CONFIG_DIR and PLOY_STATE_DIR");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let user = match ploy_trust::load_user_settings(&dirs) {
        Ok(user) => user,
        Err(err) => {
            eprintln!("ploy: {err}");
            eprintln!("hint: `ploy config check` shows what is wrong in settings.json");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if args.service {
        return match on_service(&args, &dirs.state) {
            Ok(output) => finish(&args, &output),
            Err((err, not_reached)) => {
                eprintln!("ploy: {err}");
                if not_reached {
                    eprintln!(
                        "hint: start the service with `ploy serve` (PLOY_STATE_DIR must name its state folder), or run without --service"
                    );
                }
                ExitCode::from(EXIT_FAILED)
            }
        };
    }
    let options = CommandOptions {
        question: args.question.clone(),
        backends: args.backends.clone(),
        hosts: args.hosts.clone(),
        conversation: args.conversation.clone(),
        want_answer: !args.no_answer,
        upstream: args.upstream.clone(),
        model: args.model.clone(),
        config_dir: dirs.config,
        state_dir: dirs.state,
        project: std::env::current_dir().ok(),
    };
    let progress = |event: &Progress| eprintln!("research: {event}");
    let output = match run_command(&options, user.settings.as_ref(), &progress) {
        Ok(output) => output,
        Err(err) => {
            eprintln!("ploy: {err}");
            eprintln!("hint: {}", err.hint());
            return ExitCode::from(match err {
                CommandError::Cancelled => EXIT_INTERRUPTED,
                CommandError::Store(_) => EXIT_FAILED,
                _ => EXIT_USAGE,
            });
        }
    };
    finish(&args, &output)
}

/// `--service`: the same question to the running service; its answer is
/// the strict result JSON. The error says whether the service was reached.
fn on_service(
    args: &ResearchArgs,
    state_dir: &std::path::Path,
) -> Result<ResearchOutput, (String, bool)> {
    let request = ploy_service::ResearchRequest {
        question: args.question.clone(),
        no_answer: args.no_answer,
        backends: args.backends.clone(),
        conversation: args.conversation.clone(),
    };
    let json = ploy_service::client::research(state_dir, &request).map_err(|e| {
        let not_reached = !matches!(e, ploy_service::ClientError::Refused { .. });
        (e.to_string(), not_reached)
    })?;
    serde_json::from_str(&json).map_err(|e| {
        (
            format!("the service's research answer does not parse: {e}"),
            false,
        )
    })
}

/// Prints the summary on stderr and the result (JSON or text) on stdout.
fn finish(args: &ResearchArgs, output: &ResearchOutput) -> ExitCode {
    eprintln!(
        "research: conversation {} ({}), {} pages, {} bytes read",
        output.conversation_id,
        if output.tainted {
            "marked ploy_tainted"
        } else {
            "not marked"
        },
        output.pages_read,
        output.bytes_read
    );
    if args.json {
        println!("{}", output.to_json());
    } else {
        print_human(output);
    }
    if output.status == RunStatus::Failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_human(output: &ResearchOutput) {
    if let Some(failure) = &output.failure {
        eprintln!("ploy: {failure}");
    }
    println!("[{}]", output.notice);
    if let Some(answer) = &output.answer {
        println!("\n{answer}\n");
    }
    for source in &output.sources {
        println!("[{}] {} <{}>", source.n, source.title, source.url);
        if output.answer.is_none() {
            if !source.snippet.is_empty() {
                println!("    {}", source.snippet);
            }
            if let Some(text) = &source.text {
                for line in text.lines().filter(|l| !l.trim().is_empty()) {
                    println!("    | {line}");
                }
            }
        }
    }
    for skipped in &output.skipped {
        println!("skipped {} ({})", skipped.url, skipped.failure);
    }
}
