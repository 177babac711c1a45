//! A 1 MB page from a loopback server: the guarded fetcher (text check,
//! resolve, address check, pinned dial, header policy, streamed capped body,
//! charset decode) side by side with a plain hyper GET of the same page.
//! Both open a new connection per request. `bench/fetch_vs_plain.sh` prints
//! the ratio (target: the guard costs at most 10% more).

#![allow(missing_docs, clippy::disallowed_methods, clippy::expect_used)]

use std::{hint::black_box, net::SocketAddr, sync::Arc};

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use ploy_egress::{
    BoxedStream, Dial, DialFuture, FetchConfig, FetchOutcome, Fetcher, StaticResolver,
    default_tls_config,
};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};
use tokio_util::sync::CancellationToken;

const PAGE_BYTES: usize = 1024 * 1024;
const PUBLIC: &str = "93.184.215.14";

/// Maps the public test address to the loopback server (the test seam).
struct ToLoopback(SocketAddr);

impl Dial for ToLoopback {
    fn dial(&self, _addr: SocketAddr) -> DialFuture<'_> {
        let target = self.0;
        Box::pin(async move {
            let stream = TcpStream::connect(target).await?;
            stream.set_nodelay(true)?;
            Ok(Box::new(stream) as BoxedStream)
        })
    }
}

async fn serve(listener: TcpListener, response: Arc<Vec<u8>>) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        let response = response.clone();
        tokio::spawn(async move {
            let mut head = Vec::with_capacity(512);
            let mut buf = [0u8; 512];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let _ = stream.write_all(&response).await;
            let _ = stream.shutdown().await;
        });
    }
}

fn fetch_1mb(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {PAGE_BYTES}\r\nConnection: close\r\n\r\n"
    )
    .into_bytes();
    response.extend(std::iter::repeat_n(b'a', PAGE_BYTES));
    let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).expect("bind");
    let server = listener.local_addr().expect("addr");
    rt.spawn(serve(listener, Arc::new(response)));

    let resolver = StaticResolver::new([("bench.example.com", vec![PUBLIC.parse().expect("ip")])]);
    let fetcher = Fetcher::new(
        Arc::new(resolver),
        Arc::new(ToLoopback(server)),
        FetchConfig::with_tls(default_tls_config().expect("tls")),
    );
    let cancel = CancellationToken::new();

    let mut group = c.benchmark_group("fetch_1mb");
    group.sample_size(30);
    group.bench_function("guarded", |b| {
        b.iter(|| {
            let outcome = rt.block_on(fetcher.fetch("http://bench.example.com/page", &cancel));
            match outcome {
                Ok(FetchOutcome::Page(page)) => black_box(page.body_bytes),
                other => panic!("unexpected {other:?}"),
            }
        })
    });
    group.bench_function("plain_hyper", |b| {
        b.iter(|| {
            rt.block_on(async {
                let stream = TcpStream::connect(server).await.expect("connect");
                stream.set_nodelay(true).expect("nodelay");
                let (mut sender, connection) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream))
                        .await
                        .expect("handshake");
                let task = tokio::spawn(connection);
                let request = http::Request::get("/page")
                    .header(http::header::HOST, "bench.example.com")
                    .body(Empty::<Bytes>::new())
                    .expect("request");
                let response = sender.send_request(request).await.expect("response");
                let body = response
                    .into_body()
                    .collect()
                    .await
                    .expect("body")
                    .to_bytes();
                let text = String::from_utf8(body.to_vec()).expect("utf-8");
                task.abort();
                black_box(text.len())
            })
        })
    });
    group.finish();
}

criterion_group!(benches, fetch_1mb);
criterion_main!(benches);
