//! ploy-testkit: what ploy's tests share, so no test support is copied
//! between crates. Dev-only: it appears only under `[dev-dependencies]`
//! (`tests/not_shipped.rs` checks every manifest).
//!
//! * [`strict`]: the one way a test says it cannot get a real part
//!   (Chromium, root, `chattr`, …): [`require_part!`] records the skip for
//!   `scripts/test.sh` to count, and under `PLOY_TEST_STRICT=1` (CI) fails
//!   the test with the reason instead.
//! * [`web`]: the one fixture web server (hyper on 127.0.0.1:0, optional
//!   TLS): routes declared by the test, redirects, bombs, slow and stalled
//!   bodies, raw wire bytes, and a request log to assert on.
//! * [`net`]: the loopback seams for ploy-egress ([`net::MapDial`],
//!   [`net::ScriptedResolver`]) and public-looking test addresses.
//! * [`tls`]: a throwaway CA and server certificate (rcgen).
//! * [`raw_http`]: a raw HTTP/1.1 client for hostile requests.
//! * [`scripted_model`]: `ploy-scripted-model`, re-exported.
//! * [`credential_files`]: one credential file of every kind the
//!   secret-file rule names, with the values that must be known secrets.
//! * [`store_damage`]: a conversation store damaged where only the full
//!   check looks (TAINT-3 tests of ploy-store and the agent).
//! * [`loggers`]: the A-5 probe ([`logger_traits!`]): which logger traits
//!   a type implements.
//!
//! Everything here talks to 127.0.0.1 only.

pub mod credential_files;
pub mod loggers;
pub mod net;
pub mod raw_http;
pub mod store_damage;
pub mod strict;
pub mod tls;
pub mod web;

pub use ploy_scripted_model as scripted_model;
pub use web::{Received, Reply, Routes, WebServer};
