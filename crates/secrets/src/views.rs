//! Decoded views of the input (REDACT-1, BEYOND-6): free-form escapes, where
//! each character of a secret may or may not be encoded and in either case,
//! are undone on a copy of the text that remembers where each decoded byte
//! came from. The automaton then searches the copy, and a match is mapped
//! back to the encoded span of the original.
//!
//! One decoder undoes, in one left-to-right pass, every unit below; the pass
//! is repeated on its own output (up to [`MAX_DEPTH`] layers) for stacked
//! encodings such as `%252D` or a percent-encoded `&#116;`:
//! * percent: `%XX` (any case) and `%uXXXX` (JavaScript `escape`);
//! * backslash escapes (JSON, JavaScript, Python, Rust, Perl): `\uXXXX`
//!   (with surrogate pairs), `\u{X…}`, `\UXXXXXXXX`, `\xXX` (the byte),
//!   octal `\NNN` (the byte, first digit 0-3), Perl's `\x{X…}`, `\o{N…}`
//!   and `\N{U+X…}` (a code point, round8 #8), `\/`,
//!   `\\`, `\"`, `\'`, `\n`, `\r`, `\t`, `\b`, `\f`;
//! * HTML character references: decimal `&#116;` and hex `&#x74;` (any
//!   case, up to 7 digits, `;` optional) and every named reference of the
//!   HTML standard (`&amp;`, `&lowbar;`, `&eacute;`, …; with `;`).
//!
//! Views are built only around *triggers*: a `%`, `\` or `&` that starts a
//! unit which changes the text (`%2D`, `\u0074`, `\/`, `&#116;`, `&amp;`).
//! Text without one (most text: the check is a `memchr` for three bytes)
//! pays nothing. Around each trigger, the view covers the reach of the
//! longest secret in its most expanded single-layer form
//! ([`REACH_PER_BYTE`] bytes per secret byte), starting at a point where no
//! unit can begin earlier and still cover it ([`safe_start`]), so a view
//! decodes exactly as a decode of the whole text would.

use std::collections::HashMap;
use std::sync::LazyLock;

/// Layers of stacked escaping undone (e.g. `%252D` -> `%2D` -> `-`).
pub(crate) const MAX_DEPTH: usize = 3;

/// Bytes of the original one secret byte may take in the most expanded
/// single-layer form searched (`&#0000116;` is 10, a named reference such
/// as `&lowbar;` 8, `\u0074` 6). Longer encodings of a whole secret are not
/// guaranteed to be found whole (fragments may still be).
pub(crate) const REACH_PER_BYTE: usize = 12;

/// The longest unit: a named reference (`&CounterClockwiseContourIntegral;`)
/// or a surrogate pair (`\uD83D\uDE00`).
pub(crate) const MAX_UNIT: usize = 34;

/// How far [`safe_start`] walks back at most (runs of back-to-back escapes).
const MAX_SAFE_WALK: usize = 4096;

/// Which kinds of unit a view undid (a bit set).
pub(crate) const KIND_PERCENT: u8 = 1;
/// Backslash escapes.
pub(crate) const KIND_BACKSLASH: u8 = 2;
/// HTML references.
pub(crate) const KIND_HTML: u8 = 4;
/// Separated or wrapped runs joined or decoded (`runs.rs`).
pub(crate) const KIND_JOINED: u8 = 8;

/// Every named HTML character reference with its `;`, name (without `&`
/// and `;`) to the characters it stands for.
static NAMED: LazyLock<HashMap<&'static [u8], &'static str>> = LazyLock::new(|| {
    entities::ENTITIES
        .iter()
        .filter_map(|entity| {
            let name = entity.entity.strip_prefix('&')?.strip_suffix(';')?;
            Some((name.as_bytes(), entity.characters))
        })
        .collect()
});

/// A decoded copy of part of the input. `starts[i]..ends[i]` is the span of
/// the original input that decoded byte `i` came from.
#[derive(Debug, Default)]
pub(crate) struct View {
    pub(crate) bytes: Vec<u8>,
    pub(crate) starts: Vec<usize>,
    pub(crate) ends: Vec<usize>,
    /// Which kinds of unit were undone anywhere in this view (and below).
    pub(crate) kinds: u8,
}

impl View {
    /// The span of the original that decoded bytes `from..to` came from.
    pub(crate) fn original(&self, from: usize, to: usize) -> (usize, usize) {
        (self.starts[from], self.ends[to - 1])
    }
}

/// One decoded unit: how many input bytes it takes and what it yields.
enum Unit {
    /// A single byte.
    Byte(u8, usize, u8),
    /// A character (UTF-8 encoded on output).
    Char(char, usize, u8),
    /// Several characters (some named references).
    Text(&'static str, usize),
}

fn hex_value(byte: u8) -> Option<u32> {
    char::from(byte).to_digit(16)
}

/// The value of `count` hex digits at `bytes[at..]`.
fn hex_digits(bytes: &[u8], at: usize, count: usize) -> Option<u32> {
    let digits = bytes.get(at..at + count)?;
    digits
        .iter()
        .try_fold(0u32, |acc, &b| Some(acc * 16 + hex_value(b)?))
}

/// The unit starting at `bytes[at]` when it is an escape that changes the
/// text; `None` for a literal byte.
fn unit_at(bytes: &[u8], at: usize) -> Option<Unit> {
    match bytes[at] {
        b'%' => percent_unit(bytes, at),
        b'\\' => backslash_unit(bytes, at),
        b'&' => html_unit(bytes, at),
        _ => None,
    }
}

fn percent_unit(bytes: &[u8], at: usize) -> Option<Unit> {
    if let Some(value) = hex_digits(bytes, at + 1, 2) {
        return Some(Unit::Byte(value as u8, 3, KIND_PERCENT));
    }
    if matches!(bytes.get(at + 1), Some(b'u' | b'U')) {
        let value = hex_digits(bytes, at + 2, 4)?;
        return Some(Unit::Char(char::from_u32(value)?, 6, KIND_PERCENT));
    }
    None
}

fn backslash_unit(bytes: &[u8], at: usize) -> Option<Unit> {
    let simple = |byte: u8| Some(Unit::Byte(byte, 2, KIND_BACKSLASH));
    match *bytes.get(at + 1)? {
        b'u' if bytes.get(at + 2) == Some(&b'{') => {
            let close = bytes
                .get(at + 3..(at + 10).min(bytes.len()))?
                .iter()
                .position(|&b| b == b'}')?;
            let digits = bytes.get(at + 3..at + 3 + close)?;
            if digits.is_empty() {
                return None;
            }
            let value = hex_digits(digits, 0, digits.len())?;
            Some(Unit::Char(
                char::from_u32(value)?,
                close + 4,
                KIND_BACKSLASH,
            ))
        }
        b'u' => {
            let unit = hex_digits(bytes, at + 2, 4)?;
            if (0xD800..0xDC00).contains(&unit) {
                // A high surrogate needs its low half: `\uD83D\uDE00`.
                if bytes.get(at + 6) != Some(&b'\\') || bytes.get(at + 7) != Some(&b'u') {
                    return None;
                }
                let low = hex_digits(bytes, at + 8, 4)?;
                if !(0xDC00..0xE000).contains(&low) {
                    return None;
                }
                let value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                return Some(Unit::Char(char::from_u32(value)?, 12, KIND_BACKSLASH));
            }
            Some(Unit::Char(char::from_u32(unit)?, 6, KIND_BACKSLASH))
        }
        b'U' => {
            let value = hex_digits(bytes, at + 2, 8)?;
            Some(Unit::Char(char::from_u32(value)?, 10, KIND_BACKSLASH))
        }
        // Perl's `\x{73}` (a code point, any number of digits up to 8).
        b'x' if bytes.get(at + 2) == Some(&b'{') => braced_unit(bytes, at, 3, 16),
        b'x' => Some(Unit::Byte(
            hex_digits(bytes, at + 2, 2)? as u8,
            4,
            KIND_BACKSLASH,
        )),
        // Perl's `\o{163}` (octal) and `\N{U+0073}` (a code point by number).
        b'o' if bytes.get(at + 2) == Some(&b'{') => braced_unit(bytes, at, 3, 8),
        b'N' if bytes.get(at + 2..at + 5) == Some(b"{U+") => braced_unit(bytes, at, 5, 16),
        // C, Python, JavaScript (legacy) and shell octal: `\164` is `t`.
        // C, Python, JavaScript (legacy) and shell octal: `\164` is `t`;
        // otherwise CSS (`\2d `).
        first @ b'0'..=b'3' => {
            let digits = bytes.get(at + 2..at + 4);
            match digits {
                Some(digits) if digits.iter().all(|d| (b'0'..=b'7').contains(d)) => {
                    let value = (first - b'0') * 64 + (digits[0] - b'0') * 8 + (digits[1] - b'0');
                    Some(Unit::Byte(value, 4, KIND_BACKSLASH))
                }
                _ => css_unit(bytes, at),
            }
        }
        // JSON's `\b` and `\f` unless a hex digit or white space follows
        // (then CSS: `\bc `).
        b'b' | b'f' => match bytes.get(at + 2) {
            Some(next) if next.is_ascii_hexdigit() || is_css_space(*next) => css_unit(bytes, at),
            _ => simple(if bytes[at + 1] == b'b' { 0x08 } else { 0x0C }),
        },
        // CSS: `\73 ` is `s`: 1 to 6 hex digits, one white space after them
        // swallowed. A single digit needs the space (`\d+` in a regular
        // expression is not an escape).
        first if first.is_ascii_hexdigit() => css_unit(bytes, at),
        b'/' => simple(b'/'),
        b'\\' => simple(b'\\'),
        b'"' => simple(b'"'),
        b'\'' => simple(b'\''),
        b'n' => simple(b'\n'),
        b'r' => simple(b'\r'),
        b't' => simple(b'\t'),
        _ => None,
    }
}

/// The most digits a braced escape holds (`\x{0010FFFF}`).
const MAX_BRACED_DIGITS: usize = 8;

/// A code point written as 1 to [`MAX_BRACED_DIGITS`] digits of `radix`
/// from `bytes[at + head]` up to a closing `}` (Perl's `\x{…}`, `\o{…}`,
/// `\N{U+…}`: `head` is the length of what comes before the digits).
fn braced_unit(bytes: &[u8], at: usize, head: usize, radix: u32) -> Option<Unit> {
    let digits = at + head;
    let count = bytes
        .get(digits..)?
        .iter()
        .take(MAX_BRACED_DIGITS + 1)
        .take_while(|b| char::from(**b).is_digit(radix))
        .count();
    if count == 0 || count > MAX_BRACED_DIGITS || bytes.get(digits + count) != Some(&b'}') {
        return None;
    }
    let text = std::str::from_utf8(&bytes[digits..digits + count]).ok()?;
    let value = u32::from_str_radix(text, radix).ok()?;
    Some(Unit::Char(
        char::from_u32(value)?,
        head + count + 1,
        KIND_BACKSLASH,
    ))
}

fn is_css_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n')
}

/// A CSS escape at `bytes[at]` (a backslash followed by a hex digit).
fn css_unit(bytes: &[u8], at: usize) -> Option<Unit> {
    let digits = bytes
        .get(at + 1..)?
        .iter()
        .take(6)
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    let value = hex_digits(bytes, at + 1, digits)?;
    let space = bytes
        .get(at + 1 + digits)
        .is_some_and(|next| is_css_space(*next));
    if value == 0 || (digits < 2 && !space) {
        return None;
    }
    Some(Unit::Char(
        char::from_u32(value)?,
        1 + digits + usize::from(space),
        KIND_BACKSLASH,
    ))
}

fn html_unit(bytes: &[u8], at: usize) -> Option<Unit> {
    if bytes.get(at + 1) == Some(&b'#') {
        let (radix, first) = match bytes.get(at + 2) {
            Some(b'x' | b'X') => (16, at + 3),
            _ => (10, at + 2),
        };
        let digits = bytes
            .get(first..)?
            .iter()
            .take(8)
            .take_while(|b| char::from(**b).is_digit(radix))
            .count();
        if digits == 0 || digits > 7 {
            return None;
        }
        let text = std::str::from_utf8(&bytes[first..first + digits]).ok()?;
        let value = u32::from_str_radix(text, radix).ok()?;
        let semicolon = usize::from(bytes.get(first + digits) == Some(&b';'));
        return Some(Unit::Char(
            char::from_u32(value)?,
            first + digits + semicolon - at,
            KIND_HTML,
        ));
    }
    let name_len = bytes
        .get(at + 1..)?
        .iter()
        .take(MAX_UNIT - 1)
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    if name_len == 0 || bytes.get(at + 1 + name_len) != Some(&b';') {
        return None;
    }
    let text = NAMED.get(&bytes[at + 1..at + 1 + name_len])?;
    Some(Unit::Text(text, name_len + 2))
}

/// Whether a trigger byte at `at` starts a unit (so a view is worth building).
pub(crate) fn is_trigger(bytes: &[u8], at: usize) -> bool {
    unit_at(bytes, at).is_some()
}

/// A start at or before `at` where no unit that begins earlier covers the
/// position, so decoding from it parses units as decoding from the very
/// start would (walks back over runs such as `\\\u0074`, at most
/// [`MAX_SAFE_WALK`] bytes).
pub(crate) fn safe_start(bytes: &[u8], at: usize) -> usize {
    let limit = at.saturating_sub(MAX_SAFE_WALK);
    let mut at = at;
    while at > limit {
        let covering = (at.saturating_sub(MAX_UNIT).max(limit)..at)
            .find(|&from| unit_at(bytes, from).is_some_and(|unit| from + unit.len() > at));
        match covering {
            Some(from) => at = from,
            None => break,
        }
    }
    at
}

impl Unit {
    fn len(&self) -> usize {
        match *self {
            Unit::Byte(_, len, _) | Unit::Char(_, len, _) | Unit::Text(_, len) => len,
        }
    }
}

/// Decodes `input` (one layer). `map` gives, for input byte `i`, the span of
/// the original it came from: `None` when `input` is the original itself,
/// starting at offset `base`. `None` when nothing changed.
pub(crate) fn decode(input: &[u8], base: usize, map: Option<&View>) -> Option<View> {
    let mut view = View {
        bytes: Vec::with_capacity(input.len()),
        starts: Vec::with_capacity(input.len()),
        ends: Vec::with_capacity(input.len()),
        kinds: map.map_or(0, |m| m.kinds),
    };
    let span = |from: usize, to: usize| match map {
        Some(m) => m.original(from, to),
        None => (base + from, base + to),
    };
    let mut changed = false;
    let mut at = 0;
    while at < input.len() {
        let unit = if matches!(input[at], b'%' | b'\\' | b'&') {
            unit_at(input, at)
        } else {
            None
        };
        let Some(unit) = unit else {
            let (start, end) = span(at, at + 1);
            view.bytes.push(input[at]);
            view.starts.push(start);
            view.ends.push(end);
            at += 1;
            continue;
        };
        changed = true;
        let len = unit.len();
        let (start, end) = span(at, at + len);
        let mut utf8 = [0u8; 4];
        let out: &[u8] = match &unit {
            Unit::Byte(byte, _, kind) => {
                view.kinds |= kind;
                std::slice::from_ref(byte)
            }
            Unit::Char(c, _, kind) => {
                view.kinds |= kind;
                c.encode_utf8(&mut utf8).as_bytes()
            }
            Unit::Text(text, _) => {
                view.kinds |= KIND_HTML;
                text.as_bytes()
            }
        };
        for &byte in out {
            view.bytes.push(byte);
            view.starts.push(start);
            view.ends.push(end);
        }
        at += len;
    }
    changed.then_some(view)
}

/// The regions of `bytes` worth decoding: around every trigger, `reach`
/// bytes each side, starting at a [`safe_start`], merged when they touch.
pub(crate) fn regions(bytes: &[u8], reach: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for at in memchr::memchr3_iter(b'%', b'\\', b'&', bytes) {
        let end = (at + reach).min(bytes.len());
        // A trigger whose window the last region already covers adds nothing.
        if out.last().is_some_and(|&(_, last_end)| end <= last_end) || !is_trigger(bytes, at) {
            continue;
        }
        match out.last_mut() {
            Some((_, last_end)) if at.saturating_sub(reach) <= *last_end => *last_end = end,
            _ => out.push((safe_start(bytes, at.saturating_sub(reach)), end)),
        }
    }
    out
}

/// `text` with every escape unit undone (percent, backslash, HTML; up to
/// 3 stacked layers), for rules that judge text by its shape
/// (the scrubber). Bytes that do not form UTF-8 become U+FFFD. Borrows when
/// there is nothing to undo.
pub fn unescape(text: &str) -> std::borrow::Cow<'_, str> {
    let Some(mut view) = decode(text.as_bytes(), 0, None) else {
        return std::borrow::Cow::Borrowed(text);
    };
    for _ in 1..MAX_DEPTH {
        match decode(&view.bytes, 0, Some(&view)) {
            Some(next) => view = next,
            None => break,
        }
    }
    std::borrow::Cow::Owned(String::from_utf8_lossy(&view.bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(text: &str) -> String {
        assert!(decode(text.as_bytes(), 0, None).is_some(), "{text}");
        unescape(text).into_owned()
    }

    // proves: REDACT-1 (every unit kind decodes, in any case, stacked)
    #[test]
    fn every_unit_kind_decodes() {
        for (encoded, plain) in [
            ("%74%76%6C%79", "tvly"),
            ("%74%76%6c%79", "tvly"),
            ("sk%2Dlive%2d", "sk-live-"),
            ("%u0074%U0076", "tv"),
            ("\\u0074\\u0076\\u006C", "tvl"),
            ("\\u00e9\\ud83d\\ude00", "é😀"),
            ("\\u{74}\\u{1F600}", "t😀"),
            ("\\U00000074", "t"),
            ("\\x74\\x76", "tv"),
            // Perl (round8 #8).
            ("\\x{73}\\x{6b}\\x{0002d}", "sk-"),
            ("\\N{U+0073}\\N{U+6B}", "sk"),
            ("\\o{163}\\o{153}", "sk"),
            ("\\164\\166\\154\\171", "tvly"),
            ("\\73 \\6b \\2d \\43 x", "sk-Cx"),
            ("\\73\\6B\\2d", "sk-"),
            ("a\\/b\\\\c\\\"d", "a/b\\c\"d"),
            ("&#116;&#x76;&#X6C;&#121", "tvly"),
            ("&#0000116;", "t"),
            ("&lowbar;&hyphen;&amp;&quot;&eacute;", "_\u{2010}&\"é"),
            ("%252D", "-"),
            ("%26%23116%3B", "t"),
            ("\\\\u0074", "t"),
        ] {
            assert_eq!(decoded(encoded), plain, "{encoded}");
        }
    }

    // proves: REDACT-1 (text that is not an escape is left alone)
    #[test]
    fn non_units_are_literal() {
        for text in [
            "100% sure",
            "%zz",
            "a & b",
            "&unknownname;",
            "C:\\Users\\x",
            "\\q",
            "\\d+",
            "&#;",
            "&#12345678;",
            "\\x{}",
            "\\x{73",
            "\\x{123456789}",
            "\\o{8}",
            "\\N{LATIN SMALL LETTER S}",
            "\\N{U+}",
        ] {
            assert!(decode(text.as_bytes(), 0, None).is_none(), "{text}");
        }
    }

    // proves: REDACT-1 (decoded bytes map back to their encoded spans)
    #[test]
    fn map_points_at_the_encoded_span() {
        let text = "ab%2Dcd&#116;";
        let view = decode(text.as_bytes(), 10, None).expect("changed");
        assert_eq!(view.bytes, b"ab-cdt");
        assert_eq!(view.original(2, 3), (12, 15));
        assert_eq!(view.original(5, 6), (17, 23));
        assert_eq!(view.kinds, KIND_PERCENT | KIND_HTML);
    }

    // proves: REDACT-1 (a view never starts inside a unit)
    #[test]
    fn safe_start_walks_back_over_escape_runs() {
        let text = b"xx\\\\\\u0074yy";
        // Position 5 is inside `\u0074` (4..10), whose backslash may be the
        // second half of `\\` (3..5), whose first may be the second half of
        // another (2..4): the walk goes back to the start of the run.
        assert_eq!(safe_start(text, 5), 2);
        assert_eq!(safe_start(text, 3), 2);
        assert_eq!(safe_start(b"plain text", 5), 5);
        assert_eq!(safe_start(b"%41%42", 4), 3);
    }
}
