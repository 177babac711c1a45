//! Host tool calls → ploy actions (PERM-1).
//!
//! Claude Code's tools:
//!
//! | tool | ploy |
//! |---|---|
//! | `Bash` | `shell`, judged per simple command; redirect targets and writing arguments are `edit`s (PERM-7 included); paths outside the folder `external_directory` |
//! | `Edit`, `MultiEdit`, `Write`, `NotebookEdit` | `edit` of `file_path` / `notebook_path` |
//! | `Read`, `NotebookRead`, `Grep`, `Glob`, `LS` | `read` of the path (the folder when none); outside the folder also `external_directory` |
//! | `WebFetch` | `web` of `url`; marks the session first |
//! | `WebSearch` | `web` of Anthropic's search service (`https://api.anthropic.com/`), the phrase in the notes; marks first |
//! | `mcp__*__sandbox_run`, `mcp__*__proof_run` (ploy's own, any server name) | `shell` of `command` / `line`; cannot be remapped |
//! | `mcp__*` matching `hook.web_tools` | `web` of the input's `url` (else its `query`); marks first |
//! | a tool named in `hook.tools` | the kind configured |
//! | `Task`, `TodoWrite`, `ExitPlanMode`, … and other MCP tools | no decision |
//! | any other name | refused: ploy cannot judge a tool it does not know |
//!
//! Every path is also resolved on the disk (symbolic links followed), and
//! both forms are judged (PERM-7 through a link).

use ploy_policy::{Action, ActionKind, KindSet, TaintSource};
use serde_json::{Map, Value};

use crate::config::ToolKind;
use crate::judge::{Call, Context, Refused, kinds, web_mark};

/// Claude Code tools ploy has nothing to say about.
pub const PASS_TOOLS: [&str; 13] = [
    "Task",
    "Agent",
    "TodoWrite",
    "TodoRead",
    "ExitPlanMode",
    "EnterPlanMode",
    "BashOutput",
    "KillShell",
    "KillBash",
    "AskUserQuestion",
    "SlashCommand",
    "Skill",
    "ListMcpResourcesTool",
];

/// Claude Code tools ploy maps to actions.
pub const MAPPED_TOOLS: [&str; 12] = [
    "Bash",
    "Edit",
    "MultiEdit",
    "Write",
    "NotebookEdit",
    "Read",
    "NotebookRead",
    "Grep",
    "Glob",
    "LS",
    "WebFetch",
    "WebSearch",
];

/// True for Claude Code's own tools (mapped or passed through), which
/// `hook.tools` may not remap.
pub fn is_built_in(tool: &str) -> bool {
    MAPPED_TOOLS.contains(&tool) || PASS_TOOLS.contains(&tool)
}

/// Where WebSearch phrases go (Anthropic runs the search); web rules on this
/// address or host cover WebSearch.
pub const WEB_SEARCH_SERVICE: &str = "https://api.anthropic.com/";

/// Map one Claude Code tool call.
pub fn claude_code_call(
    ctx: &Context,
    tool: &str,
    input: &Map<String, Value>,
) -> Result<Call, Refused> {
    let field = |name: &str| -> Result<&str, Refused> {
        input.get(name).and_then(Value::as_str).ok_or_else(|| {
            Refused::new(
                "PERM-1",
                format!("{tool}: `tool_input.{name}` is missing or not a string"),
            )
        })
    };
    let optional = |name: &str| input.get(name).and_then(Value::as_str);
    match tool {
        "Bash" => Ok(shell_call(ctx, tool, field("command")?)),
        "Edit" | "MultiEdit" | "Write" => {
            Ok(path_call(ctx, ActionKind::Edit, tool, field("file_path")?))
        }
        "NotebookEdit" => Ok(path_call(
            ctx,
            ActionKind::Edit,
            tool,
            field("notebook_path")?,
        )),
        "Read" => Ok(path_call(ctx, ActionKind::Read, tool, field("file_path")?)),
        "NotebookRead" => Ok(path_call(
            ctx,
            ActionKind::Read,
            tool,
            field("notebook_path")?,
        )),
        "LS" => Ok(path_call(ctx, ActionKind::Read, tool, field("path")?)),
        "Grep" => Ok(path_call(
            ctx,
            ActionKind::Read,
            tool,
            optional("path").unwrap_or("."),
        )),
        "Glob" => {
            let mut call = path_call(ctx, ActionKind::Read, tool, optional("path").unwrap_or("."));
            // A pattern may climb or start at `/`: its literal folder is read too.
            let pattern = field("pattern")?;
            if pattern.starts_with('/') || pattern.split('/').any(|part| part == "..") {
                let literal: Vec<&str> = pattern
                    .split('/')
                    .take_while(|part| !part.contains(['*', '?', '[', '{']))
                    .collect();
                let literal = if literal.join("/").is_empty() {
                    "/".to_string()
                } else {
                    literal.join("/")
                };
                if let Call::Actions { actions, .. } = &mut call {
                    actions.push(read_action(ctx, tool, &literal));
                }
            }
            Ok(call)
        }
        "WebFetch" => Ok(web_call(tool, field("url")?, input)),
        "WebSearch" => {
            let query = field("query")?;
            Ok(Call::Web {
                action: Action::web_search(tool, WEB_SEARCH_SERVICE, query),
                outgoing: input_text(input),
                mark: web_mark(tool, TaintSource::Tool(tool.to_string())),
            })
        }
        name if PASS_TOOLS.contains(&name) => Ok(Call::Pass),
        // ploy's own command tools, whatever the server is called: a
        // command, judged as Bash is, before any setting can map it
        // (integrations #8: after a WebFetch they ran with no question).
        name if let Some(field_name) = command_tool_field(name) => {
            Ok(shell_call(ctx, tool, field(field_name)?))
        }
        name => match ctx.hook.configured_kind(name) {
            Some(kind) => configured_call(ctx, name, kind, input),
            None if name.starts_with("mcp__") => Ok(Call::Pass),
            None => Err(Refused::new(
                "PERM-1",
                format!(
                    "ploy does not know the tool `{name}` and cannot judge it; map it in \
                     settings (`hook.tools`: read, edit, shell, web or none)"
                ),
            )),
        },
    }
}

/// The command field of an MCP tool that runs a command line the way
/// `ploy mcp`'s do (`mcp__<server>__sandbox_run{command}`,
/// `mcp__<server>__proof_run{line}`, any server name, any case).
pub fn command_tool_field(tool: &str) -> Option<&'static str> {
    let rest = tool.strip_prefix("mcp__")?;
    let (_, name) = rest.split_once("__")?;
    if name.eq_ignore_ascii_case("sandbox_run") {
        Some("command")
    } else if name.eq_ignore_ascii_case("proof_run") {
        Some("line")
    } else {
        None
    }
}

/// Map a generic check (`{"kind", "target"}`): `read`, `edit` (a path),
/// `shell` (a command line), `web` (a URL), `web_search` (a phrase).
pub fn generic_call(ctx: &Context, kind: &str, target: &str) -> Result<Call, Refused> {
    match kind {
        "read" => Ok(path_call(ctx, ActionKind::Read, "check", target)),
        "edit" => Ok(path_call(ctx, ActionKind::Edit, "check", target)),
        "shell" => Ok(shell_call(ctx, "check", target)),
        "web" => Ok(Call::Web {
            action: Action::web("check", target),
            outgoing: target.to_string(),
            mark: web_mark("check", TaintSource::Url(target.to_string())),
        }),
        "web_search" => Ok(Call::Web {
            action: Action::web_search("check", WEB_SEARCH_SERVICE, target),
            outgoing: target.to_string(),
            mark: web_mark("web_search", TaintSource::Tool("web_search".into())),
        }),
        other => Err(Refused::new(
            "PERM-1",
            format!("unknown kind `{other}` (read, edit, shell, web, web_search)"),
        )),
    }
}

fn configured_call(
    ctx: &Context,
    tool: &str,
    kind: ToolKind,
    input: &Map<String, Value>,
) -> Result<Call, Refused> {
    let text = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| input.get(*n).and_then(Value::as_str))
    };
    let path = || {
        text(&["file_path", "path", "notebook_path"]).ok_or_else(|| {
            Refused::new(
                "PERM-1",
                format!(
                    "{tool} is mapped to a path kind but its input has no `file_path` or `path`"
                ),
            )
        })
    };
    match kind {
        ToolKind::None => Ok(Call::Pass),
        ToolKind::Read => Ok(path_call(ctx, ActionKind::Read, tool, path()?)),
        ToolKind::Edit => Ok(path_call(ctx, ActionKind::Edit, tool, path()?)),
        // Named after the tool, so `shell` rules on the tool's name match it;
        // a `command` field is judged as the line it is.
        ToolKind::Shell => Ok(shell_call(ctx, tool, text(&["command"]).unwrap_or(tool))),
        ToolKind::Web => match text(&["url"]) {
            Some(url) => Ok(web_call(tool, url, input)),
            None => {
                // No address: the rules judge the tool by name.
                Ok(Call::Web {
                    action: Action::web(tool, &format!("mcp:{tool}")),
                    outgoing: input_text(input),
                    mark: web_mark(tool, TaintSource::Tool(tool.to_string())),
                })
            }
        },
    }
}

fn shell_call(ctx: &Context, tool: &str, line: &str) -> Call {
    let resolve = |p: &str| ctx.resolve(p);
    // What the line may read without naming it (a recursive grep, a glob,
    // a program ploy does not know) is judged against the project's files
    // the read rules guard: `cat .env` asks like `Read .env` (PERM-2).
    let guarded = || {
        let no_marks = ploy_policy::ConversationRules::new();
        let none = ploy_policy::Approvals::new();
        let files = ploy_dirs::guarded_files(&ctx.cwd, ploy_dirs::MAX_PROJECT_ENTRIES, &|p| {
            let read = Action::read(tool, p, &ctx.root);
            !ploy_policy::Permission::assert(&read, &no_marks, &ctx.rules, &none).is_allow()
        })?;
        Some(
            files
                .into_iter()
                .map(|(location, judged)| ploy_policy::GuardedFile { location, judged })
                .collect(),
        )
    };
    let facts = ploy_policy::ShellFacts {
        resolve: Some(&resolve),
        guarded: &guarded,
    };
    Call::Actions {
        actions: vec![Action::shell_judged(tool, line, &ctx.root, facts)],
        native: kinds(&[ActionKind::Shell]),
    }
}

fn path_call(ctx: &Context, kind: ActionKind, tool: &str, path: &str) -> Call {
    let action = match kind {
        ActionKind::Edit => match ctx.resolve(path) {
            Some(real) => Action::edit_resolved(tool, path, &real, &ctx.root),
            None => Action::edit(tool, path, &ctx.root),
        },
        _ => read_action(ctx, tool, path),
    };
    let mut native = KindSet::EMPTY;
    native.insert(kind);
    Call::Actions {
        actions: vec![action],
        native,
    }
}

fn read_action(ctx: &Context, tool: &str, path: &str) -> Action {
    match ctx.resolve(path) {
        Some(real) => Action::read_resolved(tool, path, &real, &ctx.root),
        None => Action::read(tool, path, &ctx.root),
    }
}

/// A web tool's call to `url`. What leaves is the whole input, not only
/// the address: a fetching tool sends its `headers`, `body`, `params`, and
/// WebFetch its `prompt` with the page (BEYOND-6, integrations #2).
fn web_call(tool: &str, url: &str, input: &Map<String, Value>) -> Call {
    Call::Web {
        action: Action::web(tool, url),
        outgoing: input_text(input),
        mark: web_mark(tool, TaintSource::Url(url.to_string())),
    }
}

/// Every key and string of a tool's input, decoded from JSON, one per
/// line, so the secret check sees each as the tool will send it (a JSON
/// `\u` escape in a header value is decoded here, not left to chance).
fn input_text(input: &Map<String, Value>) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(text) => {
                out.push_str(text);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            Value::Object(map) => {
                for (key, item) in map {
                    out.push_str(key);
                    out.push('\n');
                    walk(item, out);
                }
            }
            // Numbers and booleans: as written (a secret of digits).
            other => {
                out.push_str(&other.to_string());
                out.push('\n');
            }
        }
    }
    let mut out = String::new();
    for (key, value) in input {
        out.push_str(key);
        out.push('\n');
        walk(value, &mut out);
    }
    out
}
