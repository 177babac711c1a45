//! Shared setup for the `ploy` CLI integration tests: a temporary root that
//! holds PLOY_CONFIG_DIR (`config/`) and PLOY_STATE_DIR (`state/`), a
//! `Command` for the real binary pointed at it, and the output readers every
//! test file needs. Each test file includes it with `mod support;`, so a file
//! may leave some helpers unused.
#![allow(
    dead_code,
    clippy::disallowed_methods, // runs the ploy binary (the tests' door)
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::{
    fs,
    io::{BufRead, BufReader, Read, Write},
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    sync::atomic::{AtomicUsize, Ordering},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

/// The `ploy` binary Cargo built for these tests.
pub const PLOY: &str = env!("CARGO_BIN_EXE_ploy");

/// A settings file with the mandatory profile and nothing else.
pub const WORKSPACE_PROFILE: &str =
    r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"}}"#;

/// A fresh, canonical folder under the system temp dir, removed on drop (std
/// only: the CLI has no dev-dependencies).
pub struct TempDir(PathBuf);

impl TempDir {
    /// An empty folder named after `label`, unique per process and call.
    pub fn new(label: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "ploy-cli-{label}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        // A leftover from a killed run with a recycled pid must not leak in.
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        // Canonical, so paths the binary prints compare equal to ours.
        Self(path.canonicalize().unwrap())
    }

    /// Like [`TempDir::new`], with empty `config/` and `state/` folders.
    pub fn with_config_and_state(label: &str) -> Self {
        let dir = Self::new(label);
        fs::create_dir_all(dir.config()).unwrap();
        fs::create_dir_all(dir.state()).unwrap();
        dir
    }

    /// The folder itself.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `config/`, what PLOY_CONFIG_DIR points at.
    pub fn config(&self) -> PathBuf {
        self.0.join("config")
    }

    /// `state/`, what PLOY_STATE_DIR points at.
    pub fn state(&self) -> PathBuf {
        self.0.join("state")
    }

    /// Writes `text` to `relative` (parent folders created) and returns the path.
    pub fn write(&self, relative: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&path, text).unwrap();
        path
    }

    /// Writes an executable (mode 0755) script to `relative` and returns the path.
    pub fn write_executable(&self, relative: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.write(relative, text);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// Writes the user settings file, `config/settings.json`.
    pub fn write_settings(&self, text: impl AsRef<[u8]>) -> PathBuf {
        self.write("config/settings.json", text)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Points `command` at `root/config` and `root/state`, so nothing touches
/// the real home's ploy folders.
pub fn point_at<'a>(command: &'a mut Command, root: &Path) -> &'a mut Command {
    command
        .env("PLOY_CONFIG_DIR", root.join("config"))
        .env("PLOY_STATE_DIR", root.join("state"))
}

/// The `ploy` binary with its config and state folders under `root`.
pub fn ploy(root: &Path) -> Command {
    let mut command = Command::new(PLOY);
    point_at(&mut command, root);
    command
}

/// [`ploy`] with an empty environment apart from the two folders, so only
/// the variables a test sets are seen.
pub fn ploy_with_clean_env(root: &Path) -> Command {
    let mut command = Command::new(PLOY);
    // Cleared first: `env_clear` would also drop the folders set before it.
    command.env_clear();
    point_at(&mut command, root);
    command
}

/// [`ploy`] with HOME at `root` too and no stdin (a non-interactive run).
pub fn ploy_at_home(root: &Path) -> Command {
    let mut command = ploy(root);
    command.env("HOME", root).stdin(Stdio::null());
    command
}

/// Runs `command` to the end, capturing stdout and stderr.
pub fn run(command: &mut Command) -> Output {
    command.output().expect("run ploy")
}

/// Runs `command` fed `input` on stdin, capturing stdout and stderr; the input
/// is written from another thread so a large one streams while output is read.
pub fn run_with_input(command: &mut Command, input: &[u8]) -> Output {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("spawn ploy");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait");
    writer.join().unwrap();
    output
}

/// Bytes as text, invalid UTF-8 replaced.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The run's stdout as text, invalid UTF-8 replaced.
pub fn stdout(out: &Output) -> String {
    text(&out.stdout)
}

/// The run's stderr as text, invalid UTF-8 replaced.
pub fn stderr(out: &Output) -> String {
    text(&out.stderr)
}

/// The exit code; a run killed by a signal fails the test.
pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap()
}

/// The run's stdout parsed as JSON; anything else fails the test showing
/// both streams.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {} / {}", stdout(out), stderr(out)))
}

/// Collects a child's output, line by line, in the background.
pub fn collect(reader: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = text.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { return };
            let mut sink = sink.lock().unwrap();
            sink.push_str(&line);
            sink.push('\n');
        }
    });
    text
}

/// Every regular file under `dir`, at any depth (none when it is missing).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else if path.is_file() {
            files.push(path);
        }
    }
    files
}

/// `ploy serve ARGS` running in the background with `PLOY_LOG=trace` and
/// its config and state folders under the root, its output collected;
/// killed on drop.
pub struct Serve {
    pub child: Child,
    pub out: Arc<Mutex<String>>,
    pub err: Arc<Mutex<String>>,
}

impl Serve {
    /// Starts it with `env` added and waits for its `running` line.
    pub fn start(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Serve {
        let mut command = ploy(root);
        command
            .env("PLOY_LOG", "trace")
            .env_remove("PLOY_TAVILY_KEYS")
            .env_remove("PLOY_MODEL")
            .arg("serve")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let out = collect(child.stdout.take().unwrap());
        let err = collect(child.stderr.take().unwrap());
        let deadline = Instant::now() + Duration::from_secs(20);
        while !out.lock().unwrap().contains("running") {
            assert!(
                Instant::now() < deadline,
                "ploy serve did not start: {}",
                err.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(25));
        }
        Serve { child, out, err }
    }

    /// Stops it with SIGTERM; returns all it printed (stdout, then stderr).
    pub fn stop(mut self) -> String {
        Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        let _ = self.child.wait();
        std::thread::sleep(Duration::from_millis(100));
        format!("{}{}", self.out.lock().unwrap(), self.err.lock().unwrap())
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}
