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

use crate::host::{HOST_AGENT, HostProcess};

/// The store file in the state folder (the one `ploy research` uses).
pub const STORE_FILE: &str = "ploy.db";

/// The "agent" under which the id of a tool call that marked a session is
/// bound to that session's conversation (secrets5 #15): Claude Code's
/// `--resume` starts a new `session_id` whose transcript carries the old
/// session's messages, tool call ids included, so a session whose
/// transcript names a marking call continues a marked conversation.
pub const LINEAGE: &str = "claude-code-tool-use";

/// The most of a transcript read to find its lineage; a larger one cannot
/// be checked, and the call is refused (fail closed) while any session was
/// ever marked.
pub const MAX_TRANSCRIPT_BYTES: u64 = 64 << 20;

/// The most distinct tool call ids looked up in one transcript.
const MAX_TRANSCRIPT_IDS: usize = 50_000;

/// Where a session's history is, and the id of the call in hand.
#[derive(Debug, Clone)]
struct Lineage {
    transcript: PathBuf,
    tool_use: Option<String>,
}

/// Where a session's conversation lives.
#[derive(Debug, Clone)]
pub struct Sessions {
    path: PathBuf,
    agent: &'static str,
    /// Bind a marked session to the processes above this one.
    bind_ancestors: bool,
    /// The process whose sessions' marks this one shares (`ploy mcp`'s
    /// parent); `Some(None)`: it should, but the process is unknown.
    served_by: Option<Option<HostProcess>>,
    /// The host's transcript and the call's id (Claude Code), for marks
    /// carried over a resumed session.
    lineage: Option<Lineage>,
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
            bind_ancestors: false,
            served_by: None,
            lineage: None,
        }
    }

    /// Carry marks over resumed sessions (secrets5 #15): a mark records the
    /// marking call's `tool_use` id, and a session not yet bound whose
    /// `transcript` holds such an id continues that marked conversation.
    pub fn with_transcript(mut self, transcript: Option<&str>, tool_use: Option<&str>) -> Self {
        self.lineage = transcript
            .filter(|t| !t.is_empty())
            .map(|transcript| Lineage {
                transcript: PathBuf::from(transcript),
                tool_use: tool_use.filter(|t| !t.is_empty()).map(str::to_string),
            });
        self
    }

    /// Bind each marked session to the processes above this one too (the
    /// hook: the agent that runs it), so a `ploy mcp` that agent started
    /// finds the session's marks ([`crate::host`], integrations #8).
    pub fn binding_ancestors(mut self) -> Self {
        self.bind_ancestors = true;
        self
    }

    /// Share the marks of every session bound to `host` (`ploy mcp`: the
    /// agent that started it). `None` (the process cannot be named) makes
    /// every [`Sessions::state`] an error: the caller fails closed.
    pub fn served_by(mut self, host: Option<HostProcess>) -> Self {
        self.served_by = Some(host);
        self
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The session's state. Any store error is an error: the caller cannot
    /// tell whether the session is marked (fail closed). A marked session
    /// is bound to the hosts (only written once per host); the marks of the
    /// sessions of the process this one is served by are added.
    pub fn state(&self, session: &str) -> Result<SessionState, String> {
        let served_by = match &self.served_by {
            None => None,
            Some(Some(host)) => Some(host),
            Some(None) => {
                return Err(
                    "the process that started this server cannot be named (no /proc), so the \
                     marks of its sessions cannot be checked"
                        .into(),
                );
            }
        };
        if !self.path.exists() {
            return Ok(SessionState::default());
        }
        let mut store = Store::open(&self.path).map_err(|e| e.to_string())?;
        let approvals = store
            .approvals()
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|saved| saved.approval)
            .collect();
        let approvals = Approvals::from_saved(approvals).map_err(|e| e.to_string())?;
        let own = match store
            .session_conversation(self.agent, session)
            .map_err(|e| e.to_string())?
        {
            Some(id) => Some(id),
            None => self.inherited(&mut store, session)?,
        };
        let mut conversation = match &own {
            Some(id) => store.conversation_rules(id).map_err(|e| e.to_string())?,
            None => ConversationRules::new(),
        };
        if let Some(id) = &own
            && conversation.is_tainted()
        {
            self.bind_hosts(&mut store, session, id)?;
        }
        if let Some(host) = served_by {
            let linked = store
                .session_conversations_with_prefix(HOST_AGENT, &host.key())
                .map_err(|e| e.to_string())?;
            for id in linked.iter().filter(|id| Some(*id) != own.as_ref()) {
                let rules = store.conversation_rules(id).map_err(|e| e.to_string())?;
                for mark in rules.marks() {
                    conversation.mark_tainted(
                        format!(
                            "{} (in a session of the agent that started this server)",
                            mark.reason
                        ),
                        mark.source.clone(),
                    );
                }
            }
        }
        Ok(SessionState {
            conversation,
            approvals,
        })
    }

    /// The marked conversation this session continues, if its transcript
    /// names a call that marked one (a resumed session, secrets5 #15); it
    /// is bound to the session at once, so later calls find it directly.
    /// A transcript that cannot be read while marks exist is an error: the
    /// caller refuses rather than judge the session as clean.
    fn inherited(&self, store: &mut Store, session: &str) -> Result<Option<String>, String> {
        let Some(lineage) = &self.lineage else {
            return Ok(None);
        };
        let marked = store
            .session_conversations_with_prefix(LINEAGE, "")
            .map_err(|e| e.to_string())?;
        if marked.is_empty() {
            return Ok(None);
        }
        let shown = lineage.transcript.display();
        let bytes = match ploy_dirs::read_bounded(&lineage.transcript, MAX_TRANSCRIPT_BYTES) {
            Ok(ploy_dirs::FileRead::Bytes(bytes)) => bytes,
            // No transcript yet (a new session before its first message),
            // or none given as a file (`/dev/null`): no history to continue.
            Ok(ploy_dirs::FileRead::Missing) | Err(ploy_dirs::BoundedReadError::NotRegular(_)) => {
                return Ok(None);
            }
            Ok(ploy_dirs::FileRead::Folder) => {
                return Err(format!(
                    "the session's transcript `{shown}` is a folder, so ploy cannot tell whether \
                     the session continues a marked one"
                ));
            }
            Err(err) => {
                return Err(format!(
                    "the session's transcript `{shown}` cannot be read ({err}), so ploy cannot \
                     tell whether the session continues a marked one"
                ));
            }
        };
        let ids = tool_use_ids(&bytes);
        if ids.len() > MAX_TRANSCRIPT_IDS {
            return Err(format!(
                "the session's transcript `{shown}` names more than {MAX_TRANSCRIPT_IDS} tool \
                 calls, so ploy cannot tell whether the session continues a marked one"
            ));
        }
        for id in ids {
            if let Some(conversation) = store
                .session_conversation(LINEAGE, id)
                .map_err(|e| e.to_string())?
            {
                store
                    .bind_session(self.agent, session, &conversation)
                    .map_err(|e| {
                        format!("the mark of the session this one resumes cannot be kept ({e})")
                    })?;
                return Ok(Some(conversation));
            }
        }
        Ok(None)
    }

    /// Bind the session's conversation to each host not yet bound.
    fn bind_hosts(&self, store: &mut Store, session: &str, id: &str) -> Result<(), String> {
        if !self.bind_ancestors {
            return Ok(());
        }
        for host in crate::host::ancestors(crate::host::BOUND_ANCESTORS) {
            let key = host.session_key(self.agent, session);
            let bound = store
                .session_conversation(HOST_AGENT, &key)
                .map_err(|e| e.to_string())?;
            if bound.is_none() {
                store.bind_session(HOST_AGENT, &key, id).map_err(|e| {
                    format!("the mark could not be shared with the agent's other tools ({e})")
                })?;
            }
        }
        Ok(())
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

    /// Record that the session read a page of `url`'s site (BEYOND-7: later
    /// fetches there do not ask). A URL with no site is not recorded; an
    /// error only means the site asks next time (fail closed).
    pub fn visit(&self, session: &str, url: &str) -> Result<(), String> {
        let Ok(site) = ploy_policy::site_of(url) else {
            return Ok(());
        };
        let mut store = Store::open(&self.path).map_err(|e| e.to_string())?;
        let Some(id) = store
            .session_conversation(self.agent, session)
            .map_err(|e| e.to_string())?
        else {
            return Ok(());
        };
        store.visit_site(&id, &site).map_err(|e| e.to_string())
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
        // The marking call's id, for a session that later resumes this one
        // under a new id (secrets5 #15).
        if let Some(tool_use) = self.lineage.as_ref().and_then(|l| l.tool_use.as_deref()) {
            store
                .bind_session(LINEAGE, tool_use, &id)
                .map_err(|e| e.to_string())?;
        }
        self.bind_hosts(&mut store, session, &id)?;
        Ok(id)
    }
}

/// The distinct Claude Code tool call ids (`toolu_…`) a transcript names.
fn tool_use_ids(bytes: &[u8]) -> std::collections::BTreeSet<&str> {
    const PREFIX: &[u8] = b"toolu_";
    let mut ids = std::collections::BTreeSet::new();
    let mut at = 0;
    while let Some(found) = bytes[at..].windows(PREFIX.len()).position(|w| w == PREFIX) {
        let start = at + found;
        let end = bytes[start + PREFIX.len()..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-'))
            .map_or(bytes.len(), |n| start + PREFIX.len() + n);
        if end > start + PREFIX.len()
            && let Ok(id) = std::str::from_utf8(&bytes[start..end])
        {
            ids.insert(id);
        }
        at = end.max(start + 1);
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_use_ids_are_found_in_transcript_lines() {
        let text = br#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_01AbC","name":"WebFetch"}]}}
{"type":"user","message":{"content":[{"tool_use_id":"toolu_01AbC","type":"tool_result"}]}} toolu_ toolu_x-y"#;
        let ids: Vec<&str> = tool_use_ids(text).into_iter().collect();
        assert_eq!(ids, ["toolu_01AbC", "toolu_x-y"]);
    }
}
