//! Credentials recognised by their shape alone (REDACT-1, SBX-4, SCRUB-1):
//! known provider prefixes, JWTs, PEM private-key blocks and long
//! high-entropy tokens. One rule set, used for environment values
//! ([`crate::SecretSet::from_env`]), the sandbox's environment filter and the
//! search-phrase scrubber.
//!
//! # The high-entropy rule (documented threshold)
//!
//! A token counts as a key by entropy when it is made only of base64 /
//! URL-safe characters (`A-Z a-z 0-9 + / = - _ . ~`) and either
//! * one of its segments (split on `- _ . / + = ~`) is at least
//!   [`MIN_KEY_SEGMENT_CHARS`] long, mixes letters and digits, and has a
//!   Shannon entropy of at least [`MIN_SEGMENT_ENTROPY`] bits per character;
//!   or
//! * the whole token is at least [`MIN_KEY_BLOB_CHARS`] long with an entropy of
//!   at least [`MIN_BLOB_ENTROPY`] bits per character, and does not start
//!   like a path (`/`, `~`, `.`): paths are judged by their segments only.
//!
//! Random base62 keys of 16+ characters score about 3.6-4.5 bits per
//! character; words, identifiers and target triples (`x86_64-unknown-linux-gnu`,
//! `ConcurrentModificationException`) fail the segment rule by mixing or by
//! entropy. Hex strings of exactly 40 or 64 characters (git commit and
//! SHA-256 content hashes) are not keys by shape alone: they are everywhere in
//! build output. They are still secrets when a secret-looking name or a
//! secret file says so.

/// Which shape rule recognised a value. Printed in refusals; never the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShapeRule {
    /// A known provider prefix (`ghp_`, `sk-`, `AKIA`, ...), named here.
    ProviderPrefix(&'static str),
    /// A JSON Web Token (`eyJ...`, three base64url parts).
    Jwt,
    /// A PEM private-key block.
    PemPrivateKey,
    /// A long high-entropy token (see the module docs for the threshold).
    HighEntropy,
    /// A URL or connection string carrying a password: user info
    /// (`https://user:PASSWORD@host`, any scheme) or a `password=`-like
    /// parameter (`jdbc:…?password=…`, `Server=…;Pwd=…`); see
    /// [`embedded_passwords`].
    UrlCredentials,
}

impl ShapeRule {
    /// A short name for messages (`provider prefix ghp_`, `JWT`, ...).
    pub fn describe(self) -> String {
        match self {
            ShapeRule::ProviderPrefix(prefix) => format!("provider key prefix `{prefix}`"),
            ShapeRule::Jwt => "JSON Web Token".to_owned(),
            ShapeRule::PemPrivateKey => "PEM private-key block".to_owned(),
            ShapeRule::HighEntropy => "high-entropy token".to_owned(),
            ShapeRule::UrlCredentials => "URL or connection string with a password".to_owned(),
        }
    }
}

/// Minimum length of a key-like segment (entropy rule).
pub const MIN_KEY_SEGMENT_CHARS: usize = 16;
/// Minimum entropy of a key-like segment, bits per character.
pub const MIN_SEGMENT_ENTROPY: f64 = 3.0;
/// Minimum length of a key-like token as a whole (entropy rule).
pub const MIN_KEY_BLOB_CHARS: usize = 32;
/// Minimum entropy of a key-like token as a whole, bits per character.
pub const MIN_BLOB_ENTROPY: f64 = 4.0;

/// Which characters may follow a provider prefix.
#[derive(Debug, Clone, Copy)]
enum Tail {
    /// `A-Za-z0-9`.
    Alnum,
    /// `A-Za-z0-9_-`.
    UrlSafe,
    /// `A-Z0-9` (AWS access key ids).
    UpperAlnum,
    /// `A-Za-z0-9_-.` (SendGrid's two-part keys).
    Dotted,
}

impl Tail {
    fn allows(self, c: u8) -> bool {
        match self {
            Tail::Alnum => c.is_ascii_alphanumeric(),
            Tail::UrlSafe => c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-'),
            Tail::UpperAlnum => c.is_ascii_uppercase() || c.is_ascii_digit(),
            Tail::Dotted => c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'),
        }
    }
}

/// Known credential prefixes: (prefix, minimum characters after it, which
/// characters). Longer prefixes first where one extends another.
const PROVIDER_PREFIXES: &[(&str, usize, Tail)] = &[
    ("github_pat_", 16, Tail::UrlSafe),
    ("ghp_", 16, Tail::Alnum),
    ("gho_", 16, Tail::Alnum),
    ("ghu_", 16, Tail::Alnum),
    ("ghs_", 16, Tail::Alnum),
    ("ghr_", 16, Tail::Alnum),
    ("glpat-", 16, Tail::UrlSafe),
    ("gldt-", 16, Tail::UrlSafe),
    ("sk-ant-", 16, Tail::UrlSafe),
    ("sk-proj-", 16, Tail::UrlSafe),
    ("sk-", 16, Tail::UrlSafe),
    ("sk_live_", 10, Tail::Alnum),
    ("sk_test_", 10, Tail::Alnum),
    ("rk_live_", 10, Tail::Alnum),
    ("rk_test_", 10, Tail::Alnum),
    ("whsec_", 16, Tail::Alnum),
    ("xoxb-", 10, Tail::UrlSafe),
    ("xoxp-", 10, Tail::UrlSafe),
    ("xoxa-", 10, Tail::UrlSafe),
    ("xoxr-", 10, Tail::UrlSafe),
    ("xoxs-", 10, Tail::UrlSafe),
    ("xoxe-", 10, Tail::UrlSafe),
    ("xapp-", 10, Tail::UrlSafe),
    ("AKIA", 16, Tail::UpperAlnum),
    ("ASIA", 16, Tail::UpperAlnum),
    ("tvly-", 10, Tail::UrlSafe),
    ("AIza", 30, Tail::UrlSafe),
    ("hf_", 16, Tail::Alnum),
    ("npm_", 16, Tail::Alnum),
    ("pypi-", 16, Tail::UrlSafe),
    ("SG.", 30, Tail::Dotted),
    ("dop_v1_", 16, Tail::Alnum),
    ("doo_v1_", 16, Tail::Alnum),
    ("shpat_", 16, Tail::Alnum),
    ("shpss_", 16, Tail::Alnum),
    ("glc_", 16, Tail::UrlSafe),
    ("lin_api_", 16, Tail::Alnum),
    ("pk.eyJ", 16, Tail::Dotted),
];

/// The shape rule that recognises `value` as a credential, if any.
///
/// `value` is judged whole, after trimming white space: a PEM private-key
/// block anywhere in it, or a single token with a provider prefix, a JWT,
/// or high entropy (module docs).
pub fn secret_shape(value: &str) -> Option<ShapeRule> {
    let value = value.trim();
    if value.contains("-----BEGIN") && value.contains("PRIVATE KEY-----") {
        return Some(ShapeRule::PemPrivateKey);
    }
    if !embedded_passwords(value).is_empty() {
        return Some(ShapeRule::UrlCredentials);
    }
    if value.chars().any(char::is_whitespace) {
        return None;
    }
    token_shape(value)
}

/// Parameter names whose value is a password in a connection string or a
/// URL's query (`jdbc:mysql://db/app?user=a&password=…`, ADO.NET
/// `Server=…;Pwd=…`, an Azure SAS `sig=`), compared without case.
const PASSWORD_PARAMETERS: &[&str] = &[
    "password",
    "pwd",
    "passwd",
    "pass",
    "passphrase",
    "secret",
    "client_secret",
    "token",
    "access_token",
    "auth_token",
    "apikey",
    "api_key",
    "sig",
];

/// The passwords carried inside `value` (secrets5 #13): the password of
/// every URL user info (`scheme://user:PASSWORD@host`, any scheme: a
/// proxy, a git remote with a token) and the value of every
/// [`PASSWORD_PARAMETERS`] parameter (`name=value`, parameters split by
/// `&`, `;`, `?` or white space). Empty parts are left out.
pub fn embedded_passwords(value: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find("://") {
        let after = &rest[at + 3..];
        let end = after
            .find(|c: char| c.is_whitespace() || matches!(c, '/' | '?' | '#' | '"' | '\''))
            .unwrap_or(after.len());
        if let Some((userinfo, _host)) = after[..end].rsplit_once('@')
            && let Some((_user, password)) = userinfo.split_once(':')
            && !password.is_empty()
        {
            out.push(password);
        }
        rest = &after[end..];
    }
    for part in value.split(|c: char| c.is_whitespace() || matches!(c, '&' | ';' | '?')) {
        if let Some((name, password)) = part.split_once('=')
            && !password.is_empty()
            && PASSWORD_PARAMETERS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(name.trim()))
        {
            out.push(password.trim_matches(|c| c == '"' || c == '\''));
        }
    }
    out.retain(|password| !password.is_empty());
    out
}

/// [`secret_shape`] for one token already cut out of text (no white space):
/// used by the scrubber on each word of a phrase.
pub fn token_shape(token: &str) -> Option<ShapeRule> {
    let bytes = token.as_bytes();
    for &(prefix, min_tail, tail) in PROVIDER_PREFIXES {
        if let Some(rest) = bytes.strip_prefix(prefix.as_bytes()) {
            let run = rest.iter().take_while(|&&c| tail.allows(c)).count();
            if run >= min_tail {
                return Some(ShapeRule::ProviderPrefix(prefix));
            }
        }
    }
    if is_jwt(token) {
        return Some(ShapeRule::Jwt);
    }
    is_high_entropy(token).then_some(ShapeRule::HighEntropy)
}

/// `eyJ` + base64url, `.`, base64url, `.`, optional base64url signature.
fn is_jwt(token: &str) -> bool {
    let mut parts = token.split('.');
    let (Some(header), Some(payload)) = (parts.next(), parts.next()) else {
        return false;
    };
    let signature = parts.next();
    let b64url = |part: &str| {
        part.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'='))
    };
    parts.next().is_none()
        && header.starts_with("eyJ")
        && header.len() >= 10
        && payload.len() >= 8
        && b64url(header)
        && b64url(payload)
        && signature.is_some_and(b64url)
}

/// The high-entropy rule (module docs).
fn is_high_entropy(token: &str) -> bool {
    if token.len() < MIN_KEY_SEGMENT_CHARS {
        return false;
    }
    let charset_ok = |c: u8| {
        c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_' | b'.' | b'~')
    };
    if !token.bytes().all(charset_ok) {
        return false;
    }
    if matches!(token.len(), 40 | 64) && token.bytes().all(|c| c.is_ascii_hexdigit()) {
        return false;
    }
    let long_segment = token
        .split(['-', '_', '.', '/', '+', '=', '~'])
        .any(|segment| {
            segment.len() >= MIN_KEY_SEGMENT_CHARS
                && !(matches!(segment.len(), 40 | 64)
                    && segment.bytes().all(|c| c.is_ascii_hexdigit()))
                && segment.bytes().any(|c| c.is_ascii_digit())
                && segment.bytes().any(|c| c.is_ascii_alphabetic())
                && entropy(segment) >= MIN_SEGMENT_ENTROPY
        });
    // A path (`/tmp/ploy-cli-sandbox-24838-0/home`) mixes many characters
    // without being random: only its segments are judged.
    let path_like = token.starts_with(['/', '~', '.']);
    long_segment
        || (!path_like && token.len() >= MIN_KEY_BLOB_CHARS && entropy(token) >= MIN_BLOB_ENTROPY)
}

/// Shannon entropy of `text`'s bytes, in bits per byte.
pub fn entropy(text: &str) -> f64 {
    let mut counts = [0u32; 256];
    for byte in text.bytes() {
        counts[usize::from(byte)] += 1;
    }
    let total = text.len() as f64;
    if total == 0.0 {
        return 0.0;
    }
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = f64::from(count) / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: REDACT-1, SBX-4 (credentials recognised by shape)
    #[test]
    fn provider_keys_jwts_pem_and_random_tokens_are_secret() {
        for (value, rule) in [
            (
                "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                ShapeRule::ProviderPrefix("ghp_"),
            ),
            (
                "gho_16C7e42F292c6912E7710c838347Ae178B4a",
                ShapeRule::ProviderPrefix("gho_"),
            ),
            (
                "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
                ShapeRule::ProviderPrefix("github_pat_"),
            ),
            (
                "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx123456",
                ShapeRule::ProviderPrefix("sk-proj-"),
            ),
            (
                "sk-1234567890abcdefABCDEF",
                ShapeRule::ProviderPrefix("sk-"),
            ),
            (
                "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
                ShapeRule::ProviderPrefix("sk_live_"),
            ),
            (
                "xoxb-1234567890-0987654321-AbCdEfGhIjKl",
                ShapeRule::ProviderPrefix("xoxb-"),
            ),
            (
                "xoxp-1234567890-0987654321-AbCdEfGhIjKl",
                ShapeRule::ProviderPrefix("xoxp-"),
            ),
            ("AKIAIOSFODNN7EXAMPLE", ShapeRule::ProviderPrefix("AKIA")),
            ("ASIAIOSFODNN7EXAMPLE", ShapeRule::ProviderPrefix("ASIA")),
            (
                "tvly-AbCdEf1234567890XyZ",
                ShapeRule::ProviderPrefix("tvly-"),
            ),
            (
                "glpat-xxXXyyYYzzZZ12345678",
                ShapeRule::ProviderPrefix("glpat-"),
            ),
            (
                "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
                ShapeRule::ProviderPrefix("AIza"),
            ),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc123def456",
                ShapeRule::Jwt,
            ),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
                ShapeRule::PemPrivateKey,
            ),
            ("a8Fj2kL9qZ0xW3vB7nM1pQ4r", ShapeRule::HighEntropy),
            (
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                ShapeRule::HighEntropy,
            ),
            // 32 hex (not a commit or content hash length).
            ("5f4dcc3b5aa765d61d8327deb882cf99", ShapeRule::HighEntropy),
        ] {
            assert_eq!(secret_shape(value), Some(rule), "{value}");
        }
    }

    // proves: REDACT-1, SBX-4 (ordinary values are not secrets by shape)
    #[test]
    fn ordinary_values_are_not_secret_by_shape() {
        for value in [
            "/usr/local/bin:/usr/bin:/bin",
            "en_US.UTF-8",
            "xterm-256color",
            "x86_64-unknown-linux-gnu",
            "ConcurrentModificationException",
            "internationalization",
            "rs=0:di=01;34:ln=01;36:mi=00:pi=40;33:so=01;35:do=01;35",
            // Commit and content hashes: 40 and 64 hex characters.
            "3f786850e387550fdab836ed7e6dc881de23001b",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "/home/alice/projects/ploy",
            "/tmp/ploy-cli-sandbox-24838-0/home",
            "/tmp/ploy-cli-sandbox-24838-0/home/proj",
            "~/.cache/ploy/research-2026-11-30/index",
            "hello world this is a sentence",
            "sk-short",
            "Europe/Berlin",
        ] {
            assert_eq!(secret_shape(value), None, "{value}");
        }
    }
}
