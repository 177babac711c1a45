//! `hook.sandbox_bash` quoting: whatever command string Claude Code sends,
//! the rewritten line hands `bash -c` exactly that string. Proven through a
//! real shell: the "ploy" in the line is a script that prints its arguments,
//! and the test compares the last one with the original.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods // the test runs bash itself (the tests' door)
)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use ploy_hook::quote::sandboxed_command;
use proptest::prelude::*;

/// A folder with an argument printer standing in for `ploy`, under a name
/// with a space and a quote in it (the path is quoted too).
fn printer() -> (PathBuf, PathBuf) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("ploy hook 'quote {}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("print args");
    std::fs::write(
        &script,
        "#!/bin/sh\nfor a; do printf '%s\\0' \"$a\"; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (dir, script)
}

fn args_seen(line: &str) -> Vec<String> {
    // 126: another test thread's fork still held the fresh script open for
    // writing (ETXTBSY, a known race); try again.
    let mut out = Command::new("bash").arg("-c").arg(line).output().unwrap();
    for _ in 0..50 {
        if out.status.code() != Some(126) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        out = Command::new("bash").arg("-c").arg(line).output().unwrap();
    }
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .split(|b| *b == 0)
        .filter(|part| !part.is_empty())
        .map(|part| String::from_utf8(part.to_vec()).unwrap())
        .collect()
}

fn check(script: &Path, project: &Path, command: &str) {
    let line = sandboxed_command(script, project, command).unwrap();
    let seen = args_seen(&line);
    let want: Vec<String> = [
        "sandbox",
        "run",
        "--project",
        project.to_str().unwrap(),
        "--",
        "bash",
        "-c",
    ]
    .into_iter()
    .map(str::to_owned)
    .chain((!command.is_empty()).then(|| command.to_owned()))
    .collect();
    assert_eq!(seen, want, "line: {line}");
}

// proves: SBX-1 (sandbox_bash hands the sandbox exactly the command Claude Code wrote)
#[test]
fn hard_commands_round_trip_through_a_real_shell() {
    let (dir, script) = printer();
    let project = dir.join("my 'project' $HOME");
    for command in [
        "cargo test",
        "echo 'it''s' \"$HOME\" `id` $(whoami) ; rm -rf / #",
        "a'b'c''' \\' \\\\'",
        "printf '%s\\n' \"a\nb\"\n\necho done",
        "!! !$ ${x:-y} ~ * ? [a] {a,b}",
        "\t tab \u{7f} ünïcödé ✓ 🚀",
        "'",
        "''",
        "\\",
    ] {
        check(&script, &project, command);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// proves: SBX-5 (a command that cannot be passed unchanged is refused, not altered)
#[test]
fn a_nul_byte_is_refused() {
    let err = sandboxed_command(Path::new("/bin/ploy"), Path::new("/p"), "echo a\0b").unwrap_err();
    assert_eq!(err.requirement, "SBX-5");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    // proves: SBX-1 (any command string round-trips)
    #[test]
    fn any_command_round_trips(command in "[^\u{0}]{1,80}") {
        let (dir, script) = printer();
        check(&script, &dir, &command);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
