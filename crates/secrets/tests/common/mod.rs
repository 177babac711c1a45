//! Helpers shared by the redactor tests: the encodings the crate promises to
//! catch, computed independently with reference encoders, and a leak check
//! that decodes what is left.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use base64::Engine as _;

/// Every encoding the crate promises to catch, for one value: first the
/// ones replaced exactly ([`exact_encodings_of`]), then base64 blobs (whose
/// characters without secret bits, such as padding, may stay).
pub fn encodings_of(secret: &str) -> Vec<String> {
    let mut out = exact_encodings_of(secret);
    for engine in [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::STANDARD_NO_PAD,
    ] {
        out.push(engine.encode(secret));
        // Inside a longer blob at every alignment (Basic auth style).
        for prefix in ["u:", "us:", "use:", "user:", "a", ""] {
            for suffix in ["", "!", "!!", "!!!"] {
                out.push(engine.encode(format!("{prefix}{secret}{suffix}")));
            }
        }
    }
    out
}

/// Encodings that are replaced exactly, leaving no character behind.
pub fn exact_encodings_of(secret: &str) -> Vec<String> {
    let mut out = vec![secret.to_owned()];
    let body = unquote(&serde_json::to_string(secret).expect("json"));
    out.push(body.clone());
    out.push(unquote(&serde_json::to_string(&body).expect("json")));
    let pct: String = secret
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    out.push(pct.clone());
    out.push(pct.to_lowercase_hex());
    out.push(unquote(&format!("{secret:?}")));
    out.push(secret.bytes().map(|b| format!("{b:02x}")).collect());
    out.push(secret.bytes().map(|b| format!("{b:02X}")).collect());
    // JSON of a Debug-formatted value, and four layers of JSON.
    out.push(unquote(
        &serde_json::to_string(&unquote(&format!("{secret:?}"))).expect("json"),
    ));
    let mut layered = secret.to_owned();
    for _ in 0..4 {
        layered = unquote(&serde_json::to_string(&layered).expect("json"));
    }
    out.push(layered);
    out
}

/// `text` without its first and last character (the quotes).
pub fn unquote(text: &str) -> String {
    let mut chars = text.chars();
    chars.next();
    chars.next_back();
    chars.as_str().to_owned()
}

pub trait LowerHex {
    fn to_lowercase_hex(&self) -> String;
}

impl LowerHex for String {
    /// Lower-cases the two hex digits after each `%`.
    fn to_lowercase_hex(&self) -> String {
        let mut out = String::new();
        let mut left = 0;
        for ch in self.chars() {
            if ch == '%' {
                left = 2;
                out.push(ch);
            } else if left > 0 {
                left -= 1;
                out.push(ch.to_ascii_lowercase());
            } else {
                out.push(ch);
            }
        }
        out
    }
}

/// Whether any decoding the redactor promises to see through still finds `secret`.
pub fn leaks(output: &str, secret: &str) -> bool {
    if output.contains(secret) {
        return true;
    }
    // Every base64 run, decoded at every start offset, must not hold the value.
    let runs = output.split(|c: char| !(c.is_ascii_alphanumeric() || "+/-_".contains(c)));
    for run in runs {
        for start in 0..run.len().min(4) {
            let body = &run[start..];
            let usable = body.len() - body.len() % 4;
            for engine in [
                base64::engine::general_purpose::STANDARD_NO_PAD,
                base64::engine::general_purpose::URL_SAFE_NO_PAD,
            ] {
                if let Ok(bytes) = engine.decode(&body[..usable])
                    && String::from_utf8_lossy(&bytes).contains(secret)
                {
                    return true;
                }
            }
        }
    }
    false
}
