//! Test support: the shared scripted model (ploy-scripted-model, a real
//! OpenAI-compatible server on 127.0.0.1 that records every request so
//! tests can check what the model saw), a temporary project and home, and
//! a session builder.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod web;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ploy_agent::approve::NoPerson;
use ploy_agent::config::AgentConfig;
use ploy_agent::event::CollectEvents;
use ploy_agent::session::{Outcome, Resume, Session, SessionSetup};
use ploy_agent::tools::builtin_registry;
use ploy_model::ModelClient;
use ploy_policy::{
    ApprovalMode, ExecutionProfile, PloyFolders, ProjectTrust, Rule, RuleLayer, RuleSource, Rules,
    SandboxMode,
};
use ploy_secrets::Redactor;
use ploy_store::Store;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub use ploy_testkit::scripted_model::{Obedience, Script, ScriptedModel, Turn};

/// Start the shared scripted model (ploy-scripted-model) with `script`.
pub async fn scripted(script: Script) -> ScriptedModel {
    ploy_testkit::scripted_model::serve(script).await.unwrap()
}

/// The obedient model: it obeys every `PLOY-OBEY:` order it reads (the
/// prompt, a tool result, page text included), one call per turn in the
/// order read; when none is left it answers "done".
pub fn obedient() -> Script {
    Script::new()
        .obey(Obedience {
            one_at_a_time: true,
            ..Obedience::default()
        })
        .repeat(Turn::text("done"))
}

/// `PLOY-OBEY:` lines ordering each call, one per line (what a hostile
/// prompt or page embeds).
pub fn orders(lines: &[(&str, Value)]) -> String {
    lines
        .iter()
        .map(|(tool, args)| {
            format!(
                "{} {}",
                ploy_testkit::scripted_model::MARKER,
                json!({"tool": tool, "arguments": args})
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A temporary project (with `src/lib.rs` and `.git/hooks/`) and home.
pub struct World {
    pub dir: tempfile::TempDir,
    pub project: PathBuf,
    pub home: PathBuf,
    pub state: PathBuf,
}

impl World {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let project = base.join("proj");
        let home = base.join("home");
        let state = base.join("state");
        for d in [&project, &home, &state] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
        std::fs::write(
            project.join("src/lib.rs"),
            "pub fn answer() -> u32 { 42 }\n",
        )
        .unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE-KEY-CANARY-0123456789\n").unwrap();
        Self {
            dir,
            project,
            home,
            state,
        }
    }

    pub fn db(&self) -> PathBuf {
        self.state.join("ploy.db")
    }

    pub fn store(&self) -> Store {
        Store::open(self.db()).unwrap()
    }

    pub fn key(&self) -> String {
        self.project.to_string_lossy().into_owned()
    }

    /// A saved `always` approval of the shell command `pattern`, scoped to
    /// this project; returns its id.
    pub fn approve_shell_always(&self, pattern: &str) -> i64 {
        use ploy_policy::{ActionKind, Approval, ApprovalScope, Grant};
        self.store()
            .save_approval_in(
                &Approval {
                    scope: ApprovalScope::Always,
                    grant: Grant::Pattern {
                        kind: ActionKind::Shell,
                        pattern: pattern.into(),
                    },
                },
                Some(&self.key()),
            )
            .unwrap()
    }
}

/// Rules: the built-in defaults plus a user layer.
pub fn rules(user: &[Rule]) -> Rules {
    let layer = RuleLayer::new(RuleSource::User, user.to_vec()).unwrap();
    Rules::builtin().with_layer(layer, ProjectTrust::Untrusted)
}

/// Options of one test run.
pub struct Run {
    pub rules: Rules,
    pub redactor: Redactor,
    pub config: AgentConfig,
    pub resume: Resume,
    pub profile: ExecutionProfile,
    pub web: Option<ploy_agent::tools::web::WebSetup>,
    /// Open the store as `ploy -p` does: its full check on its own thread
    /// ([`Store::open_checking_in_background`]).
    pub check_store_in_background: bool,
}

impl Run {
    pub fn new(rules: Rules) -> Self {
        Self {
            rules,
            redactor: Redactor::empty(),
            config: AgentConfig::default(),
            resume: Resume::New,
            // The agent crate's tests have no sandbox launcher (the test
            // binary is not one); `shell` runs on the host here. The CLI's
            // tests run the real sandbox.
            profile: ExecutionProfile::new(SandboxMode::DangerFullAccess, ApprovalMode::Ask)
                .unwrap(),
            web: None,
            check_store_in_background: false,
        }
    }
}

/// Run one prompt in `world` against `model`; returns the outcome, the
/// events and the conversation id.
pub async fn run_prompt(
    world: &World,
    model: &ScriptedModel,
    run: Run,
    prompt: &str,
) -> (Outcome, Arc<CollectEvents>, String) {
    run_prompt_asking(world, model, run, prompt, &NoPerson).await
}

/// [`run_prompt`] with a person (`approver`) who answers the asks.
pub async fn run_prompt_asking(
    world: &World,
    model: &ScriptedModel,
    run: Run,
    prompt: &str,
    approver: &dyn ploy_agent::approve::Approver,
) -> (Outcome, Arc<CollectEvents>, String) {
    let events = Arc::new(CollectEvents::default());
    let store = if run.check_store_in_background {
        Store::open_checking_in_background(world.db()).unwrap()
    } else {
        world.store()
    };
    let setup = SessionSetup {
        store,
        project: world.project.clone(),
        rules: run.rules,
        profile: run.profile,
        redactor: run.redactor,
        web: run.web,
        model: ModelClient::from_url(&model.url(), "scripted").unwrap(),
        config: run.config,
        resume: run.resume,
        title: prompt.lines().next().unwrap_or("").to_string(),
        system_prompt: "system".into(),
        events: events.clone(),
        registry: builtin_registry().unwrap(),
        launcher: None,
        home: Some(world.home.clone()),
        ploy_folders: PloyFolders {
            config_dir: Some(world.dir.path().join("config")),
            state_dir: Some(world.state.clone()),
            trust_file: None,
            home: Some(world.home.clone()),
        },
    };
    let mut session = Session::open(setup).unwrap();
    let id = session.conversation_id().to_string();
    let outcome = session
        .prompt(prompt, approver, &CancellationToken::new())
        .await;
    (outcome, events, id)
}

/// True when `path` exists.
pub fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// Every tool result of a run: (ok, output), in order.
pub fn tool_results(events: &[ploy_agent::event::Event]) -> Vec<(bool, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            ploy_agent::event::Event::ToolResult { ok, output, .. } => Some((*ok, output.clone())),
            _ => None,
        })
        .collect()
}

/// From now on every mark write of `world`'s store fails (as on a full
/// disk), while messages are still stored: a trigger on the marks table.
pub fn fail_mark_writes(world: &World) {
    drop(world.store()); // the schema exists
    rusqlite::Connection::open(world.db())
        .unwrap()
        .execute_batch(
            "CREATE TRIGGER no_marks BEFORE INSERT ON taint_marks
             BEGIN SELECT RAISE(ABORT, 'the disk is full (test)'); END;",
        )
        .unwrap();
}
