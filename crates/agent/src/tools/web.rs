//! `web_fetch{url}`, `web_search{query}`, `research{question}`: the research
//! engine's tools. Each is a `web` action (asks by default; a `web` rule may
//! allow hosts). The engine marks the conversation durably before any web
//! text is returned, and drops the text when the mark cannot be written
//! (TAINT-1, TAINT-3); the agent's marker also updates the rules `assert`
//! reads, so the very next call is judged as tainted (PERM-3).
//!
//! `web_fetch` is a model-chosen navigation ([`Action::navigate`]): in a
//! tainted conversation a site not yet visited asks, and each redirect to
//! such a site is refused (BEYOND-7, [`navigation_gate`]); the page's site
//! is recorded as visited once its text is read. The research tool's page
//! reads come from search results, not the model: they are not held by it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use ploy_egress::{HopGate, Stage, scrub};
use ploy_policy::Action;
use ploy_research::command::{CommandError, command_engine};
use ploy_research::{Research, ResearchModel, ResearchOutput, RunRequest};
use ploy_secrets::{Redactor, SecretSet};
use serde_json::Value;

use crate::dispatch::Policy;
use crate::tool::{
    BoxFuture, Cleared, Prepared, Tool, ToolContext, ToolError, ToolOutput, ToolSpec,
    cleared_string, one_string_schema, prepare_one_string,
};

/// The research engine as the web tools use it.
pub struct WebEngine {
    /// The engine (fetcher, backends, redactor, limits).
    pub research: Research,
    /// The process redactor (search phrases are scrubbed with it before the
    /// action is built, SCRUB-1).
    pub redactor: Redactor,
    /// The search backends' URLs, one `web` action each for `web_search` and
    /// `research` (a rule on their hosts decides).
    pub backend_urls: Vec<String>,
    /// The model that answers `research` from the dossier (none: the
    /// dossier is the result).
    pub answer_model: Option<Arc<dyn ResearchModel>>,
    /// The session's policy (the per-navigation redirect gate decides
    /// with it).
    pub policy: Arc<Policy>,
}

impl std::fmt::Debug for WebEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebEngine")
            .field("backend_urls", &self.backend_urls)
            .finish_non_exhaustive()
    }
}

/// What the web tools are built from; the session builds the engine once
/// its policy exists ([`WebEngine::build`]).
#[derive(Clone)]
pub struct WebSetup {
    /// The config folder (`research.json`).
    pub config_dir: PathBuf,
    /// A hosts(5) file answering names instead of DNS (`--hosts`).
    pub hosts: Option<PathBuf>,
    /// The model that answers `research` from the dossier.
    pub answer_model: Option<Arc<dyn ResearchModel>>,
    /// A research engine built by the embedder (its own fetcher and
    /// backends); `None` (what `ploy` passes): built from `config_dir`.
    /// Either way the session's [`policy_gate`] is put on its fetcher.
    pub research: Option<Research>,
    /// The run's known secrets (`ploy_research::command::run_secrets`: the
    /// environment, the project's `.env` files, settings `secrets`): the
    /// engine built from `config_dir` refuses every request carrying one
    /// (BEYOND-6).
    pub secrets: SecretSet,
}

impl std::fmt::Debug for WebSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebSetup")
            .field("config_dir", &self.config_dir)
            .field("hosts", &self.hosts)
            .finish_non_exhaustive()
    }
}

/// The fetcher's gate for the agent (PERM-1): every request the web tools
/// make — each search, each page research reads, each redirect hop — is an
/// `Action::web` decided by the session's [`Policy`] (rules, the
/// conversation's rules and marks, saved approvals). A deny refuses it
/// before its name is resolved. An ask goes ahead: the tool call itself
/// was decided by the dispatcher (and refused there when it asked with
/// nobody to answer); the requests inside it are the engine's, as for a
/// command a person typed.
pub fn policy_gate(policy: Arc<Policy>) -> HopGate {
    Arc::new(move |url: &str| {
        let decision = policy.assert(&Action::web("web", url));
        if decision.is_deny() {
            Err(ploy_egress::Refusal::new(
                decision.requirement,
                Stage::Request,
                format!("{}; nothing was sent", decision.reason),
            ))
        } else {
            Ok(())
        }
    })
}

/// The gate of one model-chosen navigation (`web_fetch`, the browser
/// tools): every hop is an [`Action::navigate`] decided by the session's
/// [`Policy`]. A deny refuses. Nobody can be asked in the middle of a
/// fetch, so a hop that would ask is refused unless it stays where the
/// call was cleared: the site rule (BROWSER-2, BEYOND-7) lets a redirect
/// stay on the cleared site, and any other ask (no rule allows that
/// address) only on the cleared host. An allowed site's open
/// redirect must not turn the allow-list into every site (outside attacker
/// tui-rpc #10).
pub fn navigation_gate(policy: Arc<Policy>, tool: &'static str, cleared_url: &str) -> HopGate {
    let cleared_site = ploy_policy::site_of(cleared_url).ok();
    let cleared_origin = origin(cleared_url);
    Arc::new(move |url: &str| {
        let decision = policy.assert(&Action::navigate(tool, url));
        let passes = if decision.is_deny() {
            false
        } else if !decision.is_ask() {
            true
        } else if matches!(decision.requirement, "BEYOND-7" | "BROWSER-2") {
            cleared_site.is_some() && ploy_policy::site_of(url).ok() == cleared_site
        } else {
            cleared_origin.is_some() && origin(url) == cleared_origin
        };
        if passes {
            Ok(())
        } else {
            let why = if decision.is_ask() {
                "; a redirect cannot be asked about in the middle of a fetch (fetch that \
                 address itself to be asked)"
            } else {
                ""
            };
            Err(ploy_egress::Refusal::new(
                decision.requirement,
                Stage::Request,
                format!("{}{why}; nothing was sent", decision.reason),
            ))
        }
    })
}

/// How a [`LazyWeb`] builds its engine (once).
type BuildWeb = Box<dyn FnOnce() -> Result<WebEngine, String> + Send>;

/// The web engine of a session, built at the first web or browser tool
/// call rather than when the session opens: the fetcher's secret door (an
/// automaton over every known secret), the TLS roots, the resolver and
/// research.json cost more than everything else `ploy -p` does before its
/// first request to the model (issue 11: start to first byte < 30 ms), and
/// most runs never touch the web. A build that fails (a bad research.json)
/// is reported by every web tool call, with the reason.
pub struct LazyWeb {
    build: Mutex<Option<BuildWeb>>,
    engine: OnceLock<Result<Arc<WebEngine>, String>>,
}

impl std::fmt::Debug for LazyWeb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyWeb")
            .field("built", &self.engine.get().is_some())
            .finish_non_exhaustive()
    }
}

impl LazyWeb {
    /// An engine built from `setup` when first used ([`WebEngine::build`];
    /// its notes go to the log then).
    pub fn new(setup: WebSetup, redactor: Redactor, policy: Arc<Policy>) -> Self {
        Self {
            build: Mutex::new(Some(Box::new(move || {
                let (engine, notes) = WebEngine::build(&setup, &redactor, policy)
                    .map_err(|e| format!("the web tools could not be set up: {e}"))?;
                for note in notes {
                    tracing::warn!("{note}");
                }
                Ok(engine)
            }))),
            engine: OnceLock::new(),
        }
    }

    /// An engine already built (embedders and tests).
    pub fn ready(engine: WebEngine) -> Self {
        Self {
            build: Mutex::new(None),
            engine: OnceLock::from(Ok(Arc::new(engine))),
        }
    }

    /// The engine, built on first use.
    pub fn get(&self) -> Result<&Arc<WebEngine>, ToolError> {
        let built = self.engine.get_or_init(|| {
            let build = self.build.lock().ok().and_then(|mut slot| slot.take());
            match build {
                Some(build) => build().map(Arc::new),
                None => Err("the web engine's build was lost (a panic while building it)".into()),
            }
        });
        built.as_ref().map_err(|e| ToolError::new(e.clone()))
    }
}

/// The host of `url` (lower case), `None` when it does not parse or has
/// none. Scheme and port are left out: an `http://` → `https://` upgrade
/// of the same host is the commonest redirect of all.
fn origin(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    Some(parsed.host_str()?.to_ascii_lowercase())
}

impl WebEngine {
    /// The engine of `setup` (research.json, the backends, the fetcher
    /// with the secret door, BEYOND-6, and [`policy_gate`]). Returns notes
    /// for a person (a backend left out, and why).
    pub fn build(
        setup: &WebSetup,
        redactor: &Redactor,
        policy: Arc<Policy>,
    ) -> Result<(WebEngine, Vec<String>), CommandError> {
        let (research, notes) = match &setup.research {
            Some(research) => (
                research.with_hop_gate(policy_gate(policy.clone())),
                Vec::new(),
            ),
            None => command_engine(
                &setup.config_dir,
                &[],
                setup.hosts.as_deref(),
                setup.secrets.clone(),
                redactor,
                policy_gate(policy.clone()),
            )?,
        };
        Ok((
            WebEngine {
                policy,
                backend_urls: research.backend_endpoints(),
                research,
                redactor: redactor.clone(),
                answer_model: setup.answer_model.clone(),
            },
            notes,
        ))
    }
}

fn engine(ctx: &ToolContext) -> Result<&Arc<WebEngine>, ToolError> {
    ctx.web
        .as_ref()
        .ok_or_else(|| {
            ToolError::new("the web tools are not set up in this run (no research engine)")
        })?
        .get()
}

fn output_text(result: Result<ResearchOutput, ploy_egress::Cancelled>, tool: &str) -> ToolOutput {
    match result {
        Ok(output) => ToolOutput {
            ok: output.failure.is_none(),
            text: output.to_json(),
        },
        Err(_) => ToolOutput::error(tool, &ToolError::rule("CANCEL-1", "cancelled")),
    }
}

/// One `web` action per backend for a scrubbed phrase.
fn search_actions(tool: &str, engine: &WebEngine, phrase: &str) -> Result<Vec<Action>, ToolError> {
    let scrubbed = scrub(phrase, &engine.redactor);
    let text = scrubbed.text().to_string();
    if text.trim().is_empty() {
        return Err(ToolError::rule(
            "SCRUB-2",
            "nothing is left of the phrase after scrubbing (paths, addresses, numbers and secrets are removed); nothing was sent",
        ));
    }
    if engine.backend_urls.is_empty() {
        return Err(ToolError::new("no search backend is configured"));
    }
    Ok(engine
        .backend_urls
        .iter()
        .map(|url| Action::web_search(tool, url, &text))
        .collect())
}

/// A one-`url` tool's call judged as a navigation (the site rule, BEYOND-7):
/// `web_fetch` and `browser_open` prepare the same way, each with its own
/// check that the run has a web engine.
pub(crate) fn prepare_navigation(
    tool: &str,
    args: &Value,
    ctx: &ToolContext,
    engine: fn(&ToolContext) -> Result<&Arc<WebEngine>, ToolError>,
) -> Result<Prepared, ToolError> {
    engine(ctx)?;
    prepare_one_string(args, "url", |url| Ok(vec![Action::navigate(tool, url)]))
}

/// `web_fetch{url}`.
#[derive(Debug, Clone, Copy)]
pub struct WebFetch;

impl Tool for WebFetch {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "web_fetch",
            description: "Read one public web page (no cookies; private addresses refused). Returns its text as untrusted data, capped at 50 KiB. Marks the conversation as having read web content.",
            parameters: one_string_schema("url", 2048),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        prepare_navigation("web_fetch", args, ctx, engine)
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let url = match cleared_string(cleared, "web_fetch") {
                Ok(url) => url,
                Err(output) => return output,
            };
            let engine = match engine(ctx) {
                Ok(engine) => engine,
                Err(err) => return ToolOutput::error("web_fetch", &err),
            };
            // Its redirects pass the site rule (BEYOND-7).
            let research = engine.research.with_hop_gate(navigation_gate(
                engine.policy.clone(),
                "web_fetch",
                &url,
            ));
            let result = research
                .web_fetch(&url, &ctx.conversation_id, ctx.marker.as_ref(), &ctx.cancel)
                .await;
            // The page was read (and the conversation marked): its site is
            // visited, so a second page there does not ask.
            if let Ok(output) = &result
                && output.tainted
            {
                for source in &output.sources {
                    ctx.marker.visit_url(&ctx.conversation_id, &source.url);
                }
            }
            output_text(result, "web_fetch")
        })
    }
}

/// `web_search{query}`.
#[derive(Debug, Clone, Copy)]
pub struct WebSearch;

impl Tool for WebSearch {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "web_search",
            description: "Search the web for one short phrase (paths, addresses, numbers and secrets are removed before it leaves). Returns titles, links and snippets as untrusted data. Marks the conversation as having read web content.",
            parameters: one_string_schema("query", 110),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let engine = engine(ctx)?;
        prepare_one_string(args, "query", |query| {
            search_actions("web_search", engine, query)
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let query = match cleared_string(cleared, "web_search") {
                Ok(query) => query,
                Err(output) => return output,
            };
            let engine = match engine(ctx) {
                Ok(engine) => engine,
                Err(err) => return ToolOutput::error("web_search", &err),
            };
            let result = engine
                .research
                .web_search(
                    &query,
                    None,
                    &ctx.conversation_id,
                    ctx.marker.as_ref(),
                    &ctx.cancel,
                )
                .await;
            output_text(result, "web_search")
        })
    }
}

/// `research{question}`.
#[derive(Debug, Clone, Copy)]
pub struct ResearchTool;

impl Tool for ResearchTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "research",
            description: "Research a question on the web: up to 3 scrubbed search phrases in up to 2 rounds, pages read through the guarded fetcher, an answer with numbered citations. Results are untrusted data. Marks the conversation as having read web content.",
            parameters: one_string_schema("question", 2000),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let engine = engine(ctx)?;
        prepare_one_string(args, "question", |question| {
            search_actions("research", engine, question)
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let question = match cleared_string(cleared, "research") {
                Ok(question) => question,
                Err(output) => return output,
            };
            let engine = match engine(ctx) {
                Ok(engine) => engine,
                Err(err) => return ToolOutput::error("research", &err),
            };
            let silent = |_: &ploy_research::Progress| {};
            let result = engine
                .research
                .run(
                    RunRequest {
                        question: &question,
                        conversation_id: &ctx.conversation_id,
                        want_answer: engine.answer_model.is_some(),
                    },
                    engine.answer_model.as_deref(),
                    ctx.marker.as_ref(),
                    &silent,
                    &ctx.cancel,
                )
                .await;
            output_text(result, "research")
        })
    }
}
