//! The encodings of a secret value that the redactor searches for (REDACT-1).
//!
//! The list of what is and is not caught is in the crate documentation.

use base64::Engine as _;

/// How a match of one pattern may be widened by one base64 character on each
/// side: those characters mix secret bits with neighbouring bytes, so they
/// are not part of the pattern but must not survive next to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PatternInfo {
    /// Widen the match by up to this many characters of [`Self::alphabet`]
    /// to the left (one for base64 and base32, a group of five for base85).
    pub(crate) widen_left: u8,
    /// The same to the right.
    pub(crate) widen_right: u8,
    /// Which characters a widening takes.
    pub(crate) alphabet: Alphabet,
    /// Which encoding of the secret this pattern is.
    pub(crate) form: SecretForm,
    /// Index of the secret (in the engine's sorted list) it encodes.
    pub(crate) secret: usize,
}

impl PatternInfo {
    fn of(form: SecretForm) -> PatternInfo {
        PatternInfo {
            widen_left: 0,
            widen_right: 0,
            alphabet: Alphabet::Base64,
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
    /// Base32 or base32hex (RFC 4648), at any alignment, any case.
    Base32,
    /// Ascii85, RFC 1924 base85 or Z85, at any alignment (round7 #13).
    Base85,
    /// Uuencoded lines, decoded (round7 #13).
    Uuencoded,
    /// Percent, backslash or HTML escapes undone (a decoded view).
    Decoded,
    /// A run of at least 12 characters of a long secret.
    Fragment,
    /// Its bytes as decimal numbers (`115 107 45`, `115,107,45`).
    Decimal,
    /// One character per line.
    Spread,
    /// Unicode compatibility forms (full-width, NFD), look-alike letters
    /// of other scripts (Cyrillic `ѕ`, Greek `κ`) or invisible characters
    /// between its characters, folded away.
    Folded,
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
            SecretForm::Base32 => "base32",
            SecretForm::Base85 => "base85",
            SecretForm::Uuencoded => "uuencoded",
            SecretForm::Decoded => "escaped (percent, backslash or HTML)",
            SecretForm::Fragment => "fragment",
            SecretForm::Decimal => "decimal bytes",
            SecretForm::Spread => "one character per line",
            SecretForm::Folded => "compatibility, look-alike or invisible characters folded",
        }
    }
}

/// Whether `byte` belongs to the standard or URL-safe base64 alphabet.
pub(crate) fn is_base64_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'-' | b'_')
}

/// The most characters a match widens by on one side (a base85 group).
pub(crate) const MAX_WIDEN: usize = 5;

/// The characters a match's widening may take (see [`PatternInfo`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Alphabet {
    /// Base64 (both alphabets) and base32: [`is_base64_byte`].
    Base64,
    /// One of the base85 alphabets.
    Base85(&'static [u8; 85]),
}

impl Alphabet {
    /// Whether a widening takes `byte`.
    pub(crate) fn contains(self, byte: u8) -> bool {
        match self {
            Alphabet::Base64 => is_base64_byte(byte),
            Alphabet::Base85(alphabet) => alphabet.contains(&byte),
        }
    }
}

/// Ascii85 (Adobe's `<~ ~>`, Python's `a85encode`, `btoa`): `!` to `u`.
const ASCII85: &[u8; 85] =
    b"!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstu";
/// RFC 1924 base85 (Python's `b85encode`, git's binary patches).
const BASE85: &[u8; 85] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
/// Z85 (ZeroMQ).
const Z85: &[u8; 85] =
    b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/// The base85 alphabets searched (round7 #13).
const BASE85_ALPHABETS: [&[u8; 85]; 3] = [ASCII85, BASE85, Z85];

/// The shortest base85 core listed: shorter cores would make the
/// prefilter sample more often for every secret (its step is set by the
/// shortest pattern) and match ordinary words; 12 is a fragment's length.
const MIN_BASE85_CORE: usize = FRAGMENT_CHARS;

/// The base85 characters fully determined by `secret` when it starts at
/// byte `alignment` (0..4) of a 4-byte group: the five characters of each
/// group holding only secret bytes. A group holding part of the secret
/// and part of its neighbours mixes both into all five of its characters,
/// so a match widens by up to five alphabet characters on that side.
/// `None` when the core is shorter than [`MIN_BASE85_CORE`].
fn base85_core(
    secret: &[u8],
    alignment: usize,
    alphabet: &'static [u8; 85],
) -> Option<(String, PatternInfo)> {
    let end = alignment + secret.len();
    let (first_group, end_group) = (alignment.div_ceil(4), end / 4);
    let mut padded = vec![0u8; alignment];
    padded.extend_from_slice(secret);
    let mut core = String::new();
    for group in first_group..end_group {
        let mut word = [0u8; 4];
        word.copy_from_slice(padded.get(4 * group..4 * group + 4)?);
        let mut value = u32::from_be_bytes(word);
        let mut digits = [0u8; 5];
        for digit in digits.iter_mut().rev() {
            *digit = alphabet[(value % 85) as usize];
            value /= 85;
        }
        core.extend(digits.iter().map(|&b| char::from(b)));
    }
    if core.len() < MIN_BASE85_CORE {
        return None;
    }
    Some((
        core,
        PatternInfo {
            widen_left: if alignment.is_multiple_of(4) {
                0
            } else {
                MAX_WIDEN as u8
            },
            widen_right: if end.is_multiple_of(4) {
                0
            } else {
                MAX_WIDEN as u8
            },
            alphabet: Alphabet::Base85(alphabet),
            ..PatternInfo::of(SecretForm::Base85)
        },
    ))
}

/// Secrets at least this many characters long are also searched for by
/// fragment: every run of [`FRAGMENT_CHARS`] consecutive characters of the
/// value (a model that quotes part of a key still leaks most of it).
pub const FRAGMENT_MIN_SECRET_CHARS: usize = 24;

/// Length in characters of the fragments searched for (see
/// [`FRAGMENT_MIN_SECRET_CHARS`]).
pub const FRAGMENT_CHARS: usize = 12;

/// Shorter secrets, from this many characters, are searched for by longer
/// fragments, [`SHORT_FRAGMENT_CHARS`]: 14 of a 16- to 23-character secret
/// leave at most 9 characters to guess (outside attack agent #3: the hex of
/// a 14-character piece left through the door). Longer pieces keep ordinary
/// words that share a short secret's start from matching.
pub const SHORT_FRAGMENT_MIN_SECRET_CHARS: usize = 16;

/// Length in characters of the fragments of a secret shorter than
/// [`FRAGMENT_MIN_SECRET_CHARS`] (see [`SHORT_FRAGMENT_MIN_SECRET_CHARS`]).
pub const SHORT_FRAGMENT_CHARS: usize = 14;

/// The fragment length for a secret of `chars` characters, if it has
/// fragments at all.
fn fragment_chars(chars: usize) -> Option<usize> {
    if chars >= FRAGMENT_MIN_SECRET_CHARS {
        Some(FRAGMENT_CHARS)
    } else if chars >= SHORT_FRAGMENT_MIN_SECRET_CHARS {
        Some(SHORT_FRAGMENT_CHARS)
    } else {
        None
    }
}

/// Every listed pattern (with its widening) for one secret value. May hold
/// duplicates; the caller deduplicates across all secrets. Free-form escapes
/// (percent, `\uXXXX`, HTML references) are not listed: the decoded views
/// find them (`views.rs`). The automaton ignores ASCII case, so one hex or
/// base32 pattern covers upper, lower and mixed case.
pub(crate) fn patterns_for(secret: &str) -> Vec<(String, PatternInfo)> {
    let plain = PatternInfo::of(SecretForm::Plain);
    let escaped = PatternInfo::of(SecretForm::Escaped);
    let mut out: Vec<(String, PatternInfo)> = vec![(secret.to_owned(), plain)];

    // Escapes stack: a value JSON-escaped into a body that is logged with
    // `{:?}` and embedded in another JSON document. Every composition of the
    // two string escapes up to ESCAPE_DEPTH layers is searched; for values
    // without quotes, backslashes or control characters they all equal the
    // value and cost nothing. (The views undo these too, but only around a
    // `\u`, `\x` or `\/`; `\"` and `\n` alone are too common to decode
    // around.)
    let mut seen: Vec<String> = vec![secret.to_owned()];
    let mut frontier: Vec<String> = vec![secret.to_owned()];
    for _ in 0..ESCAPE_DEPTH {
        let mut next = Vec::new();
        for value in &frontier {
            for text in [json_escape(value), debug_escape(value)] {
                if !seen.contains(&text) {
                    seen.push(text.clone());
                    next.push(text);
                }
            }
        }
        frontier = next;
    }
    out.extend(seen.into_iter().skip(1).map(|text| (text, escaped)));

    // Form encoding writes a space as `+`; the views leave `+` alone (it is
    // also a base64 character), so the `+` spelling is listed.
    if secret.contains(' ') {
        out.push((
            secret.replace(' ', "+"),
            PatternInfo::of(SecretForm::Percent),
        ));
    }

    out.push((hex(secret.as_bytes()), PatternInfo::of(SecretForm::Hex)));

    for engine in [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ] {
        for alignment in 0..3 {
            if let Some(core) = base64_core(secret.as_bytes(), alignment, &engine) {
                out.push(core);
            }
        }
    }
    for alphabet in BASE85_ALPHABETS {
        for alignment in 0..4 {
            out.extend(base85_core(secret.as_bytes(), alignment, alphabet));
        }
    }
    for alphabet in [
        &data_encoding::BASE32_NOPAD,
        &data_encoding::BASE32HEX_NOPAD,
    ] {
        for alignment in 0..5 {
            if let Some(core) = base32_core(secret.as_bytes(), alignment, alphabet) {
                out.push(core);
            }
        }
    }

    // Fragments of the value as typed, without the white space around it:
    // a fragment starting with a space would take the space before a
    // match with it.
    let core = secret.trim();
    let chars: Vec<(usize, char)> = core.char_indices().collect();
    if let Some(size) = fragment_chars(chars.len()) {
        let fragment = PatternInfo::of(SecretForm::Fragment);
        for first in 0..=chars.len() - size {
            let start = chars[first].0;
            let end = chars.get(first + size).map_or(core.len(), |&(at, _)| at);
            let piece = &core[start..end];
            out.push((piece.to_owned(), fragment));
            // A piece of the secret base64-encoded on its own starts at a
            // 3-byte boundary, so its first fragment's base64 at alignment 0
            // is in it (hex of a fragment is found by decoding hex runs,
            // `runs.rs`). Fragments inside a longer base64 blob at another
            // alignment are not listed (cost; see the crate docs).
            for engine in [
                base64::engine::general_purpose::STANDARD_NO_PAD,
                base64::engine::general_purpose::URL_SAFE_NO_PAD,
            ] {
                if let Some((core, info)) = base64_core(piece.as_bytes(), 0, &engine) {
                    out.push((
                        core,
                        PatternInfo {
                            form: SecretForm::Fragment,
                            ..info
                        },
                    ));
                }
            }
        }
    }
    out
}

/// The base32 (RFC 4648) characters fully determined by `secret` when it
/// starts at byte `alignment` (0..5) of a 5-byte group, with the widening
/// for the partly determined character on each side.
fn base32_core(
    secret: &[u8],
    alignment: usize,
    alphabet: &data_encoding::Encoding,
) -> Option<(String, PatternInfo)> {
    let mut padded = vec![0u8; alignment];
    padded.extend_from_slice(secret);
    while !padded.len().is_multiple_of(5) {
        padded.push(0);
    }
    let encoded = alphabet.encode(&padded);
    let (first_bit, end_bit) = (8 * alignment, 8 * (alignment + secret.len()));
    let first = first_bit.div_ceil(5);
    let end = end_bit / 5;
    let core = encoded.get(first..end)?;
    if core.is_empty() {
        return None;
    }
    Some((
        core.to_owned(),
        PatternInfo {
            widen_left: u8::from(!first_bit.is_multiple_of(5)),
            widen_right: u8::from(!end_bit.is_multiple_of(5)),
            ..PatternInfo::of(SecretForm::Base32)
        },
    ))
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
            widen_left: u8::from(alignment != 0),
            widen_right: u8::from(remainder != 0),
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

/// The body (without quotes) of the JSON string holding `text`, as
/// serde_json writes it.
fn json_escape(text: &str) -> String {
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
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push_str(&format!("{byte:02x}"));
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

    // proves: REDACT-1, BEYOND-6 (round7 #13: every base85 core is a
    // substring of what Python's `a85encode`/`b85encode` write for a blob
    // holding the secret at each alignment; Z85 is the same digits in its
    // own alphabet)
    #[test]
    fn base85_cores_are_substrings_of_real_encodings() {
        let secret = b"sk-test-0123456789abcdef";
        // `base64.a85encode(b"#" * k + secret + b"!!")` and b85encode.
        let encoded = [
            (
                "F)*@LATMrF0JP==1c70M3&tDV@q9._+X$",
                "b89VhWpi{bFflSSG&MFiI5}ZrV`OD!At3",
            ),
            (
                ",BIWPFCfN8/MJn71GgsI2`Ng+@Uiq[Ag&;",
                "BXeslbY*jNEif@MGc+|eH#j+AVq;`wW+5Q",
            ),
            (
                ",9q8F/TbQFF=f1$1,CaE2E*TU@:E_WAS*)/",
                "BO`NbEp%mbbS*G3GBY$aHa9pqVPa!sWo98E",
            ),
            (
                ",9nFSCFsX>F*&uf0etOA2)[BQ3FQB,A7]?r+T",
                "BO@boYb|tTb95~*F)}kWH8wXmIbmXBWMyU{Ap",
            ),
        ];
        for (alignment, (a85, b85)) in encoded.into_iter().enumerate() {
            let z85: String = b85
                .bytes()
                .map(|c| char::from(Z85[BASE85.iter().position(|&d| d == c).unwrap()]))
                .collect();
            for (alphabet, text) in [(ASCII85, a85), (BASE85, b85), (Z85, z85.as_str())] {
                let (core, info) = base85_core(secret, alignment, alphabet).expect("core");
                assert!(text.contains(&core), "{alignment}: {core} not in {text}");
                assert_eq!(info.widen_left, if alignment == 0 { 0 } else { 5 });
                assert!(core.len() >= MIN_BASE85_CORE);
            }
        }
        // Too short for a core of 12 characters at this alignment.
        assert!(base85_core(b"sk-live-0123", 3, ASCII85).is_none());
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
            assert_eq!(format!("\"{}\"", json_escape(text)), serde);
        }
    }
}
