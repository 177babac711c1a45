//! What the scrubber does to a phrase before its rules run (SCRUB-1): the
//! rules see text as a reader (or a search engine) would, not as it was
//! disguised.
//!
//! 1. Escapes undone: percent (`sk%2Dlive%2D…`, `%252D`), backslash
//!    (`\u0073k-…`) and HTML references (`&#115;k-…`), up to three stacked
//!    layers (`ploy_secrets::unescape`).
//! 2. Invisible characters removed: zero-width characters, bidi controls,
//!    the soft hyphen and other default-ignorable format characters (an
//!    e-mail with U+200B before `@` is an e-mail).
//! 3. NFKC: compatibility forms to their plain letters (full-width `４１１１`
//!    and `＠`, mathematical letters `𝐬𝐤`, ligatures).
//! 4. Look-alikes folded: in a word (between white space) that mixes Latin
//!    letters with Cyrillic or Greek ones (`ѕk-live-…` with a Cyrillic `ѕ`),
//!    or that is long and holds digits, every run of Cyrillic or Greek
//!    letters made *only* of look-alikes becomes the Latin letters it
//!    imitates (`ploy_secrets::CONFUSABLES`). A run holding a letter that imitates
//!    nothing (`л` in `пароль=…`) is a real word and stays, and so do words
//!    written wholly in Cyrillic or Greek (`ошибка`), so ordinary text in
//!    those languages is not changed.
//!
//! For a phrase with none of these, the text is returned unchanged (borrowed).

use ploy_text::is_invisible;
use std::borrow::Cow;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

// The one table of look-alikes (`ploy_secrets::CONFUSABLES`), shared with
// the redactor's folded view. Case-preserving, so `AKIA` written with a
// Cyrillic `А` folds to `AKIA`. (A hand-kept table rather than the UTS 39
// skeleton: the skeleton folds case and maps `I` to `l` and `0` to `O`,
// which would break the very key prefixes the rules look for.)
use ploy_secrets::confusable;

/// A word of look-alikes and ASCII digits at least this long is folded even
/// without a Latin letter (a key written in Cyrillic letters and digits).
const FOLD_WITHOUT_LATIN_MIN_CHARS: usize = 16;

/// The phrase as the rules should see it (module docs).
pub(super) fn normalize(phrase: &str) -> Cow<'_, str> {
    let mut text = ploy_secrets::unescape(phrase);
    if text.chars().any(is_invisible) {
        text = Cow::Owned(text.chars().filter(|&c| !is_invisible(c)).collect());
    }
    if is_nfkc_quick(text.chars()) != IsNormalized::Yes {
        let nfkc: String = text.nfkc().collect();
        if nfkc != text {
            text = Cow::Owned(nfkc);
        }
    }
    if text.chars().any(|c| confusable(c).is_some()) {
        text = Cow::Owned(fold_mixed_words(&text));
    }
    if text.contains(IDEOGRAPHIC_FULL_STOP) {
        text = Cow::Owned(fold_ideographic_dots(&text));
    }
    text
}

/// `。` (U+3002; NFKC maps the half-width `｡` to it): a dot to browsers and
/// IDNA. Between two digits it becomes `.`, so `192。168。1。1` is an IPv4
/// address to the rules; in prose it stays.
const IDEOGRAPHIC_FULL_STOP: char = '\u{3002}';

fn fold_ideographic_dots(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars
        .iter()
        .enumerate()
        .map(|(at, &c)| {
            let between_digits = at > 0
                && chars[at - 1].is_ascii_digit()
                && chars.get(at + 1).is_some_and(char::is_ascii_digit);
            if c == IDEOGRAPHIC_FULL_STOP && between_digits {
                '.'
            } else {
                c
            }
        })
        .collect()
}

/// Folds the look-alikes of every word that mixes them with Latin letters
/// (or is long and holds digits); other words stay as written (module docs).
fn fold_mixed_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, after) = rest.split_at(word_end);
        let has_latin = word.chars().any(|c| c.is_ascii_alphabetic());
        let long_with_digits = word.chars().count() >= FOLD_WITHOUT_LATIN_MIN_CHARS
            && word.chars().any(|c| c.is_ascii_digit());
        if has_latin || long_with_digits {
            fold_look_alike_runs(word, &mut out);
        } else {
            out.push_str(word);
        }
        let space_end = after
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(after.len());
        out.push_str(&after[..space_end]);
        rest = &after[space_end..];
    }
    out
}

/// Appends `word` with each run of non-ASCII letters folded when every
/// letter of the run is a look-alike.
fn fold_look_alike_runs(word: &str, out: &mut String) {
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.chars().all(|c| confusable(c).is_some()) {
            out.extend(run.chars().filter_map(confusable));
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in word.chars() {
        if c.is_alphabetic() && !c.is_ascii() {
            run.push(c);
        } else {
            flush(&mut run, out);
            out.push(c);
        }
    }
    flush(&mut run, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: SCRUB-1 (disguises are undone before the rules run)
    #[test]
    fn disguises_are_undone() {
        for (disguised, plain) in [
            ("ѕk-live-abc", "sk-live-abc"),
            ("АKIA1234", "AKIA1234"),
            ("sk%2Dlive%2Dabc", "sk-live-abc"),
            ("sk%252Dlive", "sk-live"),
            ("раѕѕword hunter2", "password hunter2"),
            ("ѕк-ӏіѵе-4еС39НqLу", "sk-live-4eC39HqLy"),
            ("alice\u{200B}@example.com", "alice@example.com"),
            ("a\u{202E}b\u{2066}c", "abc"),
            ("４１１１＠ｘ", "4111@x"),
            ("𝐬𝐤-live", "sk-live"),
            ("&#115;k-live", "sk-live"),
            ("\\u0073k-live", "sk-live"),
        ] {
            assert_eq!(normalize(disguised), plain, "{disguised}");
        }
    }

    // proves: SCRUB-1 (ordinary text in Cyrillic and Greek is not changed)
    #[test]
    fn words_wholly_in_one_script_are_kept() {
        for text in [
            "ошибка сегментации в Rust",
            "пароль не подходит",
            "σφάλμα σύνδεσης",
            "エラー 500 の原因",
            "plain ascii text",
            "пароль=qwerty777 не подходит",
            "ошибка\tв Rust-коде 42",
        ] {
            assert!(matches!(normalize(text), Cow::Borrowed(_)) || normalize(text) == text);
            assert_eq!(normalize(text), text);
        }
    }
}
