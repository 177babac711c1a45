//! `Permission::assert`: the one function every tool call passes (PERM-1).

use std::fmt::Write as _;

use globset::Candidate;

use crate::action::{Action, KindSet, MatchUnit};
use crate::approvals::{ApprovalId, ApprovalScope, Approvals};
use crate::conversation::ConversationRules;
use crate::decision::{AskOption, Basis, Decision, Verdict};
use crate::rules::{Effect, Rule, RuleLayer, Rules};
use crate::site::SiteCheck;

/// The visited sites for a reason text.
fn visited_list(conversation: &ConversationRules) -> String {
    let sites = conversation.visited_sites();
    if sites.is_empty() {
        return "none".into();
    }
    sites
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The permission check. See [`Permission::assert`].
#[derive(Debug, Clone, Copy)]
pub struct Permission;

/// How one unit fared against the allow/ask rules.
enum UnitOutcome<'a> {
    Allowed(&'a RuleLayer, &'a Rule),
    Asked(&'a RuleLayer, &'a Rule),
    /// A deny or ask rule matched a command among the unit's words
    /// ([`MatchUnit::inner_candidates`]): it asks, whatever allow rules say.
    Inner(&'a RuleLayer, &'a Rule),
    /// Every word of a deny or ask rule is among the command's words, in
    /// an order or spelling ploy does not read as that command, or ploy
    /// could not place the subcommand of a program the rule names (round7
    /// #11b): it asks, whatever allow rules say.
    Scattered(&'a RuleLayer, &'a Rule),
    Unmatched,
}

const CLEAN_OPTIONS: [AskOption; 3] = [AskOption::Once, AskOption::Always, AskOption::Reject];
/// Tainted conversations and protected paths never offer "always".
const TAINTED_OPTIONS: [AskOption; 2] = [AskOption::Once, AskOption::Reject];

impl Permission {
    /// Decide allow / ask / deny for `action`. The order is fixed:
    ///
    /// 1. **Deny rules** of every layer (defaults, user, project, conversation):
    ///    one denied unit denies the action. Nothing overrides a deny.
    ///    A form POST ([`Action::form_post`]) to a site not visited in the
    ///    conversation is denied here too (BROWSER-2): a page's form must
    ///    not carry text to a site of its choosing, so nobody is asked.
    /// 2. **Protected paths** (PERM-7): an action with a unit that may write
    ///    one of ploy's own files or another agent's resources answers
    ///    `Ask { options: [Once, Reject] }`, ignoring allow rules and saved
    ///    approvals; "always" is never offered, so it is never saved.
    /// 3. **The conversation's marks**: a tainted conversation answers
    ///    `Ask { options: [Once, Reject] }` for any action with an `edit`,
    ///    `shell` or `external_directory` kind, ignoring allow rules and saved
    ///    approvals (PERM-3, PERM-4). A navigation ([`Action::navigate`])
    ///    to a site not visited in the conversation asks the same way
    ///    (the site rule, BROWSER-2 / BEYOND-7, [`crate::site_rule`]).
    /// 4. **Allow / ask rules**: per unit, the highest layer with a matching
    ///    ask or allow rule decides (ask wins inside a layer). Every unit
    ///    allowed → allow.
    /// 5. **Saved approvals**: an exact grant for the whole action, or pattern
    ///    grants covering every unit the rules did not allow, turn an ask
    ///    into an allow. In a tainted conversation only `once` grants do:
    ///    a standing `always` never applies there, whatever the kind.
    /// 6. **Default**: ask, offering once / always / reject (once / reject
    ///    when the conversation is tainted: PERM-5 never offers "always" there).
    ///
    /// Limit (PERM-6, documented): reading inside the project is allowed by
    /// the built-in defaults even in a tainted conversation; reading outside
    /// is also `external_directory` and so asks.
    pub fn assert(
        action: &Action,
        conversation: &ConversationRules,
        rules: &Rules,
        approvals: &Approvals,
    ) -> Decision {
        if cfg!(feature = "teeth") {
            return Decision {
                verdict: Verdict::Allow,
                basis: Basis::Default,
                reason: "the rules are switched off (teeth build)".into(),
                requirement: "PERM-1",
                asked_kinds: KindSet::EMPTY,
            };
        }
        // Highest precedence first: conversation, then settings layers downwards.
        let layers = || std::iter::once(conversation.rules()).chain(rules.layers().iter().rev());
        let mut scratch = SCRATCH.with(|cell| cell.take());

        // 1. Deny rules (and, in the same pass, each unit's allow/ask outcome).
        let mut outcomes = Vec::with_capacity(action.units().len());
        let mut denied = None;
        for unit in action.units() {
            let (deny, outcome) = evaluate_unit(unit, layers(), &mut scratch);
            if let Some(hit) = deny {
                denied = Some((unit, hit));
                break;
            }
            outcomes.push((unit, outcome));
        }
        SCRATCH.with(|cell| cell.set(scratch));
        if let Some((unit, (layer, rule))) = denied {
            {
                return Decision {
                    verdict: Verdict::Deny,
                    basis: rule_basis(layer, rule),
                    reason: format!(
                        "{} rule {rule} (from {}) denies `{}`",
                        layer.source(),
                        rule_origin(layer),
                        unit.label()
                    ),
                    requirement: "PERM-2",
                    asked_kinds: KindSet::EMPTY,
                };
            }
        }

        // 1b. A form's body goes only to a site already visited (BROWSER-2).
        if action.is_form_post()
            && let crate::action::Target::Url(url) = action.target()
        {
            let check = crate::site::site_rule(true, conversation.visited_sites(), url);
            if !check.passes() {
                let what = match &check {
                    SiteCheck::NewSite(site) => format!("`{site}` is a site not yet visited"),
                    SiteCheck::NoSite(err) => format!("the address has no site ({err})"),
                    SiteCheck::Open | SiteCheck::Visited(_) => String::new(),
                };
                return Decision {
                    verdict: Verdict::Deny,
                    basis: Basis::Default,
                    reason: format!(
                        "a form is sent with POST only to a site already visited in this \
                         conversation, and {what} (visited: {}); nothing was sent",
                        visited_list(conversation)
                    ),
                    requirement: "BROWSER-2",
                    asked_kinds: KindSet::EMPTY,
                };
            }
        }

        // 2. Protected paths (PERM-7).
        if let Some(why) = action.units().iter().find_map(|u| u.protected.as_deref()) {
            let mut reason = format!(
                "{why}: writing it always asks, allow rules and saved approvals do not apply"
            );
            if let Some(mark) = conversation.marks().first() {
                let _ = write!(
                    reason,
                    "; this conversation is also tainted ({}, from {})",
                    mark.reason, mark.source
                );
            }
            return Decision {
                verdict: Verdict::Ask {
                    options: TAINTED_OPTIONS.to_vec(),
                },
                basis: Basis::ProtectedPath {
                    reason: why.to_string(),
                },
                reason,
                requirement: "PERM-7",
                asked_kinds: action
                    .units()
                    .iter()
                    .filter(|u| u.protected.is_some())
                    .map(|u| u.kind)
                    .collect(),
            };
        }

        // 3. The conversation's marks.
        if let Some(mark) = conversation.marks().first()
            && let Some(kind) = action.kinds().iter().find(|k| k.guarded_by_taint())
        {
            {
                return Decision {
                    verdict: Verdict::Ask {
                        options: TAINTED_OPTIONS.to_vec(),
                    },
                    basis: Basis::TaintMark(mark.clone()),
                    reason: format!(
                        "this conversation is tainted ({}, from {}); every {kind} action asks, \
                         allow rules and saved approvals do not apply",
                        mark.reason, mark.source
                    ),
                    requirement: "PERM-3",
                    asked_kinds: action
                        .kinds()
                        .iter()
                        .filter(|k| k.guarded_by_taint())
                        .collect(),
                };
            }
        }

        // 3b. The site rule (BROWSER-2, BEYOND-7): a model-chosen navigation
        // in a tainted conversation goes only to a site already visited.
        if action.is_navigation()
            && let Some(mark) = conversation.marks().first()
            && let crate::action::Target::Url(url) = action.target()
        {
            let check = conversation.check_site(url);
            if !check.passes() {
                let requirement = if action.tool().starts_with("browser_") {
                    "BROWSER-2"
                } else {
                    "BEYOND-7"
                };
                let what = match &check {
                    SiteCheck::NewSite(site) => format!("`{site}` is a site not yet visited"),
                    SiteCheck::NoSite(err) => format!("the address has no site ({err})"),
                    SiteCheck::Open | SiteCheck::Visited(_) => String::new(),
                };
                return Decision {
                    verdict: Verdict::Ask {
                        options: TAINTED_OPTIONS.to_vec(),
                    },
                    basis: Basis::TaintMark(mark.clone()),
                    reason: format!(
                        "this conversation has read web text ({}, from {}) and {what} in it; \
                         a page could be steering the model to carry text to a new site, so \
                         navigating there asks (visited: {}); allow rules and saved \
                         approvals do not apply",
                        mark.reason,
                        mark.source,
                        visited_list(conversation)
                    ),
                    requirement,
                    asked_kinds: action.kinds(),
                };
            }
        }

        // 4. Allow / ask rules.
        let mut first_ask: Option<(&RuleLayer, &Rule)> = None;
        let mut first_inner: Option<(&MatchUnit, &RuleLayer, &Rule)> = None;
        let mut first_scattered: Option<(&MatchUnit, &RuleLayer, &Rule)> = None;
        let mut first_allow: Option<(&RuleLayer, &Rule)> = None;
        let mut uncovered: Vec<&MatchUnit> = Vec::new();
        for (unit, outcome) in outcomes {
            match outcome {
                UnitOutcome::Asked(layer, rule) => {
                    first_ask.get_or_insert((layer, rule));
                    uncovered.push(unit);
                }
                UnitOutcome::Inner(layer, rule) => {
                    first_inner.get_or_insert((unit, layer, rule));
                    first_ask.get_or_insert((layer, rule));
                    uncovered.push(unit);
                }
                UnitOutcome::Scattered(layer, rule) => {
                    first_scattered.get_or_insert((unit, layer, rule));
                    first_ask.get_or_insert((layer, rule));
                    uncovered.push(unit);
                }
                UnitOutcome::Allowed(layer, rule) => {
                    first_allow.get_or_insert((layer, rule));
                }
                UnitOutcome::Unmatched => uncovered.push(unit),
            }
        }
        if uncovered.is_empty()
            && let Some((layer, rule)) = first_allow
        {
            {
                return Decision {
                    verdict: Verdict::Allow,
                    basis: rule_basis(layer, rule),
                    reason: format!(
                        "allowed by {} rule {rule} (from {})",
                        layer.source(),
                        rule_origin(layer)
                    ),
                    requirement: if layer.source() == crate::RuleSource::Default {
                        "PERM-6"
                    } else {
                        "PERM-2"
                    },
                    asked_kinds: KindSet::EMPTY,
                };
            }
        }

        // 5. Saved approvals. In a tainted conversation a standing `always`
        // no longer turns an ask into an allow, whatever the kind: it was
        // given before web text could steer the model (a saved `always read
        // .env` let a page's orders read the secrets; outside attacker
        // tui-rpc #11). A `once` answer was given for the call in hand.
        let tainted = conversation.is_tainted();
        let usable = |hit: Option<(ApprovalId, ApprovalScope)>| {
            hit.filter(|(_, scope)| !(tainted && *scope == ApprovalScope::Always))
        };
        if let Some((id, scope)) = usable(approvals.exact_for(action)) {
            return approval_decision(id, scope, "this exact call");
        }
        // A pattern approval never covers a command a deny or ask rule
        // matched among a unit's words (round6 #10): only this exact call can.
        if !uncovered.is_empty() && first_inner.is_none() && first_scattered.is_none() {
            let mut found: Option<(ApprovalId, ApprovalScope)> = None;
            let all_covered =
                uncovered
                    .iter()
                    .all(|unit| match usable(approvals.pattern_for(unit)) {
                        Some(hit) => {
                            found.get_or_insert(hit);
                            true
                        }
                        None => false,
                    });
            if all_covered && let Some((id, scope)) = found {
                return approval_decision(id, scope, "a saved pattern");
            }
        }

        // 6. Ask (an ask rule, or the default).
        // One String, written in place: this is the common path for
        // anything new, so it avoids a temporary per unit.
        let mut reason = String::with_capacity(128);
        match first_ask {
            Some((layer, rule))
                if first_inner.is_some_and(|(_, l, r)| std::ptr::eq(l, layer) && r == rule) =>
            {
                let label = first_inner.map_or("", |(unit, _, _)| unit.label());
                let _ = write!(
                    reason,
                    "`{label}` has a command among its words that {} rule {rule} (from {}) \
                     matches; ploy does not know whether this program runs its words as a \
                     command, so it asks (no allow rule covers it)",
                    layer.source(),
                    rule_origin(layer)
                );
            }
            Some((layer, rule))
                if first_scattered.is_some_and(|(_, l, r)| std::ptr::eq(l, layer) && r == rule) =>
            {
                let (label, unplaced) = first_scattered.map_or(("", None), |(unit, _, _)| {
                    (unit.label(), unit.unplaced.as_deref())
                });
                match unplaced {
                    Some(why) => {
                        let _ = write!(
                            reason,
                            "{} rule {rule} (from {}) names the program of `{label}`, and {why}; \
                             it asks (no allow rule covers it)",
                            layer.source(),
                            rule_origin(layer)
                        );
                    }
                    None => {
                        let _ = write!(
                            reason,
                            "every word of {} rule {rule} (from {}) is in `{label}`, in an order \
                             or spelling ploy does not read as that command; the program may \
                             read it so, so it asks (no allow rule covers it)",
                            layer.source(),
                            rule_origin(layer)
                        );
                    }
                }
            }
            Some((layer, rule)) => {
                let _ = write!(
                    reason,
                    "{} rule {rule} (from {}) asks",
                    layer.source(),
                    rule_origin(layer)
                );
            }
            None => {
                let _ = write!(reason, "no rule allows this {} action:", action.kinds());
                for (i, unit) in uncovered.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    let _ = write!(reason, "{sep}{} `{}`", unit.kind, unit.label());
                }
            }
        }
        let mut first_blocker = true;
        for why in uncovered.iter().filter_map(|u| u.allow_blocker.as_deref()) {
            reason.push_str(if first_blocker {
                "; no allow rule can cover it: "
            } else {
                "; "
            });
            reason.push_str(why);
            first_blocker = false;
        }
        // PERM-5: "always" is never offered in a tainted conversation, whatever the kind.
        let options = if conversation.is_tainted() {
            TAINTED_OPTIONS.to_vec()
        } else {
            CLEAN_OPTIONS.to_vec()
        };
        Decision {
            verdict: Verdict::Ask { options },
            basis: match first_ask {
                Some((layer, rule)) => rule_basis(layer, rule),
                None => Basis::Default,
            },
            reason,
            requirement: if first_ask.is_some() {
                "PERM-2"
            } else {
                "PERM-1"
            },
            asked_kinds: uncovered.iter().map(|u| u.kind).collect(),
        }
    }
}

thread_local! {
    /// Match buffers kept between calls on one thread (taken and put back,
    /// so a panic or re-entry only costs a fresh allocation).
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
}

/// Reused match buffers.
#[derive(Default)]
struct Scratch {
    globs: Vec<usize>,
    hits: Vec<usize>,
}

type Hit<'a> = (&'a RuleLayer, &'a Rule);

/// One unit against every layer: its deny (highest layer first), and the
/// allow/ask outcome of the highest layer with a matching allow or ask rule
/// (ask wins inside a layer; allow only if nothing blocks it).
fn evaluate_unit<'a>(
    unit: &MatchUnit,
    layers: impl Iterator<Item = &'a RuleLayer> + Clone,
    scratch: &mut Scratch,
) -> (Option<Hit<'a>>, UnitOutcome<'a>) {
    let rules_again = layers.clone();
    // Build each candidate once; every layer reuses it.
    let candidates: Vec<(Candidate<'_>, &str)> = unit
        .candidates
        .iter()
        .map(|c| (Candidate::new(c.as_str()), c.as_str()))
        .collect();
    let deny_only: Vec<(Candidate<'_>, &str)> = unit
        .deny_candidates
        .iter()
        .map(|c| (Candidate::new(c.as_str()), c.as_str()))
        .collect();
    let mut outcome = UnitOutcome::Unmatched;
    for layer in layers {
        if !layer.has_kind(unit.kind) {
            continue;
        }
        scratch.hits.clear();
        for (candidate, text) in &candidates {
            layer.hits_into(
                unit.kind,
                candidate,
                text,
                &mut scratch.globs,
                &mut scratch.hits,
            );
        }
        let shared = scratch.hits.len();
        for (candidate, text) in &deny_only {
            layer.hits_into(
                unit.kind,
                candidate,
                text,
                &mut scratch.globs,
                &mut scratch.hits,
            );
        }
        if let Some(rule) = layer.first_hit(&scratch.hits, Effect::Deny) {
            return (Some((layer, rule)), outcome);
        }
        if matches!(outcome, UnitOutcome::Unmatched) {
            // Ask rules see every spelling (stricter only); allow rules only
            // the command as written.
            if let Some(rule) = layer.first_hit(&scratch.hits, Effect::Ask) {
                outcome = UnitOutcome::Asked(layer, rule);
            } else if unit.allow_blocker.is_none()
                && let Some(rule) = layer.first_hit(&scratch.hits[..shared], Effect::Allow)
            {
                outcome = UnitOutcome::Allowed(layer, rule);
            }
        }
    }
    if unit.kind == crate::action::ActionKind::Shell
        && !unit.words.is_empty()
        && !matches!(outcome, UnitOutcome::Asked(..))
    {
        for layer in rules_again.clone() {
            if let Some(rule) = layer.scattered_match(&unit.words, false).or_else(|| {
                unit.unplaced
                    .as_ref()
                    .and_then(|_| layer.scattered_match(&unit.words, true))
            }) {
                outcome = UnitOutcome::Scattered(layer, rule);
                break;
            }
        }
    }
    if !unit.inner_candidates.is_empty()
        && !matches!(outcome, UnitOutcome::Asked(..) | UnitOutcome::Scattered(..))
    {
        let inner: Vec<(Candidate<'_>, &str)> = unit
            .inner_candidates
            .iter()
            .map(|c| (Candidate::new(c.as_str()), c.as_str()))
            .collect();
        for layer in rules_again {
            if !layer.has_kind(unit.kind) {
                continue;
            }
            scratch.hits.clear();
            for (candidate, text) in &inner {
                layer.hits_into(
                    unit.kind,
                    candidate,
                    text,
                    &mut scratch.globs,
                    &mut scratch.hits,
                );
            }
            if let Some(rule) = layer
                .first_hit(&scratch.hits, Effect::Deny)
                .or_else(|| layer.first_hit(&scratch.hits, Effect::Ask))
            {
                outcome = UnitOutcome::Inner(layer, rule);
                break;
            }
        }
    }
    (None, outcome)
}

fn rule_basis(layer: &RuleLayer, rule: &Rule) -> Basis {
    Basis::Rule {
        source: layer.source(),
        kind: rule.kind,
        effect: rule.effect,
        pattern: rule.pattern.clone(),
    }
}

fn rule_origin(layer: &RuleLayer) -> &str {
    layer.origin().unwrap_or(layer.source().as_str())
}

fn approval_decision(id: ApprovalId, scope: ApprovalScope, what: &str) -> Decision {
    Decision {
        verdict: Verdict::Allow,
        basis: Basis::Approval { id, scope },
        reason: format!(
            "allowed by a saved {} approval of {what}",
            match scope {
                ApprovalScope::Once => "once",
                ApprovalScope::Always => "always",
            }
        ),
        requirement: "PERM-5",
        asked_kinds: KindSet::EMPTY,
    }
}
