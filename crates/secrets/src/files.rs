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

use crate::name_globs::NameGlobs;

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
    /// `.htpasswd`: the password hash after each `user:` (round8 #12: a
    /// hash sent out can be cracked offline, so it is a known secret too).
    UserHash,
    /// A private key or key store (`id_rsa`, `*.pem`, `*.key`, ...): the
    /// body lines of every PEM `PRIVATE KEY` block.
    PrivateKey,
}

/// The patterns, lowercase, over the end of a path (`**/` is put before
/// each), with the names excepted from a `PREFIX*` pattern and the kind.
const RULES: &[(&str, &[&str], SecretFileKind)] = &[
    // Environment files, under any name a project gives them
    // (round6 #6: cookiecutter-django's `.envs/.production/.django`).
    (
        ".env*",
        &[".env.example", ".env.sample", ".env.template"],
        SecretFileKind::Env,
    ),
    ("*.env", &[], SecretFileKind::Env),
    // `?*`: a name before `.env.`, so `.env.example` stays excepted.
    ("?*.env.*", &[], SecretFileKind::Env),
    (".envs/**", &[], SecretFileKind::Env),
    (".flaskenv", &[], SecretFileKind::Env),
    (".dev.vars", &[], SecretFileKind::Env),
    (".secrets", &[], SecretFileKind::Env),
    ("dotenv", &[], SecretFileKind::Env),
    ("env.txt", &[], SecretFileKind::Env),
    (".netrc", &[], SecretFileKind::Netrc),
    ("_netrc", &[], SecretFileKind::Netrc),
    (".pgpass", &[], SecretFileKind::Pgpass),
    ("pgpass.conf", &[], SecretFileKind::Pgpass),
    (".git-credentials", &[], SecretFileKind::Urls),
    // Package managers' settings.
    (".npmrc", &[], SecretFileKind::Package),
    (".pypirc", &[], SecretFileKind::Package),
    (".yarnrc", &[], SecretFileKind::Package),
    (".yarnrc.yml", &[], SecretFileKind::Package),
    ("pip.conf", &[], SecretFileKind::Package),
    ("pip.ini", &[], SecretFileKind::Package),
    (".bundle/config", &[], SecretFileKind::Package),
    // Token files.
    (".vault-token", &[], SecretFileKind::Token),
    ("huggingface/token", &[], SecretFileKind::Token),
    // Files of keys and values named for what they hold.
    ("secrets", &[], SecretFileKind::KeyValue),
    (
        "secrets.{json,yaml,yml,toml,ini,txt,conf,cfg,properties,xml}",
        &[],
        SecretFileKind::KeyValue,
    ),
    (
        "secret.{json,yaml,yml,toml,ini,txt,conf,cfg,properties,xml}",
        &[],
        SecretFileKind::KeyValue,
    ),
    (
        "*[_.-]secret.{json,yaml,yml,toml,ini,txt,conf,cfg,properties,xml}",
        &[],
        SecretFileKind::KeyValue,
    ),
    (
        "*[_.-]secrets.{json,yaml,yml,toml,ini,txt,conf,cfg,properties,xml}",
        &[],
        SecretFileKind::KeyValue,
    ),
    ("credentials", &[], SecretFileKind::KeyValue),
    (
        "credentials.{json,yaml,yml,toml,ini,txt,conf,cfg,csv,xml,db}",
        &[],
        SecretFileKind::KeyValue,
    ),
    (".credentials", &[], SecretFileKind::KeyValue),
    (".credentials.json", &[], SecretFileKind::KeyValue),
    ("auth.json", &[], SecretFileKind::KeyValue),
    ("client_secret*.json", &[], SecretFileKind::KeyValue),
    ("service-account*.json", &[], SecretFileKind::KeyValue),
    ("service_account*.json", &[], SecretFileKind::KeyValue),
    // Cloud command-line tools' credentials and token caches.
    (".aws/config", &[], SecretFileKind::KeyValue),
    (".aws/sso/cache/*.json", &[], SecretFileKind::KeyValue),
    (".aws/cli/cache/*.json", &[], SecretFileKind::KeyValue),
    (".s3cfg", &[], SecretFileKind::KeyValue),
    (".boto", &[], SecretFileKind::KeyValue),
    (
        "application_default_credentials.json",
        &[],
        SecretFileKind::KeyValue,
    ),
    ("adc.json", &[], SecretFileKind::KeyValue),
    ("access_tokens.db", &[], SecretFileKind::KeyValue),
    ("legacy_credentials/**", &[], SecretFileKind::KeyValue),
    ("accesstokens.json", &[], SecretFileKind::KeyValue),
    ("msal_token_cache.*", &[], SecretFileKind::KeyValue),
    (
        "service_principal_entries.json",
        &[],
        SecretFileKind::KeyValue,
    ),
    ("gh/hosts.yml", &[], SecretFileKind::KeyValue),
    (".config/hub", &[], SecretFileKind::KeyValue),
    ("glab-cli/config.yml", &[], SecretFileKind::KeyValue),
    ("doctl/config.yaml", &[], SecretFileKind::KeyValue),
    (".databrickscfg", &[], SecretFileKind::KeyValue),
    (".sentryclirc", &[], SecretFileKind::KeyValue),
    ("kaggle.json", &[], SecretFileKind::KeyValue),
    ("rclone.conf", &[], SecretFileKind::KeyValue),
    (".docker/config.json", &[], SecretFileKind::KeyValue),
    (".dockercfg", &[], SecretFileKind::KeyValue),
    (".kube/config", &[], SecretFileKind::KeyValue),
    ("kubeconfig", &[], SecretFileKind::KeyValue),
    ("*.kubeconfig", &[], SecretFileKind::KeyValue),
    // Terraform: settings, variables and state (state holds every
    // resource's attributes, passwords included).
    (".terraformrc", &[], SecretFileKind::KeyValue),
    ("terraform.rc", &[], SecretFileKind::KeyValue),
    ("credentials.tfrc.json", &[], SecretFileKind::KeyValue),
    ("*.tfvars", &[], SecretFileKind::KeyValue),
    ("*.tfvars.json", &[], SecretFileKind::KeyValue),
    ("*.tfstate", &[], SecretFileKind::KeyValue),
    ("*.tfstate.backup", &[], SecretFileKind::KeyValue),
    // Application settings that hold connection strings and keys.
    ("appsettings*.json", &[], SecretFileKind::KeyValue),
    ("local.settings.json", &[], SecretFileKind::KeyValue),
    ("wp-config.php", &[], SecretFileKind::KeyValue),
    (".m2/settings.xml", &[], SecretFileKind::KeyValue),
    ("settings-security.xml", &[], SecretFileKind::KeyValue),
    (".gradle/gradle.properties", &[], SecretFileKind::KeyValue),
    ("keystore.properties", &[], SecretFileKind::KeyValue),
    (".my.cnf", &[], SecretFileKind::KeyValue),
    (".mylogin.cnf", &[], SecretFileKind::KeyValue),
    (".htpasswd", &[], SecretFileKind::UserHash),
    // round8 #12: CIFS mount credentials, Google OAuth token caches.
    (".smbcredentials", &[], SecretFileKind::KeyValue),
    ("token.json", &[], SecretFileKind::KeyValue),
    ("tokens.json", &[], SecretFileKind::KeyValue),
    // Private keys and key stores.
    ("id_rsa*", &[], SecretFileKind::PrivateKey),
    ("id_dsa*", &[], SecretFileKind::PrivateKey),
    ("id_ecdsa*", &[], SecretFileKind::PrivateKey),
    ("id_ed25519*", &[], SecretFileKind::PrivateKey),
    ("*.pem", &[], SecretFileKind::PrivateKey),
    ("*.key", &[], SecretFileKind::PrivateKey),
    ("*.p8", &[], SecretFileKind::PrivateKey),
    ("*.p12", &[], SecretFileKind::PrivateKey),
    ("*.pfx", &[], SecretFileKind::PrivateKey),
    ("*.pkcs12", &[], SecretFileKind::PrivateKey),
    ("*.ppk", &[], SecretFileKind::PrivateKey),
    ("*.jks", &[], SecretFileKind::PrivateKey),
    ("*.jceks", &[], SecretFileKind::PrivateKey),
    ("*.keystore", &[], SecretFileKind::PrivateKey),
    ("*.kdbx", &[], SecretFileKind::PrivateKey),
    ("*.ovpn", &[], SecretFileKind::PrivateKey),
    ("*.agekey", &[], SecretFileKind::PrivateKey),
    ("age/keys.txt", &[], SecretFileKind::PrivateKey),
    ("private-keys-v1.d/*", &[], SecretFileKind::PrivateKey),
    // Password managers' and keyrings' stores: what `pass show`,
    // `secret-tool lookup`, `security find-generic-password -w` and `op
    // read` print from (round8 #4; ploy-policy's `credentials.rs`).
    (".password-store/**", &[], SecretFileKind::PrivateKey),
    ("keyrings/*.keyring", &[], SecretFileKind::PrivateKey),
    ("*.keychain", &[], SecretFileKind::PrivateKey),
    ("*.keychain-db", &[], SecretFileKind::PrivateKey),
    (".config/op/config", &[], SecretFileKind::KeyValue),
];

/// The secret-file names as a person reads them (docs, `ploy config`):
/// the same list as [`secret_file_globs`], in any folder, any case.
pub const SECRET_FILE_NAMES: &[&str] = &[
    "environment files: .env* (not .env.example/.env.sample/.env.template), *.env, ?*.env.*, \
     .envs/** (every file in a .envs folder), .flaskenv, .dev.vars, .secrets, dotenv, env.txt",
    ".netrc, _netrc, .pgpass, pgpass.conf, .git-credentials, .vault-token, huggingface/token",
    "package managers: .npmrc, .pypirc, .yarnrc, .yarnrc.yml, pip.conf, pip.ini, .bundle/config",
    "secrets, credentials, .credentials, .credentials.json (bare or secrets.{json,yaml,yml,toml,\
     ini,txt,conf,cfg,properties,xml}, also secret.{...}, *[_.-]secret.{...}, \
     *[_.-]secrets.{...}, credentials.{...,csv,db}), auth.json",
    "client_secret*.json, service-account*.json, service_account*.json",
    "cloud tools: .aws/credentials, .aws/config, .aws/sso/cache/*.json, .aws/cli/cache/*.json, \
     .s3cfg, .boto, application_default_credentials.json, adc.json, access_tokens.db, \
     legacy_credentials/**, accesstokens.json, msal_token_cache.*, \
     service_principal_entries.json, gh/hosts.yml, .config/hub, glab-cli/config.yml, \
     doctl/config.yaml, .databrickscfg, .sentryclirc, kaggle.json, rclone.conf",
    ".docker/config.json, .dockercfg, .kube/config, kubeconfig, *.kubeconfig",
    "terraform: .terraformrc, terraform.rc, credentials.tfrc.json, *.tfvars, *.tfvars.json, \
     *.tfstate, *.tfstate.backup",
    "application settings: appsettings*.json, local.settings.json, wp-config.php, \
     .m2/settings.xml, settings-security.xml, .gradle/gradle.properties, keystore.properties, \
     .my.cnf, .mylogin.cnf, .htpasswd, .smbcredentials, token.json, tokens.json",
    "private keys and key stores: id_rsa*, id_dsa*, id_ecdsa*, id_ed25519*, *.pem, *.key, *.p8, \
     *.p12, *.pfx, *.pkcs12, *.ppk, *.jks, *.jceks, *.keystore, *.kdbx, *.ovpn, *.agekey, \
     age/keys.txt, private-keys-v1.d/*",
    "password managers and keyrings: .password-store/** (pass), keyrings/*.keyring, \
     *.keychain, *.keychain-db, .config/op/config (1Password)",
    "and each environment file's name as an editor or a person backs it up: #name#, .#name, \
     name~, name.swp/.swo/.swn, name.bak/.old/.orig/.save/.backup/.tmp/.copy/.1",
];

/// Project configuration files that hold credentials next to ordinary
/// settings (round8 #12): Spring's `application*.properties`/`.yml` and
/// `bootstrap*`, Rails' `database.yml`, Docker Compose files (their
/// `environment:` entries). They are read often and mostly hold no secret,
/// so reading them does not ask (they are not in [`secret_file_globs`]);
/// the walk of [`crate::known_secrets`] finds them as it finds secret
/// files, and the values of their entries with a secret-looking name
/// ([`crate::is_secret_key_name`]), the passwords in their URLs and the
/// provider tokens in them are known secrets (`extract.rs`). Lowercase,
/// matched against the path lowercased, in any folder.
pub const CREDENTIAL_CONFIG_FILES: &[&str] = &[
    "application.properties",
    "application-*.properties",
    "application.{yml,yaml}",
    "application-*.{yml,yaml}",
    "bootstrap.{yml,yaml,properties}",
    "bootstrap-*.{yml,yaml,properties}",
    "database.{yml,yaml}",
    "docker-compose.{yml,yaml}",
    "docker-compose.*.{yml,yaml}",
    "docker-compose-*.{yml,yaml}",
    "compose.{yml,yaml}",
    "compose.*.{yml,yaml}",
];

/// Whether `path` (`/`-separated, any case) names one of the
/// [`CREDENTIAL_CONFIG_FILES`]. If the list could not be read (a
/// programming error the tests catch), every path is one: more values
/// read, never fewer.
pub fn is_credential_config_file(path: &str) -> bool {
    static COMPILED: OnceLock<Option<NameGlobs>> = OnceLock::new();
    let compiled = COMPILED.get_or_init(|| {
        let globs: Vec<String> = CREDENTIAL_CONFIG_FILES
            .iter()
            .map(|glob| format!("**/{glob}"))
            .collect();
        NameGlobs::new(globs.iter().map(String::as_str))
    });
    match compiled {
        Some(globs) => globs
            .first_match(path.to_ascii_lowercase().as_bytes())
            .is_some(),
        None => true,
    }
}

/// Every glob of the rule with the kind it gives, lowercase spellings
/// first (a refusal then names the readable one), then the same globs with
/// each letter spelled in both cases (`[eE]`).
fn globs_with_kinds() -> Vec<(String, SecretFileKind)> {
    let lower = lower_globs_with_kinds();
    let mut all = lower.clone();
    for (glob, kind) in lower {
        let free = case_free(&glob);
        if free != glob {
            all.push((free, kind));
        }
    }
    all
}

/// Every glob of the rule with its kind, lowercase only: matched against a
/// path with its ASCII letters lowercased, the same answers as
/// [`globs_with_kinds`] on the path as written, with half the globs, most
/// of them literal names or extensions (cheap for globset).
fn lower_globs_with_kinds() -> Vec<(String, SecretFileKind)> {
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
        // Backups of environment files only: every glob here is compiled
        // on each hook call (twice, both cases spelled out), and backups of
        // all names tripled that cost.
        // A `PREFIX*` rule with exceptions is spelled as many globs; its
        // backups take one (`{#,.#}.env*`: the suffix forms are in `*`).
        let decorated: Vec<String> = match *kind {
            SecretFileKind::Env if !except.is_empty() => {
                vec![format!("{BACKUP_PREFIXES}{pattern}")]
            }
            SecretFileKind::Env => backups(pattern),
            _ => Vec::new(),
        };
        lower.extend(
            spelled
                .into_iter()
                .chain(decorated)
                .map(|glob| (format!("**/{glob}"), *kind)),
        );
    }
    lower
}

/// What editors and people leave next to a file they edit: Emacs'
/// `#name#` and `.#name`, `name~`, Vim's swap files, `.bak`-like copies
/// (round6 #6: `#.env#` held the `.env`'s values without a question).
const BACKUP_PREFIXES: &str = "{#,.#}";
const BACKUP_SUFFIXES: &str = "{~,#,.swp,.swo,.swn,.bak,.old,.orig,.save,.backup,.tmp,.copy,.1}";

/// The backup spellings of `glob` ([`BACKUP_PREFIXES`],
/// [`BACKUP_SUFFIXES`]) on its last part; none for a folder pattern
/// (`.envs/**`), and no suffix (prefix) where a `*` at the end (start)
/// already takes it.
fn backups(glob: &str) -> Vec<String> {
    if glob.contains("**") {
        return Vec::new();
    }
    let (folder, name) = match glob.rsplit_once('/') {
        Some((folder, name)) => (format!("{folder}/"), name),
        None => (String::new(), glob),
    };
    let mut out = Vec::new();
    if !name.starts_with(['*', '?']) {
        out.push(format!("{folder}{BACKUP_PREFIXES}{name}"));
        if !name.ends_with('*') {
            out.push(format!("{folder}#{name}#"));
        }
    }
    if !name.ends_with('*') {
        out.push(format!("{folder}{name}{BACKUP_SUFFIXES}"));
    }
    out
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
    // Both cases in the negated class: the readable (lowercase) glob must
    // not take `.env.EXAMPLE` that the rule excepts.
    let class: String = next
        .iter()
        .flat_map(|c| [c.to_ascii_lowercase(), c.to_ascii_uppercase()])
        .collect::<std::collections::BTreeSet<char>>()
        .into_iter()
        .collect();
    out.push(format!("{base}[!{class}]*"));
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
/// `literal_separator`), `\` an escape. [`secret_file_kind`] is the
/// lowercase half of these globs, compiled with those options, matched
/// against the path lowercased (the same answers).
pub fn secret_file_globs() -> Vec<String> {
    globs_with_kinds()
        .into_iter()
        .map(|(glob, _)| glob)
        .collect()
}

/// The rule, read once per process: the lowercase globs (matched against
/// the path lowercased) without a compile step (`name_globs.rs`; issue 16:
/// compiling them with `globset` on each hook call cost more than the rest
/// of the call), with each glob's kind.
struct Compiled {
    globs: NameGlobs,
    kinds: Vec<SecretFileKind>,
}

fn compiled() -> Option<&'static Compiled> {
    static COMPILED: OnceLock<Option<Compiled>> = OnceLock::new();
    COMPILED
        .get_or_init(|| {
            let (globs, kinds): (Vec<String>, Vec<SecretFileKind>) =
                lower_globs_with_kinds().into_iter().unzip();
            Some(Compiled {
                globs: NameGlobs::new(globs.iter().map(String::as_str))?,
                kinds,
            })
        })
        .as_ref()
}

/// The index, in [`secret_file_globs`], of the first glob that matches
/// `path` (`/`-separated) with ASCII case ignored: one of the lowercase
/// globs, which come first. ploy-policy's built-in `read ask` rules are
/// those globs; it asks through this function instead of compiling them
/// (issue 16). `Some(0)` (the first glob, `**/.env`) for every path when the
/// rule could not be read (a programming error the tests catch): more
/// questions, never fewer.
pub fn secret_file_glob_index(path: &str) -> Option<usize> {
    let Some(compiled) = compiled() else {
        return Some(0);
    };
    compiled
        .globs
        .first_match(path.to_ascii_lowercase().as_bytes())
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
        .globs
        .first_match(path.to_ascii_lowercase().as_bytes())
        .map(|index| {
            compiled
                .kinds
                .get(index)
                .copied()
                .unwrap_or(SecretFileKind::KeyValue)
        })
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
            // round6 #6.
            ".envs/.production/.django",
            "deploy/.envs/.local/.postgres",
            ".s3cfg",
            ".config/gh/hosts.yml",
            ".aws/config",
            ".bundle/config",
            "auth.json",
            ".terraformrc",
            "terraform.rc",
            "terraform.tfstate",
            "env/prod/terraform.tfstate.backup",
            "appsettings.json",
            "appsettings.Development.json",
            ".secrets",
            "dotenv",
            "env.txt",
            "#.env#",
            ".env~",
            ".env.swp",
            ".env.bak",
            "#.envrc#",
            "dotenv.bak",
            "#.secrets#",
            "config/master.key",
            "config/credentials/production.key",
            "key.ppk",
            // Other tools' credential files.
            ".config/gcloud/application_default_credentials.json",
            ".config/gcloud/legacy_credentials/a@b.com/adc.json",
            ".config/gcloud/access_tokens.db",
            ".azure/accessTokens.json",
            ".azure/msal_token_cache.json",
            ".azure/service_principal_entries.json",
            ".boto",
            ".dockercfg",
            ".mylogin.cnf",
            "wp-config.php",
            "config/secrets.yml",
            "k8s/db-secret.yaml",
            "k8s/secret.yaml",
            ".m2/settings.xml",
            ".gradle/gradle.properties",
            "keystore.properties",
            ".claude/.credentials.json",
            ".codex/auth.json",
            ".kaggle/kaggle.json",
            ".databrickscfg",
            ".config/rclone/rclone.conf",
            ".terraform.d/credentials.tfrc.json",
            ".cache/huggingface/token",
            ".config/sops/age/keys.txt",
            "vault.kdbx",
            "client.ovpn",
            "AuthKey_ABC123.p8",
            "pgpass.conf",
            "pip.conf",
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
            "config.yml",
            "settings.xml",
            "gradle.properties",
            "hosts.yml",
            "src/secrets_manager.rs",
            "env.rs",
            "env.ts",
            "dotenv.js",
            "secret.rs",
            "terraform.tf",
            "main.tfstate.rs",
            "appsettings.cs",
            "auth.js",
            "config.json",
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

    // The rule policy asks with (every glob, letters in both cases) and
    // the rule the walk uses (lowercase globs, lowercased path) agree.
    #[test]
    fn the_policy_globs_and_the_walk_rule_agree() {
        let mut builder = globset::GlobSetBuilder::new();
        for glob in secret_file_globs() {
            builder.add(
                globset::GlobBuilder::new(&glob)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .unwrap(),
            );
        }
        let policy = builder.build().unwrap();
        for path in [
            ".ENV",
            "a/.Env.Local",
            ".env.EXAMPLE",
            "#.Env#",
            "x/.AWS/Config",
            "AppSettings.Production.JSON",
            "Terraform.TFSTATE.Backup",
            ".Envs/.Prod/.Django",
            "src/Main.rs",
            "#.Secrets#",
            "Key.PPK",
            "readme.md",
            "ID_RSA.pub",
        ] {
            assert_eq!(policy.is_match(path), is_secret_file(path), "{path}");
        }
    }

    /// Paths made from the rule's own globs: each wildcard filled with
    /// several texts, each class with a member and a non-member, each brace
    /// with each alternative, under several folders, with endings added.
    fn paths_from_the_rule() -> Vec<String> {
        let fills = ["", "a", ".", "e", "x.env", "ab.c", "-", "#"];
        let mut names = std::collections::BTreeSet::new();
        for glob in lower_globs_with_kinds().into_iter().map(|(g, _)| g) {
            let glob = glob.trim_start_matches("**/").to_string();
            let mut spelled = vec![glob];
            while let Some(open) = spelled
                .iter()
                .find_map(|g| g.find('{').map(|o| (g.clone(), o)))
            {
                let (g, open) = open;
                let close = g[open..].find('}').unwrap() + open;
                spelled.retain(|x| *x != g);
                for alternative in g[open + 1..close].split(',') {
                    spelled.push(format!("{}{alternative}{}", &g[..open], &g[close + 1..]));
                }
            }
            for g in spelled {
                for fill in fills {
                    let mut out = String::new();
                    let mut chars = g.chars().peekable();
                    while let Some(c) = chars.next() {
                        match c {
                            '*' => {
                                if chars.peek() == Some(&'*') {
                                    chars.next();
                                    out.push_str("d/e");
                                } else {
                                    out.push_str(fill);
                                }
                            }
                            '?' => out.push(fill.chars().next().unwrap_or('q')),
                            '[' => {
                                let class: String =
                                    chars.by_ref().take_while(|c| *c != ']').collect();
                                let member =
                                    class.trim_start_matches('!').chars().next().unwrap_or('x');
                                out.push(if fill.is_empty() { member } else { 'z' });
                            }
                            c => out.push(c),
                        }
                    }
                    names.insert(out);
                }
            }
        }
        let mut paths = Vec::new();
        for name in names {
            for folder in ["", "sub/", "/home/u/p/", ".aws/", "a/.envs/", ".kube/"] {
                for ending in ["", "x", ".bak", "/y", "~"] {
                    let path = format!("{folder}{name}{ending}");
                    paths.push(path.clone());
                    paths.push(path.to_ascii_uppercase());
                    if let Some(first) = path.get(..1) {
                        paths.push(format!("{}{}", first.to_ascii_uppercase(), &path[1..]));
                    }
                    if path.len() > 1 {
                        paths.push(path[..path.len() - 1].to_string());
                    }
                }
            }
        }
        paths
    }

    // proves: PERM-2, REDACT-1 (issue 16: the rule matched without a
    // compile step gives globset's answer for every path made from it)
    #[test]
    fn the_uncompiled_rule_answers_as_globset_does() {
        let compile = |globs: &[String]| {
            let mut builder = globset::GlobSetBuilder::new();
            for glob in globs {
                builder.add(
                    globset::GlobBuilder::new(glob)
                        .literal_separator(true)
                        .backslash_escape(true)
                        .build()
                        .unwrap(),
                );
            }
            builder.build().unwrap()
        };
        let lower: Vec<String> = lower_globs_with_kinds()
            .into_iter()
            .map(|(g, _)| g)
            .collect();
        let lower_set = compile(&lower);
        let every = compile(&secret_file_globs());
        let paths = paths_from_the_rule();
        assert!(paths.len() > 10_000, "{}", paths.len());
        let mut secret = 0;
        for path in &paths {
            let lowered = path.to_ascii_lowercase();
            let want = lower_set.matches(&lowered).into_iter().min();
            assert_eq!(secret_file_glob_index(path), want, "{path}");
            assert_eq!(every.is_match(path), want.is_some(), "{path}");
            secret += usize::from(want.is_some());
        }
        // The corpus holds both answers in numbers.
        assert!(secret > 1000 && paths.len() - secret > 1000, "{secret}");
    }

    // Every pattern of the rule is in the list people read.
    #[test]
    fn the_readable_list_names_every_pattern() {
        let names = SECRET_FILE_NAMES.join(" ");
        for (pattern, _, _) in RULES {
            let shown = pattern.split('{').next().unwrap_or(pattern);
            assert!(
                names.contains(shown),
                "{pattern} is not in SECRET_FILE_NAMES"
            );
        }
    }

    #[test]
    fn readable_globs_come_first() {
        let globs = secret_file_globs();
        assert_eq!(globs[0], "**/.env");
        assert!(globs.iter().any(|g| g == "**/.[eE][nN][vV]"));
        assert!(globs.iter().all(|g| g.starts_with("**/")));
    }
}
