//! `ploy-egress`: the one network door.
//!
//! Everything ploy sends past this machine's edge goes through here, in a fixed
//! order: the URL text check ([`check_url_text`], URL-1), resolution with every
//! returned address checked ([`resolve_checked`], URL-2, the address policy in
//! [`check_ip`], plus every address this machine holds right now,
//! [`check_not_this_machine`]), a connection pinned to the checked address through a [`Dial`]
//! (BEYOND-1), redirects followed by hand and re-checked (URL-3), and a body read
//! with caps on size and type (FETCH-1, FETCH-2). Every outcome is a value
//! ([`FetchOutcome`], FAIL-1); only cancellation is distinct ([`Cancelled`],
//! CANCEL-1).
//!
//! Names are resolved for both A and AAAA records ([`HickoryResolver`]), so
//! a public A record never hides a private AAAA one. Requests are GETs, with
//! one narrow exception: [`Fetcher::post_json`] (an API search backend such
//! as Tavily) runs the same pipeline with fixed headers and a bearer token,
//! and refuses redirects instead of following them. One host may be let
//! past the address policy: the operator-named [`OperatorHost`] (a
//! self-hosted SearXNG), set only from operator configuration.
//!
//! Before a name is resolved, every request (each redirect hop too) passes
//! the secret door ([`SecretDoor`], BEYOND-6): a URL, header or body carrying
//! a secret value ploy knows, in any form the door sees, is refused; an API
//! key travels only as a [`Credential`] to the origin it was declared for.
//!
//! Search phrases leave through [`scrub`] (SCRUB-1, SCRUB-2) and a [`SearchPlan`]
//! (RESEARCH-1).
//!
//! No other crate in the workspace may open a network connection; the test
//! `tests/one_door.rs` enforces it.

// `teeth`: the rules switched off, so `ploy redteam` can show that every
// attack scenario then succeeds (each scenario can fail). Never in a
// release build.
#[cfg(all(feature = "teeth", not(debug_assertions)))]
compile_error!(
    "the `teeth` feature switches ploy's rules off; it is for the redteam CI step only and must never be in a release build"
);

mod address;
pub mod blocking;
mod command_targets;
mod dial;
mod door;
mod fetch;
mod local;
mod pieces;
mod refusal;
mod resolve;
mod scrub;
mod text;

pub use address::{AddressRefusal, check_ip};
pub use command_targets::check_command_targets;
pub use dial::{BoxedStream, Dial, DialFuture, EgressStream, TcpDial};
pub use door::{Credential, Part, PieceCheck, SecretDoor};
pub use fetch::{
    Cancelled, FetchConfig, FetchOutcome, Fetcher, HopGate, MAX_BODY_BYTES, MAX_POST_BODY_BYTES,
    MAX_REDIRECTS, Page, TimeoutPhase, USER_AGENT, default_tls_config, tls_config_with_roots,
};
pub use local::{ThisMachine, check_against, check_not_this_machine};
pub use pieces::{COVER_DENOMINATOR, COVER_NUMERATOR, PIECE_CHARS, PIECE_MIN_SECRET_CHARS};
pub use refusal::{Refusal, Stage};
pub use resolve::{
    HickoryResolver, HostsFileError, HostsFileResolver, Resolve, ResolveError, ResolveFuture,
    StaticResolver, resolve_checked,
};
pub use scrub::{
    MAX_PHRASE_CHARS, MAX_PHRASES_PER_ROUND, MAX_ROUNDS, PlanError, ScrubClass, Scrubbed,
    SearchPhrase, SearchPlan, SearchRound, scrub,
};
pub use text::{CheckedUrl, OperatorHost, check_url_text, check_urls_in_text};
