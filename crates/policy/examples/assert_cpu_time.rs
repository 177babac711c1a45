//! CPU time of `Permission::assert` with the benchmark's 200 rules, for a
//! shared, loaded machine where criterion's wall-clock numbers inflate:
//!
//! ```sh
//! cargo build --release -p ploy-policy --example assert_cpu_time
//! for w in shell edit read web ask3; do
//!   /usr/bin/time -f "$w: %U s user for 1e6 calls" target/release/examples/assert_cpu_time $w
//! done
//! ```
//! (user seconds for 1,000,000 calls = microseconds per call)

#![allow(clippy::unwrap_used, missing_docs)] // a measuring tool: a panic is a failed run

use ploy_policy::{
    Action, ActionKind, Approval, ApprovalScope, Approvals, ConversationRules, Effect, Grant,
    Permission, ProjectRoot, ProjectTrust, Rule, RuleLayer, RuleSource, Rules,
};
fn main() {
    let root = ProjectRoot::new("/home/dev/proj").unwrap();
    let mut user = Vec::new();
    for i in 0..30 {
        user.push(Rule::new(
            ActionKind::Shell,
            Effect::Allow,
            format!("tool{i} sub{i} *"),
        ));
        user.push(Rule::new(
            ActionKind::Edit,
            Effect::Allow,
            format!("gen{i}/**"),
        ));
        user.push(Rule::new(
            ActionKind::Shell,
            Effect::Deny,
            format!("danger{i} *"),
        ));
    }
    let mut project = Vec::new();
    for i in 0..20 {
        project.push(Rule::new(
            ActionKind::Read,
            Effect::Ask,
            format!("secrets{i}/**"),
        ));
        project.push(Rule::new(
            ActionKind::Web,
            Effect::Allow,
            format!("*.site{i}.example"),
        ));
        project.push(Rule::new(
            ActionKind::ExternalDirectory,
            Effect::Allow,
            format!("/opt/data{i}/**"),
        ));
    }
    for i in 0..10 {
        project.push(Rule::new(
            ActionKind::Edit,
            Effect::Deny,
            format!("locked{i}/*.rs"),
        ));
    }
    project.push(Rule::new(ActionKind::Shell, Effect::Allow, "cargo test *"));
    let mut conv = ConversationRules::new();
    for i in 0..38 {
        conv.add_rule(Rule::new(
            ActionKind::ALL[i % 5],
            [Effect::Allow, Effect::Ask, Effect::Deny][i % 3],
            format!("conv{i}/**"),
        ))
        .unwrap();
    }
    let rules = Rules::builtin()
        .with_layer(
            RuleLayer::new(RuleSource::User, user).unwrap(),
            ProjectTrust::Trusted,
        )
        .with_layer(
            RuleLayer::new(RuleSource::Project, project).unwrap(),
            ProjectTrust::Trusted,
        );
    // The same 20 pattern approvals as the criterion benchmark.
    let mut approvals = Approvals::new();
    for i in 0..20 {
        approvals
            .grant(Approval {
                scope: ApprovalScope::Always,
                grant: Grant::Pattern {
                    kind: ActionKind::Shell,
                    pattern: format!("approved{i} *"),
                },
            })
            .unwrap();
    }
    let which = std::env::args().nth(1).unwrap_or_else(|| "shell".into());
    let action = match which.as_str() {
        "shell" => Action::shell("bash", "cargo test --all", &root),
        "edit" => Action::edit("w", "src/main.rs", &root),
        "read" => Action::read("r", "src/lib.rs", &root),
        "ask3" => Action::shell("bash", "cargo test && echo ok | tee out.txt", &root),
        _ => Action::web("f", "https://docs.site3.example/page"),
    };
    let n = 1_000_000;
    let mut allow = 0;
    for _ in 0..n {
        if Permission::assert(std::hint::black_box(&action), &conv, &rules, &approvals).is_allow() {
            allow += 1;
        }
    }
    println!("{which} {allow}");
}
