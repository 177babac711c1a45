//! `read`, `list`, `glob`, `grep`: reading the project. Each builds a `read`
//! action on the resolved path (outside the project it is also
//! `external_directory`, and asks); `grep` checks every file it opens through
//! the same decision ([`crate::tool::ReadGate`]), so a secret file that asks
//! (`.env`, `*.pem`, ...) is skipped, never read.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use globset::GlobBuilder;
use ploy_policy::Action;
use serde_json::{Value, json};

use crate::tool::{
    BoxFuture, Cleared, Prepared, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, only_args,
    opt_str_arg, str_arg,
};
use crate::tools::paths::{ResolvedPath, looks_binary, read_capped, resolve, shown};

/// Largest file `read` opens.
const MAX_READ_BYTES: u64 = 8 << 20;
/// Lines `read` returns by default (and at most).
const MAX_READ_LINES: usize = 2000;
/// Characters kept of one line.
const MAX_LINE_CHARS: usize = 2000;
/// Entries `list` and `glob` return at most.
const MAX_ENTRIES: usize = 1000;
/// Matches `grep` returns at most.
const MAX_MATCHES: usize = 500;
/// Largest file `grep` searches.
const MAX_GREP_FILE_BYTES: u64 = 2 << 20;

fn one_path_action(tool: &'static str, path: &ResolvedPath, ctx: &ToolContext) -> Vec<Action> {
    vec![Action::read(tool, &path.check(), &ctx.root)]
}

fn usize_arg(args: &Value, name: &str, default: usize, max: usize) -> Result<usize, ToolError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(value) => match value.as_u64() {
            Some(n) if n >= 1 => Ok((n as usize).min(max)),
            _ => Err(ToolError::new(format!(
                "argument `{name}` must be a whole number of at least 1"
            ))),
        },
    }
}

/// `read{path, offset?, limit?}`: a text file's lines, numbered.
#[derive(Debug, Clone, Copy)]
pub struct Read;

struct ReadPlan {
    path: ResolvedPath,
    offset: usize,
    limit: usize,
}

impl Tool for Read {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read",
            description: "Read a text file. Lines come back numbered. `offset` is the first line (1-based), `limit` the number of lines (at most 2000). Paths are relative to the project or absolute; outside the project asks.",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["path"],
                "properties": {
                    "path": {"type": "string"},
                    "offset": {"type": "integer", "minimum": 1},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_READ_LINES}
                }
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["path", "offset", "limit"])?;
        let path = resolve(ctx, str_arg(args, "path")?)?;
        let offset = usize_arg(args, "offset", 1, usize::MAX)?;
        let limit = usize_arg(args, "limit", MAX_READ_LINES, MAX_READ_LINES)?;
        Ok(Prepared {
            actions: one_path_action("read", &path, ctx),
            target: path.given.clone(),
            plan: Box::new(ReadPlan {
                path,
                offset,
                limit,
            }),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let (plan, _) = match cleared.into_parts::<ReadPlan>() {
                Ok(parts) => parts,
                Err(err) => return ToolOutput::error("read", &err),
            };
            let shown_path = plan.path.shown(&ctx.project);
            if plan.path.real.is_dir() {
                return ToolOutput::error(
                    "read",
                    &ToolError::new(format!("{shown_path} is a folder; use `list`")),
                );
            }
            let (bytes, longer) = match read_capped(&plan.path.real, MAX_READ_BYTES) {
                Ok(read) => read,
                Err(err) => {
                    return ToolOutput::error(
                        "read",
                        &ToolError::new(format!("cannot read {shown_path}: {err}")),
                    );
                }
            };
            if looks_binary(&bytes) {
                return ToolOutput::error(
                    "read",
                    &ToolError::new(format!("{shown_path} is a binary file")),
                );
            }
            let text = String::from_utf8_lossy(&bytes);
            let mut out = String::new();
            let mut shown_lines = 0usize;
            let mut total = 0usize;
            for (index, line) in text.lines().enumerate() {
                total = index + 1;
                if total < plan.offset || shown_lines >= plan.limit {
                    continue;
                }
                shown_lines += 1;
                let line: String = line.chars().take(MAX_LINE_CHARS).collect();
                let _ = writeln!(out, "{total:>6}\t{line}");
            }
            if shown_lines == 0 {
                let _ = writeln!(
                    out,
                    "[{shown_path} has {total} lines; nothing at offset {}]",
                    plan.offset
                );
            } else if plan.offset + shown_lines <= total {
                let _ = writeln!(
                    out,
                    "[{} more lines; read on with offset={}]",
                    total + 1 - plan.offset - shown_lines,
                    plan.offset + shown_lines
                );
            }
            if longer {
                let _ = writeln!(
                    out,
                    "[the file is longer than {MAX_READ_BYTES} bytes; the rest was not read]"
                );
            }
            ToolOutput::ok(out)
        })
    }
}

/// `list{path?}`: a folder's entries (folders end with `/`).
#[derive(Debug, Clone, Copy)]
pub struct List;

impl Tool for List {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "list",
            description: "List a folder's entries (folders end with `/`). The path defaults to the project folder.",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {"path": {"type": "string"}}
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["path"])?;
        let path = resolve(ctx, opt_str_arg(args, "path")?.unwrap_or("."))?;
        Ok(Prepared {
            actions: one_path_action("list", &path, ctx),
            target: path.given.clone(),
            plan: Box::new(path),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let (path, _) = match cleared.into_parts::<ResolvedPath>() {
                Ok(parts) => parts,
                Err(err) => return ToolOutput::error("list", &err),
            };
            let entries = match std::fs::read_dir(&path.real) {
                Ok(entries) => entries,
                Err(err) => {
                    return ToolOutput::error(
                        "list",
                        &ToolError::new(format!("cannot list {}: {err}", path.shown(&ctx.project))),
                    );
                }
            };
            let mut names: Vec<String> = entries
                .flatten()
                .map(|entry| {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    match entry.file_type() {
                        Ok(t) if t.is_dir() => format!("{name}/"),
                        Ok(t) if t.is_symlink() => format!("{name}@"),
                        _ => name,
                    }
                })
                .collect();
            names.sort();
            let total = names.len();
            names.truncate(MAX_ENTRIES);
            let mut out = names.join("\n");
            if total > MAX_ENTRIES {
                let _ = write!(out, "\n[{} more entries not shown]", total - MAX_ENTRIES);
            }
            if total == 0 {
                out = "[empty folder]".into();
            }
            ToolOutput::ok(out)
        })
    }
}

/// The literal folder a glob pattern starts in, and the rest of it.
fn split_pattern(pattern: &str) -> (String, String) {
    let is_glob = |part: &str| part.contains(['*', '?', '[', ']', '{', '}']);
    let parts: Vec<&str> = pattern.split('/').collect();
    let first_glob = parts.iter().position(|p| is_glob(p)).unwrap_or(parts.len());
    let mut base = parts[..first_glob].join("/");
    if base.is_empty() {
        base = if pattern.starts_with('/') {
            "/".into()
        } else {
            ".".into()
        };
    }
    (base, parts[first_glob..].join("/"))
}

fn walker(base: &Path) -> ignore::Walk {
    ignore::WalkBuilder::new(base)
        .hidden(false)
        .follow_links(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build()
}

/// `glob{pattern}`: paths matching a pattern (`src/**/*.rs`), `.gitignore`
/// respected.
#[derive(Debug, Clone, Copy)]
pub struct Glob;

struct GlobPlan {
    base: ResolvedPath,
    matcher: Option<globset::GlobMatcher>,
}

impl Tool for Glob {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "glob",
            description: "Find paths matching a glob pattern such as `src/**/*.rs` (relative to the project; .gitignore is respected).",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["pattern"],
                "properties": {"pattern": {"type": "string", "minLength": 1}}
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["pattern"])?;
        let pattern = str_arg(args, "pattern")?;
        let (base, rest) = split_pattern(pattern);
        let base = resolve(ctx, &base)?;
        let matcher = if rest.is_empty() {
            None
        } else {
            Some(
                GlobBuilder::new(&rest)
                    .literal_separator(true)
                    .build()
                    .map_err(|err| ToolError::new(format!("bad pattern `{pattern}`: {err}")))?
                    .compile_matcher(),
            )
        };
        Ok(Prepared {
            actions: one_path_action("glob", &base, ctx),
            target: pattern.to_string(),
            plan: Box::new(GlobPlan { base, matcher }),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let (plan, _) = match cleared.into_parts::<GlobPlan>() {
                Ok(parts) => parts,
                Err(err) => return ToolOutput::error("glob", &err),
            };
            let Some(matcher) = plan.matcher else {
                return ToolOutput::ok(if plan.base.real.exists() {
                    plan.base.shown(&ctx.project)
                } else {
                    "[no match]".into()
                });
            };
            let mut found: Vec<String> = Vec::new();
            let mut more = 0usize;
            for entry in walker(&plan.base.real).flatten() {
                let Ok(rel) = entry.path().strip_prefix(&plan.base.real) else {
                    continue;
                };
                if rel.as_os_str().is_empty() || !matcher.is_match(rel) {
                    continue;
                }
                if found.len() >= MAX_ENTRIES {
                    more += 1;
                    continue;
                }
                found.push(shown(entry.path(), &ctx.project));
            }
            found.sort();
            let mut out = if found.is_empty() {
                "[no match]".to_string()
            } else {
                found.join("\n")
            };
            if more > 0 {
                let _ = write!(out, "\n[{more} more matches not shown]");
            }
            ToolOutput::ok(out)
        })
    }
}

/// `grep{pattern, path?}`: lines matching a regular expression.
#[derive(Debug, Clone, Copy)]
pub struct Grep;

struct GrepPlan {
    base: ResolvedPath,
    regex: regex::Regex,
}

impl Tool for Grep {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "grep",
            description: "Search file contents for a regular expression (Rust regex syntax). Returns `path:line:text`. The path (a file or folder) defaults to the project; files whose reading would need approval are skipped.",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["pattern"],
                "properties": {
                    "pattern": {"type": "string", "minLength": 1},
                    "path": {"type": "string"}
                }
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["pattern", "path"])?;
        let pattern = str_arg(args, "pattern")?;
        let regex = regex::RegexBuilder::new(pattern)
            .size_limit(1 << 20)
            .dfa_size_limit(4 << 20)
            .build()
            .map_err(|err| ToolError::new(format!("bad pattern: {err}")))?;
        let base = resolve(ctx, opt_str_arg(args, "path")?.unwrap_or("."))?;
        Ok(Prepared {
            actions: one_path_action("grep", &base, ctx),
            target: format!("{pattern} in {}", base.given),
            plan: Box::new(GrepPlan { base, regex }),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let (plan, gate) = match cleared.into_parts::<GrepPlan>() {
                Ok(parts) => parts,
                Err(err) => return ToolOutput::error("grep", &err),
            };
            let files: Vec<PathBuf> = if plan.base.real.is_file() {
                vec![plan.base.real.clone()]
            } else {
                walker(&plan.base.real)
                    .flatten()
                    .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                    .map(|e| e.into_path())
                    .collect()
            };
            let mut out = String::new();
            let mut matches = 0usize;
            let mut skipped = Vec::new();
            'files: for file in files {
                if ctx.cancel.is_cancelled() {
                    break;
                }
                // Each file is its own read: one that asks (a secret file)
                // or is denied is skipped, never opened.
                if file != plan.base.real && !gate.may_read(&file.to_string_lossy()) {
                    skipped.push(shown(&file, &ctx.project));
                    continue;
                }
                let Ok((bytes, _)) = read_capped(&file, MAX_GREP_FILE_BYTES) else {
                    continue;
                };
                if looks_binary(&bytes) {
                    continue;
                }
                // The pattern runs over the text as the model would be
                // shown it: a known secret copied into any file is
                // `[REDACTED]` here, so patterns probing it character by
                // character all answer alike (secrets5 #8, REDACT-1). A
                // secret spanning lines may shift later line numbers.
                let text = String::from_utf8_lossy(&bytes);
                let text = ctx.redactor.redact(&text);
                for (index, line) in text.lines().enumerate() {
                    if plan.regex.is_match(line) {
                        if matches >= MAX_MATCHES {
                            let _ = writeln!(
                                out,
                                "[more than {MAX_MATCHES} matches; narrow the pattern or the path]"
                            );
                            break 'files;
                        }
                        matches += 1;
                        let line: String = line.chars().take(300).collect();
                        let _ =
                            writeln!(out, "{}:{}:{line}", shown(&file, &ctx.project), index + 1);
                    }
                }
            }
            if matches == 0 {
                out.push_str("[no match]\n");
            }
            if !skipped.is_empty() {
                let _ = writeln!(
                    out,
                    "[{} file(s) skipped because reading them needs approval: {}]",
                    skipped.len(),
                    skipped
                        .iter()
                        .take(20)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            ToolOutput::ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_split_at_the_first_glob_part() {
        assert_eq!(
            split_pattern("src/**/*.rs"),
            ("src".into(), "**/*.rs".into())
        );
        assert_eq!(split_pattern("*.md"), (".".into(), "*.md".into()));
        assert_eq!(
            split_pattern("/etc/*.conf"),
            ("/etc".into(), "*.conf".into())
        );
        assert_eq!(split_pattern("../x/*"), ("../x".into(), "*".into()));
        assert_eq!(split_pattern("a/b"), ("a/b".into(), String::new()));
    }
}
