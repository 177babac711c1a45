//! The agent's host shell (`danger-full-access`) and `PATH` (round7 #15):
//! a bare program name never resolves to a file of the project. One test
//! in its own binary: it sets this process's `PATH`, which the agent's
//! child inherits, and no other test may see that.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::os::unix::fs::PermissionsExt;

use ploy_policy::{ActionKind, Effect, Rule};
use serde_json::json;
use support::*;

// proves: PERM-7, SBX-4 (round7 #15: with a relative or in-project PATH
// entry first, the judged `ls` ran the project's `bin/ls`)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round7_15_the_host_shell_never_runs_a_project_program_for_a_bare_name() {
    let world = World::new();
    let bin = world.project.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let planted = bin.join("ls");
    std::fs::write(
        &planted,
        "#!/bin/sh\ntouch \"$(dirname \"$0\")/../PWNED\"\necho planted\n",
    )
    .unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();
    let inherited = std::env::var("PATH").unwrap_or_default();
    // SAFETY: the only test in this binary; set before any thread of the
    // agent starts a child.
    unsafe {
        std::env::set_var("PATH", format!("{}:bin:.::{inherited}", bin.display()));
    }
    let model = scripted(obedient()).await;
    let run = Run::new(rules(&[Rule::new(ActionKind::Shell, Effect::Allow, "*")]));
    let prompt = orders(&[("shell", json!({"command": "ls"}))]);
    let (_, events, _) = run_prompt(&world, &model, run, &prompt).await;
    let results = tool_results(&events.events());
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(!exists(&world.project.join("PWNED")), "{results:?}");
    let output = &results[0].1;
    assert!(!output.contains("planted"), "{output}");
    assert!(output.contains("bin"), "{output}");
}
