//! Fuzz the scrubber: it never panics, the result fits 110 characters with
//! no outer white space, and a known secret planted anywhere never survives.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use ploy_egress::{MAX_PHRASE_CHARS, scrub};
use ploy_secrets::Redactor;

const SECRET: &str = "correct-horse-battery-staple-42";

static REDACTOR: LazyLock<Redactor> = LazyLock::new(|| Redactor::new([SECRET]).0);

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let out = scrub(text, &REDACTOR);
    assert!(out.text().chars().count() <= MAX_PHRASE_CHARS);
    assert_eq!(out.text(), out.text().trim());
    // Plant the secret at a char boundary chosen by the input.
    let mut at = data.first().map_or(0, |b| usize::from(*b)) % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let planted = format!("{}{SECRET}{}", &text[..at], &text[at..]);
    let out = scrub(&planted, &REDACTOR);
    assert!(!out.text().contains(SECRET), "secret survived in {:?}", out.text());
});
