//! The outside tester's scrubber findings (coord/attacks/panel-secrets.md
//! #6, #7, #7b, #8, #10, #11, #13): each leak as the tester typed it must
//! lose its sensitive part, and each ordinary research query the scrubber
//! wrecked must now survive exactly.
#![allow(clippy::expect_used)]

use ploy_egress::{ScrubClass, scrub};
use ploy_secrets::Redactor;

use ScrubClass::*;

fn check_removed(cases: &[(&str, &[&str], ScrubClass)], redactor: &Redactor) {
    let mut failures = Vec::new();
    for (phrase, gone, class) in cases {
        let out = scrub(phrase, redactor);
        for part in *gone {
            if out.text().contains(part) {
                failures.push(format!("{phrase:?} kept {part:?}: {:?}", out.text()));
            }
        }
        if !out.removed().contains(class) {
            failures.push(format!(
                "{phrase:?} did not report {class:?}: {:?} -> {:?}",
                out.removed(),
                out.text()
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

// proves: SCRUB-1 (#6: a Luhn card with Unicode dashes or apostrophes
// between its groups)
#[test]
fn cards_with_unicode_separators_are_removed() {
    let cases: &[(&str, &[&str], ScrubClass)] = &[
        ("card 4111–1111–1111–1111 declined", &["4111", "1111"], Card),
        ("card 4111—1111—1111—1111 declined", &["4111", "1111"], Card),
        ("card 4111−1111−1111−1111 declined", &["4111", "1111"], Card),
        ("card 4111'1111'1111'1111 declined", &["4111", "1111"], Card),
        ("card 4111’1111’1111’1111 declined", &["4111", "1111"], Card),
    ];
    check_removed(cases, &Redactor::empty());
}

// proves: SCRUB-1 (#7, #7b: Spanish DNI/NIE, UK NINO, Brazilian CPF and RG,
// `127.1` and IPv4 written with ideographic full stops)
#[test]
fn national_ids_and_odd_ipv4_forms_are_removed() {
    let cases: &[(&str, &[&str], ScrubClass)] = &[
        (
            "dni 12345678Z españa",
            &["12345678Z", "12345678"],
            NationalId,
        ),
        ("nif 12345678Z", &["12345678"], NationalId),
        ("nie X1234567L", &["X1234567L", "1234567"], NationalId),
        ("nino QQ123456C uk", &["QQ123456C", "123456"], NationalId),
        ("nino QQ 12 34 56 C uk", &["12 34 56"], NationalId),
        (
            "cpf 123.456.789-09 receita",
            &["456", "789", "-09"],
            NationalId,
        ),
        ("rg 12.345.678-9 sp", &["345", "678", "-9"], NationalId),
        ("ip 127.1 ping", &["127.1"], Ipv4),
        ("ip 192。168。1。1 x", &["192", "168"], Ipv4),
        ("ip 192｡168｡1｡1 x", &["192", "168"], Ipv4),
    ];
    check_removed(cases, &Redactor::empty());
}

// proves: SCRUB-1 (#8: e-mail addresses spelled out or defanged)
#[test]
fn spelled_and_defanged_addresses_are_removed() {
    let cases: &[(&str, &[&str], ScrubClass)] = &[
        (
            "my email is alice at example dot com",
            &["alice", "example"],
            Email,
        ),
        (
            "contact alice(at)example(dot)com",
            &["alice", "example"],
            Email,
        ),
        (
            "mail alice [at] example [dot] org now",
            &["alice", "example"],
            Email,
        ),
        ("mail alice@example[.]com now", &["alice", "example"], Email),
        ("visit example[.]com slash admin", &["example"], Url),
        (
            "visit evil(.)example(.)net today",
            &["evil", "example"],
            Url,
        ),
    ];
    check_removed(cases, &Redactor::empty());
}

// proves: SCRUB-1 (#13: password phrases in Vietnamese, Russian, Spanish,
// Portuguese, "my password is …", `key is …`, values holding `&`)
#[test]
fn password_phrases_are_removed() {
    let pw = "Tr0ub4dor&3";
    let cases: &[(&str, &[&str], ScrubClass)] = &[
        ("mật khẩu wifi: Tr0ub4dor&3", &[pw, "Tr0ub4dor"], SecretForm),
        ("mật khẩu là Tr0ub4dor&3", &["Tr0ub4dor"], SecretForm),
        ("пароль от wifi: Tr0ub4dor&3", &["Tr0ub4dor"], SecretForm),
        ("пароль от wifi Tr0ub4dor&3", &["Tr0ub4dor"], SecretForm),
        ("clave: Tr0ub4dor&3 no funciona", &["Tr0ub4dor"], SecretForm),
        (
            "clave del wifi Tr0ub4dor&3 no funciona",
            &["Tr0ub4dor"],
            SecretForm,
        ),
        (
            "senha do wifi: Tr0ub4dor&3 errada",
            &["Tr0ub4dor"],
            SecretForm,
        ),
        ("senha é Tr0ub4dor&3", &["Tr0ub4dor"], SecretForm),
        (
            "the wifi key is Tr0ub4dor&3 why slow",
            &["Tr0ub4dor"],
            SecretForm,
        ),
        (
            "my password is correct horse battery staple",
            &["correct", "horse", "battery", "staple"],
            SecretForm,
        ),
        ("my pwd=Tr0ub4dor&3 fails", &["Tr0ub4dor", "&3"], SecretForm),
        (
            "secret: Tr0ub4dor&3 vault",
            &["Tr0ub4dor", "&3"],
            SecretForm,
        ),
    ];
    check_removed(cases, &Redactor::empty());
}

// proves: SCRUB-1 (#11: a known secret in spaced hex, spaced letters or
// base64 wrapped into words is removed; only pieces shorter than a fragment
// may stay)
#[test]
fn known_secrets_spaced_or_split_are_removed() {
    let secret = "sk-Canary7Qz9XvB2mLpT4wRk8Hd";
    let (redactor, _) = Redactor::new([secret]);
    let spaced_hex: Vec<String> = secret.bytes().map(|b| format!("{b:02x}")).collect();
    let spaced_letters: Vec<String> = secret.chars().map(String::from).collect();
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
    let b64_words: Vec<String> = b64
        .as_bytes()
        .chunks(20)
        .map(|c| String::from_utf8(c.to_vec()).expect("ascii"))
        .collect();
    for phrase in [
        format!("key {}", spaced_hex.join(" ")),
        format!("token {}", spaced_letters.join(" ")),
        format!("key {} done", b64_words.join(" ")),
    ] {
        let out = scrub(&phrase, &redactor);
        assert!(
            out.removed().contains(&KnownSecret),
            "{phrase:?} -> {:?}",
            out.text()
        );
        let compact: String = out.text().split_whitespace().collect();
        for piece in ["Canary7Qz9", "Qz9XvB2mLp", "LpT4wRk8Hd", "6b2d4361", "QjJt"] {
            assert!(!compact.contains(piece), "{phrase:?} -> {:?}", out.text());
        }
    }
}

// proves: SCRUB-1 (#10: ordinary research queries survive exactly; `git
// clone git@host:owner/repo` is still removed on purpose: the repository
// may be private, see scrub_corpus)
#[test]
fn ordinary_research_queries_survive() {
    let mut failures = Vec::new();
    for phrase in [
        "what is CVE-2024-3094",
        "CVE-2021-44228 log4shell mitigation",
        "HTTP header Authorization Bearer explained",
        "what does /dev/null mean",
        "how to edit /etc/hosts on mac",
        "kubernetes 1.28.2.1 upgrade",
        "ISBN 978-3-16-148410-0 book",
        "unix timestamp 1700000000 to date",
        "how many bytes in 1234567890 kb",
        "pi to 20 digits 3.14159265358979323846",
        "password reset email not received",
        "пароль от wifi не подходит",
        "mật khẩu wifi bị sai",
        "ssh key ed25519 vs rsa 4096",
        "version 10.1 vs 10.2 changelog",
        "coordinates 48.8584 2.2945",
    ] {
        let out = scrub(phrase, &Redactor::empty());
        if out.text() != phrase || !out.removed().is_empty() {
            failures.push(format!(
                "{phrase:?} -> {:?} {:?}",
                out.text(),
                out.removed()
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
