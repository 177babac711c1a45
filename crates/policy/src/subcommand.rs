//! What a command line really runs, for deny and ask rules (PERM-2).
//!
//! Rules are globs on a simple command's words, but programs read their own
//! words: `git -C . push` and `git -c alias.p=push p` run `git push`,
//! `npm --loglevel silent publish` and `npm pub` run `npm publish`,
//! `rm -fr`, `rm -r -f` and `rm --recursive --force` are `rm -rf`.
//! [`normalise`] gives the other spellings of one command: deny and ask
//! rules are also tried on them (they can only make the answer stricter;
//! allow rules never see them). When ploy cannot tell which subcommand runs
//! (an alias defined on the line or in a configuration file ploy does not
//! read, an option it does not know before the subcommand, configuration
//! that names a program), the command is `unknown`: no allow rule covers
//! it, so it asks (allowlist thinking: "not known to be safe" is not
//! "allowed").

/// The other spellings of a command and whether its subcommand is known.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Normal {
    /// The command as deny and ask rules should also see it (program
    /// basename, canonical subcommand, option clusters merged).
    pub forms: Vec<String>,
    /// Why ploy cannot tell what runs; set: no allow rule covers the command.
    pub unknown: Option<String>,
    /// Set when ploy could not place the subcommand among the options
    /// (too many readings of the words before it): the command asks when
    /// any deny or ask rule names its program (round7 #11b, fail closed).
    pub unplaced: Option<String>,
}

/// The other spellings of `program args…` (`program` is the basename).
pub(crate) fn normalise(program: &str, args: &[&str]) -> Normal {
    let mut normal = Normal::default();
    match program {
        "git" => git(args, &mut normal),
        "npm" => npm(args, &mut normal),
        "cargo" => cargo(args, &mut normal),
        _ => {
            clusters(program, args, &mut normal.forms);
            if !operand_forms(program, args, &mut normal.forms) {
                normal.unplaced = Some(format!(
                    "ploy cannot place `{program}`'s subcommand among the options before it \
                     (too many readings)"
                ));
            }
            if matches!(program, "docker" | "podman") {
                docker_forms(program, args, &mut normal.forms);
            }
        }
    }
    normal
}

/// How many forms [`operand_forms`] adds at most.
const MAX_OPERAND_FORMS: usize = 32;

/// Where a program ploy has no table for may have its first operand (its
/// subcommand, for `pnpm`, `yarn`, `docker`, `kubectl`, `gh`, `pip`…):
/// every reading of the options before it. An option may or may not take
/// the next word, so a plain word right after an option may be its value
/// or the first operand; `--` ends the options, so the word after it is
/// the first operand whatever it looks like (round6 #1: `npm -- publish`
/// runs `npm publish`).
pub(crate) fn operand_starts(args: &[&str]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut after_option = false;
    for (i, arg) in args.iter().enumerate() {
        if *arg == "--" {
            if i + 1 < args.len() {
                starts.push(i + 1);
            }
            break;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            // `--name=value` carries its value; anything else may take the next word.
            after_option = !(arg.starts_with("--") && arg.contains('='));
            continue;
        }
        starts.push(i);
        if !after_option {
            // Not an option's value: the first operand for certain.
            break;
        }
        after_option = false;
    }
    starts
}

/// The command as a program with subcommands dispatches it, for deny and
/// ask rules: the options before the subcommand skipped (every reading),
/// and again before a second-level subcommand (`gh pr --repo x merge`,
/// `docker --context c image rm`). `kubectl --context prod delete pod x`
/// also reads `kubectl delete pod x`; `pnpm -- publish` reads `pnpm
/// publish`. Only deny and ask rules see these forms, so a reading that is
/// not the real one can only make the answer stricter.
///
/// In every reading, each option after the subcommand is also shown right
/// after it (round7 #11b: `kubectl delete pods --all` is `kubectl delete
/// --all pods` for a rule naming `--all`). Returns false when the readings
/// were cut at [`MAX_OPERAND_FORMS`] (the subcommand is then not placed).
fn operand_forms(program: &str, args: &[&str], forms: &mut Vec<String>) -> bool {
    hoisted(program, args, forms);
    let mut readings = 0;
    for first in operand_starts(args) {
        let sub = args[first];
        let rest = &args[first + 1..];
        if first > 0 {
            push_form(forms, program, &args[first..]);
        }
        hoisted(&format!("{program} {sub}"), rest, forms);
        for second in operand_starts(rest) {
            readings += 1;
            if readings > MAX_OPERAND_FORMS {
                return false;
            }
            if second > 0 {
                let mut words = vec![sub];
                words.extend(rest[second..].iter().copied());
                push_form(forms, program, &words);
            }
            hoisted(
                &format!("{program} {sub} {}", rest[second]),
                &rest[second + 1..],
                forms,
            );
        }
    }
    true
}

/// How many options of one reading are moved to the front ([`hoisted`]).
const MAX_HOISTED: usize = 16;

/// `program` followed by each option of `rest` moved to the front, the
/// other words in their order: a rule's option is compared wherever the
/// line puts it (before `--` only).
fn hoisted(program: &str, rest: &[&str], forms: &mut Vec<String>) {
    let mut moved = 0;
    for (i, word) in rest.iter().enumerate() {
        if *word == "--" {
            break;
        }
        if i == 0 || word.len() < 2 || !word.starts_with('-') {
            continue;
        }
        moved += 1;
        if moved > MAX_HOISTED {
            return;
        }
        let mut words = vec![*word];
        words.extend(
            rest.iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, w)| *w),
        );
        push_form(forms, program, &words);
    }
}

/// docker's management commands and the old top-level commands they
/// replace (`docker image push` is `docker push`, `docker container rm`
/// is `docker rm`, `docker image rm` is `docker rmi`).
const DOCKER_ALIASES: [(&str, &str, &str); 28] = [
    ("image", "push", "push"),
    ("image", "pull", "pull"),
    ("image", "build", "build"),
    ("image", "rm", "rmi"),
    ("image", "remove", "rmi"),
    ("image", "ls", "images"),
    ("image", "list", "images"),
    ("image", "tag", "tag"),
    ("image", "save", "save"),
    ("image", "load", "load"),
    ("image", "import", "import"),
    ("image", "history", "history"),
    ("container", "run", "run"),
    ("container", "exec", "exec"),
    ("container", "rm", "rm"),
    ("container", "remove", "rm"),
    ("container", "kill", "kill"),
    ("container", "stop", "stop"),
    ("container", "start", "start"),
    ("container", "restart", "restart"),
    ("container", "create", "create"),
    ("container", "cp", "cp"),
    ("container", "commit", "commit"),
    ("container", "export", "export"),
    ("container", "attach", "attach"),
    ("container", "ls", "ps"),
    ("container", "list", "ps"),
    ("container", "update", "update"),
];

/// docker's two spellings of one command, both ways, for every reading of
/// the global options: deny and ask rules naming either see both.
fn docker_forms(program: &str, args: &[&str], forms: &mut Vec<String>) {
    for first in operand_starts(args) {
        let words = &args[first..];
        let (Some(group), Some(command)) = (words.first(), words.get(1)) else {
            // `docker push` alone: its management form below.
            if let Some(old) = words.first() {
                for (group, command, _) in DOCKER_ALIASES.iter().filter(|a| a.2 == *old) {
                    push_form(forms, &format!("{program} {group} {command}"), &[]);
                }
            }
            continue;
        };
        for (g, c, old) in DOCKER_ALIASES {
            if g == *group && c == *command {
                push_form(forms, &format!("{program} {old}"), &words[2..]);
                hoisted(&format!("{program} {old}"), &words[2..], forms);
            }
            if old == *group {
                push_form(forms, &format!("{program} {g} {c}"), &words[1..]);
            }
        }
    }
}

/// git's global options that take the next word as their value.
const GIT_VALUE_OPTIONS: [&str; 7] = [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--attr-source",
];

/// git's global options that take no value.
const GIT_FLAG_OPTIONS: [&str; 19] = [
    "-p",
    "--paginate",
    "-P",
    "--no-pager",
    "--no-replace-objects",
    "--no-lazy-fetch",
    "--no-optional-locks",
    "--no-advice",
    "--bare",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--html-path",
    "--man-path",
    "--info-path",
    "--exec-path",
    "--version",
    "--help",
];

/// git configuration a `-c` may set without naming a program or an alias.
const GIT_SAFE_CONFIG: [&str; 9] = [
    "color.",
    "advice.",
    "user.name",
    "user.email",
    "init.defaultbranch",
    "core.quotepath",
    "i18n.",
    "log.",
    "column.",
];

/// git's commands (`git help -a`, plus `lfs`): any other word is an alias
/// or an external `git-*` program, which may run anything.
const GIT_COMMANDS: [&str; 147] = [
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "backfill",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "credential-cache",
    "credential-store",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "fsck-objects",
    "gc",
    "get-tar-commit-id",
    "grep",
    "gui",
    "hash-object",
    "help",
    "hook",
    "http-fetch",
    "http-push",
    "imap-send",
    "index-pack",
    "init",
    "init-db",
    "instaweb",
    "interpret-trailers",
    "lfs",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-one-file",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "pack-objects",
    "pack-redundant",
    "pack-refs",
    "patch-id",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "quiltimport",
    "range-diff",
    "read-tree",
    "rebase",
    "receive-pack",
    "reflog",
    "refs",
    "remote",
    "repack",
    "replace",
    "replay",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "send-pack",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "upload-archive",
    "upload-pack",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
    "cvsimport",
    "p4",
    "svn",
];

/// git commands that do what another does (rules name the common one).
const GIT_SYNONYMS: [(&str, &str); 4] = [
    ("send-pack", "push"),
    ("http-push", "push"),
    ("stage", "add"),
    ("init-db", "init"),
];

/// Where git's subcommand is among its arguments (the first word after
/// the global options), or why ploy cannot tell what git runs.
pub(crate) fn git_start(args: &[&str]) -> Result<Option<usize>, String> {
    let mut i = 0;
    while i < args.len() {
        let arg = args[i];
        if arg == "--" {
            // The end of git's options: the next word is the command.
            return Ok((i + 1 < args.len()).then_some(i + 1));
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if arg.starts_with("--") => (name, Some(value)),
            _ => (arg, None),
        };
        if GIT_VALUE_OPTIONS.contains(&name) {
            let value = match inline {
                Some(value) => value,
                None => args.get(i + 1).copied().unwrap_or_default(),
            };
            if matches!(name, "-c" | "--config-env") {
                git_config_setting(value)?;
            }
            i += if inline.is_some() { 1 } else { 2 };
        } else if GIT_FLAG_OPTIONS.contains(&name) {
            if name == "--exec-path" && inline.is_some() {
                return Err("`git --exec-path=…` changes where git finds its commands".into());
            }
            i += 1;
        } else if arg.starts_with('-') {
            return Err(format!(
                "`git {arg}` is an option ploy does not know before the subcommand"
            ));
        } else {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// A `-c KEY=VALUE` (or `--config-env KEY=VAR`): an alias or a setting that
/// may name a program is a reason ploy cannot tell what runs.
fn git_config_setting(setting: &str) -> Result<(), String> {
    let key = setting
        .split('=')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    if key.starts_with("alias.") {
        return Err(format!(
            "`-c {setting}` defines a git alias: the command it names is not on the line"
        ));
    }
    if GIT_SAFE_CONFIG
        .iter()
        .any(|safe| key == *safe || (safe.ends_with('.') && key.starts_with(safe)))
    {
        return Ok(());
    }
    Err(format!(
        "`-c {setting}` sets git configuration that may name a program git runs"
    ))
}

fn git(args: &[&str], normal: &mut Normal) {
    let start = match git_start(args) {
        Ok(Some(start)) => start,
        Ok(None) => return,
        Err(why) => {
            normal.unknown = Some(why);
            // Still show deny rules the first plain word as the subcommand.
            match args
                .iter()
                .position(|a| !a.starts_with('-') && !a.contains('='))
            {
                Some(start) => start,
                None => return,
            }
        }
    };
    let sub = args[start];
    let rest = &args[start + 1..];
    if !GIT_COMMANDS.contains(&sub) {
        normal.unknown.get_or_insert_with(|| {
            format!(
                "`git {sub}` is not a git command ploy knows: an alias or an external \
                 command may run any other"
            )
        });
    }
    let mut subs = vec![sub];
    // An alias the line defines (`-c alias.p=push p`): deny rules see what
    // it names (it still asks at least: `unknown` is set).
    let defined = args[..start]
        .iter()
        .filter_map(|a| {
            a.strip_prefix("alias.")
                .or_else(|| a.strip_prefix("--config-env=alias."))
        })
        .filter_map(|a| a.split_once('='));
    let mut expanded = Vec::new();
    for (name, value) in defined {
        if name.eq_ignore_ascii_case(sub) && !value.starts_with('!') {
            expanded.push(value);
        }
    }
    for value in expanded {
        let mut words: Vec<&str> = value.split_whitespace().collect();
        words.extend(rest.iter().copied());
        if let Some((first, tail)) = words.split_first() {
            push_form(&mut normal.forms, &format!("git {first}"), tail);
        }
    }
    subs.extend(
        GIT_SYNONYMS
            .iter()
            .filter(|(spelling, _)| *spelling == sub)
            .map(|(_, canonical)| *canonical),
    );
    for sub in subs {
        let program = format!("git {sub}");
        push_form(&mut normal.forms, &program, rest);
        clusters(&program, rest, &mut normal.forms);
        git_option_forms(sub, &program, rest, &mut normal.forms);
    }
    // `git lfs push REMOTE` sends objects to the remote: deny and ask rules
    // for `git push*` see it as a push too (secrets5 #16).
    if sub == "lfs"
        && let Some(at) = rest.iter().position(|a| !a.starts_with('-'))
        && rest[at] == "push"
    {
        push_form(&mut normal.forms, "git push", &rest[at + 1..]);
    }
}

/// git's long options a deny rule is likely to name, by subcommand: an
/// abbreviation git accepts (`--forc`, `--ha`) is also read as each
/// option it may stand for (deny and ask rules only, so a wrong guess
/// only makes the answer stricter).
const GIT_LONG_OPTIONS: [(&str, &[&str]); 12] = [
    (
        "push",
        &[
            "--force",
            "--force-with-lease",
            "--force-if-includes",
            "--delete",
            "--mirror",
            "--all",
            "--tags",
            "--prune",
            "--no-verify",
            "--follow-tags",
            "--set-upstream",
            "--atomic",
        ],
    ),
    (
        "reset",
        &["--hard", "--soft", "--mixed", "--merge", "--keep"],
    ),
    ("clean", &["--force", "--dry-run"]),
    ("checkout", &["--force", "--ours", "--theirs", "--orphan"]),
    ("switch", &["--force", "--discard-changes", "--orphan"]),
    ("branch", &["--delete", "--force", "--move", "--copy"]),
    ("tag", &["--delete", "--force"]),
    ("rebase", &["--interactive", "--exec", "--onto", "--root"]),
    ("commit", &["--amend", "--no-verify", "--all"]),
    ("rm", &["--force", "--cached"]),
    ("gc", &["--prune", "--aggressive"]),
    ("worktree", &["--force"]),
];

/// git's short options and the long option each is (by subcommand).
const GIT_SHORT_OPTIONS: [(&str, char, &str); 12] = [
    ("push", 'f', "--force"),
    ("push", 'd', "--delete"),
    ("push", 'u', "--set-upstream"),
    ("clean", 'f', "--force"),
    ("clean", 'n', "--dry-run"),
    ("checkout", 'f', "--force"),
    ("switch", 'f', "--force"),
    ("branch", 'd', "--delete"),
    ("branch", 'D', "--delete"),
    ("branch", 'f', "--force"),
    ("tag", 'd', "--delete"),
    ("rm", 'f', "--force"),
];

/// What one word of `git SUB`'s arguments means as options (every
/// spelling a rule may use), and the operand it leaves in place: `git push
/// origin main --force`, `--force-with-lease`, `--forc`, `-fu`, `+main` all
/// force (`--force` and `-f`); `:main` deletes (`--delete`, `-d`).
fn git_word_means(sub: &str, word: &str) -> (Vec<String>, Option<String>) {
    fn add(m: &str, means: &mut Vec<String>) {
        if !means.iter().any(|x| x == m) {
            means.push(m.to_string());
        }
    }
    let mut means: Vec<String> = Vec::new();
    let long_names = GIT_LONG_OPTIONS
        .iter()
        .find(|(s, _)| *s == sub)
        .map_or(&[][..], |(_, names)| *names);
    let mut operand = None;
    if let Some(rest) = word.strip_prefix("--") {
        let name = rest.split('=').next().unwrap_or_default();
        if name.is_empty() {
            return (means, None);
        }
        add(&format!("--{name}"), &mut means);
        for long in long_names {
            if long[2..].starts_with(name) && name.len() >= 2 {
                add(long, &mut means);
            }
        }
    } else if let Some(cluster) = word.strip_prefix('-') {
        if cluster.is_empty() || !cluster.chars().all(|c| c.is_ascii_alphabetic()) {
            return (means, Some(word.to_string()));
        }
        for letter in cluster.chars() {
            add(&format!("-{letter}"), &mut means);
            for (_, _, long) in GIT_SHORT_OPTIONS
                .iter()
                .filter(|(s, l, _)| *s == sub && *l == letter)
            {
                add(long, &mut means);
            }
        }
    } else if sub == "push" && word.len() > 1 && word.starts_with('+') {
        // A `+` refspec is a forced update of that ref.
        add("--force", &mut means);
        operand = Some(word[1..].to_string());
    } else if sub == "push" && word.len() > 1 && word.starts_with(':') {
        // An empty source deletes the remote ref.
        add("--delete", &mut means);
        operand = Some(word[1..].to_string());
    } else {
        return (means, Some(word.to_string()));
    }
    if sub == "push" && means.iter().any(|m| m.starts_with("--force")) {
        add("--force", &mut means);
    }
    // Each long option also by its short letter (`--force` is `-f`).
    let shorts: Vec<String> = GIT_SHORT_OPTIONS
        .iter()
        .filter(|(s, _, long)| *s == sub && means.iter().any(|m| m == long))
        .map(|(_, letter, _)| format!("-{letter}"))
        .collect();
    for short in shorts {
        add(&short, &mut means);
    }
    (means, operand)
}

/// `git SUB` with each option of its arguments (as every spelling it
/// means, [`git_word_means`]) right after the subcommand, wherever the
/// line puts it, the other words in their order (round7 #11b).
fn git_option_forms(sub: &str, program: &str, rest: &[&str], forms: &mut Vec<String>) {
    let words: Vec<(Vec<String>, Option<String>)> = rest
        .iter()
        .take_while(|w| **w != "--")
        .map(|w| git_word_means(sub, w))
        .collect();
    let tail = &rest[words.len()..];
    for (i, (means, _)) in words.iter().enumerate().take(MAX_HOISTED) {
        for meaning in means {
            let mut line: Vec<&str> = vec![meaning.as_str()];
            for (j, (_, operand)) in words.iter().enumerate() {
                if j == i {
                    if let Some(operand) = operand {
                        line.push(operand.as_str());
                    }
                } else {
                    line.push(rest[j]);
                }
            }
            line.extend(tail.iter().copied());
            push_form(forms, program, &line);
        }
    }
}

/// npm's commands (npm 10 `cmd-list`).
const NPM_COMMANDS: [&str; 69] = [
    "access",
    "adduser",
    "audit",
    "bugs",
    "cache",
    "ci",
    "completion",
    "config",
    "dedupe",
    "deprecate",
    "diff",
    "dist-tag",
    "docs",
    "doctor",
    "edit",
    "exec",
    "explain",
    "explore",
    "find-dupes",
    "fund",
    "get",
    "help",
    "help-search",
    "hook",
    "init",
    "install",
    "install-ci-test",
    "install-test",
    "link",
    "ll",
    "login",
    "logout",
    "ls",
    "org",
    "outdated",
    "owner",
    "pack",
    "ping",
    "pkg",
    "prefix",
    "profile",
    "prune",
    "publish",
    "query",
    "rebuild",
    "repo",
    "restart",
    "root",
    "run",
    "run-script",
    "sbom",
    "search",
    "set",
    "shrinkwrap",
    "star",
    "stars",
    "start",
    "stop",
    "team",
    "test",
    "token",
    "undeprecate",
    "uninstall",
    "unpublish",
    "unstar",
    "update",
    "version",
    "view",
    "whoami",
];

/// npm's own aliases (npm 10 `cmd-list`).
const NPM_ALIASES: [(&str, &str); 55] = [
    ("author", "owner"),
    ("home", "docs"),
    ("issues", "bugs"),
    ("info", "view"),
    ("show", "view"),
    ("find", "search"),
    ("add", "install"),
    ("unlink", "uninstall"),
    ("remove", "uninstall"),
    ("rm", "uninstall"),
    ("r", "uninstall"),
    ("un", "uninstall"),
    ("rum", "run"),
    ("urn", "run"),
    ("run-script", "run"),
    ("sit", "install-ci-test"),
    ("cit", "install-ci-test"),
    ("clean-install-test", "install-ci-test"),
    ("ogr", "org"),
    ("add-user", "adduser"),
    ("c", "config"),
    ("clean-install", "ci"),
    ("install-clean", "ci"),
    ("isntall-clean", "ci"),
    ("create", "init"),
    ("innit", "init"),
    ("ddp", "dedupe"),
    ("dist-tags", "dist-tag"),
    ("hlep", "help"),
    ("i", "install"),
    ("in", "install"),
    ("ins", "install"),
    ("inst", "install"),
    ("insta", "install"),
    ("instal", "install"),
    ("isnt", "install"),
    ("isnta", "install"),
    ("isntal", "install"),
    ("isntall", "install"),
    ("it", "install-test"),
    ("la", "ll"),
    ("list", "ls"),
    ("ln", "link"),
    ("rb", "rebuild"),
    ("s", "search"),
    ("se", "search"),
    ("t", "test"),
    ("tst", "test"),
    ("udpate", "update"),
    ("up", "update"),
    ("upgrade", "update"),
    ("v", "view"),
    ("verison", "version"),
    ("why", "explain"),
    ("x", "exec"),
];

/// npm options before the command that take no value.
const NPM_FLAGS: [&str; 36] = [
    "-q",
    "-s",
    "-d",
    "-dd",
    "-ddd",
    "-g",
    "-y",
    "-f",
    "-l",
    "-p",
    "-D",
    "-E",
    "-O",
    "-P",
    "-B",
    "-S",
    "-ws",
    "-v",
    "-h",
    "--quiet",
    "--silent",
    "--verbose",
    "--global",
    "--force",
    "--yes",
    "--dry-run",
    "--json",
    "--offline",
    "--prefer-offline",
    "--prefer-online",
    "--ignore-scripts",
    "--workspaces",
    "--include-workspace-root",
    "--legacy-peer-deps",
    "--foreground-scripts",
    "--long",
];

/// npm options before the command that take the next word.
const NPM_VALUE_OPTIONS: [&str; 14] = [
    "--loglevel",
    "--prefix",
    "-C",
    "--registry",
    "--userconfig",
    "--globalconfig",
    "--cache",
    "--workspace",
    "-w",
    "--tag",
    "--otp",
    "--access",
    "--scope",
    "--before",
];

/// npm's command for a word: exact, an alias, or a unique prefix of one
/// (npm accepts abbreviations: `npm pub`).
fn npm_command(word: &str) -> Option<&'static str> {
    if let Some(found) = NPM_COMMANDS.iter().find(|c| **c == word) {
        return Some(found);
    }
    if let Some((_, canonical)) = NPM_ALIASES.iter().find(|(alias, _)| *alias == word) {
        return Some(canonical);
    }
    let mut found: Option<&'static str> = None;
    let names = NPM_COMMANDS
        .iter()
        .map(|c| (*c, *c))
        .chain(NPM_ALIASES.iter().copied());
    for (name, canonical) in names {
        if !word.is_empty() && name.starts_with(word) {
            match found {
                Some(other) if other != canonical => return None,
                _ => found = Some(canonical),
            }
        }
    }
    found
}

/// Where npm's command may start among its arguments: every reading of
/// the options before it (an option ploy does not know may or may not take
/// the next word), sorted; and why ploy is unsure, if it is.
pub(crate) fn npm_starts(args: &[&str]) -> (Vec<usize>, Option<String>) {
    let mut unknown = None;
    let mut starts = Vec::new();
    let mut pending = vec![0usize];
    while let Some(mut i) = pending.pop() {
        while let Some(arg) = args.get(i) {
            if !arg.starts_with('-') || *arg == "-" {
                starts.push(i);
                break;
            }
            if *arg == "--" {
                // The end of npm's options: the next word is the command,
                // as npm dispatches it (round6 #1: `npm -- publish`).
                if i + 1 < args.len() {
                    starts.push(i + 1);
                }
                break;
            }
            if arg.contains('=') || NPM_FLAGS.contains(arg) || arg.starts_with("--no-") {
                i += 1;
            } else if NPM_VALUE_OPTIONS.contains(arg) {
                i += 2;
            } else {
                unknown.get_or_insert_with(|| {
                    format!("`npm {arg}` is an option ploy does not know before the command")
                });
                pending.push(i + 2);
                i += 1;
            }
        }
    }
    starts.sort_unstable();
    starts.dedup();
    (starts, unknown)
}

/// npm's command for the word at a start [`npm_starts`] found.
pub(crate) fn npm_command_at(args: &[&str], start: usize) -> Option<&'static str> {
    args.get(start).and_then(|word| npm_command(word))
}

fn npm(args: &[&str], normal: &mut Normal) {
    let (starts, unknown) = npm_starts(args);
    if let Some(why) = unknown {
        normal.unknown.get_or_insert(why);
    }
    for start in starts {
        let word = args[start];
        let rest = &args[start + 1..];
        match npm_command(word) {
            Some(command) => {
                let program = format!("npm {command}");
                push_form(&mut normal.forms, &program, rest);
                clusters(&program, rest, &mut normal.forms);
            }
            None => {
                normal.unknown.get_or_insert_with(|| {
                    format!("`npm {word}` is not an npm command ploy knows")
                });
            }
        }
    }
}

/// cargo's commands, its built-in aliases' targets, and common `cargo-*`
/// tools; any other word is a user alias or another program.
const CARGO_COMMANDS: [&str; 56] = [
    "add",
    "bench",
    "build",
    "check",
    "clean",
    "clippy",
    "config",
    "doc",
    "fetch",
    "fix",
    "fmt",
    "generate-lockfile",
    "help",
    "info",
    "init",
    "install",
    "locate-project",
    "login",
    "logout",
    "metadata",
    "miri",
    "new",
    "owner",
    "package",
    "pkgid",
    "publish",
    "read-manifest",
    "remove",
    "report",
    "run",
    "rustc",
    "rustdoc",
    "search",
    "test",
    "tree",
    "uninstall",
    "update",
    "vendor",
    "verify-project",
    "version",
    "yank",
    "nextest",
    "audit",
    "deny",
    "expand",
    "llvm-cov",
    "udeps",
    "outdated",
    "machete",
    "insta",
    "tarpaulin",
    "semver-checks",
    "hack",
    "bloat",
    "about",
    "criterion",
];

/// cargo's built-in aliases.
const CARGO_ALIASES: [(&str, &str); 6] = [
    ("b", "build"),
    ("c", "check"),
    ("d", "doc"),
    ("t", "test"),
    ("r", "run"),
    ("rm", "remove"),
];

fn cargo(args: &[&str], normal: &mut Normal) {
    let mut i = usize::from(args.first().is_some_and(|a| a.starts_with('+')));
    while let Some(arg) = args.get(i) {
        let name = arg.split('=').next().unwrap_or_default();
        if name == "--config" {
            normal.unknown = Some(format!(
                "`cargo {arg}` changes cargo's configuration (aliases, runners) on the line"
            ));
            i += if arg.contains('=') { 1 } else { 2 };
        } else if matches!(name, "--color" | "-Z" | "-C" | "--explain") {
            i += if arg.contains('=') { 1 } else { 2 };
        } else if matches!(
            name,
            "-v" | "-vv"
                | "-vvv"
                | "--verbose"
                | "-q"
                | "--quiet"
                | "--locked"
                | "--offline"
                | "--frozen"
                | "-h"
                | "--help"
                | "-V"
                | "--version"
                | "--list"
        ) {
            i += 1;
        } else if arg.starts_with('-') {
            normal.unknown.get_or_insert_with(|| {
                format!("`cargo {arg}` is an option ploy does not know before the subcommand")
            });
            i += 1;
        } else {
            break;
        }
    }
    let Some(word) = args.get(i) else { return };
    let sub = CARGO_ALIASES
        .iter()
        .find(|(alias, _)| alias == word)
        .map_or(*word, |(_, canonical)| canonical);
    if !CARGO_COMMANDS.contains(&sub) {
        normal.unknown.get_or_insert_with(|| {
            format!(
                "`cargo {word}` is not a cargo command ploy knows: an alias in a cargo \
                 configuration or another program may run any other"
            )
        });
    }
    let program = format!("cargo {sub}");
    let rest = &args[i + 1..];
    push_form(&mut normal.forms, &program, rest);
    clusters(&program, rest, &mut normal.forms);
}

/// `rm`'s long options and their short letters.
const RM_LONG: [(&str, char); 4] = [
    ("--recursive", 'r'),
    ("--force", 'f'),
    ("--dir", 'd'),
    ("--verbose", 'v'),
];

/// Short options merged into one cluster in every order (up to four
/// letters; more: as written and sorted), long options after it, operands
/// last: `rm -r -f x`, `rm -fr x`, `rm x -Rf` all read `rm -rf x`.
fn clusters(program: &str, args: &[&str], forms: &mut Vec<String>) {
    let rm = program == "rm";
    let mut letters: Vec<char> = Vec::new();
    let mut long: Vec<&str> = Vec::new();
    let mut operands: Vec<&str> = Vec::new();
    let mut options_end = false;
    for arg in args {
        if options_end {
            operands.push(arg);
        } else if *arg == "--" {
            options_end = true;
            operands.push(arg);
        } else if let Some(letter) = rm.then(|| rm_long_letter(arg)).flatten() {
            add_letter(&mut letters, letter);
        } else if arg.starts_with("--") {
            long.push(arg);
        } else if let Some(cluster) = arg.strip_prefix('-')
            && !cluster.is_empty()
            && cluster.chars().all(|c| c.is_ascii_alphabetic())
        {
            for letter in cluster.chars() {
                add_letter(&mut letters, if rm && letter == 'R' { 'r' } else { letter });
            }
        } else {
            operands.push(arg);
        }
    }
    // A removal's `-f` is implied for deny and ask rules (round8 rm
    // residue): ploy's commands run with no terminal, where rm never
    // prompts, so `-f` only silences the error for a missing operand. A
    // rule's `-rf` is about the recursion: `rm -r x`, `rm -R x` and `rm
    // --recursive x` remove what `rm -rf x` removes.
    if rm {
        add_letter(&mut letters, 'f');
    }
    if letters.is_empty() {
        return;
    }
    let mut orders = Vec::new();
    if letters.len() <= 4 {
        permutations(&mut letters.clone(), 0, &mut orders);
    } else {
        orders.push(letters.clone());
        let mut sorted = letters.clone();
        sorted.sort_unstable();
        orders.push(sorted);
    }
    // round7 #11: one more option must not take a command out of a deny
    // rule (`rm -rfv x` is still `rm -rf x`): the cluster's letters that
    // a rule may name, in every order — every subset of up to four
    // letters, pairs and single letters of a longer cluster — with and
    // without the long options. Only deny and ask rules see these forms.
    for subset in letter_subsets(&letters) {
        if subset.len() < letters.len() {
            permutations(&mut subset.clone(), 0, &mut orders);
        }
    }
    for order in orders {
        let cluster: String = std::iter::once('-').chain(order).collect();
        let mut words: Vec<&str> = vec![&cluster];
        words.extend(long.iter().copied());
        words.extend(operands.iter().copied());
        push_form(forms, program, &words);
        if !long.is_empty() {
            let mut words: Vec<&str> = vec![&cluster];
            words.extend(operands.iter().copied());
            push_form(forms, program, &words);
        }
    }
}

/// The spellings of a shell deny or ask rule's pattern that mean the same
/// command as ploy reads it (round8 rm residue): for a rule on `rm`, its
/// options merged into one cluster with `-R` read as `-r` and the long
/// options as their letters (`rm -Rf *`, `rm -r -f *`, `rm --recursive
/// --force *` are `rm -rf *`), long options it has no letter for kept
/// after the cluster, the other words in their order. The command side
/// gives every order of its cluster ([`normalise`]), so one order is
/// enough here. Empty when the pattern is not an `rm` rule, names no
/// option, or an option word holds a glob (its meaning is not one option).
pub(crate) fn rule_forms(pattern: &str) -> Vec<String> {
    let mut words = pattern.split_whitespace();
    if words.next() != Some("rm") {
        return Vec::new();
    }
    let mut letters: Vec<char> = Vec::new();
    let mut long: Vec<&str> = Vec::new();
    let mut rest: Vec<&str> = Vec::new();
    let mut options_end = false;
    for word in words {
        if options_end || word == "-" || !word.starts_with('-') {
            rest.push(word);
            continue;
        }
        if word == "--" {
            options_end = true;
            rest.push(word);
            continue;
        }
        if word.contains(['*', '?', '[', '{', '\\']) {
            return Vec::new();
        }
        if let Some(letter) = rm_long_letter(word) {
            add_letter(&mut letters, letter);
        } else if word.starts_with("--") {
            long.push(word);
        } else if word[1..].chars().all(|c| c.is_ascii_alphabetic()) {
            for letter in word[1..].chars() {
                add_letter(&mut letters, if letter == 'R' { 'r' } else { letter });
            }
        } else {
            return Vec::new();
        }
    }
    if letters.is_empty() {
        return Vec::new();
    }
    let cluster: String = std::iter::once('-').chain(letters).collect();
    let mut form = vec!["rm", cluster.as_str()];
    form.extend(long);
    form.extend(rest);
    let form = form.join(" ");
    if form == pattern {
        return Vec::new();
    }
    vec![form]
}

/// `rm`'s long option `arg` as its letter: the full name or a unique
/// prefix of at least three letters (`--rec`, `--for`), as GNU rm reads it.
fn rm_long_letter(arg: &str) -> Option<char> {
    // `--interactive=never` (any prefix of `--interactive` of three letters
    // or more) never prompts: what `-f` changes for a deny rule.
    if let Some((name, "never")) = arg.split_once('=')
        && name.len() >= 5
        && "--interactive".starts_with(name)
    {
        return Some('f');
    }
    if !arg.starts_with("--") || arg.len() < 5 {
        return RM_LONG
            .iter()
            .find(|(name, _)| *name == arg)
            .map(|(_, l)| *l);
    }
    let mut found = RM_LONG.iter().filter(|(name, _)| name.starts_with(arg));
    match (found.next(), found.next()) {
        (Some((_, letter)), None) => Some(*letter),
        _ => None,
    }
}

/// The non-empty subsets of `letters` a deny rule may name: all of them
/// for up to four letters, else the single letters and the pairs.
fn letter_subsets(letters: &[char]) -> Vec<Vec<char>> {
    let mut out = Vec::new();
    if letters.len() <= 4 {
        for mask in 1u32..(1 << letters.len()) {
            out.push(
                letters
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1 << i) != 0)
                    .map(|(_, c)| *c)
                    .collect(),
            );
        }
    } else {
        for (i, a) in letters.iter().enumerate() {
            out.push(vec![*a]);
            for b in &letters[i + 1..] {
                out.push(vec![*a, *b]);
            }
        }
    }
    out
}

fn add_letter(letters: &mut Vec<char>, letter: char) {
    if !letters.contains(&letter) {
        letters.push(letter);
    }
}

fn permutations(items: &mut Vec<char>, k: usize, out: &mut Vec<Vec<char>>) {
    if k == items.len() {
        out.push(items.clone());
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permutations(items, k + 1, out);
        items.swap(k, i);
    }
}

fn push_form(forms: &mut Vec<String>, program: &str, rest: &[&str]) {
    let mut form = program.to_string();
    for word in rest {
        form.push(' ');
        form.push_str(word);
    }
    if !forms.contains(&form) {
        forms.push(form);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(line: &str) -> Normal {
        let words: Vec<&str> = line.split_whitespace().collect();
        normalise(words[0], &words[1..])
    }

    #[test]
    fn global_options_aliases_and_clusters_read_as_the_command() {
        for (line, form) in [
            ("git -C . push origin main", "git push origin main"),
            ("git --no-pager push", "git push"),
            ("git -p push", "git push"),
            ("git --work-tree=. push", "git push"),
            ("git --git-dir .git push", "git push"),
            ("git send-pack origin main", "git push origin main"),
            ("npm pub", "npm publish"),
            ("npm -q publish", "npm publish"),
            ("npm --loglevel silent publish", "npm publish"),
            ("npm --frobnicate publish", "npm publish"),
            ("npm --frobnicate x publish", "npm publish"),
            ("npm -- publish", "npm publish"),
            ("npm -ddd -- publish .", "npm publish ."),
            ("npm -- pub", "npm publish"),
            ("pnpm -- publish", "pnpm publish"),
            ("pnpm --filter x publish", "pnpm publish"),
            ("yarn --cwd sub -- npm publish", "yarn npm publish"),
            ("docker -H tcp://h push img", "docker push img"),
            ("docker --context c image rm x", "docker image rm x"),
            (
                "kubectl --context prod delete pod x",
                "kubectl delete pod x",
            ),
            ("kubectl -n ns -- delete pod x", "kubectl delete pod x"),
            ("gh pr --repo o/r merge 1", "gh pr merge 1"),
            ("gh -- repo delete o/r", "gh repo delete o/r"),
            ("pip --isolated uninstall -y x", "pip uninstall -y x"),
            ("pip -- uninstall x", "pip uninstall x"),
            ("cargo +nightly -q publish", "cargo publish"),
            ("cargo t --all", "cargo test --all"),
            ("rm -fr build", "rm -rf build"),
            ("rm -r -f build", "rm -rf build"),
            ("rm -Rf build", "rm -rf build"),
            ("rm --recursive --force build", "rm -rf build"),
            ("rm build -rf", "rm -rf build"),
        ] {
            let normal = forms(line);
            assert!(normal.forms.iter().any(|f| f == form), "{line}: {normal:?}");
        }
    }

    #[test]
    fn what_ploy_cannot_name_is_unknown() {
        for line in [
            "git -c alias.p=push p",
            "git -c core.pager=sh log",
            "git --config-env alias.x=V x",
            "git st",
            "git --frob push",
            "git --exec-path=/tmp push",
            "npm --frobnicate publish",
            "npm frobnicate",
            "cargo --config alias.x=publish x",
            "cargo release",
        ] {
            assert!(forms(line).unknown.is_some(), "{line}");
        }
        for line in [
            "git -C sub status",
            "git -c color.ui=always log",
            "npm -q install",
            "npm i lodash",
            "cargo +stable test",
            "rm -rf x",
            "ls -la",
        ] {
            assert_eq!(forms(line).unknown, None, "{line}");
        }
    }
}
