//! The `hook` section of the user's settings (CONFIG-1: unknown keys and
//! values fail loudly, naming the key).
//!
//! ```json
//! "hook": {
//!   "answer_allow": false,
//!   "sandbox_bash": false,
//!   "web_tools": ["mcp__*__*fetch*", "mcp__*__*search*", "mcp__*__*browser*", …],
//!   "tools": { "mcp__slack__post_message": "shell", "mcp__db__query": "read" }
//! }
//! ```
//!
//! Read from the user's settings only (never a project's): a repository must
//! not be able to make the hook answer `allow` or stop judging a tool.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// What a tool is, for ploy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads a file (`file_path` / `path` / `notebook_path` in its input).
    Read,
    /// Writes a file (the same fields).
    Edit,
    /// Runs something or sends data out: judged as a command named after the
    /// tool (its `command` field when it has one), so `shell` rules match it
    /// and a marked session asks (PERM-3).
    Shell,
    /// Brings web text in: marks the session first (TAINT-1, TAINT-3); rules
    /// match its `url` field (or its `query`).
    Web,
    /// ploy has nothing to say: no decision.
    None,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHook {
    #[serde(default)]
    answer_allow: bool,
    #[serde(default)]
    sandbox_bash: bool,
    #[serde(default)]
    web_tools: Option<Vec<String>>,
    #[serde(default)]
    tools: BTreeMap<String, ToolKind>,
}

/// The MCP tools treated as web tools when settings name none.
/// Matched without regard to case (`mcp__x__FETCH`), and wide on purpose:
/// a tool that reads the web but escapes these names never marks the session
/// (PERM-3), while one marked needlessly only asks more (found by an outside
/// attacker: `firecrawl_scrape`, `puppeteer_navigate`, `tavily-extract`,
/// `crawling_exa` were not web tools).
pub const DEFAULT_WEB_TOOLS: [&str; 9] = [
    "mcp__*__*fetch*",
    "mcp__*__*search*",
    "mcp__*__*browser*",
    "mcp__*__*scrape*",
    "mcp__*__*crawl*",
    "mcp__*__*navigate*",
    "mcp__*__*extract*",
    "mcp__*__*web*",
    "mcp__*__*url*",
];

/// Why the `hook` section was refused (CONFIG-1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("CONFIG-1: {origin}: `hook{key}`: {message}")]
pub struct HookConfigError {
    /// The settings file.
    pub origin: String,
    /// The key path inside `hook` (`.tools.Bash`, `` for the section).
    pub key: String,
    /// What is wrong.
    pub message: String,
}

/// The validated `hook` section.
#[derive(Debug, Clone)]
pub struct HookSettings {
    /// Answer `allow` (instead of no decision) when ploy's rules allow, and
    /// `ask` whenever ploy would ask: ploy's rules become the only ones.
    pub answer_allow: bool,
    /// Rewrite an allowed `Bash` call to run inside `ploy sandbox run`.
    pub sandbox_bash: bool,
    web_patterns: Vec<String>,
    tools: Vec<(String, ToolKind)>,
    /// The parsed globs (checked when the settings load, CONFIG-1) and the
    /// matchers built from them on first use: only a tool ploy does not
    /// know needs them, and compiling them costs a hook process more than
    /// judging a `Bash` call (speed, issue 16).
    globs: Globs,
}

/// `web_tools` and `tools` globs, parsed; their matchers built on demand.
#[derive(Debug, Clone, Default)]
struct Globs {
    web: Vec<globset::Glob>,
    tools: Vec<globset::Glob>,
    built: OnceLock<(Option<GlobSet>, GlobSet)>,
}

impl Globs {
    /// (web tools, tools). A set that will not build (every glob parsed at
    /// load, so only a size limit can fail it): `None` for `web_tools`,
    /// which then matches every tool (an unknown tool marks the session:
    /// fail closed), empty for `tools`.
    fn sets(&self) -> &(Option<GlobSet>, GlobSet) {
        self.built.get_or_init(|| {
            let build = |globs: &[globset::Glob]| {
                let mut set = GlobSetBuilder::new();
                for glob in globs {
                    set.add(glob.clone());
                }
                set.build().ok()
            };
            (
                build(&self.web),
                build(&self.tools).unwrap_or_else(GlobSet::empty),
            )
        })
    }
}

impl Default for HookSettings {
    fn default() -> Self {
        // The defaults are constants known to compile.
        Self::build(false, false, None, BTreeMap::new(), "").unwrap_or_else(|_| Self {
            answer_allow: false,
            sandbox_bash: false,
            web_patterns: Vec::new(),
            tools: Vec::new(),
            globs: Globs::default(),
        })
    }
}

impl HookSettings {
    /// Validate the section as the settings file gives it (`None`: absent).
    pub fn from_value(
        value: Option<&serde_json::Value>,
        origin: &str,
    ) -> Result<Self, HookConfigError> {
        let Some(value) = value else {
            return Ok(Self::default());
        };
        let raw: RawHook = serde_path_to_error::deserialize(value).map_err(|err| {
            let key = err.path().to_string();
            HookConfigError {
                origin: origin.to_string(),
                key: if key == "." {
                    String::new()
                } else {
                    format!(".{key}")
                },
                message: err.into_inner().to_string(),
            }
        })?;
        Self::build(
            raw.answer_allow,
            raw.sandbox_bash,
            raw.web_tools,
            raw.tools,
            origin,
        )
    }

    fn build(
        answer_allow: bool,
        sandbox_bash: bool,
        web_tools: Option<Vec<String>>,
        tools: BTreeMap<String, ToolKind>,
        origin: &str,
    ) -> Result<Self, HookConfigError> {
        let error = |key: String, message: String| HookConfigError {
            origin: origin.to_string(),
            key,
            message,
        };
        let web_patterns =
            web_tools.unwrap_or_else(|| DEFAULT_WEB_TOOLS.iter().map(|s| s.to_string()).collect());
        let mut web = Vec::new();
        for (i, pattern) in web_patterns.iter().enumerate() {
            web.push(web_tool_glob(pattern).map_err(|e| error(format!(".web_tools[{i}]"), e))?);
        }
        let mut globs = Vec::new();
        let mut list = Vec::new();
        for (name, kind) in tools {
            if crate::map::is_built_in(&name) {
                return Err(error(
                    format!(".tools.{name}"),
                    "Claude Code's own tools are mapped by ploy and cannot be remapped".into(),
                ));
            }
            globs.push(tool_glob(&name).map_err(|e| error(format!(".tools.{name}"), e))?);
            list.push((name, kind));
        }
        Ok(Self {
            answer_allow,
            sandbox_bash,
            web_patterns,
            tools: list,
            globs: Globs {
                web,
                tools: globs,
                built: OnceLock::new(),
            },
        })
    }

    /// The kind configured for a tool ploy does not know: the first
    /// `tools` entry that matches (in name order), else `web` when a
    /// `web_tools` pattern matches.
    pub fn configured_kind(&self, tool: &str) -> Option<ToolKind> {
        let (web_tools, tool_globs) = self.globs.sets();
        if let Some(index) = tool_globs.matches(tool).into_iter().min() {
            return self.tools.get(index).map(|(_, kind)| *kind);
        }
        web_tools
            .as_ref()
            .is_none_or(|set| set.is_match(tool))
            .then_some(ToolKind::Web)
    }

    /// The `web_tools` patterns in force (for `ploy hook status`).
    pub fn web_patterns(&self) -> &[String] {
        &self.web_patterns
    }
}

/// A `web_tools` pattern: as [`tool_glob`], but case does not matter, so a
/// server that spells its tool `FETCH` still marks the session (PERM-3).
fn web_tool_glob(pattern: &str) -> Result<globset::Glob, String> {
    glob_of(pattern, true)
}

/// A tool-name glob: `*` matches any run of characters (tool names have no
/// `/`), case-sensitive as Claude Code's names are.
fn tool_glob(pattern: &str) -> Result<globset::Glob, String> {
    glob_of(pattern, false)
}

fn glob_of(pattern: &str, any_case: bool) -> Result<globset::Glob, String> {
    if pattern.is_empty() {
        return Err("an empty pattern matches nothing".into());
    }
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .case_insensitive(any_case)
        .build()
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // proves: CONFIG-1
    #[test]
    fn unknown_keys_bad_kinds_and_built_in_remaps_fail_naming_the_key() {
        for (value, key) in [
            (json!({"answer_alow": true}), ".answer_alow"),
            (
                json!({"tools": {"mcp__x__y": "execute"}}),
                ".tools.mcp__x__y",
            ),
            (json!({"tools": {"Bash": "none"}}), ".tools.Bash"),
            (json!({"web_tools": [""]}), ".web_tools[0]"),
            (json!({"sandbox_bash": "yes"}), ".sandbox_bash"),
        ] {
            let err = HookSettings::from_value(Some(&value), "settings.json").unwrap_err();
            assert_eq!(err.key, key, "{value}: {err}");
            assert!(
                err.to_string().starts_with("CONFIG-1: settings.json"),
                "{err}"
            );
        }
    }

    #[test]
    fn defaults_map_fetch_search_and_browser_mcp_tools_to_web() {
        let settings = HookSettings::default();
        assert!(!settings.answer_allow && !settings.sandbox_bash);
        for tool in [
            "mcp__fetch__fetch",
            "mcp__brave__brave_web_search",
            "mcp__playwright__browser_navigate",
            // proves: PERM-3, TAINT-1 (an outside attacker's fetching tools,
            // which the first defaults missed: other words, upper case)
            "mcp__firecrawl__firecrawl_scrape",
            "mcp__puppeteer__puppeteer_navigate",
            "mcp__tavily__tavily-extract",
            "mcp__exa__crawling_exa",
            "mcp__x__FETCH",
            "mcp__x__Open_URL",
        ] {
            assert_eq!(
                settings.configured_kind(tool),
                Some(ToolKind::Web),
                "{tool}"
            );
        }
        assert_eq!(settings.configured_kind("mcp__github__create_issue"), None);
        let value = json!({"tools": {"mcp__github__*": "shell"}, "web_tools": []});
        let settings = HookSettings::from_value(Some(&value), "s").unwrap();
        assert_eq!(
            settings.configured_kind("mcp__github__create_issue"),
            Some(ToolKind::Shell)
        );
        assert_eq!(settings.configured_kind("mcp__fetch__fetch"), None);
    }
}
