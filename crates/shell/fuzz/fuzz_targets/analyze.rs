//! Fuzz the shell summary: no panic, and its invariants hold on any input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // ploy-shell catches panics inside brush-parser on purpose (they read as a
    // parse error). libFuzzer's hook would abort on those caught panics too;
    // silence it, so only a panic escaping analyze() (caught and turned into
    // an abort by fuzz_target!) counts as a crash.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let summary = ploy_shell::analyze(line);
    assert_eq!(
        summary.parse_error.is_some(),
        summary.constructs.parse_error
    );
    for command in &summary.commands {
        for word in command.program.iter().chain(command.args.iter()) {
            // A static value never coexists with an expansion.
            assert!(word.value.is_none() || !word.flags.has_expansion());
        }
    }
});
