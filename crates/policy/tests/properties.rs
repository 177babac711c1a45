//! Property tests: rules are matched per simple command whatever the
//! separators, and path placement agrees with an independent depth model.

#![allow(clippy::unwrap_used)] // tests: a panic is a test failure

use ploy_policy::{
    Action, ActionKind, Approvals, ConversationRules, Effect, Permission, ProjectRoot,
    ProjectTrust, Rule, RuleLayer, RuleSource, Rules, Verdict,
};
use proptest::prelude::*;

const FRAGMENTS: [&str; 9] = [
    "echo a",        // allowed
    "echo 'x && y'", // allowed: one argument
    "rm -rf .",      // denied
    "r''m -rf .",    // denied (normalised name)
    "env rm x",      // denied (wrapped)
    "ls",            // neither: asks
    "$x",            // computed: asks
    "echo $(id)",    // substitution: asks
    "cat ../secret", // external_directory: asks
];
const SEPARATORS: [&str; 6] = [" && ", " || ", "; ", " | ", " & ", "\n"];

fn rules() -> Rules {
    let layer = RuleLayer::new(
        RuleSource::User,
        vec![
            Rule::new(ActionKind::Shell, Effect::Allow, "echo *"),
            Rule::new(ActionKind::Shell, Effect::Deny, "rm *"),
        ],
    )
    .unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    // proves: PERM-2
    #[test]
    fn every_simple_command_is_judged_whatever_the_separators(
        picks in prop::collection::vec((0usize..FRAGMENTS.len(), 0usize..SEPARATORS.len()), 1..6)
    ) {
        let mut line = String::new();
        for (i, (frag, sep)) in picks.iter().enumerate() {
            if i > 0 {
                line.push_str(SEPARATORS[*sep]);
            }
            line.push_str(FRAGMENTS[*frag]);
        }
        let root = ProjectRoot::new("/w/p").unwrap();
        let action = Action::shell("bash", &line, &root);
        let d = Permission::assert(&action, &ConversationRules::new(), &rules(), &Approvals::new());
        let any_denied = picks.iter().any(|(f, _)| (2..=4).contains(f));
        let all_allowed = picks.iter().all(|(f, _)| *f <= 1);
        let want = if any_denied {
            Verdict::Deny
        } else if all_allowed {
            Verdict::Allow
        } else {
            Verdict::Ask { options: vec![ploy_policy::AskOption::Once, ploy_policy::AskOption::Always, ploy_policy::AskOption::Reject] }
        };
        prop_assert_eq!(d.verdict, want, "{:?}", line);
    }

    // proves: PERM-1
    #[test]
    fn placement_agrees_with_a_depth_model(
        parts in prop::collection::vec(prop::sample::select(vec!["a", "b", "..", ".", "c"]), 0..8),
        absolute_prefix in any::<bool>(),
    ) {
        let root = ProjectRoot::new("/w/p").unwrap();
        let rel = parts.join("/");
        let text = if absolute_prefix { format!("/w/p/{rel}") } else { rel.clone() };
        // Independent model: walk the parts from depth 0 (the root); going
        // below 0 leaves the project, and `/w/p/..` forms can only come back
        // in through `p` again, which this alphabet never spells.
        let mut depth: i64 = 0;
        let mut left = false;
        for part in &parts {
            match *part {
                "." => {}
                ".." => {
                    depth -= 1;
                    if depth < 0 {
                        left = true;
                    }
                }
                _ => depth += 1,
            }
        }
        prop_assert_eq!(root.place(&text).is_outside(), left, "{}", text);
    }
}
