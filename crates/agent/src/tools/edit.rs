//! `edit` and `write`: changing files. Each is an `edit` action on the
//! resolved path (outside the project also `external_directory`; ploy's own
//! and other agents' files always ask, PERM-7). A person who is asked sees
//! the diff; what is written is exactly what the diff showed (the file is
//! compared again before writing), atomically (new file, sync, rename).

use std::any::Any;
use std::time::Duration;

use ploy_policy::Action;
use serde_json::{Value, json};
use similar::TextDiff;

use crate::tool::{
    BoxFuture, Cleared, Prepared, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, only_args,
    str_arg,
};
use crate::tools::paths::{ResolvedPath, looks_binary, read_capped, resolve, write_atomic};

/// Largest file `edit` changes and `write` writes.
const MAX_EDIT_BYTES: u64 = 8 << 20;

/// The most time one diff may take. Myers' algorithm is quadratic in the
/// changed lines (a 60,000-line rewrite took minutes, and the ask waited
/// for it: tui-rpc #13); past the deadline similar finishes with a coarser
/// diff, still a true one (every removed and added line is in it).
const DIFF_TIME: Duration = Duration::from_millis(500);

/// The most diff lines shown whole. A longer diff shows its first and last
/// [`DIFF_END_LINES`] lines around a line saying how much is not shown: a
/// person cannot read more in an approval prompt, and says yes or no to the
/// whole file (`write` replaces it whole, `edit` changes one place).
pub const MAX_DIFF_LINES: usize = 2_000;

/// The lines kept at each end of a diff longer than [`MAX_DIFF_LINES`].
pub const DIFF_END_LINES: usize = 200;

/// The unified diff of `before` → `after`, labelled with `path`; computed
/// within [`DIFF_TIME`] and cut to [`MAX_DIFF_LINES`] with a note naming
/// how many lines are removed and added.
pub fn unified_diff(path: &str, before: &str, after: &str) -> String {
    let diff = TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .timeout(DIFF_TIME)
        .diff_lines(before, after);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.len() <= MAX_DIFF_LINES {
        return text;
    }
    let (mut removed, mut added) = (0usize, 0usize);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let hidden = lines.len() - 2 * DIFF_END_LINES;
    let mut out: String = lines[..DIFF_END_LINES].concat();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "@@ {removed} lines removed, {added} lines added: the diff is too large to show whole; {hidden} of its {} lines are not shown (its first and last {DIFF_END_LINES} are). Answering yes changes the file as a whole, the part not shown too @@\n",
        lines.len()
    ));
    out.push_str(&lines[lines.len() - DIFF_END_LINES..].concat());
    out
}

/// The current text of a file: `Ok(None)` when it does not exist.
fn current_text(path: &ResolvedPath) -> Result<Option<String>, ToolError> {
    match read_capped(&path.real, MAX_EDIT_BYTES) {
        Ok((_, true)) => Err(ToolError::new(format!(
            "{} is larger than {MAX_EDIT_BYTES} bytes",
            path.given
        ))),
        Ok((bytes, false)) if looks_binary(&bytes) => {
            Err(ToolError::new(format!("{} is a binary file", path.given)))
        }
        Ok((bytes, false)) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| ToolError::new(format!("{} is not UTF-8 text", path.given))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(ToolError::new(format!("cannot read {}: {err}", path.given))),
    }
}

/// The new text of an `edit`: `old` must occur exactly once.
fn replaced(path: &str, text: &str, old: &str, new: &str) -> Result<String, ToolError> {
    match text.matches(old).count() {
        0 => Err(ToolError::new(format!(
            "`old_string` was not found in {path}; read the file and copy the text exactly"
        ))),
        1 => Ok(text.replacen(old, new, 1)),
        n => Err(ToolError::new(format!(
            "`old_string` occurs {n} times in {path}; include more surrounding text so it is unique"
        ))),
    }
}

enum Change {
    Replace { old: String, new: String },
    Whole { content: String },
}

struct EditPlan {
    path: ResolvedPath,
    change: Change,
    /// The text the person saw the diff against (set by `preview`).
    shown_before: Option<Option<String>>,
}

impl EditPlan {
    fn after(&self, before: Option<&str>) -> Result<String, ToolError> {
        match (&self.change, before) {
            (Change::Whole { content }, _) => Ok(content.clone()),
            (Change::Replace { old, new }, Some(text)) => {
                replaced(&self.path.given, text, old, new)
            }
            (Change::Replace { .. }, None) => Err(ToolError::new(format!(
                "{} does not exist; use `write` to create a file",
                self.path.given
            ))),
        }
    }
}

fn preview_plan(plan: &mut (dyn Any + Send)) -> Option<String> {
    let plan = plan.downcast_mut::<EditPlan>()?;
    let before = current_text(&plan.path).ok()?;
    let after = plan.after(before.as_deref()).ok()?;
    let diff = unified_diff(&plan.path.given, before.as_deref().unwrap_or(""), &after);
    plan.shown_before = Some(before);
    Some(diff)
}

fn run_plan(tool: &'static str, cleared: Cleared, ctx: &ToolContext) -> ToolOutput {
    let (plan, _) = match cleared.into_parts::<EditPlan>() {
        Ok(parts) => parts,
        Err(err) => return ToolOutput::error(tool, &err),
    };
    let before = match current_text(&plan.path) {
        Ok(before) => before,
        Err(err) => return ToolOutput::error(tool, &err),
    };
    if let Some(shown) = &plan.shown_before
        && shown != &before
    {
        return ToolOutput::error(
            tool,
            &ToolError::new(format!(
                "{} changed after the diff was shown; nothing was written. Try again",
                plan.path.given
            )),
        );
    }
    let after = match plan.after(before.as_deref()) {
        Ok(after) => after,
        Err(err) => return ToolOutput::error(tool, &err),
    };
    if let Err(err) = write_atomic(&ctx.project, &plan.path.real, after.as_bytes()) {
        return ToolOutput::error(
            tool,
            &ToolError::new(format!("cannot write {}: {err}", plan.path.given)),
        );
    }
    let verb = match (&plan.change, before.is_some()) {
        (Change::Replace { .. }, _) => "edited",
        (Change::Whole { .. }, true) => "overwrote",
        (Change::Whole { .. }, false) => "created",
    };
    ToolOutput::ok(format!(
        "{verb} {} ({} bytes)",
        plan.path.given,
        after.len()
    ))
}

fn edit_action(tool: &str, path: &ResolvedPath, ctx: &ToolContext) -> Vec<Action> {
    // A write that makes or changes a folder git takes as a repository
    // outside `.git` (proof5 #16) is PERM-7 like `.git/**`.
    let repository = ploy_dirs::repository_part_reason(&ctx.project, &path.real);
    vec![Action::edit(tool, &path.check(), &ctx.root).protecting_edits(repository)]
}

/// `edit{path, old_string, new_string}`: replace one exact occurrence.
#[derive(Debug, Clone, Copy)]
pub struct Edit;

impl Tool for Edit {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "edit",
            description: "Replace one exact occurrence of `old_string` with `new_string` in a text file. `old_string` must occur exactly once (include surrounding lines to make it unique).",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["path", "old_string", "new_string"],
                "properties": {
                    "path": {"type": "string"},
                    "old_string": {"type": "string", "minLength": 1},
                    "new_string": {"type": "string"}
                }
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["path", "old_string", "new_string"])?;
        let path = resolve(ctx, str_arg(args, "path")?)?;
        let old = str_arg(args, "old_string")?;
        if old.is_empty() {
            return Err(ToolError::new(
                "`old_string` is empty; use `write` to create a file",
            ));
        }
        let new = str_arg(args, "new_string")?;
        Ok(Prepared {
            actions: edit_action("edit", &path, ctx),
            target: path.given.clone(),
            plan: Box::new(EditPlan {
                path,
                change: Change::Replace {
                    old: old.to_string(),
                    new: new.to_string(),
                },
                shown_before: None,
            }),
        })
    }

    fn preview(&self, plan: &mut (dyn Any + Send), _ctx: &ToolContext) -> Option<String> {
        preview_plan(plan)
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move { run_plan("edit", cleared, ctx) })
    }
}

/// `write{path, content}`: create or replace a file.
#[derive(Debug, Clone, Copy)]
pub struct Write;

impl Tool for Write {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "write",
            description: "Create a file, or replace its whole content. Missing folders are created.",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["path", "content"],
                "properties": {
                    "path": {"type": "string"},
                    "content": {"type": "string"}
                }
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["path", "content"])?;
        let path = resolve(ctx, str_arg(args, "path")?)?;
        let content = str_arg(args, "content")?;
        if content.len() as u64 > MAX_EDIT_BYTES {
            return Err(ToolError::new(format!(
                "the content is larger than {MAX_EDIT_BYTES} bytes"
            )));
        }
        Ok(Prepared {
            actions: edit_action("write", &path, ctx),
            target: path.given.clone(),
            plan: Box::new(EditPlan {
                path,
                change: Change::Whole {
                    content: content.to_string(),
                },
                shown_before: None,
            }),
        })
    }

    fn preview(&self, plan: &mut (dyn Any + Send), _ctx: &ToolContext) -> Option<String> {
        preview_plan(plan)
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move { run_plan("write", cleared, ctx) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: PERM-3 (tui-rpc #13: the diff of a 60,000-line rewrite is
    // computed in bounded time and cut with a note saying how much changed;
    // a small diff is shown whole)
    #[test]
    fn a_huge_rewrite_diff_is_bounded_and_says_so() {
        let before: String = (0..60_000).map(|i| format!("line {i}\n")).collect();
        let after: String = (0..60_000).map(|i| format!("line {i} changed\n")).collect();
        let diff = unified_diff("big.txt", &before, &after);
        assert!(
            diff.lines().count() <= 2 * DIFF_END_LINES + 1,
            "{} lines",
            diff.lines().count()
        );
        assert!(
            diff.contains("@@ 60000 lines removed, 60000 lines added: the diff is too large"),
            "{}",
            &diff[..2000]
        );
        assert!(
            diff.starts_with("--- a/big.txt\n+++ b/big.txt\n@@ "),
            "{diff}"
        );
        assert!(diff.contains("-line 0\n"), "{}", &diff[..2000]);

        let small = unified_diff("f", "a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(small, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    }
}
