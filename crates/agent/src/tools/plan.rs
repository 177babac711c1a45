//! `plan_add_step{title, proof}` and `plan_check{}`: the project plan
//! (`.ploy/plan.json`). Adding a step validates its proof line first
//! (PROOF-1..5) and writes ploy's own plan file in its own format: the one
//! write under `.ploy/` that is not always-ask (the PERM-7 exception, a
//! distinct action). Checking runs every proof in the sandbox, the project
//! copy-on-write (BEYOND-4).

use std::fmt::Write as _;

use ploy_policy::Action;
use ploy_proof::plan::{PLAN_FILE, Plan, PlanStep, check_plan, load_plan};
use ploy_proof::proof_run::ProofOutcome;
use ploy_proof::sandbox::{self, Sandbox, SandboxPolicy};
use ploy_validate::{ProofVerdict, validate};
use serde_json::{Value, json};

use crate::tool::{
    BoxFuture, Cleared, Prepared, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, only_args,
    str_arg,
};
use crate::tools::paths::write_atomic;

/// The plan file's path, once its folder and the file itself are known not to
/// be symbolic links (nor anything but a folder and a regular file): a `.ploy`
/// linked out of the project would carry the plan tool's write, the one
/// write under `.ploy/` an allow rule covers, to a folder outside it with no
/// `external_directory` question (PERM-1, PERM-7; found attacking the agent
/// as a hostile model). A path that cannot be inspected is refused.
fn plan_file_in_project(project: &std::path::Path) -> Result<std::path::PathBuf, ToolError> {
    let folder = project.join(".ploy");
    let path = project.join(PLAN_FILE);
    for (shown, candidate, want_dir) in [(".ploy", &folder, true), (PLAN_FILE, &path, false)] {
        match std::fs::symlink_metadata(candidate) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(ToolError::rule(
                    "PERM-7",
                    format!(
                        "`{shown}` is a symbolic link; ploy's plan is only read and written in a real \
                     `.ploy` folder of the project (PERM-7)"
                    ),
                ));
            }
            Ok(meta) if want_dir && !meta.is_dir() => {
                return Err(ToolError::rule(
                    "PERM-7",
                    format!("`{shown}` is not a folder (PERM-7)"),
                ));
            }
            Ok(meta) if !want_dir && !meta.is_file() => {
                return Err(ToolError::rule(
                    "PERM-7",
                    format!("`{shown}` is not a regular file (PERM-7)"),
                ));
            }
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => break,
            Err(err) => {
                return Err(ToolError::rule(
                    "PERM-7",
                    format!("cannot inspect `{shown}`, so the plan is left alone: {err} (PERM-7)"),
                ));
            }
        }
    }
    Ok(path)
}

/// Longest step title.
const MAX_TITLE_CHARS: usize = 200;

/// `plan_add_step{title, proof}`.
#[derive(Debug, Clone, Copy)]
pub struct PlanAddStep;

impl Tool for PlanAddStep {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "plan_add_step",
            description: "Add a step to the project plan (.ploy/plan.json): a title and a one-line proof command that passes when the step is done (e.g. `cargo test -q parser`). The proof is validated: no network, no deleting, no absolute paths, no command that proves nothing.",
            parameters: json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["title", "proof"],
                "properties": {
                    "title": {"type": "string", "minLength": 1, "maxLength": MAX_TITLE_CHARS},
                    "proof": {"type": "string", "minLength": 1, "maxLength": 400}
                }
            }),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &["title", "proof"])?;
        let title = str_arg(args, "title")?.trim();
        if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS || title.contains('\n') {
            return Err(ToolError::new(format!(
                "the title must be one line of 1 to {MAX_TITLE_CHARS} characters"
            )));
        }
        let proof = str_arg(args, "proof")?;
        if let ProofVerdict::Refused { refusals } = validate(proof) {
            let reasons: Vec<String> = refusals
                .iter()
                .map(|r| format!("{}: {}", r.rule, r.detail))
                .collect();
            let rule = refusals.first().map(|r| r.rule).unwrap_or("PROOF-1");
            return Err(ToolError::rule(
                rule,
                format!("the proof line was refused: {}", reasons.join("; ")),
            ));
        }
        Ok(Prepared {
            actions: vec![Action::plan_file("plan_add_step", &ctx.root)],
            target: format!("{PLAN_FILE}: {title} — proof: {proof}"),
            plan: Box::new(PlanStep {
                title: title.to_string(),
                proof: proof.to_string(),
            }),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let (step, _) = match cleared.into_parts::<PlanStep>() {
                Ok(parts) => parts,
                Err(err) => return ToolOutput::error("plan_add_step", &err),
            };
            let path = match plan_file_in_project(&ctx.project) {
                Ok(path) => path,
                Err(err) => return ToolOutput::error("plan_add_step", &err),
            };
            let mut plan = if path.exists() {
                match load_plan(&ctx.project) {
                    Ok(plan) => plan,
                    Err(err) => {
                        return ToolOutput::error(
                            "plan_add_step",
                            &ToolError::new(format!(
                                "the existing plan cannot be read, so it is left as it is: {err}"
                            )),
                        );
                    }
                }
            } else {
                Plan { steps: Vec::new() }
            };
            plan.steps.push(step);
            let text = match serde_json::to_string_pretty(&plan) {
                Ok(text) => text + "\n",
                Err(err) => {
                    return ToolOutput::error("plan_add_step", &ToolError::new(err.to_string()));
                }
            };
            if let Err(err) = write_atomic(&ctx.project, &path, text.as_bytes()) {
                return ToolOutput::error(
                    "plan_add_step",
                    &ToolError::new(format!("cannot write {PLAN_FILE}: {err}")),
                );
            }
            ToolOutput::ok(format!("added step {} to {PLAN_FILE}", plan.steps.len()))
        })
    }
}

/// `plan_check{}`.
#[derive(Debug, Clone, Copy)]
pub struct PlanCheck;

impl Tool for PlanCheck {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "plan_check",
            description: "Run every step's proof of the project plan in the sandbox (no network; the project is copy-on-write, so proofs change nothing) and report which pass.",
            parameters: json!({"type": "object", "additionalProperties": false, "properties": {}}),
        }
    }

    fn prepare(&self, args: &Value, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        only_args(args, &[])?;
        plan_file_in_project(&ctx.project)?;
        let plan = load_plan(&ctx.project).map_err(|err| ToolError::new(err.to_string()))?;
        // The proofs are commands: one `shell` action over every line, so
        // each simple command is a unit rules and approvals must cover.
        let lines: Vec<&str> = plan.steps.iter().map(|s| s.proof.as_str()).collect();
        let joined = lines.join("\n");
        Ok(Prepared {
            actions: vec![
                Action::read("plan_check", PLAN_FILE, &ctx.root),
                crate::tools::shell::judge_line("plan_check", &joined, ctx),
            ],
            target: joined,
            plan: Box::new(plan),
        })
    }

    fn run<'a>(&'a self, cleared: Cleared, ctx: &'a ToolContext) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let (plan, _) = match cleared.into_parts::<Plan>() {
                Ok(parts) => parts,
                Err(err) => return ToolOutput::error("plan_check", &err),
            };
            let ctx = ctx.clone();
            let (stop, watcher) = super::shell::stop_flag(&ctx.cancel);
            let joined = tokio::task::spawn_blocking(move || {
                let mut policy = SandboxPolicy::new(&ctx.project);
                sandbox::add_home_toolchains(&mut policy);
                let built = match &ctx.shell.launcher {
                    Some(launcher) => Sandbox::with_init(policy, launcher.clone()),
                    None => Sandbox::new(policy),
                };
                let sandbox = match built {
                    Ok(mut sandbox) => {
                        sandbox.stop_on(stop);
                        sandbox
                    }
                    Err(err) => {
                        return ToolOutput::error(
                            "plan_check",
                            &ToolError::rule(err.rule(), err.to_string()),
                        );
                    }
                };
                // The dispatcher redacts the whole result; no second redactor here.
                let redactor = ploy_secrets::Redactor::empty();
                let report = check_plan(&sandbox, &plan, &redactor, &mut |_, _, _| {});
                let mut out = String::new();
                for step in &report.steps {
                    let _ = writeln!(
                        out,
                        "step {} {}: {} ({})",
                        step.step,
                        step.title,
                        step.proof.verdict.as_str(),
                        step.proof.summary()
                    );
                    if step.proof.verdict != ProofOutcome::Passed {
                        for text in [&step.proof.stdout, &step.proof.stderr] {
                            if !text.is_empty() {
                                let tail: String = text
                                    .chars()
                                    .rev()
                                    .take(2000)
                                    .collect::<Vec<_>>()
                                    .into_iter()
                                    .rev()
                                    .collect();
                                let _ = writeln!(out, "{tail}");
                            }
                        }
                    }
                }
                let _ = writeln!(
                    out,
                    "{}",
                    if report.all_passed {
                        "all steps pass"
                    } else {
                        "not every step passes"
                    }
                );
                ToolOutput {
                    ok: report.all_passed,
                    text: out,
                }
            })
            .await;
            watcher.abort();
            joined.unwrap_or_else(|err| {
                ToolOutput::error(
                    "plan_check",
                    &ToolError::new(format!("the check's task failed: {err}")),
                )
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::plan_file_in_project;

    // proves: PERM-7 (the plan tool's exception stays inside the project)
    #[test]
    fn a_linked_plan_folder_or_file_is_refused() {
        let root = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        let project = root.path();

        // No .ploy yet: the plan may be created.
        assert!(plan_file_in_project(project).is_ok());

        // `.ploy` linked out of the project.
        std::os::unix::fs::symlink(outside.path(), project.join(".ploy")).expect("link");
        let err = plan_file_in_project(project).expect_err("linked .ploy refused");
        assert!(err.message.contains("symbolic link"), "{}", err.message);
        std::fs::remove_file(project.join(".ploy")).expect("unlink");

        // A real `.ploy` whose plan.json is a link.
        std::fs::create_dir(project.join(".ploy")).expect("mkdir");
        std::os::unix::fs::symlink(
            outside.path().join("victim"),
            project.join(".ploy/plan.json"),
        )
        .expect("link");
        let err = plan_file_in_project(project).expect_err("linked plan.json refused");
        assert!(err.message.contains("symbolic link"), "{}", err.message);
        std::fs::remove_file(project.join(".ploy/plan.json")).expect("unlink");

        // A folder in the plan file's place.
        std::fs::create_dir(project.join(".ploy/plan.json")).expect("mkdir");
        assert!(plan_file_in_project(project).is_err());
        std::fs::remove_dir(project.join(".ploy/plan.json")).expect("rmdir");

        // The ordinary case.
        std::fs::write(project.join(".ploy/plan.json"), "{\"steps\": []}").expect("write");
        let path = plan_file_in_project(project).expect("a real plan is fine");
        assert_eq!(path, project.join(".ploy/plan.json"));
    }
}
