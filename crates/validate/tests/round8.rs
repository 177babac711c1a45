//! Round 8's outside findings on the validator (issue 12): each line got
//! past it, and each must now be refused with its rule, while its honest
//! twin stays accepted.

use ploy_validate::{ProofRefusal as Refusal, pytest_config_refusals, validate};

mod support;

fn accepted(lines: &[&str]) {
    let refused: Vec<String> = lines
        .iter()
        .filter_map(|line| {
            let verdict = validate(line);
            (!verdict.is_accepted()).then(|| format!("{line:?}: {verdict:?}"))
        })
        .collect();
    assert!(refused.is_empty(), "refused:\n{}", refused.join("\n"));
}

// proves: PROOF-5 (round8 #1a: a negated search's file selection is judged
// on the option glibc resolves, not its spelling)
#[test]
fn round8_1a_abbreviated_narrowing_options_are_resolved() {
    support::all_refused([
        ("! grep -rq TODO src '--incl=*.rs'", "PROOF-5", "--include"),
        ("! grep -rq TODO src --inc=zzz", "PROOF-5", "--include"),
        ("! grep -rq TODO src --dir=skip", "PROOF-5", "--directories"),
        (
            "! grep -q TODO src/a.rs --dir=skip",
            "PROOF-5",
            "--directories",
        ),
        (
            "! grep -rq TODO src --exclude-d=src",
            "PROOF-5",
            "--exclude-dir",
        ),
        (
            "! grep -rq TODO src --exclude-f=x",
            "PROOF-5",
            "--exclude-from",
        ),
        ("! grep -rq TODO src --dev=skip", "PROOF-5", "--devices"),
        ("! grep -rqd skip TODO src", "PROOF-5", "-d in a cluster"),
        ("! rg -uuu -q TODO src -g '!*'", "PROOF-5", "rg --glob"),
        ("! rg -uuu -q TODO src --max-depth 0", "PROOF-5", "rg"),
        // Ambiguous prefixes are refused (glibc refuses them too).
        (
            "grep -q --exclude x src/a.rs --ex=a",
            "PROOF-2",
            "ambiguous",
        ),
    ]);
    accepted(&[
        "grep -rq '--incl=*.rs' TODO src",
        "! grep -rq TODO src",
        "! rg -uuu -q TODO src",
    ]);
}

// proves: PROOF-5 (round8 #1b: counts are compared by value, suffixes
// included: `+1M` starts past a million lines)
#[test]
fn round8_1b_counts_with_suffixes_are_judged_by_value() {
    support::all_refused([
        ("tail -n +1M f.txt | grep -q x", "PROOF-5", "1M lines"),
        ("tail -n +100k f.txt | grep -q x", "PROOF-5", "102,400"),
        ("tail -c +1G f.txt | grep -q x", "PROOF-5", "bytes"),
        ("tail --lines=+1MiB f.txt | grep -q x", "PROOF-5", "KiB"),
        ("tail -n +200b f.txt | grep -q x", "PROOF-5", "b = 512"),
        ("tail -n +100KB f.txt | grep -q x", "PROOF-5", "KB = 1000"),
        ("head -n 0k f.txt | grep -q x", "PROOF-5", "zero"),
        ("head -c 0M f.txt | grep -q x", "PROOF-5", "zero"),
        (
            "head -n -1K f.txt | grep -q x",
            "PROOF-5",
            "all but the last",
        ),
        ("tail -n 1x f.txt | grep -q x", "PROOF-2", "no such suffix"),
        ("tail -n 1g f.txt | grep -q x", "PROOF-2", "no lowercase g"),
        ("tail -n 1KiBB f.txt | grep -q x", "PROOF-2", "garbage"),
    ]);
    accepted(&[
        "tail -n +2 f.txt | grep -q x",
        "tail -n +97k f.txt | grep -q x",
        "tail -n 1M f.txt | grep -q x",
        "head -n 1K f.txt | grep -q x",
        "head -n -0 f.txt | grep -q x",
    ]);
}

// proves: PROOF-5, PROOF-2 (round8 #1c: a git format that prints nothing
// the repository decides has a fixed output)
#[test]
fn round8_1c_constant_git_formats_check_nothing() {
    support::all_refused([
        ("git log -n 1 --format=%+ | grep -q .", "PROOF-5", "%+"),
        (
            "git log -n 1 --format=%Creset | grep -q .",
            "PROOF-5",
            "colour",
        ),
        ("git log -n 1 --format=%x41 | grep -q A", "PROOF-5", "hex"),
        (
            "git log --pretty=tformat:%n%x20 | grep -q ' '",
            "PROOF-5",
            "",
        ),
        ("git log --format='%C(red)x%m' | grep -q x", "PROOF-5", ""),
        ("git log --format='%<(5)%x41' | grep -q A", "PROOF-5", ""),
        (
            "git log --format='done' | grep -q done",
            "PROOF-2",
            "a name",
        ),
        (
            "git log --pretty=one | grep -q x",
            "PROOF-2",
            "an abbreviation",
        ),
        (
            "git log --pretty=mine | grep -q x",
            "PROOF-2",
            "pretty.mine",
        ),
    ]);
    accepted(&[
        "git log -n 1 --format=%s | grep -q fix",
        "git log -n 1 --format='%+h' | grep -q a",
        "git log -n 1 --format='%an <%ae>' | grep -q me",
        "git log --pretty=oneline | grep -q fix",
        "git log --format='%C(red)%h' | grep -q a",
    ]);
}

// proves: PROOF-5 (round8 #1d: `A^!`, `A^-`, `A^@`, `A^-N` are ranges)
#[test]
fn round8_1d_range_shorthands_are_ranges() {
    support::all_refused([
        ("! git log HEAD^@ | grep -q fix", "PROOF-5", "parents only"),
        ("! git log HEAD^! --format=%s | grep -q fix", "PROOF-5", ""),
        ("! git log HEAD^- --format=%s | grep -q fix", "PROOF-5", ""),
        ("! git log HEAD^-2 --format=%s | grep -q fix", "PROOF-5", ""),
        ("git diff --quiet HEAD^!", "PROOF-5", "two revisions"),
        ("git diff --quiet HEAD^@", "PROOF-5", "parents"),
        ("git diff --quiet main^-", "PROOF-5", ""),
    ]);
    accepted(&[
        "git diff --quiet HEAD",
        "! git log -n 5 --format=%s | grep -q fixup",
    ]);
}

// proves: PROOF-5 (round8 #4: a pattern that matches the empty string
// matches every line)
#[test]
fn round8_4_patterns_that_match_every_line_are_refused() {
    support::all_refused([
        ("grep -q '' f.txt", "PROOF-5", "empty"),
        ("grep -q '.*' f.txt", "PROOF-5", ".*"),
        ("grep -q '^' f.txt", "PROOF-5", "^"),
        ("grep -q '$' f.txt", "PROOF-5", "$"),
        ("grep -q 'x*' f.txt", "PROOF-5", "x*"),
        ("grep -q -e '' f.txt", "PROOF-5", "-e ''"),
        ("grep -q --regexp= f.txt", "PROOF-5", "--regexp="),
        ("grep -q --regexp='.*' f.txt", "PROOF-5", ""),
        (
            "grep -q -e fn -e 'a\\|' f.txt",
            "PROOF-5",
            "empty alternative",
        ),
        ("grep -qE '(|a)' f.txt", "PROOF-5", "ERE"),
        ("grep -qE 'a?' f.txt", "PROOF-5", "ERE ?"),
        ("grep -qx '.*' f.txt", "PROOF-5", "-x .*"),
        ("! grep -qv '.*' f.txt", "PROOF-5", "-v"),
        ("rg -q '' src", "PROOF-5", "rg"),
        ("rg -q '.*' src", "PROOF-5", "rg"),
        ("rg -q -e '(?i)' src", "PROOF-5", "rg flags only"),
        ("rg -q 'a|' src", "PROOF-5", "rg"),
        ("git grep -q '.*'", "PROOF-5", "git grep"),
        ("git grep -q -e '^'", "PROOF-5", "git grep"),
    ]);
    accepted(&[
        "grep -q 'fn main' src/main.rs",
        "grep -qE 'a+' f.txt",
        "grep -q 'a?' f.txt",
        "grep -qF '.*' f.txt",
        "grep -c '' f.txt",
        "rg -q 'TODO|FIXME' src",
        "git grep -q 'fn main'",
    ]);
}

fn config(name: &str, text: &str) -> Vec<Refusal> {
    pytest_config_refusals(name, text)
}

// proves: PROOF-5 (round8 #7: the project's pytest configuration adds its
// `addopts` to the proof's command line)
#[test]
fn round8_7_pytest_config_addopts_that_make_a_run_vacuous_are_refused() {
    let refused = [
        ("pytest.ini", "[pytest]\naddopts = --co\n"),
        ("pytest.ini", "[pytest]\naddopts = -q\n  --collect-only\n"),
        ("pytest.ini", "[pytest]\naddopts = --collectonly\n"),
        ("pytest.ini", "[pytest]\naddopts = -q # --co\n"),
        ("pytest.ini", "[pytest]\naddopts: -k smoke\n"),
        ("pytest.ini", "[pytest]\naddopts = -m 'not slow'\n"),
        (
            ".pytest.ini",
            "[pytest]\naddopts = --deselect tests/test_a.py::test_fail\n",
        ),
        ("tox.ini", "[pytest]\naddopts = -p no:python\n"),
        ("tox.ini", "[pytest]\naddopts = -p no:unittest\n"),
        (
            "setup.cfg",
            "[tool:pytest]\naddopts = --ignore=tests/test_a.py\n",
        ),
        ("setup.cfg", "[tool:pytest]\naddopts = --setup-only\n"),
        ("setup.cfg", "[tool:pytest]\naddopts = --lf --lfnf=none\n"),
        ("setup.cfg", "[tool:pytest]\naddopts = tests/test_ok.py\n"),
        ("setup.cfg", "[tool:pytest]\naddopts = --sw\n"),
        (
            "setup.cfg",
            "[tool:pytest]\naddopts = -o python_files=none.py\n",
        ),
        ("setup.cfg", "[tool:pytest]\naddopts = \"--co\n"),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"-q --co\"\n",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = [\"-k\", \"ok\"]\n",
        ),
        ("pyproject.toml", "[tool.pytest]\naddopts = [\"--co\"]\n"),
        ("pytest.toml", "[pytest]\naddopts = [\"--fixtures\"]\n"),
        ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = 1\n"),
        ("pyproject.toml", "[tool.pytest.ini_options\n"),
    ];
    let misses: Vec<String> = refused
        .iter()
        .filter(|(name, text)| {
            let refusals = config(name, text);
            refusals.is_empty() || refusals.iter().any(|r| r.rule != "PROOF-5")
        })
        .map(|(name, text)| format!("{name}: {text:?} -> {:?}", config(name, text)))
        .collect();
    assert!(misses.is_empty(), "accepted:\n{}", misses.join("\n"));
    for (name, text) in [
        (
            "pytest.ini",
            "[pytest]\naddopts = -ra -q --strict-markers --strict-config\n",
        ),
        ("pytest.ini", "[pytest]\ntestpaths = tests\n"),
        (
            "setup.cfg",
            "[metadata]\nname = x\n[tool:pytest]\naddopts = -x --tb=short -p no:cacheprovider\n",
        ),
        (
            "tox.ini",
            "[tox]\nenvlist = py3\n[testenv]\ncommands = pytest --co\n",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"-W error::DeprecationWarning --import-mode=importlib\"\n",
        ),
        ("pyproject.toml", "[project]\nname = \"x\"\n"),
    ] {
        assert_eq!(config(name, text), Vec::new(), "{name}: {text:?}");
    }
}

// proves: PROOF-5 (round8 #7: pytest's configuration search starts at
// each argument and at the working folder; `ploy proof run` reads them)
#[test]
fn round8_7_pytest_runs_need_their_configuration_read() {
    let plan = validate("python3 -m pytest -q tests/unit").plan().cloned();
    let needed = ploy_validate::needed(&plan.expect("accepted"));
    for start in ["tests/unit", "."] {
        assert!(
            needed.contains(&ploy_validate::Needed::PytestConfig(start.to_string())),
            "{needed:?}"
        );
    }
}

// proves: PROOF-1 (the validator never panics: the 10-minute fuzz run after
// the round8 changes found `cargo clippy -- tϑ…` slicing a lint argument
// inside a two-byte character)
#[test]
fn fuzz_crash_lint_argument_with_a_multibyte_second_character_is_refused() {
    for line in [
        "cargo clippy --workspace -- -Dwa/dev\u{3d1}ullrnings -W cllippy --workce -- -Dwa/dev\u{3d1}ullrnings -Wipp -- t\u{3d1}ullrnings -Wipp -- tesdtestrnticesdtestrntic",
        "cargo clippy -- t\u{3d1}x",
        "cargo clippy -- -\u{3d1}x",
    ] {
        assert!(!validate(line).is_accepted(), "{line}");
    }
}
