//! Secrets never leave through research (BEYOND-6, issue 14 item 2) and the
//! web rules apply to research's requests (PERM-1/2, item 9), asserted on
//! what the fixture backends and pages RECEIVED, over the egress seams.
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

mod support;

use std::{sync::Arc, time::Duration};

use base64::Engine as _;
use ploy_egress::{Part, SecretDoor};
use ploy_policy::{
    ActionKind, Effect, ProjectTrust, Rule, RuleLayer, RuleSource, Rules, TaintMark, TaintSource,
};
use ploy_research::{
    DuckDuckGo, Limits, Research, ResearchOutput, RunRequest, SearchBackend, StoreMarker,
    Wikipedia, web_gate::web_gate,
};
use ploy_secrets::{Redactor, SecretSet};
use ploy_store::Store;
use ploy_testkit::Received;
use support::*;
use tokio_util::sync::CancellationToken;

const PASSWORD: &str = "Tr0ub4dor-and-3-horses";

fn backends() -> Vec<Arc<dyn SearchBackend>> {
    vec![
        Arc::new(DuckDuckGo::new(ddg_url())),
        Arc::new(Wikipedia::new(wiki_url())),
    ]
}

/// Whether any request carries `secret` in any form a door of its own sees.
fn carries(received: &[Received], secret: &str) -> bool {
    let witness = SecretDoor::new([secret]);
    received.iter().any(|request| {
        witness
            .check_text(Part::Body, &request.text(), true)
            .is_err()
            || witness.check_body(&request.body).is_err()
    })
}

fn store() -> (tempfile::TempDir, Store, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
    let id = store.create_conversation("door test").unwrap().id;
    (dir, store, id)
}

async fn run(
    research: &Research,
    question: &str,
    id: &str,
    model: Option<&ScriptedModel>,
    marker: &StoreMarker,
) -> ResearchOutput {
    research
        .run(
            RunRequest {
                question,
                conversation_id: id,
                want_answer: false,
            },
            model.map(|m| m as &dyn ploy_research::ResearchModel),
            marker,
            &|_| {},
            &CancellationToken::new(),
        )
        .await
        .expect("not cancelled")
}

// proves: BEYOND-6, SCRUB-1 (issue 14: `SERVICE_PW=Tr0ub4dor-and-3-horses
// ploy research "error Tr0ub4dor-and-3-horses login"` sent the password to
// both backends; now neither receives it in any form, also when the model
// proposes it encoded)
#[tokio::test]
async fn service_pw_in_the_question_reaches_neither_backend() {
    let ddg_server = WebServer::start(|_| Reply::html(ddg_page(&[]))).await;
    let wiki_server = WebServer::start(|_| Reply::json(wiki_json(&[]))).await;
    let world = World::new(
        &[(DDG_IP, &ddg_server), (WIKI_IP, &wiki_server)],
        Duration::from_secs(5),
    );
    // As `ploy research` builds them: one SecretSet for the redactor (and
    // so the scrubber) and the door.
    let set = SecretSet::from_env(
        [
            ("SERVICE_PW".to_owned(), PASSWORD.to_owned()),
            ("HOME".to_owned(), "/home/alice".to_owned()),
        ],
        &|_| false,
    );
    assert_eq!(set.len(), 1, "SERVICE_PW is a secret by its name");
    let fetcher = world.fetcher.with_secrets(SecretDoor::from_set(&set));
    let research = Research::new(fetcher, backends(), set.redactor(), Limits::default());
    let (_dir, store, id) = store();
    let marker = StoreMarker::new(store);
    let question = format!("error {PASSWORD} login");
    // No model: the fallback phrases carry the question itself.
    run(&research, &question, &id, None, &marker).await;
    // A model that proposes the password in forms a scrubber may not know.
    let b64 = base64::engine::general_purpose::STANDARD.encode(PASSWORD);
    let model = ScriptedModel {
        phrases: vec![
            format!("error {} login", PASSWORD.to_uppercase()),
            format!("error {b64} login"),
            "error Tr0ub4dor%2Dand%2D3%2Dhorses login".to_owned(),
        ],
        ..ScriptedModel::default()
    };
    run(&research, &question, &id, Some(&model), &marker).await;
    let received: Vec<Received> = ddg_server
        .requests()
        .into_iter()
        .chain(wiki_server.requests())
        .collect();
    assert!(
        !ddg_server.requests().is_empty() && !wiki_server.requests().is_empty(),
        "phrases without the secret still reach both backends"
    );
    assert!(
        received.iter().any(|r| r.target.contains("login")),
        "{received:?}"
    );
    assert!(!carries(&received, PASSWORD), "{received:#?}");
}

// proves: BEYOND-6 (the door alone: a scrubber and a redactor that do not
// know the secret, and the backends and pages still never receive it, in a
// phrase or in a result link)
#[tokio::test]
async fn the_door_stops_what_the_scrubber_does_not_know() {
    let hex: String = PASSWORD.bytes().map(|b| format!("{b:02x}")).collect();
    let leak = format!("http://{PAGES_HOST}/collect?d={hex}");
    let page_link = format!("http://{PAGES_HOST}/article");
    let ddg_results = ddg_page(&[
        (leak.as_str(), "Leak", "a link carrying the secret"),
        (page_link.as_str(), "Article", "a plain link"),
    ]);
    let ddg_server = WebServer::start(move |_| Reply::html(ddg_results.clone())).await;
    let wiki_server = WebServer::start(|_| Reply::json(wiki_json(&[]))).await;
    let pages = WebServer::start(|_| Reply::html(article("Article", "text"))).await;
    let world = World::new(
        &[
            (DDG_IP, &ddg_server),
            (WIKI_IP, &wiki_server),
            (PAGES_IP, &pages),
        ],
        Duration::from_secs(5),
    );
    let fetcher = world.fetcher.with_secrets(SecretDoor::new([PASSWORD]));
    let research = Research::new(fetcher, backends(), Redactor::empty(), Limits::default());
    let (_dir, store, id) = store();
    let marker = StoreMarker::new(store);
    let output = run(
        &research,
        &format!("error {PASSWORD} login"),
        &id,
        None,
        &marker,
    )
    .await;
    // The phrase carrying it was refused at the door, by rule.
    let json = output.to_json();
    assert!(json.contains("BEYOND-6"), "{json}");
    // Nothing any server received carries it; the plain page was read.
    for server in [&ddg_server, &wiki_server, &pages] {
        assert!(!carries(&server.requests(), PASSWORD));
    }
    assert!(pages.requests().iter().all(|r| r.path() != "/collect"));
}

fn deny_web(pattern: &str, source: RuleSource) -> RuleLayer {
    RuleLayer::new(
        source,
        vec![Rule::new(ActionKind::Web, Effect::Deny, pattern)],
    )
    .unwrap()
}

// proves: PERM-1, PERM-2, TAINT-2 (research's searches and page reads pass
// Permission::assert: a user's web deny rule and a conversation's own deny
// rule refuse before anything is sent; a tainted conversation keeps its mark)
#[tokio::test]
async fn web_deny_rules_refuse_research_requests_and_the_mark_stays() {
    let page_link = format!("http://{PAGES_HOST}/article");
    let ddg_results = ddg_page(&[(page_link.as_str(), "Article", "a plain link")]);
    let ddg_server = WebServer::start(move |_| Reply::html(ddg_results.clone())).await;
    let wiki_server = WebServer::start(|_| Reply::json(wiki_json(&[]))).await;
    let pages = WebServer::start(|_| Reply::html(article("Article", "text"))).await;
    let world = World::new(
        &[
            (DDG_IP, &ddg_server),
            (WIKI_IP, &wiki_server),
            (PAGES_IP, &pages),
        ],
        Duration::from_secs(5),
    );
    let (_dir, mut store, id) = store();
    let earlier = TaintMark {
        reason: "a page was read earlier".into(),
        source: TaintSource::Url("https://earlier.example/".into()),
    };
    store.mark_tainted(&id, &earlier).unwrap();
    // The conversation's own rule denies the pages' site.
    store
        .add_rule(&id, &Rule::new(ActionKind::Web, Effect::Deny, PAGES_HOST))
        .unwrap();
    let conversation = store.conversation_rules(&id).unwrap();
    assert!(conversation.is_tainted());
    // The user's settings deny Wikipedia.
    let rules = Rules::builtin().with_layer(
        deny_web(WIKI_HOST, RuleSource::User),
        ProjectTrust::Untrusted,
    );
    let fetcher = world
        .fetcher
        .with_hop_gate(web_gate("research", rules, conversation));
    let research = Research::new(fetcher, backends(), Redactor::empty(), Limits::default());
    let marker = StoreMarker::new(store);
    let output = run(&research, "rust borrow checker", &id, None, &marker).await;
    let json = output.to_json();
    assert!(json.contains("PERM-2"), "{json}");
    assert!(
        !ddg_server.requests().is_empty(),
        "an allowed backend is searched"
    );
    assert!(
        wiki_server.requests().is_empty(),
        "a denied backend receives nothing"
    );
    assert!(
        pages.requests().is_empty(),
        "a denied site receives nothing"
    );
    drop(marker);
    let store = Store::open(_dir.path().join("ploy.db")).unwrap();
    let marks = store.marks(&id).unwrap();
    assert!(
        marks.contains(&earlier),
        "the earlier mark stays: {marks:?}"
    );
}
