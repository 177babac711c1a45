//! The compiled search (REDACT-1, BEYOND-6): one matcher over every listed
//! pattern of every secret (ASCII case ignored), run over the input behind
//! a sampling prefilter, and over the decoded views of the input around
//! escape triggers (`views.rs`) and of runs of numbers, short lines and
//! foldable characters (`runs.rs`).
//!
//! The matcher is the hash table of `grams.rs` (every pattern by its last
//! bytes), not an aho-corasick automaton: the automaton's build (failure
//! links over a trie of every pattern byte, then a DFA) cost 28-83 ms for
//! the ~300 patterns of 3 secrets and 0.2-0.5 s for 100 (issue 14), paid by
//! every process that redacts (`ploy -p`, the hook) before its first byte;
//! the table builds in one pass. The prefilter keeps either off all but a
//! few windows of ordinary text, where the table's lookups cost about what
//! the automaton's transitions did.

use std::collections::HashMap;

use crate::encodings::{MAX_WIDEN, PatternInfo, SecretForm, patterns_for};
use crate::grams::GramMatcher;
use crate::runs;
use crate::views::{self, MAX_DEPTH, MAX_UNIT, REACH_PER_BYTE, View};

/// The shortest partial secret [`Engine::cut_tail_start`] removes: three
/// characters of a secret (`sk-`) are everywhere and give nothing away.
pub(crate) const MIN_CUT_TAIL_BYTES: usize = 4;

/// Bytes after a partial secret at a cut that [`Engine::cut_tail_start`]
/// still treats as the cut's debris (an open tag `<`, `</b`).
const CUT_JUNK_BYTES: usize = 8;

/// Gram length of the prefilter.
const GRAM: usize = 4;
/// log2 of the prefilter's largest bit count (4 Mi bits = 512 KiB per
/// table), reached from about 130,000 grams (a hundred secrets).
const FILTER_BITS_LOG2: u32 = 22;
/// log2 of the prefilter's smallest bit count (8 Ki bits = 1 KiB).
const MIN_FILTER_BITS_LOG2: u32 = 13;
/// Bits of each table per gram it holds. A table is sized to its patterns,
/// not fixed: a process that checks one short text (a hook call, one
/// command line) paid for zeroing and faulting in 1 MiB of tables for a few
/// thousand grams (about 250 page faults, a third of a hook call's extra
/// CPU; issue 16). At 32 bits a gram, two bits each, a probe of ordinary
/// text passes the 4-byte table about 0.4% of the time and the 8-byte
/// confirmation as rarely, so the matcher still sees almost nothing of
/// clean text; a smaller table also stays in cache (issue 14).
const FILTER_BITS_PER_GRAM: usize = 32;
/// Folds ASCII letters of a gram to lower case (and a few other bytes with
/// them: the filter may only answer "maybe" more often, never "no" for a
/// gram that case-insensitively matches a pattern's).
const GRAM_FOLD: u32 = 0x2020_2020;

/// Length of the long grams that confirm a sampled hit.
const LONG_GRAM: usize = 8;
/// [`GRAM_FOLD`] for a long gram.
const LONG_GRAM_FOLD: u64 = 0x2020_2020_2020_2020;

/// Two Bloom filters (two bits per entry each) over every 4-byte and every
/// 8-byte gram of every pattern. Every pattern is at least `min_len` bytes
/// long, so every occurrence fully contains a 4-byte gram starting at a
/// multiple of `step = min_len - GRAM + 1`: sampling those positions finds
/// every occurrence (no false negatives). A sampled hit at `s` is then
/// confirmed by the 8-byte grams starting at `s - 4 ..= s`: an occurrence
/// holding the 4 bytes at `s` and at least 8 bytes long holds one of them
/// whole (its start when it starts after `s - 4`, else the one at `s - 4`).
/// Only windows around a confirmed hit are searched by the matcher. This
/// keeps clean text at memory-scan speed, also text full of digits that a
/// secret's hex or a fragment shares 4 bytes with (dates, counters).
struct GramFilter {
    bits: Vec<u64>,
    /// The 8-byte grams; `None` when a pattern is shorter than 8 bytes.
    long: Option<Vec<u64>>,
    step: usize,
    /// How far a hash is shifted right to index a word of either table
    /// (64 - log2 of the word count).
    shift: u32,
}

impl GramFilter {
    /// The word of the table and the two bits in it for a hash: one memory
    /// access a probe (a blocked Bloom filter: both bits in one word).
    /// `shift`: 64 - log2 of the table's word count (at most 2^16 words,
    /// so the word comes from bits the two bit positions do not use).
    fn word_and_bits(hash: u64, shift: u32) -> (usize, u64) {
        let word = (hash >> shift) as usize;
        let bits = 1u64 << ((hash >> 20) & 63) | 1u64 << ((hash >> 26) & 63);
        (word, bits)
    }

    fn slots(gram: u32, shift: u32) -> (usize, u64) {
        GramFilter::word_and_bits(
            u64::from(gram | GRAM_FOLD).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            shift,
        )
    }

    fn long_slots(gram: u64, shift: u32) -> (usize, u64) {
        let mut hash = (gram | LONG_GRAM_FOLD).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        hash ^= hash >> 32;
        hash = hash.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        GramFilter::word_and_bits(hash, shift)
    }

    /// log2 of the bit count of a table holding `grams` grams
    /// ([`FILTER_BITS_PER_GRAM`] each, a power of two, between the bounds).
    fn bits_log2(grams: usize) -> u32 {
        grams
            .saturating_mul(FILTER_BITS_PER_GRAM)
            .checked_next_power_of_two()
            .map_or(FILTER_BITS_LOG2, usize::trailing_zeros)
            .clamp(MIN_FILTER_BITS_LOG2, FILTER_BITS_LOG2)
    }

    fn gram_at(bytes: &[u8], at: usize) -> u32 {
        let mut gram = [0u8; GRAM];
        gram.copy_from_slice(&bytes[at..at + GRAM]);
        u32::from_le_bytes(gram)
    }

    fn long_gram_at(bytes: &[u8], at: usize) -> u64 {
        let mut gram = [0u8; LONG_GRAM];
        gram.copy_from_slice(&bytes[at..at + LONG_GRAM]);
        u64::from_le_bytes(gram)
    }

    fn set(table: &mut [u64], (word, bits): (usize, u64)) {
        table[word] |= bits;
    }

    fn test(table: &[u64], (word, bits): (usize, u64)) -> bool {
        table[word] & bits == bits
    }

    /// `None` when a pattern is too short to sample (never with 8-byte secrets).
    fn build(patterns: &[String]) -> Option<GramFilter> {
        let min_len = patterns.iter().map(String::len).min()?;
        if min_len < GRAM {
            return None;
        }
        // Both tables the size the 4-byte grams ask for (there are at
        // least as many of them as of 8-byte grams).
        let grams: usize = patterns.iter().map(|p| p.len() - GRAM + 1).sum();
        let log2 = GramFilter::bits_log2(grams);
        let shift = 64 - (log2 - 6);
        let words = (1usize << log2) / 64;
        let mut bits = vec![0u64; words];
        let mut long = (min_len >= LONG_GRAM).then(|| vec![0u64; words]);
        for pattern in patterns {
            let bytes = pattern.as_bytes();
            for at in 0..=bytes.len() - GRAM {
                GramFilter::set(
                    &mut bits,
                    GramFilter::slots(GramFilter::gram_at(bytes, at), shift),
                );
            }
            if let Some(long) = &mut long {
                for at in 0..=bytes.len() - LONG_GRAM {
                    let gram = GramFilter::long_gram_at(bytes, at);
                    GramFilter::set(long, GramFilter::long_slots(gram, shift));
                }
            }
        }
        Some(GramFilter {
            bits,
            long,
            step: min_len - GRAM + 1,
            shift,
        })
    }

    /// Whether an occurrence may hold the 4 bytes at `window[at..]`.
    fn hit(&self, window: &[u8], at: usize) -> bool {
        if !GramFilter::test(
            &self.bits,
            GramFilter::slots(GramFilter::gram_at(window, at), self.shift),
        ) {
            return false;
        }
        let Some(long) = &self.long else {
            return true;
        };
        let last = at.min(window.len().saturating_sub(LONG_GRAM));
        (at.saturating_sub(GRAM)..=last).any(|from| {
            from + LONG_GRAM <= window.len()
                && GramFilter::test(
                    long,
                    GramFilter::long_slots(GramFilter::long_gram_at(window, from), self.shift),
                )
        })
    }
}

/// One occurrence: the (widened) byte range of the searched input and how
/// it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Index into the engine's secrets.
    pub(crate) secret: usize,
    pub(crate) form: SecretForm,
}

/// The compiled search: matcher, per-pattern widening, and the secrets.
pub(crate) struct Engine {
    matcher: GramMatcher,
    pub(crate) info: Vec<PatternInfo>,
    /// Bytes a stream must hold back between windows: the longest span an
    /// occurrence can take in the input (a listed pattern, or a secret in
    /// its most expanded escaped form) plus widening.
    pub(crate) keep_back: usize,
    /// Length of the longest pattern.
    longest: usize,
    /// How far around an escape trigger a view reaches (see `views.rs`).
    reach: usize,
    /// Sampling prefilter; `None` searches everything with the matcher.
    filter: Option<GramFilter>,
    pub(crate) secrets: Vec<String>,
}

/// Why an engine could not be built (the redactor then fails closed).
#[derive(Debug)]
pub(crate) struct BuildError;

impl Engine {
    /// Compiles `secrets` (sorted, deduplicated, non-empty).
    pub(crate) fn build(secrets: Vec<String>) -> Result<Engine, BuildError> {
        // Deduplicate patterns; a pattern reached twice widens if either asks.
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut patterns: Vec<String> = Vec::new();
        let mut info: Vec<PatternInfo> = Vec::new();
        for (secret_index, secret) in secrets.iter().enumerate() {
            for (pattern, mut pattern_info) in patterns_for(secret) {
                pattern_info.secret = secret_index;
                match index.get(&pattern) {
                    Some(&at) => {
                        info[at].widen_left = info[at].widen_left.max(pattern_info.widen_left);
                        info[at].widen_right = info[at].widen_right.max(pattern_info.widen_right);
                    }
                    None => {
                        index.insert(pattern.clone(), patterns.len());
                        patterns.push(pattern);
                        info.push(pattern_info);
                    }
                }
            }
        }
        let longest = patterns.iter().map(String::len).max().unwrap_or(0);
        let longest_secret = secrets.iter().map(String::len).max().unwrap_or(0);
        let matcher = GramMatcher::build(&patterns).ok_or(BuildError)?;
        let reach = longest_secret * REACH_PER_BYTE;
        Ok(Engine {
            matcher,
            info,
            keep_back: longest.max(reach + MAX_UNIT) + 2 * MAX_WIDEN,
            longest,
            reach,
            filter: GramFilter::build(&patterns),
            secrets,
        })
    }

    /// Pushes onto `found` every occurrence in `window`: in the text as it
    /// is, and in its decoded views. `starts_line`: whether `window` starts
    /// at the start of a line (a stream's later windows may not).
    pub(crate) fn collect(&self, window: &[u8], starts_line: bool, found: &mut Vec<Found>) {
        found.clear();
        self.collect_plain(window, found);
        for (start, end) in views::regions(window, self.reach) {
            let mut layer = views::decode(&window[start..end], start, None);
            let mut depth = 1;
            while let Some(view) = layer {
                self.collect_view(&view, found, |form| match form {
                    SecretForm::Plain | SecretForm::Escaped => decoded_form(&view),
                    other => other,
                });
                if depth == MAX_DEPTH {
                    break;
                }
                depth += 1;
                layer = views::decode(&view.bytes, 0, Some(&view));
            }
        }
        // Run views, each found by its own cheap scan; the form of a match
        // is the view's (a base64 pattern in joined lines stays base64).
        let mut joined = Vec::new();
        let mut forms: Vec<(usize, Option<SecretForm>)> = Vec::new();
        let mut mark =
            |joined: &Vec<View>, form: Option<SecretForm>| forms.push((joined.len(), form));
        // Separated hex decoded to bytes: the secret, or a fragment of it, as
        // itself inside.
        runs::hex_views(window, 0, &mut joined);
        mark(&joined, Some(SecretForm::Hex));
        // Wrapped lines joined: the listed base64/base32 patterns match.
        runs::wrapped_views(window, 0, &mut joined);
        mark(&joined, None);
        // Byte values as decimal or octal numbers (secrets5 #12, round6 #5).
        runs::decimal_views(window, 0, &mut joined);
        mark(&joined, Some(SecretForm::Decimal));
        // A few characters per line, with or without line numbers
        // (proof5 #7, secrets5 #12, round6 #5).
        runs::short_line_views(window, 0, starts_line, &mut joined);
        mark(&joined, Some(SecretForm::Spread));
        // Lists of quoted characters (round6 #5: Python's `list(s)`, JSON).
        runs::quoted_views(window, 0, &mut joined);
        mark(&joined, Some(SecretForm::Spread));
        // Uuencoded lines (round7 #13).
        runs::uu_views(window, 0, &mut joined);
        mark(&joined, Some(SecretForm::Uuencoded));
        // Compatibility forms, tag characters and invisible characters
        // (secrets5 #4/#12, round6 #5).
        runs::folded_views(window, 0, self.reach, &mut joined);
        mark(&joined, Some(SecretForm::Folded));
        let mut kind = 0;
        for (index, view) in joined.iter().enumerate() {
            while forms[kind].0 <= index {
                kind += 1;
            }
            let form = forms[kind].1;
            self.collect_view(view, found, |found| form.unwrap_or(found));
        }
    }

    /// Occurrences in `view`, mapped back to the original input's spans,
    /// each form renamed by `form_of`.
    fn collect_view(
        &self,
        view: &View,
        found: &mut Vec<Found>,
        form_of: impl Fn(SecretForm) -> SecretForm,
    ) {
        let before = found.len();
        self.collect_plain(&view.bytes, found);
        for occurrence in &mut found[before..] {
            let (from, to) = view.original(occurrence.start, occurrence.end);
            occurrence.start = from;
            occurrence.end = to;
            occurrence.form = form_of(occurrence.form);
        }
    }

    /// Occurrences of listed patterns in `window` (no views), widened.
    fn collect_plain(&self, window: &[u8], found: &mut Vec<Found>) {
        let Some(filter) = &self.filter else {
            self.search(window, 0, window.len(), found);
            return;
        };
        let reach = self.longest;
        // The current candidate region [lo, hi), searched when the next hit
        // does not touch it.
        let mut region: Option<(usize, usize)> = None;
        let mut at = 0usize;
        while at + GRAM <= window.len() {
            if filter.hit(window, at) {
                // An occurrence holding this gram lies inside [lo, hi).
                let lo = (at + GRAM).saturating_sub(reach);
                let hi = (at + reach).min(window.len());
                region = match region {
                    Some((start, end)) if lo <= end => Some((start, hi)),
                    Some((start, end)) => {
                        self.search(window, start, end, found);
                        Some((lo, hi))
                    }
                    None => Some((lo, hi)),
                };
            }
            at += filter.step;
        }
        if let Some((start, end)) = region {
            self.search(window, start, end, found);
        }
    }

    /// Runs the matcher over `window[start..end]`, pushing widened spans.
    ///
    /// A span inside the one pushed last by this call is not pushed, and
    /// spans inside a new one are dropped first: the twenty-odd fragments
    /// of a secret found with it add nothing to what is removed, and
    /// [`crate::Redactor::find_secret`]'s choice (earliest, then longest)
    /// is never one of them.
    fn search(&self, window: &[u8], start: usize, end: usize, found: &mut Vec<Found>) {
        let first = found.len();
        let push = |hit_start: usize, hit_end: usize, pattern: usize| {
            let (mut from, mut to) = (start + hit_start, start + hit_end);
            let info = self.info[pattern];
            let floor = from.saturating_sub(usize::from(info.widen_left));
            while from > floor && info.alphabet.contains(window[from - 1]) {
                from -= 1;
            }
            let ceiling = (to + usize::from(info.widen_right)).min(window.len());
            while to < ceiling && info.alphabet.contains(window[to]) {
                to += 1;
            }
            if found[first..]
                .last()
                .is_some_and(|last| last.start <= from && to <= last.end)
            {
                return;
            }
            while found[first..]
                .last()
                .is_some_and(|last| from <= last.start && last.end <= to)
            {
                found.pop();
            }
            found.push(Found {
                start: from,
                end: to,
                secret: info.secret,
                form: info.form,
            });
        };
        self.matcher.for_each_match(&window[start..end], push);
    }

    /// Where the partial secret at the end of `text` starts, if `text` was
    /// cut inside one: the earliest start of a suffix that is a prefix of a
    /// secret (ASCII case ignored; at least [`MIN_CUT_TAIL_BYTES`] long),
    /// in the text as it is or in its decoded view.
    pub(crate) fn cut_tail_start(&self, text: &[u8]) -> Option<usize> {
        let tail_from = views::safe_start(text, text.len().saturating_sub(self.reach + MAX_UNIT));
        let tail = &text[tail_from..];
        let mut best = self.prefix_suffix_start(tail).map(|at| tail_from + at);
        let mut layer = views::decode(tail, tail_from, None);
        let mut depth = 1;
        while let Some(view) = layer {
            if let Some(at) = self.prefix_suffix_start(&view.bytes) {
                let start = view.starts[at];
                best = Some(best.map_or(start, |known| known.min(start)));
            }
            if depth == MAX_DEPTH {
                break;
            }
            depth += 1;
            layer = views::decode(&view.bytes, 0, Some(&view));
        }
        best
    }

    /// Start of the longest suffix of `bytes` that is a proper prefix of a
    /// secret, at least [`MIN_CUT_TAIL_BYTES`] long; the prefix may be
    /// followed by what the cut left incomplete: an escape (`%7`, `\u00`,
    /// `&#1`) or up to [`CUT_JUNK_BYTES`] other bytes (a tag cut open, `<`).
    fn prefix_suffix_start(&self, bytes: &[u8]) -> Option<usize> {
        let mut ends: Vec<usize> =
            (bytes.len().saturating_sub(CUT_JUNK_BYTES)..=bytes.len()).collect();
        let from = bytes.len().saturating_sub(MAX_UNIT);
        ends.extend((from..bytes.len()).filter(|&at| matches!(bytes[at], b'%' | b'\\' | b'&')));
        let mut best: Option<usize> = None;
        for end in ends {
            let bytes = &bytes[..end];
            for secret in &self.secrets {
                let secret = secret.as_bytes();
                let longest = (secret.len() - 1).min(bytes.len());
                for len in (MIN_CUT_TAIL_BYTES..=longest).rev() {
                    let start = bytes.len() - len;
                    if bytes[start..].eq_ignore_ascii_case(&secret[..len]) {
                        best = Some(best.map_or(start, |known| known.min(start)));
                        break;
                    }
                }
            }
        }
        best
    }

    /// Where a stream may cut `window` at or before `at` so the next window
    /// decodes as the whole text would (never inside an escape unit); `at`
    /// itself when no such point is near.
    pub(crate) fn safe_cut(&self, window: &[u8], at: usize) -> usize {
        match views::safe_start(window, at) {
            0 => at,
            safe => safe,
        }
    }
}

/// The form to report for a match found in a decoded view.
fn decoded_form(view: &View) -> SecretForm {
    if view.kinds == views::KIND_PERCENT {
        SecretForm::Percent
    } else {
        SecretForm::Decoded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_bytes(engine: &Engine) -> usize {
        engine.filter.as_ref().map_or(0, |f| {
            8 * (f.bits.len() + f.long.as_ref().map_or(0, Vec::len))
        })
    }

    // proves: REDACT-1 (a redactor built for a few secrets, as a hook call
    // builds one, sizes its prefilter to its patterns: a fixed 1 MiB was
    // zeroed and faulted in by every such process, issue 16) and the
    // smaller table still finds every occurrence in every listed form
    #[test]
    fn a_few_secrets_get_a_small_prefilter_that_still_finds_them() {
        let secret = "sk-live-0123456789abcdefXYZ".to_string();
        let engine = Engine::build(vec![secret.clone()]).expect("builds");
        let bytes = table_bytes(&engine);
        assert!(bytes > 0, "a 27-byte secret is sampled");
        assert!(
            bytes <= 128 << 10,
            "one secret's prefilter takes {bytes} bytes"
        );
        // Every listed pattern of the secret, alone and inside text, is found
        // through the (small) prefilter.
        for (pattern, _) in patterns_for(&secret) {
            let text = format!("prefix {pattern} suffix");
            let mut found = Vec::new();
            engine.collect(text.as_bytes(), true, &mut found);
            assert!(!found.is_empty(), "pattern {pattern:?} not found");
        }
    }

    // proves: REDACT-1 (a hundred secrets still get the full-size table,
    // so the prefilter's false hits stay rare on large sets)
    #[test]
    fn many_secrets_keep_the_largest_prefilter() {
        let secrets: Vec<String> = (0..100)
            .map(|i| {
                format!(
                    "sk-bench-{i:04}-{:016x}",
                    (i as u64 + 1).wrapping_mul(0x9e37_79b9)
                )
            })
            .collect();
        let engine = Engine::build(secrets).expect("builds");
        assert_eq!(table_bytes(&engine), 2 * ((1usize << FILTER_BITS_LOG2) / 8));
    }
}
