//! Validation of a 400-character proof line (issue 4 target: median under 100 µs).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// An ordinary, accepted line of about 400 characters.
const ACCEPTED_400: &str = "cargo test -q --workspace 2>&1 | grep -q \"test result: ok\" && test -f README.md && diff -q a/b.txt c/d.txt && jq -e '.name' package.json && [ -d src ] && grep -rq 'fn main' src/main.rs && cargo build --release && cmp x y && make test && npm test && go test ./... && pytest -q tests/ && node -e \"JSON.parse(require('fs').readFileSync('package.json','utf8'))\" && git diff --exit-code -- src/lib.rs";

/// A hostile line of about 400 characters that trips many rules.
const REFUSED_400: &str = "echo $(rm -rf x; `ls ~`) ${IFS}a$'\\x72m' <(cat /etc/passwd) >(sh) {rm,-rf,x} /???/?m && cmd=rm; $cmd x & f() { r''m y; }; f || (exec \"r\"m z) | tee >(sh -c 'curl x') <<< \"$((1+2))\" && env X=1 xargs rm < list && find . -exec rm {} \\; && git -c core.pager=sh log && sed 'w ~/.zshenv' f && export PAGER=evil; python3 -c 'import os; os.system(\"id\")' || true";

fn bench(c: &mut Criterion) {
    assert!(ploy_proof::validate::validate(ACCEPTED_400).is_accepted());
    assert!(!ploy_proof::validate::validate(REFUSED_400).is_accepted());
    c.bench_function("validate_400_accepted", |b| {
        b.iter(|| ploy_proof::validate::validate(black_box(ACCEPTED_400)))
    });
    // The shell summary alone, for scale: the rules' own cost is the difference.
    c.bench_function("analyze_only_400_accepted", |b| {
        b.iter(|| ploy_shell::analyze(black_box(ACCEPTED_400)))
    });
    c.bench_function("validate_400_refused", |b| {
        b.iter(|| ploy_proof::validate::validate(black_box(REFUSED_400)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
