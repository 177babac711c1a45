//! PERM-7: ploy's own files and other agents' resources are never written on
//! an allow rule or a saved approval. Every row goes through the real
//! `Permission::assert` with an allow rule on `**` for edits (and `*` for
//! commands, `**` outside the project), an exact "always" approval of the
//! very call and pattern approvals on `**`: a protected write still asks,
//! never offers "always", and is refused where nobody can answer. Control
//! rows show the same setup allows ordinary writes, so the test can fail.

#![allow(clippy::unwrap_used)] // tests: a panic is a test failure

use std::path::Path;

use ploy_policy::{
    Action, ActionKind, Approval, ApprovalScope, Approvals, AskOption, Basis, ConversationRules,
    Effect, GitHooks, Grant, Permission, PloyFolders, ProjectRoot, ProjectTrust, ProtectedPaths,
    Rule, RuleLayer, RuleSource, Rules, TaintSource, Verdict,
};

const PROJECT: &str = "/home/dev/proj";

fn folders() -> PloyFolders {
    PloyFolders {
        config_dir: Some("/home/dev/.config/ploy".into()),
        state_dir: Some("/home/dev/.local/state/ploy".into()),
        trust_file: Some("/home/dev/.config/ploy/trust.json".into()),
        home: Some("/home/dev".into()),
    }
}

fn root() -> ProjectRoot {
    ProjectRoot::new(PROJECT)
        .unwrap()
        .with_ploy_folders(&folders())
}

/// Allow everything a rule can allow.
fn allow_everything() -> Rules {
    let layer = RuleLayer::new(
        RuleSource::User,
        vec![
            Rule::new(ActionKind::Edit, Effect::Allow, "**"),
            Rule::new(ActionKind::Shell, Effect::Allow, "*"),
            Rule::new(ActionKind::ExternalDirectory, Effect::Allow, "**"),
        ],
    )
    .unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

/// An exact "always" approval of this very call, and pattern approvals on
/// `**` / `*` for every kind it has.
fn approve_everything(action: &Action) -> Approvals {
    let mut approvals = Approvals::new();
    approvals
        .grant(Approval {
            scope: ApprovalScope::Always,
            grant: Grant::ExactAction {
                tool: action.tool().to_string(),
                target: action.target().as_str().to_string(),
                kinds: action.kinds(),
            },
        })
        .unwrap();
    for (kind, pattern) in [
        (ActionKind::Edit, "**"),
        (ActionKind::Shell, "*"),
        (ActionKind::ExternalDirectory, "**"),
    ] {
        approvals
            .grant(Approval {
                scope: ApprovalScope::Always,
                grant: Grant::Pattern {
                    kind,
                    pattern: pattern.into(),
                },
            })
            .unwrap();
    }
    approvals
}

/// Check one action that must be protected; returns a failure text or None.
fn check_protected(label: &str, action: &Action) -> Option<String> {
    let conversation = ConversationRules::new();
    let rules = allow_everything();
    let approvals = approve_everything(action);
    let d = Permission::assert(action, &conversation, &rules, &approvals);
    let wrong = |what: &str| {
        Some(format!(
            "{label:?}: {what}; decision {d:?}; units {:?}",
            action.units()
        ))
    };
    if d.verdict
        != (Verdict::Ask {
            options: vec![AskOption::Once, AskOption::Reject],
        })
    {
        return wrong("want Ask [once, reject]");
    }
    if d.requirement != "PERM-7" || !matches!(d.basis, Basis::ProtectedPath { .. }) {
        return wrong("want PERM-7 / ProtectedPath");
    }
    // Nobody to answer: refused, naming PERM-7.
    match d.clone().without_user(action) {
        Err(refusal) if refusal.requirement == "PERM-7" => {}
        other => {
            return wrong(&format!(
                "without a user want a PERM-7 refusal, got {other:?}"
            ));
        }
    }
    // "always" cannot be saved from this prompt.
    let mut saved = Approvals::new();
    if saved.record_answer(action, &d, AskOption::Always).is_ok() {
        return wrong("`always` was saved");
    }
    None
}

fn check_allowed(label: &str, action: &Action) -> Option<String> {
    let d = Permission::assert(
        action,
        &ConversationRules::new(),
        &allow_everything(),
        &Approvals::new(),
    );
    (!d.is_allow()).then(|| {
        format!(
            "{label:?}: control row must be allowed; decision {d:?}; units {:?}",
            action.units()
        )
    })
}

/// Paths that are protected, in every form the list must see through.
const PROTECTED: &[&str] = &[
    // ploy's project folder; the folder itself, trailing and repeated slashes, `.` and `..`
    ".ploy/settings.json",
    ".ploy",
    ".ploy/",
    "./.ploy//settings.json",
    "src/../.ploy/extensions/x.json",
    "src/./../.ploy/plan.json",
    // git's configuration and hooks
    ".git/config",
    ".git//config",
    ".git/./config",
    ".git/config/",
    ".git/hooks/pre-commit",
    ".git/hooks",
    ".git/hooks/",
    ".git/hooks/../hooks/post-checkout",
    ".git/modules/sub/hooks/post-checkout",
    ".git/modules/sub/config",
    ".git/worktrees/w/config.worktree",
    // git's pointer files (where git finds the config and hooks it uses)
    ".git/commondir",
    ".GIT/CommonDir",
    ".git/worktrees/w/commondir",
    ".git/worktrees/w/gitdir",
    ".git/modules/sub/gitdir",
    "vendor/lib/.git/hooks/pre-commit",
    ".git",
    ".git/",
    // everything else inside a git folder (tui-rpc #8 side note: the write
    // tool rewrote these under `edit allow **`)
    ".git/HEAD",
    ".git/index",
    ".git/packed-refs",
    ".git/refs/heads/main",
    ".git/refs/remotes/origin/main",
    ".git/refs/tags/v1",
    ".git/objects/info/alternates",
    ".git/objects/ab/cdef",
    ".git/info/exclude",
    ".git/info/attributes",
    ".git/info/sparse-checkout",
    ".git/FETCH_HEAD",
    ".git/ORIG_HEAD",
    ".git/worktrees/w/HEAD",
    ".git/worktrees/w/index",
    ".git/modules/sub/HEAD",
    ".git/modules/sub/refs/heads/main",
    "vendor/lib/.git/refs/heads/main",
    "/home/dev/proj/.git/info/exclude",
    ".GIT/Refs/Heads/main",
    // a worktree's or submodule's `.git` file (its `gitdir:` pointer)
    "wt/.git",
    "vendor/sub/.git",
    // case variations (case-insensitive filesystems) and Windows name forms
    ".GIT/Hooks/pre-commit",
    ".Git/CONFIG",
    ".CLAUDE/settings.local.json",
    ".VSCode/settings.json",
    ".MCP.JSON",
    ".EnvRC",
    ".git/hoo\u{212A}s/x",
    ".v\u{17F}code/tasks.json",
    ".claude./settings.json",
    ".git::$INDEX_ALLOCATION/hooks/x",
    // other agents' resources
    ".claude/settings.json",
    ".claude/commands/x.md",
    ".pi/settings.json",
    ".codex/config.toml",
    ".vscode/tasks.json",
    ".agents/skills/x/SKILL.md",
    ".mcp.json",
    ".envrc",
    "sub/dir/.envrc",
    // git hook managers: husky's folder, the lists the installed hook runs
    ".husky/pre-commit",
    ".husky/_/husky.sh",
    "web/.husky/pre-push",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    ".overcommit.yml",
    ".lintstagedrc.json",
    // round8 #3: lefthook's other names and formats and its script
    // folders, lint-staged's other extensions, husky 4, commitlint, and
    // start-up files interpreters read from the current folder
    "lefthook.toml",
    ".lefthook.json",
    ".config/lefthook.toml",
    "lefthook.jsonc",
    "lefthook-local.json",
    ".lefthook-local.toml",
    ".lefthook/pre-commit/check.sh",
    ".lefthook-local/pre-commit/x.sh",
    "lint-staged.config.mjs",
    ".huskyrc",
    ".huskyrc.json",
    "commitlint.config.js",
    ".commitlintrc.js",
    ".pdbrc",
    "sub/.pdbrc",
    ".Rprofile",
    ".ghci",
    ".pryrc",
    ".rvmrc",
    // configuration other tools run programs from later, outside any
    // sandbox (secrets5 #14, proof5 #5)
    ".cargo/config.toml",
    ".cargo/config",
    "sub/crate/.cargo/config.toml",
    ".CARGO/Config.toml",
    ".yarnrc.yml",
    ".yarnrc",
    ".npmrc",
    "web/.npmrc",
    ".pnpmfile.cjs",
    "bunfig.toml",
    "mise.toml",
    ".mise.toml",
    ".mise/config.toml",
    ".config/mise.toml",
    ".config/mise/config.toml",
    ".hg/hgrc",
    ".hg",
    ".hgrc",
    ".jj/repo/config.toml",
    ".devcontainer/devcontainer.json",
    ".devcontainer.json",
    ".idea/workspace.xml",
    ".opencode/plugin/x.ts",
    "opencode.json",
    "opencode.jsonc",
    ".gemini/settings.json",
    ".cursor/mcp.json",
    ".cursor/rules/x.mdc",
    ".continue/config.json",
    ".zed/settings.json",
    ".amazonq/mcp.json",
    ".kiro/settings/mcp.json",
    ".roo/mcp.json",
    ".windsurf/rules/x.md",
    ".theia/tasks.json",
    ".fleet/run.json",
    ".aider.conf.yml",
    ".githooks/pre-commit",
    // round6 #9: what a tool runs on the next ordinary command
    ".yarn/releases/yarn-4.1.0.cjs",
    ".yarn/plugins/x.cjs",
    ".yarn/plugins/@yarnpkg/plugin-x.cjs",
    ".yarn/sdks/typescript/lib/tsserver.js",
    "web/.yarn/releases/yarn.cjs",
    ".pnp.cjs",
    ".pnp.loader.mjs",
    ".config/mise/conf.d/x.toml",
    ".mvn/extensions.xml",
    ".mvn/jvm.config",
    ".mvn/maven.config",
    ".mvn/wrapper/maven-wrapper.properties",
    ".venv/bin/activate",
    ".venv/bin/activate.fish",
    ".venv/bin/python",
    ".venv/pyvenv.cfg",
    "venv/bin/activate",
    "gradle/wrapper/gradle-wrapper.properties",
    "gradle/wrapper/gradle-wrapper.jar",
    "gradlew",
    "mvnw",
    "rust-toolchain.toml",
    "rust-toolchain",
    "sub/crate/rust-toolchain.toml",
    ".tool-versions",
    ".bazelrc",
    ".jvmopts",
    ".nvim.lua",
    ".exrc",
    ".bundle/config",
    "mise/config.toml",
    ".git-hooks/pre-push",
    // absolute forms
    "/home/dev/proj/.claude/settings.json",
    "/home/dev/proj/src/../.git/hooks/x",
    "//home//dev/proj/.mcp.json",
    "/home/dev/other/.vscode/tasks.json",
    "~/.claude/settings.json",
    // ploy's config and state folders and the trust file
    "/home/dev/.config/ploy/settings.json",
    "/home/dev/.config/ploy",
    "/home/dev/.config/ploy/",
    "/home/dev/.CONFIG/Ploy/settings.json",
    "~/.config/ploy/trust.json",
    "~/.config/./ploy/../ploy/skills/x/SKILL.md",
    "~other/.config/ploy/settings.json",
    "/home/dev/.local/state/ploy/ploy.db",
    "../.local/state/ploy/ploy.db",
    // a folder that holds ploy's folders
    "/home/dev/.config",
];

/// Ordinary paths: allowed by the same rules.
const ORDINARY: &[&str] = &[
    "src/main.rs",
    "lefthook.md",
    "docs/pdbrc.md",
    "lefthook/x.toml",
    "README.md",
    ".gitignore",
    ".github/workflows/ci.yml",
    "commondir",
    "src/gitdir",
    "config",
    "hooks/pre-commit",
    "src/config",
    ".claudex/x",
    ".envrc.example",
    ".pi-config/x",
    ".vscode-test/x",
    ".pre-commit-hooks.yaml",
    "husky/x",
    "/home/dev/.config/other/x",
    // near names of the configuration above
    "cargo/config.toml",
    ".cargo/credentials.toml",
    "config.toml",
    "src/config",
    "npmrc",
    ".npmrc.example",
    "yarnrc.yml",
    "pnpmfile.cjs",
    "mise.toml.example",
    ".config/other.toml",
    "opencode.md",
    ".cursorignore",
    "idea/x",
    "hg/hgrc",
    "/home/dev/notes.txt",
    "/tmp/out.txt",
    // near names of round6 #9's list
    ".yarn/cache/x.zip",
    ".yarn/install-state.gz",
    "yarn/releases/x.cjs",
    ".pnp.data.json.example",
    "venv2/bin/x",
    ".venv/lib/x.py",
    "src/gradle.rs",
    "gradle.properties",
    "mvn/x",
    "rust-toolchain.md",
];

// proves: PERM-7
#[test]
fn edits_of_protected_paths_always_ask_whatever_the_rules_and_approvals() {
    let r = root();
    let mut failures = Vec::new();
    for path in PROTECTED {
        failures.extend(check_protected(path, &Action::edit("write", path, &r)));
        failures.extend(check_protected(
            path,
            &Action::media_write("image", path, &r),
        ));
    }
    for path in ORDINARY {
        failures.extend(check_allowed(path, &Action::edit("write", path, &r)));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// proves: PERM-7
#[test]
fn reading_a_protected_path_is_not_an_edit() {
    let r = root();
    // (`.envrc` is protected too, but reading it asks: it is a secret file,
    // secrets5 #1.)
    for path in [".git/config", ".claude/settings.json", ".mcp.json"] {
        let d = Permission::assert(
            &Action::read("read", path, &r),
            &ConversationRules::new(),
            &allow_everything(),
            &Approvals::new(),
        );
        assert!(d.is_allow(), "{path}: {d:?}");
    }
}

/// Shell lines that write a protected path: redirect targets, arguments of
/// programs that may write, `cd` first, globs, computed targets, wrappers,
/// strings run by `sh -c`.
const PROTECTED_LINES: &[&str] = &[
    "echo x > .claude/settings.json",
    "echo x >> .git/hooks/pre-commit",
    "echo x > .GIT/hooks/pre-commit",
    "cat a > ./.git//config",
    "printf x > src/../.envrc",
    "echo x 2> .mcp.json",
    "echo x &> .vscode/tasks.json",
    "echo x >| .codex/config.toml",
    "echo x > /home/dev/proj/.pi/settings.json",
    "echo x > ~/.claude/settings.json",
    "echo x > /home/dev/.config/ploy/settings.json",
    "echo '{}' > ~/.config/ploy/trust.json",
    "echo x > $HOME/.claude/settings.json",
    "echo x > \"$f\"",
    "tee .claude/settings.json < x",
    "tee -a .git/config",
    "cp evil .git/hooks/pre-commit",
    "echo 'npx evil' > .husky/pre-commit",
    "cp evil .pre-commit-config.yaml",
    "cp x src/*",
    "cp evil .git/hooks/",
    "mv x .ploy/settings.json",
    "ln -s ../evil .git/hooks/pre-commit",
    "rm -rf .claude",
    "touch .envrc",
    "install -m755 x .git/hooks/post-checkout",
    "cp -r hooks .git/",
    "tar -C .git -xf evil.tar",
    "tar -xf evil.tar -C.claude",
    "sed -i s/a/b/ .git/config",
    "dd if=x of=.git/hooks/pre-push",
    "cp x --target-directory=.claude",
    "python3 gen.py --out=.vscode/tasks.json",
    "make DESTDIR=.claude install",
    "DESTDIR=.codex make install",
    "git config core.hooksPath /tmp/h",
    "git config --global alias.x '!sh'",
    "git -C sub config core.fsmonitor evil",
    "cd .git && echo x > config",
    "cd .git/hooks; echo x > pre-commit",
    "cd .git; cd hooks; cp /tmp/x pre-commit",
    "cd src && cd ../.claude && echo x > settings.json",
    "cd && echo x > .bashrc",
    "cd \"$d\" && echo x > out",
    "popd && echo x > out",
    "cp x .cl*/settings.json",
    "echo x > .g?t/hooks/pre-commit",
    "cp x .git/h*/pre-commit",
    "cp x .git/*/pre-commit",
    "echo /tmp/evil/.git > .git/commondir",
    "cp x .git/common*",
    "printf %s ../../elsewhere > .git/worktrees/w/gitdir",
    // the rest of a git folder (tui-rpc #8 side note)
    "echo 'ref: refs/heads/evil' > .git/HEAD",
    "cp /tmp/index .git/index",
    "echo 'abc refs/heads/main' >> .git/packed-refs",
    "echo abc > .git/refs/heads/main",
    "echo /tmp/objects > .git/objects/info/alternates",
    "echo '* filter=evil' > .git/info/attributes",
    "echo 'gitdir: /tmp/evil' > wt/.git",
    "echo x > .[c]laude/settings.json",
    "shopt -s dotglob; cp -r template/* .",
    "sudo tee .git/config",
    "env -C .git sh -c 'echo x > config'",
    "bash -c 'echo x > .claude/settings.json'",
    "eval 'echo x > .mcp.json'",
    "find . -name x -exec cp {} .claude/ \\;",
    "find . -name '*.sh' -fprint .envrc",
    "(cd .git/hooks && cat ../../x > pre-commit)",
    "for f in a b; do rm $f; done",
    "xargs -I{} cp {} .vscode/ < list",
    "rsync -a template/ .claude/",
    "git checkout -- .claude/settings.json",
    "git restore .mcp.json",
    // round6 #9, as the attacker sent them
    "sed -n 'w .yarn/releases/yarn.cjs' evil.sh",
    "sed -n 'w .yarn/plugins/x.cjs' evil.sh",
    "sed -n 'w .pnp.cjs' evil.sh",
    "sed -n 'w .config/mise/conf.d/x.toml' evil.sh",
    "sed -n 'w .mvn/extensions.xml' evil.sh",
    "sed -n 'w .mvn/jvm.config' evil.sh",
    "sed -n 'w .venv/bin/activate' evil.sh",
    "cp evil.cjs .yarn/releases/",
    "echo 'path = \"/tmp/t\"' >> rust-toolchain.toml",
];

/// Lines that write nothing protected (or only read protected paths).
const ORDINARY_LINES: &[&str] = &[
    "echo x > out.txt",
    "cargo test --all > test.log 2>&1",
    "cat .git/config",
    "cat .claude/settings.json",
    "grep -r hooks .git/hooks",
    "ls -la .git/hooks",
    "git log -- .claude",
    "git diff .mcp.json",
    "git status",
    "git add .claude/settings.json",
    "git config --get user.name",
    "git config --list",
    "find . -name '*.rs'",
    "rm *.o",
    // (`cp x src/*` asks now: `*` may name `src/lefthook.yml`, a hook list)
    "cp x src/*.md",
    "cd src && echo x > out.txt",
    "echo x > /dev/null",
    "cp a b",
    "head -n 3 .mcp.json",
];

// proves: PERM-7, PERM-1
#[test]
fn shell_writes_to_protected_paths_always_ask() {
    let r = root();
    let mut failures = Vec::new();
    for line in PROTECTED_LINES {
        let action = Action::shell("bash", line, &r);
        if !action.kinds().contains(ActionKind::Edit) {
            failures.push(format!(
                "{line:?}: not classified as an edit: {:?}",
                action.kinds()
            ));
        }
        failures.extend(check_protected(line, &action));
    }
    for line in ORDINARY_LINES {
        failures.extend(check_allowed(line, &Action::shell("bash", line, &r)));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// proves: PERM-7, PERM-2
#[test]
fn a_deny_rule_still_denies_a_protected_write() {
    let r = root();
    let layer = RuleLayer::new(
        RuleSource::User,
        vec![
            Rule::new(ActionKind::Edit, Effect::Deny, ".claude/**"),
            Rule::new(ActionKind::Shell, Effect::Deny, "cp *"),
        ],
    )
    .unwrap();
    let rules = allow_everything().with_layer(layer, ProjectTrust::Untrusted);
    for action in [
        Action::edit("write", ".claude/settings.json", &r),
        Action::shell("bash", "echo x > .claude/settings.json", &r),
        Action::shell("bash", "cp x .git/hooks/pre-commit", &r),
    ] {
        let d = Permission::assert(
            &action,
            &ConversationRules::new(),
            &rules,
            &approve_everything(&action),
        );
        assert!(d.is_deny(), "{:?}: {d:?}", action.target());
    }
}

// proves: PERM-7, PERM-3
#[test]
fn in_a_tainted_conversation_the_protected_reason_names_the_page_too() {
    let r = root();
    let mut conversation = ConversationRules::new();
    conversation.mark_tainted(
        "page read",
        TaintSource::Url("https://evil.example/".into()),
    );
    let action = Action::edit("write", ".git/hooks/pre-commit", &r);
    let d = Permission::assert(
        &action,
        &conversation,
        &allow_everything(),
        &approve_everything(&action),
    );
    assert_eq!(d.requirement, "PERM-7");
    assert_eq!(d.options(), [AskOption::Once, AskOption::Reject]);
    assert!(d.reason.contains("git hook"), "{}", d.reason);
    assert!(d.reason.contains("https://evil.example/"), "{}", d.reason);
}

// proves: PERM-7
#[test]
fn the_plan_file_exception_is_the_plan_action_only() {
    let r = root();
    let rules = allow_everything();
    // The plan tool's own action: an edit of the fixed plan path, allowed by rules.
    let plan = Action::plan_file("plan", &r);
    assert!(plan.kinds().contains(ActionKind::Edit));
    assert_eq!(plan.target().as_str(), ".ploy/plan.json");
    let d = Permission::assert(&plan, &ConversationRules::new(), &rules, &Approvals::new());
    assert!(d.is_allow(), "{d:?}");
    // Still an edit: a tainted conversation asks (PERM-3), a deny denies.
    let mut tainted = ConversationRules::new();
    tainted.mark_tainted("page", TaintSource::Tool("web_fetch".into()));
    assert!(Permission::assert(&plan, &tainted, &rules, &Approvals::new()).is_ask());
    // Any other way of writing the same path is protected.
    for action in [
        Action::edit("plan", ".ploy/plan.json", &r),
        Action::edit("write", "./.ploy/plan.json", &r),
        Action::shell("bash", "echo '{}' > .ploy/plan.json", &r),
        Action::shell("bash", "cp evil.json .ploy/plan.json", &r),
    ] {
        assert!(
            check_protected(action.target().as_str(), &action).is_none(),
            "{action:?}"
        );
    }
}

/// What a caller that can look at the filesystem passes as the resolved path.
fn resolve_existing(base: &Path, written: &str) -> Option<String> {
    ploy_dirs::resolve_links(base, written).map(|p| p.to_string_lossy().into_owned())
}

// proves: PERM-7
#[test]
fn a_symbolic_link_into_a_protected_folder_is_protected_once_resolved() {
    let dir = std::env::temp_dir().join(format!("ploy-perm7-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let project = dir.join("proj");
    std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(project.join("docs")).unwrap();
    std::os::unix::fs::symlink("../.git/hooks", project.join("docs/hooks-link")).unwrap();
    std::os::unix::fs::symlink("../.claude/settings.json", project.join("docs/settings")).unwrap();
    let project = std::fs::canonicalize(&project).unwrap();
    let r = ProjectRoot::new(&project).unwrap();
    let written = "docs/hooks-link/pre-commit";

    // Lexical building cannot see the link (documented): the rules decide.
    let lexical = Action::edit("write", written, &r);
    assert!(lexical.units().iter().all(|u| u.protected.is_none()));
    assert!(check_allowed(written, &lexical).is_none());

    // The caller resolves what exists: the resolved form is protected.
    let resolved = resolve_existing(&project, written).unwrap();
    assert!(resolved.ends_with(".git/hooks/pre-commit"), "{resolved}");
    let action = Action::edit_resolved("write", written, &resolved, &r);
    assert_eq!(action.target().as_str(), written);
    assert!(
        check_protected(written, &action).is_none(),
        "{:?}",
        check_protected(written, &action)
    );
    // A link to a file that does not exist yet (`.claude/settings.json`).
    let resolved = resolve_existing(&project, "docs/settings").unwrap();
    let action = Action::edit_resolved("write", "docs/settings", &resolved, &r);
    assert!(
        check_protected("docs/settings", &action).is_none(),
        "{resolved}"
    );

    // The shell: the same resolver, for redirect targets and arguments.
    let resolver = |p: &str| resolve_existing(&project, p);
    for line in [
        "echo x > docs/hooks-link/pre-commit",
        "cp evil docs/hooks-link/pre-commit",
        "cd docs && echo x > hooks-link/pre-commit",
    ] {
        let plain = Action::shell("bash", line, &r);
        assert!(
            check_allowed(line, &plain).is_none(),
            "{line}: lexical is allowed (documented)"
        );
        let action = Action::shell_resolved("bash", line, &r, &resolver);
        assert!(
            check_protected(line, &action).is_none(),
            "{:?}",
            check_protected(line, &action)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// proves: PERM-7
#[test]
fn the_one_function_answers_for_the_sandbox_and_the_hook() {
    let list = ProtectedPaths::new(Path::new(PROJECT), &folders());
    assert!(list.protects(".git/hooks/pre-commit").is_some());
    assert!(list.protects("/home/dev/proj/.GIT/config").is_some());
    assert!(list.protects("/home/dev/.local/state/ploy").is_some());
    assert!(list.protects("src/lib.rs").is_none());
    assert!(
        list.protects("/home/dev").is_none(),
        "the home folder itself"
    );
    assert!(list.protects(PROJECT).is_none(), "the project root itself");
    assert!(list.protects("/").is_none());
    let hit = list.protects(".claude/settings.json").unwrap();
    assert_eq!(hit.path, "/home/dev/proj/.claude/settings.json");
    assert!(hit.to_string().contains("Claude Code"), "{hit}");
    // Without ploy's folders, only the names.
    let names = ProtectedPaths::names_only(Path::new(PROJECT));
    assert!(
        names
            .protects("/home/dev/.config/ploy/settings.json")
            .is_none()
    );
    assert!(names.protects(".mcp.json").is_some());
}

// proves: PERM-7 (found attacking the sandbox: a linked worktree's
// `.git/commondir` pointed at a folder holding a planted `config` makes the
// host's next `git status` run its `core.fsmonitor`)
#[test]
fn git_pointer_files_are_protected_like_git_config() {
    let list = ProtectedPaths::new(Path::new(PROJECT), &folders());
    for path in [
        ".git/commondir",
        "/home/dev/proj/.git/worktrees/w/commondir",
        ".git/worktrees/w/gitdir",
        "vendor/sub/.git/modules/x/gitdir",
    ] {
        let hit = list
            .protects(path)
            .unwrap_or_else(|| panic!("{path} must be protected"));
        assert!(hit.what.contains("pointer file"), "{path}: {hit}");
    }
    // Only below a `.git` folder: a project file named so is ordinary.
    for path in ["commondir", "docs/gitdir", ".github/commondir"] {
        assert!(list.protects(path).is_none(), "{path}");
    }
    // Through the real assert: an allow rule on `**` and an "always"
    // approval of the write do not let it through; nobody to ask → refused.
    let r = root();
    let action = Action::edit("write", ".git/commondir", &r);
    assert_eq!(check_protected("commondir", &action), None);
    let line = Action::shell("bash", "echo /tmp/evil/.git > .git/commondir", &r);
    assert_eq!(check_protected("commondir line", &line), None);
}

// proves: PERM-1 (a decision names the kinds it asks about)
#[test]
fn asked_kinds_are_what_no_rule_allowed() {
    let r = root();
    let layer = RuleLayer::new(
        RuleSource::User,
        vec![Rule::new(ActionKind::Shell, Effect::Allow, "*")],
    )
    .unwrap();
    let rules = Rules::builtin().with_layer(layer, ProjectTrust::Untrusted);
    let conversation = ConversationRules::new();
    let kinds = |line: &str| {
        let action = Action::shell("bash", line, &r);
        Permission::assert(&action, &conversation, &rules, &Approvals::new()).asked_kinds
    };
    let asked = kinds("echo x > ../out");
    assert!(asked.contains(ActionKind::Edit) && asked.contains(ActionKind::ExternalDirectory));
    assert!(!asked.contains(ActionKind::Shell), "{asked}");
    assert!(kinds("cargo test").is_empty(), "allowed: nothing asked");
    let protected = kinds("echo x > .git/hooks/pre-commit");
    assert_eq!(protected.iter().collect::<Vec<_>>(), vec![ActionKind::Edit]);
}

// proves: PERM-7 (outside attack agent #4, sandbox #15: `git config
// core.hooksPath .husky` is husky's set-up; a write of the hooks folder's
// `pre-commit` was allowed under `edit **` and the user's next commit ran it)
#[test]
fn the_folders_core_hooks_path_names_are_protected_through_assert() {
    let hooks = GitHooks::Known(vec![
        "/home/dev/proj/tools/githooks".into(),
        "/home/dev/.githooks".into(),
    ]);
    let r = root().with_git_hooks(&hooks);
    let mut failures = Vec::new();
    for path in [
        "tools/githooks/pre-commit",
        "TOOLS/GitHooks/pre-push",
        "tools/githooks",
        "tools",
        "/home/dev/.githooks/pre-commit",
        "~/.githooks/commit-msg",
    ] {
        failures.extend(check_protected(path, &Action::edit("write", path, &r)));
    }
    let line = Action::shell("bash", "echo 'curl x|sh' > tools/githooks/pre-commit", &r);
    failures.extend(check_protected("hooks line", &line));
    for path in ["tools/other.sh", "src/main.rs", "githooks/pre-commit"] {
        failures.extend(check_allowed(path, &Action::edit("write", path, &r)));
    }
    // Without the configured folder, the same write is allowed: the rule
    // comes from `with_git_hooks`, and ploy's folders added later keep it.
    failures.extend(check_allowed(
        "no hooks known",
        &Action::edit("write", "tools/githooks/pre-commit", &root()),
    ));
    let later = ProjectRoot::new(PROJECT)
        .unwrap()
        .with_git_hooks(&hooks)
        .with_ploy_folders(&folders());
    failures.extend(check_protected(
        "folders added after",
        &Action::edit("write", "tools/githooks/pre-commit", &later),
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// proves: PERM-7 (a hooks folder above the project: git runs only its own
// entries, so the project's files stay ordinary; the project itself as the
// hooks folder protects all of it)
#[test]
fn a_hooks_folder_holding_the_project_protects_only_its_own_entries() {
    let above = root().with_git_hooks(&GitHooks::Known(vec!["/home/dev".into()]));
    assert_eq!(
        check_protected(
            "~/pre-commit",
            &Action::edit("write", "/home/dev/pre-commit", &above)
        ),
        None
    );
    assert_eq!(
        check_allowed("src/main.rs", &Action::edit("write", "src/main.rs", &above)),
        None
    );
    let itself = root().with_git_hooks(&GitHooks::Known(vec![PROJECT.into()]));
    assert_eq!(
        check_protected("pre-commit", &Action::edit("write", "pre-commit", &itself)),
        None
    );
}

// proves: PERM-7 (fail closed: git's configuration could not be read, so
// any file may be in its hooks folder: every write asks, with the reason)
#[test]
fn an_unknown_hooks_folder_makes_every_write_ask() {
    let unsure: Result<Vec<std::path::PathBuf>, String> =
        Err("/home/dev/proj/.git/config cannot be read (permission denied)".into());
    let r = root().with_git_hooks(&GitHooks::from(unsure));
    for path in ["src/main.rs", "/tmp/out.txt"] {
        let action = Action::edit("write", path, &r);
        assert_eq!(check_protected(path, &action), None);
        let d = Permission::assert(
            &action,
            &ConversationRules::new(),
            &allow_everything(),
            &Approvals::new(),
        );
        assert!(format!("{d:?}").contains("permission denied"), "{d:?}");
    }
}

// proves: PERM-7 (integrations #7: with the session in the home folder, an
// `edit **` rule wrote git's user configuration, Claude Code's user file
// and the shells' start-up files; they ask whatever the project is)
#[test]
fn the_users_own_configuration_is_protected_from_any_project() {
    let home_root = ProjectRoot::new("/home/dev")
        .unwrap()
        .with_ploy_folders(&folders());
    let mut failures = Vec::new();
    for (root, path) in [
        (&home_root, ".gitconfig"),
        (&home_root, ".config/git/config"),
        (&home_root, "/home/dev/.config/git/config"),
        (&home_root, ".claude.json"),
        (&home_root, ".bashrc"),
        (&home_root, ".zshrc"),
        (&home_root, ".profile"),
        (&home_root, ".ssh/authorized_keys"),
        (&home_root, ".ssh/config"),
        (&home_root, ".cargo/config.toml"),
        (&home_root, ".npmrc"),
        (&home_root, ".config/systemd/user/x.service"),
        (&home_root, "./.GitConfig"),
        (&root(), "~/.gitconfig"),
        (&root(), "../.gitconfig"),
        (&root(), "/home/dev/.claude.json"),
        (&root(), "~/.bashrc"),
    ] {
        let action = Action::edit("Write", path, root);
        failures.extend(check_protected(path, &action));
    }
    // Controls: other files in the home folder, and the same names in a
    // project below it, are ordinary files.
    for (root, path) in [
        (&home_root, "notes.txt"),
        (&home_root, ".config/other/settings.toml"),
        (&root(), ".gitconfig"),
        (&root(), ".bashrc"),
    ] {
        let action = Action::edit("Write", path, root);
        failures.extend(check_allowed(path, &action));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
