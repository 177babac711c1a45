//! The interactive terminal (`ploy` alone) in a real pseudo-terminal
//! (rexpect) against the scripted model: the approval prompt (diff, options,
//! no `always` after web content with the reason naming the page, a
//! rejection's message reaching the model, a saved narrow `always`), Ctrl-C
//! during a long sandboxed `shell` (the process is killed, seen from
//! outside, and the session goes on), NO_COLOR and a non-terminal stdout,
//! and the mark agreeing in every face.
#![allow(clippy::disallowed_methods)] // runs the ploy binary in a pty, sh and unshare
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_world;
mod rpc_kit;
mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

use agent_world::World;
use agent_world::live_taint::{
    WEB_ALLOW, guide_site, lib_with, live_world, make_it_43, mark_label, read_the_guide,
    why_no_always,
};
use ploy_scripted_model::{Script, ScriptedModel, serve_in_thread};
use rexpect::reader::Options;
use rexpect::session::{PtySession, spawn_with_options};
use rpc_kit::{
    HOSTILE, approvals, edit, lib, long_sleep, marked_conversation, raw_chars,
    saved_one_narrow_always, sleeping, user_namespaces, wait_until, world,
};
use serde_json::{Value, json};
use support::{PLOY, TempDir, code, ploy_at_home, run, stderr, stdout};

const TIMEOUT_MS: u64 = 60_000;

/// `command` as a terminal runs it: TERM set, colours allowed, and stdio
/// left to the pseudo-terminal (a `Stdio::null()` set before would win
/// over the pty at exec).
fn in_terminal(mut command: Command) -> Command {
    command
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    command
}

/// `ploy` in a pseudo-terminal with the test's folders, HOME and model.
fn command(dir: &TempDir, model: &ScriptedModel, extra: &[&str]) -> Command {
    let mut command = Command::new(PLOY);
    support::point_at(&mut command, dir.path());
    command
        .env("HOME", dir.path())
        .current_dir(dir.path().join("proj"))
        .args(["--upstream", &model.url()])
        .args(extra);
    in_terminal(command)
}

fn pty(command: Command, strip: bool) -> PtySession {
    spawn_with_options(
        command,
        Options::new()
            .timeout_ms(Some(TIMEOUT_MS))
            .strip_ansi_escape_codes(strip),
    )
    .expect("spawn ploy in a pty")
}

/// rexpect reads the terminal byte by byte, one `char` per byte: a UTF-8
/// needle is matched in that form, and what was read is decoded back.
fn as_read(text: &str) -> String {
    text.bytes().map(char::from).collect()
}

fn decoded(read: &str) -> String {
    String::from_utf8_lossy(&read.chars().map(|c| c as u8).collect::<Vec<u8>>()).into_owned()
}

/// Waits for `needle`; returns what came before it (decoded).
fn exp(p: &mut PtySession, needle: &str) -> Result<String, rexpect::error::Error> {
    p.exp_string(&as_read(needle))
        .map(|before| decoded(&before))
}

/// Ctrl-D until ploy leaves (a Ctrl-D typed while a turn still prints may
/// reach the terminal before the editor reads); it must exit 0.
fn leave(mut p: PtySession) {
    for _ in 0..40 {
        p.send_control('d').unwrap();
        std::thread::sleep(Duration::from_millis(250));
        match p.process().status() {
            Some(status) if format!("{status:?}").starts_with("StillAlive") => {}
            Some(status) => {
                let text = format!("{status:?}");
                assert!(
                    text.starts_with("Exited(") && text.ends_with(", 0)"),
                    "{text}"
                );
                return;
            }
            None => return,
        }
    }
    panic!("ploy did not leave on Ctrl-D");
}

// proves: PERM-4 (before any web content the edit offers `always`; the
// answer saves one narrow approval that `ploy approvals list` shows)
#[test]
fn a_clean_edit_shows_the_diff_offers_always_and_saves_a_narrow_approval() {
    let dir = world("tui-always");
    let model = serve_in_thread(
        Script::new()
            .call("edit", edit("f()", "g()"))
            .text("Renamed f to g. \u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[8mhidden"),
    )
    .unwrap();
    let mut p = pty(command(&dir, &model, &[]), true);
    exp(
        &mut p,
        "clean · sandbox=workspace-write approval=ask · new conversation",
    )
    .unwrap();
    p.send_line("rename f to g").unwrap();
    let asked = exp(&mut p, "answer: [o]nce / [a]lways / [r]eject [message]").unwrap();
    // The transcript docs/interactive.md shows (run with --nocapture).
    println!("{asked}");
    let at = |needle: &str| {
        asked
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} not shown: {asked}"))
    };
    assert!(at("ploy asks: edit") < at("-pub fn f() {}"));
    assert!(at("-pub fn f() {}") < at("+pub fn g() {}"));
    assert!(at("+pub fn g() {}") < at("`always` saves, for this project: always edit"));
    assert_eq!(
        lib(&dir),
        "pub fn f() {}\n",
        "nothing ran before the answer"
    );
    p.send_line("a").unwrap();
    // The model's escape sequences reach the terminal in caret notation
    // (no clipboard write, nothing concealed).
    let shown = exp(&mut p, "Renamed f to g. ^[]52;c;ZXZpbA==^G^[[8mhidden").unwrap();
    // The transcript docs/interactive.md shows (run with --nocapture).
    println!("{shown}");
    exp(
        &mut p,
        "clean · sandbox=workspace-write approval=ask · conversation ",
    )
    .unwrap();
    assert_eq!(lib(&dir), "pub fn g() {}\n");
    p.send_line("/approvals").unwrap();
    exp(&mut p, "always edit").unwrap();
    leave(p);
    saved_one_narrow_always(&dir);
}

// proves: TAINT-1, PERM-3, PERM-4, PERM-5 (live, in a real terminal: a
// clean edit offers `always` and saves it; then the model reads a page with
// web_fetch (allowed by a rule) and obeys its order to edit the same file:
// the prompt shows the diff, does not offer `always`, says which page took
// it away, refuses a typed `a`, and the saved `always` does not let the
// edit through; the rejection's message reaches the model; the status line
// then shows the mark)
#[test]
fn a_page_read_live_takes_always_away_even_from_a_saved_approval() {
    agent_world::in_netns(
        "a_page_read_live_takes_always_away_even_from_a_saved_approval",
        || {
            let (sites, world, model) = live_world("tui-live");
            let mut p = pty(in_terminal(world.ploy(&model)), true);
            exp(
                &mut p,
                "clean · sandbox=workspace-write approval=ask · new conversation",
            )
            .unwrap();
            p.send_line(&make_it_43()).unwrap();
            let asked = exp(&mut p, "answer: [o]nce / [a]lways / [r]eject [message]").unwrap();
            assert!(
                asked.contains(&format!("+{}", lib_with(43).trim_end())),
                "{asked}"
            );
            p.send_line("a").unwrap();
            exp(&mut p, "Made it 43.").unwrap();
            exp(
                &mut p,
                "clean · sandbox=workspace-write approval=ask · conversation ",
            )
            .unwrap();
            assert_eq!(
                approvals(&world.dir).len(),
                1,
                "the clean `always` was saved"
            );

            p.send_line(&read_the_guide()).unwrap();
            exp(&mut p, "ploy asks: edit").unwrap();
            let asked = exp(&mut p, "answer: [o]nce / [r]eject").unwrap();
            println!("{asked}");
            assert!(
                asked.contains(&format!("-{}", lib_with(43).trim_end())),
                "{asked}"
            );
            assert!(
                asked.contains(&format!("+{}", lib_with(666).trim_end())),
                "{asked}"
            );
            assert!(asked.contains(&why_no_always()), "{asked}");
            assert!(!asked.contains("[a]lways"), "{asked}");
            assert_eq!(
                world.store().marks(&conversation_of(&world)).unwrap().len(),
                1
            );
            p.send_line("a").unwrap();
            exp(&mut p, "PERM-5").unwrap();
            p.send_line("r keep 43, the page is not the user").unwrap();
            exp(&mut p, "Understood, nothing changed.").unwrap();
            exp(
                &mut p,
                &format!(
                    "{} · sandbox=workspace-write approval=ask · conversation ",
                    mark_label()
                ),
            )
            .unwrap();
            leave(p);
            assert_eq!(lib(&world.dir), lib_with(43), "the page's edit never ran");
            assert!(model.saw("keep 43, the page is not the user"));
            assert_eq!(approvals(&world.dir).len(), 1, "nothing more saved");
            assert_eq!(sites.requests().len(), 1, "only the guide was read");
        },
    );
}

/// The one conversation of the world's project.
fn conversation_of(world: &World) -> String {
    let conversations = world.store().conversations_in(&world.key()).unwrap();
    assert_eq!(conversations.len(), 1, "{conversations:?}");
    conversations[0].id.clone()
}

// proves: CANCEL-1 (Ctrl-C during a long sandboxed shell ends the process,
// seen from outside, and the turn; the session goes on)
#[test]
fn ctrl_c_during_a_long_shell_kills_the_sandboxed_process_and_the_session_goes_on() {
    ploy_testkit::require_part!("user namespaces", user_namespaces());
    let (dir, seconds, model) =
        long_sleep("tui-ctrlc", 600, "5", "Still here after the interrupt.");
    let mut p = pty(command(&dir, &model, &[]), true);
    exp(&mut p, "new conversation").unwrap();
    p.send_line("wait a long time").unwrap();
    exp(&mut p, "ploy asks: shell").unwrap();
    exp(&mut p, "answer:").unwrap();
    p.send_line("o").unwrap();
    wait_until("the sandboxed sleep", || sleeping(&seconds));
    p.send_control('c').unwrap();
    if let Err(err) = exp(&mut p, "interrupted; the session goes on") {
        panic!("{err}; ploy: {:?}", p.process().status());
    }
    wait_until("the sandboxed sleep to end", || !sleeping(&seconds));
    p.send_line("are you there?").unwrap();
    exp(&mut p, "Still here after the interrupt.").unwrap();
    leave(p);
}

/// The answer text printed through a terminal with NO_COLOR, and through a
/// file as stdout.
// proves: issue 17 (NO_COLOR respected; no spinner or escape code when stdout is not a terminal), PERM-3 (tui-rpc #2: model text in the file is escaped)
#[test]
fn no_color_has_no_colour_and_a_file_stdout_has_no_spinner_or_escapes() {
    let dir = world("tui-nocolor");
    let model = serve_in_thread(
        Script::new()
            .call("read", json!({"path": "src/lib.rs"}))
            .text("It defines f.")
            .call("read", json!({"path": "src/lib.rs"}))
            .text(format!("Still f. {HOSTILE}")),
    )
    .unwrap();
    // NO_COLOR on a terminal: no SGR colour sequence at all.
    let mut with_tty = command(&dir, &model, &[]);
    with_tty.env("NO_COLOR", "1");
    let mut p = pty(with_tty, false);
    exp(&mut p, "new conversation").unwrap();
    p.send_line("what is in lib.rs?").unwrap();
    let seen = exp(&mut p, "It defines f.").unwrap();
    leave(p);
    let sgr = regex_lite_sgr(&seen);
    assert!(sgr.is_empty(), "colour sequences with NO_COLOR: {sgr:?}");

    // stdout a file, stdin the terminal: no spinner, no escape at all.
    let out_file = dir.path().join("out.txt");
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!("exec \"$0\" \"$@\" > '{}'", out_file.display()))
        .arg(PLOY)
        .args(["--upstream", &model.url()]);
    support::point_at(&mut sh, dir.path());
    sh.env("HOME", dir.path())
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .current_dir(dir.path().join("proj"));
    let mut p = pty(sh, true);
    wait_until("the status line in the file", || {
        std::fs::read_to_string(&out_file).is_ok_and(|t| t.contains("new conversation"))
    });
    p.send_line("and now?").unwrap();
    wait_until("the answer in the file", || {
        std::fs::read_to_string(&out_file).is_ok_and(|t| t.contains("Still f."))
    });
    leave(p);
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(!text.contains('\x1b'), "escape sequences: {text:?}");
    assert!(!text.contains("thinking"), "a spinner: {text:?}");
    // tui-rpc #2/#4: the model's escapes and invisible characters are in
    // the file as visible text, never raw (`cat out.txt` replays nothing).
    let raw = raw_chars(&text);
    assert!(raw.is_empty(), "raw in the file: {raw:?}: {text:?}");
    assert!(text.contains("Still f. ^[]0;TITLE^G"), "{text:?}");
}

/// `ESC [ digits ; … m` sequences (colours and styles) in `text`.
fn regex_lite_sgr(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 0x1b && bytes[i + 1] == b'[' {
            let mut j = i + 2;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b';') {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'm' {
                found.push(text[i..=j].escape_debug().to_string());
            }
            i = j;
        } else {
            i += 1;
        }
    }
    found
}

// proves: TAINT-2, TRUST-7 (the mark agrees in every face: the json
// `session` event, rpc `get_state`, the interactive status line, `ploy
// conversations`)
#[test]
fn the_mark_agrees_in_every_face() {
    let dir = world("tui-faces");
    let url = "http://pages.test/faces";
    let id = marked_conversation(&dir, url);
    let label = format!("⚠ tainted: read {url}");
    let model =
        serve_in_thread(Script::new().repeat(ploy_scripted_model::Turn::text("ok"))).unwrap();

    // --mode json: the session event.
    let mut json_run = ploy_at_home(dir.path());
    json_run
        .current_dir(dir.path().join("proj"))
        .args(["-p", "hi", "--mode", "json", "--conversation", &id])
        .args(["--upstream", &model.url()]);
    let out = run(&mut json_run);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let session: Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(
        (session["type"].as_str(), session["tainted"].as_bool()),
        (Some("session"), Some(true))
    );

    // --mode rpc: get_state.
    let mut rpc_cmd = ploy_at_home(dir.path());
    rpc_cmd.current_dir(dir.path().join("proj")).args([
        "--mode",
        "rpc",
        "--conversation",
        &id,
        "--upstream",
        &model.url(),
    ]);
    let mut rpc = rpc_kit::Rpc::start(rpc_cmd);
    rpc.send(json!({"type": "get_state"}));
    let state = rpc.response();
    assert_eq!(state["data"]["tainted"], true);
    assert_eq!(state["data"]["mark"], label.as_str());
    rpc.close_stdin();
    assert_eq!(rpc.wait_exit(), 0);

    // `ploy conversations`: text and JSON.
    let mut list = ploy_at_home(dir.path());
    list.current_dir(dir.path().join("proj"))
        .args(["conversations"]);
    let text = stdout(&run(&mut list));
    assert!(
        text.contains(&format!("{id}  read a page  {label}")),
        "{text}"
    );
    let mut list = ploy_at_home(dir.path());
    list.current_dir(dir.path().join("proj"))
        .args(["conversations", "--json"]);
    let listed: Value = serde_json::from_str(&stdout(&run(&mut list))).unwrap();
    let row = &listed["conversations"][0];
    assert_eq!(
        (row["id"].as_str(), row["tainted"].as_bool()),
        (Some(id.as_str()), Some(true))
    );

    // The interactive status line, before and after a prompt, and /conversations.
    let mut p = pty(command(&dir, &model, &["--conversation", &id]), true);
    exp(
        &mut p,
        &format!("{label} · sandbox=workspace-write approval=ask · conversation {id}"),
    )
    .unwrap();
    p.send_line("/conversations").unwrap();
    exp(&mut p, &format!("{id}  read a page  {label}")).unwrap();
    p.send_line("/new").unwrap();
    exp(
        &mut p,
        "clean · sandbox=workspace-write approval=ask · new conversation",
    )
    .unwrap();
    leave(p);
}

// proves: TRUST-7 (interactive: no terminal, no interactive mode)
#[test]
fn without_a_terminal_the_interactive_mode_says_what_to_run() {
    let dir = world("tui-notty");
    let mut command = ploy_at_home(dir.path());
    command.current_dir(dir.path().join("proj"));
    let out = run(&mut command);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("needs a terminal"),
        "{}",
        stderr(&out)
    );
}

/// A tmux server of the test's own (its socket a file in the test's folder,
/// no user configuration), running one command in a window of a fixed
/// size. Killed when dropped.
struct Tmux {
    socket: std::path::PathBuf,
}

/// `text` as one shell word.
fn sh_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl Tmux {
    /// Runs `command` (its program, arguments, environment changes and
    /// folder, written into a script) in a detached 120×40 window.
    fn start(command: &Command, dir: &std::path::Path) -> Self {
        let mut script = String::from("#!/bin/sh\n");
        if let Some(folder) = command.get_current_dir() {
            script.push_str(&format!(
                "cd {} || exit 97\n",
                sh_word(&folder.to_string_lossy())
            ));
        }
        for (key, value) in command.get_envs() {
            let key = key.to_string_lossy();
            match value {
                Some(value) => script.push_str(&format!(
                    "export {key}={}\n",
                    sh_word(&value.to_string_lossy())
                )),
                None => script.push_str(&format!("unset {key}\n")),
            }
        }
        script.push_str("unset NO_COLOR\nexec");
        script.push_str(&format!(
            " {}",
            sh_word(&command.get_program().to_string_lossy())
        ));
        for arg in command.get_args() {
            script.push_str(&format!(" {}", sh_word(&arg.to_string_lossy())));
        }
        script.push('\n');
        let path = dir.join("run-in-tmux.sh");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .unwrap();
        let tmux = Self {
            socket: dir.join("tmux.sock"),
        };
        let started = tmux
            .run(&["new-session", "-d", "-x", "120", "-y", "40"])
            .arg(&path)
            .status()
            .unwrap();
        assert!(started.success(), "tmux new-session");
        tmux
    }

    fn run(&self, args: &[&str]) -> Command {
        let mut command = Command::new("tmux");
        command
            .arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null"])
            .args(args)
            .stdin(Stdio::null());
        command
    }

    /// Types `text` and Enter.
    fn type_line(&self, text: &str) {
        assert!(
            self.run(&["send-keys", "-l", text])
                .status()
                .unwrap()
                .success()
        );
        assert!(
            self.run(&["send-keys", "Enter"])
                .status()
                .unwrap()
                .success()
        );
    }

    /// The window as rendered now (text only, trailing blanks cut).
    fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p"]).output().unwrap();
        assert!(out.status.success(), "tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).trim_end().to_string()
    }

    /// The screen once it shows `needle` (60 s at most).
    fn wait_for(&self, needle: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the screen never showed {needle:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]).output();
    }
}

fn tmux_installed() -> Result<(), String> {
    match Command::new("tmux").arg("-V").output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err("tmux is not installed (Debian: apt-get install -y tmux)".into()),
    }
}

// proves: PERM-3, PERM-5, TAINT-1 (the rendered terminal, as a person sees
// it in tmux: after a live page read, the approval prompt shows the diff
// and the line naming the page, offers no `always`; after the answer the
// status line shows the mark). The inner run prints both screens (the
// session docs/interactive.md shows; the outer test shows them on failure).
#[test]
fn the_terminal_screen_shows_the_mark_the_diff_and_no_always() {
    agent_world::in_netns(
        "the_terminal_screen_shows_the_mark_the_diff_and_no_always",
        || {
            ploy_testkit::require_part!("tmux", tmux_installed());
            let _sites = guide_site();
            let world = World::new("tui-tmux", WEB_ALLOW);
            world.dir.write("proj/src/lib.rs", lib_with(43));
            let model = agent_world::model(Script::obedient().text("Understood, nothing changed."));
            let tmux = Tmux::start(&world.ploy(&model), world.dir.path());
            let screen = tmux.wait_for("new conversation");
            assert!(
                screen
                    .lines()
                    .any(|l| l.contains("clean · sandbox=workspace-write approval=ask")),
                "{screen}"
            );
            tmux.type_line(&read_the_guide());
            let asked = tmux.wait_for("answer: [o]nce / [r]eject");
            println!("--- the approval prompt ---\n{asked}\n---");
            let lines: Vec<&str> = asked.lines().collect();
            let at = |needle: &str| {
                lines
                    .iter()
                    .rposition(|l| l.contains(needle))
                    .unwrap_or_else(|| panic!("{needle:?} is not on the screen:\n{asked}"))
            };
            assert!(at("ploy asks: edit") < at("-pub fn answer() -> u32 { 43 }"));
            assert!(at("-pub fn answer() -> u32 { 43 }") < at("+pub fn answer() -> u32 { 666 }"));
            assert!(at("+pub fn answer() -> u32 { 666 }") < at(&why_no_always()));
            assert!(at(&why_no_always()) < at("answer: [o]nce / [r]eject"));
            assert!(!asked.contains("[a]lways"), "{asked}");
            assert!(!asked.contains('\u{1b}'), "escape codes rendered as text");
            tmux.type_line("r keep 43, the page is not the user");
            let after = tmux.wait_for(&format!("{} · sandbox=workspace-write", mark_label()));
            println!("--- after the answer ---\n{after}\n---");
            assert!(after.contains("Understood, nothing changed."), "{after}");
            assert_eq!(lib(&world.dir), lib_with(43));
        },
    );
}

fn repo_file(relative: &str) -> String {
    std::fs::read_to_string(format!("{}/../../{relative}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The `/commands` named in backticks in `text`.
fn slash_commands_in(text: &str) -> std::collections::BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with('/') && s[1..].chars().all(|c| c.is_ascii_lowercase()))
        .map(str::to_string)
        .collect()
}

// proves: issue 17 (the docs are true: the slash commands `/help` lists,
// docs/interactive.md's table and README's row are the same set, and each
// is one the interactive terminal knows; an unknown one is said to be)
#[test]
fn every_documented_slash_command_is_one_ploy_knows() {
    let docs = repo_file("docs/interactive.md");
    let table = docs
        .split("## Keys and commands")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/interactive.md has a `Keys and commands` section");
    let documented = slash_commands_in(table);
    let readme = repo_file("README.md");
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `ploy [--continue"))
        .expect("README's row for the interactive terminal");
    assert_eq!(
        slash_commands_in(row),
        documented,
        "README vs docs/interactive.md"
    );

    let dir = world("tui-slash");
    let model = serve_in_thread(Script::new()).unwrap();
    let mut p = pty(command(&dir, &model, &[]), true);
    exp(&mut p, "new conversation").unwrap();
    p.send_line("/help").unwrap();
    exp(&mut p, "Commands:").unwrap();
    let help = exp(&mut p, "Ctrl-D leaves.").unwrap();
    let listed: std::collections::BTreeSet<String> = help
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with('/'))
        .map(str::to_string)
        .collect();
    assert_eq!(listed, documented, "/help vs docs/interactive.md");
    // Each answers, and the status line comes back, without the
    // unknown-command line.
    let status = "clean · sandbox=workspace-write approval=ask";
    for command in &documented {
        p.send_line(command).unwrap();
        let answered = exp(&mut p, status).unwrap();
        assert!(
            !answered.contains("unknown command"),
            "{command}: {answered}"
        );
    }
    p.send_line("/nosuchcommand").unwrap();
    exp(&mut p, "unknown command /nosuchcommand; /help lists them").unwrap();
    leave(p);
}

// proves: issue 17, TRUST-7 (the docs are true: every agent flag `ploy
// --help` lists appears in README's rows for `ploy -p`, `ploy` and `ploy
// --mode rpc`, and every `--mode` value has its row)
#[test]
fn every_agent_flag_is_in_the_readme() {
    let out = run(Command::new(PLOY).arg("--help"));
    assert_eq!(code(&out), 0);
    let help = stdout(&out);
    let options = help.split("Options:").nth(1).unwrap();
    let readme = repo_file("README.md");
    let rows: String = readme
        .lines()
        .filter(|l| {
            l.starts_with("| `ploy -p ")
                || l.starts_with("| `ploy [--continue")
                || l.starts_with("| `ploy --mode rpc ")
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(rows.lines().count(), 3, "README's three agent rows");
    let mut flags = 0;
    for line in options.lines() {
        let line = line.trim();
        // Option lines; not the `- value:` lines of `--mode`.
        if !line.starts_with('-') || line.starts_with("- ") {
            continue;
        }
        let spec = line.split_whitespace().collect::<Vec<_>>();
        let long = spec
            .iter()
            .find(|w| w.starts_with("--"))
            .map(|w| w.trim_end_matches(','));
        let short = spec
            .iter()
            .find(|w| !w.starts_with("--"))
            .map(|w| w.trim_end_matches(','));
        if matches!(long, Some("--help" | "--version")) {
            continue;
        }
        flags += 1;
        let long = long.unwrap();
        // `-na` is `--no-approve`'s documented short form (TRUST-7).
        let forms = [
            Some(long.to_string()),
            short.map(str::to_string),
            (long == "--no-approve").then(|| "-na".to_string()),
        ];
        assert!(
            forms.iter().flatten().any(|f| rows.contains(f.as_str())),
            "{long} is not in README's agent rows"
        );
    }
    assert!(flags >= 9, "{options}");
    for mode in ["text", "json", "rpc"] {
        assert!(
            options.contains(&format!("- {mode}:")),
            "--mode {mode} in --help"
        );
        assert!(rows.contains(mode), "--mode {mode} in README");
    }
}
