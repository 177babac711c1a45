//! The encodings of a secret value that the redactor searches for (REDACT-1).
//!
//! The list of what is and is not caught is in the crate documentation.

use base64::Engine as _;

/// How a match of one pattern may be widened by one base64 character on each
/// side: those characters mix secret bits with neighbouring bytes, so they
/// are not part of the pattern but must not survive next to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PatternInfo {
    /// Widen the match by one character to the left if it is a base64 character.
    pub(crate) widen_left: bool,
    /// Widen the match by one character to the right if it is a base64 character.
    pub(crate) widen_right: bool,
    /// Which encoding of the secret this pattern is.
    pub(crate) form: SecretForm,
    /// Index of the secret (in the engine's sorted list) it encodes.
    pub(crate) secret: usize,
}

impl PatternInfo {
    fn of(form: SecretForm) -> PatternInfo {
        PatternInfo {
            widen_left: false,
            widen_right: false,
            form,
            secret: 0,
        }
    }
}

/// The form in which a secret was found (BEYOND-6 refusals name it; never
/// the value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SecretForm {
    /// The value as it is.
    Plain,
    /// Inside string escapes (JSON, Rust `{:?}`, stacked).
    Escaped,
    /// Percent-encoded (URL, form).
    Percent,
    /// Hex of its bytes.
    Hex,
    /// Base64 or base64url, at any alignment.
    Base64,
}

impl SecretForm {
    /// A short name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            SecretForm::Plain => "plain",
            SecretForm::Escaped => "string-escaped",
            SecretForm::Percent => "percent-encoded",
            SecretForm::Hex => "hex",
            SecretForm::Base64 => "base64",
        }
    }
}

/// Whether `byte` belongs to the standard or URL-safe base64 alphabet.
pub(crate) fn is_base64_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'-' | b'_')
}

/// Every pattern (with its widening) for one secret value. May hold duplicates;
/// the caller deduplicates across all secrets.
pub(crate) fn patterns_for(secret: &str) -> Vec<(String, PatternInfo)> {
    let plain = PatternInfo::of(SecretForm::Plain);
    let escaped = PatternInfo::of(SecretForm::Escaped);
    let percent = PatternInfo::of(SecretForm::Percent);
    let mut out: Vec<(String, PatternInfo)> = vec![(secret.to_owned(), plain)];

    // Escapes stack: a value JSON-escaped into a body that is logged with
    // `{:?}` and embedded in another JSON document. Every composition of the
    // two string escapes up to ESCAPE_DEPTH layers is searched; for values
    // without quotes, backslashes or control characters they all equal the
    // value and cost nothing.
    let mut seen: Vec<String> = vec![secret.to_owned()];
    let mut frontier: Vec<String> = vec![secret.to_owned()];
    for _ in 0..ESCAPE_DEPTH {
        let mut next = Vec::new();
        for value in &frontier {
            for escaped in [json_escape(value, JsonStyle::MINIMAL), debug_escape(value)] {
                if !seen.contains(&escaped) {
                    seen.push(escaped.clone());
                    next.push(escaped);
                }
            }
        }
        frontier = next;
    }
    out.extend(seen.into_iter().skip(1).map(|text| (text, escaped)));
    for style in [
        JsonStyle {
            ascii_only: true,
            ..JsonStyle::MINIMAL
        },
        JsonStyle {
            ascii_only: true,
            upper_hex: true,
            ..JsonStyle::MINIMAL
        },
        JsonStyle {
            escape_slash: true,
            ..JsonStyle::MINIMAL
        },
        JsonStyle {
            escape_slash: true,
            ascii_only: true,
            ..JsonStyle::MINIMAL
        },
        JsonStyle {
            html_safe: true,
            ..JsonStyle::MINIMAL
        },
    ] {
        out.push((json_escape(secret, style), escaped));
    }

    for style in [
        PercentStyle::Strict { upper: true },
        PercentStyle::Strict { upper: false },
        PercentStyle::Form,
        PercentStyle::UriComponent,
        PercentStyle::Uri,
    ] {
        out.push((percent_encode(secret.as_bytes(), style), percent));
    }

    out.push((
        hex(secret.as_bytes(), false),
        PatternInfo::of(SecretForm::Hex),
    ));
    out.push((
        hex(secret.as_bytes(), true),
        PatternInfo::of(SecretForm::Hex),
    ));

    for engine in [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ] {
        for alignment in 0..3 {
            if let Some((core, info)) = base64_core(secret.as_bytes(), alignment, &engine) {
                if core.contains(['/', '+']) {
                    // PHP-style JSON writes the standard alphabet's `/` as `\/`.
                    out.push((core.replace('/', "\\/"), info));
                    // A standard-alphabet token in a URL query: `%2B`, `%2F`.
                    for upper in [true, false] {
                        let style = PercentStyle::Strict { upper };
                        out.push((percent_encode(core.as_bytes(), style), info));
                    }
                }
                out.push((core, info));
            }
        }
    }
    out
}

/// The base64 characters fully determined by `secret` when it starts at byte
/// `alignment` (0, 1 or 2) of a 3-byte group, with how to widen a match.
fn base64_core(
    secret: &[u8],
    alignment: usize,
    engine: &base64::engine::GeneralPurpose,
) -> Option<(String, PatternInfo)> {
    let mut padded = vec![0u8; alignment];
    padded.extend_from_slice(secret);
    let end_bytes = padded.len();
    while !padded.len().is_multiple_of(3) {
        padded.push(0);
    }
    let encoded = engine.encode(&padded);
    // Characters before `skip` mix in the unknown bytes before the secret:
    // alignment 1 -> c0 (unknown) and c1 (mixed); alignment 2 -> c0, c1 (unknown), c2 (mixed).
    let skip = if alignment == 0 { 0 } else { alignment + 1 };
    // Full groups give 4 known characters each; a group holding r (1 or 2)
    // secret bytes at the end gives r known characters and one mixed one.
    let remainder = end_bytes % 3;
    let end = 4 * (end_bytes / 3) + remainder;
    let core = encoded.get(skip..end)?;
    if core.is_empty() {
        return None;
    }
    Some((
        core.to_owned(),
        PatternInfo {
            widen_left: alignment != 0,
            widen_right: remainder != 0,
            ..PatternInfo::of(SecretForm::Base64)
        },
    ))
}

/// How many layers of stacked string escaping (JSON, Rust `{:?}`) are searched.
const ESCAPE_DEPTH: usize = 4;

/// The body (without quotes) of Rust's `{:?}` of `text`.
fn debug_escape(text: &str) -> String {
    let debug = format!("{text:?}");
    debug
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or(&debug)
        .to_owned()
}

/// Which JSON string-escaping conventions to apply.
#[derive(Debug, Clone, Copy)]
struct JsonStyle {
    ascii_only: bool,
    upper_hex: bool,
    escape_slash: bool,
    html_safe: bool,
}

impl JsonStyle {
    const MINIMAL: JsonStyle = JsonStyle {
        ascii_only: false,
        upper_hex: false,
        escape_slash: false,
        html_safe: false,
    };
}

fn push_u_escape(out: &mut String, unit: u16, upper: bool) {
    if upper {
        out.push_str(&format!("\\u{unit:04X}"));
    } else {
        out.push_str(&format!("\\u{unit:04x}"));
    }
}

/// The body (without quotes) of the JSON string holding `text`.
fn json_escape(text: &str, style: JsonStyle) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '/' if style.escape_slash => out.push_str("\\/"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' if style.html_safe => {
                push_u_escape(&mut out, ch as u16, style.upper_hex);
            }
            c if (c as u32) < 0x20 => push_u_escape(&mut out, c as u16, style.upper_hex),
            c if style.ascii_only && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    push_u_escape(&mut out, *unit, style.upper_hex);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Percent-encoding conventions.
#[derive(Debug, Clone, Copy)]
enum PercentStyle {
    /// RFC 3986: everything but `A-Za-z0-9-._~` encoded.
    Strict { upper: bool },
    /// `application/x-www-form-urlencoded`: space as `+`, keeps `*-._`.
    Form,
    /// JavaScript `encodeURIComponent`: keeps `A-Za-z0-9-_.!~*'()`.
    UriComponent,
    /// JavaScript `encodeURI`: also keeps `;,/?:@&=+$#`.
    Uri,
}

fn percent_encode(bytes: &[u8], style: PercentStyle) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for &byte in bytes {
        let keep = byte.is_ascii_alphanumeric()
            || match style {
                PercentStyle::Strict { .. } => matches!(byte, b'-' | b'.' | b'_' | b'~'),
                PercentStyle::Form => matches!(byte, b'*' | b'-' | b'.' | b'_'),
                PercentStyle::UriComponent => {
                    matches!(
                        byte,
                        b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')'
                    )
                }
                PercentStyle::Uri => matches!(
                    byte,
                    b'-' | b'_'
                        | b'.'
                        | b'!'
                        | b'~'
                        | b'*'
                        | b'\''
                        | b'('
                        | b')'
                        | b';'
                        | b','
                        | b'/'
                        | b'?'
                        | b':'
                        | b'@'
                        | b'&'
                        | b'='
                        | b'+'
                        | b'$'
                        | b'#'
                ),
            };
        if keep {
            out.push(char::from(byte));
        } else if byte == b' ' && matches!(style, PercentStyle::Form) {
            out.push('+');
        } else {
            let upper = !matches!(style, PercentStyle::Strict { upper: false });
            if upper {
                out.push_str(&format!("%{byte:02X}"));
            } else {
                out.push_str(&format!("%{byte:02x}"));
            }
        }
    }
    out
}

fn hex(bytes: &[u8], upper: bool) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        if upper {
            out.push_str(&format!("{byte:02X}"));
        } else {
            out.push_str(&format!("{byte:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_contains(blob: &str, secret: &[u8]) -> bool {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .expect("valid base64");
        bytes.windows(secret.len()).any(|w| w == secret)
    }

    // proves: REDACT-1 (every base64 core is really a substring of an encoding
    // of a blob that contains the secret, at each alignment)
    #[test]
    fn base64_cores_are_substrings_of_real_encodings() {
        let secret = b"sk-test-0123456789abcdef";
        for prefix_len in 0..6 {
            for suffix_len in 0..4 {
                let mut blob = vec![b'#'; prefix_len];
                blob.extend_from_slice(secret);
                blob.extend(std::iter::repeat_n(b'!', suffix_len));
                let encoded = base64::engine::general_purpose::STANDARD.encode(&blob);
                assert!(decode_contains(&encoded, secret));
                let (core, _) = base64_core(
                    secret,
                    prefix_len % 3,
                    &base64::engine::general_purpose::STANDARD_NO_PAD,
                )
                .expect("core");
                assert!(
                    encoded.contains(&core),
                    "alignment {} core {core} not in {encoded}",
                    prefix_len % 3
                );
            }
        }
    }

    // proves: REDACT-1 (the JSON variants are what serde_json produces)
    #[test]
    fn minimal_json_escape_matches_serde_json() {
        for text in [
            "plain-secret",
            "quo\"te\\back\nline\ttab\u{1}ctl",
            "é✓😀/x<y>&",
        ] {
            let serde = serde_json::to_string(text).expect("json");
            assert_eq!(
                format!("\"{}\"", json_escape(text, JsonStyle::MINIMAL)),
                serde
            );
        }
    }
}
