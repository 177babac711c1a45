//! A-5 regression guard for the agent: what is injected into its tools (the
//! `ToolContext` every tool gets, and what a session and the dispatcher are
//! built from) never includes a logger. A logger handed to a tool could
//! write what it sees past the process's one redacting log writer; the tools
//! log only through the `tracing` macros. Two guards, each able to fail:
//! 1. the structs are destructured field by field and the constructors'
//!    signatures are pinned, so a new field or parameter stops this file
//!    from compiling until its type is added to guard 2;
//! 2. every injected type is probed for the logger traits
//!    (`ploy_testkit::logger_traits!`, shown to detect real loggers in
//!    crates/research/tests/no_logger_injected.rs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ploy_agent::approve::Approver;
use ploy_agent::config::AgentConfig;
use ploy_agent::dispatch::{Dispatcher, Policy};
use ploy_agent::event::EventSink;
use ploy_agent::marker::ConversationMarker;
use ploy_agent::session::{Resume, SessionSetup};
use ploy_agent::tool::{Registry, ShellSetup, ToolContext};
use ploy_agent::tools::web::{WebEngine, WebSetup};
use ploy_model::ModelClient;
use ploy_policy::{
    ConversationRules, ExecutionProfile, PloyFolders, ProjectRoot, RuleError, Rules,
};
use ploy_research::{Research, ResearchModel};
use ploy_secrets::Redactor;
use ploy_store::{SavedApproval, Store};
use ploy_testkit::logger_traits;
use tokio_util::sync::CancellationToken;

// ---- guard 1: every field and parameter, pinned ----

/// Every field of what a tool is given; a new one does not compile.
#[allow(dead_code)]
fn tool_context_fields(ctx: ToolContext) {
    let ToolContext {
        project: _,
        root: _,
        profile: _,
        conversation_id: _,
        marker: _,
        web: _,
        shell: _,
        home: _,
        cancel: _,
        reads: _,
        redactor: _,
        host_door: _,
    } = ctx;
    let ShellSetup {
        launcher: _,
        timeout: _,
    } = ShellSetup {
        launcher: None,
        timeout: std::time::Duration::ZERO,
    };
}

/// Every field of what a session is built from.
#[allow(dead_code)]
fn session_setup_fields(setup: SessionSetup) {
    let SessionSetup {
        store: _,
        project: _,
        rules: _,
        profile: _,
        redactor: _,
        web: _,
        model: _,
        config: _,
        resume: _,
        title: _,
        system_prompt: _,
        events: _,
        registry: _,
        launcher: _,
        home: _,
        ploy_folders: _,
    } = setup;
}

/// Every field of the web tools' engine and its setup.
#[allow(dead_code)]
fn web_fields(engine: WebEngine, setup: WebSetup) {
    let WebEngine {
        research: _,
        redactor: _,
        backend_urls: _,
        answer_model: _,
        policy: _,
    } = engine;
    let WebSetup {
        config_dir: _,
        hosts: _,
        answer_model: _,
        research: _,
        secrets: _,
    } = setup;
}

// proves: A-5 (a new injected parameter cannot slip in unreviewed)
#[test]
#[allow(clippy::type_complexity)]
fn the_constructors_signatures_are_pinned() {
    let _: fn(
        ProjectRoot,
        Rules,
        Arc<Mutex<ConversationRules>>,
        Vec<SavedApproval>,
    ) -> Result<Policy, RuleError> = Policy::new;
    let _: fn(Arc<Policy>, Registry, Redactor, Arc<Mutex<Store>>, String) -> Dispatcher =
        Dispatcher::new;
}

// ---- guard 2: no injected type is a logger ----

// proves: A-5
#[test]
fn nothing_injected_into_the_agents_tools_is_a_logger() {
    let probes = [
        // ToolContext
        logger_traits!(PathBuf),
        logger_traits!(ProjectRoot),
        logger_traits!(ExecutionProfile),
        logger_traits!(String),
        logger_traits!(Arc<ConversationMarker>),
        logger_traits!(ConversationMarker),
        logger_traits!(Option<Arc<WebEngine>>),
        logger_traits!(WebEngine),
        logger_traits!(ShellSetup),
        logger_traits!(Option<PathBuf>),
        logger_traits!(CancellationToken),
        // WebEngine / WebSetup
        logger_traits!(Research),
        logger_traits!(Redactor),
        logger_traits!(Vec<String>),
        logger_traits!(Option<Arc<dyn ResearchModel>>),
        logger_traits!(dyn ResearchModel),
        logger_traits!(WebSetup),
        logger_traits!(Option<Research>),
        logger_traits!(Arc<Policy>),
        // SessionSetup, Policy::new, Dispatcher::new
        logger_traits!(Store),
        logger_traits!(Arc<Mutex<Store>>),
        logger_traits!(Rules),
        logger_traits!(Arc<Mutex<ConversationRules>>),
        logger_traits!(Vec<SavedApproval>),
        logger_traits!(ModelClient),
        logger_traits!(AgentConfig),
        logger_traits!(Resume),
        logger_traits!(Arc<dyn EventSink>),
        logger_traits!(dyn EventSink),
        logger_traits!(Registry),
        logger_traits!(PloyFolders),
        logger_traits!(Arc<Policy>),
        logger_traits!(dyn Approver),
    ];
    let loggers: Vec<_> = probes
        .iter()
        .filter(|(_, found)| !found.is_empty())
        .collect();
    assert!(
        loggers.is_empty(),
        "A-5: a logger is injected into the agent's tools: {loggers:?}"
    );
    // The probe is not blind (the same macro, a real logger).
    let (_, found) = logger_traits!(std::io::Stderr);
    assert_eq!(found, ["std::io::Write"]);
}
