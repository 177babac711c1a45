//! The search-phrase scrubber (SCRUB-1, SCRUB-2) and the [`SearchPlan`]
//! (RESEARCH-1). A phrase leaves this machine only as a [`SearchPhrase`],
//! which only [`Scrubbed::into_phrase`] makes.
//!
//! The phrase is first normalised (`normalize.rs`: escapes undone,
//! invisible characters removed, NFKC, Cyrillic/Greek look-alikes folded in
//! mixed words), then every rule of [`scrub`] runs on the normalised text.

mod normalize;

use std::{
    borrow::Cow,
    net::{Ipv4Addr, Ipv6Addr},
    sync::LazyLock,
};

use ploy_secrets::{REDACTED, Redactor, shape::entropy};
use regex::Regex;

/// The longest phrase sent, in characters (SCRUB-2).
pub const MAX_PHRASE_CHARS: usize = 110;
/// Phrases per research round at most (RESEARCH-1).
pub const MAX_PHRASES_PER_ROUND: usize = 3;
/// Research rounds at most (RESEARCH-1).
pub const MAX_ROUNDS: usize = 2;

/// A class of sensitive text the scrubber removes. `--json` reports these,
/// never the removed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScrubClass {
    /// A secret value the [`Redactor`] knows (or an encoding of it).
    KnownSecret,
    /// A known secret form: `Bearer …`, `password=…`, provider key prefixes,
    /// private-key blocks, JWTs.
    SecretForm,
    /// A web address (with or without scheme).
    Url,
    /// An e-mail address.
    Email,
    /// A file path (Unix or Windows).
    Path,
    /// An IPv6 address.
    Ipv6,
    /// An IPv4 address.
    Ipv4,
    /// An IBAN-like code.
    Iban,
    /// A national identity number (US SSN `123-45-6789`).
    NationalId,
    /// A card-like number (13–19 digits).
    Card,
    /// A phone-like number.
    Phone,
    /// A long string that looks like a key (length and entropy), or a UUID.
    KeyLike,
}

impl ScrubClass {
    /// The class's lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            ScrubClass::KnownSecret => "known_secret",
            ScrubClass::SecretForm => "secret_form",
            ScrubClass::Url => "url",
            ScrubClass::Email => "email",
            ScrubClass::Path => "path",
            ScrubClass::Ipv6 => "ipv6",
            ScrubClass::Ipv4 => "ipv4",
            ScrubClass::Iban => "iban",
            ScrubClass::NationalId => "national_id",
            ScrubClass::Card => "card",
            ScrubClass::Phone => "phone",
            ScrubClass::KeyLike => "key_like",
        }
    }
}

/// The result of [`scrub`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scrubbed {
    text: String,
    removed: Vec<ScrubClass>,
    cut: bool,
}

impl Scrubbed {
    /// The scrubbed phrase (may be empty).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether nothing is left (an empty phrase is not sent, SCRUB-2).
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The classes that were removed, in a fixed order, each once.
    pub fn removed(&self) -> &[ScrubClass] {
        &self.removed
    }

    /// Whether the phrase was cut to [`MAX_PHRASE_CHARS`].
    pub fn was_cut(&self) -> bool {
        self.cut
    }

    /// The phrase as something that may be sent; `None` when empty.
    pub fn into_phrase(self) -> Option<SearchPhrase> {
        (!self.text.is_empty()).then_some(SearchPhrase(self.text))
    }
}

/// A scrubbed, non-empty phrase of at most [`MAX_PHRASE_CHARS`] characters.
/// Only [`Scrubbed::into_phrase`] makes one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SearchPhrase(String);

impl SearchPhrase {
    /// The phrase text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The scrubber's compiled rules, in the order they run: known values and
/// secret forms first (they may contain anything), then addresses, then
/// numbers, then key-like leftovers.
struct Rules {
    bearer: Regex,
    assignment: Regex,
    connection_string: Regex,
    provider_keys: Regex,
    private_key: Regex,
    url: Regex,
    url_bare: Regex,
    email: Regex,
    path_windows: Regex,
    path_unix: Regex,
    path_relative_file: Regex,
    path_home: Regex,
    password_phrase: Regex,
    passphrase_words: Regex,
    spelled_email: Regex,
    defanged_host: Regex,
    protected: Regex,
    dni: Regex,
    nie: Regex,
    nino: Regex,
    cpf_rg: Regex,
    ipv4: Regex,
    ipv4_alt: Regex,
    ssn: Regex,
    uuid: Regex,
    iban: Regex,
    card: Regex,
    card_any_separator: Regex,
    phones_international: Vec<Regex>,
    phones_local: Vec<Regex>,
    token: Regex,
}

const SECRET_KEYWORDS: &str = r"(?:password|passwd|passwort|kennwort|passphrase|pass|pwd|pw|mot[ _-]de[ _-]passe|mdp|contrase(?:ñ|n)a|senha|пароль|パスワード|密码|密碼|secret|client[_-]?secret|token|access[_-]?token|refresh[_-]?token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?token|session[_-]?id|credentials?)";

/// Words that name a password, in the seven languages of the phrase rule.
const PASSWORD_WORDS: &str = r"password|passwd|passphrase|passcode|pass|pwd|pw|passwort|kennwort|senha|palavra-passe|contraseña|contrasena|clave|mot de passe|mdp|пароль|mật khẩu|mat khau|wachtwoord|パスワード|暗証番号|密码|密碼|口令|비밀번호|암호|şifre|sifre|parola|hasło|haslo|heslo|lösenord|losenord|passord|adgangskode|salasana|jelszó|पासवर्ड|कूटशब्द|كلمة السر|كلمة المرور|סיסמה|รหัสผ่าน|kata sandi|token|pin code|pin|otp";

/// Particles written right after a password word without a space
/// (Japanese `は`/`が`, Chinese `是`/`为`, Korean `는`/`은`/`가`/`이`).
const GLUED_PARTICLES: &str = r"は|が|是|为|為|는|은|가|이";

/// Words that may stand between a password word and the value ("password
/// is …", "Kennwort ist …", "senha é …", "пароль это …", "mật khẩu là …").
const LINKING_WORDS: &str = r"is|was|ist|lautet|war|é|e|es|est|era|это|—|-|là|la|của|tôi|my|mein|meine|mon|ma|mi|minha|meu|мой";

/// Words naming what the password is for, between the password word and
/// the value ("mật khẩu wifi: …", "пароль от wifi …", "senha do wifi …",
/// "password for root is …"). The value after them must still look like a
/// password ([`is_password_value`]), so "пароль от wifi не подходит" stays.
const FILLER_WORDS: &str = r"wifi|wi-fi|wlan|router|account|admin|root|user|email|mail|server|database|db|for|of|the|to|от|для|de|do|da|del|du|des|der|die|das|für|von|cho|của";

/// `at` as people write it to dodge e-mail filters (with `@` itself).
const SPELLED_AT: &str = r"(?:\(at\)|\[at\]|\{at\}|\s+at\s+|@)";
/// `.` likewise.
const SPELLED_DOT: &str = r"(?:\(dot\)|\[dot\]|\{dot\}|\[\.\]|\(\.\)|\{\.\}|\s+dot\s+)";

/// Possessives that make "my password is …" a statement of a value: then
/// the next words are the value even when they are plain words (a
/// passphrase).
const POSSESSIVES: &str =
    r"my|our|his|her|their|mein|meine|unser|mon|ma|notre|mi|nuestra|minha|meu|nossa|мой|моя|наш";

fn build_rules() -> Result<Rules, regex::Error> {
    let password_words = format!(
        r"{PASSWORD_WORDS}|(?:wifi|wi-fi|wlan|wpa2?|network|router)\s+key|key\s+(?:is|was)"
    );
    Ok(Rules {
        bearer: Regex::new(r"(?i)(?-u:\b)bearer\s+[A-Za-z0-9._~+/=-]{8,}")?,
        // `password=…`, `api_key: …`, `"token": "…"` in any of several languages.
        assignment: Regex::new(&format!(
            r#"(?i)[\w.-]*{SECRET_KEYWORDS}[\w.-]*["']?\s*(?:=|:|=>|：)\s*["']?[^\s"',;]+"#
        ))?,
        // Connection strings: scheme://user:password@host.
        connection_string: Regex::new(r"(?i)(?-u:\b)[a-z][a-z0-9+.-]*://[^\s/@]*:[^\s@]*@\S*")?,
        provider_keys: Regex::new(
            r"(?-u:\b)(?:sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{10,}|[rp]k_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|hf_[A-Za-z0-9]{16,}|npm_[A-Za-z0-9]{16,}|pypi-[A-Za-z0-9_-]{16,}|tvly-[A-Za-z0-9_-]{10,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)",
        )?,
        private_key: Regex::new(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
        )?,
        url: Regex::new(r"(?i)(?-u:\b)(?:[a-z][a-z0-9+.-]*://|www\.|file:|mailto:|data:)\S*")?,
        url_bare: Regex::new(r"(?i)(?-u:\b)(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?/\S*")?,
        // Any host: also single-label (`alice@prod-server-01`, `user@localhost`);
        // `is_email` leaves package versions (`react@18.2.0`, `pkg@latest`).
        email: Regex::new(r"(?i)[\w.+%-]+@[\w-]+(?:\.[\w-]+)*")?,
        path_windows: Regex::new(
            r"(?i)(?:(?-u:\b)[a-z]:[\\/]\S*|\\\\\S+|%[a-z_]+%[\\/]?\S*|\S*\\\S*)",
        )?,
        path_unix: Regex::new(r"(?:^|[\s(\[=:'\x22])((?:~[\w.-]*|\.{1,2})?/[^\s/]\S*)")?,
        path_relative_file: Regex::new(r"(?-u:\b)[\w.-]+(?:/[\w.-]+)+\.[A-Za-z0-9]{1,8}(?-u:\b)")?,
        // Relative paths shaped like a home folder: `home/alice/notes`.
        path_home: Regex::new(r"(?i)(?:^|[\s(\[=:'\x22])((?:home|users|root)/[^\s/]+\S*)")?,
        // A password named without `=` or `:`, in English, Portuguese,
        // Spanish, French, German, Russian and Vietnamese: keyword, optional
        // linking words, then the value (group 1; `is_password_value` decides).
        password_phrase: Regex::new(&format!(
            r"(?i)(?:^|[^\p{{L}}])({password_words})(?:{GLUED_PARTICLES})?(?:\s+(?:{LINKING_WORDS}|{FILLER_WORDS}))*(?:\s*[:：=]\s*|\s+)(\S+)"
        ))?,
        // "my password is correct horse battery staple": after a possessive,
        // three to eight plain words are the value (group 1).
        passphrase_words: Regex::new(&format!(
            r"(?i)(?:^|[^\p{{L}}])(?:{POSSESSIVES})\s+(?:\S+\s+)?(?:{PASSWORD_WORDS}|passphrase|mnemonic|seed phrase|recovery phrase)(?:\s+(?:{LINKING_WORDS}))*(?:\s*[:：=]\s*|\s+)(\p{{L}}+(?:\s+\p{{L}}+){{2,7}})"
        ))?,
        // `alice at example dot com`, `alice(at)example(dot)com`,
        // `alice [at] example [dot] com`, `alice@example[.]com`.
        spelled_email: Regex::new(&format!(
            r"(?i)[\w.+-]+\s*{SPELLED_AT}\s*[\w-]+(?:(?:\s*{SPELLED_DOT}\s*|\.)[\w-]+)+"
        ))?,
        // Defanged host names: `example[.]com`, `evil(.)example(.)net`.
        defanged_host: Regex::new(
            r"(?i)[\w-]+(?:\s*(?:\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\))\s*[\w-]+)+\S*",
        )?,
        // Ordinary identifiers that other rules would cut (a CVE id as a
        // phone number, an ISBN as a card, a version as an IPv4 address,
        // `/dev/null` as a path): set aside before the rules run and put
        // back after (`protect`, `is_protected`).
        protected: Regex::new(concat!(
            r"(?i)(?-u:\b)CVE-\d{4}-\d{4,7}(?-u:\b)",
            r"|(?-u:\b)GHSA(?:-[0-9a-z]{4}){3}(?-u:\b)",
            r"|(?-u:\b)ISBN(?:-1[03])?:?\s*\d[\d -]{8,15}[\dX](?-u:\b)",
            r"|(?-u:\b)(?:v|version|release|kubernetes|k8s|kernel)\s*\d{1,3}(?:\.\d{1,4}){2,3}(?-u:\b)",
            r"|(?:^|\s)/(?:dev/(?:null|zero|u?random|stdin|stdout|stderr|tty|shm)|etc/(?:hosts|resolv\.conf|fstab|os-release)|proc/(?:cpuinfo|meminfo)|usr/bin/env|bin/(?:sh|bash))(?:$|[\s,.;:!?)])",
            r"|(?-u:\b)(?:timestamp|epoch|unix time)\s+\d{9,13}(?-u:\b)",
            r"|(?-u:\b)\d{6,}\s*(?:b|kb|mb|gb|tb|kib|mib|gib|tib|bytes|ms|ns|us|seconds|secs|s)(?-u:\b)",
            r"|(?-u:\b)\d+\.\d{6,}(?-u:\b)",
        ))?,
        // Spanish DNI/NIF (8 digits and a check letter) and NIE (X/Y/Z, 7
        // digits, check letter); `is_spanish_id` checks the letter.
        dni: Regex::new(r"(?i)(?-u:\b)\d{8}[\s-]?[a-z](?-u:\b)")?,
        nie: Regex::new(r"(?i)(?-u:\b)[xyz][\s-]?\d{7}[\s-]?[a-z](?-u:\b)")?,
        // UK National Insurance number: two letters, six digits, A-D.
        nino: Regex::new(r"(?-u:\b)[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D](?-u:\b)")?,
        // Brazilian CPF `123.456.789-09` and RG `12.345.678-9`.
        cpf_rg: Regex::new(
            r"(?i)(?-u:\b)(?:\d{3}\.\d{3}\.\d{3}-\d{2}|\d{2}\.\d{3}\.\d{3}-[\dx])(?-u:\b)",
        )?,
        ipv4: Regex::new(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?::\d{1,5})?(?:/\d{1,2})?")?,
        // Dotted forms with hex or octal parts (`0x0a.0.0.1`, `012.0.0.1`):
        // `is_ipv4_alt_form` checks them as inet_aton would.
        ipv4_alt: Regex::new(
            r"(?i)(?-u:\b)(?:0x[0-9a-f]+|\d+)(?:\.(?:0x[0-9a-f]+|\d+)){1,3}(?-u:\b)",
        )?,
        // Any one separator that is not a letter or digit (`-`, ` `, `.`,
        // an en dash, `/`; secrets5 #11).
        ssn: Regex::new(r"(?-u:\b)\d{3}[^\p{L}\p{N}]\d{2}[^\p{L}\p{N}]\d{4}(?-u:\b)")?,
        uuid: Regex::new(
            r"(?i)(?-u:\b)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?-u:\b)",
        )?,
        iban: Regex::new(
            r"(?i)(?-u:\b)[a-z]{2}\d{2}(?:[ -]?[a-z0-9]{4}){2,7}(?:[ -]?[a-z0-9]{1,4})?(?-u:\b)",
        )?,
        card: Regex::new(r"\d(?:[ -]?\d){12,18}")?,
        // Any separator between digit groups (`_`, `/`, `,`, `.`, ` - `):
        // taken only when the digits pass the Luhn check.
        // Any separator that is not a letter or digit (`·`, `|`, `;`, `:`,
        // `~`, `+`: secrets5 #11), with white space around it or alone.
        card_any_separator: Regex::new(r"\d(?:(?:\s*[^\p{L}\p{N}\s]\s*|\s+)?\d){12,18}")?,
        // International: +CC or 00CC then digits with common separators
        // (before cards, which would also match some of these).
        phones_international: vec![
            Regex::new(r"\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,6}")?,
            Regex::new(r"(?:^|[\s(:])00\d{1,3}(?:[\s.-]?\d{2,4}){3,6}")?,
        ],
        phones_local: vec![
            // Local: (555) 123-4567, 555-123-4567, 030 1234 5678, 06 12 34 56 78.
            Regex::new(r"\(\d{2,5}\)\s*\d{3,4}[\s.-]?\d{3,4}")?,
            Regex::new(r"\d{2,5}[\s.-]\d{3,4}[\s.-]\d{3,5}")?,
            Regex::new(r"0\d(?:[\s.-]\d{2}){4}")?,
            Regex::new(r"\d{3}-\d{4}")?,
            // `555 1234`, `555.1234`; `030/12345678` (area code, slash).
            Regex::new(r"(?-u:\b)\d{3}[ .]\d{4}(?-u:\b)")?,
            Regex::new(r"(?-u:\b)0\d{1,4}\s?/\s?\d{4,10}(?-u:\b)")?,
            Regex::new(r"\d{9,12}")?,
        ],
        token: Regex::new(r"[^\s,;()<>\x22'`]+")?,
    })
}

static RULES: LazyLock<Option<Rules>> = LazyLock::new(|| build_rules().ok());

/// Scrubs a search phrase (SCRUB-1, SCRUB-2): removes every value the
/// `redactor` knows, known secret forms, URLs, e-mails, file paths, IPv6 and
/// IPv4 addresses, IBAN-like codes, card-like and phone-like numbers and
/// long key-like strings; collapses white space; cuts to
/// [`MAX_PHRASE_CHARS`] characters, on a word boundary when one is near.
///
/// Fails closed: if the rules could not be built, the result is empty (and
/// so is not sent).
pub fn scrub(phrase: &str, redactor: &Redactor) -> Scrubbed {
    let Some(rules) = RULES.as_ref() else {
        return Scrubbed {
            text: String::new(),
            removed: vec![ScrubClass::SecretForm],
            cut: false,
        };
    };
    let mut removed = Vec::new();
    // The placeholder characters of `protect` cannot come from outside.
    let mut text: String = phrase
        .chars()
        .filter(|c| !('\u{E000}'..='\u{E002}').contains(c))
        .collect();

    // Known values first, as written (the redactor sees through escapes and
    // case); then normalise (escapes undone, invisible characters removed,
    // NFKC, look-alikes folded) and look for known values again, also with
    // the white space taken out (`s k - l i v e …`, hex or base64 cut into
    // words).
    remove_known(&mut text, redactor, &mut removed);
    if let Cow::Owned(normal) = normalize::normalize(&text) {
        text = normal;
        remove_known(&mut text, redactor, &mut removed);
    }
    remove_known_spaced(&mut text, redactor, &mut removed);

    // Ordinary identifiers the rules below would cut are set aside.
    let kept = protect(&mut text, &rules.protected);

    // Cheap hints about the text decide which rules can match at all. They
    // are taken once: the passes only ever remove text, so a character
    // absent now stays absent.
    let hints = Hints::of(&text);
    let r = &mut removed;
    let t = &mut text;
    if hints.lower.contains("bearer") {
        replace_checked(
            t,
            &rules.bearer,
            ScrubClass::SecretForm,
            r,
            is_bearer_credential,
        );
    }
    if hints.has(&['=', ':', '\u{ff1a}']) {
        replace(t, &rules.assignment, ScrubClass::SecretForm, r);
    }
    if hints.names_password() {
        replace_group(t, &rules.passphrase_words, ScrubClass::SecretForm, r);
        remove_password_values(t, &rules.password_phrase, r);
    }
    if hints.lower.contains("://") && hints.has(&['@']) {
        replace(t, &rules.connection_string, ScrubClass::SecretForm, r);
    }
    replace(t, &rules.provider_keys, ScrubClass::SecretForm, r);
    if hints.lower.contains("-----begin") {
        replace(t, &rules.private_key, ScrubClass::SecretForm, r);
    }
    if hints.spells_address() {
        replace_checked(
            t,
            &rules.spelled_email,
            ScrubClass::Email,
            r,
            is_spelled_email,
        );
        replace(t, &rules.defanged_host, ScrubClass::Url, r);
    }
    if hints.has(&['@']) {
        replace_checked(t, &rules.email, ScrubClass::Email, r, is_email);
    }
    if hints.has(&[':']) || hints.lower.contains("www.") {
        replace(t, &rules.url, ScrubClass::Url, r);
    }
    if hints.has(&['/']) {
        replace(t, &rules.url_bare, ScrubClass::Url, r);
    }
    if hints.colons >= 2 {
        replace_checked(t, &rules.token, ScrubClass::Ipv6, r, is_ipv6_token);
    }
    if hints.has(&['\\', ':', '%']) {
        replace(t, &rules.path_windows, ScrubClass::Path, r);
    }
    if hints.has(&['/']) {
        replace_group(t, &rules.path_unix, ScrubClass::Path, r);
        replace(t, &rules.path_relative_file, ScrubClass::Path, r);
        replace_group(t, &rules.path_home, ScrubClass::Path, r);
    }
    if hints.digits >= 6 {
        replace(t, &rules.cpf_rg, ScrubClass::NationalId, r);
        replace_checked(t, &rules.dni, ScrubClass::NationalId, r, is_spanish_id);
        replace_checked(t, &rules.nie, ScrubClass::NationalId, r, is_spanish_id);
        replace(t, &rules.nino, ScrubClass::NationalId, r);
    }
    if hints.digits >= 4 && hints.has(&['.']) {
        replace_checked(t, &rules.ipv4, ScrubClass::Ipv4, r, is_ipv4_text);
    }
    if hints.digits >= 2 && hints.has(&['.']) {
        replace_checked(t, &rules.ipv4_alt, ScrubClass::Ipv4, r, is_ipv4_alt_form);
    }
    if hints.digits >= 9 {
        replace(t, &rules.ssn, ScrubClass::NationalId, r);
    }
    if hints.dashes >= 4 {
        replace(t, &rules.uuid, ScrubClass::KeyLike, r);
    }
    if hints.digits >= 10 {
        replace_checked(t, &rules.iban, ScrubClass::Iban, r, is_iban_like);
    }
    // Luhn-valid card numbers first: `4111+1111+…` would otherwise lose its
    // tail to the international phone rule and keep its first group
    // (secrets5 #11). Either way the digits are removed.
    if hints.digits >= 13 {
        replace_checked(
            t,
            &rules.card_any_separator,
            ScrubClass::Card,
            r,
            passes_luhn,
        );
    }
    if hints.digits >= 6 {
        for rule in &rules.phones_international {
            replace(t, rule, ScrubClass::Phone, r);
        }
    }
    if hints.digits >= 13 {
        replace(t, &rules.card, ScrubClass::Card, r);
    }
    if hints.digits >= 7 {
        for rule in &rules.phones_local {
            replace(t, rule, ScrubClass::Phone, r);
        }
    }
    if hints.longest_run >= 16 {
        replace_checked(t, &rules.token, ScrubClass::KeyLike, r, is_key_like);
    }

    restore(&mut text, &kept);
    let (text, cut) = collapse_and_cut(&text);
    removed.sort_unstable();
    removed.dedup();
    Scrubbed { text, removed, cut }
}

/// Marks around a protected identifier's index while the rules run
/// (private-use characters, removed from the input first).
const PROTECT_OPEN: char = '\u{E000}';
const PROTECT_CLOSE: char = '\u{E001}';

/// Replaces every protected identifier (`Rules::protected`) by a
/// placeholder without digits or word characters (so no rule matches it)
/// and returns the identifiers, for [`restore`].
fn protect(text: &mut String, rule: &Regex) -> Vec<String> {
    let mut kept = Vec::new();
    if !rule.is_match(text) {
        return kept;
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for found in rule
        .find_iter(text)
        .filter(|found| !is_private_ipv4_inside(found.as_str()))
    {
        out.push_str(&text[last..found.start()]);
        out.push(PROTECT_OPEN);
        // The index as a run of `PROTECT_CLOSE`-free private-use letters.
        out.extend(std::iter::repeat_n('\u{E002}', kept.len()));
        out.push(PROTECT_CLOSE);
        kept.push(found.as_str().to_owned());
        last = found.end();
    }
    out.push_str(&text[last..]);
    *text = out;
    kept
}

/// Whether a "version" holds a private, loopback or link-local IPv4
/// address (`v 192.168.10.20`): that is not protected.
fn is_private_ipv4_inside(found: &str) -> bool {
    found
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|part| part.parse::<Ipv4Addr>().ok())
        .any(|ip| ip.is_private() || ip.is_loopback() || ip.is_link_local() || ip.octets()[0] == 0)
}

/// Puts back what [`protect`] set aside (a placeholder a rule removed stays
/// removed).
fn restore(text: &mut String, kept: &[String]) {
    if kept.is_empty() {
        return;
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text.as_str();
    while let Some(open) = rest.find(PROTECT_OPEN) {
        out.push_str(&rest[..open]);
        let after = &rest[open + PROTECT_OPEN.len_utf8()..];
        let Some(close) = after.find(PROTECT_CLOSE) else {
            rest = after;
            continue;
        };
        let index = after[..close].chars().count();
        if let Some(original) = kept.get(index) {
            out.push_str(original);
        }
        rest = &after[close + PROTECT_CLOSE.len_utf8()..];
    }
    out.push_str(rest);
    *text = out;
}

/// Known values written with white space inside (`s k - l i v e`, spaced
/// hex, base64 cut into words): the redactor searches the phrase with its
/// white space taken out, and each match is removed from the phrase with
/// everything between its first and last character.
fn remove_known_spaced(text: &mut String, redactor: &Redactor, removed: &mut Vec<ScrubClass>) {
    if redactor.is_empty() || !text.contains(char::is_whitespace) {
        return;
    }
    // At most one match per character: each round removes one.
    for _ in 0..text.len() {
        let mut compact = String::with_capacity(text.len());
        let mut origin = Vec::with_capacity(text.len());
        for (at, c) in text.char_indices() {
            if !c.is_whitespace() {
                compact.push(c);
                origin.extend(std::iter::repeat_n((at, at + c.len_utf8()), c.len_utf8()));
            }
        }
        let Some(found) = redactor.find_secret(compact.as_bytes()) else {
            return;
        };
        let (Some(first), Some(last)) = (origin.get(found.start), origin.get(found.end - 1)) else {
            return;
        };
        let span = first.0..last.1;
        replace_spans(text, [span], ScrubClass::KnownSecret, removed);
    }
}

fn remove_known(text: &mut String, redactor: &Redactor, removed: &mut Vec<ScrubClass>) {
    let redacted = redactor.redact(text);
    if redacted.contains(REDACTED) {
        let cleaned = redacted.replace(REDACTED, " ");
        note(removed, ScrubClass::KnownSecret);
        *text = cleaned;
    }
}

/// What a phrase contains, taken in one pass, to skip rules that cannot
/// match.
struct Hints {
    lower: String,
    digits: usize,
    colons: usize,
    dashes: usize,
    /// The longest run of characters without white space.
    longest_run: usize,
}

impl Hints {
    fn of(text: &str) -> Self {
        let (mut digits, mut colons, mut dashes, mut longest_run, mut run) = (0, 0, 0, 0, 0);
        for c in text.chars() {
            if c.is_whitespace() {
                run = 0;
                continue;
            }
            run += 1;
            longest_run = longest_run.max(run);
            match c {
                // Any numeric character: the rules' `\d` is Unicode-aware.
                c if c.is_numeric() => digits += 1,
                ':' => colons += 1,
                '-' => dashes += 1,
                _ => {}
            }
        }
        Self {
            lower: text.to_lowercase(),
            digits,
            colons,
            dashes,
            longest_run,
        }
    }

    fn has(&self, any: &[char]) -> bool {
        self.lower.contains(any)
    }

    /// Whether an address may be spelled out or defanged (`at … dot`,
    /// `(at)`, `[.]`).
    fn spells_address(&self) -> bool {
        ["[.]", "(.)", "{.}", "dot", "(at)", "[at]", "{at}"]
            .iter()
            .any(|mark| self.lower.contains(mark))
    }

    /// Whether a password word of any of the phrase rule's languages may
    /// be present (a cheap test before the rule's regex).
    fn names_password(&self) -> bool {
        [
            "key",
            "pass",
            "pw",
            "kennwort",
            "senha",
            "contrase",
            "clave",
            "mot de",
            "mdp",
            "пароль",
            "khẩu",
            "khau",
            "wachtwoord",
            "パスワード",
            "暗証番号",
            "密码",
            "密碼",
            "口令",
            "비밀번호",
            "암호",
            "şifre",
            "sifre",
            "parola",
            "hasło",
            "haslo",
            "heslo",
            "lösenord",
            "losenord",
            "passord",
            "adgangskode",
            "salasana",
            "jelszó",
            "पासवर्ड",
            "कूटशब्द",
            "كلمة",
            "סיסמה",
            "รหัสผ่าน",
            "kata sandi",
            "token",
            "pin",
            "otp",
        ]
        .iter()
        .any(|word| self.lower.contains(word))
    }
}

fn note(removed: &mut Vec<ScrubClass>, class: ScrubClass) {
    if !removed.contains(&class) {
        removed.push(class);
    }
}

/// Replaces every match with a space (never with nothing: joining the
/// neighbours could make a new word, or a new secret).
fn replace(text: &mut String, rule: &Regex, class: ScrubClass, removed: &mut Vec<ScrubClass>) {
    if rule.is_match(text) {
        note(removed, class);
        *text = rule.replace_all(text, " ").into_owned();
    }
}

/// Replaces each of `spans` (in order, not overlapping) with a space and
/// notes `class`; leaves `text` untouched when there is none.
fn replace_spans(
    text: &mut String,
    spans: impl IntoIterator<Item = std::ops::Range<usize>>,
    class: ScrubClass,
    removed: &mut Vec<ScrubClass>,
) {
    let mut out: Option<String> = None;
    let mut last = 0;
    for span in spans {
        let buf = out.get_or_insert_with(|| String::with_capacity(text.len()));
        buf.push_str(&text[last..span.start]);
        buf.push(' ');
        last = span.end;
    }
    if let Some(mut buf) = out {
        buf.push_str(&text[last..]);
        note(removed, class);
        *text = buf;
    }
}

/// Like [`replace`], but only for matches `is_sensitive` accepts. Builds a
/// new string only when something is removed.
fn replace_checked(
    text: &mut String,
    rule: &Regex,
    class: ScrubClass,
    removed: &mut Vec<ScrubClass>,
    is_sensitive: fn(&str) -> bool,
) {
    let spans: Vec<_> = rule
        .find_iter(text)
        .filter(|found| is_sensitive(found.as_str()))
        .map(|found| found.range())
        .collect();
    replace_spans(text, spans, class, removed);
}

/// Replaces capture group 1 only (the rule's context before it stays).
fn replace_group(
    text: &mut String,
    rule: &Regex,
    class: ScrubClass,
    removed: &mut Vec<ScrubClass>,
) {
    let spans: Vec<_> = rule
        .captures_iter(text)
        .filter_map(|caps| caps.get(1).map(|group| group.range()))
        .collect();
    replace_spans(text, spans, class, removed);
}

/// Removes the value (group 2) after a password word (group 1) when
/// [`is_password_value`] says it is one.
fn remove_password_values(text: &mut String, rule: &Regex, removed: &mut Vec<ScrubClass>) {
    let spans: Vec<_> = rule
        .captures_iter(text)
        .filter_map(|caps| {
            let (word, value) = (caps.get(1)?, caps.get(2)?);
            is_password_value(word.as_str(), value.as_str()).then(|| value.range())
        })
        .collect();
    replace_spans(text, spans, ScrubClass::SecretForm, removed);
}

/// Whether the word after a password word is a password rather than an
/// ordinary word ("password hashing", "password reset", "pass --release"):
/// at least 4 characters, holding a letter and a digit, a symbol inside it,
/// or a capital after its first letter; after an unambiguous password word
/// (not the English verb "pass"), 4 or more digits alone are a PIN-like
/// password too.
fn is_password_value(word: &str, value: &str) -> bool {
    let value = trim_token(value).trim_start_matches('-');
    if value.chars().count() < 4 {
        return false;
    }
    let has_letter = value.chars().any(char::is_alphabetic);
    let has_digit = value.chars().any(char::is_numeric);
    let has_symbol = value.chars().any(|c| !c.is_alphanumeric());
    let inner_capital = value.chars().skip(1).any(char::is_uppercase);
    if has_letter {
        return has_digit || has_symbol || inner_capital;
    }
    has_digit && !has_symbol && !word.eq_ignore_ascii_case("pass")
}

/// A `Bearer` value that is a credential rather than a word ("Bearer
/// explained", "bearer authentication"): a digit or a symbol in it, or 20
/// characters or more.
fn is_bearer_credential(found: &str) -> bool {
    let value = found.split_whitespace().nth(1).unwrap_or_default();
    value
        .chars()
        .any(|c| c.is_ascii_digit() || !c.is_alphanumeric())
        || value.chars().count() >= 20
}

/// A spelled-out address: an `at` and a `dot` as words or in brackets, or
/// a bracketed/`@` at with a real dot (`alice(at)example.com`); not "look
/// at docs.rs".
fn is_spelled_email(found: &str) -> bool {
    let lower = found.to_lowercase();
    let spelled_dot = ["(dot)", "[dot]", "{dot}", "[.]", "(.)", "{.}"]
        .iter()
        .any(|mark| lower.contains(mark))
        || lower.split_whitespace().any(|word| word == "dot");
    let marked_at = ["(at)", "[at]", "{at}", "@"]
        .iter()
        .any(|mark| lower.contains(mark));
    spelled_dot || (marked_at && lower.contains('.'))
}

/// A Spanish DNI/NIF or NIE whose check letter is right (the letter is
/// `TRWAGMYFPDXBNJZSQVHLCKE` at the number modulo 23; an NIE's X, Y, Z
/// stand for 0, 1, 2).
fn is_spanish_id(found: &str) -> bool {
    const LETTERS: &[u8] = b"TRWAGMYFPDXBNJZSQVHLCKE";
    let compact: Vec<u8> = found
        .bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_uppercase())
        .collect();
    let Some((&letter, body)) = compact.split_last() else {
        return false;
    };
    let mut number = 0u64;
    for (index, &b) in body.iter().enumerate() {
        let digit = match b {
            b'X' | b'Y' | b'Z' if index == 0 => u64::from(b - b'X'),
            b'0'..=b'9' => u64::from(b - b'0'),
            _ => return false,
        };
        number = number * 10 + digit;
    }
    LETTERS.get((number % 23) as usize) == Some(&letter)
}

/// npm dist-tags and similar words after `@` in package specs
/// (`typescript@latest`): not mail hosts.
const PACKAGE_TAGS: &[&str] = &[
    "latest",
    "next",
    "beta",
    "alpha",
    "canary",
    "rc",
    "stable",
    "dev",
    "lts",
    "nightly",
    "experimental",
    "insiders",
    "legacy",
    "edge",
];

/// An e-mail address unless the part after `@` is a version (`react@18.2.0`,
/// `vue@3`) or a package tag (`pkg@latest`).
fn is_email(text: &str) -> bool {
    let Some((_, host)) = text.rsplit_once('@') else {
        return false;
    };
    let version = host.chars().all(|c| c.is_ascii_digit() || c == '.');
    let tag = PACKAGE_TAGS
        .iter()
        .any(|tag| tag.eq_ignore_ascii_case(host));
    !host.is_empty() && !version && !tag
}

/// A dotted IPv4 form that inet_aton accepts and that is not a plain
/// version number: at least one hex part (`0x0a.0.0.1`, `0x7f.1`), or three
/// or more parts with an octal one (`012.0.0.1`). Every part must fit what
/// is left of the 32 bits.
fn is_ipv4_alt_form(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    let parse = |part: &str| -> Option<(u64, bool, bool)> {
        let lower = part.to_ascii_lowercase();
        if let Some(hex) = lower.strip_prefix("0x") {
            return Some((u64::from_str_radix(hex, 16).ok()?, true, false));
        }
        if part.len() > 1 && part.starts_with('0') {
            return Some((u64::from_str_radix(part, 8).ok()?, false, true));
        }
        Some((part.parse().ok()?, false, false))
    };
    let Some(values) = parts.iter().map(|p| parse(p)).collect::<Option<Vec<_>>>() else {
        return false;
    };
    let any_hex = values.iter().any(|v| v.1);
    let any_octal = values.iter().any(|v| v.2);
    // `127.1` and `127.0.1` are loopback as inet_aton reads them; other
    // two- and three-part decimals are version numbers (`10.1`, `3.12.1`).
    let loopback = parts.len() < 4 && parts[0] == "127";
    if !(any_hex || loopback || (any_octal && values.len() >= 3)) {
        return false;
    }
    let (last, head) = values.split_last().map_or((0, &[][..]), |(l, h)| (l.0, h));
    let last_bits = 8 * (5 - values.len()) as u32;
    head.iter().all(|v| v.0 <= 255) && last < (1u64 << last_bits)
}

/// Whether the digits of `text` pass the Luhn check (card numbers).
fn passes_luhn(text: &str) -> bool {
    let digits: Vec<u32> = text.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

fn trim_token(token: &str) -> &str {
    token.trim_matches(|c: char| matches!(c, '.' | ',' | ';' | '!' | '?' | '[' | ']' | '{' | '}'))
}

fn is_ipv6_token(token: &str) -> bool {
    let token = trim_token(token);
    if token.matches(':').count() < 2 {
        return false;
    }
    // Drop a port after `]:`, a zone after `%`, a prefix length after `/`.
    let core = token.split(['%', '/']).next().unwrap_or_default();
    let core = core
        .split("]:")
        .next()
        .unwrap_or_default()
        .trim_matches(['[', ']']);
    core.parse::<Ipv6Addr>().is_ok() && core.chars().any(|c| c.is_ascii_digit())
        || (core.contains("::") && core.parse::<Ipv6Addr>().is_ok())
}

fn is_ipv4_text(text: &str) -> bool {
    let core = text.split([':', '/']).next().unwrap_or_default();
    core.parse::<Ipv4Addr>().is_ok()
}

/// IBAN-like: country letters, check digits, and enough digits overall to
/// be an account number rather than a word.
fn is_iban_like(text: &str) -> bool {
    let compact: String = text.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    let digits = compact.chars().filter(char::is_ascii_digit).count();
    (15..=34).contains(&compact.len()) && digits >= 10
}

/// Long key-like strings: a segment (split on `-`, `_`, `.`) of 16+
/// characters mixing letters and digits with high entropy, or a long
/// base64/hex run.
fn is_key_like(token: &str) -> bool {
    let token = trim_token(token);
    if token.chars().count() < 16 {
        return false;
    }
    let charset_ok =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '-' | '_' | '.');
    if !token.chars().all(charset_ok) {
        return false;
    }
    let long_segment = token.split(['-', '_', '.', '/', '+', '=']).any(|segment| {
        segment.len() >= 16
            && segment.chars().any(|c| c.is_ascii_digit())
            && segment.chars().any(|c| c.is_ascii_alphabetic())
            && entropy(segment) >= 3.0
    });
    let long_blob = token.len() >= 32 && entropy(token) >= 4.0;
    long_segment || long_blob || ploy_secrets::token_shape(token).is_some()
}

/// Collapses white space and cuts to [`MAX_PHRASE_CHARS`] characters, at
/// the last space in the final 30 characters when there is one.
fn collapse_and_cut(text: &str) -> (String, bool) {
    let mut collapsed = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !collapsed.is_empty() {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
    }
    let Some((cut_at, _)) = collapsed.char_indices().nth(MAX_PHRASE_CHARS) else {
        return (collapsed, false);
    };
    let head = &collapsed[..cut_at];
    let min_keep = head
        .char_indices()
        .nth(MAX_PHRASE_CHARS - 30)
        .map_or(0, |(idx, _)| idx);
    let end = match head.rfind(' ') {
        Some(space) if space >= min_keep => space,
        _ => cut_at,
    };
    (collapsed[..end].trim_end().to_owned(), true)
}

/// Why a [`SearchPlan`] refused a phrase or a round (RESEARCH-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A fourth phrase in one round.
    #[error("RESEARCH-1: a round holds at most {MAX_PHRASES_PER_ROUND} phrases")]
    TooManyPhrases,
    /// A third round.
    #[error("RESEARCH-1: a research run has at most {MAX_ROUNDS} rounds")]
    TooManyRounds,
}

impl PlanError {
    /// The requirement ID.
    pub fn rule(self) -> &'static str {
        "RESEARCH-1"
    }
}

/// One round of at most [`MAX_PHRASES_PER_ROUND`] scrubbed phrases. The
/// storage is a fixed array: a fourth phrase has nowhere to go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchRound {
    phrases: [Option<SearchPhrase>; MAX_PHRASES_PER_ROUND],
}

impl SearchRound {
    /// An empty round.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a phrase; a fourth is refused.
    pub fn push(&mut self, phrase: SearchPhrase) -> Result<(), PlanError> {
        let slot = self
            .phrases
            .iter_mut()
            .find(|slot| slot.is_none())
            .ok_or(PlanError::TooManyPhrases)?;
        *slot = Some(phrase);
        Ok(())
    }

    /// The phrases, in the order added.
    pub fn phrases(&self) -> impl Iterator<Item = &SearchPhrase> {
        self.phrases.iter().flatten()
    }

    /// How many phrases the round holds.
    pub fn len(&self) -> usize {
        self.phrases().count()
    }

    /// Whether the round holds no phrase.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A research run: at most [`MAX_ROUNDS`] rounds, each of at most
/// [`MAX_PHRASES_PER_ROUND`] scrubbed phrases. A third round has nowhere to go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchPlan {
    rounds: [Option<SearchRound>; MAX_ROUNDS],
}

impl SearchPlan {
    /// An empty plan.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a round; a third is refused.
    pub fn push_round(&mut self, round: SearchRound) -> Result<(), PlanError> {
        let slot = self
            .rounds
            .iter_mut()
            .find(|slot| slot.is_none())
            .ok_or(PlanError::TooManyRounds)?;
        *slot = Some(round);
        Ok(())
    }

    /// The rounds, in order.
    pub fn rounds(&self) -> impl Iterator<Item = &SearchRound> {
        self.rounds.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: SCRUB-1
    #[test]
    fn rules_compile() {
        assert!(build_rules().is_ok());
    }

    // proves: SCRUB-2
    #[test]
    fn cut_prefers_a_word_boundary_and_never_splits_a_char() {
        let long = "wörd ".repeat(40);
        let (cut, was_cut) = collapse_and_cut(&long);
        assert!(was_cut);
        assert!(cut.chars().count() <= MAX_PHRASE_CHARS);
        assert!(cut.ends_with("wörd"));
        let one_word = "ß".repeat(300);
        let (cut, _) = collapse_and_cut(&one_word);
        assert_eq!(cut.chars().count(), MAX_PHRASE_CHARS);
    }

    // proves: SCRUB-1
    #[test]
    fn entropy_separates_keys_from_words() {
        assert!(is_key_like("a8Fj2kL9qZ0xW3vB7nM1"));
        assert!(!is_key_like("internationalization"));
        assert!(!is_key_like("x86_64-unknown-linux-gnu"));
        assert!(!is_key_like("ConcurrentModificationException"));
    }
}
