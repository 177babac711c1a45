//! `proof_check` round trip through the MCP protocol: rmcp's client and
//! ploy's server in one process over an in-memory pipe, so the figure is
//! the protocol, the dispatch and the validator (target: under 1 ms after
//! start). `ploy mcp` adds only the stdio pipe to this.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use ploy_dirs::PloyDirs;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("ploy-mcp-bench-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("config")).unwrap();
    std::fs::create_dir_all(dir.join("state")).unwrap();
    std::fs::create_dir_all(dir.join("proj")).unwrap();
    std::fs::write(
        dir.join("config/settings.json"),
        r#"{"security_profile": {"sandbox": "workspace-write", "approval": "ask"}}"#,
    )
    .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = ploy_mcp::Server::new(ploy_mcp::Options {
        dirs: PloyDirs::new(dir.join("config"), dir.join("state")),
        project: dir.join("proj"),
        hosts: None,
        session: None,
    })
    .unwrap();
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let client = runtime.block_on(async move {
        tokio::spawn(async move {
            let running = ploy_mcp::Handler::new(server)
                .serve(server_io)
                .await
                .unwrap();
            let _ = running.waiting().await;
        });
        ().serve(client_io).await.unwrap()
    });
    let mut params = CallToolRequestParams::new("proof_check");
    params.arguments = json!({"line": "cargo test -q --all && grep -q \"fn main\" src/main.rs"})
        .as_object()
        .cloned();
    c.bench_function("mcp proof_check round trip", |b| {
        b.iter(|| {
            let result = runtime.block_on(client.call_tool(params.clone())).unwrap();
            assert_eq!(result.is_error, Some(false));
        })
    });
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
