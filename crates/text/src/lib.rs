//! ploy-text (pure): the characters that are invisible or reorder text on
//! screen, so that a line reads one way to a person and another to a
//! program. One list, used wherever ploy refuses or strips them: the proof
//! validator (a proof line holding one is refused, PROOF-1), the egress
//! scrub's phrase normalisation (a disguised phrase is matched as written
//! plainly) and the research engine's page text (never passed to the model).
//! Also the one escaper of text shown on a terminal ([`escape_for_screen`])
//! and the one answer to "does this character show as itself" ([`is_shown`]).

/// Format characters (Unicode category Cf) and the other default-ignorable
/// characters that show nothing or change the order text is shown in: soft
/// hyphen, combining grapheme joiner, Arabic letter mark, Hangul fillers,
/// Khmer inherent vowels, Mongolian variation selectors and vowel separator,
/// zero-width spaces and joiners, left-to-right and right-to-left marks,
/// embeddings, overrides and isolates, invisible operators, variation
/// selectors, the byte order mark, interlinear annotation marks, shorthand
/// format controls, musical symbol format controls and the tag characters.
/// Controls (`char::is_control`) are a separate question for each caller.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Whether `c` shows on a terminal as what it is, by an allowlist of
/// Unicode general categories: letters, marks, numbers, punctuation,
/// symbols, and of the separators only the space U+0020. Everything else is
/// not: controls (C0, DEL, C1), format characters (zero-width spaces and
/// joiners, bidi marks, embeddings, overrides and isolates, U+061C, the soft
/// hyphen, the byte order mark, tag characters), other spaces (NBSP,
/// U+3000), the line and paragraph separators U+2028/U+2029, private-use,
/// surrogate and unassigned code points; and the letters and marks that
/// [`is_invisible`] lists (the Hangul fillers U+115F, U+1160, U+3164,
/// U+FFA0, variation selectors, the combining grapheme joiner). A person
/// reading shown text sees every character that is there (PERM-3).
pub fn is_shown(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    if c == ' ' {
        return true;
    }
    let category_shown = matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::NonspacingMark
            | G::SpacingMark
            | G::EnclosingMark
            | G::DecimalNumber
            | G::LetterNumber
            | G::OtherNumber
            | G::ConnectorPunctuation
            | G::DashPunctuation
            | G::OpenPunctuation
            | G::ClosePunctuation
            | G::InitialPunctuation
            | G::FinalPunctuation
            | G::OtherPunctuation
            | G::MathSymbol
            | G::CurrencySymbol
            | G::ModifierSymbol
            | G::OtherSymbol
    );
    category_shown && !is_invisible(c)
}

/// `text` for a person's terminal: [`is_shown`] characters, newlines and
/// tabs as they are, every other character escaped ([`escape_for_screen`]).
/// The escaper of model, page, command and stored text in every face that
/// prints to a terminal or a file a person reads.
pub fn for_screen(text: &str) -> std::borrow::Cow<'_, str> {
    escape_for_screen(text, |c| is_shown(c) || matches!(c, '\n' | '\t'))
}

/// `text` with every character that `shown` rejects written as visible
/// text: C0 controls in caret notation (`ESC` → `^[`), DEL as `^?`, any
/// other as its `\u{…}` escape. Borrowed when nothing needed escaping.
/// The one escaper for text a person reads on a terminal (the agent's
/// approval prompt, `ploy sandbox run` on a terminal), each face choosing
/// what it shows as is.
pub fn escape_for_screen(text: &str, shown: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    if text.chars().all(&shown) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if shown(c) => out.push(c),
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            c => out.extend(c.escape_unicode()),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: PROOF-1 (the list the validator refuses and the scrub and
    // research strip: bidi overrides, zero-width characters, tags)
    #[test]
    fn invisible_and_reordering_characters() {
        for c in [
            '\u{00AD}',
            '\u{200B}',
            '\u{200D}',
            '\u{200E}',
            '\u{202E}',
            '\u{2066}',
            '\u{2069}',
            '\u{FEFF}',
            '\u{FFF9}',
            '\u{FE0F}',
            '\u{E0041}',
            '\u{E0100}',
            '\u{1D173}',
        ] {
            assert!(is_invisible(c), "U+{:04X}", u32::from(c));
        }
        for c in [
            'a', ' ', '\t', '-', 'é', '中', '\u{00A0}', '\u{2010}', '\u{FFFD}',
        ] {
            assert!(!is_invisible(c), "U+{:04X}", u32::from(c));
        }
    }

    // proves: PERM-3 (tui-rpc #4: every invisible, reordering or
    // separating character is escaped, by category, not by a list)
    #[test]
    fn only_visible_categories_are_shown() {
        let hidden = [
            '\u{1b}',
            '\u{7}',
            '\r',
            '\u{7f}',
            '\u{85}',
            '\u{9b}',
            '\u{00A0}',
            '\u{00AD}',
            '\u{061C}',
            '\u{115F}',
            '\u{1160}',
            '\u{180E}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{2028}',
            '\u{2029}',
            '\u{202A}',
            '\u{202C}',
            '\u{202E}',
            '\u{2060}',
            '\u{2061}',
            '\u{2064}',
            '\u{2066}',
            '\u{2068}',
            '\u{2069}',
            '\u{3000}',
            '\u{3164}',
            '\u{E000}',
            '\u{FE0F}',
            '\u{FEFF}',
            '\u{FFA0}',
            '\u{FFF9}',
            '\u{E0001}',
            '\u{E0041}',
            '\u{E007F}',
            '\u{E0100}',
            '\u{10FFFF}',
        ];
        for c in hidden {
            assert!(!is_shown(c), "U+{:04X} is shown", u32::from(c));
            assert!(
                !for_screen(&format!("a{c}b")).contains(c),
                "U+{:04X} reaches the screen",
                u32::from(c)
            );
        }
        for c in [
            'a', 'Z', ' ', '-', '~', 'é', '\u{301}', '中', 'カ', 'ж', '٣', '→', '€', '⚠', '🦳', '·',
        ] {
            assert!(is_shown(c), "U+{:04X} is hidden", u32::from(c));
        }
        assert_eq!(for_screen("line\n\tok"), "line\n\tok");
        assert_eq!(for_screen("a\u{200b}b\u{e0041}"), "a\\u{200b}b\\u{e0041}");
    }

    // proves: PERM-3 (what a person reads is what the text holds: controls
    // shown as carets, nothing else changed)
    #[test]
    fn screen_escape_shows_controls_and_borrows_plain_text() {
        let plain = |c: char| !c.is_control() || c == '\n';
        assert!(matches!(
            escape_for_screen("plain\ntext", plain),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            escape_for_screen("a\u{1b}]0;t\u{7}\u{7f}\u{9b}b", plain),
            "a^[]0;t^G^?\\u{9b}b"
        );
    }
}
