//! The tool contract. A tool has two halves:
//!
//! * [`Tool::prepare`]: parse the model's arguments, resolve paths, read
//!   what a preview needs, and classify the call into the
//!   `ploy_policy::Action`s it would perform. No side effect.
//! * [`Tool::run`]: perform exactly what was prepared. It takes a
//!   [`Cleared`] token, which only the dispatcher can make, and only after
//!   `Permission::assert` (and, for an ask, a person) allowed every action of
//!   the call (PERM-1). A tool therefore cannot run without the decision:
//!   there is no other way to get the token.

use std::any::Any;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::marker::ConversationMarker;
use ploy_egress::SecretDoor;
use ploy_policy::{Action, ExecutionProfile, ProjectRoot};
use ploy_secrets::{Redactor, SecretSet};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub use crate::dispatch::{Cleared, ReadGate};
use crate::tools::web::LazyWeb;

/// A boxed, sendable future (tools are called through trait objects).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A tool's name, description and argument schema, as the model sees them.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name the model calls.
    pub name: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

impl ToolSpec {
    /// The OpenAI `tools` entry.
    pub fn to_openai(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            }
        })
    }
}

/// What [`Tool::prepare`] found: the actions to decide on, what a person
/// would be shown, and the tool's own plan for [`Tool::run`].
pub struct Prepared {
    /// The actions the call performs; every one must be allowed. Never empty.
    pub actions: Vec<Action>,
    /// The target as shown to a person (path, command line, URL, question).
    pub target: String,
    /// The tool's plan, handed back inside [`Cleared`].
    pub plan: Box<dyn Any + Send>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("actions", &self.actions)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// A tool's raw result, before the redactor and the cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// False when the tool failed (the model is told so).
    pub ok: bool,
    /// The text.
    pub text: String,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            ok: true,
            text: text.into(),
        }
    }

    /// A failed result with a structured error body.
    pub fn error(tool: &str, error: &ToolError) -> Self {
        let mut body = json!({"status": "error", "tool": tool, "error": error.message});
        if let Some(rule) = error.rule {
            body["rule"] = json!(rule);
        }
        Self {
            ok: false,
            text: body.to_string(),
        }
    }
}

/// Why a call could not be prepared or run: told to the model as a
/// structured result (FAIL-1: the loop goes on).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// What went wrong and what to do instead.
    pub message: String,
    /// The requirement behind a refusal, when one applies.
    pub rule: Option<&'static str>,
}

impl ToolError {
    /// An error with a message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            rule: None,
        }
    }

    /// A refusal under a requirement.
    pub fn rule(rule: &'static str, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            rule: Some(rule),
        }
    }
}

/// How `shell` runs commands.
#[derive(Debug, Clone)]
pub struct ShellSetup {
    /// The sandbox's init binary (`None`: `ploy-sandbox-init` next to the
    /// running executable; a test helper may serve as its own init by
    /// calling `ploy_proof::sandbox::init_entry_if_requested` first).
    pub launcher: Option<PathBuf>,
    /// Wall time of one command.
    pub timeout: Duration,
}

/// The egress door's secret check for what a command run on the host
/// sends by itself (the agent's `shell` under `danger-full-access`, whose
/// program connects without ploy's fetcher): the same door the fetcher
/// uses, built from the run's known secrets at first use (BEYOND-6).
pub struct HostDoor {
    secrets: Option<SecretSet>,
    door: OnceLock<SecretDoor>,
}

impl std::fmt::Debug for HostDoor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostDoor")
            .field("known", &self.secrets.is_some())
            .finish_non_exhaustive()
    }
}

impl HostDoor {
    /// A door for `secrets`; `None` when the run's secrets are not known,
    /// and then every check refuses (fail closed).
    pub fn new(secrets: Option<SecretSet>) -> Self {
        Self {
            secrets,
            door: OnceLock::new(),
        }
    }

    /// Refuses when `text` carries a known secret in any form the door
    /// sees, or when the secrets are not known.
    pub fn check(&self, text: &str) -> Result<(), ToolError> {
        let Some(secrets) = &self.secrets else {
            return Err(ToolError::rule(
                "BEYOND-6",
                "the run's known secrets are not available, so what this command sends cannot be checked",
            ));
        };
        let door = self.door.get_or_init(|| SecretDoor::from_set(secrets));
        door.check_sent_text(text)
            .map_err(|refusal| ToolError::rule(refusal.rule, refusal.reason))
    }

    /// [`HostDoor::check`] when the run's secrets are known; `Ok` when the
    /// run has no secret set at all (a library caller that gave no web
    /// setup: `ploy -p` always gives one), for a line that does not reach
    /// the network. A line that does goes through [`HostDoor::check`],
    /// which refuses then (fail closed).
    pub fn check_if_known(&self, text: &str) -> Result<(), ToolError> {
        if self.secrets.is_none() {
            return Ok(());
        }
        self.check(text)
    }

    /// How `line` reads the environment's known secrets (`printenv`,
    /// `$KEY`, `/proc/self/environ`), if it does. When the secrets are not
    /// known, any line that names a variable or prints the environment
    /// counts (fail closed).
    pub fn environment_read(&self, line: &str) -> Option<ploy_policy::EnvironmentRead> {
        let Some(secrets) = &self.secrets else {
            return ploy_policy::environment_read(line, true, &|_| true);
        };
        ploy_policy::environment_read_of(line, secrets.env_names())
    }
}

/// What every tool may use. No logger is injected: tools log only
/// through `tracing`, whose one writer redacts.
#[derive(Clone)]
pub struct ToolContext {
    /// The canonical project folder.
    pub project: PathBuf,
    /// The project root as the policy places paths.
    pub root: ProjectRoot,
    /// The execution profile (sandbox mode).
    pub profile: ExecutionProfile,
    /// The conversation the call belongs to.
    pub conversation_id: String,
    /// Marks the conversation (durably, then in memory) before web text is
    /// returned (TAINT-1, TAINT-3), and records the sites it visits
    /// (BROWSER-2).
    pub marker: Arc<ConversationMarker>,
    /// The research engine for the web tools, built at their first call
    /// (`None`: they report that the web is not set up).
    pub web: Option<Arc<LazyWeb>>,
    /// How `shell` runs.
    pub shell: ShellSetup,
    /// The user's home folder (for `~` in paths).
    pub home: Option<PathBuf>,
    /// Cancels the current turn's work.
    pub cancel: CancellationToken,
    /// Whether a file's `read` is allowed outright, by the run's policy:
    /// `shell` and `plan_check` list the project's guarded files with it
    /// (what a command may read without naming it, PERM-2).
    pub reads: ReadGate,
    /// The run's redactor (every known secret). The dispatcher redacts
    /// every result; a tool whose answer is a *function* of a file's text
    /// (`grep`: match or no match) also runs on the redacted text, so its
    /// answer tells nothing about a secret's value (REDACT-1).
    pub redactor: Redactor,
    /// The secret check for what a command run on the host sends itself.
    pub host_door: Arc<HostDoor>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("project", &self.project)
            .field("profile", &self.profile)
            .field("conversation_id", &self.conversation_id)
            .finish_non_exhaustive()
    }
}

/// A tool the model can call.
pub trait Tool: Send + Sync {
    /// Name, description and argument schema.
    fn spec(&self) -> ToolSpec;

    /// Parse the arguments and classify the call (no side effect).
    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError>;

    /// For a call a person is asked about: what they should see of the
    /// change (an edit's unified diff). Called only after the decision, only
    /// when someone can answer; may stash what it read in the plan so that
    /// [`Tool::run`] writes nothing but what was shown.
    fn preview(&self, _plan: &mut (dyn Any + Send), _ctx: &ToolContext) -> Option<String> {
        None
    }

    /// Perform the prepared call. Requires the dispatcher's [`Cleared`].
    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput>;
}

/// The tools of a run, looked up by name.
#[derive(Clone, Default)]
pub struct Registry {
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Registry {
    /// No tool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a tool; a second tool with the same name replaces nothing and is
    /// refused (names are the contract other programs depend on).
    pub fn add(&mut self, tool: Arc<dyn Tool>) -> Result<(), ToolError> {
        let name = tool.spec().name;
        if self.get(name).is_some() {
            return Err(ToolError::new(format!(
                "a tool named `{name}` is already registered"
            )));
        }
        self.tools.push(tool);
        Ok(())
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.spec().name == name)
    }

    /// Every tool's name, in registration order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.spec().name).collect()
    }

    /// The `tools` array the model is given.
    pub fn openai_tools(&self) -> Vec<Value> {
        self.tools.iter().map(|t| t.spec().to_openai()).collect()
    }
}

/// The schema of a tool taking one required string argument `name`.
pub(crate) fn one_string_schema(name: &str, max_length: usize) -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": [name],
        "properties": {name: {"type": "string", "minLength": 1, "maxLength": max_length}}
    })
}

/// Prepares a call whose only argument is the string `name` (the tools
/// [`one_string_schema`] describes): `actions` turns its value into the
/// actions to decide; the value is the target shown and the plan
/// ([`cleared_string`] takes it back).
pub(crate) fn prepare_one_string(
    args: &Value,
    name: &str,
    actions: impl FnOnce(&str) -> Result<Vec<Action>, ToolError>,
) -> Result<Prepared, ToolError> {
    only_args(args, &[name])?;
    let value = str_arg(args, name)?;
    Ok(Prepared {
        actions: actions(value)?,
        target: value.to_string(),
        plan: Box::new(value.to_string()),
    })
}

/// The string plan of a call [`prepare_one_string`] prepared, or the
/// error output of `tool`.
pub(crate) fn cleared_string(
    cleared: crate::dispatch::Cleared,
    tool: &str,
) -> Result<String, ToolOutput> {
    cleared
        .into_parts::<String>()
        .map(|(value, _)| value)
        .map_err(|err| ToolOutput::error(tool, &err))
}

/// Read a required string argument.
pub(crate) fn str_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    args.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::new(format!("missing or non-string argument `{name}`")))
}

/// Read an optional string argument.
pub(crate) fn opt_str_arg<'a>(args: &'a Value, name: &str) -> Result<Option<&'a str>, ToolError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ToolError::new(format!(
            "argument `{name}` must be a string"
        ))),
    }
}

/// Refuse arguments the schema does not name (the schemas say
/// `additionalProperties: false`; a model that invents one is told).
pub(crate) fn only_args(args: &Value, allowed: &[&str]) -> Result<(), ToolError> {
    let object = args
        .as_object()
        .ok_or_else(|| ToolError::new("the arguments must be a JSON object"))?;
    for key in object.keys() {
        if !allowed.contains(&key.as_str()) {
            return Err(ToolError::new(format!(
                "unknown argument `{key}` (this tool takes: {})",
                allowed.join(", ")
            )));
        }
    }
    Ok(())
}
