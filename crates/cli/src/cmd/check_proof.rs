//! `ploy check proof 'LINE' [--json]`: the proof validator (PROOF-1..5) on one
//! line, without running it. Exit 0 accepted, 1 refused, 2 usage.
//!
//! JSON: `{"line", "verdict": "accepted"|"refused", "rules": [...],
//! "refusals": [{"rule", "detail"}], "plan"}`; `plan` is the validated plan
//! (what `ploy proof run` would execute) or null.

use std::process::ExitCode;

use ploy_validate::{ProofVerdict, validate};

/// Arguments of `ploy check proof`.
#[derive(Debug, clap::Args)]
pub struct CheckProofArgs {
    /// The proof line to validate.
    pub line: String,
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// Validates the line and reports every tripped rule.
pub fn run(args: CheckProofArgs) -> ExitCode {
    let verdict = validate(&args.line);
    let code = if verdict.is_accepted() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if args.json {
        let report = serde_json::json!({
            "line": args.line,
            "verdict": if verdict.is_accepted() { "accepted" } else { "refused" },
            "rules": verdict.rules(),
            "refusals": verdict.refusals(),
            "plan": verdict.plan(),
        });
        println!("{report}");
        return code;
    }
    match &verdict {
        ProofVerdict::Accepted { plan } => {
            println!(
                "accepted: the line passes PROOF-1..5 and runs as `{}` (only in the sandbox)",
                plan.to_line()
            )
        }
        ProofVerdict::Refused { refusals } => {
            eprintln!("ploy check proof: refused");
            for refusal in refusals {
                eprintln!("{}: {}", refusal.rule, refusal.detail);
            }
            eprintln!(
                "hint: a proof is one plain check from the allowlist (docs/proofs.md), e.g. `cargo test -q` or `grep -q \"fn main\" src/main.rs`"
            );
        }
    }
    code
}
