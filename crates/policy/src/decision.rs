//! The answer of [`crate::Permission::assert`], and the structured refusal
//! non-interactive callers give back to the model (PERM-5).

use serde::Serialize;

use crate::action::{Action, ActionKind, KindSet};
use crate::approvals::{ApprovalId, ApprovalScope};
use crate::conversation::TaintMark;
use crate::rules::{Effect, RuleSource};

/// An answer a person may give to an `Ask`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AskOption {
    /// Run this call only.
    Once,
    /// Run this call and remember the answer (never offered when tainted, PERM-3).
    Always,
    /// Do not run it.
    Reject,
}

/// What to do with the action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Ask a person, offering these answers.
    Ask {
        /// The answers to offer, in display order.
        options: Vec<AskOption>,
    },
    /// Refuse it.
    Deny,
}

/// What decided: a rule, the taint mark, a saved approval, or the default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum Basis {
    /// A rule matched.
    Rule {
        /// Layer of the rule.
        source: RuleSource,
        /// Kind of the rule.
        kind: ActionKind,
        /// Effect of the rule.
        effect: Effect,
        /// Pattern of the rule.
        pattern: String,
    },
    /// The conversation's `ploy_tainted` mark.
    TaintMark(TaintMark),
    /// The action may write one of ploy's own files or another agent's
    /// resources (PERM-7): it always asks.
    ProtectedPath {
        /// Why (the path and what it is).
        reason: String,
    },
    /// A saved approval.
    Approval {
        /// Which approval (to consume a `once` one).
        id: ApprovalId,
        /// Its scope.
        scope: ApprovalScope,
    },
    /// No rule and no approval: the default, ask.
    Default,
}

/// The decision, with its reason and the requirement it enforces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// Allow, ask or deny.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// What decided it.
    pub basis: Basis,
    /// A human sentence saying why.
    pub reason: String,
    /// The requirement ID this decision enforces (`PERM-3`, ...).
    pub requirement: &'static str,
    /// For `Ask`: the kinds of what the person is asked about (the units no
    /// rule or approval allowed, the kinds a mark guards, the protected
    /// edits). Empty for `Allow` and `Deny`. A caller that shows the person
    /// only part of an action (a hook in front of another agent) uses it to
    /// tell whether the question is about something that part shows.
    pub asked_kinds: KindSet,
}

impl Decision {
    /// True for `Allow`.
    pub fn is_allow(&self) -> bool {
        self.verdict == Verdict::Allow
    }

    /// True for `Deny`.
    pub fn is_deny(&self) -> bool {
        self.verdict == Verdict::Deny
    }

    /// True for `Ask`.
    pub fn is_ask(&self) -> bool {
        matches!(self.verdict, Verdict::Ask { .. })
    }

    /// The answers offered (empty unless `Ask`).
    pub fn options(&self) -> &[AskOption] {
        match &self.verdict {
            Verdict::Ask { options } => options,
            _ => &[],
        }
    }

    /// For callers with nobody to ask (PERM-5): `Allow` passes; `Ask` and
    /// `Deny` become a [`Refusal`] to return to the model as a tool result.
    pub fn without_user(self, action: &Action) -> Result<Self, Refusal> {
        match self.verdict {
            Verdict::Allow => Ok(self),
            Verdict::Deny => Err(Refusal::new(action, self.requirement, self.reason)),
            Verdict::Ask { .. } => Err(Refusal::new(
                action,
                // A protected path and the site rule keep their own ID: the
                // refusal says which rule.
                match self.requirement {
                    id @ ("PERM-7" | "BEYOND-7" | "BROWSER-2") => id,
                    _ => "PERM-5",
                },
                // The asking rule is named in the reason too, so whoever
                // reads a PERM-5 refusal (the model, `ploy redteam`) sees
                // which rule asked.
                format!(
                    "this needs a person's approval (it asks under {}) and nobody can answer in a \
                     non-interactive run ({})",
                    self.requirement, self.reason
                ),
            )),
        }
    }
}

impl Decision {
    /// Apply the execution profile's approval mode: with `ask`, an `Ask`
    /// stays an `Ask` for the person; with `never`, nobody answers and every
    /// `Ask` becomes a refusal (PERM-5). A `Deny` is a refusal either way.
    pub fn for_profile(
        self,
        action: &Action,
        profile: &crate::ExecutionProfile,
    ) -> Result<Self, Refusal> {
        if profile.asks_user() {
            match self.verdict {
                Verdict::Deny => Err(Refusal::new(action, self.requirement, self.reason)),
                _ => Ok(self),
            }
        } else {
            self.without_user(action)
        }
    }
}

/// A structured refusal: what a tool returns to the model instead of an
/// error, so the agent loop goes on (PERM-5, FAIL-1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// Always `"refused"`, so the model sees a plain status word.
    pub status: &'static str,
    /// The tool whose call was refused.
    pub tool: String,
    /// The action's kinds.
    pub kinds: KindSet,
    /// The requirement ID that refused it.
    pub requirement: &'static str,
    /// A human sentence saying why.
    pub reason: String,
}

impl Refusal {
    /// A refusal for `action`.
    pub fn new(action: &Action, requirement: &'static str, reason: impl Into<String>) -> Self {
        Self {
            status: "refused",
            tool: action.tool().to_string(),
            kinds: action.kinds(),
            requirement,
            reason: reason.into(),
        }
    }
}
