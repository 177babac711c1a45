//! `POST /v1/research`: research run by the service, so that an agent
//! attached to a running service searches with the keys its panel holds
//! (STATE-1: the keys are read from memory at each request, so a key added,
//! replaced or removed in the panel is used, or not, from the next request
//! on). Everything goes through the same engine as `ploy research`: the
//! egress door with the secret door (BEYOND-6: the environment's secrets,
//! the service's own password and gateway token, and the keys, which leave
//! only as Tavily's declared credential), the permission gate on every hop
//! (PERM-1), the redactor on every field (REDACT-1), the profile gate
//! (PROFILE-1/2).
//!
//! The conversation is marked `ploy_tainted` in the service's store
//! *before* the first request leaves (TAINT-1): if the mark cannot be
//! written, nothing is sent and the answer is a TAINT-3 refusal. The run
//! marks again before results return (the same mark; the store keeps one).

use std::sync::Arc;

use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use ploy_policy::{ConversationRules, ExecutionProfile, Rules, Settings};
use ploy_research::command::{EngineParts, profile_and_rules};
use ploy_research::web_gate::web_gate;
use ploy_research::{
    Failure, LoadError, Progress, Research, ResearchModel, ResearchTools, RunRequest, RunStatus,
    StoreMarker, TavilyKeys, web_mark,
};
use ploy_secrets::Redactor;
use ploy_store::StoreError;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::api::{error, full, read_json_body};
use crate::panel::keys::Provider;
use crate::server::{Body, Shared};

/// Longest question the route takes (as the `research` tool's schema).
pub const MAX_QUESTION_CHARS: usize = 2000;
/// Most backends a request may name.
pub const MAX_BACKENDS: usize = 4;
/// The tool name research runs under (marks, permission rules).
const TOOL: &str = "research";

/// `POST /v1/research` request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResearchRequest {
    /// The question (1-2000 characters).
    pub question: String,
    /// Stop after the dossier; do not ask the answer model.
    #[serde(default)]
    pub no_answer: bool,
    /// Backends to use (none: the configured ones).
    #[serde(default)]
    pub backends: Vec<String>,
    /// An existing conversation of the service's store (none: a new one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
}

/// What the service needs to run research: the attested profile and the
/// user's rules (from the user's settings), the engine's parts (the
/// research configuration, the fetcher, the secrets) and the answer model.
pub struct ResearchSetup {
    profile: ExecutionProfile,
    rules: Rules,
    parts: EngineParts,
    model: Option<Arc<dyn ResearchModel>>,
}

impl std::fmt::Debug for ResearchSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResearchSetup")
            .field("profile", &self.profile)
            .field("parts", &self.parts)
            .field("model", &self.model.is_some())
            .finish_non_exhaustive()
    }
}

impl ResearchSetup {
    /// Checks the user's settings as `ploy research` does: without an
    /// attested profile (PROFILE-2) or with a forbidden one (PROFILE-1)
    /// research is not offered. The user's rules gate every request.
    pub fn new(
        settings: Option<&Settings>,
        parts: EngineParts,
        model: Option<Arc<dyn ResearchModel>>,
    ) -> Result<ResearchSetup, LoadError> {
        let (_, profile, rules) = profile_and_rules(settings)?;
        Ok(ResearchSetup {
            profile,
            rules,
            parts,
            model,
        })
    }
}

/// The research state of a running service: the setup, with the service's
/// own secrets added, and the redactor for results.
pub(crate) struct ServiceResearch {
    setup: ResearchSetup,
    redactor: Redactor,
}

impl ServiceResearch {
    /// `secrets`: the service password and gateway token, which no request
    /// may carry and no result may show.
    pub(crate) fn new(mut setup: ResearchSetup, secrets: [&str; 2]) -> ServiceResearch {
        setup
            .parts
            .add_secrets("the ploy service's own secret", secrets);
        let redactor = setup.parts.redactor();
        ServiceResearch { setup, redactor }
    }
}

/// Why the route refused before running: status, type, message.
type Refusal = (StatusCode, &'static str, String);

pub(crate) async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    let asked: ResearchRequest = match read_json_body(request).await {
        Ok(asked) => asked,
        Err(answer) => return answer,
    };
    match run(&shared, asked).await {
        Ok(json) => full(StatusCode::OK, "application/json", json.into()),
        Err((status, kind, message)) => error(status, kind, &message),
    }
}

async fn run(shared: &Arc<Shared>, asked: ResearchRequest) -> Result<String, Refusal> {
    let length = asked.question.chars().count();
    if length == 0 || length > MAX_QUESTION_CHARS {
        return Err(bad(format!(
            "question must be 1-{MAX_QUESTION_CHARS} characters"
        )));
    }
    if asked.backends.len() > MAX_BACKENDS {
        return Err(bad(format!("at most {MAX_BACKENDS} backends")));
    }
    let research = match &shared.research {
        Ok(research) => research.clone(),
        Err(reason) => {
            return Err((
                StatusCode::SERVICE_UNAVAILABLE,
                "research_unavailable",
                reason.clone(),
            ));
        }
    };
    // A bad backend name or no usable backend is refused before a
    // conversation is made or marked. The keys are the panel's at this
    // moment (STATE-1).
    let keys = TavilyKeys::from_values(shared.keys.values(Provider::Tavily));
    let setup = &research.setup;
    let build = |conversation_rules: ConversationRules| -> Result<Research, Refusal> {
        let (engine, notes) = setup
            .parts
            .engine(
                &asked.backends,
                keys.clone(),
                &research.redactor,
                web_gate(TOOL, setup.rules.clone(), conversation_rules),
            )
            .map_err(|err| bad(format!("{err} (hint: {})", err.hint())))?;
        for note in notes {
            tracing::info!("research: {note}");
        }
        let tools =
            ResearchTools::register_with(setup.profile.sandbox(), setup.profile.approval(), engine)
                .map_err(|err| (StatusCode::FORBIDDEN, "ploy_refused", err.to_string()))?;
        Ok(tools.engine().clone())
    };
    setup
        .parts
        .check(&asked.backends, &keys)
        .map_err(|err| bad(format!("{err} (hint: {})", err.hint())))?;

    // TAINT-1 before anything leaves; TAINT-3 when the mark cannot be made.
    let conversation_rules = mark_first(shared, &asked, &research.redactor).await?;
    let (conversation_id, rules) = conversation_rules;
    let engine = build(rules)?;

    let marker = StoreMarker::shared(shared.store.clone());
    let progress = |event: &Progress| tracing::debug!("research: {event}");
    // Dropping this future (the client went away, the service stops) drops
    // the run and its requests (CANCEL-1).
    let cancel = CancellationToken::new();
    let want_answer = !asked.no_answer;
    let mut output = engine
        .run(
            RunRequest {
                question: &asked.question,
                conversation_id: &conversation_id,
                want_answer,
            },
            setup.model.as_deref(),
            &marker,
            &progress,
            &cancel,
        )
        .await
        .map_err(|_| {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "cancelled",
                "CANCEL-1: the research was cancelled".to_owned(),
            )
        })?;
    if want_answer && setup.model.is_none() && output.status == RunStatus::Dossier {
        output.failure = Some(Failure::new(
            "FAIL-1",
            "the service has no answer model (start it with `ploy serve --model NAME` or PLOY_MODEL); the dossier is the result",
        ));
    }
    Ok(output.to_json())
}

/// Opens the conversation (the one named, or a new one titled by the
/// redacted question) and marks it, in one store task: `Ok` only once the
/// mark is durable, with the conversation's rules (its marks included).
async fn mark_first(
    shared: &Shared,
    asked: &ResearchRequest,
    redactor: &Redactor,
) -> Result<(String, ConversationRules), Refusal> {
    let store = shared.store.clone();
    let named = asked.conversation.clone();
    let title: String = redactor.redact(&asked.question).chars().take(60).collect();
    let redactor = redactor.clone();
    let opened = tokio::task::spawn_blocking(move || {
        let mut store = store.lock().map_err(|_| {
            taint3("the store lock was poisoned by an earlier panic; restart the service")
        })?;
        let id = match named {
            Some(id) => {
                store.conversation(&id).map_err(|err| match err {
                    StoreError::NoSuchConversation { .. } => (
                        StatusCode::NOT_FOUND,
                        "not_found",
                        format!("no conversation with id {id:?}; nothing was sent"),
                    ),
                    other => taint3(&redactor.redact(&other.to_string())),
                })?;
                id
            }
            None => {
                store
                    .create_conversation(&format!("research: {title}"))
                    .map_err(|err| taint3(&redactor.redact(&err.to_string())))?
                    .id
            }
        };
        store
            .mark_tainted(&id, &web_mark(TOOL))
            .map_err(|err| taint3(&redactor.redact(&err.to_string())))?;
        let rules = store
            .conversation_rules(&id)
            .map_err(|err| taint3(&redactor.redact(&err.to_string())))?;
        Ok((id, rules))
    })
    .await;
    match opened {
        Ok(result) => result,
        Err(_) => Err(taint3("the store task failed")),
    }
}

fn taint3(reason: &str) -> Refusal {
    tracing::warn!("research: the conversation could not be marked; nothing sent: {reason}");
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "ploy_refused",
        format!(
            "TAINT-3: the conversation could not be marked ploy_tainted ({reason}), so nothing was searched or read. Check that the service's state folder is writable and that no other program holds its store"
        ),
    )
}

fn bad(message: String) -> Refusal {
    (StatusCode::BAD_REQUEST, "bad_request", message)
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: CONFIG-1 (unknown fields in a research request are refused)
    #[test]
    fn the_request_refuses_unknown_fields_and_defaults_the_rest() {
        let asked: ResearchRequest = serde_json::from_str(r#"{"question":"q"}"#).unwrap();
        assert!(!asked.no_answer && asked.backends.is_empty() && asked.conversation.is_none());
        assert!(
            serde_json::from_str::<ResearchRequest>(r#"{"question":"q","keys":["x"]}"#).is_err()
        );
    }
}
