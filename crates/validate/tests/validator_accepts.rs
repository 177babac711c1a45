//! Ordinary proof lines the validator must accept, and the plan each one
//! becomes (PROOF-1..5 must not get in the way of real checks).

use ploy_validate::{ProofPlan, StreamTarget, validate};

/// Asserts every line is accepted, reporting all that are not; returns the plans.
fn all_accepted(lines: &[&str]) -> Vec<ProofPlan> {
    let mut plans = Vec::new();
    let refused: Vec<String> = lines
        .iter()
        .filter_map(|line| match validate(line).plan() {
            Some(plan) => {
                plans.push(plan.clone());
                None
            }
            None => Some(format!("{line:?}: {:?}", validate(line).refusals())),
        })
        .collect();
    assert!(
        refused.is_empty(),
        "refused but should be accepted:\n{}",
        refused.join("\n")
    );
    plans
}

// proves: PROOF-1, PROOF-2, PROOF-3, PROOF-4, PROOF-5 (the issue's ordinary proofs)
#[test]
fn the_issues_ordinary_proofs_are_accepted() {
    let plans = all_accepted(&[
        "cargo test -q",
        "grep -q \"fn main\" src/main.rs",
        "npm test",
        "python3 -m pytest -q tests",
        "test -f README.md && grep -q MIT LICENSE",
        "make check",
        "go test ./...",
        "git diff --quiet",
    ]);
    assert_eq!(
        plans[1].first.commands[0].argv,
        ["grep", "-q", "fn main", "src/main.rs"]
    );
    assert_eq!(plans[4].rest.len(), 1);
}

// proves: PROOF-1..5 (more ordinary checks across the allowlist)
#[test]
fn more_ordinary_lines_are_accepted() {
    all_accepted(&[
        "cargo clippy --all-targets -- -D warnings",
        "cargo clippy --workspace -- -Dwarnings -W clippy::pedantic",
        "cargo fmt --check",
        "cargo fmt --all -- --check",
        "cargo test -p ploy-shell --test hard_cases",
        "cargo check --workspace",
        "cargo +nightly test",
        "cargo --locked test --features 'a b'",
        "cargo check --release",
        "cargo test -- --test-threads=1 --nocapture",
        "cargo test --manifest-path sub/Cargo.toml",
        "go vet ./...",
        "go test -count=1 ./pkg/...",
        "go test -v ./... -short",
        "npm run lint",
        "npm run test:unit",
        "npm --silent test",
        "yarn test",
        "pnpm run build",
        "pytest -q",
        "pytest -x -k 'not slow' tests/test_api.py::test_get",
        "python3 -m pytest tests/test_api.py -q",
        "python3 -m unittest discover -s tests -t .",
        "python3 -m unittest tests.test_x -v",
        "make test",
        "make -j4 -s check",
        "make --silent check lint",
        "make --sil check",
        "./check.sh",
        "scripts/test.sh",
        "grep -rq 'TODO' src || test -f CHANGELOG.md",
        "! grep -rq 'dbg!' src",
        "test -s dist/app.js",
        "[ -d node_modules/.bin ]",
        "[ -f Cargo.toml ] && [ ! -e build.rs ]",
        "test -x scripts/run.sh -a -f Makefile",
        "test src/main.rs -nt Cargo.toml",
        "git status --porcelain | grep -q .",
        "! git status --porcelain --ignored | grep -q .",
        "git log -1 --format=%s | grep -q release",
        "git log -3 --oneline HEAD",
        "git show v1.0 >/dev/null",
        "git show -s HEAD^",
        "git ls-files --error-unmatch src/main.rs",
        "git --no-pager diff --exit-code -- src/lib.rs",
        "git show HEAD:src/main.rs | grep -q main",
        "git grep -q -e 'fn main' -- src",
        "git diff --cached --quiet",
        "wc -l src/main.rs",
        "head -n 5 README.md | grep -q ploy",
        "tail -n 1 CHANGELOG.md | grep -q 1.0",
        "cat package.json | jq -e .scripts.test",
        "find src -name '*.rs' -newer Cargo.toml",
        "find src tests -type f -name '*.py' -print | grep -q test_",
        "rg -q 'fn main' src",
        "rg -q -t rust unwrap src",
        "cat README.md",
        "ls src/main.rs",
        "ls -la dist",
        "diff -q expected.txt actual.txt",
        "diff -u a/b.txt c/d.txt >/dev/null",
        "cmp -s a.bin b.bin",
        "jq -e '.name' package.json",
        "jq -e '.version == \"1.0\"' package.json",
        "jq -r --arg n x '.name == $n' package.json",
        "yq -e '.name' config.yaml",
        "grep -c fn src/lib.rs",
        "grep -q \"https://example.com\" README.md",
        "grep -q /usr/bin Makefile",
        "grep -q '^version = ' Cargo.toml",
        "grep -q x f 2>/dev/null",
        "cargo test > /dev/null 2>&1",
        "grep -q !! f",
        "grep -q 'a!b' f",
        "grep -q x\\ y f",
        "grep -q -- -x f",
        "grep -qe -x f",
        "grep --quiet --fixed-strings x f",
        "grep --col=never -q x f",
        "test -f a && test -f b && test -f c && test -f d && test -f e",
    ]);
}

// proves: PROOF-3 (redirections become the plan's stream targets, in bash's order)
#[test]
fn redirections_become_stream_targets() {
    let plan = validate("grep -rq x src 2>&1 && make check >/dev/null 2>&1")
        .plan()
        .cloned()
        .unwrap();
    assert_eq!(plan.first.commands[0].stderr, StreamTarget::Stdout);
    assert_eq!(plan.first.commands[0].stdout, StreamTarget::Inherit);
    let make = &plan.rest[0].1.commands[0];
    assert_eq!(
        (make.stdout, make.stderr),
        (StreamTarget::Null, StreamTarget::Null)
    );
    let plan = validate("make check 2>/dev/null").plan().cloned().unwrap();
    assert_eq!(plan.first.commands[0].stderr, StreamTarget::Null);
}

// proves: PROOF-6 (a plan's rendering reads back as the same plan)
#[test]
fn rendered_plans_read_back_identically() {
    for line in [
        "grep -q \"fn main\" src/main.rs",
        "! grep -rq 'dbg!' src",
        "grep -rn x src | grep -q 'test result: ok' && git diff --quiet >/dev/null 2>&1 || grep -q y f 2>&1 && make check >/dev/null 2>&1",
        "jq -e '.version == \"1.0\"' package.json",
        "grep -q \"it's\" f",
        "grep -q x\\ y f",
        "[ -f x ]",
        "test ! -f x",
    ] {
        let plan = validate(line).plan().cloned().unwrap();
        let rendered = plan.to_line();
        assert_eq!(
            validate(&rendered).plan(),
            Some(&plan),
            "{line} -> {rendered}"
        );
    }
}
