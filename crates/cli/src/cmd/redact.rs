//! `ploy redact [--secret-env NAME]... [--secret-file FILE]`

use std::io::{self, BufWriter, Write};
use std::{path::PathBuf, process::ExitCode};

use ploy_secrets::{Redactor, SecretSet};

/// Arguments of `ploy redact`.
#[derive(Debug, clap::Args)]
pub struct RedactArgs {
    /// Also treat the value of this environment variable as a secret.
    #[arg(long = "secret-env", value_name = "NAME")]
    pub secret_env: Vec<String>,
    /// Read secret values from FILE, one per line.
    #[arg(long = "secret-file", value_name = "FILE")]
    pub secret_file: Vec<PathBuf>,
}

/// A secret the user asked for that cannot be used: the command refuses to
/// run rather than copy the input with that secret in it (fail closed).
struct Refusal {
    message: String,
    hint: &'static str,
}

/// Copies stdin to stdout with every known secret replaced (REDACT-1).
pub fn run(args: RedactArgs) -> ExitCode {
    let redactor = match build_redactor(&args) {
        Ok(redactor) => redactor,
        Err(refusal) => {
            eprintln!("ploy redact: {}", refusal.message);
            eprintln!("hint: {}", refusal.hint);
            return ExitCode::from(1);
        }
    };
    match copy_redacted(&redactor) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of our output went away (`| head`): nothing leaked;
        // end as every command does on a closed stdout (crate::out).
        Err(err) if crate::out::is_closed_pipe(&err) => crate::out::closed_exit(),
        Err(err) => {
            eprintln!("ploy redact: copying stdin to stdout failed: {err}");
            eprintln!("hint: check that stdin is readable and stdout writable");
            ExitCode::from(1)
        }
    }
}

/// The environment's secrets (by name and value shape; short ones skipped:
/// environments hold many harmless short values) plus every secret asked
/// for by flag, each of which must be usable.
fn build_redactor(args: &RedactArgs) -> Result<Redactor, Refusal> {
    let mut asked = SecretSet::new();
    asked
        .add_declared_env(&args.secret_env, &|name| std::env::var_os(name))
        .map_err(|err| Refusal {
            message: format!("--secret-env: {err}"),
            hint: "export the variable, or drop the flag",
        })?;
    for path in &args.secret_file {
        let text = std::fs::read_to_string(path).map_err(|err| Refusal {
            message: format!(
                "--secret-file {}: cannot read it: {err} (REDACT-1: refusing to run without the \
                 secrets you asked for)",
                path.display()
            ),
            hint: "give a readable UTF-8 file with one secret per line",
        })?;
        asked.add_file_text(&format!("--secret-file {}", path.display()), &text);
    }
    if let Some(refused) = asked.unusable().first() {
        return Err(Refusal {
            message: refused.to_string(),
            hint: "remove values shorter than 8 bytes from what you pass; they cannot be \
                   redacted without hitting ordinary words",
        });
    }
    let mut secrets = SecretSet::from_process_env();
    secrets.extend(asked);
    Ok(secrets.redactor())
}

fn copy_redacted(redactor: &Redactor) -> io::Result<()> {
    let stdin = io::stdin().lock();
    let mut stdout = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    redactor.redact_stream(stdin, &mut stdout)?;
    stdout.flush()
}
