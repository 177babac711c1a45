//! Marking the conversation (TAINT-1..3): durably in the store first, then in
//! the rules `assert` reads, then an event. If the store write fails the
//! caller gets an error and drops the web text (TAINT-3); if the in-memory
//! rules cannot be updated, the same (a mark `assert` cannot see would fail
//! open).

use std::sync::{Arc, Mutex};

use ploy_policy::{ConversationRules, Site, TaintMark};
use ploy_research::TaintMarker;
use ploy_store::{MemoryEntry, Store};

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

impl ConversationMarker {
    /// BEYOND-5: copy the marks of `cited` (another conversation), with
    /// their sources, into `conversation_id`: durably, then in the rules
    /// `assert` reads. Call it BEFORE any of the cited conversation's text
    /// reaches the model; on `Err` that text must be withheld (TAINT-3).
    /// Returns how many marks the cited conversation had.
    pub fn carry_from(&self, conversation_id: &str, cited: &str) -> Result<usize, String> {
        if cited == conversation_id {
            return Ok(0);
        }
        let cited_rules = self
            .store
            .lock()
            .map_err(|_| "the store lock is poisoned".to_string())?
            .conversation_rules(cited)
            .map_err(|err| err.to_string())?;
        let mut carried = ConversationRules::new();
        carried.carry_marks_from(cited, &cited_rules);
        for mark in carried.marks() {
            self.mark_tainted(conversation_id, mark)?;
        }
        Ok(carried.marks().len())
    }

    /// Save `text` in ploy's memory as an entry of `conversation_id` (it
    /// carries that conversation's marks whenever it is cited).
    pub fn save_memory(&self, conversation_id: &str, text: &str) -> Result<i64, String> {
        self.store
            .lock()
            .map_err(|_| "the store lock is poisoned".to_string())?
            .add_memory(Some(conversation_id), text)
            .map_err(|err| err.to_string())
    }

    /// The memory entries of `project` containing `query`, newest first.
    pub fn search_memory(
        &self,
        project: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<MemoryEntry>, String> {
        self.store
            .lock()
            .map_err(|_| "the store lock is poisoned".to_string())?
            .search_memory(project, query, limit)
            .map_err(|err| err.to_string())
    }

    /// The memory entries of one conversation (for an `@id` citation), or
    /// `None` when there is no such conversation in `project`.
    pub fn memory_of(
        &self,
        project: &str,
        conversation_id: &str,
    ) -> Result<Option<Vec<MemoryEntry>>, String> {
        let store = self
            .store
            .lock()
            .map_err(|_| "the store lock is poisoned".to_string())?;
        match store.conversation(conversation_id) {
            Ok(summary) if summary.project.as_deref() == Some(project) => store
                .memory_of(conversation_id)
                .map(Some)
                .map_err(|err| err.to_string()),
            _ => Ok(None),
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
