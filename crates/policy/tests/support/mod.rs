//! Helpers shared by the shell-judge tests (one copy, not one per file).

use ploy_policy::{
    ActionKind, Effect, ProjectRoot, ProjectTrust, Rule, RuleLayer, RuleSource, Rules,
};

/// The project every shell-judge test runs in.
pub fn root() -> ProjectRoot {
    ProjectRoot::new("/home/dev/proj").unwrap()
}

/// The built-in rules plus one user layer made of `list`.
pub fn rules(list: &[(ActionKind, Effect, &str)]) -> Rules {
    let layer = RuleLayer::new(
        RuleSource::User,
        list.iter().map(|(k, e, p)| Rule::new(*k, *e, *p)).collect(),
    )
    .unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

/// The red team's settings: every command and every edit allowed.
#[allow(dead_code)] // not every test file that includes this module uses it
pub fn allow_all() -> Rules {
    rules(&[
        (ActionKind::Shell, Effect::Allow, "*"),
        (ActionKind::Edit, Effect::Allow, "**"),
    ])
}
