//! The pieces rule of the secret door (BEYOND-6, tui-rpc #12) against a
//! corpus: a secret cut at random into pieces of 6 or more letters and
//! digits, with random filler between them and the pieces in any order, is
//! refused; ordinary requests (documentation pages, searches, API calls
//! with ids, hashes and dates, bodies of search backends) pass with a door
//! that knows realistic keys.
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

use ploy_egress::SecretDoor;
use proptest::prelude::*;

/// Keys shaped like the ones a developer's environment holds.
const KEYS: &[&str] = &[
    "sk-live-abcdef0123456789XYZ",
    "sk-proj-T3BlbkFJq8Zr2mVw9xLc4nPd7sKe1Hy",
    "ghp_R4nd0mT0k3nF0rT3st1ngPurp0s3s0nly1",
    "github_pat_11ABCDEFG0123456789_abcdefghijKLMNOPqrstuv",
    "glpat-x8Yz2Qw3Er4Ty5Ui6Op7",
    "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx",
    "AKIAQ3EGRT5YHZXK4WOP",
    "tvly-9fK2mQx7Lp4Vn8Rz3Wc6",
    "Tr0ub4dor-and-3-horses",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dQw4w9WgXcQ4rT8yU2iO0pA5sD7fG1hJ3kL6zX9cV",
    "postgres://app:Sup3rS3cretDbPw@db.internal:5432/app",
];

/// One door for every case (building one is the costly part).
fn door() -> &'static SecretDoor {
    static DOOR: std::sync::LazyLock<SecretDoor> =
        std::sync::LazyLock::new(|| SecretDoor::new(KEYS));
    &DOOR
}

fn refused_url(door: &SecretDoor, url: &str) -> bool {
    let mut pieces = door.pieces();
    pieces.text(url, true);
    pieces.finish().is_err() || door.check_text(ploy_egress::Part::Url, url, true).is_err()
}

// proves: BEYOND-6 (no false alarm on ordinary requests)
#[test]
fn ordinary_requests_pass() {
    let door = door();
    for url in [
        "https://docs.rs/tokio/latest/tokio/time/fn.timeout.html",
        "https://doc.rust-lang.org/std/collections/struct.HashMap.html#method.entry",
        "https://github.com/rust-lang/rust/issues/12345",
        "https://github.com/tokio-rs/tokio/blob/2f4ad1b0e6c71b8c4e0e9d4f3c1a2b7d8e9f0a1b/tokio/src/lib.rs",
        "https://stackoverflow.com/questions/26946646/rust-package-with-both-a-library-and-a-binary",
        "https://www.google.com/search?q=how+to+rotate+a+stripe+sk-live+key",
        "https://api.github.com/repos/octocat/hello-world/pulls?state=open&per_page=100&page=3",
        "https://platform.openai.com/docs/api-reference/authentication",
        "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats",
        "https://docs.gitlab.com/ee/user/profile/personal_access_tokens.html?glpat-prefix",
        "https://api.slack.com/authentication/token-types#bot",
        "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html",
        "https://example.com/api/v1/items/550e8400-e29b-41d4-a716-446655440000?expand=owner,tags",
        "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
        "https://crates.io/api/v1/crates/serde/1.0.210/download",
        "https://www.postgresql.org/docs/16/libpq-connect.html#LIBPQ-CONNSTRING-URIS",
        "https://en.wikipedia.org/wiki/Troubadour",
        "https://news.ycombinator.com/item?id=41234567",
        "https://api.example.com/search?q=error+E0502+cannot+borrow+as+mutable&lang=en&date=2026-11-30T20:31:39Z",
        "https://cdn.example.com/assets/app.3f9a2c7e1b.js?v=20261130",
    ] {
        assert!(!refused_url(door, url), "{url}");
    }
    for body in [
        r#"{"query":"rust tokio timeout example","max_results":5,"search_depth":"basic"}"#,
        r#"{"model":"gpt-4o","messages":[{"role":"user","content":"explain sk-live vs sk-test keys"}]}"#,
        "q=postgres+connection+string+format&format=json",
    ] {
        let mut pieces = door.pieces();
        pieces.body(body.as_bytes());
        assert!(pieces.finish().is_ok(), "{body}");
    }
}

/// The letters and digits of `key`, cut into pieces of `sizes` (at least 6
/// each) from the start, joined by `filler`, in the order of `order`.
fn cut(key: &str, sizes: &[usize], filler: &str, order: &[usize]) -> String {
    let letters: Vec<char> = key.chars().filter(|c| c.is_alphanumeric()).collect();
    let mut pieces = Vec::new();
    let mut at = 0;
    for &size in sizes {
        if at + size > letters.len() {
            break;
        }
        pieces.push(letters[at..at + size].iter().collect::<String>());
        at += size;
    }
    if at < letters.len() {
        pieces.push(letters[at..].iter().collect());
    }
    let mut ordered: Vec<(usize, String)> = pieces
        .into_iter()
        .enumerate()
        .map(|(i, p)| (order.get(i).copied().unwrap_or(i), p))
        .collect();
    ordered.sort();
    ordered
        .into_iter()
        .map(|(_, p)| p)
        .collect::<Vec<_>>()
        .join(filler)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    // proves: BEYOND-6 (any known key, cut into pieces of 6 to 11 characters,
    // any filler between them, any order, is refused)
    #[test]
    fn cut_keys_are_refused(
        key in 0..KEYS.len(),
        sizes in proptest::collection::vec(6usize..12, 8),
        filler in "(&[a-z]=|/[a-z]/|\\.|-x-|%2F)",
        order in proptest::collection::vec(0usize..100, 8),
    ) {
        let door = door();
        let carried = cut(KEYS[key], &sizes, &filler, &order);
        let url = format!("https://api.example.com/?a={carried}");
        prop_assert!(refused_url(door, &url), "{}", url);
    }
}

// proves: BEYOND-6 (a case proptest found: the pieces of a GitHub
// fine-grained token sorted alphabetically, one piece (`abcdef`) equal to
// another (`ABCDEF`) but for case)
#[test]
fn pieces_equal_but_for_case_are_still_refused() {
    let url = "https://api.example.com/?a=ABCDEF&g=G0123456789&g=abcdef&g=ghijKLMNOPq&g=githubpat11&g=rstuv";
    assert!(refused_url(door(), url), "{url}");
}
