//! `ploy exec`: run a program (an OpenAI-compatible agent) with extra
//! environment variables set in ITS environment only (GW-4: the gateway token
//! reaches the child and nothing else), contained so that it cannot reach the
//! service's own secrets (SVC-1, [`crate::contain`]). Lives here because every
//! process spawn belongs to ploy-proof.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

pub use crate::contain::ContainError;

/// Why the program could not be run.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// No program was given.
    #[error("no program given: use `ploy exec -- PROGRAM [ARGS...]`")]
    NoProgram,
    /// Containment could not be set up, or the program could not start.
    #[error(transparent)]
    Contain(#[from] ContainError),
}

/// Run `command[0]` with `command[1..]` as arguments, stdio inherited, with
/// `env` added to the child's environment (the parent's is not changed),
/// every `PLOY_*` variable removed, and each folder of `hide` (ploy's state
/// and config folders; they must exist) replaced by an empty folder in the
/// program's view. `launcher` is the `ploy` binary (its `main` calls
/// [`crate::contain::entry_if_requested`] first). Returns the exit code to
/// pass on: the child's code, or 128 + signal. Fails closed: when the
/// folders cannot be hidden, the program is not started.
///
/// Environment policy, unlike extensions ([`crate::host`]), which get every
/// secret-looking variable stripped: the agent is a program the user starts
/// themselves through `ploy exec`, exactly as they would start it without
/// ploy, so it keeps the user's environment, their own keys included (an
/// agent may legitimately need them, and stripping them would only push users
/// to run agents outside ploy). What ploy must never do is hand over its
/// OWN secrets: the only values added are `env` (for `ploy exec`: the gateway
/// URL and the gateway's per-session token, which is useless off this
/// machine); `PLOY_*` variables (which point at ploy's folders and carry its
/// keys, such as `PLOY_TAVILY_KEYS`) are removed; the service file and the
/// config folder are hidden. An `env` entry replaces a variable of the same
/// name, so a real `OPENAI_API_KEY` in the user's shell is shadowed by the
/// gateway token and cannot be sent to the gateway by mistake (GW-4).
pub fn run_with_env<K, V>(
    launcher: &Path,
    command: &[String],
    env: &[(K, V)],
    hide: &[PathBuf],
) -> Result<i32, ExecError>
where
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    if command.is_empty() {
        return Err(ExecError::NoProgram);
    }
    Ok(crate::contain::run_contained(launcher, command, env, hide)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_program_is_refused_before_anything_starts() {
        let result = run_with_env(
            Path::new("/nonexistent/ploy"),
            &[],
            &[] as &[(&str, &str)],
            &[],
        );
        assert!(matches!(result, Err(ExecError::NoProgram)), "{result:?}");
        // A folder to hide that does not exist: refused, nothing started.
        let result = run_with_env(
            Path::new("/nonexistent/ploy"),
            &["true".to_string()],
            &[] as &[(&str, &str)],
            &[PathBuf::from("/nonexistent/state")],
        );
        assert!(
            matches!(
                result,
                Err(ExecError::Contain(ContainError::BadFolder { .. }))
            ),
            "{result:?}"
        );
    }
}
