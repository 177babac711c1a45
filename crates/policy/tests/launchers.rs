//! Deny rules hold through programs that launch other commands (outside
//! attacker's secrets5 #16: `npm exec -- npm publish`, `npm x`, `npm exec
//! -c "…"`, `script -c "rm -rf build"` were allowed under `npm *` /
//! `script *` with deny rules for `npm publish*` and `rm -rf *`). What a
//! launcher starts is a simple command of its own; a command line it hands
//! to a shell is judged as shell (deny rules see inside; no allow rule
//! covers the launcher then); what ploy cannot see asks.

#![allow(clippy::unwrap_used)] // tests: a panic is a test failure

use ploy_policy::{
    Action, ActionKind, Approvals, ConversationRules, Effect, Permission, ProjectRoot,
    ProjectTrust, Rule, RuleLayer, RuleSource, Rules, Verdict,
};

fn root() -> ProjectRoot {
    ProjectRoot::new("/home/dev/proj").unwrap()
}

/// The attacker's settings (integrations #6 shape), with every launcher
/// allowed by name: only what they start can be refused.
fn rules() -> Rules {
    let mut list: Vec<Rule> = [
        "git *",
        "npm *",
        "npx *",
        "pnpm *",
        "pnpx *",
        "yarn *",
        "bun *",
        "bunx *",
        "rm *",
        "script *",
        "env *",
        "nice *",
        "timeout *",
        "nohup *",
        "stdbuf *",
        "setsid *",
        "flock *",
        "watch *",
        "sudo *",
        "doas *",
        "xargs *",
        "parallel *",
        "find *",
        "time *",
        "chronic *",
        "unbuffer *",
        "faketime *",
        "uv *",
        "uvx *",
        "poetry *",
        "pipenv *",
        "bundle *",
        "mise *",
        "direnv *",
        "nix-shell *",
        "unshare *",
        "chroot *",
        "fakeroot *",
        "gosu *",
        "pkexec *",
        "eatmydata *",
        "torsocks *",
        "ionice *",
        "taskset *",
        "cat *",
        "echo *",
        "cargo *",
        "command *",
    ]
    .iter()
    .map(|p| Rule::new(ActionKind::Shell, Effect::Allow, *p))
    .collect();
    for deny in ["git push*", "npm publish*", "rm -rf *"] {
        list.push(Rule::new(ActionKind::Shell, Effect::Deny, deny));
    }
    list.push(Rule::new(ActionKind::Edit, Effect::Allow, "**"));
    let layer = RuleLayer::new(RuleSource::User, list).unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum V {
    Allow,
    Ask,
    Deny,
}

fn verdict(line: &str) -> V {
    let action = Action::shell("bash", line, &root());
    let d = Permission::assert(
        &action,
        &ConversationRules::new(),
        &rules(),
        &Approvals::new(),
    );
    match d.verdict {
        Verdict::Allow => V::Allow,
        Verdict::Ask { .. } => V::Ask,
        Verdict::Deny => V::Deny,
    }
}

// proves: PERM-2 (deny rules deny the command a launcher starts)
#[test]
fn deny_rules_see_the_command_a_launcher_starts() {
    let denied = [
        // secrets5 #16, as the attacker sent them
        "npm exec -- npm publish",
        "npm exec npm publish",
        "npm x -- npm publish",
        "npm exec -c 'npm publish'",
        "npm exec -c \"npm publish\"",
        "npm exec --call='npm publish'",
        "npm --loglevel silent exec -- npm publish",
        "npm exec --package=npm -- npm publish",
        "npm exec -y npm pub",
        "script -c 'rm -rf build' /dev/null",
        "script -qc 'rm -rf build' /dev/null",
        "script /dev/null -c 'rm -rf build'",
        "script --command='rm -rf build'",
        "script -q -e -c 'cd x && rm -rf build' log.txt",
        "git lfs push origin main",
        "git lfs push --all origin",
        // the same class
        "npx npm publish",
        "npx -y -- npm publish",
        "npx -p npm npm publish",
        "npx -c 'npm publish'",
        "pnpm exec rm -rf build",
        "pnpm -C sub exec rm -rf build",
        "pnpm dlx npm publish",
        "pnpx npm publish",
        "pnpm git push origin",
        "pnpm exec -c 'rm -rf build'",
        "yarn exec rm -rf build",
        "yarn exec 'echo hi; rm -rf build'",
        "yarn dlx npm publish",
        "bunx npm publish",
        "bun x npm publish",
        "bun exec 'rm -rf build'",
        "env rm -rf build",
        "env -u HOME A=b rm -rf build",
        "nice -n 5 rm -rf build",
        "nice -10 rm -rf build",
        "timeout 5 rm -rf build",
        "timeout -s KILL --preserve-status 5 rm -rf build",
        "nohup rm -rf build",
        "stdbuf -oL rm -rf build",
        "setsid -w rm -rf build",
        "flock /tmp/l rm -rf build",
        "flock -c 'rm -rf build' /tmp/l",
        "flock /tmp/l -c 'rm -rf build'",
        "flock -w 5 /tmp/l --command 'git push'",
        "watch rm -rf build",
        "watch 'rm -rf build'",
        "watch -d rm -rf build",
        "watch -n 1 -x rm -rf build",
        "sudo rm -rf build",
        "sudo -u root rm -rf build",
        "sudo --user root rm -rf build",
        "sudo -Eu root rm -rf build",
        "sudo -uroot rm -rf build",
        "doas -u root rm -rf build",
        "xargs rm -rf",
        "xargs -I {} rm -rf {}",
        "parallel rm -rf ::: build dist",
        "parallel -j 2 'rm -rf {}' ::: build",
        "find . -exec rm -rf {} +",
        "time rm -rf build",
        "command time -a rm -rf build",
        "command time -o t.txt rm -rf build",
        "timeout $T rm -rf build",
        "chronic rm -rf build",
        "unbuffer rm -rf build",
        "faketime '2020-01-01' rm -rf build",
        "uv run rm -rf build",
        "uv run --with x rm -rf build",
        "uvx npm publish",
        "poetry run rm -rf build",
        "pipenv run rm -rf build",
        "bundle exec rm -rf build",
        "mise exec node@20 -- npm publish",
        "mise x -c 'npm publish'",
        "direnv exec . rm -rf build",
        "nix-shell --run 'rm -rf build'",
        "nix-shell shell.nix --command 'git push'",
        "unshare -rn rm -rf build",
        "chroot / rm -rf build",
        "fakeroot rm -rf build",
        "gosu root rm -rf build",
        "pkexec rm -rf build",
        "eatmydata rm -rf build",
        "torsocks git push",
        "ionice -c 3 rm -rf build",
        "taskset -c 0 rm -rf build",
        // launchers in launchers
        "sudo timeout 5 npm exec -- npm publish",
        "env npx -c 'script -c \"rm -rf build\"'",
        "nice xargs rm -rf",
    ];
    let mut wrong = Vec::new();
    for line in denied {
        let got = verdict(line);
        if got != V::Deny {
            wrong.push(format!("{line}: {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "not denied:\n{}", wrong.join("\n"));
}

// proves: PERM-2 (a launcher ploy cannot see through asks: no allow rule covers it)
#[test]
fn what_a_launcher_hides_asks() {
    let asked = [
        // a command line handed to a shell: judged, but never allowed
        "npm exec -c 'echo hi'",
        "script -c 'echo hi' /dev/null",
        "flock /tmp/l -c 'echo hi'",
        "watch 'echo hi'",
        "yarn exec echo hi",
        // what ploy cannot see
        "script /dev/null",
        "script -c \"$CMD\" /dev/null",
        "npm exec -c \"$CMD\"",
        "env -S 'rm -rf build'",
        "parallel",
        "faketime --date-prog ./x '2020-01-01' echo hi",
        "timeout $T cargo test",
        // an option ploy does not know: each reading is judged
        "npx --frobnicate echo hi",
        "sudo --frob rm x",
        // the launched command must be allowed by its own rule
        "npx prettier --write .",
        "uv run pytest",
        "sudo make install",
        "timeout 5 python3 x.py",
    ];
    let mut wrong = Vec::new();
    for line in asked {
        let got = verdict(line);
        if got != V::Ask {
            wrong.push(format!("{line}: {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "not asked:\n{}", wrong.join("\n"));
}

// proves: PERM-2 (twins: launching an allowed command stays allowed)
#[test]
fn launching_an_allowed_command_stays_allowed() {
    let allowed = [
        "npm exec -- npm install",
        "npm exec cargo test",
        "npx -y cargo build",
        "npm run build",
        "pnpm install",
        "pnpm build",
        "pnpm exec cargo test",
        "yarn install",
        "yarn dlx cargo test",
        "bunx cargo test",
        "timeout 5 cargo test",
        "timeout --preserve-status 5 cargo test",
        "nice -n 5 cargo build",
        "env A=b cargo test",
        "sudo -u root cargo build",
        "watch -x cargo test",
        "flock .lock cargo test",
        "command time -f %e cargo test",
        "xargs cat",
        "uv run cargo test",
        "pipenv run test",
        "poetry run cargo test",
        "mise exec node@20 -- cargo test",
        "git lfs pull",
        "git lfs ls-files",
        // Not recursive (`rm -r build` is denied by `rm -rf *`: round8 rm
        // residue, `-f` is implied without a terminal).
        "rm build.log",
    ];
    let mut wrong = Vec::new();
    for line in allowed {
        let got = verdict(line);
        if got != V::Allow {
            wrong.push(format!("{line}: {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "not allowed:\n{}", wrong.join("\n"));
}

/// Allow rules for every program of the corpus below, and deny rules for
/// one subcommand of each (round6 #1's settings, widened to the class).
fn corpus_rules() -> Rules {
    let mut list: Vec<Rule> = [
        "npm *",
        "npx *",
        "pnpm *",
        "yarn *",
        "bunx *",
        "git *",
        "cargo *",
        "pip *",
        "docker *",
        "kubectl *",
        "gh *",
        "env *",
        "timeout *",
        "sudo *",
        "xargs *",
        "find *",
        "nice *",
        "uv *",
    ]
    .iter()
    .map(|p| Rule::new(ActionKind::Shell, Effect::Allow, *p))
    .collect();
    for deny in [
        "npm publish*",
        "pnpm publish*",
        "yarn npm publish*",
        "git push*",
        "cargo publish*",
        "pip uninstall*",
        "docker push*",
        "kubectl delete*",
        "gh repo delete*",
    ] {
        list.push(Rule::new(ActionKind::Shell, Effect::Deny, deny));
    }
    let layer = RuleLayer::new(RuleSource::User, list).unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

/// The verdict under [`corpus_rules`], and its reason (for failure messages).
fn corpus_verdict(line: &str) -> (V, String) {
    let action = Action::shell("bash", line, &root());
    let d = Permission::assert(
        &action,
        &ConversationRules::new(),
        &corpus_rules(),
        &Approvals::new(),
    );
    let v = match d.verdict {
        Verdict::Allow => V::Allow,
        Verdict::Ask { .. } => V::Ask,
        Verdict::Deny => V::Deny,
    };
    (v, d.reason)
}

// proves: PERM-2 (round6 #1: a deny rule matches the command as the program
// dispatches it: `--` and global options before the subcommand do not hide
// it, through every launcher)
#[test]
fn separators_and_global_options_do_not_hide_a_denied_subcommand() {
    // (program, what may stand before the subcommand, the subcommand)
    let programs: [(&str, &[&str], &str); 9] = [
        (
            "npm",
            &[
                "--",
                "-ddd --",
                "--loglevel silent",
                "-q --",
                "--loglevel silent --",
            ],
            "publish",
        ),
        (
            "pnpm",
            &["--", "--filter x", "-C sub --", "--frob --"],
            "publish",
        ),
        ("yarn", &["--", "--cwd sub", "--cwd sub --"], "npm publish"),
        (
            "git",
            &["--", "-C .", "--no-pager", "-C . --"],
            "push origin main",
        ),
        ("cargo", &["--", "-q", "+nightly --", "-q --"], "publish"),
        ("pip", &["--", "--isolated", "-q --"], "uninstall -y x"),
        (
            "docker",
            &["--", "-H tcp://h", "--context c --", "--log-level debug"],
            "push img",
        ),
        (
            "kubectl",
            &["--", "--context prod", "-n ns --"],
            "delete pod x",
        ),
        ("gh", &["--"], "repo delete o/r"),
    ];
    let launchers = [
        "",
        "env ",
        "timeout 5 ",
        "sudo ",
        "sudo -u root -- ",
        "xargs ",
        "nice -n 5 ",
        "npx ",
        "npm exec -- ",
        "npm exec ",
        "npm -- exec ",
        "pnpm dlx ",
        "yarn dlx ",
        "bunx ",
        "uv run ",
    ];
    let mut wrong = Vec::new();
    let mut tried = 0;
    for (program, befores, sub) in programs {
        for before in befores {
            let command = format!("{program} {before} {sub}");
            let mut lines: Vec<String> =
                launchers.iter().map(|l| format!("{l}{command}")).collect();
            lines.push(format!("find . -exec {command} \\;"));
            for line in lines {
                tried += 1;
                let (got, why) = corpus_verdict(&line);
                if got != V::Deny {
                    wrong.push(format!("{line}: {got:?} ({why})"));
                }
            }
        }
    }
    assert!(tried > 400, "the corpus shrank: {tried}");
    assert!(wrong.is_empty(), "not denied:\n{}", wrong.join("\n"));
}

// proves: PERM-2 (twins of round6 #1: the same spellings of an allowed
// subcommand stay allowed)
#[test]
fn separators_before_an_allowed_subcommand_stay_allowed() {
    let allowed = [
        "npm -- install",
        "npm -q -- test",
        "pnpm -- install",
        "pnpm --filter x install",
        "git --no-pager -- status",
        "docker -H tcp://h ps",
        "kubectl --context prod get pods",
        "kubectl -n ns -- get pods",
        "gh pr --repo o/r list",
        "pip --isolated install x",
        "env npm -- install",
        "npx npm -- ci",
    ];
    let mut wrong = Vec::new();
    for line in allowed {
        let (got, why) = corpus_verdict(line);
        if got != V::Allow {
            wrong.push(format!("{line}: {got:?} ({why})"));
        }
    }
    assert!(wrong.is_empty(), "not allowed:\n{}", wrong.join("\n"));
}

/// round6 #10's settings: every wrapper allowed by name, `npm publish`
/// and `rm -rf` denied.
fn wrapper_rules() -> Rules {
    let mut list: Vec<Rule> = [
        "dotenv *",
        "op *",
        "xvfb-run *",
        "volta *",
        "fnm *",
        "asdf *",
        "pixi *",
        "devbox *",
        "gdb *",
        "valgrind *",
        "firejail *",
        "systemd-run *",
        "sg *",
        "proot *",
        "nsenter *",
        "corepack *",
        "deno *",
        "frobwrap *",
        "ssh *",
        "cargo *",
        "npx *",
        "echo *",
        "npm *",
    ]
    .iter()
    .map(|p| Rule::new(ActionKind::Shell, Effect::Allow, *p))
    .collect();
    for deny in ["npm publish*", "rm -rf *"] {
        list.push(Rule::new(ActionKind::Shell, Effect::Deny, deny));
    }
    let layer = RuleLayer::new(RuleSource::User, list).unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

fn wrapper_verdict(line: &str) -> (V, String) {
    let action = Action::shell("bash", line, &root());
    let d = Permission::assert(
        &action,
        &ConversationRules::new(),
        &wrapper_rules(),
        &Approvals::new(),
    );
    let v = match d.verdict {
        Verdict::Allow => V::Allow,
        Verdict::Ask { .. } => V::Ask,
        Verdict::Deny => V::Deny,
    };
    (v, d.reason)
}

// proves: PERM-2 (round6 #10: the everyday wrappers the attacker listed start
// a command judged on its own, so a deny rule on it denies)
#[test]
fn listed_wrappers_start_a_command_deny_rules_see() {
    let denied = [
        "dotenv -- npm publish",
        "dotenv -e .env.prod -- npm publish",
        "op run -- npm publish",
        "op run --env-file .env -- npm publish",
        "xvfb-run npm publish",
        "xvfb-run -a -s '-screen 0 1x1x8' npm publish",
        "volta run npm publish",
        "volta run --node 20 npm publish",
        "fnm exec -- npm publish",
        "fnm exec --using 20 npm publish",
        "asdf exec npm publish",
        "pixi run npm publish",
        "devbox run npm publish",
        "gdb --args npm publish",
        "gdb -q --args npm publish",
        "valgrind npm publish",
        "valgrind --tool=memcheck -q npm publish",
        "firejail npm publish",
        "firejail --noprofile npm publish",
        "systemd-run --user --wait npm publish",
        "systemd-run -p MemoryMax=1G npm publish",
        "sg staff -c 'npm publish'",
        "sg staff 'npm publish'",
        "proot -b /tmp npm publish",
        "nsenter -t 1 -m npm publish",
        "corepack npm publish",
        "corepack npm -- publish",
        "deno run npm:npm publish",
        "deno run -A npm:npm@10 publish",
        "npx npm@10 publish",
        "dotenv -- rm -rf build",
    ];
    let mut wrong = Vec::new();
    for line in denied {
        let (got, why) = wrapper_verdict(line);
        if got != V::Deny {
            wrong.push(format!("{line}: {got:?} ({why})"));
        }
    }
    assert!(wrong.is_empty(), "not denied:\n{}", wrong.join("\n"));
}

// proves: PERM-2 (round6 #10, the class: a program ploy has no entry for
// whose words hold a command a deny rule names asks instead of being allowed
// by its own allow rule; a wrapper running an allowed command stays allowed)
#[test]
fn an_unknown_wrapper_around_a_denied_command_asks() {
    let asked = [
        "frobwrap npm publish",
        "frobwrap --flag x -- npm -- publish",
        "frobwrap /usr/bin/npm pub",
        "frobwrap rm -rf build",
        "ssh host npm publish",
        "cargo run -- rm -rf build",
        "gdb -ex 'shell npm publish' x",
    ];
    let mut wrong = Vec::new();
    for line in asked {
        let (got, why) = wrapper_verdict(line);
        if got != V::Ask {
            wrong.push(format!("{line}: {got:?} ({why})"));
        }
    }
    assert!(wrong.is_empty(), "not asked:\n{}", wrong.join("\n"));
    let (_, why) = wrapper_verdict("frobwrap npm publish");
    assert!(
        why.contains("among its words") && why.contains("npm publish"),
        "{why}"
    );
    let allowed = [
        "frobwrap cargo test",
        "frobwrap npm install",
        "dotenv -- cargo test",
        "xvfb-run -a cargo test",
        "corepack enable",
        "deno run main.ts",
        "pixi run test",
        "echo npm publish",
        "npm install 'npm publish'",
    ];
    let mut wrong = Vec::new();
    for line in allowed {
        let (got, why) = wrapper_verdict(line);
        if got != V::Allow {
            wrong.push(format!("{line}: {got:?} ({why})"));
        }
    }
    assert!(wrong.is_empty(), "not allowed:\n{}", wrong.join("\n"));
}
