//! Property tests for the validator: it never panics; no accepted plan
//! passes a path outside the project, a substitution or an expansion to any
//! program; every accepted plan reads back from its own rendering.

use ploy_validate::validate;
use proptest::prelude::*;

/// Command starts whose fixed words are benign (patterns are `x`, filters
/// `.`): any hostile word in an accepted plan came from the arguments.
const COMMANDS: &[&str] = &[
    "cat",
    "ls",
    "wc -l",
    "diff -q a",
    "cmp a",
    "head -n 1",
    "tail -n 1",
    "test -f",
    "[ -d",
    "grep -q x",
    "grep -rq x",
    "grep -q -e x -f",
    "rg -q x",
    "find",
    "jq .",
    "yq .",
    "git diff --quiet --",
    "git log --",
    "git show",
    "git grep -q x",
    "make",
    "cargo test --manifest-path",
    "cargo test --",
    "pytest",
    "python3 -m unittest discover -s",
    "go test",
    "npm test --",
    "./check.sh",
    "scripts/x.sh",
    "sh -c 'cat",
    "env cat",
];

const ARGS: &[&str] = &[
    "src/main.rs",
    "README.md",
    "./...",
    "/etc/passwd",
    "../x",
    "src/../../x",
    "~/x",
    "'~/x'",
    "$HOME/x",
    "${HOME}",
    "$(id)",
    "`id`",
    "$((1+1))",
    "<(ls)",
    "\"$x\"",
    "'$x'",
    "*.rs",
    "'*.rs'",
    "{a,b}",
    "$'\\x2f'",
    "--x=/etc",
    "--file=../x",
    "-I/usr",
    "-f/etc/x",
    "-C..",
    "a..b",
    "x/..",
    "\"/etc/passwd\"",
    "'..'",
    "\\/etc",
    "HEAD:../x",
    ":/x",
    "x:/etc",
    "'",
    "\"",
    "/",
    "..",
    ">/etc/x",
    "2>/dev/null",
    "2>&1",
    "</etc/x",
    "&>/dev/null",
    "]",
];

const JOINERS: &[&str] = &[" && ", " || ", " | ", " & ", "; ", " ", " |& "];

fn line() -> impl Strategy<Value = String> {
    let command = (
        prop::sample::select(COMMANDS),
        prop::collection::vec(prop::sample::select(ARGS), 0..4),
    )
        .prop_map(|(program, args)| format!("{program} {}", args.join(" ")));
    (
        command.clone(),
        prop::collection::vec((prop::sample::select(JOINERS), command), 0..3),
    )
        .prop_map(|(first, rest)| {
            let mut line = first;
            for (joiner, command) in rest {
                line.push_str(joiner);
                line.push_str(&command);
            }
            line
        })
}

/// Why a word handed to a program would reach outside the project, if it
/// would (the checks a hostile argument must never pass).
fn escapes(word: &str) -> Option<&'static str> {
    let mut pieces: Vec<&str> = std::iter::once(word)
        .chain(word.split(['=', ':', ',']))
        .collect();
    // A path glued to a short option: `-I/usr`, `-f../x`.
    if let Some(flag) = word.strip_prefix('-') {
        pieces.push(
            flag.trim_start_matches('-')
                .trim_start_matches(|c: char| c.is_ascii_alphabetic()),
        );
    }
    for piece in pieces {
        if piece.starts_with('/') {
            return Some("an absolute path");
        }
        if piece.starts_with('~') {
            return Some("`~`");
        }
        if piece.split('/').any(|p| p == "..") {
            return Some("`..`");
        }
    }
    // A quoted `$x` is a literal word to the plan runner (no shell); what
    // bash would expand is checked on the parse below.
    None
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    // proves: PROOF-1 (no panic on arbitrary text; a verdict is always given)
    #[test]
    fn never_panics(text in any::<String>()) {
        let verdict = validate(&text);
        prop_assert!(verdict.is_accepted() || !verdict.refusals().is_empty());
    }

    // proves: PROOF-1 (no panic on shell-like text either)
    #[test]
    fn never_panics_on_shell_text(text in "[a-z\\-./~$`'\"\\\\ |&;<>(){}\\[\\]!*?#=:,0-9]{0,60}") {
        let verdict = validate(&text);
        prop_assert!(verdict.is_accepted() || !verdict.refusals().is_empty());
    }

    // proves: PROOF-3 (no accepted plan hands a path outside the project, an expansion or a substitution to a program)
    #[test]
    fn accepted_plans_stay_inside_the_project(line in line()) {
        if let Some(plan) = validate(&line).plan() {
            prop_assert!(!line.contains('\n'));
            for command in plan.commands() {
                for word in &command.argv {
                    // /dev/null is the one file a plan names, as a stream target, never as a word.
                    if let Some(why) = escapes(word) {
                        prop_assert!(false, "accepted {:?} passes {:?} ({})", line, word, why);
                    }
                }
            }
            let c = ploy_shell::analyze(&line).constructs;
            prop_assert!(!c.background && !c.parameter_expansion && !c.command_substitution && !c.glob
                && !c.brace_expansion && !c.tilde && !c.process_substitution && !c.backticks,
                "{:?}: {:?}", line, c);
        }
    }

    // proves: PROOF-6 (what runs is what was checked: the rendering of an accepted plan reads back as the same plan)
    #[test]
    fn accepted_plans_read_back_from_their_rendering(line in line()) {
        if let Some(plan) = validate(&line).plan() {
            let rendered = plan.to_line();
            if rendered.chars().count() <= 400 {
                let again = validate(&rendered);
                prop_assert_eq!(again.plan(), Some(plan), "{}", rendered);
            }
        }
    }
}

// proves: PROOF-3 (the generator reaches accepted lines, so the properties are not vacuous)
#[test]
fn generator_alphabet_reaches_accepted_lines() {
    for line in [
        "cat src/main.rs && wc -l README.md",
        "diff -q a src/main.rs 2>/dev/null",
        "grep -q x 'a..b' || test -f src/main.rs",
        "git show HEAD:src/main.rs | grep -q x",
        "./check.sh",
        "go test ./...",
        "[ -d src/main.rs ]",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}
