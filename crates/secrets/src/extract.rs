//! The values of a secret file (REDACT-1, BEYOND-6; secrets5 #10,
//! round6 #6), by [`SecretFileKind`], and the one parser of `name = value`
//! entries ([`entries`]) that environment files, credential files and the
//! package managers' configuration share.
//!
//! Each value comes with its 1-based line; values shorter than
//! [`MIN_SECRET_BYTES`] are left out (they cannot be redacted).
//!
//! # Entries
//!
//! [`entries`] reads the spellings of "a name and its value" that files
//! holding credentials use, one parser for all of them:
//! * shell and dotenv: `NAME=value`, `export NAME=value`, `declare -x`,
//!   `readonly`, csh's `setenv NAME value`, fish's `set -x NAME value`
//!   (`-gx`, `-Ux`, `--export`, ...);
//! * INI, TOML, HCL, Java properties: `name = value`, `name=value`;
//! * YAML and JSON lines: `name: value`, `"name": "value",`;
//! * PHP: `define('NAME', 'value');`, `$name = 'value';`;
//! * XML elements on one line: `<password>value</password>`.
//!
//! Values lose one pair of quotes; a quoted value left open continues on
//! the next lines up to its closing quote (a multi-line `.env` value,
//! round6 #6), as do YAML block scalars (`key: |`) and HCL heredocs
//! (`<<EOF`). An unquoted value ends before ` #` (a comment). Each entry
//! also names its enclosing key (a YAML parent, an INI section, an HCL
//! block), so `github-oauth: {github.com: TOKEN}` is a secret by its
//! parent's name.

use base64::Engine as _;

use std::path::Path;

use crate::config::config_credentials;
use crate::files::SecretFileKind;
use crate::redactor::MIN_SECRET_BYTES;

/// The longest multi-line value followed (lines): past it, the value ends
/// there (a quote never closed does not swallow the file).
const MAX_VALUE_LINES: usize = 256;

/// A private-key file without a PEM block (a Rails `master.key`, an age
/// key) gives its one-token lines when it has at most this many; a longer
/// text file of that name is not a key.
const MAX_BARE_KEY_LINES: usize = 64;

/// Keys that name what a credential is for, not the credential: under a
/// secret-named parent (`http-basic: {host: {username: …}}`) their values
/// are not taken.
const PUBLIC_KEYS: &[&str] = &[
    "username",
    "user",
    "login",
    "email",
    "mail",
    "url",
    "uri",
    "host",
    "hostname",
    "server",
    "endpoint",
    "region",
    "type",
    "kind",
    "name",
    "scopes",
    "scope",
    "expires",
    "expiry",
    "expires_at",
    "expires_on",
    "expiresat",
    "expireson",
    "token_type",
    "tokentype",
    "port",
    "protocol",
    "git_protocol",
    "path",
    "file",
    "comment",
    "description",
];

/// One `name = value` entry of a file (module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The name as written, without quotes (`//registry.example/:_authToken`,
    /// `spring.datasource.password`, `DB_PASSWORD`).
    pub(crate) key: String,
    /// The nearest enclosing key (YAML parent, INI section, HCL block).
    pub(crate) parent: Option<String>,
    /// The value without its quotes; the lines of a multi-line value joined
    /// by `\n`.
    pub(crate) value: String,
    /// The 1-based line of the name.
    pub(crate) line: usize,
}

impl Entry {
    /// The last part of the key after `:`, `/` or `.`
    /// (`//registry/:_authToken` → `_authToken`, `db.password` →
    /// `password`): the part that says what the value is.
    pub(crate) fn name(&self) -> &str {
        self.key.rsplit([':', '/', '.']).next().unwrap_or(&self.key)
    }
}

/// Whether a configuration key's `name` ([`Entry::name`]) holds a
/// credential: a secret-looking name ([`crate::is_secret_env_name`]), or
/// Bundler's per-host credential `BUNDLE_<HOST>__<TLD>`.
fn is_secret_key(name: &str) -> bool {
    crate::is_secret_env_name(name)
        || (name.to_ascii_uppercase().starts_with("BUNDLE_") && name.contains("__"))
}

/// Whether an entry of a credential file holds a secret: its own name is
/// secret-looking, or its parent's is and its own does not name a public
/// part (user, host, ...).
fn is_secret_entry(entry: &Entry) -> bool {
    if is_secret_key(entry.name()) {
        return true;
    }
    entry.parent.as_deref().is_some_and(|parent| {
        let parent = parent.rsplit([':', '/', '.']).next().unwrap_or(parent);
        is_secret_key(parent) && !is_public_key(entry.name())
    })
}

/// Whether a key names a public part of a credential ([`PUBLIC_KEYS`]),
/// also as the last `_`/`-` part of a longer name (`sso_region`,
/// `sso_start_url` under AWS's `[sso-session …]`, round8 #4).
fn is_public_key(name: &str) -> bool {
    let last = name.rsplit(['_', '-']).next().unwrap_or(name);
    PUBLIC_KEYS
        .iter()
        .any(|public| public.eq_ignore_ascii_case(name) || public.eq_ignore_ascii_case(last))
}

/// Every entry of `text` (module docs), in order.
pub(crate) fn entries(text: &str) -> Vec<Entry> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    // Enclosing keys: (indent, key); an INI section has indent -1 and a
    // HCL/JSON block counts its braces.
    let mut parents: Vec<(isize, String)> = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let raw = lines[index];
        let line_no = index + 1;
        index += 1;
        let trimmed = raw.trim().trim_start_matches('\u{feff}');
        if trimmed.is_empty() || is_comment(trimmed) {
            continue;
        }
        let indent = (raw.len() - raw.trim_start().len()) as isize;
        if trimmed.starts_with('[') && trimmed.ends_with(']') && !trimmed.contains('=') {
            // An INI/TOML section: the parent of what follows.
            let section = trimmed.trim_matches(['[', ']']).trim();
            let section = section.split_whitespace().next().unwrap_or(section);
            parents.clear();
            parents.push((-1, unquote(section).to_owned()));
            continue;
        }
        if trimmed.starts_with(['}', ']']) {
            parents.pop();
            continue;
        }
        while parents
            .last()
            .is_some_and(|(at, _)| *at >= 0 && *at >= indent)
        {
            parents.pop();
        }
        let Some((key, value)) = split_line(trimmed) else {
            // A block opened by a name (`credentials "app.terraform.io" {`),
            // or a bare `{` / `[` (a nameless parent, so closing pops even).
            if let Some(head) = trimmed.strip_suffix(['{', '[']) {
                let name = head.split_whitespace().next().unwrap_or("");
                parents.push((indent, unquote(name.trim_end_matches(':')).to_owned()));
            }
            continue;
        };
        let value = value.trim();
        if value.is_empty() || value == "{" || value == "[" {
            // A parent: YAML `key:`, JSON `"key": {`.
            parents.push((indent, key.to_owned()));
            continue;
        }
        let (value, used) = full_value(value, &lines[index..], indent);
        index += used;
        out.push(Entry {
            key: key.to_owned(),
            parent: parents
                .last()
                .map(|(_, key)| key.clone())
                .filter(|key| !key.is_empty()),
            value,
            line: line_no,
        });
    }
    out
}

/// `(key, value)` of one line on its own (quotes removed, a comment cut),
/// `None` when it is not an entry: for files whose every line is a secret
/// ([`crate::SecretSet::add_file_text`]).
pub(crate) fn line_entry(line: &str) -> Option<(&str, String)> {
    let (key, value) = split_line(line.trim())?;
    Some((key, full_value(value.trim(), &[], 0).0))
}

/// Whether a trimmed line is a comment (`#`, `;`, `//` followed by a
/// space or nothing: npm's `//registry/:_authToken=` is an entry, and so is
/// `#` inside a value).
fn is_comment(line: &str) -> bool {
    line.starts_with(['#', ';', '!'])
        || line == "//"
        || line.starts_with("// ")
        || line.starts_with("/*")
        || line.starts_with('*')
}

/// `(key, raw value)` of one trimmed line in any spelling of the module
/// docs, `None` when the line is not an entry.
pub(crate) fn split_line(line: &str) -> Option<(&str, &str)> {
    // PHP: define('NAME', 'value');
    if let Some(rest) = line
        .strip_prefix("define(")
        .or_else(|| line.strip_prefix("define ("))
    {
        let rest = rest.trim_end_matches(';').trim_end().strip_suffix(')')?;
        let (key, value) = rest.split_once(',')?;
        return Some((unquote(key.trim()), value.trim()));
    }
    // XML: <password>value</password>
    if let Some(rest) = line.strip_prefix('<') {
        let (tag, rest) = rest.split_once('>')?;
        let value = rest
            .strip_suffix('>')?
            .strip_suffix(tag)?
            .strip_suffix("</")?;
        return is_key(tag).then_some((tag, value));
    }
    // fish: set -x NAME value; csh: setenv NAME value.
    if let Some(rest) = line.strip_prefix("set ") {
        let mut rest = rest.trim_start();
        while rest.starts_with('-') {
            let (_, after) = rest.split_once(char::is_whitespace)?;
            rest = after.trim_start();
        }
        return words(rest);
    }
    if let Some(rest) = line.strip_prefix("setenv ") {
        return words(rest);
    }
    let mut line = line;
    for prefix in ["export ", "declare ", "typeset ", "readonly ", "local "] {
        if let Some(rest) = line.strip_prefix(prefix) {
            line = rest.trim_start();
            // `declare -x NAME=…`: its flags.
            while line.starts_with('-') {
                line = line.split_once(char::is_whitespace)?.1.trim_start();
            }
            break;
        }
    }
    let line = line.strip_prefix('$').unwrap_or(line);
    // The first separator: `=`, `: ` (YAML), `":` (JSON), or a `:` ending
    // the line (a YAML parent). `//registry/:_authToken=…` holds a `:` in
    // its key, so a `:` counts only before white space, a quote or the end.
    let eq = line.find('=');
    let colon = line
        .find(": ")
        .or_else(|| line.find(":\t"))
        .or_else(|| line.find("\":").map(|at| at + 1))
        .or_else(|| line.find("':").map(|at| at + 1))
        .or_else(|| line.ends_with(':').then(|| line.len() - 1));
    let (key, value) = match (eq, colon) {
        (Some(eq), Some(colon)) if colon < eq => (&line[..colon], &line[colon + 1..]),
        (Some(eq), _) => (&line[..eq], &line[eq + 1..]),
        (None, Some(colon)) => (&line[..colon], &line[colon + 1..]),
        (None, None) => return None,
    };
    // `KEY==` is base64 padding, not an entry.
    if value.starts_with('=') {
        return None;
    }
    let key = unquote(key.trim().trim_start_matches("- "));
    is_key(key).then_some((key, value))
}

/// `NAME value` after fish's `set -x` or csh's `setenv`.
fn words(rest: &str) -> Option<(&str, &str)> {
    let rest = rest.trim_start();
    let (name, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    is_key(name).then_some((name, value.trim()))
}

/// Whether `key` can be a name: not empty, no white space, not starting
/// with a digit, and no character that only code or prose would hold.
fn is_key(key: &str) -> bool {
    !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/' | '@' | '~' | '+')
        })
}

/// `text` without one pair of surrounding quotes.
fn unquote(text: &str) -> &str {
    for quote in ['"', '\'', '`'] {
        if let Some(inner) = text
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    text
}

/// The whole value that starts as `first` on an entry's line, and how many
/// of the `following` lines it takes: a quoted value up to its closing
/// quote, a YAML block scalar (`|`, `>`) over its indented lines, a HCL
/// heredoc (`<<EOF`) up to its tag; else `first` up to a ` #` comment,
/// without a trailing `,` or `;` (JSON, PHP).
fn full_value(first: &str, following: &[&str], indent: isize) -> (String, usize) {
    let limit = following.len().min(MAX_VALUE_LINES);
    if let Some(quote) = first
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'))
    {
        let body = &first[1..];
        if let Some(end) = closing(body, quote) {
            return (body[..end].to_owned(), 0);
        }
        let mut value = body.to_owned();
        for (taken, line) in following[..limit].iter().enumerate() {
            value.push('\n');
            if let Some(end) = closing(line, quote) {
                value.push_str(&line[..end]);
                return (value, taken + 1);
            }
            value.push_str(line);
        }
        return (value, limit);
    }
    if matches!(first, "|" | "|-" | "|+" | ">" | ">-" | ">+") {
        let mut lines = Vec::new();
        for line in &following[..limit] {
            let deeper = (line.len() - line.trim_start().len()) as isize > indent;
            if !line.trim().is_empty() && !deeper {
                break;
            }
            lines.push(line.trim());
        }
        while lines.last().is_some_and(|line| line.is_empty()) {
            lines.pop();
        }
        let taken = lines.len();
        return (lines.join("\n"), taken);
    }
    if let Some(tag) = first.strip_prefix("<<") {
        let tag = tag.trim_start_matches(['-', '~']).trim_matches(['"', '\'']);
        if is_key(tag) {
            let mut lines = Vec::new();
            for line in &following[..limit] {
                if line.trim() == tag {
                    break;
                }
                lines.push(line.trim());
            }
            let taken = (lines.len() + 1).min(limit);
            return (lines.join("\n"), taken);
        }
    }
    let value = match first.find(" #") {
        Some(at) => &first[..at],
        None => first,
    };
    let value = value.trim().trim_end_matches([',', ';']).trim_end();
    (unquote(value).to_owned(), 0)
}

/// Where `quote` closes in `text` (a `\` escapes the next character inside
/// double quotes and backticks).
fn closing(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' && quote != '\'' {
            escaped = true;
        } else if c == quote {
            return Some(at);
        }
    }
    None
}

/// The values of `text`, a secret file of `kind`, each with its line.
/// `path_exists` answers whether a path exists (an environment file's
/// `PWD`-like names, [`crate::env_secret_reason`]).
pub(crate) fn file_values(
    text: &str,
    kind: SecretFileKind,
    path_exists: &dyn Fn(&Path) -> bool,
) -> Vec<(String, usize)> {
    let mut found = Values::default();
    match kind {
        SecretFileKind::Env => {
            found.extend(config_credentials(text));
            env_values(text, path_exists, &mut found);
        }
        SecretFileKind::Urls => found.extend(config_credentials(text)),
        SecretFileKind::Package | SecretFileKind::KeyValue => {
            found.extend(config_credentials(text));
            keyed_values(text, &mut found);
            json_values(text, &mut found);
        }
        SecretFileKind::Netrc => netrc_values(text, &mut found),
        SecretFileKind::Pgpass => pgpass_values(text, &mut found),
        SecretFileKind::Token => {
            if let Some((index, line)) = text
                .lines()
                .enumerate()
                .find(|(_, line)| !line.trim().is_empty())
            {
                found.add(line.trim(), index + 1);
            }
        }
        SecretFileKind::PrivateKey => bare_key_lines(text, &mut found),
        SecretFileKind::UserHash => user_hash_values(text, &mut found),
    }
    // A private key can sit in any of them (a kubeconfig's inline key, a
    // `.env` value, a key file).
    private_key_lines(text, 0, &mut found);
    found.0
}

/// An environment file's secrets: the file is the environment a program of
/// the project gets, so each entry is judged by the environment's own rule
/// ([`crate::env_secret_reason`]: a secret-looking name, or a value shaped
/// like a credential), with what its value carries ([`Values::add_secret`]:
/// the lines of a multi-line value, ...). A line that is no entry (shell
/// code in `.envrc`) counts when it is credential-shaped on its own. So
/// `NODE_ENV=production` is not redacted from every output, while
/// `DB_PASSWORD=…` is.
fn env_values(text: &str, path_exists: &dyn Fn(&Path) -> bool, found: &mut Values) {
    for entry in entries(text) {
        let value = entry.value.trim();
        if !value.is_empty() && crate::env_secret_reason(&entry.key, value, path_exists).is_some() {
            found.add_secret(&entry.key, value, entry.line);
        }
        // Credentials inside a value under an ordinary name
        // (`JAVA_TOOL_OPTIONS=-Dpassword=…`, round7 #8), as the process
        // environment's ([`crate::SecretSet::from_env`]).
        embedded(value, entry.line, found);
    }
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if !line.is_empty()
            && !is_comment(line)
            && split_line(line).is_none()
            && crate::secret_shape(line).is_some()
        {
            found.add(line, index + 1);
        }
    }
}

/// Values found so far, without repeats or values too short to redact.
#[derive(Default)]
struct Values(Vec<(String, usize)>);

impl Values {
    fn add(&mut self, value: &str, line: usize) {
        let value = value.trim();
        // A whole key block (a JSON string's escaped form) is taken line
        // by line instead (`private_key_lines`).
        if value.contains("-----BEGIN") {
            return;
        }
        if value.len() >= MIN_SECRET_BYTES && !self.0.iter().any(|(known, _)| known == value) {
            self.0.push((value.to_owned(), line));
        }
    }

    fn extend(&mut self, values: Vec<(String, usize)>) {
        for (value, line) in values {
            self.add(&value, line);
        }
    }

    /// A value known to be secret, with what it carries: each of its lines
    /// (a multi-line value), the `\n` escapes a dotenv reader expands, the
    /// passwords of URLs and connection strings in it, and a base64 form's
    /// decoded password (npm's `_password`, `_auth`, docker's `auth`).
    fn add_secret(&mut self, name: &str, value: &str, line: usize) {
        self.add(value, line);
        if value.contains('\n') || value.contains("\\n") {
            let expanded = value.replace("\\n", "\n");
            for (offset, part) in expanded.lines().enumerate() {
                let at = if value.contains('\n') {
                    line + offset
                } else {
                    line
                };
                self.add(part, at);
            }
        }
        for password in crate::shape::embedded_passwords(value) {
            self.add(password, line);
        }
        // A JSON object held as one value (rclone's `token = {"access_token":
        // …}`, round8 #12): its credentials on their own too.
        if value.trim_start().starts_with('{') {
            let before = self.0.len();
            json_values(value, self);
            for (_, at) in &mut self.0[before..] {
                *at = line;
            }
        }
        let name = name.to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "_password" | "_auth" | "auth" | "npmauthident"
        ) && let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(value.trim())
            && let Ok(decoded) = String::from_utf8(bytes)
        {
            match decoded.split_once(':') {
                Some((_, password)) if name != "_password" => self.add(password, line),
                _ => self.add(&decoded, line),
            }
        }
    }
}

/// The values of the entries of `text` ([`entries`]) whose name (or
/// parent's name) is secret-looking, or that are credential-shaped, with
/// what each carries ([`Values::add_secret`]); and the passwords inside any
/// other value (a connection string under a plain name).
fn keyed_values(text: &str, found: &mut Values) {
    for entry in entries(text) {
        keyed_value(&entry, found);
    }
}

/// One entry judged as [`keyed_values`] judges each.
fn keyed_value(entry: &Entry, found: &mut Values) {
    if is_secret_entry(entry) || crate::secret_shape(&entry.value).is_some() {
        found.add_secret(entry.name(), &entry.value, entry.line);
    } else {
        for password in crate::shape::embedded_passwords(&entry.value) {
            found.add(password, entry.line);
        }
    }
}

/// The credentials inside one environment value held under an ordinary
/// name (round7 #8): the value read as a credential file's entries, by the
/// same parser ([`split_line`], [`keyed_value`], [`json_values`]):
/// * a JSON object or array (`SPRING_APPLICATION_JSON={"spring":
///   {"datasource": {"password": …}}}`, `APP_CONFIG={"db_password": …}`):
///   its credential-named keys, as in a JSON credential file;
/// * command-line words (`JAVA_TOOL_OPTIONS`, `MAVEN_OPTS`, `DEPLOY_ARGS`):
///   `-Dname=value`, `--name=value`, `--name value`, `name=value`, each an
///   entry `name=value`;
/// * `name=value;name=value` lists (connection strings, `k=v;` settings):
///   each part an entry.
///
/// An entry counts when its name is credential-named (the last part after
/// `.`, `:` or `/`: `javax.net.ssl.keyStorePassword`), its value is
/// credential-shaped, or its value holds a URL's or connection string's
/// password; any word of the value that is credential-shaped on its own
/// counts too. Values shorter than [`MIN_SECRET_BYTES`] are left out.
pub(crate) fn embedded_values(value: &str) -> Vec<String> {
    let mut found = Values::default();
    embedded(value, 0, &mut found);
    found.0.into_iter().map(|(value, _)| value).collect()
}

/// [`embedded_values`] into `found`, each at `line`.
fn embedded(value: &str, line: usize, found: &mut Values) {
    let value = unquote(value.trim());
    if value.starts_with(['{', '[']) {
        let before = found.0.len();
        json_values(value, found);
        // JSON values of a one-line text are all on its line.
        for (_, at) in &mut found.0[before..] {
            *at = line;
        }
    }
    let words = shell_words(value);
    let mut words = words.iter().peekable();
    let judge = |text: &str, found: &mut Values| {
        if let Some((key, value)) = line_entry(text) {
            let entry = Entry {
                key: key.to_owned(),
                parent: None,
                value,
                line,
            };
            keyed_value(&entry, found);
        } else if crate::secret_shape(text).is_some() {
            found.add(text, line);
        }
    };
    while let Some(word) = words.next() {
        if let Some(flag) = word.strip_prefix("--").filter(|flag| !flag.contains('=')) {
            // `--name value`: the next word is the flag's value unless it
            // is an option itself.
            if let Some(next) = words.next_if(|next| !next.starts_with('-')) {
                judge(&format!("{flag}={next}"), found);
                continue;
            }
        }
        for part in word.split(';') {
            let part = part.trim();
            let part = part
                .strip_prefix("-D")
                .or_else(|| part.strip_prefix("--"))
                .unwrap_or(part);
            if !part.is_empty() {
                judge(part, found);
            }
        }
    }
}

/// `text` split into words at unquoted white space, one level of single
/// or double quotes removed (a backslash escapes the next character outside
/// single quotes), as a shell splits an options variable.
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some('"') | None, '\\') => {
                if let Some(next) = chars.next() {
                    word.get_or_insert_default().push(next);
                }
            }
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (_, c) => word.get_or_insert_default().push(c),
        }
    }
    words.extend(word);
    words
}

/// The body lines of every PEM `PRIVATE KEY` block in `text` (headers such
/// as `Proc-Type:` are not secret). `first_line` is added to line numbers
/// (for a key inside a JSON string).
fn private_key_lines(text: &str, first_line: usize, found: &mut Values) {
    let mut inside = false;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with("-----BEGIN") && line.contains("PRIVATE KEY") {
            inside = true;
        } else if line.starts_with("-----END") {
            inside = false;
        } else if inside && !line.contains(':') {
            found.add(line, first_line + index + 1);
        }
    }
}

/// A key file's own lines when it has no PEM block (round6 #6): PuTTY's
/// `Private-Lines: N` and the N lines after it (`*.ppk`); else, for a short
/// text file (a Rails `master.key`, an age key), every line that is one
/// token. A certificate (`-----BEGIN CERTIFICATE`) or a binary key store
/// gives nothing here (a store's bytes are not text a model could print
/// as they are).
fn bare_key_lines(text: &str, found: &mut Values) {
    if text.contains("-----BEGIN") || text.contains('\0') || text.contains('\u{fffd}') {
        return;
    }
    let lines: Vec<&str> = text.lines().collect();
    if lines
        .iter()
        .any(|line| line.starts_with("PuTTY-User-Key-File-"))
    {
        for (index, line) in lines.iter().enumerate() {
            let Some(count) = line.trim().strip_prefix("Private-Lines:") else {
                continue;
            };
            let count = count.trim().parse::<usize>().unwrap_or(0);
            for (offset, private) in lines.iter().skip(index + 1).take(count).enumerate() {
                found.add(private, index + offset + 2);
            }
        }
        return;
    }
    let tokens: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .map(|(index, line)| (index + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .collect();
    if tokens.len() > MAX_BARE_KEY_LINES {
        return;
    }
    for (line_no, line) in tokens {
        if !line.contains(char::is_whitespace) {
            found.add(line, line_no);
        }
    }
}

/// A JSON file's secrets: string values under a secret-looking key (or a
/// secret-looking parent key, for `{"github-oauth": {"github.com": …}}`,
/// unless the key names a public part), credential-shaped strings, the
/// passwords inside connection strings, every string of an object marked
/// `"sensitive": true` (Terraform outputs) and the attributes Terraform
/// state lists in `sensitive_attributes`, the password of a base64
/// `user:password` under an `auth` key (`.docker/config.json`), and
/// private keys inside strings (service-account files). Text that is not
/// JSON gives nothing here.
fn json_values(text: &str, found: &mut Values) {
    if !text.trim_start().starts_with(['{', '[']) {
        return;
    }
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    let line_of = |needle: &str| {
        text.find(needle)
            .map_or(1, |at| text[..at].matches('\n').count() + 1)
    };
    // (key, parent key, value, inside something marked sensitive)
    let mut pending = vec![(String::new(), String::new(), &value, false)];
    while let Some((key, parent, value, sensitive)) = pending.pop() {
        match value {
            serde_json::Value::Object(map) => {
                let marked = map.get("sensitive") == Some(&serde_json::Value::Bool(true));
                let listed = sensitive_attributes(map);
                for (name, inner) in map {
                    let inner_sensitive = sensitive || (marked && name == "value");
                    if name == "attributes"
                        && !listed.is_empty()
                        && let serde_json::Value::Object(attributes) = inner
                    {
                        pending.extend(attributes.iter().map(|(k, v)| {
                            (
                                k.clone(),
                                name.clone(),
                                v,
                                inner_sensitive || listed.contains(k),
                            )
                        }));
                        continue;
                    }
                    pending.push((name.clone(), key.clone(), inner, inner_sensitive));
                }
            }
            serde_json::Value::Array(items) => {
                pending.extend(
                    items
                        .iter()
                        .map(|v| (key.clone(), parent.clone(), v, sensitive)),
                );
            }
            serde_json::Value::String(text_value) => {
                let line = line_of(&format!("\"{key}\""));
                let entry = Entry {
                    key: key.clone(),
                    parent: (!parent.is_empty()).then(|| parent.clone()),
                    value: text_value.clone(),
                    line,
                };
                if sensitive || is_secret_entry(&entry) || crate::secret_shape(text_value).is_some()
                {
                    if text_value.contains("-----BEGIN") {
                        private_key_lines(text_value, line - 1, found);
                    } else {
                        found.add_secret(&key, text_value, line);
                    }
                } else {
                    for password in crate::shape::embedded_passwords(text_value) {
                        found.add(password, line);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The attribute names a Terraform state resource instance lists as
/// sensitive (`"sensitive_attributes": [[{"type": "get_attr", "value":
/// "password"}]]`, or one level less nested): the first step of each path.
fn sensitive_attributes(map: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    let Some(serde_json::Value::Array(paths)) = map.get("sensitive_attributes") else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for path in paths {
        let first = match path {
            serde_json::Value::Array(steps) => steps.first(),
            step => Some(step),
        };
        if let Some(serde_json::Value::Object(step)) = first
            && step.get("type").and_then(serde_json::Value::as_str) == Some("get_attr")
            && let Some(name) = step.get("value").and_then(serde_json::Value::as_str)
        {
            names.push(name.to_owned());
        }
    }
    names
}

/// `.htpasswd`: the hash after the first `:` of each `user:hash` line
/// (round8 #12).
fn user_hash_values(text: &str, found: &mut Values) {
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        if let Some((_, hash)) = line.split_once(':') {
            found.add(hash, index + 1);
        }
    }
}

/// The credentials of a project configuration file
/// ([`crate::CREDENTIAL_CONFIG_FILES`]: Spring, Rails, Docker Compose;
/// round8 #12), each with its line: the value of every entry
/// ([`entries`]: `key = value`, `key: value`, `- NAME=value`) whose own
/// name is secret-looking by the one name rule for keys
/// ([`crate::is_secret_key_name`]: `spring.datasource.password`,
/// `POSTGRES_PASSWORD`, `jwt.secret`, `api-token`), unless the value only
/// refers to one kept elsewhere (`${DB_PASSWORD}`, `<%= ENV[…] %>`,
/// `{{ .Values.pw }}`); the passwords of URLs and connection strings in any
/// value; and the provider tokens and JWTs anywhere in the file
/// (`config.rs`). A parent's name does not make its children secret here
/// (a Compose service named `auth` holds an image name and ports).
pub(crate) fn config_file_values(text: &str) -> Vec<(String, usize)> {
    let mut found = Values::default();
    found.extend(config_credentials(text));
    for entry in entries(text) {
        let value = entry.value.trim();
        if crate::is_secret_key_name(entry.name()) {
            // A reference's default value (`${DB_PASSWORD:-hunter2…}`,
            // Spring's `${DB_PASSWORD:hunter2…}`) is the secret itself.
            match reference_default(value) {
                Some(default) => found.add_secret(entry.name(), default, entry.line),
                None => found.add_secret(entry.name(), value, entry.line),
            }
        } else {
            for password in crate::shape::embedded_passwords(value) {
                found.add(password, entry.line);
            }
        }
    }
    found.0
}

/// When a configuration value only names where the secret is kept — a
/// variable (`${DB_PASSWORD}`, `$DB_PASSWORD`), an ERB or template
/// expression (`<%= ENV["DB_PASSWORD"] %>`, `{{ .Values.pw }}`) — the
/// default it gives (`${DB_PASSWORD:-fallback}`, Spring's
/// `${DB_PASSWORD:fallback}`; empty when none); `None` for a value.
fn reference_default(value: &str) -> Option<&str> {
    let value = unquote(value.trim());
    let variable = |name: &str| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if let Some(inner) = value
        .strip_prefix("${")
        .and_then(|inner| inner.strip_suffix('}'))
        .filter(|inner| !inner.contains("${"))
    {
        return Some(match inner.split_once(':') {
            Some((_, default)) => default.trim_start_matches(['-', '=']),
            None => inner.split_once('-').map_or("", |(_, default)| default),
        });
    }
    let template = (value.starts_with("<%") && value.ends_with("%>"))
        || (value.starts_with("{{") && value.ends_with("}}"))
        || value.strip_prefix('$').is_some_and(variable);
    template.then_some("")
}

/// `.netrc`: the token after each `password` or `account` keyword (the
/// file is a stream of white-space separated tokens; lines do not matter).
fn netrc_values(text: &str, found: &mut Values) {
    let mut take_next = false;
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        for token in line.split_whitespace() {
            if take_next {
                found.add(token.trim_matches('"'), index + 1);
                take_next = false;
            } else {
                take_next = matches!(token, "password" | "account");
            }
        }
    }
}

/// `.pgpass`: the fifth `:`-separated field of each line (`\:` and `\\`
/// are escapes).
fn pgpass_values(text: &str, found: &mut Values) {
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let mut fields = vec![String::new()];
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(next) = chars.next()
                        && let Some(field) = fields.last_mut()
                    {
                        field.push(next);
                    }
                }
                ':' if fields.len() < 5 => fields.push(String::new()),
                c => {
                    if let Some(field) = fields.last_mut() {
                        field.push(c);
                    }
                }
            }
        }
        if fields.len() == 5 {
            found.add(&fields[4], index + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str, kind: SecretFileKind) -> Vec<String> {
        file_values(text, kind, &|_| false)
            .into_iter()
            .map(|(value, _)| value)
            .collect()
    }

    // proves: REDACT-1, BEYOND-6 (round7 #8: credentials inside options
    // lists and JSON under ordinary names are read by the one entry parser;
    // what is not credential-named stays)
    #[test]
    fn credentials_inside_environment_values_are_found() {
        let key = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
        for (value, secret) in [
            (
                r#"{"spring":{"datasource":{"url":"jdbc:h2:mem","password":"Sp1ngDbPassw0rd"}}}"#,
                "Sp1ngDbPassw0rd",
            ),
            (
                "-Djavax.net.ssl.keyStorePassword=K3yst0rePassw0rd -Xmx1g",
                "K3yst0rePassw0rd",
            ),
            ("-Xms512m -Dpassword=MavenPassw0rd9 -B", "MavenPassw0rd9"),
            (r#"'{"db_password": "AppCfgPassw0rd7"}'"#, "AppCfgPassw0rd7"),
            (
                "--region eu --api-token D3pl0yT0kenValue",
                "D3pl0yT0kenValue",
            ),
            ("--api-token=D3pl0yT0kenValue --dry-run", "D3pl0yT0kenValue"),
            (
                "--client-secret 'quoted secret value'",
                "quoted secret value",
            ),
            ("user=app;secret_key=S3mic0lonSecret;x=1", "S3mic0lonSecret"),
            (&format!("-H Authorization: {key}"), key),
        ] {
            let found = embedded_values(value);
            assert!(found.iter().any(|f| f == secret), "{value}: {found:?}");
        }
        for value in [
            "-Xmx1g -Dfile.encoding=UTF-8 -Dspring.profiles.active=production",
            "--region eu-west-1 --output json --profile default",
            "/usr/local/bin:/usr/bin:/bin",
            "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35",
            r#"{"spring":{"datasource":{"url":"jdbc:h2:mem","username":"sa"}}}"#,
            "--token-ttl 3600 --verbose --password-length 32",
        ] {
            let found = embedded_values(value);
            assert!(found.is_empty(), "{value}: {found:?}");
        }
        // An environment file's ordinary names are read the same way.
        let env = "JAVA_TOOL_OPTIONS=\"-Xmx1g -Dtrust.keyStorePassword=EnvF1lePassw0rd\"\nNODE_ENV=production\n";
        assert_eq!(values(env, SecretFileKind::Env), vec!["EnvF1lePassw0rd"]);
    }

    // proves: REDACT-1 (secrets5 #10: credential files' values)
    #[test]
    fn credential_files_give_their_secrets() {
        let aws = "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n\
                   aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = eu-west-1\n";
        let found = values(aws, SecretFileKind::KeyValue);
        assert!(found.contains(&"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()));
        assert!(found.contains(&"AKIAIOSFODNN7EXAMPLE".into()));
        assert!(!found.iter().any(|v| v.contains("eu-west")), "{found:?}");

        let netrc = "machine db.internal login alice password Plain.Passw0rd-Netrc77\n\
                     machine b\n  login bob\n  password \"Second-Netrc-Pw1\"\n";
        assert_eq!(
            values(netrc, SecretFileKind::Netrc),
            ["Plain.Passw0rd-Netrc77", "Second-Netrc-Pw1"]
        );

        let pgpass = "# host:port:db:user:password\ndb.internal:5432:app:alice:PgpassPlainPw2024x\n\
                      *:*:*:bob:with\\:colon-pw99\n";
        assert_eq!(
            values(pgpass, SecretFileKind::Pgpass),
            ["PgpassPlainPw2024x", "with:colon-pw99"]
        );

        // docker: base64 user:password under `auth`, and the token fields.
        let docker = r#"{"auths":{"registry.example":{"auth":"Ym9iOkRvY2tlclJlZ1Bhc3N3MHJk"}},"credsStore":"desktop"}"#;
        let found = values(docker, SecretFileKind::KeyValue);
        assert!(found.contains(&"DockerRegPassw0rd".into()), "{found:?}");
        assert!(found.contains(&"Ym9iOkRvY2tlclJlZ1Bhc3N3MHJk".into()));
        assert!(!found.contains(&"desktop".into()));

        let git = "https://alice:Plain.Passw0rd-Git77@git.corp.example\n";
        assert_eq!(values(git, SecretFileKind::Urls), ["Plain.Passw0rd-Git77"]);

        let kube = "users:\n- name: admin\n  user:\n    token: kubeTok3nValue-0123456789\n    \
                    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=\n";
        let found = values(kube, SecretFileKind::KeyValue);
        assert!(
            found.contains(&"kubeTok3nValue-0123456789".into()),
            "{found:?}"
        );
        assert!(found.contains(&"LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=".into()));

        assert_eq!(
            values("\nhvs.CAESIJ1vaultTokenValue\n", SecretFileKind::Token),
            ["hvs.CAESIJ1vaultTokenValue"]
        );
    }

    // proves: REDACT-1 (secrets5 #10: private key blocks, also inside JSON)
    #[test]
    fn private_key_bodies_are_secret_lines() {
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\n\
                   b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n\
                   QyNTUxOQAAACDxQ2cKzO0abcdefghijklmnopqrstuvwxyzABCDEFGHIJKL==\n\
                   -----END OPENSSH PRIVATE KEY-----\n";
        let found = values(key, SecretFileKind::PrivateKey);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("b3BlbnNzaC1rZXkt"));
        let public = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@b\n";
        assert!(values(public, SecretFileKind::PrivateKey).is_empty());
        let account = serde_json::json!({
            "type": "service_account",
            "private_key_id": "0123456789abcdef0123456789abcdef01234567",
            "private_key": key,
            "client_email": "x@y.iam.gserviceaccount.com",
        })
        .to_string();
        let found = values(&account, SecretFileKind::KeyValue);
        assert!(
            found.iter().any(|v| v.starts_with("b3BlbnNzaC1rZXkt")),
            "{found:?}"
        );
        assert!(found.contains(&"0123456789abcdef0123456789abcdef01234567".into()));
        assert!(!found.iter().any(|v| v.contains("gserviceaccount")));
    }

    // proves: REDACT-1 (package managers' tokens by key name; the decoded
    // npm `_password`, round6 #6)
    #[test]
    fn package_manager_tokens_are_found() {
        let npmrc = "registry=https://registry.npmjs.org/\n\
            //registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz012345\n\
            //npm.internal.example/:_password=\"c2VjcmV0cGFzcw==\"\n\
            save-exact=true\n";
        let found = values(npmrc, SecretFileKind::Package);
        for expected in [
            "npm_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
            "c2VjcmV0cGFzcw==",
            "secretpass",
        ] {
            assert!(
                found.contains(&expected.to_owned()),
                "{expected}: {found:?}"
            );
        }
        assert!(
            !found.iter().any(|v| v.contains("registry.npmjs")),
            "{found:?}"
        );
        let yarnrc =
            "npmRegistryServer: \"https://npm.example\"\nnpmAuthToken: \"Zm9vYmFyYmF6cXV4\"\n";
        assert_eq!(
            values(yarnrc, SecretFileKind::Package),
            ["Zm9vYmFyYmF6cXV4"]
        );
        let pypirc = "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmcCJGE4\n";
        assert_eq!(
            values(pypirc, SecretFileKind::Package),
            ["pypi-AgEIcHlwaS5vcmcCJGE4"]
        );
        let bundle = "---\nBUNDLE_WITHOUT: \"development:test\"\n\
                      BUNDLE_GITHUB__COM: \"x-access-token:ghs_BundleTok3nValue0123456789abcd\"\n\
                      BUNDLE_GEMS__CONTRIBSYS__COM: \"user1:SidekiqProPassw0rd\"\n";
        let found = values(bundle, SecretFileKind::Package);
        for expected in [
            "x-access-token:ghs_BundleTok3nValue0123456789abcd",
            "user1:SidekiqProPassw0rd",
        ] {
            assert!(
                found.contains(&expected.to_owned()),
                "{expected}: {found:?}"
            );
        }
        assert!(
            !found.iter().any(|v| v.contains("development")),
            "{found:?}"
        );
    }

    // proves: REDACT-1 (round6 #6: every spelling of a name and its value)
    #[test]
    fn one_parser_reads_every_spelling_of_an_entry() {
        let pairs = |text: &str| -> Vec<(String, Option<String>, String)> {
            entries(text)
                .into_iter()
                .map(|e| (e.key, e.parent, e.value))
                .collect()
        };
        let one = |key: &str, value: &str| (key.to_owned(), None, value.to_owned());
        assert_eq!(
            pairs(
                "A_TOKEN=plain\nexport B_TOKEN=\"quoted\" # note\nset -gx C_TOKEN fishvalue\n\
                 set -x D_TOKEN 'fish quoted'\nsetenv E_TOKEN cshvalue\ndeclare -x F_TOKEN=decl\n\
                 G_TOKEN=unquoted # comment\n"
            ),
            [
                one("A_TOKEN", "plain"),
                one("B_TOKEN", "quoted"),
                one("C_TOKEN", "fishvalue"),
                one("D_TOKEN", "fish quoted"),
                one("E_TOKEN", "cshvalue"),
                one("F_TOKEN", "decl"),
                one("G_TOKEN", "unquoted"),
            ]
        );
        // A quoted value over several lines, YAML block, HCL heredoc.
        assert_eq!(
            pairs("MULTI=\"line one\nMultiLineSecondPart\"\nNEXT=x\n"),
            [
                one("MULTI", "line one\nMultiLineSecondPart"),
                one("NEXT", "x")
            ]
        );
        assert_eq!(
            pairs("key: |\n  first-line\n  second-line\nother: y\n"),
            [one("key", "first-line\nsecond-line"), one("other", "y")]
        );
        assert_eq!(
            pairs("token = <<EOT\nheredoc-value\nEOT\nx = 1\n"),
            [one("token", "heredoc-value"), one("x", "1")]
        );
        // PHP, XML, JSON lines, INI sections and YAML/HCL parents.
        assert_eq!(
            pairs("define( 'DB_PASSWORD', 'wp-pass-1234' );\n$db_pass = \"php-var-5678\";\n"),
            [
                one("DB_PASSWORD", "wp-pass-1234"),
                one("db_pass", "php-var-5678")
            ]
        );
        assert_eq!(
            pairs("<server>\n  <password>mvn-pass-9999</password>\n</server>\n"),
            [one("password", "mvn-pass-9999")]
        );
        let parented = pairs(
            "[default]\nsecret_key = s3cfg-secret-1\ngithub.com:\n    oauth_token: gho_x\n\
             credentials \"app.terraform.io\" {\n  token = \"tf-token-2\"\n}\n\
             {\n  \"github-oauth\": {\n    \"github.com\": \"composer-tok-3\"\n  },\n  \"x\": \"y\"\n}\n",
        );
        let parent_of = |key: &str| {
            parented
                .iter()
                .find(|(k, _, _)| k == key)
                .and_then(|(_, p, _)| p.clone())
        };
        assert_eq!(parent_of("secret_key").as_deref(), Some("default"));
        assert_eq!(parent_of("oauth_token").as_deref(), Some("github.com"));
        assert_eq!(parent_of("token").as_deref(), Some("credentials"));
        assert_eq!(parent_of("github.com").as_deref(), Some("github-oauth"));
        assert_eq!(parent_of("x"), None);
        // Not entries: base64 padding, code, prose.
        assert!(pairs("c2VjcmV0==\nif [ -f x ]; then\nsome words here\n").is_empty());
    }

    // proves: REDACT-1, BEYOND-6 (round6 #6: credential files outside the old
    // name rule give their values)
    #[test]
    fn round6_credential_files_give_their_values() {
        let kv = |text: &str| values(text, SecretFileKind::KeyValue);
        let has = |found: &[String], value: &str| found.iter().any(|v| v == value);
        let found = kv(
            "[default]\naccess_key = AKIAIOSFODNN7EXAMPLE\nsecret_key = S3cfgSecretKeyValue42\nhost_base = s3.amazonaws.com\n",
        );
        assert!(has(&found, "S3cfgSecretKeyValue42"), "{found:?}");
        assert!(!has(&found, "s3.amazonaws.com"), "{found:?}");
        let found = kv(
            "github.com:\n    oauth_token: gho_16C7e42F292c6912E7710c838347Ae178B4a\n    user: alice-example\n    git_protocol: https\n",
        );
        assert!(has(&found, "gho_16C7e42F292c6912E7710c838347Ae178B4a"));
        assert!(!has(&found, "alice-example"), "{found:?}");
        let found = kv(r#"{"github-oauth": {"github.com": "ComposerOauthTok3n99"},
            "http-basic": {"repo.example.org": {"username": "composer-user", "password": "ComposerBasicPw77"}}}"#);
        assert!(has(&found, "ComposerOauthTok3n99"), "{found:?}");
        assert!(has(&found, "ComposerBasicPw77"), "{found:?}");
        assert!(!has(&found, "composer-user"), "{found:?}");
        let found = kv(
            "credentials \"app.terraform.io\" {\n  token = \"TerraformRcTok3n.atlasv1.abc\"\n}\n",
        );
        assert!(has(&found, "TerraformRcTok3n.atlasv1.abc"), "{found:?}");
        let state = serde_json::json!({
            "version": 4,
            "outputs": {
                "db_password": {"value": "TfOutputPassw0rd", "type": "string", "sensitive": true},
                "endpoint": {"value": "db.internal.example", "type": "string"},
                "conn": {"value": ["TfSensitiveList1", "TfSensitiveList2"], "sensitive": true}
            },
            "resources": [{"instances": [{
                "attributes": {"master_password": "TfAttrPassw0rd", "bootstrap": "TfListedAttrValue", "name": "app-db-name"},
                "sensitive_attributes": [[{"type": "get_attr", "value": "bootstrap"}]]
            }]}]
        })
        .to_string();
        let found = kv(&state);
        for expected in [
            "TfOutputPassw0rd",
            "TfSensitiveList1",
            "TfSensitiveList2",
            "TfAttrPassw0rd",
            "TfListedAttrValue",
        ] {
            assert!(has(&found, expected), "{expected}: {found:?}");
        }
        assert!(
            !has(&found, "db.internal.example") && !has(&found, "app-db-name"),
            "{found:?}"
        );
        let found = kv(
            r#"{"ConnectionStrings": {"Default": "Server=db;Database=app;User Id=sa;Password=AppSettingsPw55;"}, "Logging": {"LogLevel": "Information"}}"#,
        );
        assert!(has(&found, "AppSettingsPw55"), "{found:?}");
        assert!(!has(&found, "Information"), "{found:?}");
        let found = kv(
            "<?php\ndefine( 'DB_PASSWORD', 'WpConfigPassw0rd' );\ndefine( 'DB_NAME', 'wordpress' );\ndefine('AUTH_KEY', 'put your unique phrase here');\n",
        );
        assert!(has(&found, "WpConfigPassw0rd"), "{found:?}");
        assert!(!has(&found, "wordpress"), "{found:?}");
        let env = values(
            "MULTI_SECRET=\"line1\nMultiLineSecondPart99\"\nset -x FISH_TOKEN FishTok3nValue88\n\
             export  SPACED_KEY = \"SpacedKeyValue77\"\nESCAPED_PASSWORD=\"first\\nEscapedSecondLine66\"\n\
             NODE_ENV=production\n",
            SecretFileKind::Env,
        );
        for expected in [
            "MultiLineSecondPart99",
            "line1\nMultiLineSecondPart99",
            "FishTok3nValue88",
            "SpacedKeyValue77",
            "EscapedSecondLine66",
        ] {
            assert!(has(&env, expected), "{expected}: {env:?}");
        }
        assert!(!has(&env, "production"), "{env:?}");
    }

    // proves: REDACT-1 (round6 #6: key files without a PEM block)
    #[test]
    fn bare_keys_and_putty_keys_give_their_private_lines() {
        let master = values(
            "9f2c0e4a7b1d3f5e8a6c4b2d0f1e3a5c\n",
            SecretFileKind::PrivateKey,
        );
        assert_eq!(master, ["9f2c0e4a7b1d3f5e8a6c4b2d0f1e3a5c"]);
        let ppk = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key\n\
                   Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIPublicPartOne\nPublicPartTwoAAAA\n\
                   Private-Lines: 1\nAAAAIPrivatePartOfThePuttyKey0123456789\n\
                   Private-MAC: 0123456789abcdef\n";
        assert_eq!(
            values(ppk, SecretFileKind::PrivateKey),
            ["AAAAIPrivatePartOfThePuttyKey0123456789"]
        );
        // A certificate is public; a long text file is not a key.
        let cert = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUCertificateBody\n-----END CERTIFICATE-----\n";
        assert!(values(cert, SecretFileKind::PrivateKey).is_empty());
        let long = "word-number-0001\n".repeat(MAX_BARE_KEY_LINES + 1);
        assert!(values(&long, SecretFileKind::PrivateKey).is_empty());
        assert!(values("\u{fffd}\u{fffd}binary\0", SecretFileKind::PrivateKey).is_empty());
    }
}
