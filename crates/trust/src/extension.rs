//! Extensions: programs the user declared (user settings, or the command line)
//! that answer events over JSON lines. The full protocol is in
//! `docs/extensions.md`; this module builds requests and reads responses, and
//! `ploy_proof::host` runs the program (the one process door).
//!
//! Envelope, the same for every event, so later events (`tool_call`,
//! `tool_result`) fit without change:
//!
//! * request: `{"protocol":"ploy-extension/1","id":"<n>","event":"<name>","data":{…}}`
//! * response: `{"id":"<n>","result":{…}}` — `id` optional but must match when
//!   given; a `null`/missing `result` or an `error` member means "no answer".
//!
//! Fail closed: a crash, a timeout, bad JSON, a wrong id, an unknown decision
//! word: each is "no answer" ([`ExtensionAnswer::NoAnswer`] with the reason),
//! never a yes.

use std::{
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use ploy_proof::host::{ExchangeLimits, HostProgram, exchange_line};
use serde::{Deserialize, Serialize};

use crate::detect::Resource;

/// Protocol name and major version sent in every request.
pub const PROTOCOL: &str = "ploy-extension/1";

/// Event asking whether to trust a project (TRUST-6).
pub const EVENT_PROJECT_TRUST: &str = "project_trust";

/// Default time an extension has to answer one event.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Where an extension was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtensionOrigin {
    /// The user's settings (user/global).
    User,
    /// The command line of this run.
    CommandLine,
    /// The project (`.ploy/extensions/` or project settings); loads only when
    /// trusted and never answers `project_trust`.
    Project,
}

/// One declared extension program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtensionSpec {
    /// The executable.
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Time to answer one event, from start to exit.
    #[serde(serialize_with = "as_millis")]
    pub timeout: Duration,
    /// Where it was declared.
    pub origin: ExtensionOrigin,
}

fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u128(d.as_millis())
}

impl ExtensionSpec {
    /// An extension with no arguments and the default timeout.
    pub fn new(command: impl Into<PathBuf>, origin: ExtensionOrigin) -> Self {
        Self {
            command: command.into(),
            args: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            origin,
        }
    }
}

/// Why an event got no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum ExtensionError {
    /// The program did not produce a response line (crash, timeout, …).
    #[error(transparent)]
    Host(#[from] ploy_proof::host::HostError),
    /// The request could not be encoded.
    #[error("could not encode the request: {0}")]
    Encode(serde_json::Error),
    /// The response line is not the protocol's JSON.
    #[error("extension {program} answered something that is not a protocol response: {reason}")]
    BadResponse {
        /// The program.
        program: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// A bare program name was not found on the absolute entries of `PATH`.
    #[error("extension {program} was not found on PATH (relative PATH entries are ignored)")]
    NotFound {
        /// The program name.
        program: PathBuf,
    },
    /// The response carried an `error` member.
    #[error("extension {program} reported an error: {message}")]
    Reported {
        /// The program.
        program: PathBuf,
        /// Its message.
        message: String,
    },
}

#[derive(Serialize)]
struct Request<'a, T: Serialize> {
    protocol: &'static str,
    id: String,
    event: &'a str,
    data: &'a T,
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    result: Option<serde_json::Value>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

static REQUEST_ID: AtomicU64 = AtomicU64::new(1);

/// Sends one event to one extension and returns its `result` (`None` when it
/// declines to answer). Generic over the event so later events reuse it.
pub fn call_event<T: Serialize>(
    extension: &ExtensionSpec,
    event: &str,
    data: &T,
    working_dir: Option<&Path>,
) -> Result<Option<serde_json::Value>, ExtensionError> {
    let id = REQUEST_ID.fetch_add(1, Ordering::Relaxed).to_string();
    let request = Request {
        protocol: PROTOCOL,
        id: id.clone(),
        event,
        data,
    };
    let line = serde_json::to_string(&request).map_err(ExtensionError::Encode)?;
    let program = HostProgram {
        program: resolve_command(&extension.command)?,
        args: extension.args.clone(),
        working_dir: working_dir.map(Path::to_path_buf),
    };
    let limits = ExchangeLimits {
        timeout: extension.timeout,
        ..ExchangeLimits::default()
    };
    let answer = exchange_line(&program, &line, &limits)?;
    let bad = |reason: String| ExtensionError::BadResponse {
        program: extension.command.clone(),
        reason,
    };
    let response: Response = serde_json::from_str(&answer).map_err(|e| bad(e.to_string()))?;
    if let Some(got) = &response.id
        && got.as_str() != Some(id.as_str())
    {
        return Err(bad(format!(
            "response id {got} does not match request id \"{id}\""
        )));
    }
    if let Some(error) = response.error.filter(|e| !e.is_null()) {
        let message = error
            .get("message")
            .and_then(|m| m.as_str())
            .map(str::to_owned)
            .unwrap_or_else(|| error.to_string());
        return Err(ExtensionError::Reported {
            program: extension.command.clone(),
            message,
        });
    }
    Ok(response.result.filter(|r| !r.is_null()))
}

/// A bare program name is looked up on the absolute entries of `PATH` only:
/// the extension may run with an untrusted project as its working directory,
/// and a relative `PATH` entry (`.`) would let the project supply the program.
fn resolve_command(command: &Path) -> Result<PathBuf, ExtensionError> {
    if command.components().count() != 1 || command.is_absolute() {
        return Ok(command.to_path_buf());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(command))
        .find(|candidate| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(candidate)
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
        .ok_or_else(|| ExtensionError::NotFound {
            program: command.to_path_buf(),
        })
}

/// The data of a `project_trust` event.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectTrustData<'a> {
    /// The canonical working directory.
    pub cwd: &'a Path,
    /// The resources that need trust.
    pub resources: &'a [Resource],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectTrustResult {
    decision: String,
    #[serde(default)]
    remember: bool,
}

/// An extension's answer to `project_trust`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum ExtensionAnswer {
    /// Trust the project; `remember` saves it for the working directory.
    Yes {
        /// Save the decision in the trust file.
        remember: bool,
    },
    /// Do not trust the project; `remember` saves it.
    No {
        /// Save the decision in the trust file.
        remember: bool,
    },
    /// No decision (declined, crashed, timed out, malformed), with why.
    NoAnswer {
        /// Why there is no answer.
        reason: String,
    },
}

/// One extension's part in a resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtensionOutcome {
    /// The program asked.
    pub extension: PathBuf,
    /// What it answered.
    pub answer: ExtensionAnswer,
}

/// Asks one extension the `project_trust` event. Never fails: every problem
/// is [`ExtensionAnswer::NoAnswer`] with its reason.
pub fn ask_project_trust(
    extension: &ExtensionSpec,
    cwd: &Path,
    resources: &[Resource],
) -> ExtensionAnswer {
    let data = ProjectTrustData { cwd, resources };
    let result = match call_event(extension, EVENT_PROJECT_TRUST, &data, Some(cwd)) {
        Ok(Some(result)) => result,
        Ok(None) => {
            return ExtensionAnswer::NoAnswer {
                reason: "declined (no result)".to_owned(),
            };
        }
        Err(err) => {
            return ExtensionAnswer::NoAnswer {
                reason: err.to_string(),
            };
        }
    };
    match serde_json::from_value::<ProjectTrustResult>(result) {
        Ok(r) => match r.decision.as_str() {
            "yes" => ExtensionAnswer::Yes {
                remember: r.remember,
            },
            "no" => ExtensionAnswer::No {
                remember: r.remember,
            },
            "none" => ExtensionAnswer::NoAnswer {
                reason: "declined (decision \"none\")".to_owned(),
            },
            other => ExtensionAnswer::NoAnswer {
                reason: format!(
                    "unknown decision {other:?} (expected \"yes\", \"no\" or \"none\"); treated as no answer"
                ),
            },
        },
        Err(err) => ExtensionAnswer::NoAnswer {
            reason: format!("malformed project_trust result: {err}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> ExtensionSpec {
        ExtensionSpec {
            command: PathBuf::from("/bin/sh"),
            args: vec!["-c".to_owned(), script.to_owned()],
            timeout: Duration::from_secs(10),
            origin: ExtensionOrigin::User,
        }
    }

    fn ask(script: &str) -> ExtensionAnswer {
        ask_project_trust(&sh(script), Path::new("/"), &[])
    }

    // proves: TRUST-6
    #[test]
    fn yes_no_none_and_remember() {
        assert_eq!(
            ask("echo '{\"result\":{\"decision\":\"yes\"}}'"),
            ExtensionAnswer::Yes { remember: false }
        );
        assert_eq!(
            ask("echo '{\"result\":{\"decision\":\"no\",\"remember\":true}}'"),
            ExtensionAnswer::No { remember: true }
        );
        assert!(matches!(
            ask("echo '{\"result\":{\"decision\":\"none\"}}'"),
            ExtensionAnswer::NoAnswer { .. }
        ));
        assert!(matches!(
            ask("echo '{\"result\":null}'"),
            ExtensionAnswer::NoAnswer { .. }
        ));
    }

    // proves: TRUST-6
    #[test]
    fn anything_unclear_is_no_answer_never_yes() {
        for script in [
            "echo yes",
            "echo '{\"result\":{\"decision\":\"YES\"}}'",
            "echo '{\"result\":{\"decision\":true}}'",
            "echo '{\"result\":{\"decision\":\"yes\",\"also\":1}}'",
            "echo '{\"result\":\"yes\"}'",
            "echo '{\"id\":\"999999999\",\"result\":{\"decision\":\"yes\"}}'",
            "echo '{\"error\":{\"message\":\"nope\"},\"result\":{\"decision\":\"yes\"}}'",
            "echo '{\"result\":{\"decision\":\"yes\"}}'; exit 1",
            "echo '{\"result\":{\"decision\":\"yes\"}}'; echo '{\"result\":{\"decision\":\"yes\"}}'",
        ] {
            assert!(
                matches!(ask(script), ExtensionAnswer::NoAnswer { .. }),
                "{script} was taken as an answer"
            );
        }
    }

    // proves: TRUST-6
    #[test]
    fn request_envelope_carries_protocol_event_and_data() {
        // The script echoes its request's fields back as the decision reason:
        // it answers yes only if the envelope is as documented.
        let script = r#"read line
case "$line" in
  *'"protocol":"ploy-extension/1"'*'"event":"project_trust"'*'"cwd":"/"'*) echo '{"result":{"decision":"yes"}}' ;;
  *) echo '{"result":{"decision":"no"}}' ;;
esac"#;
        assert_eq!(ask(script), ExtensionAnswer::Yes { remember: false });
    }

    // proves: TRUST-6
    #[test]
    fn bare_names_ignore_relative_path_entries() {
        assert_eq!(
            resolve_command(Path::new("sh"))
                .unwrap()
                .parent()
                .map(|p| p.is_absolute()),
            Some(true)
        );
        assert!(matches!(
            resolve_command(Path::new("ploy-no-such-extension-xyz")),
            Err(ExtensionError::NotFound { .. })
        ));
        assert_eq!(
            resolve_command(Path::new("/x/y")).unwrap(),
            PathBuf::from("/x/y")
        );
    }

    // proves: TRUST-6
    #[test]
    fn matching_id_is_accepted() {
        let script = r#"read line
id=$(printf '%s' "$line" | sed 's/.*"id":"\([0-9]*\)".*/\1/')
printf '{"id":"%s","result":{"decision":"no"}}\n' "$id""#;
        assert_eq!(ask(script), ExtensionAnswer::No { remember: false });
    }
}
