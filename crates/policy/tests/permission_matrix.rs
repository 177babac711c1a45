//! The PERM-3 / PERM-4 matrix: {no rule, allow, ask, deny} × {no approval,
//! once, always} × {clean, tainted} × {read, edit, shell, external_directory,
//! web}, asserting the verdict AND the offered options for every cell.

#![allow(clippy::unwrap_used)] // tests: a panic is a test failure

use ploy_policy::{
    Action, ActionKind, Approval, ApprovalScope, Approvals, AskOption, Basis, ConversationRules,
    Effect, Grant, Permission, ProjectRoot, ProjectTrust, Rule, RuleLayer, RuleSource, Rules,
    TaintSource, Verdict,
};

#[derive(Debug, Clone, Copy, PartialEq)]
enum RuleCase {
    None,
    Allow,
    Ask,
    Deny,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ApprovalCase {
    None,
    Once,
    Always,
}

fn root() -> ProjectRoot {
    ProjectRoot::new("/home/dev/proj").unwrap()
}

/// The action for each row, and the pattern that a rule of that kind uses.
fn action_for(kind: ActionKind) -> (Action, &'static str) {
    let r = root();
    match kind {
        ActionKind::Read => (Action::read("read_file", "src/main.rs", &r), "src/**"),
        ActionKind::Edit => (Action::edit("write_file", "src/main.rs", &r), "src/**"),
        ActionKind::Shell => (
            Action::shell("bash", "cargo test --all", &r),
            "cargo test *",
        ),
        ActionKind::ExternalDirectory => (Action::read("read_file", "/etc/hosts", &r), "/etc/**"),
        ActionKind::Web => (
            Action::web("fetch", "https://example.com/page"),
            "https://example.com/*",
        ),
    }
}

fn rules_for(kind: ActionKind, pattern: &str, case: RuleCase) -> Rules {
    let effect = match case {
        RuleCase::None => return Rules::builtin(),
        RuleCase::Allow => Effect::Allow,
        RuleCase::Ask => Effect::Ask,
        RuleCase::Deny => Effect::Deny,
    };
    let layer = RuleLayer::new(RuleSource::User, vec![Rule::new(kind, effect, pattern)]).unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

fn approvals_for(action: &Action, case: ApprovalCase) -> Approvals {
    let scope = match case {
        ApprovalCase::None => return Approvals::new(),
        ApprovalCase::Once => ApprovalScope::Once,
        ApprovalCase::Always => ApprovalScope::Always,
    };
    let mut approvals = Approvals::new();
    approvals
        .grant(Approval {
            scope,
            grant: Grant::ExactAction {
                tool: action.tool().to_string(),
                target: action.target().as_str().to_string(),
                kinds: action.kinds(),
            },
        })
        .unwrap();
    approvals
}

fn tainted() -> ConversationRules {
    let mut conv = ConversationRules::new();
    conv.mark_tainted(
        "browser_read returned a page",
        TaintSource::Url("https://evil.example/".into()),
    );
    conv
}

/// The expected verdict, written out from the rules in SPEC §3, not from the code.
fn expected(kind: ActionKind, rule: RuleCase, approval: ApprovalCase, is_tainted: bool) -> Verdict {
    let full = Verdict::Ask {
        options: vec![AskOption::Once, AskOption::Always, AskOption::Reject],
    };
    let tainted_ask = Verdict::Ask {
        options: vec![AskOption::Once, AskOption::Reject],
    };
    if rule == RuleCase::Deny {
        return Verdict::Deny; // nothing overrides a deny
    }
    let guarded = matches!(
        kind,
        ActionKind::Edit | ActionKind::Shell | ActionKind::ExternalDirectory
    );
    if is_tainted && guarded {
        return tainted_ask; // PERM-3: allow rules and approvals ignored, no "always"
    }
    // PERM-5: a tainted conversation is never offered "always", whatever the kind.
    let full = if is_tainted { tainted_ask } else { full };
    match rule {
        RuleCase::Allow => Verdict::Allow,
        // Reading inside the project is allowed by the defaults (PERM-6).
        RuleCase::None if kind == ActionKind::Read => Verdict::Allow,
        RuleCase::None | RuleCase::Ask => match approval {
            ApprovalCase::None => full,
            ApprovalCase::Once => Verdict::Allow,
            // A standing `always` never applies in a tainted conversation,
            // whatever the kind (tui-rpc #11: `always read .env`).
            ApprovalCase::Always if is_tainted => full,
            ApprovalCase::Always => Verdict::Allow,
        },
        RuleCase::Deny => Verdict::Deny,
    }
}

// proves: PERM-3
// proves: PERM-4
// proves: PERM-2
// proves: PERM-6
#[test]
fn full_matrix() {
    let mut cells = 0;
    for kind in ActionKind::ALL {
        for rule in [
            RuleCase::None,
            RuleCase::Allow,
            RuleCase::Ask,
            RuleCase::Deny,
        ] {
            for approval in [ApprovalCase::None, ApprovalCase::Once, ApprovalCase::Always] {
                for is_tainted in [false, true] {
                    let (action, pattern) = action_for(kind);
                    assert!(
                        action.kinds().contains(kind),
                        "{kind}: {:?}",
                        action.kinds()
                    );
                    let rules = rules_for(kind, pattern, rule);
                    let approvals = approvals_for(&action, approval);
                    let conv = if is_tainted {
                        tainted()
                    } else {
                        ConversationRules::new()
                    };
                    let decision = Permission::assert(&action, &conv, &rules, &approvals);
                    let want = expected(kind, rule, approval, is_tainted);
                    assert_eq!(
                        decision.verdict, want,
                        "kind={kind} rule={rule:?} approval={approval:?} tainted={is_tainted}: {decision:?}"
                    );
                    assert!(!decision.reason.is_empty());
                    assert!(decision.requirement.starts_with("PERM-"), "{decision:?}");
                    if is_tainted && decision.is_ask() {
                        assert!(!decision.options().contains(&AskOption::Always));
                    }
                    if is_tainted && decision.is_ask() && kind.guarded_by_taint() {
                        assert_eq!(decision.requirement, "PERM-3");
                        assert!(matches!(decision.basis, Basis::TaintMark(_)));
                    }
                    if rule == RuleCase::Deny {
                        assert_eq!(decision.requirement, "PERM-2");
                    }
                    cells += 1;
                }
            }
        }
    }
    assert_eq!(cells, 5 * 4 * 3 * 2);
}

// proves: PERM-4
#[test]
fn saved_always_allow_shell_never_runs_a_tainted_command() {
    let r = root();
    let action = Action::shell("bash", "cargo test", &r);
    // Every way to pre-approve shell at once: allow rules in every layer,
    // exact and pattern approvals, once and always.
    let mut conv = tainted();
    conv.add_rule(Rule::new(ActionKind::Shell, Effect::Allow, "*"))
        .unwrap();
    let user = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Shell, Effect::Allow, "*")],
    )
    .unwrap();
    let project = RuleLayer::new(
        RuleSource::Project,
        vec![Rule::new(ActionKind::Shell, Effect::Allow, "**")],
    )
    .unwrap();
    let rules = Rules::builtin()
        .with_layer(user, ProjectTrust::Trusted)
        .with_layer(project, ProjectTrust::Trusted);
    let mut approvals = Approvals::new();
    for scope in [ApprovalScope::Once, ApprovalScope::Always] {
        approvals
            .grant(Approval {
                scope,
                grant: Grant::Pattern {
                    kind: ActionKind::Shell,
                    pattern: "*".into(),
                },
            })
            .unwrap();
        approvals
            .grant(Approval {
                scope,
                grant: Grant::ExactAction {
                    tool: "bash".into(),
                    target: "cargo test".into(),
                    kinds: action.kinds(),
                },
            })
            .unwrap();
    }
    let decision = Permission::assert(&action, &conv, &rules, &approvals);
    assert_eq!(
        decision.verdict,
        Verdict::Ask {
            options: vec![AskOption::Once, AskOption::Reject]
        }
    );
    // The same setup in a clean conversation allows: the mark alone made the difference.
    let mut clean = ConversationRules::new();
    clean
        .add_rule(Rule::new(ActionKind::Shell, Effect::Allow, "*"))
        .unwrap();
    assert!(Permission::assert(&action, &clean, &rules, &approvals).is_allow());
}

// proves: PERM-2
#[test]
fn a_deny_in_any_layer_beats_allows_in_higher_layers_and_approvals() {
    let r = root();
    let action = Action::edit("write_file", "src/lib.rs", &r);
    let user_deny = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Edit, Effect::Deny, "src/*.rs")],
    )
    .unwrap();
    let project_allow = RuleLayer::new(
        RuleSource::Project,
        vec![Rule::new(ActionKind::Edit, Effect::Allow, "**")],
    )
    .unwrap();
    let rules = Rules::builtin()
        .with_layer(user_deny, ProjectTrust::Trusted)
        .with_layer(project_allow, ProjectTrust::Trusted);
    let mut conv = ConversationRules::new();
    conv.add_rule(Rule::new(ActionKind::Edit, Effect::Allow, "**"))
        .unwrap();
    let approvals = approvals_for(&action, ApprovalCase::Always);
    let decision = Permission::assert(&action, &conv, &rules, &approvals);
    assert!(decision.is_deny(), "{decision:?}");
    assert!(decision.reason.contains("src/*.rs"), "{}", decision.reason);
}

// proves: PERM-2
#[test]
fn higher_layer_ask_overrides_lower_allow_and_conversation_allow_overrides_user_ask() {
    let r = root();
    let action = Action::edit("write_file", "docs/a.md", &r);
    let user_allow = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Edit, Effect::Allow, "**")],
    )
    .unwrap();
    let project_ask = RuleLayer::new(
        RuleSource::Project,
        vec![Rule::new(ActionKind::Edit, Effect::Ask, "docs/**")],
    )
    .unwrap();
    let rules = Rules::builtin()
        .with_layer(user_allow.clone(), ProjectTrust::Trusted)
        .with_layer(project_ask.clone(), ProjectTrust::Trusted);
    let conv = ConversationRules::new();
    assert!(Permission::assert(&action, &conv, &rules, &Approvals::new()).is_ask());
    // Untrusted project: its ask is not loaded, the user's allow stands.
    let rules_untrusted = Rules::builtin()
        .with_layer(user_allow, ProjectTrust::Untrusted)
        .with_layer(project_ask, ProjectTrust::Untrusted);
    assert!(Permission::assert(&action, &conv, &rules_untrusted, &Approvals::new()).is_allow());
    let mut conv = ConversationRules::new();
    conv.add_rule(Rule::new(ActionKind::Edit, Effect::Allow, "docs/*.md"))
        .unwrap();
    assert!(Permission::assert(&action, &conv, &rules, &Approvals::new()).is_allow());
}

// proves: PERM-6
#[test]
fn tainted_reads_inside_are_allowed_but_outside_ask() {
    let r = root();
    let conv = tainted();
    let rules = Rules::builtin();
    let inside = Action::read("read_file", "README.md", &r);
    assert!(Permission::assert(&inside, &conv, &rules, &Approvals::new()).is_allow());
    for outside in [
        "../other/secret",
        "/etc/passwd",
        "~/.ssh/id_ed25519",
        "src/../../x",
    ] {
        let action = Action::read("read_file", outside, &r);
        assert!(
            action.kinds().contains(ActionKind::ExternalDirectory),
            "{outside}"
        );
        let d = Permission::assert(&action, &conv, &rules, &Approvals::new());
        assert_eq!(
            d.options(),
            [AskOption::Once, AskOption::Reject],
            "{outside}: {d:?}"
        );
    }
}

// proves: PERM-5
#[test]
fn always_cannot_be_saved_from_a_tainted_prompt() {
    let r = root();
    let action = Action::edit("write_file", "a.txt", &r);
    let decision = Permission::assert(&action, &tainted(), &Rules::builtin(), &Approvals::new());
    let mut approvals = Approvals::new();
    assert!(
        approvals
            .record_answer(&action, &decision, AskOption::Always)
            .is_err()
    );
    assert!(approvals.is_empty());
    // Clean: "always" saves an exact grant that allows the same call later...
    let clean = ConversationRules::new();
    let decision = Permission::assert(&action, &clean, &Rules::builtin(), &approvals);
    assert!(
        approvals
            .record_answer(&action, &decision, AskOption::Always)
            .unwrap()
            .len()
            == 1
    );
    assert!(Permission::assert(&action, &clean, &Rules::builtin(), &approvals).is_allow());
    // ...but not a different target, and not once the conversation is tainted.
    let other = Action::edit("write_file", "b.txt", &r);
    assert!(Permission::assert(&other, &clean, &Rules::builtin(), &approvals).is_ask());
    assert!(Permission::assert(&action, &tainted(), &Rules::builtin(), &approvals).is_ask());
}

// proves: PERM-5
#[test]
fn once_approval_is_used_up() {
    let r = root();
    let action = Action::edit("write_file", "a.txt", &r);
    let mut approvals = approvals_for(&action, ApprovalCase::Once);
    let conv = ConversationRules::new();
    let first = Permission::assert(&action, &conv, &Rules::builtin(), &approvals);
    assert!(first.is_allow());
    approvals.consume(&first);
    assert!(Permission::assert(&action, &conv, &Rules::builtin(), &approvals).is_ask());
}

// proves: PERM-5
#[test]
fn non_interactive_turns_ask_into_a_structured_refusal() {
    let r = root();
    let action = Action::edit("write_file", "a.txt", &r);
    let decision = Permission::assert(&action, &tainted(), &Rules::builtin(), &Approvals::new());
    let refusal = decision.without_user(&action).unwrap_err();
    assert_eq!(refusal.requirement, "PERM-5");
    let json = serde_json::to_value(&refusal).unwrap();
    assert_eq!(json["status"], "refused");
    assert_eq!(json["requirement"], "PERM-5");
    assert_eq!(json["tool"], "write_file");
    assert_eq!(json["kinds"], serde_json::json!(["edit"]));
    assert!(json["reason"].as_str().unwrap().contains("tainted"));

    let deny = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Edit, Effect::Deny, "*")],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(deny, ProjectTrust::Trusted);
    let decision = Permission::assert(
        &action,
        &ConversationRules::new(),
        &rules,
        &Approvals::new(),
    );
    assert_eq!(
        decision.without_user(&action).unwrap_err().requirement,
        "PERM-2"
    );

    let read = Action::read("read_file", "a.txt", &r);
    let decision = Permission::assert(&read, &tainted(), &Rules::builtin(), &Approvals::new());
    assert!(decision.without_user(&read).is_ok());
}

// proves: PERM-1
#[test]
fn media_writes_are_edits() {
    let r = root();
    let action = Action::media_write("image_generate", "out/cat.png", &r);
    assert!(action.kinds().contains(ActionKind::Edit));
    assert!(Permission::assert(&action, &tainted(), &Rules::builtin(), &Approvals::new()).is_ask());
    let outside = Action::media_write("speak", "/tmp/a.wav", &r);
    assert!(outside.kinds().contains(ActionKind::ExternalDirectory));
}

// proves: PERM-2
#[test]
fn a_pattern_approval_cannot_widen_an_edit_outside_the_project() {
    let r = root();
    // An approval for edits anywhere does not cover the external_directory unit.
    let mut approvals = Approvals::new();
    approvals
        .grant(Approval {
            scope: ApprovalScope::Always,
            grant: Grant::Pattern {
                kind: ActionKind::Edit,
                pattern: "**".into(),
            },
        })
        .unwrap();
    let conv = ConversationRules::new();
    let inside = Action::edit("write_file", "a.txt", &r);
    assert!(Permission::assert(&inside, &conv, &Rules::builtin(), &approvals).is_allow());
    let outside = Action::edit("write_file", "../x/a.txt", &r);
    assert!(Permission::assert(&outside, &conv, &Rules::builtin(), &approvals).is_ask());
}

// proves: PERM-2
#[test]
fn web_rules_match_url_or_host_and_unparseable_targets_cannot_be_allowed() {
    let layer = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Web, Effect::Allow, "*.wikipedia.org")],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(layer, ProjectTrust::Untrusted);
    let conv = ConversationRules::new();
    let ok = Action::web("fetch", "https://en.wikipedia.org/wiki/Rust");
    assert!(Permission::assert(&ok, &conv, &rules, &Approvals::new()).is_allow());
    let search = Action::web_search(
        "research",
        "https://en.wikipedia.org/w/api.php",
        "rust borrow checker",
    );
    assert!(Permission::assert(&search, &conv, &rules, &Approvals::new()).is_allow());
    for bad in [
        "https://en.wikipedia.org.evil.example/",
        "https://evil.example/?u=en.wikipedia.org",
        "not a url *.wikipedia.org",
        "https://user@evil.example/en.wikipedia.org",
    ] {
        let action = Action::web("fetch", bad);
        assert!(
            Permission::assert(&action, &conv, &rules, &Approvals::new()).is_ask(),
            "{bad}"
        );
    }
    let all = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Web, Effect::Allow, "*")],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(all, ProjectTrust::Untrusted);
    let garbage = Action::web("fetch", "::not a url::");
    assert!(Permission::assert(&garbage, &conv, &rules, &Approvals::new()).is_ask());
}

// proves: PERM-5
#[test]
fn approval_never_profile_refuses_every_ask_and_ask_profile_keeps_it() {
    use ploy_policy::{ApprovalMode, ExecutionProfile, SandboxMode};
    let r = root();
    let never = ExecutionProfile::new(SandboxMode::WorkspaceWrite, ApprovalMode::Never).unwrap();
    let ask = ExecutionProfile::DEFAULT;
    let action = Action::shell("bash", "cargo test", &r);
    let decision = Permission::assert(
        &action,
        &ConversationRules::new(),
        &Rules::builtin(),
        &Approvals::new(),
    );
    assert!(decision.is_ask());
    assert!(
        decision
            .clone()
            .for_profile(&action, &ask)
            .unwrap()
            .is_ask()
    );
    let refusal = decision.for_profile(&action, &never).unwrap_err();
    assert_eq!(refusal.requirement, "PERM-5");
    // Allowed stays allowed under `never`; denied is refused under `ask`.
    let read = Action::read("read_file", "README.md", &r);
    let allowed = Permission::assert(
        &read,
        &ConversationRules::new(),
        &Rules::builtin(),
        &Approvals::new(),
    );
    assert!(allowed.for_profile(&read, &never).unwrap().is_allow());
    let deny = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Shell, Effect::Deny, "cargo *")],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(deny, ProjectTrust::Untrusted);
    let denied = Permission::assert(
        &action,
        &ConversationRules::new(),
        &rules,
        &Approvals::new(),
    );
    assert_eq!(
        denied.for_profile(&action, &ask).unwrap_err().requirement,
        "PERM-2"
    );
}

// proves: PERM-5
#[test]
fn pattern_approvals_many_grants_and_once_consumption() {
    let r = root();
    let conv = ConversationRules::new();
    let rules = Rules::builtin();
    let mut approvals = Approvals::new();
    for i in 0..30 {
        approvals
            .grant(Approval {
                scope: ApprovalScope::Always,
                grant: Grant::Pattern {
                    kind: ActionKind::Shell,
                    pattern: format!("tool{i} *"),
                },
            })
            .unwrap();
    }
    approvals
        .grant(Approval {
            scope: ApprovalScope::Once,
            grant: Grant::Pattern {
                kind: ActionKind::Shell,
                pattern: "ls *".into(),
            },
        })
        .unwrap();
    // A bad pattern is refused and leaves the others working.
    assert!(
        approvals
            .grant(Approval {
                scope: ApprovalScope::Always,
                grant: Grant::Pattern {
                    kind: ActionKind::Shell,
                    pattern: "a[".into(),
                },
            })
            .is_err()
    );
    let ls = Action::shell("bash", "ls -la", &r);
    let first = Permission::assert(&ls, &conv, &rules, &approvals);
    assert!(first.is_allow(), "{first:?}");
    approvals.consume(&first);
    assert!(Permission::assert(&ls, &conv, &rules, &approvals).is_ask());
    let tool = Action::shell("bash", "tool29 run && tool3 go", &r);
    assert!(Permission::assert(&tool, &conv, &rules, &approvals).is_allow());
    // Every command must be covered: one uncovered command keeps the ask.
    let mixed = Action::shell("bash", "tool1 x && ls", &r);
    assert!(Permission::assert(&mixed, &conv, &rules, &approvals).is_ask());
    // Pattern approvals never cover what no allow rule may cover.
    let sub = Action::shell("bash", "tool1 $(rm -rf .)", &r);
    assert!(Permission::assert(&sub, &conv, &rules, &approvals).is_ask());
    // The saved list round-trips.
    let again = Approvals::from_saved(approvals.saved()).unwrap();
    assert_eq!(again.len(), approvals.len());
    assert!(Permission::assert(&tool, &conv, &rules, &again).is_allow());
}

// proves: PERM-5
#[test]
fn always_saves_narrow_grants_that_never_outrank_a_deny() {
    let r = root();
    let clean = ConversationRules::new();
    let action = Action::shell("shell", "cargo test && git status", &r);
    let decision = Permission::assert(&action, &clean, &Rules::builtin(), &Approvals::new());
    let saved = Approval::for_answer(&action, &decision, AskOption::Always).unwrap();
    let patterns: Vec<_> = saved
        .iter()
        .map(|a| match &a.grant {
            Grant::Pattern { kind, pattern } => (*kind, pattern.clone()),
            other => panic!("expected a pattern grant, got {other:?}"),
        })
        .collect();
    assert_eq!(
        patterns,
        [
            (ActionKind::Shell, "cargo test".to_string()),
            (ActionKind::Shell, "git status".to_string())
        ]
    );
    let approvals = Approvals::from_saved(saved).unwrap();
    // The exact commands run, alone or together...
    for line in ["cargo test", "git status", "git status; cargo test"] {
        let a = Action::shell("shell", line, &r);
        assert!(
            Permission::assert(&a, &clean, &Rules::builtin(), &approvals).is_allow(),
            "{line}"
        );
    }
    // ...but nothing longer, nothing with a glob, and nothing denied.
    for line in [
        "cargo test --release",
        "cargo test; rm -rf src",
        "cargo testx",
        "git status > ../out",
    ] {
        let a = Action::shell("shell", line, &r);
        assert!(
            !Permission::assert(&a, &clean, &Rules::builtin(), &approvals).is_allow(),
            "{line}"
        );
    }
    let deny = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Shell, Effect::Deny, "cargo *")],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(deny, ProjectTrust::Untrusted);
    let a = Action::shell("shell", "cargo test", &r);
    assert!(Permission::assert(&a, &clean, &rules, &approvals).is_deny());

    // Glob characters in a command are saved literally.
    let star = Action::shell("shell", "ls '*'", &r);
    let d = Permission::assert(&star, &clean, &Rules::builtin(), &Approvals::new());
    let approvals =
        Approvals::from_saved(Approval::for_answer(&star, &d, AskOption::Always).unwrap()).unwrap();
    let other = Action::shell("shell", "ls secret", &r);
    assert!(!Permission::assert(&other, &clean, &Rules::builtin(), &approvals).is_allow());
    assert!(Permission::assert(&star, &clean, &Rules::builtin(), &approvals).is_allow());

    // An edit saves the one path.
    let edit = Action::edit("edit", "src/lib.rs", &r);
    let d = Permission::assert(&edit, &clean, &Rules::builtin(), &Approvals::new());
    let approvals =
        Approvals::from_saved(Approval::for_answer(&edit, &d, AskOption::Always).unwrap()).unwrap();
    assert!(Permission::assert(&edit, &clean, &Rules::builtin(), &approvals).is_allow());
    let sibling = Action::edit("edit", "src/main.rs", &r);
    assert!(!Permission::assert(&sibling, &clean, &Rules::builtin(), &approvals).is_allow());
}

// proves: BEYOND-7, BROWSER-2, BEYOND-2 (the site rule inside
// Permission::assert: after a page is read, a navigation to a site not yet
// visited asks even under an allow-everything rule and a saved approval; a
// visited site, a clean conversation and the research tool's own page reads
// are not held by it; a deny still wins)
#[test]
fn the_site_rule_holds_navigations_of_a_tainted_conversation() {
    let all = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Web, Effect::Allow, "*")],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(all, ProjectTrust::Untrusted);
    let exfil = "http://other-site.example/?d=c2VjcmV0";
    let approvals = approvals_for(&Action::navigate("web_fetch", exfil), ApprovalCase::Always);

    let clean = ConversationRules::new();
    assert!(
        Permission::assert(
            &Action::navigate("web_fetch", exfil),
            &clean,
            &rules,
            &approvals
        )
        .is_allow(),
        "before any page is read, the site rule does not apply"
    );

    let mut conv = tainted();
    conv.visit(ploy_policy::site_of("https://docs.visited.example/a").unwrap());
    for tool in ["web_fetch", "browser_open", "browser_click", "browser_type"] {
        let decision =
            Permission::assert(&Action::navigate(tool, exfil), &conv, &rules, &approvals);
        assert_eq!(
            decision.verdict,
            Verdict::Ask {
                options: vec![AskOption::Once, AskOption::Reject]
            },
            "{tool}: {decision:?}"
        );
        let expected = if tool == "web_fetch" {
            "BEYOND-7"
        } else {
            "BROWSER-2"
        };
        assert_eq!(decision.requirement, expected);
        assert!(
            decision.reason.contains("other-site.example"),
            "{}",
            decision.reason
        );
        assert!(matches!(decision.basis, Basis::TaintMark(_)));
    }
    // Another page of a visited site (another host of the same registrable
    // domain) is allowed by the allow rule as before.
    for ok in [
        "https://docs.visited.example/b?q=1",
        "https://www.visited.example/",
    ] {
        assert!(
            Permission::assert(
                &Action::navigate("web_fetch", ok),
                &conv,
                &rules,
                &approvals
            )
            .is_allow(),
            "{ok}"
        );
    }
    // Unparseable: asks.
    assert!(
        Permission::assert(
            &Action::navigate("web_fetch", "nope"),
            &conv,
            &rules,
            &approvals
        )
        .is_ask()
    );
    // The research tool's page reads (plain web actions) are not navigations.
    assert!(
        Permission::assert(&Action::web("research", exfil), &conv, &rules, &approvals).is_allow()
    );
    // A deny rule beats the site rule's ask.
    let deny = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(
            ActionKind::Web,
            Effect::Deny,
            "other-site.example",
        )],
    )
    .unwrap();
    let denying = Rules::builtin().with_layer(deny, ProjectTrust::Untrusted);
    assert!(
        Permission::assert(
            &Action::navigate("web_fetch", exfil),
            &conv,
            &denying,
            &approvals
        )
        .is_deny()
    );
}

// proves: BROWSER-2 (issue 18: a form is POSTed only to a site already
// visited: any other site is denied, not asked, in a clean or a tainted
// conversation, whatever an allow-everything rule or a saved approval say;
// a visited site goes on to the ordinary rules)
#[test]
fn a_form_post_goes_only_to_a_visited_site() {
    let all = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Web, Effect::Allow, "*")],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(all, ProjectTrust::Untrusted);
    let new_site = "http://collect.other.example/form";
    let approvals = approvals_for(
        &Action::navigate("browser_type", new_site),
        ApprovalCase::Always,
    );
    let mut conv = tainted();
    conv.visit(ploy_policy::site_of("https://docs.visited.example/a").unwrap());
    for (label, c) in [
        ("clean", ConversationRules::new()),
        ("tainted", conv.clone()),
    ] {
        let decision = Permission::assert(
            &Action::form_post("browser_type", new_site),
            &c,
            &rules,
            &approvals,
        );
        assert!(decision.is_deny(), "{label}: {decision:?}");
        assert_eq!(decision.requirement, "BROWSER-2");
        assert!(
            decision
                .reason
                .contains("`other.example` is a site not yet visited"),
            "{}",
            decision.reason
        );
        // The same URL as a GET form only asks (a person may answer).
        let get = Permission::assert(
            &Action::navigate("browser_type", new_site),
            &c,
            &rules,
            &Approvals::new(),
        );
        assert!(!get.is_deny(), "{label}: {get:?}");
    }
    for unparseable in ["nope", "data:text/plain,x"] {
        assert!(
            Permission::assert(
                &Action::form_post("browser_type", unparseable),
                &conv,
                &rules,
                &approvals
            )
            .is_deny()
        );
    }
    // A visited site (another host of the same registrable domain): the
    // ordinary rules decide (here the allow rule).
    assert!(
        Permission::assert(
            &Action::form_post("browser_type", "https://forms.visited.example/post"),
            &conv,
            &rules,
            &Approvals::new()
        )
        .is_allow()
    );
    // Without the allow rule it asks, as a GET navigation there would.
    assert!(
        Permission::assert(
            &Action::form_post("browser_type", "https://forms.visited.example/post"),
            &conv,
            &Rules::builtin(),
            &Approvals::new()
        )
        .is_ask()
    );
}

// proves: BROWSER-2 (visited sites are stored with the conversation's rules
// and come back; a stored row that is not a site is refused, not widened)
#[test]
fn visited_sites_survive_the_stored_form() {
    let mut conv = tainted();
    conv.visit(ploy_policy::site_of("https://a.example.co.uk/").unwrap());
    conv.visit(ploy_policy::site_of("http://0x5d.184.215.14/").unwrap());
    let text = serde_json::to_string(&conv).unwrap();
    let back: ConversationRules = serde_json::from_str(&text).unwrap();
    assert_eq!(back.visited_sites(), conv.visited_sites());
    assert!(back.check_site("https://b.example.co.uk/x").passes());
    assert!(back.check_site("http://93.184.215.14/").passes());
    assert!(!back.check_site("http://93.184.215.15/").passes());
    // Sites compare by equality, never as patterns; a row that is not a
    // site as ploy derives it (a host below a registrable domain) is refused.
    let widened = r#"{"ploy_tainted": [], "rules": [], "visited_sites": ["www.example.com"]}"#;
    assert!(serde_json::from_str::<ConversationRules>(widened).is_err());
}
