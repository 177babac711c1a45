//! Shared by the validator's test files (each includes it with `mod support;`).

use ploy_validate::validate;

/// Asserts every line is refused with (at least) its rule, reporting all
/// misses at once. The third field says why the line matters ("" for none).
pub fn all_refused<'a>(cases: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) {
    let misses: Vec<String> = cases
        .into_iter()
        .filter_map(|(line, rule, why)| {
            let verdict = validate(line);
            let ok = !verdict.is_accepted() && verdict.rules().contains(&rule);
            (!ok).then(|| format!("{line:?} {why} should trip {rule}, got {verdict:?}"))
        })
        .collect();
    assert!(
        misses.is_empty(),
        "{} misses:\n{}",
        misses.len(),
        misses.join("\n")
    );
}
