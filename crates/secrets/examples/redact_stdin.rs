//! `redact_stdin redact --secret-file FILE`: the library calls `ploy redact
//! --secret-file FILE` makes (the process environment's secrets plus the
//! file's lines, one redactor, `redact_stream` from standard input to a
//! buffered standard output), without the rest of the CLI. Lets
//! `bench/redact_vs_sed.sh` measure the redactor with `PLOY_BIN` pointing
//! here, from a release build of this one crate instead of the whole
//! workspace.

use std::io::{self, BufWriter, Write as _};
use std::process::ExitCode;

use ploy_secrets::SecretSet;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let files = match args.as_slice() {
        [command, rest @ ..] if command == "redact" => rest,
        _ => {
            eprintln!("usage: redact_stdin redact [--secret-file FILE]...");
            return ExitCode::from(2);
        }
    };
    let mut asked = SecretSet::new();
    let mut files = files.iter();
    while let Some(flag) = files.next() {
        let Some(path) = files.next().filter(|_| flag == "--secret-file") else {
            eprintln!("usage: redact_stdin redact [--secret-file FILE]...");
            return ExitCode::from(2);
        };
        match std::fs::read_to_string(path) {
            Ok(text) => asked.add_file_text(&format!("--secret-file {path}"), &text),
            Err(err) => {
                eprintln!("--secret-file {path}: {err}");
                return ExitCode::FAILURE;
            }
        }
    }
    let mut secrets = SecretSet::from_process_env();
    secrets.extend(asked);
    let redactor = secrets.redactor();
    let mut stdout = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let copied = redactor
        .redact_stream(io::stdin().lock(), &mut stdout)
        .and_then(|_| stdout.flush());
    match copied {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("redact_stdin: {err}");
            ExitCode::FAILURE
        }
    }
}
