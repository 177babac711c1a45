//! A-5 regression guard: what is injected into the research tools never
//! includes the logger.
//!
//! The tools are built from injected parts (`build_engine` → `Research::new`
//! → `ResearchTools::register`, the backends and the fetcher). A logger
//! handed to a tool could write what it sees past the process's redacting
//! log writer (ploy-secrets installs it as the one global subscriber; the
//! tools log only through the `tracing` macros, which go to it). Three guards,
//! each able to fail:
//! 1. the constructors' exact signatures are pinned: adding a parameter (a
//!    logger or anything else) stops this file from compiling, and whoever
//!    updates it must re-run guard 2 on the new type;
//! 2. every injected type, and every part the fetcher and backends are built
//!    from, is probed for the logger traits (`tracing::Subscriber`,
//!    `tracing_subscriber::Layer`, `MakeWriter`, `std::io::Write`) and for
//!    being `tracing::Dispatch`; the probe is shown to detect real loggers;
//! 3. the sources that build and run the tools never name a logger type, and
//!    `tracing-subscriber` is not a dependency of ploy-research.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use ploy_egress::{Dial, FetchConfig, Fetcher, Resolve};
use ploy_policy::{ApprovalMode, SandboxMode, Settings};
use ploy_research::tools::Backends;
use ploy_research::{
    BackendName, DuckDuckGo, Limits, LoadError, PostJson, Research, ResearchConfig, ResearchTools,
    SearchBackend, Searxng, Tavily, TavilyKeys, Wikipedia, build_engine,
};
use ploy_secrets::Redactor;
use url::Url;

// ---- guard 2: the probe (ploy_testkit::logger_traits!) ----

use ploy_testkit::logger_traits;

// proves: A-5 (the probe is not blind: it finds each kind of logger)
#[test]
fn the_probe_detects_real_loggers() {
    let (_, found) = logger_traits!(tracing_subscriber::fmt::Subscriber);
    assert!(found.contains(&"tracing::Subscriber"), "{found:?}");
    let (_, found) = logger_traits!(tracing_subscriber::fmt::Layer<tracing_subscriber::Registry>);
    assert!(found.contains(&"tracing_subscriber::Layer"), "{found:?}");
    let (_, found) = logger_traits!(fn() -> std::io::Stderr);
    assert_eq!(found, ["MakeWriter"]);
    let (_, found) = logger_traits!(std::io::Stderr);
    assert_eq!(found, ["std::io::Write"]);
    let (_, found) = logger_traits!(Box<dyn std::io::Write + Send>);
    assert_eq!(found, ["std::io::Write"]);
    let (_, found) = logger_traits!(Arc<dyn tracing::Subscriber + Send + Sync>);
    assert!(found.contains(&"tracing::Subscriber"), "{found:?}");
    let (_, found) = logger_traits!(tracing::Dispatch);
    assert_eq!(found, ["tracing::Dispatch"]);
    let (_, found) = logger_traits!(String);
    assert!(found.is_empty(), "{found:?}");
}

// proves: A-5
#[test]
fn no_injected_part_of_the_research_tools_is_a_logger() {
    let probes = [
        // ResearchTools::register / register_with
        logger_traits!(Settings),
        logger_traits!(SandboxMode),
        logger_traits!(ApprovalMode),
        logger_traits!(Research),
        logger_traits!(ResearchTools),
        // build_engine
        logger_traits!(ResearchConfig),
        logger_traits!(BackendName),
        logger_traits!(TavilyKeys),
        logger_traits!(Arc<dyn PostJson>),
        logger_traits!(dyn PostJson),
        logger_traits!(Fetcher),
        logger_traits!(Redactor),
        // Research::new
        logger_traits!(Arc<dyn SearchBackend>),
        logger_traits!(dyn SearchBackend),
        logger_traits!(Limits),
        // the backends and what they are built from
        logger_traits!(DuckDuckGo),
        logger_traits!(Wikipedia),
        logger_traits!(Searxng),
        logger_traits!(Tavily),
        logger_traits!(Url),
        // the fetcher's parts (Fetcher::new)
        logger_traits!(Arc<dyn Resolve>),
        logger_traits!(dyn Resolve),
        logger_traits!(Arc<dyn Dial>),
        logger_traits!(dyn Dial),
        logger_traits!(FetchConfig),
    ];
    let loggers: Vec<_> = probes
        .iter()
        .filter(|(_, found)| !found.is_empty())
        .collect();
    assert!(
        loggers.is_empty(),
        "A-5: a logger is injected into the research tools: {loggers:?}"
    );
}

// ---- guard 1: the constructors' signatures, pinned ----

// proves: A-5 (a new injected parameter cannot slip in unreviewed)
#[test]
// The full parameter types are the point of this test: no aliases.
#[allow(clippy::type_complexity)]
fn what_the_tool_constructors_take_is_pinned() {
    // If this stops compiling, a constructor now takes something else: add
    // the new type to `no_injected_part_of_the_research_tools_is_a_logger`
    // before updating the signature here.
    let _: fn(&Settings, Research) -> Result<ResearchTools, LoadError> = ResearchTools::register;
    let _: fn(SandboxMode, ApprovalMode, Research) -> Result<ResearchTools, LoadError> =
        ResearchTools::register_with;
    let _: fn(
        &ResearchConfig,
        &[BackendName],
        TavilyKeys,
        Option<Arc<dyn PostJson>>,
        Fetcher,
        &Redactor,
    ) -> Result<(Research, Vec<String>), LoadError> = build_engine;
    let _: fn(
        &ResearchConfig,
        &[BackendName],
        TavilyKeys,
        Option<Arc<dyn PostJson>>,
    ) -> Result<(Backends, Vec<String>), LoadError> = ResearchConfig::backends;
    let _: fn(Fetcher, Vec<Arc<dyn SearchBackend>>, Redactor, Limits) -> Research = Research::new;
    let _: fn(Url) -> DuckDuckGo = DuckDuckGo::new;
    let _: fn(Url) -> Wikipedia = Wikipedia::new;
    let _: fn(&str) -> Result<Wikipedia, String> = Wikipedia::for_language;
    let _: fn(Url) -> Searxng = Searxng::new;
    let _: fn(Url, TavilyKeys, Option<Arc<dyn PostJson>>) -> Option<Tavily> = Tavily::new;
    let _: fn(Arc<dyn Resolve>, Arc<dyn Dial>, FetchConfig) -> Fetcher = Fetcher::new;
}

// ---- guard 3: the sources and the manifest ----

/// Names that only appear when code holds, builds or swaps a logger.
const LOGGER_NAMES: &[&str] = &[
    "Subscriber",
    "MakeWriter",
    "Dispatch",
    "dispatcher",
    "tracing_subscriber",
    "tracing_core",
    "set_default",
    "with_default",
    "set_global_default",
    "Layer<",
];

/// `text` without `//` comments (a comment may explain A-5 without breaking it).
fn code_only(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// proves: A-5
#[test]
fn the_sources_that_build_and_run_the_tools_never_name_a_logger() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (file, must_contain) in [
        ("tools.rs", "pub fn build_engine("),
        ("run.rs", "pub fn new("),
        ("backend.rs", "pub trait PostJson"),
    ] {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        // The scan reads the real file, not an empty or moved one.
        assert!(text.contains(must_contain), "{file} changed shape");
        let code = code_only(&text);
        for name in LOGGER_NAMES {
            assert!(
                !code.contains(name),
                "A-5: src/{file} names `{name}`: a logger must never be injected into a tool"
            );
        }
    }
    // The scan itself catches a logger parameter.
    let bad = "pub fn build_engine(logger: tracing::Dispatch) {}";
    assert!(
        LOGGER_NAMES
            .iter()
            .any(|name| code_only(bad).contains(name))
    );
}

// proves: A-5
#[test]
fn ploy_research_cannot_name_tracing_subscriber() {
    let manifest = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"),
    )
    .unwrap();
    let dependencies = manifest
        .split("\n[")
        .find(|section| section.starts_with("dependencies]"))
        .expect("ploy-research has a [dependencies] section");
    assert!(dependencies.contains("ploy-egress"), "{dependencies}");
    assert!(
        !dependencies.contains("tracing-subscriber"),
        "A-5: ploy-research depends on tracing-subscriber; its tools log through the `tracing` macros only"
    );
}
