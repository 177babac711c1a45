//! Proof validation (PROOF-1..5). Being built.
