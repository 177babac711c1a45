//! Adversarial tests of the by-value redactor (REDACT-1, A-1).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use base64::Engine as _;
use common::{encodings_of, leaks};

mod common;
use ploy_secrets::{MIN_SECRET_BYTES, REDACTED, Redactor, RejectReason, mask};

const SECRET: &str = "sk-canary-7f3a9c2e1b8d4f6a";

fn redactor(secrets: &[&str]) -> Redactor {
    let (redactor, rejected) = Redactor::new(secrets.iter().copied());
    assert!(rejected.is_empty(), "unexpected rejections: {rejected:?}");
    redactor
}

// proves: REDACT-1 (raw value and every promised encoding are removed)
#[test]
fn every_encoding_of_a_secret_is_redacted() {
    for secret in [
        SECRET,
        "p@ss w/rd+\"quoted\"\\back&<tag>=é✓😀",
        "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "line1\nline2\ttab/slash",
    ] {
        let redactor = redactor(&[secret]);
        for encoded in encodings_of(secret) {
            let text = format!("before {encoded} after");
            let out = redactor.redact(&text);
            assert!(out.contains(REDACTED), "not redacted: {encoded}");
            assert!(!out.contains(&encoded), "encoding survived: {encoded}");
            assert!(!leaks(&out, secret), "secret recoverable from {out}");
            assert!(out.starts_with("before "), "prefix damaged: {out}");
        }
    }
}

// proves: BEYOND-6 (detection side: every form the redactor removes is
// found, named by mask and form, never by value)
#[test]
fn find_secret_sees_every_form_and_never_shows_the_value() {
    for secret in [SECRET, "p@ss w/rd+\"quoted\"\\back&<tag>=é✓😀"] {
        let redactor = redactor(&[secret]);
        for encoded in encodings_of(secret) {
            let text = format!("GET /?q={encoded}&x=1");
            let found = redactor
                .find_secret(text.as_bytes())
                .unwrap_or_else(|| panic!("not found: {encoded}"));
            assert_eq!(found.mask, mask(secret));
            let shown = format!("{found} {found:?}");
            assert!(!shown.contains(secret), "{shown}");
            assert!(found.start < found.end && found.end <= text.len());
        }
        assert_eq!(redactor.find_secret(b"GET /?q=ordinary&x=1"), None);
    }
    assert_eq!(Redactor::empty().find_secret(SECRET.as_bytes()), None);
}

// proves: REDACT-1 (a secret inside a base64 blob leaves no decodable bytes of it)
#[test]
fn secret_inside_base64_blob_leaves_no_partial_character() {
    let secret = "Zx9-secret-value-QQ";
    let redactor = redactor(&[secret]);
    for prefix_len in 0..9 {
        for suffix_len in 0..9 {
            let blob = format!(
                "{}{secret}{}",
                "a".repeat(prefix_len),
                "b".repeat(suffix_len)
            );
            let encoded = base64::engine::general_purpose::STANDARD.encode(&blob);
            let out = redactor.redact(&encoded).into_owned();
            let (left, right) = out.split_once(REDACTED).expect("redacted");
            // What is left must decode only to bytes outside the secret: at
            // most the full characters before and after it.
            let left_bits = left.len() * 6;
            assert!(
                left_bits <= prefix_len * 8,
                "left {left:?} for prefix {prefix_len}"
            );
            let right = right.trim_end_matches('=');
            assert!(
                right.len() * 6 <= suffix_len * 8 + 6,
                "right {right:?} for suffix {suffix_len}"
            );
        }
    }
}

// proves: REDACT-1 (a standard-base64 token percent-encoded into a URL query)
#[test]
fn percent_encoded_base64_in_a_query_is_redacted() {
    // Chosen so its base64 holds both `+` and `/`.
    let secret = "key>>>???~~~secret";
    let redactor = redactor(&[secret]);
    for prefix in ["", "u:", "us:"] {
        let b64 = base64::engine::general_purpose::STANDARD.encode(format!("{prefix}{secret}"));
        assert!(b64.contains('+') || b64.contains('/'), "{b64}");
        let query: String = b64
            .bytes()
            .map(|b| match b {
                b'+' => "%2B".to_owned(),
                b'/' => "%2F".to_owned(),
                b'=' => "%3D".to_owned(),
                _ => char::from(b).to_string(),
            })
            .collect();
        let out = redactor
            .redact(&format!("GET /?token={query}&x=1"))
            .into_owned();
        assert!(out.contains(REDACTED), "{out}");
        let decoded = out
            .replace("%2B", "+")
            .replace("%2F", "/")
            .replace("%3D", "=");
        assert!(!leaks(&decoded, secret), "{out}");
    }
}

// proves: REDACT-1 (overlapping and touching secrets: no byte of either survives)
#[test]
fn overlapping_secrets_are_both_removed() {
    let a = "abcdefgh12";
    let b = "12345678xy";
    let redactor = redactor(&[a, b]);
    let out = redactor.redact("<abcdefgh12345678xy>");
    assert_eq!(out, format!("<{REDACTED}>"));
    let out = redactor.redact("<abcdefgh1212345678xy>");
    assert_eq!(out, format!("<{REDACTED}>"));
    // A secret that is a prefix of another: the longer one is removed whole.
    let redactor = self::redactor(&["prefix-secret", "prefix-secret-longer"]);
    assert_eq!(
        redactor.redact("x prefix-secret-longer y"),
        format!("x {REDACTED} y")
    );
    // Repeated value.
    let redactor = self::redactor(&["aaaaaaaa"]);
    assert_eq!(redactor.redact(&"a".repeat(1000)), REDACTED);
    assert_eq!(redactor.redact("aaaaaaa b"), "aaaaaaa b");
}

// proves: REDACT-1 (short secrets are refused with a reason, never with the value)
#[test]
fn short_secrets_are_refused_with_reason() {
    let (redactor, rejected) = Redactor::new(["hunter2", "", "   x    ", "long-enough-secret"]);
    assert_eq!(redactor.len(), 1);
    assert_eq!(rejected.len(), 3);
    for refused in &rejected {
        assert_eq!(refused.reason, RejectReason::TooShort);
        let message = refused.to_string();
        assert!(message.contains("REDACT-1"), "{message}");
        assert!(!message.contains("hunter2"), "{message}");
        assert!(message.contains(&MIN_SECRET_BYTES.to_string()));
    }
    // The refused short value is not redacted (it would hit ordinary words).
    assert_eq!(
        redactor.redact("hunter2 long-enough-secret"),
        format!("hunter2 {REDACTED}")
    );
}

// proves: REDACT-1 (white space around a value: both forms caught)
#[test]
fn padded_values_are_caught_trimmed_and_whole() {
    let (redactor, rejected) = Redactor::new(["  padded-secret-9\n"]);
    assert!(rejected.is_empty());
    assert_eq!(
        redactor.redact("x padded-secret-9 y"),
        format!("x {REDACTED} y")
    );
    assert!(
        !redactor
            .redact("\"  padded-secret-9\\n\"")
            .contains("padded-secret-9")
    );
}

// proves: REDACT-1 (non-secret text unchanged and borrowed)
#[test]
fn clean_text_is_borrowed_unchanged() {
    let redactor = redactor(&[SECRET]);
    // 11 characters of the secret: shorter than a fragment (12).
    let text = "nothing to see here: sk-canary-7 or 7f3a9c2e1b8 (short parts) é😀";
    assert!(matches!(
        redactor.redact(text),
        std::borrow::Cow::Borrowed(_)
    ));
    assert!(!redactor.contains_secret(text));
    assert!(redactor.contains_secret(&format!("x{SECRET}x")));
    assert_eq!(Redactor::empty().redact(SECRET), SECRET);
    assert!(Redactor::empty().is_empty());
}

// proves: REDACT-1 (Debug never prints a value)
#[test]
fn debug_output_holds_no_secret() {
    let redactor = redactor(&[SECRET]);
    let mut stream = redactor.stream();
    let mut out = Vec::new();
    // Held back: too short to be released yet.
    stream.push(format!("x {SECRET}").as_bytes(), &mut out);
    assert!(out.is_empty());
    let debug = format!("{redactor:?} {stream:?}");
    assert!(!leaks(&debug, SECRET), "{debug}");
    assert!(!debug.contains("7f3a"), "{debug}");
}

// proves: REDACT-1 (mask shows the last 4 only; short values fully masked)
#[test]
fn mask_shows_last_four_only() {
    assert_eq!(mask("sk-proj-abcdefghijklmnopqrstc2e9"), "…c2e9");
    assert_eq!(mask("short-secret"), "…****");
    assert_eq!(mask(""), "…****");
    assert_eq!(
        mask("ééééééééééééééé😀é😀"),
        "…😀é😀".replacen('…', "…é", 1)
    );
}

// proves: REDACT-1 (redactor learns new secrets without forgetting old ones)
#[test]
fn with_more_keeps_old_secrets() {
    let first = redactor(&[SECRET]);
    let (both, rejected) = first.with_more(["generated-token-0001", "short"]);
    assert_eq!(rejected.len(), 1);
    assert_eq!(both.len(), 2);
    let out = both
        .redact(&format!("{SECRET} generated-token-0001"))
        .into_owned();
    assert_eq!(out, format!("{REDACTED} {REDACTED}"));
}

// proves: REDACT-1 (non-UTF-8 output is redacted byte-wise)
#[test]
fn bytes_with_invalid_utf8_are_redacted() {
    let redactor = redactor(&[SECRET]);
    let mut input = vec![0xff, 0xfe];
    input.extend_from_slice(SECRET.as_bytes());
    input.push(0x80);
    let out = redactor.redact_bytes(&input);
    let mut expected = vec![0xff, 0xfe];
    expected.extend_from_slice(REDACTED.as_bytes());
    expected.push(0x80);
    assert_eq!(out.as_ref(), expected.as_slice());
}

// proves: REDACT-1 (streaming output equals one-shot output for every split)
#[test]
fn stream_equals_one_shot_for_every_split_point() {
    let secrets = [SECRET, "second-secret-value"];
    let redactor = redactor(&secrets);
    let b64 = base64::engine::general_purpose::STANDARD.encode(format!("u:{SECRET}"));
    // The filler makes the first push large enough to be scanned, so the
    // split really falls between two scanned windows.
    let filler = "filler é😀 ".repeat(600);
    let text = format!(
        "{filler}start {SECRET} mid {b64} then second-secret-value{SECRET} é😀 tail {}",
        "x".repeat(50)
    );
    let expected = redactor.redact(&text).into_owned();
    assert_eq!(expected.matches(REDACTED).count(), 3);
    for split in filler.len()..=text.len() {
        let mut out = Vec::new();
        let mut stream = redactor.stream();
        stream.push(&text.as_bytes()[..split], &mut out);
        stream.push(&text.as_bytes()[split..], &mut out);
        stream.finish(&mut out);
        assert_eq!(
            String::from_utf8(out).expect("utf8"),
            expected,
            "split at {split}"
        );
    }
}

// proves: REDACT-1 (large streams through Read/Write, secrets across window edges)
#[test]
fn redact_stream_handles_secrets_across_windows() {
    let redactor = redactor(&[SECRET]);
    // 3 MiB with the secret placed across the 1 MiB window edges and anywhere else.
    let mut text = String::new();
    while text.len() < 3 * (1 << 20) {
        text.push_str("some ordinary log text é😀 ");
        if text.len().is_multiple_of(7) {
            text.push_str(SECRET);
        }
    }
    for edge in [1usize << 20, 2 << 20] {
        for delta in 0..SECRET.len() {
            let at = edge - delta;
            let at = (0..4)
                .map(|d| at - d)
                .find(|&i| text.is_char_boundary(i))
                .expect("boundary");
            text.insert_str(at, SECRET);
        }
    }
    let mut out = Vec::new();
    let read = redactor
        .redact_stream(std::io::Cursor::new(text.as_bytes()), &mut out)
        .expect("stream");
    assert_eq!(read, text.len() as u64);
    let out = String::from_utf8(out).expect("utf8");
    assert!(!out.contains(SECRET));
    assert_eq!(out, redactor.redact(&text));
}

// proves: REDACT-1 (round7 #8: a credential inside an environment value
// under an ordinary name is a known secret, said to come from a part of
// that variable; the options around it are not secrets)
#[test]
fn credentials_inside_environment_values_are_redacted() {
    let env = [
        (
            "MAVEN_OPTS",
            "-Xmx1g -Dpassword=MavenPassw0rd9",
            "MavenPassw0rd9",
        ),
        (
            "SPRING_APPLICATION_JSON",
            r#"{"spring":{"datasource":{"password":"Sp1ngDbPassw0rd"}}}"#,
            "Sp1ngDbPassw0rd",
        ),
    ];
    let set = ploy_secrets::SecretSet::from_env(
        env.iter()
            .map(|(name, value, _)| ((*name).to_owned(), (*value).to_owned())),
        &|_| false,
    );
    let redactor = set.redactor();
    for (name, _, secret) in env {
        let out = redactor
            .redact(&format!("connecting with {secret} now"))
            .into_owned();
        assert_eq!(out, "connecting with [REDACTED] now", "{name}");
        assert!(
            set.origins().map(ToString::to_string).any(|origin| origin
                == format!("environment variable {name} (a credential-named part of its value)")),
            "{name}: {set:?}"
        );
    }
    assert_eq!(redactor.redact("java -Xmx1g"), "java -Xmx1g");
    assert_eq!(set.len(), 2, "{set:?}");
}

// proves: REDACT-1 (round7 #13: a secret in Ascii85, base85 or Z85 inside
// a blob at any alignment is redacted with the groups that mix its bytes
// with its neighbours'; uuencoded, with the groups holding its bytes)
#[test]
fn base85_and_uuencoded_secrets_are_redacted_whole() {
    let key = "tvly-CANARYkey0123456789abcdefXYZ";
    let redactor = redactor(&[key]);
    // Python: `base64.a85encode(p + key + b".")`, p = "", "u", "us:".
    for (blob, rest) in [
        (r"FEVJG/OMg!5uLj$AU,sa1,CaE2E*TU@:E_WAS,%I=tT", ""),
        (r"F`_eCGqDBL:-hc\CLqcF0etOA2)[BQ3FQB,A7]@T=^!E", ""),
        (r"F`TTcG&2FU6U=I5;H[dHGq^s.1GgsI2`Ng+@Uiq[Alr2>/c", "/c"),
    ] {
        let out = redactor.redact(&format!("<~{blob}~>")).into_owned();
        assert_eq!(out, format!("<~[REDACTED]{rest}~>"), "{blob}");
    }
    // `binascii.b2a_uu(b"token=" + key)`: the groups of `token=` stay.
    let uu = "begin 644 k\nG=&]K96X]='9L>2U#04Y!4EEK97DP,3(S-#4V-S@Y86)C9&5F6%E:\n`\nend\n";
    assert_eq!(
        redactor.redact(uu),
        "begin 644 k\nG=&]K96X][REDACTED]\n`\nend\n"
    );
}
