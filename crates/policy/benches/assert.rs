//! `Permission::assert` with 200 rules across layers (target: median < 1 µs).
//!
//! Run: `cargo bench -p ploy-policy --bench assert -- --warm-up-time 1 --measurement-time 3`

#![allow(clippy::unwrap_used, missing_docs)] // benchmark setup: a panic is a failed run

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ploy_policy::{
    Action, ActionKind, Approval, ApprovalScope, Approvals, ConversationRules, Effect, Grant,
    Permission, ProjectRoot, ProjectTrust, Rule, RuleLayer, RuleSource, Rules, TaintSource,
};

/// 200 rules: 1 built-in, 90 user, 71 project, 38 conversation; every kind and effect.
fn two_hundred_rules() -> (Rules, ConversationRules) {
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
    let mut conversation = ConversationRules::new();
    for i in 0..38 {
        let kind = ActionKind::ALL[i % 5];
        let effect = [Effect::Allow, Effect::Ask, Effect::Deny][i % 3];
        conversation
            .add_rule(Rule::new(kind, effect, format!("conv{i}/**")))
            .unwrap();
    }
    let total = user.len() + project.len() + conversation.rules().rules().len();
    let rules = Rules::builtin()
        .with_layer(
            RuleLayer::new(RuleSource::User, user).unwrap(),
            ProjectTrust::Trusted,
        )
        .with_layer(
            RuleLayer::new(RuleSource::Project, project).unwrap(),
            ProjectTrust::Trusted,
        );
    assert_eq!(total + 1, 200, "builtin + user + project + conversation");
    (rules, conversation)
}

fn bench_assert(c: &mut Criterion) {
    let root = ProjectRoot::new("/home/dev/proj").unwrap();
    let (rules, clean) = two_hundred_rules();
    let mut tainted = clean.clone();
    tainted.mark_tainted("page", TaintSource::Url("https://evil.example/".into()));
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

    let cases = [
        (
            "shell_allowed",
            Action::shell("bash", "cargo test --all", &root),
            &clean,
        ),
        (
            "shell_3_commands_ask",
            Action::shell("bash", "cargo test && echo ok | tee out.txt", &root),
            &clean,
        ),
        (
            "shell_denied",
            Action::shell("bash", "danger7 --now", &root),
            &clean,
        ),
        (
            "edit_default_ask",
            Action::edit("write_file", "src/main.rs", &root),
            &clean,
        ),
        (
            "read_allowed",
            Action::read("read_file", "src/lib.rs", &root),
            &clean,
        ),
        (
            "web_allowed",
            Action::web("fetch", "https://docs.site3.example/page"),
            &clean,
        ),
        (
            "shell_tainted",
            Action::shell("bash", "cargo test", &root),
            &tainted,
        ),
    ];
    let mut group = c.benchmark_group("assert_200_rules");
    for (name, action, conversation) in &cases {
        group.bench_function(*name, |b| {
            b.iter(|| Permission::assert(black_box(action), conversation, &rules, &approvals))
        });
    }
    group.finish();

    c.bench_function("classify_shell_line", |b| {
        b.iter(|| {
            Action::shell(
                "bash",
                black_box("cargo test --all && echo done > out.txt"),
                &root,
            )
        })
    });
}

criterion_group!(benches, bench_assert);
criterion_main!(benches);
