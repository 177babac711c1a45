//! Doors, not habits: a source scan proving there is exactly one crate that
//! starts processes (`ploy-proof`). The network door (`ploy-egress`) has its own
//! scan in `crates/egress/tests/one_door.rs`; clippy's `disallowed-methods`
//! (clippy.toml) is the compile-time half of both rules.

#![allow(clippy::expect_used)]

use std::path::{Path, PathBuf};

/// Spellings that start a process or replace the current one.
const PROCESS_SPAWN: &[&str] = &[
    "process::Command",
    "Command::new(",
    "tokio::process",
    "libc::fork",
    "libc::execv",
    "libc::execve",
    "libc::posix_spawn",
    "nix::unistd::fork",
    "nix::unistd::execv",
    "unistd::execve",
    "duct::",
    "subprocess::",
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .expect("crates/cli sits two levels below the workspace root")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `src/` folder of every crate except the one allowed to hold the door.
fn library_sources_except(allowed_crate: &str) -> Vec<PathBuf> {
    let crates = workspace_root().join("crates");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&crates)
        .expect("crates/ is readable")
        .flatten()
    {
        if entry.file_name() == allowed_crate {
            continue;
        }
        rust_files(&entry.path().join("src"), &mut files);
    }
    files
}

// proves: PROOF-6 (one door for commands: nothing outside ploy-proof can start a process)
#[test]
fn only_ploy_proof_starts_processes() {
    let files = library_sources_except("proof");
    assert!(
        files.len() >= 5,
        "the scan must see the other crates' sources, saw {}",
        files.len()
    );
    let mut offenders = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("source is readable");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for needle in PROCESS_SPAWN {
                if code.contains(needle) {
                    offenders.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "process spawning outside ploy-proof (use ploy_proof instead):\n{}",
        offenders.join("\n")
    );
}

// The scan itself must be able to fail: a planted line is found.
#[test]
fn the_process_scan_detects_a_planted_spawn() {
    let planted = "    let child = std::process::Command::new(\"sh\").spawn();";
    assert!(PROCESS_SPAWN.iter().any(|n| planted.contains(n)));
}
