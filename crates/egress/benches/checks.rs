//! Check benchmarks: the URL text check (target: median < 5 µs per URL), the
//! scrubber on a 110-character phrase (target: median < 20 µs), and reading
//! this machine's addresses from the kernel, which the fetcher does at every
//! hop and again at the dial (URL-2; it must stay far below a connection's
//! milliseconds), and the secret door's check per request (BEYOND-6).

#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ploy_egress::{check_url_text, scrub};
use ploy_secrets::Redactor;

const URLS: &[&str] = &[
    "https://docs.rs/tokio/latest/tokio/time/fn.timeout.html",
    "https://en.wikipedia.org/wiki/Server-side_request_forgery?action=raw#History",
    "http://0x7f000001/",
    "http://[::ffff:127.0.0.1]/admin",
    "http://user:pass@example.com/",
    "https://metadata.google.internal./computeMetadata/v1/",
    "https://b\u{fc}cher.example/katalog?q=rust",
    "http://93.184.215.14:8080/index.html",
];

fn text_check(c: &mut Criterion) {
    c.bench_function("url_text_check/per_url", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % URLS.len();
            black_box(check_url_text(black_box(URLS[i])).is_ok())
        })
    });
}

fn scrubber(c: &mut Criterion) {
    // 110 characters carrying an e-mail, an address, a path and a key.
    let phrase = "tokio timeout bob@acme.io 10.0.0.7 /home/bob/app.log token=abc123def456 ghp_16C7e42F292c6912E7710c838347Ae1 xy";
    assert_eq!(phrase.chars().count(), 110);
    let clean = "rust tokio runtime timeout error 504 when calling an upstream server from an axum handler under heavy load now";
    assert_eq!(clean.chars().count(), 110);
    let (redactor, _) =
        Redactor::new(["correct-horse-battery-staple-42", "another-secret-value-99"]);
    c.bench_function("scrub/110_chars_sensitive", |b| {
        b.iter(|| black_box(scrub(black_box(phrase), &redactor)))
    });
    c.bench_function("scrub/110_chars_clean", |b| {
        b.iter(|| black_box(scrub(black_box(clean), &redactor)))
    });
    // Non-ASCII text: the regex engine's fast path for word boundaries is
    // ASCII-only, so this is the slow case.
    let unicode: String = "Fehlermeldung beim Kompilieren mit gcc 13 auf Linux: ungültige Größe, Übergabe schlägt fehl – エラー ошибка x86 ok"
        .chars()
        .take(110)
        .collect();
    assert_eq!(unicode.chars().count(), 110);
    c.bench_function("scrub/110_chars_unicode", |b| {
        b.iter(|| black_box(scrub(black_box(&unicode), &redactor)))
    });
}

fn own_addresses(c: &mut Criterion) {
    c.bench_function("local_addresses/read_now", |b| {
        b.iter(|| black_box(ploy_egress::ThisMachine::now().map(|m| m.addresses().len())))
    });
    let public: std::net::IpAddr = "93.184.215.14"
        .parse()
        .unwrap_or(std::net::IpAddr::from([0; 4]));
    c.bench_function("local_addresses/check_one_address", |b| {
        b.iter(|| {
            black_box(ploy_egress::check_not_this_machine(
                black_box(&[public]),
                "`example.com` resolves to",
                ploy_egress::Stage::Resolve,
            ))
        })
    });
}

/// BEYOND-6: the door's check per request with 100 known secrets (what
/// every hop pays before resolution), and building the door once.
fn secret_door(c: &mut Criterion) {
    let secrets: Vec<String> = (0..100)
        .map(|i| format!("sk-bench-{i:03}-Qx7vLm2pR9tW4yZ8aB3c"))
        .collect();
    let door = ploy_egress::SecretDoor::new(&secrets);
    let url = "https://en.wikipedia.org/w/api.php?action=query&generator=search&gsrsearch=rust+tokio+timeout+error&prop=extracts%7Cinfo&format=json";
    c.bench_function("door/check_url_100_secrets", |b| {
        b.iter(|| black_box(door.check_text(ploy_egress::Part::Url, black_box(url), true)))
    });
    let body = br#"{"query":"rust tokio timeout error when calling an upstream","search_depth":"basic","max_results":5,"include_answer":false,"include_images":false}"#;
    c.bench_function("door/check_json_body_100_secrets", |b| {
        b.iter(|| black_box(door.check_body(black_box(body))))
    });
    c.bench_function("door/build_100_secrets", |b| {
        b.iter(|| black_box(ploy_egress::SecretDoor::new(black_box(&secrets))))
    });
}

criterion_group!(benches, text_check, scrubber, own_addresses, secret_door);
criterion_main!(benches);
