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
use crate::views::{KIND_JOINED, REACH_PER_BYTE, View};

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
        let digits = if end - start < MIN_HEX_DIGITS {
            0
        } else {
            window[start..end]
                .iter()
                .filter(|b| b.is_ascii_hexdigit())
                .count()
        };
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
        // Then the tokens at the break, before the lines' whole shapes
        // (most lines of prose or logs end or start with a short word).
        if last - token_start_before(window, last) < MIN_WRAPPED_TOKEN
            || token_end_after(window, next) - next < MIN_WRAPPED_TOKEN
        {
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

/// The shortest run of decimal-class bytes that can give a view: the
/// shortest secret's bytes as one-digit numbers with one separator
/// between them (a view needs [`MIN_DECIMAL_NUMBERS`] numbers; the
/// fixed-width form needs more, [`MIN_FIXED_DIGITS`]).
const MIN_DECIMAL_RUN: usize = 2 * MIN_DECIMAL_NUMBERS - 1;

/// Digits of a fixed-width (zero-padded, 3 digits a byte) decimal token
/// without separators worth decoding: the shortest secret's.
const MIN_FIXED_DIGITS: usize = 3 * MIN_SECRET_BYTES;

/// Digits and the separators of decimal or octal byte lists (`od -An
/// -tu1`, `od -b`, `115,107,45`, a C array's `{115, 107}`,
/// `fromCharCode(115,107)`, Python's `['115', '107']`, and any other
/// punctuation a writer may join them with: `115.107.45` in a host name,
/// `115-107`, `115_107`, `115/107`, `115:107`, `115|107`; round6 #5).
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
    matches!(
        byte,
        b' ' | b'\t'
            | b'\r'
            | b'\n'
            | b','
            | b';'
            | b'.'
            | b'-'
            | b'_'
            | b'/'
            | b':'
            | b'|'
            | b'\''
            | b'"'
    )
}

fn is_decimal_class(byte: u8) -> bool {
    DECIMAL_CLASS[usize::from(byte)]
}

/// A cheap test that the 8 bytes may all be decimal-class: no byte at or
/// above 128 and no letter in either case (prose and most log text have a
/// letter in every 8 bytes). May answer
/// yes for other punctuation; the caller checks byte by byte then.
fn may_be_decimal_block(block: &[u8]) -> bool {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(block);
    let word = u64::from_le_bytes(bytes);
    if word & HIGH != 0 {
        return false;
    }
    // Setting 0x20 folds upper-case letters to lower case; `a`..=`z` is
    // then every letter (and `@`, `[`..`^` become backquote and braces).
    let folded = word | (ONES * 0x20);
    !has_between(folded, b'a' - 1, b'z' + 1)
}

/// Decoded views of every run of byte values written as numbers
/// (secrets5 #12, round6 #5): decimal (each 0-255, zero-padded or not)
/// and octal (`od -b`, each 0-377) joined by white space or punctuation
/// ([`is_decimal_separator`]), and decimal written three digits a byte
/// with no separator (`115107045…`), each holding at least
/// [`MIN_DECIMAL_NUMBERS`] bytes. A printable secret's bytes are 32-126,
/// two or three digits each, so such a run is at least 23 bytes long and
/// holds an aligned 8-byte block at a multiple of [`HEX_STEP`]: one block
/// in every 16 bytes is tested, as for hex.
pub(crate) fn decimal_views(window: &[u8], base: usize, views: &mut Vec<View>) {
    let mut block = 0usize;
    while block + 8 <= window.len() {
        let at = block;
        let candidate = may_be_decimal_block(&window[at..at + 8])
            && window[at..at + 8].iter().all(|&b| is_decimal_class(b))
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
        // Too short to hold a list of the shortest secret's bytes (a time
        // of day, a date): nothing to decode.
        if end - start < MIN_DECIMAL_RUN {
            block = (end.max(at + HEX_STEP)).next_multiple_of(HEX_STEP);
            continue;
        }
        decode_number_span(window, start, end, base, 10, views);
        if window[start..end]
            .iter()
            .all(|&b| !matches!(b, b'8' | b'9'))
        {
            decode_number_span(window, start, end, base, 8, views);
        }
        decode_fixed_width(window, start, end, base, views);
        block = (end.max(at + HEX_STEP)).next_multiple_of(HEX_STEP);
    }
}

/// A view being built of decoded bytes, each mapped to its span.
struct Builder {
    view: View,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            view: View {
                kinds: KIND_JOINED,
                ..View::default()
            },
        }
    }

    fn push(&mut self, byte: u8, from: usize, to: usize) {
        self.view.bytes.push(byte);
        self.view.starts.push(from);
        self.view.ends.push(to);
    }

    /// Ends the current view: kept when it holds at least `min` bytes.
    fn flush(&mut self, min: usize, views: &mut Vec<View>) {
        if self.view.bytes.len() >= min {
            views.push(std::mem::replace(&mut self.view, Builder::new().view));
        } else {
            self.view.bytes.clear();
            self.view.starts.clear();
            self.view.ends.clear();
        }
    }
}

/// Splits `window[start..end]` at separators and decodes every sequence
/// of consecutive numbers in `radix` (10 or 8) that are byte values (a
/// larger number ends a sequence).
fn decode_number_span(
    window: &[u8],
    start: usize,
    end: usize,
    base: usize,
    radix: u32,
    views: &mut Vec<View>,
) {
    let mut view = Builder::new();
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
            let sum = sum * radix + u32::from(digit - b'0');
            (sum <= 255).then_some(sum)
        });
        // `od`'s offset column (`0000020` at the start of each line)
        // does not end a list.
        let offset_column = at - token >= 6 && (token == 0 || window[token - 1] == b'\n');
        match value {
            _ if offset_column => {}
            Some(value) => view.push(value as u8, base + token, base + at),
            None => view.flush(MIN_DECIMAL_NUMBERS, views),
        }
    }
    view.flush(MIN_DECIMAL_NUMBERS, views);
}

/// Every digit token of `window[start..end]` of at least
/// [`MIN_FIXED_DIGITS`] digits read three digits a byte, at each of the
/// three phases (a window may have cut the token anywhere).
fn decode_fixed_width(window: &[u8], start: usize, end: usize, base: usize, views: &mut Vec<View>) {
    let mut at = start;
    while at < end {
        if !window[at].is_ascii_digit() {
            at += 1;
            continue;
        }
        let token = at;
        while at < end && window[at].is_ascii_digit() {
            at += 1;
        }
        if at - token < MIN_FIXED_DIGITS {
            continue;
        }
        for phase in 0..3 {
            let mut view = Builder::new();
            let mut digit = token + phase;
            while digit + 3 <= at {
                let group = &window[digit..digit + 3];
                let value = group
                    .iter()
                    .fold(0u32, |sum, &d| sum * 10 + u32::from(d - b'0'));
                if value <= 255 {
                    view.push(value as u8, base + digit, base + digit + 3);
                } else {
                    view.flush(MIN_DECIMAL_NUMBERS, views);
                }
                digit += 3;
            }
            view.flush(MIN_DECIMAL_NUMBERS, views);
        }
    }
}

/// The longest line content (after a line-number prefix) that
/// [`short_line_views`] joins: text printed a few characters per line
/// (`fold -w2`, `fold -w11`; a long secret cut wider is caught by its
/// fragments, a short one of up to 15 characters fits in one such line).
const MAX_SHORT_LINE: usize = 16;

/// The line-number prefix a tool writes before each line: `grep -n`'s and
/// `grep -b`'s `N:`, `cat -n`'s and `nl`'s right-aligned `N<tab>`
/// (at most 10 digits). Its length, or 0 for none.
fn line_number_prefix(line: &[u8]) -> usize {
    let spaces = line.iter().take_while(|&&b| b == b' ').count();
    let digits = line[spaces..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits > 10 {
        return 0;
    }
    match line.get(spaces + digits) {
        Some(b':' | b'\t') => spaces + digits + 1,
        _ => 0,
    }
}

/// Joined views of text printed a few characters per line (round6 #5,
/// proof5 #7, secrets5 #12): `grep -o .`, `sed 's/./&\n/g'`, `fold -w1`
/// to `fold -w16`, and the same with a line-number prefix before each line
/// (`grep -n -o .`, `grep -b -o .`, `cat -n`, `nl`). Every run of at least
/// two consecutive lines of 1 to [`MAX_SHORT_LINE`] bytes (a `\r` before
/// the newline dropped) holding at least [`MIN_SECRET_BYTES`] bytes in all
/// becomes one view of the lines joined; a second view joins the same
/// lines with their prefixes removed. `starts_line`: whether `window`
/// starts at the start of a line (a stream window may start inside one,
/// whose true length is unknown: that first piece is then never joined).
/// Found at newlines (`memchr`), so ordinary text pays a look at each
/// line's length.
pub(crate) fn short_line_views(
    window: &[u8],
    base: usize,
    starts_line: bool,
    views: &mut Vec<View>,
) {
    // Each run: (content start, content end) of its lines, as written and
    // with prefixes removed; the second is a view of its own only when a
    // line of it had a prefix.
    let mut raw: Vec<(usize, usize)> = Vec::new();
    let mut bare: Vec<(usize, usize)> = Vec::new();
    let mut bare_prefixed = false;
    let flush = |run: &mut Vec<(usize, usize)>, keep: bool, views: &mut Vec<View>| {
        let total: usize = run.iter().map(|(from, to)| to - from).sum();
        if keep && run.len() >= 2 && total >= MIN_SECRET_BYTES {
            let mut view = Builder::new();
            for &(from, to) in run.iter() {
                for (at, &byte) in window.iter().enumerate().take(to).skip(from) {
                    view.push(byte, base + at, base + at + 1);
                }
            }
            view.flush(MIN_SECRET_BYTES, views);
        }
        run.clear();
    };
    let mut line_from = 0usize;
    let mut skip_first = !starts_line;
    let ends = memchr::memchr_iter(b'\n', window).chain(std::iter::once(window.len()));
    for line_end in ends {
        let mut to = line_end;
        if to > line_from && window[to - 1] == b'\r' {
            to -= 1;
        }
        let line = &window[line_from..to];
        let eligible = !std::mem::take(&mut skip_first);
        if eligible && !line.is_empty() && line.len() <= MAX_SHORT_LINE {
            raw.push((line_from, to));
        } else {
            flush(&mut raw, true, views);
        }
        let prefix = if eligible && line.len() <= MAX_SHORT_LINE + 11 {
            line_number_prefix(line)
        } else {
            0
        };
        let content = line.len() - prefix;
        // Within the reach a stream keeps back: at most REACH_PER_BYTE
        // bytes of line (newline included) per byte of content.
        if eligible
            && content > 0
            && content <= MAX_SHORT_LINE
            && line_end + 1 - line_from <= REACH_PER_BYTE * content
        {
            bare.push((line_from + prefix, to));
            bare_prefixed |= prefix > 0;
        } else {
            flush(&mut bare, std::mem::take(&mut bare_prefixed), views);
        }
        line_from = line_end + 1;
    }
    flush(&mut raw, true, views);
    flush(&mut bare, bare_prefixed, views);
}

/// The bytes of one uuencoded line (round7 #13): a length character
/// (`' '` + n, n from 1 to 45 bytes) and four characters from `' '` to
/// `` ` `` for every three bytes (`` ` `` also stands for a space). Its
/// trailing spaces may have been stripped on the way, and one padding
/// character may follow. Pushes the decoded bytes (each mapped to its
/// four characters) onto `view`; `false` when `line` is not such a line.
fn uu_line(line: &[u8], at: usize, view: &mut Builder) -> bool {
    let Some(&first) = line.first() else {
        return false;
    };
    if !(b'!'..=b'M').contains(&first) {
        return false;
    }
    let count = usize::from(first - b' ');
    let chars = 4 * count.div_ceil(3);
    if line.len() > chars + 2 || line.len() + 3 < chars + 1 {
        return false;
    }
    if !line.iter().all(|&c| (b' '..=b'`').contains(&c)) {
        return false;
    }
    let sextet = |index: usize| {
        line.get(1 + index)
            .map_or(0u32, |&c| u32::from(c.wrapping_sub(b' ') & 0x3F))
    };
    for group in 0..count.div_ceil(3) {
        let bits = (0..4).fold(0u32, |acc, index| acc << 6 | sextet(4 * group + index));
        let from = at + 1 + 4 * group;
        for byte in 0..3.min(count - 3 * group) {
            view.push((bits >> (16 - 8 * byte)) as u8, from, from + 4);
        }
    }
    true
}

/// Decoded views of uuencoded text (round7 #13: `uuencode`, Python's
/// `binascii.b2a_uu`, Perl's `pack "u"`): consecutive uuencoded lines
/// ([`uu_line`]) decoded and joined, so the secret or a fragment of it is
/// found inside. Found at newlines (`memchr`): a line is looked at only
/// when its first character and length agree, as they rarely do in prose.
pub(crate) fn uu_views(window: &[u8], base: usize, views: &mut Vec<View>) {
    let mut view = Builder::new();
    let mut line_from = 0usize;
    let ends = memchr::memchr_iter(b'\n', window).chain(std::iter::once(window.len()));
    for line_end in ends {
        let mut to = line_end;
        if to > line_from && window[to - 1] == b'\r' {
            to -= 1;
        }
        if !uu_line(&window[line_from..to], base + line_from, &mut view) {
            view.flush(MIN_SECRET_BYTES, views);
        }
        line_from = line_end + 1;
    }
    view.flush(MIN_SECRET_BYTES, views);
}

/// Characters a quoted list must hold to be joined: the shortest secret.
const MIN_QUOTED_CHARS: usize = MIN_SECRET_BYTES;

/// The quoted character at `window[at..]` (`'s'`, `"s"`, `'\''`,
/// `"\\"`): the character and the length of the item with its quotes.
fn quoted_char(window: &[u8], at: usize) -> Option<(u8, usize)> {
    let quote = *window.get(at)?;
    if !matches!(quote, b'\'' | b'"') {
        return None;
    }
    let (c, close) = match *window.get(at + 1)? {
        b'\\' => (*window.get(at + 2)?, at + 3),
        c => (c, at + 2),
    };
    let printable = (0x20..0x7F).contains(&c);
    (printable && window.get(close) == Some(&quote)).then_some((c, close + 1 - at))
}

/// Joined views of lists of quoted single characters (round6 #5): Python's
/// `print(list(s))` (`['s', 'k', '-', …]`, an apostrophe as `"'"`), a JSON
/// array of one-character strings (`["s","k"]`, pretty-printed one a line),
/// JavaScript's `[...s]`. Items are separated by a comma and white space
/// (or white space alone); a run of at least [`MIN_QUOTED_CHARS`] items
/// becomes the string of their characters. Found at quotes (`memchr2`),
/// each checked for the `'c'` shape before anything else.
pub(crate) fn quoted_views(window: &[u8], base: usize, views: &mut Vec<View>) {
    let mut next = 0usize;
    for at in memchr::memchr2_iter(b'\'', b'"', window) {
        if at < next {
            continue;
        }
        let Some((_, first_len)) = quoted_char(window, at) else {
            continue;
        };
        let mut view = Builder::new();
        let mut item = at;
        let mut len = first_len;
        while let Some((c, _)) = quoted_char(window, item) {
            view.push(c, base + item, base + item + len);
            let mut after = item + len;
            let mut gap = 0;
            while after < window.len()
                && gap <= 8
                && matches!(window[after], b',' | b' ' | b'\t' | b'\r' | b'\n')
            {
                after += 1;
                gap += 1;
            }
            match quoted_char(window, after) {
                Some((_, next_len)) if gap > 0 => {
                    item = after;
                    len = next_len;
                }
                _ => {
                    next = item + len;
                    break;
                }
            }
        }
        view.flush(MIN_QUOTED_CHARS, views);
    }
}

/// Unicode tag characters U+E0020..=U+E007E: invisible copies of ASCII
/// space to `~` ("ASCII smuggling", round6 #5). The folded view reads each
/// as the ASCII character it copies.
fn untag(c: char) -> Option<u8> {
    let code = u32::from(c);
    (0xE0020..=0xE007E)
        .contains(&code)
        .then(|| (code - 0xE0000) as u8)
}

/// Whether the folded view changes `c` (the character itself or what it
/// does to the one before it): invisible, a tag character, a look-alike
/// ([`crate::confusable`]), or not already in NFKC (full-width,
/// ligatures, combining marks). Answers for the Basic
/// Multilingual Plane come from a table filled 256 characters at a time on
/// first use (the normalisation check costs far more than the text it
/// looks at otherwise: every `é` of a log).
fn folds(c: char) -> bool {
    use std::sync::OnceLock;
    static PAGES: [OnceLock<[u64; 4]>; 256] = [const { OnceLock::new() }; 256];
    let slow = |c: char| {
        !c.is_ascii()
            && (ploy_text::is_invisible(c)
                || crate::confusable(c).is_some()
                || unicode_normalization::is_nfkc_quick(std::iter::once(c))
                    != unicode_normalization::IsNormalized::Yes)
    };
    let code = u32::from(c);
    if code >= 0x1_0000 {
        return slow(c);
    }
    let page = PAGES[(code >> 8) as usize].get_or_init(|| {
        let mut bits = [0u64; 4];
        for low in 0..256u32 {
            let folds = char::from_u32((code & !0xFF) | low).is_some_and(slow);
            bits[(low / 64) as usize] |= u64::from(folds) << (low % 64);
        }
        bits
    });
    let low = code & 0xFF;
    page[(low / 64) as usize] >> (low % 64) & 1 == 1
}

/// The next byte at or after `from` that is not ASCII, eight bytes a step.
fn next_non_ascii(bytes: &[u8], mut from: usize) -> Option<usize> {
    while from + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[from..from + 8]);
        let high = u64::from_le_bytes(word) & HIGH;
        if high != 0 {
            return Some(from + (high.trailing_zeros() / 8) as usize);
        }
        from += 8;
    }
    (from..bytes.len()).find(|&at| bytes[at] >= 0x80)
}

/// The character encoded at `bytes[at..]` (a non-ASCII lead byte), if the
/// bytes there are UTF-8.
fn char_at(bytes: &[u8], at: usize) -> Option<char> {
    let (len, lead, min) = match bytes[at] {
        lead @ 0xC2..=0xDF => (2, u32::from(lead & 0x1F), 0x80),
        lead @ 0xE0..=0xEF => (3, u32::from(lead & 0x0F), 0x800),
        lead @ 0xF0..=0xF4 => (4, u32::from(lead & 0x07), 0x1_0000),
        _ => return None,
    };
    let tail = bytes.get(at + 1..at + len)?;
    let mut code = lead;
    for &byte in tail {
        if !is_continuation(byte) {
            return None;
        }
        code = code << 6 | u32::from(byte & 0x3F);
    }
    // No overlong form; `from_u32` refuses surrogates and values past
    // U+10FFFF.
    (code >= min).then(|| char::from_u32(code)).flatten()
}

/// Views of `window` with Unicode compatibility forms folded (NFKC of
/// each character with the combining marks after it: full-width
/// `ｓｋ－ｌｉｖｅ`, ligatures, an NFD `a` + U+0308), Cyrillic, Greek and
/// other look-alikes read as the ASCII letter they imitate
/// ([`crate::CONFUSABLES`], round8 #8), tag characters read
/// as the ASCII they copy, and invisible characters (zero-width, soft
/// hyphen, bidi controls: [`ploy_text::is_invisible`]) removed (secrets5
/// #4/#12, round6 #5). One view per region of `reach` bytes around the
/// characters that fold, so text whose non-ASCII characters are all
/// already in NFKC and visible (`é`, `✓`, CJK) gets none, and a stray
/// zero-width space does not copy a whole window. Bytes that are not
/// UTF-8 (a stream window cut inside a character) are kept as they are.
pub(crate) fn folded_views(window: &[u8], base: usize, reach: usize, views: &mut Vec<View>) {
    // Regions [from, to) around folding characters, merged when they touch.
    let mut regions: Vec<(usize, usize)> = Vec::new();
    let mut at = 0usize;
    while let Some(found) = next_non_ascii(window, at) {
        let Some(c) = char_at(window, found) else {
            at = found + 1;
            continue;
        };
        if folds(c) {
            let from = found.saturating_sub(reach);
            let to = (found + c.len_utf8() + reach).min(window.len());
            match regions.last_mut() {
                Some((_, end)) if from <= *end => *end = to,
                _ => regions.push((from, to)),
            }
        }
        at = found + c.len_utf8();
    }
    for (from, to) in regions {
        // Start on a character that is not a combining mark (a cluster is
        // folded whole), at most 64 bytes further back.
        let mut from = from;
        let floor = from.saturating_sub(64);
        while from > floor
            && (is_continuation(window[from])
                || char_at(window, from)
                    .is_some_and(unicode_normalization::char::is_combining_mark))
        {
            from -= 1;
        }
        fold_region(&window[from..to], base + from, views);
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The folded view of one region (see [`folded_views`]), pushed when
/// folding changed something.
fn fold_region(region: &[u8], base: usize, views: &mut Vec<View>) {
    use unicode_normalization::UnicodeNormalization as _;
    use unicode_normalization::char::is_combining_mark;
    let mut view = Builder::new();
    let mut changed = false;
    let mut offset = 0usize;
    for chunk in region.utf8_chunks() {
        let text = chunk.valid();
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let at = offset + at;
            let marks_follow = chars
                .peek()
                .is_some_and(|&(_, next)| is_combining_mark(next));
            if c.is_ascii() && !marks_follow {
                view.push(c as u8, base + at, base + at + 1);
                continue;
            }
            if let Some(ascii) = untag(c) {
                changed = true;
                view.push(ascii, base + at, base + at + c.len_utf8());
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
                end = offset + next_at + next.len_utf8();
                chars.next();
            }
            let cluster = &region[at..end];
            // NFKC, then look-alikes of other scripts to the ASCII they
            // imitate (round8 #8: `ѕk-live-…` with a Cyrillic `ѕ`).
            let folded: String = std::str::from_utf8(cluster)
                .map(|cluster| {
                    cluster
                        .nfkc()
                        .map(|c| crate::confusable(c).unwrap_or(c))
                        .collect()
                })
                .unwrap_or_default();
            changed |= folded.as_bytes() != cluster;
            for byte in folded.bytes() {
                view.push(byte, base + at, base + end);
            }
        }
        offset += text.len();
        for &byte in chunk.invalid() {
            view.push(byte, base + offset, base + offset + 1);
            offset += 1;
        }
    }
    if changed {
        views.push(view.view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(text: &str) -> Vec<String> {
        let mut views = Vec::new();
        folded_views(text.as_bytes(), 0, 64, &mut views);
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
        short_line_views(text.as_bytes(), 0, true, &mut views);
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
            vec!["out:RootTok3ndone"]
        );
        assert_eq!(
            char_lines("a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\n"),
            vec!["abcdefgh"]
        );
        assert!(char_lines("a\nb\nc\n\nlonger line than sixteen\n").is_empty());
    }

    // proves: REDACT-1, BEYOND-6 (round6 #5: `fold -w2`, `fold -w3`,
    // `grep -n -o .`, `grep -b -o .`, `cat -n` of one character per line)
    #[test]
    fn short_lines_join_with_and_without_line_numbers() {
        let key = "sk-live-abcdef0123456789XYZ";
        let fold = |width: usize| -> String {
            key.as_bytes()
                .chunks(width)
                .map(|piece| format!("{}\n", std::str::from_utf8(piece).unwrap()))
                .collect()
        };
        for width in [2, 3, 11, 16] {
            let text = format!("a long line of ordinary output first\n{}", fold(width));
            assert!(
                char_lines(&text).contains(&key.to_owned()),
                "{width}: {text}"
            );
        }
        let grep_n: String = key.chars().map(|c| format!("1:{c}\n")).collect();
        let grep_b: String = key
            .chars()
            .enumerate()
            .map(|(at, c)| format!("{}:{c}\n", 1_000_000 + at))
            .collect();
        let cat_n: String = key
            .chars()
            .enumerate()
            .map(|(at, c)| format!("{:6}\t{c}\n", at + 1))
            .collect();
        for text in [grep_n, grep_b, cat_n] {
            assert!(char_lines(&text).contains(&key.to_owned()), "{text}");
        }
        // A stream window that starts inside a line does not join its
        // first piece: its true length is unknown.
        let mut views = Vec::new();
        short_line_views(b"sk\n-l\niv\ne-\nab\n", 0, false, &mut views);
        assert_eq!(views.len(), 1);
        assert_eq!(views[0].bytes, b"-live-ab");
    }

    // proves: REDACT-1, BEYOND-6 (round6 #5: decimal joined by any
    // punctuation, zero-padded without separators, octal lists)
    #[test]
    fn decimal_and_octal_in_every_layout_decode() {
        let want = b"sk-live-ab".to_vec();
        let bytes = want.clone();
        let join = |sep: &str, f: &dyn Fn(u8) -> String| {
            bytes.iter().map(|&b| f(b)).collect::<Vec<_>>().join(sep)
        };
        for sep in [".", "-", "_", "/", ":", "|", "..", "', '"] {
            let text = format!("?d={}&x", join(sep, &|b| b.to_string()));
            assert!(decimal(&text).contains(&want), "{text}");
        }
        let padded = format!("?d={}", join("", &|b| format!("{b:03}")));
        assert!(decimal(&padded).contains(&want), "{padded}");
        let shifted = format!("?d=7{}", join("", &|b| format!("{b:03}")));
        assert!(decimal(&shifted).contains(&want), "{shifted}");
        let octal = format!("od -b: {}", join(" ", &|b| format!("{b:03o}")));
        assert!(decimal(&octal).contains(&want), "{octal}");
        let octal = format!("?d={}", join(",", &|b| format!("{b:o}")));
        assert!(decimal(&octal).contains(&want), "{octal}");
    }

    // proves: BEYOND-6, REDACT-1 (round6 #5: Unicode tag characters read
    // as the ASCII they copy)
    #[test]
    fn tag_characters_fold_to_ascii() {
        let tags: String = "sk-live-ab"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        assert_eq!(folded(&format!("x{tags}y")), vec!["xsk-live-aby"]);
        // Folding is local: far from the tags, the view does not reach.
        let far = format!("{}{tags}", "z".repeat(200));
        assert_eq!(folded(&far), vec![format!("{}sk-live-ab", "z".repeat(64))]);
    }

    // proves: REDACT-1, BEYOND-6 (round7 #13: uuencoded lines decode,
    // joined across lines, spaces or backticks, trailing spaces stripped)
    #[test]
    fn uuencoded_lines_decode() {
        let uu = |text: &str| {
            let mut views = Vec::new();
            uu_views(text.as_bytes(), 0, &mut views);
            views.into_iter().map(|view| view.bytes).collect::<Vec<_>>()
        };
        // `printf 'sk-live-abcdef0123456789XYZ' | uuencode x` (GNU, backticks).
        let gnu = "begin 644 x\n;<VLM;&EV92UA8F-D968P,3(S-#4V-S@Y6%E:\n`\nend\n";
        assert!(
            uu(gnu).contains(&b"sk-live-abcdef0123456789XYZ".to_vec()),
            "{:?}",
            uu(gnu)
        );
        // Python's binascii.b2a_uu over 60 bytes: two lines, one secret
        // across the break.
        let secret = b"Tr0ub4dor-and-3-horses-battery";
        let mut data = vec![b'.'; 30];
        data.extend_from_slice(secret);
        let text = "M+BXN+BXN+BXN+BXN+BXN+BXN+BXN+BXN+BXN+BXN5'(P=6(T9&]R+6%N9\"TS\n/+6AO<G-E<RUB871T97)Y\n";
        let views = uu(text);
        assert_eq!(views.len(), 1, "{views:?}");
        assert_eq!(&views[0][..30], &data[..30]);
        assert!(
            views[0].windows(secret.len()).any(|w| w == secret),
            "{views:?}"
        );
        for prose in [
            "Meeting notes: the build is green again and the release is out.\n",
            "M\nA short line\n",
        ] {
            assert!(uu(prose).is_empty(), "{prose}");
        }
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
