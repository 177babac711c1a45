//! Saved approvals: answers a person gave that apply to later calls.
//!
//! A saved approval can turn an "ask" into an "allow"; it never overrides a
//! deny rule or the conversation's taint mark (PERM-4: that is enforced by
//! the order inside [`crate::Permission::assert`], not by the caller).
//!
//! Two shapes: an *exact* grant (this tool, this target, these kinds: what
//! the person saw) and a *pattern* grant (a kind and a glob, matched like an
//! allow rule: per simple command, never on units an allow rule may not cover).

use serde::{Deserialize, Serialize};

use crate::action::{Action, ActionKind, KindSet, MatchUnit};
use crate::decision::{AskOption, Basis, Decision};
use crate::rules::{Matcher, RuleError};

/// How long an approval lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalScope {
    /// Used up by the first call it allows.
    Once,
    /// Kept until removed.
    Always,
}

/// What an approval covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "grant", deny_unknown_fields)]
pub enum Grant {
    /// Exactly this call: same tool, same target text, kinds within these.
    ExactAction {
        /// The tool.
        tool: String,
        /// The target text.
        target: String,
        /// The kinds the person saw; an action with more kinds is not covered.
        kinds: KindSet,
    },
    /// Every unit of `kind` matching the glob (as an allow rule would).
    Pattern {
        /// The kind.
        kind: ActionKind,
        /// The glob.
        pattern: String,
    },
}

/// One saved approval.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approval {
    /// Once or always.
    pub scope: ApprovalScope,
    /// What it covers.
    pub grant: Grant,
}

impl Approval {
    /// The approvals an `always` answer about `action` saves: one narrow
    /// grant per unit, never a widening pattern (issue 11, PERM-5):
    ///
    /// * a simple command: its exact program and fixed arguments, as a
    ///   `shell` pattern with every glob character escaped (so `cargo test`
    ///   covers `cargo test` and nothing longer);
    /// * a path (`read`, `edit`, `external_directory`): that one path;
    /// * a web address: that exact URL.
    ///
    /// When a unit cannot be covered by any allow rule (a computed word, a
    /// substitution, a line that does not parse...), no pattern could stand
    /// for it: the answer then saves only the exact call (same tool, same
    /// target text, kinds within the ones the person saw).
    pub fn narrow_for(action: &Action) -> Vec<Approval> {
        let exact = || {
            vec![Approval {
                scope: ApprovalScope::Always,
                grant: Grant::ExactAction {
                    tool: action.tool().to_string(),
                    target: action.target().as_str().to_string(),
                    kinds: action.kinds(),
                },
            }]
        };
        if action.units().is_empty() || action.units().iter().any(|u| u.allow_blocker.is_some()) {
            return exact();
        }
        let mut grants: Vec<Approval> = Vec::new();
        for unit in action.units() {
            let Some(text) = unit.candidates.first() else {
                return exact();
            };
            // A web unit's first candidate is its URL; a pattern with `://`
            // matches the URL only, never a host.
            if unit.kind == ActionKind::Web && !text.contains("://") {
                return exact();
            }
            let pattern = escape_glob(text);
            let approval = Approval {
                scope: ApprovalScope::Always,
                grant: Grant::Pattern {
                    kind: unit.kind,
                    pattern,
                },
            };
            if !grants.contains(&approval) {
                grants.push(approval);
            }
        }
        grants
    }

    /// What answering `answer` to `decision` about `action` saves (see
    /// [`Approvals::record_answer`]); refuses an answer that was not offered.
    pub fn for_answer(
        action: &Action,
        decision: &Decision,
        answer: AskOption,
    ) -> Result<Vec<Approval>, ApprovalError> {
        if !decision.options().contains(&answer) {
            return Err(ApprovalError::NotOffered {
                answer,
                offered: decision.options().to_vec(),
            });
        }
        Ok(match answer {
            AskOption::Always => Self::narrow_for(action),
            AskOption::Once | AskOption::Reject => Vec::new(),
        })
    }
}

/// `text` as a glob that matches exactly `text` (every metacharacter escaped
/// with a backslash, as the rule compiler's `backslash_escape` reads it).
pub fn escape_glob(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!' | ',') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Identifies a saved approval inside one [`Approvals`] value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ApprovalId(pub u64);

/// Why an answer could not be saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApprovalError {
    /// The answer was not among the options the decision offered (e.g.
    /// "always" in a tainted conversation, PERM-3).
    #[error("PERM-5: answer `{answer:?}` was not offered for this decision (offered: {offered:?})")]
    NotOffered {
        /// The answer given.
        answer: AskOption,
        /// The answers offered.
        offered: Vec<AskOption>,
    },
    /// The pattern does not compile.
    #[error(transparent)]
    Rule(#[from] RuleError),
}

#[derive(Debug, Clone)]
struct Entry {
    id: ApprovalId,
    approval: Approval,
}

/// The saved approvals in force.
#[derive(Debug, Clone, Default)]
pub struct Approvals {
    entries: Vec<Entry>,
    next_id: u64,
    // One glob set per kind over every pattern grant (owner = entry index),
    // so a check costs one match call per candidate, however many grants.
    index: [Option<Matcher>; 5],
}

impl Approvals {
    /// No saved approval.
    pub fn new() -> Self {
        Self::default()
    }

    /// Load saved approvals (e.g. from the store); refuses bad patterns.
    pub fn from_saved(saved: Vec<Approval>) -> Result<Self, RuleError> {
        let mut approvals = Self::new();
        for approval in saved {
            approvals.grant(approval)?;
        }
        Ok(approvals)
    }

    /// The approvals, for saving.
    pub fn saved(&self) -> Vec<Approval> {
        self.entries.iter().map(|e| e.approval.clone()).collect()
    }

    /// Number of saved approvals.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when none is saved.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Save an approval.
    pub fn grant(&mut self, approval: Approval) -> Result<ApprovalId, RuleError> {
        if let Grant::Pattern { kind, pattern } = &approval.grant {
            // Validate alone first so a bad pattern never touches the index.
            Matcher::build(*kind, std::iter::once((0, pattern.clone())))?;
        }
        let is_pattern = matches!(approval.grant, Grant::Pattern { .. });
        let id = ApprovalId(self.next_id);
        self.next_id += 1;
        self.entries.push(Entry { id, approval });
        if is_pattern {
            self.rebuild_index()?;
        }
        Ok(id)
    }

    fn rebuild_index(&mut self) -> Result<(), RuleError> {
        let mut index: [Option<Matcher>; 5] = Default::default();
        for kind in ActionKind::ALL {
            let patterns =
                self.entries
                    .iter()
                    .enumerate()
                    .filter_map(|(i, e)| match &e.approval.grant {
                        Grant::Pattern { kind: k, pattern } if *k == kind => {
                            Some((i, pattern.clone()))
                        }
                        _ => None,
                    });
            index[kind.index()] = Matcher::build(kind, patterns)?;
        }
        self.index = index;
        Ok(())
    }

    /// Save a person's answer to `decision` about `action`. `Always` saves the
    /// narrow grants of [`Approval::narrow_for`] for later calls; `Once` and
    /// `Reject` save nothing (the caller applies them to the call in hand).
    /// Refuses an answer that was not offered, so "always" can never be saved
    /// from a tainted prompt. Returns the ids of what was saved.
    pub fn record_answer(
        &mut self,
        action: &Action,
        decision: &Decision,
        answer: AskOption,
    ) -> Result<Vec<ApprovalId>, ApprovalError> {
        let saved = Approval::for_answer(action, decision, answer)?;
        let mut ids = Vec::with_capacity(saved.len());
        for approval in saved {
            ids.push(self.grant(approval)?);
        }
        Ok(ids)
    }

    /// Remove a `once` approval that `decision` used. Call after running the
    /// allowed action.
    pub fn consume(&mut self, decision: &Decision) {
        if let Basis::Approval {
            id,
            scope: ApprovalScope::Once,
        } = decision.basis
        {
            self.entries.retain(|e| e.id != id);
            // Every remaining pattern compiled before, so this cannot fail;
            // if it ever did, an empty index only means more questions.
            if self.rebuild_index().is_err() {
                self.index = Default::default();
            }
        }
    }

    /// An exact grant covering the whole action.
    pub(crate) fn exact_for(&self, action: &Action) -> Option<(ApprovalId, ApprovalScope)> {
        self.entries.iter().find_map(|e| match &e.approval.grant {
            Grant::ExactAction {
                tool,
                target,
                kinds,
            } if tool == action.tool()
                && target == action.target().as_str()
                && action.kinds().is_subset(*kinds) =>
            {
                Some((e.id, e.approval.scope))
            }
            _ => None,
        })
    }

    /// A pattern grant covering one unit (never a unit an allow rule may not cover).
    pub(crate) fn pattern_for(&self, unit: &MatchUnit) -> Option<(ApprovalId, ApprovalScope)> {
        if unit.allow_blocker.is_some() {
            return None;
        }
        let matcher = self.index[unit.kind.index()].as_ref()?;
        let entry = self.entries.get(matcher.first_match(&unit.candidates)?)?;
        Some((entry.id, entry.approval.scope))
    }
}
