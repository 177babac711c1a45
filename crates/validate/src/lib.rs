//! `ploy-validate`: the proof validator (PROOF-1..6), pure.
//!
//! A proof line is parsed (ploy-shell), checked against an allowlist grammar,
//! and turned into a typed [`ProofPlan`]: simple commands as argv vectors
//! joined by `&&`, `||`, `|` and `!`, with `/dev/null` as the only
//! redirection target. The sandbox's init runs that plan itself; no proof
//! path ever hands the line to a shell (PROOF-6: execute exactly what was
//! checked).

pub mod plan;

pub use plan::{Connector, Pipeline, PlanCommand, PlanError, ProofPlan, StreamTarget};
