//! The browser tools (BROWSER-1, BROWSER-2, BEYOND-2): `browser_open{url}`,
//! `browser_read{}`, `browser_find{text}`, `browser_click{link}`,
//! `browser_type{field, text, submit?}` — a text browser over the egress
//! door.
//!
//! A page is fetched through the guarded fetcher (the URL, address and
//! redirect checks, the secret door; no cookies, no scripts) and shown as
//! readable text with numbered links and numbered form fields. Every page
//! marks the conversation durably *before* its text is returned, and the
//! text is dropped when the mark cannot be written (TAINT-1, TAINT-3).
//!
//! Every navigation — `open`, `click`, a submitted `type`, and each redirect
//! of theirs — is an [`Action::navigate`]: the site rule
//! ([`ploy_policy::site_rule`]) holds it once a page has been read (a site
//! not yet visited asks, refused where nobody can answer; a redirect to one
//! is refused), and the first address passes the door's URL checks like any
//! other. Forms: a GET form is submitted as a URL (which the door checks for
//! secrets, BEYOND-6); a POST form only to a site already visited in this
//! conversation ([`Action::form_post`]: any other site is denied, nobody is
//! asked), its body checked by the door (BEYOND-6), a 303 after it followed
//! as a GET under the site rule, a 307/308 refused
//! ([`ploy_egress::Fetcher::post_form`]).
//!
//! The browser's state (the current page) belongs to the tools of one
//! session, so one conversation.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use ploy_egress::{FetchOutcome, Page};
use ploy_policy::{Action, TaintMark, TaintSource};
use ploy_research::TaintMarker;
use ploy_research::extract::{clean, html_to_text, plain_to_text, strip_hidden};
use scraper::{ElementRef, Html, Selector};
use serde_json::{Value, json};

use crate::tool::{
    BoxFuture, Cleared, Prepared, Tool, ToolContext, ToolError, ToolOutput, ToolSpec,
    cleared_string, one_string_schema, only_args, str_arg,
};
use crate::tools::web::{WebEngine, navigation_gate, prepare_navigation};

/// The most page text one result shows (the dispatcher's 50 KiB cap is the
/// last word; links and fields need room too).
const MAX_TEXT_BYTES: usize = 24 * 1024;
/// Links and fields listed at most.
const MAX_ITEMS: usize = 200;
/// Lines `browser_find` returns at most.
const MAX_FOUND: usize = 50;

/// A link of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Its text.
    pub text: String,
    /// The absolute URL (http or https only).
    pub url: String,
}

/// A form field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Which form (index into [`BrowserPage::forms`]).
    pub form: usize,
    /// The field's name (what is sent).
    pub name: String,
    /// `text`, `search`, `email`, `hidden`, `textarea`...
    pub kind: String,
    /// The value (the page's, or what `browser_type` set).
    pub value: String,
}

/// A form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    /// The absolute action URL.
    pub action: String,
    /// `get` or `post` (lower case).
    pub method: String,
}

/// A page as the browser tools show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserPage {
    /// The URL it came from (after redirects).
    pub url: String,
    /// The title.
    pub title: String,
    /// The readable text (cleaned, hidden characters removed).
    pub text: String,
    /// Numbered links (1-based in what the model sees).
    pub links: Vec<Link>,
    /// The forms.
    pub forms: Vec<Form>,
    /// Numbered fields (1-based in what the model sees).
    pub fields: Vec<Field>,
}

fn absolute(base: &url::Url, href: &str) -> Option<String> {
    let joined = base.join(href.trim()).ok()?;
    matches!(joined.scheme(), "http" | "https").then(|| {
        let mut joined = joined;
        joined.set_fragment(None);
        joined.to_string()
    })
}

fn element_text(element: ElementRef<'_>) -> String {
    let text: String = element.text().collect::<Vec<_>>().join(" ");
    clean(&strip_hidden(&text))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn selector(css: &str) -> Option<Selector> {
    Selector::parse(css).ok()
}

/// Parse a fetched page (pure): its text, links and forms.
pub fn parse_page(page_url: &str, content_type: &str, body: &str) -> BrowserPage {
    let base = url::Url::parse(page_url).ok();
    if content_type != "text/html" && content_type != "application/xhtml+xml" {
        return BrowserPage {
            url: page_url.to_string(),
            title: String::new(),
            text: strip_hidden(&plain_to_text(body)),
            links: Vec::new(),
            forms: Vec::new(),
            fields: Vec::new(),
        };
    }
    let extracted = html_to_text(body);
    let mut page = BrowserPage {
        url: page_url.to_string(),
        title: strip_hidden(&extracted.title),
        text: strip_hidden(&extracted.text),
        links: Vec::new(),
        forms: Vec::new(),
        fields: Vec::new(),
    };
    let Some(base) = base else {
        return page;
    };
    let html = Html::parse_document(ploy_secrets::cap::truncate_on_char_boundary(
        body,
        ploy_research::extract::MAX_PARSED_HTML_BYTES,
    ));
    if let Some(anchors) = selector("a[href]") {
        for anchor in html.select(&anchors).take(MAX_ITEMS) {
            if let Some(url) = anchor.value().attr("href").and_then(|h| absolute(&base, h)) {
                page.links.push(Link {
                    text: element_text(anchor),
                    url,
                });
            }
        }
    }
    let (Some(forms), Some(inputs)) = (selector("form"), selector("input[name], textarea[name]"))
    else {
        return page;
    };
    for form in html.select(&forms) {
        let action = form.value().attr("action").unwrap_or("");
        let Some(action) = absolute(&base, action) else {
            continue;
        };
        let method = form
            .value()
            .attr("method")
            .unwrap_or("get")
            .trim()
            .to_ascii_lowercase();
        let index = page.forms.len();
        page.forms.push(Form { action, method });
        for input in form.select(&inputs) {
            if page.fields.len() >= MAX_ITEMS {
                break;
            }
            let element = input.value();
            let kind = if element.name() == "textarea" {
                "textarea".to_string()
            } else {
                element.attr("type").unwrap_or("text").to_ascii_lowercase()
            };
            if matches!(
                kind.as_str(),
                "submit" | "button" | "image" | "reset" | "file" | "checkbox" | "radio"
            ) {
                continue;
            }
            let value = if element.name() == "textarea" {
                input.text().collect()
            } else {
                element.attr("value").unwrap_or("").to_string()
            };
            page.fields.push(Field {
                form: index,
                name: element.attr("name").unwrap_or("").to_string(),
                kind,
                value,
            });
        }
    }
    page
}

/// The page as the model reads it.
pub fn render(page: &BrowserPage) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", ploy_research::UNTRUSTED_NOTICE);
    let _ = writeln!(out, "URL: {}", page.url);
    if !page.title.is_empty() {
        let _ = writeln!(out, "Title: {}", page.title);
    }
    out.push('\n');
    out.push_str(ploy_secrets::cap::truncate_on_char_boundary(
        &page.text,
        MAX_TEXT_BYTES,
    ));
    if page.text.len() > MAX_TEXT_BYTES {
        out.push_str("\n[the page text was cut]");
    }
    if !page.links.is_empty() {
        out.push_str("\n\nLinks (browser_click{link: N}):\n");
        for (i, link) in page.links.iter().enumerate() {
            let _ = writeln!(out, "[{}] {} -> {}", i + 1, link.text, link.url);
        }
    }
    if !page.fields.is_empty() {
        out.push_str("\nForm fields (browser_type{field: N, text}):\n");
        for (i, field) in page.fields.iter().enumerate() {
            let form = &page.forms[field.form];
            let _ = writeln!(
                out,
                "[{}] {} ({}) = {:?} in form {} ({} {})",
                i + 1,
                field.name,
                field.kind,
                field.value,
                field.form + 1,
                form.method.to_uppercase(),
                form.action
            );
        }
    }
    out
}

/// The URL a GET form sends: its action with every field as a query pair
/// (the action's own query is replaced, as browsers do).
pub fn get_form_url(page: &BrowserPage, form: usize) -> Result<String, ToolError> {
    let action = &page.forms[form].action;
    let mut url = url::Url::parse(action)
        .map_err(|err| ToolError::new(format!("the form's action is not a URL ({err})")))?;
    url.set_query(None);
    {
        let mut pairs = url.query_pairs_mut();
        for field in page.fields.iter().filter(|f| f.form == form) {
            pairs.append_pair(&field.name, &field.value);
        }
    }
    Ok(url.to_string())
}

/// The body a POST form sends: every field of `form` as
/// `application/x-www-form-urlencoded` pairs.
pub fn post_form_body(page: &BrowserPage, form: usize) -> String {
    let mut body = url::form_urlencoded::Serializer::new(String::new());
    for field in page.fields.iter().filter(|f| f.form == form) {
        body.append_pair(&field.name, &field.value);
    }
    body.finish()
}

/// One navigation's request.
enum Request {
    /// A GET of this URL.
    Get(String),
    /// A form POSTed to `url`.
    Form { url: String, body: String },
}

impl Request {
    fn url(&self) -> &str {
        match self {
            Request::Get(url) | Request::Form { url, .. } => url,
        }
    }
}

/// The browser's state, shared by the five tools of one session.
#[derive(Debug, Default)]
pub struct Browser {
    page: Mutex<Option<BrowserPage>>,
}

impl Browser {
    fn current(&self) -> Result<BrowserPage, ToolError> {
        self.page
            .lock()
            .map_err(|_| ToolError::new("the browser state is unusable (a lock was poisoned)"))?
            .clone()
            .ok_or_else(|| ToolError::new("no page is open; use browser_open{url} first"))
    }

    fn set(&self, page: BrowserPage) {
        if let Ok(mut current) = self.page.lock() {
            *current = Some(page);
        }
    }
}

/// The five browser tools, sharing one [`Browser`].
pub fn tools() -> Vec<Arc<dyn Tool>> {
    let browser = Arc::new(Browser::default());
    vec![
        Arc::new(BrowserOpen(browser.clone())),
        Arc::new(BrowserRead(browser.clone())),
        Arc::new(BrowserFind(browser.clone())),
        Arc::new(BrowserClick(browser.clone())),
        Arc::new(BrowserType(browser)),
    ]
}

fn engine(ctx: &ToolContext) -> Result<&Arc<WebEngine>, ToolError> {
    ctx.web
        .as_ref()
        .ok_or_else(|| {
            ToolError::new("the browser tools are not set up in this run (no web engine)")
        })?
        .get()
}

/// Fetch (or POST) `request` as the navigation of `tool`, mark the
/// conversation, record the site, keep the page and return its text.
async fn navigate(
    browser: &Browser,
    tool: &'static str,
    request: Request,
    ctx: &ToolContext,
) -> ToolOutput {
    let url = request.url();
    let engine = match engine(ctx) {
        Ok(engine) => engine,
        Err(err) => return ToolOutput::error(tool, &err),
    };
    // TAINT-1 / TAINT-3: marked durably BEFORE anything of the response
    // reaches the model. A failed navigation's error carries text the
    // server chose (a redirect's Location or host name, a media type), so
    // marking only once a page was read let that text into a clean
    // conversation (outside attacker tui-rpc #6). No mark, no fetch.
    // An address the text check refuses is refused before anyone is
    // contacted, so nothing of a server's can come back: no mark needed.
    if let Err(refusal) = ploy_egress::check_url_text(url) {
        return refused(engine, tool, &refusal);
    }
    if let Err(refused) = mark(engine, tool, url, ctx) {
        return refused;
    }
    // Every hop, redirects included, passes the site rule (BROWSER-2).
    let fetcher =
        engine
            .research
            .fetcher()
            .with_hop_gate(navigation_gate(engine.policy.clone(), tool, url));
    let fetched = match &request {
        Request::Get(url) => fetcher.fetch(url, &ctx.cancel).await,
        Request::Form { url, body } => {
            fetcher
                .post_form(url, body.clone().into_bytes(), &ctx.cancel)
                .await
        }
    };
    let outcome = match fetched {
        Ok(outcome) => outcome,
        Err(_) => return ToolOutput::error(tool, &ToolError::rule("CANCEL-1", "cancelled")),
    };
    let page: Page = match outcome {
        FetchOutcome::Page(page) => page,
        FetchOutcome::Refused(refusal) => return refused(engine, tool, &refusal),
        other => {
            let text = serde_json::to_string(&other).unwrap_or_else(|_| "failed".into());
            return ToolOutput::error(
                tool,
                &ToolError::rule("FAIL-1", format!("the page was not read: {text}")),
            );
        }
    };
    // A redirect ended elsewhere: the mark also names where the text came
    // from (the person's prompt says which page took `always` away).
    if page.final_url != url
        && let Err(refused) = mark(engine, tool, &page.final_url, ctx)
    {
        return refused;
    }
    ctx.marker.visit_url(&ctx.conversation_id, &page.final_url);
    let parsed = parse_page(&page.final_url, &page.content_type, &page.text);
    let text = render(&parsed);
    browser.set(parsed);
    ToolOutput::ok(text)
}

/// The door's refusal as the tool's error (its reason redacted).
fn refused(engine: &WebEngine, tool: &str, refusal: &ploy_egress::Refusal) -> ToolOutput {
    ToolOutput::error(
        tool,
        &ToolError::rule(
            refusal.rule,
            format!(
                "{}; nothing was read",
                engine.redactor.redact(&refusal.reason)
            ),
        ),
    )
}

/// Mark the conversation tainted by `tool` reading `url`; the refusal
/// to return when the mark cannot be written (TAINT-3: nothing is read).
fn mark(engine: &WebEngine, tool: &str, url: &str, ctx: &ToolContext) -> Result<(), ToolOutput> {
    let mark = TaintMark {
        reason: format!("the {tool} tool read web text into this conversation"),
        source: TaintSource::Url(engine.redactor.redact(url).into_owned()),
    };
    ctx.marker
        .mark_tainted(&ctx.conversation_id, &mark)
        .map_err(|err| {
            ToolOutput::error(
                tool,
                &ToolError::rule(
                    "TAINT-3",
                    format!(
                        "the conversation could not be marked ({err}); nothing was fetched or read"
                    ),
                ),
            )
        })
}

fn number_arg(args: &Value, name: &str) -> Result<usize, ToolError> {
    args.get(name)
        .and_then(Value::as_u64)
        .filter(|n| *n >= 1)
        .map(|n| n as usize)
        .ok_or_else(|| ToolError::new(format!("argument `{name}` must be a number from 1")))
}

/// `browser_open{url}`.
#[derive(Debug)]
pub struct BrowserOpen(Arc<Browser>);

impl Tool for BrowserOpen {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "browser_open",
            description: "Open a web page in ploy's text browser (no scripts, no cookies; private addresses refused). Shows its text with numbered links and form fields, as untrusted data. Once a page is read, only sites already visited in this conversation open without asking.",
            parameters: one_string_schema("url", 2048),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        prepare_navigation("browser_open", args, ctx, engine)
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match cleared_string(cleared, "browser_open") {
                Ok(url) => navigate(&self.0, "browser_open", Request::Get(url), ctx).await,
                Err(output) => output,
            }
        })
    }
}

/// `browser_read{}`: the current page again.
#[derive(Debug)]
pub struct BrowserRead(Arc<Browser>);

impl Tool for BrowserRead {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "browser_read",
            description: "Show the open page again (text, numbered links and fields), as untrusted data.",
            parameters: json!({"type": "object", "additionalProperties": false, "properties": {}}),
        }
    }

    fn prepare(&self, args: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &[])?;
        let page = self.0.current()?;
        // Nothing is fetched: the page was read (and the conversation
        // marked) when it was opened; the action names it for the rules.
        Ok(Prepared {
            actions: vec![Action::web("browser_read", &page.url)],
            target: page.url.clone(),
            plan: Box::new(page),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match cleared.into_parts::<BrowserPage>() {
                Ok((page, _)) => ToolOutput::ok(render(&page)),
                Err(err) => ToolOutput::error("browser_read", &err),
            }
        })
    }
}

/// `browser_find{text}`: the lines and links of the open page that contain
/// a text.
#[derive(Debug)]
pub struct BrowserFind(Arc<Browser>);

impl Tool for BrowserFind {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "browser_find",
            description: "Find a text on the open page: the matching lines and links (case-insensitive), as untrusted data.",
            parameters: one_string_schema("text", 200),
        }
    }

    fn prepare(&self, args: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["text"])?;
        let needle = str_arg(args, "text")?.to_lowercase();
        let page = self.0.current()?;
        Ok(Prepared {
            actions: vec![Action::web("browser_find", &page.url)],
            target: page.url.clone(),
            plan: Box::new((page, needle)),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let ((page, needle), _) = match cleared.into_parts::<(BrowserPage, String)>() {
                Ok(parts) => parts,
                Err(err) => return ToolOutput::error("browser_find", &err),
            };
            let mut out = format!("{}\nURL: {}\n", ploy_research::UNTRUSTED_NOTICE, page.url);
            let mut found = 0;
            for line in page.text.lines() {
                if found < MAX_FOUND && line.to_lowercase().contains(&needle) {
                    let _ = writeln!(out, "{}", line.trim());
                    found += 1;
                }
            }
            for (i, link) in page.links.iter().enumerate() {
                if found < MAX_FOUND && link.text.to_lowercase().contains(&needle) {
                    let _ = writeln!(out, "[link {}] {} -> {}", i + 1, link.text, link.url);
                    found += 1;
                }
            }
            if found == 0 {
                out.push_str("(not found on this page)\n");
            }
            ToolOutput::ok(out)
        })
    }
}

/// `browser_click{link}`: follow a numbered link.
#[derive(Debug)]
pub struct BrowserClick(Arc<Browser>);

impl Tool for BrowserClick {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "browser_click",
            description: "Follow a numbered link of the open page. The same site rule as browser_open applies.",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["link"],
                "properties": {"link": {"type": "integer", "minimum": 1}}
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["link"])?;
        engine(ctx)?;
        let n = number_arg(args, "link")?;
        let page = self.0.current()?;
        let link = page.links.get(n - 1).ok_or_else(|| {
            ToolError::new(format!(
                "the page has {} links; no link {n}",
                page.links.len()
            ))
        })?;
        // BEYOND-2: a click is a navigation like any other.
        Ok(Prepared {
            actions: vec![Action::navigate("browser_click", &link.url)],
            target: link.url.clone(),
            plan: Box::new(link.url.clone()),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match cleared_string(cleared, "browser_click") {
                Ok(url) => navigate(&self.0, "browser_click", Request::Get(url), ctx).await,
                Err(output) => output,
            }
        })
    }
}

/// `browser_type{field, text, submit?}`: fill a numbered field and (by
/// default) submit its form.
#[derive(Debug)]
pub struct BrowserType(Arc<Browser>);

enum TypePlan {
    /// Only the field's value changes.
    Fill(BrowserPage),
    /// The form is sent (a GET of its URL, or a POST of its body).
    Submit(Request),
}

impl Tool for BrowserType {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "browser_type",
            description: "Type a text into a numbered form field of the open page and submit its form (submit: false only fills it). The form's address passes the same site rule as browser_open; a POST form is sent only to a site already visited in this conversation, and never with a secret ploy knows.",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["field", "text"],
                "properties": {
                    "field": {"type": "integer", "minimum": 1},
                    "text": {"type": "string", "maxLength": 2000},
                    "submit": {"type": "boolean"}
                }
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["field", "text", "submit"])?;
        engine(ctx)?;
        let n = number_arg(args, "field")?;
        let text = str_arg(args, "text")?;
        let submit = match args.get("submit") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(ToolError::new("argument `submit` must be true or false")),
        };
        let mut page = self.0.current()?;
        let field = page
            .fields
            .get_mut(n - 1)
            .ok_or_else(|| ToolError::new(format!("the page has no form field {n}")))?;
        field.value = text.to_string();
        let form = field.form;
        if !submit {
            return Ok(Prepared {
                actions: vec![Action::web("browser_type", &page.url)],
                target: page.url.clone(),
                plan: Box::new(TypePlan::Fill(page)),
            });
        }
        match page.forms[form].method.as_str() {
            "get" => {
                let url = get_form_url(&page, form)?;
                Ok(Prepared {
                    actions: vec![Action::navigate("browser_type", &url)],
                    target: url.clone(),
                    plan: Box::new(TypePlan::Submit(Request::Get(url))),
                })
            }
            "post" => {
                // BROWSER-2: decided in Permission::assert (denied unless the
                // action's site was visited); the body is the door's (BEYOND-6).
                let url = page.forms[form].action.clone();
                let body = post_form_body(&page, form);
                Ok(Prepared {
                    actions: vec![Action::form_post("browser_type", &url)],
                    target: format!("POST {url}"),
                    plan: Box::new(TypePlan::Submit(Request::Form { url, body })),
                })
            }
            _ => Err(ToolError::rule(
                "BROWSER-1",
                "the form's method is neither GET nor POST: ploy's browser submits GET and POST forms only; nothing was sent",
            )),
        }
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match cleared.into_parts::<TypePlan>() {
                Ok((TypePlan::Fill(page), _)) => {
                    self.0.set(page);
                    ToolOutput::ok("the field was filled; nothing was sent")
                }
                Ok((TypePlan::Submit(request), _)) => {
                    navigate(&self.0, "browser_type", request, ctx).await
                }
                Err(err) => ToolOutput::error("browser_type", &err),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_fields_are_numbered_and_absolute() {
        let html = r#"<html><head><title>T</title></head><body><main><p>Hello</p>
            <a href="/next">Next page</a> <a href="javascript:alert(1)">x</a>
            <a href="https://other.example/a#f">Other</a>
            <form action="/search" method="get"><input name="q" value="old">
            <input type="hidden" name="lang" value="en"><input type="submit" name="go"></form>
            <form action="https://post.example/p" method="POST"><textarea name="body">hi</textarea></form>
            </main></body></html>"#;
        let page = parse_page("http://docs.example.com/a/b", "text/html", html);
        assert_eq!(page.title, "T");
        assert_eq!(
            page.links
                .iter()
                .map(|l| l.url.as_str())
                .collect::<Vec<_>>(),
            ["http://docs.example.com/next", "https://other.example/a"]
        );
        assert_eq!(page.forms.len(), 2);
        assert_eq!(page.forms[1].method, "post");
        assert_eq!(page.fields.len(), 3);
        assert_eq!(page.fields[2].value, "hi");
        let mut page = page;
        page.fields[0].value = "rust & more".into();
        assert_eq!(
            get_form_url(&page, 0).unwrap(),
            "http://docs.example.com/search?q=rust+%26+more&lang=en"
        );
        let shown = render(&page);
        assert!(
            shown.contains("[1] Next page -> http://docs.example.com/next"),
            "{shown}"
        );
        assert!(shown.contains("UNTRUSTED CONTENT"), "{shown}");
    }
}
