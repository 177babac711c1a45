//! B-3: the panel's denial path does the same work whatever failed. Times
//! `Gate::check` for a token wrong in its first byte, one wrong in its last
//! byte, a Host failure (with the right token), the lockout (right token),
//! and the admitted request for reference. `bench/panel_gate.sh` prints the
//! ratios. A benchmark, not a test: two shared cores make timing tests flaky.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use http::{HeaderMap, HeaderValue, Method, Uri, header};
use ploy_service::auth::HostAllowlist;
use ploy_service::panel::gate::{Gate, LOCKOUT_LIMIT};
use sha2::{Digest, Sha256};

const TOKEN: &str = "8f14e45fceea167a5a36dedd4bea2543c4ca4238a0b923820dcc509a6f75849b";

fn headers(host: &str, token: &str) -> HeaderMap {
    let mut map = HeaderMap::new();
    map.insert(header::HOST, HeaderValue::from_str(host).unwrap());
    map.insert(
        header::AUTHORIZATION,
        HeaderValue::from_str(&format!("Bearer {token}")).unwrap(),
    );
    map
}

fn gate() -> (Gate, [u8; 32]) {
    let digest: [u8; 32] = Sha256::digest(TOKEN.as_bytes()).into();
    (
        Gate::new(
            HostAllowlist::for_listener("127.0.0.1:4000".parse().unwrap()),
            digest,
        ),
        digest,
    )
}

fn bench(c: &mut Criterion) {
    let uri: Uri = "/__keys/api/keys".parse().unwrap();
    let first = format!("9{}", &TOKEN[1..]);
    let last = format!("{}c", &TOKEN[..63]);
    let cases = [
        ("wrong_first_byte", headers("127.0.0.1:4000", &first)),
        ("wrong_last_byte", headers("127.0.0.1:4000", &last)),
        ("host_failure", headers("evil.example:4000", TOKEN)),
        ("admitted", headers("127.0.0.1:4000", TOKEN)),
    ];
    let mut group = c.benchmark_group("panel_gate");
    for (name, map) in &cases {
        let (gate, digest) = gate();
        group.bench_function(*name, |b| {
            b.iter(|| {
                let verdict = gate.check(black_box(&Method::GET), black_box(&uri), black_box(map));
                // Every case resets the failure count the same way, so a
                // wrong token never turns into the lockout path mid-run.
                gate.rotate(digest);
                black_box(verdict.is_ok())
            })
        });
    }
    // Locked: the right token after 100 failures (no reset here).
    let (locked, _) = gate();
    let wrong = headers("127.0.0.1:4000", &first);
    for _ in 0..LOCKOUT_LIMIT {
        let _ = locked.check(&Method::GET, &uri, &wrong);
    }
    assert!(locked.is_locked());
    let right = headers("127.0.0.1:4000", TOKEN);
    group.bench_function("locked_right_token", |b| {
        b.iter(|| {
            let verdict = locked.check(black_box(&Method::GET), black_box(&uri), black_box(&right));
            // The other cases' reset takes the gate's lock once more; so
            // does this read, so the cases stay comparable.
            black_box(locked.failures());
            black_box(verdict.is_ok())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
