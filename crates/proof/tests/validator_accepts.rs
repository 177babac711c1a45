//! Ordinary proof lines the validator must accept (PROOF-1..5 must not get in
//! the way of real checks).

use ploy_proof::validate::validate;

/// Asserts every line is accepted, reporting all that are not.
fn all_accepted(lines: &[&str]) {
    let refused: Vec<String> = lines
        .iter()
        .filter_map(|line| {
            let verdict = validate(line);
            (!verdict.is_accepted()).then(|| format!("{line:?}: {:?}", verdict.refusals()))
        })
        .collect();
    assert!(
        refused.is_empty(),
        "refused but should be accepted:\n{}",
        refused.join("\n")
    );
}

// proves: PROOF-1, PROOF-2, PROOF-3, PROOF-4, PROOF-5 (the issue's ordinary lines)
#[test]
fn issue_examples_are_accepted() {
    all_accepted(&[
        "cargo test -q",
        "cargo build --release",
        "grep -q \"fn main\" src/main.rs",
        "test -f README.md && test -d src",
        "[ -f x ]",
        "diff -q a b",
        "cmp a b",
        "pytest -q",
        "python3 -c \"assert 1 + 1 == 2\"",
        "node -e \"JSON.parse(require('fs').readFileSync('package.json','utf8'))\"",
        "jq -e '.name' package.json",
        "go test ./...",
        "make test",
        "npm test",
        "git diff --exit-code",
        "cargo test -q 2>&1 | grep -q \"test result: ok\"",
    ]);
}

// proves: PROOF-1..5 (more ordinary checks)
#[test]
fn more_ordinary_lines_are_accepted() {
    all_accepted(&[
        "cargo clippy --all-targets -- -D warnings",
        "cargo fmt --check",
        "cargo test -p ploy-shell --test hard_cases",
        "cargo check --workspace",
        "cargo +nightly test",
        "go vet ./...",
        "go build ./...",
        "npm run lint",
        "npm run test -- --coverage",
        "yarn test",
        "pnpm run build",
        "python3 -m pytest tests/test_api.py -q",
        "python -m unittest discover -s tests",
        "python3 -m mypy src",
        "python3 tests/check_schema.py",
        "node scripts/check.js",
        "ruby test/run.rb",
        "grep -rq 'TODO' src || test -f CHANGELOG.md",
        "! grep -rq 'dbg!' src",
        "test -s dist/app.js",
        "[ -d node_modules/.bin ]",
        "[[ -f Cargo.toml ]]",
        "git status --porcelain",
        "git log -1 --format=%s",
        "git ls-files --error-unmatch src/main.rs",
        "git --no-pager diff --stat",
        "wc -l src/main.rs",
        "head -n 5 README.md | grep -q ploy",
        "find src -name '*.rs' -newer Cargo.toml",
        "rg -q 'fn main' src",
        "sed -n '1,5p' README.md | grep -q Title",
        "awk '/version/ { print $2 }' Cargo.toml | grep -q 0.1",
        "tar -tf dist/release.tar.gz",
        "unzip -l dist/app.zip",
        "cd web && npm test",
        "timeout 60 cargo test -q",
        "env -i cargo test",
        "command cargo test",
        "sh -c 'cargo test -q'",
        "bash scripts/test.sh",
        "eval 'cargo test -q'",
        "time cargo test -q",
        "cargo test 2>/dev/null",
        "cargo test > /dev/null 2>&1",
        "cat package.json | jq -e .scripts.test",
        "perl -ne 'print if /fn main/' src/main.rs | grep -q main",
        "make -C docs html",
        "stat README.md",
        "ls src/main.rs",
        "sort -c sorted.txt",
        "python3 -c \"import json; json.load(open('package.json'))\"",
        "node --test",
        "bash -c \"cargo test -q && cargo clippy\"",
        "! git status --porcelain | grep -q .",
        "cargo test -q 2>&1 | tail -n 1 | grep -q ok",
        "grep -q \"https://example.com\" README.md",
        "jq -e '.version == \"1.0\"' package.json",
        "awk 'NR==1 && /ok/' out.txt",
        "pytest -k \"not slow\"",
        "cargo test --features \"a b\"",
        "grep -c fn src/lib.rs <<< ignored",
        "cargo test -- --test-threads=1",
        "perl -ne 'print if /error/' log.txt",
        "perl -pe 's/a/b/' f | grep -q b",
        "python3 -c \"import sys; assert sys.version_info >= (3, 8)\"",
        "ruby -e 'exit 1 unless 1 + 1 == 2'",
        "php -r 'if (1 + 1 !== 2) { exit(1); }'",
    ]);
}

// proves: PROOF-2 (the sed scanner accepts ordinary read-only scripts)
#[test]
fn ordinary_sed_and_awk_scripts_are_accepted() {
    all_accepted(&[
        "sed -n '1,5p' README.md",
        "sed 's/a/b/g' f | grep -q b",
        "sed -E 's/(a|b)+/x/2' f | grep -q x",
        "sed '/^#/d' f | grep -q x",
        "sed -n '$p' f | grep -q x",
        "sed 'y/abc/xyz/' f | grep -q x",
        "sed -n '/start/,/end/{p}' f | grep -q x",
        "sed '1!G;h;$!d' f | grep -q x",
        "sed -n = f | grep -q 3",
        "sed 's|a/b|c|' f | grep -q c",
        "sed -e 's/a/b/' -e 's/c/d/' f | grep -q d",
        "sed 2q f | grep -q x",
        "sed -n '/x/I p' f | grep -q x",
        "awk -F, '{ print $1 }' data.csv | grep -q x",
        "awk 'NF > 3' data.txt | grep -q x",
        "awk '$1 > 5 { n++ } END { exit n == 0 }' data.txt",
        "awk -v min=3 '$2 >= min' data.txt | grep -q x",
    ]);
}
