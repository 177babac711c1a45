//! Cost of finding and reading a project's secret files
//! (`ploy_secrets::sources_secrets`: the bounded walk, the name rule on
//! every entry, reading and parsing what it names). It runs on every hook
//! call that sends something out and at `ploy -p` start, so its cost is a
//! per-call cost. Two trees of about 20,000 files each, made once in a
//! temporary folder:
//! * `node project`: 4,000 source files in 200 folders, a `.git` of 1,000
//!   objects, 15,000 files under `node_modules` (skipped by name), and a
//!   few secret files (`.env`, `config/.env.local`, `.npmrc`, `auth.json`);
//! * `20k source files`: the same, with the 15,000 files in ordinary
//!   folders (nothing skipped: every name is matched against the rule).
//!
//! Run: `cargo bench -p ploy-secrets --bench walk -- --warm-up-time 1
//! --measurement-time 3`.
#![allow(clippy::expect_used, missing_docs)] // benchmark setup

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use ploy_secrets::{SecretSources, sources_secrets};

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("bench folder");
    }
    std::fs::write(path, text).expect("bench file");
}

/// A project tree under `root` (module docs); `deps` names the folder the
/// 15,000 dependency files go to.
fn tree(root: &Path, deps: &str) {
    for folder in 0..200 {
        for file in 0..20 {
            write(
                &root.join(format!("src/mod{folder:03}/file{file:02}.ts")),
                "export const x = 1;\n",
            );
        }
    }
    for object in 0..1000 {
        write(
            &root.join(format!(".git/objects/{:02x}/{object:038x}", object % 256)),
            "x",
        );
    }
    for package in 0..750 {
        for file in 0..20 {
            write(
                &root.join(format!("{deps}/pkg{package:03}/lib/file{file:02}.js")),
                "module.exports = 1;\n",
            );
        }
    }
    write(
        &root.join(".env"),
        "DB_PASSWORD=BenchDbPassw0rd-1\nNODE_ENV=production\nAPI_URL=https://api.example\n",
    );
    write(
        &root.join("config/.env.local"),
        "STRIPE_SECRET=BenchStripe-2222\n",
    );
    write(
        &root.join(".npmrc"),
        "//registry.npmjs.org/:_authToken=npm_BenchToken0123456789abcdefghij\n",
    );
    write(
        &root.join("auth.json"),
        r#"{"github-oauth": {"github.com": "BenchComposerTok3n"}}"#,
    );
    write(&root.join("package.json"), "{\"name\": \"bench\"}\n");
}

fn bench_walk(c: &mut Criterion) {
    let base = std::env::temp_dir().join(format!("ploy-walk-bench-{}", std::process::id()));
    let mut group = c.benchmark_group("project secrets");
    for (name, deps) in [
        ("node project", "node_modules"),
        ("20k source files", "lib"),
    ] {
        let root: PathBuf = base.join(deps);
        tree(&root, deps);
        let sources = SecretSources {
            project: Some(root.clone()),
            ..SecretSources::default()
        };
        // The tree is as expected: its secret files are found.
        let set = sources_secrets(&sources, &|_| None, &|_| false).expect("readable tree");
        assert!(set.values().any(|v| v == "BenchComposerTok3n"), "{set:?}");
        group.bench_function(name, |b| {
            b.iter(|| black_box(sources_secrets(&sources, &|_| None, &|_| false)))
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&base);
}

/// What compiling the secret-file rule's globs (both cases spelled out)
/// with globset costs, as the policy did on every hook call before issue
/// 16, next to matching one path with the rule as it is now (no compile
/// step: `name_globs.rs`).
fn bench_rule_compile(c: &mut Criterion) {
    let globs = ploy_secrets::secret_file_globs();
    let mut group = c.benchmark_group("secret-file rule");
    group.bench_function(format!("compile {} policy globs", globs.len()), |b| {
        b.iter(|| {
            let mut builder = globset::GlobSetBuilder::new();
            for glob in &globs {
                builder.add(
                    globset::GlobBuilder::new(glob)
                        .literal_separator(true)
                        .backslash_escape(true)
                        .build()
                        .expect("the rule's globs compile"),
                );
            }
            black_box(builder.build().expect("the rule's set compiles"))
        })
    });
    group.bench_function("match one path", |b| {
        b.iter(|| {
            black_box(ploy_secrets::secret_file_kind(black_box(
                "src/mod001/file07.ts",
            )))
        })
    });
    group.finish();
}

criterion_group!(benches, bench_walk, bench_rule_compile);
criterion_main!(benches);
