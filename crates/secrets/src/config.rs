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
//!
//! The values of keys with secret-looking names (`_authToken`, `password`)
//! in the package managers' files are taken by the one entry parser of
//! `extract.rs` (those files are secret files, found by the walk); git's
//! keys (`signingkey` holds a path or a public id) are not read by name.

use crate::redactor::MIN_SECRET_BYTES;
use crate::shape::{ShapeRule, token_shape};

/// The project's configuration files that may hold credentials, relative
/// to the project folder, besides git's own (found through `.git`, which
/// may be a folder or a worktree's `gitdir:` file).
pub const PROJECT_CONFIG_FILES: &[&str] = &[".npmrc", ".yarnrc.yml", ".pypirc"];

/// The credentials of `text` (module docs), each with its 1-based line.
pub(crate) fn config_credentials(text: &str) -> Vec<(String, usize)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<String> {
        config_credentials(text)
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
        let found = values(text);
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

    // Git's keys are not read by name.
    #[test]
    fn git_keys_are_not_read_by_name() {
        assert!(values("[user]\n\tsigningkey = ABCDEF0123456789\n").is_empty());
    }
}
