//! The sandboxed program's environment, built in the parent (SBX-4).
//!
//! The environment is built here, before the sandbox's init process starts,
//! and the init is started with exactly this environment: clearing it later,
//! inside the sandbox, would leave the secrets readable in `/proc/1/environ`.

use std::ffi::OsString;
use std::path::Path;

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

/// The sandbox's `PATH` when the caller's has no absolute entry.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";

/// The caller's `PATH` with only its absolute entries (proof5 #11): an
/// empty entry (`:/usr/bin`, a common slip of `PATH=$EXTRA:$PATH` with
/// `EXTRA` unset), `.` or any relative entry names the working folder,
/// which in the sandbox is the project, so `grep` in a proof line would run
/// a project file `./grep`. `None` when no entry is left.
fn absolute_path_entries(path: &str) -> Option<String> {
    let kept: Vec<&str> = path
        .split(':')
        .filter(|entry| entry.starts_with('/'))
        .collect();
    (!kept.is_empty()).then(|| kept.join(":"))
}

/// `path` (a `PATH` value) without the entries a project can plant a
/// program in (round7 #15, `ploy_dirs::unsafe_path_entry`): empty, `.` and
/// other relative entries, folders inside `project`, shared temporary
/// folders. A bare `ls` in a child then never runs the project's `bin/ls`
/// or `node_modules/.bin/ls` while the rules judged the system's. The
/// entries kept stay in their order; empty when none is left.
pub fn safe_path(path: &str, project: &Path) -> String {
    path.split(':')
        .filter(|entry| ploy_dirs::unsafe_path_entry(entry, project).is_none())
        .collect::<Vec<_>>()
        .join(":")
}

/// The `PATH` a child in `project` runs with: [`safe_path`] of `path`, or
/// the plain default when nothing is left (never unset: bash's built-in
/// default ends with `.`).
pub fn child_path(path: Option<&str>, project: &Path) -> String {
    let safe = path.map(|p| safe_path(p, project)).unwrap_or_default();
    if safe.is_empty() {
        DEFAULT_PATH.to_string()
    } else {
        safe
    }
}

/// Replace `PATH` in a built environment by [`child_path`] for `project`.
pub(crate) fn keep_safe_path(env: &mut Vec<(String, String)>, project: &Path) {
    let path = child_path(
        env.iter()
            .find(|(name, _)| name == "PATH")
            .map(|(_, value)| value.as_str()),
        project,
    );
    env.retain(|(name, _)| name != "PATH");
    env.push(("PATH".to_string(), path));
    env.sort();
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
        let value = if name == "PATH" {
            match absolute_path_entries(value) {
                Some(path) => path,
                None => continue,
            }
        } else {
            value.to_string()
        };
        env.push((name.to_string(), value));
    }
    if !env.iter().any(|(name, _)| name == "PATH") {
        env.push(("PATH".to_string(), DEFAULT_PATH.to_string()));
    }
    env.push(("HOME".to_string(), sandbox_home.to_string()));
    env.push(("TMPDIR".to_string(), "/tmp".to_string()));
    env.sort();
    env
}

/// git's settings pinned for a proof (PROOF-3; outside attacker's proof5
/// #1 and #14): git uses `<project>/.git` and nothing else, whatever the
/// project holds. Without this, git discovers its repository from files the
/// model can write: with `.git/HEAD` made invalid it takes the project root
/// (or any folder on the way up) as a bare repository when it holds `HEAD`,
/// `objects/` and `refs/`, and runs the `core.fsmonitor` program of that
/// folder's model-written `config`; a file `.git/config` includes can name
/// one too. So: `GIT_DIR` and `GIT_WORK_TREE` name the project's own
/// repository (no discovery at all), `GIT_CEILING_DIRECTORIES` stops any
/// search at the project's parent, bare repositories are never discovered
/// (`safe.bareRepository=explicit`), and the programs git's configuration
/// can start on a read-only command (fsmonitor, hooks) are switched off on
/// the command line, which wins over every configuration file. The system
/// and user configuration files are not read.
pub fn git_pinned_env(project: &std::path::Path) -> Vec<(String, String)> {
    let project = project.to_string_lossy();
    let parent = std::path::Path::new(project.as_ref())
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut env = vec![
        ("GIT_DIR".to_string(), format!("{project}/.git")),
        ("GIT_WORK_TREE".to_string(), project.to_string()),
        ("GIT_CEILING_DIRECTORIES".to_string(), parent),
        ("GIT_CONFIG_NOSYSTEM".to_string(), "1".to_string()),
        ("GIT_CONFIG_GLOBAL".to_string(), "/dev/null".to_string()),
        ("GIT_NO_REPLACE_OBJECTS".to_string(), "1".to_string()),
    ];
    let pinned = [
        ("safe.bareRepository", "explicit"),
        ("core.fsmonitor", "false"),
        ("core.hooksPath", "/dev/null"),
    ];
    env.push(("GIT_CONFIG_COUNT".to_string(), pinned.len().to_string()));
    for (index, (key, value)) in pinned.iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{index}"), key.to_string()));
        env.push((format!("GIT_CONFIG_VALUE_{index}"), value.to_string()));
    }
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

    // proves: PROOF-2, PROOF-6 (proof5 #11: checker names never resolve to
    // the project through a relative PATH entry)
    #[test]
    fn only_absolute_path_entries_reach_the_sandbox() {
        let path_of = |path: &str| {
            let env = build_env(vars(&[("PATH", path)]), &[], "/tmp/home");
            env.into_iter().find(|(n, _)| n == "PATH").unwrap().1
        };
        assert_eq!(path_of(":/usr/bin:/bin"), "/usr/bin:/bin");
        assert_eq!(path_of(".:/usr/bin"), "/usr/bin");
        assert_eq!(path_of("/usr/bin::bin:./x:/bin:"), "/usr/bin:/bin");
        assert_eq!(path_of(""), DEFAULT_PATH);
        assert_eq!(path_of(".:bin"), DEFAULT_PATH);
    }

    // proves: PERM-7, SBX-4 (round7 #15: relative, empty and in-project
    // PATH entries let a bare command name run a project file)
    #[test]
    fn round7_15_safe_path_drops_relative_and_in_project_entries() {
        let project = Path::new("/work/p");
        assert_eq!(
            safe_path(
                ".:/usr/local/bin::bin:/work/p/node_modules/.bin:/usr/bin:/tmp:/bin:",
                project
            ),
            "/usr/local/bin:/usr/bin:/bin"
        );
        assert_eq!(safe_path("/usr/bin:/bin", project), "/usr/bin:/bin");
        assert_eq!(
            safe_path("/work/p2/bin:/work/p/../q", project),
            "/work/p2/bin:/work/p/../q"
        );
        assert_eq!(safe_path(".:bin:/work/p/bin", project), "");
        assert_eq!(child_path(Some(".:bin:/work/p/bin"), project), DEFAULT_PATH);
        assert_eq!(child_path(None, project), DEFAULT_PATH);
        let mut env = build_env(
            vars(&[("PATH", "/work/p/.venv/bin:/usr/bin"), ("LANG", "C")]),
            &[],
            "/tmp/home",
        );
        keep_safe_path(&mut env, project);
        let path = env
            .iter()
            .find(|(n, _)| n == "PATH")
            .map(|(_, v)| v.as_str());
        assert_eq!(path, Some("/usr/bin"));
        assert_eq!(env.iter().filter(|(n, _)| n == "PATH").count(), 1);
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

    // proves: PROOF-3
    #[test]
    fn git_is_pinned_to_the_projects_own_repository() {
        let env = git_pinned_env(std::path::Path::new("/home/me/app"));
        let get = |name: &str| env.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        assert_eq!(get("GIT_DIR"), Some("/home/me/app/.git"));
        assert_eq!(get("GIT_WORK_TREE"), Some("/home/me/app"));
        assert_eq!(get("GIT_CEILING_DIRECTORIES"), Some("/home/me"));
        assert_eq!(get("GIT_CONFIG_NOSYSTEM"), Some("1"));
        assert_eq!(get("GIT_CONFIG_COUNT"), Some("3"));
        let pinned: Vec<(&str, &str)> = (0..3)
            .map(|i| {
                (
                    get(&format!("GIT_CONFIG_KEY_{i}")).unwrap(),
                    get(&format!("GIT_CONFIG_VALUE_{i}")).unwrap(),
                )
            })
            .collect();
        assert!(pinned.contains(&("core.fsmonitor", "false")));
        assert!(pinned.contains(&("safe.bareRepository", "explicit")));
        assert!(pinned.contains(&("core.hooksPath", "/dev/null")));
    }
}
