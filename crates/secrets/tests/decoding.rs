//! Matching under decoding (issue 14 item 3; REDACT-1, BEYOND-6 detection
//! side): a secret in any supported encoding, each character encoded or not
//! as an attacker pleases, embedded anywhere in a URL, a header, a JSON body
//! or text, is found by `Redactor::find_secret` and removed by
//! `Redactor::redact`. The encoders here are written independently of the
//! crate's decoders, from the formats' definitions.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use base64::Engine as _;
use ploy_secrets::{
    FRAGMENT_CHARS, FRAGMENT_MIN_SECRET_CHARS, REDACTED, Redactor, SHORT_FRAGMENT_CHARS,
    SHORT_FRAGMENT_MIN_SECRET_CHARS, SecretForm, mask,
};
use proptest::prelude::*;

fn redactor(secrets: &[&str]) -> Redactor {
    let (redactor, rejected) = Redactor::new(secrets.iter().copied());
    assert!(rejected.is_empty(), "{rejected:?}");
    redactor
}

/// Asserts `encoded` inside `context` (a `{}` placeholder) is found and
/// replaced exactly, with the context kept.
fn assert_caught(redactor: &Redactor, secret: &str, encoded: &str, context: &str) {
    let (before, after) = context.split_once("{}").expect("placeholder");
    let text = format!("{before}{encoded}{after}");
    let found = redactor
        .find_secret(text.as_bytes())
        .unwrap_or_else(|| panic!("not found: {encoded:?} in {text:?}"));
    assert_eq!(found.mask, mask(secret));
    assert!(!format!("{found} {found:?}").contains(secret));
    let out = redactor.redact(&text);
    assert_eq!(
        out,
        format!("{before}{REDACTED}{after}"),
        "encoded {encoded:?}"
    );
}

const CONTEXTS: &[&str] = &[
    "{}",
    "GET /search?q={}&page=2 HTTP/1.1",
    "Authorization: Token {}\r\n",
    "{\"query\":\"{}\",\"n\":1}",
    "text before {} text after",
    "<a href=\"/x?k={}\">link</a>",
];

// proves: REDACT-1, BEYOND-6 (issue 14: the forms a model produces on
// request, each quoted case)
#[test]
fn issue_cases_are_caught_in_every_context() {
    let tavily = "tvly-AbCdEf1234567890XyZ";
    let live = "sk-live-4eC39HqLyjWDarjtT1zdp7dc";
    let redactor = redactor(&[tavily, live]);
    let every_char_percent: String = tavily.bytes().map(|b| format!("%{b:02X}")).collect();
    assert!(every_char_percent.starts_with("%74%76%6C"));
    let every_char_json: String = tavily.bytes().map(|b| format!("\\u{b:04x}")).collect();
    let every_char_html: String = tavily.bytes().map(|b| format!("&#{b};")).collect();
    let base32 = data_encoding::BASE32.encode(tavily.as_bytes());
    for (secret, encoded) in [
        (tavily, every_char_percent.clone()),
        (tavily, every_char_percent.to_lowercase()),
        (tavily, every_char_json.clone()),
        (tavily, every_char_json.to_uppercase().replace("\\U", "\\u")),
        (tavily, every_char_html.clone()),
        (tavily, base32.trim_end_matches('=').to_owned()),
        (
            tavily,
            base32.to_lowercase().trim_end_matches('=').to_owned(),
        ),
        (tavily, tavily.replace('-', "%2D")),
        (live, live.replace('-', "%2D")),
        (live, live.replace('-', "%2d")),
        (live, live.replace('-', "%252D")),
        (live, live.replace('-', "&#45;")),
        (live, live.replace('-', "&#x2d;")),
        (live, live.replace('-', "\\u002d")),
        (live, live.to_uppercase()),
        (live, live.replace('s', "\\x73")),
    ] {
        for context in CONTEXTS {
            assert_caught(&redactor, secret, &encoded, context);
        }
    }
}

// proves: REDACT-1 (named HTML references, `\/`, stacked escapes)
#[test]
fn named_references_slashes_and_stacked_escapes_are_caught() {
    let secret = "ab_cd/ef+gh=ij.kl~mn";
    let redactor = redactor(&[secret]);
    for encoded in [
        "ab&lowbar;cd&sol;ef&plus;gh&equals;ij&period;kl~mn".to_owned(),
        "ab_cd\\/ef+gh=ij.kl~mn".to_owned(),
        // Percent-encoded HTML references, JSON-escaped percent signs.
        "ab%26%2395%3Bcd/ef+gh=ij.kl~mn".to_owned(),
        "ab\\u0025%35Fcd/ef+gh=ij.kl~mn".to_owned(),
        // JSON of JSON: `\\u005f`.
        "ab\\\\u005fcd/ef+gh=ij.kl~mn".to_owned(),
    ] {
        assert_caught(&redactor, secret, &encoded, "x={} y");
    }
}

// proves: REDACT-1 (a long fragment of a long secret is caught; the
// documented minimum is 12 characters of a secret of at least 24)
#[test]
fn long_fragments_of_long_secrets_are_caught() {
    let secret = "Tr0ub4dor-and-3-horses-battery";
    assert!(secret.chars().count() >= FRAGMENT_MIN_SECRET_CHARS);
    let redactor = redactor(&[secret]);
    for start in 0..=secret.len() - FRAGMENT_CHARS {
        let fragment = &secret[start..start + FRAGMENT_CHARS];
        assert_caught(&redactor, secret, fragment, "error {} login");
        // A fragment, percent-encoded.
        let encoded: String = fragment.bytes().map(|b| format!("%{b:02x}")).collect();
        assert_caught(&redactor, secret, &encoded, "q={}&");
    }
    // Shorter than a fragment: not matched (ordinary words must survive).
    let short = &secret[..FRAGMENT_CHARS - 1];
    assert!(redactor.find_secret(short.as_bytes()).is_none());
    // A secret of 16 to 23 characters has longer fragments (14; agent #3):
    // 14 characters are caught, 13 are not.
    let shorter_secret = "Tr0ub4dor-and-3-horses";
    let redactor = self::redactor(&[shorter_secret]);
    assert_eq!(SHORT_FRAGMENT_CHARS, 14);
    assert!(redactor.find_secret(b"Tr0ub4dor-and-").is_some());
    assert!(redactor.find_secret(b"r0ub4dor-and-3").is_some());
    assert!(redactor.find_secret(b"Tr0ub4dor-and").is_none());
    // A secret shorter than 16 characters has no fragments.
    let short_secret = "Tr0ub4dor-and-3";
    assert!(short_secret.chars().count() < SHORT_FRAGMENT_MIN_SECRET_CHARS);
    let redactor = self::redactor(&[short_secret]);
    assert!(redactor.find_secret(b"Tr0ub4dor-and-").is_none());
}

// proves: BEYOND-6 (the form is named, never the value)
#[test]
fn the_form_is_reported() {
    let secret = "tvly-AbCdEf1234567890XyZ";
    let redactor = redactor(&[secret]);
    let form = |text: &str| redactor.find_secret(text.as_bytes()).map(|m| m.form);
    assert_eq!(form(secret), Some(SecretForm::Plain));
    assert_eq!(form(&secret.replace('-', "%2D")), Some(SecretForm::Percent));
    assert_eq!(
        form(&secret.replace('-', "&#45;")),
        Some(SecretForm::Decoded)
    );
    let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
    assert_eq!(form(&b64), Some(SecretForm::Base64));
    let b32 = data_encoding::BASE32_NOPAD.encode(secret.as_bytes());
    assert_eq!(form(&b32), Some(SecretForm::Base32));
    let hex: String = secret.bytes().map(|b| format!("{b:02X}")).collect();
    assert_eq!(form(&hex), Some(SecretForm::Hex));
}

/// How one character is written.
#[derive(Debug, Clone, Copy)]
enum CharForm {
    Literal,
    PercentUpper,
    PercentLower,
    PercentTwice,
    JsonLower,
    JsonUpper,
    HtmlDecimal,
    HtmlHex,
    HtmlZeroPadded,
    BackslashX,
    BackslashOctal,
}

fn char_form() -> impl Strategy<Value = CharForm> {
    prop_oneof![
        Just(CharForm::Literal),
        Just(CharForm::PercentUpper),
        Just(CharForm::PercentLower),
        Just(CharForm::PercentTwice),
        Just(CharForm::JsonLower),
        Just(CharForm::JsonUpper),
        Just(CharForm::HtmlDecimal),
        Just(CharForm::HtmlHex),
        Just(CharForm::HtmlZeroPadded),
        Just(CharForm::BackslashX),
        Just(CharForm::BackslashOctal),
    ]
}

/// `secret` with character `i` written in `forms[i % forms.len()]`.
fn escape_mixed(secret: &str, forms: &[CharForm]) -> String {
    let mut out = String::new();
    for (i, ch) in secret.chars().enumerate() {
        let form = forms[i % forms.len()];
        let mut utf8 = [0u8; 4];
        let bytes = ch.encode_utf8(&mut utf8).as_bytes();
        match form {
            CharForm::Literal => out.push(ch),
            CharForm::PercentUpper => bytes.iter().for_each(|b| out += &format!("%{b:02X}")),
            CharForm::PercentLower => bytes.iter().for_each(|b| out += &format!("%{b:02x}")),
            CharForm::PercentTwice => bytes.iter().for_each(|b| out += &format!("%25{b:02X}")),
            CharForm::JsonLower | CharForm::JsonUpper => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    if matches!(form, CharForm::JsonLower) {
                        out += &format!("\\u{unit:04x}");
                    } else {
                        out += &format!("\\u{unit:04X}");
                    }
                }
            }
            CharForm::HtmlDecimal => out += &format!("&#{};", u32::from(ch)),
            CharForm::HtmlHex => out += &format!("&#x{:X};", u32::from(ch)),
            CharForm::HtmlZeroPadded => out += &format!("&#{:07};", u32::from(ch)),
            CharForm::BackslashX => bytes.iter().for_each(|b| out += &format!("\\x{b:02x}")),
            CharForm::BackslashOctal => bytes.iter().for_each(|b| out += &format!("\\{b:03o}")),
        }
    }
    out
}

/// Secrets: key-like characters, sometimes a non-ASCII one.
fn secret() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.+/=~-]{6,34}[é😀]?[A-Za-z0-9]{2,6}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    // proves: REDACT-1, BEYOND-6 (any secret, each character in any
    // supported escape, in any case, stacked, embedded in a URL, a header,
    // a JSON body or text: found and replaced exactly)
    #[test]
    fn any_escaped_secret_anywhere_is_found_and_redacted(
        secret in secret(),
        forms in proptest::collection::vec(char_form(), 1..8),
        context in 0usize..CONTEXTS.len(),
    ) {
        let redactor = redactor(&[&secret]);
        let encoded = escape_mixed(&secret, &forms);
        assert_caught(&redactor, &secret, &encoded, CONTEXTS[context]);
    }

    // proves: REDACT-1, BEYOND-6 (hex in any case, base32 and base64 at any
    // alignment inside a larger blob: found, and no character holding
    // secret bits is left)
    #[test]
    fn any_blob_encoded_secret_is_found_and_redacted(
        secret in secret(),
        prefix in proptest::collection::vec(any::<u8>(), 0..6),
        suffix in proptest::collection::vec(any::<u8>(), 0..6),
        upper in proptest::collection::vec(any::<bool>(), 1..9),
        which in 0usize..4,
        context in 0usize..CONTEXTS.len(),
    ) {
        let redactor = redactor(&[&secret]);
        let mut blob = prefix.clone();
        blob.extend_from_slice(secret.as_bytes());
        blob.extend_from_slice(&suffix);
        let encoded = match which {
            0 => secret
                .bytes()
                .flat_map(|b| format!("{b:02x}").into_bytes())
                .enumerate()
                .map(|(i, c)| {
                    let c = char::from(c);
                    if upper[i % upper.len()] { c.to_ascii_uppercase() } else { c }
                })
                .collect(),
            1 => data_encoding::BASE32.encode(&blob),
            2 => base64::engine::general_purpose::STANDARD.encode(&blob),
            _ => base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&blob),
        };
        let (before, after) = CONTEXTS[context].split_once("{}").expect("placeholder");
        let text = format!("{before}{encoded}{after}");
        prop_assert!(redactor.find_secret(text.as_bytes()).is_some(), "{text:?}");
        let out = redactor.redact(&text).into_owned();
        prop_assert!(out.contains(REDACTED));
        prop_assert!(out.starts_with(before) && out.ends_with(after), "{out:?}");
        // No character holding a bit of the secret is left: the blob's
        // characters kept on each side encode only the bytes around it
        // (plus padding).
        let middle = &out[before.len()..out.len() - after.len()];
        let (left, right) = middle.split_once(REDACTED).expect("one marker");
        let right = right.trim_end_matches('=');
        let bits = match which { 0 => 4, 1 => 5, _ => 6 };
        let (left_max, right_max) = if which == 0 {
            (0, 0)
        } else {
            // The last character of the blob also holds padding bits.
            (8 * prefix.len() / bits, (8 * suffix.len()).div_ceil(bits))
        };
        prop_assert!(left.len() <= left_max, "left {left:?} of {encoded:?}");
        prop_assert!(right.len() <= right_max, "right {right:?} of {encoded:?}");
        prop_assert!(!out.contains(&secret));
    }
}

/// Noise around secrets: words, escapes that decode to nothing secret, and
/// runs of trigger characters.
fn noise() -> impl Strategy<Value = String> {
    "([a-z ]{0,12}|%2[0-9]|\\\\\\\\|\\\\u00e9|&amp;|&#6[0-9];|%|&|\\\\){0,6}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    // proves: REDACT-1 (decoded views stay correct under any chunking: the
    // stream's output equals the one-shot output, and no secret survives)
    #[test]
    fn escaped_secrets_stream_like_one_shot_under_any_chunking(
        secret in secret(),
        pieces in proptest::collection::vec(
            (noise(), proptest::collection::vec(char_form(), 1..5)), 1..6),
        cuts in proptest::collection::vec(1usize..4000, 0..8),
    ) {
        let redactor = redactor(&[&secret]);
        let mut text = String::new();
        for (noise, forms) in &pieces {
            text.push_str(noise);
            text.push(' ');
            text.push_str(&escape_mixed(&secret, forms));
            text.push(' ');
        }
        // Long enough that the stream scans several windows.
        let filler = "x".repeat(5000);
        let text = format!("{filler}{text}{filler}{text}");
        let one_shot = redactor.redact(&text).into_owned();
        prop_assert!(redactor.find_secret(one_shot.as_bytes()).is_none(), "{one_shot:?}");
        let bytes = text.as_bytes();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % bytes.len()).collect();
        cuts.sort_unstable();
        let mut out = Vec::new();
        let mut stream = redactor.stream();
        let mut last = 0;
        for cut in cuts {
            stream.push(&bytes[last..cut], &mut out);
            last = cut;
        }
        stream.push(&bytes[last..], &mut out);
        stream.finish(&mut out);
        prop_assert_eq!(String::from_utf8(out).expect("utf8"), one_shot);
    }
}
