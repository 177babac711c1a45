//! Byte caps that never split a code point (CAP-1): one budget shared by
//! several text fields (the 50 KB answer + snippets budget of a search call).

use std::borrow::Cow;

/// The text budget of one search call: answer and snippets together (CAP-1).
pub const SEARCH_TEXT_BUDGET: usize = 50 * 1024;

/// The longest prefix of `text` that is at most `max_bytes` long and ends on a
/// code point boundary (CAP-1: no split character, no U+FFFD).
pub fn truncate_on_char_boundary(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    // A code point is at most 4 bytes, so a boundary is at most 3 steps back.
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The marker appended where text was cut, saying how many bytes were cut.
pub fn cut_marker(cut_bytes: usize) -> String {
    format!("[… {cut_bytes} bytes cut]")
}

/// One field after [`ByteBudget::take`]: the kept prefix and what was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capped<'a> {
    /// The kept text, a prefix of the input ending on a code point boundary.
    pub text: &'a str,
    /// How many bytes of the input were cut (0 when it fit).
    pub cut_bytes: usize,
}

impl<'a> Capped<'a> {
    /// Whether anything was cut.
    pub fn is_cut(&self) -> bool {
        self.cut_bytes > 0
    }

    /// The marker to show after the text, when something was cut.
    pub fn marker(&self) -> Option<String> {
        self.is_cut().then(|| cut_marker(self.cut_bytes))
    }
}

/// A byte budget shared by several fields (CAP-1): each [`ByteBudget::take`]
/// keeps what still fits and counts the rest as cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteBudget {
    max_bytes: usize,
    used: usize,
    cut: usize,
}

impl ByteBudget {
    /// A budget of `max_bytes` bytes for all fields together.
    pub fn new(max_bytes: usize) -> ByteBudget {
        ByteBudget {
            max_bytes,
            used: 0,
            cut: 0,
        }
    }

    /// The search call's budget ([`SEARCH_TEXT_BUDGET`]).
    pub fn for_search() -> ByteBudget {
        ByteBudget::new(SEARCH_TEXT_BUDGET)
    }

    /// Bytes still available.
    pub fn remaining(&self) -> usize {
        self.max_bytes - self.used
    }

    /// Bytes handed out so far.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Bytes cut so far, over all fields.
    pub fn cut_bytes(&self) -> usize {
        self.cut
    }

    /// Whether nothing more fits.
    pub fn is_exhausted(&self) -> bool {
        self.remaining() == 0
    }

    /// Keeps the longest prefix of `text` that fits the remaining budget,
    /// cut on a code point boundary; the kept bytes are spent.
    pub fn take<'a>(&mut self, text: &'a str) -> Capped<'a> {
        let kept = truncate_on_char_boundary(text, self.remaining());
        self.used += kept.len();
        let cut_bytes = text.len() - kept.len();
        self.cut += cut_bytes;
        Capped {
            text: kept,
            cut_bytes,
        }
    }

    /// Like [`ByteBudget::take`], but when text is cut the result ends with
    /// the [`cut_marker`] and the marker's bytes come out of the budget too, so
    /// the total never exceeds it. If not even the marker fits, this is
    /// [`ByteBudget::take`] (the cut still counts in [`ByteBudget::cut_bytes`]).
    pub fn take_marked<'a>(&mut self, text: &'a str) -> Cow<'a, str> {
        if text.len() <= self.remaining() {
            self.used += text.len();
            return Cow::Borrowed(text);
        }
        // Size the marker for the worst case (everything cut): a smaller count
        // never has more digits.
        let marker_room = cut_marker(text.len()).len();
        if marker_room > self.remaining() {
            return Cow::Borrowed(self.take(text).text);
        }
        let kept = truncate_on_char_boundary(text, self.remaining() - marker_room);
        let cut_bytes = text.len() - kept.len();
        let marker = cut_marker(cut_bytes);
        self.used += kept.len() + marker.len();
        self.cut += cut_bytes;
        Cow::Owned(format!("{kept}{marker}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: CAP-1 (shared budget: later fields get what earlier ones left)
    #[test]
    fn budget_is_shared_across_fields() {
        let mut budget = ByteBudget::new(10);
        let first = budget.take("abcdef");
        assert_eq!(first.text, "abcdef");
        assert!(!first.is_cut());
        let second = budget.take("ghijkl");
        assert_eq!(second.text, "ghij");
        assert_eq!(second.cut_bytes, 2);
        assert_eq!(second.marker().as_deref(), Some("[… 2 bytes cut]"));
        let third = budget.take("x");
        assert_eq!(third.text, "");
        assert_eq!(budget.cut_bytes(), 3);
        assert!(budget.is_exhausted());
    }

    // proves: CAP-1 (marker counted inside the budget; never over it)
    #[test]
    fn marked_take_never_exceeds_budget() {
        for max in 0..40 {
            let mut budget = ByteBudget::new(max);
            let a = budget.take_marked("ééééé😀😀😀 some text that is long");
            let b = budget.take_marked("more text here");
            assert!(a.len() + b.len() <= max, "max {max}: {a:?} {b:?}");
            assert_eq!(budget.used(), a.len() + b.len());
        }
    }
}
