//! Benchmarks: HTML → text throughput, and a full run over loopback fixture
//! servers (3 phrases, 10 pages of 1 MB, 50 ms latency per response):
//! total time against the slowest single page and the sum of all pages.
#![allow(
    clippy::disallowed_methods,
    clippy::expect_used,
    clippy::unwrap_used,
    missing_docs
)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::{
    hint::black_box,
    sync::Arc,
    time::{Duration, Instant},
};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ploy_research::{
    DuckDuckGo, Limits, NoStore, Progress, Research, RunRequest, TaintMarker, extract::html_to_text,
};
use ploy_secrets::Redactor;
use ploy_testkit::Received;
use support::*;
use tokio_util::sync::CancellationToken;

const PAGES: usize = 10;
const LATENCY: Duration = Duration::from_millis(50);

fn one_mb_article() -> String {
    article_of(1_000_000)
}

fn article_of(bytes: usize) -> String {
    let paragraph = "<p>The borrow checker enforces <b>ownership</b> rules at compile time; \
        references must not outlive the data they point to, and mutable aliasing is refused. \
        <a href=\"/x\">More</a> about lifetimes &amp; regions.</p>\n";
    let mut body = String::from(
        "<!DOCTYPE html><html><head><title>Article</title><style>p{color:red}</style></head><body>\
         <nav><a href=\"/\">Home</a></nav><main><h1>Article</h1>",
    );
    while body.len() < bytes {
        body.push_str(paragraph);
    }
    body.push_str("</main><footer>f</footer></body></html>");
    body
}

fn extraction(c: &mut Criterion) {
    // Under the parse cap, so every byte is parsed: real parser throughput.
    let html = article_of(500 * 1024);
    let mut group = c.benchmark_group("extract");
    group.throughput(Throughput::Bytes(html.len() as u64));
    group.bench_function("html_to_text_500k", |b| {
        b.iter(|| html_to_text(black_box(&html)))
    });
    group.finish();
}

struct Marks;
impl TaintMarker for Marks {
    fn mark_tainted(&self, _: &str, _: &ploy_policy::TaintMark) -> Result<(), String> {
        Ok(())
    }
}

fn full_run(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let article = one_mb_article();
    let links: Vec<String> = (0..PAGES)
        .map(|i| format!("http://{PAGES_HOST}/page{i}"))
        .collect();
    let (ddg_server, pages, world) = runtime.block_on(async {
        let ddg_server = WebServer::start({
            let links = links.clone();
            // DuckDuckGo gives 5 results a page: the first phrase finds
            // pages 0-4, the others pages 5-9 (and duplicates).
            move |request: &Received| {
                let first = request.query("q").as_deref() == Some("borrow checker");
                let range = if first { 0..5 } else { 5..10 };
                let results: Vec<(&str, &str, &str)> = links[range]
                    .iter()
                    .map(|l| (l.as_str(), "T", "s"))
                    .collect();
                Reply::html(ddg_page(&results)).delayed(LATENCY)
            }
        })
        .await;
        let pages = WebServer::start(move |_| Reply::html(article.clone()).delayed(LATENCY)).await;
        let world = World::new(
            &[(DDG_IP, &ddg_server), (PAGES_IP, &pages)],
            Duration::from_secs(30),
        );
        (ddg_server, pages, world)
    });
    let limits = Limits {
        max_pages: PAGES,
        page_concurrency: PAGES,
        ..Limits::default()
    };
    let research = Research::new(
        world.fetcher.clone(),
        vec![Arc::new(DuckDuckGo::new(ddg_url()))],
        Redactor::empty(),
        limits,
    );
    let model = ScriptedModel {
        phrases: vec![
            "borrow checker".into(),
            "ownership rules".into(),
            "lifetimes".into(),
        ],
        ..ScriptedModel::default()
    };
    let run_once = || {
        runtime.block_on(async {
            let sink = |_: &Progress| {};
            let output = research
                .run(
                    RunRequest {
                        question: "q",
                        conversation_id: "bench",
                        want_answer: false,
                    },
                    Some(&model),
                    &Marks,
                    &sink,
                    &CancellationToken::new(),
                )
                .await
                .unwrap();
            assert_eq!(output.pages_read, PAGES);
        })
    };

    // The reference numbers: each page fetched and extracted alone.
    let single_pages: Vec<Duration> = links
        .iter()
        .map(|link| {
            let start = Instant::now();
            runtime.block_on(async {
                let outcome = world
                    .fetcher
                    .fetch(link, &CancellationToken::new())
                    .await
                    .unwrap();
                if let ploy_egress::FetchOutcome::Page(page) = outcome {
                    black_box(html_to_text(&page.text));
                }
            });
            start.elapsed()
        })
        .collect();
    let slowest = single_pages.iter().max().copied().unwrap_or_default();
    let sum: Duration = single_pages.iter().sum();
    let start = Instant::now();
    run_once();
    let total = start.elapsed();
    eprintln!(
        "research run: total {total:?} (3 phrases + {PAGES} pages of 1 MB, {LATENCY:?} latency); \
         slowest single page {slowest:?}; sum of single pages {sum:?}"
    );

    let mut group = c.benchmark_group("run");
    group.sample_size(10);
    group.bench_function("3_phrases_10_pages_1mb_50ms", |b| b.iter(run_once));
    group.finish();
    let _ = NoStore;
    drop((ddg_server, pages));
}

criterion_group!(benches, extraction, full_run);
criterion_main!(benches);
