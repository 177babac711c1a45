//! A known secret cut into short pieces inside one request (BEYOND-6,
//! outside finding tui-rpc #12): `/?x=sk-live-ab&x=cdef01234&x=56789XYZ`,
//! `/sk-live-ab/x/cdef01234/y/56789XYZ`. Each piece is shorter than the
//! redactor's fragment (12 characters), and a filler between them breaks
//! the letters-and-digits skeleton the exact search uses, yet the server
//! joins them trivially.
//!
//! The rule: over the letters-and-digits skeleton (lower-cased) of every
//! view of every part of the request (URL, headers, body; as written and
//! decoded), the door collects every piece of at least [`PIECE_CHARS`]
//! characters that is also a piece of a known secret, and refuses when the
//! pieces found, *in any order*, together cover at least
//! [`COVER_NUMERATOR`]/[`COVER_DENOMINATOR`] of a secret whose skeleton has
//! at least [`PIECE_MIN_SECRET_CHARS`] characters. Order is not required, so
//! reordering the parameters does not get a secret past (a stronger rule
//! than "pieces in order").
//!
//! How: every [`PIECE_CHARS`]-byte window ("gram") of each secret's
//! skeleton is a key of a hash table (one insert each: building it for the
//! thousand values of a large `.env` costs milliseconds, where an automaton
//! cost a large share of a second, secrets5 #18); every window of a view is
//! looked up, and each hit marks the secret's
//! characters under that gram as seen. A longer common piece is the union
//! of its grams, so the marks are exactly the secret's characters that lie
//! in a common piece of at least [`PIECE_CHARS`] characters. A gram that
//! occurs twice in one secret marks every place it stands for: a piece
//! sent once tells the receiver the characters of each of those places
//! (a proptest found `github_pat_11ABCDEFG…abcdefghij…` carried past the
//! rule when the repeated `abcdef` marked nothing). A secret that repeats
//! itself (`changemechangeme`) is then refused on fewer characters, which
//! is the safe side.
//!
//! Known limits (not claimed): pieces shorter than [`PIECE_CHARS`]; less
//! than two thirds of a secret in one request (the rest in another
//! request); secrets whose skeleton is shorter than
//! [`PIECE_MIN_SECRET_CHARS`]; pieces reversed, interleaved character by
//! character, or each encoded differently (base64 of a piece, hex of a
//! piece).

use std::collections::HashMap;

/// Shortest piece counted (characters of the skeleton). Six letters and
/// digits of a random key are rare by chance (36^6 ≈ 2 × 10^9), and the
/// common provider prefixes (`sk-live-`, `ghp_`) give at most one piece.
pub const PIECE_CHARS: usize = 6;

/// Shortest secret skeleton the rule applies to: below it, two pieces are
/// already most of the secret and the exact search (and the redactor's
/// fragments) are what stands.
pub const PIECE_MIN_SECRET_CHARS: usize = 16;

/// Share of a secret's skeleton the pieces must cover to refuse:
/// `COVER_NUMERATOR / COVER_DENOMINATOR` (two thirds).
pub const COVER_NUMERATOR: usize = 2;
/// See [`COVER_NUMERATOR`].
pub const COVER_DENOMINATOR: usize = 3;

/// The compiled grams of every secret long enough for the rule.
pub(crate) struct Pieces {
    /// Each gram (its bytes as one number) and its index in `places`.
    grams: HashMap<u64, usize>,
    /// For gram `i`: every (secret, position in its skeleton) where
    /// it occurs once.
    places: Vec<Vec<(usize, usize)>>,
    /// Skeleton length of each secret.
    lens: Vec<usize>,
}

impl Pieces {
    /// Grams of `skeletons` (lower-cased letters and digits); `None` when no
    /// skeleton is long enough.
    pub(crate) fn build(skeletons: &[String]) -> Option<Pieces> {
        let mut grams: HashMap<u64, usize> = HashMap::new();
        let mut places: Vec<Vec<(usize, usize)>> = Vec::new();
        let mut lens = Vec::new();
        for skeleton in skeletons {
            let bytes = skeleton.as_bytes();
            if skeleton.chars().count() < PIECE_MIN_SECRET_CHARS {
                continue;
            }
            let secret = lens.len();
            lens.push(bytes.len());
            for at in 0..=bytes.len() - PIECE_CHARS {
                let gram = &bytes[at..at + PIECE_CHARS];
                let id = *grams.entry(gram_key(gram)).or_insert_with(|| {
                    places.push(Vec::new());
                    places.len() - 1
                });
                places[id].push((secret, at));
            }
        }
        if grams.is_empty() {
            return None;
        }
        Some(Pieces {
            grams,
            places,
            lens,
        })
    }

    /// A fresh count for one request.
    pub(crate) fn tally(&self) -> Tally<'_> {
        Tally {
            pieces: self,
            seen: vec![Vec::new(); self.lens.len()],
            counts: vec![0; self.lens.len()],
        }
    }
}

/// The characters of each secret seen so far in one request's views.
pub(crate) struct Tally<'a> {
    pieces: &'a Pieces,
    /// Per secret, which skeleton characters lie in a piece seen (allocated
    /// at the first hit).
    seen: Vec<Vec<bool>>,
    counts: Vec<usize>,
}

impl Tally<'_> {
    /// Marks every piece of a secret in `skeleton` (one view's lower-cased
    /// letters and digits; views are never joined, so no piece spans two).
    pub(crate) fn add(&mut self, skeleton: &str) {
        for gram in skeleton.as_bytes().windows(PIECE_CHARS) {
            let Some(&id) = self.pieces.grams.get(&gram_key(gram)) else {
                continue;
            };
            for &(secret, at) in &self.pieces.places[id] {
                let seen = &mut self.seen[secret];
                if seen.is_empty() {
                    seen.resize(self.pieces.lens[secret], false);
                }
                for mark in &mut seen[at..at + PIECE_CHARS] {
                    if !*mark {
                        *mark = true;
                        self.counts[secret] += 1;
                    }
                }
            }
        }
    }

    /// Whether the pieces seen cover enough of some secret.
    pub(crate) fn carries_a_secret(&self) -> bool {
        self.counts
            .iter()
            .zip(&self.pieces.lens)
            .any(|(&count, &len)| count * COVER_DENOMINATOR >= len * COVER_NUMERATOR)
    }
}

// A gram's bytes fit one `u64` key.
const _: () = assert!(PIECE_CHARS <= 8);

/// A gram's [`PIECE_CHARS`] bytes as one number (the table's key).
fn gram_key(gram: &[u8]) -> u64 {
    gram.iter()
        .fold(0u64, |key, &byte| (key << 8) | u64::from(byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn carried(secret: &str, views: &[&str]) -> bool {
        let pieces = Pieces::build(&[secret.to_owned()]).expect("long enough");
        let mut tally = pieces.tally();
        for view in views {
            tally.add(view);
        }
        tally.carries_a_secret()
    }

    // proves: BEYOND-6 (pieces in any order; enough of them; repeated grams never counted twice)
    #[test]
    fn coverage_counts_each_character_once_in_any_order() {
        let secret = "skliveabcdef0123456789xyz";
        assert!(carried(secret, &["xskliveabxcdef01234x56789xyz"]));
        assert!(carried(secret, &["56789xyz", "skliveab", "cdef01234"]));
        // Half the secret is not enough.
        assert!(!carried(secret, &["skliveab", "cdef0"]));
        // The same piece many times covers it once.
        assert!(!carried(secret, &["skliveabskliveabskliveabskliveab"]));
        // Five-character pieces are below the rule.
        assert!(!carried(
            secret,
            &["skliv", "eabcd", "ef012", "34567", "89xyz"]
        ));
        // A repetitive secret: a repeated piece marks every place it
        // stands for (a piece sent once reveals them all).
        assert!(carried("abcabcabcabcabcabc", &["abcabc"]));
        assert!(carried(
            "githubpat11abcdefg0123456789abcdefghijklmnopqrstuv",
            &["abcdef", "githubpat11", "g0123456789", "ghijklmnopq"]
        ));
        assert!(Pieces::build(&["short0123456".to_owned()]).is_none());
    }
}
