//! The agent faces' test kit: a `ploy --mode rpc` client (sends commands,
//! each validated against its schema in docs/rpc.md; reads every line ploy
//! prints and validates it against the schema of its `type`, with timeouts
//! so a hang fails instead of blocking), and the world the rpc and
//! interactive tests share (a project, a marked conversation, the sandbox's
//! part, a process seen from outside).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::TempDir;

/// Every ```json block of docs/rpc.md with a `title`, compiled.
pub struct Schemas(HashMap<String, jsonschema::Validator>);

impl Schemas {
    pub fn load() -> Self {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rpc.md");
        let text = std::fs::read_to_string(path).unwrap();
        let mut map = HashMap::new();
        for block in text.split("```json\n").skip(1) {
            let body = block.split("\n```").next().unwrap();
            let schema: Value = serde_json::from_str(body)
                .unwrap_or_else(|e| panic!("a schema in docs/rpc.md does not parse: {e}"));
            let title = schema["title"].as_str().unwrap().to_string();
            map.insert(title, jsonschema::validator_for(&schema).unwrap());
        }
        Self(map)
    }

    pub fn titles(&self) -> Vec<String> {
        let mut t: Vec<String> = self.0.keys().cloned().collect();
        t.sort();
        t
    }

    /// Validate `value` against the schema named `title`.
    pub fn check(&self, title: &str, value: &Value) {
        let validator = self
            .0
            .get(title)
            .unwrap_or_else(|| panic!("docs/rpc.md has no schema titled `{title}` ({value})"));
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{title}: {value}: {errors:?}");
    }

    /// Validate one line ploy printed, by its `type` (and a response's
    /// state data).
    pub fn check_line(&self, value: &Value) {
        let kind = value["type"]
            .as_str()
            .unwrap_or_else(|| panic!("no type: {value}"));
        self.check(kind, value);
        if kind == "response"
            && value["success"] == true
            && ["get_state", "new_conversation", "resume"]
                .contains(&value["command"].as_str().unwrap())
        {
            self.check("state", &value["data"]);
        }
    }
}

/// A running `ploy --mode rpc`.
pub struct Rpc {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    pub seen: Vec<Value>,
    /// Every line as printed (before parsing).
    pub raw: Vec<String>,
    schemas: Schemas,
}

pub const WAIT: Duration = Duration::from_secs(60);

impl Rpc {
    pub fn start(mut command: Command) -> Self {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command.spawn().expect("spawn ploy --mode rpc");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
            raw: Vec::new(),
            schemas: Schemas::load(),
        }
    }

    pub fn schemas(&self) -> &Schemas {
        &self.schemas
    }

    /// Send a command (validated against its schema first).
    pub fn send(&mut self, command: Value) {
        self.schemas
            .check(command["type"].as_str().unwrap(), &command);
        self.send_raw(format!("{command}\n").as_bytes());
    }

    /// Send bytes as they are (framing tests, bad lines).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, validated; panics after [`WAIT`].
    pub fn next(&mut self) -> Value {
        match self.lines.recv_timeout(WAIT) {
            Ok(line) => {
                self.raw.push(line.clone());
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not one JSON object per line ({e}): {line}"));
                self.schemas.check_line(&value);
                self.seen.push(value.clone());
                value
            }
            Err(RecvTimeoutError::Timeout) => {
                panic!("no line from ploy within {WAIT:?}; seen: {:#?}", self.seen)
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("ploy closed stdout; seen: {:#?}", self.seen)
            }
        }
    }

    /// Lines until one of `type` (returned), all validated.
    pub fn until(&mut self, kind: &str) -> Value {
        loop {
            let value = self.next();
            if value["type"] == kind {
                return value;
            }
        }
    }

    /// The response to the command just sent (other lines are kept in `seen`).
    pub fn response(&mut self) -> Value {
        self.until("response")
    }

    /// Waits for the process to end (after stdin closed); its exit code.
    pub fn wait_exit(&mut self) -> i32 {
        let deadline = Instant::now() + WAIT;
        loop {
            // Drain and validate whatever is still printed.
            while let Ok(line) = self.lines.try_recv() {
                self.raw.push(line.clone());
                let value: Value = serde_json::from_str(&line).unwrap();
                self.schemas.check_line(&value);
                self.seen.push(value);
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(
                Instant::now() < deadline,
                "ploy did not exit after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Rpc {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A root with settings (the mandatory profile), an owner-only state folder
/// and a project with `src/lib.rs` = `pub fn f() {}`.
pub fn world(label: &str) -> TempDir {
    let dir = TempDir::with_config_and_state(label);
    std::fs::set_permissions(dir.state(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir.write_settings(crate::support::WORKSPACE_PROFILE);
    dir.write("proj/src/lib.rs", "pub fn f() {}\n");
    dir
}

/// The canonical project folder (the store's project key).
pub fn project(dir: &TempDir) -> String {
    dir.path().join("proj").to_string_lossy().into_owned()
}

/// `edit` arguments for `src/lib.rs`.
pub fn edit(old: &str, new: &str) -> Value {
    serde_json::json!({"path": "src/lib.rs", "old_string": old, "new_string": new})
}

/// The project's `src/lib.rs` now.
pub fn lib(dir: &TempDir) -> String {
    std::fs::read_to_string(dir.path().join("proj/src/lib.rs")).unwrap()
}

/// `ploy approvals list --json`'s approvals for the project.
pub fn approvals(dir: &TempDir) -> Vec<Value> {
    let mut command = crate::support::ploy_at_home(dir.path());
    command
        .current_dir(dir.path().join("proj"))
        .args(["approvals", "list", "--json"]);
    let out = crate::support::run(&mut command);
    assert_eq!(
        crate::support::code(&out),
        0,
        "{}",
        crate::support::stderr(&out)
    );
    let listed: Value = serde_json::from_str(&crate::support::stdout(&out)).unwrap();
    listed["approvals"].as_array().unwrap().clone()
}

/// The project holds exactly one saved approval: an `always` for
/// `src/lib.rs` only (what answering `always` to its edit saves).
pub fn saved_one_narrow_always(dir: &TempDir) {
    let saved = approvals(dir);
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(saved[0]["scope"], "always");
    let description = saved[0]["description"].as_str().unwrap();
    assert!(description.contains("src/lib.rs"), "{description}");
}

/// A conversation of the project marked (in the real store) as having read `url`.
pub fn marked_conversation(dir: &TempDir, url: &str) -> String {
    let mut store = ploy_store::Store::open(dir.state().join("ploy.db")).unwrap();
    let conversation = store
        .create_conversation_in("read a page", Some(&project(dir)))
        .unwrap();
    store
        .mark_tainted(
            &conversation.id,
            &ploy_policy::TaintMark {
                reason: format!("web_fetch read {url}"),
                source: ploy_policy::TaintSource::Url(url.into()),
            },
        )
        .unwrap();
    conversation.id
}

/// The sandbox needs unprivileged user namespaces.
pub fn user_namespaces() -> Result<(), String> {
    let ok = Command::new("unshare")
        .args(["-Urm", "true"])
        .status()
        .map_err(|err| format!("unshare: {err}"))?;
    if ok.success() {
        Ok(())
    } else {
        Err("user namespaces are disabled here (sysctl kernel.unprivileged_userns_clone)".into())
    }
}

/// The Ctrl-C / abort world: a model that orders one `shell` of `sleep
/// SECONDS` (a length no other test process uses: `base` plus this
/// process's id, and `fraction`) and then says `after`. Returns the world,
/// SECONDS (for [`sleeping`]) and the model.
pub fn long_sleep(
    label: &str,
    base: u32,
    fraction: &str,
    after: &str,
) -> (TempDir, String, ploy_scripted_model::ScriptedModel) {
    let dir = world(label);
    let seconds = format!("{}.{fraction}", base + std::process::id() % 1000);
    let model = ploy_scripted_model::serve_in_thread(
        ploy_scripted_model::Script::new()
            .call(
                "shell",
                serde_json::json!({"command": format!("sleep {seconds}")}),
            )
            .text(after),
    )
    .unwrap();
    (dir, seconds, model)
}

/// True while a process whose argv is exactly `sleep SECONDS` exists, seen
/// from the host (whatever namespace it runs in).
pub fn sleeping(seconds: &str) -> bool {
    let want = format!("sleep\0{seconds}\0").into_bytes();
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        entry.file_name().to_string_lossy().parse::<u32>().is_ok()
            && std::fs::read(entry.path().join("cmdline")).is_ok_and(|c| c == want)
    })
}

/// Polls `done` for up to 30 s.
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Text a hostile model or page writes to take over a terminal (tui-rpc
/// #2, #4): a window title (OSC 0), clear screen (CSI), a hyperlink (OSC 8),
/// the clipboard (OSC 52), a C1 CSI (U+009B), BEL, DEL, CR, NEL, bidi
/// overrides and isolates, U+061C, zero-width characters, a BOM, a soft
/// hyphen, U+2028, a Hangul filler, a tag character.
pub const HOSTILE: &str = "\u{1b}]0;TITLE\u{7}\u{1b}[2J\u{1b}]8;;http://evil.test/\u{1b}\\link\u{1b}]8;;\u{1b}\\\u{1b}]52;c;ZXZpbA==\u{7}\u{9b}31m\u{7f}\r\u{85}\u{202e}\u{2066}\u{61c}\u{200b}\u{2060}\u{feff}\u{ad}\u{2028}\u{3164}\u{e0041}end";

/// The characters of `text` a terminal would act on or not show: controls
/// other than newline and tab, and every non-printing character of
/// [`HOSTILE`]. Empty when `text` is safe to print.
pub fn raw_chars(text: &str) -> Vec<String> {
    let hostile: Vec<char> = HOSTILE
        .chars()
        .filter(|c| !c.is_ascii_graphic() && *c != ' ')
        .collect();
    text.chars()
        .filter(|c| (c.is_control() && !matches!(c, '\n' | '\t')) || hostile.contains(c))
        .map(|c| format!("U+{:04X}", u32::from(c)))
        .collect()
}
