//! Letters of other scripts that look like a Latin letter or digit
//! (round8 #8, SCRUB-1), with what they imitate: the one table the
//! redactor's folded view ([`crate::Redactor`]: `ѕk-live-…` with a Cyrillic
//! `ѕ` is the secret `sk-live-…`) and the egress scrubber share.
//!
//! A kept table, not the full Unicode TR39 skeleton: the skeleton folds
//! Latin letters too (`l` and `1` to `I`-like prototypes, `0` to `O`,
//! `m` kept but `rn` not), so comparing skeletons would need the secrets
//! themselves in skeleton form and would merge `l`/`I`/`1` in every
//! secret; here only letters *outside* ASCII fold, each to the one ASCII
//! character whose TR39 prototype it shares (`confusables.txt`), case kept
//! (`А` to `A`, `а` to `a`). Covered: the Cyrillic, Greek, Armenian and
//! Latin-extension look-alikes of that file that map to one ASCII letter
//! or digit; compatibility forms (full-width, mathematical letters) are
//! NFKC's, folded before this table.

/// The look-alikes, sorted by code point (a test checks), with the ASCII
/// character each imitates.
pub const CONFUSABLES: &[(char, char)] = &[
    ('\u{0131}', 'i'), // LATIN SMALL LETTER DOTLESS I
    ('\u{0237}', 'j'), // LATIN SMALL LETTER DOTLESS J
    ('\u{0251}', 'a'), // LATIN SMALL LETTER ALPHA
    ('\u{0261}', 'g'), // LATIN SMALL LETTER SCRIPT G
    ('\u{037F}', 'J'), // GREEK CAPITAL LETTER YOT
    ('\u{0391}', 'A'), // GREEK CAPITAL LETTER ALPHA
    ('\u{0392}', 'B'), // GREEK CAPITAL LETTER BETA
    ('\u{0395}', 'E'), // GREEK CAPITAL LETTER EPSILON
    ('\u{0396}', 'Z'), // GREEK CAPITAL LETTER ZETA
    ('\u{0397}', 'H'), // GREEK CAPITAL LETTER ETA
    ('\u{0399}', 'I'), // GREEK CAPITAL LETTER IOTA
    ('\u{039A}', 'K'), // GREEK CAPITAL LETTER KAPPA
    ('\u{039C}', 'M'), // GREEK CAPITAL LETTER MU
    ('\u{039D}', 'N'), // GREEK CAPITAL LETTER NU
    ('\u{039F}', 'O'), // GREEK CAPITAL LETTER OMICRON
    ('\u{03A1}', 'P'), // GREEK CAPITAL LETTER RHO
    ('\u{03A4}', 'T'), // GREEK CAPITAL LETTER TAU
    ('\u{03A5}', 'Y'), // GREEK CAPITAL LETTER UPSILON
    ('\u{03A7}', 'X'), // GREEK CAPITAL LETTER CHI
    ('\u{03B1}', 'a'), // GREEK SMALL LETTER ALPHA
    ('\u{03B3}', 'y'), // GREEK SMALL LETTER GAMMA
    ('\u{03B5}', 'e'), // GREEK SMALL LETTER EPSILON
    ('\u{03B9}', 'i'), // GREEK SMALL LETTER IOTA
    ('\u{03BA}', 'k'), // GREEK SMALL LETTER KAPPA
    ('\u{03BD}', 'v'), // GREEK SMALL LETTER NU
    ('\u{03BF}', 'o'), // GREEK SMALL LETTER OMICRON
    ('\u{03C1}', 'p'), // GREEK SMALL LETTER RHO
    ('\u{03C5}', 'u'), // GREEK SMALL LETTER UPSILON
    ('\u{03C7}', 'x'), // GREEK SMALL LETTER CHI
    ('\u{03C9}', 'w'), // GREEK SMALL LETTER OMEGA
    ('\u{03F2}', 'c'), // GREEK LUNATE SIGMA SYMBOL
    ('\u{03F3}', 'j'), // GREEK LETTER YOT
    ('\u{03F9}', 'C'), // GREEK CAPITAL LUNATE SIGMA SYMBOL
    ('\u{0405}', 'S'), // CYRILLIC CAPITAL LETTER DZE
    ('\u{0406}', 'I'), // CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I
    ('\u{0408}', 'J'), // CYRILLIC CAPITAL LETTER JE
    ('\u{0410}', 'A'), // CYRILLIC CAPITAL LETTER A
    ('\u{0412}', 'B'), // CYRILLIC CAPITAL LETTER VE
    ('\u{0415}', 'E'), // CYRILLIC CAPITAL LETTER IE
    ('\u{0417}', '3'), // CYRILLIC CAPITAL LETTER ZE
    ('\u{041A}', 'K'), // CYRILLIC CAPITAL LETTER KA
    ('\u{041C}', 'M'), // CYRILLIC CAPITAL LETTER EM
    ('\u{041D}', 'H'), // CYRILLIC CAPITAL LETTER EN
    ('\u{041E}', 'O'), // CYRILLIC CAPITAL LETTER O
    ('\u{0420}', 'P'), // CYRILLIC CAPITAL LETTER ER
    ('\u{0421}', 'C'), // CYRILLIC CAPITAL LETTER ES
    ('\u{0422}', 'T'), // CYRILLIC CAPITAL LETTER TE
    ('\u{0423}', 'Y'), // CYRILLIC CAPITAL LETTER U
    ('\u{0425}', 'X'), // CYRILLIC CAPITAL LETTER HA
    ('\u{0430}', 'a'), // CYRILLIC SMALL LETTER A
    ('\u{0435}', 'e'), // CYRILLIC SMALL LETTER IE
    ('\u{043A}', 'k'), // CYRILLIC SMALL LETTER KA
    ('\u{043E}', 'o'), // CYRILLIC SMALL LETTER O
    ('\u{0440}', 'p'), // CYRILLIC SMALL LETTER ER
    ('\u{0441}', 'c'), // CYRILLIC SMALL LETTER ES
    ('\u{0443}', 'y'), // CYRILLIC SMALL LETTER U
    ('\u{0445}', 'x'), // CYRILLIC SMALL LETTER HA
    ('\u{0455}', 's'), // CYRILLIC SMALL LETTER DZE
    ('\u{0456}', 'i'), // CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I
    ('\u{0458}', 'j'), // CYRILLIC SMALL LETTER JE
    ('\u{0474}', 'V'), // CYRILLIC CAPITAL LETTER IZHITSA
    ('\u{0475}', 'v'), // CYRILLIC SMALL LETTER IZHITSA
    ('\u{04AE}', 'Y'), // CYRILLIC CAPITAL LETTER STRAIGHT U
    ('\u{04AF}', 'y'), // CYRILLIC SMALL LETTER STRAIGHT U
    ('\u{04BA}', 'H'), // CYRILLIC CAPITAL LETTER SHHA
    ('\u{04BB}', 'h'), // CYRILLIC SMALL LETTER SHHA
    ('\u{04C0}', 'I'), // CYRILLIC LETTER PALOCHKA
    ('\u{04CF}', 'l'), // CYRILLIC SMALL LETTER PALOCHKA
    ('\u{0500}', 'D'), // CYRILLIC CAPITAL LETTER KOMI DE
    ('\u{0501}', 'd'), // CYRILLIC SMALL LETTER KOMI DE
    ('\u{051A}', 'Q'), // CYRILLIC CAPITAL LETTER QA
    ('\u{051B}', 'q'), // CYRILLIC SMALL LETTER QA
    ('\u{051C}', 'W'), // CYRILLIC CAPITAL LETTER WE
    ('\u{051D}', 'w'), // CYRILLIC SMALL LETTER WE
    ('\u{0570}', 'h'), // ARMENIAN SMALL LETTER HO
    ('\u{057D}', 'u'), // ARMENIAN SMALL LETTER SEH
    ('\u{0585}', 'o'), // ARMENIAN SMALL LETTER OH
];

/// The ASCII character `c` imitates, if it is one of [`CONFUSABLES`].
pub fn confusable(c: char) -> Option<char> {
    if c.is_ascii() {
        return None;
    }
    CONFUSABLES
        .binary_search_by_key(&c, |&(from, _)| from)
        .ok()
        .map(|at| CONFUSABLES[at].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_folds_to_ascii_only() {
        assert!(CONFUSABLES.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(
            CONFUSABLES
                .iter()
                .all(|&(from, to)| !from.is_ascii() && to.is_ascii_alphanumeric())
        );
        assert_eq!(confusable('\u{0455}'), Some('s'));
        assert_eq!(confusable('\u{039A}'), Some('K'));
        assert_eq!(confusable('s'), None);
        assert_eq!(confusable('\u{043B}'), None);
    }
}
