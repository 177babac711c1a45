//! `ploy exec`: run a program (an OpenAI-compatible agent) with extra
//! environment variables set in ITS environment only (GW-4: the gateway token
//! reaches the child and nothing else). Lives here because every process
//! spawn belongs to ploy-proof.

use std::ffi::OsStr;
use std::io;

/// Why the program could not be run.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// No program was given.
    #[error("no program given: use `ploy exec -- PROGRAM [ARGS...]`")]
    NoProgram,
    /// The program could not be started.
    #[error("could not start {program:?}: {source}; check that it is installed and on PATH")]
    Spawn {
        /// The program.
        program: String,
        /// The error.
        source: io::Error,
    },
    /// Waiting for the program failed.
    #[error("lost track of {program:?}: {source}")]
    Wait {
        /// The program.
        program: String,
        /// The error.
        source: io::Error,
    },
}

/// Run `command[0]` with `command[1..]` as arguments, stdio inherited, with
/// `env` added to the child's environment (the parent's is not changed).
/// Returns the exit code to pass on: the child's code, or 128 + signal.
///
/// Environment policy, unlike extensions ([`crate::host`]), which get every
/// secret-looking variable stripped: the agent is a program the user starts
/// themselves through `ploy exec`, exactly as they would start it without
/// ploy, so it keeps the user's environment, their own keys included (an
/// agent may legitimately need them, and stripping them would only push users
/// to run agents outside ploy). What ploy must never do is ADD its own
/// secrets: the only values added are `env` (for `ploy exec`: the gateway URL
/// and the gateway's per-session token, which is useless off this machine);
/// the upstream provider keys stay inside the service process and are never
/// in this process's environment. An `env` entry replaces a variable of the
/// same name, so a real `OPENAI_API_KEY` in the user's shell is shadowed by
/// the gateway token and cannot be sent to the gateway by mistake (GW-4).
#[allow(clippy::disallowed_methods)] // ploy-proof is the process door; this is `ploy exec`'s one spawn.
pub fn run_with_env<K, V>(command: &[String], env: &[(K, V)]) -> Result<i32, ExecError>
where
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    use std::os::unix::process::ExitStatusExt;

    let (program, args) = command.split_first().ok_or(ExecError::NoProgram)?;
    let mut child = std::process::Command::new(program);
    child.args(args);
    for (key, value) in env {
        child.env(key, value);
    }
    let mut child = child.spawn().map_err(|source| ExecError::Spawn {
        program: program.clone(),
        source,
    })?;
    let status = child.wait().map_err(|source| ExecError::Wait {
        program: program.clone(),
        source,
    })?;
    Ok(match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: GW-4 (the variables reach the child only)
    #[test]
    fn exit_codes_pass_through_and_env_reaches_only_the_child() {
        let key = "PLOY_EXEC_TEST_CANARY";
        let code = run_with_env(
            &[
                "sh".to_string(),
                "-c".to_string(),
                format!("test \"${key}\" = yes && exit 7"),
            ],
            &[(key, "yes")],
        )
        .unwrap();
        assert_eq!(code, 7);
        // An added variable replaces one of the same name the child would
        // otherwise inherit (PATH is always inherited in tests).
        let code = run_with_env(
            &[
                "/bin/sh".to_string(),
                "-c".to_string(),
                "test \"$PATH\" = replaced && exit 5".to_string(),
            ],
            &[("PATH", "replaced")],
        );
        assert!(matches!(code, Ok(5)), "{code:?}");
        assert!(
            std::env::var_os(key).is_none(),
            "parent environment changed"
        );
        let code = run_with_env(
            &["sh".into(), "-c".into(), "kill -9 $$".into()],
            &[] as &[(&str, &str)],
        )
        .unwrap();
        assert_eq!(code, 128 + 9);
        assert!(matches!(
            run_with_env(&[], &[] as &[(&str, &str)]),
            Err(ExecError::NoProgram)
        ));
        assert!(matches!(
            run_with_env(&["/nonexistent/program".into()], &[] as &[(&str, &str)]),
            Err(ExecError::Spawn { .. })
        ));
    }
}
