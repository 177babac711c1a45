//! The outside tester's redaction findings (coord/attacks/panel-secrets.md
//! #1-#4, #12, #14), each reproduced with the tester's own encoder commands
//! rewritten in Rust: the secret must not survive, nor any part of it that
//! decodes back to 12 or more of its characters.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use base64::Engine as _;
use ploy_secrets::{REDACTED, Redactor};

const CANARY: &str = "sk-Canary7Qz9XvB2mLpT4wRk8Hd";

fn canary() -> Redactor {
    let (redactor, rejected) = Redactor::new([CANARY]);
    assert!(rejected.is_empty());
    redactor
}

fn hex(bytes: &[u8]) -> Vec<String> {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Asserts the secret is found and that the redacted text no longer holds
/// the encoded piece `leak` (nor the secret).
fn assert_gone(redactor: &Redactor, text: &str, leak: &str) {
    assert!(
        redactor.contains_secret(text),
        "not found in {text:?} (leak {leak:?})"
    );
    let out = redactor.redact(text);
    assert!(out.contains(REDACTED), "{out}");
    assert!(!out.contains(leak), "{leak:?} survived in {out:?}");
    assert!(!out.contains(CANARY), "{out}");
}

// proves: REDACT-1 (#1: base64 wrapped at 76 columns, Python's
// `base64.encodebytes` / coreutils `base64`, and at 8 columns)
#[test]
fn wrapped_base64_is_caught() {
    let redactor = canary();
    let payload = format!("Authorization header value follows: {CANARY} end");
    let encoded = base64::engine::general_purpose::STANDARD.encode(payload.as_bytes());
    for width in [76usize, 64, 20, 8] {
        let lines: Vec<&str> = encoded
            .as_bytes()
            .chunks(width)
            .map(|chunk| std::str::from_utf8(chunk).unwrap())
            .collect();
        for newline in ["\n", "\r\n"] {
            let text = format!("here it is:\n{}\nthat is all", lines.join(newline));
            // The line holding most of the secret must go.
            let line = lines
                .iter()
                .find(|line| line.contains("c2stQ2Fu") || line.contains("Q2FuYXJ5"))
                .copied()
                .unwrap_or(lines[1]);
            assert_gone(&redactor, &text, line);
        }
    }
}

// proves: REDACT-1 (#2: a 12-character-or-longer fragment in hex or base64,
// and split-then-encode: 10 characters in hex + 18 in base64)
#[test]
fn encoded_fragments_are_caught() {
    let redactor = canary();
    let fragment = "Canary7Qz9XvB2mL";
    let b64 = base64::engine::general_purpose::STANDARD.encode(fragment);
    assert_eq!(b64, "Q2FuYXJ5N1F6OVh2QjJtTA==");
    let hex = hex(fragment.as_bytes()).concat();
    assert_gone(&redactor, &format!("b64: {b64} ok"), "Q2FuYXJ5N1F6OVh2QjJt");
    assert_gone(&redactor, &format!("hex: {hex} ok"), &hex);
    let url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("Qz9XvB2mLpT4wRk8Hd");
    let split = format!("736b2d43616e61727937 {url}");
    assert_gone(&redactor, &split, &url);
}

// proves: REDACT-1 (#3: hex with separators: xxd/hexdump spaces, colons,
// `0x` lists, grouped by two bytes, `xxd -p` wrapped)
#[test]
fn separated_hex_is_caught() {
    let redactor = canary();
    let pairs = hex(CANARY.as_bytes());
    let grouped: Vec<String> = pairs.chunks(2).map(|pair| pair.concat()).collect();
    let layouts = [
        pairs.join(" "),
        pairs.join(":"),
        pairs
            .iter()
            .map(|p| format!("0x{p}"))
            .collect::<Vec<_>>()
            .join(", "),
        pairs
            .iter()
            .map(|p| format!("0X{}", p.to_uppercase()))
            .collect::<Vec<_>>()
            .join(" "),
        grouped.join(" "),
        pairs.concat()[..30].to_owned() + "\n" + &pairs.concat()[30..],
    ];
    for layout in layouts {
        let text = format!("dump: {layout} (end)");
        assert_gone(&redactor, &text, &layout);
        // Every byte of the layout went, not only its middle.
        assert_eq!(redactor.redact(&text), format!("dump: {REDACTED} (end)"));
    }
}

// proves: REDACT-1 (#4 and #14: octal `\163`, CSS `\73 ` escapes)
#[test]
fn octal_and_css_escapes_are_caught() {
    let redactor = canary();
    let octal: String = CANARY.bytes().map(|b| format!("\\{b:03o}")).collect();
    let css_spaced: String = CANARY.bytes().map(|b| format!("\\{b:x} ")).collect();
    let css_tight: String = CANARY.bytes().map(|b| format!("\\{b:X}")).collect();
    for text in [octal, css_spaced, css_tight] {
        assert_gone(&redactor, &format!("x {text}y"), text.trim_end());
    }
}

// proves: REDACT-1 (#14: base32hex, RFC 4648 section 7, padded or not)
#[test]
fn base32hex_is_caught() {
    let redactor = canary();
    let encoded = data_encoding::BASE32HEX.encode(CANARY.as_bytes());
    assert!(encoded.starts_with("EDLIQGR1"));
    assert_gone(&redactor, &format!("v={encoded};"), &encoded[..40]);
    let lower = encoded.to_lowercase();
    assert_gone(&redactor, &format!("v={lower};"), &lower[..40]);
}

// proves: REDACT-1 (#12: the password of a `user:password` value is a secret
// on its own; a URL's user info likewise)
#[test]
fn password_part_of_user_password_values_is_caught() {
    for (value, password) in [
        ("user:Sup3rS3cretPw", "Sup3rS3cretPw"),
        ("postgres://admin:Pg-pass-9981@db:5432/app", "Pg-pass-9981"),
    ] {
        let (redactor, rejected) = Redactor::new([value]);
        assert!(rejected.is_empty());
        let out = redactor
            .redact(&format!("a {value} b {password} c -u bob:{password}"))
            .into_owned();
        // (A fragment of the URL may take the `:` before the password too.)
        assert!(!out.contains(password), "{out}");
        assert!(
            out.starts_with(&format!("a {REDACTED} b {REDACTED} c -u bob")),
            "{out}"
        );
    }
    // `host:port` and a short password add nothing that would redact words.
    let (redactor, _) = Redactor::new(["db.internal.example:5432", "alice:short"]);
    assert_eq!(
        redactor.redact("port 5432, pw short"),
        "port 5432, pw short"
    );
}

// proves: REDACT-1 (streaming sees the same views as one-shot, whatever the
// chunking: separated hex and wrapped base64 across chunk boundaries)
#[test]
fn streaming_matches_one_shot_for_runs() {
    let redactor = canary();
    let pairs = hex(CANARY.as_bytes()).join(" ");
    let payload = format!("prefix {CANARY} suffix");
    let wrapped: Vec<String> = base64::engine::general_purpose::STANDARD
        .encode(payload.as_bytes())
        .as_bytes()
        .chunks(12)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect();
    let text = format!(
        "{}dump {pairs} then\n{}\nend{}",
        "log line ok\n".repeat(2000),
        wrapped.join("\n"),
        " tail".repeat(3000)
    );
    let one_shot = redactor.redact(&text).into_owned();
    assert!(!one_shot.contains(&pairs));
    for chunk in [1usize, 7, 4096, 65_537] {
        let mut stream = redactor.stream();
        let mut out = Vec::new();
        for piece in text.as_bytes().chunks(chunk) {
            stream.push(piece, &mut out);
        }
        stream.finish(&mut out);
        assert_eq!(String::from_utf8(out).unwrap(), one_shot, "chunk {chunk}");
    }
}
