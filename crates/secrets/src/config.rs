//! Credentials written into a project's configuration files (REDACT-1,
//! BEYOND-6; outside finding tui-rpc #8): `git clone
//! https://alice:TOKEN@github.com/…` leaves the token in `.git/config`, a
//! registry token sits in `.npmrc`. A model can `read` those files, so their
//! credentials are known secrets: the redactor removes them from outputs
//! and the door refuses to send them.
//!
//! What counts, line by line:
//! * the password of a URL's user info (`scheme://user:PASSWORD@host`, also
//!   in a `[url "…"]` section header used with `insteadOf`), percent-decoded
//!   too; the user part when it is itself credential-shaped
//!   (`https://ghp_…@github.com`, `https://ghp_…:x-oauth-basic@…`);
//! * every token with a known provider prefix (`ghp_`, `github_pat_`,
//!   `glpat-`, `xoxb-`, `sk-…`, `AKIA…`, …) or shaped like a JWT
//!   ([`crate::token_shape`]; not the entropy rule alone, which would take
//!   commit ids and checksums);
//! * for the package managers' files (not git's, whose keys such as
//!   `signingkey` hold paths and public ids), the value of a key with a
//!   secret-looking name (`_authToken`, `_password`, `password`,
//!   `npmAuthToken`; [`crate::is_secret_env_name`]), at least
//!   [`crate::MIN_SECRET_BYTES`] long and without white space.

use crate::redactor::MIN_SECRET_BYTES;
use crate::shape::{ShapeRule, token_shape};

/// The project's configuration files that may hold credentials, relative
/// to the project folder, besides git's own (found through `.git`, which
/// may be a folder or a worktree's `gitdir:` file).
pub const PROJECT_CONFIG_FILES: &[&str] = &[".npmrc", ".yarnrc.yml", ".pypirc"];

/// Whether a configuration file's keys are read (package managers' files),
/// or only its URLs and credential-shaped tokens (git's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigKind {
    /// `.git/config`: URLs and tokens only.
    Git,
    /// `.npmrc`, `.yarnrc.yml`, `.pypirc`: also `key = value` by key name.
    Package,
}

/// The credentials of `text` (module docs), each with its 1-based line.
pub(crate) fn config_credentials(text: &str, kind: ConfigKind) -> Vec<(String, usize)> {
    let mut found: Vec<(String, usize)> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut add = |value: &str| {
            if value.len() >= MIN_SECRET_BYTES && !found.iter().any(|(known, _)| known == value) {
                found.push((value.to_owned(), index + 1));
            }
        };
        for (user, password) in url_userinfos(line) {
            if let Some(password) = password {
                add(password);
                add(&crate::views::unescape(password));
            }
            if token_shape(user).is_some() {
                add(user);
            }
        }
        let not_token = |c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
        for token in line.split(not_token) {
            if matches!(token_shape(token), Some(ShapeRule::ProviderPrefix(_))) {
                add(token);
            }
        }
        let not_dotted = |c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        for token in line.split(not_dotted) {
            if matches!(
                token_shape(token),
                Some(ShapeRule::Jwt | ShapeRule::ProviderPrefix("SG." | "pk.eyJ"))
            ) {
                add(token);
            }
        }
        if kind == ConfigKind::Package
            && let Some(value) = secret_keyed_value(line)
        {
            add(value);
        }
    }
    found
}

/// `(user, password)` of every `scheme://user[:password]@host` in `line`.
fn url_userinfos(line: &str) -> Vec<(&str, Option<&str>)> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("://") {
        let after = &rest[at + 3..];
        let end = after
            .find(|c: char| c.is_whitespace() || matches!(c, '/' | '"' | '\'' | '?' | '#' | ']'))
            .unwrap_or(after.len());
        let authority = &after[..end];
        if let Some((userinfo, _host)) = authority.rsplit_once('@') {
            match userinfo.split_once(':') {
                Some((user, password)) => out.push((user, Some(password))),
                None => out.push((userinfo, None)),
            }
        }
        rest = &after[end..];
    }
    out
}

/// The value of a `key = value` / `key: value` line whose key (its last
/// part after `:`, `/` or `.`) looks secret, unquoted; `None` otherwise.
pub(crate) fn secret_keyed_value(line: &str) -> Option<&str> {
    let line = line.trim();
    if line.starts_with(['#', ';', '[']) {
        return None;
    }
    // `//registry.npmjs.org/:_authToken=…` holds a `:` in its key: split at
    // the first `=`, else at the last `: ` (YAML).
    // YAML's `key: value` whose value holds `=` (base64 padding) splits at
    // the `: ` that comes first.
    let (key, value) = match (line.find('='), line.find(": ")) {
        (Some(eq), Some(colon)) if colon < eq => (&line[..colon], &line[colon + 2..]),
        (Some(_), _) => line.split_once('=')?,
        (None, _) => line.rsplit_once(": ")?,
    };
    let name = key.trim().rsplit([':', '/', '.']).next()?;
    if !crate::is_secret_env_name(name) {
        return None;
    }
    let value = value.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    (!value.is_empty() && !value.contains(char::is_whitespace)).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str, kind: ConfigKind) -> Vec<String> {
        config_credentials(text, kind)
            .into_iter()
            .map(|(value, _)| value)
            .collect()
    }

    // proves: REDACT-1 (tui-rpc #8: remote URLs, insteadOf, token shapes; git keys are not read by name)
    #[test]
    fn git_config_credentials_are_found() {
        let text = "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\
            \turl = https://alice:ghp_R3alT0kenValue1234567890abcdefABCD@github.com/alice/repo.git\n\
            \tfetch = +refs/heads/*:refs/remotes/origin/*\n\
            [url \"https://oauth2:glpat-x8Yz2Qw3Er4Ty5Ui6Op7@gitlab.example.com/\"]\n\
            \tinsteadOf = https://gitlab.example.com/\n\
            [remote \"mirror\"]\n\tpushurl = https://deploy:p%40ss%3Aw0rd-long@git.example.org/r.git\n\
            [remote \"token\"]\n\turl = https://github_pat_11ABCDEFG0123456789_abcdefghijKLMN@github.com/o/r\n\
            [user]\n\tsigningkey = ~/.ssh/id_ed25519.pub\n\temail = alice@example.com\n\
            [branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n";
        let found = values(text, ConfigKind::Git);
        for expected in [
            "ghp_R3alT0kenValue1234567890abcdefABCD",
            "glpat-x8Yz2Qw3Er4Ty5Ui6Op7",
            "p%40ss%3Aw0rd-long",
            "p@ss:w0rd-long",
            "github_pat_11ABCDEFG0123456789_abcdefghijKLMN",
        ] {
            assert!(found.iter().any(|v| v == expected), "{expected}: {found:?}");
        }
        for not in [
            "~/.ssh/id_ed25519.pub",
            "origin",
            "refs/heads/main",
            "alice",
        ] {
            assert!(!found.iter().any(|v| v == not), "{not}: {found:?}");
        }
        assert_eq!(found.len(), 5, "{found:?}");
    }

    // proves: REDACT-1 (package managers' tokens by key name)
    #[test]
    fn package_manager_tokens_are_found() {
        let npmrc = "registry=https://registry.npmjs.org/\n\
            //registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz012345\n\
            //npm.internal.example/:_password=\"c2VjcmV0cGFzcw==\"\n\
            save-exact=true\n";
        let found = values(npmrc, ConfigKind::Package);
        assert_eq!(
            found,
            vec![
                "npm_AbCdEfGhIjKlMnOpQrStUvWxYz012345".to_owned(),
                "c2VjcmV0cGFzcw==".to_owned()
            ]
        );
        let yarnrc =
            "npmRegistryServer: \"https://npm.example\"\nnpmAuthToken: \"Zm9vYmFyYmF6cXV4\"\n";
        assert_eq!(
            values(yarnrc, ConfigKind::Package),
            vec!["Zm9vYmFyYmF6cXV4"]
        );
        let pypirc = "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmcCJGE4\n";
        assert_eq!(
            values(pypirc, ConfigKind::Package),
            vec!["pypi-AgEIcHlwaS5vcmcCJGE4"]
        );
        // Git's keys are not read by name.
        assert!(values("[user]\n\tsigningkey = ABCDEF0123456789\n", ConfigKind::Git).is_empty());
    }
}
