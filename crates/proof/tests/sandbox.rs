//! The sandbox, attacked by real programs (SBX-1..5, BEYOND-3, BEYOND-4).
//!
//! Each test drives the `ploy-sandbox-run` helper binary (a real launcher).
//! When the tests run as root (as CI does), the helper runs as `nobody`, the
//! way users run ploy: unprivileged. Canaries and projects are owned by the
//! sandbox user, so only the sandbox stands between the program and them.
#![allow(clippy::disallowed_methods)] // test servers and the helper binary's runs
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers panic on setup failure

use std::{
    net::TcpListener,
    os::unix::{
        fs::{OpenOptionsExt, PermissionsExt},
        process::CommandExt,
    },
    path::{Path, PathBuf},
    process::Command,
    sync::atomic::{AtomicUsize, Ordering},
};

use ploy_proof::sandbox::MAX_BYTECODE_MASKS;
use ploy_validate::{Connector, Pipeline, PlanCommand, ProofPlan, StreamTarget};
use serde_json::Value;

const PYTHON: &str = "/usr/bin/python3";

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fake home with canaries, a project inside it and a copy of the helper.
struct World {
    base: PathBuf,
    home: PathBuf,
    project: PathBuf,
    helper: PathBuf,
    user: Option<(u32, u32)>,
}

impl World {
    fn new() -> World {
        let base = std::env::temp_dir().canonicalize().unwrap().join(format!(
            "ploy-sbx-test-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let home = base.join("home");
        let project = home.join("code/app");
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::create_dir_all(project.join("target")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(home.join(".aws")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "CANARY-SSH-KEY").unwrap();
        std::fs::write(home.join(".aws/credentials"), "CANARY-AWS-CREDS").unwrap();
        std::fs::write(project.join("tracked.txt"), "original\n").unwrap();
        std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
        let helper = base.join("ploy-sandbox-run");
        std::fs::copy(env!("CARGO_BIN_EXE_ploy-sandbox-run"), &helper).unwrap();
        std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
        // SAFETY: geteuid has no preconditions.
        let user = if unsafe { libc::geteuid() } == 0 {
            Some((65534, 65534))
        } else {
            None
        };
        if let Some((uid, gid)) = user {
            chown_tree(&base, uid, gid);
        }
        World {
            base,
            home,
            project,
            helper,
            user,
        }
    }

    fn command(&self, options: &[&str], program: &[&str]) -> Command {
        let mut command = Command::new(&self.helper);
        command
            .args(options)
            .arg("--project")
            .arg(&self.project)
            .arg("--")
            .args(program)
            .env("HOME", &self.home)
            // cargo/rustup set these for tests; the toolchain test wants the
            // defaults under the fake home.
            .env_remove("CARGO_HOME")
            .env_remove("RUSTUP_HOME")
            .current_dir(&self.base);
        if let Some((uid, gid)) = self.user {
            command.uid(uid).gid(gid);
        }
        command
    }

    fn run_with(&self, options: &[&str], program: &[&str], env: &[(&str, &str)]) -> Value {
        let mut command = self.command(options, program);
        command.envs(env.iter().copied());
        let out = output_retrying(&mut command);
        assert!(
            out.status.success(),
            "helper failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("bad JSON: {}", String::from_utf8_lossy(&out.stdout)))
    }

    fn run(&self, options: &[&str], program: &[&str]) -> Value {
        self.run_with(options, program, &[])
    }

    fn sh(&self, options: &[&str], script: &str) -> Value {
        self.run(options, &["/bin/sh", "-c", script])
    }

    /// A build-cache root outside the project, owned by the sandbox user.
    fn cache_option(&self) -> String {
        let root = self.base.join("state/build-cache");
        std::fs::create_dir_all(&root).unwrap();
        if let Some((uid, gid)) = self.user {
            chown_tree(&self.base.join("state"), uid, gid);
        }
        root.to_str().unwrap().to_string()
    }

    /// What is left in the project's build-cache folder after its runs,
    /// besides the lock: each run's own cache is removed when it ends.
    fn cache_leftovers(&self) -> Vec<String> {
        let root = self.base.join("state/build-cache");
        let Ok(mut dirs) = std::fs::read_dir(&root) else {
            return Vec::new();
        };
        let Some(dir) = dirs.next() else {
            return Vec::new();
        };
        assert!(dirs.next().is_none(), "one cache folder per project");
        std::fs::read_dir(dir.unwrap().path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name != "lock")
            .collect()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// Runs the command; retries while another test thread's fork still holds
/// the freshly copied binary open for writing (ETXTBSY, a known race).
fn output_retrying(command: &mut Command) -> std::process::Output {
    for _ in 0..100 {
        match command.output() {
            Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other.unwrap(),
        }
    }
    panic!("the copied helper binary stayed busy");
}

fn chown_tree(path: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid)).unwrap();
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).unwrap() {
            chown_tree(&entry.unwrap().path(), uid, gid);
        }
    }
}

fn stdout(result: &Value) -> &str {
    result["stdout"]
        .as_str()
        .unwrap_or_else(|| panic!("no run output: {result}"))
}

fn exit_code(result: &Value) -> i64 {
    result["exit_code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no exit code: {result}"))
}

// proves: SBX-5
#[test]
fn probe_finds_every_layer_on_this_machine() {
    let world = World::new();
    let out = output_retrying(
        Command::new(&world.helper)
            .arg("--probe")
            .current_dir(&world.project),
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["can_run"], true, "{report}");
    assert!(report["probe"]["landlock_abi"].as_i64().unwrap() >= 4);
}

// proves: BEYOND-3, SBX-3
#[test]
fn canaries_in_the_real_home_are_not_visible() {
    let world = World::new();
    let ssh = world.home.join(".ssh/id_rsa");
    let aws = world.home.join(".aws/credentials");
    let script = format!(
        "cat {ssh} {aws}; ls -a {home}; cat {home}/.ssh/* ; cat $HOME/.ssh/id_rsa; \
         cat /proc/1/root{ssh}; grep -rs CANARY /tmp /dev/shm /etc; true",
        ssh = ssh.display(),
        aws = aws.display(),
        home = world.home.display()
    );
    let result = world.sh(&[], &script);
    let text = format!("{}{}", stdout(&result), result["stderr"]);
    assert!(!text.contains("CANARY"), "canary leaked: {text}");
    // The home folder shows only the path down to the project.
    let listing: Vec<&str> = stdout(&result).lines().collect();
    assert!(listing.contains(&"code"), "{listing:?}");
    assert!(
        !listing.contains(&".ssh") && !listing.contains(&".aws"),
        "{listing:?}"
    );
}

// proves: SBX-3
#[test]
fn sensitive_folders_copied_into_the_project_are_hidden() {
    let world = World::new();
    std::fs::create_dir_all(world.project.join(".ssh")).unwrap();
    std::fs::write(world.project.join(".ssh/id_ed25519"), "CANARY-IN-PROJECT").unwrap();
    std::fs::write(world.project.join(".netrc"), "CANARY-NETRC").unwrap();
    // Found missing by the outside tester: more credential files by name.
    let more = [
        ".vault-token",
        ".boto",
        ".s3cfg",
        ".terraform.d/credentials.tfrc.json",
        ".local/share/keyrings/login.keyring",
        ".cargo/config.toml",
        ".docker/config.json",
    ];
    for file in more {
        let path = world.project.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("CANARY-{file}")).unwrap();
    }
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    let result = world.sh(
        &[],
        &format!(
            "cat .ssh/id_ed25519 .netrc {}; ls -a .ssh; echo x > .ssh/new; true",
            more.join(" ")
        ),
    );
    assert!(!stdout(&result).contains("CANARY"), "{result}");
    assert!(!world.project.join(".ssh/new").exists());
}

// proves: SBX-2
#[test]
fn writes_outside_the_project_never_reach_the_host() {
    let world = World::new();
    let outside = world.base.join("outside");
    std::os::unix::fs::symlink(&outside, world.project.join("escape")).unwrap();
    std::os::unix::fs::symlink("/etc", world.project.join("etc-link")).unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    let host_tmp_file = std::env::temp_dir().join(format!("ploy-escape-{}", std::process::id()));
    let script = format!(
        "echo pwned > {home}/pwned; echo pwned > {tmp}; echo pwned > escape/pwned; \
         echo pwned > etc-link/pwned; echo pwned > /proc/self/root{outside}/pwned2; \
         echo pwned > /proc/1/root{outside}/pwned3; echo pwned > /etc/pwned; \
         echo pwned > /usr/pwned; echo pwned > /pwned; true",
        home = world.home.display(),
        tmp = host_tmp_file.display(),
        outside = outside.display()
    );
    for options in [&[][..], &["--writable-project"][..]] {
        let result = world.sh(options, &script);
        assert_eq!(exit_code(&result), 0, "{result}");
        assert!(!world.home.join("pwned").exists());
        assert!(!host_tmp_file.exists());
        for name in ["pwned", "pwned2", "pwned3"] {
            assert!(!outside.join(name).exists(), "{name} escaped");
        }
        assert!(!Path::new("/etc/pwned").exists());
        assert!(!Path::new("/usr/pwned").exists());
    }
}

// proves: SBX-2
#[test]
fn hard_links_to_files_outside_the_project_fail() {
    let world = World::new();
    for options in [&[][..], &["--writable-project"][..]] {
        let result = world.sh(
            options,
            "ln /etc/hostname ./hn && echo LINKED; ln /usr/bin/env ./e && echo LINKED; true",
        );
        assert!(!stdout(&result).contains("LINKED"), "{result}");
    }
    assert!(!world.project.join("hn").exists());
    assert!(!world.project.join("e").exists());
}

// proves: SBX-1
#[test]
fn no_connection_to_a_host_listener_and_no_name_resolution() {
    let world = World::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        r#"
import socket
for family, addr in ((socket.AF_INET, ("127.0.0.1", {port})), (socket.AF_INET6, ("::1", {port}))):
    try:
        s = socket.socket(family, socket.SOCK_STREAM); s.settimeout(2); s.connect(addr); print("CONNECTED")
    except OSError as e:
        print("refused", e.errno)
try:
    print("RESOLVED", socket.getaddrinfo("example.com", 80))
except OSError as e:
    print("no-dns", e)
try:
    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); print("NETLINK")
except OSError as e:
    print("no-netlink", e.errno)
"#
    );
    let result = world.run(&[], &[PYTHON, "-c", &code]);
    let text = stdout(&result);
    assert!(
        text.contains("refused") && text.contains("no-dns"),
        "{result}"
    );
    assert!(
        !text.contains("CONNECTED") && !text.contains("RESOLVED") && !text.contains("NETLINK"),
        "{result}"
    );
    assert!(
        listener.accept().is_err(),
        "the listener received a connection"
    );
}

// proves: SBX-4
#[test]
fn secret_looking_env_is_absent_also_from_pid1_environ() {
    let world = World::new();
    let result = world.run_with(
        &[],
        &[
            "/bin/sh",
            "-c",
            "env; tr '\\0' '\\n' < /proc/1/environ; tr '\\0' '\\n' < /proc/self/environ",
        ],
        &[
            ("AWS_SECRET_ACCESS_KEY", "CANARY-ENV-1"),
            ("GITHUB_TOKEN", "CANARY-ENV-2"),
            ("LC_SECRET_TOKEN", "CANARY-ENV-3"),
            ("RANDOM_UNLISTED", "CANARY-ENV-4"),
        ],
    );
    let text = stdout(&result);
    assert!(!text.contains("CANARY-ENV"), "{text}");
    assert!(text.contains("HOME=/tmp/home"), "{text}");
}

// proves: SBX-1
#[test]
fn ptrace_and_tiocsti_are_refused_by_seccomp() {
    let world = World::new();
    let code = r#"
import ctypes, os, fcntl, termios
libc = ctypes.CDLL(None, use_errno=True)
for target in (os.getppid(), 1):
    rc = libc.ptrace(16, target, 0, 0)
    print("ptrace", rc, ctypes.get_errno())
rc = libc.ptrace(0, 0, 0, 0)
print("traceme", rc, ctypes.get_errno())
for name in ("TIOCSTI",):
    try:
        fcntl.ioctl(0, getattr(termios, name), b"x"); print("INJECTED")
    except OSError as e:
        print(name, e.errno)
rc = libc.unshare(0x10000000)
print("unshare", rc, ctypes.get_errno())
"#;
    let result = world.run(&[], &[PYTHON, "-c", code]);
    let text = stdout(&result);
    // EPERM (1) comes from the filter; without it TIOCSTI on /dev/null would say ENOTTY (25).
    assert!(text.contains("TIOCSTI 1"), "{result}");
    assert_eq!(text.matches("ptrace -1 1").count(), 2, "{result}");
    assert!(text.contains("traceme -1 1"), "{result}");
    assert!(text.contains("unshare -1 1"), "{result}");
    assert!(!text.contains("INJECTED"));
}

// proves: SBX-2
#[test]
fn fork_bomb_is_stopped_by_the_process_limit() {
    let world = World::new();
    let code = r#"
import os, time
n = 0
while n < 5000:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60); os._exit(0)
    n += 1
print("forked", n)
"#;
    let result = world.run(&["--limit", "processes=24"], &[PYTHON, "-c", code]);
    let forked: u64 = stdout(&result)
        .trim()
        .strip_prefix("forked ")
        .unwrap_or_else(|| panic!("{result}"))
        .parse()
        .unwrap();
    if world.user.is_some() || unsafe { libc::geteuid() } != 0 {
        assert!(forked < 24, "forked {forked} processes: {result}");
    }
    // A classic shell fork bomb ends at the wall-time limit, with everything killed.
    let marker = format!("ploy-bomb-{}", std::process::id());
    let result = world.sh(
        &["--limit", "processes=24", "--limit", "wall_ms=1500"],
        &format!("b() {{ b | b & }}; b; sleep 30 # {marker}"),
    );
    let survivors = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| std::fs::read(entry.ok()?.path().join("cmdline")).ok())
        .filter(|cmdline| String::from_utf8_lossy(cmdline).contains(&marker))
        .count();
    assert_eq!(survivors, 0, "fork bomb processes outlived the sandbox");
    // Either the shell itself cannot fork any more and gives up, or the wall
    // clock ends it; in both cases the whole PID namespace dies with it.
    assert!(
        result["timed_out"] == true || exit_code(&result) != 0,
        "{result}"
    );
    assert!(result["ms"].as_u64().unwrap() < 10_000, "{result}");
}

// proves: SBX-2
#[test]
fn a_10_gb_write_is_stopped_by_the_file_size_limit() {
    let world = World::new();
    let cache = world.cache_option();
    for target in ["big.bin", "/tmp/big.bin", "$CARGO_TARGET_DIR/big.bin"] {
        let result = world.sh(
            &[
                "--build-cache",
                &cache,
                "--limit",
                "file_size_bytes=8388608",
            ],
            &format!(
                "mkdir -p $CARGO_TARGET_DIR; head -c 10737418240 /dev/zero > {target}; \
                 status=$?; wc -c < {target}; exit $status"
            ),
        );
        assert_ne!(exit_code(&result), 0, "{target}: {result}");
        assert!(result["ms"].as_u64().unwrap() < 20_000, "{result}");
        let written: u64 = stdout(&result).trim().parse().unwrap();
        assert!(written <= 8 * 1024 * 1024, "{target}: {result}");
    }
    assert!(world.cache_leftovers().is_empty());
}

// A proof that writes without end into the build cache (attack #12: the
// cache is on the host's disk and outlives the run) is stopped at the
// cache's bound, and what it wrote is gone after the run.
// proves: BEYOND-4, SBX-2
#[test]
fn a_proof_filling_the_build_cache_is_stopped_and_the_cache_emptied() {
    let world = World::new();
    let cache = world.cache_option();
    let result = world.sh(
        &[
            "--build-cache",
            &cache,
            "--limit",
            "build_cache_bytes=67108864",
        ],
        "cd /var/cache/ploy-build && i=0; while true; do head -c 8388608 /dev/urandom > f$i; \
         i=$((i+1)); done",
    );
    let shown = brief(&result);
    assert_ne!(exit_code(&result), 0, "{shown}");
    assert_eq!(result["memory_exceeded"], false, "{shown}");
    let notes = result["notes"].to_string();
    assert!(
        notes.contains("build cache limit stopped the run"),
        "{shown}"
    );
    // Nothing stays: the run's cache went with it.
    assert_eq!(world.cache_leftovers(), Vec::<String>::new(), "{shown}");
}

// proves: BEYOND-4
#[test]
fn a_proof_that_edits_tracked_files_leaves_them_unchanged() {
    let world = World::new();
    let result = world.sh(
        &[],
        "echo evil > tracked.txt && rm src/main.rs && mkdir newdir && echo built > target/out \
         && cat tracked.txt",
    );
    assert_eq!(exit_code(&result), 0, "{result}");
    assert_eq!(stdout(&result), "evil\n");
    assert_eq!(
        std::fs::read_to_string(world.project.join("tracked.txt")).unwrap(),
        "original\n"
    );
    assert!(world.project.join("src/main.rs").exists());
    assert!(!world.project.join("newdir").exists());
    // The project's own target/ is copy-on-write like the rest.
    assert!(!world.project.join("target/out").exists());
}

// A proof plants a trojan where the host would run it (the project's
// target/) and in the build cache: the host's target/ is unchanged, the
// build output lands only in the run's own cache outside the project, and
// the next proof never sees it (proof5 #2b: a replaced test binary kept
// `cargo test` passing after the source changed).
// proves: BEYOND-4
#[test]
fn a_trojaned_build_never_reaches_the_hosts_target_folder() {
    let world = World::new();
    std::fs::create_dir_all(world.project.join("target/debug")).unwrap();
    std::fs::write(
        world.project.join("target/debug/app"),
        "#!/bin/sh\necho real app\n",
    )
    .unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    let before = std::fs::read(world.project.join("target/debug/app")).unwrap();
    let cache = world.cache_option();
    let trojan = "#!/bin/sh\ntouch /tmp/ploy-trojan-ran\n";
    let result = world.sh(
        &["--build-cache", &cache],
        &format!(
            "printf '{trojan}' > target/debug/app; chmod +x target/debug/app; \
             mkdir -p $CARGO_TARGET_DIR/debug && printf '{trojan}' > $CARGO_TARGET_DIR/debug/app \
             && echo target=$CARGO_TARGET_DIR go=$GOCACHE npm=$npm_config_cache \
             py=[$PYTHONPYCACHEPREFIX] nobytecode=$PYTHONDONTWRITEBYTECODE"
        ),
    );
    assert_eq!(exit_code(&result), 0, "{result}");
    assert_eq!(
        std::fs::read(world.project.join("target/debug/app")).unwrap(),
        before,
        "the host's target/ changed"
    );
    assert_eq!(
        std::fs::read_dir(world.project.join("target/debug"))
            .unwrap()
            .count(),
        1
    );
    let text = stdout(&result);
    for variable in [
        "target=/var/cache/ploy-build/cargo-target",
        "go=/var/cache/ploy-build/go-build",
        "npm=/var/cache/ploy-build/npm",
        // Python reads the system's bytecode and writes none (no project
        // `__pycache__` here to hide).
        "py=[] nobytecode=1",
    ] {
        assert!(text.contains(variable), "{variable}: {result}");
    }
    assert!(world.cache_leftovers().is_empty());
    // The next run does not see the earlier run's build output.
    let again = world.sh(
        &["--build-cache", &cache],
        "ls -A $CARGO_TARGET_DIR; cat $CARGO_TARGET_DIR/debug/app",
    );
    assert_ne!(exit_code(&again), 0, "{again}");
    assert!(!stdout(&again).contains("ploy-trojan-ran"), "{again}");
}

// proves: BEYOND-4
#[test]
fn a_build_cache_inside_the_project_is_refused() {
    let world = World::new();
    let inside = world.project.join("cache");
    let result = world.sh(&["--build-cache", inside.to_str().unwrap()], "echo ran");
    assert_eq!(result["rule"], "BEYOND-4", "{result}");
    // Through a symbolic link too.
    std::os::unix::fs::symlink(&world.project, world.base.join("link")).unwrap();
    let linked = world.base.join("link/cache");
    let result = world.sh(&["--build-cache", linked.to_str().unwrap()], "echo ran");
    assert_eq!(result["rule"], "BEYOND-4", "{result}");
}

// proves: SBX-5
#[test]
fn each_missing_layer_stops_everything() {
    let world = World::new();
    let cache = world.cache_option();
    for layer in [
        "user-namespaces",
        "filesystem",
        "overlay",
        "limits",
        "landlock",
        "seccomp",
    ] {
        // Both views; the copy-on-write one writes its marker into the build
        // cache too.
        for options in [
            &["--writable-project"][..],
            &["--build-cache", cache.as_str()][..],
        ] {
            if layer == "overlay" && options[0] == "--writable-project" {
                continue; // a writable project uses no overlay (below)
            }
            let mut all = options.to_vec();
            all.extend(["--simulate-missing", layer]);
            let result = world.sh(
                &all,
                "echo ran > ran; mkdir -p $CARGO_TARGET_DIR && echo ran > $CARGO_TARGET_DIR/ran",
            );
            assert_eq!(result["rule"], "SBX-5", "{layer}: {result}");
            let error = result["error"].as_str().unwrap();
            assert!(
                error.contains(layer) && error.contains("To enable it"),
                "{error}"
            );
            assert!(
                !world.project.join("ran").exists(),
                "{layer}: the program ran"
            );
            assert!(world.cache_leftovers().is_empty(), "{layer}");
        }
    }
    // `ploy sandbox run` (a writable project) does not use the overlay, so it
    // neither builds nor needs it; the probe and every proof still do.
    let result = world.sh(
        &["--writable-project", "--simulate-missing", "overlay"],
        "echo ran > ran",
    );
    assert_eq!(exit_code(&result), 0, "{result}");
    assert!(world.project.join("ran").exists());
    let probe = world.run(&["--probe", "--simulate-missing", "overlay"], &[]);
    assert_eq!(probe["can_run"], false, "{probe}");
}

// proves: SBX-5
#[test]
fn unknown_program_is_an_error_not_a_pass() {
    let world = World::new();
    let result = world.run(&[], &["definitely-not-a-program-ploy"]);
    assert_eq!(result["rule"], "SBX-5", "{result}");
    assert!(result["error"].as_str().unwrap().contains("cannot execute"));
}

// proves: SBX-2
#[test]
fn exit_status_and_output_are_the_programs_and_output_is_capped() {
    let world = World::new();
    let result = world.sh(
        &["--limit", "output_bytes=1000"],
        "head -c 5000 /dev/zero | tr '\\0' a; exit 7",
    );
    assert_eq!(exit_code(&result), 7);
    assert_eq!(stdout(&result).len(), 1000);
    assert_eq!(result["truncated"], true);
    let result = world.sh(&[], "pwd; kill -9 $$");
    assert_eq!(result["termination"]["kind"], "signaled", "{result}");
    assert_eq!(stdout(&result).trim(), world.project.to_str().unwrap());
}

// proves: SBX-1, SBX-2
#[cfg(target_arch = "x86_64")]
#[test]
fn denied_syscalls_fail_with_eperm_and_the_x32_door_is_closed() {
    let world = World::new();
    // x86-64 syscall numbers; each call gets harmless arguments.
    let code = r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
calls = {"ptrace": 101, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
         "kexec_load": 246, "add_key": 248, "keyctl": 250, "init_module": 175,
         "perf_event_open": 298, "setns": 308, "process_vm_readv": 310, "bpf": 321,
         "userfaultfd": 323, "io_uring_setup": 425, "open_tree": 428, "fsopen": 430,
         "unshare": 272}
for name, nr in sorted(calls.items()):
    rc = libc.syscall(nr, 0, 0, 0, 0, 0)
    print(name, rc, ctypes.get_errno())
# clone with a new user namespace: refused by flag.
rc = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)
if rc == 0:
    os._exit(0)
print("clone-newuser", rc, ctypes.get_errno())
# the same ptrace through the x32 numbering must not slip past the filter
rc = libc.syscall(0x40000000 | 521, 16, 1, 0, 0)
print("x32-ptrace", rc, ctypes.get_errno())
"#;
    let result = world.run(&[], &[PYTHON, "-c", code]);
    let text = stdout(&result);
    let mut seen = 0;
    for line in text.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let (name, rc, errno) = (parts[0], parts[1], parts[2]);
        assert_eq!(rc, "-1", "{line}");
        let expected = if name == "x32-ptrace" { "38" } else { "1" };
        assert_eq!(errno, expected, "{name}: {line}");
        seen += 1;
    }
    assert_eq!(seen, 20, "{result}");
}

// proves: SBX-3
#[test]
fn ploy_state_folder_under_a_read_only_system_folder_is_hidden() {
    // Needs to create a folder in /opt: only root can (CI runs as root).
    ploy_testkit::require_part!(
        "root",
        if world_is_unprivileged() {
            Err("creating a folder in /opt needs root; run the tests as root (CI does)")
        } else {
            Ok(())
        }
    );
    let world = World::new();
    // /opt is bound read-only into the sandbox; a state folder there must not be.
    let state = PathBuf::from(format!("/opt/ploy-test-state-{}", std::process::id()));
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("approvals.json"), "CANARY-STATE").unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        state.join("approvals.json"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let result = world.run_with(
        &[],
        &[
            "/bin/sh",
            "-c",
            &format!("cat {}/approvals.json; ls /opt", state.display()),
        ],
        &[("PLOY_STATE_DIR", state.to_str().unwrap())],
    );
    std::fs::remove_dir_all(&state).unwrap();
    let text = stdout(&result);
    assert!(!text.contains("CANARY"), "{result}");
    assert!(
        text.contains("ploy-test-state"),
        "the folder exists but is empty: {result}"
    );
}

fn world_is_unprivileged() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() != 0 }
}

// proves: BEYOND-3, SBX-3
#[test]
fn home_toolchains_are_read_only_and_their_credentials_hidden() {
    let world = World::new();
    let cargo = world.home.join(".cargo");
    std::fs::create_dir_all(cargo.join("bin")).unwrap();
    std::fs::create_dir_all(world.home.join(".rustup/toolchains")).unwrap();
    std::fs::write(cargo.join("bin/hello-tool"), "#!/bin/sh\necho tool-ran\n").unwrap();
    std::fs::set_permissions(
        cargo.join("bin/hello-tool"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::write(
        cargo.join("credentials.toml"),
        "token = \"CANARY-CARGO-TOKEN\"",
    )
    .unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.home, uid, gid);
    }
    let script = format!(
        "$CARGO_HOME/bin/hello-tool; echo rustup=$RUSTUP_HOME; cat $CARGO_HOME/credentials.toml; \
         cat {home}/.ssh/id_rsa; echo x > $CARGO_HOME/bin/pwned; true",
        home = world.home.display()
    );
    let result = world.sh(&["--toolchains"], &script);
    let text = stdout(&result);
    assert!(text.contains("tool-ran"), "{result}");
    assert!(
        text.contains(&format!("rustup={}", world.home.join(".rustup").display())),
        "{result}"
    );
    assert!(!text.contains("CANARY"), "{result}");
    assert!(!cargo.join("bin/pwned").exists());
}

// proves: SBX-5
#[test]
fn the_init_started_by_hand_outside_fresh_namespaces_refuses_to_run() {
    let world = World::new();
    let marker = world.project.join("ran");
    // A well-formed request for the most permissive view (writable project):
    // only the PID 1 check of a fresh PID namespace stands between it and the
    // program. The status fd (3) is sent to stdout so the refusal can be read.
    // SAFETY: geteuid and getegid have no preconditions.
    let (uid, gid) = world
        .user
        .unwrap_or_else(|| unsafe { (libc::geteuid(), libc::getegid()) });
    let request = serde_json::json!({
        "protocol": 2,
        "uid": uid,
        "gid": gid,
        "view": {
            "project": world.project,
            "copy_on_write": false,
            "read_only": [],
            "masks": [],
            "protected": [],
            "pinned": [],
            "sockets": [],
            "build_cache": null,
        },
        "limits": {},
        "work": {"program": {"argv": ["/bin/sh", "-c", format!("echo ran > {}", marker.display())]}},
        "simulate_missing": [],
    })
    .to_string();
    let request_file = world.base.join("request.json");
    std::fs::write(&request_file, &request).unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&request_file, uid, gid);
    }
    for with_request in [true, false] {
        // The request travels on fd 4 (never in the argument list).
        let script = if with_request {
            "exec \"$0\" __ploy-sandbox-init 3>&1 4<\"$1\""
        } else {
            "exec \"$0\" __ploy-sandbox-init 3>&1"
        };
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(script)
            .arg(&world.helper)
            .arg(&request_file)
            .current_dir(&world.base);
        if let Some((uid, gid)) = world.user {
            command.uid(uid).gid(gid);
        }
        let out = output_retrying(&mut command);
        let status = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(125), "{status}");
        let expected = if with_request {
            "ERR\tuser-namespaces\t"
        } else {
            // No request at all: refused before any namespace check.
            "ERR\tfilesystem\tmissing launcher request"
        };
        assert!(status.starts_with(expected), "{status}");
        assert!(!status.contains("OK\t"), "{status}");
        assert!(!marker.exists(), "the program ran outside the sandbox");
    }
}

// A regression test: the init's Rust runtime ignores SIGPIPE, the program
// must get the default so a pipeline's writer ends quietly.
#[test]
fn programs_inside_get_sigpipe_at_its_default() {
    let world = World::new();
    let result = world.sh(&[], "yes | head -1");
    assert_eq!(exit_code(&result), 0, "{result}");
    assert_eq!(stdout(&result), "y\n", "{result}");
    assert_eq!(result["stderr"], "", "{result}");
    // The writer itself dies of SIGPIPE (signal 13: 128 + 13 from the shell).
    let result = world.run(
        &[],
        &[
            "/bin/bash",
            "-c",
            "yes | head -1 >/dev/null; echo ${PIPESTATUS[0]}",
        ],
    );
    assert_eq!(stdout(&result), "141\n", "{result}");
    assert_eq!(result["stderr"], "", "{result}");
}

// clone3 passes its flags in memory the filter cannot read, so it is refused
// as a whole (a new namespace could undo the mount and write rules); ENOSYS
// makes the C library fall back to clone, whose flags the filter checks.
// proves: SBX-2
#[test]
fn clone3_is_refused_with_enosys_while_fork_and_threads_still_work() {
    let world = World::new();
    let code = r#"
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
SYS_clone3 = 435  # the same number on every architecture
for name, flags in (("clone3-plain", 0), ("clone3-newuser", 0x10000000)):
    args = (ctypes.c_uint64 * 8)()
    args[0] = flags
    args[4] = 17  # exit_signal = SIGCHLD: a real, working request
    rc = libc.syscall(SYS_clone3, ctypes.byref(args), ctypes.c_size_t(64))
    if rc == 0:
        os._exit(0)
    if rc > 0:
        os.waitpid(rc, 0)
    print(name, rc, ctypes.get_errno())
pid = os.fork()
if pid == 0:
    os._exit(7)
_, status = os.waitpid(pid, 0)
print("fork", os.WEXITSTATUS(status))
seen = []
t = threading.Thread(target=lambda: seen.append("ran")); t.start(); t.join()
print("thread", seen[0])
"#;
    let result = world.run(&[], &[PYTHON, "-c", code]);
    let text = stdout(&result);
    assert!(text.contains("clone3-plain -1 38\n"), "{result}");
    assert!(text.contains("clone3-newuser -1 38\n"), "{result}");
    assert!(text.contains("fork 7\n"), "{result}");
    assert!(text.contains("thread ran\n"), "{result}");
}

/// One command of a plan: argv run as is, streams as given.
fn command(argv: &[&str], stdout: StreamTarget, stderr: StreamTarget) -> PlanCommand {
    PlanCommand {
        argv: argv.iter().map(|arg| arg.to_string()).collect(),
        stdout,
        stderr,
    }
}

fn plain(argv: &[&str]) -> PlanCommand {
    command(argv, StreamTarget::Inherit, StreamTarget::Inherit)
}

fn pipeline(negated: bool, commands: Vec<PlanCommand>) -> Pipeline {
    Pipeline { negated, commands }
}

fn one(argv: &[&str]) -> Pipeline {
    pipeline(false, vec![plain(argv)])
}

/// `sh -c 'echo out; echo err >&2' >STDOUT 2>&1 | tr a-z A-Z`.
fn noisy_into_tr(stdout: StreamTarget) -> String {
    let noisy = command(
        &["sh", "-c", "echo out; echo err >&2"],
        stdout,
        StreamTarget::Stdout,
    );
    plan(
        pipeline(false, vec![noisy, plain(&["tr", "a-z", "A-Z"])]),
        vec![],
    )
}

fn plan(first: Pipeline, rest: Vec<(Connector, Pipeline)>) -> String {
    serde_json::to_string(&ProofPlan { first, rest }).unwrap()
}

impl World {
    fn plan(&self, options: &[&str], plan: &str) -> Value {
        let mut all: Vec<&str> = options.to_vec();
        all.extend(["--plan", plan]);
        self.run(&all, &[])
    }
}

// The init runs the typed plan itself: pipes, &&, ||, ! and the streams as
// POSIX defines them, with no shell anywhere (arguments stay literal).
// proves: PROOF-6
#[test]
fn a_plan_runs_pipelines_and_and_or_lists_as_posix_defines_them() {
    let world = World::new();
    let cases: Vec<(String, i64, &str)> = vec![
        // a pipe: the last command's output is collected
        (
            plan(
                pipeline(
                    false,
                    vec![plain(&["printf", "a\\nb\\nc\\n"]), plain(&["grep", "b"])],
                ),
                vec![],
            ),
            0,
            "b\n",
        ),
        // a pipeline's status is its last command's
        (
            plan(
                pipeline(false, vec![plain(&["false"]), plain(&["true"])]),
                vec![],
            ),
            0,
            "",
        ),
        (
            plan(
                pipeline(false, vec![plain(&["true"]), plain(&["false"])]),
                vec![],
            ),
            1,
            "",
        ),
        // ! inverts a program's documented "no" (test's 1); && and ||
        // short-circuit left to right
        (
            plan(
                pipeline(true, vec![plain(&["test", "-e", "/no-such-ploy"])]),
                vec![],
            ),
            0,
            "",
        ),
        // ! never inverts a failure that is not a "no" (validate #20):
        // `false` has none, test's 2 is a usage error, and a search fed
        // nothing by a failed command says nothing
        (plan(pipeline(true, vec![plain(&["false"])]), vec![]), 1, ""),
        (
            plan(
                pipeline(true, vec![plain(&["test", "1x", "-eq", "1"])]),
                vec![],
            ),
            2,
            "",
        ),
        (
            plan(
                pipeline(true, vec![plain(&["false"]), plain(&["grep", "-q", "x"])]),
                vec![],
            ),
            1,
            "",
        ),
        // an earlier command stopped by SIGPIPE ended well
        (
            plan(
                pipeline(
                    true,
                    vec![
                        plain(&["yes"]),
                        plain(&["head", "-n", "1"]),
                        plain(&["grep", "-q", "zzz"]),
                    ],
                ),
                vec![],
            ),
            0,
            "",
        ),
        (
            plan(
                one(&["false"]),
                vec![
                    (Connector::And, one(&["echo", "skipped"])),
                    (Connector::Or, one(&["echo", "rescued"])),
                ],
            ),
            0,
            "rescued\n",
        ),
        (
            plan(
                one(&["true"]),
                vec![
                    (Connector::Or, one(&["echo", "skipped"])),
                    (Connector::And, one(&["sh", "-c", "exit 7"])),
                ],
            ),
            7,
            "",
        ),
        // arguments are never expanded: no shell reads them
        (
            plan(one(&["echo", "$(id)", ";", "|", "`x`", "*"]), vec![]),
            0,
            "$(id) ; | `x` *\n",
        ),
        // >/dev/null and 2>&1 into the pipe
        (noisy_into_tr(StreamTarget::Null), 0, ""),
        (noisy_into_tr(StreamTarget::Inherit), 0, "OUT\nERR\n"),
        // a program that is not there: 127, as in a shell, and || goes on
        (
            plan(
                one(&["definitely-not-a-program-ploy"]),
                vec![(Connector::Or, one(&["echo", "fallback"]))],
            ),
            0,
            "fallback\n",
        ),
        (
            plan(one(&["definitely-not-a-program-ploy"]), vec![]),
            127,
            "",
        ),
        // stdin is /dev/null: a reader sees end-of-file at once
        (plan(one(&["wc", "-c"]), vec![]), 0, "0\n"),
    ];
    for (plan, code, out) in cases {
        let result = world.plan(&[], &plan);
        assert_eq!(exit_code(&result), code, "{plan}: {result}");
        assert_eq!(stdout(&result), out, "{plan}: {result}");
    }
    // A signal ends the last command: reported as a signal (128 + n), and
    // `!` leaves it a failure (a signal is never a program's "no").
    let killed = plan(one(&["sh", "-c", "kill -9 $$"]), vec![]);
    let result = world.plan(&[], &killed);
    assert_eq!(result["termination"]["kind"], "signaled", "{result}");
    assert_eq!(exit_code(&result), 137, "{result}");
    let inverted = plan(
        pipeline(true, vec![plain(&["sh", "-c", "kill -9 $$"])]),
        vec![],
    );
    assert_eq!(exit_code(&world.plan(&[], &inverted)), 137);
    // A malformed plan is refused before anything runs.
    let empty = plan(pipeline(false, vec![]), vec![]);
    let result = world.plan(&[], &empty);
    assert_eq!(result["rule"], "PROOF-6", "{result}");
}

// A plan's command that leaves a background process behind: the init reaps
// it, and it dies with the sandbox when the plan ends.
// proves: SBX-5
#[test]
fn a_plan_ends_when_its_commands_end_and_nothing_outlives_it() {
    let world = World::new();
    let marker = format!("ploy-orphan-{}", std::process::id());
    let result = world.plan(
        &[],
        &plan(
            one(&[
                "sh",
                "-c",
                &format!("(sleep 30; echo {marker}) >/dev/null 2>&1 &"),
            ]),
            vec![(Connector::And, one(&["echo", "done"]))],
        ),
    );
    assert_eq!(stdout(&result), "done\n", "{result}");
    assert!(result["ms"].as_u64().unwrap() < 20_000, "{result}");
    let survivors = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| std::fs::read(entry.ok()?.path().join("cmdline")).ok())
        .filter(|cmdline| String::from_utf8_lossy(cmdline).contains(&marker))
        .count();
    assert_eq!(survivors, 0, "a background process outlived the sandbox");
}

/// A program that tries to forge the verdict: it writes a fake "exited 0"
/// report and 64 KiB of filler into every descriptor of every process it can
/// see under /proc, tries PID 1's memory and environment, then fails.
const FORGER: &str = r#"
import os, sys
me = str(os.getpid())
forged = b"EXIT\tcode\t0\nOK\tuser-namespaces\tforged\n" + b"x" * 65536 + b"\nEXIT\tcode\t0\n"
for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
    for extra in ("mem", "environ", "cmdline", "stat"):
        try:
            with open(f"/proc/{pid}/{extra}", "rb") as f:
                if pid == "1" and extra in ("mem", "environ"):
                    print("read", pid, extra, len(f.read(64)))
        except OSError:
            pass
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError as e:
        print("no-fd-list", pid, e.errno)
        continue
    for fd in fds:
        path = f"/proc/{pid}/fd/{fd}"
        try:
            out = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            os.write(out, forged)
            if pid != me:
                print("FORGED", path)
        except OSError:
            pass
        finally:
            os.close(out)
sys.stdout.flush()
sys.exit(1)
"#;

// proves: SBX-5 (the verdict cannot be forged by the program)
#[test]
fn a_program_that_writes_a_fake_verdict_into_every_descriptor_still_fails() {
    let world = World::new();
    let check = |result: &Value| {
        let text = stdout(result);
        let shown = brief(result);
        assert_eq!(exit_code(result), 1, "the verdict was forged: {shown}");
        assert_eq!(result["termination"]["kind"], "exited", "{shown}");
        assert!(
            !text.contains("FORGED /proc/1/") && !text.contains("read 1 "),
            "PID 1 was reachable: {shown}"
        );
        // PID 1's descriptor list is closed to the program (non-dumpable init).
        assert!(text.contains("no-fd-list 1 13"), "{shown}");
    };
    check(&world.run(&[], &[PYTHON, "-c", FORGER]));
    // The same inside a plan, after a sibling command whose descriptors it
    // can reach (they are the pipe between them, not the status channel).
    check(&world.plan(
        &[],
        &plan(
            pipeline(
                false,
                vec![plain(&["sleep", "1"]), plain(&[PYTHON, "-c", FORGER])],
            ),
            vec![(Connector::And, one(&["true"]))],
        ),
    ));
}

/// A result cut to a readable length for assertion messages.
fn brief(result: &Value) -> String {
    let text = result.to_string();
    match text.char_indices().nth(1500) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

// proves: SBX-3 (nothing inherited: a descriptor ploy's caller left open
// never reaches the program)
#[test]
fn a_descriptor_inherited_from_the_caller_is_closed_before_the_program_starts() {
    let world = World::new();
    let canary = world.base.join("inherited-canary");
    std::fs::write(&canary, "CANARY-INHERITED-FD").unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&canary, uid, gid);
    }
    let probe = "ls /proc/self/fd; cat <&8; cat /proc/self/fd/8; cat <&9; \
                 for fd in 3 4 5 6 7 8 9 10 11 12; do cat /proc/1/fd/$fd; done; true";
    let mut command = Command::new("/bin/sh");
    // The helper (standing in for ploy) is started with fd 8 and 9 open on
    // the canary and without close-on-exec, as `exec 8<~/.ssh/id_rsa` would.
    command
        .arg("-c")
        .arg("exec \"$0\" --project \"$1\" -- /bin/sh -c \"$2\" 8<\"$3\" 9<\"$3\"")
        .arg(&world.helper)
        .arg(&world.project)
        .arg(probe)
        .arg(&canary)
        .env("HOME", &world.home)
        .current_dir(&world.base);
    if let Some((uid, gid)) = world.user {
        command.uid(uid).gid(gid);
    }
    let out = output_retrying(&mut command);
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = format!("{}{}", stdout(&result), result["stderr"]);
    assert!(!text.contains("CANARY"), "{result}");
    // Only 0, 1, 2 and the descriptor `ls` opened for its own listing.
    let fds: Vec<&str> = stdout(&result)
        .lines()
        .take_while(|l| l.parse::<u32>().is_ok())
        .collect();
    assert_eq!(fds, ["0", "1", "2", "3"], "{result}");
}

// Two children of 3 GiB each (pages touched) under a 4 GiB cap: each stays
// under the per-process limit, together they do not, and the init kills the
// whole sandbox. A `|| true` after it cannot turn that into a pass.
// proves: SBX-2, SBX-5
#[test]
fn two_children_of_3_gib_under_a_4_gib_cap_are_killed_together() {
    let world = World::new();
    let bomb = r#"
import os, sys, time
def hog():
    chunks = []
    for _ in range(12):
        chunks.append(b"\x01" * (256 << 20))  # written, so resident
    print("child holds 3 GiB", flush=True)
    time.sleep(60)
pids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        hog()
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
print("BOTH SURVIVED", flush=True)
"#;
    let limits = [
        "--limit",
        "memory_bytes=4294967296",
        "--limit",
        "wall_ms=120000",
    ];
    let result = world.run(&limits, &[PYTHON, "-c", bomb]);
    let shown = brief(&result);
    assert_eq!(result["memory_exceeded"], true, "{shown}");
    assert_eq!(result["termination"]["kind"], "signaled", "{shown}");
    assert!(!stdout(&result).contains("BOTH SURVIVED"), "{shown}");
    assert!(
        stdout(&result).matches("child holds 3 GiB").count() < 2,
        "both children held their memory at once: {shown}"
    );
    assert!(result["ms"].as_u64().unwrap() < 60_000, "{shown}");
    // In a plan, what follows `||` never runs: the run has failed.
    let result = world.plan(
        &limits,
        &plan(
            one(&[PYTHON, "-c", bomb]),
            vec![(Connector::Or, one(&["echo", "rescued"]))],
        ),
    );
    assert_eq!(result["memory_exceeded"], true, "{}", brief(&result));
    assert_ne!(exit_code(&result), 0, "{}", brief(&result));
    assert!(!stdout(&result).contains("rescued"), "{}", brief(&result));
}

// ~/.cargo is needed for `cargo test`, but only its tools and downloaded
// crates are bound: never config.toml or credentials.toml, which hold
// registry tokens.
// proves: SBX-3
#[test]
fn cargo_registry_tokens_never_reach_the_sandbox() {
    let world = World::new();
    let cargo = world.home.join(".cargo");
    for dir in ["bin", "registry/index/example", "git/db"] {
        std::fs::create_dir_all(cargo.join(dir)).unwrap();
    }
    std::fs::write(cargo.join("bin/tool"), "#!/bin/sh\necho tool-ran\n").unwrap();
    std::fs::set_permissions(
        cargo.join("bin/tool"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::write(cargo.join("registry/index/example/config.json"), "{}").unwrap();
    std::fs::write(
        cargo.join("config.toml"),
        "[registry]\ntoken = \"CANARY-CONFIG-TOKEN\"\n[registries.corp]\ntoken = \"CANARY-CORP\"\n",
    )
    .unwrap();
    std::fs::write(
        cargo.join("credentials.toml"),
        "[registry]\ntoken = \"CANARY-CRED\"\n",
    )
    .unwrap();
    std::fs::write(cargo.join("credentials"), "token = \"CANARY-OLD\"\n").unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.home, uid, gid);
    }
    let result = world.sh(
        &["--toolchains"],
        "cat $CARGO_HOME/config.toml $CARGO_HOME/credentials.toml $CARGO_HOME/credentials; \
         ls -a $CARGO_HOME; grep -rs CANARY $CARGO_HOME /tmp; $CARGO_HOME/bin/tool; \
         ls $CARGO_HOME/registry/index/example; true",
    );
    let text = format!("{}{}", stdout(&result), result["stderr"]);
    assert!(!text.contains("CANARY"), "{result}");
    assert!(text.contains("tool-ran"), "{result}");
    assert!(
        text.contains("config.json"),
        "the registry cache is there: {result}"
    );
    let listing: Vec<&str> = stdout(&result)
        .lines()
        .skip_while(|l| *l != ".")
        .take_while(|l| *l != "tool-ran")
        .collect();
    assert_eq!(listing, [".", "..", "bin", "git", "registry"], "{result}");
}

/// A project that is a git repository with agent resources (PERM-7 paths).
fn repository(world: &World) {
    for dir in [
        ".git/hooks",
        ".git/objects",
        ".claude",
        "vendor/lib/.git/hooks",
        "src",
    ] {
        std::fs::create_dir_all(world.project.join(dir)).unwrap();
    }
    for (file, text) in [
        (".git/config", "[core]\n\tbare = false\n"),
        (".git/HEAD", "ref: refs/heads/main\n"),
        (".git/hooks/pre-commit.sample", "#!/bin/sh\n"),
        ("vendor/lib/.git/config", "[core]\n"),
        (".claude/settings.json", "{}\n"),
        (".envrc", "export A=1\n"),
    ] {
        std::fs::write(world.project.join(file), text).unwrap();
    }
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
}

// `ploy sandbox run` keeps the project writable, but never ploy's and the
// agents' own files (PERM-7): a `core.fsmonitor` line or a hook planted
// there would run on the host at the next `git status` or commit.
// proves: SBX-6
#[test]
fn git_config_and_hooks_stay_read_only_even_in_a_writable_project() {
    let world = World::new();
    repository(&world);
    let attack = "
        printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config
        printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .git/hooks/pre-commit
        chmod +x .git/hooks/pre-commit
        rm -f .git/config
        mv .git/hooks .git/hooks-old
        mv .git .git-old
        rm -rf .git
        echo '{\"hooks\":{}}' > .claude/settings.json
        echo 'touch /tmp/pwned' >> .envrc
        echo '[core]' > vendor/lib/.git/config
        mv vendor vendor-old
        mv src/../.claude .claude-old
        ln -sf /tmp/x .git/hooks/post-checkout
        echo ../evil > .git/commondir
        touch .git/index.lock || echo git-folder-read-only
        echo code > src/main.rs && echo src-ok
        true";
    for options in [&["--writable-project"][..], &[][..]] {
        let result = world.sh(options, attack);
        assert_eq!(exit_code(&result), 0, "{result}");
        let text = stdout(&result);
        assert!(
            text.contains("git-folder-read-only") && text.contains("src-ok"),
            "{result}"
        );
        for (file, text) in [
            (".git/config", "[core]\n\tbare = false\n"),
            ("vendor/lib/.git/config", "[core]\n"),
            (".claude/settings.json", "{}\n"),
            (".envrc", "export A=1\n"),
        ] {
            assert_eq!(
                std::fs::read_to_string(world.project.join(file)).unwrap(),
                text,
                "{file} changed ({options:?}): {result}"
            );
        }
        let hooks: Vec<_> = std::fs::read_dir(world.project.join(".git/hooks"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(hooks, ["pre-commit.sample"], "{options:?}");
        for moved in [
            ".git-old",
            ".git/hooks-old",
            ".git/commondir",
            ".git/index.lock",
            "vendor-old",
            ".claude-old",
        ] {
            assert!(!world.project.join(moved).exists(), "{moved} ({options:?})");
        }
    }
    // Writes elsewhere in the project persist in the writable view.
    assert_eq!(
        std::fs::read_to_string(world.project.join("src/main.rs")).unwrap(),
        "code\n"
    );
}

// A PERM-7 path that did not exist when the run started cannot be locked in
// a writable project: the init sees it appear (attack #3: it used to stay
// until the run ended), moves it aside at once (nothing is deleted), stops
// every process and reports it. A `.git` made in a sub-folder would otherwise run
// its configuration at the next `git status`, e.g. from a shell prompt.
// proves: SBX-6
#[test]
fn a_protected_path_created_in_a_writable_project_is_moved_aside_and_reported() {
    let world = World::new();
    for (created, script) in [
        (
            ".mcp.json",
            "echo keep > sub-file.txt; echo '{}' > .mcp.json; sleep 3; echo late > late.txt",
        ),
        (
            ".vscode",
            "mkdir -p .vscode && echo '{}' > .vscode/tasks.json; sleep 3; echo late > late.txt",
        ),
        (
            "sub/.git",
            "mkdir -p sub/.git/hooks && printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' \
             > sub/.git/config; sleep 3; echo late > late.txt",
        ),
    ] {
        let result = world.sh(&["--writable-project"], script);
        let notes = result["notes"].to_string();
        assert!(notes.contains(created), "{created}: {result}");
        assert!(notes.contains("SBX-6"), "{result}");
        assert!(!world.project.join(created).exists(), "{created} stayed");
        let moved = world.project.join(format!("{created}.ploy-blocked"));
        assert!(moved.exists(), "{} missing: {result}", moved.display());
        // Stopped at once, before the program went on, and failed.
        assert_ne!(exit_code(&result), 0, "{result}");
        assert!(!world.project.join("late.txt").exists(), "{result}");
    }
    // Nothing else is touched.
    assert!(world.project.join("sub-file.txt").exists());
    // A second run that makes the same names again does not clobber the first.
    world.sh(&["--writable-project"], "echo '{}' > .mcp.json");
    assert!(world.project.join(".mcp.json.ploy-blocked-2").exists());
}

// A unix socket (or named pipe) in the project leads to a process outside
// the sandbox: nothing inside can connect to it.
// proves: SBX-6, SBX-1
#[test]
fn a_socket_in_the_project_cannot_be_connected_to() {
    let world = World::new();
    let socket = world.project.join("app.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    // Open to everyone: only the sandbox stands between the program and it.
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    // Inside a protected folder too (found attacking it: a read-only mount
    // does not stop a connect; git's fsmonitor daemon listens in `.git`).
    std::fs::create_dir_all(world.project.join(".git/x")).unwrap();
    let in_git = world.project.join(".git/x/daemon.ipc");
    let git_listener = std::os::unix::net::UnixListener::bind(&in_git).unwrap();
    git_listener.set_nonblocking(true).unwrap();
    std::fs::set_permissions(&in_git, std::fs::Permissions::from_mode(0o777)).unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project.join(".git"), uid, gid);
    }
    let fifo = world.project.join("app.fifo");
    let fifo_c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(fifo_c.as_ptr(), 0o666) }, 0);
    std::fs::set_permissions(&fifo, std::fs::Permissions::from_mode(0o666)).unwrap();
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let code = r#"
import socket, os
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect("app.sock"); s.sendall(b"CANARY"); print("CONNECTED")
except OSError as e:
    print("refused", e.errno)
g = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    g.connect(".git/x/daemon.ipc"); g.sendall(b"CANARY"); print("CONNECTED-GIT")
except OSError as e:
    print("git refused", e.errno)
try:
    fd = os.open("app.fifo", os.O_WRONLY | os.O_NONBLOCK); os.write(fd, b"CANARY"); print("WROTE-FIFO")
except OSError as e:
    print("fifo", e.errno)
"#;
    for options in [&["--writable-project"][..], &[][..]] {
        let result = world.run(options, &[PYTHON, "-c", code]);
        let text = stdout(&result);
        assert!(text.contains("refused"), "{result}");
        assert!(
            !text.contains("CONNECTED") && !text.contains("WROTE-FIFO"),
            "{result}"
        );
        assert!(text.contains("git refused"), "{result}");
        assert!(
            listener.accept().is_err() && git_listener.accept().is_err(),
            "the host service got a connection"
        );
        let mut buf = [0u8; 16];
        assert!(
            !matches!(std::io::Read::read(&mut reader, &mut buf), Ok(n) if n > 0),
            "the named pipe received data"
        );
    }
}

// A socket a host program makes in the project while a writable run lasts
// (sandbox attack #2: a dev server or language server restarting) leads to
// that program: the run is stopped as soon as the init sees it, before the
// program's next step (it may still reach it within that one check).
// proves: SBX-6, SBX-1
#[test]
fn a_socket_made_in_the_project_during_a_run_stops_it() {
    let world = World::new();
    let project = world.project.clone();
    let binder = std::thread::spawn(move || {
        let started = std::time::Instant::now();
        while !project.join("started").exists()
            && started.elapsed() < std::time::Duration::from_secs(30)
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let listener = std::os::unix::net::UnixListener::bind(project.join("late.sock")).unwrap();
        std::thread::sleep(std::time::Duration::from_secs(4));
        drop(listener);
    });
    let result = world.sh(
        &["--writable-project"],
        "touch started; sleep 3; echo late > late.txt",
    );
    binder.join().unwrap();
    let notes = result["notes"].to_string();
    assert!(
        notes.contains("socket file appeared") && notes.contains("late.sock"),
        "{result}"
    );
    assert_ne!(exit_code(&result), 0, "{result}");
    assert!(!world.project.join("late.txt").exists(), "{result}");
}

// A project file of a group the user namespace cannot map: the copy-on-write
// layer cannot copy it up, and the run says why instead of a bare EOVERFLOW.
// proves: BEYOND-4
#[test]
fn editing_a_file_of_an_unmapped_group_fails_with_the_reason() {
    let world = World::new();
    // Only root can give a file to another group (CI runs as root).
    let (uid, _) = ploy_testkit::require_part!(
        "root",
        world
            .user
            .ok_or("giving a file to another group needs root; run the tests as root (CI does)")
    );
    let file = world.project.join("shared.txt");
    std::fs::write(&file, "shared\n").unwrap();
    std::os::unix::fs::chown(&file, Some(uid), Some(0)).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    let result = world.sh(&[], "echo more >> shared.txt");
    let shown = brief(&result);
    assert_ne!(exit_code(&result), 0, "{shown}");
    let notes = result["notes"].to_string();
    assert!(
        notes.contains("EOVERFLOW") && notes.contains("shared.txt") && notes.contains("gid 0"),
        "{shown}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "shared\n");
}

// The program has no capability in any set, bounding set included, and
// no_new_privs is on (a program mapped to uid 0 would have none either).
// proves: SBX-2
#[test]
fn the_program_has_no_capabilities_and_no_new_privs() {
    let world = World::new();
    let result = world.sh(
        &[],
        "grep -E '^(Cap|NoNewPrivs|Seccomp:)' /proc/self/status",
    );
    let text = stdout(&result);
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(set) && l.ends_with("0000000000000000")),
            "{set}: {result}"
        );
    }
    assert!(text.contains("NoNewPrivs:\t1"), "{result}");
    assert!(text.contains("Seccomp:\t2"), "{result}");
}

// A file name the program chose is printed by ploy in its notes: a terminal
// escape sequence in it is shown escaped, never sent to the terminal raw.
// proves: SBX-6
#[test]
fn notes_never_carry_raw_control_characters_from_file_names() {
    let world = World::new();
    let result = world.sh(
        &["--writable-project"],
        "mkdir -p \"$(printf 'a\\033]0;pwned\\007')/.claude\"",
    );
    let notes: Vec<String> = result["notes"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"))
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    assert!(!notes.is_empty(), "{result}");
    for note in &notes {
        assert!(!note.chars().any(char::is_control), "{note:?}");
        assert!(note.contains("\\u{1b}"), "{note:?}");
    }
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

// A folder the scan cannot list hides the PERM-7 paths in it, yet the
// program, running as its owner, can `chmod` it back: found attacking the
// sandbox, `chmod 311 .` in one run unlocked `.git/config` in the next. The
// scan fails closed before a run, and repairs (u+rx, with a note) after a
// writable run, so what was planted in such a folder is still moved aside.
// proves: SBX-6
#[test]
fn a_folder_made_unlistable_never_unlocks_the_protected_paths() {
    let world = World::new();
    repository(&world);
    for dir in [world.project.clone(), world.project.join("src")] {
        set_mode(&dir, 0o311);
        let result = world.sh(
            &["--writable-project"],
            "echo evil >> .envrc; echo '{}' > .claude/settings.json; echo ran",
        );
        set_mode(&dir, 0o755);
        let error = result["error"].as_str().unwrap_or_default();
        assert_eq!(result["rule"], "SBX-6", "{result}");
        assert!(
            error.contains("cannot be read") && error.contains("chmod u+rx"),
            "{result}"
        );
        assert!(result.get("stdout").is_none(), "it ran: {result}");
        assert_eq!(
            std::fs::read_to_string(world.project.join(".envrc")).unwrap(),
            "export A=1\n"
        );
    }
    // The program makes folders unlistable during a writable run and plants
    // PERM-7 paths in them: ploy gives the folders back to their owner and
    // moves the planted paths aside. The project folder goes first: the
    // init stops the run at the first PERM-7 path it sees made.
    let result = world.sh(
        &["--writable-project"],
        "chmod 311 .; mkdir -p src/deep && echo '{}' > src/deep/.mcp.json && chmod 311 src/deep; \
         mkdir -p sub/.git && chmod 311 sub; echo '{}' > .mcp.json",
    );
    let notes = result["notes"].to_string();
    // A folder made unlistable cannot be watched for new PERM-7 paths, and
    // the init stops the run the moment it sees one made, so the run may
    // end before the later commands made theirs (7196d03, fail closed):
    // what was made is moved aside and named.
    let stopped = notes.contains("every process in the sandbox was stopped");
    for planted in ["src/deep/.mcp.json", "sub/.git", ".mcp.json"] {
        assert!(
            !world.project.join(planted).exists(),
            "{planted} stayed: {result}"
        );
        assert!(notes.contains(planted) || stopped, "{planted}: {result}");
    }
    assert!(
        notes.contains("took away your permission to list"),
        "{result}"
    );
    // And the next run starts: every folder is listable again.
    let again = world.sh(&["--writable-project"], "echo ran");
    assert_eq!(stdout(&again), "ran\n", "{again}");
    // Another user's folder the user cannot even enter hides nothing the
    // program could reach: it is passed over, not refused.
    if world.user.is_some() {
        let closed = world.project.join("root-only");
        std::fs::create_dir_all(closed.join(".claude")).unwrap();
        set_mode(&closed, 0o700);
        let result = world.sh(&["--writable-project"], "ls root-only || echo closed");
        assert!(stdout(&result).contains("closed"), "{result}");
    }
}

// A PERM-7 path that is a symbolic link (dotfile setups: `.claude ->
// conf/claude`, or `.git -> .realgit`) keeps its target read-only, and the
// link itself cannot be removed or swapped for a real folder whose
// configuration the host's tools would then read.
// proves: SBX-6
#[test]
fn a_protected_symbolic_link_cannot_be_swapped_for_a_real_folder() {
    let world = World::new();
    for dir in ["conf/claude", ".realgit/hooks", "src"] {
        std::fs::create_dir_all(world.project.join(dir)).unwrap();
    }
    std::fs::write(world.project.join("conf/claude/settings.json"), "{}\n").unwrap();
    std::fs::write(world.project.join(".realgit/config"), "[core]\n").unwrap();
    std::fs::write(
        world.project.join(".realgit/HEAD"),
        "ref: refs/heads/main\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("conf/claude", world.project.join(".claude")).unwrap();
    std::os::unix::fs::symlink(".realgit", world.project.join(".git")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", world.project.join(".mcp.json")).unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    let attack = "
        echo x > .claude/settings.json 2>/dev/null || echo target-locked
        rm .claude 2>/dev/null || echo link-kept
        mv .git .git-old 2>/dev/null || echo git-link-kept
        rm -f .git; mkdir .git 2>/dev/null; printf '[core]\\n\\tfsmonitor = touch /tmp/p\\n' > .git/config 2>/dev/null
        rm -f .mcp.json; echo '{}' > .mcp.json 2>/dev/null
        mv conf conf-old 2>/dev/null || echo parent-pinned
        true";
    for options in [&["--writable-project"][..], &[][..]] {
        let result = world.sh(options, attack);
        let text = stdout(&result);
        for kept in [
            "target-locked",
            "link-kept",
            "git-link-kept",
            "parent-pinned",
        ] {
            assert!(text.contains(kept), "{kept} ({options:?}): {result}");
        }
        for (link, target) in [
            (".claude", "conf/claude"),
            (".git", ".realgit"),
            (".mcp.json", "/etc/hostname"),
        ] {
            let found = std::fs::read_link(world.project.join(link))
                .unwrap_or_else(|err| panic!("{link} is no longer a link ({err}): {result}"));
            assert_eq!(found, Path::new(target), "{options:?}");
        }
        assert_eq!(
            std::fs::read_to_string(world.project.join(".realgit/config")).unwrap(),
            "[core]\n"
        );
        assert_eq!(
            std::fs::read_to_string(world.project.join("conf/claude/settings.json")).unwrap(),
            "{}\n"
        );
    }
}

// Memory held only in a descriptor is in no process's resident set: found
// attacking the cap, 6 GB of unmapped memfds and 5 GiB of detached SysV
// segments survived a 4 GiB cap. memfd_create is absent (ENOSYS, so
// programs fall back to the counted /dev/shm), and SysV segments, attached
// or not, are counted by the guard and capped by the kernel in the
// sandbox's own IPC namespace.
// proves: SBX-2, SBX-5
#[test]
fn memory_held_only_in_descriptors_counts_against_the_cap() {
    let world = World::new();
    let memfd = r#"
import os
try:
    os.memfd_create("hold"); print("MEMFD CREATED")
except OSError as e:
    print("memfd errno", e.errno)
"#;
    let result = world.run(&[], &[PYTHON, "-c", memfd]);
    assert_eq!(
        stdout(&result).trim(),
        "memfd errno 38",
        "{}",
        brief(&result)
    );
    // 700 MiB of detached SysV segments plus 500 MiB of ordinary memory
    // under a 1 GiB cap: over it only if the segments count.
    let sysv = r#"
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
for i in range(int(sys.argv[1])):
    sid = libc.shmget(0, ctypes.c_size_t(100 << 20), 0o1600)
    if sid < 0:
        print("shmget refused", ctypes.get_errno(), flush=True); break
    a = libc.shmat(sid, None, 0)
    ctypes.memset(a, 1, 100 << 20); libc.shmdt(a)
print("segments written", flush=True)
hold = [b"\x01" * (100 << 20) for _ in range(int(sys.argv[2]))]
time.sleep(1)
print("SURVIVED", flush=True)
"#;
    let limits = [
        "--limit",
        "memory_bytes=1073741824",
        "--limit",
        "wall_ms=60000",
    ];
    let result = world.run(&limits, &[PYTHON, "-c", sysv, "7", "5"]);
    let shown = brief(&result);
    assert_eq!(result["memory_exceeded"], true, "{shown}");
    assert!(!stdout(&result).contains("SURVIVED"), "{shown}");
    // More segments than the cap: the kernel refuses them (kernel.shmall in
    // the sandbox's IPC namespace), or the guard kills the run.
    let result = world.run(&limits, &[PYTHON, "-c", sysv, "15", "0"]);
    let shown = brief(&result);
    let text = stdout(&result);
    assert!(
        text.contains("shmget refused 28") || result["memory_exceeded"] == true,
        "{shown}"
    );
    // A fresh run starts with no segment of the last one: the IPC namespace
    // died with it.
    let result = world.sh(&[], "cat /proc/sysvipc/shm | wc -l");
    assert_eq!(stdout(&result).trim(), "1", "{}", brief(&result));
}

// `core.hooksPath` sends git's hooks to a folder in the work tree (husky's
// `.husky`): found attacking the sandbox, a hook written there ran at the
// host's next commit. Every folder git's configuration names (the
// repository's, the user's global one, their includes) is locked like a
// PERM-7 path, and one made during a writable run is moved aside.
// proves: SBX-6
#[test]
fn folders_named_by_core_hooks_path_stay_read_only() {
    let world = World::new();
    repository(&world);
    std::fs::write(
        world.project.join(".git/config"),
        "[core]\n\tbare = false\n[include]\n\tpath = hooks.inc\n",
    )
    .unwrap();
    std::fs::write(
        world.project.join(".git/hooks.inc"),
        "[core]\n\thooksPath = .husky\n",
    )
    .unwrap();
    std::fs::write(
        world.home.join(".gitconfig"),
        "[core]\n\thooksPath = .githooks\n",
    )
    .unwrap();
    std::fs::create_dir_all(world.project.join(".husky")).unwrap();
    std::fs::write(
        world.project.join(".husky/pre-commit"),
        "#!/bin/sh\nexit 0\n",
    )
    .unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.home, uid, gid);
    }
    for options in [&["--writable-project"][..], &[][..]] {
        let result = world.sh(
            options,
            "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .husky/pre-commit 2>/dev/null || echo husky-locked; \
             mv .husky .husky-old 2>/dev/null || echo husky-pinned; \
             mkdir -p .githooks && echo 'touch /tmp/pwned' > .githooks/pre-commit; echo done",
        );
        let text = stdout(&result);
        assert!(
            text.contains("husky-locked") && text.contains("husky-pinned"),
            "{options:?}: {result}"
        );
        assert_eq!(
            std::fs::read_to_string(world.project.join(".husky/pre-commit")).unwrap(),
            "#!/bin/sh\nexit 0\n"
        );
        assert!(
            !world.project.join(".githooks").exists(),
            "{options:?}: {result}"
        );
    }
    assert!(world.project.join(".githooks.ploy-blocked").exists());
    // The project itself as git's hooks folder cannot be locked: refused.
    std::fs::write(world.home.join(".gitconfig"), "[core]\n\thooksPath = .\n").unwrap();
    let result = world.sh(&["--writable-project"], "echo ran");
    assert_eq!(result["rule"], "SBX-6", "{result}");
    assert!(result.get("stdout").is_none(), "{result}");
}

// Hook managers run what their lists name at the host's next commit, and
// husky's `.husky` is the folder its set-up makes git's hooks folder: PERM-7
// protects them by name (outside attack agent #4 / sandbox #15), so they
// are read-only in every run even before `core.hooksPath` is configured.
// proves: SBX-6, PERM-7
#[test]
fn hook_manager_lists_and_husky_stay_read_only() {
    let world = World::new();
    repository(&world);
    std::fs::create_dir_all(world.project.join(".husky")).unwrap();
    for (file, text) in [
        (".husky/pre-commit", "npm test\n"),
        (".pre-commit-config.yaml", "repos: []\n"),
        ("lefthook.yml", "pre-commit: {}\n"),
    ] {
        std::fs::write(world.project.join(file), text).unwrap();
    }
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    for options in [&["--writable-project"][..], &[][..]] {
        let result = world.sh(
            options,
            "for f in .husky/pre-commit .pre-commit-config.yaml lefthook.yml; do \
               echo 'touch /tmp/pwned' >> $f 2>/dev/null && echo wrote $f; done; echo done",
        );
        let text = stdout(&result);
        assert!(
            text.contains("done") && !text.contains("wrote"),
            "{options:?}: {result}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(world.project.join(".pre-commit-config.yaml")).unwrap(),
        "repos: []\n"
    );
    assert_eq!(
        std::fs::read_to_string(world.project.join(".husky/pre-commit")).unwrap(),
        "npm test\n"
    );
}

// secrets5 #14 / proof5 #5: configuration other tools run programs from on
// the user's next ordinary command (cargo's runners, npm's node-options,
// Yarn's yarnPath, other agents' MCP servers) is on PERM-7's one list, so
// the sandbox keeps it read-only and moves a new one aside.
// proves: SBX-6, PERM-7
#[test]
fn other_tools_auto_run_configuration_stays_read_only() {
    let world = World::new();
    for dir in [".cargo", ".gemini", ".devcontainer"] {
        std::fs::create_dir_all(world.project.join(dir)).unwrap();
    }
    let existing = [
        ".cargo/config.toml",
        ".npmrc",
        ".yarnrc.yml",
        ".gemini/settings.json",
        ".devcontainer/devcontainer.json",
        "opencode.json",
    ];
    for file in existing {
        std::fs::write(world.project.join(file), "original\n").unwrap();
    }
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    let script = format!(
        "for f in {}; do echo 'evil' >> $f 2>/dev/null && echo wrote $f; done; echo done",
        existing.join(" ")
    );
    for options in [&["--writable-project"][..], &[][..]] {
        let result = world.sh(options, &script);
        let text = stdout(&result);
        assert!(
            text.contains("done") && !text.contains("wrote"),
            "{options:?}: {result}"
        );
    }
    for file in existing {
        assert_eq!(
            std::fs::read_to_string(world.project.join(file)).unwrap(),
            "original\n",
            "{file}"
        );
    }
    // Made by a writable run: moved aside and reported.
    for (created, script) in [
        (
            ".cursor",
            "mkdir -p .cursor && echo '{}' > .cursor/mcp.json",
        ),
        (".pnpmfile.cjs", "echo 'module.exports={}' > .pnpmfile.cjs"),
    ] {
        let result = world.sh(&["--writable-project"], script);
        let notes = result["notes"].to_string();
        assert!(
            notes.contains(created) && notes.contains("SBX-6"),
            "{created}: {result}"
        );
        assert!(!world.project.join(created).exists(), "{created} stayed");
    }
}

// BEYOND-3 holds for the home folder the user database names, not only for
// HOME: found attacking it, `HOME=/tmp/x ploy sandbox run --project <real
// home>` showed the dotfiles and tokens there.
// proves: BEYOND-3
#[test]
fn the_real_home_is_refused_as_project_whatever_home_says() {
    let world = World::new();
    // SAFETY: getpwuid/getuid in a test; the entry is read at once.
    let real_home = unsafe {
        let entry = libc::getpwuid(libc::getuid());
        assert!(!entry.is_null(), "no passwd entry for this user");
        std::ffi::CStr::from_ptr((*entry).pw_dir)
            .to_string_lossy()
            .into_owned()
    };
    let real_home = ploy_testkit::require_part!(
        "a home folder in the user database",
        Path::new(&real_home)
            .is_dir()
            .then_some(real_home.clone())
            .ok_or("this user's passwd home folder does not exist")
    );
    // The helper runs as this user (not as the world's user): the home is
    // this user's.
    let mut command = Command::new(&world.helper);
    command
        .args(["--project", &real_home, "--", "/bin/true"])
        .env("HOME", &world.home)
        .current_dir(&world.base);
    let out = output_retrying(&mut command);
    let result: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("bad JSON: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(result["rule"], "BEYOND-3", "{result}");
    assert!(result.get("exit_code").is_none(), "it ran: {result}");
}

// proof5 #16: a writable run made the project root (no `.git`) or `docs/`
// inside a repository a folder git takes as a bare repository (`HEAD`,
// `objects/`, `refs/` and a `config` naming `core.fsmonitor`); the host's
// next `git status` there ran the planted program. After the run the parts
// that make it one are moved aside and reported.
// proves: SBX-6
#[test]
fn a_folder_made_to_pass_for_a_git_repository_is_moved_aside_and_reported() {
    let plant = |dir: &str| {
        format!(
            "mkdir -p {dir}objects {dir}refs/heads && echo 'ref: refs/heads/main' > {dir}HEAD && \
             printf '[core]\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = \"echo FSMON-PLANTED >&2; false\"\\n' \
             > {dir}config && echo planted"
        )
    };
    for (repo, dir) in [(false, ""), (true, "docs/")] {
        let world = World::new();
        if repo {
            repository(&world);
        }
        let result = world.sh(&["--writable-project"], &plant(dir));
        assert!(stdout(&result).contains("planted"), "{result}");
        let notes = result["notes"].to_string();
        assert!(notes.contains("SBX-6"), "{dir}: {result}");
        assert!(notes.contains(&format!("{dir}HEAD")), "{dir}: {result}");
        for part in ["HEAD", "config"] {
            let path = world.project.join(format!("{dir}{part}"));
            assert!(!path.exists(), "{} stayed: {result}", path.display());
        }
        // The host's git there no longer takes the folder as a repository.
        let host = Command::new("git")
            .arg("-C")
            .arg(world.project.join(dir))
            .args(["status", "--porcelain"])
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CEILING_DIRECTORIES", &world.base)
            .output()
            .unwrap();
        assert!(
            !String::from_utf8_lossy(&host.stderr).contains("FSMON-PLANTED"),
            "{dir}: {host:?}"
        );
    }
    // One that was there before the run is locked: its config cannot be
    // written, and a new one is moved aside.
    let world = World::new();
    for d in ["fixture/objects", "fixture/refs"] {
        std::fs::create_dir_all(world.project.join(d)).unwrap();
    }
    std::fs::write(world.project.join("fixture/HEAD"), "ref: refs/heads/main\n").unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    let result = world.sh(
        &["--writable-project"],
        "echo garbage > fixture/HEAD || echo head-locked; echo '[core]' > fixture/config; true",
    );
    assert!(stdout(&result).contains("head-locked"), "{result}");
    assert_eq!(
        std::fs::read_to_string(world.project.join("fixture/HEAD")).unwrap(),
        "ref: refs/heads/main\n"
    );
    assert!(!world.project.join("fixture/config").exists(), "{result}");
    assert!(
        result["notes"].to_string().contains("fixture/config"),
        "{result}"
    );
}

// proof5 #14: `.git/config` includes a work-tree file (`include.path =
// ../.gitconfig`): it is git configuration, so a writable run cannot change
// it (the host's next `git status` ran a `core.fsmonitor` appended there).
// proves: SBX-6
#[test]
fn a_configuration_file_git_includes_stays_read_only_in_a_writable_project() {
    let world = World::new();
    repository(&world);
    std::fs::write(
        world.project.join(".git/config"),
        "[core]\n\tbare = false\n[include]\n\tpath = ../.gitconfig\n",
    )
    .unwrap();
    std::fs::write(world.project.join(".gitconfig"), "[alias]\n\tst = status\n").unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    let result = world.sh(
        &["--writable-project"],
        "printf '[core]\\n\\tfsmonitor = \"echo X >&2\"\\n' >> .gitconfig || echo include-locked; \
         echo code > src/main.rs && echo src-ok",
    );
    let text = stdout(&result);
    assert!(
        text.contains("include-locked") && text.contains("src-ok"),
        "{result}"
    );
    assert_eq!(
        std::fs::read_to_string(world.project.join(".gitconfig")).unwrap(),
        "[alias]\n\tst = status\n"
    );
}

/// proof5 #2's recipe: bytecode for a system module (`unittest`'s
/// `__main__`, which then reports "OK" and exits 0) and for the project's
/// failing test, written where Python looks for it
/// (`importlib.util.cache_from_source`: the bytecode prefix when one is
/// set, else the `__pycache__` folder beside the source).
const PLANT_BYTECODE: &str = r#"
import importlib._bootstrap_external as be, importlib.util, os, unittest
def plant(src, payload):
    st = os.stat(src)
    code = compile(payload, src, "exec")
    data = be._code_to_timestamp_pyc(code, int(st.st_mtime), st.st_size)
    dst = importlib.util.cache_from_source(src)
    try:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        open(dst, "wb").write(data)
        print("planted", dst)
    except OSError as err:
        print("refused", dst, err)
plant(os.path.join(os.path.dirname(unittest.__file__), "__main__.py"),
      "print('POISON-RAN Ran 1 test OK'); import sys; sys.exit(0)")
plant(os.path.abspath("tests/test_api.py"),
      "print('POISON-RAN')\nimport unittest\nclass T(unittest.TestCase):\n    def test_ok(self): pass\n")
"#;

// A proof (or a writable `ploy sandbox run`) plants Python bytecode; every
// later proof's `python3 -m unittest` ran it and passed a failing test
// (proof5 #2). Now Python reads only the system's bytecode (read-only) and
// compiles the project's sources: the project's `__pycache__` folders are
// hidden in every run, and when they are too many or one is a link, Python
// reads bytecode only from a folder of the run.
// proves: BEYOND-4, SBX-5, PROOF-2
#[test]
fn planted_python_bytecode_never_decides_a_later_proof() {
    let world = World::new();
    std::fs::create_dir_all(world.project.join("tests")).unwrap();
    std::fs::write(world.project.join("tests/__init__.py"), "").unwrap();
    std::fs::write(
        world.project.join("tests/test_api.py"),
        "import unittest\nclass T(unittest.TestCase):\n    def test_api(self):\n        self.assertEqual(1, 2)\n",
    )
    .unwrap();
    std::fs::write(world.project.join("plant.py"), PLANT_BYTECODE).unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    let cache = world.cache_option();
    let unittest = [PYTHON, "-m", "unittest", "tests.test_api"];
    let before = world.run(&["--build-cache", &cache], &unittest);
    assert_ne!(exit_code(&before), 0, "{}", brief(&before));
    // Through a proof: the system's bytecode is read-only, and what it
    // writes in the project is thrown away with the run.
    let planted = world.run(&["--build-cache", &cache], &[PYTHON, "plant.py"]);
    let text = stdout(&planted);
    assert!(text.contains("refused /usr/lib/"), "{}", brief(&planted));
    assert!(!text.contains("planted /usr"), "{}", brief(&planted));
    assert!(!world.project.join("tests/__pycache__").exists());
    // Through a writable run: into the project's own __pycache__, next to
    // the test.
    let planted = world.run(&["--writable-project"], &[PYTHON, "plant.py"]);
    assert!(
        stdout(&planted).contains("tests/__pycache__"),
        "{}",
        brief(&planted)
    );
    // round8 #6: what a writable run leaves in a `__pycache__` is moved
    // aside; put back by hand (as a person might), it must still never
    // decide a later proof.
    assert!(!world.project.join("tests/__pycache__").exists());
    std::fs::rename(
        world.project.join("tests/__pycache__.ploy-blocked"),
        world.project.join("tests/__pycache__"),
    )
    .unwrap();
    std::fs::remove_file(world.project.join("plant.py")).unwrap();
    let check = |shape: &str| {
        let after = world.run(&["--build-cache", &cache], &unittest);
        let shown = format!("{shape}: {}", brief(&after));
        assert_ne!(exit_code(&after), 0, "the failing test passed: {shown}");
        assert!(!shown.contains("POISON-RAN"), "{shown}");
        assert!(
            after["stderr"].as_str().unwrap().contains("AssertionError"),
            "{shown}"
        );
    };
    check("planted __pycache__ hidden");
    // A writable run cannot write into a __pycache__ that existed when it
    // started (hidden, read-only), so it cannot replace the planted one.
    let again = world.sh(
        &["--writable-project"],
        "echo x > tests/__pycache__/new.pyc && echo wrote",
    );
    assert!(!stdout(&again).contains("wrote"), "{}", brief(&again));
    // Past the number of folders ploy hides: Python reads bytecode only in
    // the run's own folder.
    for i in 0..=MAX_BYTECODE_MASKS {
        std::fs::create_dir_all(world.project.join(format!("pkg{i}/__pycache__"))).unwrap();
    }
    check("many __pycache__ folders");
    let shown = world.run(
        &["--build-cache", &cache],
        &[
            PYTHON,
            "-c",
            "import sys; print('prefix', sys.pycache_prefix)",
        ],
    );
    assert!(
        stdout(&shown).contains("prefix /var/cache/ploy-build/pycache"),
        "{}",
        brief(&shown)
    );
    for i in 0..=MAX_BYTECODE_MASKS {
        std::fs::remove_dir_all(world.project.join(format!("pkg{i}"))).unwrap();
    }
    // A __pycache__ that is a link to a folder holding the planted bytecode.
    std::fs::rename(
        world.project.join("tests/__pycache__"),
        world.project.join(".stash"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../.stash", world.project.join("tests/__pycache__")).unwrap();
    check("__pycache__ a link");
    // Upper case, as a case-folding folder would find it.
    std::fs::remove_file(world.project.join("tests/__pycache__")).unwrap();
    std::fs::rename(
        world.project.join(".stash"),
        world.project.join("tests/__PYCACHE__"),
    )
    .unwrap();
    let shown = world.sh(
        &["--build-cache", &cache],
        "ls -A tests/__PYCACHE__ | wc -l",
    );
    assert_eq!(stdout(&shown).trim(), "0", "{}", brief(&shown));
}

// Two proofs of one project at once shared the live cache: a unix socket
// there joined two sandboxes (proof5 #2c). Each run now has its own.
// proves: SBX-1, BEYOND-4
#[test]
fn concurrent_proofs_of_one_project_share_no_cache() {
    let world = std::sync::Arc::new(World::new());
    let cache = world.cache_option();
    let server = {
        let (world, cache) = (world.clone(), cache.clone());
        std::thread::spawn(move || {
            world.run(
                &["--build-cache", &cache],
                &[
                    PYTHON,
                    "-c",
                    "import socket; s = socket.socket(socket.AF_UNIX); \
                     s.bind('/var/cache/ploy-build/x.sock'); s.listen(1); s.settimeout(6)\n\
                     try:\n    c, _ = s.accept(); c.sendall(b'HELLO'); print('served')\n\
                     except OSError:\n    print('nobody came')",
                ],
            )
        })
    };
    // Wait until the server's socket exists on the host (in its run's cache).
    let root = Path::new(&cache);
    let mut bound = false;
    for _ in 0..200 {
        bound = walk_files(root).iter().any(|p| p.ends_with("x.sock"));
        if bound {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(bound, "the first proof never bound its socket");
    let client = world.run(
        &["--build-cache", &cache],
        &[
            PYTHON,
            "-c",
            "import socket, os\n\
             print(sorted(os.listdir('/var/cache/ploy-build')))\n\
             s = socket.socket(socket.AF_UNIX)\n\
             try:\n    s.connect('/var/cache/ploy-build/x.sock'); print('GOT', s.recv(10))\n\
             except OSError as err:\n    print('no connection', err)",
        ],
    );
    let served = server.join().unwrap();
    assert!(
        stdout(&client).contains("no connection"),
        "{}",
        brief(&client)
    );
    // Its own cache holds nothing of the other run's (it wrote nothing:
    // Python used the system's bytecode and wrote none).
    assert!(stdout(&client).contains("[]\n"), "{}", brief(&client));
    assert!(
        stdout(&served).contains("nobody came"),
        "{}",
        brief(&served)
    );
    assert!(world.cache_leftovers().is_empty());
}

/// Every file below `dir` (links and special files included), not
/// following links.
fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(entry.path()),
                _ => found.push(entry.path()),
            }
        }
    }
    found
}

// Empty files cost an inode and no bytes: 200,000 of them per run stayed
// on the host (proof5 #6). A run is now stopped at its inode bound, and a
// tree the clean-up could not walk (deeper than 1,024 levels, a `chmod 000`
// folder holding a link out; proof5 #6b) is removed all the same.
// proves: BEYOND-4, SBX-2
#[test]
fn a_proof_making_endless_files_is_stopped_and_leaves_nothing() {
    let world = World::new();
    let cache = world.cache_option();
    let result = world.run(
        &[
            "--build-cache",
            &cache,
            "--limit",
            "build_cache_inodes=5000",
        ],
        &[
            PYTHON,
            "-c",
            "import os, time\n\
             os.chdir('/var/cache/ploy-build'); os.makedirs('noread/x'); \
             os.symlink('/etc/passwd', 'noread/x/lnk'); os.chmod('noread', 0)\n\
             for i in range(1500):\n    os.mkdir('d'); os.chdir('d')\n\
             os.chdir('/var/cache/ploy-build'); end = time.time() + 60; i = 0\n\
             while time.time() < end:\n    open('f%d' % i, 'w').close(); i += 1\n\
             print('made', i)",
        ],
    );
    let shown = brief(&result);
    assert_ne!(exit_code(&result), 0, "{shown}");
    let notes = result["notes"].to_string();
    assert!(notes.contains("files and folders were made"), "{shown}");
    assert!(!stdout(&result).contains("made"), "{shown}");
    assert_eq!(world.cache_leftovers(), Vec::<String>::new(), "{shown}");
}

// A tmpfs without an inode bound let a run hold millions of empty files in
// kernel memory that no byte count saw (proof5 #9).
// proves: SBX-2
#[test]
fn the_sandboxs_tmpfs_folders_have_an_inode_bound() {
    let world = World::new();
    let result = world.run(
        &["--limit", "tmp_bytes=16777216"],
        &[
            PYTHON,
            "-c",
            "import os\n\
             for where in ('/tmp', '/dev/shm'):\n\
             \x20   os.makedirs(where + '/t', exist_ok=True); i = 0\n\
             \x20   try:\n\
             \x20       while i < 300000:\n\
             \x20           open('%s/t/%d' % (where, i), 'w').close(); i += 1\n\
             \x20   except OSError as err:\n\
             \x20       print(where, 'stopped', i, err.errno)\n",
        ],
    );
    let text = stdout(&result).to_string();
    let shown = brief(&result);
    for (place, bound) in [("/tmp", 4096), ("/dev/shm", 16384)] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{place} stopped")))
            .unwrap_or_else(|| panic!("{place} was not bounded: {shown}"));
        let made: u64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(made < bound, "{place}: {shown}");
        assert!(line.ends_with(" 28"), "ENOSPC expected: {shown}");
    }
}

// 500 MiB of SysV message queues were held under a 4 GiB cap without being
// counted (proof5 #9); under a 256 MiB cap the run cannot hold them.
// proves: SBX-2
#[test]
fn sysv_message_queues_count_towards_the_memory_cap() {
    let world = World::new();
    let result = world.run(
        &["--limit", "memory_bytes=268435456"],
        &[
            PYTHON,
            "-c",
            "import ctypes, time\n\
             libc = ctypes.CDLL(None, use_errno=True)\n\
             msg = ctypes.create_string_buffer(8192 + 8); ctypes.memset(msg, 1, 8)\n\
             held = 0; queues = 0\n\
             while held < 500 << 20:\n\
             \x20   q = libc.msgget(0, 0o1600)\n\
             \x20   if q < 0: break\n\
             \x20   queues += 1\n\
             \x20   while libc.msgsnd(q, msg, 8192, 0o4000) == 0: held += 8192\n\
             print('queues', queues, 'held', held >> 20, 'MiB', flush=True)\n\
             time.sleep(1)\n\
             print('survived', flush=True)",
        ],
    );
    let shown = brief(&result);
    let text = stdout(&result);
    let held: u64 = text
        .split_whitespace()
        .skip_while(|w| *w != "held")
        .nth(1)
        .map(|n| n.parse().unwrap())
        .unwrap_or(0);
    // Either the kernel refused past its cap (msgmni, when the init may set
    // it) or the guard killed the run past the memory cap.
    assert!(
        result["memory_exceeded"] == true || (held < 256 && text.contains("survived")),
        "{shown}"
    );
    assert!(held < 256 || result["memory_exceeded"] == true, "{shown}");
}

// A private file under /opt or /usr/local (a user's tool installation with
// its token) was readable in the sandbox (proof5 #13). Only root can write
// there (CI runs as root); the sandbox runs as the file's owner.
// proves: SBX-3
#[test]
fn private_files_under_opt_and_usr_local_are_hidden() {
    let world = World::new();
    let (uid, gid) = ploy_testkit::require_part!(
        "root",
        world
            .user
            .ok_or("writing under /opt and /usr/local needs root; run the tests as root (CI does)")
    );
    let tag = format!(
        "ploy-test-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    );
    let opt = PathBuf::from("/opt").join(&tag);
    let local = PathBuf::from("/usr/local/share").join(&tag);
    struct Gone(Vec<PathBuf>);
    impl Drop for Gone {
        fn drop(&mut self) {
            for path in &self.0 {
                let _ = std::fs::remove_dir_all(path);
            }
        }
    }
    let _gone = Gone(vec![opt.clone(), local.clone()]);
    std::fs::create_dir_all(&opt).unwrap();
    std::fs::write(opt.join("secret.txt"), "OPT-SECRET-CANARY").unwrap();
    std::fs::write(opt.join("public.txt"), "OPT-PUBLIC").unwrap();
    std::fs::set_permissions(
        opt.join("secret.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::set_permissions(
        opt.join("public.txt"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(local.join("token"), "USRLOCAL-SECRET-CANARY").unwrap();
    std::fs::set_permissions(&local, std::fs::Permissions::from_mode(0o700)).unwrap();
    chown_tree(&opt, uid, gid);
    chown_tree(&local, uid, gid);
    let result = world.sh(
        &[],
        &format!(
            "cat {o}/secret.txt {l}/token; cat {o}/public.txt",
            o = opt.display(),
            l = local.display()
        ),
    );
    let shown = brief(&result);
    assert!(!shown.contains("SECRET-CANARY"), "{shown}");
    assert!(stdout(&result).contains("OPT-PUBLIC"), "{shown}");
}

// A relative entry in the caller's PATH made `grep` in a proof resolve to a
// project file `./grep` (proof5 #11).
// proves: PROOF-2, PROOF-6
#[test]
fn a_relative_path_entry_never_finds_a_project_program() {
    let world = World::new();
    std::fs::write(
        world.project.join("grep"),
        "#!/bin/sh\necho FAKE-GREP-RAN\nexit 0\n",
    )
    .unwrap();
    std::fs::set_permissions(
        world.project.join("grep"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    for path in [":/usr/bin:/bin", ".:/usr/bin:/bin", "/usr/bin:/bin:"] {
        let mut all = vec!["--plan"];
        let line = plan(one(&["grep", "-q", "zzz", "tracked.txt"]), vec![]);
        all.push(&line);
        let mut command = world.command(&all, &[]);
        command.env("PATH", path);
        let out = output_retrying(&mut command);
        let result: Value = serde_json::from_slice(&out.stdout).unwrap();
        let shown = brief(&result);
        assert!(!shown.contains("FAKE-GREP-RAN"), "{path}: {shown}");
        assert_eq!(exit_code(&result), 1, "{path}: {shown}");
    }
}

/// A unix socket listening at `path`, connectable by anyone on the host
/// (mode 0777), so only the sandbox can stand between a program and it.
fn open_host_socket(path: &Path) -> std::os::unix::net::UnixListener {
    let listener = std::os::unix::net::UnixListener::bind(path).unwrap();
    listener.set_nonblocking(true).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777)).unwrap();
    listener
}

/// A Python program that connects to each socket file given and prints
/// `CONNECTED <path>` or `refused <path> <errno>`.
const CONNECT_EACH: &str = r#"import socket, sys
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path); print('CONNECTED', path)
    except OSError as e:
        print('refused', path, e.errno)
"#;

// round8 #5: a host service's unix socket file under a folder bound
// read-only (/opt there) was reachable from inside: connect() succeeded.
// Now every read-only folder is seen through an overlay, whose inodes are
// not the ones the host's sockets were bound on, so a connect finds no one
// (ECONNREFUSED); the folder's files are still there, and a socket made
// inside the sandbox still works.
// proves: SBX-3, BEYOND-4, SBX-1
#[test]
fn round8_5_host_sockets_under_read_only_folders_are_unreachable() {
    let world = World::new();
    let tools = world.base.join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(tools.join("tool.txt"), "TOOL-VISIBLE\n").unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&tools, uid, gid);
    }
    let socket = tools.join("svc.sock");
    let listener = open_host_socket(&socket);
    let program = format!(
        "cat {tools}/tool.txt; {PYTHON} -c \"$1\" {socket}; \
         {PYTHON} -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind(\"/tmp/own.sock\"); \
         s.listen(1); c = socket.socket(socket.AF_UNIX); c.connect(\"/tmp/own.sock\"); print(\"OWN-OK\")'",
        tools = tools.display(),
        socket = socket.display(),
    );
    let tools_text = tools.to_str().unwrap();
    for view in [
        &["--extra-read-only", tools_text][..],
        &["--writable-project", "--extra-read-only", tools_text],
    ] {
        let result = world.run(view, &["/bin/sh", "-c", &program, "sh", CONNECT_EACH]);
        let text = stdout(&result);
        assert!(
            text.contains("TOOL-VISIBLE"),
            "the folder is shown: {}",
            brief(&result)
        );
        assert!(
            text.contains(&format!("refused {} 111", socket.display())),
            "{}",
            brief(&result)
        );
        assert!(!text.contains("CONNECTED"), "{}", brief(&result));
        assert!(
            text.contains("OWN-OK"),
            "the sandbox's own sockets work: {}",
            brief(&result)
        );
    }
    assert!(
        listener.accept().is_err(),
        "the host's socket received a connection"
    );
}

// round8 #5: inside the sandbox a proof read `/usr/local/etc/npmrc` and
// `/etc/pip.conf` (readable by everyone, so not hidden by the permission
// rule), package managers' configuration that holds registry tokens; and a
// socket under /opt was reachable. Every credential configuration name the
// secret-file rule and `SYSTEM_CREDENTIAL_CONFIGS` know is now hidden in
// the walked system folders (/etc, /opt, /usr/local), and /opt's sockets
// are cut off by its overlay. Needs root to write under /opt (CI runs as
// root).
// proves: SBX-3, BEYOND-4
#[test]
fn round8_5_credential_configs_and_sockets_under_system_folders_are_hidden() {
    ploy_testkit::require_part!(
        "root",
        if world_is_unprivileged() {
            Err("writing under /opt needs root; run the tests as root (CI does)")
        } else {
            Ok(())
        }
    );
    let world = World::new();
    let opt = PathBuf::from(format!("/opt/ploy-round8-5-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&opt);
    let files = [
        (
            "etc/npmrc",
            "//registry.example/:_authToken=CANARY-NPM-TOKEN\n",
        ),
        (
            "etc/pip.conf",
            "[global]\nindex-url = https://u:CANARY-PIP@pypi.example/simple\n",
        ),
        (
            "conda/.condarc",
            "channels:\n  - https://conda.example/t/CANARY-CONDA/\n",
        ),
        (
            "bundle/config",
            "BUNDLE_GEMS__EXAMPLE__COM: \"CANARY-BUNDLE\"\n",
        ),
        (
            "cargo/credentials.toml",
            "[registry]\ntoken = \"CANARY-CARGO\"\n",
        ),
        (
            "app/.netrc",
            "machine example.com login u password CANARY-NETRC\n",
        ),
        ("etc/README", "PUBLIC-FILE\n"),
        ("ssl/cacert.pem", "PUBLIC-CERT\n"),
    ];
    for (name, text) in files {
        let path = opt.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let socket = opt.join("run/svc.sock");
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    let listener = open_host_socket(&socket);
    std::process::Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(&opt)
        .status()
        .unwrap();
    let program = format!(
        "cat {names}; {PYTHON} -c \"$1\" {socket}",
        names = files
            .iter()
            .map(|(name, _)| opt.join(name).display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
        socket = socket.display(),
    );
    let result = world.run(&[], &["/bin/sh", "-c", &program, "sh", CONNECT_EACH]);
    let accepted = listener.accept().is_ok();
    std::fs::remove_dir_all(&opt).unwrap();
    let text = stdout(&result);
    assert!(!text.contains("CANARY"), "{}", brief(&result));
    assert!(
        text.contains("PUBLIC-FILE") && text.contains("PUBLIC-CERT"),
        "other files stay: {}",
        brief(&result)
    );
    assert!(text.contains("refused"), "{}", brief(&result));
    assert!(
        !text.contains("CONNECTED") && !accepted,
        "{}",
        brief(&result)
    );
}

// round8 #6: a writable run (the agent's shell, `ploy sandbox run`) wrote a
// timestamp-matched `__pycache__/*.pyc` into the project; the host's next
// `python3 -m unittest` loaded it instead of the test's source and a
// failing test passed. Now what a writable run leaves in a `__pycache__`
// (a new one, or new entries in an old one) and an extension module beside
// a `.py` are moved aside and reported.
// proves: BEYOND-4, SBX-6
#[test]
fn round8_6_bytecode_a_writable_run_plants_never_runs_on_the_host() {
    let world = World::new();
    std::fs::create_dir_all(world.project.join("tests")).unwrap();
    std::fs::create_dir_all(world.project.join("lib/__pycache__")).unwrap();
    std::fs::write(world.project.join("tests/__init__.py"), "").unwrap();
    std::fs::write(
        world.project.join("tests/test_api.py"),
        "import unittest\nclass T(unittest.TestCase):\n    def test_api(self):\n        self.assertEqual(1, 2)\n",
    )
    .unwrap();
    std::fs::write(world.project.join("lib/fast.py"), "X = 1\n").unwrap();
    std::fs::write(world.project.join("lib/__pycache__/old.pyc"), "old").unwrap();
    std::fs::write(world.project.join("plant.py"), PLANT_BYTECODE).unwrap();
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    // The project has so many `__pycache__` folders that ploy does not hide
    // them one by one: the run can write into the old ones too.
    let mut many = Vec::new();
    for i in 0..=MAX_BYTECODE_MASKS {
        let dir = world.project.join(format!("pkg{i}/__pycache__"));
        std::fs::create_dir_all(&dir).unwrap();
        many.push(dir);
    }
    if let Some((uid, gid)) = world.user {
        chown_tree(&world.project, uid, gid);
    }
    // What the host wrote before the run is older than the second of slack
    // ploy gives the file system's coarse clock.
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let planted = world.sh(
        &["--writable-project"],
        &format!(
            "env -u PYTHONPYCACHEPREFIX {PYTHON} plant.py; echo evil > lib/__pycache__/fast.cpython-311.pyc; \
             echo elf > lib/fast.cpython-311-x86_64-linux-gnu.so; echo elf > lib/fast.abi3.so; \
             echo elf > lib/other.so"
        ),
    );
    let notes = planted["notes"].to_string();
    assert!(
        notes.contains("tests/__pycache__") && notes.contains("BEYOND-4"),
        "{}",
        brief(&planted)
    );
    for gone in [
        "tests/__pycache__",
        "lib/__pycache__/fast.cpython-311.pyc",
        "lib/fast.cpython-311-x86_64-linux-gnu.so",
        "lib/fast.abi3.so",
    ] {
        assert!(
            !world.project.join(gone).exists(),
            "{gone} stayed: {}",
            brief(&planted)
        );
        assert!(
            world.project.join(format!("{gone}.ploy-blocked")).exists(),
            "{gone} was not moved aside: {}",
            brief(&planted)
        );
    }
    // What the run did not write stays: an old bytecode file, a module
    // that shadows no source.
    assert!(world.project.join("lib/__pycache__/old.pyc").exists());
    assert!(world.project.join("lib/other.so").exists());
    // The host's own Python, as a person would run the tests next.
    let host = Command::new(PYTHON)
        .args(["-E", "-B", "-m", "unittest", "tests.test_api"])
        .current_dir(&world.project)
        .output()
        .unwrap();
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&host.stdout),
        String::from_utf8_lossy(&host.stderr)
    );
    assert!(!shown.contains("POISON-RAN"), "{shown}");
    assert!(!host.status.success(), "the failing test passed: {shown}");
    assert!(shown.contains("AssertionError"), "{shown}");
    for dir in many {
        let _ = std::fs::remove_dir_all(dir.parent().unwrap());
    }
}
