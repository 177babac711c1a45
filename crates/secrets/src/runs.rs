//! Views of encoded runs that are split up by white space or separators
//! (REDACT-1, BEYOND-6): one normalisation, not one pattern per layout.
//!
//! * **Hex runs**: hex digits in groups separated by white space, `:` or
//!   `,`, each group optionally prefixed `0x` (`73 6b 2d`, `73:6b:2d`,
//!   `0x73, 0x6b`, xxd's `736b 2d43`, `xxd -p` wrapped at 60 columns, a hex
//!   blob written without separators). The digits are *decoded* to bytes, so
//!   the automaton finds the secret itself, or any 12-character fragment of
//!   a long one, inside (hex of a fragment, hex of part of a blob).
//! * **Wrapped lines**: base64, base32 or anything else cut into lines (MIME
//!   at 76 columns, `base64` at any width, PEM): consecutive lines that each
//!   hold one token of base64/base32 characters are *joined* (white space
//!   removed), so the listed base64 and base32 patterns match across the
//!   line breaks.
//!
//! Cost: hex runs are found by sampling one byte every [`HEX_STEP`] bytes
//! (a run long enough to hold a secret covers a sample); at a hex-class
//! sample, the run around it is measured (a few bytes in prose). Wrapped
//! lines are found at newlines (`memchr`), checking the tokens on each side.
//! Text without such runs pays little; long hex dumps are decoded once.

use crate::redactor::MIN_SECRET_BYTES;
use crate::views::{KIND_JOINED, View};

/// Hex digits a run must hold to be decoded: the hex of the shortest secret.
const MIN_HEX_DIGITS: usize = 2 * MIN_SECRET_BYTES;

/// Sampling: one aligned 8-byte block in every [`HEX_STEP`] bytes is
/// tested. A run that needs a view is at least 23 bytes long (8 bytes of a
/// short secret with a separator between each: `73 6b … 72`; or a fragment's
/// 24 hex digits; a whole secret in hex without separators is a listed
/// pattern), and any 23 consecutive bytes hold two consecutive aligned
/// blocks, so one of them is tested.
const HEX_STEP: usize = 16;

/// A token of a wrapped block has at least this many characters (base64
/// wrapped at 4 is not a layout anyone uses; shorter tokens are words).
const MIN_WRAPPED_TOKEN: usize = 4;

/// How far a walk over one run goes at most (longer runs are cut into
/// pieces; the caller's reach covers any one secret).
const MAX_RUN: usize = 1 << 16;

/// Hex digits, separators and the `x` of `0x`.
static HEX_CLASS: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_hexdigit() || is_separator(b) || b == b'x' || b == b'X';
        byte += 1;
    }
    table
};

fn is_hex_class(byte: u8) -> bool {
    HEX_CLASS[usize::from(byte)]
}

const fn is_separator(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | b':' | b',')
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = ONES * 0x80;

/// Whether any byte `b` of `word` (all below 128) has `low < b < high`
/// (the "has between" bit trick; `high` at most 128).
fn has_between(word: u64, low: u8, high: u8) -> bool {
    let low_bits = word & (ONES * 127);
    (ONES * (127 + u64::from(high))).wrapping_sub(low_bits)
        & !word
        & low_bits.wrapping_add(ONES * (127 - u64::from(low)))
        & HIGH
        != 0
}

/// A cheap test that the 8 bytes may all be hex-class: no byte at or above
/// 128 and no letter `g`-`w`, `y`, `z` in either case (the bytes of prose
/// and of most log text). May answer yes for other punctuation; the caller
/// checks byte by byte then.
fn may_be_hex_block(block: &[u8]) -> bool {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(block);
    let word = u64::from_le_bytes(bytes);
    if word & HIGH != 0 {
        return false;
    }
    // Setting 0x20 folds upper-case letters to lower case (and moves no
    // other byte into `g`..`z`).
    let folded = word | (ONES * 0x20);
    !has_between(folded, b'f', b'x') && !has_between(folded, b'x', b'{')
}

/// Base64 (both alphabets), base32 and base32hex characters, with padding.
fn is_encoded_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'-' | b'_' | b'=')
}

/// Decoded views of every hex run in `window` holding at least
/// [`MIN_HEX_DIGITS`] digits (offsets relative to `base`).
pub(crate) fn hex_views(window: &[u8], base: usize, views: &mut Vec<View>) {
    let mut block = 0usize;
    while block + 8 <= window.len() {
        let at = block;
        let candidate = may_be_hex_block(&window[at..at + 8])
            && window[at..at + 8].iter().all(|&b| is_hex_class(b));
        if !candidate {
            block += HEX_STEP;
            continue;
        }
        let mut start = at;
        while start > 0 && at - start < MAX_RUN && is_hex_class(window[start - 1]) {
            start -= 1;
        }
        let mut end = at + 1;
        while end < window.len() && end - at < MAX_RUN && is_hex_class(window[end]) {
            end += 1;
        }
        let digits = window[start..end]
            .iter()
            .filter(|b| b.is_ascii_hexdigit())
            .count();
        if digits >= MIN_HEX_DIGITS {
            decode_hex_span(window, start, end, base, views);
        }
        block = (end.max(at + HEX_STEP)).next_multiple_of(HEX_STEP);
    }
}

/// Splits `window[start..end]` into tokens at separators and decodes every
/// sequence of consecutive hex tokens (`0x` prefix removed) of even length.
/// A token of odd length ends a sequence; a long one alone is decoded at
/// both nibble phases (a stream window may have cut it anywhere).
fn decode_hex_span(window: &[u8], start: usize, end: usize, base: usize, views: &mut Vec<View>) {
    // Digit positions of the current sequence, each with where its span
    // starts (a `0x` prefix belongs to the byte after it).
    let mut digits: Vec<(usize, usize)> = Vec::new();
    let mut at = start;
    while at < end {
        if is_separator(window[at]) {
            at += 1;
            continue;
        }
        let token_start = at;
        while at < end && !is_separator(window[at]) {
            at += 1;
        }
        let mut token = token_start;
        if at - token >= 3 && window[token] == b'0' && matches!(window[token + 1], b'x' | b'X') {
            token += 2;
        }
        let is_hex = window[token..at].iter().all(u8::is_ascii_hexdigit);
        if is_hex && (at - token).is_multiple_of(2) {
            digits.extend((token..at).map(|digit| (digit, digit)));
            if let Some(first) = digits.len().checked_sub(at - token) {
                digits[first].0 = token_start;
            }
            continue;
        }
        flush_hex(window, &digits, base, views);
        digits.clear();
        if is_hex && at - token > MIN_HEX_DIGITS {
            let odd: Vec<(usize, usize)> = (token..at).map(|digit| (digit, digit)).collect();
            flush_hex(window, &odd[..odd.len() - 1], base, views);
            flush_hex(window, &odd[1..], base, views);
        }
    }
    flush_hex(window, &digits, base, views);
}

/// Decodes the digits at `positions` (an even count used pairwise) into a
/// view when there are enough of them.
fn flush_hex(window: &[u8], positions: &[(usize, usize)], base: usize, views: &mut Vec<View>) {
    if positions.len() < MIN_HEX_DIGITS {
        return;
    }
    let mut view = View {
        kinds: KIND_JOINED,
        ..View::default()
    };
    for pair in positions.chunks_exact(2) {
        let nibble = |at: usize| char::from(window[at]).to_digit(16).unwrap_or(0) as u8;
        view.bytes.push(nibble(pair[0].1) << 4 | nibble(pair[1].1));
        view.starts.push(base + pair[0].0);
        view.ends.push(base + pair[1].1 + 1);
    }
    views.push(view);
}

/// The token of encoded characters ending at `end` (exclusive): its start.
fn token_start_before(window: &[u8], end: usize) -> usize {
    let mut start = end;
    while start > 0 && end - start < MAX_RUN && is_encoded_byte(window[start - 1]) {
        start -= 1;
    }
    start
}

/// The token of encoded characters starting at `start`: its end.
fn token_end_after(window: &[u8], start: usize) -> usize {
    let mut end = start;
    while end < window.len() && end - start < MAX_RUN && is_encoded_byte(window[end]) {
        end += 1;
    }
    end
}

/// One line's shape: the first and last encoded tokens and whether the
/// line holds nothing else (indentation and `\r` aside).
struct Line {
    first: (usize, usize),
    last: (usize, usize),
    single: bool,
}

/// The line `window[start..end]` (no newline inside).
fn line_shape(window: &[u8], start: usize, end: usize) -> Line {
    let mut content_end = end;
    while content_end > start && matches!(window[content_end - 1], b'\r' | b' ' | b'\t') {
        content_end -= 1;
    }
    let mut content_start = start;
    while content_start < content_end && matches!(window[content_start], b' ' | b'\t') {
        content_start += 1;
    }
    let first_end = token_end_after(window, content_start).min(content_end);
    let last_start = token_start_before(window, content_end).max(content_start);
    Line {
        first: (content_start, first_end),
        last: (last_start, content_end),
        single: first_end == content_end && content_end > content_start,
    }
}

fn line_end(window: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &window[from..]).map_or(window.len(), |at| from + at)
}

fn line_start(window: &[u8], before: usize) -> usize {
    memchr::memrchr(b'\n', &window[..before]).map_or(0, |at| at + 1)
}

/// Joined views of every block of wrapped lines in `window`: a line break
/// with an encoded token of at least [`MIN_WRAPPED_TOKEN`] characters on
/// each side, where at least one side is a whole line. The block runs over
/// every following whole-token line, plus the first token of the line
/// after it and the last token of the line before the first.
pub(crate) fn wrapped_views(window: &[u8], base: usize, views: &mut Vec<View>) {
    let mut newlines = memchr::memchr_iter(b'\n', window);
    while let Some(newline) = newlines.next() {
        // Cheap test first: an encoded byte on each side of the break.
        let mut last = newline;
        while last > 0 && window[last - 1] == b'\r' {
            last -= 1;
        }
        let mut next = newline + 1;
        while next < window.len() && matches!(window[next], b' ' | b'\t') {
            next += 1;
        }
        if last == 0 || next >= window.len() {
            continue;
        }
        if !is_encoded_byte(window[last - 1]) || !is_encoded_byte(window[next]) {
            continue;
        }
        let before = line_shape(window, line_start(window, newline), newline);
        let next_end = line_end(window, newline + 1);
        let after = line_shape(window, newline + 1, next_end);
        let long = |(from, to): (usize, usize)| to - from >= MIN_WRAPPED_TOKEN;
        if !(long(before.last) && long(after.first) && (before.single || after.single)) {
            continue;
        }
        let mut tokens = vec![before.last, after.first];
        let mut block_end = next_end;
        let mut line = after;
        while line.single && block_end < window.len() && block_end - newline < MAX_RUN {
            let end = line_end(window, block_end + 1);
            line = line_shape(window, block_end + 1, end);
            if !long(line.first) {
                break;
            }
            tokens.push(line.first);
            block_end = end;
        }
        let mut view = View {
            kinds: KIND_JOINED,
            ..View::default()
        };
        for (from, to) in tokens {
            view.bytes.extend_from_slice(&window[from..to]);
            view.starts.extend((from..to).map(|at| base + at));
            view.ends.extend((from..to).map(|at| base + at + 1));
        }
        views.push(view);
        // Skip the newlines inside the block just joined.
        while newlines.next().is_some_and(|at| at < block_end) {}
    }
}

/// Decimal numbers a run must hold to be decoded: the bytes of the
/// shortest secret.
const MIN_DECIMAL_NUMBERS: usize = MIN_SECRET_BYTES;

/// Digits and the separators of decimal byte lists (`od -An -tu1`,
/// `115,107,45`, a C array's `{115, 107}`, `fromCharCode(115,107)`).
static DECIMAL_CLASS: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_digit() || is_decimal_separator(b);
        byte += 1;
    }
    table
};

const fn is_decimal_separator(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | b',' | b';')
}

fn is_decimal_class(byte: u8) -> bool {
    DECIMAL_CLASS[usize::from(byte)]
}

/// Decoded views of every run of decimal byte values (each 0-255,
/// separated by white space, `,` or `;`) holding at least
/// [`MIN_DECIMAL_NUMBERS`] of them (secrets5 #12: `od -tu1`, byte arrays,
/// `115,107,45,…` in a URL). A printable secret's bytes are 32-126, two or
/// three digits each, so such a run is at least 23 bytes long and holds an
/// aligned 8-byte block at a multiple of [`HEX_STEP`]: one block in every
/// 16 bytes is tested, as for hex.
pub(crate) fn decimal_views(window: &[u8], base: usize, views: &mut Vec<View>) {
    let mut block = 0usize;
    while block + 8 <= window.len() {
        let at = block;
        let candidate = window[at..at + 8].iter().all(|&b| is_decimal_class(b))
            && window[at..at + 8].iter().any(u8::is_ascii_digit);
        if !candidate {
            block += HEX_STEP;
            continue;
        }
        let mut start = at;
        while start > 0 && at - start < MAX_RUN && is_decimal_class(window[start - 1]) {
            start -= 1;
        }
        let mut end = at + 1;
        while end < window.len() && end - at < MAX_RUN && is_decimal_class(window[end]) {
            end += 1;
        }
        decode_decimal_span(window, start, end, base, views);
        block = (end.max(at + HEX_STEP)).next_multiple_of(HEX_STEP);
    }
}

/// Splits `window[start..end]` at separators and decodes every sequence
/// of consecutive numbers 0-255 (a larger number ends a sequence).
fn decode_decimal_span(
    window: &[u8],
    start: usize,
    end: usize,
    base: usize,
    views: &mut Vec<View>,
) {
    let mut view = View {
        kinds: KIND_JOINED,
        ..View::default()
    };
    let flush = |view: &mut View, views: &mut Vec<View>| {
        if view.bytes.len() >= MIN_DECIMAL_NUMBERS {
            views.push(std::mem::take(view));
            view.kinds = KIND_JOINED;
        } else {
            view.bytes.clear();
            view.starts.clear();
            view.ends.clear();
        }
    };
    let mut at = start;
    while at < end {
        if is_decimal_separator(window[at]) {
            at += 1;
            continue;
        }
        let token = at;
        while at < end && window[at].is_ascii_digit() {
            at += 1;
        }
        let value = window[token..at].iter().try_fold(0u32, |sum, &digit| {
            let sum = sum * 10 + u32::from(digit - b'0');
            (sum <= 255).then_some(sum)
        });
        match value {
            Some(value) => {
                view.bytes.push(value as u8);
                view.starts.push(base + token);
                view.ends.push(base + at);
            }
            None => flush(&mut view, views),
        }
    }
    flush(&mut view, views);
}

/// Joined views of text printed one character per line (`grep -o .`,
/// `sed 's/./&\n/g'`, `fold -w1`; proof5 #7, secrets5 #12): every run of
/// at least [`MIN_SECRET_BYTES`] consecutive lines that each hold exactly
/// one character (a `\r` before the newline allowed) becomes the string of
/// those characters. Found at newlines (`memchr`), so ordinary text pays a
/// look at each line's length.
pub(crate) fn char_line_views(window: &[u8], base: usize, views: &mut Vec<View>) {
    let mut run: Vec<(usize, usize)> = Vec::new();
    let mut line_from = 0usize;
    let flush = |run: &mut Vec<(usize, usize)>, views: &mut Vec<View>| {
        if run.len() >= MIN_SECRET_BYTES {
            let mut view = View {
                kinds: KIND_JOINED,
                ..View::default()
            };
            for &(from, to) in run.iter() {
                view.bytes.extend_from_slice(&window[from..to]);
                view.starts.extend((from..to).map(|_| base + from));
                view.ends.extend((from..to).map(|_| base + to));
            }
            views.push(view);
        }
        run.clear();
    };
    for newline in memchr::memchr_iter(b'\n', window) {
        let mut to = newline;
        if to > line_from && window[to - 1] == b'\r' {
            to -= 1;
        }
        let line = &window[line_from..to];
        let one_char = !line.is_empty()
            && line.len() <= 4
            && std::str::from_utf8(line).is_ok_and(|text| text.chars().count() == 1)
            && !line[0].is_ascii_whitespace();
        if one_char {
            run.push((line_from, to));
        } else {
            flush(&mut run, views);
        }
        line_from = newline + 1;
    }
    flush(&mut run, views);
}

/// A view of `window` with Unicode compatibility forms folded (NFKC of
/// each character with the combining marks after it: full-width
/// `ｓｋ－ｌｉｖｅ`, ligatures, an NFD `a` + U+0308) and invisible characters
/// (zero-width, soft hyphen, bidi controls: [`ploy_text::is_invisible`])
/// removed (secrets5 #4/#12). Only for text with a non-ASCII byte, and only
/// when folding changes something.
pub(crate) fn folded_view(window: &[u8], base: usize, views: &mut Vec<View>) {
    use unicode_normalization::UnicodeNormalization as _;
    use unicode_normalization::char::is_combining_mark;
    if window.is_ascii() {
        return;
    }
    let Ok(text) = std::str::from_utf8(window) else {
        // Not UTF-8: offsets would not map back; the plain search still runs.
        return;
    };
    // Fast path: text whose non-ASCII characters are all already in NFKC
    // and visible (`é`, `✓`, CJK) gets no view; only the characters past
    // ASCII are looked at.
    let folds = |c: char| {
        ploy_text::is_invisible(c)
            || unicode_normalization::is_nfkc_quick(std::iter::once(c))
                != unicode_normalization::IsNormalized::Yes
    };
    let mut rest = text;
    let mut needed = false;
    while let Some(at) = rest.bytes().position(|b| b >= 0x80) {
        let mut chars = rest[at..].chars();
        if chars.next().is_some_and(folds) {
            needed = true;
            break;
        }
        rest = chars.as_str();
    }
    if !needed {
        return;
    }
    let mut view = View {
        kinds: KIND_JOINED,
        ..View::default()
    };
    let mut changed = false;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let marks_follow = chars
            .peek()
            .is_some_and(|&(_, next)| is_combining_mark(next));
        if c.is_ascii() && !marks_follow {
            view.bytes.push(c as u8);
            view.starts.push(base + at);
            view.ends.push(base + at + 1);
            continue;
        }
        if ploy_text::is_invisible(c) {
            changed = true;
            continue;
        }
        let mut end = at + c.len_utf8();
        while let Some(&(next_at, next)) = chars.peek() {
            if !is_combining_mark(next) {
                break;
            }
            end = next_at + next.len_utf8();
            chars.next();
        }
        let cluster = &text[at..end];
        let folded: String = cluster.nfkc().collect();
        changed |= folded != cluster;
        for byte in folded.bytes() {
            view.bytes.push(byte);
            view.starts.push(base + at);
            view.ends.push(base + end);
        }
    }
    if changed {
        views.push(view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(text: &str) -> Vec<String> {
        let mut views = Vec::new();
        folded_view(text.as_bytes(), 0, &mut views);
        views
            .into_iter()
            .map(|view| String::from_utf8(view.bytes).expect("utf-8"))
            .collect()
    }

    // proves: REDACT-1, BEYOND-6 (secrets5 #4/#12: full-width, NFD and
    // zero-width forms fold to the plain value)
    #[test]
    fn compatibility_and_invisible_forms_fold() {
        assert_eq!(folded("d=ｓｋ－ｌｉｖｅ－ａｂ"), vec!["d=sk-live-ab"]);
        assert_eq!(folded("Pa\u{308}sswo\u{308}rd"), vec!["Pässwörd"]);
        assert_eq!(folded("s\u{200b}k\u{ad}-live"), vec!["sk-live"]);
        assert!(folded("plain ascii").is_empty());
        assert!(folded("café déjà vu").is_empty());
    }

    fn decimal(text: &str) -> Vec<Vec<u8>> {
        let mut views = Vec::new();
        decimal_views(text.as_bytes(), 0, &mut views);
        views.into_iter().map(|view| view.bytes).collect()
    }

    fn char_lines(text: &str) -> Vec<String> {
        let mut views = Vec::new();
        char_line_views(text.as_bytes(), 0, &mut views);
        views
            .into_iter()
            .map(|view| String::from_utf8(view.bytes).expect("utf-8"))
            .collect()
    }

    // proves: REDACT-1, BEYOND-6 (secrets5 #12: decimal byte lists decode)
    #[test]
    fn decimal_byte_lists_decode() {
        let want = b"sk-live-ab".to_vec();
        for text in [
            "x 115 107 45 108 105 118 101 45 97 98 y",
            "/dec?d=115,107,45,108,105,118,101,45,97,98",
            "{115, 107, 45, 108, 105, 118, 101, 45, 97, 98}",
            "   115  107   45  108  105  118  101   45   97   98\n",
        ] {
            assert!(decimal(text).contains(&want), "{text}: {:?}", decimal(text));
        }
        for text in [
            "2026-11-29 16:00:00 INFO took 1234 ms, 56 rows",
            "ports 8080 8081 8082",
        ] {
            assert!(decimal(text).is_empty(), "{text}");
        }
    }

    // proves: REDACT-1 (proof5 #7, secrets5 #12: one character per line)
    #[test]
    fn one_character_per_line_joins() {
        assert_eq!(
            char_lines("out:\nR\no\no\nt\nT\no\nk\n3\nn\ndone\n"),
            vec!["RootTok3n"]
        );
        assert_eq!(
            char_lines("a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\n"),
            vec!["abcdefgh"]
        );
        assert!(char_lines("a\nb\nc\n\nlonger line\n").is_empty());
    }

    fn hex(text: &str) -> Vec<Vec<u8>> {
        let mut views = Vec::new();
        hex_views(text.as_bytes(), 0, &mut views);
        views.into_iter().map(|view| view.bytes).collect()
    }

    fn joined(text: &str) -> Vec<String> {
        let mut views = Vec::new();
        wrapped_views(text.as_bytes(), 0, &mut views);
        views
            .into_iter()
            .map(|view| String::from_utf8(view.bytes).expect("ascii"))
            .collect()
    }

    // proves: REDACT-1 (separated hex in every common layout decodes)
    #[test]
    fn separated_hex_layouts_decode() {
        let want = b"sk-Canary7Qz".to_vec();
        for text in [
            "x 73 6b 2d 43 61 6e 61 72 79 37 51 7a y",
            "73:6b:2d:43:61:6e:61:72:79:37:51:7a",
            "{0x73, 0x6b, 0x2d, 0x43, 0x61, 0x6e, 0x61, 0x72, 0x79, 0x37, 0x51, 0x7a}",
            "736b 2d43 616e 6172 7937 517a",
            "hex: 736b2d43616e61727937517a.",
            "736B2D43\n616E6172\n7937517A",
        ] {
            assert!(hex(text).contains(&want), "{text}: {:?}", hex(text));
        }
    }

    // proves: REDACT-1 (prose, dates and short numbers are not hex runs)
    #[test]
    fn prose_and_dates_give_no_hex_view() {
        for text in [
            "2026-11-29T16:00:00Z INFO req=000123 path=/api/v1/items",
            "a bad face, dead beef",
            "the quick brown fox",
        ] {
            assert!(hex(text).is_empty(), "{text}");
        }
    }

    // proves: REDACT-1 (wrapped lines are joined, prose lines are not)
    #[test]
    fn wrapped_lines_join() {
        assert_eq!(
            joined("data: c2stQ2Fu\nYXJ5N1F6\nOVh2QjJt\nTA== end"),
            vec!["c2stQ2FuYXJ5N1F6OVh2QjJtTA=="]
        );
        assert_eq!(
            joined("QUJDREVG\r\n  R0hJSktM\r\n"),
            vec!["QUJDREVGR0hJSktM"]
        );
        assert!(joined("some prose here\nand more prose\n").is_empty());
    }
}
