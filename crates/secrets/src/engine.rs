//! The compiled search (REDACT-1, BEYOND-6): one aho-corasick automaton over
//! every listed pattern of every secret (ASCII case ignored), run over the
//! input behind a sampling prefilter, and over the decoded views of the input
//! around escape triggers (`views.rs`).

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::encodings::{PatternInfo, SecretForm, is_base64_byte, patterns_for};
use crate::grams::GramMatcher;
use crate::runs;
use crate::views::{self, MAX_DEPTH, MAX_UNIT, REACH_PER_BYTE, View};

/// Total pattern bytes up to which a full DFA is built (fastest search, but
/// about 4 bytes x byte classes per pattern byte: a few MiB at this limit).
/// Above it, aho-corasick picks a smaller automaton; the prefilter keeps the
/// automaton off most of the text either way.
const DFA_PATTERN_BYTES_LIMIT: usize = 64 * 1024;

/// Total pattern bytes up to which an automaton is built at all (about 150
/// secrets of 40 characters). Above it the build would cost seconds (its
/// failure links touch every state of a trie of every pattern byte: 3.4 s
/// for a 60 KB `.env`, secrets5 #18); the hash table ([`GramMatcher`])
/// builds in one pass instead.
const AUTOMATON_PATTERN_BYTES_LIMIT: usize = 256 * 1024;

/// How an engine is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Build {
    /// For much text over a long life: the automaton while the patterns
    /// are few enough for it to build quickly.
    LongLived,
    /// For a few short texts (a hook's one reason, one request): the table,
    /// whose build is cheapest.
    OneShot,
}

/// The searcher over the listed patterns.
enum Matcher {
    Automaton(AhoCorasick),
    Table(GramMatcher),
}

/// The shortest partial secret [`Engine::cut_tail_start`] removes: three
/// characters of a secret (`sk-`) are everywhere and give nothing away.
pub(crate) const MIN_CUT_TAIL_BYTES: usize = 4;

/// Bytes after a partial secret at a cut that [`Engine::cut_tail_start`]
/// still treats as the cut's debris (an open tag `<`, `</b`).
const CUT_JUNK_BYTES: usize = 8;

/// Gram length of the prefilter.
const GRAM: usize = 4;
/// log2 of the prefilter's bit count (4 Mi bits = 512 KiB).
const FILTER_BITS_LOG2: u32 = 22;
/// Folds ASCII letters of a gram to lower case (and a few other bytes with
/// them: the filter may only answer "maybe" more often, never "no" for a
/// gram that case-insensitively matches a pattern's).
const GRAM_FOLD: u32 = 0x2020_2020;

/// A Bloom filter (two bits per entry) over every 4-byte gram of every
/// pattern. Every pattern is at least `min_len` bytes long, so every
/// occurrence fully contains a gram starting at a multiple of
/// `step = min_len - GRAM + 1`: sampling those positions finds every
/// occurrence (no false negatives), and only windows around a hit are
/// searched by the automaton. This keeps clean text at memory-scan speed.
struct GramFilter {
    bits: Vec<u64>,
    step: usize,
}

impl GramFilter {
    fn slots(gram: u32) -> (usize, usize) {
        let hash = u64::from(gram | GRAM_FOLD).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mask = (1usize << FILTER_BITS_LOG2) - 1;
        ((hash >> 40) as usize & mask, (hash >> 8) as usize & mask)
    }

    fn gram_at(bytes: &[u8], at: usize) -> u32 {
        let mut gram = [0u8; GRAM];
        gram.copy_from_slice(&bytes[at..at + GRAM]);
        u32::from_le_bytes(gram)
    }

    /// `None` when a pattern is too short to sample (never with 8-byte secrets).
    fn build(patterns: &[String]) -> Option<GramFilter> {
        let min_len = patterns.iter().map(String::len).min()?;
        if min_len < GRAM {
            return None;
        }
        let mut bits = vec![0u64; (1usize << FILTER_BITS_LOG2) / 64];
        for pattern in patterns {
            let bytes = pattern.as_bytes();
            for at in 0..=bytes.len() - GRAM {
                let (a, b) = GramFilter::slots(GramFilter::gram_at(bytes, at));
                bits[a / 64] |= 1 << (a % 64);
                bits[b / 64] |= 1 << (b % 64);
            }
        }
        Some(GramFilter {
            bits,
            step: min_len - GRAM + 1,
        })
    }

    fn hit(&self, gram: u32) -> bool {
        let (a, b) = GramFilter::slots(gram);
        (self.bits[a / 64] >> (a % 64)) & (self.bits[b / 64] >> (b % 64)) & 1 == 1
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

/// The compiled search: automaton, per-pattern widening, and the secrets.
pub(crate) struct Engine {
    matcher: Matcher,
    pub(crate) info: Vec<PatternInfo>,
    /// Bytes a stream must hold back between windows: the longest span an
    /// occurrence can take in the input (a listed pattern, or a secret in
    /// its most expanded escaped form) plus widening.
    pub(crate) keep_back: usize,
    /// Length of the longest pattern.
    longest: usize,
    /// How far around an escape trigger a view reaches (see `views.rs`).
    reach: usize,
    /// Sampling prefilter; `None` searches everything with the automaton.
    filter: Option<GramFilter>,
    pub(crate) secrets: Vec<String>,
}

/// Why an engine could not be built (the redactor then fails closed).
#[derive(Debug)]
pub(crate) struct BuildError;

impl Engine {
    /// Compiles `secrets` (sorted, deduplicated, non-empty).
    pub(crate) fn build(secrets: Vec<String>, how: Build) -> Result<Engine, BuildError> {
        // Deduplicate patterns; a pattern reached twice widens if either asks.
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut patterns: Vec<String> = Vec::new();
        let mut info: Vec<PatternInfo> = Vec::new();
        for (secret_index, secret) in secrets.iter().enumerate() {
            for (pattern, mut pattern_info) in patterns_for(secret) {
                pattern_info.secret = secret_index;
                match index.get(&pattern) {
                    Some(&at) => {
                        info[at].widen_left |= pattern_info.widen_left;
                        info[at].widen_right |= pattern_info.widen_right;
                    }
                    None => {
                        index.insert(pattern.clone(), patterns.len());
                        patterns.push(pattern);
                        info.push(pattern_info);
                    }
                }
            }
        }
        let total_bytes: usize = patterns.iter().map(String::len).sum();
        let longest = patterns.iter().map(String::len).max().unwrap_or(0);
        let longest_secret = secrets.iter().map(String::len).max().unwrap_or(0);
        let matcher = if how == Build::OneShot || total_bytes > AUTOMATON_PATTERN_BYTES_LIMIT {
            Matcher::Table(GramMatcher::build(&patterns).ok_or(BuildError)?)
        } else {
            Matcher::Automaton(automaton(&patterns, total_bytes)?)
        };
        let reach = longest_secret * REACH_PER_BYTE;
        Ok(Engine {
            matcher,
            info,
            keep_back: longest.max(reach + MAX_UNIT) + 2,
            longest,
            reach,
            filter: GramFilter::build(&patterns),
            secrets,
        })
    }

    /// Pushes onto `found` every occurrence in `window`: in the text as it
    /// is, and in its decoded views.
    pub(crate) fn collect(&self, window: &[u8], found: &mut Vec<Found>) {
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
        // Separated hex decoded to bytes: the secret, or a fragment of it, as
        // itself inside.
        let mut joined = Vec::new();
        runs::hex_views(window, 0, &mut joined);
        let hex_views = joined.len();
        // Wrapped lines joined: the listed base64/base32 patterns match.
        runs::wrapped_views(window, 0, &mut joined);
        let wrapped_views = joined.len();
        // Decimal byte lists decoded, one character per line joined, and
        // compatibility forms folded (secrets5 #4/#12, proof5 #7).
        runs::decimal_views(window, 0, &mut joined);
        let decimal_views = joined.len();
        runs::char_line_views(window, 0, &mut joined);
        let line_views = joined.len();
        runs::folded_view(window, 0, &mut joined);
        for (index, view) in joined.iter().enumerate() {
            self.collect_view(view, found, |form| {
                if index < hex_views {
                    SecretForm::Hex
                } else if index < wrapped_views {
                    form
                } else if index < decimal_views {
                    SecretForm::Decimal
                } else if index < line_views {
                    SecretForm::Spread
                } else {
                    SecretForm::Folded
                }
            });
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
            if filter.hit(GramFilter::gram_at(window, at)) {
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
    fn search(&self, window: &[u8], start: usize, end: usize, found: &mut Vec<Found>) {
        let mut push = |hit_start: usize, hit_end: usize, pattern: usize| {
            let (mut from, mut to) = (start + hit_start, start + hit_end);
            let info = self.info[pattern];
            if info.widen_left && from > 0 && is_base64_byte(window[from - 1]) {
                from -= 1;
            }
            if info.widen_right && to < window.len() && is_base64_byte(window[to]) {
                to += 1;
            }
            found.push(Found {
                start: from,
                end: to,
                secret: info.secret,
                form: info.form,
            });
        };
        match &self.matcher {
            Matcher::Table(table) => table.for_each_match(&window[start..end], push),
            Matcher::Automaton(automaton) => {
                match automaton.try_find_overlapping_iter(&window[start..end]) {
                    Ok(matches) => {
                        for hit in matches {
                            push(hit.start(), hit.end(), hit.pattern().as_usize());
                        }
                    }
                    // Fail closed: the whole region is one secret.
                    Err(_) => found.push(Found {
                        start,
                        end,
                        secret: 0,
                        form: SecretForm::Plain,
                    }),
                }
            }
        }
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

/// The aho-corasick automaton over `patterns`: a DFA while small.
fn automaton(patterns: &[String], total_bytes: usize) -> Result<AhoCorasick, BuildError> {
    let mut builder = AhoCorasick::builder();
    // Standard semantics: the overlapping search reports every occurrence
    // of every pattern, so overlapping secrets are all removed. ASCII case
    // is ignored: a secret retyped in upper case, or its hex or base32 in
    // either case, is the same secret.
    builder
        .match_kind(MatchKind::Standard)
        .ascii_case_insensitive(true);
    if total_bytes <= DFA_PATTERN_BYTES_LIMIT {
        builder.kind(Some(AhoCorasickKind::DFA));
    }
    builder
        .build(patterns)
        .or_else(|_| {
            // A DFA may exceed its size limit; let the library choose instead.
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .ascii_case_insensitive(true)
                .build(patterns)
        })
        .map_err(|_| BuildError)
}

/// The form to report for a match found in a decoded view.
fn decoded_form(view: &View) -> SecretForm {
    if view.kinds == views::KIND_PERCENT {
        SecretForm::Percent
    } else {
        SecretForm::Decoded
    }
}
