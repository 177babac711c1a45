//! What the model sees of a conversation: the system prompt, the first user
//! message, then the newest messages that fit `model.context_chars`; older
//! tool results are shortened before anything is dropped. The store keeps
//! everything; the loop keeps in memory only a bounded tail ([`History`]),
//! so a long conversation does not grow the process.

use std::collections::VecDeque;

use ploy_secrets::cap::truncate_on_char_boundary;

use crate::history::Entry;

/// Bytes of a shortened tool result kept in the window.
const SHORTENED_KEEP: usize = 600;

/// The conversation's first user message and a bounded tail of entries.
#[derive(Debug, Clone)]
pub struct History {
    first_user: Option<Entry>,
    /// True while the first user message is still inside `recent`.
    first_in_recent: bool,
    recent: VecDeque<Entry>,
    recent_bytes: usize,
    keep_bytes: usize,
}

impl History {
    /// An empty history that keeps about `keep_bytes` of recent entries in
    /// memory (twice the window budget is plenty: older ones could only be
    /// shortened stubs).
    pub fn new(keep_bytes: usize) -> Self {
        Self {
            first_user: None,
            first_in_recent: false,
            recent: VecDeque::new(),
            recent_bytes: 0,
            keep_bytes,
        }
    }

    /// A history resumed from the store: the first user message and the tail.
    pub fn resume(keep_bytes: usize, first_user: Option<Entry>, tail: Vec<Entry>) -> Self {
        let mut history = Self::new(keep_bytes);
        let first_in_tail = first_user.as_ref().is_some_and(|f| tail.first() == Some(f));
        history.first_user = first_user;
        history.first_in_recent = first_in_tail;
        for entry in tail {
            history.push_recent(entry);
        }
        history
    }

    /// Add an entry (after it is stored).
    pub fn push(&mut self, entry: Entry) {
        if self.first_user.is_none() && matches!(entry, Entry::User(_)) {
            self.first_user = Some(entry.clone());
            self.first_in_recent = self.recent.is_empty();
        }
        self.push_recent(entry);
    }

    fn push_recent(&mut self, entry: Entry) {
        self.recent_bytes += entry.size();
        self.recent.push_back(entry);
        while self.recent_bytes > self.keep_bytes && self.recent.len() > 1 {
            if let Some(old) = self.recent.pop_front() {
                self.recent_bytes -= old.size();
                self.first_in_recent = false;
            }
        }
    }

    /// Entries held in memory (tests and benchmarks).
    pub fn len(&self) -> usize {
        self.recent.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.recent.is_empty()
    }

    /// The entries the model sees, within `budget` bytes (the system prompt
    /// is not counted here; subtract it from the budget first).
    pub fn window(&self, budget: usize) -> Vec<Entry> {
        // Group an assistant message with the tool results that answer it,
        // so a call is never shown without its result or the reverse. Tool
        // results whose call fell out of memory are skipped.
        // The first user message is always shown, once, at the start.
        let skip = usize::from(self.first_in_recent);
        let mut groups: Vec<Vec<&Entry>> = Vec::new();
        for entry in self.recent.iter().skip(skip) {
            match entry {
                Entry::Tool { .. } => match groups.last_mut() {
                    Some(group) if matches!(group.first(), Some(Entry::Assistant { tool_calls, .. }) if !tool_calls.is_empty()) => {
                        group.push(entry)
                    }
                    _ => {}
                },
                other => groups.push(vec![other]),
            }
        }
        let first = self.first_user.as_ref();
        let mut remaining = budget.saturating_sub(first.map_or(0, Entry::size));
        let mut chosen: Vec<Vec<Entry>> = Vec::new();
        for (index, group) in groups.iter().rev().enumerate() {
            let full: usize = group.iter().map(|e| e.size()).sum();
            if full <= remaining {
                remaining -= full;
                chosen.push(group.iter().map(|e| (*e).clone()).collect());
                continue;
            }
            let short: Vec<Entry> = group.iter().map(|e| shorten(e, SHORTENED_KEEP)).collect();
            let short_size: usize = short.iter().map(Entry::size).sum();
            if short_size <= remaining {
                remaining -= short_size;
                chosen.push(short);
                continue;
            }
            if index == 0 {
                // The newest group must be seen: share what is left among
                // its tool results.
                let tools = group
                    .iter()
                    .filter(|e| matches!(e, Entry::Tool { .. }))
                    .count()
                    .max(1);
                let each = remaining.saturating_sub(group[0].size()) / tools;
                chosen.push(group.iter().map(|e| shorten(e, each)).collect());
            }
            break;
        }
        let mut window: Vec<Entry> = first.cloned().into_iter().collect();
        for group in chosen.into_iter().rev() {
            window.extend(group);
        }
        window
    }
}

/// A tool result cut to about `keep` bytes with a note saying so; other
/// entries unchanged. The text was redacted before it was stored, so a cut
/// here cannot expose part of a secret.
fn shorten(entry: &Entry, keep: usize) -> Entry {
    match entry {
        Entry::Tool { call_id, text } if text.len() > keep => {
            let kept = truncate_on_char_boundary(text, keep);
            Entry::Tool {
                call_id: call_id.clone(),
                text: format!(
                    "[older tool result shortened for the context window: {} of {} bytes kept]\n{kept}",
                    kept.len(),
                    text.len()
                ),
            }
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::history::ToolCall;

    fn call(id: &str) -> Entry {
        Entry::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall::function(id, "read", &serde_json::json!({}))],
        }
    }

    fn result(id: &str, bytes: usize) -> Entry {
        Entry::Tool {
            call_id: id.into(),
            text: "x".repeat(bytes),
        }
    }

    #[test]
    fn first_message_and_newest_fit_older_results_are_shortened() {
        let mut h = History::new(1 << 20);
        h.push(Entry::User("task".into()));
        for i in 0..20 {
            h.push(call(&format!("c{i}")));
            h.push(result(&format!("c{i}"), 5_000));
        }
        let w = h.window(20_000);
        assert_eq!(w[0], Entry::User("task".into()));
        let total: usize = w.iter().map(Entry::size).sum();
        assert!(total <= 20_000, "{total}");
        // The newest result is whole; every call in the window has its result.
        assert_eq!(w.last().unwrap(), &result("c19", 5_000));
        let calls = w
            .iter()
            .filter(|e| matches!(e, Entry::Assistant { .. }))
            .count();
        let results = w.iter().filter(|e| matches!(e, Entry::Tool { .. })).count();
        assert_eq!(calls, results);
        assert!(w.iter().any(|e| matches!(e, Entry::Tool { text, .. } if text.starts_with("[older tool result shortened"))));
    }

    #[test]
    fn memory_stays_bounded_and_orphans_are_skipped() {
        let mut h = History::new(10_000);
        h.push(Entry::User("task".into()));
        for i in 0..1_000 {
            h.push(call(&format!("c{i}")));
            h.push(result(&format!("c{i}"), 1_000));
        }
        assert!(h.len() < 25, "{}", h.len());
        let w = h.window(1 << 20);
        assert_eq!(w[0], Entry::User("task".into()));
        assert!(matches!(w[1], Entry::Assistant { .. }), "{:?}", w[1]);
    }

    #[test]
    fn a_huge_newest_result_is_cut_to_fit() {
        let mut h = History::new(1 << 30);
        h.push(Entry::User("task".into()));
        h.push(call("c1"));
        h.push(result("c1", 500_000));
        let w = h.window(10_000);
        let total: usize = w.iter().map(Entry::size).sum();
        assert!(total <= 10_200, "{total}");
        assert_eq!(w.len(), 3);
    }
}
