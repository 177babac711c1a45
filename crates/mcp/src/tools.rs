//! The six tools: their schemas, argument checks, and what each runs.
//!
//! Every tool call that acts passes the hook's judge first (one session per
//! project, client and `--session` name, in ploy's store: [`crate::session_key`]): deny rules refuse, a marked session
//! refuses commands (PERM-3: nobody on the MCP channel can answer ploy's
//! question, PERM-5), web tools mark the session before anything is read
//! (TAINT-1, TAINT-3) and never send a secret ploy knows (BEYOND-6).
//! Results are strict JSON; web text only inside the research engine's data
//! fields with its untrusted notice (PLUGIN-1); command output redacted
//! (REDACT-1) and cut to one 50 KiB budget (CAP-1).

use std::path::{Path, PathBuf};

use ploy_hook::{Answer, Call};
use ploy_proof::proof_run::run_proof;
use ploy_proof::sandbox::{self, ProjectView, Sandbox, SandboxPolicy};
use ploy_research::{RunRequest, StoreMarker, UNTRUSTED_NOTICE};
use ploy_secrets::cap::ByteBudget;
use ploy_validate::validate;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::{Server, ToolError};

/// The tools, as `tools/list` shows them: (name, description, JSON schema).
pub fn specs() -> Vec<(&'static str, &'static str, Value)> {
    let one = |name: &str, max: u64, what: &str| {
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": [name],
            "properties": { name: {"type": "string", "minLength": 1, "maxLength": max, "description": what} }
        })
    };
    let with_project = |name: &str, max: u64, what: &str| {
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": [name],
            "properties": {
                name: {"type": "string", "minLength": 1, "maxLength": max, "description": what},
                "project": {"type": "string", "description": "a folder inside the server's project (default: the project)"}
            }
        })
    };
    vec![
        (
            "web_search",
            "Search the web for one short phrase (scrubbed of paths, addresses and secrets before it leaves). Returns titles, links and snippets as untrusted data in strict JSON; marks this session ploy_tainted first.",
            one("query", 110, "the search phrase"),
        ),
        (
            "web_fetch",
            "Read one public web page through ploy's guarded fetcher (http/https only, private and local addresses refused, every redirect re-checked, no cookies, 1.5 MB cap). Returns its text as untrusted data, capped at 50 KiB; marks this session ploy_tainted first.",
            one("url", 2048, "the address"),
        ),
        (
            "research",
            "Research a question on the web: at most 3 scrubbed phrases per round and 2 rounds, the best pages read through the guarded fetcher, a dossier (and an answer when ploy has a local model). Untrusted data in strict JSON; marks this session ploy_tainted first.",
            one("question", 2000, "the question"),
        ),
        (
            "proof_check",
            "Check whether a proof line passes ploy's proof rules (one short read-only check; no network, no deletion, no absolute paths, must verify something). Runs nothing.",
            one("line", 400, "the proof line"),
        ),
        (
            "proof_run",
            "Validate a proof line, then run it in ploy's sandbox (no network, the project copy-on-write so nothing it writes stays). Returns the verdict, exit code and output (redacted, capped).",
            with_project("line", 400, "the proof line"),
        ),
        (
            "sandbox_run",
            "Run a command as `bash -c COMMAND` in ploy's sandbox: no network, the project writable (its agent and git configuration read-only), the rest of the machine read-only or hidden, secrets not in the environment. Returns exit code and output (redacted, capped).",
            with_project("command", 8192, "the command line"),
        ),
    ]
}

fn text_arg<'a>(
    args: &'a Map<String, Value>,
    name: &str,
    max: usize,
) -> Result<&'a str, ToolError> {
    let value = args
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::new("FAIL-1", format!("`{name}` is missing or not a string")))?;
    if value.is_empty() || value.len() > max {
        return Err(ToolError::new(
            "FAIL-1",
            format!("`{name}` must be 1 to {max} bytes"),
        ));
    }
    Ok(value)
}

fn only_keys(args: &Map<String, Value>, allowed: &[&str]) -> Result<(), ToolError> {
    match args.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(extra) => Err(ToolError::new(
            "FAIL-1",
            format!(
                "unknown argument `{extra}` (expected: {})",
                allowed.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

impl Server {
    /// Run one tool. `Ok` is the strict-JSON result; `Err` a structured tool
    /// error (refusals and failures: FAIL-1); cancellation is `Err` too,
    /// with CANCEL-1.
    pub async fn call(
        &self,
        name: &str,
        args: &Map<String, Value>,
        session: &str,
        cancel: &CancellationToken,
    ) -> Result<Value, ToolError> {
        match name {
            "proof_check" => {
                only_keys(args, &["line"])?;
                Ok(self.proof_check(text_arg(args, "line", 400)?))
            }
            "web_fetch" => {
                only_keys(args, &["url"])?;
                let url = text_arg(args, "url", 2048)?;
                let (research, id, marker) = self.prepare_web(session, "web", url)?;
                web_result(research.engine().web_fetch(url, &id, &marker, cancel).await)
            }
            "web_search" => {
                only_keys(args, &["query"])?;
                let query = text_arg(args, "query", 110)?;
                let (research, id, marker) = self.prepare_web(session, "web_search", query)?;
                web_result(
                    research
                        .engine()
                        .web_search(query, None, &id, &marker, cancel)
                        .await,
                )
            }
            "research" => {
                only_keys(args, &["question"])?;
                let question = text_arg(args, "question", 2000)?;
                let (research, id, marker) = self.prepare_web(session, "web_search", question)?;
                let model = self.model.as_deref();
                let silent = |_: &ploy_research::Progress| {};
                web_result(
                    research
                        .engine()
                        .run(
                            RunRequest {
                                question,
                                conversation_id: &id,
                                want_answer: model.is_some(),
                            },
                            model,
                            &marker,
                            &silent,
                            cancel,
                        )
                        .await,
                )
            }
            "proof_run" => {
                only_keys(args, &["line", "project"])?;
                let line = text_arg(args, "line", 400)?.to_string();
                let project = self.project(args)?;
                self.judge_command(session, &line)?;
                let redactor = self.redactor.clone();
                let cache = self.dirs.state.join("build-cache");
                let report = self
                    .blocking(cancel, move || {
                        let sandbox = sandbox_for(&project, ProjectView::CopyOnWrite, Some(cache))
                            .map_err(|e| ToolError::new("SBX-5", e.to_string()))?;
                        Ok(run_proof(&sandbox, &line, &redactor))
                    })
                    .await?;
                let mut budget = ByteBudget::for_search();
                let mut value = serde_json::to_value(&report)
                    .map_err(|e| ToolError::new("FAIL-1", e.to_string()))?;
                for field in ["stdout", "stderr"] {
                    if let Some(text) = report_text(&report, field) {
                        value[field] = Value::String(budget.take_marked(text).into_owned());
                    }
                }
                Ok(value)
            }
            "sandbox_run" => {
                only_keys(args, &["command", "project"])?;
                let command = text_arg(args, "command", 8192)?.to_string();
                let project = self.project(args)?;
                self.judge_command(session, &command)?;
                let out = self
                    .blocking(cancel, move || {
                        let sandbox = sandbox_for(&project, ProjectView::Writable, None)
                            .map_err(|e| ToolError::new("SBX-5", e.to_string()))?;
                        sandbox
                            .run("bash", &["-c".to_string(), command])
                            .map_err(|e| ToolError::new("SBX-5", e.to_string()))
                    })
                    .await?;
                let mut budget = ByteBudget::for_search();
                let stdout = self
                    .redactor
                    .redact(&String::from_utf8_lossy(&out.stdout))
                    .into_owned();
                let stderr = self
                    .redactor
                    .redact(&String::from_utf8_lossy(&out.stderr))
                    .into_owned();
                Ok(json!({
                    "exit_code": out.termination.exit_code(),
                    "termination": out.termination,
                    "timed_out": out.timed_out,
                    "memory_exceeded": out.memory_exceeded,
                    "time_ms": u64::try_from(out.duration.as_millis()).unwrap_or(u64::MAX),
                    "stdout": budget.take_marked(&stdout),
                    "stderr": budget.take_marked(&stderr),
                    "output_truncated": out.output_truncated || budget.cut_bytes() > 0,
                    "notes": out.notes.iter().map(|n| self.redactor.redact(n).into_owned()).collect::<Vec<_>>(),
                }))
            }
            other => Err(ToolError::new("FAIL-1", format!("unknown tool `{other}`"))),
        }
    }

    fn proof_check(&self, line: &str) -> Value {
        let verdict = validate(line);
        json!({
            "line": self.redactor.redact(line),
            "verdict": if verdict.is_accepted() { "accepted" } else { "refused" },
            "rules": verdict.rules(),
            "refusals": verdict.refusals().iter().map(|r| json!({
                "rule": r.rule,
                "detail": self.redactor.redact(&r.detail),
            })).collect::<Vec<_>>(),
        })
    }

    /// A folder for a command: the server's project, or a folder inside it.
    fn project(&self, args: &Map<String, Value>) -> Result<PathBuf, ToolError> {
        let Some(value) = args.get("project") else {
            return Ok(self.root.clone());
        };
        let text = value
            .as_str()
            .ok_or_else(|| ToolError::new("FAIL-1", "`project` is not a string"))?;
        let candidate = if Path::new(text).is_absolute() {
            PathBuf::from(text)
        } else {
            self.root.join(text)
        };
        let canonical = std::fs::canonicalize(&candidate)
            .map_err(|e| ToolError::new("FAIL-1", format!("`project` {text}: {e}")))?;
        if !canonical.starts_with(&self.root) || !canonical.is_dir() {
            return Err(ToolError::new(
                "PERM-1",
                format!(
                    "`project` {text} is not a folder inside the server's project {}",
                    self.root.display()
                ),
            ));
        }
        // A folder PERM-7 keeps for a person (`.git` and anything in it,
        // `.ploy`, `.claude`, …) is no project: a writable run there would
        // write git's objects, refs or HEAD, or ploy's own files, directly
        // (found attacking `ploy mcp`: `project: ".git"`).
        let ctx = self.ctx()?;
        let mut walked = self.root.clone();
        for part in canonical
            .strip_prefix(&self.root)
            .unwrap_or(Path::new(""))
            .components()
        {
            walked.push(part);
            let in_git = part.as_os_str().eq_ignore_ascii_case(".git");
            if in_git
                || ctx
                    .root
                    .protected()
                    .protects(&walked.to_string_lossy())
                    .is_some()
            {
                return Err(ToolError::new(
                    "PERM-7",
                    format!(
                        "`project` {text} is inside {}, which ploy protects: run in the project itself",
                        walked.display()
                    ),
                ));
            }
        }
        Ok(canonical)
    }

    /// A command through the judge: deny rules refuse; a question ploy
    /// would ask (the mark, a protected path, an ask rule) is a refusal
    /// here, since nobody on this channel can answer it (PERM-5).
    fn judge_command(&self, session: &str, line: &str) -> Result<(), ToolError> {
        let ctx = self.ctx()?;
        let call = ploy_hook::map::sandboxed_command_call(&ctx, line);
        refuse_unless_through(ctx.judge(&self.sessions, session, &call))
    }

    /// A web tool: judged (deny rules, BEYOND-6) and the session marked
    /// before anything is read (TAINT-1, TAINT-3); returns the research
    /// tools, the session's conversation and a store marker for it.
    fn prepare_web(
        &self,
        session: &str,
        kind: &str,
        target: &str,
    ) -> Result<(&ploy_research::ResearchTools, String, StoreMarker), ToolError> {
        let research = self
            .research
            .as_ref()
            .map_err(|reason| ToolError::new("PROFILE-2", reason.clone()))?;
        let ctx = self.ctx()?;
        let call = ploy_hook::map::own_fetch_call(&ctx, kind, target)
            .map_err(|r| ToolError::new(r.requirement, r.reason))?;
        if !matches!(call, Call::Web { .. }) {
            return Err(ToolError::new(
                "PERM-1",
                format!("`{kind}` is not a web action"),
            ));
        }
        refuse_unless_through(ctx.judge(&self.sessions, session, &call))?;
        let id = self
            .sessions
            .conversation_id(session)
            .map_err(|e| ToolError::new("TAINT-3", e))?
            .ok_or_else(|| {
                ToolError::new("TAINT-3", "the session was not marked; nothing is read")
            })?;
        let store = ploy_store::Store::open(self.sessions.path())
            .map_err(|e| ToolError::new("TAINT-3", e.to_string()))?;
        Ok((research, id, StoreMarker::new(store)))
    }

    /// Run blocking sandbox work on a worker thread; a cancelled request
    /// stops waiting at once (CANCEL-1; the sandboxed program itself runs on
    /// to its end or its wall-time limit: the sandbox has no kill handle).
    async fn blocking<T, F>(&self, cancel: &CancellationToken, work: F) -> Result<T, ToolError>
    where
        T: Send + 'static,
        F: FnOnce() -> Result<T, ToolError> + Send + 'static,
    {
        let task = tokio::task::spawn_blocking(work);
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(ToolError::new("CANCEL-1", "cancelled")),
            joined = task => joined.map_err(|e| ToolError::new("FAIL-1", format!("the sandbox task failed: {e}")))?,
        }
    }
}

/// The judge's answer as a tool outcome: deny refuses; a question ploy
/// would ask (the mark, a protected path, an ask rule) is a refusal here,
/// since nobody on this channel can answer it (PERM-5); the rest goes on.
fn refuse_unless_through(answer: Answer) -> Result<(), ToolError> {
    match answer {
        Answer::Deny {
            reason,
            requirement,
        } => Err(ToolError::new(requirement, reason)),
        Answer::Ask {
            reason,
            requirement,
        } => Err(ToolError::new(
            requirement,
            format!(
                "{reason}; nobody can answer ploy's question on this channel (PERM-5): ask the \
                 person to do it themselves"
            ),
        )),
        Answer::NoDecision | Answer::Allow { .. } => Ok(()),
    }
}

/// A research result as strict JSON (its notice and data fields as the
/// engine made them, PLUGIN-1); cancellation is an error (CANCEL-1).
fn web_result<E>(output: Result<ploy_research::ResearchOutput, E>) -> Result<Value, ToolError> {
    let output = output.map_err(|_| ToolError::new("CANCEL-1", "cancelled"))?;
    let value =
        serde_json::to_value(&output).map_err(|e| ToolError::new("FAIL-1", e.to_string()))?;
    if value["notice"] != UNTRUSTED_NOTICE {
        return Err(ToolError::new(
            "PLUGIN-1",
            "the result lacks the untrusted notice",
        ));
    }
    // Nothing was read and the engine says why (a refused address, a
    // backend down): a structured tool error carrying the report (FAIL-1).
    if output.sources.is_empty()
        && let Some(failure) = &output.failure
    {
        return Err(ToolError {
            requirement: failure.rule.clone(),
            reason: failure.reason.clone(),
            result: Some(value),
        });
    }
    Ok(value)
}

fn report_text<'a>(report: &'a ploy_proof::proof_run::ProofReport, field: &str) -> Option<&'a str> {
    match field {
        "stdout" => Some(&report.stdout),
        "stderr" => Some(&report.stderr),
        _ => None,
    }
}

/// The sandbox for a project, as the CLI builds it: toolchains under the
/// home folder read-only (credentials never), the view given.
fn sandbox_for(
    project: &Path,
    view: ProjectView,
    build_cache_root: Option<PathBuf>,
) -> Result<Sandbox, ploy_proof::sandbox::SandboxError> {
    let mut policy = SandboxPolicy::new(project);
    policy.view = view;
    policy.build_cache_root = build_cache_root;
    sandbox::add_home_toolchains(&mut policy);
    Sandbox::new(policy)
}
