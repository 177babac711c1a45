//! Which agent process a hook or `ploy mcp` serves (integrations #8).
//!
//! Claude Code runs `ploy hook claude-code` for every tool call and starts
//! `ploy mcp` once, both as its own children. The hook knows the session
//! (`session_id`); the MCP server does not (the protocol does not carry
//! it). So when a session is marked, the hook also binds the session's
//! conversation to the processes above it ([`ancestors`]), and `ploy mcp`
//! looks up the sessions bound to the process that started it
//! ([`HostProcess::parent`]): a page read through Claude Code's `WebFetch`
//! then refuses `ploy mcp`'s commands too (PERM-3).
//!
//! A process is named by the boot, its pid and its start time (clock ticks
//! since boot), so a reused pid is another process. The link can only add
//! marks: a wrong match makes `ploy mcp` stricter, never looser.

use std::path::Path;

/// The store's `agent` for these bindings.
pub const HOST_AGENT: &str = "host-process";

/// How many processes above the hook are bound: the hook's parent is Claude
/// Code itself or the `sh -c` it runs hooks with; one more covers a wrapper.
pub const BOUND_ANCESTORS: usize = 3;

/// One running process, named so that a reused pid is not confused with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostProcess {
    boot: String,
    pid: u32,
    start: u64,
}

impl HostProcess {
    /// The prefix every binding of this process starts with.
    pub fn key(&self) -> String {
        format!("{}:{}:{}:", self.boot, self.pid, self.start)
    }

    /// The binding of one session of `agent` to this process.
    pub fn session_key(&self, agent: &str, session: &str) -> String {
        format!("{}{agent}:{session}", self.key())
    }

    /// The process that started this one. `None` when `/proc` cannot say
    /// (the caller fails closed).
    pub fn parent() -> Option<HostProcess> {
        ancestors_from(std::process::id(), 1).into_iter().next()
    }
}

/// Up to `max` processes above this one, nearest first (pid 1 and the
/// kernel's threads excluded: they are everyone's ancestors).
pub fn ancestors(max: usize) -> Vec<HostProcess> {
    ancestors_from(std::process::id(), max)
}

fn ancestors_from(pid: u32, max: usize) -> Vec<HostProcess> {
    let Some(boot) = boot_id() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut current = pid;
    while found.len() < max {
        let Some((parent, _)) = stat(current) else {
            break;
        };
        if parent <= 1 {
            break;
        }
        let Some((_, start)) = stat(parent) else {
            break;
        };
        found.push(HostProcess {
            boot: boot.clone(),
            pid: parent,
            start,
        });
        current = parent;
    }
    found
}

fn boot_id() -> Option<String> {
    let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = text.trim();
    (!id.is_empty()).then(|| id.to_string())
}

/// (parent pid, start time) of `pid`, from `/proc/PID/stat`.
fn stat(pid: u32) -> Option<(u32, u64)> {
    let text =
        std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")).ok()?;
    parse_stat(&text)
}

/// The command name is in parentheses and may hold spaces and `)`: the
/// fields are counted after the last `)` (field 3 is the state, 4 the
/// parent, 22 the start time).
fn parse_stat(text: &str) -> Option<(u32, u64)> {
    let (_, rest) = text.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let parent = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((parent, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_names_parse() {
        let line =
            "4242 (a) b (c)) S 17 4242 17 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1 2";
        assert_eq!(parse_stat(line), Some((17, 987654)));
        assert_eq!(parse_stat("4242 (x"), None);
        assert_eq!(parse_stat("4242 (x) S"), None);
    }

    #[test]
    fn the_parent_is_the_nearest_ancestor_and_keys_are_distinct() {
        let chain = ancestors(BOUND_ANCESTORS);
        let parent = HostProcess::parent().expect("a parent under /proc");
        assert_eq!(chain.first(), Some(&parent));
        assert!(
            parent
                .session_key("claude-code", "s")
                .starts_with(&parent.key())
        );
        assert_ne!(
            parent.key(),
            HostProcess {
                pid: 1,
                ..parent.clone()
            }
            .key()
        );
    }
}
