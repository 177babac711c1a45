//! Property tests for the validator: it never panics, and no accepted line
//! contains a substitution, an expansion, a background job, an absolute path
//! or `..` (PROOF-3).

use ploy_proof::validate::validate;
use proptest::prelude::*;

const PROGRAMS: &[&str] = &[
    "cat",
    "ls",
    "wc -l",
    "diff -q",
    "cmp",
    "head -n 1",
    "test -f",
    "cargo test",
    "git diff",
    "stat",
    "grep -q x",
    "env",
    "command",
    "timeout 5 cat",
    "sh -c 'cat",
    "eval cat",
];
const ARGS: &[&str] = &[
    "src/main.rs",
    "README.md",
    "/etc/passwd",
    "../x",
    "src/../../x",
    "~/x",
    "$HOME/x",
    "${HOME}",
    "$(id)",
    "`id`",
    "$((1+1))",
    "<(ls)",
    "\"$x\"",
    "'$x'",
    "*.rs",
    "{a,b}",
    "$'\\x2f'",
    "--x=/etc",
    "-I/usr",
    "a..b",
    "x/..",
    "\"/etc/passwd\"",
    "'..'",
    "\\/etc",
    "'",
    "\"",
    "x'",
    "/",
    "..",
    ">/etc/x",
    "2>/dev/null",
    "</etc/x",
    "-f/x",
];
const JOINERS: &[&str] = &[" && ", " || ", " | ", " & ", "; ", " ", "\n"];

fn line() -> impl Strategy<Value = String> {
    let command = (
        prop::sample::select(PROGRAMS),
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

/// Every word an accepted line passes to a program, after quote removal.
fn static_words(line: &str) -> Vec<String> {
    let summary = ploy_shell::analyze(line);
    let mut words = Vec::new();
    for command in &summary.commands {
        for word in command.program.iter().chain(command.args.iter()) {
            words.push(
                word.value
                    .clone()
                    .unwrap_or_else(|| format!("<computed {}>", word.raw)),
            );
        }
    }
    for redirect in &summary.redirects {
        words.push(redirect.target.value.clone().unwrap_or_default());
    }
    words
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    // proves: PROOF-1 (no panic on arbitrary text; a verdict is always given)
    #[test]
    fn never_panics(text in any::<String>()) {
        let verdict = validate(&text);
        prop_assert!(verdict.is_accepted() || !verdict.refusals().is_empty());
    }

    // proves: PROOF-3 (no accepted line has a substitution, expansion, background job, absolute path or `..`)
    #[test]
    fn accepted_lines_are_plain(line in line()) {
        let verdict = validate(&line);
        if verdict.is_accepted() {
            // Quoted text such as `'$(id)'` is a literal, not a substitution:
            // what counts is what bash would expand, i.e. the parse.
            prop_assert!(!line.contains('\n'), "accepted {:?} has a line break", line);
            let summary = ploy_shell::analyze(&line);
            let c = summary.constructs;
            prop_assert!(!c.background && !c.parameter_expansion && !c.command_substitution && !c.glob
                && !c.brace_expansion && !c.tilde && !c.process_substitution && !c.backticks, "{:?}: {:?}", line, c);
            for word in static_words(&line) {
                if word == "/dev/null" {
                    continue;
                }
                prop_assert!(!word.starts_with('/') && !word.contains("=/") && !word.starts_with("-I/") && !word.starts_with("-f/"),
                    "accepted {:?} has absolute path {:?}", line, word);
                prop_assert!(!word.split(['/', '=']).any(|p| p == ".."), "accepted {:?} has `..` in {:?}", line, word);
                prop_assert!(!word.starts_with("<computed"), "accepted {:?} has a computed word {:?}", line, word);
            }
        }
    }
}

// proves: PROOF-3 (the generator above reaches accepted lines, so the property is not vacuous)
#[test]
fn generator_alphabet_reaches_accepted_lines() {
    for line in [
        "cat src/main.rs && wc -l README.md",
        "diff -q src/main.rs README.md 2>/dev/null",
        "grep -q x 'a..b' || test -f src/main.rs",
        "timeout 5 cat README.md | grep -q x",
        "sh -c 'cat README.md'",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}
