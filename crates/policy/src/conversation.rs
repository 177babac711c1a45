//! The conversation's own rules, and the `ploy_tainted` mark (TAINT-2).
//!
//! The mark is a rule value stored with the conversation: the reason and the
//! source (URL, tool, or a cited conversation) that set it. This crate offers
//! no way to remove a mark: [`ConversationRules`] only grows. Persisting it
//! (with fsync, TAINT-2/TAINT-3) is the store's job.

use serde::{Deserialize, Serialize};

use crate::rules::{Rule, RuleError, RuleLayer, RuleSource};
use crate::site::{Site, SiteCheck, site_rule};

/// The name of the taint rule as stored with a conversation.
pub const TAINT_RULE: &str = "ploy_tainted";

/// What made a conversation tainted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "value")]
pub enum TaintSource {
    /// Web text from this address entered the conversation.
    Url(String),
    /// A tool returned web text (e.g. `browser_read`, `research`).
    Tool(String),
    /// A tainted conversation was cited (`@…`) here (BEYOND-5): its id.
    CitedConversation(String),
}

impl std::fmt::Display for TaintSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Url(url) => write!(f, "url {url}"),
            Self::Tool(tool) => write!(f, "tool {tool}"),
            Self::CitedConversation(id) => write!(f, "cited conversation {id}"),
        }
    }
}

/// One `ploy_tainted` mark.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaintMark {
    /// Why the conversation was marked.
    pub reason: String,
    /// What set the mark.
    pub source: TaintSource,
}

/// Serialized form: `{"ploy_tainted": [...marks], "rules": [...]}`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredConversationRules {
    #[serde(default)]
    ploy_tainted: Vec<TaintMark>,
    #[serde(default)]
    rules: Vec<Rule>,
    /// The sites visited in the conversation (BROWSER-2, BEYOND-7).
    #[serde(default)]
    visited_sites: Vec<String>,
}

/// The rules stored in one conversation: its taint marks and its own
/// allow/ask/deny rules (the highest rule layer).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "StoredConversationRules", into = "StoredConversationRules")]
pub struct ConversationRules {
    marks: Vec<TaintMark>,
    rules: RuleLayer,
    visited: Vec<Site>,
}

impl Default for ConversationRules {
    fn default() -> Self {
        Self::new()
    }
}

impl TryFrom<StoredConversationRules> for ConversationRules {
    type Error = RuleError;

    fn try_from(stored: StoredConversationRules) -> Result<Self, Self::Error> {
        let mut visited = Vec::with_capacity(stored.visited_sites.len());
        for text in &stored.visited_sites {
            let site = Site::from_stored(text).map_err(|err| RuleError::Invalid {
                reason: format!("a stored visited site: {err}"),
            })?;
            if !visited.contains(&site) {
                visited.push(site);
            }
        }
        Ok(Self {
            marks: stored.ploy_tainted,
            rules: RuleLayer::new(RuleSource::Conversation, stored.rules)?,
            visited,
        })
    }
}

impl From<ConversationRules> for StoredConversationRules {
    fn from(rules: ConversationRules) -> Self {
        Self {
            ploy_tainted: rules.marks,
            rules: rules.rules.rules().to_vec(),
            visited_sites: rules
                .visited
                .iter()
                .map(|s| s.as_str().to_string())
                .collect(),
        }
    }
}

impl ConversationRules {
    /// A clean conversation with no rules.
    pub fn new() -> Self {
        Self {
            marks: Vec::new(),
            rules: RuleLayer::empty(RuleSource::Conversation),
            visited: Vec::new(),
        }
    }

    /// Mark the conversation tainted (TAINT-1). Marks only accumulate.
    pub fn mark_tainted(&mut self, reason: impl Into<String>, source: TaintSource) {
        let mark = TaintMark {
            reason: reason.into(),
            source,
        };
        if !self.marks.contains(&mark) {
            self.marks.push(mark);
        }
    }

    /// True when at least one `ploy_tainted` mark is present.
    pub fn is_tainted(&self) -> bool {
        !self.marks.is_empty()
    }

    /// The marks, oldest first.
    pub fn marks(&self) -> &[TaintMark] {
        &self.marks
    }

    /// Citing another conversation (`@…`) carries its marks over (BEYOND-5).
    /// Each carried mark names the cited conversation and keeps the original
    /// reason and source in its text. Call this BEFORE the cited memory is
    /// given to the model.
    pub fn carry_marks_from(&mut self, cited_id: &str, cited: &ConversationRules) {
        for mark in &cited.marks {
            self.mark_tainted(
                format!(
                    "cited conversation {cited_id} is tainted: {} (from {})",
                    mark.reason, mark.source
                ),
                TaintSource::CitedConversation(cited_id.to_string()),
            );
        }
    }

    /// Record that a page of `site` was read in this conversation
    /// (BROWSER-2): later navigations may go back to it. Sites only
    /// accumulate.
    pub fn visit(&mut self, site: Site) {
        if !self.visited.contains(&site) {
            self.visited.push(site);
        }
    }

    /// The sites visited, oldest first.
    pub fn visited_sites(&self) -> &[Site] {
        &self.visited
    }

    /// The site rule for a navigation to `url` in this conversation
    /// ([`crate::site_rule`] with its marks and visited sites).
    pub fn check_site(&self, url: &str) -> SiteCheck {
        site_rule(self.is_tainted(), &self.visited, url)
    }

    /// Add a conversation rule (the highest layer).
    pub fn add_rule(&mut self, rule: Rule) -> Result<(), RuleError> {
        self.rules.push(rule)
    }

    /// The conversation's own rule layer.
    pub fn rules(&self) -> &RuleLayer {
        &self.rules
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: TAINT-2
    #[test]
    fn marks_survive_a_round_trip() {
        let mut conv = ConversationRules::new();
        conv.mark_tainted("page read", TaintSource::Url("https://example.com/".into()));
        let text = serde_json::to_string(&conv).unwrap();
        assert!(text.contains(TAINT_RULE), "{text}");
        let back: ConversationRules = serde_json::from_str(&text).unwrap();
        assert!(back.is_tainted());
        assert_eq!(back.marks(), conv.marks());
    }

    // proves: BEYOND-5
    #[test]
    fn citing_carries_the_mark() {
        let mut cited = ConversationRules::new();
        cited.mark_tainted("browser page", TaintSource::Tool("browser_read".into()));
        let mut here = ConversationRules::new();
        here.carry_marks_from("c-42", &ConversationRules::new());
        assert!(!here.is_tainted());
        here.carry_marks_from("c-42", &cited);
        assert!(here.is_tainted());
        assert_eq!(
            here.marks()[0].source,
            TaintSource::CitedConversation("c-42".into())
        );
        assert!(here.marks()[0].reason.contains("browser_read"));
        // Carrying again does not duplicate; nothing removes.
        here.carry_marks_from("c-42", &cited);
        assert_eq!(here.marks().len(), 1);
    }

    #[test]
    fn unknown_stored_fields_refused() {
        assert!(
            serde_json::from_str::<ConversationRules>(r#"{"ploy_tainted": [], "untaint": true}"#)
                .is_err()
        );
    }
}
