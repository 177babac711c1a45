//! What `ploy hook claude-code` spends after the process has started: the
//! whole event (`claude::run`: parse, settings, trust, store read, shell
//! analysis, assert, answer) for a Bash call in a clean and in a marked
//! session, and the judging alone. `bench/hook_startup.sh` measures the
//! whole process from outside.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use ploy_dirs::PloyDirs;
use ploy_hook::{Context, HookEnv, Sessions};

fn event(project: &Path, session: &str, tool: &str, input: &str) -> Vec<u8> {
    format!(
        r#"{{"session_id":"{session}","cwd":"{}","hook_event_name":"PreToolUse","tool_name":"{tool}","tool_input":{input},"tool_use_id":"t"}}"#,
        project.display()
    )
    .into_bytes()
}

fn bench(c: &mut Criterion) {
    let root = std::env::temp_dir().join(format!("ploy-hook-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for dir in ["config", "state", "proj/src"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    std::fs::write(
        root.join("config/settings.json"),
        r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"},
            "permissions": {"shell": {"allow": ["cargo test*", "git status"], "deny": ["git push*"]}}}"#,
    )
    .unwrap();
    let project = root.join("proj");
    let dirs = PloyDirs::new(root.join("config"), root.join("state"));
    let env = HookEnv {
        dirs: Ok(dirs.clone()),
        ploy: Path::new("/usr/bin/ploy"),
    };
    // A marked session, so the store exists and holds a mark.
    let fetch = event(
        &project,
        "marked",
        "WebFetch",
        r#"{"url":"https://example.org/","prompt":"p"}"#,
    );
    assert!(ploy_hook::claude::run(&fetch, &env).is_empty());
    let clean = event(
        &project,
        "clean",
        "Bash",
        r#"{"command":"cargo test --all"}"#,
    );
    let marked = event(
        &project,
        "marked",
        "Bash",
        r#"{"command":"cargo test --all"}"#,
    );
    assert!(ploy_hook::claude::run(&clean, &env).is_empty());
    assert!(ploy_hook::claude::run(&marked, &env).contains("\"ask\""));

    c.bench_function("hook event: Bash, clean session (no decision)", |b| {
        b.iter(|| ploy_hook::claude::run(&clean, &env))
    });
    c.bench_function("hook event: Bash, marked session (ask)", |b| {
        b.iter(|| ploy_hook::claude::run(&marked, &env))
    });
    c.bench_function("context load (settings, trust, rules)", |b| {
        b.iter(|| Context::load(&dirs, &project).unwrap())
    });
    let ctx = Context::load(&dirs, &project).unwrap();
    let sessions = Sessions::new(&dirs.state, "claude-code");
    let map = serde_json::json!({"command": "cargo test --all"});
    let call = ploy_hook::map::claude_code_call(&ctx, "Bash", map.as_object().unwrap()).unwrap();
    c.bench_function("judge only (store read, assert)", |b| {
        b.iter(|| ctx.judge(&sessions, "clean", &call))
    });
    let _ = std::fs::remove_dir_all(&root);
}

criterion_group!(benches, bench);
criterion_main!(benches);
