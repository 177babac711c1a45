//! Fuzz the proof validator (issue 12): no panic and always a verdict (a
//! refusal carries a reason); an accepted line is plain (no substitution,
//! expansion, glob, brace expansion, `~`, here-document, background job,
//! parse error or line break as bash reads it, at most 400 characters:
//! PROOF-3), and its plan's rendering reads back as the same plan (PROOF-6).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // See analyze.rs: panics caught inside ploy-shell are not crashes.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let verdict = ploy_validate::validate(line);
    assert!(verdict.is_accepted() || !verdict.refusals().is_empty());
    if let Some(plan) = verdict.plan() {
        // Quoting can lengthen the line past PROOF-1's bound; otherwise the
        // rendering must read back as exactly this plan.
        let rendered = plan.to_line();
        if rendered.chars().count() <= ploy_validate::MAX_PROOF_CHARS {
            assert_eq!(ploy_validate::validate(&rendered).plan(), Some(plan));
        }
        let c = ploy_shell::analyze(line).constructs;
        assert!(
            !(c.command_substitution
                || c.backticks
                || c.process_substitution
                || c.parameter_expansion
                || c.arithmetic_expansion
                || c.glob
                || c.brace_expansion
                || c.tilde
                || c.heredoc
                || c.herestring
                || c.background
                || c.parse_error
                || c.newline),
            "accepted {line:?} with {c:?}"
        );
        assert!(line.chars().count() <= ploy_validate::MAX_PROOF_CHARS);
    }
});
