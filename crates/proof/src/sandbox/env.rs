//! The sandboxed program's environment, built in the parent (SBX-4).
//!
//! The environment is built here, before the sandbox's init process starts,
//! and the init is started with exactly this environment: clearing it later,
//! inside the sandbox, would leave the secrets readable in `/proc/1/environ`.

use std::ffi::OsString;

/// Names passed from the caller's environment when present (`LC_*` too).
pub const ALLOWED_ENV_NAMES: &[&str] = &["PATH", "LANG", "LANGUAGE", "TERM", "TZ"];

/// Whether a variable name looks like it holds a secret (SBX-4).
///
/// Uses `ploy_secrets`' rule and adds a local, stricter net of name parts so a
/// gap in one list does not let a secret through.
pub fn looks_secret(name: &str) -> bool {
    if ploy_secrets::is_secret_env_name(name) {
        return true;
    }
    let upper = name.to_ascii_uppercase();
    const PARTS: &[&str] = &[
        "SECRET",
        "TOKEN",
        "PASSWORD",
        "PASSWD",
        "PASS",
        "KEY",
        "CREDENTIAL",
        "AUTH",
        "COOKIE",
        "SESSION",
        "PRIVATE",
        "CERT",
    ];
    PARTS.iter().any(|part| upper.contains(part))
}

fn is_allowed(name: &str, extra: &[String]) -> bool {
    ALLOWED_ENV_NAMES.contains(&name)
        || name.starts_with("LC_")
        || extra.iter().any(|allowed| allowed == name)
}

/// Builds the sandboxed program's environment from `parent` (usually
/// `std::env::vars_os()`): only allowlisted names (plus `extra`), never a
/// secret-looking name, never a value that is not UTF-8; then `HOME` and
/// `TMPDIR` pointing inside the sandbox. A missing `PATH` gets a plain default.
pub fn build_env(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
    extra: &[String],
    sandbox_home: &str,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = Vec::new();
    for (name, value) in parent {
        let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
            continue;
        };
        if matches!(name, "HOME" | "TMPDIR")
            || !is_allowed(name, extra)
            || looks_secret(name)
            || ploy_secrets::is_secret_env(name, value, &|path| path.exists())
        {
            continue;
        }
        if env.iter().any(|(known, _)| known == name) {
            continue;
        }
        env.push((name.to_string(), value.to_string()));
    }
    if !env.iter().any(|(name, _)| name == "PATH") {
        env.push((
            "PATH".to_string(),
            "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin".to_string(),
        ));
    }
    env.push(("HOME".to_string(), sandbox_home.to_string()));
    env.push(("TMPDIR".to_string(), "/tmp".to_string()));
    env.sort();
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(list: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        list.iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)))
            .collect()
    }

    // proves: SBX-4
    #[test]
    fn only_allowlisted_names_pass_and_secrets_never_do() {
        let env = build_env(
            vars(&[
                ("PATH", "/usr/bin"),
                ("LANG", "C.UTF-8"),
                ("LC_ALL", "C"),
                ("AWS_SECRET_ACCESS_KEY", "canary"),
                ("GITHUB_TOKEN", "canary"),
                ("LC_API_TOKEN", "canary"),
                ("OPENAI_API_KEY", "canary"),
                ("LD_PRELOAD", "/tmp/x.so"),
                ("HOME", "/home/me"),
                ("RANDOM_VAR", "x"),
            ]),
            &["MY_AUTH_TOKEN".to_string(), "CARGO_TERM_COLOR".to_string()],
            "/tmp/home",
        );
        let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["HOME", "LANG", "LC_ALL", "PATH", "TMPDIR"]);
        assert!(env.contains(&("HOME".to_string(), "/tmp/home".to_string())));
        assert!(env.iter().all(|(_, v)| v != "canary"));
    }

    // proves: SBX-4
    #[test]
    fn allowlisted_extra_name_that_looks_secret_is_still_removed() {
        let env = build_env(
            vars(&[("DEPLOY_PASSWORD", "canary"), ("CARGO_TERM_COLOR", "never")]),
            &[
                "DEPLOY_PASSWORD".to_string(),
                "CARGO_TERM_COLOR".to_string(),
            ],
            "/tmp/home",
        );
        assert!(env.iter().all(|(n, _)| n != "DEPLOY_PASSWORD"));
        assert!(env.iter().any(|(n, _)| n == "CARGO_TERM_COLOR"));
    }
}
