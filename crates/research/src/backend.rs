//! Search backends behind one trait. Each one builds its request from a
//! [`SearchPhrase`] (only a scrubbed phrase can be sent), sends it through the
//! egress door, and parses the service's real response format. Every
//! failure is a [`BackendReport`] with a reason (FAIL-1); only cancellation
//! is an error.

use std::{borrow::Cow, fmt, future::Future, pin::Pin, sync::Arc};

use ploy_egress::{Cancelled, Credential, FetchOutcome, Fetcher, OperatorHost, SearchPhrase};
use scraper::{Html, Selector};
use serde::Serialize;
use tokio_util::sync::CancellationToken;
use url::Url;

use crate::extract::{clean, fragment_to_text};

/// A boxed, sendable future (the backend and model traits are object safe).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Results kept per search at most.
pub const HITS_PER_SEARCH: usize = 5;

/// Why something did not work: the requirement behind it and a reason a
/// person can act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// The requirement ID (e.g. `FAIL-1`, `URL-2`, `TAINT-3`).
    pub rule: String,
    /// What happened, for a person.
    pub reason: String,
}

impl Failure {
    /// A failure under `rule`.
    pub fn new(rule: &str, reason: impl Into<String>) -> Self {
        Self {
            rule: rule.to_owned(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.reason)
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The result's title (web text).
    pub title: String,
    /// The result's link.
    pub url: String,
    /// The backend's snippet (web text). Empty when the backend has only
    /// full text: the engine then takes the snippet from the redacted full
    /// text, since a backend must not cut web text before it is redacted.
    pub snippet: String,
    /// The page text, when the backend already returned it (Wikipedia
    /// extracts); such a hit is not fetched again.
    pub full_text: Option<String>,
    /// Which backend found it.
    pub backend: &'static str,
}

/// What one search produced: hits, or a failure with a reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendReport {
    /// The hits (empty on failure).
    pub hits: Vec<SearchHit>,
    /// Why there are no hits, when there are none.
    pub failure: Option<Failure>,
}

impl BackendReport {
    fn hits(hits: Vec<SearchHit>, what: &str) -> Self {
        let failure = hits.is_empty().then(|| {
            Failure::new(
                "FAIL-1",
                format!("{what} returned no results that could be read"),
            )
        });
        Self { hits, failure }
    }

    fn failed(failure: Failure) -> Self {
        Self {
            hits: Vec::new(),
            failure: Some(failure),
        }
    }
}

/// A search service.
pub trait SearchBackend: Send + Sync {
    /// The backend's name (`duckduckgo`, `wikipedia`, `tavily`, `searxng`).
    fn name(&self) -> &'static str;

    /// The endpoint its searches go to. The agent decides each search as a
    /// `web` action on this URL (a rule on its host allows or denies it).
    fn endpoint(&self) -> &Url;

    /// Searches for `phrase`. Every outcome is a report; `Err` only when
    /// `cancel` fires.
    fn search<'a>(
        &'a self,
        phrase: &'a SearchPhrase,
        fetcher: &'a Fetcher,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<BackendReport, Cancelled>>;
}

/// GETs `url` through the door and returns the body text, or a failure.
async fn get_text(
    fetcher: &Fetcher,
    url: &Url,
    cancel: &CancellationToken,
) -> Result<Result<String, Failure>, Cancelled> {
    Ok(outcome_text(fetcher.fetch(url.as_str(), cancel).await?))
}

/// A fetch outcome as text or a failure with the rule that decided it.
pub fn outcome_text(outcome: FetchOutcome) -> Result<String, Failure> {
    match outcome {
        FetchOutcome::Page(page) => Ok(page.text),
        other => Err(outcome_failure(&other)),
    }
}

/// The failure a non-page fetch outcome stands for.
pub fn outcome_failure(outcome: &FetchOutcome) -> Failure {
    match outcome {
        FetchOutcome::Page(_) => Failure::new("FAIL-1", "the page was read"),
        FetchOutcome::Refused(refusal) => Failure::new(refusal.rule, refusal.reason.clone()),
        FetchOutcome::HttpStatus { status, .. } => {
            Failure::new("FAIL-1", format!("the server answered HTTP {status}"))
        }
        FetchOutcome::NetworkError { detail, .. } => {
            Failure::new("FAIL-1", format!("network error: {detail}"))
        }
        FetchOutcome::TimedOut { phase, .. } => {
            Failure::new("FAIL-1", format!("timed out ({phase:?})"))
        }
    }
}

/// Parses and checks a configured base URL (http or https). The host must
/// be written plainly: user info, numeric spellings of an address (hex,
/// octal, integer, short forms) and names ending in a number are refused
/// here, at load (CONFIG-1), because the parsed URL no longer shows how the
/// host was written, and a SearXNG base becomes the operator allowance.
pub fn parse_base(text: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|err| format!("`{text}` is not a URL: {err}"))?;
    if url.scheme() != "https" && url.scheme() != "http" {
        return Err(format!("`{text}`: only http and https are allowed"));
    }
    OperatorHost::from_base_url(text).map_err(|refusal| refusal.reason)?;
    Ok(url)
}

/// DuckDuckGo's HTML endpoint (`https://html.duckduckgo.com/html/?q=…`).
#[derive(Debug, Clone)]
pub struct DuckDuckGo {
    base: Url,
}

impl DuckDuckGo {
    /// The public endpoint.
    pub const DEFAULT_URL: &'static str = "https://html.duckduckgo.com/html/";

    /// A backend on `base` (the `/html/` endpoint URL).
    pub fn new(base: Url) -> Self {
        Self { base }
    }

    fn request_url(&self, phrase: &SearchPhrase) -> Url {
        let mut url = self.base.clone();
        url.query_pairs_mut()
            .clear()
            .append_pair("q", phrase.as_str());
        url
    }
}

impl SearchBackend for DuckDuckGo {
    fn name(&self) -> &'static str {
        "duckduckgo"
    }

    fn endpoint(&self) -> &Url {
        &self.base
    }

    fn search<'a>(
        &'a self,
        phrase: &'a SearchPhrase,
        fetcher: &'a Fetcher,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<BackendReport, Cancelled>> {
        Box::pin(async move {
            let url = self.request_url(phrase);
            Ok(match get_text(fetcher, &url, cancel).await? {
                Ok(body) => BackendReport::hits(parse_duckduckgo(&body, &self.base), "duckduckgo"),
                Err(failure) => BackendReport::failed(failure),
            })
        })
    }
}

/// Parses DuckDuckGo's HTML results page: `div.result` blocks (ads skipped)
/// with `a.result__a` (the link, often `//duckduckgo.com/l/?uddg=<target>`)
/// and `.result__snippet`.
pub fn parse_duckduckgo(body: &str, base: &Url) -> Vec<SearchHit> {
    let document = Html::parse_document(body);
    let (Ok(result), Ok(link), Ok(snippet)) = (
        Selector::parse("div.result"),
        Selector::parse("a.result__a"),
        Selector::parse(".result__snippet"),
    ) else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    for block in document.select(&result) {
        if block.value().classes().any(|class| class == "result--ad") {
            continue;
        }
        let Some(anchor) = block.select(&link).next() else {
            continue;
        };
        let Some(target) = anchor
            .value()
            .attr("href")
            .and_then(|href| duckduckgo_target(href, base))
        else {
            continue;
        };
        let title = clean(&anchor.text().collect::<String>());
        let snippet = block
            .select(&snippet)
            .next()
            .map(|s| fragment_to_text(&s.inner_html()))
            .unwrap_or_default();
        hits.push(SearchHit {
            title,
            url: target,
            snippet,
            full_text: None,
            backend: "duckduckgo",
        });
        if hits.len() == HITS_PER_SEARCH {
            break;
        }
    }
    hits
}

/// The real target of a DuckDuckGo result link: the `uddg` parameter of its
/// redirect link, or the link itself when it is already absolute.
fn duckduckgo_target(href: &str, base: &Url) -> Option<String> {
    let joined = base.join(href).ok()?;
    let target = joined
        .query_pairs()
        .find(|(key, _)| key == "uddg")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_else(|| joined.to_string());
    let target = Url::parse(&target).ok()?;
    matches!(target.scheme(), "http" | "https").then(|| target.to_string())
}

/// Wikipedia: one call to the search generator with intro extracts
/// (`action=query&generator=search&prop=extracts|info`), so each hit carries
/// its text and no page needs a second fetch.
#[derive(Debug, Clone)]
pub struct Wikipedia {
    api: Url,
}

impl Wikipedia {
    /// The API URL for a language (`https://{lang}.wikipedia.org/w/api.php`).
    pub fn for_language(language: &str) -> Result<Self, String> {
        if language.is_empty()
            || language.len() > 12
            || !language.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        {
            return Err(format!(
                "wikipedia language `{language}` is not a language code (like `en` or `pt`)"
            ));
        }
        let api = parse_base(&format!("https://{language}.wikipedia.org/w/api.php"))?;
        Ok(Self { api })
    }

    /// A backend on another API URL (a mirror, or a test fixture).
    pub fn new(api: Url) -> Self {
        Self { api }
    }

    fn request_url(&self, phrase: &SearchPhrase) -> Url {
        let mut url = self.api.clone();
        url.query_pairs_mut()
            .clear()
            .append_pair("action", "query")
            .append_pair("format", "json")
            .append_pair("formatversion", "2")
            .append_pair("generator", "search")
            .append_pair("gsrsearch", phrase.as_str())
            .append_pair("gsrlimit", &HITS_PER_SEARCH.to_string())
            .append_pair("prop", "extracts|info")
            .append_pair("inprop", "url")
            .append_pair("exintro", "1")
            .append_pair("explaintext", "1")
            .append_pair("exlimit", "max");
        url
    }
}

impl SearchBackend for Wikipedia {
    fn name(&self) -> &'static str {
        "wikipedia"
    }

    fn endpoint(&self) -> &Url {
        &self.api
    }

    fn search<'a>(
        &'a self,
        phrase: &'a SearchPhrase,
        fetcher: &'a Fetcher,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<BackendReport, Cancelled>> {
        Box::pin(async move {
            let url = self.request_url(phrase);
            Ok(match get_text(fetcher, &url, cancel).await? {
                Ok(body) => match parse_wikipedia(&body) {
                    Ok(hits) => BackendReport::hits(hits, "wikipedia"),
                    Err(failure) => BackendReport::failed(failure),
                },
                Err(failure) => BackendReport::failed(failure),
            })
        })
    }
}

#[derive(serde::Deserialize)]
struct WikiResponse {
    #[serde(default)]
    query: Option<WikiQuery>,
}

#[derive(serde::Deserialize)]
struct WikiQuery {
    #[serde(default)]
    pages: Vec<WikiPage>,
}

#[derive(serde::Deserialize)]
struct WikiPage {
    #[serde(default)]
    title: String,
    #[serde(default)]
    index: u32,
    #[serde(default)]
    extract: String,
    #[serde(default)]
    fullurl: Option<String>,
}

/// Parses a `formatversion=2` query response: `query.pages[]` with `title`,
/// `index` (search rank), `extract` and `fullurl`. No `query` key means no
/// results.
pub fn parse_wikipedia(body: &str) -> Result<Vec<SearchHit>, Failure> {
    let response: WikiResponse = serde_json::from_str(body).map_err(|err| {
        Failure::new(
            "FAIL-1",
            format!("wikipedia answered something that is not its JSON format ({err})"),
        )
    })?;
    let mut pages = response.query.map(|q| q.pages).unwrap_or_default();
    pages.sort_by_key(|page| page.index);
    Ok(pages
        .into_iter()
        .filter_map(|page| {
            let url = Url::parse(page.fullurl.as_deref()?).ok()?;
            let text = clean(&page.extract);
            Some(SearchHit {
                title: clean(&page.title),
                url: url.to_string(),
                // The engine takes the snippet from the text after redacting
                // it (a cut here could leave the start of a secret).
                snippet: String::new(),
                full_text: Some(text),
                backend: "wikipedia",
            })
        })
        .take(HITS_PER_SEARCH)
        .collect())
}

/// A self-hosted SearXNG instance (`{base}/search?q=…&format=json`). Its
/// base URL is operator configuration, so its exact host and port may be a
/// private or loopback address (issue 7): this backend's requests, and only
/// they, go through a fetcher that lets that one host through
/// ([`Fetcher::with_operator_host`]). Result pages it lists are read by the
/// engine's ordinary fetcher, under the normal rules.
#[derive(Debug, Clone)]
pub struct Searxng {
    base: Url,
    operator: Option<OperatorHost>,
}

impl Searxng {
    /// A backend on the operator's instance. `base` must come from the
    /// operator's configuration file (`searxng_url` in `research.json`),
    /// never from a model or a page. A base whose host is written in a form
    /// the operator allowance does not accept (a numeric spelling, user
    /// info) gets no allowance and is judged by the normal rules.
    pub fn new(base: Url) -> Self {
        let operator = OperatorHost::from_base_url(base.as_str()).ok();
        Self { base, operator }
    }

    /// The host and port let past the address policy, if any.
    pub fn operator_host(&self) -> Option<&OperatorHost> {
        self.operator.as_ref()
    }
}

impl SearchBackend for Searxng {
    fn name(&self) -> &'static str {
        "searxng"
    }

    fn endpoint(&self) -> &Url {
        &self.base
    }

    fn search<'a>(
        &'a self,
        phrase: &'a SearchPhrase,
        fetcher: &'a Fetcher,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<BackendReport, Cancelled>> {
        Box::pin(async move {
            let Ok(mut url) = self.base.join("search") else {
                return Ok(BackendReport::failed(Failure::new(
                    "CONFIG-1",
                    "the searxng base URL cannot take a /search path",
                )));
            };
            url.query_pairs_mut()
                .clear()
                .append_pair("q", phrase.as_str())
                .append_pair("format", "json");
            let fetcher = match &self.operator {
                Some(operator) => Cow::Owned(fetcher.with_operator_host(operator.clone())),
                None => Cow::Borrowed(fetcher),
            };
            Ok(match get_text(&fetcher, &url, cancel).await? {
                Ok(body) => match parse_searxng(&body) {
                    Ok(hits) => BackendReport::hits(hits, "searxng"),
                    Err(failure) => BackendReport::failed(failure),
                },
                Err(failure) => BackendReport::failed(failure),
            })
        })
    }
}

#[derive(serde::Deserialize)]
struct ResultList {
    #[serde(default)]
    results: Vec<ResultItem>,
}

#[derive(serde::Deserialize)]
struct ResultItem {
    #[serde(default)]
    title: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    content: String,
}

fn parse_result_list(body: &str, backend: &'static str) -> Result<Vec<SearchHit>, Failure> {
    let list: ResultList = serde_json::from_str(body).map_err(|err| {
        Failure::new(
            "FAIL-1",
            format!("{backend} answered something that is not its JSON format ({err})"),
        )
    })?;
    Ok(list
        .results
        .into_iter()
        .filter_map(|item| {
            let url = Url::parse(&item.url).ok()?;
            matches!(url.scheme(), "http" | "https").then(|| SearchHit {
                title: clean(&item.title),
                url: url.to_string(),
                snippet: clean(&item.content),
                full_text: None,
                backend,
            })
        })
        .take(HITS_PER_SEARCH)
        .collect())
}

/// Parses SearXNG's JSON format: `results[]` with `url`, `title`, `content`.
pub fn parse_searxng(body: &str) -> Result<Vec<SearchHit>, Failure> {
    parse_result_list(body, "searxng")
}

/// Parses Tavily's search response: `results[]` with `title`, `url`,
/// `content` (and `raw_content`, never requested and ignored if present).
pub fn parse_tavily(body: &str) -> Result<Vec<SearchHit>, Failure> {
    parse_result_list(body, "tavily")
}

/// A JSON POST through the egress door (Tavily's API is a POST). The
/// production implementation is [`Fetcher`] itself ([`Fetcher::post_json`]:
/// the same pipeline as a GET, fixed headers, redirects refused, the key
/// only to the origin its [`Credential`] was declared for).
pub trait PostJson: Send + Sync {
    /// POSTs `body` to `url` with `Authorization: Bearer <key>`.
    fn post_json<'a>(
        &'a self,
        url: &'a str,
        credential: &'a Credential,
        body: Vec<u8>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<FetchOutcome, Cancelled>>;
}

impl PostJson for Fetcher {
    fn post_json<'a>(
        &'a self,
        url: &'a str,
        credential: &'a Credential,
        body: Vec<u8>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<FetchOutcome, Cancelled>> {
        Box::pin(Fetcher::post_json(self, url, credential, body, cancel))
    }
}

/// Tavily API keys, in memory only (STATE-1), from `PLOY_TAVILY_KEYS`
/// (comma- or space-separated) or the key panel. Never from files.
#[derive(Clone, Default)]
pub struct TavilyKeys {
    keys: Vec<String>,
}

impl fmt::Debug for TavilyKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Keys are named only by mask (REDACT-1).
        f.debug_list()
            .entries(self.keys.iter().map(|key| ploy_secrets::mask(key)))
            .finish()
    }
}

impl TavilyKeys {
    /// The environment variable holding the keys.
    pub const ENV: &'static str = "PLOY_TAVILY_KEYS";

    /// Keys from a variable's value (`None` or blank: no keys).
    pub fn parse(value: Option<&str>) -> Self {
        let keys = value
            .unwrap_or_default()
            .split([',', ' ', '\n', '\t'])
            .map(str::trim)
            .filter(|key| !key.is_empty())
            .map(str::to_owned)
            .collect();
        Self { keys }
    }

    /// Keys from [`TavilyKeys::ENV`].
    pub fn from_env() -> Self {
        Self::parse(std::env::var(Self::ENV).ok().as_deref())
    }

    /// Keys given one by one, in the order they are tried (the service's
    /// key store, STATE-1). Blank values are left out.
    pub fn from_values<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let keys = values
            .into_iter()
            .map(Into::into)
            .filter(|key: &String| !key.trim().is_empty())
            .collect();
        Self { keys }
    }

    /// Whether there is no key (Tavily is then unavailable, A-6).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key values, for the redactor.
    pub fn values(&self) -> &[String] {
        &self.keys
    }
}

/// Tavily's search API (`POST {base}/search`, key as a bearer token,
/// `include_raw_content` never sent).
pub struct Tavily {
    base: Url,
    keys: TavilyKeys,
    poster: Option<Arc<dyn PostJson>>,
}

impl fmt::Debug for Tavily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tavily")
            .field("base", &self.base.as_str())
            .field("keys", &self.keys)
            .finish_non_exhaustive()
    }
}

impl Tavily {
    /// The public API.
    pub const DEFAULT_URL: &'static str = "https://api.tavily.com/";

    /// A backend; `None` when there are no keys (Tavily is then simply not
    /// offered, A-6). `poster` is the egress POST entry; without one every
    /// search reports that Tavily cannot be reached yet.
    pub fn new(base: Url, keys: TavilyKeys, poster: Option<Arc<dyn PostJson>>) -> Option<Self> {
        (!keys.is_empty()).then_some(Self { base, keys, poster })
    }

    /// The request body: the phrase and fixed options; raw page content is
    /// never asked for (T-3).
    pub fn request_body(phrase: &SearchPhrase) -> Vec<u8> {
        serde_json::json!({
            "query": phrase.as_str(),
            "search_depth": "basic",
            "max_results": HITS_PER_SEARCH,
            "include_answer": false,
            "include_images": false,
        })
        .to_string()
        .into_bytes()
    }
}

impl SearchBackend for Tavily {
    fn name(&self) -> &'static str {
        "tavily"
    }

    fn endpoint(&self) -> &Url {
        &self.base
    }

    fn search<'a>(
        &'a self,
        phrase: &'a SearchPhrase,
        _fetcher: &'a Fetcher,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<BackendReport, Cancelled>> {
        Box::pin(async move {
            let Some(poster) = &self.poster else {
                return Ok(BackendReport::failed(Failure::new(
                    "FAIL-1",
                    "tavily was built without a POST transport (pass the fetcher as the poster); use duckduckgo or wikipedia",
                )));
            };
            let Ok(url) = self.base.join("search") else {
                return Ok(BackendReport::failed(Failure::new(
                    "CONFIG-1",
                    "the tavily base URL cannot take a /search path",
                )));
            };
            // Keys are tried in order: a key refused (401/429) passes to the next.
            let mut last = Failure::new("FAIL-1", "no tavily key");
            for key in self.keys.values() {
                // BEYOND-6's one exception, declared here where the backend
                // is defined: this key may go to the configured Tavily
                // origin, in the Authorization header, and nowhere else.
                let Some(credential) = Credential::bearer_for(key, self.base.as_str()) else {
                    return Ok(BackendReport::failed(Failure::new(
                        "CONFIG-1",
                        "the tavily base URL is not an http(s) URL with a host",
                    )));
                };
                let outcome = poster
                    .post_json(
                        url.as_str(),
                        &credential,
                        Self::request_body(phrase),
                        cancel,
                    )
                    .await?;
                match outcome {
                    FetchOutcome::Page(page) => {
                        return Ok(match parse_tavily(&page.text) {
                            Ok(hits) => BackendReport::hits(hits, "tavily"),
                            Err(failure) => BackendReport::failed(failure),
                        });
                    }
                    FetchOutcome::HttpStatus { status, .. }
                        if matches!(status, 401 | 403 | 429) =>
                    {
                        last = Failure::new(
                            "FAIL-1",
                            format!(
                                "tavily refused key {} (HTTP {status})",
                                ploy_secrets::mask(key)
                            ),
                        );
                    }
                    other => return Ok(BackendReport::failed(outcome_failure(&other))),
                }
            }
            Ok(BackendReport::failed(last))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse(DuckDuckGo::DEFAULT_URL).unwrap_or_else(|_| unreachable!())
    }

    #[test]
    fn duckduckgo_results_decode_redirect_links_and_skip_ads() {
        let body = r#"<html><body>
        <div class="result results_links result--ad"><h2 class="result__title">
          <a class="result__a" href="https://ads.example/x">Ad</a></h2></div>
        <div class="result results_links results_links_deep web-result">
          <h2 class="result__title"><a rel="nofollow" class="result__a"
             href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdoc.rust-lang.org%2Fbook%2F&amp;rut=abc">The Rust <b>Book</b></a></h2>
          <a class="result__snippet" href="x">Learn <b>Rust</b> here.</a></div>
        <div class="result"><a class="result__a" href="javascript:alert(1)">bad</a></div>
        </body></html>"#;
        let hits = parse_duckduckgo(body, &base());
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].url, "https://doc.rust-lang.org/book/");
        assert_eq!(hits[0].title, "The Rust Book");
        assert_eq!(hits[0].snippet, "Learn Rust here.");
    }

    #[test]
    fn wikipedia_hits_are_ranked_and_carry_extracts() {
        let body = r#"{"batchcomplete":true,"query":{"pages":[
          {"pageid":2,"ns":0,"title":"B","index":2,"extract":"Second.","fullurl":"https://en.wikipedia.org/wiki/B"},
          {"pageid":1,"ns":0,"title":"A","index":1,"extract":"First.","fullurl":"https://en.wikipedia.org/wiki/A"}]}}"#;
        let hits = parse_wikipedia(body).unwrap_or_default();
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].title, "A");
        assert_eq!(hits[0].full_text.as_deref(), Some("First."));
        assert!(parse_wikipedia(r#"{"batchcomplete":true}"#).is_ok_and(|h| h.is_empty()));
        assert!(parse_wikipedia("<html>").is_err());
    }

    // proves: CONFIG-1
    #[test]
    fn wikipedia_language_is_validated() {
        assert!(Wikipedia::for_language("pt").is_ok());
        for bad in ["", "EN", "en.evil.com/x?", "../", "a".repeat(20).as_str()] {
            assert!(Wikipedia::for_language(bad).is_err(), "{bad}");
        }
    }

    // proves: A-6 (no keys: Tavily is unavailable, nothing crashes)
    #[test]
    fn tavily_without_keys_is_not_offered() {
        let keys = TavilyKeys::parse(Some("  , "));
        assert!(keys.is_empty());
        assert!(Tavily::new(base(), keys, None).is_none());
        assert!(Tavily::new(base(), TavilyKeys::parse(None), None).is_none());
    }

    // proves: CAP-1 (T-3: include_raw_content is never sent)
    #[test]
    fn tavily_body_never_asks_for_raw_content() {
        let phrase = ploy_egress::scrub("rust book", &ploy_secrets::Redactor::empty())
            .into_phrase()
            .unwrap_or_else(|| unreachable!());
        let body = String::from_utf8(Tavily::request_body(&phrase)).unwrap_or_default();
        assert!(!body.contains("raw_content"), "{body}");
        assert!(
            !body.contains("api_key"),
            "the key goes in a header: {body}"
        );
    }

    // proves: REDACT-1 (keys named only by mask in Debug)
    #[test]
    fn tavily_keys_debug_is_masked() {
        let keys = TavilyKeys::parse(Some("tvly-AAAABBBBCCCCDDDD1234"));
        let shown = format!("{keys:?}");
        assert!(!shown.contains("tvly-AAAA"), "{shown}");
        assert!(shown.contains("1234"), "{shown}");
    }
}
