//! Caps (CAP-1, A-2): one budget for answer and snippets, cut on code point
//! boundaries, never over budget, never a split or replaced character.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use ploy_secrets::cap::{ByteBudget, SEARCH_TEXT_BUDGET, cut_marker, truncate_on_char_boundary};
use proptest::prelude::*;

/// ~4.5 MB of 1-, 2-, 3- and 4-byte characters in a scrambled order, so every
/// byte offset near the cap falls inside some character of every width.
fn bomb() -> String {
    let chars = ['a', 'é', '€', '😀', 'Z', 'ß', '✓', '𝄞'];
    let mut state: u32 = 0x1234_5678;
    let mut text = String::with_capacity(4_600_000);
    while text.len() < 4_500_000 {
        // xorshift: a fixed, reproducible scramble.
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        text.push(chars[(state % chars.len() as u32) as usize]);
    }
    text
}

/// The reference answer: the largest boundary at or below `max`.
fn reference_cut(text: &str, max: usize) -> usize {
    (0..=max.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .expect("0 is a boundary")
}

fn assert_clean_prefix(original: &str, kept: &str, max: usize) {
    assert!(kept.len() <= max, "over budget: {} > {max}", kept.len());
    assert!(
        original.as_bytes().starts_with(kept.as_bytes()),
        "not a prefix"
    );
    let introduced = kept.contains('\u{FFFD}') && !original.contains('\u{FFFD}');
    assert!(!introduced, "replacement character introduced");
    // Re-validating the bytes proves no code point is split at the end.
    assert!(std::str::from_utf8(kept.as_bytes()).is_ok());
    assert!(original.is_char_boundary(kept.len()));
}

// proves: A-2, CAP-1 (a ~4.5 MB bomb collapses inside the 50 KB cap, cut on a
// code point boundary, at every cut position near the boundary)
#[test]
fn bomb_collapses_inside_cap_at_every_cut_position() {
    let bomb = bomb();
    assert!(bomb.len() >= 4_500_000);
    assert!(!bomb.contains('\u{FFFD}'));
    // Shift the bomb by 0..8 ASCII bytes so the cap falls at every offset
    // inside characters of every width, and try every budget around 50 KB.
    for shift in 0..8 {
        let text = format!("{}{}", "x".repeat(shift), bomb);
        for max in SEARCH_TEXT_BUDGET - 8..=SEARCH_TEXT_BUDGET + 8 {
            let kept = truncate_on_char_boundary(&text, max);
            assert_clean_prefix(&text, kept, max);
            assert_eq!(
                kept.len(),
                reference_cut(&text, max),
                "shift {shift} max {max}"
            );
            assert!(kept.len() + 3 >= max, "cut more than one character");

            let mut budget = ByteBudget::new(max);
            let capped = budget.take(&text);
            assert_eq!(capped.text, kept);
            assert_eq!(capped.cut_bytes, text.len() - kept.len());
            let marker = capped.marker().expect("cut");
            assert!(marker.contains(&capped.cut_bytes.to_string()));
        }
    }
}

// proves: A-2, CAP-1 (answer + snippets share one 50 KB budget; with markers
// the total still fits)
#[test]
fn answer_and_snippets_share_one_budget() {
    let bomb = bomb();
    let snippets: Vec<&str> = (0..20)
        .map(|i| &bomb[..reference_cut(&bomb, 10_000 + i)])
        .collect();

    let mut budget = ByteBudget::for_search();
    let answer = budget.take(&bomb);
    let mut total = answer.text.len();
    for snippet in &snippets {
        let capped = budget.take(snippet);
        assert_clean_prefix(snippet, capped.text, SEARCH_TEXT_BUDGET);
        total += capped.text.len();
    }
    assert!(total <= SEARCH_TEXT_BUDGET);
    assert_eq!(total, budget.used());
    assert!(budget.cut_bytes() >= bomb.len() - SEARCH_TEXT_BUDGET);

    let mut budget = ByteBudget::for_search();
    let snippet_budget_before = budget.remaining();
    let answer = budget.take_marked(&snippets[0][..reference_cut(snippets[0], 1000)]);
    assert_eq!(snippet_budget_before - budget.remaining(), answer.len());
    let mut total = answer.len();
    for snippet in std::iter::once(bomb.as_str()).chain(snippets.iter().copied()) {
        let marked = budget.take_marked(snippet);
        assert!(!marked.contains('\u{FFFD}'));
        total += marked.len();
    }
    assert!(total <= SEARCH_TEXT_BUDGET, "{total}");
    assert_eq!(total, budget.used());
}

// proves: CAP-1 (the marker says how much was cut)
#[test]
fn marker_names_the_cut_bytes() {
    let mut budget = ByteBudget::new(30);
    let text = "é".repeat(100);
    let marked = budget.take_marked(&text);
    let kept = marked.split('[').next().expect("text");
    let cut = 200 - kept.len();
    assert!(marked.ends_with(&cut_marker(cut)), "{marked}");
    assert!(marked.len() <= 30);
}

proptest! {
    // proves: CAP-1 (any text, any budget: prefix, on a boundary, maximal)
    #[test]
    fn truncation_is_maximal_boundary_prefix(text in "\\PC{0,200}", max in 0usize..900) {
        let kept = truncate_on_char_boundary(&text, max);
        assert_clean_prefix(&text, kept, max);
        prop_assert_eq!(kept.len(), reference_cut(&text, max));
    }

    // proves: CAP-1 (several fields never exceed one budget, marked or not)
    #[test]
    fn shared_budget_never_exceeded(
        fields in proptest::collection::vec("\\PC{0,120}", 0..8),
        max in 0usize..400,
        marked in any::<bool>(),
    ) {
        let mut budget = ByteBudget::new(max);
        let mut total = 0;
        for field in &fields {
            if marked {
                let out = budget.take_marked(field);
                let introduced = out.contains('\u{FFFD}') && !field.contains('\u{FFFD}');
                prop_assert!(!introduced, "replacement character introduced");
                total += out.len();
            } else {
                let out = budget.take(field);
                assert_clean_prefix(field, out.text, max);
                prop_assert_eq!(out.text.len() + out.cut_bytes, field.len());
                total += out.text.len();
            }
        }
        prop_assert!(total <= max);
        prop_assert!(budget.used() <= max);
    }
}

// proves: CAP-1, REDACT-1 (issue 14 item 5: a cut forced before redaction,
// such as a download stopped at its cap, leaves no partial secret at the
// end, at every cut position, plain or escaped)
#[test]
fn a_forced_cut_inside_a_secret_leaves_no_part_of_it() {
    use ploy_secrets::{REDACTED, Redactor};
    let secret = "tvly-Zx9CutTail2718";
    let (redactor, _) = Redactor::new([secret]);
    let percent: String = secret.bytes().map(|b| format!("%{b:02x}")).collect();
    for encoded in [secret.to_owned(), secret.to_uppercase(), percent] {
        let text = format!("page text before {encoded} and after");
        let start = text.find(&encoded).expect("planted");
        for cut in start..start + encoded.len() {
            let out = redactor.redact_cut_tail(&text[..cut]);
            let kept = out.strip_suffix(REDACTED).unwrap_or(&out);
            let kept_part = &kept[kept.len().min(start)..];
            // At most 3 bytes of the secret's start may stay ("tvl"), once
            // escapes are undone.
            let decoded = ploy_secrets::unescape(kept_part);
            let leaked = decoded
                .bytes()
                .zip(secret.bytes())
                .take_while(|(a, b)| a.eq_ignore_ascii_case(b))
                .count();
            assert!(
                leaked <= 3,
                "cut at {cut}: kept {kept_part:?} of {encoded:?}"
            );
            assert!(out.starts_with("page text before "), "{out:?}");
        }
    }
    // Text that ends in ordinary words is left alone.
    assert_eq!(redactor.redact_cut_tail("ordinary words"), "ordinary words");
    assert_eq!(redactor.redact_cut_tail("ends with tvl"), "ends with tvl");
}
