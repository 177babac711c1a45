//! Validation of a 400-character proof line (issue 12 target: under 100 µs).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// An ordinary, accepted line of 400 characters or a little less.
const ACCEPTED_400: &str = "cargo test -q --workspace && grep -rn x src | grep -q y 2>&1 && test -f README.md && diff -q a/b.txt c/d.txt && jq -e '.name' package.json && [ -d src ] && grep -rq 'fn main' src/main.rs && cargo clippy --all-targets -- -D warnings && cmp x y && make test && npm test && go test ./... && pytest -q tests/ && git diff --exit-code -- src/lib.rs && find src -name '*.rs' && wc -l src/lib.rs && head x.md";

/// A hostile line of about 400 characters that trips many rules.
const REFUSED_400: &str = "echo $(rm -rf x; `ls ~`) ${IFS}a$'\\x72m' <(cat /etc/passwd) >(sh) {rm,-rf,x} /???/?m && cmd=rm; $cmd x & f() { r''m y; }; f || (exec \"r\"m z) | tee >(sh -c 'curl x') <<< \"$((1+2))\" && env X=1 xargs rm < list && find . -exec rm {} \\; && git -c core.pager=sh log && sed 'w ~/.zshenv' f && export PAGER=evil; python3 -c 'import os; os.system(\"id\")' || true";

fn bench(c: &mut Criterion) {
    assert!(
        ACCEPTED_400.len() <= 400 && ACCEPTED_400.len() > 380,
        "{}",
        ACCEPTED_400.len()
    );
    assert!(
        ploy_validate::validate(ACCEPTED_400).is_accepted(),
        "{:?}",
        ploy_validate::validate(ACCEPTED_400).refusals()
    );
    assert!(!ploy_validate::validate(REFUSED_400).is_accepted());
    c.bench_function("validate_400_accepted", |b| {
        b.iter(|| ploy_validate::validate(black_box(ACCEPTED_400)))
    });
    // The bash parse alone, for scale: the rest is the reader, the grammar
    // and PROOF-5.
    c.bench_function("analyze_only_400_accepted", |b| {
        b.iter(|| ploy_shell::analyze(black_box(ACCEPTED_400)))
    });
    c.bench_function("validate_400_refused", |b| {
        b.iter(|| ploy_validate::validate(black_box(REFUSED_400)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
