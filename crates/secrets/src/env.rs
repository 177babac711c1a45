//! One shared list of secret-looking environment variable names (SBX-4,
//! REDACT-1). False positives are acceptable (a variable removed from the
//! sandbox, a harmless value redacted); false negatives are not.

/// Name fragments that mark a variable as secret, matched case-insensitively
/// anywhere in the name. Generic words first, then providers and services
/// whose variables commonly hold keys, tokens or credentialed URLs.
const SECRET_NAME_FRAGMENTS: &[&str] = &[
    // Generic words.
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PWORD",
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
    "_PAT",
    "DSN",
    "DATABASE_URL",
    "_DB_URL",
    "CONNECTION_STRING",
    "CONN_STR",
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
];

/// Whether the environment variable `name` looks like it holds a secret
/// (case-insensitive fragment match against one shared list). Used by the
/// sandbox to remove variables (SBX-4) and by redaction to learn values
/// (REDACT-1).
pub fn is_secret_env_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAME_FRAGMENTS
        .iter()
        .any(|fragment| upper.contains(fragment))
}

/// The non-empty values of the secret-looking variables among `vars`, for
/// [`crate::Redactor::new`] (which refuses the ones too short to redact).
pub fn secret_values_from_env<I: IntoIterator<Item = (String, String)>>(vars: I) -> Vec<String> {
    vars.into_iter()
        .filter(|(name, value)| !value.is_empty() && is_secret_env_name(name))
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
            "PATH", "HOME", "LANG", "TERM", "USER", "SHELL", "PWD", "TZ", "LC_ALL",
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
            secret_values_from_env(vars),
            vec!["tok-1234567890".to_owned()]
        );
    }
}
