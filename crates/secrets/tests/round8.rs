//! Outside findings of round 8 on the redactor (#8): a known secret written
//! with Perl's escapes or with look-alike letters of other scripts must not
//! reach the model, and must be found (so the egress door refuses it: the
//! door searches with [`Redactor::find_secret`]).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use ploy_secrets::{REDACTED, Redactor, SecretForm};

const KEY: &str = "sk-proj-AKxyceoa7Qm3LpW9zR2tKapCo";

fn redactor() -> Redactor {
    let (redactor, rejected) = Redactor::new([KEY]);
    assert!(rejected.is_empty());
    redactor
}

/// Found in `form`, and nothing of `text`'s secret part is left.
fn assert_gone(text: &str, form: SecretForm) {
    let redactor = redactor();
    let found = redactor.find_secret(text.as_bytes());
    assert_eq!(found.map(|m| m.form), Some(form), "{text:?}");
    let out = redactor.redact(text).into_owned();
    assert!(out.contains(REDACTED), "{out}");
    assert!(!out.contains("W9zR2"), "{out:?}");
    // Streamed in chunks behind enough text that windows are cut: the same.
    let filler = "an ordinary log line, 42 items\n".repeat(300);
    let long = format!("{filler}{text}{filler}");
    let mut stream = redactor.stream();
    let mut streamed = Vec::new();
    for chunk in long.as_bytes().chunks(997) {
        stream.push(chunk, &mut streamed);
    }
    stream.finish(&mut streamed);
    assert_eq!(
        String::from_utf8(streamed).unwrap(),
        redactor.redact(&long),
        "{text:?}"
    );
}

// proves: REDACT-1, BEYOND-6 (round8 #8: Perl's `\x{73}`, `\N{U+0073}`,
// `\o{163}` escapes, alone or mixed with plain characters and `\x73`)
#[test]
fn round8_8_perl_escapes_are_redacted() {
    let hex_braced: String = KEY.bytes().map(|b| format!("\\x{{{b:x}}}")).collect();
    let padded: String = KEY.bytes().map(|b| format!("\\x{{{b:04X}}}")).collect();
    let named: String = KEY.bytes().map(|b| format!("\\N{{U+{b:04X}}}")).collect();
    let octal: String = KEY.bytes().map(|b| format!("\\o{{{b:o}}}")).collect();
    let mixed: String = KEY
        .bytes()
        .enumerate()
        .map(|(i, b)| match i % 4 {
            0 => format!("\\x{{{b:x}}}"),
            1 => format!("\\x{b:02x}"),
            2 => char::from(b).to_string(),
            _ => format!("\\N{{U+{b:X}}}"),
        })
        .collect();
    for encoded in [hex_braced, padded, named, octal, mixed] {
        assert_gone(&format!("my $k = \"{encoded}\";\n"), SecretForm::Decoded);
    }
}

/// `KEY` with every letter that has a Cyrillic or Greek look-alike written
/// as that look-alike.
fn look_alike(text: &str, greek: bool) -> String {
    text.chars()
        .map(|c| match (c, greek) {
            ('s', _) => 'ѕ',
            ('k', false) => 'к',
            ('k', true) => 'κ',
            ('a', _) => 'а',
            ('e', _) => 'е',
            ('o', false) => 'о',
            ('o', true) => 'ο',
            ('p', false) => 'р',
            ('p', true) => 'ρ',
            ('c', _) => 'с',
            ('x', false) => 'х',
            ('x', true) => 'χ',
            ('y', _) => 'у',
            ('K', false) => 'К',
            ('K', true) => 'Κ',
            ('A', false) => 'А',
            ('A', true) => 'Α',
            ('C', _) => 'С',
            ('T', _) => 'Τ',
            (other, _) => other,
        })
        .collect()
}

// proves: REDACT-1, BEYOND-6 (round8 #8: Cyrillic and Greek look-alike
// letters substituted for the secret's Latin ones, each letter alone or
// all of them, are folded back and redacted)
#[test]
fn round8_8_look_alike_letters_are_redacted() {
    for greek in [false, true] {
        let all = look_alike(KEY, greek);
        assert!(all.chars().filter(|c| !c.is_ascii()).count() >= 10, "{all}");
        assert_gone(&format!("key: {all}\n"), SecretForm::Folded);
        // One look-alike at a time, at every place it can be.
        for (at, c) in KEY.char_indices() {
            let one = look_alike(&c.to_string(), greek);
            if one.is_ascii() {
                continue;
            }
            let text = format!("token={}{one}{} ok", &KEY[..at], &KEY[at + 1..]);
            assert_gone(&text, SecretForm::Folded);
        }
    }
    // Look-alikes with a full-width letter and a zero-width space too.
    let text = format!(
        "x {}\u{200b}{}ｓ y",
        look_alike(&KEY[..10], false),
        &KEY[10..]
    );
    let redactor = Redactor::new([KEY, "another-secret-value-0042s"]).0;
    assert!(redactor.find_secret(text.as_bytes()).is_some(), "{text}");
}

// Ordinary Cyrillic and Greek text is left as it is.
#[test]
fn round8_8_ordinary_cyrillic_and_greek_text_is_kept() {
    let redactor = redactor();
    for text in [
        "ошибка: сервер не отвечает, попробуйте ещё раз",
        "Καλημέρα κόσμε, η σύνδεση απέτυχε",
        "пароль неверный; токен устарел",
    ] {
        assert_eq!(redactor.redact(text), text);
        assert!(redactor.find_secret(text.as_bytes()).is_none());
    }
}
