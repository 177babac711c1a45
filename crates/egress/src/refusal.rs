//! The refusal value every check returns: a requirement ID, the stage that
//! refused, and a reason a person can act on.

use std::fmt;

/// The pipeline stage at which a URL or fetch was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The pure text check of the URL (URL-1), including literal addresses.
    Text,
    /// Resolution and the check of every returned address (URL-2).
    Resolve,
    /// The dial itself refused the address (BEYOND-1, second check).
    Dial,
    /// A redirect was refused (URL-3): too many, or an https → http downgrade.
    Redirect,
    /// The response was refused for its content type (FETCH-1).
    Content,
    /// The request itself was refused before anything was sent (a POST body
    /// over its cap, an unusable bearer token).
    Request,
}

impl Stage {
    /// The stage's short lowercase name, as printed in JSON and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Text => "text",
            Stage::Resolve => "resolve",
            Stage::Dial => "dial",
            Stage::Redirect => "redirect",
            Stage::Content => "content",
            Stage::Request => "request",
        }
    }
}

/// A refusal: which rule refused, at which stage, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Refusal {
    /// The requirement ID, e.g. `"URL-1"`.
    pub rule: &'static str,
    /// The stage that refused.
    pub stage: Stage,
    /// A human reason, naming the offending part.
    pub reason: String,
}

impl Refusal {
    /// Builds a refusal.
    pub fn new(rule: &'static str, stage: Stage, reason: impl Into<String>) -> Self {
        Self {
            rule,
            stage,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "refused by {} ({} stage): {}",
            self.rule,
            self.stage.as_str(),
            self.reason
        )
    }
}

impl std::error::Error for Refusal {}
