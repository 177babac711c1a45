//! Property tests: the analyser never panics, and its summary is consistent,
//! on arbitrary input (PROOF-1: whatever the line, a verdict can be made).

use proptest::prelude::*;

/// Shell-flavoured fragments, so random lines exercise the parser's deep paths
/// rather than only plain words.
fn shellish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "rm", "echo", "x", " ", "'", "\"", "\\", "$", "$(", ")", "(", "`", "{", "}", ",", "..",
        "*", "?", "[", "]", "~", "<", ">", ">>", "&", "&&", "||", "|", ";", "\n", "<<<", "<<EOF\n",
        "EOF", "$'\\x72'", "${", "=", "!", "#", "-c", "<(", ">(", "((", "))", "if", "then", "fi",
        "for", "do", "done", "case", "esac", "in", "f()",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    // proves: PROOF-1 (no panic on arbitrary text)
    #[test]
    fn never_panics_on_arbitrary_text(line in any::<String>()) {
        let _ = ploy_shell::analyze(&line);
    }

    // proves: PROOF-1, PROOF-3 (no panic; a static word never carries an expansion)
    #[test]
    fn shellish_lines_are_consistent(line in shellish()) {
        let summary = ploy_shell::analyze(&line);
        prop_assert_eq!(summary.parse_error.is_some(), summary.constructs.parse_error);
        for command in &summary.commands {
            for word in command.program.iter().chain(command.args.iter()) {
                if word.value.is_some() {
                    prop_assert!(!word.flags.has_expansion(), "{:?}", word);
                }
            }
        }
        if line.contains('\n') {
            prop_assert!(summary.constructs.newline);
        }
    }
}
