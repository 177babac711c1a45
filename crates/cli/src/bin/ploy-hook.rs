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

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use ploy_dirs::PloyDirs;
use ploy_hook::HookEnv;
use ploy_hook::claude::MAX_INPUT_BYTES;

fn main() -> ExitCode {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let judge: fn(&[u8], &HookEnv<'_>) -> String = match mode.as_str() {
        "claude-code" => ploy_hook::claude::run,
        "check" => ploy_hook::check::run,
        _ => {
            eprintln!("usage: ploy-hook claude-code | check   (the hook JSON on stdin)");
            return ExitCode::from(2);
        }
    };
    let mut input = Vec::new();
    let limit = u64::try_from(MAX_INPUT_BYTES + 1).unwrap_or(u64::MAX);
    // A read error leaves what was read: the judge refuses it as malformed.
    let _ = std::io::stdin().lock().take(limit).read_to_end(&mut input);
    // `sandbox_bash` rewrites commands to run through `ploy` next to this binary.
    let ploy = std::env::current_exe()
        .map(|exe| exe.with_file_name("ploy"))
        .unwrap_or_else(|_| PathBuf::from("ploy"));
    let env = HookEnv {
        dirs: PloyDirs::from_env().map_err(|e| e.to_string()),
        ploy: &ploy,
    };
    let output = judge(&input, &env);
    if !output.is_empty() {
        // The reader went away (EPIPE): nothing to do about it; still exit 0.
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{output}");
        let _ = stdout.flush();
    }
    ExitCode::SUCCESS
}
