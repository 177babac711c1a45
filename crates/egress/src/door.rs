//! BEYOND-6 at the door: a request whose URL, headers or body carry a secret
//! value ploy knows is refused before its name is resolved, so a secret that
//! reached a model cannot leave through a fetch, a search phrase, a form or a
//! redirect.
//!
//! The check runs on exactly what would be sent (the built request: its
//! target, every header, the body) plus the text the caller gave (the URL as
//! written, a redirect's `Location` as the server wrote it), through views
//! that undo what a sender could do to hide a value:
//!
//! * the text itself;
//! * percent-decoded, repeatedly (an over-encoded `%2541` is `A` twice
//!   removed), with `+` read as a space in a query;
//! * for a JSON body, every string (key or value) as a JSON parser reads it
//!   (`\u0074`, `\/` undone);
//! * each of those lower-cased (a host name is lower-cased on the wire, and a
//!   model can change case on its own), and lower-cased with every character
//!   that is not a letter or digit removed (a secret cut into DNS labels or
//!   path segments: `abcd.efgh.evil.example`, `/abcd/efgh`).
//!
//! * each of those reversed, character by character;
//! * `%XX` escapes that are not UTF-8, read as Latin-1;
//! * every layer under base64 or hex tokens ([`ploy_secrets::layer_views`]:
//!   base64 of base64, of hex, of percent escapes; gzip and zlib; UTF-16;
//!   up to 3 layers, at most 1 MiB of decoded text, more is refused), as
//!   decoded and as its skeleton.
//!
//! Each view is searched with a [`Redactor`] that knows every secret, its
//! lower-cased form and its letters-and-digits skeleton (skeletons shorter
//! than [`ploy_secrets::MIN_SECRET_BYTES`] are not searched: too many false
//! alarms), in every encoding the redactor knows (plain, string-escaped,
//! percent, hex, base64 at every alignment, decimal byte lists, one
//! character per line, compatibility forms folded by NFKC (full-width,
//! NFD) and invisible characters removed, and whatever decoded forms it
//! gains).
//!
//! A secret cut into short pieces with filler between them, inside one
//! request, is the job of [`SecretDoor::pieces`] (see `pieces.rs`): pieces
//! of at least 6 letters and digits that together, in any order, cover two
//! thirds of a known secret.
//!
//! The refusal names the rule and where the secret was (URL, header, body),
//! never the value and not its mask: the answer goes back to the model, and
//! even the last characters of a secret are secret material (REDACT-1).
//!
//! One exception, [`Credential`]: an API key declared for one destination
//! (a search backend's own origin) travels in the `Authorization` header to
//! exactly that origin, and nowhere else: not in a URL, not in a body, not to
//! another host, not to another port or scheme.

use std::borrow::Cow;
use std::sync::Arc;

use ploy_secrets::{MIN_SECRET_BYTES, Redactor};

use crate::pieces::{Pieces, Tally};
use crate::refusal::{Refusal, Stage};

/// The rule every refusal here enforces.
pub const RULE: &str = "BEYOND-6";

/// How many percent-decoding rounds a view goes through at most; text still
/// encoded after them is refused as a whole ([`SecretDoor::check_text`]).
const DECODE_ROUNDS: usize = 4;

/// The secret-value check of the egress door. Cheap to clone (the matcher
/// is shared).
#[derive(Clone, Default)]
pub struct SecretDoor {
    matcher: Redactor,
    secrets: usize,
    /// Grams of every secret's skeleton, for pieces cut apart (`pieces.rs`).
    pieces: Option<Arc<Pieces>>,
}

impl std::fmt::Debug for SecretDoor {
    // Never a value: only how many are known.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretDoor")
            .field("secrets", &self.secrets)
            .finish()
    }
}

/// Where in a request a secret was found (for the refusal's reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'a> {
    /// The URL being requested (as given and as sent).
    Url,
    /// A redirect's `Location`, as the server wrote it.
    Location,
    /// A request header.
    Header(&'a str),
    /// The request body.
    Body,
}

impl std::fmt::Display for Part<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Part::Url => f.write_str("URL"),
            Part::Location => f.write_str("redirect location"),
            Part::Header(name) => write!(f, "`{name}` header"),
            Part::Body => f.write_str("body"),
        }
    }
}

impl SecretDoor {
    /// A door that knows no secret (tests; a process with none).
    pub fn empty() -> Self {
        Self::default()
    }

    /// A door for these secret values (the process's `SecretSet`, plus keys
    /// it holds in memory). Values the redactor refuses (too short) are
    /// skipped, as the redactor skips them.
    pub fn new<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Self::build(values, false)
    }

    /// [`SecretDoor::new`] for a door that checks one request or a few and
    /// is dropped (a hook call): the same refusals, with the redactor's
    /// one-shot build (`ploy_secrets::Redactor::new_one_shot`), which costs
    /// milliseconds where an automaton over a large `.env` costs seconds
    /// (secrets5 #18).
    pub fn one_shot<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Self::build(values, true)
    }

    fn build<I, S>(values: I, one_shot: bool) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut all: Vec<String> = Vec::new();
        let mut skeletons: Vec<String> = Vec::new();
        for value in values {
            let value = value.as_ref().trim();
            if value.len() < MIN_SECRET_BYTES {
                continue;
            }
            let lower = value.to_lowercase();
            let skeleton = skeleton(&lower);
            all.push(value.to_owned());
            all.push(lower);
            if skeleton.len() >= MIN_SECRET_BYTES {
                all.push(skeleton.clone());
            }
            skeletons.push(skeleton);
        }
        let secrets = all.len();
        let (matcher, _) = if one_shot {
            Redactor::new_one_shot(all)
        } else {
            Redactor::new(all)
        };
        skeletons.sort_unstable();
        skeletons.dedup();
        Self {
            matcher,
            secrets,
            pieces: Pieces::build(&skeletons).map(Arc::new),
        }
    }

    /// A count of the pieces of known secrets in one request: feed it every
    /// part of the request (URL, each header, the body), then
    /// [`PieceCheck::finish`] refuses when the pieces together carry most of
    /// a secret (module docs; tui-rpc #12).
    pub fn pieces(&self) -> PieceCheck<'_> {
        let live = !cfg!(feature = "teeth");
        PieceCheck {
            tally: self.pieces.as_deref().filter(|_| live).map(Pieces::tally),
        }
    }

    /// Refuses when free text that leaves the machine (a command line run
    /// on the host, every key and string of a tool's input) carries a known
    /// secret: every view [`SecretDoor::check_text`] sees, read as a query
    /// (`+` as a space too), and the pieces of a secret cut apart anywhere
    /// in it (BEYOND-6).
    pub fn check_sent_text(&self, text: &str) -> Result<(), Refusal> {
        self.check_text(Part::Url, text, true)?;
        let mut pieces = self.pieces();
        pieces.text(text, true);
        pieces.finish()
    }

    /// A door for every value of `set`.
    pub fn from_set(set: &ploy_secrets::SecretSet) -> Self {
        Self::new(set.values())
    }

    /// A door for the secrets of this process's environment.
    pub fn from_process_env() -> Self {
        Self::from_set(&ploy_secrets::SecretSet::from_process_env())
    }

    /// Whether the door knows no secret.
    pub fn is_empty(&self) -> bool {
        self.secrets == 0
    }

    /// Refuses when `text`, in any view (see the module docs), carries a
    /// known secret. `query_like`: read `+` as a space too (URLs, forms).
    pub fn check_text(&self, part: Part<'_>, text: &str, query_like: bool) -> Result<(), Refusal> {
        if cfg!(feature = "teeth") || self.is_empty() || text.is_empty() {
            return Ok(());
        }
        let (views, fully_decoded) = views(text, query_like);
        for view in &views {
            if let Some(found) = self.matcher.find_secret(view.as_bytes()) {
                return Err(refusal(part, found.form.as_str()));
            }
        }
        // Layers under base64 or hex (base64 of base64, gzip, UTF-16):
        // each decoded layer searched as written and as its skeleton.
        let mut layered: Vec<String> = Vec::new();
        for base in bases(text, query_like).0 {
            let layers = ploy_secrets::layer_views(&base);
            if layers.exhausted {
                return Err(Refusal::new(
                    RULE,
                    Stage::Request,
                    format!(
                        "the request's {part} carries more encoded data than the door decodes ({} bytes), so it cannot see what it carries; it was not sent",
                        ploy_secrets::MAX_LAYER_BYTES
                    ),
                ));
            }
            for layer in layers.views {
                if !layered.contains(&layer) {
                    layered.push(layer);
                }
            }
        }
        for layer in &layered {
            let skeleton = skeleton(&layer.to_lowercase());
            for view in [layer.as_str(), skeleton.as_str()] {
                if self.matcher.find_secret(view.as_bytes()).is_some() {
                    return Err(refusal(part, "layered (base64, hex, gzip or UTF-16)"));
                }
            }
        }
        if !fully_decoded {
            return Err(Refusal::new(
                RULE,
                Stage::Request,
                format!(
                    "the request's {part} is percent-encoded more than {DECODE_ROUNDS} layers deep, so the door cannot see what it carries; it was not sent"
                ),
            ));
        }
        Ok(())
    }

    /// Refuses when `bytes` carry a known secret: the raw bytes, their text
    /// views, and, when they parse as JSON, every string in them as decoded.
    pub fn check_body(&self, bytes: &[u8]) -> Result<(), Refusal> {
        if cfg!(feature = "teeth") || self.is_empty() || bytes.is_empty() {
            return Ok(());
        }
        if let Some(found) = self.matcher.find_secret(bytes) {
            return Err(refusal(Part::Body, found.form.as_str()));
        }
        let text = String::from_utf8_lossy(bytes);
        self.check_text(Part::Body, &text, true)?;
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) {
            let mut strings = Vec::new();
            json_strings(&value, &mut strings);
            for string in strings {
                self.check_text(Part::Body, string, true)?;
            }
        }
        Ok(())
    }
}

fn refusal(part: Part<'_>, form: &str) -> Refusal {
    Refusal::new(
        RULE,
        Stage::Request,
        format!(
            "the request's {part} carries a secret value ploy knows ({form} form); it was not sent, \
             and nothing was resolved (a secret that reached the model never leaves through a fetch)"
        ),
    )
}

/// The pieces of known secrets seen in one request ([`SecretDoor::pieces`]).
pub struct PieceCheck<'a> {
    /// `None` when the door knows no secret long enough for the rule.
    tally: Option<Tally<'a>>,
}

impl PieceCheck<'_> {
    /// Adds one part of the request: its skeleton as written, percent-decoded
    /// (every layer) and with every other escape undone (backslash, HTML).
    /// `query_like`: read `+` as a space too.
    pub fn text(&mut self, text: &str, query_like: bool) {
        let Some(tally) = &mut self.tally else {
            return;
        };
        let mut done: Vec<String> = Vec::new();
        for base in bases(text, query_like).0 {
            for view in [base.as_ref(), ploy_secrets::unescape(&base).as_ref()] {
                let skeleton = skeleton(&view.to_lowercase());
                if !done.contains(&skeleton) {
                    tally.add(&skeleton);
                    done.push(skeleton);
                }
            }
        }
    }

    /// Adds the body: as text, and every string of it when it parses as JSON.
    pub fn body(&mut self, bytes: &[u8]) {
        if self.tally.is_none() || bytes.is_empty() {
            return;
        }
        self.text(&String::from_utf8_lossy(bytes), true);
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) {
            let mut strings = Vec::new();
            json_strings(&value, &mut strings);
            for string in strings {
                self.text(string, true);
            }
        }
    }

    /// Refuses when the pieces seen carry most of a known secret; the
    /// reason names the rule, never the value.
    pub fn finish(self) -> Result<(), Refusal> {
        match self.tally {
            Some(tally) if tally.carries_a_secret() => Err(Refusal::new(
                RULE,
                Stage::Request,
                "the request carries most of a secret value ploy knows, cut into pieces (in its URL, headers or body, in any order); it was not sent, and nothing was resolved",
            )),
            _ => Ok(()),
        }
    }
}

/// Letters and digits only (any script), lower-cased by the caller.
fn skeleton(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).collect()
}

/// Every view of `text` the door searches (see the module docs), and
/// whether percent-decoding reached a fixed point within [`DECODE_ROUNDS`].
fn views(text: &str, query_like: bool) -> (Vec<Cow<'_, str>>, bool) {
    let (bases, fully_decoded) = bases(text, query_like);
    let mut all = Vec::with_capacity(bases.len() * 5);
    for base in bases {
        let lower = base.to_lowercase();
        let skeleton = skeleton(&lower);
        // Reversed, character by character (secrets5 #4: a model asked to
        // send the key backwards).
        all.push(Cow::Owned(base.chars().rev().collect()));
        all.push(Cow::Owned(skeleton.chars().rev().collect()));
        all.push(base);
        all.push(Cow::Owned(lower));
        all.push(Cow::Owned(skeleton));
    }
    (all, fully_decoded)
}

/// `text`, each layer of its percent-decoding, and the last layer with `+`
/// read as a space (`query_like`); and whether decoding reached a fixed
/// point within [`DECODE_ROUNDS`].
fn bases(text: &str, query_like: bool) -> (Vec<Cow<'_, str>>, bool) {
    let mut bases: Vec<Cow<'_, str>> = vec![Cow::Borrowed(text)];
    let mut current: String = text.to_owned();
    let decode = |text: &str| {
        percent_encoding::percent_decode_str(text)
            .decode_utf8_lossy()
            .into_owned()
    };
    let mut fully_decoded = false;
    for _ in 0..DECODE_ROUNDS {
        let decoded = decode(&current);
        if decoded == current {
            fully_decoded = true;
            break;
        }
        bases.push(Cow::Owned(decoded.clone()));
        current = decoded;
    }
    if !fully_decoded {
        fully_decoded = decode(&current) == current;
    }
    if query_like && current.contains('+') {
        bases.push(Cow::Owned(current.replace('+', " ")));
    }
    // `%XX` escapes that are not UTF-8, read as Latin-1 (`P%E4ssw%F6rd`:
    // secrets5 #4's non-ASCII password).
    let raw: Vec<u8> = percent_encoding::percent_decode_str(text).collect();
    if std::str::from_utf8(&raw).is_err() {
        bases.push(Cow::Owned(raw.iter().map(|&b| char::from(b)).collect()));
    }
    (bases, fully_decoded)
}

/// Every string of a JSON value (keys and values), as decoded.
fn json_strings<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
    match value {
        serde_json::Value::String(text) => out.push(text),
        serde_json::Value::Array(items) => items.iter().for_each(|item| json_strings(item, out)),
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                out.push(key);
                json_strings(item, out);
            }
        }
        _ => {}
    }
}

/// An API key that may travel in the `Authorization: Bearer` header of a
/// request to one declared origin (scheme, host as the URL parser writes
/// it, port), and nowhere else. Declared where the backend that owns the key
/// is defined (a search backend's configured base URL).
#[derive(Clone)]
pub struct Credential {
    token: String,
    scheme: String,
    host: String,
    port: u16,
}

impl std::fmt::Debug for Credential {
    // The token is named only by its mask (REDACT-1).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credential")
            .field("token", &ploy_secrets::mask(&self.token))
            .field(
                "origin",
                &format!("{}://{}:{}", self.scheme, self.host, self.port),
            )
            .finish()
    }
}

impl Credential {
    /// `token` declared for the origin of `base` (e.g. Tavily's configured
    /// API URL). `None` when `base` is not an http(s) URL with a host.
    pub fn bearer_for(token: &str, base: &str) -> Option<Self> {
        let url = url::Url::parse(base).ok()?;
        if !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        Some(Self {
            token: token.to_owned(),
            scheme: url.scheme().to_owned(),
            host: url.host_str()?.to_owned(),
            port: url.port_or_known_default()?,
        })
    }

    /// The token, for the one header that carries it (a transport that
    /// sends the request; never for a log or an answer).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Refuses when `url` is not the declared origin: the key never goes
    /// anywhere else.
    pub(crate) fn check_destination(&self, url: &url::Url) -> Result<(), Refusal> {
        let same = url.scheme() == self.scheme
            && url.host_str() == Some(self.host.as_str())
            && url.port_or_known_default() == Some(self.port);
        if same {
            Ok(())
        } else {
            Err(Refusal::new(
                RULE,
                Stage::Request,
                format!(
                    "an API key declared for {}://{}:{} would be sent to {}://{}:{}; a key goes only to its own service, so nothing was sent",
                    self.scheme,
                    self.host,
                    self.port,
                    url.scheme(),
                    url.host_str().unwrap_or_default(),
                    url.port_or_known_default().unwrap_or_default()
                ),
            ))
        }
    }

    /// A door that knows only this key, for requests whose own door may not.
    pub(crate) fn own_door(&self) -> SecretDoor {
        SecretDoor::new([self.token.as_str()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "Tr0ub4dor-and-3-horses";

    fn refused(door: &SecretDoor, text: &str) -> bool {
        door.check_text(Part::Url, text, true).is_err()
    }

    // proves: BEYOND-6 (views: decoded, over-encoded, case, separators)
    #[test]
    fn every_view_is_searched() {
        let door = SecretDoor::new([SECRET]);
        for carried in [
            format!("https://x.example/?q={SECRET}"),
            "https://x.example/?q=Tr0ub4dor%2Dand%2D3%2Dhorses".to_owned(),
            "https://x.example/?q=%54%72%30%75%62%34%64%6f%72%2d%61%6e%64%2d%33%2d%68%6f%72%73%65%73".to_owned(),
            "https://x.example/?q=Tr0ub4dor%252Dand%252D3%252Dhorses".to_owned(),
            "https://tr0ub4dor-and-3-horses.evil.example/".to_owned(),
            "https://tr0u.b4dor.and3.horses.evil.example/".to_owned(),
            "https://x.example/tr0ub/4dor/and/3hor/ses".to_owned(),
            "https://x.example/?q=TR0UB4DOR+AND+3+HORSES".to_owned(),
        ] {
            assert!(refused(&door, &carried), "{carried}");
        }
        for clean in [
            "https://docs.rs/tokio/latest/tokio/",
            "https://x.example/?q=troubadour+and+horses",
        ] {
            assert!(!refused(&door, clean), "{clean}");
        }
        assert!(!refused(
            &SecretDoor::empty(),
            &format!("https://x/?{SECRET}")
        ));
    }

    // proves: BEYOND-6 (JSON strings as a parser reads them; the refusal never names the value)
    #[test]
    fn json_bodies_are_read_as_decoded_and_the_reason_hides_the_value() {
        let door = SecretDoor::new([SECRET]);
        let escaped = r#"{"query": "\u0054r0ub4dor\u002dand\u002d3\u002dhorses"}"#;
        let refusal = door.check_body(escaped.as_bytes()).unwrap_err();
        assert_eq!(refusal.rule, "BEYOND-6");
        assert!(!refusal.reason.contains("orses") && !refusal.reason.contains("Tr0u"));
        assert!(door.check_body(br#"{"query": "rust tokio"}"#).is_ok());
    }

    // proves: BEYOND-6 (a key goes only to its declared origin)
    #[test]
    fn a_credential_goes_only_to_its_own_origin() {
        let key =
            Credential::bearer_for("tvly-0123456789abcdef", "https://api.tavily.com/").unwrap();
        let ok = url::Url::parse("https://api.tavily.com/search").unwrap();
        assert!(key.check_destination(&ok).is_ok());
        for other in [
            "https://evil.example/search",
            "http://api.tavily.com/search",
            "https://api.tavily.com:8443/search",
            "https://api.tavily.com.evil.example/search",
        ] {
            let url = url::Url::parse(other).unwrap();
            assert!(key.check_destination(&url).is_err(), "{other}");
        }
        assert!(!format!("{key:?}").contains("0123456789"));
    }
}
