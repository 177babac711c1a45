//! `ploy hook install | uninstall | status claude-code`: ploy's entries in
//! Claude Code's `settings.json`.
//!
//! * **install** adds one group to `hooks.PreToolUse` (every tool) and one
//!   to `hooks.PostToolUse` (the web tools, to mark a session the
//!   `PreToolUse` hook missed), each running `<ploy> hook claude-code` with
//!   a [`HOOK_TIMEOUT_SECONDS`] timeout. A copy of the file is written next
//!   to it first (`settings.json.ploy-backup`). Running it twice adds
//!   nothing the second time. Other hooks and every other byte of the file
//!   are left as they are: the new entries are inserted as text at the
//!   positions the parser reports, never by re-serialising the file.
//! * **uninstall** removes exactly what install added: ploy's hook entries,
//!   and the groups, arrays and `hooks` object that become empty because of
//!   it. After install then uninstall the file is byte-identical.
//! * **status** says which settings files hold ploy's hook, for which events.
//!
//! Only strict JSON is edited (no comments, no trailing commas): anything
//! else is refused and the file is left untouched.

use std::path::{Path, PathBuf};

use jsonc_parser::ast::{Array, Object, Value as Ast};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast};
use serde_json::json;

/// How long Claude Code waits for the hook, in seconds. A hook that times
/// out lets the call proceed (Claude Code's rule, not ploy's): the hook
/// answers in milliseconds, this bound only covers a stalled disk.
pub const HOOK_TIMEOUT_SECONDS: u64 = 10;

/// The suffix of a command that runs `ploy hook claude-code`.
pub const COMMAND_SUFFIX: &str = " hook claude-code";

/// The small hook binary installed next to `ploy` (`ploy-hook claude-code`).
pub const HOOK_BINARY: &str = "ploy-hook";

/// The events ploy installs itself for, with their matchers.
pub const EVENTS: [(&str, &str); 2] = [
    ("PreToolUse", "*"),
    ("PostToolUse", "WebFetch|WebSearch|mcp__.*"),
];

/// Why the settings file was not changed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The file could not be read or written.
    #[error("{path}: {action}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not strict JSON with an object at the top, or a `hooks`
    /// entry has an unexpected shape.
    #[error("{path}: {message}; the file was left as it is")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// What install or uninstall did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The settings file.
    pub path: PathBuf,
    /// Events whose entry was added (install) or removed (uninstall).
    pub events: Vec<String>,
    /// The backup written before the change, if any.
    pub backup: Option<PathBuf>,
}

/// Where ploy's hook is installed in one settings file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Installed {
    /// The settings file.
    pub path: PathBuf,
    /// Whether the file exists.
    pub exists: bool,
    /// Events with a ploy entry, and the command each runs.
    pub events: Vec<(String, String)>,
}

/// The command line the hook entry runs for a `ploy` binary at `ploy`
/// (`ploy` alone: looked up on `PATH`).
pub fn hook_command(ploy: &str) -> String {
    let program = if ploy == "ploy" {
        ploy.to_string()
    } else {
        crate::quote::sh_quote(ploy)
    };
    format!("{program}{COMMAND_SUFFIX}")
}

/// The command line for the small hook binary at `path` (same answers,
/// faster start: see `ploy-hook`).
pub fn hook_binary_command(path: &str) -> String {
    format!("{} claude-code", crate::quote::sh_quote(path))
}

/// The settings text with ploy's entries added (`original` `None`: no
/// file yet), and the events added; `None` when every entry is already there.
pub fn installed_text(
    original: Option<&str>,
    command: &str,
) -> Result<Option<(String, Vec<String>)>, String> {
    let mut text = original.unwrap_or("{}").to_string();
    let mut events = Vec::new();
    for (event, matcher) in EVENTS {
        let group = json!({
            "matcher": matcher,
            "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}],
        })
        .to_string();
        if let Some(next) = insert_group(&text, event, &group)? {
            text = next;
            events.push(event.to_string());
        }
    }
    Ok((!events.is_empty()).then_some((text, events)))
}

/// The settings text with ploy's entries removed, and the events they were
/// for; `None` when there is none.
pub fn uninstalled_text(current: &str) -> Result<Option<(String, Vec<String>)>, String> {
    let mut text = current.to_string();
    let mut events = Vec::new();
    for (event, _) in EVENTS {
        let mut removed = false;
        while let Some(next) = remove_one(&text, event)? {
            text = next;
            removed = true;
        }
        if removed {
            events.push(event.to_string());
        }
    }
    Ok((!events.is_empty()).then_some((text, events)))
}

/// Add ploy's entries to the settings file at `path` (created when missing).
pub fn install(path: &Path, command: &str) -> Result<Change, InstallError> {
    let original = read_or_empty(path)?;
    let Some((text, events)) =
        installed_text(original.as_deref(), command).map_err(|m| format_error(path, m))?
    else {
        return Ok(Change {
            path: path.to_path_buf(),
            events: Vec::new(),
            backup: None,
        });
    };
    let backup = match &original {
        Some(bytes) => {
            let backup = backup_path(path);
            write_atomically(&backup, bytes)?;
            Some(backup)
        }
        None => None,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| InstallError::Io {
            path: dir.to_path_buf(),
            action: "create the folder",
            source,
        })?;
    }
    write_atomically(path, &text)?;
    Ok(Change {
        path: path.to_path_buf(),
        events,
        backup,
    })
}

/// Remove ploy's entries from the settings file at `path`. When the file
/// is exactly what install made of its backup, the backup's bytes come
/// back (and the backup goes); otherwise ploy's entries are cut out of the
/// text, and the containers they leave empty with them.
pub fn uninstall(path: &Path) -> Result<Change, InstallError> {
    let Some(current) = read_or_empty(path)? else {
        return Ok(Change {
            path: path.to_path_buf(),
            events: Vec::new(),
            backup: None,
        });
    };
    let Some((cut, events)) = uninstalled_text(&current).map_err(|m| format_error(path, m))? else {
        return Ok(Change {
            path: path.to_path_buf(),
            events: Vec::new(),
            backup: None,
        });
    };
    let backup = backup_path(path);
    let restored = match read_or_empty(&backup)? {
        Some(original) => {
            let command = status_of_text(&current)
                .into_iter()
                .map(|(_, command)| command)
                .next()
                .unwrap_or_default();
            match installed_text(Some(&original), &command) {
                Ok(Some((made, _))) if made == current => Some(original),
                _ => None,
            }
        }
        None => None,
    };
    match restored {
        Some(original) => {
            write_atomically(path, &original)?;
            let _ = std::fs::remove_file(&backup);
        }
        None => write_atomically(path, &cut)?,
    }
    Ok(Change {
        path: path.to_path_buf(),
        events,
        backup: None,
    })
}

/// Which events of the settings file at `path` run ploy's hook.
pub fn status(path: &Path) -> Result<Installed, InstallError> {
    let Some(text) = read_or_empty(path)? else {
        return Ok(Installed {
            path: path.to_path_buf(),
            exists: false,
            events: Vec::new(),
        });
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .map_err(|e| format_error(path, format!("not JSON ({e})")))?;
    Ok(Installed {
        path: path.to_path_buf(),
        exists: true,
        events: status_of_text(&text),
    })
}

/// (event, command) of every ploy entry in a settings text.
fn status_of_text(text: &str) -> Vec<(String, String)> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let mut events = Vec::new();
    if let Some(hooks) = value.get("hooks").and_then(|h| h.as_object()) {
        for (event, groups) in hooks {
            for group in groups.as_array().into_iter().flatten() {
                for hook in group
                    .get("hooks")
                    .and_then(|h| h.as_array())
                    .into_iter()
                    .flatten()
                {
                    if let Some(command) = hook.get("command").and_then(|c| c.as_str())
                        && is_ploy_command(command)
                    {
                        events.push((event.clone(), command.to_string()));
                    }
                }
            }
        }
    }
    events
}

/// The backup written before install changes a file.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".ploy-backup");
    path.with_file_name(name)
}

/// A command ploy installed: `… hook claude-code` or `…ploy-hook claude-code`.
fn is_ploy_command(command: &str) -> bool {
    command.ends_with(COMMAND_SUFFIX)
        || command
            .strip_suffix(" claude-code")
            .is_some_and(|program| program.trim_end_matches('\'').ends_with(HOOK_BINARY))
}

fn format_error(path: &Path, message: String) -> InstallError {
    InstallError::Format {
        path: path.to_path_buf(),
        message,
    }
}

fn read_or_empty(path: &Path) -> Result<Option<String>, InstallError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InstallError::Io {
            path: path.to_path_buf(),
            action: "read",
            source,
        }),
    }
}

/// Write to a temporary file in the same folder, then rename over `path`
/// (the old mode is kept), so a crash never leaves half a settings file.
fn write_atomically(path: &Path, text: &str) -> Result<(), InstallError> {
    let io = |action, source| InstallError::Io {
        path: path.to_path_buf(),
        action,
        source,
    };
    let mut tmp_name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    tmp_name.push(format!(".ploy-tmp-{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    std::fs::write(&tmp, text).map_err(|e| io("write a temporary copy", e))?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&tmp, meta.permissions())
            .map_err(|e| io("keep the file mode", e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io("replace the file", e)
    })
}

/// Strict JSON only: what Claude Code itself reads.
fn parse(text: &str) -> Result<Object<'_>, String> {
    let options = ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let parsed = parse_to_ast(text, &CollectOptions::default(), &options)
        .map_err(|e| format!("not strict JSON ({e})"))?;
    match parsed.value {
        Some(Ast::Object(object)) => Ok(object),
        _ => Err("the top level is not a JSON object".into()),
    }
}

fn member<'a, 'b>(object: &'b Object<'a>, name: &str) -> Option<&'b Ast<'a>> {
    object
        .properties
        .iter()
        .find(|p| p.name.as_str() == name)
        .map(|p| &p.value)
}

fn splice(text: &str, at: usize, insert: &str) -> String {
    format!("{}{insert}{}", &text[..at], &text[at..])
}

/// Insert `item` as the last element of the array or member list that
/// ends at `close` (the position of `]` or `}`), after `last_end` when
/// there is a last element.
fn append(text: &str, open: usize, last_end: Option<usize>, item: &str) -> String {
    match last_end {
        Some(end) => splice(text, end, &format!(", {item}")),
        None => splice(text, open + 1, item),
    }
}

/// The text with `group` added to `hooks.<event>`, or `None` when a ploy
/// entry is already there.
fn insert_group(text: &str, event: &str, group: &str) -> Result<Option<String>, String> {
    let root = parse(text)?;
    let member_text = |name: &str, value: &str| format!("{}: {value}", json!(name));
    let last_prop = |o: &Object<'_>| o.properties.last().map(|p| p.end());
    let Some(hooks) = member(&root, "hooks") else {
        let hooks = format!("{{{}}}", member_text(event, &format!("[{group}]")));
        return Ok(Some(append(
            text,
            root.start(),
            last_prop(&root),
            &member_text("hooks", &hooks),
        )));
    };
    let Ast::Object(hooks) = hooks else {
        return Err("`hooks` is not an object".into());
    };
    let Some(groups) = member(hooks, event) else {
        return Ok(Some(append(
            text,
            hooks.start(),
            last_prop(hooks),
            &member_text(event, &format!("[{group}]")),
        )));
    };
    let Ast::Array(groups) = groups else {
        return Err(format!("`hooks.{event}` is not an array"));
    };
    if ploy_entries(groups).next().is_some() {
        return Ok(None);
    }
    Ok(Some(append(
        text,
        groups.start(),
        groups.elements.last().map(Ranged::end),
        group,
    )))
}

/// Every (group index, hook index) of a ploy entry in an event's groups.
fn ploy_entries<'b>(groups: &'b Array<'_>) -> impl Iterator<Item = (usize, usize)> + 'b {
    groups.elements.iter().enumerate().flat_map(|(g, group)| {
        let hooks = match group {
            Ast::Object(o) => match member(o, "hooks") {
                Some(Ast::Array(a)) => Some(a),
                _ => None,
            },
            _ => None,
        };
        hooks
            .into_iter()
            .flat_map(|a| a.elements.iter().enumerate())
            .filter(|(_, hook)| match hook {
                Ast::Object(o) => matches!(
                    member(o, "command"),
                    Some(Ast::StringLit(s)) if is_ploy_command(&s.value)
                ),
                _ => false,
            })
            .map(move |(h, _)| (g, h))
    })
}

/// The range to cut to remove element `i` of `ranges` (with the separator
/// that joins it to its neighbour), leaving the rest byte for byte.
fn cut_range(ranges: &[(usize, usize)], i: usize) -> (usize, usize) {
    let (start, end) = ranges[i];
    if ranges.len() == 1 {
        (start, end)
    } else if i + 1 == ranges.len() {
        (ranges[i - 1].1, end)
    } else {
        (start, ranges[i + 1].0)
    }
}

fn cut(text: &str, (start, end): (usize, usize)) -> String {
    format!("{}{}", &text[..start], &text[end..])
}

/// Remove one ploy entry from `hooks.<event>` (and the containers it leaves
/// empty); `None` when there is none.
fn remove_one(text: &str, event: &str) -> Result<Option<String>, String> {
    let root = parse(text)?;
    let Some(Ast::Object(hooks)) = member(&root, "hooks") else {
        return Ok(None);
    };
    let Some(Ast::Array(groups)) = member(hooks, event) else {
        return Ok(None);
    };
    let Some((g, h)) = ploy_entries(groups).next() else {
        return Ok(None);
    };
    let ranges = |items: &mut dyn Iterator<Item = (usize, usize)>| items.collect::<Vec<_>>();
    let Ast::Object(group) = &groups.elements[g] else {
        return Ok(None);
    };
    let Some(Ast::Array(entries)) = member(group, "hooks") else {
        return Ok(None);
    };
    // The innermost container that does not become empty loses one item.
    let range = if entries.elements.len() > 1 {
        cut_range(
            &ranges(&mut entries.elements.iter().map(|e| (e.start(), e.end()))),
            h,
        )
    } else if groups.elements.len() > 1 {
        cut_range(
            &ranges(&mut groups.elements.iter().map(|e| (e.start(), e.end()))),
            g,
        )
    } else {
        let event_index = hooks
            .properties
            .iter()
            .position(|p| p.name.as_str() == event)
            .unwrap_or_default();
        if hooks.properties.len() > 1 {
            cut_range(
                &ranges(&mut hooks.properties.iter().map(|p| (p.start(), p.end()))),
                event_index,
            )
        } else {
            let hooks_index = root
                .properties
                .iter()
                .position(|p| p.name.as_str() == "hooks")
                .unwrap_or_default();
            cut_range(
                &ranges(&mut root.properties.iter().map(|p| (p.start(), p.end()))),
                hooks_index,
            )
        }
    };
    Ok(Some(cut(text, range)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_command_forms_are_ploy_s() {
        for command in [
            "ploy hook claude-code",
            "'/opt/my ploy/ploy' hook claude-code",
            "'/usr/local/bin/ploy-hook' claude-code",
            &hook_binary_command("/a b/ploy-hook"),
            &hook_command("/x/ploy"),
        ] {
            assert!(is_ploy_command(command), "{command}");
        }
        for command in [
            "~/bin/guard.sh",
            "ploy-hooker claude",
            "my-hook claude-code",
        ] {
            assert!(!is_ploy_command(command), "{command}");
        }
    }

    #[test]
    fn cut_ranges_take_the_right_separator() {
        let r = [(1, 2), (4, 5), (7, 8)];
        assert_eq!(cut_range(&r, 0), (1, 4));
        assert_eq!(cut_range(&r, 1), (4, 7));
        assert_eq!(cut_range(&r, 2), (5, 8));
        assert_eq!(cut_range(&[(3, 9)], 0), (3, 9));
    }
}
