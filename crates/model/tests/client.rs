//! ModelClient against real servers on 127.0.0.1: the scripted model for
//! well-formed replies, the test kit's web server for broken ones.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use ploy_model::{
    ChatRequest, Message, ModelClient, ModelError, StreamEvent, ToolSpec, UpstreamTimeouts,
};
use ploy_scripted_model::{Script, Turn, serve};
use ploy_testkit::{Reply, WebServer};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn request() -> ChatRequest {
    ChatRequest::new(vec![Message::system("be brief"), Message::user("hi")]).with_tools(vec![
        ToolSpec::function("shell", "runs a command", json!({"type": "object"})),
    ])
}

#[tokio::test]
async fn chat_and_chat_stream_give_the_same_turn() {
    let turn = Turn::text("Let me look. ünïcode")
        .and_call("shell", json!({"command": "ls -la"}))
        .and_call("read_file", json!({"path": "a b.txt", "n": [1, 2]}));
    let model = serve(Script::new().repeat(turn)).await.unwrap();
    let client = ModelClient::from_url(&model.url(), "scripted").unwrap();
    let cancel = CancellationToken::new();
    let whole = client.chat(&request(), &cancel).await.unwrap();
    let streamed = client
        .chat_stream(&request(), &cancel)
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(
        whole.message.content.as_deref(),
        Some("Let me look. ünïcode")
    );
    assert_eq!(whole.message.tool_calls.len(), 2);
    assert_eq!(
        whole.message.tool_calls[1].arguments_json().unwrap(),
        json!({"path": "a b.txt", "n": [1, 2]})
    );
    // Ids differ per answer; everything else is the same.
    let strip = |c: &ploy_model::Completion| {
        let mut m = c.message.clone();
        for call in &mut m.tool_calls {
            call.id.clear();
        }
        (m, c.finish_reason)
    };
    assert_eq!(strip(&whole), strip(&streamed));
    // What was sent: the client's model, the stream switch, the tools.
    let sent = model.requests();
    let first = sent[0].request.as_ref().unwrap();
    assert_eq!(first.model, "scripted");
    assert!(!first.stream);
    assert!(sent[1].request.as_ref().unwrap().stream);
    assert_eq!(first.request.tools[0].function.name, "shell");
    assert_eq!(first.request.messages, request().messages);
}

#[tokio::test]
async fn text_arrives_piece_by_piece_before_the_end() {
    let model = serve(
        Script::new()
            .then(Turn::pieces(["one ", "two ", "three"]).pause(Duration::from_millis(200))),
    )
    .await
    .unwrap();
    let client = ModelClient::from_url(&model.url(), "m").unwrap();
    let started = Instant::now();
    let mut stream = client
        .chat_stream(&request(), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        stream.next().await.unwrap().unwrap(),
        StreamEvent::Text("one ".into())
    );
    // The first piece came before the model finished (two pauses later).
    assert_eq!(model.finished(), 0);
    let mut rest = Vec::new();
    while let Some(event) = stream.next().await {
        rest.push(event.unwrap());
    }
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert_eq!(rest[0], StreamEvent::Text("two ".into()));
    assert!(
        matches!(rest.last(), Some(StreamEvent::Done(done)) if done.message.content.as_deref() == Some("one two three"))
    );
}

// proves: GW-1 (the client reaches loopback only; the token is sent, never shown)
#[tokio::test]
async fn the_gateway_token_is_sent_in_its_header_and_never_printed() {
    let model = serve(Script::new().text("ok")).await.unwrap();
    let client = ModelClient::from_url(&model.url(), "m")
        .unwrap()
        .with_gateway_token("tok-SECRET-4711")
        .unwrap();
    assert!(!format!("{client:?}").contains("tok-SECRET-4711"));
    client
        .chat(&request(), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        model.requests()[0].header("x-ploy-token"),
        Some("tok-SECRET-4711")
    );
    assert_eq!(model.requests()[0].header("authorization"), None);
    // A token that cannot be a header value is refused before anything is sent.
    assert_eq!(
        ModelClient::from_url(&model.url(), "m")
            .unwrap()
            .with_gateway_token("a\r\nx-evil: 1")
            .unwrap_err(),
        ModelError::BadToken
    );
    for url in [
        "http://192.168.1.2:11434/v1/chat/completions",
        "https://127.0.0.1/v1/chat/completions",
        "http://example.com/v1/chat/completions",
    ] {
        assert!(
            matches!(ModelClient::from_url(url, "m"), Err(ModelError::Url(_))),
            "{url}"
        );
    }
}

#[tokio::test]
async fn every_failure_is_a_value() {
    let server = WebServer::start(|request| match request.path() {
        "/busy" => Reply::with_headers(
            429,
            &[("content-type", "application/json")],
            r#"{"error":{"message":"slow down","type":"rate_limit"}}"#,
        ),
        "/garbage" => Reply::json("{\"choices\": 5}"),
        "/empty" => Reply::json("{\"choices\": []}"),
        "/cut" => Reply::raw(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n",
        ),
        "/big" => Reply::json(format!(
            "{{\"choices\":[{{\"message\":{{\"content\":\"{}\"}}}}]}}",
            "x".repeat(5000)
        )),
        "/in-stream-error" => Reply::ok(
            "text/event-stream",
            "data: {\"error\":{\"message\":\"model not loaded\"}}\n\n",
        ),
        _ => Reply::never(),
    })
    .await;
    let at = |path: &str| ModelClient::from_url(&server.url(path), "m").unwrap();
    let cancel = CancellationToken::new();

    let busy = at("/busy").chat(&request(), &cancel).await.unwrap_err();
    assert_eq!(
        busy,
        ModelError::Status {
            status: 429,
            message: "slow down".into()
        }
    );
    assert!(busy.is_transient());
    for path in ["/garbage", "/empty"] {
        let error = at(path).chat(&request(), &cancel).await.unwrap_err();
        assert!(
            matches!(error, ModelError::BadReply { .. }),
            "{path}: {error:?}"
        );
        assert!(!error.is_transient());
    }
    let streamed = |path: &str| {
        let client = at(path);
        let cancel = cancel.clone();
        async move {
            let stream = client.chat_stream(&request(), &cancel).await.unwrap();
            stream.collect().await.unwrap_err()
        }
    };
    let cut = streamed("/cut").await;
    assert!(
        matches!(&cut, ModelError::BadReply { reason } if reason.contains("ended before")),
        "{cut:?}"
    );
    let big = at("/big")
        .with_max_reply_bytes(1000)
        .chat(&request(), &cancel)
        .await
        .unwrap_err();
    assert_eq!(big, ModelError::TooLarge { limit: 1000 });
    let reported = streamed("/in-stream-error").await;
    assert_eq!(
        reported,
        ModelError::Upstream {
            message: "model not loaded".into()
        }
    );

    // A server that never answers: the first-byte limit, or the caller's cancel.
    let quick = UpstreamTimeouts {
        connect: Duration::from_secs(2),
        first_byte: Duration::from_millis(200),
        idle: Duration::from_secs(2),
    };
    let slow = at("/never")
        .with_timeouts(quick)
        .chat(&request(), &cancel)
        .await;
    assert!(matches!(slow, Err(ModelError::Timeout { .. })), "{slow:?}");
    let cancel_soon = CancellationToken::new();
    let trigger = cancel_soon.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let cancelled = at("/never").chat(&request(), &cancel_soon).await;
    assert_eq!(cancelled, Err(ModelError::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(2));

    // Nothing listening.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let down = ModelClient::from_url(&format!("http://{closed}/v1/chat/completions"), "m")
        .unwrap()
        .chat(&request(), &cancel)
        .await
        .unwrap_err();
    assert!(matches!(down, ModelError::Unavailable { .. }), "{down:?}");
    assert!(down.is_transient());
}
