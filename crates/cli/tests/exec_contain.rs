//! The service's secrets stay in the service (SVC-1, issue 14 items 6 and 8):
//! a program started with `ploy exec` cannot read the service file, cannot
//! call the API, has no `PLOY_*` variable and cannot undo the hiding, yet
//! still reaches the gateway with its token; and ploy's folders and store
//! files are owner-only on disk. Real `ploy serve` on loopback, real child
//! programs (sh, cat, curl, umount, unshare), real files.
#![allow(clippy::disallowed_methods)] // runs the ploy binary, shell tools and a loopback upstream
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use ploy_testkit::scripted_model::{Script, ScriptedModel, Turn, serve_in_thread};
use support::TempDir;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A loopback OpenAI-compatible upstream (the scripted model) that records
/// every request it receives and always answers `upstream-says-hello`.
fn recording_upstream() -> ScriptedModel {
    serve_in_thread(Script::new().repeat(Turn::text("upstream-says-hello"))).unwrap()
}

struct Serve {
    child: Child,
    out: Arc<Mutex<String>>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_serve(dirs: &TempDir, upstream: &str) -> Serve {
    let mut child = support::ploy(dirs.path())
        .args(["serve", "--upstream", upstream])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = Arc::new(Mutex::new(String::new()));
    let sink = out.clone();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            sink.lock().unwrap().push_str(&line);
            sink.lock().unwrap().push('\n');
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    while !out.lock().unwrap().contains("running") {
        assert!(Instant::now() < deadline, "ploy serve did not start");
        std::thread::sleep(Duration::from_millis(25));
    }
    Serve { child, out }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// The path of `name` on PATH, or why it is missing.
fn tool(name: &str) -> Result<std::path::PathBuf, String> {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|path| path.is_file())
        })
        .ok_or_else(|| {
            format!("`{name}` is not on PATH; install it (the test runs a real child program)")
        })
}

/// Whether this machine lets an unprivileged process make user namespaces
/// (what `ploy exec` needs), or why not.
fn user_namespaces() -> Result<(), String> {
    let ok = std::process::Command::new("unshare")
        .args(["-Urm", "true"])
        .status()
        .map_err(|err| format!("unshare: {err}"))?;
    if ok.success() {
        Ok(())
    } else {
        Err("user namespaces are disabled here (sysctl kernel.unprivileged_userns_clone)".into())
    }
}

/// What the contained program checks, one `name=value` line each. `$1` is
/// the state folder, `$2` the config folder, `$3` the service's pid, `$4`
/// the API port.
const CHILD_SCRIPT: &str = r#"
state="$1"; config="$2"; serve_pid="$3"; api_port="$4"
echo "state_listing=[$(ls -A "$state" 2>&1 | tr '\n' ' ')]"
echo "config_listing=[$(ls -A "$config" 2>&1 | tr '\n' ' ')]"
for f in "$state"/service-*.json "$config/settings.json"; do
  if cat "$f" >/dev/null 2>&1; then echo "read_hidden=yes $f"; fi
done
# Through another process's root: the service's own view of the tree.
if cat /proc/"$serve_pid"/root"$state"/service-"$serve_pid".json >/dev/null 2>&1; then
  echo "read_via_proc_root=yes"
fi
if cat /proc/1/root"$state"/service-"$serve_pid".json >/dev/null 2>&1; then
  echo "read_via_proc1_root=yes"
fi
echo "ploy_env=[$(env | grep '^PLOY_' | cut -d= -f1 | tr '\n' ' ')]"
echo "openai_env=[$(env | grep -c '^OPENAI_API_KEY=')]"
echo "processes=[$(ls /proc | grep -c '^[0-9]')]"
umount "$state" 2>/dev/null && echo "umount=undone"
umount -l "$state" 2>/dev/null && echo "umount_lazy=undone"
# A mount namespace of its own (and, for a non-root user, a user namespace
# of its own): the copied mounts are locked.
unshare -m sh -c "umount '$state' 2>/dev/null && ls -A '$state'" 2>/dev/null | grep -q service && echo "nested_umount=undone"
unshare -rm sh -c "umount '$state' 2>/dev/null && ls -A '$state'" 2>/dev/null | grep -q service && echo "nested_userns_umount=undone"
unshare -rm sh -c "mkdir -p /tmp/ploy-peek-$$ && mount --bind / /tmp/ploy-peek-$$ 2>/dev/null && ls -A /tmp/ploy-peek-$$$state" 2>/dev/null | grep -q service && echo "bind_peek=undone"
rmdir /tmp/ploy-peek-$$ 2>/dev/null
# Renaming a folder above a hidden one would move the tmpfs with it and free
# the path for the program (outside tester #5/#5b): each is pinned.
for dir in "$state" "$config"; do
  parent=$(dirname "$dir")
  if mv "$parent" "$parent.moved" 2>/dev/null; then
    echo "rename_parent=undone $parent"
    mv "$parent.moved" "$parent"
  fi
done
# Descriptors inherited from the caller are closed (outside tester #9).
echo "open_fds=[$(ls /proc/self/fd | tr '\n' ' ')]"
if cat /proc/self/fd/7/service-"$serve_pid".json >/dev/null 2>&1; then echo "read_via_fd=yes"; fi
# The API without the password it cannot read: refused.
echo "api_status=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Host: 127.0.0.1:$api_port" http://127.0.0.1:"$api_port"/v1/exec-token)"
echo "ploy_status=$("$TEST_PLOY_BIN" status --json 2>&1 | tr -d '\n')"
# The gateway with the token it was given: works.
echo "gateway=$(curl -s -X POST -H "Authorization: Bearer $OPENAI_API_KEY" -H 'content-type: application/json' \
  -d '{"model":"m","messages":[{"role":"user","content":"contained-child-asks"}]}' "$OPENAI_BASE_URL/chat/completions")"
exit 7
"#;

// proves: SVC-1 (the exec child cannot read the service file or call the
// API, has no PLOY_* variable, cannot undo the hiding, cannot type into the
// user's terminal), GW-4 (it still reaches the gateway with its token)
#[test]
fn an_exec_child_cannot_reach_the_service_secrets_but_reaches_the_gateway() {
    for name in ["sh", "curl", "umount", "unshare", "mount", "script", "perl"] {
        ploy_testkit::require_part!(name, tool(name));
    }
    ploy_testkit::require_part!("user namespaces", user_namespaces());
    let dirs = TempDir::with_config_and_state("exec-contain");
    dirs.write_settings(
        r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"}, "permissions": {"web": {"allow": ["config-canary.example"]}}}"#,
    );
    let model = recording_upstream();
    let serve = start_serve(&dirs, &model.url());
    let serve_pid = serve.child.id();
    let service_file = dirs.state().join(format!("service-{serve_pid}.json"));
    let contents: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&service_file).unwrap()).unwrap();
    let password = contents["password"].as_str().unwrap().to_owned();
    let api_port = contents["api_port"].as_u64().unwrap();

    // Started the way a launcher with a leaked folder descriptor would:
    // fd 7 open on the state folder when `ploy exec` starts.
    let mut launcher = std::process::Command::new("sh");
    support::point_at(&mut launcher, dirs.path());
    let output = launcher
        .env("PLOY_TAVILY_KEYS", "tvly-contained-canary-0123456789")
        .env("PLOY_LOG", "warn")
        // The child runs `ploy status` by this name (PLOY_* is removed).
        .env("TEST_PLOY_BIN", support::PLOY)
        .args([
            "-c",
            r#"exec 7<"$2"; exec "$TEST_PLOY_BIN" exec -- sh -c "$1" child "$2" "$3" "$4" "$5""#,
            "launcher",
            CHILD_SCRIPT,
            dirs.state().to_str().unwrap(),
            dirs.config().to_str().unwrap(),
            &serve_pid.to_string(),
            &api_port.to_string(),
        ])
        .output()
        .unwrap();
    let stdout = support::stdout(&output);
    let stderr = support::stderr(&output);
    assert_eq!(output.status.code(), Some(7), "{stdout}\n{stderr}");
    let value = |name: &str| -> String {
        stdout
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name}= line in:\n{stdout}\n{stderr}"))
            .to_owned()
    };
    // The folders are empty in the child's view, whatever they hold.
    assert_eq!(value("state_listing"), "[]", "{stdout}");
    assert_eq!(value("config_listing"), "[]", "{stdout}");
    for undone in [
        "read_hidden",
        "read_via_proc_root",
        "read_via_proc1_root",
        "umount",
        "umount_lazy",
        "nested_umount",
        "nested_userns_umount",
        "bind_peek",
        "rename_parent",
        "read_via_fd",
    ] {
        assert!(
            !stdout.contains(&format!("{undone}=")),
            "{undone}: the hiding was undone:\n{stdout}"
        );
    }
    assert_eq!(value("ploy_env"), "[]", "no PLOY_* variable: {stdout}");
    // Only stdio and `ls`'s own listing descriptor.
    let fds = value("open_fds");
    assert!(!fds.contains(" 7 "), "fd 7 reached the program: {fds}");
    assert_eq!(value("openai_env"), "[1]");
    // Only its own processes: PID 1, the shell and what it runs.
    let processes: usize = value("processes").trim_matches(['[', ']']).parse().unwrap();
    assert!(processes < 10, "sees {processes} processes: {stdout}");
    assert_eq!(value("api_status"), "403", "{stdout}");
    assert!(
        value("ploy_status").contains(r#""running":false"#),
        "ploy inside finds no service: {stdout}"
    );
    assert!(
        value("gateway").contains("upstream-says-hello"),
        "the gateway answers the child: {stdout}\n{stderr}"
    );
    // What the upstream received came from the child, through the gateway.
    let bodies: Vec<String> = model.requests().into_iter().map(|r| r.body).collect();
    assert!(
        bodies.iter().any(|b| b.contains("contained-child-asks")),
        "{bodies:?}"
    );
    // No secret in anything the child printed.
    assert!(!stdout.contains(&password) && !stderr.contains(&password));
    assert!(!stdout.contains("tvly-contained-canary"));
    // The folders are still there for the service, unchanged.
    assert!(service_file.exists());

    // Typing into the user's terminal (TIOCSTI) would run a command in the
    // shell outside once the program ends: refused inside (found by
    // attacking the containment). Run on a real pseudo-terminal.
    let inject = r#"perl -e '$c="x"; print ioctl(STDIN, 0x5412, $c) ? "TIOCSTI-WORKS\n" : "TIOCSTI-DENIED\n"'"#;
    let on_pty = |line: &str| {
        let mut command = std::process::Command::new("script");
        support::point_at(&mut command, dirs.path());
        let out = command.args(["-qec", line, "/dev/null"]).output().unwrap();
        support::stdout(&out)
    };
    let outside = on_pty(inject);
    let inside = on_pty(&format!("{} exec -- {inject}", support::PLOY));
    assert!(
        inside.contains("TIOCSTI-DENIED"),
        "inside: {inside:?} (outside: {outside:?})"
    );
    assert!(!inside.contains("TIOCSTI-WORKS"), "{inside:?}");
    // Outside, the kernel allows it here unless dev.tty.legacy_tiocsti=0.
    assert!(outside.contains("TIOCSTI-"), "{outside:?}");
    drop(serve);
}

// proves: SVC-1 (containment fails closed: a working directory inside a
// hidden folder, or a program that cannot start, runs nothing)
#[test]
fn exec_refuses_to_start_inside_a_hidden_folder_and_reports_a_missing_program() {
    ploy_testkit::require_part!("user namespaces", user_namespaces());
    let dirs = TempDir::with_config_and_state("exec-refuse");
    let model = recording_upstream();
    let serve = start_serve(&dirs, &model.url());
    let marker = dirs.path().join("ran");
    let inside = support::ploy(dirs.path())
        .current_dir(dirs.state())
        .args(["exec", "--", "sh", "-c"])
        .arg(format!("touch {}", marker.display()))
        .output()
        .unwrap();
    assert_eq!(inside.status.code(), Some(127), "{inside:?}");
    let stderr = support::stderr(&inside);
    assert!(
        stderr.contains("SVC-1") && stderr.contains("working directory"),
        "{stderr}"
    );
    assert!(!marker.exists(), "the program ran");
    let missing = support::ploy(dirs.path())
        .args(["exec", "--", "/nonexistent/agent"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(127), "{missing:?}");
    assert!(support::stderr(&missing).contains("could not start"));
    drop(serve);
}

// proves: SVC-1 (outside tester #9b: standard input redirected from a
// folder, or from a file inside a hidden folder, is refused before anything
// runs; a descriptor opened outside would see past the hiding)
#[test]
fn exec_refuses_stdio_that_sees_past_the_hidden_folders() {
    ploy_testkit::require_part!("user namespaces", user_namespaces());
    let dirs = TempDir::with_config_and_state("exec-stdio");
    let model = recording_upstream();
    let serve = start_serve(&dirs, &model.url());
    let secret_file = dirs.write("state/service-1.json", "{\"password\": \"pw-canary-0123\"}");
    let marker = dirs.path().join("ran");
    for (label, source) in [
        ("folder", std::fs::File::open(dirs.path()).unwrap()),
        ("state folder", std::fs::File::open(dirs.state()).unwrap()),
        ("file inside", std::fs::File::open(&secret_file).unwrap()),
    ] {
        let output = support::ploy(dirs.path())
            .stdin(source)
            .args(["exec", "--", "sh", "-c"])
            .arg(format!("cat; touch {}", marker.display()))
            .output()
            .unwrap();
        let stderr = support::stderr(&output);
        assert_ne!(output.status.code(), Some(0), "{label}: {output:?}");
        assert!(
            stderr.contains("SVC-1") && stderr.contains("standard input"),
            "{label}: {stderr}"
        );
        assert!(!marker.exists(), "{label}: the program ran");
        assert!(!support::stdout(&output).contains("pw-canary"), "{label}");
    }
    drop(serve);
}

// proves: SVC-1 (a state folder left 0755 is tightened to 0700 at start, the
// store's ploy.db, -wal and -shm are 0600, the config folder made by a trust
// save is 0700)
#[test]
fn state_folder_and_store_files_are_owner_only() {
    let dirs = TempDir::new("disk-modes");
    std::fs::create_dir_all(dirs.state()).unwrap();
    std::fs::set_permissions(dirs.state(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let model = recording_upstream();
    let serve = start_serve(&dirs, &model.url());
    assert_eq!(mode(&dirs.state()), 0o700, "state folder tightened");
    let db = dirs.state().join("ploy.db");
    assert!(db.exists(), "{}", serve.out.lock().unwrap());
    for name in ["ploy.db", "ploy.db-wal", "ploy.db-shm"] {
        let path = dirs.state().join(name);
        if path.exists() {
            assert_eq!(mode(&path), 0o600, "{name}");
        } else {
            assert_ne!(name, "ploy.db", "the database exists");
        }
    }
    drop(serve);
    // A trust save creates the config folder owner-only.
    let project = dirs.path().join("project");
    std::fs::create_dir_all(project.join(".ploy")).unwrap();
    std::fs::write(project.join(".ploy/settings.json"), "{}").unwrap();
    let trust = support::ploy(dirs.path())
        .args(["trust", "allow", project.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(trust.status.success(), "{trust:?}");
    assert_eq!(mode(&dirs.config()), 0o700);
    // A config folder left 0750 is tightened at the next save.
    std::fs::set_permissions(dirs.config(), std::fs::Permissions::from_mode(0o750)).unwrap();
    let again = support::ploy(dirs.path())
        .args(["trust", "deny", project.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
    assert_eq!(mode(&dirs.config()), 0o700);
}
