//! The fast path for plain lines (src/plain.rs) must give exactly the
//! summary the full parse gives: `analyze` (fast path on) and
//! `analyze_by_parser` (every line through brush-parser) are compared on
//! fixed lines, on lines assembled from the pieces the fast path takes and
//! the ones next to them it must leave to the parser, and on random bytes of
//! every character that means something to the shell. The policy and the
//! proof validator both read the summary, so any difference would let one
//! of them see a line other than the one that runs.

use ploy_shell::{analyze, analyze_by_parser};
use proptest::prelude::*;

fn same(line: &str) -> Result<(), TestCaseError> {
    let fast = analyze(line);
    let full = analyze_by_parser(line);
    prop_assert_eq!(fast, full, "line {:?}", line);
    Ok(())
}

// proves: PROOF-1 (the line checked is the line bash reads: the fast path
// agrees with the full parse)
#[test]
fn fixed_lines_read_the_same() {
    for line in [
        "cargo test -q --workspace && grep -rn x src | grep -q y 2>&1 && test -f README.md && diff -q a/b.txt c/d.txt && jq -e '.name' package.json && [ -d src ] && grep -rq 'fn main' src/main.rs && cargo clippy --all-targets -- -D warnings && cmp x y && make test && npm test && go test ./... && pytest -q tests/ && git diff --exit-code -- src/lib.rs && find src -name '*.rs' && wc -l src/lib.rs && head x.md",
        "cargo test -q",
        "! grep -q TODO src/main.rs",
        "! ! grep -q x f",
        "! grep -q x f | ! wc",
        "a | ! b",
        "!grep x",
        "! ",
        "!",
        "test ! -e x",
        "[ -d src ] && [[ -d x ]]",
        "grep -q \"fn main\" src/main.rs",
        "grep -q \"$HOME\" f",
        "grep -q 'a\"b' \"c'd\" ''",
        "x=1 cargo test",
        "cargo test --features=x a=b",
        "--x=1 y",
        "grep x f 2>&1 >/dev/null",
        "grep x f 2> /dev/null",
        "grep x f 2 >/dev/null",
        "grep x f 12>/dev/null",
        "grep x f >&2 <&0 1>&2",
        "grep x f >& 2",
        "grep x f >&22",
        "grep x f >&-",
        "grep x f >&file",
        "grep x f &>/dev/null",
        "grep x f >| y",
        "grep x f <> y",
        "grep x f << EOF",
        "grep x f <<< y",
        "2>/dev/null grep x f",
        ">/dev/null",
        "a&&b||c|d",
        "a &&",
        "&& a",
        "a ; b",
        "a & b",
        "a |& b",
        "a || || b",
        "if true; then x; fi",
        "time grep x f",
        "grep -q in f",
        "cat 'a\nb'",
        "echo é",
        "echo 'é'",
        "echo a#b #c",
        "echo ~ x~",
        "echo *.rs",
        "echo {a,b}",
        "echo a\\ b",
        "echo 'unterminated",
        "echo \"unterminated",
        "coproc x",
        "function f",
        "echo ]] [[",
        "echo a[b]",
        "echo a!b",
        "\t grep \t -q\tx  f\t",
    ] {
        same(line).map_err(|e| format!("{e}")).unwrap();
    }
}

/// Pieces of lines: what the fast path takes, and what it must leave to
/// the parser.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        // plain words and options
        "cargo",
        "test",
        "grep",
        "-q",
        "-rn",
        "--",
        "-",
        "x",
        "src/main.rs",
        "./a.sh",
        "a.b",
        "2",
        "0",
        "12",
        "--x=y",
        "-e=1",
        "x=y",
        "=x",
        "a+b",
        "%@:^,", // quotes
        "'fn main'",
        "''",
        "\"a b\"",
        "\"\"",
        "'*.rs'",
        "\"a'b\"",
        "'a\"b'",
        "\"$x\"",
        "\"a\\b\"",
        "\"`x`\"",
        "'unterminated",
        "\"",
        "'",
        "x'y'z",
        "\"x\"y", // words with a meaning
        "if",
        "then",
        "fi",
        "!",
        "[[",
        "]]",
        "[",
        "]",
        "time",
        "in",
        "{",
        "}",
        "done",
        "case",
        "coproc",
        "function",
        "select",
        "!x",
        "a!b",
        "a[b]",
        "[a",
        "b]", // operators
        "&&",
        "||",
        "|",
        "&",
        ";",
        "|&",
        ">",
        ">>",
        "<",
        ">&",
        "<&",
        ">|",
        "<>",
        "&>",
        "&>>",
        "<<",
        "<<<",
        "2>&1",
        ">&2",
        "1>&-",
        ">&-",
        ">&x",
        "2>/dev/null",
        ">/dev/null",
        "<x",
        "0<x",
        "9>>y",
        "2>",
        "(",
        ")", // expansions and specials
        "#",
        "a#b",
        "~",
        "~/x",
        "*",
        "?",
        "$x",
        "${x}",
        "$(x)",
        "`x`",
        "\\",
        "\\n",
        "é",
        "'é'",
    ])
}

fn joiner() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![" ", " ", " ", "", "\t", "  "])
}

fn assembled() -> impl Strategy<Value = String> {
    prop::collection::vec((piece(), joiner()), 1..14).prop_map(|parts| {
        let mut line = String::new();
        for (piece, joiner) in parts {
            line.push_str(piece);
            line.push_str(joiner);
        }
        line
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    // proves: PROOF-1
    #[test]
    fn assembled_lines_read_the_same(line in assembled()) {
        same(&line)?;
    }

    // proves: PROOF-1
    #[test]
    fn random_bytes_read_the_same(line in "[ab2 \t=!'\"\\[\\]&|<>;#~*?{}()$\\\\`-]{0,24}") {
        same(&line)?;
    }
}
