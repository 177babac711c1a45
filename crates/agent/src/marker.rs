//! Marking the conversation (TAINT-1..3): durably in the store first, then in
//! the rules `assert` reads, then an event. If the store write fails the
//! caller gets an error and drops the web text (TAINT-3); if the in-memory
//! rules cannot be updated, the same (a mark `assert` cannot see would fail
//! open).

use std::sync::{Arc, Mutex};

use ploy_policy::{ConversationRules, Site, TaintMark};
use ploy_research::TaintMarker;
use ploy_store::Store;

use crate::event::{Event, EventSink};

/// The agent's [`TaintMarker`].
pub struct ConversationMarker {
    store: Arc<Mutex<Store>>,
    rules: Arc<Mutex<ConversationRules>>,
    events: Arc<dyn EventSink>,
}

impl std::fmt::Debug for ConversationMarker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConversationMarker").finish_non_exhaustive()
    }
}

impl ConversationMarker {
    /// A marker writing to `store` and `rules`, reporting to `events`.
    pub fn new(
        store: Arc<Mutex<Store>>,
        rules: Arc<Mutex<ConversationRules>>,
        events: Arc<dyn EventSink>,
    ) -> Self {
        Self {
            store,
            rules,
            events,
        }
    }
}

impl ConversationMarker {
    /// Record that a page of `site` was read (BROWSER-2): in the store
    /// first (so `--continue` keeps it), then in the rules `assert` reads.
    /// On a store failure nothing is recorded: the site then asks again
    /// (fail closed), and the caller only logs it.
    pub fn visit(&self, conversation_id: &str, site: Site) -> Result<(), String> {
        self.store
            .lock()
            .map_err(|_| "the store lock is poisoned".to_string())?
            .visit_site(conversation_id, &site)
            .map_err(|err| err.to_string())?;
        self.rules
            .lock()
            .map_err(|_| "the conversation rules lock is poisoned".to_string())?
            .visit(site);
        Ok(())
    }

    /// Record the site of `url` as visited; a failure is logged (the site
    /// asks again next time, fail closed).
    pub fn visit_url(&self, conversation_id: &str, url: &str) {
        match ploy_policy::site_of(url) {
            Ok(site) => {
                if let Err(err) = self.visit(conversation_id, site) {
                    tracing::warn!("a visited site could not be recorded (it will ask): {err}");
                }
            }
            Err(err) => tracing::warn!("a page without a site was not recorded: {err}"),
        }
    }
}

impl TaintMarker for ConversationMarker {
    fn mark_tainted(&self, conversation_id: &str, mark: &TaintMark) -> Result<(), String> {
        {
            let mut store = self
                .store
                .lock()
                .map_err(|_| "the store lock is poisoned".to_string())?;
            store
                .mark_tainted(conversation_id, mark)
                .map_err(|err| err.to_string())?;
        }
        self.rules
            .lock()
            .map_err(|_| "the conversation rules lock is poisoned".to_string())?
            .mark_tainted(mark.reason.clone(), mark.source.clone());
        self.events.emit(&Event::Mark {
            reason: mark.reason.clone(),
            source: mark.source.to_string(),
        });
        Ok(())
    }
}
