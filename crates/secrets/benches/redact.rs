//! Throughput of the redactor: one-shot on clean text, on text with secrets,
//! and streaming through `redact_stream`, with 1 and 100 secrets.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ploy_secrets::{Redactor, SecretSet};

/// `count` distinct key-like secrets.
fn secrets(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            format!(
                "sk-bench-{i:04}-{:016x}",
                (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            )
        })
        .collect()
}

/// About `size` bytes of log-like text; every `every` lines holds a secret.
fn corpus(size: usize, secrets: &[String], every: usize) -> String {
    let mut text = String::with_capacity(size + 256);
    let mut line = 0usize;
    while text.len() < size {
        text.push_str("2026-11-29T16:00:00Z INFO request id=4f2a path=/api/v1/items status=200 bytes=5123 é✓ ");
        if every > 0 && line.is_multiple_of(every) && !secrets.is_empty() {
            text.push_str(&secrets[line / every % secrets.len()]);
        }
        text.push('\n');
        line += 1;
    }
    text
}

fn bench_redact(c: &mut Criterion) {
    let size = 8 << 20;
    for count in [1usize, 100] {
        let keys = secrets(count);
        let (redactor, _) = Redactor::new(&keys);
        let clean = corpus(size, &keys, 0);
        let dirty = corpus(size, &keys, 1000);
        let mut group = c.benchmark_group(format!("redact/{count}-secrets"));
        group.throughput(Throughput::Bytes(size as u64));
        group.sample_size(10);
        group.bench_function("one-shot clean", |b| {
            b.iter(|| black_box(redactor.redact(black_box(&clean)).len()))
        });
        group.bench_function("one-shot 1 secret per 1000 lines", |b| {
            b.iter(|| black_box(redactor.redact(black_box(&dirty)).len()))
        });
        group.bench_function("stream 1 secret per 1000 lines", |b| {
            let mut out = Vec::with_capacity(size + 1024);
            b.iter(|| {
                out.clear();
                let read = redactor.redact_stream(dirty.as_bytes(), &mut out);
                black_box(read.map(|_| out.len()).unwrap_or(0))
            })
        });
        group.finish();
    }
}

/// A typical developer environment: 50 variables, 3 of them secrets
/// (an API key by name, a token by shape, a database URL).
fn typical_env() -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = (0..47)
        .map(|i| (format!("VAR_{i}"), format!("/usr/lib/value-{i}:/opt/bin")))
        .collect();
    vars.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    vars.push((
        "OPENAI_API_KEY".into(),
        "sk-proj-T3BlbkFJq8Zr2mVw9xLc4nPd7sKe1Hy".into(),
    ));
    vars.push(("GH".into(), "ghp_R4nd0mT0k3nF0rT3st1ngPurp0s3s0nly1".into()));
    vars.push((
        "DATABASE_URL".into(),
        "postgres://app:Sup3rS3cretDbPw@db.internal:5432/app".into(),
    ));
    vars
}

/// Construction cost (a process builds its redactor at start: the hook,
/// `ploy -p`): the set from a typical environment, then the compiled redactor.
fn bench_construct(c: &mut Criterion) {
    let vars = typical_env();
    let mut group = c.benchmark_group("construct");
    group.bench_function("set from 50 env vars", |b| {
        b.iter(|| black_box(SecretSet::from_env(black_box(vars.clone()), &|_| false).len()))
    });
    let set = SecretSet::from_env(vars.clone(), &|_| false);
    group.bench_function("redactor of a typical env (3 secrets)", |b| {
        b.iter(|| black_box(set.redactor()))
    });
    let hundred = secrets(100);
    group.bench_function("redactor of 100 secrets", |b| {
        b.iter(|| black_box(Redactor::new(black_box(&hundred)).0))
    });
    group.finish();
}

criterion_group!(benches, bench_redact, bench_construct);
criterion_main!(benches);
