//! Approvals: who answers an `Ask` (PERM-3..5).
//!
//! The dispatcher hands an [`ApprovalRequest`] to an [`Approver`]. In `-p`
//! and `--mode json` nobody can answer ([`NoPerson`]): the ask becomes the
//! structured refusal of `ploy_policy::Decision::without_user` (PERM-5). An
//! interactive prompt or an RPC client (later) implements [`Approver`] and
//! gets everything a prompt must show: the tool, the target, the rule that
//! asked, each simple command or path, the diff of an edit, and only the
//! answers offered (never `always` in a tainted conversation, with the mark
//! that says why).

use ploy_policy::{Approval, ApprovalScope, AskOption, Basis, Grant, KindSet, TaintMark};
use serde::Serialize;

use crate::tool::BoxFuture;

/// What a person is asked about one tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApprovalRequest {
    /// The model's id for the call.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// The target as the tool shows it (path, command line, URL, question).
    pub target: String,
    /// Every kind of the action(s) (`shell+edit` for a redirect...).
    pub kinds: KindSet,
    /// The requirement ID behind the ask (`PERM-3` tainted, `PERM-7`, ...).
    pub rule: &'static str,
    /// What asked: a rule, the taint mark, or the default.
    pub basis: Basis,
    /// One sentence saying why it asks.
    pub reason: String,
    /// What each part touches: one line per simple command, redirect or
    /// path the policy saw (PERM-1), with its kind.
    pub units: Vec<String>,
    /// Classification notes (why a kind was added).
    pub notes: Vec<String>,
    /// For `edit` and `write`: the unified diff of the change.
    pub diff: Option<String>,
    /// The answers offered, in display order (never `always` when tainted).
    pub options: Vec<AskOption>,
    /// When the conversation is tainted, its first mark: the reason `always`
    /// is not offered ("this conversation read web content from ...").
    pub tainted_by: Option<TaintMark>,
    /// When `always` is offered: what it would save, one line per narrow
    /// grant ([`describe_approval`]), so the person sees its scope.
    pub always_scope: Vec<String>,
}

/// One line saying what an approval allows (`ploy approvals list`, and the
/// scope an `always` answer would save).
pub fn describe_approval(approval: &Approval) -> String {
    let scope = match approval.scope {
        ApprovalScope::Once => "once",
        ApprovalScope::Always => "always",
    };
    match &approval.grant {
        Grant::Pattern { kind, pattern } => format!("{scope} {kind} `{pattern}`"),
        Grant::ExactAction {
            tool,
            target,
            kinds,
        } => format!("{scope} {tool} ({kinds}) `{target}`"),
    }
}

/// A person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Run this call only.
    Once,
    /// Run it and save a narrow approval for the project (refused by the
    /// dispatcher when it was not offered).
    Always,
    /// Do not run it; the message (if any) goes to the model.
    Reject {
        /// What the person wants the model to know.
        message: Option<String>,
    },
}

/// Who answers asks.
pub trait Approver: Send + Sync {
    /// False when nobody can answer (non-interactive runs): every ask is
    /// then refused without calling [`Approver::ask`] (PERM-5).
    fn can_answer(&self) -> bool;

    /// Ask about one call. Only called when [`Approver::can_answer`].
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Answer>;
}

/// Nobody can answer: `-p`, `--mode json`, approval mode `never`.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPerson;

impl Approver for NoPerson {
    fn can_answer(&self) -> bool {
        false
    }

    fn ask<'a>(&'a self, _request: &'a ApprovalRequest) -> BoxFuture<'a, Answer> {
        Box::pin(async {
            Answer::Reject {
                message: Some("nobody can answer in a non-interactive run".into()),
            }
        })
    }
}
