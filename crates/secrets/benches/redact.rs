//! Throughput of the redactor: one-shot on clean text, on text with secrets,
//! and streaming through `redact_stream`, with 1 and 100 secrets.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ploy_secrets::Redactor;

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

criterion_group!(benches, bench_redact);
criterion_main!(benches);
