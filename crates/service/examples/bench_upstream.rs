//! A fast OpenAI-compatible upstream on 127.0.0.1 for bench/gateway_vs_nginx.sh.
//! Usage: bench_upstream [PORT] — prints "listening 127.0.0.1:PORT".
//! A body containing `"stream":true` gets 6 SSE events, the first at once,
//! then one every 50 ms; anything else gets one small JSON completion.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http::{Request, Response, header};
use http_body_util::{BodyExt, Full, StreamBody, combinators::UnsyncBoxBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

const ANSWER: &str = r#"{"id":"chatcmpl-bench","object":"chat.completion","model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}"#;

type Body = UnsyncBoxBody<Bytes, Infallible>;

async fn answer(request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let streaming = body.windows(13).any(|w| w == b"\"stream\":true");
    let mut response = if streaming {
        let events = futures_util::stream::iter(0..6).then(|i| async move {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let event = format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"t{i}\"}}}}]}}\n\n"
            );
            Ok::<_, Infallible>(Frame::data(Bytes::from(event)))
        });
        let mut response = Response::new(BodyExt::boxed_unsync(StreamBody::new(events)));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            "text/event-stream"
                .parse()
                .unwrap_or(header::HeaderValue::from_static("text/event-stream")),
        );
        response
    } else {
        let mut response = Response::new(BodyExt::boxed_unsync(Full::new(Bytes::from_static(
            ANSWER.as_bytes(),
        ))));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("application/json"),
        );
        response
    };
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    Ok(response)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::io::Result<()> {
    let port = std::env::args().nth(1).unwrap_or_else(|| "0".into());
    let listener = TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!("listening {}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(answer))
                .await;
        });
    }
}
