//! Proofs under `strace -f`, through the real `ploy proof run` (validator,
//! then the plan in the sandbox), against a fixture project:
//!
//! * no proof starts a shell to interpret its line: `sh`, `bash`, `dash`…
//!   are never executed for a plan of checkers, pipes and `&&`/`||`/`!`
//!   included;
//! * the differential test of issue 12: every accepted line whose programs
//!   behave in a fully known way (`grep`, `rg`, `test`, `diff`, `cmp`, `wc`,
//!   `head`, `tail`, `cat`, `ls`, `find`, `jq`, `yq`, read-only `git`) opens
//!   files inside the project only (plus the system's runtime files: shared
//!   libraries, locales, `/proc/self`; listed below) and executes no program
//!   but its own; for build tools (`cargo`, `npm`, `make`, `pytest`, `go`),
//!   nothing is written outside the project's copy-on-write layer and the
//!   sandbox's private `/tmp`, and nothing connects to the network;
//! * the ordinary proofs pass in the sandbox.
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

mod support;

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    process::{Command, Output},
};

use support::{TempDir, json};

/// The fixture project with its git history, and a copy of ploy.
struct Fixture {
    dir: TempDir,
    project: PathBuf,
    ploy: PathBuf,
}

fn find_program(name: &str) -> Result<PathBuf, String> {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|path| path.is_file())
        })
        .ok_or_else(|| format!("`{name}` is not on PATH; scripts/setup.sh installs it"))
}

fn run_ok(command: &mut Command) {
    let out = command.output().unwrap();
    assert!(out.status.success(), "{command:?}: {out:?}");
}

impl Fixture {
    fn new(label: &str) -> Fixture {
        let dir = TempDir::new(label);
        let files: &[(&str, &str)] = &[
            ("README.md", "# fixture\nLicensed under MIT.\n"),
            ("LICENSE", "MIT License\n"),
            (
                "src/main.rs",
                "fn main() {\n    println!(\"hi\");\n}\n\n#[test]\nfn works() {}\n",
            ),
            ("src/lib.txt", "alpha\nbeta\n"),
            (
                "Cargo.toml",
                "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            ("Makefile", "check:\n\ttest -f README.md\n"),
            (
                "package.json",
                "{\"name\":\"fixture\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node -e \\\"process.exit(0)\\\"\"}}\n",
            ),
            (
                "tests/test_app.py",
                "def test_ok():\n    assert 1 + 1 == 2\n",
            ),
            ("go.mod", "module example.com/fixture\n\ngo 1.19\n"),
            ("main.go", "package main\n\nfunc main() {}\n"),
            (
                "main_test.go",
                "package main\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n",
            ),
            (
                "data.json",
                "{\"name\": \"fixture\", \"version\": \"1.0\"}\n",
            ),
            ("config.yaml", "name: fixture\nversion: '1.0'\n"),
            ("a/b.txt", "same\n"),
            ("c/d.txt", "same\n"),
            ("expected.txt", "alpha\nbeta\n"),
        ];
        for (path, text) in files {
            dir.write(&format!("home/proj/{path}"), text);
        }
        let project = dir.path().join("home/proj");
        dir.write_executable("home/proj/check.sh", "#!/bin/sh\ntest -f README.md\n");
        let git = |args: &[&str]| {
            run_ok(
                Command::new("git")
                    .args([
                        "-c",
                        "user.name=ploy",
                        "-c",
                        "user.email=ploy@example.invalid",
                    ])
                    .args(args)
                    .current_dir(&project)
                    .env("HOME", dir.path())
                    .env("GIT_CONFIG_NOSYSTEM", "1"),
            )
        };
        git(&["init", "-q"]);
        git(&["add", "-A"]);
        git(&["commit", "-q", "-m", "fixture"]);
        // ploy starts its sandbox init from the binary next to itself.
        let ploy = dir.path().join("ploy");
        std::fs::copy(support::PLOY, &ploy).unwrap();
        std::fs::copy(
            env!("CARGO_BIN_EXE_ploy-sandbox-init"),
            dir.path().join("ploy-sandbox-init"),
        )
        .unwrap();
        Fixture { dir, project, ploy }
    }

    /// `ploy proof run LINE --json`, optionally under `strace` writing one
    /// file per process to `trace`.
    fn proof(&self, line: &str, trace: Option<&Path>) -> Output {
        self.ploy(&["proof", "run", line, "--json", "--project"], trace)
    }

    /// `ploy ARGS… PROJECT`, optionally under `strace`.
    fn ploy(&self, args: &[&str], trace: Option<&Path>) -> Output {
        let mut command = match trace {
            Some(prefix) => strace(prefix, &self.ploy),
            None => Command::new(&self.ploy),
        };
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".cargo"));
        let rustup_home = std::env::var_os("RUSTUP_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".rustup"));
        support::point_at(&mut command, self.dir.path())
            .args(args)
            .arg(&self.project)
            .current_dir(&self.project)
            .env("HOME", self.dir.path().join("home"))
            .env("CARGO_HOME", cargo_home)
            .env("RUSTUP_HOME", rustup_home);
        command.output().unwrap()
    }
}

/// `strace` around `ploy`, one trace file per process under `prefix`, the
/// sandbox's PIDs translated to strace's own.
fn strace(prefix: &Path, ploy: &Path) -> Command {
    let mut command = Command::new("strace");
    command
        .args([
            "-f",
            "-ff",
            "-y",
            "-qq",
            "--decode-pids=pidns",
            "-s",
            "256",
            "-o",
        ])
        .arg(prefix)
        .args(["-e", TRACED])
        .arg(ploy);
    command
}

/// The system calls the differential test reads.
const TRACED: &str = "trace=execve,execveat,open,openat,openat2,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,truncate,chmod,fchmodat,connect,clone,clone3,fork,vfork";

/// Files outside the project that programs read to start and run: shared
/// libraries, the loader's cache, locales, character sets, name-service
/// configuration, the process's own `/proc` entries, CPU and cgroup limits,
/// the system git, Python and OpenSSL configuration and the sandbox's
/// private `/tmp` (its HOME). Nothing else outside the project: not the
/// user's home, not /etc/shadow, not other projects.
const SYSTEM_READS: &[&str] = &[
    "/usr/",
    "/proc/",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
    "/dev/null",
    "/dev/urandom",
    "/tmp/",
    "/etc/ld.so.cache",
    "/etc/locale.alias",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/gitconfig",
    "/etc/python3",
    // Python's hashlib (the `yq` wrapper) loads OpenSSL's configuration.
    "/etc/ssl/openssl.cnf",
    // The sandbox's build cache (Python's bytecode cache among others).
    "/var/cache/ploy-build/",
];

const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish",
];

/// One traced system call.
#[derive(Debug)]
struct Call {
    name: String,
    args: String,
    result: String,
}

fn parse(line: &str) -> Option<Call> {
    let open = line.find('(')?;
    let name = line[..open].trim().to_string();
    // `name(args) = result`, the `=` sometimes padded (`vfork()      = 3`).
    let mut at = line.len();
    let (close, result) = loop {
        let eq = line[..at].rfind(" = ")?;
        let before = line[..eq].trim_end();
        if before.ends_with(')') && before.len() > open {
            break (before.len() - 1, &line[eq + 3..]);
        }
        at = eq;
    };
    Some(Call {
        name,
        args: line[open + 1..close].to_string(),
        result: result.to_string(),
    })
}

/// The path in `<…>` after the result (strace -y), for a returned fd.
fn returned_path(result: &str) -> Option<String> {
    let start = result.find('<')?;
    let end = result[start..].find('>')? + start;
    Some(result[start + 1..end].to_string())
}

/// The first quoted string argument, made absolute against a leading dirfd.
fn path_argument(args: &str) -> Option<String> {
    let quote = args.find('"')?;
    let rest = &args[quote + 1..];
    let end = rest.find('"')?;
    let path = &rest[..end];
    if path.starts_with('/') {
        return Some(path.to_string());
    }
    let dir_start = args[..quote].find('<')?;
    let dir_end = args[..quote].rfind('>')?;
    Some(format!("{}/{path}", &args[dir_start + 1..dir_end]))
}

fn succeeded(result: &str) -> bool {
    !result.starts_with('-') && !result.starts_with('?')
}

/// What the plan's processes did, from one run's per-process trace files.
#[derive(Debug, Default)]
struct Activity {
    /// Programs the plan's commands executed (their first exec).
    commands: Vec<String>,
    /// Further programs executed by a command or its children.
    other_programs: BTreeSet<String>,
    /// Every program executed by any process of the run.
    all_programs: BTreeSet<String>,
    reads: BTreeSet<String>,
    writes: BTreeSet<String>,
    connects: Vec<String>,
}

fn activity(prefix: &Path, ploy: &Path) -> Activity {
    let dir = prefix.parent().unwrap();
    let stem = prefix.file_name().unwrap().to_str().unwrap();
    let mut calls: BTreeMap<u32, Vec<Call>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let Some(pid) = name
            .strip_prefix(stem)
            .and_then(|rest| rest.strip_prefix('.'))
            .and_then(|pid| pid.parse().ok())
        else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        calls.insert(pid, text.lines().filter_map(parse).collect());
    }
    let ploy_name = ploy.to_str().unwrap().to_string();
    let init_name = ploy
        .with_file_name("ploy-sandbox-init")
        .to_str()
        .unwrap()
        .to_string();
    // Children of each process, with the index of the call that made them.
    let mut children: BTreeMap<u32, Vec<(usize, u32)>> = BTreeMap::new();
    for (pid, list) in &calls {
        for (i, call) in list.iter().enumerate() {
            // Inside the sandbox's PID namespace, strace adds the pid it
            // knows the child by: `= 2 /* 9164 in strace's PID NS */`.
            let global = call
                .result
                .split("/* ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .unwrap_or(call.result.trim());
            if matches!(call.name.as_str(), "clone" | "clone3" | "fork" | "vfork")
                && let Ok(child) = global.parse::<u32>()
            {
                children.entry(*pid).or_default().push((i, child));
            }
        }
    }
    let mut seen = Activity::default();
    let mut inits = BTreeSet::new();
    for (pid, list) in &calls {
        for call in list {
            if call.name.starts_with("execve") && succeeded(&call.result) {
                let program = path_argument(&call.args).unwrap_or_default();
                if program == init_name
                    || (program == ploy_name && call.args.contains("__ploy-sandbox-init"))
                {
                    inits.insert(*pid);
                }
                seen.all_programs.insert(program);
            }
        }
    }
    // The plan's commands are the init's children, from their exec on.
    let mut plan: Vec<(u32, usize)> = Vec::new();
    for init in &inits {
        for (_, child) in children.get(init).into_iter().flatten() {
            let exec = calls.get(child).and_then(|list| {
                list.iter()
                    .position(|call| call.name.starts_with("execve") && succeeded(&call.result))
            });
            if let Some(at) = exec {
                seen.commands
                    .push(path_argument(&calls[child][at].args).unwrap_or_default());
                plan.push((*child, at));
            }
        }
    }
    let mut queue = plan.clone();
    let mut in_plan: BTreeMap<u32, usize> = BTreeMap::new();
    while let Some((pid, from)) = queue.pop() {
        if in_plan.insert(pid, from).is_some() {
            continue;
        }
        for (at, child) in children.get(&pid).into_iter().flatten() {
            if *at >= from {
                queue.push((*child, 0));
            }
        }
    }
    for (pid, from) in &in_plan {
        let is_command = plan.iter().any(|(p, i)| p == pid && i == from);
        let Some(list) = calls.get(pid) else {
            continue;
        };
        for (index, call) in list.iter().enumerate().skip(*from) {
            if !succeeded(&call.result) {
                continue;
            }
            match call.name.as_str() {
                "execve" | "execveat" => {
                    // The command's own exec starts its trace; any other is
                    // another program.
                    if !(is_command && index == *from) {
                        seen.other_programs
                            .insert(path_argument(&call.args).unwrap_or_default());
                    }
                }
                "open" | "openat" | "openat2" | "creat" => {
                    let path = returned_path(&call.result)
                        .or_else(|| path_argument(&call.args))
                        .unwrap_or_default();
                    let writes = call.name == "creat"
                        || ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"]
                            .iter()
                            .any(|flag| call.args.contains(flag));
                    if writes {
                        seen.writes.insert(path);
                    } else {
                        seen.reads.insert(path);
                    }
                }
                "connect" => {
                    if call.args.contains("AF_INET") {
                        seen.connects.push(call.args.clone());
                    }
                }
                "clone" | "clone3" | "fork" | "vfork" => {}
                _ => {
                    seen.writes
                        .insert(path_argument(&call.args).unwrap_or_default());
                }
            }
        }
    }
    seen
}

fn inside(path: &str, root: &Path) -> bool {
    Path::new(path).starts_with(root)
}

fn system_read(path: &str) -> bool {
    SYSTEM_READS.iter().any(|prefix| path.starts_with(prefix))
}

/// Runs `line` under strace and returns what its plan did.
fn traced(fixture: &Fixture, line: &str) -> (serde_json::Value, Activity) {
    let traces = TempDir::new("trace");
    let prefix = traces.path().join("t");
    let out = fixture.proof(line, Some(&prefix));
    let report = json(&out);
    let seen = activity(&prefix, &fixture.ploy);
    (report, seen)
}

/// Checkers, fully known: accepted, then under strace they read only the
/// project (and the system's runtime files) and run no other program.
const CHECKER_LINES: &[&str] = &[
    "grep -q 'fn main' src/main.rs",
    "grep -rq alpha src",
    "grep -c beta src/lib.txt",
    "grep -q -e alpha -e beta src/lib.txt",
    "rg -q alpha src",
    "rg -q --files-with-matches beta src/lib.txt",
    "test -f README.md && grep -q MIT LICENSE",
    "[ -d src ] && [ ! -e missing.txt ]",
    "test -x check.sh -a -s README.md",
    "diff -q a/b.txt c/d.txt",
    "diff -u expected.txt src/lib.txt >/dev/null",
    "cmp -s a/b.txt c/d.txt",
    "wc -l src/lib.txt",
    "head -n 1 README.md | grep -q fixture",
    "tail -n 1 src/lib.txt | grep -q beta",
    "cat README.md | grep -q MIT",
    "ls src/main.rs",
    "ls -la src",
    "find src -name '*.rs' -type f",
    "find . -name '*.txt' -newer LICENSE -print | grep -q txt",
    "jq -e '.name' data.json",
    "jq -e '.version == \"1.0\"' data.json",
    "cat data.json | jq -e .name",
    "yq -e '.name' config.yaml",
    "git diff --quiet",
    "git diff --quiet HEAD -- src",
    "git status --porcelain | grep -q . || test -f README.md",
    "! git status --porcelain --ignored | grep -q .",
    "git log -1 --format=%s | grep -q fixture",
    "git log --oneline -3 HEAD -- README.md",
    "git show HEAD:README.md | grep -q fixture",
    "git ls-files --error-unmatch src/main.rs",
    "git grep -q alpha -- src",
    "grep -q nothing-here README.md || grep -q fixture README.md",
    "! grep -q nothing-here README.md",
    "grep x src/lib.txt | grep -q y 2>&1 || test -f LICENSE",
];

/// Which programs a checker may execute besides its own (the Python `yq`
/// hands the filter to `jq`).
fn helpers(command: &str) -> &'static [&'static str] {
    if command.ends_with("/yq") {
        &["/usr/bin/jq"]
    } else {
        &[]
    }
}

// proves: PROOF-2, PROOF-3, PROOF-6 (differential: fully known checkers read only the project and run nothing else)
#[test]
fn checkers_read_only_the_project_and_run_nothing_else() {
    ploy_testkit::require_part!("strace", find_program("strace"));
    for program in ["rg", "jq", "yq", "git", "diff"] {
        ploy_testkit::require_part!(program, find_program(program));
    }
    let fixture = Fixture::new("checkers");
    let project = fixture.project.canonicalize().unwrap();
    let mut problems = Vec::new();
    for line in CHECKER_LINES {
        let verdict = ploy_validate::validate(line);
        let plan = verdict
            .plan()
            .unwrap_or_else(|| panic!("{line} refused: {verdict:?}"));
        for command in plan.commands() {
            assert_eq!(
                ploy_validate::program_kind(&command.argv[0]),
                Some(ploy_validate::ProgramKind::Checker),
                "{line}"
            );
        }
        let (report, seen) = traced(&fixture, line);
        if report["verdict"] == "refused" {
            problems.push(format!("{line}: refused at run time: {report}"));
            continue;
        }
        if seen.commands.is_empty() {
            problems.push(format!("{line}: no command ran: {report}"));
        }
        for program in &seen.other_programs {
            if !seen
                .commands
                .iter()
                .any(|c| helpers(c).contains(&program.as_str()))
            {
                problems.push(format!("{line}: executed another program {program}"));
            }
        }
        for path in &seen.reads {
            if !inside(path, &project) && !system_read(path) {
                problems.push(format!("{line}: read {path} outside the project"));
            }
        }
        for path in &seen.writes {
            // git may refresh its index (inside the project's copy-on-write
            // layer); Python (the `yq` wrapper) writes no bytecode, or,
            // when the project has many `__pycache__` folders, only to the
            // run's build cache (PYTHONPYCACHEPREFIX).
            let git_index = path.contains("/.git/index");
            let pycache = path.starts_with("/var/cache/ploy-build/pycache");
            if path != "/dev/null" && !(git_index && inside(path, &project)) && !pycache {
                problems.push(format!("{line}: wrote {path}"));
            }
        }
        if !seen.connects.is_empty() {
            problems.push(format!("{line}: connected: {:?}", seen.connects));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// proves: PROOF-6 (the trace analysis is not blind: it sees a read outside the project and a second program)
#[test]
fn the_trace_analysis_sees_outside_reads_and_other_programs() {
    ploy_testkit::require_part!("strace", find_program("strace"));
    let fixture = Fixture::new("blind");
    let traces = TempDir::new("trace");
    let prefix = traces.path().join("t");
    // Without the validator (`ploy sandbox run`): a shell that reads
    // /etc/hostname through cat.
    let seen = {
        let mut command = Command::new("strace");
        command
            .args([
                "-f",
                "-ff",
                "-y",
                "-qq",
                "--decode-pids=pidns",
                "-s",
                "256",
                "-o",
            ])
            .arg(&prefix)
            .args(["-e", TRACED])
            .arg(&fixture.ploy)
            .args(["sandbox", "run", "--project"])
            .arg(&fixture.project)
            .args([
                "--",
                "/bin/sh",
                "-c",
                "cat /etc/hostname >/dev/null; echo done",
            ]);
        support::point_at(&mut command, fixture.dir.path())
            .env("HOME", fixture.dir.path().join("home"));
        let output = command.output().unwrap();
        assert!(output.status.success(), "{output:?}");
        activity(&prefix, &fixture.ploy)
    };
    assert!(seen.commands.iter().any(|c| c.ends_with("/sh")), "{seen:?}");
    assert!(
        seen.other_programs.iter().any(|p| p.ends_with("/cat")),
        "{seen:?}"
    );
    assert!(seen.reads.iter().any(|p| p == "/etc/hostname"), "{seen:?}");
}

// proves: PROOF-6 (no proof path starts a shell to interpret the line)
#[test]
fn no_shell_interprets_a_proof() {
    ploy_testkit::require_part!("strace", find_program("strace"));
    let fixture = Fixture::new("noshell");
    for line in [
        "test -f README.md",
        "grep -q fixture README.md && test -d src || test -f LICENSE",
        "! grep -q nothing README.md",
        "cat README.md 2>/dev/null | grep -q MIT >/dev/null 2>&1",
        "head -n 1 README.md | grep fixture | grep -q x || ls src",
    ] {
        let (report, seen) = traced(&fixture, line);
        assert_ne!(report["verdict"], "refused", "{line}: {report}");
        let shells: Vec<&String> = seen
            .all_programs
            .iter()
            .filter(|p| SHELLS.contains(&p.rsplit('/').next().unwrap_or(p)))
            .collect();
        assert!(shells.is_empty(), "{line}: a shell ran: {shells:?}");
        // Every command of the plan that ran was executed as itself.
        let plan = ploy_validate::validate(line).plan().cloned().unwrap();
        let names: BTreeSet<&str> = plan.commands().map(|c| c.argv[0].as_str()).collect();
        for command in &seen.commands {
            let base = command.rsplit('/').next().unwrap();
            assert!(
                names.contains(base),
                "{line}: ran {command}, not in {names:?}"
            );
        }
        assert!(!seen.commands.is_empty(), "{line}: nothing ran");
    }
}

/// Build tools run project code: under strace, nothing is written outside
/// the project (its copy-on-write layer and writable `target/`) and the
/// sandbox's private `/tmp`, and no socket connects to the network.
// proves: PROOF-6, SBX-1, SBX-2 (differential: build tools stay in the project and off the network)
#[test]
fn build_tools_stay_in_the_project_and_off_the_network() {
    ploy_testkit::require_part!("strace", find_program("strace"));
    for program in ["make", "npm", "node", "go", "pytest", "cargo"] {
        ploy_testkit::require_part!(program, find_program(program));
    }
    let fixture = Fixture::new("builders");
    let project = fixture.project.canonicalize().unwrap();
    let mut problems = Vec::new();
    for line in [
        "make check",
        "npm test",
        "python3 -m pytest -q tests",
        "pytest -q tests",
        "go test ./...",
        "./check.sh",
    ] {
        assert!(
            ploy_validate::validate(line).is_accepted(),
            "{line} refused"
        );
        let (report, seen) = traced(&fixture, line);
        if report["verdict"] != "passed" {
            problems.push(format!("{line}: did not pass: {report}"));
        }
        for path in &seen.writes {
            // The project (copy-on-write), the sandbox's private /tmp, and
            // the per-project build cache the sandbox mounts.
            if !(inside(path, &project)
                || path.starts_with("/tmp/")
                || path.starts_with("/dev/")
                || path.starts_with("/var/cache/ploy-build"))
            {
                problems.push(format!("{line}: wrote {path}"));
            }
        }
        if !seen.connects.is_empty() {
            problems.push(format!("{line}: connected: {:?}", seen.connects));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// proves: PROOF-6 (the ordinary proofs pass in the sandbox)
#[test]
fn ordinary_proofs_pass_in_the_sandbox() {
    for program in ["cargo", "npm", "go", "make", "git"] {
        ploy_testkit::require_part!(program, find_program(program));
    }
    ploy_testkit::require_part!(
        "python3-pytest",
        Command::new("/usr/bin/python3")
            .args(["-m", "pytest", "--version"])
            .output()
            .map_err(|e| e.to_string())
            .and_then(|o| if o.status.success() {
                Ok(())
            } else {
                Err("python3 -m pytest failed".to_string())
            })
    );
    let fixture = Fixture::new("ordinary");
    for line in [
        "cargo test -q",
        "grep -q \"fn main\" src/main.rs",
        "npm test",
        "python3 -m pytest -q tests",
        "test -f README.md && grep -q MIT LICENSE",
        "make check",
        "go test ./...",
        "git diff --quiet",
    ] {
        let report = json(&fixture.proof(line, None));
        assert_eq!(report["verdict"], "passed", "{line}: {report}");
    }
    // And a failing check fails (the runs are not vacuous).
    let report = json(&fixture.proof("grep -q nothing-here README.md", None));
    assert_eq!(report["verdict"], "failed", "{report}");
}
