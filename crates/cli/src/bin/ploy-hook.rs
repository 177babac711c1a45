//! `ploy-hook`: `ploy hook claude-code` and `ploy hook check` in a small
//! binary, because a hook runs once per tool call and must answer fast.
//!
//! The full `ploy` binary spends most of a hook's time being loaded (tens
//! of thousands of relocations) and building its log redactor from the
//! environment; this one links only the judge and builds a redactor only
//! when it prints a reason. Same library, same answers, same rule: exit
//! code 0 always, every failure a `deny` (`ploy_hook::claude`).
//! `ploy hook install` points Claude Code at this binary when it sits next
//! to `ploy`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use ploy_hook::serve::{Mode, answer_stdin};

fn main() -> ExitCode {
    let mode = match std::env::args().nth(1).unwrap_or_default().as_str() {
        "claude-code" => Mode::ClaudeCode,
        "check" => Mode::Check,
        _ => {
            eprintln!("usage: ploy-hook claude-code | check   (the hook JSON on stdin)");
            return ExitCode::from(2);
        }
    };
    // `sandbox_bash` rewrites commands to run through `ploy` next to this binary.
    let ploy = std::env::current_exe()
        .map(|exe| exe.with_file_name("ploy"))
        .unwrap_or_else(|_| PathBuf::from("ploy"));
    // Within the budget, or a refusal (ploy_hook::serve).
    let output = answer_stdin(mode, ploy);
    if !output.is_empty() {
        // The reader went away (EPIPE): nothing to do about it; still exit 0.
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{output}");
        let _ = stdout.flush();
    }
    ExitCode::SUCCESS
}
