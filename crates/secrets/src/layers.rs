//! Encoded layers a request may wrap around a secret (BEYOND-6; secrets5
//! #4): base64 of base64, base64 of hex or of percent escapes, gzip or zlib
//! under base64 or hex, UTF-16 under base64 or hex. [`layer_views`] decodes
//! every base64 or hex token of a text, unwraps what it finds (gzip, zlib,
//! UTF-16) and repeats on the result up to [`MAX_LAYER_DEPTH`] times; the
//! egress door searches every view it returns with the redactor (which
//! knows the secret's own base64, hex, escapes...). These views have no map
//! back to the original bytes, so they serve a yes/no check (the door), not
//! redaction.
//!
//! Cost is bounded: decoded output that is neither text, compressed data
//! nor UTF-16 is dropped (a word that happens to be valid base64 decodes to
//! noise), and at most [`MAX_LAYER_BYTES`] of text is produced; past that
//! the answer is [`LayerViews::exhausted`], and the door refuses (it cannot
//! see what the request carries).

use std::io::Read as _;

use base64::Engine as _;

/// How many layers are taken off, at most (base64 of base64 of gzip is 3).
pub const MAX_LAYER_DEPTH: usize = 3;

/// How many bytes of decoded text one call may produce (1 MiB).
pub const MAX_LAYER_BYTES: usize = 1 << 20;

/// A token shorter than this is not decoded: the base64 of the shortest
/// secret ([`crate::MIN_SECRET_BYTES`], 8 bytes) has 11 characters.
const MIN_TOKEN: usize = 11;

/// How many `/`-separated parts of one run are combined into spans.
const MAX_PATH_PARTS: usize = 12;

/// What [`layer_views`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LayerViews {
    /// Each decoded layer's text (lossy UTF-8), outermost first.
    pub views: Vec<String>,
    /// True when the budget ran out before every token was decoded.
    pub exhausted: bool,
}

/// The decoded layers of `text` (module docs).
pub fn layer_views(text: &str) -> LayerViews {
    let mut found = LayerViews::default();
    let mut budget = MAX_LAYER_BYTES;
    let mut pending: Vec<(String, usize)> = vec![(text.to_owned(), 0)];
    while let Some((layer, depth)) = pending.pop() {
        if depth == MAX_LAYER_DEPTH {
            continue;
        }
        for token in tokens(&layer) {
            for bytes in decode_token(token) {
                for unwrapped in unwrap(bytes) {
                    if unwrapped.len() > budget {
                        found.exhausted = true;
                        return found;
                    }
                    budget -= unwrapped.len();
                    let view = String::from_utf8_lossy(&unwrapped).into_owned();
                    pending.push((view.clone(), depth + 1));
                    found.views.push(view);
                }
            }
        }
    }
    found
}

fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=' | b'-' | b'_')
}

/// Every run of base64/hex characters of at least [`MIN_TOKEN`], and, for a
/// run holding `/` or `=` (a URL path, `name=value`), each of its parts.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !(c.is_ascii() && is_token_byte(c as u8))) {
        if run.len() < MIN_TOKEN {
            continue;
        }
        out.push(run);
        if run.contains(['/', '=']) {
            // `d=<base64>` in a query, a base64 token in a path.
            out.extend(
                run.split('=')
                    .filter(|part| part.len() >= MIN_TOKEN && part.len() < run.len()),
            );
            // Standard base64 holds `/` too: every span of whole parts of
            // a path (at most [`MAX_PATH_PARTS`] parts are combined).
            let parts: Vec<(usize, usize)> = run
                .split('/')
                .scan(0usize, |at, part| {
                    let span = (*at, *at + part.len());
                    *at += part.len() + 1;
                    Some(span)
                })
                .collect();
            if parts.len() > 1 {
                let limit = parts.len().min(MAX_PATH_PARTS);
                for first in 0..limit {
                    for last in first..limit {
                        let span = &run[parts[first].0..parts[last].1];
                        if span.len() >= MIN_TOKEN && span.len() < run.len() {
                            out.push(span);
                        }
                    }
                }
            }
        }
    }
    out
}

/// The bytes `token` decodes to as hex (all hex digits, even length) and as
/// base64 (either alphabet, padding optional).
fn decode_token(token: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let bytes = token.as_bytes();
    if bytes.len().is_multiple_of(2) && bytes.iter().all(u8::is_ascii_hexdigit) {
        out.push(
            bytes
                .chunks_exact(2)
                .map(|pair| {
                    let nibble = |b: u8| char::from(b).to_digit(16).unwrap_or(0) as u8;
                    nibble(pair[0]) << 4 | nibble(pair[1])
                })
                .collect(),
        );
    }
    let core = token.trim_end_matches('=');
    if core.contains('=') {
        return out;
    }
    let config = base64::engine::GeneralPurposeConfig::new()
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireNone)
        .with_decode_allow_trailing_bits(true);
    let alphabet = if core.contains(['-', '_']) {
        &base64::alphabet::URL_SAFE
    } else {
        &base64::alphabet::STANDARD
    };
    let engine = base64::engine::GeneralPurpose::new(alphabet, config);
    if let Ok(decoded) = engine.decode(core) {
        out.push(decoded);
    }
    out
}

/// What decoded bytes hold: the inflated data of gzip or zlib, UTF-16
/// decoded, or the bytes themselves when they are text. Anything else is
/// noise and gives nothing.
fn unwrap(bytes: Vec<u8>) -> Vec<Vec<u8>> {
    let inflate = |reader: &mut dyn std::io::Read| {
        let mut out = Vec::new();
        reader
            .take(MAX_LAYER_BYTES as u64 + 1)
            .read_to_end(&mut out)
            .ok()
            .map(|_| out)
    };
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return inflate(&mut flate2::read::MultiGzDecoder::new(&bytes[..]))
            .into_iter()
            .collect();
    }
    if bytes.len() >= 2
        && bytes[0] & 0x0f == 8
        && (u16::from(bytes[0]) << 8 | u16::from(bytes[1])).is_multiple_of(31)
        && let Some(out) = inflate(&mut flate2::read::ZlibDecoder::new(&bytes[..]))
    {
        return vec![out];
    }
    if let Some(text) = utf16(&bytes) {
        return vec![text.into_bytes()];
    }
    if is_text(&bytes) {
        return vec![bytes];
    }
    Vec::new()
}

/// `bytes` as UTF-16 (little or big endian) when every other byte is
/// mostly zero (ASCII text in UTF-16), with or without a byte-order mark.
fn utf16(bytes: &[u8]) -> Option<String> {
    if bytes.len() < 16 || !bytes.len().is_multiple_of(2) {
        return None;
    }
    let zeros = |offset: usize| {
        bytes
            .iter()
            .skip(offset)
            .step_by(2)
            .filter(|&&b| b == 0)
            .count()
    };
    let half = bytes.len() / 2;
    let little = if zeros(1) * 10 >= half * 8 {
        true
    } else if zeros(0) * 10 >= half * 8 {
        false
    } else {
        return None;
    };
    let units = bytes.chunks_exact(2).map(|pair| {
        if little {
            u16::from_le_bytes([pair[0], pair[1]])
        } else {
            u16::from_be_bytes([pair[0], pair[1]])
        }
    });
    Some(
        char::decode_utf16(units)
            .map(|unit| unit.unwrap_or(char::REPLACEMENT_CHARACTER))
            .filter(|&c| c != '\u{feff}')
            .collect(),
    )
}

/// Mostly printable: valid UTF-8 with at least 90% of its characters not
/// control characters (white space aside).
fn is_text(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let total = text.chars().count();
    let control = text
        .chars()
        .filter(|c| c.is_control() && !c.is_whitespace())
        .count();
    total > 0 && control * 10 <= total
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    const KEY: &str = "sk-live-abcdef0123456789XYZ";

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn holds(text: &str) -> bool {
        layer_views(text)
            .views
            .iter()
            .any(|view| view.contains(KEY))
    }

    // proves: BEYOND-6 (secrets5 #4: layered forms decode to the key)
    #[test]
    fn layered_forms_decode() {
        let utf16le: Vec<u8> = KEY.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let utf16be: Vec<u8> = KEY.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for text in [
            format!("/gz?d={}", b64(&gzip(KEY.as_bytes()))),
            format!("/gzhex?d={}", hex(&gzip(KEY.as_bytes()))),
            format!("/bb?d={}", b64(b64(KEY.as_bytes()).as_bytes())),
            format!(
                "/bbb?d={}",
                b64(b64(b64(KEY.as_bytes()).as_bytes()).as_bytes())
            ),
            format!("/u16?d={}", b64(&utf16le)),
            format!("/u16be/{}", hex(&utf16be)),
            format!(
                "/path/{}/x",
                b64(&gzip(b64(KEY.as_bytes()).as_bytes())).trim_end_matches('=')
            ),
        ] {
            assert!(holds(&text), "{text}: {:?}", layer_views(&text));
        }
        // base64 of the key's hex or escapes: the inner text is what the
        // redactor decodes (hex runs, percent views).
        let inner = layer_views(&b64(hex(KEY.as_bytes()).as_bytes())).views;
        assert!(inner.contains(&hex(KEY.as_bytes())));
    }

    // proves: BEYOND-6 (the budget: too much encoded text is reported)
    #[test]
    fn the_budget_is_bounded_and_noise_is_dropped() {
        let noise = "abcdefghijklmnop ".repeat(1000);
        assert!(!layer_views(&noise).exhausted);
        let big = b64(&vec![b'a'; MAX_LAYER_BYTES + 10]);
        assert!(layer_views(&big).exhausted);
        assert!(layer_views("plain words only here").views.is_empty());
    }
}
