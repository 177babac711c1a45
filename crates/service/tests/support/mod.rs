//! Service test support: the model upstream is the scripted model and the
//! raw HTTP client is the test kit's (ploy-testkit); an attacker's web site
//! on its own loopback port is the test kit's web server. The key panel's
//! harness (`panel`) and the Chromium CDP client (`cdp`) are service-only.
#![allow(dead_code)]

use std::time::Duration;

// Each test file uses some of these.
#[allow(unused_imports)]
pub use ploy_testkit::raw_http::{body, connect, post, raw, status, without_date};
use ploy_testkit::scripted_model::{Script, ScriptedModel, Turn, serve};
use ploy_testkit::{Reply, Routes, WebServer};

/// The model upstream of the gateway tests: a real OpenAI-compatible server
/// (the scripted model) that answers every request with `chunks` pieces of
/// text, `part0 ` … — streamed `pause_ms` apart when the request asks for
/// a stream. It records every request and counts streams that ran to the
/// end (`finished`) and streams whose client went away (`cancelled`).
pub async fn upstream(chunks: usize, pause_ms: u64) -> ScriptedModel {
    let pieces: Vec<String> = (0..chunks).map(|i| format!("part{i} ")).collect();
    serve(Script::new().repeat(Turn::pieces(pieces).pause(Duration::from_millis(pause_ms))))
        .await
        .expect("the scripted model starts")
}

/// An attacker's site on its own loopback port: `GET /` and `GET /page`
/// answer `page`; the page posts what it could see to `POST /report`.
pub struct AttackerSite {
    server: WebServer,
}

impl AttackerSite {
    /// Serves `page`.
    pub async fn start(page: String) -> Self {
        let routes = Routes::new()
            .on("GET", "/", Reply::html(page.as_bytes()))
            .on("GET", "/page", Reply::html(page.as_bytes()))
            .on("POST", "/report", Reply::with_headers(204, &[], ""));
        Self {
            server: WebServer::routes(routes).await,
        }
    }

    /// The site's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.server.addr().port()
    }

    /// The body of the last `POST /report`, once the page has sent one.
    pub fn report(&self) -> Option<String> {
        self.server
            .requests()
            .iter()
            .rev()
            .find(|r| r.method == "POST" && r.path() == "/report")
            .map(|r| r.body_text())
    }
}

pub mod cdp;
pub mod panel;
