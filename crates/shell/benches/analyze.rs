//! Shell summary of a 400-character line (issue 2 target: median under 50 µs).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// A realistic long proof-style line of about 400 characters.
const LINE_400: &str = "cargo test -q --workspace 2>&1 | grep -q \"test result: ok\" && test -f README.md && diff -q a/b.txt c/d.txt && jq -e '.name' package.json && [ -d src ] && grep -rq 'fn main' src/main.rs && cargo build --release && cmp x y && make test && npm test && go test ./... && pytest -q tests/ && node -e \"JSON.parse(require('fs').readFileSync('package.json','utf8'))\" && git diff --exit-code -- src/lib.rs";

/// A hostile line of about 400 characters full of expansions and nesting.
const HOSTILE_400: &str = "echo $(rm -rf x; `ls ~`) ${IFS}a$'\\x72m' <(cat /etc/passwd) >(sh) {rm,-rf,x} /???/?m && cmd=rm; $cmd x & f() { r''m y; }; f || (exec \"r\"m z) | tee >(sh -c 'curl x') <<< \"$((1+2))\" && env X=1 xargs rm < list && find . -exec rm {} \\; && git -c core.pager=sh log && sed 'w ~/.zshenv' f && export PAGER=evil; for i in a b; do rm $i; done; [[ -f $HOME/x ]] && echo done >> ../f && cat ../../etc/shadow";

fn bench(c: &mut Criterion) {
    assert!(
        (380..=420).contains(&LINE_400.len()),
        "ordinary line is {} chars",
        LINE_400.len()
    );
    assert!(
        (380..=460).contains(&HOSTILE_400.len()),
        "hostile line is {} chars",
        HOSTILE_400.len()
    );
    c.bench_function("analyze_400_ordinary", |b| {
        b.iter(|| ploy_shell::analyze(black_box(LINE_400)))
    });
    // The parser alone, for scale: the summary's own cost is the difference.
    c.bench_function("brush_parse_only_400_ordinary", |b| {
        b.iter(|| {
            let options = brush_parser::ParserOptions::default();
            let mut parser = brush_parser::Parser::new(
                std::io::BufReader::new(black_box(LINE_400).as_bytes()),
                &options,
            );
            parser.parse_program()
        })
    });
    c.bench_function("analyze_400_hostile", |b| {
        b.iter(|| ploy_shell::analyze(black_box(HOSTILE_400)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
