//! The web commands pass `Permission::assert` (PERM-1, issue 14 item 9):
//! every request `ploy research` and `ploy fetch` make — each search, each
//! page, each redirect hop — is an `Action::web` checked against the rule
//! layers and the conversation's own rules and marks before its name is
//! resolved.
//!
//! What a verdict means for a command a person typed: **deny** refuses (the
//! request is never sent, the refusal names PERM-2 and the rule); **allow**
//! and **ask** go ahead, because typing the command is the person's answer
//! for the requests it makes (the same way `web` has no allow rule by
//! default and still `ploy fetch URL` fetches). A deny in any layer — the
//! defaults, the user's settings, the conversation's rules — wins, as
//! everywhere.

use std::sync::Arc;

use ploy_egress::{HopGate, Refusal, Stage};
use ploy_policy::{Action, Approvals, ConversationRules, Permission, Rules};

/// A gate for the fetcher ([`ploy_egress::Fetcher::with_hop_gate`]) that
/// builds `Action::web(tool, url)` for every hop and refuses it when
/// `Permission::assert` denies.
pub fn web_gate(tool: &'static str, rules: Rules, conversation: ConversationRules) -> HopGate {
    // Saved approvals can only turn an ask into an allow; for a typed
    // command both go ahead, so none are consulted.
    let approvals = Approvals::new();
    Arc::new(move |url: &str| check_web(tool, url, &rules, &conversation, &approvals))
}

/// One `Action::web` through `Permission::assert`: `Err` when denied.
pub fn check_web(
    tool: &str,
    url: &str,
    rules: &Rules,
    conversation: &ConversationRules,
    approvals: &Approvals,
) -> Result<(), Refusal> {
    let action = Action::web(tool, url);
    let decision = Permission::assert(&action, conversation, rules, approvals);
    if decision.is_deny() {
        Err(Refusal::new(
            decision.requirement,
            Stage::Request,
            format!("{}; nothing was sent", decision.reason),
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ploy_policy::{ActionKind, Effect, Rule, RuleLayer, RuleSource};

    // proves: PERM-1, PERM-2 (a web deny rule refuses a command's request)
    #[test]
    fn a_web_deny_rule_refuses_and_everything_else_goes_ahead() {
        let layer = RuleLayer::new(
            RuleSource::User,
            vec![Rule::new(ActionKind::Web, Effect::Deny, "*.evil.example")],
        )
        .unwrap();
        let rules = Rules::builtin().with_layer(layer, ploy_policy::ProjectTrust::Untrusted);
        let gate = web_gate("fetch", rules, ConversationRules::new());
        let refusal = gate("https://www.evil.example/x").unwrap_err();
        assert_eq!(refusal.rule, "PERM-2");
        assert!(gate("https://docs.rs/").is_ok());
    }
}
