//! Build tools: `cargo test|check|clippy|fmt --check`, `go test|vet`,
//! `npm|pnpm|yarn test` and `run SCRIPT`, `pytest`, `python3 -m
//! pytest|unittest`, `make TARGET`. They run the project's own code, which
//! the sandbox contains (PROOF-6); their option grammars are still checked
//! so that the line cannot point them at other code (`make -f -`,
//! `--eval`, `cargo --config`, `go test -exec`), other folders (`-C ..`,
//! `--manifest-path /x`) or files outside the project.

use super::coreutils::HELP_VERSION;
use super::options::{Arg, EXACT, GNU, GO, Item, Long, Short, Table, long, short};
use super::{
    At, Ctx, Facts, Rule, Use, Val, check_value, has, join, list, operands, read_options, values,
};
use crate::{PROOF_2, PROOF_3, PROOF_4, PROOF_5};

const NO: Arg = Arg::No;
const REQ: Arg = Arg::Required;
const OPT: Arg = Arg::Optional;

fn runs(ctx: &Ctx, at: &At) -> Option<Facts> {
    Some(Facts {
        status: ctx.outcome(at),
    })
}

/// Text handed to project code (test filters, script arguments).
fn opaque_all(ctx: &mut Ctx, values: &[(&str, bool)], what: &str) {
    for (value, _) in values {
        ctx.text(value, what);
    }
}

/// PROOF-5 (proof5 #3): cargo's and libtest's test-name filters select
/// the tests whose names hold the text, and a filter that matches none
/// (`cargo test zzz`) passes with "0 passed" while the tests fail; cargo
/// has no status for "nothing ran", and whether a filter matches a test
/// cannot be seen from the line. Refused; `-p`, `--lib` or `--test NAME`
/// narrow by what cargo refuses when missing.
fn test_name_filters(ctx: &mut Ctx, filters: &[(&str, bool)]) {
    if let Some((filter, _)) = filters.first() {
        ctx.refuse(
            PROOF_5,
            format!("the test-name filter `{filter}` can match no test, and then the run passes with 0 tests while the tests fail; run every test (`cargo test`), or narrow by target: `-p PKG`, `--lib`, `--test NAME`"),
        );
    }
}

// ---- cargo -----------------------------------------------------------

/// PROOF-5 (issue 12's `--release` gap): `cargo test --release` (`-r`,
/// `--profile release` or any profile of the project's own) builds the
/// tests without debug assertions and overflow checks, so a test that
/// fails through `debug_assert!` or an overflowing sum passes. The tests
/// run in the `test` profile (`dev`'s settings) or not at all.
fn optimized_tests(ctx: &mut Ctx, items: &[Item]) {
    let optimized = items.iter().find_map(|item| match item {
        Item::Opt {
            id: "release",
            written,
            ..
        } => Some(written.clone()),
        Item::Opt {
            id: "profile",
            written,
            value: Some(profile),
            ..
        } if !matches!(profile.as_str(), "dev" | "test") => Some(format!("{written} {profile}")),
        _ => None,
    });
    if let Some(written) = optimized {
        ctx.refuse(
            PROOF_5,
            format!("`{written}` builds the tests without the debug assertions and overflow checks the `test` profile has, so a test that fails through them passes; run `cargo test` (a slow test can be marked `#[ignore]` and left to CI)"),
        );
    }
}

const CARGO_SUBCOMMANDS: &[&str] = &["test", "check", "clippy", "fmt"];

const CONFIG: Use = Use::No(
    PROOF_2,
    "overrides cargo's configuration (a runner or a wrapper can be any program)",
);

const CARGO_BUILD: Table = Table {
    syntax: EXACT,
    shorts: &[
        short('q', NO, "q"),
        short('v', NO, "v"),
        short('p', REQ, "package"),
        short('j', REQ, "jobs"),
        short('F', REQ, "features"),
        short('r', NO, "release"),
        short('Z', REQ, "Z"),
        short('h', NO, "help"),
    ],
    longs: &[
        long("quiet", NO, "q"),
        long("verbose", NO, "v"),
        long("color", REQ, "color"),
        long("frozen", NO, "frozen"),
        long("locked", NO, "locked"),
        long("offline", NO, "offline"),
        long("package", REQ, "package"),
        long("workspace", NO, "workspace"),
        long("all", NO, "workspace"),
        long("exclude", REQ, "exclude"),
        long("lib", NO, "lib"),
        long("bins", NO, "bins"),
        long("bin", REQ, "bin"),
        long("tests", NO, "tests"),
        long("test", REQ, "test"),
        long("benches", NO, "benches"),
        long("bench", REQ, "bench"),
        long("examples", NO, "examples"),
        long("example", REQ, "example"),
        long("all-targets", NO, "all-targets"),
        long("doc", NO, "doc"),
        long("release", NO, "release"),
        long("profile", REQ, "profile"),
        long("features", REQ, "features"),
        long("all-features", NO, "all-features"),
        long("no-default-features", NO, "no-default-features"),
        long("jobs", REQ, "jobs"),
        long("no-run", NO, "no-run"),
        long("no-fail-fast", NO, "no-fail-fast"),
        long("keep-going", NO, "keep-going"),
        long("target", REQ, "target"),
        long("target-dir", REQ, "target-dir"),
        long("manifest-path", REQ, "manifest-path"),
        long("message-format", REQ, "message-format"),
        long("ignore-rust-version", NO, "ignore-rust-version"),
        long("future-incompat-report", NO, "future-incompat-report"),
        long("timings", OPT, "timings"),
        long("unit-graph", NO, "unit-graph"),
        long("config", REQ, "config"),
        long("no-deps", NO, "no-deps"),
        long("fix", NO, "fix"),
        long("allow-dirty", NO, "fix"),
        long("allow-staged", NO, "fix"),
        long("allow-no-vcs", NO, "fix"),
        long("broken-code", NO, "fix"),
        long("help", NO, "help"),
    ],
};

const CARGO_COMMON_RULES: &[Rule] = &[
    ("q", Use::Flag),
    ("v", Use::Flag),
    (
        "color",
        Use::Value(Val::Choice(&["auto", "always", "never"])),
    ),
    ("frozen", Use::Flag),
    ("locked", Use::Flag),
    ("offline", Use::Flag),
    ("package", Use::Value(Val::Name)),
    ("workspace", Use::Flag),
    ("exclude", Use::Value(Val::Name)),
    ("lib", Use::Flag),
    ("bins", Use::Flag),
    ("bin", Use::Value(Val::Name)),
    ("tests", Use::Flag),
    ("test", Use::Value(Val::Name)),
    ("benches", Use::Flag),
    ("bench", Use::Value(Val::Name)),
    ("examples", Use::Flag),
    ("example", Use::Value(Val::Name)),
    ("all-targets", Use::Flag),
    ("release", Use::Flag),
    ("profile", Use::Value(Val::Name)),
    ("features", Use::Value(Val::Text)),
    ("all-features", Use::Flag),
    ("no-default-features", Use::Flag),
    ("jobs", Use::Value(Val::Count)),
    ("keep-going", Use::Flag),
    ("target", Use::Value(Val::Name)),
    ("manifest-path", Use::Value(Val::Path)),
    (
        "message-format",
        Use::Value(Val::Choice(&[
            "human",
            "short",
            "json",
            "json-diagnostic-short",
            "json-diagnostic-rendered-ansi",
            "json-render-diagnostics",
        ])),
    ),
    ("ignore-rust-version", Use::Flag),
    ("future-incompat-report", Use::Flag),
    (
        "target-dir",
        Use::No(
            PROOF_3,
            "puts build output outside the usual `target/`; drop it",
        ),
    ),
    ("config", CONFIG),
    (
        "Z",
        Use::No(
            PROOF_2,
            "enables unstable cargo features; not needed in a proof",
        ),
    ),
    (
        "timings",
        Use::No(PROOF_2, "writes a report; not needed in a proof"),
    ),
    (
        "unit-graph",
        Use::No(PROOF_5, "prints the build graph and builds nothing"),
    ),
    ("help", Use::No(PROOF_5, "prints help and verifies nothing")),
];

/// PROOF-5 (outside attacker's proof5 #3): a test run must run the
/// project's tests, so no option may leave it running none whatever the
/// tests hold. Test-name filters, `--no-run`, `--doc` and the selections of
/// targets that hold no test by default (binaries, examples, benchmarks)
/// are refused; what stays (`-p`, `--lib`, `--tests`, `--test NAME`,
/// `--all-targets`) names packages and targets cargo refuses to run when
/// they are missing.
const SELECTS_NO_TEST: &str = "selects targets that hold no test by default (binaries, examples, benchmarks), so the run can pass without running one while the project's tests fail; run `cargo test`, or narrow it with `-p PKG`, `--lib`, `--tests` or `--test NAME`";

const CARGO_TEST_RULES: [Rule; 40] = join(
    CARGO_COMMON_RULES,
    &[
        (
            "no-run",
            Use::No(
                PROOF_5,
                "builds the tests and runs none, so it passes while they fail; `cargo check --tests` checks that they build",
            ),
        ),
        ("no-fail-fast", Use::Flag),
        (
            "doc",
            Use::No(
                PROOF_5,
                "runs only the documentation tests (often none), so it passes while the other tests fail; run `cargo test`",
            ),
        ),
    ],
);

/// The target selections of `cargo test` refused by [`SELECTS_NO_TEST`].
const CARGO_TEST_NO_TEST_TARGETS: &[&str] =
    &["bins", "bin", "examples", "example", "benches", "bench"];
const CARGO_CLIPPY_RULES: [Rule; 39] = join(
    CARGO_COMMON_RULES,
    &[
        ("no-deps", Use::Flag),
        (
            "fix",
            Use::No(PROOF_2, "rewrites the code; a proof changes nothing"),
        ),
    ],
);

/// Cargo options that only shape the output.
const CARGO_NEUTRAL: &[&str] = &[
    "q",
    "v",
    "color",
    "message-format",
    "jobs",
    "future-incompat-report",
];

/// The test harness's own options (libtest), after `cargo test --`.
const LIBTEST: Table = Table {
    syntax: EXACT,
    shorts: &[
        short('q', NO, "q"),
        short('Z', REQ, "Z"),
        short('h', NO, "help"),
    ],
    longs: &[
        long("test-threads", REQ, "test-threads"),
        long("nocapture", NO, "nocapture"),
        long("no-capture", NO, "nocapture"),
        long("exact", NO, "exact"),
        long("ignored", NO, "ignored"),
        long("include-ignored", NO, "include-ignored"),
        long("quiet", NO, "q"),
        long("skip", REQ, "skip"),
        long("show-output", NO, "show-output"),
        long("color", REQ, "color"),
        long("format", REQ, "format"),
        long("logfile", REQ, "logfile"),
        long("list", NO, "list"),
        long("bench", NO, "bench"),
        long("test", NO, "test"),
        long("report-time", NO, "report-time"),
        long("ensure-time", NO, "report-time"),
        long("shuffle", NO, "shuffle"),
        long("shuffle-seed", REQ, "shuffle"),
        long("force-run-in-process", NO, "force-run-in-process"),
        long("help", NO, "help"),
    ],
};

const LIBTEST_RULES: &[Rule] = &[
    ("test-threads", Use::Value(Val::Count)),
    ("nocapture", Use::Flag),
    (
        "exact",
        Use::No(
            PROOF_5,
            "narrows a test-name filter to exact names, and a filter can match no test; run every test",
        ),
    ),
    (
        "ignored",
        Use::No(
            PROOF_5,
            "runs only the ignored tests (often none), so it passes while the others fail; `--include-ignored` runs all",
        ),
    ),
    ("include-ignored", Use::Flag),
    ("q", Use::Flag),
    (
        "skip",
        Use::No(
            PROOF_5,
            "skips the tests whose names hold the text, the failing ones as easily as any (`--skip ''` skips all); run every test",
        ),
    ),
    ("show-output", Use::Flag),
    (
        "color",
        Use::Value(Val::Choice(&["auto", "always", "never"])),
    ),
    ("format", Use::Value(Val::Choice(&["pretty", "terse"]))),
    ("test", Use::Flag),
    (
        "logfile",
        Use::No(PROOF_2, "writes a file; a proof writes no file"),
    ),
    ("list", Use::No(PROOF_5, "lists the tests and runs none")),
    ("bench", Use::No(PROOF_2, "runs benchmarks, not tests")),
    (
        "Z",
        Use::No(PROOF_2, "enables unstable options; not needed in a proof"),
    ),
    (
        "report-time",
        Use::No(PROOF_2, "needs unstable options; not needed in a proof"),
    ),
    (
        "shuffle",
        Use::No(PROOF_2, "needs unstable options; not needed in a proof"),
    ),
    (
        "force-run-in-process",
        Use::No(PROOF_2, "needs unstable options; not needed in a proof"),
    ),
    ("help", Use::No(PROOF_5, "prints help and verifies nothing")),
];

/// Lint levels after `cargo clippy --`: `-D warnings`, `-W clippy::x`, ….
fn lint_args(ctx: &mut Ctx, args: &[String]) {
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let (level, glued) = match arg.as_str() {
            "-D" | "-W" | "-A" | "-F" | "--deny" | "--warn" | "--allow" | "--forbid" => {
                (arg.as_str(), None)
            }
            // `get`: the second character may be more than one byte (the
            // fuzzer's `tϑ…` panicked on a byte slice here).
            a if a.len() > 2
                && a.get(..2)
                    .is_some_and(|p| ["-D", "-W", "-A", "-F"].contains(&p)) =>
            {
                (&a[..2], Some(&a[2..]))
            }
            a => {
                for prefix in ["--deny=", "--warn=", "--allow=", "--forbid="] {
                    if let Some(lint) = a.strip_prefix(prefix) {
                        check_lint(ctx, lint);
                    }
                }
                if !["--deny=", "--warn=", "--allow=", "--forbid="]
                    .iter()
                    .any(|p| a.starts_with(p))
                {
                    ctx.refuse(
                        PROOF_2,
                        format!("`{a}` after `cargo clippy --` is not a lint level; a proof may pass -D, -W, -A or -F LINT"),
                    );
                }
                continue;
            }
        };
        let lint = match glued {
            Some(l) => l.to_string(),
            None => match args.get(i) {
                Some(l) => {
                    i += 1;
                    l.clone()
                }
                None => {
                    ctx.refuse(PROOF_2, format!("`{level}` needs a lint name"));
                    return;
                }
            },
        };
        check_lint(ctx, &lint);
    }
}

fn check_lint(ctx: &mut Ctx, lint: &str) {
    if lint.is_empty()
        || !lint
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_:-".contains(c))
    {
        ctx.refuse(PROOF_2, format!("`{lint}` is not a lint name"));
    }
}

/// `cargo fmt --check`.
const CARGO_FMT: Table = Table {
    syntax: EXACT,
    shorts: &[
        short('q', NO, "q"),
        short('v', NO, "v"),
        short('p', REQ, "package"),
        short('h', NO, "help"),
    ],
    longs: &[
        long("check", NO, "check"),
        long("all", NO, "all"),
        long("package", REQ, "package"),
        long("quiet", NO, "q"),
        long("verbose", NO, "v"),
        long("manifest-path", REQ, "manifest-path"),
        long("message-format", REQ, "message-format"),
        long("edition", REQ, "edition"),
        long("config", REQ, "config"),
        long("config-path", REQ, "config"),
        long("emit", REQ, "emit"),
        long("help", NO, "help"),
    ],
};

const CARGO_FMT_RULES: &[Rule] = &[
    ("check", Use::Flag),
    ("all", Use::Flag),
    ("package", Use::Value(Val::Name)),
    ("q", Use::Flag),
    ("v", Use::Flag),
    ("manifest-path", Use::Value(Val::Path)),
    (
        "message-format",
        Use::Value(Val::Choice(&["short", "human"])),
    ),
    ("edition", Use::Value(Val::Count)),
    (
        "config",
        Use::No(
            PROOF_2,
            "points rustfmt at other configuration; not needed in a proof",
        ),
    ),
    (
        "emit",
        Use::No(PROOF_2, "writes files; a proof writes no file"),
    ),
    ("help", Use::No(PROOF_5, "prints help and verifies nothing")),
];

pub(super) fn cargo(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let mut i = 0;
    if let Some(toolchain) = args.first().and_then(|a| a.strip_prefix('+')) {
        if toolchain.is_empty()
            || !toolchain
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            ctx.refuse(PROOF_2, format!("`+{toolchain}` is not a toolchain name"));
            return None;
        }
        i = 1;
    }
    // Global options, as clap reads them before the subcommand.
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        i += 1;
        match arg.as_str() {
            "-q" | "--quiet" | "-v" | "-vv" | "--verbose" | "--frozen" | "--locked"
            | "--offline" => {}
            "--color" => match args.get(i) {
                Some(when) => {
                    check_value(
                        ctx,
                        Val::Choice(&["auto", "always", "never"]),
                        when,
                        "the value of --color",
                    );
                    i += 1;
                }
                None => ctx.refuse(PROOF_2, "`--color` needs a value"),
            },
            a if a.starts_with("--color=") => {
                check_value(
                    ctx,
                    Val::Choice(&["auto", "always", "never"]),
                    &a[8..],
                    "the value of --color",
                );
            }
            a if a.starts_with("--config") => {
                ctx.refuse(PROOF_2, format!("`{a}` overrides cargo's configuration (a runner or a wrapper can be any program)"));
                return None;
            }
            a if a.starts_with("-Z") => {
                ctx.refuse(
                    PROOF_2,
                    format!("`{a}` enables unstable cargo features (`-Zscript` runs any file)"),
                );
                return None;
            }
            a if a.starts_with("-C") => {
                ctx.refuse(PROOF_3, format!("`{a}` runs cargo in another folder"));
                ctx.text(a, "the argument");
                return None;
            }
            a => {
                ctx.refuse(
                    PROOF_2,
                    format!("`{a}` is not a cargo option a proof may use before the subcommand"),
                );
                return None;
            }
        }
    }
    let Some(sub) = args.get(i) else {
        ctx.refuse(
            PROOF_2,
            format!("needs a subcommand: {}", list(CARGO_SUBCOMMANDS)),
        );
        return None;
    };
    let rest = &args[i + 1..];
    let split = rest.iter().position(|a| a == "--");
    let (before, after) = match split {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &rest[rest.len()..]),
    };
    ctx.program = match args.first().filter(|a| a.starts_with('+')) {
        Some(toolchain) => format!("cargo {toolchain} {sub}"),
        None => format!("cargo {sub}"),
    };
    match sub.as_str() {
        "test" => {
            let items = read_options(ctx, &CARGO_BUILD, &CARGO_TEST_RULES, before)?;
            ctx.identify(&items, CARGO_NEUTRAL, &[]);
            if let Some(Item::Opt { written, .. }) = items.iter().find(
                |i| matches!(i, Item::Opt { id, .. } if CARGO_TEST_NO_TEST_TARGETS.contains(id)),
            ) {
                ctx.refuse(PROOF_5, format!("`{written}` {SELECTS_NO_TEST}"));
            }
            optimized_tests(ctx, &items);
            let filters = operands(&items);
            opaque_all(ctx, &filters, "the test filter");
            test_name_filters(ctx, &filters);
            if !after.is_empty() {
                let harness = read_options(ctx, &LIBTEST, LIBTEST_RULES, after)?;
                let filters = operands(&harness);
                opaque_all(ctx, &filters, "the test filter");
                test_name_filters(ctx, &filters);
            }
        }
        "check" | "clippy" => {
            let rules: &[Rule] = if sub == "check" {
                CARGO_COMMON_RULES
            } else {
                &CARGO_CLIPPY_RULES
            };
            let items = read_options(ctx, &CARGO_BUILD, rules, before)?;
            ctx.identify(&items, CARGO_NEUTRAL, &[]);
            if !operands(&items).is_empty() {
                ctx.refuse(PROOF_2, "takes no operand");
            }
            if sub == "check" && split.is_some() {
                ctx.refuse(PROOF_2, "takes nothing after `--`");
            }
            lint_args(ctx, after);
        }
        "fmt" => {
            let items = read_options(ctx, &CARGO_FMT, CARGO_FMT_RULES, before)?;
            ctx.identify(&items, CARGO_NEUTRAL, &[]);
            if !operands(&items).is_empty() {
                ctx.refuse(PROOF_2, "takes no operand");
            }
            let mut checks = has(&items, "check");
            for arg in after {
                match arg.as_str() {
                    "--check" => checks = true,
                    a => ctx.refuse(
                        PROOF_2,
                        format!("`{a}` after `cargo fmt --` is not allowed; only `--check`"),
                    ),
                }
            }
            if !checks {
                ctx.refuse(
                    PROOF_2,
                    "`cargo fmt` without `--check` rewrites the code; a proof checks: `cargo fmt --check`",
                );
            }
        }
        other => {
            let hint = match other {
                "t" => "; write `cargo test`",
                "c" => "; write `cargo check`",
                "build" | "b" => "; `cargo check` or `cargo test` builds too",
                "install" | "publish" | "login" | "owner" | "yank" | "search" | "add"
                | "remove" | "update" | "fetch" | "vendor" | "uninstall" | "new" | "init"
                | "clean" | "fix" | "generate-lockfile" => {
                    " (it changes the machine, the project or uses the network)"
                }
                "run" | "r" | "bench" | "doc" | "rustc" | "rustdoc" | "script" => {
                    " (a proof runs the project's tests: `cargo test`)"
                }
                _ => "",
            };
            ctx.refuse(
                PROOF_2,
                format!(
                    "the subcommand `{other}` is not one a proof may use ({}){hint}",
                    list(CARGO_SUBCOMMANDS)
                ),
            );
            return None;
        }
    }
    if let Some(identity) = ctx.identity.as_mut()
        && !after.is_empty()
    {
        identity.push_str("\0--\0");
        identity.push_str(&after.join("\0"));
    }
    runs(ctx, at)
}

// ---- go ----------------------------------------------------------------

const GO_FLAGS: Table = Table {
    syntax: GO,
    shorts: &[],
    longs: &[
        long("v", NO, "v"),
        long("run", REQ, "run"),
        long("skip", REQ, "run"),
        long("count", REQ, "count"),
        long("short", NO, "short"),
        long("race", NO, "race"),
        long("cover", NO, "cover"),
        long("covermode", REQ, "covermode"),
        long("timeout", REQ, "timeout"),
        long("tags", REQ, "tags"),
        long("failfast", NO, "failfast"),
        long("p", REQ, "p"),
        long("parallel", REQ, "p"),
        long("cpu", REQ, "cpu"),
        long("json", NO, "json"),
        long("bench", REQ, "run"),
        long("benchtime", REQ, "timeout"),
        long("benchmem", NO, "benchmem"),
        long("trimpath", NO, "trimpath"),
        long("mod", REQ, "mod"),
        long("list", REQ, "list"),
        long("exec", REQ, "exec"),
        long("toolexec", REQ, "exec"),
        long("o", REQ, "writes"),
        long("c", NO, "writes"),
        long("coverprofile", REQ, "writes"),
        long("cpuprofile", REQ, "writes"),
        long("memprofile", REQ, "writes"),
        long("blockprofile", REQ, "writes"),
        long("mutexprofile", REQ, "writes"),
        long("trace", REQ, "writes"),
        long("outputdir", REQ, "writes"),
        long("modfile", REQ, "modfile"),
        long("overlay", REQ, "modfile"),
        long("pgo", REQ, "modfile"),
        long("ldflags", REQ, "flags"),
        long("gcflags", REQ, "flags"),
        long("asmflags", REQ, "flags"),
        long("args", NO, "args"),
        long("fuzz", REQ, "fuzz"),
        long("C", REQ, "C"),
        long("n", NO, "n"),
        long("x", NO, "n"),
    ],
};

const GO_RULES: &[Rule] = &[
    ("v", Use::Flag),
    (
        "run",
        Use::No(
            PROOF_5,
            "selects tests (or benchmarks) by name, and a name that matches none passes with \"no tests to run\" while the tests fail; run every test (`go test ./...`), or narrow by package (`go test ./pkg/...`)",
        ),
    ),
    ("count", Use::Value(Val::Count)),
    ("short", Use::Flag),
    ("race", Use::Flag),
    ("cover", Use::Flag),
    (
        "covermode",
        Use::Value(Val::Choice(&["set", "count", "atomic"])),
    ),
    ("timeout", Use::Value(Val::Name)),
    ("tags", Use::Value(Val::Name)),
    ("failfast", Use::Flag),
    ("p", Use::Value(Val::Count)),
    ("cpu", Use::Value(Val::Name)),
    ("json", Use::Flag),
    ("benchmem", Use::Flag),
    ("trimpath", Use::Flag),
    ("mod", Use::Value(Val::Choice(&["readonly", "vendor"]))),
    ("list", Use::No(PROOF_5, "lists tests and runs none")),
    (
        "exec",
        Use::No(PROOF_2, "runs the tests through another program"),
    ),
    (
        "writes",
        Use::No(PROOF_2, "writes files; a proof writes no file"),
    ),
    (
        "modfile",
        Use::No(PROOF_3, "reads build files the validator cannot check"),
    ),
    (
        "flags",
        Use::No(
            PROOF_2,
            "passes flags to the compiler or linker; not needed in a proof",
        ),
    ),
    (
        "args",
        Use::No(
            PROOF_2,
            "passes the rest of the line to the test binary; not needed in a proof",
        ),
    ),
    (
        "fuzz",
        Use::No(PROOF_2, "fuzzes until stopped; a proof ends"),
    ),
    ("C", Use::No(PROOF_3, "runs go in another folder")),
    (
        "n",
        Use::No(PROOF_5, "prints commands instead of running them"),
    ),
];

pub(super) fn go(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let Some(sub) = args.first() else {
        ctx.refuse(PROOF_2, "needs `test` or `vet`: `go test ./...`");
        return None;
    };
    if !matches!(sub.as_str(), "test" | "vet") {
        ctx.refuse(
            PROOF_2,
            format!("the subcommand `{sub}` is not one a proof may use (`test`, `vet`)"),
        );
        return None;
    }
    ctx.program = format!("go {sub}");
    let items = read_options(ctx, &GO_FLAGS, GO_RULES, &args[1..])?;
    if sub == "vet"
        && let Some(Item::Opt { name, .. }) = items.iter().find(
            |i| matches!(i, Item::Opt { id, .. } if *id != "tags" && *id != "json" && *id != "v"),
        )
    {
        ctx.refuse(
            PROOF_2,
            format!("`{name}` is not a `go vet` option a proof may use (-tags, -json, -v)"),
        );
    }
    // `-count 0` runs no test and says "ok" (proof5 #3).
    if let Some(count) = values(&items, "count").find(|v| super::zero_count(v)) {
        ctx.refuse(
            PROOF_5,
            format!("`-count {count}` runs every test zero times, so it passes while they fail; leave it out or use `-count=1`"),
        );
    }
    for (package, _) in operands(&items) {
        if package == "." || package.starts_with("./") {
            ctx.path(package, "the package");
        } else {
            ctx.refuse(
                PROOF_2,
                format!("`{package}`: name packages of the project by relative path (`./...`, `./pkg/...`)"),
            );
        }
    }
    runs(ctx, at)
}

// ---- npm / pnpm / yarn -----------------------------------------------

/// Why an argument handed to a package script is refused (round6 #2):
/// npm, pnpm and yarn pass it to the command `package.json` names, whose
/// runner the validator cannot see, so no grammar can check it. pytest
/// reads `--co`, `--setup-plan`, `--fixtures` or `--version` and runs no
/// test; cargo reads a word as a test-name filter; jest reads
/// `--passWithNoTests`. The script runs as the project defines it, or the
/// runner is named directly with its own checked options.
fn script_argument(ctx: &mut Ctx, tool: &str, arg: &str) {
    ctx.refuse(
        PROOF_5,
        format!("`{arg}` is passed to the project's script, whose test runner the validator cannot see (pytest reads `--co` or `--version` and runs no test; cargo reads a word as a test-name filter), so the run can pass without running a test; run the script as the project defines it (`{tool} test`), or name the runner with its own options (`python3 -m pytest -q tests/test_x.py`)"),
    );
    ctx.shell_text(arg, "the script argument");
}

pub(super) fn npm(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let tool = ctx.program.clone();
    let split = args.iter().position(|a| a == "--");
    let (before, after) = match split {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &args[args.len()..]),
    };
    // npm reads every option before `--` as its own configuration, pnpm
    // and yarn only those before the script's name: later ones go to the
    // script (`pnpm test --co` is `pytest --co`).
    let options_are_the_tools = |words_so_far: usize| tool == "npm" || words_so_far == 0;
    let mut words = Vec::new();
    for arg in before {
        match arg.as_str() {
            a if a.starts_with('-') && !options_are_the_tools(words.len()) => {
                script_argument(ctx, &tool, a)
            }
            "-s" | "--silent" => {}
            "--if-present" => ctx.refuse(
                PROOF_5,
                format!("`--if-present` makes {tool} pass without running anything when the script is missing"),
            ),
            a if a.starts_with('-') => {
                ctx.refuse(
                    PROOF_2,
                    format!("`{a}` is read by {tool} as its own configuration (such as `--script-shell`); a proof may use `--silent`"),
                );
            }
            _ => words.push(arg.clone()),
        }
    }
    let mut words = words.into_iter();
    match words.next().as_deref() {
        Some("test") => {}
        Some("run") => match words.next() {
            // npm's built-in scripts, run when package.json has none of
            // that name: `env` is `sh -c env` (a launcher printing the
            // environment), not project code.
            Some(script) if script == "env" => {
                ctx.refuse(
                    PROOF_2,
                    format!("`{tool} run env` runs {tool}'s built-in `env` (a shell printing the environment) unless the project defines it; name a script that checks something"),
                );
                return None;
            }
            Some(script)
                if script.starts_with(|c: char| c.is_ascii_alphanumeric())
                    && script
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || ":._-".contains(c)) => {}
            Some(script) => {
                ctx.refuse(PROOF_2, format!("`{script}` is not a script name"));
                return None;
            }
            None => {
                ctx.refuse(PROOF_2, format!("`{tool} run` needs a script name"));
                return None;
            }
        },
        Some(other) => {
            let what = match other {
                "install" | "i" | "ci" | "add" | "remove" | "uninstall" | "update" | "up"
                | "publish" | "link" | "exec" | "x" | "dlx" | "create" | "init" => {
                    " (it changes the project or the machine, or runs a downloaded package)"
                }
                "t" | "tst" => "; write `test`",
                "run-script" | "rum" | "urn" => "; write `run`",
                _ => "",
            };
            ctx.refuse(
                PROOF_2,
                format!("`{tool} {other}` is not allowed; a proof may use `{tool} test` and `{tool} run SCRIPT`{what}"),
            );
            return None;
        }
        None => {
            ctx.refuse(
                PROOF_2,
                format!("needs `test` or `run SCRIPT`: `{tool} test`"),
            );
            return None;
        }
    }
    for word in words {
        script_argument(ctx, &tool, &word);
    }
    for arg in after {
        script_argument(ctx, &tool, arg);
    }
    runs(ctx, at)
}

// ---- pytest / python3 -m pytest|unittest -------------------------------

const PYTEST: Table = Table {
    syntax: EXACT,
    shorts: &[
        short('q', NO, "q"),
        short('v', NO, "v"),
        short('x', NO, "x"),
        short('s', NO, "s"),
        short('l', NO, "l"),
        short('k', REQ, "k"),
        short('m', REQ, "m"),
        short('r', REQ, "r"),
        short('p', REQ, "p"),
        short('c', REQ, "c"),
        short('W', REQ, "W"),
        short('o', REQ, "o"),
        short('h', NO, "help"),
        short('V', NO, "version"),
    ],
    longs: &[
        long("quiet", NO, "q"),
        long("verbose", NO, "v"),
        long("exitfirst", NO, "x"),
        long("showlocals", NO, "l"),
        long("maxfail", REQ, "maxfail"),
        long("tb", REQ, "tb"),
        long("capture", REQ, "capture"),
        long("lf", NO, "lf"),
        long("last-failed", NO, "lf"),
        long("ff", NO, "lf"),
        long("failed-first", NO, "lf"),
        long("strict-markers", NO, "strict"),
        long("strict", NO, "strict"),
        long("disable-warnings", NO, "disable-warnings"),
        long("no-header", NO, "no-header"),
        long("durations", REQ, "durations"),
        long("color", REQ, "color"),
        long("runxfail", NO, "runxfail"),
        long("cache-clear", NO, "cache-clear"),
        long("co", NO, "collect-only"),
        long("collect-only", NO, "collect-only"),
        long("basetemp", REQ, "basetemp"),
        long("junitxml", REQ, "writes"),
        long("junit-xml", REQ, "writes"),
        long("rootdir", REQ, "rootdir"),
        long("confcutdir", REQ, "rootdir"),
        long("override-ini", REQ, "o"),
        long("config-file", REQ, "c"),
        long("pyargs", NO, "pyargs"),
        long("import-mode", REQ, "import-mode"),
        long("help", NO, "help"),
        long("version", NO, "version"),
    ],
};

const PYTEST_RULES: &[Rule] = &[
    ("q", Use::Flag),
    ("v", Use::Flag),
    ("x", Use::Flag),
    ("s", Use::Flag),
    ("l", Use::Flag),
    ("k", Use::Value(Val::Pattern)),
    ("m", Use::Value(Val::Pattern)),
    ("r", Use::Value(Val::Name)),
    ("maxfail", Use::Value(Val::Count)),
    (
        "tb",
        Use::Value(Val::Choice(&[
            "auto", "long", "short", "line", "native", "no",
        ])),
    ),
    (
        "capture",
        Use::Value(Val::Choice(&["fd", "sys", "no", "tee-sys"])),
    ),
    (
        "lf",
        Use::No(
            PROOF_5,
            "chooses the tests from pytest's cache of earlier failures, a project file (`.pytest_cache/v/cache/lastfailed`) that can name only passing tests; run the tests by path",
        ),
    ),
    ("strict", Use::Flag),
    ("disable-warnings", Use::Flag),
    ("no-header", Use::Flag),
    ("durations", Use::Value(Val::Count)),
    ("color", Use::Value(Val::Choice(&["yes", "no", "auto"]))),
    ("runxfail", Use::Flag),
    ("cache-clear", Use::Flag),
    (
        "p",
        Use::No(
            PROOF_2,
            "loads a plugin module by name; not needed in a proof",
        ),
    ),
    ("c", Use::No(PROOF_3, "reads another configuration file")),
    (
        "W",
        Use::No(
            PROOF_2,
            "imports warning classes by module name; not needed in a proof",
        ),
    ),
    (
        "o",
        Use::No(
            PROOF_2,
            "overrides the configuration (addopts can load any plugin)",
        ),
    ),
    (
        "collect-only",
        Use::No(PROOF_5, "collects tests and runs none"),
    ),
    (
        "basetemp",
        Use::No(PROOF_3, "puts temporary files outside the usual place"),
    ),
    (
        "writes",
        Use::No(PROOF_2, "writes a report file; a proof writes no file"),
    ),
    (
        "rootdir",
        Use::No(PROOF_3, "points pytest at another folder"),
    ),
    (
        "pyargs",
        Use::No(PROOF_2, "imports packages by name; name the test files"),
    ),
    ("import-mode", Use::No(PROOF_2, "is not needed in a proof")),
    HELP_VERSION[0],
    HELP_VERSION[1],
];

pub(super) fn pytest(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let items = read_options(ctx, &PYTEST, PYTEST_RULES, args)?;
    ctx.identify(
        &items,
        &[
            "q",
            "v",
            "l",
            "tb",
            "color",
            "no-header",
            "durations",
            "disable-warnings",
        ],
        &[],
    );
    for (test, _) in operands(&items) {
        // pytest's early plugin pass reads `-p NAME` anywhere in its
        // arguments, `--` or not, and imports NAME.
        if test.starts_with('-') {
            ctx.refuse(
                PROOF_2,
                format!("`{test}` after `--` is still read by pytest as an option (`-p NAME` imports NAME as a plugin); name test paths only"),
            );
            continue;
        }
        if test.starts_with('@') {
            ctx.refuse(
                PROOF_3,
                format!("`{test}` reads more arguments from a file; name the tests"),
            );
            continue;
        }
        let path = test.split("::").next().unwrap_or(test);
        ctx.path(path, "the test path");
    }
    // pytest takes its configuration (and its `addopts`) from the first
    // `pytest.ini`, `pyproject.toml`, `tox.ini` or `setup.cfg` on the way
    // up from each argument that does not start with `-` (option values
    // included), or from the working folder: `ploy proof run` reads them
    // all before the run (round8 #7, [`crate::pytest_config_refusals`]).
    let mut starts: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(|a| a.to_string())
        .collect();
    starts.push(".".to_string());
    for start in starts {
        let need = crate::Needed::PytestConfig(start);
        if !ctx.needed.contains(&need) {
            ctx.needed.push(need);
        }
    }
    runs(ctx, at)
}

/// The options a project's pytest configuration may put in `addopts`
/// (round8 #7): those of the proof line's own grammar, and a few more a
/// configuration commonly holds that run every selected test all the same.
/// Whatever selects, skips or stops running tests is refused (PROOF-5):
/// the configuration is the project's, which the model can write.
const PYTEST_CONFIG: Table = Table {
    syntax: EXACT,
    shorts: PYTEST.shorts,
    longs: &PYTEST_CONFIG_LONGS,
};

const PYTEST_CONFIG_LONGS: [Long; 57] = join(
    PYTEST.longs,
    &[
        long("collectonly", NO, "collect-only"),
        long("strict-config", NO, "strict-config"),
        long("doctest-modules", NO, "doctest-modules"),
        long("pythonwarnings", REQ, "W"),
        long("deselect", REQ, "deselect"),
        long("ignore", REQ, "deselect"),
        long("ignore-glob", REQ, "deselect"),
        long("setup-only", NO, "setup-only"),
        long("setup-plan", NO, "setup-only"),
        long("fixtures", NO, "help"),
        long("funcargs", NO, "help"),
        long("fixtures-per-test", NO, "help"),
        long("markers", NO, "help"),
        long("cache-show", OPT, "help"),
        long("sw", NO, "stepwise"),
        long("stepwise", NO, "stepwise"),
        long("sw-skip", NO, "stepwise"),
        long("stepwise-skip", NO, "stepwise"),
        long("lfnf", REQ, "lf"),
        long("last-failed-no-failures", REQ, "lf"),
        long("new-first", NO, "new-first"),
        long("nf", NO, "new-first"),
        long("pdb", NO, "pdb"),
        long("trace", NO, "pdb"),
        long("noconftest", NO, "noconftest"),
    ],
);

const SELECTS: &str = "in the project's configuration chooses which tests run, so the proof's own command line no longer decides it";

const PYTEST_CONFIG_RULES: [Rule; 46] = join(
    &[
        ("k", Use::No(PROOF_5, SELECTS)),
        ("m", Use::No(PROOF_5, SELECTS)),
        ("deselect", Use::No(PROOF_5, SELECTS)),
        ("stepwise", Use::No(PROOF_5, SELECTS)),
        (
            "setup-only",
            Use::No(PROOF_5, "sets fixtures up and runs no test"),
        ),
        (
            "collect-only",
            Use::No(PROOF_5, "collects tests and runs none"),
        ),
        ("p", Use::Value(Val::Text)),
        ("W", Use::Value(Val::Text)),
        (
            "import-mode",
            Use::Value(Val::Choice(&["prepend", "append", "importlib"])),
        ),
        ("strict-config", Use::Flag),
        ("doctest-modules", Use::Flag),
        ("new-first", Use::Flag),
        (
            "pdb",
            Use::No(
                PROOF_5,
                "stops in the debugger, which reads the empty standard input",
            ),
        ),
        (
            "noconftest",
            Use::No(
                PROOF_5,
                "skips the project's conftest.py files, which set up the tests",
            ),
        ),
        (
            "help",
            Use::No(PROOF_5, "prints information and runs no test"),
        ),
    ],
    PYTEST_RULES,
);

/// [`crate::pytest_addopts_refusals`]: `addopts` judged as pytest reads
/// them, before the command line's own arguments.
pub(crate) fn pytest_addopts(args: &[String]) -> Vec<crate::Refusal> {
    let mut ctx = Ctx::new("pytest");
    if let Some(items) = read_options(&mut ctx, &PYTEST_CONFIG, &PYTEST_CONFIG_RULES, args) {
        for plugin in values(&items, "p") {
            // Switching the cache off changes no test; any other `no:`
            // takes a part of pytest away (`no:python` collects no test
            // module, `no:unittest` no TestCase), and a name loads a plugin
            // that can deselect tests.
            if plugin != "no:cacheprovider" {
                ctx.refuse(
                    PROOF_5,
                    format!("`-p {plugin}` switches a part of pytest off or loads a plugin, either of which can leave tests uncollected or unrun (only `-p no:cacheprovider` may stand in `addopts`)"),
                );
            }
        }
        for (operand, _) in operands(&items) {
            ctx.refuse(
                PROOF_5,
                format!("`{operand}` names tests in the configuration: a run without paths then runs only those"),
            );
        }
    }
    if ctx.refusals.is_empty() {
        return Vec::new();
    }
    ctx.refusals
        .into_iter()
        .map(|r| crate::Refusal::new(PROOF_5, r.detail))
        .collect()
}

const UNITTEST: Table = Table {
    syntax: EXACT,
    shorts: &[
        short('v', NO, "v"),
        short('q', NO, "q"),
        short('f', NO, "f"),
        short('c', NO, "c"),
        short('b', NO, "b"),
        short('k', REQ, "k"),
        short('s', REQ, "s"),
        short('p', REQ, "p"),
        short('t', REQ, "t"),
        short('h', NO, "help"),
    ],
    longs: &[
        long("verbose", NO, "v"),
        long("quiet", NO, "q"),
        long("locals", NO, "locals"),
        long("durations", REQ, "durations"),
        long("failfast", NO, "f"),
        long("catch", NO, "c"),
        long("buffer", NO, "b"),
        long("start-directory", REQ, "s"),
        long("pattern", REQ, "p"),
        long("top-level-directory", REQ, "t"),
        long("help", NO, "help"),
    ],
};

const UNITTEST_RULES: &[Rule] = &[
    ("v", Use::Flag),
    ("q", Use::Flag),
    ("f", Use::Flag),
    ("c", Use::Flag),
    ("b", Use::Flag),
    ("locals", Use::Flag),
    ("durations", Use::Value(Val::Count)),
    (
        "k",
        Use::No(
            PROOF_5,
            "selects tests by name, and on Python 3.11 a name that matches none passes (\"Ran 0 tests … OK\") while the tests fail; name the test modules",
        ),
    ),
    ("s", Use::Value(Val::Path)),
    (
        "p",
        Use::No(
            PROOF_5,
            "selects test files by a pattern that can match none, and on Python 3.11 finding no test passes (\"Ran 0 tests … OK\"); keep the default `test*.py`",
        ),
    ),
    ("t", Use::Value(Val::Path)),
    ("help", Use::No(PROOF_5, "prints help and verifies nothing")),
];

fn unittest(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let discover = args.first().is_some_and(|a| a == "discover");
    let rest = if discover { &args[1..] } else { args };
    let items = read_options(ctx, &UNITTEST, UNITTEST_RULES, rest)?;
    let ops = operands(&items);
    if !discover && ["s", "p", "t"].iter().any(|id| has(&items, id)) {
        ctx.refuse(
            PROOF_2,
            "-s, -p and -t belong to `python3 -m unittest discover`",
        );
    }
    if discover {
        if ops.len() > 1 {
            ctx.refuse(
                PROOF_5,
                "`discover` takes the start folder only: a PATTERN operand can match no test file, and on Python 3.11 finding no test passes (\"Ran 0 tests … OK\"); write `discover -s DIR` (`-t DIR` for the top level)",
            );
        }
        for (value, _) in &ops {
            // START (PATTERN and TOP refused above, still path-checked).
            ctx.path(value, "the folder");
        }
        // Python 3.11 passes a discovery that finds no test ("Ran 0 tests
        // … OK", round6 #2: `discover -s docs`): `ploy proof run` checks
        // that the start folder holds a test file discovery reaches.
        let start = values(&items, "s")
            .next()
            .or(ops.first().map(|(o, _)| *o))
            .unwrap_or(".");
        ctx.needed
            .push(crate::Needed::UnittestStart(start.to_string()));
    } else if ops.is_empty() {
        ctx.refuse(
            PROOF_5,
            "with no test names, unittest searches the current folder and (Python 3.11) passes when it finds no test; name the tests (`python3 -m unittest tests.test_api`) or `discover -s tests`",
        );
    } else {
        opaque_all(ctx, &ops, "the test name");
        for (name, _) in &ops {
            if let Some(why) = not_a_project_test(name) {
                ctx.refuse(PROOF_2, format!("the test name `{name}` {why}"));
            }
            // unittest imports the name's first part from the project, or
            // else from the installed packages (proof5 #4: `crcmod.test`
            // runs crcmod's own tests on an empty project).
            if let Some(root) = name.split(['.', '/']).find(|p| !p.is_empty()) {
                ctx.needed
                    .push(crate::Needed::PythonModule(root.to_string()));
            }
            // A package runs only what its `__init__.py` defines (`python3
            // -m unittest tests`: "Ran 0 tests … OK" on Python 3.11).
            ctx.needed
                .push(crate::Needed::UnittestName((*name).to_string()));
        }
    }
    runs(ctx, at)
}

/// unittest imports each name it is given, so any installed module's
/// top-level code runs (`venv.__main__` builds a venv and runs pip). A
/// project's test module has a part named `test…` (`tests.test_api`,
/// `tests/test_api.py`, `test_api.TestX.test_y`); the standard library's
/// `test` package (CPython's own suite) and `__main__` modules are not it.
fn not_a_project_test(name: &str) -> Option<&'static str> {
    let name = name.strip_suffix(".py").unwrap_or(name);
    let parts: Vec<&str> = name.split(['.', '/']).filter(|p| !p.is_empty()).collect();
    if parts.first() == Some(&"test") {
        Some("is Python's own test package, not the project's tests")
    } else if parts.iter().any(|p| p.starts_with("__")) {
        Some("names a module's `__main__` or a private module; unittest would run its code")
    } else if !parts
        .iter()
        .any(|p| p.starts_with("test") || p.starts_with("Test"))
    {
        Some(
            "has no `test…` part, so it could be any installed module (unittest imports it and runs its code); name the project's test module, e.g. `tests.test_api`",
        )
    } else {
        None
    }
}

pub(super) fn python3(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    match (
        args.first().map(String::as_str),
        args.get(1).map(String::as_str),
    ) {
        (Some("-m"), Some("pytest")) => {
            ctx.program = "python3 -m pytest".into();
            pytest(ctx, &args[2..], at)
        }
        (Some("-m"), Some("unittest")) => {
            ctx.program = "python3 -m unittest".into();
            unittest(ctx, &args[2..], at)
        }
        (Some("-m"), Some(module)) => {
            let what = match module {
                "pip" | "ensurepip" | "venv" => "installs packages",
                "http.server" | "smtpd" | "ftplib" => "uses the network",
                _ => "runs a module that is not a test runner",
            };
            ctx.refuse(
                PROOF_2,
                format!("`-m {module}` {what}; a proof may run `python3 -m pytest` or `python3 -m unittest`"),
            );
            None
        }
        _ => {
            ctx.refuse(
                PROOF_2,
                "a proof runs Python only as a test runner: `python3 -m pytest -q tests/test_x.py` or `python3 -m unittest`",
            );
            if python_reads_code(args) {
                ctx.refuse(
                    PROOF_4,
                    "runs code given inline or on standard input; write the check as a test file and run it with pytest",
                );
            }
            None
        }
    }
}

/// Whether Python, given `args`, runs code from the line or from standard
/// input (`-c`, `-`, or no script), as its own option parser reads them:
/// `-c`, `-m`, `-W`, `-X` and `--check-hash-based-pycs` take a value.
pub(super) fn python_reads_code(args: &[String]) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "-" || arg == "--" {
            return arg == "-" || args.get(i).is_none();
        }
        if arg == "--check-hash-based-pycs" {
            i += 1;
            continue;
        }
        if arg.starts_with("--") {
            continue;
        }
        let Some(letters) = arg.strip_prefix('-') else {
            return false; // the script file
        };
        for (at, letter) in letters.char_indices() {
            match letter {
                'c' => return true,
                'm' => return false,
                'W' | 'X' => {
                    if at + 1 == letters.len() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    true
}

// ---- make ----------------------------------------------------------------

const MAKE_SHORTS: &[Short] = &[
    short('b', NO, "b"),
    short('B', NO, "B"),
    short('d', NO, "d"),
    short('e', NO, "e"),
    short('E', REQ, "E"),
    short('h', NO, "help"),
    short('i', NO, "i"),
    short('k', NO, "k"),
    short('L', NO, "L"),
    short('m', NO, "m"),
    short('n', NO, "n"),
    short('p', NO, "p"),
    short('q', NO, "q"),
    short('r', NO, "r"),
    short('R', NO, "R"),
    short('s', NO, "s"),
    short('S', NO, "S"),
    short('t', NO, "t"),
    short('v', NO, "version"),
    short('w', NO, "w"),
    short('C', REQ, "C"),
    short('f', REQ, "f"),
    short('I', REQ, "I"),
    short('j', OPT, "j"),
    short('l', OPT, "l"),
    short('o', REQ, "o"),
    short('O', OPT, "O"),
    short('W', REQ, "W"),
];

/// GNU make 4.3: `switches[]` (with a name) then `long_option_aliases[]`.
const MAKE: Table = Table {
    syntax: GNU,
    shorts: MAKE_SHORTS,
    longs: &[
        long("always-make", NO, "B"),
        long("environment-overrides", NO, "e"),
        long("eval", REQ, "E"),
        long("help", NO, "help"),
        long("ignore-errors", NO, "i"),
        long("keep-going", NO, "k"),
        long("check-symlink-times", NO, "L"),
        long("just-print", NO, "n"),
        long("print-data-base", NO, "p"),
        long("question", NO, "q"),
        long("no-builtin-rules", NO, "r"),
        long("no-builtin-variables", NO, "R"),
        long("silent", NO, "s"),
        long("no-keep-going", NO, "S"),
        long("touch", NO, "t"),
        long("version", NO, "version"),
        long("print-directory", NO, "w"),
        long("directory", REQ, "C"),
        long("file", REQ, "f"),
        long("include-dir", REQ, "I"),
        long("jobs", OPT, "j"),
        long("load-average", OPT, "l"),
        long("old-file", REQ, "o"),
        long("output-sync", OPT, "O"),
        long("what-if", REQ, "W"),
        long("debug", OPT, "debug"),
        long("jobserver-auth", REQ, "jobserver-auth"),
        long("trace", NO, "trace"),
        long("no-print-directory", NO, "no-print-directory"),
        long("warn-undefined-variables", NO, "warn-undefined-variables"),
        long("sync-mutex", REQ, "sync-mutex"),
        long("no-silent", NO, "no-silent"),
        long("jobserver-fds", REQ, "jobserver-fds"),
        long("quiet", NO, "s"),
        long("stop", NO, "S"),
        long("new-file", REQ, "W"),
        long("assume-new", REQ, "W"),
        long("assume-old", REQ, "o"),
        long("max-load", OPT, "l"),
        long("dry-run", NO, "n"),
        long("recon", NO, "n"),
        long("makefile", REQ, "f"),
    ],
};

const INTERNAL: Use = Use::No(PROOF_2, "is make's internal option; not needed in a proof");

const MAKE_RULES: &[Rule] = &[
    ("s", Use::Flag),
    ("no-silent", Use::Flag),
    ("k", Use::Flag),
    ("S", Use::Flag),
    ("B", Use::Flag),
    ("r", Use::Flag),
    ("R", Use::Flag),
    ("w", Use::Flag),
    ("no-print-directory", Use::Flag),
    ("warn-undefined-variables", Use::Flag),
    ("trace", Use::Flag),
    ("j", Use::Value(Val::Count)),
    (
        "O",
        Use::Value(Val::Choice(&["none", "line", "target", "recurse"])),
    ),
    (
        "E",
        Use::No(
            PROOF_4,
            "evaluates makefile code given in the line; put the rule in the project's Makefile",
        ),
    ),
    (
        "f",
        Use::No(
            PROOF_2,
            "reads another makefile; a proof runs the project's own Makefile",
        ),
    ),
    ("C", Use::No(PROOF_2, "runs make in another folder")),
    (
        "I",
        Use::No(PROOF_3, "includes makefiles from another folder"),
    ),
    (
        "e",
        Use::No(PROOF_2, "lets the environment override the Makefile"),
    ),
    (
        "o",
        Use::No(
            PROOF_2,
            "pretends files are up to date; not needed in a proof",
        ),
    ),
    (
        "W",
        Use::No(PROOF_2, "pretends files changed; not needed in a proof"),
    ),
    (
        "n",
        Use::No(PROOF_5, "prints the commands instead of running them"),
    ),
    ("q", Use::No(PROOF_5, "runs nothing")),
    (
        "p",
        Use::No(PROOF_5, "prints the database and verifies nothing"),
    ),
    (
        "t",
        Use::No(PROOF_2, "touches files instead of building them"),
    ),
    (
        "i",
        Use::No(PROOF_5, "ignores errors, so the proof would pass anyway"),
    ),
    (
        "d",
        Use::No(PROOF_2, "is a debugging option; not needed in a proof"),
    ),
    (
        "debug",
        Use::No(PROOF_2, "is a debugging option; not needed in a proof"),
    ),
    ("L", Use::Flag),
    ("l", Use::Value(Val::Count)),
    ("b", Use::No(PROOF_2, "is ignored by make; drop it")),
    ("m", Use::No(PROOF_2, "is ignored by make; drop it")),
    ("jobserver-auth", INTERNAL),
    ("jobserver-fds", INTERNAL),
    ("sync-mutex", INTERNAL),
    HELP_VERSION[0],
    HELP_VERSION[1],
];

pub(super) fn make(ctx: &mut Ctx, args: &[String], at: &At) -> Option<Facts> {
    let items = read_options(ctx, &MAKE, MAKE_RULES, args)?;
    ctx.identify(
        &items,
        &[
            "s",
            "no-silent",
            "w",
            "no-print-directory",
            "trace",
            "j",
            "O",
            "k",
            "S",
            "L",
            "l",
        ],
        &[],
    );
    if items
        .iter()
        .any(|i| matches!(i, Item::Opt { id: "f", value: Some(v), .. } if v == "-"))
    {
        ctx.refuse(
            PROOF_4,
            "`-f -` reads the makefile, which is code, from standard input",
        );
    }
    let targets = operands(&items);
    for (target, _) in &targets {
        if let Some((name, _)) = target.split_once('=') {
            ctx.refuse(
                PROOF_2,
                format!("`{target}` sets the make variable `{name}` from the line, which overrides the Makefile (SHELL, MAKEFLAGS…)"),
            );
        } else {
            if target.starts_with('-') {
                ctx.refuse(
                    PROOF_2,
                    format!("the target `{target}` starts with `-`: a recipe that pastes the goal (`$@`, `$*`) hands it to its program as an option (`pytest --co`); name a target plainly"),
                );
            }
            ctx.shell_text(target, "the target");
            // A goal with no rule that names an existing file or folder
            // is "up to date" too (`make src`): `ploy proof run` checks it.
            ctx.needed.push(crate::Needed::MakeGoal(target.to_string()));
            if target.contains(['.', '/'])
                || target.eq_ignore_ascii_case("makefile")
                || target.eq_ignore_ascii_case("gnumakefile")
            {
                ctx.refuse(
                    PROOF_5,
                    format!("the target `{target}` names a file: make passes without running anything when the file exists and has no rule or is up to date (`make Makefile`, `make README.md`); name a rule such as `make check`"),
                );
            }
        }
    }
    if targets.is_empty() {
        ctx.refuse(PROOF_2, "name the target to build: `make check`");
        return None;
    }
    runs(ctx, at)
}

/// The GNU make table (see [`super::gnu_table`]).
pub(crate) const MAKE_TABLE: &Table = &MAKE;
