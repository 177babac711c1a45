//! The engine's matcher (secrets5 #18, issue 14): every pattern indexed by
//! its last `key` bytes (ASCII case folded) in a hash table, and each end
//! position of the searched text looked up there, candidates compared in
//! full. Same answers as the aho-corasick automaton — every occurrence of
//! every pattern, overlapping, ASCII case ignored — with a build that is one
//! hash insert per pattern.
//!
//! Why not the automaton: an aho-corasick automaton searches fastest, but building it
//! costs far more than its input (failure links over every state of a trie
//! of every pattern byte, cache misses on each): 3.4 s of CPU for the ~80,000
//! patterns of a 60 KB `.env` of 1,100 values, run again by every hook call.
//! This table builds in milliseconds for the same set. Its search costs one
//! lookup per byte of the windows the prefilter lets through, plus a compare
//! per candidate: candidates are patterns ending with the same `key` bytes,
//! a handful unless the secrets themselves share their ends (then it is
//! slower, never wrong).
//!
//! [`crate::engine::Engine`] uses it for every redactor (issue 14: the
//! automaton's build was most of the start-up cost of every process that
//! redacts, and behind the prefilter the table searches about as fast).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Longest key: eight bytes fit one `u64`, no hashing of strings.
const MAX_KEY: usize = 8;

/// A multiplicative hasher for the `u64` keys (the keys are bytes of
/// secrets and of the text, not attacker-chosen hash-flooding input of
/// unbounded size: a bucket holds only patterns, whose number is fixed).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0 ^ value)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

/// log2 of the bits of [`GramMatcher::present`] (8 KiB: stays in L1).
const PRESENT_BITS_LOG2: u32 = 16;

/// The bit of [`GramMatcher::present`] for a key.
fn present_bit(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - PRESENT_BITS_LOG2)) as usize
}

/// Patterns by the case-folded last `key` bytes.
pub(crate) struct GramMatcher {
    key: usize,
    buckets: HashMap<u64, Vec<u32>, BuildHasherDefault<KeyHasher>>,
    /// One bit per hashed key that has a bucket: most positions of the
    /// searched text end no pattern, and this answers them from L1
    /// before the hash map is asked.
    present: Vec<u64>,
    patterns: Vec<Box<[u8]>>,
}

/// The case-folded bytes `bytes[..key]` (key <= 8) as one number.
fn key_of(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| {
        (acc << 8) | u64::from(b.to_ascii_lowercase())
    })
}

impl GramMatcher {
    /// Indexes `patterns` (none empty). `None` when there is none.
    pub(crate) fn build(patterns: &[String]) -> Option<GramMatcher> {
        let shortest = patterns.iter().map(String::len).min()?;
        if shortest == 0 {
            return None;
        }
        let key = shortest.min(MAX_KEY);
        let mut buckets: HashMap<u64, Vec<u32>, BuildHasherDefault<KeyHasher>> =
            HashMap::with_capacity_and_hasher(patterns.len(), Default::default());
        let mut stored = Vec::with_capacity(patterns.len());
        let mut present = vec![0u64; (1 << PRESENT_BITS_LOG2) / 64];
        for (index, pattern) in patterns.iter().enumerate() {
            let bytes = pattern.as_bytes();
            let id = u32::try_from(index).ok()?;
            let last = key_of(&bytes[bytes.len() - key..]);
            let bit = present_bit(last);
            present[bit / 64] |= 1 << (bit % 64);
            buckets.entry(last).or_default().push(id);
            stored.push(bytes.to_ascii_lowercase().into_boxed_slice());
        }
        Some(GramMatcher {
            key,
            buckets,
            present,
            patterns: stored,
        })
    }

    /// Calls `hit(start, end, pattern)` for every occurrence of every
    /// pattern in `hay` (overlapping; ASCII case ignored), in order of end.
    pub(crate) fn for_each_match(&self, hay: &[u8], mut hit: impl FnMut(usize, usize, usize)) {
        if hay.len() < self.key {
            return;
        }
        let mask = if self.key == MAX_KEY {
            u64::MAX
        } else {
            (1u64 << (8 * self.key)) - 1
        };
        let mut rolling = key_of(&hay[..self.key - 1]);
        for end in self.key..=hay.len() {
            rolling = ((rolling << 8) | u64::from(hay[end - 1].to_ascii_lowercase())) & mask;
            let bit = present_bit(rolling);
            if self.present[bit / 64] >> (bit % 64) & 1 == 0 {
                continue;
            }
            let Some(bucket) = self.buckets.get(&rolling) else {
                continue;
            };
            for &id in bucket {
                let pattern = &self.patterns[id as usize];
                if pattern.len() <= end
                    && hay[end - pattern.len()..end].eq_ignore_ascii_case(pattern)
                {
                    hit(end - pattern.len(), end, id as usize);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::{AhoCorasick, MatchKind};
    use proptest::prelude::*;

    fn automaton_hits(patterns: &[String], hay: &[u8]) -> Vec<(usize, usize, usize)> {
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(true)
            .build(patterns)
            .unwrap();
        let mut hits: Vec<_> = ac
            .find_overlapping_iter(hay)
            .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
            .collect();
        hits.sort_unstable();
        hits
    }

    fn gram_hits(patterns: &[String], hay: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut hits = Vec::new();
        GramMatcher::build(patterns)
            .unwrap()
            .for_each_match(hay, |s, e, p| hits.push((s, e, p)));
        hits.sort_unstable();
        hits
    }

    proptest! {
        // proves: REDACT-1 (the table finds exactly what the automaton finds:
        // every overlapping occurrence, any ASCII case, patterns of any length)
        #[test]
        fn the_table_finds_what_the_automaton_finds(
            patterns in prop::collection::btree_set("[abAB0-]{1,12}", 1..12),
            hay in "[abAB0-]{0,80}",
        ) {
            // `ab` and `AB` are two patterns to both: each reports its own hit.
            let patterns: Vec<String> = patterns.into_iter().collect();
            prop_assert_eq!(
                gram_hits(&patterns, hay.as_bytes()),
                automaton_hits(&patterns, hay.as_bytes())
            );
        }
    }

    #[test]
    fn keys_are_the_shortest_pattern_or_eight_bytes() {
        let long: Vec<String> = vec!["0123456789abcdef".into(), "ABCDEFGHIJ".into()];
        let hay = b"xx0123456789ABCDEFxxabcdefghij";
        assert_eq!(gram_hits(&long, hay), automaton_hits(&long, hay));
        assert_eq!(GramMatcher::build(&long).unwrap().key, 8);
        let short: Vec<String> = vec!["abc".into(), "zzzzzzzzzzzz".into()];
        assert_eq!(GramMatcher::build(&short).unwrap().key, 3);
        assert!(GramMatcher::build(&[]).is_none());
    }
}
