//! [`SecretSet`]: every secret value ploy knows, with where each came from
//! (REDACT-1, SBX-4, BEYOND-6, SCRUB-1). One set feeds the redactor (output
//! and logs), the scrubber (search phrases), the egress check (requests) and,
//! through the same name/shape rule ([`crate::is_secret_env`]), the sandbox's
//! environment filter.
//!
//! Sources:
//! * the environment, by name ([`crate::is_secret_env_name`]) or by value
//!   shape ([`crate::secret_shape`]), see [`SecretSet::from_env`];
//! * variables named explicitly (`--secret-env`, settings `secrets.env`):
//!   [`SecretSet::add_declared_env`];
//! * secret files (`--secret-file`, settings `secrets.files`, e.g. a
//!   project's `.env`): [`SecretSet::add_file_text`];
//! * values the program makes or loads (generated tokens, backend keys):
//!   [`SecretSet::insert`].
//!
//! Building is pure: the caller reads files and the environment and says
//! which paths exist.

use std::fmt;
use std::path::Path;

use crate::env::{EnvSecretReason, env_secret_reason};
use crate::redactor::{MIN_SECRET_BYTES, Redactor, RejectedSecret, mask};

/// Where a value of a [`SecretSet`] came from. Printed in messages; never
/// holds the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretOrigin {
    /// An environment variable, and why it counts as secret.
    Env {
        /// The variable's name.
        name: String,
        /// By name or by the value's shape.
        reason: EnvSecretReason,
    },
    /// A variable named explicitly as secret (`--secret-env`, settings
    /// `secrets.env`).
    DeclaredEnv {
        /// The variable's name.
        name: String,
    },
    /// A line of a secret file (`--secret-file`, settings `secrets.files`).
    File {
        /// The file, as the user named it.
        path: String,
        /// The 1-based line number.
        line: usize,
    },
    /// Given by the program (a generated token, a backend's key).
    Given {
        /// What it is, e.g. `tavily key`.
        label: String,
    },
}

impl fmt::Display for SecretOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretOrigin::Env {
                name,
                reason: EnvSecretReason::Name,
            } => write!(f, "environment variable {name} (secret-looking name)"),
            SecretOrigin::Env {
                name,
                reason: EnvSecretReason::Shape(rule),
            } => write!(f, "environment variable {name} ({})", rule.describe()),
            SecretOrigin::Env {
                name,
                reason: EnvSecretReason::Embedded,
            } => write!(
                f,
                "environment variable {name} (a credential-named part of its value)"
            ),
            SecretOrigin::DeclaredEnv { name } => {
                write!(f, "environment variable {name} (declared secret)")
            }
            SecretOrigin::File { path, line } => write!(f, "{path} line {line}"),
            SecretOrigin::Given { label } => f.write_str(label),
        }
    }
}

/// A value of the set that cannot be used (too short to redact), named by
/// its origin and mask only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnusableSecret {
    /// Where it came from.
    pub origin: SecretOrigin,
    /// Why the redactor refused it (holds the mask, never the value).
    pub rejected: RejectedSecret,
}

impl fmt::Display for UnusableSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.rejected)
    }
}

/// A variable named as secret that is missing or not UTF-8: the caller asked
/// for a secret ploy cannot have, so it must refuse to run (REDACT-1, fail
/// closed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeclaredEnvError {
    /// Not set.
    #[error(
        "REDACT-1: the secret variable {0} is not set; refusing to run without a secret you \
         declared (export it, or remove it from the list)"
    )]
    Unset(String),
    /// Not valid UTF-8.
    #[error(
        "REDACT-1: the secret variable {0} is not valid UTF-8 and cannot be redacted (secrets \
         must be UTF-8 text)"
    )]
    NotUtf8(String),
}

/// Every secret value ploy knows, each with its [`SecretOrigin`]. Cheap to
/// build; [`SecretSet::redactor`] compiles it. `Debug` shows origins and
/// masks only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SecretSet {
    entries: Vec<(String, SecretOrigin)>,
    /// The values of `entries`, so an insert is not a scan of them all
    /// (a `.env` of thousands of lines, secrets5 #18).
    known: std::collections::HashSet<String>,
}

impl fmt::Debug for SecretSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.entries
                    .iter()
                    .map(|(value, origin)| format!("{origin}: {}", mask(value))),
            )
            .finish()
    }
}

impl SecretSet {
    /// An empty set.
    pub fn new() -> SecretSet {
        SecretSet::default()
    }

    /// The secret variables of an environment: every non-empty value whose
    /// name looks secret or whose value looks like a credential
    /// ([`crate::env_secret_reason`]), and the credentials inside any value
    /// ([`crate::EnvSecretReason::Embedded`]: `-Dpassword=…`, a JSON
    /// object's `password`, `--api-token …`). `path_exists` answers whether a path
    /// exists (for `PWD`-like names, see [`crate::PATH_VALUED_NAMES`]).
    pub fn from_env<I>(vars: I, path_exists: &dyn Fn(&Path) -> bool) -> SecretSet
    where
        I: IntoIterator<Item = (String, String)>,
    {
        let mut set = SecretSet::new();
        for (name, value) in vars {
            if value.is_empty() {
                continue;
            }
            if let Some(reason) = env_secret_reason(&name, &value, path_exists) {
                set.insert(
                    value.clone(),
                    SecretOrigin::Env {
                        name: name.clone(),
                        reason,
                    },
                );
            }
            // The credentials inside the value (round7 #8: `MAVEN_OPTS=
            // -Dpassword=…`), read as a secret file's entries are.
            for part in crate::extract::embedded_values(&value) {
                set.insert(
                    part,
                    SecretOrigin::Env {
                        name: name.clone(),
                        reason: EnvSecretReason::Embedded,
                    },
                );
            }
        }
        set
    }

    /// [`SecretSet::from_env`] over this process's environment, asking the
    /// file system which paths exist. Variables whose name or value is not
    /// UTF-8 are skipped (the sandbox drops them by name regardless).
    pub fn from_process_env() -> SecretSet {
        SecretSet::from_env(
            std::env::vars_os().filter_map(|(name, value)| {
                Some((name.into_string().ok()?, value.into_string().ok()?))
            }),
            &|path: &Path| path.exists(),
        )
    }

    /// Adds the value of each variable in `names`, looked up in `vars`
    /// (`--secret-env NAME`, settings `secrets.env`). A name that is unset
    /// or not UTF-8 is an error: a secret the user declared must be known.
    pub fn add_declared_env<I, S>(
        &mut self,
        names: I,
        lookup: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<(), DeclaredEnvError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for name in names {
            let name = name.as_ref();
            let value = lookup(name)
                .ok_or_else(|| DeclaredEnvError::Unset(name.to_owned()))?
                .into_string()
                .map_err(|_| DeclaredEnvError::NotUtf8(name.to_owned()))?;
            self.insert(
                value,
                SecretOrigin::DeclaredEnv {
                    name: name.to_owned(),
                },
            );
        }
        Ok(())
    }

    /// Adds the secrets of one secret file's text. Each non-blank line is a
    /// secret as written (surrounding white space trimmed), except a line of
    /// the dotenv form `[export] NAME=VALUE` (a `.env` file), which adds
    /// `VALUE` without surrounding quotes, and only when it is at least
    /// [`MIN_SECRET_BYTES`] long (`PORT=8080` is configuration, not a
    /// secret). `#` comment lines are skipped. A value starting with `=`
    /// is not dotenv (base64 padding: `c2VjcmV0==` is one secret). `label`
    /// names the file in messages.
    pub fn add_file_text(&mut self, label: &str, text: &str) {
        for (trimmed, origin) in file_lines(label, text) {
            match crate::extract::line_entry(trimmed) {
                Some((_, value)) if value.trim().len() >= MIN_SECRET_BYTES => {
                    self.insert(value, origin);
                }
                Some(_) => {}
                None => self.insert(trimmed.to_owned(), origin),
            }
        }
    }

    /// Adds the secrets of a project's environment file (`.env`, `.env.*`,
    /// `.envrc`, found by [`crate::known_secrets`], not named by the user):
    /// the file is the environment a program of the project will get, so an
    /// entry (`[export] NAME=VALUE`, fish's `set -x NAME VALUE`, a value
    /// quoted over several lines: one parser, `extract.rs`) is judged by the
    /// environment's own rule ([`crate::env_secret_reason`]: a
    /// secret-looking name, or a value shaped like a credential), and each
    /// line of a multi-line value counts too. Any other line (shell code in
    /// `.envrc`, a PEM block's body) counts only when it is
    /// credential-shaped on its own ([`crate::secret_shape`]). So
    /// `NODE_ENV=production` or an app's name is not redacted from every
    /// output, while `DB_PASSWORD=…` is; a file listed in settings
    /// `secrets.files` gives every value instead
    /// ([`SecretSet::add_file_text`]).
    pub fn add_env_file_text(
        &mut self,
        label: &str,
        text: &str,
        path_exists: &dyn Fn(&Path) -> bool,
    ) {
        self.add_secret_file_text(label, text, crate::SecretFileKind::Env, path_exists);
    }

    /// Adds the values of a secret file found by its name
    /// ([`crate::secret_file_kind`]): an environment file as
    /// [`SecretSet::add_env_file_text`], any other kind by what that kind
    /// of file holds (passwords of `.netrc`/`.pgpass`, secret-named keys and
    /// credential-shaped values, private-key lines; see `extract.rs`).
    pub fn add_secret_file_text(
        &mut self,
        label: &str,
        text: &str,
        kind: crate::SecretFileKind,
        path_exists: &dyn Fn(&Path) -> bool,
    ) {
        for (value, line) in crate::extract::file_values(text, kind, path_exists) {
            self.insert(
                value,
                SecretOrigin::File {
                    path: label.to_owned(),
                    line,
                },
            );
        }
    }

    /// Adds the credentials of a project configuration file (`config.rs`:
    /// URL user info, credential-shaped tokens, and for package managers'
    /// files secret-named keys), each with its line.
    pub(crate) fn add_config_text(&mut self, label: &str, text: &str) {
        for (value, line) in crate::config::config_credentials(text) {
            self.insert(
                value,
                SecretOrigin::File {
                    path: label.to_owned(),
                    line,
                },
            );
        }
    }

    /// Adds the credentials of a project configuration file
    /// ([`crate::CREDENTIAL_CONFIG_FILES`]: Spring, Rails, Docker Compose;
    /// round8 #12): secret-named entries, URL passwords, provider tokens
    /// (`extract.rs`), each with its line.
    pub(crate) fn add_credential_config_text(&mut self, label: &str, text: &str) {
        for (value, line) in crate::extract::config_file_values(text) {
            self.insert(
                value,
                SecretOrigin::File {
                    path: label.to_owned(),
                    line,
                },
            );
        }
    }

    /// Adds one value with its origin. Empty values are ignored.
    pub fn insert(&mut self, value: impl Into<String>, origin: SecretOrigin) {
        let value = value.into();
        if cfg!(feature = "teeth") || value.is_empty() || self.known.contains(&value) {
            return;
        }
        self.known.insert(value.clone());
        self.entries.push((value, origin));
    }

    /// Adds every value of `other`.
    pub fn extend(&mut self, other: SecretSet) {
        for (value, origin) in other.entries {
            self.insert(value, origin);
        }
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the set holds no value.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Where each value came from, in insertion order.
    pub fn origins(&self) -> impl Iterator<Item = &SecretOrigin> {
        self.entries.iter().map(|(_, origin)| origin)
    }

    /// The names of the environment variables whose values are in the set
    /// (found by name or shape, or declared): a shell line that expands
    /// one reads a known secret.
    pub fn env_names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().filter_map(|(_, origin)| match origin {
            SecretOrigin::Env { name, .. } | SecretOrigin::DeclaredEnv { name } => {
                Some(name.as_str())
            }
            _ => None,
        })
    }

    /// The values, in insertion order (for building a redactor or comparing
    /// a credential with its own destination; never print them).
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(value, _)| value.as_str())
    }

    /// Values too short to redact (shorter than [`MIN_SECRET_BYTES`] after
    /// trimming), with their origins: a caller that was asked for these
    /// explicitly (a secret file, `--secret-env`) refuses to run.
    pub fn unusable(&self) -> Vec<UnusableSecret> {
        self.entries
            .iter()
            .filter(|(value, _)| value.trim().len() < MIN_SECRET_BYTES)
            .filter_map(|(value, origin)| {
                let (_, rejected) = Redactor::new([value]);
                rejected.into_iter().next().map(|rejected| UnusableSecret {
                    origin: origin.clone(),
                    rejected,
                })
            })
            .collect()
    }

    /// The redactor for this set (REDACT-1). Values too short to redact are
    /// left out; [`SecretSet::unusable`] lists them.
    pub fn redactor(&self) -> Redactor {
        Redactor::new(self.values()).0
    }

    /// [`SecretSet::redactor`] for a few short texts (a hook call): same
    /// answers, cheapest build ([`Redactor::new_one_shot`]).
    pub fn one_shot_redactor(&self) -> Redactor {
        Redactor::new_one_shot(self.values()).0
    }
}

/// The non-blank, non-comment lines of a secret file, trimmed, each with
/// its origin (`label` and 1-based line number).
fn file_lines<'a>(
    label: &'a str,
    text: &'a str,
) -> impl Iterator<Item = (&'a str, SecretOrigin)> + 'a {
    text.lines().enumerate().filter_map(move |(index, line)| {
        let trimmed = line.trim();
        (!trimmed.is_empty() && !trimmed.starts_with('#')).then(|| {
            (
                trimmed,
                SecretOrigin::File {
                    path: label.to_owned(),
                    line: index + 1,
                },
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::ShapeRule;

    fn vars(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    // proves: REDACT-1, SBX-4 (issue 14: SERVICE_PW and friends are learned)
    #[test]
    fn from_env_learns_names_and_shapes_and_skips_paths_and_ordinary_values() {
        let set = SecretSet::from_env(
            vars(&[
                ("SERVICE_PW", "Tr0ub4dor-and-3-horses"),
                ("WALLET_SEED", "abandon ability able about above absent"),
                ("BUILD_NOTE", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
                ("PWD", "/home/alice/work"),
                ("OLDPWD", "/nonexistent/place"),
                ("PATH", "/usr/bin:/bin"),
                ("GIT_COMMIT", "3f786850e387550fdab836ed7e6dc881de23001b"),
                ("EMPTY_TOKEN", ""),
            ]),
            &|path| path == Path::new("/home/alice/work"),
        );
        let values: Vec<&str> = set.values().collect();
        assert_eq!(
            values,
            [
                "Tr0ub4dor-and-3-horses",
                "abandon ability able about above absent",
                "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                "/nonexistent/place",
            ]
        );
        let origins: Vec<String> = set.origins().map(ToString::to_string).collect();
        assert_eq!(
            origins[2],
            "environment variable BUILD_NOTE (provider key prefix `ghp_`)"
        );
        assert!(matches!(
            set.origins().nth(2),
            Some(SecretOrigin::Env {
                reason: EnvSecretReason::Shape(ShapeRule::ProviderPrefix("ghp_")),
                ..
            })
        ));
        assert!(set.redactor().contains_secret("x Tr0ub4dor-and-3-horses y"));
    }

    // proves: REDACT-1 (secret files: plain lines and .env lines)
    #[test]
    fn secret_files_give_lines_and_dotenv_values() {
        let mut set = SecretSet::new();
        set.add_file_text(
            ".env",
            "# comment\n\nDATABASE_URL=\"postgres://u:pw-123456@db/x\"\nexport API_TOKEN='tok-abcdef123456'\nplain-secret-line-1\nPORT=8080\nc2VjcmV0LXZhbHVl==\n  abc==  \n",
        );
        let values: Vec<&str> = set.values().collect();
        assert_eq!(
            values,
            [
                "postgres://u:pw-123456@db/x",
                "tok-abcdef123456",
                "plain-secret-line-1",
                // Base64 lines are taken whole, not as NAME=VALUE.
                "c2VjcmV0LXZhbHVl==",
                "abc==",
            ]
        );
        let unusable = set.unusable();
        assert!(
            unusable.iter().any(|u| u.origin
                == SecretOrigin::File {
                    path: ".env".into(),
                    line: 8
                }),
            "{unusable:?}"
        );
        // Messages name the file and line, never the value.
        assert!(unusable.iter().all(|u| !u.to_string().contains("abc==")));
    }

    // proves: REDACT-1 (a declared variable that is missing fails closed)
    #[test]
    fn declared_variables_must_exist() {
        let mut set = SecretSet::new();
        let lookup = |name: &str| (name == "DEPLOY_X").then(|| "value-of-deploy-x".into());
        assert!(set.add_declared_env(["DEPLOY_X"], &lookup).is_ok());
        assert_eq!(set.values().collect::<Vec<_>>(), ["value-of-deploy-x"]);
        let err = set
            .add_declared_env(["MISSING_ONE"], &lookup)
            .expect_err("unset must fail");
        assert!(err.to_string().contains("MISSING_ONE"));
        assert!(err.to_string().contains("REDACT-1"));
    }

    // proves: REDACT-1 (Debug never prints a value)
    #[test]
    fn debug_shows_origins_and_masks_only() {
        let mut set = SecretSet::new();
        set.insert(
            "super-secret-value-0042",
            SecretOrigin::Given {
                label: "test".into(),
            },
        );
        let shown = format!("{set:?}");
        assert!(!shown.contains("super-secret"), "{shown}");
        assert!(shown.contains("…0042"));
    }
}
