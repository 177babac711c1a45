//! The settings file format (JSON) and its layering.
//!
//! ```json
//! {
//!   "security_profile": { "sandbox": "workspace-write", "approval": "ask" },
//!   "permissions": {
//!     "shell": { "allow": ["cargo test *", "git status"], "ask": [], "deny": ["git push *"] },
//!     "edit":  { "deny": [".git/**"] },
//!     "read":  { "ask": [".env"] },
//!     "external_directory": { "allow": ["/tmp/**"] },
//!     "web":   { "allow": ["*.wikipedia.org"] }
//!   },
//!   "default_project_trust": "ask",
//!   "extensions": [{ "command": "/abs/path/prog", "args": [], "timeout_ms": 5000 }],
//!   "service": { "listen": "127.0.0.1:8377" },
//!   "hook": { "answer_allow": false, "sandbox_bash": false },
//!   "secrets": { "env": ["DEPLOY_PASS"], "files": ["config/credentials.txt"] }
//! }
//! ```
//!
//! Every object refuses unknown keys (CONFIG-1). `security_profile` is
//! mandatory in the user's settings (PROFILE-2) and validated at load
//! (PROFILE-1). `extensions` are run by ploy-trust; their limits are checked
//! here (`timeout_ms` in 1..=600000). Parsing is pure: the caller reads the
//! file and passes its text with a label (the path) used in every message.
//!
//! Optional sections:
//!
//! * `service`: the settings of `ploy serve` (listen addresses, upstream,
//!   limits). Here it must be a JSON object (CONFIG-1); its keys are validated
//!   by ploy-service (`ServiceSection::from_value`), which refuses unknown ones.
//!   `ploy serve` reads it from the user's settings only, when `--config` is
//!   not given.
//! * `model` and `agent`: the agent's model connection (`upstream`, `model`,
//!   `context_chars`) and limits (`max_turns`, ...). Here each must be a JSON
//!   object (CONFIG-1); ploy-agent validates the keys (`AgentConfig`) and
//!   refuses unknown ones.
//! * `hook`: the settings of `ploy hook` (the Claude Code adapter and the
//!   generic check). Here it must be a JSON object (CONFIG-1); its keys are
//!   validated by ploy-hook (`HookSettings::from_value`), which refuses
//!   unknown ones. Read from the user's settings only: a project must not
//!   be able to widen what the hook lets through.
//! * `secrets`: more known secrets (REDACT-1, BEYOND-6), on top of the
//!   environment and the project's `.env` files: `env` names variables whose
//!   values are secret (`[A-Za-z_][A-Za-z0-9_]*`), `files` names files every
//!   value of which is secret (relative to the project, `~/` for home, or
//!   absolute). Read from the user's settings only, by
//!   `ploy_secrets::known_secrets`.
//! * `proof`: no keys any more. `proof.writable_dirs` (project folders a
//!   proof could write to for real) was removed: build output now goes to a
//!   per-project build cache outside the project, and the whole project,
//!   `target/` included, is copy-on-write for proofs (BEYOND-4). A file that
//!   still sets it is refused (CONFIG-1, naming the key and line) with that
//!   reason, so nobody believes a folder is writable when it is not.

use serde::{Deserialize, Serialize};

use crate::action::ActionKind;
use crate::profile::{ApprovalMode, ExecutionProfile, ProfileError, SandboxMode};
use crate::rules::{Effect, ProjectTrust, Rule, RuleError, RuleLayer, RuleSource, Rules};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSettings {
    #[serde(default)]
    security_profile: Option<RawProfile>,
    #[serde(default)]
    permissions: Option<RawPermissions>,
    #[serde(default)]
    default_project_trust: Option<DefaultProjectTrust>,
    #[serde(default)]
    extensions: Option<Vec<ExtensionDecl>>,
    #[serde(default)]
    service: Option<serde_json::Value>,
    #[serde(default)]
    model: Option<serde_json::Value>,
    #[serde(default)]
    agent: Option<serde_json::Value>,
    #[serde(default)]
    hook: Option<serde_json::Value>,
    #[serde(default)]
    proof: Option<RawProof>,
    #[serde(default)]
    secrets: Option<SecretsSettings>,
}

/// The `secrets` section: more known secrets (module docs). Both lists
/// are validated at load (CONFIG-1).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretsSettings {
    /// Environment variables whose values are secret, whatever their names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Files every value of which is secret (one per line, or dotenv
    /// `NAME=VALUE` lines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl SecretsSettings {
    /// The first invalid entry, as `(key, message)`.
    fn problem(&self) -> Option<(String, String)> {
        for (i, name) in self.env.iter().enumerate() {
            let valid = name
                .bytes()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
            if !valid {
                return Some((
                    format!("secrets.env[{i}]"),
                    format!(
                        "{name:?} is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)"
                    ),
                ));
            }
        }
        for (i, file) in self.files.iter().enumerate() {
            if file.trim().is_empty() || file.contains('\0') {
                return Some((
                    format!("secrets.files[{i}]"),
                    "must name a file (relative to the project, ~/..., or absolute)".to_string(),
                ));
            }
        }
        None
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProof {
    /// Removed; kept here only to refuse it with the reason (any value,
    /// `null` included, counts as set).
    #[serde(default, deserialize_with = "present")]
    writable_dirs: Option<serde_json::Value>,
}

/// `Some(value)` for a key that is present, whatever its value.
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(deserializer).map(Some)
}

/// Longest timeout an extension may be given (10 minutes).
pub const MAX_EXTENSION_TIMEOUT_MS: u64 = 600_000;

/// One extension program declared in settings (run by ploy-trust, TRUST-6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtensionDecl {
    /// The program to run.
    pub command: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// How long it may take to answer, in milliseconds (1..=600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    sandbox: SandboxMode,
    approval: ApprovalMode,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPermissions {
    #[serde(default)]
    read: RawKindRules,
    #[serde(default)]
    edit: RawKindRules,
    #[serde(default)]
    shell: RawKindRules,
    #[serde(default)]
    external_directory: RawKindRules,
    #[serde(default)]
    web: RawKindRules,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKindRules {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// `default_project_trust` (TRUST-4): what to do with an undecided project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefaultProjectTrust {
    /// Ask when there is a UI (the default).
    Ask,
    /// Never trust undecided projects.
    Never,
    /// Always trust undecided projects.
    Always,
}

/// A settings file's contents, validated. `Default` is an empty file with
/// no profile (which [`Settings::execution_profile`] refuses).
#[derive(Debug, Clone)]
pub struct Settings {
    origin: String,
    profile: Option<ExecutionProfile>,
    rules: RuleLayer,
    default_project_trust: Option<DefaultProjectTrust>,
    extensions: Option<Vec<ExtensionDecl>>,
    extensions_json: Option<serde_json::Value>,
    service: Option<serde_json::Value>,
    model: Option<serde_json::Value>,
    agent: Option<serde_json::Value>,
    hook: Option<serde_json::Value>,
    secrets: SecretsSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            origin: String::new(),
            profile: None,
            rules: RuleLayer::empty(RuleSource::User),
            default_project_trust: None,
            extensions: None,
            extensions_json: None,
            service: None,
            model: None,
            agent: None,
            hook: None,
            secrets: SecretsSettings::default(),
        }
    }
}

/// Serialized view of one kind's rules.
#[derive(Serialize)]
struct KindRulesView<'a> {
    allow: Vec<&'a str>,
    ask: Vec<&'a str>,
    deny: Vec<&'a str>,
}

/// Serialized view of settings, in the file's own shape.
#[derive(Serialize)]
struct SettingsView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    security_profile: Option<&'a ExecutionProfile>,
    permissions: std::collections::BTreeMap<&'static str, KindRulesView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_project_trust: Option<DefaultProjectTrust>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extensions: Option<&'a [ExtensionDecl]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    service: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hook: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    secrets: Option<&'a SecretsSettings>,
}

impl Serialize for Settings {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut permissions = std::collections::BTreeMap::new();
        for kind in ActionKind::ALL {
            let pick = |effect: Effect| -> Vec<&str> {
                self.rules()
                    .iter()
                    .filter(|r| r.kind == kind && r.effect == effect)
                    .map(|r| r.pattern.as_str())
                    .collect()
            };
            let view = KindRulesView {
                allow: pick(Effect::Allow),
                ask: pick(Effect::Ask),
                deny: pick(Effect::Deny),
            };
            if !(view.allow.is_empty() && view.ask.is_empty() && view.deny.is_empty()) {
                permissions.insert(kind.as_str(), view);
            }
        }
        SettingsView {
            security_profile: self.profile.as_ref(),
            permissions,
            default_project_trust: self.default_project_trust,
            extensions: self.extensions.as_deref(),
            service: self.service.as_ref(),
            model: self.model.as_ref(),
            agent: self.agent.as_ref(),
            hook: self.hook.as_ref(),
            secrets: (self.secrets != SecretsSettings::default()).then_some(&self.secrets),
        }
        .serialize(serializer)
    }
}

/// Why settings were refused. Every variant names the file (`origin`), the
/// key and the requirement; `line` is given when known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// Malformed JSON, unknown key, unknown value, wrong type (CONFIG-1).
    #[error("{origin}{}: key `{key}`: {message} (CONFIG-1)", at(*line, *column))]
    Invalid {
        /// The file.
        origin: String,
        /// Dotted key path (`security_profile.sandbox`), `.` for the top.
        key: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// 1-based column, when known.
        column: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// The forbidden profile (PROFILE-1).
    #[error("{origin}{}: key `security_profile`: {source}", at(*line, None))]
    ForbiddenProfile {
        /// The file.
        origin: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// The refusal.
        source: ProfileError,
    },
    /// No profile where one is mandatory (PROFILE-2).
    #[error(
        "{origin}: key `security_profile` is missing (PROFILE-2): the execution profile is mandatory; \
         add {{\"security_profile\": {{\"sandbox\": \"workspace-write\", \"approval\": \"ask\"}}}}"
    )]
    MissingProfile {
        /// The file (or a description of where the profile was looked for).
        origin: String,
    },
    /// A permission pattern does not compile (PERM-2).
    #[error("{origin}{}: key `{key}`: {source}", at(*line, None))]
    Rule {
        /// The file.
        origin: String,
        /// Dotted key path (`permissions.shell.allow[2]`).
        key: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// The compile error.
        source: RuleError,
    },
}

fn at(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

impl SettingsError {
    /// The requirement ID this error enforces.
    pub fn requirement(&self) -> &'static str {
        match self {
            Self::Invalid { .. } => "CONFIG-1",
            Self::ForbiddenProfile { .. } => "PROFILE-1",
            Self::MissingProfile { .. } => "PROFILE-2",
            Self::Rule { .. } => "PERM-2",
        }
    }

    /// The file the error is about.
    pub fn origin(&self) -> &str {
        match self {
            Self::Invalid { origin, .. }
            | Self::ForbiddenProfile { origin, .. }
            | Self::MissingProfile { origin }
            | Self::Rule { origin, .. } => origin,
        }
    }

    /// The key the error is about.
    pub fn key(&self) -> &str {
        match self {
            Self::Invalid { key, .. } | Self::Rule { key, .. } => key,
            Self::ForbiddenProfile { .. } | Self::MissingProfile { .. } => "security_profile",
        }
    }

    /// The 1-based line, when known.
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::Invalid { line, .. }
            | Self::ForbiddenProfile { line, .. }
            | Self::Rule { line, .. } => *line,
            Self::MissingProfile { .. } => None,
        }
    }
}

/// serde accepts a JSON array where a struct is expected (fields by
/// position). Settings must be objects everywhere: refuse the array form so a
/// file means one thing only (CONFIG-1).
fn check_objects(text: &str, origin: &str) -> Result<(), SettingsError> {
    let invalid = |key: &str, what: &str| SettingsError::Invalid {
        origin: origin.to_string(),
        key: key.to_string(),
        line: if key == "." {
            Some(1)
        } else {
            line_of(
                text,
                &format!("\"{}\"", key.rsplit('.').next().unwrap_or(key)),
            )
        },
        column: None,
        message: format!("{what} must be a JSON object"),
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|err| SettingsError::Invalid {
            origin: origin.to_string(),
            key: ".".to_string(),
            line: Some(err.line()),
            column: Some(err.column()),
            message: err.to_string(),
        })?;
    let top = value
        .as_object()
        .ok_or_else(|| invalid(".", "the settings file"))?;
    for section in [
        "security_profile",
        "permissions",
        "service",
        "model",
        "agent",
        "hook",
        "proof",
        "secrets",
    ] {
        if let Some(v) = top.get(section)
            && !v.is_object()
        {
            return Err(invalid(section, section));
        }
    }
    if let Some(perms) = top.get("permissions").and_then(|p| p.as_object()) {
        for (kind, v) in perms {
            if !v.is_object() {
                let key = format!("permissions.{kind}");
                return Err(invalid(&key, &key));
            }
        }
    }
    Ok(())
}

/// 1-based line of the first occurrence of `needle` in `text`.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    let pos = text.find(needle)?;
    Some(text[..pos].matches('\n').count() + 1)
}

impl Settings {
    /// Parse and validate one settings file's text. `origin` labels every
    /// message (normally the file path). The profile may be absent here
    /// (project files usually have none); [`Settings::execution_profile`]
    /// and [`resolve`] insist on it where it is mandatory.
    pub fn parse(text: &str, origin: &str) -> Result<Self, SettingsError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let raw: RawSettings = serde_path_to_error::deserialize(&mut de).map_err(|err| {
            let path = err.path().to_string();
            let inner = err.into_inner();
            SettingsError::Invalid {
                origin: origin.to_string(),
                key: path,
                line: (inner.line() > 0).then_some(inner.line()),
                column: (inner.column() > 0).then_some(inner.column()),
                message: inner.to_string(),
            }
        })?;
        de.end().map_err(|err| SettingsError::Invalid {
            origin: origin.to_string(),
            key: ".".to_string(),
            line: Some(err.line()),
            column: Some(err.column()),
            message: err.to_string(),
        })?;
        check_objects(text, origin)?;

        let profile =
            match raw.security_profile {
                None => None,
                Some(p) => Some(ExecutionProfile::new(p.sandbox, p.approval).map_err(
                    |source| SettingsError::ForbiddenProfile {
                        origin: origin.to_string(),
                        line: line_of(text, "\"security_profile\""),
                        source,
                    },
                )?),
            };

        if let Some(extensions) = &raw.extensions {
            for (i, ext) in extensions.iter().enumerate() {
                let problem = if ext.command.trim().is_empty() {
                    Some(("command", "must name a program".to_string()))
                } else {
                    match ext.timeout_ms {
                        Some(ms) if ms == 0 || ms > MAX_EXTENSION_TIMEOUT_MS => Some((
                            "timeout_ms",
                            format!("{ms} is out of range (1..={MAX_EXTENSION_TIMEOUT_MS} ms)"),
                        )),
                        _ => None,
                    }
                };
                if let Some((field, message)) = problem {
                    return Err(SettingsError::Invalid {
                        origin: origin.to_string(),
                        key: format!("extensions[{i}].{field}"),
                        line: line_of(text, &format!("\"{field}\"")),
                        column: None,
                        message,
                    });
                }
            }
        }

        if raw.proof.is_some_and(|proof| proof.writable_dirs.is_some()) {
            return Err(SettingsError::Invalid {
                origin: origin.to_string(),
                key: "proof.writable_dirs".to_string(),
                line: line_of(text, "\"writable_dirs\""),
                column: None,
                message: "this key was removed: a proof can no longer write to project folders \
                          for real. Build output goes to ploy's per-project build cache outside \
                          the project (CARGO_TARGET_DIR, GOCACHE, ... point there) and the whole \
                          project, target/ included, is copy-on-write (BEYOND-4); delete the key"
                    .to_string(),
            });
        }

        let secrets = raw.secrets.unwrap_or_default();
        if let Some((key, message)) = secrets.problem() {
            let field = key
                .split('[')
                .next()
                .unwrap_or("secrets")
                .rsplit('.')
                .next()
                .unwrap_or("secrets")
                .to_string();
            return Err(SettingsError::Invalid {
                origin: origin.to_string(),
                line: line_of(text, &format!("\"{field}\"")),
                key,
                column: None,
                message,
            });
        }

        let mut rules = Vec::new();
        if let Some(perms) = raw.permissions {
            for (kind, kind_rules) in [
                (ActionKind::Read, perms.read),
                (ActionKind::Edit, perms.edit),
                (ActionKind::Shell, perms.shell),
                (ActionKind::ExternalDirectory, perms.external_directory),
                (ActionKind::Web, perms.web),
            ] {
                for (effect, patterns) in [
                    (Effect::Allow, kind_rules.allow),
                    (Effect::Ask, kind_rules.ask),
                    (Effect::Deny, kind_rules.deny),
                ] {
                    for (i, pattern) in patterns.into_iter().enumerate() {
                        let rule = Rule::new(kind, effect, pattern);
                        // Compile each rule alone first so the error names its key.
                        if let Err(source) = RuleLayer::new(RuleSource::User, vec![rule.clone()]) {
                            let needle = serde_json::to_string(&rule.pattern).unwrap_or_default();
                            return Err(SettingsError::Rule {
                                origin: origin.to_string(),
                                key: format!("permissions.{kind}.{effect}[{i}]"),
                                line: line_of(text, &needle),
                                source,
                            });
                        }
                        rules.push(rule);
                    }
                }
            }
        }
        let rules = RuleLayer::new(RuleSource::User, rules)
            .map_err(|source| SettingsError::Rule {
                origin: origin.to_string(),
                key: "permissions".to_string(),
                line: line_of(text, "\"permissions\""),
                source,
            })?
            .with_origin(origin);

        Ok(Self {
            origin: origin.to_string(),
            profile,
            rules,
            default_project_trust: raw.default_project_trust,
            extensions_json: raw
                .extensions
                .as_ref()
                .and_then(|e| serde_json::to_value(e).ok()),
            extensions: raw.extensions,
            service: raw.service,
            model: raw.model,
            agent: raw.agent,
            hook: raw.hook,
            secrets,
        })
    }

    /// The label given at parse time (the file path).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The profile if the file sets one.
    pub fn profile(&self) -> Option<ExecutionProfile> {
        self.profile
    }

    /// The profile, mandatory (PROFILE-2): missing → error naming the file.
    pub fn execution_profile(&self) -> Result<ExecutionProfile, SettingsError> {
        self.profile.ok_or_else(|| SettingsError::MissingProfile {
            origin: self.origin.clone(),
        })
    }

    /// The permission rules of this file, in file order (kind, then allow/ask/deny).
    pub fn rules(&self) -> &[Rule] {
        self.rules.rules()
    }

    /// This file's rules as a compiled layer labelled with `source`.
    pub fn rule_layer(&self, source: RuleSource) -> RuleLayer {
        self.rules.clone().relabel(source)
    }

    /// `default_project_trust`, if set.
    pub fn default_project_trust(&self) -> Option<DefaultProjectTrust> {
        self.default_project_trust
    }

    /// The `extensions` section (programs run by ploy-trust), validated.
    pub fn extension_decls(&self) -> Option<&[ExtensionDecl]> {
        self.extensions.as_deref()
    }

    /// The `model` section as the file gives it (a JSON object), validated
    /// by ploy-agent.
    pub fn model(&self) -> Option<&serde_json::Value> {
        self.model.as_ref()
    }

    /// The `agent` section as the file gives it (a JSON object), validated
    /// by ploy-agent.
    pub fn agent(&self) -> Option<&serde_json::Value> {
        self.agent.as_ref()
    }

    /// The `hook` section as the file gives it (a JSON object), for
    /// ploy-hook's `HookSettings::from_value`, which validates its keys.
    pub fn hook(&self) -> Option<&serde_json::Value> {
        self.hook.as_ref()
    }

    /// The `secrets` section (empty lists when absent): more known secrets
    /// for `ploy_secrets::known_secrets`.
    pub fn secrets(&self) -> &SecretsSettings {
        &self.secrets
    }

    /// The `service` section as the file gives it (a JSON object), for
    /// ploy-service's `ServiceSection::from_value`, which validates its keys.
    pub fn service(&self) -> Option<&serde_json::Value> {
        self.service.as_ref()
    }

    /// The `extensions` section as JSON (the validated declarations
    /// re-serialized; kept for callers that parse it themselves).
    pub fn extensions(&self) -> Option<&serde_json::Value> {
        self.extensions_json.as_ref()
    }
}

/// Where an effective value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueSource {
    /// Built into ploy.
    Default,
    /// The user's settings.
    User,
    /// The project's settings (trusted).
    Project,
}

/// A value with its source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub source: ValueSource,
}

/// The effective settings after layering user and (trusted) project files.
#[derive(Debug, Clone)]
pub struct ResolvedSettings {
    /// The execution profile (validated).
    pub profile: ExecutionProfile,
    /// Source of `security_profile.sandbox`.
    pub sandbox_source: ValueSource,
    /// Source of `security_profile.approval`.
    pub approval_source: ValueSource,
    /// `default_project_trust` (only the user's settings may set it: a project
    /// cannot vote on its own trust).
    pub default_project_trust: Sourced<DefaultProjectTrust>,
    /// The rule layers: defaults < user < project (when trusted).
    pub rules: Rules,
    /// True when a project file existed but was skipped (untrusted).
    pub project_skipped: bool,
}

/// Layer the user's and the project's settings (TRUST-5, PROFILE-2).
///
/// * The profile is mandatory in the user's settings; a trusted project may
///   only *tighten* it (field by field towards `workspace-write` / `ask`),
///   never loosen it: the profile is the operator's attestation, not the
///   repository author's.
/// * An untrusted project's settings are ignored entirely.
/// * `default_project_trust` comes from the user only.
pub fn resolve(
    user: Option<&Settings>,
    project: Option<&Settings>,
    trust: ProjectTrust,
) -> Result<ResolvedSettings, SettingsError> {
    let user = user.ok_or_else(|| SettingsError::MissingProfile {
        origin: "user settings (file not found)".to_string(),
    })?;
    let user_profile = user.execution_profile()?;
    let trusted_project = project.filter(|_| trust == ProjectTrust::Trusted);

    let mut profile = user_profile;
    let mut sandbox_source = ValueSource::User;
    let mut approval_source = ValueSource::User;
    if let Some(project_profile) = trusted_project.and_then(Settings::profile) {
        profile = user_profile.stricter(project_profile);
        if profile.sandbox() != user_profile.sandbox() {
            sandbox_source = ValueSource::Project;
        }
        if profile.approval() != user_profile.approval() {
            approval_source = ValueSource::Project;
        }
    }

    let default_project_trust = match user.default_project_trust() {
        Some(value) => Sourced {
            value,
            source: ValueSource::User,
        },
        None => Sourced {
            value: DefaultProjectTrust::Ask,
            source: ValueSource::Default,
        },
    };

    let mut rules = Rules::builtin().with_layer(user.rule_layer(RuleSource::User), trust);
    if let Some(p) = project {
        rules = rules.with_layer(p.rule_layer(RuleSource::Project), trust);
    }

    Ok(ResolvedSettings {
        profile,
        sandbox_source,
        approval_source,
        default_project_trust,
        rules,
        project_skipped: project.is_some() && trust != ProjectTrust::Trusted,
    })
}
