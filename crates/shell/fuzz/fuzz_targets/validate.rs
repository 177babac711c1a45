//! Fuzz the proof validator: no panic, and an accepted line is plain.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // See analyze.rs: panics caught inside ploy-shell are not crashes.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let verdict = ploy_proof::validate::validate(line);
    if verdict.is_accepted() {
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
