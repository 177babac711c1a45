//! Research test support: the backends' public-looking hosts and
//! addresses, fixture pages in each backend's documented format, a `World`
//! (the test kit's loopback seams and fetcher over fixture servers), and an
//! in-process model. The servers, seams and request log are ploy-testkit's;
//! no packet leaves 127.0.0.1.
#![allow(
    dead_code,
    clippy::disallowed_methods,
    clippy::expect_used,
    clippy::unwrap_used,
    missing_docs
)]

use std::{
    net::IpAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use ploy_egress::{Fetcher, StaticResolver};
use ploy_research::{BoxFuture, ModelError, PhraseProposal, ResearchModel};
pub use ploy_testkit::net::MapDial;
use ploy_testkit::net::fetch_config;
pub use ploy_testkit::{Reply, WebServer};

/// Public-looking test addresses (each mapped to one loopback server).
pub const DDG_IP: &str = "93.184.215.14";
pub const WIKI_IP: &str = "93.184.215.15";
pub const PAGES_IP: &str = "93.184.215.16";
pub const SEARX_IP: &str = "93.184.215.17";
pub const DDG_HOST: &str = "html.duckduckgo.com";
pub const WIKI_HOST: &str = "en.wikipedia.org";
pub const PAGES_HOST: &str = "pages.example.org";
pub const SEARX_HOST: &str = "searx.example.net";
/// A name that resolves to a private address.
pub const PRIVATE_HOST: &str = "intranet.example.org";
/// Tavily's API host and its public-looking test address.
pub const TAVILY_HOST: &str = "api.tavily.com";
pub const TAVILY_IP: &str = "93.184.215.18";
/// An operator's SearXNG on a private address (issue 7).
pub const LAN_SEARX_HOST: &str = "searx.lan";
pub const LAN_SEARX_IP: &str = "10.9.8.7";

/// The world of one test: fixture servers for DuckDuckGo, Wikipedia, the
/// pages and SearXNG, a resolver answering public-looking addresses, and a
/// fetcher over them.
pub struct World {
    pub dial: MapDial,
    pub fetcher: Fetcher,
}

impl World {
    /// `servers`: (public IP, server). Names resolve per the fixed table.
    pub fn new(servers: &[(&str, &WebServer)], read_timeout: Duration) -> Self {
        let dial = MapDial::default();
        for (ip, server) in servers {
            dial.map(ip, server.addr());
        }
        let ip = |s: &str| -> IpAddr { s.parse().expect("ip") };
        let resolver = StaticResolver::new([
            (DDG_HOST, vec![ip(DDG_IP)]),
            (WIKI_HOST, vec![ip(WIKI_IP)]),
            (PAGES_HOST, vec![ip(PAGES_IP)]),
            ("slow.example.org", vec![ip(PAGES_IP)]),
            (SEARX_HOST, vec![ip(SEARX_IP)]),
            (PRIVATE_HOST, vec![ip("10.20.30.40")]),
            (TAVILY_HOST, vec![ip(TAVILY_IP)]),
            (LAN_SEARX_HOST, vec![ip(LAN_SEARX_IP)]),
        ]);
        let config = fetch_config(read_timeout);
        let fetcher = Fetcher::new(Arc::new(resolver), Arc::new(dial.clone()), config);
        Self { dial, fetcher }
    }
}

pub fn ddg_url() -> url::Url {
    url::Url::parse(&format!("http://{DDG_HOST}/html/")).expect("url")
}
pub fn wiki_url() -> url::Url {
    url::Url::parse(&format!("http://{WIKI_HOST}/w/api.php")).expect("url")
}
pub fn searx_url() -> url::Url {
    url::Url::parse(&format!("http://{SEARX_HOST}/")).expect("url")
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A DuckDuckGo HTML results page in the endpoint's format: `(url, title,
/// snippet)` per result, links wrapped in `//duckduckgo.com/l/?uddg=`.
pub fn ddg_page(results: &[(&str, &str, &str)]) -> String {
    let mut out = String::from(
        "<!DOCTYPE html><html><head><title>q at DuckDuckGo</title></head><body><div id=\"links\" class=\"results\">\n",
    );
    out.push_str("<div class=\"result results_links results_links_deep result--ad\"><div class=\"links_main\"><h2 class=\"result__title\"><a class=\"result__a\" href=\"https://ad.example.com/\">Sponsored</a></h2></div></div>\n");
    for (url, title, snippet) in results {
        let encoded: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
        out.push_str(&format!(
            "<div class=\"result results_links results_links_deep web-result \"><div class=\"links_main links_deep result__body\">\
             <h2 class=\"result__title\"><a rel=\"nofollow\" class=\"result__a\" href=\"//duckduckgo.com/l/?uddg={encoded}&amp;rut=0f1e\">{}</a></h2>\
             <div class=\"result__extras\"><div class=\"result__extras__url\"><a class=\"result__url\" href=\"x\">{}</a></div></div>\
             <a class=\"result__snippet\" href=\"//duckduckgo.com/l/?uddg={encoded}\">{}</a></div></div>\n",
            escape_html(title),
            escape_html(url),
            snippet
        ));
    }
    out.push_str("</div></body></html>");
    out
}

/// A Wikipedia `formatversion=2` generator=search + extracts response.
pub fn wiki_json(pages: &[(&str, &str)]) -> String {
    let pages: Vec<_> = pages
        .iter()
        .enumerate()
        .map(|(i, (title, extract))| {
            serde_json::json!({
                "pageid": 1000 + i, "ns": 0, "title": title, "index": i + 1,
                "extract": extract,
                "contentmodel": "wikitext", "pagelanguage": "en",
                "fullurl": format!("https://en.wikipedia.org/wiki/{}", title.replace(' ', "_")),
                "canonicalurl": format!("https://en.wikipedia.org/wiki/{}", title.replace(' ', "_")),
            })
        })
        .collect();
    serde_json::json!({"batchcomplete": true, "continue": {"gsroffset": 5, "continue": "gsroffset||"}, "query": {"pages": pages}}).to_string()
}

/// An article page.
pub fn article(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>{title}</title><script>var x=1;</script></head><body>\
         <nav><a href=\"/\">Home</a> | <a href=\"/about\">About</a></nav>\
         <main><h1>{title}</h1><p>{body}</p></main><footer>(c) site</footer></body></html>"
    )
}

/// A scripted in-process model: fixed proposals, records each dossier.
#[derive(Default)]
pub struct ScriptedModel {
    pub phrases: Vec<String>,
    pub another_round: bool,
    pub answer: String,
    pub proposals_asked: Mutex<usize>,
    pub dossiers: Mutex<Vec<String>>,
}

impl ResearchModel for ScriptedModel {
    fn propose_phrases<'a>(
        &'a self,
        _question: &'a str,
        _round: usize,
    ) -> BoxFuture<'a, Result<PhraseProposal, ModelError>> {
        Box::pin(async move {
            *self.proposals_asked.lock().expect("lock") += 1;
            if self.phrases.is_empty() {
                return Err(ModelError::Unavailable("scripted: no phrases".into()));
            }
            Ok(PhraseProposal {
                phrases: self.phrases.clone(),
                another_round: self.another_round,
            })
        })
    }

    fn answer<'a>(&'a self, dossier_json: &'a str) -> BoxFuture<'a, Result<String, ModelError>> {
        Box::pin(async move {
            self.dossiers
                .lock()
                .expect("lock")
                .push(dossier_json.to_owned());
            Ok(self.answer.clone())
        })
    }
}
