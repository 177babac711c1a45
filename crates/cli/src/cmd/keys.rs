//! `ploy keys list | add PROVIDER | remove MASK | replace MASK` and
//! `ploy keys admin-token --rotate`.
//!
//! The key commands go through the running service's key panel, its own API
//! and gate (Origin, Host, admin token; nonces, lockout and audit included).
//! A key is read from standard input (hidden prompt on a terminal), never
//! from the command line, where `ps` and shell history would show it. The
//! admin token comes from `PLOY_ADMIN_TOKEN` or a hidden prompt on the
//! terminal. `admin-token --rotate` uses the service password instead (from
//! the owner-only service file), so a lost token or a lockout can be undone.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use ploy_service::config::state_dir_from_env;
use ploy_service::panel::AdminToken;
use ploy_service::panel::client::{PanelClient, PanelClientError, rotate_admin_token};
use ploy_service::panel::keys::{KeyView, Provider};

/// The environment variable holding the admin token.
pub const ADMIN_TOKEN_ENV: &str = "PLOY_ADMIN_TOKEN";

/// Arguments of `ploy keys`.
#[derive(Debug, clap::Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    command: KeysCommand,
}

#[derive(Debug, clap::Subcommand)]
enum KeysCommand {
    /// List the keys the running service holds (by mask only).
    List(JsonFlag),
    /// Add a key; the key is read from standard input (never from the command line).
    Add(AddArgs),
    /// Remove the key shown as MASK (e.g. …Ab3d), with a confirmation nonce.
    Remove(MaskArgs),
    /// Replace the key shown as MASK by a key read from standard input.
    Replace(MaskArgs),
    /// The key panel's admin token.
    AdminToken(AdminTokenArgs),
}

#[derive(Debug, clap::Args)]
struct JsonFlag {
    /// Print machine-readable JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct AddArgs {
    /// The provider: tavily.
    #[arg(value_parser = ["tavily"])]
    provider: String,
    /// Print machine-readable JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct MaskArgs {
    /// The key's mask as `ploy keys list` shows it (`…` and its last 4
    /// characters; `...Ab3d` is accepted too).
    mask: String,
    /// Print machine-readable JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct AdminTokenArgs {
    /// Make a new admin token (the old one stops working; a lockout ends) and print it.
    #[arg(long, required = true)]
    rotate: bool,
    /// Print machine-readable JSON.
    #[arg(long)]
    json: bool,
}

const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn fail(error: impl std::fmt::Display, hint: &str, code: u8) -> ExitCode {
    eprintln!("ploy keys: {error}");
    if !hint.is_empty() {
        eprintln!("hint: {hint}");
    }
    ExitCode::from(code)
}

fn panel_failure(error: &PanelClientError) -> ExitCode {
    fail(error, error.hint(), EXIT_FAILED)
}

/// Reads one secret: a hidden prompt when standard input is a terminal,
/// else the whole of standard input (one line, at most 4 KiB).
fn read_secret(prompt: &str) -> Result<String, String> {
    let text = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(prompt).map_err(|e| format!("cannot read the key: {e}"))?
    } else {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(4097)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        if bytes.len() > 4096 {
            return Err("standard input is over 4 KiB; give the key alone".into());
        }
        String::from_utf8(bytes).map_err(|_| "standard input is not UTF-8".to_string())?
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(
            "no key on standard input (pipe it in: `ploy keys add tavily < keyfile`)".into(),
        );
    }
    if trimmed.contains(['\n', '\r']) {
        return Err("standard input holds more than one line; give one key".into());
    }
    Ok(trimmed.to_owned())
}

/// The admin token from `PLOY_ADMIN_TOKEN`, else a hidden prompt on the
/// terminal.
fn admin_token() -> Result<AdminToken, String> {
    if let Some(value) = std::env::var_os(ADMIN_TOKEN_ENV) {
        let text = value
            .into_string()
            .map_err(|_| format!("{ADMIN_TOKEN_ENV} is not UTF-8"))?;
        if !text.trim().is_empty() {
            return Ok(AdminToken::from_user(&text));
        }
    }
    match rpassword::prompt_password("ploy admin token: ") {
        Ok(text) if !text.trim().is_empty() => Ok(AdminToken::from_user(&text)),
        _ => Err(format!(
            "no admin token: set {ADMIN_TOKEN_ENV} or run on a terminal to be asked for it"
        )),
    }
}

fn normalise_mask(mask: &str) -> String {
    match mask.strip_prefix("...") {
        Some(tail) => format!("…{tail}"),
        None => mask.to_owned(),
    }
}

fn print_view(verb: &str, view: &KeyView, json: bool) {
    if json {
        match serde_json::to_string(view) {
            Ok(line) => println!("{line}"),
            Err(e) => eprintln!("ploy keys: {e}"),
        }
    } else {
        println!("{verb} {} key {}", view.provider.as_str(), view.mask);
    }
}

/// Run `ploy keys`.
pub fn run(args: KeysArgs) -> ExitCode {
    let state_dir = match state_dir_from_env() {
        Ok(dir) => dir,
        Err(e) => return fail(e, "set PLOY_STATE_DIR", EXIT_USAGE),
    };
    if let KeysCommand::AdminToken(rotate) = &args.command {
        return match rotate_admin_token(&state_dir) {
            Ok(token) if rotate.json => {
                println!("{}", serde_json::json!({ "admin_token": token.expose() }));
                ExitCode::SUCCESS
            }
            Ok(token) => {
                println!("{}", token.expose());
                eprintln!(
                    "ploy keys: a new admin token for the key panel (shown once; the old one no longer works)"
                );
                ExitCode::SUCCESS
            }
            Err(e) => panel_failure(&e),
        };
    }
    // Read the key before asking for the token, so a piped key is taken
    // from standard input and the prompt (if any) goes to the terminal.
    let new_key = match &args.command {
        KeysCommand::Add(_) | KeysCommand::Replace(_) => match read_secret("key: ") {
            Ok(key) => Some(key),
            Err(e) => return fail(e, "", EXIT_USAGE),
        },
        _ => None,
    };
    let token = match admin_token() {
        Ok(token) => token,
        Err(e) => return fail(e, "", EXIT_USAGE),
    };
    let client = match PanelClient::connect(&state_dir, token) {
        Ok(client) => client,
        Err(e) => return fail(e, "start the service with `ploy serve`", EXIT_FAILED),
    };
    let key = new_key.unwrap_or_default();
    let outcome = match &args.command {
        KeysCommand::List(flag) => client.list().map(|keys| {
            if flag.json {
                println!("{}", serde_json::json!({ "keys": keys }));
            } else if keys.is_empty() {
                println!("no keys");
            } else {
                for view in keys {
                    println!(
                        "{:<8} {:<8} added {}",
                        view.provider.as_str(),
                        view.mask,
                        view.added_at
                    );
                }
            }
        }),
        KeysCommand::Add(add) => client
            .add(Provider::Tavily, &key)
            .map(|view| print_view("added", &view, add.json)),
        KeysCommand::Remove(remove) => client
            .remove(&normalise_mask(&remove.mask))
            .map(|view| print_view("removed", &view, remove.json)),
        KeysCommand::Replace(replace) => client
            .replace(&normalise_mask(&replace.mask), &key)
            .map(|view| print_view("replaced by", &view, replace.json)),
        KeysCommand::AdminToken(_) => Ok(()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => panel_failure(&e),
    }
}
