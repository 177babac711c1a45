//! The web engine is built at the first web tool call, not when the session
//! opens (issue 11: `ploy -p` start to first byte; its secret door, TLS roots
//! and resolver were most of the start-up). A run that never touches the web
//! never builds it; a broken research.json is reported by the web tool
//! that needs it, with the reason, and nothing is fetched.

#![allow(clippy::unwrap_used)] // tests: a panic is a test failure

mod support;

use ploy_agent::tools::web::WebSetup;
use serde_json::json;
use support::*;

// proves: PERM-1 (the web tools still decide and fail closed when their engine cannot be built)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_engine_is_built_at_the_first_web_call() {
    let world = World::new();
    let config = world.dir.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("research.json"), "{ this is not json").unwrap();
    let model = scripted(obedient()).await;
    let mut run = Run::new(rules(&[]));
    run.web = Some(WebSetup {
        config_dir: config,
        hosts: None,
        answer_model: None,
        research: None,
        secrets: ploy_secrets::SecretSet::new(),
    });
    let prompt = orders(&[
        ("read", json!({"path": "src/lib.rs"})),
        ("web_fetch", json!({"url": "http://docs.example.com/"})),
    ]);
    // The session opens although research.json is broken: nothing built it.
    let (outcome, events, _) = run_prompt(&world, &model, run, &prompt).await;
    assert_eq!(outcome.exit_code(), 0, "{outcome:?}");
    let results = tool_results(&events.events());
    assert!(results[0].0, "{results:?}");
    assert!(
        !results[1].0 && results[1].1.contains("research.json"),
        "{results:?}"
    );
}
