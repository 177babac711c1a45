//! The agent's settings: the `model` and `agent` sections of settings.json
//! (CONFIG-1: unknown keys and out-of-range limits fail loudly at load).
//!
//! ```json
//! {
//!   "model": { "upstream": "http://127.0.0.1:11434/v1/chat/completions",
//!              "model": "qwen2.5-coder:7b", "context_chars": 96000 },
//!   "agent": { "max_turns": 40, "max_seconds": 1800, "shell_timeout_seconds": 600 }
//! }
//! ```

use std::time::Duration;

use serde::Deserialize;

/// Default context budget of the model's window, in characters.
pub const DEFAULT_CONTEXT_CHARS: usize = 96_000;
/// Default model calls per prompt.
pub const DEFAULT_MAX_TURNS: u32 = 40;
/// Default wall time of one prompt.
pub const DEFAULT_MAX_SECONDS: u64 = 30 * 60;
/// Default wall time of one `shell` command.
pub const DEFAULT_SHELL_TIMEOUT_SECONDS: u64 = 10 * 60;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelSection {
    #[serde(default)]
    upstream: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    context_chars: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentSection {
    #[serde(default)]
    max_turns: Option<u32>,
    #[serde(default)]
    max_seconds: Option<u64>,
    #[serde(default)]
    shell_timeout_seconds: Option<u64>,
}

/// Why the agent's settings were refused (CONFIG-1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("CONFIG-1: {origin}: `{key}`: {message}")]
pub struct ConfigError {
    /// The settings file.
    pub origin: String,
    /// The dotted key.
    pub key: String,
    /// What is wrong and what to write instead.
    pub message: String,
}

/// The agent's effective settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentConfig {
    /// `model.upstream`: the OpenAI-compatible chat-completions URL
    /// (loopback `http://` only; checked where the connection is made).
    pub upstream: Option<String>,
    /// `model.model`: the model name.
    pub model: Option<String>,
    /// `model.context_chars`: the model's window budget.
    pub context_chars: usize,
    /// `agent.max_turns`: model calls per prompt.
    pub max_turns: u32,
    /// `agent.max_seconds`: wall time of one prompt.
    pub wall_time: Duration,
    /// `agent.shell_timeout_seconds`: wall time of one `shell` command.
    pub shell_timeout: Duration,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            upstream: None,
            model: None,
            context_chars: DEFAULT_CONTEXT_CHARS,
            max_turns: DEFAULT_MAX_TURNS,
            wall_time: Duration::from_secs(DEFAULT_MAX_SECONDS),
            shell_timeout: Duration::from_secs(DEFAULT_SHELL_TIMEOUT_SECONDS),
        }
    }
}

fn bad(origin: &str, key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        origin: origin.to_string(),
        key: key.to_string(),
        message: message.into(),
    }
}

fn in_range<T: PartialOrd + std::fmt::Display + Copy>(
    origin: &str,
    key: &str,
    value: Option<T>,
    range: std::ops::RangeInclusive<T>,
) -> Result<Option<T>, ConfigError> {
    match value {
        Some(v) if !range.contains(&v) => Err(bad(
            origin,
            key,
            format!("{v} is out of range ({}..={})", range.start(), range.end()),
        )),
        other => Ok(other),
    }
}

impl AgentConfig {
    /// Read the `model` and `agent` sections (each a JSON object or absent)
    /// of the settings file `origin`.
    pub fn from_sections(
        model: Option<&serde_json::Value>,
        agent: Option<&serde_json::Value>,
        origin: &str,
    ) -> Result<Self, ConfigError> {
        let model: ModelSection = match model {
            Some(value) => serde_json::from_value(value.clone())
                .map_err(|err| bad(origin, "model", err.to_string()))?,
            None => ModelSection::default(),
        };
        let agent: AgentSection = match agent {
            Some(value) => serde_json::from_value(value.clone())
                .map_err(|err| bad(origin, "agent", err.to_string()))?,
            None => AgentSection::default(),
        };
        let defaults = Self::default();
        if let Some(name) = &model.model
            && name.trim().is_empty()
        {
            return Err(bad(origin, "model.model", "an empty model name"));
        }
        let context_chars = in_range(
            origin,
            "model.context_chars",
            model.context_chars,
            4_000..=10_000_000,
        )?
        .unwrap_or(defaults.context_chars);
        let max_turns = in_range(origin, "agent.max_turns", agent.max_turns, 1..=1_000)?
            .unwrap_or(defaults.max_turns);
        let max_seconds = in_range(origin, "agent.max_seconds", agent.max_seconds, 1..=86_400)?
            .unwrap_or(DEFAULT_MAX_SECONDS);
        let shell_seconds = in_range(
            origin,
            "agent.shell_timeout_seconds",
            agent.shell_timeout_seconds,
            1..=86_400,
        )?
        .unwrap_or(DEFAULT_SHELL_TIMEOUT_SECONDS);
        Ok(Self {
            upstream: model.upstream,
            model: model.model,
            context_chars,
            max_turns,
            wall_time: Duration::from_secs(max_seconds),
            shell_timeout: Duration::from_secs(shell_seconds),
        })
    }

    /// Read both sections from parsed settings (none: the defaults).
    pub fn from_settings(settings: Option<&ploy_policy::Settings>) -> Result<Self, ConfigError> {
        match settings {
            Some(s) => Self::from_sections(s.model(), s.agent(), s.origin()),
            None => Ok(Self::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_values_load() {
        let c = AgentConfig::from_sections(None, None, "s.json").unwrap();
        assert_eq!(c, AgentConfig::default());
        let c = AgentConfig::from_sections(
            Some(&json!({"model": "m", "context_chars": 5000})),
            Some(&json!({"max_turns": 3})),
            "s.json",
        )
        .unwrap();
        assert_eq!(c.model.as_deref(), Some("m"));
        assert_eq!(c.context_chars, 5000);
        assert_eq!(c.max_turns, 3);
    }

    // proves: CONFIG-1
    #[test]
    fn unknown_keys_and_bad_limits_fail_loudly() {
        for (model, agent, key) in [
            (json!({"modle": "x"}), json!({}), "model"),
            (json!({}), json!({"max_turns": 0}), "agent.max_turns"),
            (
                json!({"context_chars": 10}),
                json!({}),
                "model.context_chars",
            ),
            (json!({}), json!({"max_turn": 3}), "agent"),
            (json!({"model": " "}), json!({}), "model.model"),
            (json!({}), json!({"max_seconds": 0}), "agent.max_seconds"),
        ] {
            let err = AgentConfig::from_sections(Some(&model), Some(&agent), "s.json").unwrap_err();
            assert_eq!(err.key, key, "{err}");
            assert!(err.to_string().starts_with("CONFIG-1: s.json"), "{err}");
        }
    }
}
