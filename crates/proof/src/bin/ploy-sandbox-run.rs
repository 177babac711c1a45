//! A small driver for the sandbox, used by ploy-proof's own tests and
//! benchmarks. It serves as its own sandbox init (production uses the
//! dedicated `ploy-sandbox-init` next to `ploy`).
//!
//! `ploy-sandbox-run [--project DIR] [--writable-project] [--build-cache ROOT]
//!  [--extra-read-only DIR]... [--toolchains] [--limit NAME=VALUE]...
//!  [--simulate-missing LAYER]... [--probe]
//!  [--plan PLAN_JSON | -- PROGRAM ARGS...]`
//! prints one JSON object: the run's result or the refusal. `--plan` runs a
//! `ploy_validate::ProofPlan` (as JSON) through [`Sandbox::run_plan`].

use std::{path::PathBuf, process::ExitCode};

use ploy_proof::sandbox::{self, Layer, Limits, ProjectView, Sandbox, SandboxPolicy};
use ploy_validate::ProofPlan;

fn layer_named(name: &str) -> Option<Layer> {
    Layer::PROBED.into_iter().find(|layer| layer.name() == name)
}

fn set_limit(limits: &mut Limits, spec: &str) -> Result<(), String> {
    let (name, value) = spec.split_once('=').ok_or(format!("bad limit {spec}"))?;
    let value: u64 = value
        .parse()
        .map_err(|_| format!("bad limit value {spec}"))?;
    match name {
        "wall_ms" => limits.wall_ms = value,
        "cpu_seconds" => limits.cpu_seconds = value,
        "memory_bytes" => limits.memory_bytes = value,
        "processes" => limits.processes = value,
        "file_size_bytes" => limits.file_size_bytes = value,
        "tmp_bytes" => limits.tmp_bytes = value,
        "overlay_bytes" => limits.overlay_bytes = value,
        "build_cache_bytes" => limits.build_cache_bytes = value,
        "build_cache_inodes" => limits.build_cache_inodes = value,
        "output_bytes" => limits.output_bytes = value as usize,
        _ => return Err(format!("unknown limit {name}")),
    }
    Ok(())
}

fn main() -> ExitCode {
    if let Some(code) = sandbox::init_entry_if_requested() {
        return code;
    }
    let mut args = std::env::args().skip(1);
    let mut policy = SandboxPolicy::new(std::env::current_dir().unwrap_or_default());
    let mut writable_project = false;
    let mut simulate = Vec::new();
    let mut probe = false;
    let mut plan: Option<ProofPlan> = None;
    let mut command = Vec::new();
    while let Some(arg) = args.next() {
        let result = match arg.as_str() {
            "--project" => args
                .next()
                .map(|v| policy.project = PathBuf::from(v))
                .ok_or("--project DIR".to_string()),
            "--writable-project" => {
                writable_project = true;
                Ok(())
            }
            "--build-cache" => args
                .next()
                .map(|v| policy.build_cache_root = Some(PathBuf::from(v)))
                .ok_or("--build-cache ROOT".to_string()),
            "--limit" => args
                .next()
                .ok_or("--limit NAME=VALUE".to_string())
                .and_then(|v| set_limit(&mut policy.limits, &v)),
            "--simulate-missing" => args
                .next()
                .and_then(|v| layer_named(&v))
                .map(|layer| simulate.push(layer))
                .ok_or("--simulate-missing LAYER".to_string()),
            "--extra-read-only" => args
                .next()
                .map(|v| policy.extra_read_only.push(PathBuf::from(v)))
                .ok_or("--extra-read-only DIR".to_string()),
            "--toolchains" => {
                sandbox::add_home_toolchains(&mut policy);
                Ok(())
            }
            "--plan" => args
                .next()
                .ok_or("--plan PLAN_JSON".to_string())
                .and_then(|v| serde_json::from_str(&v).map_err(|err| format!("bad plan: {err}")))
                .map(|parsed| plan = Some(parsed)),
            "--probe" => {
                probe = true;
                Ok(())
            }
            "--" => {
                command.extend(args.by_ref());
                Ok(())
            }
            other => Err(format!("unknown argument {other}")),
        };
        if let Err(message) = result {
            eprintln!("ploy-sandbox-run: {message}");
            return ExitCode::from(2);
        }
    }
    policy.view = if writable_project {
        ProjectView::Writable
    } else {
        ProjectView::CopyOnWrite
    };
    let init = std::env::current_exe().unwrap_or_default();
    let mut sandbox = match Sandbox::with_init(policy, init) {
        Ok(sandbox) => sandbox,
        Err(err) => {
            println!(
                "{}",
                serde_json::json!({"error": err.to_string(), "rule": err.rule()})
            );
            return ExitCode::SUCCESS;
        }
    };
    for layer in simulate {
        sandbox.simulate_missing_layer(layer);
    }
    if probe {
        let report = sandbox.probe();
        println!(
            "{}",
            serde_json::json!({"can_run": report.can_run(), "probe": report})
        );
        return ExitCode::SUCCESS;
    }
    let result = match (&plan, command.split_first()) {
        (Some(plan), None) => sandbox.run_plan(plan),
        (None, Some((program, rest))) => sandbox.run(program, rest),
        _ => {
            eprintln!("ploy-sandbox-run: give either --plan PLAN_JSON or -- PROGRAM");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(out) => println!(
            "{}",
            serde_json::json!({
                "exit_code": out.termination.exit_code(),
                "termination": out.termination,
                "timed_out": out.timed_out,
                "stdout": String::from_utf8_lossy(&out.stdout),
                "stderr": String::from_utf8_lossy(&out.stderr),
                "truncated": out.output_truncated,
                "memory_exceeded": out.memory_exceeded,
                "notes": out.notes,
                "ms": out.duration.as_millis() as u64,
            })
        ),
        Err(err) => println!(
            "{}",
            serde_json::json!({"error": err.to_string(), "rule": err.rule()})
        ),
    }
    ExitCode::SUCCESS
}
