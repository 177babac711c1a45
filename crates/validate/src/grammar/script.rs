//! A project script named by its relative path (`./check.sh`,
//! `scripts/test.sh`): an argv like any other, run directly (its own first
//! line names its interpreter). It is project code, contained by the
//! sandbox (PROOF-6); its path is checked like a path, and it takes no
//! arguments (they could reach a test runner the validator cannot see).

use super::{At, Ctx, Facts};
use crate::PROOF_2;
use crate::vacuity::{Cond, PathTest};

/// Names (without a version suffix) of the tools a project folder may hold
/// a copy of that run code their arguments name, beyond the grammar's own
/// interpreters and launchers ([`super::INTERPRETERS`],
/// [`super::LAUNCHERS`], one list each for both uses).
const TOOLS: &[&str] = &[
    "pip", "pytest", "npm", "pnpm", "yarn", "cargo", "go", "make", "git", "find",
    // Interpreters, shells and loaders under other names (outside attacker's
    // proof5 #12: `bin/ipython x`, `bin/rbash x`, `bin/ld.so x`, `bin/tcc
    // -run x`, `bin/cmake -P x`).
    "ipython", "ipython3", "xonsh", "rbash", "elvish", "nu", "oil", "osh", "tcc", "cmake", "ld",
    "ld.so", "scons", "ninja", "gradle", "mvn", "rake", "bundle", "php-cgi",
];

/// Extensions of script files: `grep.sh` is a shell script, not grep.
const SCRIPT_EXTENSIONS: &[&str] = &[
    "sh", "bash", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "lua", "tcl", "ps1",
];

pub(super) fn script(ctx: &mut Ctx, path: &str, args: &[String], at: &At) -> Option<Facts> {
    if path.starts_with('/') {
        ctx.refuse(
            PROOF_2,
            "runs a program by absolute path; a proof runs the allowed programs by name, or a project script by its path inside the project",
        );
    }
    ctx.path(path, "the script");
    if path.ends_with('/') {
        ctx.refuse(PROOF_2, "names a folder, not a script");
    }
    if !path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._/-+".contains(c))
    {
        ctx.refuse(
            PROOF_2,
            "a script's path is made of letters, digits and `._/-+`",
        );
    }
    // Programs kept in dot-folders (`.git/hooks/*.sample`, `.venv/bin`),
    // `node_modules` or a virtualenv are third-party programs, not the
    // project's scripts; interpreters and shells run whatever code their
    // arguments carry (`venv/bin/python3 -c …`, `./sh -c id`).
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts[..parts.len().saturating_sub(1)].iter().any(|p| {
        p.starts_with('.')
            || matches!(
                *p,
                "node_modules" | "venv" | "env" | "site-packages" | "__pycache__"
            )
    }) {
        ctx.refuse(
            PROOF_2,
            "runs a program from a hidden folder, `node_modules` or a virtualenv: third-party programs (git's sample hooks, installed tools), not the project's own scripts",
        );
    }
    // `scripts//x.sh`, `scripts/./x.sh`: the same file under another
    // spelling, which a reader of the plan does not expect.
    if path
        .strip_prefix("./")
        .unwrap_or(path)
        .split('/')
        .any(|p| p.is_empty() || p == ".")
    {
        ctx.refuse(
            PROOF_2,
            "write the script's path plainly (`scripts/x.sh`, `./x.sh`): no empty or `.` parts",
        );
    }
    if let Some(name) = parts.last() {
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        // `busybox.static`, `sh.distrib`, `ld-linux-x86-64.so.2`: a copy
        // of a program under a suffixed name is the program.
        let base = match name.split_once('.') {
            Some((base, ext)) if !SCRIPT_EXTENSIONS.contains(&ext) => base,
            _ => name,
        };
        // `test` and `[` run no program: `./test` may be the project's own.
        let programs: Vec<&str> = super::PROGRAMS
            .iter()
            .map(|p| p.name)
            .filter(|n| !matches!(*n, "test" | "["))
            .collect();
        if [super::INTERPRETERS, super::LAUNCHERS, TOOLS, &programs]
            .iter()
            .any(|names| names.contains(name) || names.contains(&stem) || names.contains(&base))
            || name.starts_with("ld-linux")
        {
            ctx.refuse(
                crate::PROOF_4,
                format!("`{name}` is named like an interpreter, a shell, a loader or a program of the allowlist, which runs code or programs its arguments name (`rg --pre`), outside that program's own grammar; run the program by name or give the script another name"),
            );
        }
    }
    if path.split('/').any(|part| part.starts_with('-')) {
        ctx.refuse(
            PROOF_2,
            "a path part that starts with `-` reads as an option",
        );
    }
    // A script may paste its arguments into a shell command (`sh -c "…
    // $1"`), so they are shell-inert like make targets (proof5 #12).
    for arg in args {
        ctx.shell_text(arg, "the script argument");
    }
    // A script hands its arguments to whatever it runs (`exec pytest
    // "$@"` reads `--co` and runs no test; `cargo test "$@"` reads a word
    // as a test-name filter), and no grammar can check a runner the
    // validator cannot see (round6 #2, the class of `npm test -- --co`):
    // a proof runs the script as it is.
    if let Some(arg) = args.first() {
        ctx.refuse(
            crate::PROOF_5,
            format!("`{arg}` is passed to the project's script, which can hand it to a test runner the validator cannot see (`pytest \"$@\"` reads `--co` and runs no test, `cargo test \"$@\"` reads a word as a filter), so the run can pass without running a test; run the script without arguments (write one script per check), or name the runner with its own options"),
        );
    }
    if let Some(arg) = args
        .iter()
        .find(|a| matches!(a.as_str(), "-" | "-c" | "-e" | "--eval"))
    {
        ctx.refuse(
            crate::PROOF_4,
            format!("`{arg}` hands the script code or standard input to run; a proof runs the script as it is"),
        );
    }
    // The script must be an executable file for the proof to pass.
    Some(Facts {
        status: Cond::path(PathTest::Executable, path)
            .and(Cond::path(PathTest::File, path))
            .and(ctx.outcome(at)),
    })
}
