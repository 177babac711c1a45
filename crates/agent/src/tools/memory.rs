//! `memory_save{text}`, `memory_search{query}` (BEYOND-5): ploy's memory of
//! the project, kept in its store. An entry belongs to the conversation
//! that saved it and carries that conversation's marks: when a search hit
//! comes from another conversation, that conversation's marks (with their
//! sources) are copied into this one BEFORE the hit's text is returned;
//! when the copy cannot be written, the hit is withheld (TAINT-3). So a
//! hostile page's words saved in a tainted conversation never reach a later
//! conversation's model without its mark.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use ploy_policy::Action;
use serde_json::{Value, json};

use crate::tool::{
    BoxFuture, Cleared, Prepared, Tool, ToolContext, ToolError, ToolOutput, ToolSpec,
    cleared_string, one_string_schema, prepare_one_string,
};

/// Hits `memory_search` returns at most.
const MAX_HITS: usize = 20;
/// The longest entry `memory_save` keeps.
const MAX_ENTRY_CHARS: usize = 4000;

/// `memory_save{text}`.
#[derive(Debug, Clone, Copy)]
pub struct MemorySave;

impl Tool for MemorySave {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "memory_save",
            description: "Remember a short note for later conversations in this project. The note carries this conversation's marks: citing it later marks the citing conversation too.",
            parameters: one_string_schema("text", MAX_ENTRY_CHARS),
        }
    }

    fn prepare(&self, args: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        prepare_one_string(args, "text", |text| {
            if text.chars().count() > MAX_ENTRY_CHARS {
                return Err(ToolError::new(format!(
                    "a note is at most {MAX_ENTRY_CHARS} characters"
                )));
            }
            Ok(vec![Action::memory("memory_save")])
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let text = match cleared_string(cleared, "memory_save") {
                Ok(text) => text,
                Err(output) => return output,
            };
            match ctx.marker.save_memory(&ctx.conversation_id, &text) {
                Ok(id) => ToolOutput::ok(json!({"saved": id}).to_string()),
                Err(err) => ToolOutput::error(
                    "memory_save",
                    &ToolError::new(format!("the note was not saved: {err}")),
                ),
            }
        })
    }
}

/// `memory_search{query}`.
#[derive(Debug, Clone, Copy)]
pub struct MemorySearch;

impl Tool for MemorySearch {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "memory_search",
            description: "Search the notes remembered in this project's conversations. A note from a conversation that read web content marks this conversation too before it is shown.",
            parameters: one_string_schema("query", 200),
        }
    }

    fn prepare(&self, args: &Value, _ctx: &ToolContext) -> Result<Prepared, ToolError> {
        prepare_one_string(args, "query", |_| Ok(vec![Action::memory("memory_search")]))
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let query = match cleared_string(cleared, "memory_search") {
                Ok(query) => query,
                Err(output) => return output,
            };
            let project = ctx.project.to_string_lossy();
            let hits = match ctx.marker.search_memory(&project, &query, MAX_HITS) {
                Ok(hits) => hits,
                Err(err) => {
                    return ToolOutput::error(
                        "memory_search",
                        &ToolError::new(format!("the memory could not be searched: {err}")),
                    );
                }
            };
            // BEYOND-5: every other conversation's marks first; a conversation
            // whose marks cannot be copied has its notes withheld (TAINT-3).
            let others: BTreeSet<&str> = hits
                .iter()
                .filter_map(|h| h.conversation_id.as_deref())
                .filter(|id| *id != ctx.conversation_id)
                .collect();
            let mut withheld = BTreeSet::new();
            for other in &others {
                if let Err(err) = ctx.marker.carry_from(&ctx.conversation_id, other) {
                    tracing::warn!("the marks of conversation {other} could not be copied: {err}");
                    withheld.insert(*other);
                }
            }
            let mut out = String::new();
            let mut shown = 0;
            for hit in &hits {
                let from = hit.conversation_id.as_deref().unwrap_or("");
                if withheld.contains(from) {
                    continue;
                }
                shown += 1;
                let _ = writeln!(
                    out,
                    "[note {} from conversation {from}] {}",
                    hit.id, hit.text
                );
            }
            if !withheld.is_empty() {
                let _ = writeln!(
                    out,
                    "[{} note(s) withheld (TAINT-3): the marks of their conversation could not be copied into this one]",
                    hits.len() - shown
                );
            }
            if hits.is_empty() {
                out.push_str("(no note matches)\n");
            }
            ToolOutput::ok(out)
        })
    }
}
