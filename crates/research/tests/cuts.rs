//! Issue 14 item 5: every cut of web text happens after redaction. A secret
//! is planted across each cut boundary (the per-page text cap, the HTML
//! parser's input cap, the download cap, the snippet taken from a backend's
//! full text), at several offsets, over real loopback fixture servers; no
//! part of it may reach the result. The secret is shorter than
//! `FRAGMENT_MIN_SECRET_CHARS`, so a prefix left by a cut would not be
//! caught as a fragment: only the order of redaction and cut protects it.
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

mod support;

use std::time::Duration;

use ploy_egress::MAX_BODY_BYTES;
use ploy_research::{Limits, Research, ResearchOutput, RunRequest, StoreMarker, Wikipedia};
use ploy_secrets::{FRAGMENT_MIN_SECRET_CHARS, Redactor};
use ploy_store::Store;
use support::*;
use tokio_util::sync::CancellationToken;

const SECRET: &str = "Zq7vCutCanary5Qx8Lm3";

/// How many bytes of the secret come before each cut: its first 5 offsets,
/// then a spread to its last byte.
const CUT_OFFSETS: [usize; 9] = [1, 2, 3, 4, 5, 7, 11, 15, 19];

/// Whether `text` holds 4 or more leading characters of the secret.
fn holds_part(text: &str) -> bool {
    text.to_ascii_lowercase()
        .contains(&SECRET[..4].to_ascii_lowercase())
}

fn store() -> (tempfile::TempDir, String, StoreMarker) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(dir.path().join("ploy.db")).expect("open store");
    let id = store.create_conversation("cuts").expect("conv").id;
    (dir, id, StoreMarker::new(store))
}

fn redactor() -> Redactor {
    assert!(SECRET.len() < FRAGMENT_MIN_SECRET_CHARS);
    let (redactor, rejected) = Redactor::new([SECRET]);
    assert!(rejected.is_empty());
    redactor
}

/// The page at `/page?n=N` for each cut: its body is made so the secret
/// starts `n` bytes (or characters) before the cut.
fn page_for(path: &str, n: usize) -> Reply {
    let page_cap = Limits::default().page_text_bytes;
    if path.starts_with("/text-cap") {
        // The extracted text starts with the `<p>`'s text: the secret
        // straddles the per-page text cap.
        let filler = "a".repeat(page_cap - n);
        Reply::html(format!("<main><p>{filler}{SECRET} tail</p></main>"))
    } else if path.starts_with("/parser-cap") {
        // Markup up to the parser's 512 KiB input cap, then the secret
        // straddling it, written plainly or split by tags.
        let head = "<html><body><!--";
        let split = path.contains("split");
        let secret = if split {
            format!("{}<b>{}</b>{}", &SECRET[..6], &SECRET[6..12], &SECRET[12..])
        } else {
            SECRET.to_owned()
        };
        let comment = 512 * 1024 - n - head.len() - "-->".len();
        Reply::html(format!(
            "{head}{}-->{secret} tail</body></html>",
            "x".repeat(comment)
        ))
    } else {
        // Plain text: white space (collapsed by extraction) up to the
        // download cap, then the secret straddling it.
        let body = format!("{}{SECRET} tail", " ".repeat(MAX_BODY_BYTES - n));
        Reply::ok("text/plain; charset=utf-8", body)
    }
}

async fn fetch(research: &Research, path: &str, id: &str, marker: &StoreMarker) -> ResearchOutput {
    research
        .web_fetch(
            &format!("http://{PAGES_HOST}{path}"),
            id,
            marker,
            &CancellationToken::new(),
        )
        .await
        .expect("not cancelled")
}

// proves: REDACT-1, CAP-1 (issue 14: the page text cap, the parser's input
// cap and the download cap never leave the start of a secret)
#[tokio::test]
async fn a_secret_across_any_page_cut_leaves_no_part() {
    let pages = WebServer::start(|r| {
        let n = r
            .query("n")
            .and_then(|n| n.parse().ok())
            .expect("n parameter");
        page_for(r.path(), n)
    })
    .await;
    let world = World::new(&[(PAGES_IP, &pages)], Duration::from_secs(20));
    let research = Research::new(
        world.fetcher.clone(),
        Vec::new(),
        redactor(),
        Limits::default(),
    );
    let (_dir, id, marker) = store();
    let mut checked = 0;
    for cut in ["text-cap", "parser-cap", "parser-cap-split", "download-cap"] {
        for n in CUT_OFFSETS {
            let output = fetch(&research, &format!("/{cut}?n={n}"), &id, &marker).await;
            let json = output.to_json();
            let text = output.sources[0].text.as_deref().unwrap_or_default();
            assert!(
                !holds_part(&json),
                "{cut} n={n}: {}",
                &text[text.len().saturating_sub(80)..]
            );
            // The page itself was read (not refused): the cut was exercised.
            assert!(output.failure.is_none(), "{cut} n={n}: {json}");
            checked += 1;
        }
    }
    assert_eq!(checked, 4 * CUT_OFFSETS.len());
}

// proves: REDACT-1, CAP-1 (issue 14: a snippet taken from a backend's full
// text is cut after redaction)
#[tokio::test]
async fn a_secret_across_the_snippet_cut_leaves_no_part() {
    for n in [1, 4, 9, 15, SECRET.len() - 1] {
        let extract = format!("{}{SECRET} and more text.", "w".repeat(300 - n));
        let wiki = WebServer::start(move |_| Reply::json(wiki_json(&[("Cut", &extract)]))).await;
        let world = World::new(&[(WIKI_IP, &wiki)], Duration::from_secs(5));
        let research = Research::new(
            world.fetcher.clone(),
            vec![std::sync::Arc::new(Wikipedia::new(wiki_url()))],
            redactor(),
            Limits::default(),
        );
        let (_dir, id, marker) = store();
        let output = research
            .run(
                RunRequest {
                    question: "cut question",
                    conversation_id: &id,
                    want_answer: false,
                },
                None,
                &marker,
                &|_| {},
                &CancellationToken::new(),
            )
            .await
            .expect("not cancelled");
        assert!(!output.sources.is_empty(), "{}", output.to_json());
        let snippet = &output.sources[0].snippet;
        assert!(snippet.starts_with("www"), "{snippet}");
        assert!(!holds_part(&output.to_json()), "n={n}: {snippet}");
    }
}
