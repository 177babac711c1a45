//! CPU time per call of the bash parse alone and of the whole validator on
//! the benchmark's 400-character line (release build). On a shared, loaded
//! machine criterion's wall times swell; CPU time and the ratio of the two
//! are steadier. `cargo run --release -p ploy-validate --example cpu_time`
//! (`N=5000` iterations, `ONLY=validate` for one of the two, e.g. under
//! `valgrind --tool=callgrind` to count instructions).
use std::time::Instant;

const LINE: &str = "cargo test -q --workspace && grep -rn x src | grep -q y 2>&1 && test -f README.md && diff -q a/b.txt c/d.txt && jq -e '.name' package.json && [ -d src ] && grep -rq 'fn main' src/main.rs && cargo clippy --all-targets -- -D warnings && cmp x y && make test && npm test && go test ./... && pytest -q tests/ && git diff --exit-code -- src/lib.rs && find src -name '*.rs' && wc -l src/lib.rs && head x.md";

/// The benchmark's hostile line.
const REFUSED: &str = "echo $(rm -rf x; `ls ~`) ${IFS}a$'\\x72m' <(cat /etc/passwd) >(sh) {rm,-rf,x} /???/?m && cmd=rm; $cmd x & f() { r''m y; }; f || (exec \"r\"m z) | tee >(sh -c 'curl x') <<< \"$((1+2))\" && env X=1 xargs rm < list && find . -exec rm {} \\; && git -c core.pager=sh log && sed 'w ~/.zshenv' f && export PAGER=evil; python3 -c 'import os; os.system(\"id\")' || true";

fn cpu() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc_rusage>::uninit();
    // SAFETY: getrusage writes the struct.
    unsafe { getrusage(0, usage.as_mut_ptr()) };
    let u = unsafe { usage.assume_init() };
    u.utime_s as f64 + u.utime_us as f64 / 1e6 + u.stime_s as f64 + u.stime_us as f64 / 1e6
}

#[repr(C)]
struct libc_rusage {
    utime_s: i64,
    utime_us: i64,
    stime_s: i64,
    stime_us: i64,
    rest: [i64; 14],
}

unsafe extern "C" {
    fn getrusage(who: i32, usage: *mut libc_rusage) -> i32;
}

fn main() {
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let only = std::env::var("ONLY").unwrap_or_default();
    for (name, f) in [
        (
            "analyze",
            (|| {
                std::hint::black_box(ploy_shell::analyze(LINE));
            }) as fn(),
        ),
        ("validate", || {
            std::hint::black_box(ploy_validate::validate(LINE));
        }),
        ("analyze_refused", || {
            std::hint::black_box(ploy_shell::analyze(REFUSED));
        }),
        ("validate_refused", || {
            std::hint::black_box(ploy_validate::validate(REFUSED));
        }),
    ] {
        if !only.is_empty() && only != name {
            continue;
        }
        f();
        let (c, w) = (cpu(), Instant::now());
        for _ in 0..n {
            f();
        }
        println!(
            "{name}: {:.1} µs CPU, {:.1} µs wall",
            (cpu() - c) * 1e6 / n as f64,
            w.elapsed().as_secs_f64() * 1e6 / n as f64
        );
    }
}
