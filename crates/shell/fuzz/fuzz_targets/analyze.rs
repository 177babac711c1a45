//! Fuzz the shell summary: no panic, its invariants hold on any input, and
//! the fast path for plain lines agrees with the full parse.
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
    // The fast path for plain lines must give exactly the full parse's
    // summary (src/plain.rs). A line that met the watchdog's deadline in
    // either run is not compared: that answer depends on the machine's load.
    let full = ploy_shell::analyze_by_parser(line);
    let timed_out = |s: &ploy_shell::CommandLine| {
        s.parse_error
            .as_deref()
            .is_some_and(|e| e.contains("longer than") || e.contains("still being parsed"))
    };
    if !timed_out(&summary) && !timed_out(&full) {
        assert_eq!(summary, full, "line {line:?}");
    }
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
