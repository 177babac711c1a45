//! Lines found by attacking the validator after it worked (issue 12: "find
//! them by attacking the validator yourselves"). Each one was accepted by an
//! earlier version; each is refused now, with the rule that closes it. The
//! corpus only grows.

use ploy_validate::validate;

mod support;

fn all_refused(cases: &[(&str, &str, &str)]) {
    support::all_refused(cases.iter().map(|(line, rule, why)| (*line, *rule, *why)));
}

// proves: PROOF-5 (vacuous passes found by attack)
#[test]
fn vacuous_passes_found_by_attack() {
    all_refused(&[
        (
            "! grep -qm0 x README.md",
            "PROOF-5",
            "-m 0 never matches; negated, always passes",
        ),
        (
            "! grep -q --max-count=0 x README.md",
            "PROOF-5",
            "the same, long form",
        ),
        ("! rg -q -m 0 x src", "PROOF-5", "rg's -m 0"),
        (
            "! head -n 0 README.md | grep -q x",
            "PROOF-5",
            "an empty pipe, negated",
        ),
        (
            "! tail -c 0 README.md | grep -q x",
            "PROOF-5",
            "an empty pipe, negated",
        ),
        (
            "! grep -q x README.md | grep -q .",
            "PROOF-5",
            "grep -q prints nothing",
        ),
        (
            "! cargo test >/dev/null | grep -q x",
            "PROOF-5",
            "output sent to /dev/null before the pipe",
        ),
        ("! test -f x | grep -q .", "PROOF-5", "test prints nothing"),
        (
            "! cmp -s a b | grep -q .",
            "PROOF-5",
            "cmp -s prints nothing",
        ),
        (
            "! git diff --quiet | grep -q .",
            "PROOF-5",
            "git diff --quiet prints nothing",
        ),
        (
            "! find src -false | grep -q .",
            "PROOF-5",
            "find -false prints nothing",
        ),
        (
            "find . -maxdepth 0 | grep -q .",
            "PROOF-5",
            "prints `.` whatever the project holds",
        ),
        (
            "ls -d . | grep -q .",
            "PROOF-5",
            "prints `.` whatever the project holds",
        ),
        (
            "cmp -n 0 README.md LICENSE",
            "PROOF-5",
            "compares zero bytes",
        ),
        ("cmp -i 99999999 a b", "PROOF-5", "skips past both files"),
        ("cmp a b 99999999 99999999", "PROOF-2", "skip operands"),
        ("diff -I '' a b", "PROOF-5", "ignores every line"),
        (
            "diff -N zz1 zz2",
            "PROOF-5",
            "two missing files compare equal",
        ),
        ("diff -r -x '*' a b", "PROOF-5", "excludes everything"),
        ("diff -rX list a b", "PROOF-5", "excludes what a file lists"),
        (
            "make check || ! make -s check",
            "PROOF-5",
            "the same check spelled twice",
        ),
        (
            "make check || ! make --silent --no-print-directory check",
            "PROOF-5",
            "output options only",
        ),
        (
            "grep -q x f || ! grep -c x f",
            "PROOF-5",
            "-q and -c exit alike",
        ),
        ("grep -qi x f || ! grep -yq x f", "PROOF-5", "-y is -i"),
        (
            "cargo test || ! cargo test -q",
            "PROOF-5",
            "quiet is output only",
        ),
        (
            "git diff --quiet || ! git diff --exit-code --stat",
            "PROOF-5",
            "--quiet is --exit-code",
        ),
        (
            "jq -e .a f.json || ! jq -er .a f.json",
            "PROOF-5",
            "-r in a cluster is output only",
        ),
        (
            "diff -q a b || ! diff -u a b",
            "PROOF-5",
            "output formats only",
        ),
        ("git log -1 || ! git log -n1", "PROOF-5", "-1 is -n 1"),
        (
            "./check.sh || ! ./check.sh",
            "PROOF-5",
            "a script joined with its own negation",
        ),
        (
            "test -e a || test ! -f ./a",
            "PROOF-5",
            "a path spelled two ways",
        ),
        (
            "test ! -e a/b -o -e a",
            "PROOF-5",
            "a path below a missing folder cannot exist",
        ),
        ("grep -q '' f | cat", "PROOF-5", "cat decides the pipeline"),
        (
            "find . | grep -q .",
            "PROOF-5",
            "find prints `.` first, whatever the project holds",
        ),
        (
            "find | grep -qx .",
            "PROOF-5",
            "find with no starting point is find .",
        ),
        (
            "ls -a src | grep -q x",
            "PROOF-5",
            "ls -a prints `.` and `..`",
        ),
    ]);
}

// proves: PROOF-2 (programs started behind a checker's back, found by attack)
#[test]
fn hidden_programs_found_by_attack() {
    all_refused(&[
        (
            "git log -1 --format=%G?",
            "PROOF-3",
            "`?` is a glob to the shell",
        ),
        (
            "git log -1 '--format=%G?'",
            "PROOF-2",
            "signature placeholders run gpg",
        ),
        (
            "git log -1 '--pretty=format:%GS'",
            "PROOF-2",
            "the same through --pretty",
        ),
        (
            "git show '--format=%GK' HEAD",
            "PROOF-2",
            "and through git show",
        ),
        (
            "git log '--format=%(describe)'",
            "PROOF-2",
            "%(describe) starts git describe",
        ),
        ("git diff --ext", "PROOF-2", "an abbreviation of --ext-diff"),
        (
            "git log -p --textconv",
            "PROOF-2",
            "text conversion filters are programs",
        ),
        (
            "diff --pag a b",
            "PROOF-2",
            "an abbreviation of --paginate (runs pr)",
        ),
        (
            "rg --search-zip x src",
            "PROOF-2",
            "decompressors are programs",
        ),
        ("yq eval '.a' f.yaml", "PROOF-2", "mikefarah's subcommands"),
    ]);
}

// proves: PROOF-1 (text that reads one way to a person and another to a program)
#[test]
fn deceptive_text_found_by_attack() {
    all_refused(&[
        (
            "grep -q 'a\u{202E}b' f",
            "PROOF-1",
            "right-to-left override",
        ),
        ("grep -q 'a\u{200B}' f", "PROOF-1", "zero-width space"),
        ("grep -q x f\u{2066}", "PROOF-1", "bidi isolate"),
        (
            "grep -q x\u{00A0}f",
            "PROOF-3",
            "a no-break space is not a blank to the shell",
        ),
        ("\u{FEFF}grep -q x f", "PROOF-1", "byte order mark"),
    ]);
}

// proves: PROOF-5 (what PROOF-5 does not see: documented in docs/proofs.md, kept here so a
// change in either direction is noticed)
#[test]
fn documented_limits_of_proof_5() {
    for line in [
        // A pattern that can never match, negated.
        "! grep -qE 'a^' README.md",
        // Contradictory find tests, in an empty pipe, negated.
        "! find src -name a -name b | grep -q .",
        // A JSON filter that is always true: verifies only that the file parses.
        "jq -e true data.json",
        // Narrowing by names the tool refuses when missing, which can name
        // a target, package or test set that holds no test or only passing
        // ones: what runs is on the line, like a test the model wrote
        // that always passes (issue 12's documented grammar gaps).
        "cargo test --test empty",
        "cargo test --no-default-features",
        "pytest -q -k 'not bad'",
        "go test -short ./...",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-5 (project code whose exit status does not decide the line:
// the sandbox attacker's finding #8, `cargo test || ls`, `failing | grep -v
// x`, `failing | grep -c FAILED` reported "proof passed" for failing tests)
#[test]
fn project_code_whose_status_is_thrown_away() {
    let lost = "exit status is lost";
    let negated = "passes when it fails";
    let after_or = "passes without it";
    let before_or = "passes through the fallback";
    let cases: &[(&str, &str)] = &[
        // The attacker's lines.
        ("cargo test || ls src", before_or),
        ("cargo test || git status --short", before_or),
        ("python3 -m pytest -q tests | grep -v zzz", lost),
        ("python3 -m pytest -q tests | grep -c FAILED", lost),
        ("./failing_test.sh | grep -v zzz", lost),
        ("./failing_test.sh | grep -c FAILED", lost),
        // A filter after project code: whatever it prints decides.
        ("cargo test 2>&1 | grep -v x", lost),
        ("cargo test | grep -vc FAILED", lost),
        ("cargo test 2>&1 | grep -q 'test result: ok'", lost),
        ("cargo test 2>&1 | grep -q FAILED", lost),
        ("cargo test 2>&1 | grep -L FAILED", lost),
        ("cargo test 2>&1 | grep -Eq 'x|'", lost),
        ("cargo test 2>&1 | rg -q ok", lost),
        ("cargo test 2>&1 | jq -e .", lost),
        ("cargo test -q 2>&1 | grep -q . && test -f README.md", lost),
        ("make check 2>&1 | grep -v FAILED", lost),
        ("make check | grep -c error", lost),
        ("npm test 2>&1 | grep -q passing", lost),
        ("pnpm run lint | grep -qv error", lost),
        ("go test ./... 2>&1 | grep -q ok", lost),
        ("pytest -q | grep -q passed", lost),
        ("scripts/test.sh 2>&1 | grep -q ok", lost),
        ("./check.sh | ./report.sh", lost),
        // Negated: passes when the tests fail.
        ("! cargo test", negated),
        ("! make check >/dev/null 2>&1", negated),
        ("! ./check.sh", negated),
        ("! cargo test 2>&1 | grep -q FAILED", lost),
        // A fallback after project code.
        ("cargo test || ls", before_or),
        ("cargo test || cat README.md", before_or),
        ("cargo test || wc -l README.md", before_or),
        ("cargo test || find src", before_or),
        ("go test ./... || ls src", before_or),
        ("make check || make test", before_or),
        ("npm test || yarn test", after_or),
        ("cargo test && cargo clippy || test -d src", before_or),
        ("./check.sh || grep -q x README.md", before_or),
        // Project code as the fallback: skipped when the check before passes.
        ("test -f README.md || cargo test", after_or),
        ("grep -q skip-tests README.md || make check", after_or),
        ("test -d src && test -f x || pytest -q", after_or),
    ];
    let misses: Vec<String> = cases
        .iter()
        .filter(|(line, why)| {
            !validate(line)
                .refusals()
                .iter()
                .any(|r| r.rule == "PROOF-5" && r.detail.contains(why))
        })
        .map(|(line, why)| format!("{line:?} should trip PROOF-5 ({why}): {:?}", validate(line)))
        .collect();
    assert!(misses.is_empty(), "{}", misses.join("\n"));
    // Project code whose status decides stays accepted, also after a
    // disjunction of checkers that comes first.
    for line in [
        "cargo test",
        "test -f Cargo.toml && cargo test -q",
        "grep -q a README.md || grep -q b README.md && make check",
        "cargo test && cargo clippy -- -D warnings && grep -q x README.md",
        "cat data.json | ./check.sh",
        "make check >/dev/null 2>&1",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-5 (`git log` and `git show` without a revision exit 0 in any
// repository with a commit: their filters shape the output, not the status)
#[test]
fn git_history_filters_do_not_decide() {
    all_refused(&[
        ("git log", "PROOF-5", "exits 0 with any commit"),
        ("git log -n 1", "PROOF-5", "the same"),
        (
            "git log --grep=feature",
            "PROOF-5",
            "--grep filters output only",
        ),
        (
            "git log --author=alice",
            "PROOF-5",
            "--author filters output only",
        ),
        ("git log --since=yesterday --oneline", "PROOF-5", "the same"),
        (
            "git log -- src/main.rs",
            "PROOF-5",
            "a path after -- can be absent",
        ),
        ("git log --oneline -3 -- README.md", "PROOF-5", "the same"),
        ("git show", "PROOF-5", "shows HEAD"),
        ("git show --stat", "PROOF-5", "the same"),
        ("! git log --grep=wip", "PROOF-5", "negated, never passes"),
        (
            "test -f x || git log",
            "PROOF-5",
            "a fallback that always passes",
        ),
    ]);
    for line in [
        "git log -1 --format=%s | grep -q release",
        "git show v1.0 >/dev/null",
        "git show HEAD:src/main.rs | grep -q main",
        "git log --oneline -3 HEAD -- README.md",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-5, PROOF-4 (the outside attacker's first round, 15:25 UTC:
// /work/coord/attacks/validate.md #1-#3)
#[test]
fn outside_attacker_round_one() {
    all_refused(&[
        // #1: `-` is standard input, /dev/null at the head of a pipeline.
        ("! grep -q x -", "PROOF-5", "grep reads the empty input"),
        ("! grep -q x -- -", "PROOF-5", "the same after --"),
        ("! grep x -", "PROOF-5", "the same, printing"),
        ("! grep -qr x -", "PROOF-5", "the same, recursive"),
        ("! rg -q x -", "PROOF-5", "rg reads the empty input"),
        (
            "! grep -q -f - README.md",
            "PROOF-5",
            "no patterns: never matches",
        ),
        (
            "! grep -q -e x -f - README.md",
            "PROOF-5",
            "the same with -e",
        ),
        ("! grep -q --file=- README.md", "PROOF-5", "the long form"),
        ("! grep -qf- README.md", "PROOF-5", "glued"),
        ("! rg -q -f - README.md", "PROOF-5", "rg's -f"),
        (
            "grep -q x README.md -",
            "PROOF-5",
            "one of the files is empty",
        ),
        ("! diff - README.md", "PROOF-5", "compares with nothing"),
        ("! cmp - README.md", "PROOF-5", "the same"),
        ("! cat - | grep -q x", "PROOF-5", "an empty pipe"),
        ("! wc -l - | grep -q x", "PROOF-5", "the same"),
        ("! head -n1 - | grep -q x", "PROOF-5", "the same"),
        ("! git grep -q -f - x", "PROOF-5", "git grep's -f"),
        (
            "! grep -qr --exclude-from - x src",
            "PROOF-5",
            "a list read from nothing",
        ),
        // #2: jq's and yq's other spelling of the environment.
        ("yq -e '$ENV.PATH' f.json", "PROOF-4", "$ENV is env"),
        ("yq -e '$ENV' f.json", "PROOF-4", "the whole environment"),
        ("jq -e env f.json", "PROOF-4", "jq's env"),
        ("jq -e 'env.HOME' f.json", "PROOF-4", "a variable of it"),
        ("jq -e '$ENV.HOME' f.json", "PROOF-4", "jq's $ENV"),
        ("jq -e '.a | env' f.json", "PROOF-4", "after a pipe"),
        // #3: a folder compared with itself, spelled with a slash.
        ("diff -r src src/", "PROOF-5", "src/ is src"),
        ("diff -r src/ src", "PROOF-5", "the other way"),
        ("diff -q src src//", "PROOF-5", "two slashes"),
        ("diff -r src src/.", "PROOF-5", "a trailing /."),
        ("diff -r src/. src", "PROOF-5", "the other way"),
        (
            "diff -q README.md README.md/",
            "PROOF-5",
            "a file with a slash",
        ),
        ("cmp README.md ./README.md/", "PROOF-5", "cmp too"),
    ]);
    // Input from a pipe is not the empty input; `test` and `find` take `-`
    // as a path; a field named env is data.
    for line in [
        "cat f | grep -q x -",
        "cat f | diff - expected",
        "test -f -",
        "jq -e '.env' f.json",
        "jq -e '.a.env.b' f.json",
        "jq -e '.environment' f.json",
        "diff -r src lib/",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-2, PROOF-4, PROOF-5 (the outside attacker's second round,
// 15:30 UTC: /work/coord/attacks/validate.md #4-#13)
#[test]
fn outside_attacker_round_two() {
    all_refused(&[
        // #4: shell code in a make target (a `test-%:` rule pastes `$*`
        // into a recipe that /bin/sh runs).
        ("make 'test-x;id'", "PROOF-4", "`;` in a target"),
        ("make 'check$(id)'", "PROOF-4", "a substitution"),
        ("make 'check`id`'", "PROOF-4", "backquotes"),
        ("make '$(shell id)'", "PROOF-4", "make's own shell function"),
        ("make 'test-x|id'", "PROOF-4", "a pipe"),
        ("make 'test-x&&id'", "PROOF-4", "a list"),
        ("make 'test x'", "PROOF-4", "a blank"),
        (
            "npm test -- 'x;id'",
            "PROOF-4",
            "the same for npm's script line",
        ),
        ("npm run lint -- '$(id)'", "PROOF-4", "the same"),
        // #5: npm built-ins and --if-present.
        ("npm run env", "PROOF-2", "npm's built-in env"),
        ("yarn run env", "PROOF-2", "the same"),
        ("pnpm run env", "PROOF-2", "the same"),
        ("npm run --if-present zzz", "PROOF-5", "runs nothing"),
        ("npm run zzz --if-present", "PROOF-5", "the same"),
        ("npm test --if-present", "PROOF-5", "the same"),
        // #6, #7: unittest imports whatever it is given.
        (
            "python3 -m unittest",
            "PROOF-5",
            "no tests found passes (3.11)",
        ),
        ("python3 -m unittest -k zzz", "PROOF-5", "the same"),
        ("python3 -m unittest -v", "PROOF-5", "the same"),
        ("python3 -m unittest os", "PROOF-2", "a standard module"),
        ("python3 -m unittest os.path", "PROOF-2", "the same"),
        ("python3 -m unittest __hello__", "PROOF-2", "the same"),
        ("python3 -m unittest venv.__main__", "PROOF-2", "runs venv"),
        ("python3 -m unittest this", "PROOF-2", "runs its top level"),
        (
            "python3 -m unittest test.test_os",
            "PROOF-2",
            "CPython's own suite",
        ),
        (
            "python3 -m unittest tests.__main__",
            "PROOF-2",
            "a __main__",
        ),
        // #8: pytest reads -p after `--`.
        ("pytest tests -- -p this", "PROOF-2", "a plugin import"),
        ("pytest -x -- -p foo", "PROOF-2", "the same"),
        ("pytest -q -- -pthis", "PROOF-2", "glued"),
        ("pytest -- --pyargs", "PROOF-2", "any option after --"),
        (
            "python3 -m pytest tests -- -p this",
            "PROOF-2",
            "through python3 -m",
        ),
        // #9: error messages piped into a filter.
        (
            "ls -d README.md 2>&1 | grep -q .",
            "PROOF-5",
            "errors match .",
        ),
        ("ls -d x 2>&1 | grep x", "PROOF-5", "the error names x"),
        ("wc -c x 2>&1 | grep -q x", "PROOF-5", "the same"),
        ("git log -n 1 2>&1 | grep -q .", "PROOF-5", "the same"),
        (
            "grep -c x README.md 2>&1 | grep -q .",
            "PROOF-5",
            "the same",
        ),
        ("cmp README.md x 2>&1 | grep -q .", "PROOF-5", "the same"),
        ("jq . f.json 2>&1 | grep -q .", "PROOF-5", "the same"),
        ("find src 2>&1 | grep -q src", "PROOF-5", "the same"),
        // #10: a check joined with its own negation, spelled differently.
        ("grep -q x f || ! grep -qe x f", "PROOF-5", "-e PAT is PAT"),
        (
            "grep -q x f || ! grep -q --regexp=x f",
            "PROOF-5",
            "the long form",
        ),
        (
            "grep -q x f || ! grep -qG x f",
            "PROOF-5",
            "-G is the default",
        ),
        ("grep -q x f || ! grep -qa x f", "PROOF-5", "-a"),
        ("grep -q x f || ! grep -q x ./f", "PROOF-5", "./f is f"),
        ("grep -q x f || ! grep -q x f f", "PROOF-5", "a file twice"),
        ("rg -q x f || ! grep -q x f", "PROOF-5", "rg and grep"),
        ("rg -q x f || ! rg -qs x f", "PROOF-5", "-s"),
        ("jq -e .a f.json || ! jq -e .a ./f.json", "PROOF-5", "./"),
        ("diff a b || ! diff b a", "PROOF-5", "symmetric"),
        ("cmp a b || ! cmp b a", "PROOF-5", "symmetric"),
        ("cmp a b || ! diff a b", "PROOF-5", "cmp is diff"),
        (
            "! grep -q x f || grep -q x ./f",
            "PROOF-5",
            "the other order",
        ),
        // #11: a file operand with a trailing slash cannot be read.
        ("! grep -q x README.md/", "PROOF-5", "always an error"),
        ("! grep -q x README.md/.", "PROOF-5", "the same"),
        // #12: git checks with nothing to find.
        (
            "git diff --quiet HEAD HEAD",
            "PROOF-5",
            "a revision with itself",
        ),
        ("git diff --quiet HEAD..HEAD", "PROOF-5", "a range"),
        ("git diff --quiet @..@", "PROOF-5", "the same"),
        ("git diff --quiet ...", "PROOF-5", "the same"),
        ("git diff --quiet HEAD HEAD^0", "PROOF-5", "two revisions"),
        (
            "git diff --quiet --diff-filter=X",
            "PROOF-5",
            "selects nothing",
        ),
        (
            "git diff --quiet --diff-filter=acdmrtuxb",
            "PROOF-5",
            "excludes every kind",
        ),
        ("git ls-files --error-unmatch", "PROOF-5", "no path to miss"),
        ("git ls-files --error-unmatch -o", "PROOF-5", "the same"),
        ("git log -n 0", "PROOF-5", "no revision"),
        ("git log -n1 --format=", "PROOF-5", "the same"),
        ("git log --quiet", "PROOF-5", "the same"),
        ("git show --quiet", "PROOF-5", "the same"),
        (
            "! git grep -q -f - README.md",
            "PROOF-5",
            "patterns from nothing",
        ),
        // #13: rg --json always prints a summary.
        (
            "rg --json zzzz README.md | grep -q .",
            "PROOF-5",
            "summary record",
        ),
        ("rg --json x . | grep -q .", "PROOF-5", "the same"),
    ]);
    for line in [
        "make test-unit",
        "make check lint",
        "npm run test:unit",
        "python3 -m unittest tests.test_x -v",
        "python3 -m unittest tests/test_api.py",
        "python3 -m unittest test_api.TestGet.test_x",
        "python3 -m unittest discover -s tests",
        "pytest -q tests/test_api.py::test_get",
        "make check 2>&1",
        "grep -q x f 2>&1",
        "grep -rq x src/",
        "git ls-files --error-unmatch src/main.rs",
        "git diff --quiet HEAD",
        "git diff --quiet HEAD -- src",
        "git diff --cached --quiet",
        "grep -q a f || grep -q b f",
        "! grep -q TODO src/lib.rs && cargo test",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-2, PROOF-4, PROOF-5 (the outside attacker's third round,
// 15:45 UTC: /work/coord/attacks/validate.md #14-#16, #18, #21; #17 is
// proved in crates/proof/src/proof_run.rs)
#[test]
fn outside_attacker_round_three() {
    all_refused(&[
        // #14: git's format modifiers in front of gpg and describe.
        ("git log -n1 '--format=%+GG'", "PROOF-2", "%+ modifier"),
        ("git log -n1 '--format=% GG'", "PROOF-2", "% modifier"),
        ("git show -s '--format=%-GG' HEAD", "PROOF-2", "%- modifier"),
        ("git log -n1 '--format=%+G?'", "PROOF-2", "the same"),
        ("git log -n1 '--format=%-GS'", "PROOF-2", "the same"),
        ("git log -n1 '--format=%+(describe)'", "PROOF-2", "describe"),
        ("git log -n1 '--format=% (describe)'", "PROOF-2", "the same"),
        // #15: git's sample hooks and other third-party programs.
        (".git/hooks/pre-rebase.sample", "PROOF-2", "a stock hook"),
        (".git/hooks/pre-commit.sample", "PROOF-2", "the same"),
        (".git/hooks/update.sample x y z", "PROOF-2", "the same"),
        (
            "./node_modules/.bin/jest --passWithNoTests",
            "PROOF-2",
            "node_modules",
        ),
        (".venv/bin/pytest -p x", "PROOF-2", "a virtualenv"),
        (".venv/bin/pip install x", "PROOF-2", "the same"),
        ("venv/bin/activate", "PROOF-2", "the same"),
        // #16: interpreters kept in the project.
        (".venv/bin/python -c 'print(1)'", "PROOF-4", "inline code"),
        ("venv/bin/python3 -c 'print(1)'", "PROOF-4", "the same"),
        ("node_modules/.bin/node -e 1", "PROOF-4", "the same"),
        ("bin/sh -c id", "PROOF-4", "a shell"),
        ("x/bash -c id", "PROOF-4", "the same"),
        ("./sh -c id", "PROOF-4", "the same"),
        (
            "tools/python3.11 tests/x.py",
            "PROOF-4",
            "a versioned interpreter",
        ),
        ("bin/check -", "PROOF-4", "a script given standard input"),
        ("scripts/run.sh -c x", "PROOF-4", "inline code to a script"),
        // #18: pipes that print nothing for any real project.
        (
            "! head -c -999999999999 f | grep -q .",
            "PROOF-5",
            "all but 1 TB",
        ),
        (
            "! head -n -999999999999 f | grep -q .",
            "PROOF-5",
            "the same",
        ),
        (
            "! find src -maxdepth -1 | grep -q .",
            "PROOF-5",
            "find refuses it",
        ),
        ("! find src -mindepth x | grep -q .", "PROOF-5", "the same"),
        // #21: negated searches that read no file.
        (
            "! grep -rq -d skip TODO src",
            "PROOF-5",
            "-d skip wins over -r",
        ),
        (
            "! grep -rq --directories=skip TODO src",
            "PROOF-5",
            "the same",
        ),
        (
            "! grep -rq --exclude-dir=src TODO src",
            "PROOF-5",
            "excludes the operand",
        ),
        (
            "! grep -rq --include=zzz TODO src",
            "PROOF-5",
            "includes nothing",
        ),
        (
            "! grep -rq --exclude='*' TODO src",
            "PROOF-5",
            "excludes everything",
        ),
        ("! grep -rqd skip TODO src", "PROOF-5", "in a cluster"),
        ("! rg -q -g '!*' TODO src", "PROOF-5", "rg's glob"),
        ("! rg -q -t zzz TODO src", "PROOF-5", "an unknown type"),
        ("! rg -q --max-depth=0 TODO src", "PROOF-5", "depth 0"),
        ("! rg -q -d 0 TODO src", "PROOF-5", "the same"),
        // #4 update and #22: `|| true` smuggled in.
        ("make 'mentions-zzz||true'", "PROOF-4", "in a make target"),
        ("cargo test || ! grep -q x -", "PROOF-5", "|| with !"),
        ("make check || ls -d x 2>&1 | grep x", "PROOF-5", "after ||"),
        ("npm test || ! grep -q x -", "PROOF-5", "the same"),
        ("./check.sh || ls -d x 2>&1 | grep x", "PROOF-5", "the same"),
        (
            "grep -q zzz README.md || ls -d x 2>&1 | grep x",
            "PROOF-5",
            "2>&1",
        ),
    ]);
    for line in [
        "git log -1 --format=%s | grep -q release",
        "./check.sh",
        "scripts/test.sh",
        "head -n -0 f | grep -q x",
        "find src -maxdepth 2 -name x | grep -q x",
        "! grep -rq TODO src",
        "! rg -quuu TODO src",
        "grep -rq --include='*.rs' TODO src",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-5 (outside attacker's validate #20: an option value the
// program rejects stops it with a usage error, which `!` made a pass in
// every state. The runner now passes `!` only on the program's documented
// "no" (`ploy_validate::Pipeline::negated_status`); a checker without one
// is refused here, since under `!` it could never pass.)
#[test]
fn negation_of_a_checker_without_a_no_answer() {
    all_refused(&[
        ("! head -n 1x f", "PROOF-5", "head has no 'no'"),
        ("! tail -c 1zz f", "PROOF-5", "the same for tail"),
        ("! find src -type z", "PROOF-5", "find fails only on errors"),
        ("! find src -perm zzz", "PROOF-5", "the same"),
        ("! find src -user zzznouser", "PROOF-5", "the same"),
        ("! yq -e '(' f.json", "PROOF-5", "yq's 1 is an error too"),
        ("! yq -e .a f.json", "PROOF-5", "the same, well formed"),
        ("! cat f", "PROOF-5", "cat fails only on errors"),
        ("! wc -l f", "PROOF-5", "the same"),
        ("! ls missing", "PROOF-5", "ls: 2 is trouble"),
        ("! grep -q x f | head -n 1", "PROOF-5", "head decides"),
        ("! grep -q x f | wc -l", "PROOF-5", "wc decides"),
    ]);
    for line in [
        "! grep -q x f",
        "! rg -quuu x src",
        "! test -e x",
        "! cmp -s a b",
        "! diff -q a b",
        "! jq -e .a f.json",
        "! git diff --quiet",
        "! head -n 5 f | grep -q x",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-2, PROOF-3, PROOF-4, PROOF-5 (round four, written attacking
// the validator after validate #19/#20 were fixed, lines not in the corpora
// before, for each class of issue 12: bash/sh disagreements and hidden
// input, abbreviated options with outside paths, option values naming
// programs or folders, launchers, interpreters and inline code, build
// tools' own configuration, lines that verify nothing. Each was refused
// when written; the test keeps it so.)
#[test]
fn outside_attacker_round_four() {
    let cases: &[(&str, &str)] = &[
        ("grep -q $'x' f", "PROOF-3"),
        ("grep -q x {f,g}", "PROOF-3"),
        ("grep -q x f >|/dev/null", "PROOF-3"),
        ("grep -q x f 2>&-", "PROOF-3"),
        ("grep -q x f >/dev/nul", "PROOF-3"),
        ("coproc grep x f", "PROOF-3"),
        ("grep -q x f <<<y", "PROOF-3"),
        ("grep --exclude-fr=/etc/passwd -rq x src", "PROOF-3"),
        ("grep --fil=/etc/passwd x src", "PROOF-2"),
        ("grep -q --exclude-from=../list -r x src", "PROOF-3"),
        ("rg --pre=id x src", "PROOF-2"),
        ("rg -q --pre id x src", "PROOF-2"),
        ("rg -q -z x src", "PROOF-2"),
        ("rg -q --search-zip x src", "PROOF-2"),
        ("git diff --no-index README.md f", "PROOF-3"),
        ("git --exec-path=. log -1", "PROOF-2"),
        ("git log --output=x -1", "PROOF-2"),
        ("git grep -O x", "PROOF-2"),
        ("git grep --open-files-in-pager=id x", "PROOF-2"),
        ("git -C .. diff --quiet", "PROOF-3"),
        ("jq -e . --rawfile x ../x f.json", "PROOF-3"),
        (r#"jq -L .. -e 'import "x" as y; 1' f.json"#, "PROOF-3"),
        ("jq -e --slurpfile x ../x . f.json", "PROOF-3"),
        ("find src -fprintf out x", "PROOF-2"),
        ("find src -fls out", "PROOF-2"),
        ("diff --to-file=../x f", "PROOF-2"),
        ("diff -r --from-file=../x src", "PROOF-2"),
        ("cat ./../x", "PROOF-3"),
        ("wc --files0-from=list", "PROOF-3"),
        ("head -n1 -- ../x", "PROOF-3"),
        (
            r#"cargo test --config 'target.x86_64-unknown-linux-gnu.runner="id"'"#,
            "PROOF-2",
        ),
        ("cargo --config=build.rustc-wrapper=id test", "PROOF-2"),
        ("cargo test -Zunstable-options", "PROOF-2"),
        ("cargo test --manifest-path ../x/Cargo.toml", "PROOF-3"),
        ("npm test --script-shell=id", "PROOF-2"),
        ("npm run --script-shell id test", "PROOF-2"),
        ("go test -exec id ./...", "PROOF-2"),
        ("go test -toolexec=id ./...", "PROOF-2"),
        ("go test -C .. ./...", "PROOF-3"),
        ("pytest --rootdir=.. -q", "PROOF-3"),
        ("pytest -p no:cacheprovider --basetemp=../x", "PROOF-2"),
        ("python3 -m pytest --pyargs os", "PROOF-2"),
        ("make -f ../Makefile check", "PROOF-2"),
        ("make -E 'x:;id' x", "PROOF-4"),
        ("make SHELL=/bin/sh check", "PROOF-2"),
        ("make check SHELL=id", "PROOF-2"),
        ("make -C.. check", "PROOF-2"),
        ("nice grep -q x f", "PROOF-2"),
        ("timeout 5 grep -q x f", "PROOF-2"),
        ("env grep -q x f", "PROOF-2"),
        ("busybox grep -q x f", "PROOF-2"),
        ("flock f grep -q x f", "PROOF-2"),
        ("nohup grep -q x f", "PROOF-2"),
        ("ionice grep -q x f", "PROOF-2"),
        ("taskset 1 grep -q x f", "PROOF-2"),
        ("chrt 1 grep -q x f", "PROOF-2"),
        ("perl -ne print f", "PROOF-2"),
        (r#"awk 'BEGIN{system("id")}'"#, "PROOF-2"),
        ("ruby -e 'puts 1'", "PROOF-2"),
        (r#"php -r 'system("id");'"#, "PROOF-2"),
        (r#"lua -e 'os.execute("id")'"#, "PROOF-2"),
        ("node --input-type=module -e 'x'", "PROOF-2"),
        ("deno eval 'Deno.exit(0)'", "PROOF-2"),
        ("python3 -W ignore -c 'import os'", "PROOF-2"),
        ("jq -n -e true", "PROOF-5"),
        ("yq -n -e 1", "PROOF-2"),
        ("test -d .", "PROOF-5"),
        ("test -e ./", "PROOF-5"),
        ("[ -n x ]", "PROOF-5"),
        ("diff ./f f", "PROOF-5"),
        ("test -e f || test ! -e f", "PROOF-5"),
    ];
    assert!(cases.len() >= 30);
    support::all_refused(cases.iter().map(|(line, rule)| (*line, *rule, "")));
    // Looked at and left accepted, because they are harmless: a count piped
    // into a search depends on the file being there and readable (`grep
    // -c` prints nothing when it is not: the same as `test -r f`).
    for line in ["grep -c '' f | grep -q .", "grep -c x f | grep -qv 0"] {
        assert!(validate(line).is_accepted(), "{line}");
    }
    // A toolchain name picks an installed toolchain; paths are refused.
    for line in ["cargo +./x test", "cargo +../x test", "cargo +x/y test"] {
        assert!(!validate(line).is_accepted(), "{line}");
    }
}

// proves: PROOF-4 (a project script named like an interpreter, launcher or
// tool runs the code its arguments carry; the script check now uses the
// grammar's own interpreter and launcher lists instead of a shorter copy,
// which let these through)
#[test]
fn project_scripts_named_like_a_launcher_or_interpreter() {
    all_refused(&[
        ("./stdbuf -oL x", "PROOF-4", "a launcher"),
        ("bin/setarch x86_64 x", "PROOF-4", "the same"),
        ("./m4 x", "PROOF-4", "an interpreter"),
        ("tools/guile x", "PROOF-4", "the same"),
        ("./xvfb-run x", "PROOF-4", "a launcher"),
        ("scripts/sqlite3 x", "PROOF-4", "an interpreter"),
    ]);
}

// proves: PROOF-1 (characters the validator's own, shorter copy of the
// invisible list missed; the shared `ploy_text::is_invisible` has them)
#[test]
fn invisible_characters_of_the_shared_list() {
    for c in ['\u{FFF0}', '\u{1BCA0}', '\u{1D173}', '\u{E0100}'] {
        let line = format!("grep -q 'a{c}b' README.md");
        let verdict = validate(&line);
        assert!(
            !verdict.is_accepted() && verdict.rules().contains(&"PROOF-1"),
            "U+{:04X}: {verdict:?}",
            u32::from(c)
        );
    }
}

// proves: PROOF-1, PROOF-2, PROOF-3, PROOF-4, PROOF-5 (round five, by the
// validator's own helper, issue 12 "ploy is measured on lines not listed":
// new hostile lines for every class of the issue. The lines of the first
// list were refused already; those of the second were ACCEPTED before
// this round and are closed by it: an argument starting with a dash
// lookalike (PROOF-1), `cat f | diff - f` (the pipe form of attack #3),
// `git log -n 0` printing nothing, `--skip ''`, and a count or header of a
// pipe's input that is printed even when the command before it failed.)
#[test]
fn own_round_five() {
    let refused_already: &[(&str, &str, &str)] = &[
        (
            r#"grep -q x f |& grep -q y"#,
            "PROOF-3",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f >&/dev/null"#,
            "PROOF-3",
            "dash and bash read it differently",
        ),
        (
            r#"! ! grep -q x f"#,
            "PROOF-5",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f | ! grep -q y"#,
            "PROOF-1",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f # && cargo test"#,
            "PROOF-3",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f 0</dev/null"#,
            "PROOF-3",
            "dash and bash read it differently",
        ),
        (
            r#"<f grep -q x"#,
            "PROOF-3",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f 3>/dev/null"#,
            "PROOF-3",
            "dash and bash read it differently",
        ),
        (
            r#"\time grep -q x f"#,
            "PROOF-2",
            "dash and bash read it differently",
        ),
        (
            r#"command grep -q x f"#,
            "PROOF-2",
            "dash and bash read it differently",
        ),
        (
            r#"exec grep -q x f"#,
            "PROOF-2",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f;"#,
            "PROOF-5",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f >/dev/null 2>&1 &&"#,
            "PROOF-1",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f >>/dev/null"#,
            "PROOF-3",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f 1>&2"#,
            "PROOF-3",
            "dash and bash read it differently",
        ),
        (
            r#"grep -q x f 2>/dev/./null"#,
            "PROOF-3",
            "dash and bash read it differently",
        ),
        (
            r#"X=1 grep -q x f"#,
            "PROOF-2",
            "dash and bash read it differently",
        ),
        (r#"make --ign check"#, "PROOF-5", "a GNU long-option prefix"),
        (
            r#"make --just-print check"#,
            "PROOF-5",
            "a GNU long-option prefix",
        ),
        (
            r#"make --ev x check"#,
            "PROOF-4",
            "a GNU long-option prefix",
        ),
        (
            r#"make --fi=../M check"#,
            "PROOF-2",
            "a GNU long-option prefix",
        ),
        (
            r#"make --dir=.. check"#,
            "PROOF-2",
            "a GNU long-option prefix",
        ),
        (r#"git diff --ou=x"#, "PROOF-2", "a GNU long-option prefix"),
        (r#"git diff --textc"#, "PROOF-2", "a GNU long-option prefix"),
        (
            r#"git log --show-sig -1"#,
            "PROOF-2",
            "a GNU long-option prefix",
        ),
        (
            r#"git diff --order=../x"#,
            "PROOF-2",
            "a GNU long-option prefix",
        ),
        (
            r#"git blame --cont=../x f"#,
            "PROOF-2",
            "a GNU long-option prefix",
        ),
        (r#"diff --fr=../x f"#, "PROOF-2", "a GNU long-option prefix"),
        (
            r#"diff --exclude-f=../x -r a b"#,
            "PROOF-5",
            "a GNU long-option prefix",
        ),
        (r#"wc --files0=list"#, "PROOF-3", "a GNU long-option prefix"),
        (
            r#"tail --foll README.md"#,
            "PROOF-2",
            "a GNU long-option prefix",
        ),
        (
            r#"grep --exc=../x -r x src"#,
            "PROOF-2",
            "a GNU long-option prefix",
        ),
        (r#"git diff -O../x"#, "PROOF-3", "a glued short option"),
        (r#"git grep -f../x"#, "PROOF-3", "a glued short option"),
        (
            r#"grep -qf/etc/passwd f"#,
            "PROOF-3",
            "a glued short option",
        ),
        (r#"diff -X../x -r a b"#, "PROOF-5", "a glued short option"),
        (r#"rg -q -f../pats src"#, "PROOF-3", "a glued short option"),
        (r#"make -I.. check"#, "PROOF-3", "a glued short option"),
        (
            r#"make -fMakefile check"#,
            "PROOF-2",
            "a glued short option",
        ),
        (r#"head -c1k ../x"#, "PROOF-3", "a glued short option"),
        (
            r#"cargo --color never clean"#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"cargo -Z x test"#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"npm --prefix .. test"#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"pnpm -C .. test"#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"yarn --cwd /etc test"#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"git --git-dir=../.git log -1"#,
            "PROOF-3",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"go test -C=.. ./..."#,
            "PROOF-3",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"go vet -vettool=id ./..."#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"go test -ldflags=-extld=id ./..."#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"npm test --node-options=--require=../x.js"#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"npm test --userconfig=./npmrc"#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"npm test --ignore-scripts"#,
            "PROOF-2",
            "an option value read as a subcommand or configuration",
        ),
        (
            r#"rg -q -- root ../x"#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"jq -e . f.json ../x"#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"find src -newer ../x"#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"find src -samefile /etc/passwd"#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"test f -ef /etc/passwd"#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"test ../x -nt f"#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"git blame ../x"#,
            "PROOF-2",
            "an operand that must be path-checked",
        ),
        (
            r#"git ls-files ../"#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"cmp f g 1 ../x"#,
            "PROOF-2",
            "an operand that must be path-checked",
        ),
        (
            r#"cat .\./x"#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"cat "..""/x""#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"pytest tests/../../x"#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (
            r#"python3 -m unittest discover -t .."#,
            "PROOF-3",
            "an operand that must be path-checked",
        ),
        (r#"stdbuf -oL grep -q x f"#, "PROOF-2", "a launcher"),
        (r#"setsid grep x f"#, "PROOF-2", "a launcher"),
        (r#"unshare grep x f"#, "PROOF-2", "a launcher"),
        (r#"prlimit grep x f"#, "PROOF-2", "a launcher"),
        (r#"catchsegv grep x f"#, "PROOF-2", "a launcher"),
        (r#"faketime x grep x f"#, "PROOF-2", "a launcher"),
        (r#"dbus-launch grep x f"#, "PROOF-2", "a launcher"),
        (r#"uv run x"#, "PROOF-2", "a launcher"),
        (r#"poetry run x"#, "PROOF-2", "a launcher"),
        (r#"git -c alias.x='!id' x"#, "PROOF-2", "a launcher"),
        (r#"git bisect run id"#, "PROOF-2", "a launcher"),
        (r#"./env id"#, "PROOF-4", "a launcher"),
        (r#"./xargs id"#, "PROOF-4", "a launcher"),
        (
            r#"cat Makefile | make -f /dev/stdin check"#,
            "PROOF-2",
            "code from standard input",
        ),
        (
            r#"cat f.py | python3 -"#,
            "PROOF-2",
            "code from standard input",
        ),
        (r#"cat f | awk -f -"#, "PROOF-2", "code from standard input"),
        (
            r#"cat f.json | jq -f /dev/stdin f.json"#,
            "PROOF-2",
            "code from standard input",
        ),
        (
            r#"cat f | git apply"#,
            "PROOF-2",
            "code from standard input",
        ),
        (
            r#"cat f | pytest -c /dev/stdin"#,
            "PROOF-3",
            "code from standard input",
        ),
        (r#"cat f | go run -"#, "PROOF-2", "code from standard input"),
        (
            r#"pytest -W error::this.Warning"#,
            "PROOF-2",
            "inline code assembled in the line",
        ),
        (
            r#"pytest --pdbcls=os:system --pdb"#,
            "PROOF-2",
            "inline code assembled in the line",
        ),
        (
            r#"python3 -W ignore::venv.__main__.X -m pytest"#,
            "PROOF-2",
            "inline code assembled in the line",
        ),
        (
            r#"python3 -X importtime -m pytest"#,
            "PROOF-2",
            "inline code assembled in the line",
        ),
        (
            r#"pytest -o addopts=-pthis"#,
            "PROOF-2",
            "inline code assembled in the line",
        ),
        (
            r#"make check 'X:=$(shell id)'"#,
            "PROOF-2",
            "inline code assembled in the line",
        ),
        (
            r#"make check MAKEFLAGS=-i"#,
            "PROOF-2",
            "inline code assembled in the line",
        ),
        (
            r#"sed -n '1e id' f"#,
            "PROOF-2",
            "inline code assembled in the line",
        ),
        (
            r#"rg --hostname-bin=id -q x src"#,
            "PROOF-2",
            "inline code assembled in the line",
        ),
        (r#"env -S'sh -c id'"#, "PROOF-2", "env"),
        (r#"env -i grep -q x f"#, "PROOF-2", "env"),
        (r#"grep -q x <<<$(id)"#, "PROOF-3", "a here-string"),
        (r#"cat <<< x | grep -q x"#, "PROOF-3", "a here-string"),
        (r#"diff f <(cat ../x)"#, "PROOF-3", "process substitution"),
        (r#"grep -q x f > >(id)"#, "PROOF-3", "process substitution"),
        (r#"head -n $((1)) f"#, "PROOF-3", "arithmetic expansion"),
        (r#"test $[1] -eq 1"#, "PROOF-3", "arithmetic expansion"),
        (r#"grep -q $((x=1)) f"#, "PROOF-3", "arithmetic expansion"),
        (r#"grep -q $'\x2d\x65' f"#, "PROOF-3", "`$'…'` quoting"),
        (r#"grep -q x$'' f"#, "PROOF-3", "`$'…'` quoting"),
        (r#"grep -q $"x" f"#, "PROOF-3", "`$'…'` quoting"),
        (r#"grep -q x {-r,/}"#, "PROOF-3", "brace expansion"),
        (r#"grep -q -{e,f} x f"#, "PROOF-3", "brace expansion"),
        (r#"grep -q x a{1..3}"#, "PROOF-3", "brace expansion"),
        (r#"grep -q x [-]exec"#, "PROOF-3", "a glob"),
        (r#"grep -q x -- *"#, "PROOF-3", "a glob"),
        (r#"grep -q x f["#, "PROOF-3", "a glob"),
        (r#"grep -q x +(f)"#, "PROOF-3", "a glob"),
        (r#"grep −q x f"#, "PROOF-3", "a dash lookalike"),
        (r#"make -n check"#, "PROOF-5", "verifies nothing"),
        (r#"pytest --co"#, "PROOF-5", "verifies nothing"),
        (r#"go test -n ./..."#, "PROOF-5", "verifies nothing"),
        (r#"cargo test -- --list"#, "PROOF-5", "verifies nothing"),
    ];
    let accepted_before: &[(&str, &str, &str)] = &[
        (r#"cargo test '‐‐release'"#, "PROOF-1", "a dash lookalike"),
        (r#"grep -q '—r' f"#, "PROOF-1", "a dash lookalike"),
        (r#"test -f '－x'"#, "PROOF-1", "a dash lookalike"),
        (r#"pytest '‐x'"#, "PROOF-1", "a dash lookalike"),
        (r#"cat f | diff - f"#, "PROOF-5", "verifies nothing"),
        (r#"cat ./f | cmp - f"#, "PROOF-5", "verifies nothing"),
        (r#"cat f | cat | cmp f -"#, "PROOF-5", "verifies nothing"),
        (
            r#"! git log -n 0 | grep -q x"#,
            "PROOF-5",
            "verifies nothing",
        ),
        (r#"! git log -0 | grep -q x"#, "PROOF-5", "verifies nothing"),
        (r#"cargo test -- --skip ''"#, "PROOF-5", "verifies nothing"),
        (r#"cargo test -- --skip="#, "PROOF-5", "verifies nothing"),
        (
            r#"cat f | wc -l | grep -q '[0-9]'"#,
            "PROOF-5",
            "verifies nothing",
        ),
        (
            r#"cat f | grep -c x | grep -q ."#,
            "PROOF-5",
            "verifies nothing",
        ),
        (
            r#"cat f | head -v | grep -q ."#,
            "PROOF-5",
            "verifies nothing",
        ),
        (
            r#"cat f | grep -L x | grep -q ."#,
            "PROOF-5",
            "verifies nothing",
        ),
        (
            r#"cat f | jq -s length | grep -q ."#,
            "PROOF-5",
            "verifies nothing",
        ),
        (
            r#"git ls-files | wc -l | grep -qx 0"#,
            "PROOF-5",
            "verifies nothing",
        ),
    ];
    assert!(refused_already.len() + accepted_before.len() >= 60);
    all_refused(refused_already);
    all_refused(accepted_before);
    // The honest forms stay accepted: the file compared or counted itself,
    // a pattern that holds a dash inside, a real skip filter.
    for line in [
        "cat f | diff - g",
        "grep -v x f | diff - f",
        "wc -l f | grep -q 3",
        "grep -c x f | grep -qx 2",
        "jq -s length f.json | grep -qx 1",
        "grep -q 'a—b' f",
        "git log -1 --format=%s | grep -q release",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-5 (outside attacker's proof5 #3, #3a, #3b, #10, #10b,
// #10d, #17: lines that passed while the project's tests failed or while
// the project held what the line denied. Every one was ACCEPTED before;
// each is refused now. #4 and #10c depend on what the project holds and
// are refused by `ploy proof run` from `ploy_validate::needed`, tested in
// `needed_names_what_the_project_must_hold` below and in
// crates/proof/src/proof_run.rs.)
#[test]
fn outside_attacker_round_five_proof5() {
    let no_test = "runs no test and passes while the tests fail";
    all_refused(&[
        // #3: test runs that select no test.
        ("go test -count 0 ./...", "PROOF-5", no_test),
        ("go test -count=00 ./...", "PROOF-5", no_test),
        ("go test -run XXX ./...", "PROOF-5", no_test),
        ("go test -run=Zzz .", "PROOF-5", no_test),
        ("go test -skip TestAdd ./...", "PROOF-5", no_test),
        ("go test -bench . -run XXX ./...", "PROOF-5", no_test),
        ("cargo test zzz", "PROOF-5", no_test),
        ("cargo test -q zzz -- --nocapture", "PROOF-5", no_test),
        ("cargo test -- zzz", "PROOF-5", no_test),
        ("cargo test -- --exact zzz", "PROOF-5", no_test),
        ("cargo test -- --ignored", "PROOF-5", no_test),
        ("cargo test --doc", "PROOF-5", no_test),
        ("cargo test --no-run", "PROOF-5", no_test),
        ("cargo test -- --skip test", "PROOF-5", no_test),
        ("cargo test -- --skip adds", "PROOF-5", no_test),
        ("cargo test -- --skip=adds", "PROOF-5", no_test),
        ("cargo test --bench x", "PROOF-5", no_test),
        ("cargo test --benches", "PROOF-5", no_test),
        ("cargo test --example x", "PROOF-5", no_test),
        ("cargo test --examples", "PROOF-5", no_test),
        ("cargo test --bins", "PROOF-5", no_test),
        ("cargo test --bin app", "PROOF-5", no_test),
        (
            "pytest -q --lf",
            "PROOF-5",
            "the last-failed list is a project file",
        ),
        ("python3 -m pytest -q --lf", "PROOF-5", "the same"),
        ("pytest -q --cache-clear --lf", "PROOF-5", "the same"),
        ("pytest --last-failed tests", "PROOF-5", "the same"),
        ("pytest --ff", "PROOF-5", "the same"),
        ("pytest --failed-first", "PROOF-5", "the same"),
        // #3a: unittest on Python 3.11 passes with "Ran 0 tests".
        (
            "python3 -m unittest tests.test_api -k zzz",
            "PROOF-5",
            no_test,
        ),
        (
            "python3 -m unittest discover -s tests -p zzz",
            "PROOF-5",
            no_test,
        ),
        (
            "python3 -m unittest discover -s tests -k zzz",
            "PROOF-5",
            no_test,
        ),
        ("python3 -m unittest discover tests zzz", "PROOF-5", no_test),
        (
            "python3 -m unittest discover -s tests --pattern=zzz",
            "PROOF-5",
            no_test,
        ),
        // #3b: a make target that names a file.
        ("make Makefile", "PROOF-5", "up to date: nothing runs"),
        ("make -s Makefile", "PROOF-5", "the same"),
        ("make README.md", "PROOF-5", "a file with no rule"),
        ("make GNUmakefile", "PROOF-5", "the same"),
        ("make rules.mk", "PROOF-5", "the same"),
        ("make build/app.js", "PROOF-5", "the same"),
        ("make check Makefile", "PROOF-5", "the same"),
        // #10: a negated rg search emptied by the project's ignore files,
        // hidden files or a NUL byte.
        ("! rg -q TODO src", "PROOF-5", "a .ignore with `*`"),
        ("! rg -q TODO .", "PROOF-5", "a .rgignore naming src"),
        ("! rg -qu TODO src", "PROOF-5", "hidden and binary files"),
        ("! rg -quu TODO src", "PROOF-5", "binary files"),
        (
            "! rg -q --no-ignore --hidden TODO src",
            "PROOF-5",
            "the same",
        ),
        ("! rg --files src | grep -q x", "PROOF-5", "rg's file list"),
        ("! grep -rqI TODO src", "PROOF-5", "a NUL byte hides a file"),
        (
            "! grep -rq --binary-files=without-match TODO src",
            "PROOF-5",
            "the same",
        ),
        // #10b: `.gitignore` hides new files from `git status`.
        (
            "! git status --porcelain | grep -q .",
            "PROOF-5",
            ".gitignore `*`",
        ),
        ("! git status -s | grep -q .", "PROOF-5", "the same"),
        (
            "! git status --porcelain --ignored=no | grep -q .",
            "PROOF-5",
            "the same",
        ),
        (
            "! git status --porcelain --ignored -uno | grep -q .",
            "PROOF-5",
            "new files hidden in the line",
        ),
        (
            "! git ls-files -o --exclude-standard | grep -q .",
            "PROOF-5",
            ".gitignore again",
        ),
        // #10d: patterns from a project file.
        (
            "! grep -q -f pats src/main.rs",
            "PROOF-5",
            "an empty pattern file",
        ),
        ("! rg -quuu -f pats src", "PROOF-5", "the same"),
        ("! grep -rq -f pats src", "PROOF-5", "the same"),
        (
            "grep -q -f pats2 src/main.rs",
            "PROOF-5",
            "an empty line matches all",
        ),
        ("grep -q --file=pats f", "PROOF-5", "the same"),
        ("! git grep -q -f pats", "PROOF-5", "git grep's -f"),
        // #17: pipes whose first command prints nothing.
        (
            "! tail -n +99999999999999 src/main.rs | grep -q TODO",
            "PROOF-5",
            "from line 10^14",
        ),
        (
            "! tail -c +1000000 f | grep -q x",
            "PROOF-5",
            "the same, bytes",
        ),
        ("! git log -n 0 HEAD | grep -q .", "PROOF-5", "no commit"),
        (
            "! git log --max-count=0 HEAD | grep -q .",
            "PROOF-5",
            "the same",
        ),
        ("! git log -0 HEAD | grep -q .", "PROOF-5", "the same"),
        ("! git log -00 HEAD | grep -q .", "PROOF-5", "the same"),
        ("! git log -n 00 HEAD | grep -q .", "PROOF-5", "the same"),
        (
            "! git log --skip=999999 -n 1 HEAD | grep -q .",
            "PROOF-5",
            "past every commit",
        ),
        (
            "! find src -mindepth 99 | grep -q .",
            "PROOF-5",
            "deeper than any project",
        ),
        (
            "! find src -mindepth 99 -name main.rs | grep -q .",
            "PROOF-5",
            "the same",
        ),
        (
            "! git log --format= -n 1 HEAD | grep -q .",
            "PROOF-5",
            "an empty format",
        ),
        (
            "! git log --pretty=format: -n 1 HEAD | grep -q .",
            "PROOF-5",
            "the same",
        ),
        (
            "! git show -s --format= HEAD | grep -q .",
            "PROOF-5",
            "the same",
        ),
        (
            "! git log --format=tformat:%n -n 1 HEAD | grep -q .",
            "PROOF-5",
            "only line breaks",
        ),
        (
            "! git ls-files -o -x '*' | grep -q .",
            "PROOF-5",
            "excludes all",
        ),
        (
            "! git diff --name-only --diff-filter=X | grep -q .",
            "PROOF-5",
            "selects no change",
        ),
        // #17, the opposite: a branch header whatever the tree holds.
        ("git status -sb | grep -q .", "PROOF-5", "a branch header"),
        (
            "git status --branch --porcelain | grep -q .",
            "PROOF-5",
            "the same",
        ),
        (
            "git status --porcelain=v2 --branch | grep -q .",
            "PROOF-5",
            "the same",
        ),
        ("git status --long | grep -q .", "PROOF-5", "the long form"),
        ("git status | grep -q .", "PROOF-5", "the same"),
    ]);
    // The honest forms stay accepted.
    for line in [
        "cargo test",
        "cargo test -q --workspace",
        "cargo test -p ploy-shell --test hard_cases",
        "cargo test --lib",
        "cargo test --tests",
        "cargo test --all-targets",
        "cargo test -- --include-ignored",
        "cargo test -- --test-threads=1 --nocapture",
        "go test ./...",
        "go test -count=1 -v ./pkg/...",
        "go test -short -race ./...",
        "pytest -q -k 'not slow' tests",
        "python3 -m pytest -q tests/test_api.py::test_get",
        "python3 -m unittest discover -s tests",
        "python3 -m unittest tests.test_api -v",
        "make check",
        "make -s test-unit",
        "! rg -quuu TODO src",
        "! rg -q --no-ignore --hidden -a TODO src",
        "! grep -rq TODO src",
        "! git status --porcelain --ignored | grep -q .",
        "! git status --porcelain -uall --ignored | grep -q .",
        "git status --porcelain | grep -q .",
        "grep -q -e a -e b f",
        "tail -n +2 data.csv | grep -q x",
        "! find src -mindepth 2 -name x | grep -q .",
        "git log -1 --format=%s | grep -q release",
        "! git log --skip=5 -n 1 HEAD | grep -q .",
        "git diff --quiet -- src",
        "! git grep -q --untracked --no-exclude-standard TODO -- src",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-5 (proof5 #4 and #10c: what `ploy proof run` must find in
// the project before it runs the line, from the validator's own reading)
#[test]
fn needed_names_what_the_project_must_hold() {
    use ploy_validate::{Needed, needed};
    let needs = |line: &str| {
        let verdict = validate(line);
        let plan = verdict
            .plan()
            .unwrap_or_else(|| panic!("{line}: {verdict:?}"));
        needed(plan)
    };
    let path = |p: &str| Needed::Path(p.to_string());
    let module = |m: &str| Needed::PythonModule(m.to_string());
    assert_eq!(needs("git diff --quiet -- zzz"), [path("zzz")]);
    assert_eq!(needs("git diff --exit-code HEAD -- zzz"), [path("zzz")]);
    assert_eq!(
        needs("! git grep -q --untracked --no-exclude-standard TODO -- zzz"),
        [path("zzz")]
    );
    // Every operand of git grep is a path, never a revision (a commit's
    // tree is not the work tree).
    assert_eq!(
        needs("git grep -q TODO src HEAD"),
        [path("src"), path("HEAD")]
    );
    assert_eq!(needs("! git ls-files -m zzz | grep -q ."), [path("zzz")]);
    assert_eq!(needs("git show HEAD:src/main.rs | grep -q x"), []);
    let name = |n: &str| Needed::UnittestName(n.to_string());
    let start = |s: &str| Needed::UnittestStart(s.to_string());
    assert_eq!(
        needs("python3 -m unittest crcmod.test"),
        [module("crcmod"), name("crcmod.test")]
    );
    assert_eq!(
        needs("python3 -m unittest wadllib.tests.test_docs"),
        [module("wadllib"), name("wadllib.tests.test_docs")]
    );
    assert_eq!(
        needs("python3 -m unittest py.test"),
        [module("py"), name("py.test")]
    );
    assert_eq!(
        needs("python3 -m unittest tests/test_api.py"),
        [module("tests"), name("tests/test_api.py")]
    );
    // round6 #2: the start folder must hold a test discovery reaches.
    assert_eq!(
        needs("python3 -m unittest discover -s tests"),
        [start("tests")]
    );
    assert_eq!(needs("python3 -m unittest discover docs"), [start("docs")]);
    assert_eq!(needs("python3 -m unittest discover -v"), [start(".")]);
    assert_eq!(needs("cargo test && grep -q x f"), []);
    assert_eq!(
        needs("make -s check lint"),
        [
            Needed::MakeGoal("check".to_string()),
            Needed::MakeGoal("lint".to_string())
        ]
    );
}

// proves: PROOF-4, PROOF-2 (outside attacker's proof5 #12: project scripts
// named like an interpreter, a loader or an allowed program under another
// spelling, and script arguments that carry shell text; all ACCEPTED
// before)
#[test]
fn project_scripts_round_five() {
    all_refused(&[
        ("bin/ipython x", "PROOF-4", "an interpreter"),
        ("bin/xonsh x", "PROOF-4", "a shell"),
        ("bin/rbash x", "PROOF-4", "a shell"),
        ("bin/sh.distrib x", "PROOF-4", "sh under Debian's name"),
        ("bin/busybox.static sh", "PROOF-4", "busybox"),
        ("bin/ld.so x", "PROOF-4", "the loader runs any program"),
        ("bin/ld-linux-x86-64.so.2 x", "PROOF-4", "the same"),
        ("bin/tcc -run x", "PROOF-4", "compiles and runs C"),
        ("bin/cmake -P x", "PROOF-4", "runs a cmake script"),
        (
            "bin/rg --pre id x",
            "PROOF-4",
            "rg's --pre outside rg's grammar",
        ),
        ("bin/jq -n 1", "PROOF-4", "jq outside its grammar"),
        ("./check.sh 'a;id'", "PROOF-4", "shell text in an argument"),
        ("./check.sh 'a|id'", "PROOF-4", "the same"),
        ("./check.sh 'a b'", "PROOF-4", "the same"),
        ("scripts//x.sh", "PROOF-2", "another spelling"),
        ("scripts/./x.sh", "PROOF-2", "the same"),
    ]);
    for line in ["./check.sh", "scripts/test.sh", "./test", "scripts/grep.sh"] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// proves: PROOF-5 (outside attacker's round6 #2 and #7, and the classes
// they stand for, attacked again by class in session 7: every argument
// that reaches a test runner the validator cannot see, every "select"
// option that can select nothing, every `-m 0`-like count)
#[test]
fn outside_attacker_round_six_and_its_classes() {
    all_refused(&[
        // #2: arguments through npm/pnpm/yarn reach the script's runner
        // (pytest reads `--co` and runs no test).
        ("npm test -- --co", "PROOF-5", "round6 #2"),
        ("npm test -- --collect-only", "PROOF-5", "round6 #2"),
        ("npm test -- --setup-plan", "PROOF-5", "round6 #2"),
        ("npm test -- --fixtures", "PROOF-5", "round6 #2"),
        ("npm test -- --version", "PROOF-5", "round6 #2"),
        ("npm test -- --help", "PROOF-5", "round6 #2"),
        ("npm run test -- --co", "PROOF-5", "round6 #2"),
        ("npm test -- -k ok", "PROOF-5", "round6 #2: narrowing"),
        ("npm test -- zzz", "PROOF-5", "a word: `cargo test zzz`"),
        ("npm test zzz", "PROOF-5", "npm passes words too"),
        (
            "npm run lint -- --fix",
            "PROOF-5",
            "the same for any script",
        ),
        (
            "pnpm test --co",
            "PROOF-5",
            "pnpm passes options after the name",
        ),
        ("pnpm run test --co", "PROOF-5", "the same"),
        ("yarn test --co", "PROOF-5", "yarn too"),
        (
            "yarn test -s",
            "PROOF-5",
            "`-s` after the name is the script's",
        ),
        ("yarn run test -- --co", "PROOF-5", "the same after `--`"),
        // The same class through a project script (`exec pytest "$@"`).
        ("./run_tests.sh --co", "PROOF-5", "a script hands it on"),
        (
            "scripts/test.sh zzz",
            "PROOF-5",
            "a word: `cargo test \"$@\"`",
        ),
        // And through a make goal that starts with `-` (`$*`, `$@`).
        ("make -- -check", "PROOF-2", "a goal read as an option"),
        // #7: git grep's -m 0, and what narrows a negated git grep.
        ("! git grep -q -m 0 TODO", "PROOF-5", "round6 #7"),
        ("! git grep -q --max-count=0 TODO", "PROOF-5", "round6 #7"),
        ("! git grep -qm0 TODO", "PROOF-5", "round6 #7"),
        ("! git grep -q -m 0 TODO -- src", "PROOF-5", "round6 #7"),
        ("git grep -q -m00 TODO", "PROOF-5", "never matches"),
        (
            "! git grep -q --untracked --no-exclude-standard -m 0 TODO",
            "PROOF-5",
            "with the flags a negated git grep needs",
        ),
        (
            "! git grep -q -e TODO --and -e zzz",
            "PROOF-5",
            "round6 #7 related",
        ),
        (
            "! git grep -q --all-match -e TODO -e zzz",
            "PROOF-5",
            "the same",
        ),
        ("! git grep -q --not -e TODO", "PROOF-5", "the same"),
        (
            "! git grep -qI TODO",
            "PROOF-5",
            "a NUL byte makes it binary",
        ),
        (
            "! git grep -q --max-depth=0 TODO",
            "PROOF-5",
            "top folder only",
        ),
        (
            "! git grep -q --cached TODO",
            "PROOF-5",
            "the index, not the files",
        ),
        // A negated git grep reads tracked files only, and `--untracked`
        // skips what a `.gitignore` the project writes names.
        ("! git grep -q TODO", "PROOF-5", "a new file is never read"),
        (
            "! git grep -q --untracked TODO",
            "PROOF-5",
            "`.gitignore` hides",
        ),
        // Empty patterns: every line, and with -v none.
        ("! grep -qv '' README.md", "PROOF-5", "never matches"),
        (
            "grep -q -e x -e '' README.md",
            "PROOF-5",
            "matches every line",
        ),
        ("! rg -uuu -q -v -e '' src", "PROOF-5", "rg's"),
        ("! git grep -qv -e ''", "PROOF-5", "git grep's"),
        // Negated git history listings that can select no commit.
        (
            "! git log --oneline HEAD..HEAD | grep -q .",
            "PROOF-5",
            "an empty range",
        ),
        (
            "! git log --oneline --since=2999-01-01 | grep -q x",
            "PROOF-5",
            "a future date",
        ),
        (
            "! git log --oneline --author=zzz | grep -q x",
            "PROOF-5",
            "nobody",
        ),
        (
            "! git log --format=%s --grep=zzz | grep -q x",
            "PROOF-5",
            "no message",
        ),
        (
            "! git log --format=%s --no-merges --first-parent | grep -q x",
            "PROOF-5",
            "merges left out",
        ),
        (
            "! git log --oneline ^HEAD | grep -q .",
            "PROOF-5",
            "an excluded tip",
        ),
        (
            "! git log --oneline -- new.txt | grep -q .",
            "PROOF-5",
            "an untracked path has no history",
        ),
        (
            "! git status --porcelain --ignored --ignore-submodules=all | grep -q .",
            "PROOF-5",
            "submodule changes hidden",
        ),
        // `--release`-style options: the tests without debug assertions.
        ("cargo test --release", "PROOF-5", "no debug assertions"),
        ("cargo test -r", "PROOF-5", "the short form"),
        ("cargo test --profile=release", "PROOF-5", "the same"),
        ("cargo test --profile bench", "PROOF-5", "any other profile"),
    ]);
    // What a proof can still write for the same checks.
    for line in [
        "npm test",
        "npm -s test",
        "npm test -s",
        "pnpm -s test",
        "npm run test:unit",
        "./run_tests.sh",
        "python3 -m pytest -q tests/test_a.py",
        "! git grep -q --untracked --no-exclude-standard TODO",
        "! git grep -q --untracked --no-exclude-standard -e TODO --or -e FIXME -- src",
        "git grep -q -m 1 TODO",
        "git grep -q TODO -- src",
        "grep -c '' README.md | grep -qv '^0$'",
        "! git log -n 20 --format=%s | grep -q WIP",
        "! git log --skip=5 -n 1 HEAD | grep -q .",
        "cargo test --profile=test",
        "cargo check --release",
        "make check",
    ] {
        assert!(
            validate(line).is_accepted(),
            "{line}: {:?}",
            validate(line).refusals()
        );
    }
}

// Session 8: a fresh hostile corpus by class (issue 12), for every checker
// and build tool of the table. Every line below was refused when written;
// the accepted lines of the same run are in docs/proofs.md (what PROOF-5
// does not see) or run project code inside the sandbox (PROOF-6).

// proves: PROOF-3
#[test]
fn round_eight_bash_read_by_sh() {
    all_refused(&[
        ("grep -q x f &>/dev/null", "PROOF-3", ""),
        ("grep -q x f >&/dev/null", "PROOF-3", ""),
        ("grep -q x f |& grep -q y", "PROOF-3", ""),
        ("grep -q x f 2>&-", "PROOF-3", ""),
        ("grep -q x f 1>&2", "PROOF-3", ""),
        ("grep -q x f 3>/dev/null", "PROOF-3", ""),
        ("grep -q x f 2>/dev/null </dev/null", "PROOF-3", ""),
        ("grep -q x f 0</dev/null", "PROOF-3", ""),
        ("grep -q x f >>/dev/null", "PROOF-3", ""),
        ("grep -q x f >/dev/stdout", "PROOF-3", ""),
        ("grep -q x f >/dev/tty", "PROOF-3", ""),
        ("grep -q x f >/dev/null2", "PROOF-3", ""),
        ("grep -q x f </dev/zero", "PROOF-3", ""),
        ("grep -q x </dev/stdin", "PROOF-3", ""),
        ("grep -q x f 2>/dev/fd/1", "PROOF-3", ""),
    ]);
}

// proves: PROOF-2, PROOF-3
#[test]
fn round_eight_launchers() {
    all_refused(&[
        ("time grep -q x f", "PROOF-3", ""),
        ("bash ./x.sh", "PROOF-2", ""),
        ("sh x.sh", "PROOF-2", ""),
        ("env x", "PROOF-2", ""),
        ("env -i cargo test", "PROOF-2", ""),
        ("nice cargo test", "PROOF-2", ""),
        ("nohup cargo test", "PROOF-2", ""),
        ("timeout 5 cargo test", "PROOF-2", ""),
        ("xargs grep x", "PROOF-2", ""),
        ("stdbuf -o0 grep x f", "PROOF-2", ""),
        ("command grep -q x f", "PROOF-2", ""),
        ("builtin echo", "PROOF-2", ""),
        ("exec grep -q x f", "PROOF-2", ""),
        ("eval grep x", "PROOF-2", ""),
        (". ./x.sh", "PROOF-2", ""),
        ("source ./x.sh", "PROOF-2", ""),
        ("sudo grep x f", "PROOF-2", ""),
        ("busybox grep x f", "PROOF-2", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-5
#[test]
fn round_eight_coreutils() {
    all_refused(&[
        ("test -f x -a -f /etc/passwd", "PROOF-3", ""),
        ("test -f x -o -f ../y", "PROOF-3", ""),
        ("[ -f ~/.ssh/id_rsa ]", "PROOF-3", ""),
        ("test -r /proc/self/environ", "PROOF-3", ""),
        ("test x -ef /etc/passwd", "PROOF-3", ""),
        ("test -f x -nt /etc/shadow", "PROOF-2", ""),
        ("test -e .git/../../x", "PROOF-3", ""),
        ("diff -q --from-file=/etc/passwd a b", "PROOF-2", ""),
        ("diff -q --to-file=../x a", "PROOF-2", ""),
        ("diff -q a ../b", "PROOF-3", ""),
        ("diff -q -r src /etc", "PROOF-3", ""),
        ("diff --pag a b", "PROOF-2", ""),
        ("diff -l a b", "PROOF-2", ""),
        ("diff -q --ignore-matching-lines=x a b", "PROOF-5", ""),
        ("diff -q -X ../x a b", "PROOF-5", ""),
        ("diff -q --exclude-from=../x -r a b", "PROOF-5", ""),
        ("cmp a /etc/passwd", "PROOF-3", ""),
        ("cmp -i 0 a b", "PROOF-5", ""),
        ("cmp --ignore-initial=0:1 a b", "PROOF-5", ""),
        ("wc -l --files0-from=/etc/x", "PROOF-3", ""),
        ("wc -l --files0-from=- ", "PROOF-5", ""),
        ("wc -l --files0-from=x", "PROOF-3", ""),
        ("head -n1 /etc/passwd", "PROOF-3", ""),
        ("head --lines=1 ../x", "PROOF-3", ""),
        ("tail -f x", "PROOF-2", ""),
        ("tail --follow x", "PROOF-2", ""),
        ("tail -F x", "PROOF-2", ""),
        ("tail --pid=1 -f x", "PROOF-2", ""),
        ("tail -s 1 x", "PROOF-2", ""),
        ("cat -v ../x", "PROOF-3", ""),
        ("cat /proc/self/environ", "PROOF-3", ""),
        ("cat /dev/stdin", "PROOF-3", ""),
        ("cat x /etc/passwd", "PROOF-3", ""),
        ("ls -R /", "PROOF-3", ""),
        ("ls ..", "PROOF-3", ""),
        ("ls -d ../*", "PROOF-3", ""),
        ("ls --hyperlink x", "PROOF-2", ""),
        ("ls -la ~", "PROOF-3", ""),
        ("ls -w 1 src", "PROOF-2", ""),
        ("test -O x", "PROOF-2", ""),
        ("test -k x", "PROOF-2", ""),
        ("test -t 0", "PROOF-2", ""),
        ("test -z ''", "PROOF-5", ""),
        ("test -n x", "PROOF-5", ""),
        ("test 1 -eq 1", "PROOF-5", ""),
        ("test \"$(cat x)\" = y", "PROOF-3", ""),
        ("test x = x -o -f y", "PROOF-5", ""),
        ("test -f", "PROOF-5", ""),
        ("test -f x -a", "PROOF-2", ""),
        ("test ! -f x -o -f x", "PROOF-5", ""),
        ("[ -f x ] && [ ! -f x ]", "PROOF-5", ""),
        ("[ -f x -o ! -f x ]", "PROOF-5", ""),
        ("test -e x -a -e ../y", "PROOF-3", ""),
        ("test -f x -a '(' -f y -o -f /z ')'", "PROOF-3", ""),
        ("test --help", "PROOF-5", ""),
        ("[ --version ]", "PROOF-5", ""),
        ("[ ]", "PROOF-5", ""),
        ("test", "PROOF-5", ""),
        ("head -n -1 x", "PROOF-5", ""),
        ("head -n 0x10 x", "PROOF-2", ""),
        ("tail -n 1 --retry x", "PROOF-2", ""),
        ("tail -n 1 --max-unchanged-stats=1 x", "PROOF-2", ""),
        ("tail --sleep-interval=1 x", "PROOF-2", ""),
        ("wc --total=never x", "PROOF-2", ""),
        ("wc x /dev/null", "PROOF-3", ""),
        ("cat x - y", "PROOF-5", ""),
        ("ls --dired x", "PROOF-2", ""),
        ("ls --quoting-style=shell x", "PROOF-2", ""),
        ("ls -I x src", "PROOF-2", ""),
        ("ls --hide=x src", "PROOF-2", ""),
        ("ls --ignore=x src", "PROOF-2", ""),
        ("ls --time-style=+%s src", "PROOF-2", ""),
        ("ls --time-style=posix-x src", "PROOF-2", ""),
        ("ls -D src", "PROOF-2", ""),
        ("ls --zero src", "PROOF-2", ""),
        ("ls -Z src", "PROOF-2", ""),
        ("ls -L src", "PROOF-2", ""),
        ("ls -H src", "PROOF-2", ""),
        (
            "ls --dereference-command-line-symlink-to-dir src",
            "PROOF-2",
            "",
        ),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-5
#[test]
fn round_eight_searches() {
    all_refused(&[
        ("grep --exclude-dir=x -r y /", "PROOF-3", ""),
        ("grep -r y ..", "PROOF-3", ""),
        ("grep -rq y src/../..", "PROOF-3", ""),
        ("grep -q --file=/etc/passwd f", "PROOF-5", ""),
        ("grep -qf/etc/passwd f", "PROOF-5", ""),
        ("grep -q -e x --file ../y f", "PROOF-5", ""),
        ("grep -q --exclude-from=../x -r y src", "PROOF-3", ""),
        ("grep -q --exclude-fr=/x -r y src", "PROOF-3", ""),
        ("grep -q --label=x x -", "PROOF-5", ""),
        ("grep -q -e x -- -f/etc/passwd", "PROOF-3", ""),
        ("grep -q x -- /etc/passwd", "PROOF-3", ""),
        ("grep -q x -- ./../x", "PROOF-3", ""),
        ("grep -q x .//../x", "PROOF-3", ""),
        ("grep -q x src/..", "PROOF-3", ""),
        ("grep -q x 'src/../../x'", "PROOF-3", ""),
        ("grep -q x ./", "PROOF-5", ""),
        ("grep -q x .", "PROOF-5", ""),
        ("rg -q x --pre id src", "PROOF-2", ""),
        ("rg -q x --pre=id src", "PROOF-2", ""),
        ("rg -q --pre-glob '*' x src", "PROOF-2", ""),
        ("rg -q -z x src", "PROOF-2", ""),
        ("rg -q --search-zip x src", "PROOF-2", ""),
        ("rg -q x --ignore-file /etc/x src", "PROOF-3", ""),
        ("rg -q --hostname-bin id x src", "PROOF-2", ""),
        ("rg -q x --config-path ../x src", "PROOF-2", ""),
        ("rg -q -f ../p src", "PROOF-5", ""),
        ("rg -q x --files-from ../x", "PROOF-2", ""),
        ("rg -q x /etc", "PROOF-3", ""),
        ("rg -q x ~", "PROOF-3", ""),
        ("grep -q -NUM x f", "PROOF-2", ""),
        ("grep -q -5 x f", "PROOF-2", ""),
        ("grep -q --context x f", "PROOF-2", ""),
        ("grep -q -C x f", "PROOF-2", ""),
        ("grep -q -e a -e '' f", "PROOF-5", ""),
        ("grep -q -x '' f", "PROOF-5", ""),
        ("grep -q -w '' f", "PROOF-5", ""),
        ("grep -q -F '' f", "PROOF-5", ""),
        ("grep -qF -e '' f", "PROOF-5", ""),
        ("grep -q -e '' -v f", "PROOF-5", ""),
        ("grep -q --regexp= f", "PROOF-5", ""),
        ("grep -q --regexp='' f", "PROOF-5", ""),
        ("grep -qe '' f", "PROOF-5", ""),
        ("grep -q -P '' f", "PROOF-5", ""),
        ("rg -q '' src", "PROOF-5", ""),
        ("rg -q -e '' src", "PROOF-5", ""),
        ("rg -q -F '' src", "PROOF-5", ""),
        ("rg -q --regexp= src", "PROOF-5", ""),
        ("rg -q -e x -e '' src", "PROOF-5", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-5
#[test]
fn round_eight_find() {
    all_refused(&[
        ("find . -newer /etc/passwd", "PROOF-3", ""),
        ("find . -samefile /etc/passwd", "PROOF-3", ""),
        ("find / -name x", "PROOF-3", ""),
        ("find .. -name x", "PROOF-3", ""),
        ("find . -fprint x", "PROOF-2", ""),
        ("find . -fprint0 ../x", "PROOF-2", ""),
        ("find . -fls x", "PROOF-2", ""),
        ("find . -exec id ';'", "PROOF-2", ""),
        ("find . -ok id ';'", "PROOF-2", ""),
        ("find . -delete", "PROOF-2", ""),
        ("find . -files0-from ../x", "PROOF-3", ""),
        ("find -L . -name x", "PROOF-3", ""),
        ("find . -follow", "PROOF-3", ""),
        ("find . -regex '.*' -printf x", "PROOF-2", ""),
        ("find . -name x -print -quit", "PROOF-5", ""),
        ("find . -size -1 -newerXY x", "PROOF-2", ""),
        ("find . -newermt '1 day ago'", "PROOF-2", ""),
        ("find . -newer x -newerat y", "PROOF-2", ""),
        ("find . -D exec -name x", "PROOF-2", ""),
        ("find . -O3 -name x", "PROOF-2", ""),
        ("find src -context x", "PROOF-2", ""),
        (
            "find . -path './.git' -prune -o -name x -print",
            "PROOF-5",
            "",
        ),
        ("find . -name x -fstype proc", "PROOF-5", ""),
        ("find . -name x -xtype l", "PROOF-5", ""),
        ("find . -type l", "PROOF-5", ""),
        ("find . -lname '*'", "PROOF-5", ""),
        ("find . -mount", "PROOF-5", ""),
        ("find . -regextype posix-extended -regex x", "PROOF-5", ""),
        ("find . -newer x", "PROOF-5", ""),
        ("find . -anewer x", "PROOF-5", ""),
        ("find . -used 1", "PROOF-5", ""),
        ("find . -name '*' -exec", "PROOF-2", ""),
        ("find . -maxdepth 1e3", "PROOF-5", ""),
        ("find . -maxdepth -1", "PROOF-5", ""),
        ("find . -mindepth 0x1", "PROOF-5", ""),
        ("find src -D tree", "PROOF-2", ""),
        ("find src -O0", "PROOF-2", ""),
        ("find src -help", "PROOF-5", ""),
        ("find src -version", "PROOF-5", ""),
        ("find src -follow", "PROOF-3", ""),
        ("find src -H", "PROOF-2", ""),
        ("find -H src", "PROOF-3", ""),
        ("find -D help", "PROOF-2", ""),
        ("find src -printf '%p'", "PROOF-2", ""),
        ("find src -fprintf x '%p'", "PROOF-2", ""),
        ("find src -ls", "PROOF-2", ""),
        ("find src -name x -quit", "PROOF-5", ""),
        ("find src -context x", "PROOF-2", ""),
        ("find src -files0-from x", "PROOF-3", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-4, PROOF-5
#[test]
fn round_eight_jq() {
    all_refused(&[
        ("jq -e '$ENV' f.json", "PROOF-4", ""),
        ("jq -e 'env.HOME' f.json", "PROOF-4", ""),
        ("jq -e '.' /etc/x.json", "PROOF-3", ""),
        ("jq -e --rawfile x /etc/passwd '.' f.json", "PROOF-3", ""),
        ("jq -e --slurpfile x ../y '.' f.json", "PROOF-3", ""),
        ("jq -e -L /tmp 'import \"x\" as x; .' f.json", "PROOF-3", ""),
        ("jq -e 'include \"x\"; .' f.json", "PROOF-4", ""),
        ("jq -e -f ../prog.jq f.json", "PROOF-2", ""),
        ("jq -e --from-file prog.jq f.json", "PROOF-2", ""),
        ("jq -e --args '.' f.json x", "PROOF-5", ""),
        ("jq -e --jsonargs '.' f.json 1", "PROOF-5", ""),
        ("jq -n -e 'true'", "PROOF-5", ""),
        ("jq -e -n '1' ", "PROOF-5", ""),
        ("jq -e '.a' -", "PROOF-5", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-4
#[test]
fn round_eight_yq() {
    all_refused(&[
        ("yq -e 'load(\"../x\")' f.yaml", "PROOF-4", ""),
        ("yq -e 'env(HOME)' f.yaml", "PROOF-4", ""),
        ("yq -e 'strenv(HOME)' f.yaml", "PROOF-4", ""),
        ("yq -e '.a' -i f.yaml", "PROOF-2", ""),
        ("yq -i '.a=1' f.yaml", "PROOF-2", ""),
        ("yq -e --from-file=x f.yaml", "PROOF-2", ""),
        ("yq -e 'load_str(\"/etc/passwd\")' f.yaml", "PROOF-4", ""),
        ("yq -e '.a' /etc/x.yaml", "PROOF-3", ""),
        ("yq -e 'eval(.a)' f.yaml", "PROOF-4", ""),
        ("yq e '.a' f.yaml", "PROOF-2", ""),
        ("yq -e '.a' --split-exp x f.yaml", "PROOF-2", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-5
#[test]
fn round_eight_git() {
    all_refused(&[
        ("git diff --exit-code --ext-diff", "PROOF-2", ""),
        ("git diff --ext", "PROOF-2", ""),
        ("git diff --exit-code --textconv", "PROOF-2", ""),
        ("git diff --quiet --output=x", "PROOF-2", ""),
        ("git diff --quiet --no-index /etc/passwd x", "PROOF-3", ""),
        ("git diff --no-index a b", "PROOF-3", ""),
        ("git -C .. diff --quiet", "PROOF-3", ""),
        ("git --git-dir=../x diff --quiet", "PROOF-3", ""),
        ("git --work-tree=/ diff --quiet", "PROOF-3", ""),
        ("git -c core.pager=id log", "PROOF-2", ""),
        ("git --exec-path=. log", "PROOF-2", ""),
        ("git log -1 --format=%H", "PROOF-5", ""),
        ("git log --grep=x -q", "PROOF-2", ""),
        ("git log -p --ext-diff", "PROOF-2", ""),
        ("git show HEAD:../x", "PROOF-3", ""),
        ("git show --textconv HEAD:x", "PROOF-2", ""),
        ("git grep -q --open-files-in-pager=id x", "PROOF-2", ""),
        ("git grep -q -O x", "PROOF-2", ""),
        ("git grep -q --textconv x", "PROOF-2", ""),
        ("git grep -q x --no-index", "PROOF-3", ""),
        ("git grep -q x -- ../x", "PROOF-3", ""),
        ("git grep -q x $(echo)", "PROOF-3", ""),
        ("git blame x", "PROOF-2", ""),
        ("git cat-file -p HEAD:x", "PROOF-2", ""),
        ("git rev-parse --git-dir", "PROOF-2", ""),
        ("git config --get x", "PROOF-2", ""),
        ("git config --file ../x --get y", "PROOF-2", ""),
        ("git log --output=x -1", "PROOF-2", ""),
        ("git archive HEAD", "PROOF-2", ""),
        ("git check-ignore -q x", "PROOF-2", ""),
        ("git fsck", "PROOF-2", ""),
        ("git bisect run id", "PROOF-2", ""),
        ("git difftool", "PROOF-2", ""),
        ("git submodule foreach id", "PROOF-2", ""),
        ("git diff --quiet --relative=.. HEAD", "PROOF-2", ""),
        ("git notes show", "PROOF-2", ""),
        ("git log -L1,1:../x", "PROOF-2", ""),
        ("git log --follow -- ../x", "PROOF-3", ""),
        ("git show --notes=x HEAD", "PROOF-2", ""),
        ("git diff --quiet --submodule=diff", "PROOF-2", ""),
        ("git diff --quiet --color-moved", "PROOF-2", ""),
        ("git diff --quiet -G x", "PROOF-2", ""),
        ("git log --all --source", "PROOF-2", ""),
        ("git log --show-signature -1", "PROOF-2", ""),
        ("git show --show-signature", "PROOF-2", ""),
        ("git log -1 --format=%G?", "PROOF-3", ""),
        ("git log -1 --pretty=format:%GS", "PROOF-2", ""),
        ("git verify-commit HEAD", "PROOF-2", ""),
        ("git verify-tag x", "PROOF-2", ""),
        ("git log --use-mailmap -1", "PROOF-2", ""),
        ("git blame --contents ../x x", "PROOF-2", ""),
        ("git blame -S ../revs x", "PROOF-2", ""),
        ("git blame --ignore-revs-file=../x x", "PROOF-2", ""),
        ("git ls-files --exclude-from=../x -o", "PROOF-3", ""),
        ("git ls-files -X ../x -o", "PROOF-3", ""),
        ("git ls-files --exclude-per-directory=x -o", "PROOF-2", ""),
        ("git diff --quiet --no-ext-diff --ext-diff", "PROOF-2", ""),
        ("git diff --quiet --word-diff-regex=x", "PROOF-2", ""),
        ("git diff --quiet --anchored=x", "PROOF-2", ""),
        ("git diff --quiet -O../orderfile", "PROOF-3", ""),
        ("git diff --quiet -O ../orderfile", "PROOF-3", ""),
        ("git diff --quiet --orderfile=/etc/x", "PROOF-2", ""),
        ("git diff --quiet --skip-to=x", "PROOF-2", ""),
        ("git diff --quiet --rotate-to=x", "PROOF-2", ""),
        ("git diff --quiet --ita-invisible-in-index", "PROOF-2", ""),
        ("git diff --quiet --find-copies-harder", "PROOF-2", ""),
        ("git diff --quiet --merge-base HEAD", "PROOF-2", ""),
        ("git diff --quiet HEAD~1", "PROOF-3", ""),
        ("git diff --quiet @{u}", "PROOF-3", ""),
        ("git diff --quiet HEAD@{yesterday}", "PROOF-3", ""),
        ("git diff --quiet :/x", "PROOF-3", ""),
        ("git diff --quiet HEAD:../x", "PROOF-3", ""),
        ("git log -1 --grep=x --all-match", "PROOF-5", ""),
        ("git log --format=%x00 -1", "PROOF-5", ""),
        ("git log -1 --decorate-refs=x", "PROOF-2", ""),
        ("git log -n1 --notes=../x", "PROOF-2", ""),
        ("git log --glob=x", "PROOF-2", ""),
        ("git log --exclude=x --all", "PROOF-2", ""),
        ("git log --alternate-refs", "PROOF-2", ""),
        ("git log --reflog", "PROOF-2", ""),
        ("git log --walk-reflogs", "PROOF-2", ""),
        ("git log --no-walk", "PROOF-2", ""),
        ("git log --stdin", "PROOF-2", ""),
        ("git log --pickaxe-regex -S x", "PROOF-2", ""),
        ("git log --author=x -1", "PROOF-5", ""),
        ("git show HEAD --output=x", "PROOF-2", ""),
        ("git show --textconv x", "PROOF-2", ""),
        ("git grep -q -f ../x", "PROOF-5", ""),
        ("git grep -q -f x", "PROOF-5", ""),
        ("git grep -q --recurse-submodules x", "PROOF-2", ""),
        ("git grep -q x HEAD:../x", "PROOF-3", ""),
        ("git grep -q x HEAD -- ':(top)../x'", "PROOF-3", ""),
        ("git grep -q x -- ':(attr:x)y'", "PROOF-3", ""),
        ("git grep -q x -- ':!x'", "PROOF-3", ""),
        ("git grep -q x -- ':(glob)**'", "PROOF-3", ""),
        ("git grep -q x -- ':(icase)X'", "PROOF-3", ""),
        ("git diff --quiet -- ':(top)x'", "PROOF-3", ""),
        ("git diff --quiet -- ':/x'", "PROOF-3", ""),
        ("git diff --quiet -- x/../../y", "PROOF-3", ""),
        ("git rev-parse --verify HEAD", "PROOF-2", ""),
        ("git rev-parse --show-toplevel", "PROOF-2", ""),
        ("git rev-list --count HEAD", "PROOF-2", ""),
        ("git cat-file -e HEAD:x", "PROOF-2", ""),
        ("git cat-file --textconv HEAD:x", "PROOF-2", ""),
        ("git cat-file --filters HEAD:x", "PROOF-2", ""),
        ("git cat-file --batch", "PROOF-2", ""),
        ("git ls-tree HEAD", "PROOF-2", ""),
        ("git ls-tree HEAD ../x", "PROOF-2", ""),
        ("git show-ref", "PROOF-2", ""),
        ("git for-each-ref", "PROOF-2", ""),
        ("git describe", "PROOF-2", ""),
        ("git describe --dirty", "PROOF-2", ""),
        ("git tag -l", "PROOF-2", ""),
        ("git branch --list", "PROOF-2", ""),
        ("git merge-base --is-ancestor HEAD HEAD", "PROOF-2", ""),
        ("git check-attr -a x", "PROOF-2", ""),
        ("git check-ignore x", "PROOF-2", ""),
        ("git var -l", "PROOF-2", ""),
        ("git help", "PROOF-2", ""),
        ("git version", "PROOF-2", ""),
        ("git count-objects", "PROOF-2", ""),
        ("git name-rev HEAD", "PROOF-2", ""),
        ("git shortlog -s HEAD", "PROOF-2", ""),
        ("git whatchanged", "PROOF-2", ""),
        ("git range-diff HEAD HEAD", "PROOF-2", ""),
        ("git log --oneline | wc -l | grep -q 5", "PROOF-5", ""),
        ("git status --porcelain --ignored", "PROOF-5", ""),
        ("git status -uall --porcelain", "PROOF-5", ""),
        ("git status --porcelain=v2 --branch", "PROOF-5", ""),
        ("git log --since=x -1", "PROOF-5", ""),
        ("git log --until=1.year -1", "PROOF-5", ""),
        ("git grep -q '' ", "PROOF-5", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-5
#[test]
fn round_eight_cargo() {
    all_refused(&[
        (
            "cargo test -q --config 'target.x.runner=\"id\"'",
            "PROOF-2",
            "",
        ),
        ("cargo test -Zunstable-options", "PROOF-2", ""),
        ("cargo --config x test", "PROOF-2", ""),
        ("cargo +../x test", "PROOF-2", ""),
        ("cargo test --target-dir ../x", "PROOF-3", ""),
        ("cargo test --manifest-path ../Cargo.toml", "PROOF-3", ""),
        ("cargo test --manifest-path /x/Cargo.toml", "PROOF-3", ""),
        (
            "cargo test -q -- --test-threads 1 --logfile x",
            "PROOF-2",
            "",
        ),
        (
            "cargo test -- -Z unstable-options --format json",
            "PROOF-2",
            "",
        ),
        ("cargo test -- --list", "PROOF-5", ""),
        ("cargo test -- --exact x", "PROOF-5", ""),
        ("cargo test -- --skip x", "PROOF-5", ""),
        ("cargo test -- --ignored", "PROOF-5", ""),
        ("cargo test -- --nocapture x", "PROOF-5", ""),
        ("cargo test --benches", "PROOF-5", ""),
        ("cargo test --doc", "PROOF-5", ""),
        ("cargo test --examples", "PROOF-5", ""),
        ("cargo test --no-run", "PROOF-5", ""),
        ("cargo test --target ../x.json", "PROOF-3", ""),
        ("cargo check --build-plan", "PROOF-2", ""),
        ("cargo clippy --fix", "PROOF-2", ""),
        ("cargo clippy -- -D warnings -Z x", "PROOF-2", ""),
        ("cargo clippy -- --cap-lints allow", "PROOF-2", ""),
        ("cargo clippy -- --force-warn x", "PROOF-2", ""),
        ("cargo fmt --check -- --config-path ../x", "PROOF-2", ""),
        ("cargo fmt --check -- --emit files", "PROOF-2", ""),
        ("cargo fmt --check --manifest-path ../x", "PROOF-3", ""),
        ("cargo run", "PROOF-2", ""),
        ("cargo build", "PROOF-2", ""),
        ("cargo bench", "PROOF-2", ""),
        ("cargo test --profile release", "PROOF-5", ""),
        ("cargo test --profile=x", "PROOF-5", ""),
        ("cargo test -r", "PROOF-5", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-5
#[test]
fn round_eight_go() {
    all_refused(&[
        ("go test -exec id ./...", "PROOF-2", ""),
        ("go test -toolexec id ./...", "PROOF-2", ""),
        ("go test -vet=off ./...", "PROOF-2", ""),
        ("go test -run x ./...", "PROOF-5", ""),
        ("go test -count 0 ./...", "PROOF-5", ""),
        ("go test -c ./...", "PROOF-2", ""),
        ("go test -o x ./...", "PROOF-2", ""),
        ("go test -list . ./...", "PROOF-5", ""),
        ("go test -coverprofile=../x ./...", "PROOF-2", ""),
        ("go test -cpuprofile x ./...", "PROOF-2", ""),
        ("go test -outputdir ../x ./...", "PROOF-2", ""),
        ("go test -modfile=../go.mod ./...", "PROOF-3", ""),
        ("go test -mod=mod ./...", "PROOF-2", ""),
        ("go test -overlay=x.json ./...", "PROOF-3", ""),
        ("go test -ldflags=-X ./...", "PROOF-2", ""),
        ("go test -gcflags=all=-N ./...", "PROOF-2", ""),
        ("go test -asmflags=x ./...", "PROOF-2", ""),
        ("go test -pkgdir ../x ./...", "PROOF-2", ""),
        ("go test -C .. ./...", "PROOF-3", ""),
        ("go test -args x", "PROOF-2", ""),
        ("go test ./... -args -test.run=zzz", "PROOF-2", ""),
        ("go test ./... -test.run=zzz", "PROOF-2", ""),
        ("go test ./... -test.count=0", "PROOF-2", ""),
        ("go test ../x", "PROOF-2", ""),
        ("go test /x", "PROOF-2", ""),
        ("go test std", "PROOF-2", ""),
        ("go test all", "PROOF-2", ""),
        ("go vet -vettool=id ./...", "PROOF-2", ""),
        ("go vet ../x", "PROOF-2", ""),
        ("go test -fuzz=x ./...", "PROOF-2", ""),
        ("go test -bench=. ./...", "PROOF-5", ""),
        ("go test -x ./...", "PROOF-5", ""),
        ("go test -n ./...", "PROOF-5", ""),
        ("go test -a ./...", "PROOF-2", ""),
        ("go test -work ./...", "PROOF-2", ""),
        ("go test -i ./...", "PROOF-2", ""),
        ("go test -installsuffix x ./...", "PROOF-2", ""),
        ("go test -linkshared ./...", "PROOF-2", ""),
        ("go test -msan ./...", "PROOF-2", ""),
        ("go test -buildvcs=false ./...", "PROOF-2", ""),
        ("go test -pgo=../x ./...", "PROOF-3", ""),
    ]);
}

// proves: PROOF-2, PROOF-5
#[test]
fn round_eight_node() {
    all_refused(&[
        ("npm test --if-present", "PROOF-5", ""),
        ("npm run-script test", "PROOF-2", ""),
        ("npm t", "PROOF-2", ""),
        ("npm test --prefix ..", "PROOF-2", ""),
        ("npm --prefix .. test", "PROOF-2", ""),
        ("npm test --script-shell=id", "PROOF-2", ""),
        ("npm run env", "PROOF-2", ""),
        ("npm test --ignore-scripts", "PROOF-2", ""),
        ("npm run test --workspace x", "PROOF-2", ""),
        ("npm exec x", "PROOF-2", ""),
        ("npm x id", "PROOF-2", ""),
        ("pnpm -C .. test", "PROOF-2", ""),
        ("pnpm --dir .. test", "PROOF-2", ""),
        ("pnpm test --filter x", "PROOF-5", ""),
        ("pnpm exec id", "PROOF-2", ""),
        ("pnpm dlx id", "PROOF-2", ""),
        ("yarn --cwd .. test", "PROOF-2", ""),
        ("yarn test --cwd ..", "PROOF-5", ""),
        ("yarn node x", "PROOF-2", ""),
        ("yarn exec id", "PROOF-2", ""),
        ("yarn dlx id", "PROOF-2", ""),
        ("yarn workspace x test", "PROOF-2", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-5
#[test]
fn round_eight_python() {
    all_refused(&[
        ("pytest -q /tmp", "PROOF-3", ""),
        ("pytest -q ../tests", "PROOF-3", ""),
        ("pytest -p x", "PROOF-2", ""),
        ("pytest -pno:x", "PROOF-2", ""),
        ("pytest -q --pdb", "PROOF-2", ""),
        ("pytest -q --trace", "PROOF-2", ""),
        ("pytest -q --pdbcls=x:y", "PROOF-2", ""),
        ("pytest -q --override-ini=x", "PROOF-2", ""),
        ("pytest -q -o x=1", "PROOF-2", ""),
        ("pytest -q -c ../x", "PROOF-3", ""),
        ("pytest -q --rootdir=..", "PROOF-3", ""),
        ("pytest -q --confcutdir=..", "PROOF-3", ""),
        ("pytest -q --basetemp=..", "PROOF-3", ""),
        ("pytest -q @args", "PROOF-3", ""),
        ("pytest -q --junitxml=x", "PROOF-2", ""),
        ("pytest -q --junit-xml=x", "PROOF-2", ""),
        ("pytest -q --resultlog=x", "PROOF-2", ""),
        ("pytest -q --co", "PROOF-5", ""),
        ("pytest -q --collect-only", "PROOF-5", ""),
        ("pytest -q --setup-plan", "PROOF-2", ""),
        ("pytest -q --setup-only", "PROOF-2", ""),
        ("pytest -q --fixtures", "PROOF-2", ""),
        ("pytest -q --markers", "PROOF-2", ""),
        ("pytest -q --version", "PROOF-5", ""),
        ("pytest -q -h", "PROOF-5", ""),
        ("pytest -q --lf", "PROOF-5", ""),
        ("pytest -q --last-failed", "PROOF-5", ""),
        ("pytest -q --ff", "PROOF-5", ""),
        ("pytest -q --sw", "PROOF-2", ""),
        ("pytest -q --stepwise", "PROOF-2", ""),
        ("pytest -q --stepwise-skip", "PROOF-2", ""),
        ("pytest -q --nf", "PROOF-2", ""),
        ("pytest -q --new-first", "PROOF-2", ""),
        ("pytest -q --cache-show", "PROOF-2", ""),
        ("pytest -q --deselect x", "PROOF-2", ""),
        ("pytest -q --ignore x", "PROOF-2", ""),
        ("pytest -q --ignore-glob x", "PROOF-2", ""),
        ("pytest -q --continue-on-collection-errors", "PROOF-2", ""),
        ("pytest -q -W ignore", "PROOF-2", ""),
        ("pytest -q --import-mode=append", "PROOF-2", ""),
        ("pytest -q --pyargs x", "PROOF-2", ""),
        ("pytest -q --doctest-modules", "PROOF-2", ""),
        ("pytest -q --doctest-glob='*'", "PROOF-2", ""),
        ("pytest -q --debug", "PROOF-2", ""),
        ("pytest -q --debug=../x", "PROOF-2", ""),
        ("pytest -q --log-file=x", "PROOF-2", ""),
        ("pytest -q --log-file ../x", "PROOF-2", ""),
        ("pytest -q --assert=plain", "PROOF-2", ""),
        ("pytest -q --noconftest", "PROOF-2", ""),
        ("pytest -q --keep-duplicates", "PROOF-2", ""),
        ("pytest -q --code-highlight=no", "PROOF-2", ""),
        ("pytest -q -- -p x", "PROOF-2", ""),
        ("pytest --version", "PROOF-5", ""),
        ("pytest -q tests/../../x", "PROOF-3", ""),
        ("pytest -q tests --rootdir tests", "PROOF-3", ""),
        ("python3 -m pytest -q -p x", "PROOF-2", ""),
        ("python3 -I -m pytest -q", "PROOF-2", ""),
        ("python3 -X importtime -m pytest", "PROOF-2", ""),
        ("python3 -W x -m pytest", "PROOF-2", ""),
        ("python3 -O -m pytest", "PROOF-2", ""),
        ("python3 -u -m pytest", "PROOF-2", ""),
        ("python3 -c 'import os'", "PROOF-2", ""),
        ("python3 -m http.server", "PROOF-2", ""),
        ("python3 -m pip list", "PROOF-2", ""),
        ("python3 -m unittest", "PROOF-5", ""),
        ("python3 -m unittest discover -s ../x", "PROOF-3", ""),
        ("python3 -m unittest discover -t ..", "PROOF-3", ""),
        ("python3 -m unittest discover -p '*'", "PROOF-5", ""),
        ("python3 -m unittest -k x", "PROOF-5", ""),
        ("python3 -m unittest os", "PROOF-2", ""),
        ("python3 -m unittest x.y.z", "PROOF-2", ""),
        ("python3 tests/test_x.py", "PROOF-2", ""),
        ("python3 -m tests.test_x", "PROOF-2", ""),
        ("python3 - <x.py", "PROOF-3", ""),
        ("python3 -mpytest -q", "PROOF-2", ""),
        ("python3 -m pytest -q --pyargs os", "PROOF-2", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-4, PROOF-5
#[test]
fn round_eight_make() {
    all_refused(&[
        ("make -f ../Makefile test", "PROOF-2", ""),
        ("make -fMakefile test", "PROOF-2", ""),
        ("make --file=x test", "PROOF-2", ""),
        ("make --makefile=x test", "PROOF-2", ""),
        ("make -C .. test", "PROOF-2", ""),
        ("make --directory=.. test", "PROOF-2", ""),
        ("make --dir .. test", "PROOF-2", ""),
        ("make -I .. test", "PROOF-3", ""),
        ("make --include-dir=.. test", "PROOF-3", ""),
        ("make test SHELL=/bin/sh", "PROOF-2", ""),
        ("make test CC=id", "PROOF-2", ""),
        ("make -e test", "PROOF-2", ""),
        ("make --environment-overrides test", "PROOF-2", ""),
        ("make --eval='x: ; id' test", "PROOF-4", ""),
        ("make --ev x test", "PROOF-4", ""),
        ("make -E 'x: ; id' test", "PROOF-4", ""),
        ("make -n test", "PROOF-5", ""),
        ("make -q test", "PROOF-5", ""),
        ("make -t test", "PROOF-2", ""),
        ("make -p test", "PROOF-5", ""),
        ("make -i test", "PROOF-5", ""),
        ("make -W x test", "PROOF-2", ""),
        ("make -o x test", "PROOF-2", ""),
        ("make --what-if=x test", "PROOF-2", ""),
        ("make --old-file=x test", "PROOF-2", ""),
        ("make --assume-old=x test", "PROOF-2", ""),
        ("make --new-file=x test", "PROOF-2", ""),
        ("make -d test", "PROOF-2", ""),
        ("make --debug test", "PROOF-2", ""),
        ("make test.o", "PROOF-5", ""),
        ("make ../x", "PROOF-3", ""),
        ("make /x", "PROOF-3", ""),
        ("make 'test;id'", "PROOF-4", ""),
        ("make 'a b'", "PROOF-4", ""),
        ("make Makefile", "PROOF-5", ""),
        ("make --shuffle test", "PROOF-2", ""),
        ("make --shuffle=reverse test", "PROOF-2", ""),
        ("make --sync test", "PROOF-2", ""),
        ("make -v", "PROOF-5", ""),
        ("make --version", "PROOF-5", ""),
        ("make --print-data-base test", "PROOF-5", ""),
        ("make --question test", "PROOF-5", ""),
        ("make --touch test", "PROOF-2", ""),
        ("make --ignore-errors test", "PROOF-5", ""),
        ("make --just-print test", "PROOF-5", ""),
        ("make --dry-run test", "PROOF-5", ""),
        ("make --recon test", "PROOF-5", ""),
        ("make --environment test", "PROOF-2", ""),
    ]);
}

// proves: PROOF-2, PROOF-3, PROOF-4, PROOF-5
#[test]
fn round_eight_program_names() {
    all_refused(&[
        ("./check.sh x", "PROOF-5", ""),
        ("./../x.sh", "PROOF-3", ""),
        ("../x.sh", "PROOF-3", ""),
        ("./.git/hooks/pre-commit", "PROOF-2", ""),
        (".git/hooks/x", "PROOF-2", ""),
        ("./node_modules/.bin/jest", "PROOF-2", ""),
        ("/usr/bin/grep -q x f", "PROOF-2", ""),
        ("./grep -q x f", "PROOF-4", ""),
        ("GREP -q x f", "PROOF-2", ""),
        ("grep\\ -q x f", "PROOF-2", ""),
    ]);
}
