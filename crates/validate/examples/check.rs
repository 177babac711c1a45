//! Prints the validator's verdict for each line of standard input (or each
//! argument): `accepted: PLAN` or the refusals. A tool for attacking the
//! validator by hand.
use std::io::BufRead;

fn show(line: &str) {
    match ploy_validate::validate(line) {
        ploy_validate::ProofVerdict::Accepted { plan } => {
            println!("ACCEPTED {line:?} -> {}", plan.to_line())
        }
        ploy_validate::ProofVerdict::Refused { refusals } => {
            println!("refused  {line:?}");
            for r in refusals {
                println!("    {}: {}", r.rule, r.detail);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            show(&line);
        }
    } else {
        for line in args {
            show(&line);
        }
    }
}
