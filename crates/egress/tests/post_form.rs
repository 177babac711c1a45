//! `Fetcher::post_form` (the browser's POST forms) against real loopback
//! servers, through the test kit's seams (public-looking addresses mapped to
//! 127.0.0.1): the body reaches exactly one checked address; a known secret
//! in it, in any form the door reads, is refused before anything is sent;
//! a 303 is followed as a GET without the body, a 307/308 is refused; every
//! hop passes the caller's gate.
#![allow(clippy::expect_used)]

use std::sync::Arc;

use ploy_egress::{FetchOutcome, MAX_POST_BODY_BYTES, SecretDoor, Stage};
use ploy_testkit::net::*;
use ploy_testkit::{Reply, WebServer};
use tokio_util::sync::CancellationToken;

const SECRET: &str = "ghp_CANARYsecret0123456789abcdefXYZ12";

struct World {
    form: WebServer,
    other: WebServer,
    fetcher: ploy_egress::Fetcher,
}

/// `forms.example.com` (PUB_A) and `other.example.net` (PUB_B), the door
/// knowing [`SECRET`].
async fn world(form: impl Fn(&ploy_testkit::Received) -> Reply + Send + Sync + 'static) -> World {
    let form = WebServer::start(form).await;
    let other = WebServer::start(|_| Reply::html("<p>other</p>")).await;
    let dial = MapDial::default();
    dial.map(PUB_A, form.addr());
    dial.map(PUB_B, other.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("forms.example.com", &[PUB_A]);
    resolver.fixed("other.example.net", &[PUB_B]);
    let fetcher = fetcher(&resolver, &dial, quick_config()).with_secrets(SecretDoor::new([SECRET]));
    World {
        form,
        other,
        fetcher,
    }
}

async fn post(f: &ploy_egress::Fetcher, url: &str, body: &str) -> FetchOutcome {
    f.post_form(url, body.as_bytes().to_vec(), &CancellationToken::new())
        .await
        .expect("not cancelled")
}

fn refusal(outcome: FetchOutcome) -> ploy_egress::Refusal {
    match outcome {
        FetchOutcome::Refused(refusal) => refusal,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

// proves: BROWSER-1 (a form POST: the fixed headers, the body as given, to
// the checked address)
#[tokio::test]
async fn a_form_is_posted_with_fixed_headers_and_its_body() {
    let w = world(|_| Reply::html("<p>thanks</p>")).await;
    let outcome = post(
        &w.fetcher,
        "http://forms.example.com/comment",
        "name=a&text=b+c",
    )
    .await;
    let FetchOutcome::Page(page) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(page.text, "<p>thanks</p>");
    let got = w.form.requests();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].method, "POST");
    assert_eq!(got[0].target(), "/comment");
    assert_eq!(got[0].body_text(), "name=a&text=b+c");
    assert_eq!(
        got[0].header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    for never in ["cookie", "referer", "origin", "authorization"] {
        assert_eq!(got[0].header(never), None, "{never}");
    }
}

// proves: BEYOND-6 (a known secret in a form body, plain, percent-encoded,
// `+` for spaces or base64, is refused before anything is resolved or sent)
#[tokio::test]
async fn a_known_secret_in_the_body_is_refused_and_nothing_is_sent() {
    use base64::Engine as _;
    let w = world(|_| Reply::html("<p>thanks</p>")).await;
    let encoded: String = SECRET.bytes().map(|b| format!("%{b:02X}")).collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(SECRET);
    for body in [
        format!("text={SECRET}"),
        format!("text={encoded}"),
        format!("text=token+{SECRET}+end"),
        format!("text={b64}"),
    ] {
        let refused = refusal(post(&w.fetcher, "http://forms.example.com/c", &body).await);
        assert_eq!(refused.rule, "BEYOND-6", "{body}: {refused:?}");
        assert_eq!(refused.stage, Stage::Request);
    }
    assert_eq!(w.form.request_count(), 0, "nothing reached the server");
}

// proves: URL-3, BROWSER-1 (a 303 after a form is followed as a GET without
// the body; a 307/308, which would send the body again, is refused)
#[tokio::test]
async fn after_a_form_a_303_is_a_get_and_a_307_is_refused() {
    let w = world(|request| match request.path() {
        "/see-other" => Reply::redirect(303, "http://other.example.net/done"),
        "/temporary" => Reply::redirect(307, "http://other.example.net/done"),
        "/permanent" => Reply::redirect(308, "/again"),
        _ => Reply::html("<p>thanks</p>"),
    })
    .await;
    let outcome = post(
        &w.fetcher,
        "http://forms.example.com/see-other",
        "text=hello",
    )
    .await;
    assert!(matches!(outcome, FetchOutcome::Page(_)), "{outcome:?}");
    let other = w.other.requests();
    assert_eq!(other.len(), 1);
    assert_eq!(other[0].method, "GET");
    assert!(other[0].body.is_empty(), "the body was not sent again");
    assert_eq!(other[0].header("content-type"), None);

    for path in ["/temporary", "/permanent"] {
        let refused = refusal(
            post(
                &w.fetcher,
                &format!("http://forms.example.com{path}"),
                "text=hello",
            )
            .await,
        );
        assert_eq!((refused.rule, refused.stage), ("URL-3", Stage::Redirect));
    }
    assert_eq!(w.other.request_count(), 1, "no body went elsewhere");
    assert_eq!(w.form.request_count(), 3);
}

// proves: BROWSER-2 (the caller's gate decides every hop of a form, the
// redirect included: a refused hop is never requested)
#[tokio::test]
async fn the_gate_holds_each_hop_of_a_form() {
    let w = world(|_| Reply::redirect(302, "http://other.example.net/collect")).await;
    let gate: ploy_egress::HopGate = Arc::new(|url: &str| {
        if url.contains("other.example.net") {
            Err(ploy_egress::Refusal::new(
                "BROWSER-2",
                Stage::Request,
                "a new site",
            ))
        } else {
            Ok(())
        }
    });
    let gated = w.fetcher.with_hop_gate(gate);
    let refused = refusal(post(&gated, "http://forms.example.com/c", "text=hello").await);
    assert_eq!(refused.rule, "BROWSER-2");
    assert_eq!(w.form.request_count(), 1);
    assert_eq!(w.other.request_count(), 0);
    let refused = refusal(post(&gated, "http://other.example.net/c", "text=hello").await);
    assert_eq!(refused.rule, "BROWSER-2");
    assert_eq!(w.other.request_count(), 0);
}

// proves: EGRESS-2 (a body over the cap is refused; nothing sent)
#[tokio::test]
async fn a_body_over_the_cap_is_refused() {
    let w = world(|_| Reply::html("<p>thanks</p>")).await;
    let body = format!("text={}", "a".repeat(MAX_POST_BODY_BYTES));
    let refused = refusal(post(&w.fetcher, "http://forms.example.com/c", &body).await);
    assert_eq!(refused.rule, "EGRESS-2");
    assert_eq!(w.form.request_count(), 0);
}
