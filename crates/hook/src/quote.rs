//! `hook.sandbox_bash`: a Claude Code `Bash` command rewritten to run
//! inside ploy's sandbox, quoted so that the command string reaches
//! `bash -c` exactly as Claude Code wrote it (the property test in
//! `tests/quote.rs` runs the result through a real shell for arbitrary
//! strings).

use std::path::Path;

use crate::judge::Refused;

/// One shell word holding `text` exactly: single quotes, each `'` written
/// as `'\''`. Inside single quotes nothing is special to the shell, so no
/// expansion, escape or newline can change the word.
pub fn sh_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// `'<ploy>' sandbox run --project '<project>' -- bash -c '<command>'`.
/// Refused (never altered) when a part cannot be one shell word: a NUL byte
/// cannot be in a program's arguments, and a path that is not UTF-8 cannot
/// be written into the JSON Claude Code reads back.
pub fn sandboxed_command(ploy: &Path, project: &Path, command: &str) -> Result<String, Refused> {
    let text = |path: &Path, what: &str| {
        path.to_str().map(str::to_owned).ok_or_else(|| {
            Refused::new(
                "SBX-5",
                format!(
                    "{what} `{}` is not UTF-8; the sandboxed command cannot be written",
                    path.display()
                ),
            )
        })
    };
    let ploy = text(ploy, "the ploy binary")?;
    let project = text(project, "the project folder")?;
    if command.contains('\0') {
        return Err(Refused::new(
            "SBX-5",
            "the command holds a NUL byte; it cannot be passed to the sandbox unchanged",
        ));
    }
    Ok(format!(
        "{} sandbox run --project {} -- bash -c {}",
        sh_quote(&ploy),
        sh_quote(&project),
        sh_quote(command)
    ))
}
