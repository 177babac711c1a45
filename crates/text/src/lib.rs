//! ploy-text (pure): the characters that are invisible or reorder text on
//! screen, so that a line reads one way to a person and another to a
//! program. One list, used wherever ploy refuses or strips them: the proof
//! validator (a proof line holding one is refused, PROOF-1), the egress
//! scrub's phrase normalisation (a disguised phrase is matched as written
//! plainly) and the research engine's page text (never passed to the model).
//! Also the one escaper of text shown on a terminal ([`escape_for_screen`]).

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
