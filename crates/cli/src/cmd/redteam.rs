//! `ploy redteam [--json] [--scenario NAME]... [--mode FACE]... [--jobs N]`:
//! runs the attack scenarios of `ploy-redteam` (all but the known gaps,
//! unless named) against this binary, in a
//! private user + network namespace this process enters first. Exit 0 when
//! every attack was stopped by its rule and every twin completed, 1 when
//! not, 2 on a usage error, 3 when it cannot run here (no namespaces).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use ploy_redteam::report;
use ploy_redteam::run::{Mode, Plan};

/// A face of the agent to run the scenarios in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Face {
    /// `ploy -p` (text).
    Print,
    /// `ploy -p --mode json`.
    Json,
    /// `ploy --mode rpc` with a scripted person (`reject` to attacks' asks,
    /// `once` to twins').
    Rpc,
    /// `ploy hook claude-code` in front of a scripted Claude Code.
    Hook,
    /// `ploy mcp` over stdio with a scripted MCP client.
    Mcp,
}

/// Arguments of `ploy redteam`.
#[derive(Debug, Args)]
pub struct RedteamArgs {
    /// Print one JSON object per scenario and face instead of the table.
    #[arg(long)]
    json: bool,
    /// Run only this scenario (repeatable; `--list` names them).
    #[arg(long = "scenario", value_name = "NAME")]
    scenarios: Vec<String>,
    /// Run only in this face (repeatable; default: every face).
    #[arg(long = "mode", value_name = "FACE")]
    modes: Vec<Face>,
    /// Runs at once (default: the number of CPUs, at most 4).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// List the scenarios (name, face, vector, goal, rule), then the known
    /// gaps apart, and exit.
    #[arg(long)]
    list: bool,
}

/// The faces a scenario runs in, as `--list` writes them.
fn face_label(scenario: &ploy_redteam::scenario::Scenario) -> &'static str {
    match scenario.face {
        ploy_redteam::scenario::Face::Agent => "agent",
        ploy_redteam::scenario::Face::Hook => "hook",
        ploy_redteam::scenario::Face::Mcp => "mcp",
    }
}

/// `ploy redteam`.
pub fn run(args: RedteamArgs) -> ExitCode {
    let all = ploy_redteam::scenario::all();
    if args.list {
        let line = |s: &ploy_redteam::scenario::Scenario| {
            format!(
                "{:<36} {:<5} {:<15} {:<28} {}",
                s.name,
                face_label(s),
                s.vector.label(),
                s.goal.label(),
                s.rule
            )
        };
        for s in all.iter().filter(|s| s.default_run()) {
            println!("{}", line(s));
        }
        let gaps: Vec<_> = all.iter().filter(|s| !s.default_run()).collect();
        if !gaps.is_empty() {
            println!(
                "\nknown gaps (not run by default: main does not hold them yet; `--scenario NAME` runs one):"
            );
            for s in gaps {
                println!("{}  [{}]", line(s), s.gap.unwrap_or_default());
            }
        }
        return ExitCode::SUCCESS;
    }
    if let Some(unknown) = args
        .scenarios
        .iter()
        .find(|name| !all.iter().any(|s| s.name == name.as_str()))
    {
        eprintln!("ploy redteam: no scenario named {unknown:?} (`ploy redteam --list` names them)");
        return ExitCode::from(2);
    }
    // By default every scenario but the known gaps; named ones as asked.
    let scenarios: Vec<_> = all
        .into_iter()
        .filter(|s| {
            if args.scenarios.is_empty() {
                s.default_run()
            } else {
                args.scenarios.iter().any(|n| n == s.name)
            }
        })
        .collect();
    let mut modes: Vec<Mode> = args
        .modes
        .iter()
        .map(|face| match face {
            Face::Print => Mode::Print,
            Face::Json => Mode::Json,
            Face::Rpc => Mode::Rpc,
            Face::Hook => Mode::Hook,
            Face::Mcp => Mode::Mcp,
        })
        .collect();
    if modes.is_empty() {
        modes = Mode::ALL.to_vec();
    }
    modes.dedup();
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(4)
    });
    // First, while this process still has one thread.
    if let Err(err) = ploy_redteam::world::enter() {
        eprintln!("ploy redteam: cannot run here: {err}");
        return ExitCode::from(3);
    }
    let plan = Plan {
        scenarios,
        modes,
        jobs,
    };
    let total = plan.runs();
    let bar = (!args.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(u64::try_from(total).unwrap_or(0));
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    if !args.json {
        println!("{}", report::header());
    }
    let print = |line: String| {
        // Printed above the bar, so the table scrolls and the bar stays.
        match &bar {
            Some(bar) => bar.suspend(|| println!("{line}")),
            None => println!("{line}"),
        }
        let _ = std::io::stdout().flush();
    };
    let started = std::time::Instant::now();
    let outcomes = ploy_redteam::run::run(&plan, &|outcome| {
        if args.json {
            print(report::json_line(outcome));
        } else {
            print(report::row(outcome));
        }
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let outcomes = match outcomes {
        Ok(outcomes) => outcomes,
        Err(err) => {
            eprintln!("ploy redteam: cannot run here: {err}");
            return ExitCode::from(3);
        }
    };
    let summary = report::summary(&outcomes);
    let lines = format!(
        "{}\n({:.0} s)",
        report::summary_lines(&summary),
        started.elapsed().as_secs_f64()
    );
    if args.json {
        eprintln!("{lines}");
    } else {
        println!("\n{lines}");
    }
    if report::passed(&outcomes) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
