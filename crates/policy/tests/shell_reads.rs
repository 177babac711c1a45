//! The read side of the shell judge: the read rules (the built-in `read ask`
//! for `.env`, `*.pem`, …) hold for a command line as they hold for the
//! `read` tool. Outside attack on the agent #2: with `cat *` and `grep *`
//! allowed, `cat .env` and `grep -r = .` returned the file to the model.

#![allow(clippy::unwrap_used)] // tests: a panic is a test failure

use ploy_policy::{
    Action, ActionKind, Approvals, ConversationRules, Effect, GuardedFile, Permission, ProjectRoot,
    ProjectTrust, Rule, RuleLayer, RuleSource, Rules, ShellFacts, Verdict,
};

fn root() -> ProjectRoot {
    ProjectRoot::new("/home/dev/proj").unwrap()
}

/// Every command allowed by a user rule, every edit too: what still asks
/// was caught by the read set.
fn every_command_allowed() -> Rules {
    let layer = RuleLayer::new(
        RuleSource::User,
        vec![
            Rule::new(ActionKind::Shell, Effect::Allow, "*"),
            Rule::new(ActionKind::Edit, Effect::Allow, "**"),
        ],
    )
    .unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

fn guarded() -> Option<Vec<GuardedFile>> {
    Some(
        [".env", "config/.env.local", "certs/server.pem"]
            .iter()
            .map(|p| GuardedFile {
                location: p.to_string(),
                judged: p.to_string(),
            })
            .collect(),
    )
}

fn judged(line: &str, list: &dyn Fn() -> Option<Vec<GuardedFile>>) -> Action {
    Action::shell_judged(
        "shell",
        line,
        &root(),
        ShellFacts {
            resolve: None,
            guarded: list,
            protected_by_shape: None,
            protected_below: None,
        },
    )
}

fn verdict(action: &Action, rules: &Rules) -> Verdict {
    Permission::assert(action, &ConversationRules::new(), rules, &Approvals::new()).verdict
}

// proves: PERM-1
// proves: PERM-2
#[test]
fn shell_reads_of_secret_files_ask_like_the_read_tool() {
    let rules = every_command_allowed();
    let bypasses = [
        "cat .env",
        "cat ./.env",
        "cat src/../.env",
        "cat /home/dev/proj/.env",
        "head -n 5 .env",
        "tail -c 100 .env",
        "less .env",
        "nl .env",
        "sed -n p .env",
        "awk '{print}' .env",
        "base64 .env",
        "xxd .env",
        "od -c .env",
        "strings .env",
        "cut -d= -f2 .env",
        "sort .env",
        "diff .env /dev/null",
        "jq . config/.env.local",
        "dd if=.env",
        "cat < .env",
        "while read l; do echo $l; done < .env",
        "cp .env notes.txt",
        "mv .env notes.txt",
        "ln -s .env notes.txt",
        "tar -cf - . | base64",
        "zip -r out.zip .",
        "cat .e*",
        "cat .en?",
        "cat [.]env",
        "cat config/.env.*",
        "cat c*/.env.local",
        "cat */.env.local",
        "grep -r = .",
        "grep -rn PASSWORD",
        "grep -R -A 3 KEY",
        "grep -r KEY config",
        "grep KEY .env",
        "grep --include=.env -r KEY .",
        "grep -r KEY *",
        "rg KEY",
        "rg -uu KEY",
        "rg -g .env KEY .",
        "ag KEY",
        "cat {.env,x}",
        "cat $(echo .env)",
        "cat \"$F\"",
        "echo $(cat .env)",
        "cat <(cat .env)",
        "sh -c 'cat .env'",
        "bash -c \"grep -r = .\"",
        "eval cat .env",
        "env cat .env",
        "timeout 5 cat .env",
        "nice -n 5 head .env",
        "ls | xargs cat",
        "echo .env | xargs cat",
        "find . -name '.env*' -exec cat {} \\;",
        "find . -type f | xargs grep KEY",
        "source .env",
        ". ./.env",
        "bash script.sh",
        "python3 -c 'print(open(\".env\").read())'",
        "node -e 'require(\"fs\").readFileSync(\".env\")'",
        "cargo test",
        "make",
        "./run.sh",
        "git show HEAD:.env",
        "git diff",
        "git log -p",
        "cat certs/server.pem",
        "openssl x509 -in certs/server.pem",
        "cd config && cat .env.local",
        "cd config && grep -r x .",
        "cat ~/.ssh/id_rsa",
    ];
    let mut failures = Vec::new();
    for line in bypasses {
        let action = judged(line, &guarded);
        if !matches!(verdict(&action, &rules), Verdict::Ask { .. }) {
            failures.push(format!("{line}: {:?}", action.units()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} lines read a guarded file without asking:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// proves: PERM-2 (the read set is narrow: ordinary commands still run)
#[test]
fn commands_that_read_no_guarded_file_stay_allowed() {
    let rules = every_command_allowed();
    for line in [
        "cat src/main.rs",
        "cat *",
        "cat src/*.rs",
        "grep -r KEY src",
        "grep KEY README.md",
        "rg KEY src",
        "ls -la",
        "ls .env",
        "echo hi > notes.txt",
        "git status",
        "git log --oneline",
        "find . -name '*.rs'",
        "tar -cf out.tar src",
        "cp src/a.rs src/b.rs",
        "wc -l src/*.rs",
        "mkdir -p build && touch build/x",
    ] {
        let action = judged(line, &guarded);
        assert_eq!(
            verdict(&action, &rules),
            Verdict::Allow,
            "{line}: {:?}",
            action.units()
        );
    }
    // A project with no guarded file: programs ploy does not know run.
    let none = || Some(Vec::new());
    for line in ["cargo test", "make", "python3 x.py", "grep -r = ."] {
        assert_eq!(
            verdict(&judged(line, &none), &rules),
            Verdict::Allow,
            "{line}"
        );
    }
}

// proves: PERM-2 (a user rule that allows reading the file is honoured)
#[test]
fn a_read_allow_rule_for_the_file_lets_the_command_run() {
    let layer = RuleLayer::new(
        RuleSource::User,
        vec![
            Rule::new(ActionKind::Shell, Effect::Allow, "cat *"),
            Rule::new(ActionKind::Read, Effect::Allow, ".env"),
        ],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(layer, ProjectTrust::Untrusted);
    assert_eq!(
        verdict(&judged("cat .env", &guarded), &rules),
        Verdict::Allow
    );
    // A read deny rule denies the command.
    let layer = RuleLayer::new(
        RuleSource::User,
        vec![
            Rule::new(ActionKind::Shell, Effect::Allow, "*"),
            Rule::new(ActionKind::Read, Effect::Deny, "**/*.pem"),
        ],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(layer, ProjectTrust::Untrusted);
    assert_eq!(
        verdict(&judged("grep -r BEGIN certs", &guarded), &rules),
        Verdict::Deny
    );
}

// proves: PERM-1 (fail closed: no list of guarded files, no allow)
#[test]
fn an_unknown_read_set_without_a_file_list_asks() {
    let rules = every_command_allowed();
    let unlisted = || None;
    for line in ["cargo test", "grep -r x .", "cat *", "xargs cat"] {
        let action = judged(line, &unlisted);
        assert!(
            matches!(verdict(&action, &rules), Verdict::Ask { .. }),
            "{line}: {:?}",
            action.units()
        );
    }
    // A line that names what it reads does not need the list.
    assert_eq!(
        verdict(&judged("cat src/main.rs", &unlisted), &rules),
        Verdict::Allow
    );
}
