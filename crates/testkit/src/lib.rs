//! ploy-testkit: what ploy's tests share, so no test support is copied
//! between crates. Dev-only: it appears only under `[dev-dependencies]`
//! (`tests/not_shipped.rs` checks every manifest).
//!
//! * [`strict`]: the one way a test says it cannot get a real part
//!   (Chromium, root, `chattr`, …): [`require_part!`] records the skip for
//!   `scripts/test.sh` to count, and under `PLOY_TEST_STRICT=1` (CI) fails
//!   the test with the reason instead.

pub mod strict;
