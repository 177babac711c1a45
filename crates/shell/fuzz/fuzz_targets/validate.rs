//! Fuzz the proof validator: no panic, an accepted line is plain, and its
//! plan's rendering reads back as the same plan.
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
    if let Some(plan) = verdict.plan() {
        // Quoting can lengthen the line past PROOF-1's bound; otherwise the
        // rendering must read back as exactly this plan.
        let rendered = plan.to_line();
        if rendered.chars().count() <= 400 {
            assert_eq!(ploy_validate::validate(&rendered).plan(), Some(plan));
        }
        let c = ploy_shell::analyze(line).constructs;
        assert!(
            !(c.command_substitution
                || c.backticks
                || c.process_substitution
                || c.parameter_expansion
                || c.background
                || c.parse_error
                || c.newline)
        );
        assert!(line.chars().count() <= 400);
    }
});
