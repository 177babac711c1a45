//! ploy-text (pure): the characters that are invisible or reorder text on
//! screen, so that a line reads one way to a person and another to a
//! program. One list, used wherever ploy refuses or strips them: the proof
//! validator (a proof line holding one is refused, PROOF-1), the egress
//! scrub's phrase normalisation (a disguised phrase is matched as written
//! plainly) and the research engine's page text (never passed to the model).

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
}
