//! The built-in tools. Names and arguments are a contract (other programs
//! depend on them): `read{path, offset?, limit?}`, `list{path?}`,
//! `glob{pattern}`, `grep{pattern, path?}`, `edit{path, old_string,
//! new_string}`, `write{path, content}`, `shell{command}`, `web_fetch{url}`,
//! `web_search{query}`, `research{question}`, `plan_add_step{title, proof}`,
//! `plan_check{}`, `browser_open{url}`, `browser_read{}`,
//! `browser_find{text}`, `browser_click{link}`, `browser_type{field, text,
//! submit?}`, `memory_save{text}`, `memory_search{query}`.

pub mod browser;
pub mod edit;
pub mod fs;
pub mod memory;
pub mod paths;
pub mod plan;
pub mod shell;
pub mod web;

use std::sync::Arc;

use crate::tool::{Registry, ToolError};

/// The names of the built-in tools, in registration order.
pub const BUILTIN: [&str; 19] = [
    "read",
    "list",
    "glob",
    "grep",
    "edit",
    "write",
    "shell",
    "web_fetch",
    "web_search",
    "research",
    "plan_add_step",
    "plan_check",
    "browser_open",
    "browser_read",
    "browser_find",
    "browser_click",
    "browser_type",
    "memory_save",
    "memory_search",
];

/// A registry with every built-in tool.
pub fn builtin_registry() -> Result<Registry, ToolError> {
    let mut registry = Registry::new();
    registry.add(Arc::new(fs::Read))?;
    registry.add(Arc::new(fs::List))?;
    registry.add(Arc::new(fs::Glob))?;
    registry.add(Arc::new(fs::Grep))?;
    registry.add(Arc::new(edit::Edit))?;
    registry.add(Arc::new(edit::Write))?;
    registry.add(Arc::new(shell::Shell))?;
    registry.add(Arc::new(web::WebFetch))?;
    registry.add(Arc::new(web::WebSearch))?;
    registry.add(Arc::new(web::ResearchTool))?;
    registry.add(Arc::new(plan::PlanAddStep))?;
    registry.add(Arc::new(plan::PlanCheck))?;
    for tool in browser::tools() {
        registry.add(tool)?;
    }
    registry.add(Arc::new(memory::MemorySave))?;
    registry.add(Arc::new(memory::MemorySearch))?;
    Ok(registry)
}
