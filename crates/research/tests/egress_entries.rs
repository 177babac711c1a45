//! Tavily through the real guarded fetcher's POST entry, and SearXNG on an
//! operator-named private address, over real loopback fixture servers
//! reached through the egress seams (a table resolver answering
//! public-looking or private addresses, a dialer mapping them to 127.0.0.1).
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

mod support;

use std::{sync::Arc, time::Duration};

use ploy_research::{
    Limits, PostJson, Progress, Research, ResearchConfig, ResearchOutput, RunRequest, Searxng,
    StoreMarker, Tavily, TavilyKeys, build_engine,
};
use ploy_secrets::Redactor;
use ploy_store::Store;
use support::*;
use tokio_util::sync::CancellationToken;

const KEY: &str = "tvly-canaryPOSTk3yQ2x9LmN4pR8s";
const SECOND_KEY: &str = "tvly-secondK3yZz8Yy7Xx6Ww5Vv4";

fn tavily_url() -> url::Url {
    url::Url::parse(&format!("http://{TAVILY_HOST}/")).unwrap()
}

fn tavily_json(hits: &[(&str, &str)], echo: &str) -> String {
    let results: Vec<_> = hits
        .iter()
        .map(|(url, title)| {
            serde_json::json!({"title": title, "url": url, "content": format!("snippet {echo}"), "score": 0.9})
        })
        .collect();
    serde_json::json!({"query": "q", "answer": null, "results": results, "response_time": 0.4})
        .to_string()
}

async fn run_once(research: &Research, question: &str) -> (ResearchOutput, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
    let id = store.create_conversation("t").unwrap().id;
    let marker = StoreMarker::new(store);
    let lines = std::sync::Mutex::new(Vec::<String>::new());
    let sink = |p: &Progress| lines.lock().unwrap().push(p.to_string());
    let output = research
        .run(
            RunRequest {
                question,
                conversation_id: &id,
                want_answer: false,
            },
            None,
            &marker,
            &sink,
            &CancellationToken::new(),
        )
        .await
        .expect("not cancelled");
    let logs = lines.lock().unwrap().join("\n");
    (output, logs)
}

fn tavily_engine(world: &World, keys: &str) -> Research {
    let keys = TavilyKeys::parse(Some(keys));
    let (redactor, rejected) = Redactor::empty().with_more(keys.values().iter());
    assert!(rejected.is_empty());
    let poster: Arc<dyn PostJson> = Arc::new(world.fetcher.clone());
    let tavily = Tavily::new(tavily_url(), keys, Some(poster)).expect("keys");
    Research::new(
        world.fetcher.clone(),
        vec![Arc::new(tavily)],
        redactor,
        Limits::default(),
    )
}

// proves: EGRESS-2, A-1, REDACT-1 (Tavily POSTs through the guarded fetcher; the echoed key appears nowhere)
#[tokio::test]
async fn tavily_posts_through_the_guarded_fetcher_and_the_key_appears_nowhere() {
    let api = WebServer::start(|r| {
        let auth = r
            .head()
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("authorization:"))
            .unwrap_or("")
            .to_owned();
        Reply::json(tavily_json(
            &[(&format!("http://{PAGES_HOST}/t"), "Tavily hit")],
            &auth,
        ))
    })
    .await;
    let pages = WebServer::start(|_| Reply::html(article("T", "tavily page text"))).await;
    let world = World::new(
        &[(TAVILY_IP, &api), (PAGES_IP, &pages)],
        Duration::from_secs(5),
    );
    let research = tavily_engine(&world, KEY);
    let (output, logs) = run_once(&research, "rust tokio timeout error").await;
    let json = output.to_json();
    assert_eq!(output.searches[0].hits, 1, "{json}");
    assert!(json.contains("tavily page text"), "{json}");

    let received = api.requests();
    assert!(!received.is_empty());
    for request in &received {
        assert!(
            request.head().starts_with("POST /search "),
            "{}",
            request.head()
        );
        let lower = request.head().to_ascii_lowercase();
        assert!(lower.contains(&format!(
            "authorization: bearer {}",
            KEY.to_ascii_lowercase()
        )));
        assert!(lower.contains("content-type: application/json"));
        assert!(!lower.contains("\r\ncookie:") && !lower.contains("\r\nreferer:"));
        let body: serde_json::Value = serde_json::from_slice(&request.body).expect("json body");
        assert!(body["query"].as_str().is_some_and(|q| !q.is_empty()));
        assert!(
            !request.body_text().contains(KEY),
            "the key goes only in the header"
        );
    }
    // The page fetches never carry the key.
    for request in pages.requests() {
        assert!(!request.head().contains(KEY), "{}", request.head());
    }
    assert!(!json.contains(KEY) && !logs.contains(KEY), "{json}\n{logs}");
}

// proves: URL-3, A-1 (a redirect from the API is refused; the key never reaches its target)
#[tokio::test]
async fn a_tavily_redirect_is_refused_and_the_target_never_sees_the_key() {
    let api = WebServer::start(|_| {
        Reply::json("{}")
            .status_code(307)
            .header("location", &format!("http://{PAGES_HOST}/steal"))
    })
    .await;
    let pages = WebServer::start(|_| Reply::json(tavily_json(&[], ""))).await;
    let world = World::new(
        &[(TAVILY_IP, &api), (PAGES_IP, &pages)],
        Duration::from_secs(5),
    );
    let research = tavily_engine(&world, KEY);
    let (output, logs) = run_once(&research, "python asyncio gather").await;
    let failure = output.searches[0].failure.clone().expect("failed");
    assert_eq!(failure.rule, "URL-3", "{failure}");
    assert!(
        pages.requests().is_empty(),
        "the redirect target was contacted"
    );
    let json = output.to_json();
    assert!(!json.contains(KEY) && !logs.contains(KEY));
}

// proves: FAIL-1 (a key refused by Tavily passes to the next; both go only to the API)
#[tokio::test]
async fn a_refused_key_passes_to_the_next_key() {
    let api = WebServer::start(|r| {
        if r.head().contains(KEY) {
            Reply::status(401)
        } else {
            Reply::json(tavily_json(&[(&format!("http://{PAGES_HOST}/k"), "K")], ""))
        }
    })
    .await;
    let pages = WebServer::start(|_| Reply::html(article("K", "second key page"))).await;
    let world = World::new(
        &[(TAVILY_IP, &api), (PAGES_IP, &pages)],
        Duration::from_secs(5),
    );
    let research = tavily_engine(&world, &format!("{KEY},{SECOND_KEY}"));
    let (output, _) = run_once(&research, "sqlite wal mode").await;
    assert_eq!(output.searches[0].hits, 1, "{}", output.to_json());
    let received = api.requests();
    assert!(received[0].head().contains(KEY));
    assert!(received[1].head().contains(SECOND_KEY));
}

// proves: URL-2, CONFIG-1 (issue 7: SearXNG on an operator-named private address; only its own requests get the allowance)
#[tokio::test]
async fn searxng_on_an_operator_named_private_host_works_and_lends_nothing_to_pages() {
    let searx = WebServer::start(|r| {
        assert_eq!(r.query("format").as_deref(), Some("json"));
        Reply::json(
            serde_json::json!({"query": "q", "results": [
                {"url": format!("http://{PAGES_HOST}/ok"), "title": "Public", "content": "public page"},
                {"url": format!("http://{LAN_SEARX_HOST}:8888/internal"), "title": "Back at the operator host", "content": "x"},
                {"url": format!("http://{LAN_SEARX_IP}:8888/internal"), "title": "Its address", "content": "y"}
            ]})
            .to_string(),
        )
    })
    .await;
    let pages = WebServer::start(|_| Reply::html(article("P", "public page text"))).await;
    let world = World::new(
        &[(LAN_SEARX_IP, &searx), (PAGES_IP, &pages)],
        Duration::from_secs(5),
    );
    // The allowance comes only from the operator's configuration file.
    let config = ResearchConfig::parse(&format!(
        r#"{{"backends": ["searxng"], "searxng_url": "http://{LAN_SEARX_HOST}:8888/"}}"#
    ))
    .expect("config");
    let (research, _) = build_engine(
        &config,
        &[],
        TavilyKeys::default(),
        None,
        world.fetcher.clone(),
        &Redactor::empty(),
    )
    .expect("engine");
    let (output, _) = run_once(&research, "q").await;
    let json = output.to_json();
    assert_eq!(output.searches[0].hits, 3, "{json}");
    assert!(output.searches[0].failure.is_none(), "{json}");
    // Result links back to the operator host are NOT read: pages go through
    // the engine's ordinary fetcher.
    assert_eq!(
        output.sources.iter().filter(|s| s.text.is_some()).count(),
        1,
        "{json}"
    );
    assert_eq!(output.skipped.len(), 2, "{json}");
    for skipped in &output.skipped {
        assert!(
            skipped.failure.rule == "URL-1" || skipped.failure.rule == "URL-2",
            "{json}"
        );
    }
    assert_eq!(
        searx.requests().len(),
        1,
        "only the search itself reached the operator host"
    );
    // The allowance is the base's host and port; naming the instance by its
    // literal address (on another port) works the same way.
    let other = Searxng::new(url::Url::parse(&format!("http://{LAN_SEARX_HOST}:8888/")).unwrap());
    assert_eq!(other.operator_host().map(|h| h.port()), Some(8888));
    let config = ResearchConfig::parse(&format!(
        r#"{{"backends": ["searxng"], "searxng_url": "http://{LAN_SEARX_IP}:8889/"}}"#
    ))
    .expect("config");
    let (research, _) = build_engine(
        &config,
        &[],
        TavilyKeys::default(),
        None,
        world.fetcher.clone(),
        &Redactor::empty(),
    )
    .expect("engine");
    let (output, _) = run_once(&research, "q").await;
    assert_eq!(
        output.searches[0].hits, 3,
        "the named literal address on its port works"
    );
    assert_eq!(searx.requests().len(), 2);
}

// proves: CONFIG-1, URL-1 (a numeric spelling of the SearXNG address fails loudly at load)
#[tokio::test]
async fn a_searxng_url_written_as_a_number_is_refused_at_load() {
    let searx = WebServer::start(|_| Reply::json(r#"{"results":[]}"#)).await;
    let world = World::new(&[(LAN_SEARX_IP, &searx)], Duration::from_secs(5));
    for bad in [
        "http://0x0a.9.8.7:8888/",
        "http://168364039:8888/",
        "http://10.592903:8888/",
        "http://admin:pw@searx.lan:8888/",
    ] {
        let config = ResearchConfig::parse(&format!(
            r#"{{"backends": ["searxng"], "searxng_url": "{bad}"}}"#
        ))
        .expect("the file parses; the URL is judged when backends are built");
        let err = build_engine(
            &config,
            &[],
            TavilyKeys::default(),
            None,
            world.fetcher.clone(),
            &Redactor::empty(),
        )
        .map(|_| ())
        .expect_err(bad);
        assert_eq!(err.requirement(), "CONFIG-1", "{bad}: {err}");
    }
    assert!(searx.requests().is_empty());
}
