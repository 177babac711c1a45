//! A 1 MB page from a loopback server: the guarded fetcher (text check,
//! resolve, address check, pinned dial, header policy, streamed capped body,
//! charset decode) side by side with a plain hyper GET of the same page.
//! Both open a new connection per request. `bench/fetch_vs_plain.sh` prints
//! the ratio (target: the guard costs at most 10% more).

#![allow(missing_docs, clippy::disallowed_methods, clippy::expect_used)]

use std::{hint::black_box, sync::Arc};

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use ploy_egress::{FetchConfig, FetchOutcome, Fetcher, StaticResolver, default_tls_config};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

const PAGE_BYTES: usize = 1024 * 1024;
const PUBLIC: &str = ploy_testkit::net::PUB_A;

fn fetch_1mb(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // The shared fixture server (ploy-testkit), answering the page.
    let page = ploy_testkit::Reply::html(vec![b'a'; PAGE_BYTES]);
    let web = rt.block_on(ploy_testkit::WebServer::start(move |_| page.clone()));
    let server = web.addr();
    let dial = ploy_testkit::net::MapDial::default();
    dial.map(PUBLIC, server);

    let resolver = StaticResolver::new([("bench.example.com", vec![PUBLIC.parse().expect("ip")])]);
    let fetcher = Fetcher::new(
        Arc::new(resolver),
        Arc::new(dial),
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
