//! `ploy-research`: the research engine. A question becomes at most 3
//! scrubbed phrases per round and 2 rounds ([`ploy_egress::SearchPlan`],
//! RESEARCH-1, SCRUB-1/2), sent through the egress door to the search
//! backends ([`backend`]); the best pages are read through the guarded
//! fetcher in parallel (RESEARCH-2) and turned into text with a real HTML
//! parser ([`extract`]); every field is redacted by value (REDACT-1) and cut
//! by one shared 50 KiB budget (CAP-1); the conversation is marked
//! `ploy_tainted` durably before the answer model sees anything (TAINT-1,
//! TAINT-3, RESEARCH-3); the result is strict JSON with a permanent
//! untrusted-content notice (PLUGIN-1). Every outcome is a value (FAIL-1);
//! only cancellation is an error (CANCEL-1).

pub mod backend;
pub mod command;
pub mod extract;
pub mod model;
mod run;
pub mod tools;
pub mod web_gate;

pub use backend::{
    BackendReport, BoxFuture, DuckDuckGo, Failure, PostJson, SearchBackend, SearchHit, Searxng,
    Tavily, TavilyKeys, Wikipedia,
};
pub use model::{ChatModel, ModelError, PhraseProposal, ResearchModel, fallback_phrases};
pub use run::{
    BudgetReport, Limits, NoStore, PhraseReport, Progress, ProgressSink, Research, ResearchOutput,
    RunRequest, RunStatus, SCHEMA, SearchReport, SkippedPage, Source, StoreMarker, TaintMarker,
    UNTRUSTED_NOTICE, source_mark, web_mark,
};
pub use tools::{
    BackendName, LoadError, ResearchConfig, ResearchTools, ToolSpec, build_engine, tool_specs,
};
