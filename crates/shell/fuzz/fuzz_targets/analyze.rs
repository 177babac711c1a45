//! Fuzz the shell summary: no panic, and its invariants hold on any input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else { return };
    let summary = ploy_shell::analyze(line);
    assert_eq!(summary.parse_error.is_some(), summary.constructs.parse_error);
    for command in &summary.commands {
        for word in command.program.iter().chain(command.args.iter()) {
            // A static value never coexists with an expansion.
            assert!(word.value.is_none() || !word.flags.has_expansion());
        }
    }
});
