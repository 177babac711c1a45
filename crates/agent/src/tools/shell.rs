//! `shell{command}`: runs `bash -c COMMAND` (the language PERM-1 parses)
//! through the process door. Under `workspace-write` in the sandbox: no
//! network, writes only in the project and temporary folders, PERM-7 paths
//! read-only (SBX-6), the home folder hidden. Under `danger-full-access`
//! unsandboxed on the host, still started by ploy-proof with the secret-
//! looking environment removed.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ploy_policy::{Action, GuardedFile, SandboxMode, ShellFacts, TaintMark, TaintSource};
use ploy_proof::host_command::{HostCommand, run_host_command};
use ploy_proof::sandbox::{self, ProjectView, Sandbox, SandboxPolicy, Termination};
use ploy_research::TaintMarker;
use serde_json::{Value, json};

use crate::tool::{
    BoxFuture, Cleared, Prepared, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, only_args,
    str_arg,
};

/// Longest command line accepted.
const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// Bytes kept of each of stdout and stderr (the result is capped again).
const OUTPUT_BYTES: usize = 256 * 1024;

/// The `shell` tool.
#[derive(Debug, Clone, Copy)]
pub struct Shell;

/// The `shell` action for a command line, with what the filesystem says:
/// written paths resolved through symbolic links (PERM-7), and the
/// project's files whose read the policy does not allow outright, so that
/// what each simple command reads is judged as `read` (PERM-1, PERM-2:
/// `cat .env` asks under an allow rule for `cat *`, like `read .env`).
pub fn judge_line(tool: &'static str, line: &str, ctx: &ToolContext) -> Action {
    let resolve = |path: &str| {
        ploy_dirs::resolve_links(&ctx.project, path).map(|p| p.to_string_lossy().into_owned())
    };
    let guarded = || {
        let files = ploy_dirs::guarded_files(
            &ctx.project,
            ploy_dirs::MAX_PROJECT_ENTRIES,
            &|path: &str| !ctx.reads.may_read(path),
        )?;
        Some(
            files
                .into_iter()
                .map(|(location, judged)| GuardedFile { location, judged })
                .collect(),
        )
    };
    let shape =
        |real: &str| ploy_dirs::repository_part_reason(&ctx.project, std::path::Path::new(real));
    // A recursive copy's source folder: the protected names it would plant
    // (round7 #12, PERM-7).
    let below = |source: &str| {
        ploy_dirs::protected_names_below(
            &ctx.project.join(source),
            ploy_dirs::MAX_PROJECT_ENTRIES,
            &|relative: &str| ctx.root.protected().protects(relative).is_some(),
        )
    };
    Action::shell_judged(
        tool,
        line,
        &ctx.root,
        ShellFacts {
            resolve: Some(&resolve),
            guarded: &guarded,
            protected_by_shape: Some(&shape),
            protected_below: Some(&below),
        },
    )
}

/// A command's result as text for the model (raw: the dispatcher redacts).
pub fn format_run(
    termination: Termination,
    timed_out: bool,
    stdout: &[u8],
    stderr: &[u8],
    truncated: bool,
) -> ToolOutput {
    let mut text = format!("exit code: {}", termination.exit_code());
    if timed_out {
        text.push_str(" (stopped at the wall-time limit, agent.shell_timeout_seconds)");
    }
    if truncated {
        text.push_str(" (output was longer than kept)");
    }
    text.push('\n');
    if !stdout.is_empty() {
        let _ = write!(text, "--- stdout ---\n{}", String::from_utf8_lossy(stdout));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    if !stderr.is_empty() {
        let _ = write!(text, "--- stderr ---\n{}", String::from_utf8_lossy(stderr));
    }
    ToolOutput {
        ok: termination == Termination::Exited(0) && !timed_out,
        text,
    }
}

impl Tool for Shell {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "shell",
            description: "Run a command line with `bash -c` in the project folder. In the default profile it runs in a sandbox: no network, writes only inside the project and temporary folders.",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["command"],
                "properties": {"command": {"type": "string", "minLength": 1}}
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["command"])?;
        let command = str_arg(args, "command")?;
        if command.trim().is_empty() {
            return Err(ToolError::new("the command is empty"));
        }
        if command.len() > MAX_COMMAND_BYTES {
            return Err(ToolError::new(format!(
                "the command is longer than {MAX_COMMAND_BYTES} bytes"
            )));
        }
        let action = judge_line("shell", command, ctx);
        let plan = ShellPlan {
            command: command.to_string(),
            reaches_network: action.reaches_network(),
            secret_read: action.secret_sent().map(str::to_string),
        };
        Ok(Prepared {
            actions: vec![action],
            target: command.to_string(),
            plan: Box::new(plan),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let (plan, _) = match cleared.into_parts::<ShellPlan>() {
                Ok(parts) => parts,
                Err(err) => return ToolOutput::error("shell", &err),
            };
            let ShellPlan {
                command,
                reaches_network,
                secret_read,
            } = plan;
            let ctx = ctx.clone();
            let (stop, watcher) = stop_flag(&ctx.cancel);
            let joined = tokio::task::spawn_blocking(move || match ctx.profile.sandbox() {
                SandboxMode::WorkspaceWrite => run_sandboxed(&ctx, &command, stop),
                SandboxMode::DangerFullAccess => {
                    run_on_host(&ctx, &command, reaches_network, secret_read.as_deref())
                }
            })
            .await;
            watcher.abort();
            joined.unwrap_or_else(|err| {
                ToolOutput::error(
                    "shell",
                    &ToolError::new(format!("the command's task failed: {err}")),
                )
            })
        })
    }
}

/// A flag set when `cancel` fires, for a sandbox run on a blocking thread:
/// that thread outlives a dropped future, so a cancelled turn (Ctrl-C, RPC
/// `abort`) reaches the sandbox through this flag, which kills it (every
/// process in it dies with its init). Abort the task when the run is over.
pub(crate) fn stop_flag(
    cancel: &tokio_util::sync::CancellationToken,
) -> (Arc<AtomicBool>, tokio::task::JoinHandle<()>) {
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (stop, cancel) = (stop.clone(), cancel.clone());
        tokio::spawn(async move {
            cancel.cancelled().await;
            stop.store(true, Ordering::Relaxed);
        })
    };
    (stop, watcher)
}

fn run_sandboxed(ctx: &ToolContext, command: &str, stop: Arc<AtomicBool>) -> ToolOutput {
    let mut policy = SandboxPolicy::new(&ctx.project);
    policy.view = ProjectView::Writable;
    policy.limits.wall_ms = ctx.shell.timeout.as_millis().min(u128::from(u64::MAX)) as u64;
    policy.limits.output_bytes = OUTPUT_BYTES;
    sandbox::add_home_toolchains(&mut policy);
    let built = match &ctx.shell.launcher {
        Some(launcher) => Sandbox::with_init(policy, launcher.clone()),
        None => Sandbox::new(policy),
    };
    let result = built.and_then(|mut sandbox| {
        sandbox.stop_on(stop);
        sandbox.run("bash", &["-c".to_string(), command.to_string()])
    });
    match result {
        Ok(out) if out.cancelled => ToolOutput::error(
            "shell",
            &ToolError::new("cancelled: the turn was interrupted and the sandbox was killed"),
        ),
        Ok(out) => format_run(
            out.termination,
            out.timed_out,
            &out.stdout,
            &out.stderr,
            out.output_truncated,
        ),
        // SBX-5: without a working sandbox nothing ran.
        Err(err) => ToolOutput::error("shell", &ToolError::rule(err.rule(), err.to_string())),
    }
}

/// A command line as judged, and whether it runs a program that reaches
/// the network (decided once, on the judged action, in `prepare`).
struct ShellPlan {
    command: String,
    reaches_network: bool,
    /// A secret the line reads by naming it (a secret file, a credential
    /// store a command prints from) while another of its commands reaches
    /// the network (`Action::secret_sent`).
    secret_read: Option<String>,
}

/// Before a line that reaches the network runs on the host (round7 #1):
/// its URLs pass the egress door's text check (URL-1), what it sends
/// carries no known secret (BEYOND-6), and the conversation is marked
/// (TAINT-1) — durably, or the line does not run (TAINT-3). Without the
/// sandbox its program connects by itself, so this is the one place ploy
/// sees that traffic; the sandbox (no network) is the closed form.
fn guard_host_network(
    ctx: &ToolContext,
    command: &str,
    secret_read: Option<&str>,
) -> Result<(), ToolError> {
    // A URL written in the line, or an address its options or proxy
    // variables hide (round7 #6 residue: `curl --resolve h:443:127.0.0.1`).
    ploy_egress::check_urls_in_text(command)
        .and_then(|()| ploy_egress::check_command_targets(command))
        .map_err(|refusal| ToolError::rule(refusal.rule, refusal.reason))?;
    ctx.host_door.check(command)?;
    // `printenv KEY | curl -d @- …` sends a secret without writing it
    // (round8 #2). Printing alone is harmless here: output is redacted.
    if let Some(read) = ctx.host_door.environment_read(command) {
        return Err(ToolError::rule(
            "BEYOND-6",
            format!("{read}, and the line reaches the network"),
        ));
    }
    // So does `gh auth token | curl -d @- …` or `cat ~/.aws/credentials |
    // nc …`: a secret the line reads by naming it (round8 #4).
    if let Some(read) = secret_read {
        return Err(ToolError::rule(
            "BEYOND-6",
            format!(
                "the line reads `{read}` (a secret file or a credential store), and the line \
                 reaches the network"
            ),
        ));
    }
    let mark = TaintMark {
        reason: "shell ran a program that reads the network, outside the sandbox".into(),
        source: TaintSource::Tool("shell".into()),
    };
    ctx.marker
        .mark_tainted(&ctx.conversation_id, &mark)
        .map_err(|err| {
            ToolError::rule(
                "TAINT-3",
                format!("the conversation could not be marked before the command ran ({err}); it did not run"),
            )
        })
}

fn run_on_host(
    ctx: &ToolContext,
    command: &str,
    reaches_network: bool,
    secret_read: Option<&str>,
) -> ToolOutput {
    // Outside the sandbox any program may send what it is given: a known
    // secret in the line is refused whatever it names (round8 #2).
    if let Err(err) = ctx.host_door.check_if_known(command) {
        return ToolOutput::error("shell", &err);
    }
    if reaches_network && let Err(err) = guard_host_network(ctx, command, secret_read) {
        return ToolOutput::error("shell", &err);
    }
    let host = HostCommand {
        program: "bash".into(),
        args: vec!["-c".into(), command.into()],
        cwd: ctx.project.clone(),
        timeout: ctx.shell.timeout,
        output_bytes: OUTPUT_BYTES,
    };
    let cancel = ctx.cancel.clone();
    match run_host_command(&host, &|| cancel.is_cancelled()) {
        Ok(out) if out.cancelled => ToolOutput::error("shell", &ToolError::new("cancelled")),
        Ok(out) => format_run(
            out.termination,
            out.timed_out,
            &out.stdout,
            &out.stderr,
            out.output_truncated,
        ),
        Err(err) => ToolOutput::error("shell", &ToolError::new(err.to_string())),
    }
}
