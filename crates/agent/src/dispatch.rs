//! The one path from a tool call to a side effect (PERM-1).
//!
//! ```text
//! tool call → Tool::prepare (parse, classify into Actions; no side effect)
//!           → Policy::assert = ploy_policy::Permission::assert, per action
//!           → Allow: Cleared token │ Ask: Approver (nobody → PERM-5 refusal)
//!                                  │ Deny: structured refusal
//!           → Tool::run(Cleared)   (only an allowed call gets the token)
//!           → redactor → 50 KiB cap → the model and the store
//! ```
//!
//! [`Cleared`] has private fields and no public constructor: outside this
//! module nothing, not even a tool in this crate, can make one, so a tool's
//! `run` is unreachable except through [`Dispatcher::dispatch`] after the
//! decision allowed every action of the call.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ploy_policy::{
    Action, Approval, ApprovalId, Approvals, AskOption, ConversationRules, Decision, Permission,
    ProjectRoot, Refusal, RuleError, Rules, Verdict,
};
use ploy_secrets::Redactor;
use ploy_secrets::cap::ByteBudget;
use ploy_store::{DecisionRecord, SavedApproval, Store};
use serde_json::{Value, json};

use crate::approve::{Answer, ApprovalRequest, Approver};
use crate::event::{Event, EventSink};
use crate::history::ToolCall;
use crate::tool::{Prepared, Registry, ToolContext, ToolError, ToolOutput};

/// The most text one tool result gives the model: 50 KiB (CAP-1), after
/// redaction.
pub const TOOL_RESULT_CAP: usize = 50 * 1024;

/// Redact, then cap: the order matters (a cut before redaction could leave
/// the first half of a secret that the redactor no longer recognises).
pub fn finish_output(redactor: &Redactor, text: &str) -> String {
    let redacted = redactor.redact(text);
    ByteBudget::new(TOOL_RESULT_CAP)
        .take_marked(&redacted)
        .into_owned()
}

/// The decision state of a run: rules, the conversation's marks and rules,
/// saved approvals. Every decision in the agent goes through
/// [`Policy::assert`], which calls `Permission::assert` and nothing else.
pub struct Policy {
    root: ProjectRoot,
    rules: Rules,
    conversation: Arc<Mutex<ConversationRules>>,
    approvals: Mutex<Approvals>,
    /// Policy approval id → store id (to delete a used `once` approval).
    store_ids: Mutex<HashMap<ApprovalId, i64>>,
    asserts: AtomicU64,
    /// Where the conversation's state lives, re-read when another process
    /// changed it (see [`Policy::reading_store`]).
    stored: Option<StoredState>,
}

/// The store a [`Policy`] re-reads: another process (`ploy -p --continue`
/// next to an editor's `--mode rpc`, `ploy approvals revoke`) may mark the
/// conversation or change the saved approvals while this one runs.
struct StoredState {
    store: Arc<Mutex<Store>>,
    conversation_id: String,
    project_key: String,
    /// The store's `data_version` when last read; `None`: never read.
    seen: Mutex<Option<i64>>,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl Policy {
    /// The policy of a run: the project root, the settings' rule layers, the
    /// conversation's rules (shared with the marker), and the approvals saved
    /// for this project.
    pub fn new(
        root: ProjectRoot,
        rules: Rules,
        conversation: Arc<Mutex<ConversationRules>>,
        saved: Vec<SavedApproval>,
    ) -> Result<Self, RuleError> {
        let mut approvals = Approvals::new();
        let mut store_ids = HashMap::new();
        for entry in saved {
            let id = approvals.grant(entry.approval)?;
            store_ids.insert(id, entry.id);
        }
        Ok(Self {
            root,
            rules,
            conversation,
            approvals: Mutex::new(approvals),
            store_ids: Mutex::new(store_ids),
            asserts: AtomicU64::new(0),
            stored: None,
        })
    }

    /// Re-read the conversation's marks and visited sites and the project's
    /// saved approvals from `store` whenever another connection changed it
    /// (TAINT-2: a conversation marked by any process is tainted in every
    /// process; a revoked approval stops applying). Checked before every
    /// decision and every read of the marks; the check is one `PRAGMA`
    /// when nothing changed.
    pub fn reading_store(
        mut self,
        store: Arc<Mutex<Store>>,
        conversation_id: impl Into<String>,
        project_key: impl Into<String>,
    ) -> Self {
        self.stored = Some(StoredState {
            store,
            conversation_id: conversation_id.into(),
            project_key: project_key.into(),
            seen: Mutex::new(None),
        });
        self
    }

    /// Bring the in-memory state up to the store's (see
    /// [`Self::reading_store`]). Marks and sites only accumulate; the saved
    /// approvals are replaced by the stored ones.
    fn refresh(&self) -> Result<(), String> {
        let Some(stored) = &self.stored else {
            return Ok(());
        };
        let store = stored
            .store
            .lock()
            .map_err(|_| "the store lock is poisoned".to_string())?;
        let version = store.data_version().map_err(|e| e.to_string())?;
        let mut seen = stored
            .seen
            .lock()
            .map_err(|_| "a state lock is poisoned".to_string())?;
        if *seen == Some(version) {
            return Ok(());
        }
        let fresh = store
            .conversation_rules(&stored.conversation_id)
            .map_err(|e| e.to_string())?;
        let saved = store
            .approvals_in(&stored.project_key)
            .map_err(|e| e.to_string())?;
        drop(store);
        {
            let mut conversation = self
                .conversation
                .lock()
                .map_err(|_| "the conversation lock is poisoned".to_string())?;
            for mark in fresh.marks() {
                conversation.mark_tainted(mark.reason.clone(), mark.source.clone());
            }
            for site in fresh.visited_sites() {
                conversation.visit(site.clone());
            }
        }
        let mut approvals = Approvals::new();
        let mut store_ids = HashMap::new();
        for entry in saved {
            let id = approvals.grant(entry.approval).map_err(|e| e.to_string())?;
            store_ids.insert(id, entry.id);
        }
        let (Ok(mut current), Ok(mut ids)) = (self.approvals.lock(), self.store_ids.lock()) else {
            return Err("the approvals lock is poisoned".into());
        };
        *current = approvals;
        *ids = store_ids;
        *seen = Some(version);
        Ok(())
    }

    /// [`Self::refresh`], failing closed: when the stored state cannot be
    /// read, the conversation counts as tainted from now on.
    fn refresh_or_mark(&self) -> Result<(), String> {
        let result = self.refresh();
        if let Err(err) = &result
            && let Ok(mut conversation) = self.conversation.lock()
        {
            conversation.mark_tainted(
                format!("the conversation's stored marks could not be re-read ({err})"),
                ploy_policy::TaintSource::Tool("ploy".into()),
            );
        }
        result
    }

    /// The project root.
    pub fn root(&self) -> &ProjectRoot {
        &self.root
    }

    /// Decide one action: the stored state re-read when another process
    /// changed it ([`Self::reading_store`]), then `Permission::assert` with
    /// the conversation's current rules and the saved approvals. A store
    /// that cannot be re-read or a poisoned lock denies (a decision that
    /// cannot be made is a no).
    pub fn assert(&self, action: &Action) -> Decision {
        match self.refresh_or_mark() {
            Ok(()) => self.decide(action),
            Err(err) => {
                self.asserts.fetch_add(1, Ordering::Relaxed);
                unreadable_store(&err)
            }
        }
    }

    /// `Permission::assert` with the state as last read, without looking
    /// at the store: for the many checks of one dispatched call, after
    /// [`Dispatcher::dispatch`] re-read the state once at its start (the
    /// shell judge's and `grep`'s per-file [`ReadGate`] checks would
    /// otherwise take the store's lock and ask SQLite once per file).
    fn decide(&self, action: &Action) -> Decision {
        self.asserts.fetch_add(1, Ordering::Relaxed);
        let (Ok(conversation), Ok(approvals)) = (self.conversation.lock(), self.approvals.lock())
        else {
            return Decision {
                verdict: Verdict::Deny,
                basis: ploy_policy::Basis::Default,
                reason: "the permission state is unusable (a lock was poisoned); nothing runs"
                    .into(),
                requirement: "PERM-1",
                asked_kinds: ploy_policy::KindSet::EMPTY,
            };
        };
        Permission::assert(action, &conversation, &self.rules, &approvals)
    }

    /// A gate that answers, for one tool, whether a file's `read` is
    /// allowed outright ([`ReadGate::may_read`]): the shell judge's list of
    /// guarded files is made with it.
    pub fn read_gate(self: &Arc<Self>, tool: &'static str) -> ReadGate {
        ReadGate {
            policy: self.clone(),
            tool,
        }
    }

    /// How many decisions were made (tests and benchmarks).
    pub fn assert_count(&self) -> u64 {
        self.asserts.load(Ordering::Relaxed)
    }

    /// The conversation's first mark, if it is tainted.
    pub fn first_mark(&self) -> Option<ploy_policy::TaintMark> {
        let _ = self.refresh_or_mark();
        self.conversation
            .lock()
            .ok()
            .and_then(|c| c.marks().first().cloned())
    }

    /// Every mark of the conversation, oldest first.
    pub fn marks(&self) -> Vec<ploy_policy::TaintMark> {
        let _ = self.refresh_or_mark();
        self.conversation
            .lock()
            .map(|c| c.marks().to_vec())
            .unwrap_or_default()
    }

    /// True when the conversation is tainted (or its state is unusable).
    pub fn is_tainted(&self) -> bool {
        let _ = self.refresh_or_mark();
        self.conversation
            .lock()
            .map(|c| c.is_tainted())
            .unwrap_or(true)
    }

    fn add_approval(&self, approval: Approval, store_id: i64) {
        if let (Ok(mut approvals), Ok(mut ids)) = (self.approvals.lock(), self.store_ids.lock())
            && let Ok(id) = approvals.grant(approval)
        {
            ids.insert(id, store_id);
        }
    }

    /// Use up a `once` approval the decision relied on; returns its store id.
    fn consume(&self, decision: &Decision) -> Option<i64> {
        if let ploy_policy::Basis::Approval {
            id,
            scope: ploy_policy::ApprovalScope::Once,
        } = decision.basis
        {
            if let Ok(mut approvals) = self.approvals.lock() {
                approvals.consume(decision);
            }
            return self
                .store_ids
                .lock()
                .ok()
                .and_then(|mut ids| ids.remove(&id));
        }
        None
    }
}

/// The refusal of every decision when the stored marks and approvals
/// cannot be re-read (TAINT-2).
fn unreadable_store(err: &str) -> Decision {
    Decision {
        verdict: Verdict::Deny,
        basis: ploy_policy::Basis::Default,
        reason: format!(
            "the conversation's marks and approvals could not be re-read from the store \
             ({err}); nothing runs"
        ),
        requirement: "TAINT-2",
        asked_kinds: ploy_policy::KindSet::EMPTY,
    }
}

/// Lets a tool that reads many files (`grep`) check each one through the
/// same decision: only files whose `read` is allowed outright are opened.
///
/// It decides with the state [`Dispatcher::dispatch`] re-read from the store
/// at the start of the call it is used in (TAINT-2 is checked once per tool
/// call, not once per file); every gate a tool gets comes from a dispatch.
#[derive(Debug, Clone)]
pub struct ReadGate {
    policy: Arc<Policy>,
    tool: &'static str,
}

impl ReadGate {
    /// True when reading `path` (as the policy places it) is allowed without
    /// asking. Asks and denies are both "no": nobody is asked per file.
    pub fn may_read(&self, path: &str) -> bool {
        let action = Action::read(self.tool, path, &self.policy.root);
        self.policy.decide(&action).is_allow()
    }
}

/// Proof that the dispatcher allowed a call: the only way to reach
/// [`crate::tool::Tool::run`]. Private fields, no public constructor.
///
/// ```compile_fail
/// // A tool (or anyone) cannot forge the token:
/// let forged = ploy_agent::tool::Cleared { plan: Box::new(()), gate: todo!() };
/// ```
pub struct Cleared {
    plan: Box<dyn std::any::Any + Send>,
    gate: ReadGate,
}

impl std::fmt::Debug for Cleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cleared").finish_non_exhaustive()
    }
}

impl Cleared {
    /// The tool's plan (the type its `prepare` put in) and the read gate.
    pub fn into_parts<T: 'static>(self) -> Result<(T, ReadGate), ToolError> {
        let gate = self.gate;
        self.plan
            .downcast::<T>()
            .map(|plan| (*plan, gate))
            .map_err(|_| ToolError::new("internal error: the prepared plan has another type"))
    }
}

/// One dispatched call, ready for the model and the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatched {
    /// False for refusals and errors.
    pub ok: bool,
    /// The result text (redacted, then capped).
    pub text: String,
    /// The arguments as stored and shown (redacted).
    pub args: String,
    /// The decision, when the call got that far.
    pub decision: Option<DecisionRecord>,
}

/// What an `always` answer would save (empty when it is not offered): the
/// same narrow grants [`Dispatcher`] saves, described for the prompt.
fn always_scope(decisions: &[(Decision, &Action)]) -> Vec<String> {
    let mut lines = Vec::new();
    for (decision, action) in decisions.iter().filter(|(d, _)| d.is_ask()) {
        match Approval::for_answer(action, decision, AskOption::Always) {
            Ok(grants) => lines.extend(grants.iter().map(crate::approve::describe_approval)),
            Err(_) => return Vec::new(),
        }
    }
    lines
}

/// Runs tool calls through the one path.
pub struct Dispatcher {
    policy: Arc<Policy>,
    registry: Registry,
    redactor: Redactor,
    store: Arc<Mutex<Store>>,
    project_key: String,
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher")
            .field("tools", &self.registry)
            .finish_non_exhaustive()
    }
}

fn verdict_name(decision: &Decision) -> &'static str {
    match decision.verdict {
        Verdict::Allow => "allow",
        Verdict::Ask { .. } => "ask",
        Verdict::Deny => "deny",
    }
}

fn option_name(option: AskOption) -> &'static str {
    match option {
        AskOption::Once => "once",
        AskOption::Always => "always",
        AskOption::Reject => "reject",
    }
}

fn refusal_text(refusal: &Refusal, message: Option<&str>) -> String {
    let mut body = serde_json::to_value(refusal).unwrap_or_else(|_| json!({"status": "refused"}));
    if let Some(message) = message {
        body["message"] = json!(message);
    }
    body.to_string()
}

impl Dispatcher {
    /// A dispatcher over `registry` deciding with `policy`; approvals saved
    /// with `always` go to `store` under `project_key` (the canonical project).
    pub fn new(
        policy: Arc<Policy>,
        registry: Registry,
        redactor: Redactor,
        store: Arc<Mutex<Store>>,
        project_key: String,
    ) -> Self {
        Self {
            policy,
            registry,
            redactor,
            store,
            project_key,
        }
    }

    /// The policy.
    pub fn policy(&self) -> &Arc<Policy> {
        &self.policy
    }

    /// The tools.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The redactor every result passes.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// A call refused before any decision: its error is the tool's result.
    fn refuse(
        &self,
        call: &ToolCall,
        args: String,
        error: &ToolError,
        events: &dyn EventSink,
    ) -> Dispatched {
        self.finish(
            call,
            args,
            ToolOutput::error(&call.function.name, error),
            None,
            events,
        )
    }

    fn finish(
        &self,
        call: &ToolCall,
        args: String,
        output: ToolOutput,
        decision: Option<DecisionRecord>,
        events: &dyn EventSink,
    ) -> Dispatched {
        let text = finish_output(&self.redactor, &output.text);
        events.emit(&Event::ToolResult {
            id: call.id.clone(),
            ok: output.ok,
            output: text.clone(),
        });
        Dispatched {
            ok: output.ok,
            text,
            args,
            decision,
        }
    }

    /// Run one tool call through the one path (see the module docs).
    pub async fn dispatch(
        &self,
        call: &ToolCall,
        ctx: &ToolContext,
        approver: &dyn Approver,
        events: &dyn EventSink,
    ) -> Dispatched {
        let args = self.redactor.redact(&call.function.arguments).into_owned();
        let parsed: Result<Value, _> = serde_json::from_str(&call.function.arguments);
        events.emit(&Event::ToolCall {
            id: call.id.clone(),
            name: call.function.name.clone(),
            args: serde_json::from_str(&args).unwrap_or_else(|_| Value::String(args.clone())),
        });
        let Some(tool) = self.registry.get(&call.function.name) else {
            let error = ToolError::new(format!(
                "there is no tool named `{}`; the tools are: {}",
                call.function.name,
                self.registry.names().join(", ")
            ));
            return self.refuse(call, args, &error, events);
        };
        let parsed = match parsed {
            Ok(value) => value,
            Err(err) => {
                let error = ToolError::new(format!("the arguments are not a JSON object ({err})"));
                return self.refuse(call, args, &error, events);
            }
        };
        // TAINT-2: the marks and approvals another process stored are read
        // once for the whole call, before `prepare` (the shell judge's read
        // gate) and every decision below; when they cannot be read the
        // conversation is marked and nothing of the call runs.
        if let Err(err) = self.policy.refresh_or_mark() {
            let refused = unreadable_store(&err);
            let error = ToolError::rule(refused.requirement, refused.reason);
            return self.refuse(call, args, &error, events);
        }
        let mut prepared = match tool.prepare(&parsed, ctx) {
            Ok(prepared) if !prepared.actions.is_empty() => prepared,
            Ok(_) => {
                // A tool that names no action would run unchecked: refused.
                let error = ToolError::rule("PERM-1", "internal error: the call names no action");
                return self.refuse(call, args, &error, events);
            }
            Err(error) => {
                return self.refuse(call, args, &error, events);
            }
        };

        // Decide every action; the strictest wins (one deny denies, one ask asks).
        let decisions: Vec<(Decision, &Action)> = prepared
            .actions
            .iter()
            .map(|action| (self.policy.decide(action), action))
            .collect();
        let pick = decisions
            .iter()
            .find(|(d, _)| d.is_deny())
            .or_else(|| decisions.iter().find(|(d, _)| d.is_ask()))
            .or_else(|| decisions.first());
        let Some((decision, action)) = pick else {
            let error = ToolError::rule("PERM-1", "internal error: no decision");
            return self.refuse(call, args, &error, events);
        };
        let (decision, action) = (decision.clone(), *action);
        events.emit(&Event::Decision {
            id: call.id.clone(),
            verdict: verdict_name(&decision).to_string(),
            rule: decision.requirement.to_string(),
            reason: self.redactor.redact(&decision.reason).into_owned(),
            options: decision
                .options()
                .iter()
                .map(|o| option_name(*o).to_string())
                .collect(),
        });
        let mut record = DecisionRecord {
            call_id: call.id.clone(),
            verdict: verdict_name(&decision).to_string(),
            rule: decision.requirement.to_string(),
            reason: self.redactor.redact(&decision.reason).into_owned(),
            answer: None,
            created_at: 0,
        };

        match &decision.verdict {
            Verdict::Allow => {
                for (d, _) in &decisions {
                    if let Some(store_id) = self.policy.consume(d)
                        && let Ok(mut store) = self.store.lock()
                    {
                        // The approval was used in memory; a failed removal
                        // only means it is loaded again next run (it is
                        // still a person's answer), so it is logged.
                        if let Err(err) = store.remove_approval(store_id) {
                            tracing::warn!("a used `once` approval could not be removed: {err}");
                        }
                    }
                }
            }
            Verdict::Deny => {
                let refusal = Refusal::new(action, decision.requirement, decision.reason.clone());
                let output = ToolOutput {
                    ok: false,
                    text: refusal_text(&refusal, None),
                };
                return self.finish(call, args, output, Some(record), events);
            }
            Verdict::Ask { .. } => {
                if !approver.can_answer() {
                    // PERM-5: nobody can answer; the ask is a refusal.
                    let refusal = match decision.clone().without_user(action) {
                        Err(refusal) => refusal,
                        Ok(_) => Refusal::new(action, "PERM-5", decision.reason.clone()),
                    };
                    record.answer = Some("refused".into());
                    let output = ToolOutput {
                        ok: false,
                        text: refusal_text(&refusal, None),
                    };
                    return self.finish(call, args, output, Some(record), events);
                }
                let diff = tool.preview(prepared.plan.as_mut(), ctx);
                let request = self.request(call, &prepared, diff, &decisions, &decision);
                let answer = approver.ask(&request).await;
                match answer {
                    Answer::Once => record.answer = Some("once".into()),
                    Answer::Always => {
                        record.answer = Some("always".into());
                        if let Err(refusal) = self.save_always(&decisions) {
                            record.answer = Some("refused".into());
                            let output = ToolOutput {
                                ok: false,
                                text: refusal_text(&refusal, None),
                            };
                            return self.finish(call, args, output, Some(record), events);
                        }
                    }
                    Answer::Reject { message } => {
                        record.answer = Some("reject".into());
                        let refusal = Refusal::new(
                            action,
                            decision.requirement,
                            format!("a person rejected this call ({})", decision.reason),
                        );
                        let output = ToolOutput {
                            ok: false,
                            text: refusal_text(&refusal, message.as_deref()),
                        };
                        return self.finish(call, args, output, Some(record), events);
                    }
                }
            }
        }

        let cleared = Cleared {
            plan: prepared.plan,
            gate: ReadGate {
                policy: self.policy.clone(),
                tool: tool.spec().name,
            },
        };
        let output = tool.run(cleared, ctx).await;
        self.finish(call, args, output, Some(record), events)
    }

    /// The request a person sees for an ask.
    fn request(
        &self,
        call: &ToolCall,
        prepared: &Prepared,
        diff: Option<String>,
        decisions: &[(Decision, &Action)],
        decision: &Decision,
    ) -> ApprovalRequest {
        let mut kinds = ploy_policy::KindSet::EMPTY;
        let mut units = Vec::new();
        let mut notes = Vec::new();
        for (_, action) in decisions {
            for kind in action.kinds().iter() {
                kinds.insert(kind);
            }
            for unit in action.units() {
                units.push(format!("{}: {}", unit.kind, unit.label()));
            }
            notes.extend(action.notes().iter().cloned());
        }
        // A URL with a non-ASCII name is shown as checked (punycode), the
        // lookalike only in a note that says so (tui-rpc #4).
        let target = match crate::ask::idn_target(&prepared.target) {
            Some((ascii, note)) => {
                notes.insert(0, note);
                ascii
            }
            None => prepared.target.clone(),
        };
        ApprovalRequest {
            call_id: call.id.clone(),
            tool: call.function.name.clone(),
            target: self.redactor.redact(&target).into_owned(),
            kinds,
            rule: decision.requirement,
            basis: decision.basis.clone(),
            reason: self.redactor.redact(&decision.reason).into_owned(),
            units: units
                .iter()
                .map(|u| self.redactor.redact(u).into_owned())
                .collect(),
            notes: notes
                .iter()
                .map(|n| self.redactor.redact(n).into_owned())
                .collect(),
            diff: diff.map(|d| self.redactor.redact(&d).into_owned()),
            options: decision.options().to_vec(),
            tainted_by: self.policy.first_mark(),
            always_scope: always_scope(decisions)
                .iter()
                .map(|line| self.redactor.redact(line).into_owned())
                .collect(),
        }
    }

    /// Save the narrow grants of an `always` answer for every asked action
    /// (refused when `always` was not offered, e.g. in a tainted conversation).
    fn save_always(&self, decisions: &[(Decision, &Action)]) -> Result<(), Refusal> {
        let mut to_save = Vec::new();
        for (decision, action) in decisions.iter().filter(|(d, _)| d.is_ask()) {
            match Approval::for_answer(action, decision, AskOption::Always) {
                Ok(grants) => to_save.extend(grants),
                Err(err) => return Err(Refusal::new(action, "PERM-5", err.to_string())),
            }
        }
        for approval in to_save {
            let saved = self
                .store
                .lock()
                .map_err(|_| "the store lock is poisoned".to_string())
                .and_then(|mut store| {
                    store
                        .save_approval_in(&approval, Some(&self.project_key))
                        .map_err(|e| e.to_string())
                });
            match saved {
                Ok(store_id) => self.policy.add_approval(approval, store_id),
                // The person approved this call; only remembering failed.
                Err(err) => tracing::warn!("an `always` approval could not be saved: {err}"),
            }
        }
        Ok(())
    }
}
