//! One shared list of secret-looking environment variable names (SBX-4,
//! REDACT-1), and the one decision "is this variable a secret" by name and
//! value ([`is_secret_env`]). False positives are acceptable (a variable
//! removed from the sandbox, a harmless value redacted); false negatives are
//! not.
//!
//! # Known non-secrets, decided by value
//!
//! Some names match a fragment but name a path, not a secret (`PWD` holds
//! the working folder, `SSH_AUTH_SOCK` a socket). [`PATH_VALUED_NAMES`] lists
//! them; such a variable is not a secret when its value is an absolute path
//! that exists (the caller says which paths exist, so the decision stays
//! pure). Any other value under those names is a secret (`PWD=hunter2hunter2`
//! is a password).

use std::path::Path;

use crate::shape::{ShapeRule, secret_shape};

/// Name fragments that mark a variable as secret, matched case-insensitively
/// anywhere in the name: the generic words for a secret (in several
/// languages), then ([`PROVIDER_NAME_FRAGMENTS`]) providers and services
/// whose variables commonly hold keys, tokens or credentialed URLs.
const SECRET_NAME_FRAGMENTS: &[&str] = &[
    // Generic words.
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "PASS",
    "PWORD",
    "PWD",
    "PW",
    "SEED",
    "MNEMONIC",
    "PHRASE",
    "WEBHOOK",
    "LICENSE",
    "LICENCE",
    "CREDENTIAL",
    "CRED",
    "AUTH",
    "COOKIE",
    "SESSION",
    "PRIVATE",
    "SIGNING",
    "CERT",
    "SALT",
    "BEARER",
    "API",
    "DSN",
    "DATABASE_URL",
    "_DB_URL",
    "CONNECTION_STRING",
    "CONN_STR",
    // The word for "password" or "secret" in other languages (secrets5 #13).
    "SENHA",
    "CLAVE",
    "CONTRASE",
    "GEHEIM",
    "KENNWORT",
    "WACHTWOORD",
    "PAROL",
    "HASLO",
    "HESLO",
    "LOSENORD",
    "SALASANA",
    "SIFRE",
    "JELSZO",
    "PASSORD",
    "ADGANGSKODE",
    "MATKHAU",
    "SEGREDO",
    "SEGRETO",
];

/// Providers and services whose environment variables commonly hold keys,
/// tokens or credentialed URLs: part of the environment's name rule
/// ([`is_secret_env_name`]), not of a configuration key's
/// ([`is_secret_key_name`]: `postgres.host` names no secret).
const PROVIDER_NAME_FRAGMENTS: &[&str] = &[
    // AI providers and search backends.
    "OPENAI",
    "ANTHROPIC",
    "CLAUDE",
    "TAVILY",
    "GEMINI",
    "GOOGLE",
    "VERTEX",
    "MISTRAL",
    "COHERE",
    "GROQ",
    "DEEPSEEK",
    "PERPLEXITY",
    "PPLX",
    "REPLICATE",
    "TOGETHER",
    "FIREWORKS",
    "OPENROUTER",
    "XAI_",
    "GROK",
    "HF_",
    "HUGGING",
    "ELEVENLABS",
    "VOYAGE",
    "JINA",
    "EXA_",
    "BRAVE",
    "SERP",
    "BING",
    "KAGI",
    "FIRECRAWL",
    "PINECONE",
    "WEAVIATE",
    "QDRANT",
    "LANGCHAIN",
    "LANGSMITH",
    "WANDB",
    // Clouds, forges, registries and services.
    "AWS_",
    "AZURE",
    "GCP",
    "GCLOUD",
    "GITHUB",
    "GH_",
    "GITLAB",
    "GL_",
    "BITBUCKET",
    "NPM_",
    "YARN_",
    "PYPI",
    "TWINE",
    "CARGO_REGISTRY",
    "DOCKER",
    "HEROKU",
    "VERCEL",
    "NETLIFY",
    "SUPABASE",
    "FIREBASE",
    "CLOUDFLARE",
    "CF_",
    "DIGITALOCEAN",
    "DO_",
    "LINODE",
    "HCLOUD",
    "STRIPE",
    "SLACK",
    "DISCORD",
    "TELEGRAM",
    "TWILIO",
    "SENDGRID",
    "MAILGUN",
    "POSTMARK",
    "SENTRY",
    "DATADOG",
    "DD_",
    "NEWRELIC",
    "CODECOV",
    "CIRCLE",
    "TRAVIS",
    "VAULT",
    "OP_",
    "MONGO",
    "POSTGRES",
    "PGPASS",
    "MYSQL",
    "REDIS",
    "AMQP",
    "RABBIT",
    "KAFKA",
    "SMTP",
    "LDAP",
    "OAUTH",
    "JWT",
    "SSH",
    "GPG",
    "PGP",
    "HMAC",
];

/// Short words that mark a variable as secret only as a whole part of its
/// name (parts split by `_`, `-`, `.`): `DB_PIN`, `PIN_CODE`, `TOTP` but not
/// `SHIPPING` or `PINNED_VERSION` (secrets5 #13); `PAT` (a personal access
/// token: `GITLAB_PAT`, `AZURE_DEVOPS_PAT`) but not `BUNDLE_PATH`,
/// `CLASSPATH` or `PATTERN` (a fragment `_PAT` took every `*_PATH`).
const SECRET_NAME_WORDS: &[&str] = &[
    "PIN", "OTP", "TOTP", "HOTP", "SID", "CONN", "PSK", "MFA", "PAT",
];

/// Names that match a fragment but hold a path: not secrets when the value
/// is an existing absolute path (module docs).
pub const PATH_VALUED_NAMES: &[&str] = &[
    "PWD",
    "OLDPWD",
    "SSH_AUTH_SOCK",
    "GNUPGHOME",
    "PASSWORD_STORE_DIR",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "XDG_SESSION_PATH",
    "XDG_SEAT_PATH",
];

/// Whether the environment variable `name` looks like it holds a secret
/// (case-insensitive fragment match against one shared list). Used by the
/// sandbox to remove variables (SBX-4) and by redaction to learn values
/// (REDACT-1). Without the value this answer is conservative: `PWD` is
/// secret-looking here; [`is_secret_env`] excuses it when it holds a path.
pub fn is_secret_env_name(name: &str) -> bool {
    is_secret_key_name(name) || {
        let upper = name.to_ascii_uppercase();
        PROVIDER_NAME_FRAGMENTS
            .iter()
            .any(|fragment| upper.contains(fragment))
    }
}

/// Whether a configuration key (the last part of `spring.datasource.password`,
/// a Compose `environment:` entry's name) names a secret: the generic words
/// of the name rule (`PASSWORD`, `PW`, `PASS`, `SECRET`, `TOKEN`, `KEY`,
/// `AUTH`, ..., the words for "password" in other languages, `PIN`-like
/// whole parts), without the providers' names that [`is_secret_env_name`]
/// adds for the environment (round8 #12: a project's settings file says
/// `postgres.host` and `redis.port`, which name no secret).
pub fn is_secret_key_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAME_FRAGMENTS
        .iter()
        .any(|fragment| upper.contains(fragment))
        || upper
            .split(['_', '-', '.'])
            .any(|part| SECRET_NAME_WORDS.contains(&part))
}

/// Why an environment variable counts as a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvSecretReason {
    /// Its name holds a secret-looking fragment.
    Name,
    /// Its value looks like a credential.
    Shape(ShapeRule),
    /// A credential inside its value under an ordinary name: a
    /// credential-named part of an options list or a JSON object
    /// (`JAVA_TOOL_OPTIONS=-Djavax.net.ssl.keyStorePassword=…`,
    /// `SPRING_APPLICATION_JSON={"…":{"password":…}}`; round7 #8). Only
    /// that part is the secret, not the whole value.
    Embedded,
}

/// The one decision for an environment variable (SBX-4, REDACT-1): a secret
/// when its name looks secret (unless it is a known path-valued name holding
/// an existing absolute path, module docs), or when its value looks like a
/// credential by shape ([`crate::secret_shape`]). `path_exists` answers
/// whether a path exists (the caller's I/O; tests pass a fixed answer).
pub fn env_secret_reason(
    name: &str,
    value: &str,
    path_exists: &dyn Fn(&Path) -> bool,
) -> Option<EnvSecretReason> {
    if let Some(rule) = secret_shape(value) {
        return Some(EnvSecretReason::Shape(rule));
    }
    if !is_secret_env_name(name) {
        return None;
    }
    let path_valued = PATH_VALUED_NAMES
        .iter()
        .any(|known| known.eq_ignore_ascii_case(name));
    let is_path = || {
        let path = Path::new(value);
        path.is_absolute() && path_exists(path)
    };
    if path_valued && is_path() {
        return None;
    }
    Some(EnvSecretReason::Name)
}

/// [`env_secret_reason`] as a yes/no, for filters (the sandbox's environment).
pub fn is_secret_env(name: &str, value: &str, path_exists: &dyn Fn(&Path) -> bool) -> bool {
    env_secret_reason(name, value, path_exists).is_some()
}

/// The non-empty values of the secret variables among `vars` (by name or by
/// value shape, [`is_secret_env`]), for [`crate::Redactor::new`] (which
/// refuses the ones too short to redact). Prefer [`crate::SecretSet::from_env`],
/// which also says why each value is there.
pub fn secret_values_from_env<I: IntoIterator<Item = (String, String)>>(
    vars: I,
    path_exists: &dyn Fn(&Path) -> bool,
) -> Vec<String> {
    vars.into_iter()
        .filter(|(name, value)| !value.is_empty() && is_secret_env(name, value, path_exists))
        .map(|(_, value)| value)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: SBX-4 (no false negatives on the names that matter, any case)
    #[test]
    fn known_secret_names_are_secret_in_any_case() {
        for name in [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "TAVILY_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_ACCESS_KEY_ID",
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "HF_TOKEN",
            "HUGGING_FACE_HUB_TOKEN",
            "NPM_TOKEN",
            "CARGO_REGISTRY_TOKEN",
            "PGPASSWORD",
            "MYSQL_PWD",
            "DATABASE_URL",
            "SENTRY_DSN",
            "SLACK_WEBHOOK_URL",
            "STRIPE_SK",
            "my_password",
            "db_passwd",
            "Session_Cookie",
            "private_key_pem",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "BASIC_AUTH",
            "DOCKER_CONFIG_JSON",
            "XAI_API_KEY",
            "GROQ_KEY",
            "openrouter",
        ] {
            assert!(is_secret_env_name(name), "{name} must count as secret");
        }
    }

    // proves: SBX-4 (ordinary names stay, so the sandbox keeps a usable env)
    #[test]
    fn ordinary_names_are_not_secret() {
        for name in [
            "PATH", "HOME", "LANG", "TERM", "USER", "SHELL", "TZ", "LC_ALL", "EDITOR", "DISPLAY",
            "HOSTNAME", "LOGNAME", "MAIL", "SHLVL",
        ] {
            assert!(!is_secret_env_name(name), "{name} must not count as secret");
        }
    }

    // proves: REDACT-1 (values are taken by name; empty values skipped)
    #[test]
    fn values_are_taken_from_secret_names_only() {
        let vars = vec![
            ("PATH".to_owned(), "/usr/bin:/bin".to_owned()),
            ("MY_TOKEN".to_owned(), "tok-1234567890".to_owned()),
            ("EMPTY_KEY".to_owned(), String::new()),
        ];
        assert_eq!(
            secret_values_from_env(vars, &|_| true),
            vec!["tok-1234567890".to_owned()]
        );
    }

    // proves: SBX-4, REDACT-1 (issue 14: the names that let a password out)
    #[test]
    fn added_fragments_are_secret_anywhere_in_the_name() {
        for name in [
            "SERVICE_PW",
            "PW",
            "MYSQL_PWD",
            "PASS",
            "DB_PASSWD",
            "GPG_PASSPHRASE",
            "WALLET_SEED",
            "BIP39_MNEMONIC",
            "RECOVERY_PHRASE",
            "TEAMS_WEBHOOK",
            "SENTRY_DSN",
            "PRODUCT_LICENSE",
            "JETBRAINS_LICENCE",
            "SIGNING_KEY_ID",
            "PRIVATE_THING",
            "MY_CREDENTIALS",
            "X_AUTH",
            "COOKIE_JAR",
            "USER_SESSION",
            "DBPASSWORD",
        ] {
            assert!(is_secret_env_name(name), "{name} must count as secret");
            assert!(
                is_secret_env(name, "some-value-123", &|_| true),
                "{name} with an ordinary value must count as secret"
            );
        }
    }

    // proves: SBX-4, REDACT-1 (secrets5 #13: other languages' words, PIN
    // and friends as name parts; credentials inside URLs and connection
    // strings under any name)
    #[test]
    fn other_languages_pins_and_url_credentials_are_secret() {
        for name in [
            "SENHA",
            "CLAVE",
            "CONTRASENA",
            "GEHEIM",
            "DB_PIN",
            "PIN",
            "PIN_CODE",
            "USER_OTP",
            "HMAC_KEY",
            "DB_CONN",
            "PASSWORT",
            "MOT_DE_PASSE",
            "WACHTWOORD",
            "HASLO",
        ] {
            assert!(is_secret_env_name(name), "{name}");
        }
        for name in [
            "SHIPPING",
            "PINNED_VERSION",
            "MAPPING",
            "OPTIONS",
            "CONSOLE",
        ] {
            assert!(!is_secret_env_name(name), "{name}");
        }
        for (name, value, password) in [
            (
                "HTTPS_PROXY",
                "http://bob:Zq8pWm3vTk9rLs2@proxy.corp:3128",
                "Zq8pWm3vTk9rLs2",
            ),
            (
                "GIT_URL",
                "https://x-access-token:Zq8pWm3vTk9rLs2@github.com/o/r",
                "Zq8pWm3vTk9rLs2",
            ),
            (
                "JDBC_URL",
                "jdbc:mysql://db:3306/app?user=app&password=Zq8pWm3vTk9rLs2",
                "Zq8pWm3vTk9rLs2",
            ),
            (
                "CONN_STRING_X",
                "Server=db;Database=app;User Id=sa;Pwd=Zq8pWm3vTk9rLs2;",
                "Zq8pWm3vTk9rLs2",
            ),
        ] {
            assert!(is_secret_env(name, value, &|_| false), "{name}");
            let set = crate::SecretSet::from_env([(name.to_owned(), value.to_owned())], &|_| false);
            let out = set
                .redactor()
                .redact(&format!("?p={password}"))
                .into_owned();
            assert!(!out.contains(password), "{name}: {out}");
        }
        // A URL without a password stays an ordinary value.
        assert!(!is_secret_env(
            "HTTP_PROXY",
            "http://proxy.corp:3128",
            &|_| false
        ));
    }

    // proves: SBX-4, REDACT-1 (`PAT` is a secret word only as a whole part
    // of the name: personal access tokens yes, paths and patterns no)
    #[test]
    fn pat_is_a_whole_word_not_a_prefix_of_path() {
        for name in [
            "GITHUB_PAT",
            "GH_PAT",
            "GITLAB_PAT",
            "AZURE_DEVOPS_EXT_PAT",
            "PAT",
            "pat-for-ci",
            "MY.PAT",
        ] {
            assert!(is_secret_env_name(name), "{name}");
        }
        for name in [
            "BUNDLE_PATH",
            "CLASSPATH",
            "PATTERN",
            "LD_LIBRARY_PATH",
            "GEM_PATH",
            "FILE_PATTERN",
            "PATCH_LEVEL",
            "XDG_DATA_PATH",
        ] {
            assert!(!is_secret_env_name(name), "{name}");
            assert!(!is_secret_env(name, "/usr/lib/x", &|_| false), "{name}");
        }
    }

    // proves: SBX-4, REDACT-1 (known non-secrets are decided by value)
    #[test]
    fn path_valued_names_are_secret_unless_they_hold_an_existing_path() {
        let exists = |path: &Path| path == Path::new("/home/alice/work");
        assert!(!is_secret_env("PWD", "/home/alice/work", &exists));
        assert!(!is_secret_env("OLDPWD", "/home/alice/work", &exists));
        // A path that does not exist, a relative path, or any other value:
        // a secret (PWD=... may be a password).
        assert!(is_secret_env("PWD", "/home/alice/gone", &exists));
        assert!(is_secret_env("PWD", "home/alice/work", &exists));
        assert!(is_secret_env("PWD", "Tr0ub4dor-and-3-horses", &exists));
        // Only the listed names are excused: a password that happens to be
        // an existing path stays a secret under any other name.
        assert!(is_secret_env("SERVICE_PW", "/home/alice/work", &exists));
        assert!(is_secret_env("MYSQL_PWD", "/home/alice/work", &exists));
    }

    // proves: SBX-4, REDACT-1 (values that look like credentials, any name)
    #[test]
    fn credential_shaped_values_are_secret_under_any_name() {
        for value in [
            "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "AKIAIOSFODNN7EXAMPLE",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc123def456",
            "a8Fj2kL9qZ0xW3vB7nM1pQ4r",
        ] {
            assert_eq!(
                env_secret_reason("BUILD_INFO", value, &|_| false)
                    .map(|r| matches!(r, EnvSecretReason::Shape(_))),
                Some(true),
                "{value}"
            );
        }
        // Commit hashes and ordinary values under ordinary names stay.
        for (name, value) in [
            ("GIT_COMMIT", "3f786850e387550fdab836ed7e6dc881de23001b"),
            ("PATH", "/usr/local/bin:/usr/bin"),
            ("LANG", "C.UTF-8"),
            ("TERM", "xterm-256color"),
        ] {
            assert!(!is_secret_env(name, value, &|_| true), "{name}={value}");
        }
    }
}
