//! The one name rule for files that hold secrets (REDACT-1, BEYOND-6,
//! PERM-2 defaults; outside findings secrets5 #1 and #10).
//!
//! A file whose path matches [`secret_file_kind`] is, everywhere in ploy:
//! * a read that asks by default (ploy-policy's built-in `read ask` rules
//!   are [`secret_file_globs`], the same list), whatever tool reads it;
//! * a source of known secrets ([`crate::known_secrets`] looks for these
//!   names in the whole project, not only its top folder), so its values
//!   are redacted from outputs and refused at the egress door.
//!
//! The rule is a list of glob patterns over the last parts of the path,
//! matched with ASCII case ignored (`.ENV`, `Prod.Env`, `.EnvRC`). It is
//! shaped as an allowlist of names that are known to hold secrets, broad on
//! purpose (a question too many is cheap, a secret read without asking is
//! not): see [`SECRET_FILE_NAMES`]. The only names left out on purpose are
//! the committed templates `.env.example`, `.env.sample`, `.env.template`.
//!
//! Each pattern also says how values are taken from the file
//! ([`SecretFileKind`]).

use std::sync::OnceLock;

/// How values are taken from a secret file (see `set.rs`,
/// [`crate::SecretSet::add_secret_file_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecretFileKind {
    /// An environment file (`.env*`, `*.env`, `.envrc`, `.flaskenv`):
    /// `NAME=VALUE` lines judged like the environment (secret-looking name
    /// or credential-shaped value).
    Env,
    /// A file of keys and values (`secrets.yaml`, `credentials`,
    /// `.aws/credentials`, kubeconfig, `*.tfvars`, `.docker/config.json`,
    /// service-account JSON): the value of every key with a secret-looking
    /// name, every credential-shaped value, the password of a base64
    /// `auth` pair, and private-key blocks.
    KeyValue,
    /// `.netrc`: every `password` (and `account`) token.
    Netrc,
    /// `.pgpass`: the password field of each `host:port:db:user:password`.
    Pgpass,
    /// `.git-credentials`: the password of every URL.
    Urls,
    /// Package managers' files (`.npmrc`, `.pypirc`, `.yarnrc.yml`): URL
    /// passwords, provider tokens, secret-named keys.
    Package,
    /// A token file (`.vault-token`): its first line.
    Token,
    /// A private key or key store (`id_rsa`, `*.pem`, `*.key`, ...): the
    /// body lines of every PEM `PRIVATE KEY` block.
    PrivateKey,
}

/// The patterns, lowercase, over the end of a path (`**/` is put before
/// each), with the names excepted from a `PREFIX*` pattern and the kind.
const RULES: &[(&str, &[&str], SecretFileKind)] = &[
    (
        ".env*",
        &[".env.example", ".env.sample", ".env.template"],
        SecretFileKind::Env,
    ),
    ("*.env", &[], SecretFileKind::Env),
    // `?*`: a name before `.env.`, so `.env.example` stays excepted.
    ("?*.env.*", &[], SecretFileKind::Env),
    (".flaskenv", &[], SecretFileKind::Env),
    (".dev.vars", &[], SecretFileKind::Env),
    (".netrc", &[], SecretFileKind::Netrc),
    ("_netrc", &[], SecretFileKind::Netrc),
    (".pgpass", &[], SecretFileKind::Pgpass),
    (".git-credentials", &[], SecretFileKind::Urls),
    (".npmrc", &[], SecretFileKind::Package),
    (".pypirc", &[], SecretFileKind::Package),
    (".yarnrc", &[], SecretFileKind::Package),
    (".yarnrc.yml", &[], SecretFileKind::Package),
    (".vault-token", &[], SecretFileKind::Token),
    ("secrets", &[], SecretFileKind::KeyValue),
    (
        "secrets.{json,yaml,yml,toml,ini,txt,conf,cfg,properties,xml}",
        &[],
        SecretFileKind::KeyValue,
    ),
    ("credentials", &[], SecretFileKind::KeyValue),
    (
        "credentials.{json,yaml,yml,toml,ini,txt,conf,cfg,csv,xml}",
        &[],
        SecretFileKind::KeyValue,
    ),
    ("client_secret*.json", &[], SecretFileKind::KeyValue),
    ("service-account*.json", &[], SecretFileKind::KeyValue),
    ("service_account*.json", &[], SecretFileKind::KeyValue),
    (".docker/config.json", &[], SecretFileKind::KeyValue),
    (".kube/config", &[], SecretFileKind::KeyValue),
    ("kubeconfig", &[], SecretFileKind::KeyValue),
    ("*.kubeconfig", &[], SecretFileKind::KeyValue),
    ("*.tfvars", &[], SecretFileKind::KeyValue),
    ("*.tfvars.json", &[], SecretFileKind::KeyValue),
    ("local.settings.json", &[], SecretFileKind::KeyValue),
    (".my.cnf", &[], SecretFileKind::KeyValue),
    (".htpasswd", &[], SecretFileKind::KeyValue),
    ("id_rsa*", &[], SecretFileKind::PrivateKey),
    ("id_dsa*", &[], SecretFileKind::PrivateKey),
    ("id_ecdsa*", &[], SecretFileKind::PrivateKey),
    ("id_ed25519*", &[], SecretFileKind::PrivateKey),
    ("*.pem", &[], SecretFileKind::PrivateKey),
    ("*.key", &[], SecretFileKind::PrivateKey),
    ("*.p12", &[], SecretFileKind::PrivateKey),
    ("*.pfx", &[], SecretFileKind::PrivateKey),
    ("*.ppk", &[], SecretFileKind::PrivateKey),
    ("*.jks", &[], SecretFileKind::PrivateKey),
    ("*.keystore", &[], SecretFileKind::PrivateKey),
];

/// The secret-file names as a person reads them (docs, `ploy config`):
/// the same list as [`secret_file_globs`], in any folder, any case.
pub const SECRET_FILE_NAMES: &[&str] = &[
    ".env, .env.* and .env-* (not .env.example/.sample/.template), .envrc",
    "*.env, *.env.*, .flaskenv, .dev.vars",
    ".netrc, _netrc, .pgpass, .git-credentials, .vault-token",
    ".npmrc, .pypirc, .yarnrc, .yarnrc.yml",
    "secrets and credentials (bare or .json/.yaml/.toml/.ini/...), .aws/credentials",
    "client_secret*.json, service-account*.json, .docker/config.json, local.settings.json",
    ".kube/config, kubeconfig, *.kubeconfig, *.tfvars, .my.cnf, .htpasswd",
    "id_rsa*, id_dsa*, id_ecdsa*, id_ed25519*, *.pem, *.key, *.p12, *.pfx, *.ppk, *.jks, *.keystore",
];

/// Every glob of the rule with the kind it gives, lowercase spellings
/// first (a refusal then names the readable one), then the same globs with
/// each letter spelled in both cases (`[eE]`).
fn globs_with_kinds() -> Vec<(String, SecretFileKind)> {
    let mut lower = Vec::new();
    for (pattern, except, kind) in RULES {
        let mut spelled = Vec::new();
        match pattern.strip_suffix('*') {
            Some(prefix) if !except.is_empty() => {
                let rests: Vec<&str> = except
                    .iter()
                    .filter_map(|name| name.strip_prefix(prefix))
                    .collect();
                complement(prefix, &rests, &mut spelled);
            }
            _ => spelled.push((*pattern).to_owned()),
        }
        lower.extend(
            spelled
                .into_iter()
                .map(|glob| (format!("**/{glob}"), *kind)),
        );
    }
    let mut all = lower.clone();
    for (glob, kind) in lower {
        let free = case_free(&glob);
        if free != glob {
            all.push((free, kind));
        }
    }
    all
}

/// Globs for every name that starts with `base` and whose rest is not one
/// of `rests` (a glob has no negation, so the complement is spelled out
/// along the letters of the excepted names).
fn complement(base: &str, rests: &[&str], out: &mut Vec<String>) {
    if !rests.contains(&"") {
        out.push(base.to_owned());
    }
    let mut next: Vec<char> = rests.iter().filter_map(|r| r.chars().next()).collect();
    next.sort_unstable();
    next.dedup();
    if next.is_empty() {
        out.push(format!("{base}?*"));
        return;
    }
    out.push(format!("{base}[!{}]*", next.iter().collect::<String>()));
    for c in next {
        let deeper: Vec<&str> = rests.iter().filter_map(|r| r.strip_prefix(c)).collect();
        complement(&format!("{base}{c}"), &deeper, out);
    }
}

/// `glob` with every ASCII letter matching both cases (`.env` → `.[eE][nN][vV]`).
fn case_free(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len() * 3);
    let mut in_class = false;
    for c in glob.chars() {
        match c {
            '[' if !in_class => {
                in_class = true;
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            c if c.is_ascii_alphabetic() && in_class => {
                out.push(c.to_ascii_lowercase());
                out.push(c.to_ascii_uppercase());
            }
            c if c.is_ascii_alphabetic() => {
                out.push('[');
                out.push(c.to_ascii_lowercase());
                out.push(c.to_ascii_uppercase());
                out.push(']');
            }
            c => out.push(c),
        }
    }
    out
}

/// The rule as glob patterns for path rules (ploy-policy's built-in
/// `read ask` list): `**/`-anchored, `/` matched only by `/` (globset's
/// `literal_separator`), `\` an escape. [`secret_file_kind`] is these same
/// globs, compiled with those options.
pub fn secret_file_globs() -> Vec<String> {
    globs_with_kinds()
        .into_iter()
        .map(|(glob, _)| glob)
        .collect()
}

struct Compiled {
    set: globset::GlobSet,
    kinds: Vec<SecretFileKind>,
}

fn compiled() -> Option<&'static Compiled> {
    static COMPILED: OnceLock<Option<Compiled>> = OnceLock::new();
    COMPILED
        .get_or_init(|| {
            let mut builder = globset::GlobSetBuilder::new();
            let mut kinds = Vec::new();
            for (glob, kind) in globs_with_kinds() {
                let glob = globset::GlobBuilder::new(&glob)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .ok()?;
                builder.add(glob);
                kinds.push(kind);
            }
            Some(Compiled {
                set: builder.build().ok()?,
                kinds,
            })
        })
        .as_ref()
}

/// Whether `path` (relative or absolute, `/`-separated) names a secret file,
/// and how its values are read (module docs). Pure: looks at the name only.
/// If the rule could not be compiled (a programming error the tests catch),
/// every path is a secret file of kind [`SecretFileKind::KeyValue`]: more
/// questions, never fewer.
pub fn secret_file_kind(path: &str) -> Option<SecretFileKind> {
    let Some(compiled) = compiled() else {
        return Some(SecretFileKind::KeyValue);
    };
    compiled
        .set
        .matches(path)
        .into_iter()
        .min()
        .map(|index| compiled.kinds[index])
}

/// Whether `path` names a secret file ([`secret_file_kind`]).
pub fn is_secret_file(path: &str) -> bool {
    secret_file_kind(path).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: PERM-2, REDACT-1 (secrets5 #1/#10: env files and credential
    // files by name, any folder, any case; templates and code files not)
    #[test]
    fn names_that_hold_secrets_in_any_folder_and_case() {
        for path in [
            ".env",
            "backend/.envrc",
            "backend/.ENV",
            "backend/.env-prod",
            "backend/prod.env",
            "config/.env.local",
            "a/b/c/.Env.Production",
            "Prod.ENV",
            "app.env.local",
            ".flaskenv",
            ".dev.vars",
            ".env.",
            ".env.exampl",
            ".env.examples",
            ".env.example.bak",
            ".env.samplex",
            ".aws/credentials",
            "deploy/.AWS/Credentials",
            "credentials.json",
            "secrets.yaml",
            "config/SECRETS.TOML",
            ".netrc",
            "_netrc",
            ".pgpass",
            ".docker/config.json",
            ".git-credentials",
            ".npmrc",
            ".pypirc",
            ".yarnrc.yml",
            ".kube/config",
            "ops/prod.kubeconfig",
            "terraform.tfvars",
            ".vault-token",
            ".my.cnf",
            "id_rsa",
            "keys/ID_ED25519",
            "certs/server.pem",
            "tls.key",
            "cert.p12",
            "client_secret_123.apps.googleusercontent.com.json",
            "service-account.json",
            "/home/u/proj/sub/.envrc",
        ] {
            assert!(is_secret_file(path), "{path} must be a secret file");
        }
        for path in [
            ".env.example",
            "sub/.ENV.Example",
            ".env.sample",
            ".env.template",
            "src/env.rs",
            "environment.ts",
            "keys.md",
            "secrets.rs",
            "src/credentials.go",
            "README.md",
            ".github/workflows/ci.yml",
            "docker/config.json",
            "kube/config",
        ] {
            assert!(!is_secret_file(path), "{path} must not be a secret file");
        }
        assert_eq!(secret_file_kind("x/.envrc"), Some(SecretFileKind::Env));
        assert_eq!(
            secret_file_kind(".aws/credentials"),
            Some(SecretFileKind::KeyValue)
        );
        assert_eq!(secret_file_kind("a/.netrc"), Some(SecretFileKind::Netrc));
        assert_eq!(secret_file_kind("id_rsa"), Some(SecretFileKind::PrivateKey));
    }

    #[test]
    fn readable_globs_come_first() {
        let globs = secret_file_globs();
        assert_eq!(globs[0], "**/.env");
        assert!(globs.iter().any(|g| g == "**/.[eE][nN][vV]"));
        assert!(globs.iter().all(|g| g.starts_with("**/")));
    }
}
