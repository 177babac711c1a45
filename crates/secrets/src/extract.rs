//! The values of a secret file that are not environment files (REDACT-1,
//! BEYOND-6; secrets5 #10), by [`SecretFileKind`]: credential files copied
//! into a project (`.aws/credentials`, `.netrc`, `.pgpass`,
//! `.docker/config.json`, `.git-credentials`, kubeconfig, private keys).
//! Each value comes with its 1-based line; values shorter than
//! [`MIN_SECRET_BYTES`] are left out (they cannot be redacted).

use base64::Engine as _;

use crate::config::{ConfigKind, config_credentials};
use crate::files::SecretFileKind;
use crate::redactor::MIN_SECRET_BYTES;

/// The values of `text`, a secret file of `kind` (not [`SecretFileKind::Env`],
/// which is read as an environment), each with its line.
pub(crate) fn file_values(text: &str, kind: SecretFileKind) -> Vec<(String, usize)> {
    let mut found = Values::default();
    match kind {
        SecretFileKind::Env | SecretFileKind::Package => {
            found.extend(config_credentials(text, ConfigKind::Package));
        }
        SecretFileKind::Urls => found.extend(config_credentials(text, ConfigKind::Git)),
        SecretFileKind::KeyValue => {
            found.extend(config_credentials(text, ConfigKind::Package));
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
        SecretFileKind::PrivateKey => {}
    }
    // A private key can sit in any of them (a kubeconfig's inline key, a
    // `.env` value, a key file).
    private_key_lines(text, 0, &mut found);
    found.0
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

/// A JSON file's string values under secret-looking keys, credential-shaped
/// string values, the password of a base64 `user:password` under an `auth`
/// key (`.docker/config.json`), and private keys inside strings
/// (service-account files). Text that is not JSON gives nothing here.
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
    let mut pending = vec![(String::new(), &value)];
    while let Some((key, value)) = pending.pop() {
        match value {
            serde_json::Value::Object(map) => {
                pending.extend(map.iter().map(|(k, v)| (k.clone(), v)));
            }
            serde_json::Value::Array(items) => {
                pending.extend(items.iter().map(|v| (key.clone(), v)));
            }
            serde_json::Value::String(text_value) => {
                let line = line_of(&format!("\"{key}\""));
                if crate::is_secret_env_name(&key) || crate::secret_shape(text_value).is_some() {
                    if text_value.contains('\n') {
                        private_key_lines(text_value, line - 1, found);
                    } else {
                        found.add(text_value, line);
                    }
                }
                if key.eq_ignore_ascii_case("auth")
                    && let Ok(bytes) =
                        base64::engine::general_purpose::STANDARD.decode(text_value.trim())
                    && let Ok(pair) = String::from_utf8(bytes)
                    && let Some((_, password)) = pair.split_once(':')
                {
                    found.add(password, line);
                }
            }
            _ => {}
        }
    }
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
        file_values(text, kind)
            .into_iter()
            .map(|(value, _)| value)
            .collect()
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
}
