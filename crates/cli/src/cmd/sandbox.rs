//! `ploy proof run`, `ploy sandbox run`, `ploy plan check`, `ploy doctor`
//!
//! Thin: the sandbox, the proof runner and the plan live in `ploy-proof`.
//! Every output the sandboxed program produced is redacted before printing.
//!
//! Proofs (`proof run`, `plan check`) see the project copy-on-write, its
//! `target/` included: nothing they write lands in it. Build output goes to
//! the project's build cache under ploy's state folder (`build-cache/`),
//! outside every project, so builds stay incremental and the host never runs
//! what a proof built (BEYOND-4). The settings are still read first so that a
//! malformed file, or one that still sets the removed `proof.writable_dirs`,
//! stops the proof (CONFIG-1). Trust is decided without a question (these
//! commands never prompt).

use std::io::IsTerminal;
use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use ploy_proof::{
    plan::{PlanStep, StepReport, check_plan, load_plan},
    proof_run::{ProofOutcome, run_proof},
    sandbox::{self, LayerState, ProjectView, RunOutput, Sandbox, SandboxError, SandboxPolicy},
};
use ploy_secrets::{Redactor, SecretSet};
use ploy_trust::{LoadOptions, PloyDirs, ScriptedPrompt, UiMode, load_project};

/// Exit code when the sandbox itself could not run the program (as `env`
/// and container runtimes do); the program's own codes pass through otherwise.
pub const SANDBOX_FAILED_EXIT: u8 = 125;

/// Arguments of `ploy proof run`.
#[derive(Debug, clap::Args)]
pub struct ProofRunArgs {
    /// The proof line to validate and run.
    pub line: String,
    /// Project folder (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy sandbox run`.
#[derive(Debug, clap::Args)]
pub struct SandboxRunArgs {
    /// Project folder (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<String>,
}

/// Arguments of `ploy plan check`.
#[derive(Debug, clap::Args)]
pub struct PlanCheckArgs {
    /// Project folder (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ploy doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Project folder to check for files proofs cannot edit (default: the
    /// current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

fn project_dir(project: Option<PathBuf>) -> PathBuf {
    project
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The secrets of a run in `project` (REDACT-1): what `known_secrets`
/// knows — the environment, the project's `.env` files and configuration
/// credentials, settings `secrets` — read *before* the program runs (a
/// writable run could delete `.env` first). An unreadable source or
/// settings file is an error: output is not shown unredacted.
fn run_secrets(project: &Path) -> Result<SecretSet, String> {
    let dirs = PloyDirs::from_env().map_err(|e| e.to_string())?;
    let user = ploy_trust::load_user_settings(&dirs).map_err(|e| e.to_string())?;
    ploy_research::command::run_secrets(Some(project), user.settings.as_ref())
        .map_err(|e| e.to_string())
}

fn report_error(command: &str, err: &SandboxError, json: bool) -> ExitCode {
    if json {
        println!(
            "{}",
            serde_json::json!({"error": err.to_string(), "rule": err.rule()})
        );
    } else {
        eprintln!("ploy {command}: {err}");
        eprintln!("hint: `ploy doctor` shows which sandbox layers work on this machine");
    }
    ExitCode::from(SANDBOX_FAILED_EXIT)
}

fn sandbox_for(
    project: &Path,
    view: ProjectView,
    build_cache_root: Option<PathBuf>,
) -> Result<Sandbox, SandboxError> {
    let mut policy = SandboxPolicy::new(project);
    policy.view = view;
    policy.build_cache_root = build_cache_root;
    // rustup and cargo's installed tools and downloaded crates, read-only
    // (never cargo's config.toml or credentials), so `cargo test` proofs
    // work while the home folder stays hidden.
    sandbox::add_home_toolchains(&mut policy);
    let mut sandbox = Sandbox::new(policy)?;
    // Ctrl-C (or SIGTERM, SIGHUP) stops the run, not ploy: the PERM-7
    // paths the program created are still moved aside and reported (SBX-6),
    // the run's build cache still removed (BEYOND-4).
    sandbox.stop_on_signals()?;
    Ok(sandbox)
}

/// Where proofs keep build output: ploy's state folder's `build-cache/`,
/// after checking the settings. A malformed settings file, or one that still
/// sets the removed `proof.writable_dirs`, is an error (CONFIG-1), never a
/// silent default.
fn proof_build_cache(project: &Path) -> Result<PathBuf, String> {
    let dirs = PloyDirs::from_env().map_err(|err| err.to_string())?;
    let mut options = LoadOptions::new(project);
    // No question is ever asked here (no TTY); context files are not needed.
    options.mode = UiMode::Interactive;
    options.stdin_is_tty = false;
    options.context_files = false;
    // Should the resolver ever ask anyway, the answer is an error: not trusted.
    let mut prompt = ScriptedPrompt::failing("proofs never ask about trust");
    load_project(&dirs, &options, &mut prompt).map_err(|err| err.to_string())?;
    Ok(dirs.state.join("build-cache"))
}

fn report_settings_error(command: &str, err: &str, json: bool) -> ExitCode {
    if json {
        println!("{}", serde_json::json!({"error": err, "rule": "CONFIG-1"}));
    } else {
        eprintln!("ploy {command}: {err}");
        eprintln!("hint: fix the settings file named above (`ploy config check` validates it)");
    }
    ExitCode::from(1)
}

/// `ploy proof run`: exit 0 passed, 1 failed or refused.
pub fn proof_run(args: ProofRunArgs) -> ExitCode {
    let project = project_dir(args.project);
    let redactor = match run_secrets(&project) {
        Ok(secrets) => secrets.redactor(),
        Err(err) => return report_settings_error("proof run", &err, args.json),
    };
    let cache = match proof_build_cache(&project) {
        Ok(cache) => cache,
        Err(err) => return report_settings_error("proof run", &err, args.json),
    };
    let sandbox = match sandbox_for(&project, ProjectView::CopyOnWrite, Some(cache)) {
        Ok(sandbox) => sandbox,
        Err(err) => return report_error("proof run", &err, args.json),
    };
    let report = run_proof(&sandbox, &args.line, &redactor);
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&report).unwrap_or_else(|err| format!("{{\"error\":\"{err}\"}}"))
        );
    } else {
        // Through print!, so a closed stdout ends quietly (crate::out).
        print!(
            "{}",
            on_screen(&report.stdout, std::io::stdout().is_terminal())
        );
        eprint!(
            "{}",
            on_screen(&report.stderr, std::io::stderr().is_terminal())
        );
        for note in &report.notes {
            eprintln!("note: {}", on_screen(note, std::io::stderr().is_terminal()));
        }
        match report.verdict {
            ProofOutcome::Passed => eprintln!("proof passed ({} ms)", report.time_ms),
            ProofOutcome::Failed => {
                eprintln!(
                    "ploy proof run: {} ({} ms)",
                    report.summary(),
                    report.time_ms
                )
            }
            ProofOutcome::Refused => {
                eprintln!("ploy proof run: refused, nothing was run");
                for hit in &report.refusals {
                    eprintln!("{}: {}", hit.rule, one_line(&hit.detail));
                }
                eprintln!(
                    "hint: `ploy check proof 'LINE'` explains the rules; `ploy doctor` checks the sandbox"
                );
            }
        }
    }
    if report.verdict == ProofOutcome::Passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `ploy sandbox run`: the program's exit status (125 when the sandbox failed).
pub fn sandbox_run(args: SandboxRunArgs) -> ExitCode {
    let project = project_dir(args.project);
    let Some((program, rest)) = args.command.split_first() else {
        eprintln!("ploy sandbox run: missing PROGRAM after --");
        return ExitCode::from(2);
    };
    let secrets = match run_secrets(&project) {
        Ok(secrets) => secrets,
        Err(err) => return report_settings_error("sandbox run", &err, args.json),
    };
    // The shell tool's sandbox: the project is writable (its PERM-7 paths
    // stay read-only), the rest is not.
    let sandbox = match sandbox_for(&project, ProjectView::Writable, None) {
        Ok(sandbox) => sandbox,
        Err(err) => return report_error("sandbox run", &err, args.json),
    };
    let out = match sandbox.run(program, rest) {
        Ok(out) => out,
        Err(err) => return report_error("sandbox run", &err, args.json),
    };
    // Compiling the redactor is the costly part; skip it when there is
    // nothing to redact (the common `-- true` case).
    let redactor = if out.stdout.is_empty() && out.stderr.is_empty() && out.notes.is_empty() {
        Redactor::empty()
    } else {
        secrets.redactor()
    };
    let notes: Vec<String> = out
        .notes
        .iter()
        .map(|note| redactor.redact(note).into_owned())
        .collect();
    let stdout = redactor
        .redact(&String::from_utf8_lossy(&out.stdout))
        .into_owned();
    let stderr = redactor
        .redact(&String::from_utf8_lossy(&out.stderr))
        .into_owned();
    let code = out.termination.exit_code();
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "exit_code": code,
                "termination": out.termination,
                "timed_out": out.timed_out,
                "time_ms": out.duration.as_millis() as u64,
                "stdout": stdout,
                "stderr": stderr,
                "output_truncated": out.output_truncated,
                "memory_exceeded": out.memory_exceeded,
                "notes": notes,
            })
        );
    } else {
        print!("{}", on_screen(&stdout, std::io::stdout().is_terminal()));
        eprint!("{}", on_screen(&stderr, std::io::stderr().is_terminal()));
        report_limits("sandbox run", &out);
        for note in &notes {
            eprintln!("ploy sandbox run: {note}");
        }
    }
    ExitCode::from(code.clamp(0, 255) as u8)
}

/// The program's output as it may reach a terminal: every control
/// character but newline, tab and carriage return shown in caret notation
/// (`ESC` as `^[`), C1 controls as `\u{9b}`. Found attacking the sandbox: a
/// failing proof printed a fake "proof passed", then concealed ploy's real
/// verdict line (`ESC[8m`), and OSC 52 could write the user's clipboard.
/// Output into a pipe or file is left as the program wrote it.
fn on_screen(text: &str, terminal: bool) -> std::borrow::Cow<'_, str> {
    if !terminal {
        return std::borrow::Cow::Borrowed(text);
    }
    ploy_text::escape_for_screen(text, |c| !c.is_control() || matches!(c, '\n' | '\t' | '\r'))
}

/// Model-written text (a plan step's title, a proof line, a refusal that
/// quotes it) as one line a person reads, on a terminal or in a file: every
/// character [`ploy_text::is_shown`] rejects, newline and carriage return
/// included, escaped. Found attacking the sandbox (proof5 #8): a title
/// holding `ESC[8m` concealed ploy's real verdict, `\r ESC[2K` overwrote a
/// line with a fake "passed", OSC 52 wrote the clipboard. The verdicts
/// themselves are ploy's own words.
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    ploy_text::escape_for_screen(text, ploy_text::is_shown)
}

/// Says which limit stopped a run, if one did.
fn report_limits(command: &str, out: &RunOutput) {
    if out.cancelled {
        eprintln!("ploy {command}: interrupted: the sandbox was stopped");
    }
    if out.timed_out {
        eprintln!("ploy {command}: stopped at the wall-time limit");
    }
    if out.memory_exceeded {
        eprintln!(
            "ploy {command}: stopped at the memory limit (the sandbox's processes in total, SBX-5)"
        );
    }
}

/// `ploy plan check`: exit 0 only when every step passes.
pub fn plan_check(args: PlanCheckArgs) -> ExitCode {
    let project = project_dir(args.project);
    let plan = match load_plan(&project) {
        Ok(plan) => plan,
        Err(err) => {
            if args.json {
                println!("{}", serde_json::json!({"error": err.to_string()}));
            } else {
                eprintln!("ploy plan check: {err}");
                eprintln!(
                    "hint: each step is {{\"title\": \"...\", \"proof\": \"one check, e.g. cargo test -q\"}}"
                );
            }
            return ExitCode::from(1);
        }
    };
    let redactor = match run_secrets(&project) {
        Ok(secrets) => secrets.redactor(),
        Err(err) => return report_settings_error("plan check", &err, args.json),
    };
    let cache = match proof_build_cache(&project) {
        Ok(cache) => cache,
        Err(err) => return report_settings_error("plan check", &err, args.json),
    };
    let sandbox = match sandbox_for(&project, ProjectView::CopyOnWrite, Some(cache)) {
        Ok(sandbox) => sandbox,
        Err(err) => return report_error("plan check", &err, args.json),
    };
    let total = plan.steps.len();
    let mut progress = |number: usize, step: &PlanStep, done: Option<&StepReport>| match done {
        None => eprint!("[{number}/{total}] {} ... ", one_line(&step.title)),
        Some(report) => eprintln!(
            "{} ({} ms)",
            report.proof.verdict.as_str(),
            report.proof.time_ms
        ),
    };
    let report = check_plan(&sandbox, &plan, &redactor, &mut progress);
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&report).unwrap_or_else(|err| format!("{{\"error\":\"{err}\"}}"))
        );
    } else {
        print!("{}", plan_table(&report.steps));
        let passed = report
            .steps
            .iter()
            .filter(|s| s.proof.verdict == ProofOutcome::Passed)
            .count();
        println!("{passed}/{total} steps passed");
    }
    if report.all_passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let mut clipped: String = text.chars().take(width.saturating_sub(1)).collect();
        clipped.push('…');
        clipped
    }
}

/// The plan table: step, proof, result (with the rule when refused), time.
fn plan_table(steps: &[StepReport]) -> String {
    let mut rows = vec![[
        "STEP".to_string(),
        "PROOF".to_string(),
        "RESULT".to_string(),
        "TIME".to_string(),
    ]];
    for step in steps {
        let result = match step.proof.verdict {
            ProofOutcome::Refused => format!("refused ({})", step.proof.rules.join(", ")),
            ProofOutcome::Failed if step.proof.timed_out => "failed (time limit)".to_string(),
            ProofOutcome::Failed => {
                format!("failed (exit {})", step.proof.exit_code.unwrap_or(-1))
            }
            ProofOutcome::Passed => "passed".to_string(),
        };
        rows.push([
            clip(&format!("{}. {}", step.step, one_line(&step.title)), 40),
            clip(&one_line(&step.proof.line), 50),
            result,
            format!("{} ms", step.proof.time_ms),
        ]);
    }
    let mut widths = [0usize; 4];
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| format!("{cell:<width$}", width = widths[i]))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// A warning when the project holds a file owned by a user or group the
/// sandbox's user namespace cannot map: a proof that edits it fails.
fn unmapped_owner_warning(project: &Path) -> Option<String> {
    let (path, uid, gid) = sandbox::unmapped_owner(project)?;
    Some(format!(
        "{} belongs to uid {uid} / gid {gid}, which the sandbox cannot map (only your own user \
         and group are); a proof that edits such a file fails with EOVERFLOW (\"Value too \
         large for defined data type\") when the copy-on-write layer copies it. Fix: chown or \
         chgrp the project's files to yourself (e.g. `chgrp -R \"$(id -g)\" {}`)",
        sandbox::shown_path(&path),
        sandbox::shown_path(project)
    ))
}

/// `ploy doctor`: exit 0 when proofs can run here, 1 when not.
pub fn doctor(args: DoctorArgs) -> ExitCode {
    let report = sandbox::probe();
    let can_run = report.can_run();
    let project = project_dir(args.project);
    let ownership = unmapped_owner_warning(&project);
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "proofs_can_run": can_run,
                "landlock_abi": report.landlock_abi,
                "running_as_root": report.running_as_root,
                "memory_limit": report.memory_mechanism,
                "layers": report.layers,
                "project_warnings": ownership.iter().collect::<Vec<_>>(),
            })
        );
    } else {
        for status in &report.layers {
            let state = match status.state {
                LayerState::Ok => "ok",
                LayerState::Missing => "MISSING",
                LayerState::NotChecked => "not checked",
            };
            println!(
                "{:<16} {:<12} {}",
                status.layer.name(),
                state,
                status.detail
            );
            if status.state == LayerState::Missing {
                println!(
                    "{:<16} {:<12} to enable: {}",
                    "",
                    "",
                    status.layer.how_to_enable()
                );
            }
        }
        println!("landlock ABI     {}", report.landlock_abi);
        println!("memory limit     {}", report.memory_mechanism);
        if report.running_as_root {
            println!(
                "warning: running as root; the kernel does not enforce the process-count limit for root, run ploy as a normal user"
            );
        }
        if let Some(warning) = &ownership {
            println!("warning: {warning}");
        }
        println!(
            "proofs can run:  {}",
            if can_run {
                "yes"
            } else {
                "no (SBX-5: nothing runs until every layer is ok)"
            }
        );
    }
    if can_run {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: PROOF-6 (the plan table shows every proof, cut visibly)
    #[test]
    fn clip_keeps_short_text_and_marks_cut_text() {
        assert_eq!(clip("abc", 5), "abc");
        assert_eq!(clip("abcdefgh", 5), "abcd…");
    }

    // proves: SBX-5 (the verdict on screen cannot be forged or hidden by the
    // program's escape sequences)
    #[test]
    fn escape_sequences_never_reach_a_terminal_raw() {
        let attack = "proof passed (61 ms)\n\u{1b}[8m\u{1b}[30;40m\n\u{1b}]52;c;ZXZpbA==\u{7}\u{9b}2J\u{7f}x\tok\r\n";
        let shown = on_screen(attack, true);
        assert!(
            !shown
                .chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
        );
        assert_eq!(
            shown,
            "proof passed (61 ms)\n^[[8m^[[30;40m\n^[]52;c;ZXZpbA==^G\\u{9b}2J^?x\tok\r\n"
        );
        assert_eq!(
            on_screen(attack, false),
            attack,
            "a pipe gets the bytes as written"
        );
        assert!(matches!(
            on_screen("plain\n", true),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
