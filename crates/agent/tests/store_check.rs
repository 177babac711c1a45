//! A store opened with its full check running alongside the first model
//! request (`ploy -p`'s start, issue 11) still fails closed: nothing the
//! model asks for runs before the check passed, and a damaged store ends
//! the run. The model is the obedient script on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use ploy_agent::session::Outcome;
use ploy_policy::{ActionKind, Effect, Rule};
use ploy_store::Store;
use serde_json::json;
use support::{Run, World, obedient, orders, rules, run_prompt, scripted};

/// The world's store, damaged where only the full check looks.
fn damage_the_store(world: &World) {
    drop(world.store());
    ploy_testkit::store_damage::damage_a_page_past_the_tables(&world.db()).unwrap();
}

fn write_order() -> String {
    orders(&[(
        "write",
        json!({"path": "src/new.rs", "content": "pub fn new() {}\n"}),
    )])
}

fn run() -> Run {
    let mut run = Run::new(rules(&[Rule::new(ActionKind::Edit, Effect::Allow, "**")]));
    run.check_store_in_background = true;
    run
}

// proves: TAINT-3, PERM-1 (a damaged store whose full check ran in the
// background ends the run before an allowed write the model asked for
// runs: the file is not written; the healthy twin writes it)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_store_checked_in_the_background_runs_nothing() {
    let world = World::new();
    damage_the_store(&world);
    Store::open_checking_in_background(world.db())
        .expect("the damage is on a page the open does not read");
    let model = scripted(obedient()).await;
    let (outcome, _, _) = run_prompt(&world, &model, run(), &write_order()).await;
    match &outcome {
        Outcome::Runtime(message) => {
            assert!(message.contains("corrupt"), "{message}")
        }
        other => panic!("the run must end on the damaged store: {other:?}"),
    }
    assert!(!world.project.join("src/new.rs").exists());

    let healthy = World::new();
    let model = scripted(obedient()).await;
    let (outcome, _, _) = run_prompt(&healthy, &model, run(), &write_order()).await;
    assert_eq!(outcome.exit_code(), 0, "{outcome:?}");
    assert!(healthy.project.join("src/new.rs").exists());
}
