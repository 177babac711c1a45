//! Host tool calls → ploy actions (PERM-1).
//!
//! Claude Code's tools:
//!
//! | tool | ploy |
//! |---|---|
//! | `Bash` | `shell`, judged per simple command; redirect targets and writing arguments are `edit`s (PERM-7 included); paths outside the folder `external_directory` |
//! | `Edit`, `MultiEdit`, `Write`, `NotebookEdit` | `edit` of `file_path` / `notebook_path` |
//! | `Read`, `NotebookRead`, `LS` | `read` of the path; outside the folder also `external_directory` |
//! | `Grep` | `read` of the path and of the guarded files below it its `glob` selects (`grep_call`) |
//! | `Glob` | `read` of every folder the pattern can start from ([`glob_folders`]) |
//! | `WebFetch` | `web` of `url`; marks the session first |
//! | `WebSearch` | `web` of Anthropic's search service (`https://api.anthropic.com/`), the phrase in the notes; marks first |
//! | `mcp__*__sandbox_run`, `mcp__*__proof_run` (ploy's own, any server name) | `shell` of `command` / `line`; cannot be remapped |
//! | `mcp__*` matching `hook.web_tools` | `web` of the input's `url`; without one, of `mcp://<tool>/` (no URL-1 check: there is no address); marks first, every input string through the secret door |
//! | a tool named in `hook.tools` | the kind configured |
//! | other `mcp__*` tools | marks first, secrets checked, judged as a command named after the tool (`unknown_mcp_call`) |
//! | `Task`, `TodoWrite`, `ExitPlanMode`, … | no decision |
//! | any other name | refused: ploy cannot judge a tool it does not know |
//!
//! Every path is also resolved on the disk (symbolic links followed), and
//! both forms are judged (PERM-7 through a link).

use ploy_policy::{Action, ActionKind, KindSet, TaintMark, TaintSource};
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
        // With `sandbox_bash` the line runs in ploy's sandbox: no network.
        "Bash" => Ok(shell_call(
            ctx,
            tool,
            field("command")?,
            !ctx.hook.sandbox_bash,
        )),
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
        "Grep" => grep_call(ctx, tool, input),
        "Glob" => {
            // Every folder the pattern can start from is read: braces are
            // expanded, and a pattern ploy cannot bound reads `/`
            // (integrations #5: `{/root/.ssh,/etc}/*`, `[/]root/*`).
            let mut actions = Vec::new();
            for folder in glob_folders(optional("path").unwrap_or("."), field("pattern")?) {
                actions.push(read_action(ctx, tool, &folder));
            }
            Ok(Call::Actions {
                actions,
                native: kinds(&[ActionKind::Read]),
                host_line: None,
            })
        }
        "WebFetch" => Ok(web_call(tool, field("url")?, input)),
        "WebSearch" => {
            let query = field("query")?;
            Ok(Call::Web {
                action: Action::web_search(tool, WEB_SEARCH_SERVICE, query),
                outgoing: input_text(input),
                mark: web_mark(tool, TaintSource::Tool(tool.to_string())),
                native: kinds(&[ActionKind::Web]),
                host_fetch: true,
            })
        }
        name if PASS_TOOLS.contains(&name) => Ok(Call::Pass),
        // ploy's own command tools, whatever the server is called: a
        // command, judged as Bash is, before any setting can map it
        // (integrations #8: after a WebFetch they ran with no question).
        name if let Some(field_name) = command_tool_field(name) => {
            Ok(shell_call(ctx, tool, field(field_name)?, false))
        }
        name => match ctx.hook.configured_kind(name) {
            Some(kind) => configured_call(ctx, name, kind, input),
            None if name.starts_with("mcp__") => Ok(unknown_mcp_call(ctx, name, input)),
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
        "shell" => Ok(shell_call(ctx, "check", target, true)),
        "web" => Ok(Call::Web {
            // A navigation, as WebFetch is (BEYOND-7).
            action: Action::navigate("check", target),
            outgoing: target.to_string(),
            mark: web_mark("check", TaintSource::Url(target.to_string())),
            native: kinds(&[ActionKind::Web]),
            host_fetch: true,
        }),
        "web_search" => Ok(Call::Web {
            action: Action::web_search("check", WEB_SEARCH_SERVICE, target),
            outgoing: target.to_string(),
            mark: web_mark("web_search", TaintSource::Tool("web_search".into())),
            native: kinds(&[ActionKind::Web]),
            host_fetch: true,
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
        ToolKind::Shell => Ok(shell_call(
            ctx,
            tool,
            text(&["command"]).unwrap_or(tool),
            false,
        )),
        ToolKind::Web => match text(&["url"]) {
            Some(url) => Ok(web_call(tool, url, input)),
            None => {
                // No address (a search tool's `query`, a browser's
                // `selector`): the rules judge the tool by its name,
                // `mcp://<tool>/`. There is no URL for URL-1 to check (the
                // server goes where it goes), but the session is still
                // marked before the call (TAINT-1, TAINT-3) and every string
                // of the input passes the secret door (BEYOND-6) (round7 #7:
                // such tools were refused as if `mcp:` were an address).
                Ok(Call::Web {
                    action: Action::web(tool, &mcp_target(tool)),
                    outgoing: input_text(input),
                    mark: web_mark(tool, TaintSource::Tool(tool.to_string())),
                    native: kinds(&[ActionKind::Web]),
                    host_fetch: false,
                })
            }
        },
    }
}

/// The target of a web tool whose input names no address: `mcp://<tool>/`
/// (web rules may name it: `"web": {"allow": ["mcp://mcp__brave__*"]}`).
pub fn mcp_target(tool: &str) -> String {
    format!("mcp://{tool}/")
}

/// The project's files the read rules guard (`.env`, keys, …), for reads a
/// call makes without naming them; `None` when the project cannot be
/// listed (the caller fails closed).
fn guarded_files(ctx: &Context, tool: &str) -> Option<Vec<ploy_policy::GuardedFile>> {
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
}

/// `Grep` runs ripgrep over a folder: it reads every file there that its
/// `glob` (or `type`) selects, and ripgrep searches a hidden file an
/// explicit glob names. So each guarded file (`.env`, …) below the path
/// that the glob can select is a read too (integrations #4: `{"glob":
/// ".env"}` read `.env` under `read allow **`). Without a glob ploy cannot
/// tell whether hidden and ignored files are searched: every guarded file
/// below the path counts (fail closed).
fn grep_call(ctx: &Context, tool: &str, input: &Map<String, Value>) -> Result<Call, Refused> {
    let text = |name: &str| input.get(name).and_then(Value::as_str);
    let path = text("path").unwrap_or(".");
    let mut actions = vec![read_action(ctx, tool, path)];
    let Some(files) = guarded_files(ctx, tool) else {
        return Err(Refused::new(
            "PERM-2",
            "Grep: ploy could not list the project's files a read rule guards, so it cannot \
             tell what this search reads",
        ));
    };
    let below = below_folder(ctx, path);
    let selects = glob_selector(text("glob"));
    for file in files {
        let Some(relative) = below.as_ref().and_then(|folder| {
            if folder.is_empty() {
                Some(file.location.as_str())
            } else {
                file.location
                    .strip_prefix(folder.as_str())
                    .and_then(|rest| rest.strip_prefix('/'))
            }
        }) else {
            continue;
        };
        if selects(relative) {
            actions.push(read_action(ctx, tool, &file.judged));
        }
    }
    Ok(Call::Actions {
        actions,
        native: kinds(&[ActionKind::Read]),
        host_line: None,
    })
}

/// The project-relative folder a search path names (`""`: the project),
/// `None` when it is outside the project (its read already asks).
fn below_folder(ctx: &Context, path: &str) -> Option<String> {
    let joined = ctx.cwd.join(path);
    let real = ctx
        .resolve(path)
        .map(std::path::PathBuf::from)
        .unwrap_or(joined);
    let mut parts: Vec<String> = Vec::new();
    for part in real.strip_prefix(&ctx.cwd).ok()?.components() {
        match part {
            std::path::Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            std::path::Component::ParentDir => {
                parts.pop()?;
            }
            _ => {}
        }
    }
    Some(parts.join("/"))
}

/// Which files a Grep `glob` selects, as ripgrep reads it: a glob without
/// `/` matches the file name at any depth, one with `/` the path below the
/// search folder; case is ignored (stricter). No glob, a negated one or one
/// that does not compile: every file.
fn glob_selector(glob: Option<&str>) -> Box<dyn Fn(&str) -> bool> {
    let Some(glob) = glob.filter(|g| !g.is_empty() && !g.starts_with('!')) else {
        return Box::new(|_| true);
    };
    let anchored = glob.contains('/');
    let pattern = glob.trim_start_matches("./").trim_start_matches('/');
    match globset::GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(anchored)
        .build()
    {
        Ok(compiled) => {
            let matcher = compiled.compile_matcher();
            Box::new(move |relative: &str| {
                let name = relative.rsplit('/').next().unwrap_or(relative);
                if anchored {
                    matcher.is_match(relative)
                } else {
                    matcher.is_match(name)
                }
            })
        }
        Err(_) => Box::new(|_| true),
    }
}

/// The most brace alternatives ploy expands before giving up.
const MAX_ALTERNATIVES: usize = 256;

/// The folders a `Glob` call can start listing from: the literal part of
/// every brace alternative of `path`/`pattern` (before the first name with
/// a wildcard). A pattern ploy cannot bound (a character class that may
/// match `/` or `.`, too many alternatives, an unclosed brace) gives `/`.
pub fn glob_folders(path: &str, pattern: &str) -> Vec<String> {
    let (Some(paths), Some(patterns)) = (expand_braces(path), expand_braces(pattern)) else {
        return vec!["/".to_string()];
    };
    let mut folders: Vec<String> = Vec::new();
    for base in &paths {
        for pattern in &patterns {
            let joined = if pattern.starts_with('/') || pattern.starts_with('~') {
                pattern.clone()
            } else {
                format!("{}/{pattern}", base.trim_end_matches('/'))
            };
            let folder = match literal_folder(&joined) {
                Some(folder) => folder,
                None => "/".to_string(),
            };
            if !folders.contains(&folder) {
                folders.push(folder);
            }
        }
    }
    folders
}

/// The names before the first one with a wildcard; `None` when a
/// character class may match `/` or `.` (it could spell `/` or `..`).
fn literal_folder(path: &str) -> Option<String> {
    let mut literal: Vec<&str> = Vec::new();
    let mut parts = path.split('/').peekable();
    let mut wild = false;
    for part in parts.by_ref() {
        if part.contains(['*', '?', '[']) {
            wild = true;
            if class_may_escape(part) {
                return None;
            }
            break;
        }
        literal.push(part);
    }
    if wild && parts.any(class_may_escape) {
        return None;
    }
    let joined = literal.join("/");
    Some(if joined.is_empty() {
        if path.starts_with('/') {
            "/".to_string()
        } else {
            ".".to_string()
        }
    } else {
        joined
    })
}

/// A `[…]` class that may match `/` or `.`, or an unclosed one.
fn class_may_escape(part: &str) -> bool {
    let mut rest = part;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.get(1..).and_then(|a| a.find(']')).map(|c| c + 1) else {
            return true;
        };
        let class: Vec<char> = after[..close].chars().collect();
        let negated = matches!(class.first(), Some('!' | '^'));
        if negated || class.iter().any(|c| matches!(c, '/' | '.' | '[' | '\\')) {
            return true;
        }
        // A range whose ends enclose `.` or `/` (`[!-0]`, `[ -~]`).
        for (i, c) in class.iter().enumerate() {
            if *c == '-'
                && let (Some(from), Some(to)) = (
                    i.checked_sub(1).and_then(|j| class.get(j)),
                    class.get(i + 1),
                )
                && *from <= '/'
                && *to >= '.'
            {
                return true;
            }
        }
        rest = &after[close + 1..];
    }
    false
}

/// Brace expansion (`{a,b}`, nested), as a shell or a glob library does;
/// `None` when unbalanced or more than [`MAX_ALTERNATIVES`].
fn expand_braces(text: &str) -> Option<Vec<String>> {
    let Some(open) = text.find('{') else {
        return (!text.contains('}')).then(|| vec![text.to_string()]);
    };
    let mut depth = 0usize;
    let mut close = None;
    let mut commas = Vec::new();
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(open + i),
            _ => {}
        }
    }
    let close = close?;
    let mut bounds = vec![open];
    bounds.extend(commas);
    bounds.push(close);
    let head = &text[..open];
    let tails = expand_braces(&text[close + 1..])?;
    let mut out = Vec::new();
    for pair in bounds.windows(2) {
        for middle in expand_braces(&text[pair[0] + 1..pair[1]])? {
            for tail in &tails {
                out.push(format!("{head}{middle}{tail}"));
                if out.len() > MAX_ALTERNATIVES {
                    return None;
                }
            }
        }
    }
    Some(out)
}

/// An MCP tool ploy was not told about (secrets5 #6): it may bring text
/// from anywhere into the session (a GitHub issue, a Slack channel, an
/// e-mail) and it may act on the world. Fail closed: the session is marked
/// before it runs (TAINT-1), what it sends is checked for known secrets
/// (BEYOND-6), and it is judged as a command named after the tool, so a
/// `shell` rule on its name allows it in a clean session and a marked
/// session asks (PERM-3). `hook.tools` says otherwise for a tool a person
/// knows (`none`, `read`, `edit`, `shell`, `web`).
fn unknown_mcp_call(ctx: &Context, tool: &str, input: &Map<String, Value>) -> Call {
    Call::Web {
        action: shell_action(ctx, tool, tool),
        outgoing: input_text(input),
        mark: TaintMark {
            reason: format!("{tool} (an MCP tool ploy does not know) may bring outside text in"),
            source: TaintSource::Tool(tool.to_string()),
        },
        native: KindSet::EMPTY,
        host_fetch: true,
    }
}

/// A command line `ploy mcp` runs in its sandbox (no network): judged as
/// `Bash` is, never marked for reaching the network.
pub fn sandboxed_command_call(ctx: &Context, line: &str) -> Call {
    shell_call(ctx, "check", line, false)
}

/// A web check for `ploy mcp`'s own fetch tools: ploy's door fetches and
/// checks the address itself, after the session is marked (TAINT-1).
pub fn own_fetch_call(ctx: &Context, kind: &str, target: &str) -> Result<Call, Refused> {
    let mut call = generic_call(ctx, kind, target)?;
    if let Call::Web { host_fetch, .. } = &mut call {
        *host_fetch = false;
    }
    Ok(call)
}

/// A command line; `on_host` when it runs outside ploy's sandbox with the
/// network (then a network program marks the session first).
fn shell_call(ctx: &Context, tool: &str, line: &str, on_host: bool) -> Call {
    let action = shell_action(ctx, tool, line);
    if on_host && action.reaches_network() {
        // Marked before it runs, and what it sends is checked for known
        // secrets, as a web tool's input is (TAINT-1, BEYOND-6).
        return Call::Web {
            outgoing: line.to_string(),
            mark: TaintMark {
                reason: format!("{tool} runs a program that reads the network"),
                source: TaintSource::Tool(tool.to_string()),
            },
            action,
            native: kinds(&[ActionKind::Shell]),
            host_fetch: true,
        };
    }
    Call::Actions {
        actions: vec![action],
        native: kinds(&[ActionKind::Shell]),
        host_line: on_host.then(|| line.to_string()),
    }
}

fn shell_action(ctx: &Context, tool: &str, line: &str) -> Action {
    let resolve = |p: &str| ctx.resolve(p);
    // What the line may read without naming it (a recursive grep, a glob,
    // a program ploy does not know) is judged against the project's files
    // the read rules guard: `cat .env` asks like `Read .env` (PERM-2).
    let guarded = || guarded_files(ctx, tool);
    let shape =
        |real: &str| ploy_dirs::repository_part_reason(ctx.root.path(), std::path::Path::new(real));
    // A recursive copy's source folder: the protected names it would plant
    // (round7 #12, PERM-7).
    let below = |source: &str| {
        ploy_dirs::protected_names_below(
            &ctx.cwd.join(source),
            ploy_dirs::MAX_PROJECT_ENTRIES,
            &|relative: &str| ctx.root.protected().protects(relative).is_some(),
        )
    };
    let facts = ploy_policy::ShellFacts {
        resolve: Some(&resolve),
        guarded: &guarded,
        protected_by_shape: Some(&shape),
        protected_below: Some(&below),
    };
    Action::shell_judged(tool, line, &ctx.root, facts)
}

fn path_call(ctx: &Context, kind: ActionKind, tool: &str, path: &str) -> Call {
    let action = match kind {
        ActionKind::Edit => match ctx.resolve(path) {
            // A write that makes or changes a folder git takes as a
            // repository outside `.git` (proof5 #16) is PERM-7.
            Some(real) => Action::edit_resolved(tool, path, &real, &ctx.root).protecting_edits(
                ploy_dirs::repository_part_reason(ctx.root.path(), std::path::Path::new(&real)),
            ),
            None => Action::edit(tool, path, &ctx.root),
        },
        _ => read_action(ctx, tool, path),
    };
    let mut native = KindSet::EMPTY;
    native.insert(kind);
    Call::Actions {
        actions: vec![action],
        native,
        host_line: None,
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
        // A navigation: in a marked session a site not yet visited asks
        // (BEYOND-7, the one site rule in `Permission::assert`).
        action: Action::navigate(tool, url),
        outgoing: input_text(input),
        mark: web_mark(tool, TaintSource::Url(url.to_string())),
        native: kinds(&[ActionKind::Web]),
        host_fetch: true,
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

#[cfg(test)]
mod tests {
    use super::*;

    // proves: PERM-1, PERM-3 (integrations #5: a Glob pattern that is
    // absolute through braces or a class starts outside the project)
    #[test]
    fn glob_folders_see_through_braces_and_refuse_unbounded_classes() {
        for (path, pattern, want) in [
            (".", "src/**/*.rs", vec!["./src"]),
            (".", "{/root/.ssh,/etc}/*", vec!["/root/.ssh", "/etc"]),
            (".", "{src,../x}/*", vec!["./src", "./../x"]),
            (".", "[/]root/*", vec!["/"]),
            (".", "[.][.]/x/*", vec!["/"]),
            (".", "[!a]etc/*", vec!["/"]),
            (".", "[+-0]/*", vec!["/"]),
            (".", "src/[a-z]*.rs", vec!["./src"]),
            ("{/root,x}", "*", vec!["/root", "x"]),
            (".", "{a,{b,/c}}/*", vec!["./a", "./b", "/c"]),
            (".", "{unclosed/*", vec!["/"]),
            (".", "/etc/*", vec!["/etc"]),
        ] {
            assert_eq!(glob_folders(path, pattern), want, "{path} {pattern}");
        }
        let many = "{a,b}".repeat(9);
        assert_eq!(glob_folders(".", &many), vec!["/"]);
    }

    #[test]
    fn a_grep_glob_selects_as_ripgrep_does() {
        let dotenv = glob_selector(Some(".env"));
        assert!(dotenv(".env") && dotenv("sub/.env") && dotenv("sub/.ENV"));
        assert!(!dotenv("src/main.rs"));
        let anchored = glob_selector(Some("sub/*.env"));
        assert!(anchored("sub/x.env") && !anchored("x.env"));
        assert!(glob_selector(None)("sub/.env"));
        assert!(glob_selector(Some("!*.rs"))(".env"));
        assert!(glob_selector(Some("**/.env*"))("a/b/.env.local"));
    }
}
