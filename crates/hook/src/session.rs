//! One ploy conversation per host session, in ploy's store (TAINT-2).
//!
//! A hook is a new process for every tool call; the mark must outlive it.
//! The session's conversation is created and bound the first time the
//! session is marked (`Store::session_conversation_or_create`: the binding
//! never changes, so the marks stay with the session across processes and
//! restarts). Judging a call only reads: a session never marked has no
//! conversation, and a store file that does not exist yet means no session
//! was ever marked, so nothing is created for the calls that only read.

use std::path::{Path, PathBuf};

use ploy_policy::{Approvals, ConversationRules, TaintMark};
use ploy_store::Store;

/// The store file in the state folder (the one `ploy research` uses).
pub const STORE_FILE: &str = "ploy.db";

/// Where a session's conversation lives.
#[derive(Debug, Clone)]
pub struct Sessions {
    path: PathBuf,
    agent: &'static str,
}

/// What a call is judged with: the conversation's rules (marks included)
/// and the saved approvals.
#[derive(Debug, Clone, Default)]
pub struct SessionState {
    /// The conversation's marks and rules (clean when never marked).
    pub conversation: ConversationRules,
    /// Saved approvals (PERM-5).
    pub approvals: Approvals,
}

impl Sessions {
    /// Sessions of `agent` (`claude-code`, `check`) in `state_dir`.
    pub fn new(state_dir: &Path, agent: &'static str) -> Self {
        Self {
            path: state_dir.join(STORE_FILE),
            agent,
        }
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The session's state, read only. Any store error is an error: the
    /// caller cannot tell whether the session is marked (fail closed).
    pub fn state(&self, session: &str) -> Result<SessionState, String> {
        if !self.path.exists() {
            return Ok(SessionState::default());
        }
        let store = Store::open(&self.path).map_err(|e| e.to_string())?;
        let approvals = store
            .approvals()
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|saved| saved.approval)
            .collect();
        let approvals = Approvals::from_saved(approvals).map_err(|e| e.to_string())?;
        let conversation = match store
            .session_conversation(self.agent, session)
            .map_err(|e| e.to_string())?
        {
            Some(id) => store.conversation_rules(&id).map_err(|e| e.to_string())?,
            None => ConversationRules::new(),
        };
        Ok(SessionState {
            conversation,
            approvals,
        })
    }

    /// The session's conversation, if it was ever marked (reads only).
    pub fn conversation_id(&self, session: &str) -> Result<Option<String>, String> {
        if !self.path.exists() {
            return Ok(None);
        }
        let store = Store::open(&self.path).map_err(|e| e.to_string())?;
        store
            .session_conversation(self.agent, session)
            .map_err(|e| e.to_string())
    }

    /// Mark the session (TAINT-1) and return its conversation id. `Ok` only
    /// once the mark is durable; on `Err` the web tool must not run (TAINT-3).
    pub fn mark(&self, session: &str, mark: &TaintMark) -> Result<String, String> {
        // The state folder holds the store: owner-only (SVC-1), created
        // 0700 or tightened, as every command that writes the store does.
        if let Some(dir) = self.path.parent() {
            ploy_dirs::ensure_private_dir(dir).map_err(|e| e.to_string())?;
        }
        let mut store = Store::open(&self.path).map_err(|e| e.to_string())?;
        let title = format!("{} session {session}", self.agent);
        let id = store
            .session_conversation_or_create(self.agent, session, &title)
            .map_err(|e| e.to_string())?;
        store.mark_tainted(&id, mark).map_err(|e| e.to_string())?;
        Ok(id)
    }
}
