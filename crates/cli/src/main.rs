//! `ploy`: the command-line binary. Thin by design: it parses flags, calls the
//! library crates and prints. Every decision lives in a library crate.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod out;

/// ploy: a local, security-first runtime for AI agents.
///
/// `ploy -p "PROMPT"` runs the agent on a local model; the subcommands
/// manage and inspect everything around it.
#[derive(Debug, Parser)]
#[command(
    name = "ploy",
    version,
    about,
    long_about = None,
    propagate_version = true,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    agent: cmd::agent::AgentArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate or show settings (execution profile, permission rules, sources).
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Copy stdin to stdout with every known secret value replaced by [REDACTED].
    Redact(cmd::redact::RedactArgs),
    /// Check a URL or a proof line without acting on it.
    #[command(subcommand)]
    Check(CheckCommand),
    /// Fetch a URL through the guarded fetcher and print its text.
    Fetch(cmd::url::FetchArgs),
    /// Scrub a search phrase of paths, addresses, numbers and secrets.
    Scrub(cmd::url::ScrubArgs),
    /// Validate a proof line, then run it in the sandbox.
    #[command(subcommand)]
    Proof(ProofCommand),
    /// Run a program in the sandbox without the proof validator.
    #[command(subcommand)]
    Sandbox(SandboxCommand),
    /// Run every step's proof of the project plan (.ploy/plan.json).
    #[command(subcommand)]
    Plan(PlanCommand),
    /// Report which sandbox layers work on this machine and whether proofs can run.
    Doctor(cmd::sandbox::DoctorArgs),
    /// Show or change the project trust decision for a directory.
    Trust(cmd::trust::TrustArgs),
    /// Start the local service: API, conversation store and model gateway.
    Serve(cmd::service::ServeArgs),
    /// Report whether the local service is running (never prints a secret).
    Status(cmd::service::StatusArgs),
    /// Run a program that may use the model gateway (token in its environment only).
    Exec(cmd::service::ExecArgs),
    /// Research a question on the web: scrubbed search, guarded reading, a marked conversation.
    Research(cmd::research::ResearchArgs),
    /// Manage the running service's search API keys through its key panel.
    Keys(cmd::keys::KeysArgs),
    /// ploy's rules for another agent: the Claude Code hook, a generic check, install.
    #[command(subcommand)]
    Hook(cmd::hook::HookCommand),
    /// List or revoke the approvals saved with `always` (this project's).
    Approvals(cmd::approvals::ApprovalsArgs),
    /// List, show or remove the agent's conversations, with their marks.
    Conversations(cmd::conversations::ConversationsArgs),
    /// Serve ploy's doors (web search/fetch, research, proofs, sandbox) as MCP tools over stdio.
    Mcp(cmd::mcp::McpArgs),
    /// Run attack scenarios against this ploy with a model that obeys every injection (no model, no network needed).
    Redteam(cmd::redteam::RedteamArgs),
}

#[derive(Debug, Subcommand)]
enum ConfigCommand {
    /// Validate settings and print the execution profile and rule layers.
    Check(cmd::config_check::ConfigCheckArgs),
    /// Show the effective settings, each value with its source.
    Show(cmd::config_show::ConfigShowArgs),
}

#[derive(Debug, Subcommand)]
enum CheckCommand {
    /// Check a URL: text stage, then (unless --no-resolve) every resolved address.
    Url(cmd::url::CheckUrlArgs),
    /// Validate a proof line (no execution).
    Proof(cmd::check_proof::CheckProofArgs),
}

#[derive(Debug, Subcommand)]
enum ProofCommand {
    /// Validate a proof line, then run it in the sandbox.
    Run(cmd::sandbox::ProofRunArgs),
}

#[derive(Debug, Subcommand)]
enum SandboxCommand {
    /// Run PROGRAM ARGS... in the sandbox, with the project as working directory.
    Run(cmd::sandbox::SandboxRunArgs),
}

#[derive(Debug, Subcommand)]
enum PlanCommand {
    /// Validate and run every step's proof in the sandbox; print a table.
    Check(cmd::sandbox::PlanCheckArgs),
}

/// `-na` is the documented short form of `--no-approve` (TRUST-7), but clap
/// short flags are one character; rewrite the lone token before parsing.
/// Only whole arguments before a `--` are rewritten, so a program's own
/// arguments after `--` pass untouched.
fn normalise_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut seen_double_dash = false;
    args.into_iter()
        .map(|arg| {
            if arg == "--" {
                seen_double_dash = true;
            }
            if !seen_double_dash && arg == "-na" {
                std::ffi::OsString::from("--no-approve")
            } else {
                arg
            }
        })
        .collect()
}

fn main() -> ExitCode {
    // `ploy exec`'s containment helper re-executes this binary; that path must
    // run before argument parsing, logging or any thread exists (a new user
    // namespace needs a single-threaded process). The sandbox's init is its
    // own small binary, ploy-sandbox-init.
    if let Some(code) = ploy_proof::contain::entry_if_requested() {
        return code;
    }
    // A closed stdout or stderr (`ploy … | head -c 1`) ends quietly (out.rs).
    out::exit_quietly_on_closed_output();
    // Every log line passes the redactor; installed before anything logs.
    let log_secrets = ploy_secrets::init_logging_from_env().ok();
    let cli = match Cli::try_parse_from(normalise_args(std::env::args_os())) {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout with exit 0 and usage errors
            // to stderr; usage errors exit 2 as the command contracts say.
            if let Err(print_err) = err.print()
                && out::is_closed_pipe(&print_err)
            {
                return out::closed_exit();
            }
            return if err.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let Some(command) = cli.command else {
        return cmd::agent::run(cli.agent, log_secrets.as_ref());
    };
    match command {
        Command::Config(ConfigCommand::Check(args)) => cmd::config_check::run(args),
        Command::Config(ConfigCommand::Show(args)) => cmd::config_show::run(args),
        Command::Redact(args) => cmd::redact::run(args),
        Command::Check(CheckCommand::Url(args)) => cmd::url::check(args),
        Command::Check(CheckCommand::Proof(args)) => cmd::check_proof::run(args),
        Command::Fetch(args) => cmd::url::fetch(args),
        Command::Scrub(args) => cmd::url::scrub(args),
        Command::Proof(ProofCommand::Run(args)) => cmd::sandbox::proof_run(args),
        Command::Sandbox(SandboxCommand::Run(args)) => cmd::sandbox::sandbox_run(args),
        Command::Plan(PlanCommand::Check(args)) => cmd::sandbox::plan_check(args),
        Command::Doctor(args) => cmd::sandbox::doctor(args),
        Command::Trust(args) => cmd::trust::run(args),
        Command::Serve(args) => cmd::service::serve_with_redactor(args, log_secrets.as_ref()),
        Command::Status(args) => cmd::service::status(args),
        Command::Exec(args) => cmd::service::exec(args),
        Command::Research(args) => cmd::research::run(args),
        Command::Keys(args) => cmd::keys::run(args),
        Command::Hook(command) => cmd::hook::run(command),
        Command::Approvals(args) => cmd::approvals::run(args),
        Command::Conversations(args) => cmd::conversations::run(args),
        Command::Mcp(args) => cmd::mcp::run(args),
        Command::Redteam(args) => cmd::redteam::run(args),
    }
}
