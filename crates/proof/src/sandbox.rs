//! The sandbox (SBX-1..5). Being built.
