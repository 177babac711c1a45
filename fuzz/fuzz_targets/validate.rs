//! The proof validator on arbitrary text (issue 12): it never panics and
//! always gives a verdict (a refusal carries at least one reason); an
//! accepted line holds none of the constructs a plan cannot carry
//! (expansions, substitutions, globs, `~`, background jobs: PROOF-3); and
//! an accepted plan's rendering reads back as the very same plan (PROOF-6:
//! what runs is what was checked).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ploy_validate::validate;

fuzz_target!(|data: &[u8]| {
    // ploy-shell catches panics inside the third-party bash parser by
    // design (a panic there is "not parsed", a refusal); libFuzzer's hook
    // would abort on those caught panics too. A silent hook keeps them
    // caught, while a panic that escapes `validate` still unwinds out of
    // this closure and libfuzzer-sys reports it as a crash.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let verdict = validate(line);
    assert!(verdict.is_accepted() || !verdict.refusals().is_empty());
    let Some(plan) = verdict.plan() else {
        return;
    };
    let c = ploy_shell::analyze(line).constructs;
    assert!(
        !(c.background
            || c.parameter_expansion
            || c.command_substitution
            || c.backticks
            || c.process_substitution
            || c.arithmetic_expansion
            || c.glob
            || c.brace_expansion
            || c.tilde
            || c.heredoc
            || c.herestring),
        "accepted {line:?} with {c:?}"
    );
    let rendered = plan.to_line();
    if rendered.chars().count() <= ploy_validate::MAX_PROOF_CHARS {
        let again = validate(&rendered);
        assert_eq!(again.plan(), Some(plan), "{line:?} renders as {rendered:?}");
    }
});
