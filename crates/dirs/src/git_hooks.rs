//! Where git takes hooks from besides `.git/hooks` (PERM-7, SBX-6): the
//! filesystem side of the one PERM-7 function. `core.hooksPath` points
//! git's hooks at any folder, often one in the work tree (husky sets
//! `.husky`); the host's next `git commit` runs what is written there. The
//! caller reads the folders here and passes them to the pure decision
//! (`ploy_policy::ProtectedPaths::with_git_hooks`); the sandbox, the agent,
//! the hook adapter and `ploy mcp` all use this one reader.
//!
//! Every configuration git reads is read here too: the system and global
//! files, each repository's own (`config`, `config.worktree`, the common
//! folder's), `GIT_CONFIG_COUNT` variables, and every `include.path` and
//! `includeIf.*.path` they name, followed whatever the condition (a folder
//! protected needlessly costs less than a hook missed). A file that exists
//! but cannot be read, or includes nested deeper than git allows, fail
//! closed ([`GitConfigUnsure`]).

use std::path::{Component, Path, PathBuf};

/// git's own limit on nested includes.
const MAX_INCLUDE_DEPTH: usize = 10;

/// Largest configuration file read (1 MiB; git's own files are a few KiB).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Most configuration files read for one answer: includes fan out (a file
/// including another twice, ten levels deep, is a thousand reads).
const MAX_CONFIG_READS: usize = 256;

/// Why the hooks folder could not be found for sure (the caller fails
/// closed: every path may be a hook).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitConfigUnsure(pub String);

impl std::fmt::Display for GitConfigUnsure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GitConfigUnsure {}

type Unsure = GitConfigUnsure;

/// Every `core.hooksPath` value (with the file that set it) in `text`, a git
/// configuration file, and every include path it names (as written).
#[derive(Debug, Default, PartialEq, Eq)]
struct Parsed {
    hooks_paths: Vec<String>,
    includes: Vec<String>,
}

/// Parses git's configuration syntax far enough to find `core.hooksPath`
/// and the include paths: sections (`[core]`, `[include]`, `[includeIf
/// "…"]`, the old `[section.sub]` form), case-insensitive names, quoted
/// values with escapes, comments, and lines continued with `\`.
fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let mut line = line.trim_start().to_string();
        if let Some(rest) = line.strip_prefix('[') {
            let Some(end) = rest.find(']') else { continue };
            let header = rest[..end].trim();
            let name: String = header
                .split(|c: char| c.is_whitespace() || c == '"')
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            let subsection = header.contains('"');
            // `[core]` only; `[core "x"]` would be another section. The old
            // `[includeIf.gitdir:x]` form has a dot.
            section = if subsection || name.contains('.') {
                let base = name.split('.').next().unwrap_or_default();
                format!("{base}.*")
            } else {
                name
            };
            // A key may follow the header on the same line.
            line = rest[end + 1..].trim_start().to_string();
            if line.is_empty() {
                continue;
            }
        }
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        // A value continued on the next line ends with an unescaped `\`.
        while ends_in_continuation(&line) {
            line.pop();
            match lines.next() {
                Some(next) => line.push_str(next),
                None => break,
            }
        }
        let (key, value) = match line.find('=') {
            Some(at) => (line[..at].trim(), value_of(&line[at + 1..])),
            None => (line.trim(), String::new()),
        };
        let key = key.to_ascii_lowercase();
        match (section.as_str(), key.as_str()) {
            ("core", "hookspath") => parsed.hooks_paths.push(value),
            ("include" | "include.*" | "includeif.*", "path") => parsed.includes.push(value),
            _ => {}
        }
    }
    parsed
}

fn ends_in_continuation(line: &str) -> bool {
    let trailing = line.chars().rev().take_while(|c| *c == '\\').count();
    trailing % 2 == 1
}

/// A value as git reads it: quotes removed, `\"`, `\\`, `\n`, `\t`, `\b`
/// decoded, a comment outside quotes dropped, outer white space trimmed.
fn value_of(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('b') => {
                    out.pop();
                }
                Some(other) => out.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            other => out.push(other),
        }
    }
    out.trim().to_string()
}

/// `~/…` against `home`; otherwise relative to `base`.
fn resolve(value: &str, base: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if let Some(rest) = value.strip_prefix("~/") {
        return home.map(|home| home.join(rest));
    }
    if value == "~" {
        return home.map(Path::to_path_buf);
    }
    Some(base.join(value))
}

/// `.` and `..` taken out without touching the file system.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The configuration files git reads for every repository: system, then
/// global, then `GIT_CONFIG_COUNT` values (returned apart, as values).
fn shared_files(home: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if env("GIT_CONFIG_NOSYSTEM").is_none() {
        files.push(
            env("GIT_CONFIG_SYSTEM")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("/etc/gitconfig")),
        );
    }
    match env("GIT_CONFIG_GLOBAL") {
        Some(global) => files.push(PathBuf::from(global)),
        None => {
            let xdg = env("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .or_else(|| home.map(|h| h.join(".config")));
            if let Some(xdg) = xdg {
                files.push(xdg.join("git/config"));
            }
            if let Some(home) = home {
                files.push(home.join(".gitconfig"));
            }
        }
    }
    files
}

/// `core.hooksPath` values set through `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`.
fn env_hooks_paths(env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let count: usize = env("GIT_CONFIG_COUNT")
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    (0..count.min(1000))
        .filter(|i| {
            env(&format!("GIT_CONFIG_KEY_{i}"))
                .is_some_and(|key| key.eq_ignore_ascii_case("core.hookspath"))
        })
        .filter_map(|i| env(&format!("GIT_CONFIG_VALUE_{i}")))
        .collect()
}

/// Reads `file` and what it includes; adds every `core.hooksPath` value to
/// `out` and every included file (placed, `.` and `..` taken out) to
/// `included`. An include that cannot be placed (`~/…` with no home
/// folder known) fails closed: git would read a file this cannot name.
fn read_config(
    file: &Path,
    home: Option<&Path>,
    depth: usize,
    out: &mut Vec<String>,
    included: &mut Vec<PathBuf>,
    reads: &mut usize,
) -> Result<(), Unsure> {
    if depth > MAX_INCLUDE_DEPTH {
        return Err(GitConfigUnsure(format!(
            "{} nests includes deeper than git allows ({MAX_INCLUDE_DEPTH})",
            file.display()
        )));
    }
    *reads += 1;
    if *reads > MAX_CONFIG_READS {
        return Err(GitConfigUnsure(format!(
            "git's configuration includes more than {MAX_CONFIG_READS} files (at {})",
            file.display()
        )));
    }
    // A FIFO or `/dev/zero` named by an include must not hang the caller
    // (secrets5 #18): a regular file, at most MAX_CONFIG_BYTES.
    let text = match crate::read_bounded(file, MAX_CONFIG_BYTES) {
        Ok(crate::FileRead::Bytes(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        // git skips a configuration file or include that does not exist.
        Ok(crate::FileRead::Missing) => return Ok(()),
        Ok(crate::FileRead::Folder) => {
            return Err(GitConfigUnsure(format!(
                "git's configuration file {} is a folder",
                file.display()
            )));
        }
        Err(err) => {
            return Err(GitConfigUnsure(format!(
                "git's configuration file {} cannot be read ({err})",
                file.display()
            )));
        }
    };
    let parsed = parse(&text);
    out.extend(parsed.hooks_paths);
    let base = file.parent().unwrap_or(Path::new("/"));
    for include in parsed.includes.iter().filter(|value| !value.is_empty()) {
        let path = resolve(include, base, home)
            .map(|path| lexical(&path))
            .ok_or_else(|| {
                GitConfigUnsure(format!(
                    "{} includes {include}, a file in the home folder, which is unknown",
                    file.display()
                ))
            })?;
        if !included.contains(&path) {
            included.push(path.clone());
        }
        read_config(&path, home, depth + 1, out, included, reads)?;
    }
    Ok(())
}

/// A repository's git folder, from its `.git` entry (a folder, or a file
/// `gitdir: PATH`), and the folders whose `config` git reads for it.
fn repository_configs(dot_git: &Path) -> Result<Vec<PathBuf>, Unsure> {
    let meta = std::fs::metadata(dot_git).map_err(|err| {
        GitConfigUnsure(format!("{} cannot be inspected ({err})", dot_git.display()))
    })?;
    let git_dir = if meta.is_dir() {
        dot_git.to_path_buf()
    } else {
        let text = match crate::read_bounded(dot_git, MAX_CONFIG_BYTES) {
            Ok(crate::FileRead::Bytes(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(_) => String::new(),
            Err(err) => {
                return Err(GitConfigUnsure(format!(
                    "{} cannot be read ({err})",
                    dot_git.display()
                )));
            }
        };
        let Some(target) = text.trim().strip_prefix("gitdir:") else {
            return Ok(Vec::new());
        };
        let base = dot_git.parent().unwrap_or(Path::new("/"));
        lexical(&base.join(target.trim()))
    };
    let mut files = vec![git_dir.join("config"), git_dir.join("config.worktree")];
    match crate::read_bounded(&git_dir.join("commondir"), MAX_CONFIG_BYTES) {
        Ok(crate::FileRead::Bytes(bytes)) => {
            let common = String::from_utf8_lossy(&bytes);
            files.push(lexical(&git_dir.join(common.trim())).join("config"));
        }
        Ok(_) => {}
        Err(err) => {
            return Err(GitConfigUnsure(format!(
                "{} cannot be read ({err})",
                git_dir.join("commondir").display()
            )));
        }
    }
    Ok(files)
}

/// Every folder git may take hooks from for `project` (absolute, `.` and
/// `..` taken out; inside the project or not, the project itself or a
/// folder above it included): the values of `core.hooksPath` for the
/// project's own repository (`project/.git`), the repositories in `nested`
/// (their `.git` entries, e.g. found by the sandbox's walk) and the one
/// holding the project from above. With no repository at all, the shared
/// (system, global, environment) values are placed from the project, where
/// a `git init` would put them. Reads the environment like git does.
///
/// Also every configuration file those configurations include
/// (`include.path`, `includeIf.*.path`, placed from the including file):
/// configuration names programs git runs (proof5 #14), so PERM-7 protects
/// these paths exactly like the hooks folders.
pub fn git_hook_folders(
    project: &Path,
    nested: &[PathBuf],
    home: Option<&Path>,
) -> Result<Vec<PathBuf>, GitConfigUnsure> {
    let mut repositories = Vec::new();
    let own = project.join(".git");
    if own.symlink_metadata().is_ok() {
        repositories.push(own);
    }
    for dot_git in nested.iter().cloned().chain(enclosing_repository(project)) {
        if !repositories.contains(&dot_git) {
            repositories.push(dot_git);
        }
    }
    hook_folders_with(project, &repositories, home, &|name| {
        std::env::var(name).ok()
    })
}

/// [`git_hook_folders`] for exactly `repositories`, with `env` reading the
/// environment.
fn hook_folders_with(
    project: &Path,
    repositories: &[PathBuf],
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<PathBuf>, Unsure> {
    let mut shared = env_hooks_paths(env);
    let mut included = Vec::new();
    let mut reads = 0;
    for file in shared_files(home, env) {
        read_config(&file, home, 0, &mut shared, &mut included, &mut reads)?;
    }
    let mut folders = Vec::new();
    let mut place = |values: &[String], work_tree: &Path| -> Result<(), Unsure> {
        for value in values.iter().filter(|value| !value.is_empty()) {
            let path = resolve(value, work_tree, home).ok_or_else(|| {
                GitConfigUnsure(format!(
                    "core.hooksPath = {value} names a folder in the home folder, which is unknown"
                ))
            })?;
            let path = lexical(&path);
            if !folders.contains(&path) {
                folders.push(path);
            }
        }
        Ok(())
    };
    if repositories.is_empty() {
        place(&shared, project)?;
    }
    for dot_git in repositories {
        let work_tree = dot_git.parent().unwrap_or(project);
        let mut values = shared.clone();
        for file in repository_configs(dot_git)? {
            read_config(&file, home, 0, &mut values, &mut included, &mut reads)?;
        }
        place(&values, work_tree)?;
    }
    // proof5 #14: a file git's configuration includes is configuration
    // too (`core.fsmonitor`, `core.hooksPath`, drivers: programs the host's
    // next git command runs), and `include.path = ../.gitconfig` puts it in
    // the work tree. Protected like a hooks folder: the path itself.
    for file in included {
        if !folders.contains(&file) {
            folders.push(file);
        }
    }
    Ok(folders)
}

/// The repository that holds `project` from above (the project is a folder
/// inside a work tree): its `.git` entry, if any.
fn enclosing_repository(project: &Path) -> Option<PathBuf> {
    project
        .ancestors()
        .skip(1)
        .map(|dir| dir.join(".git"))
        .find(|dot_git| dot_git.symlink_metadata().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_hooks_path_in_every_spelling_and_the_includes() {
        let text = "# c\n[core]\n\tbare = false\n[Core]\n\tHooksPath = .husky ; comment\n\
                    [core \"x\"]\n\thookspath = not-this\n[include]\n\tpath = ~/more.inc\n\
                    [includeIf \"gitdir:~/work/\"]\n\tpath = \"work.inc\"\n\
                    [core] hooksPath = \"a b\\\\c\"\n[core]\n\thooksPath = long\\\n-name\n";
        let parsed = parse(text);
        assert_eq!(parsed.hooks_paths, [".husky", "a b\\c", "long-name"]);
        assert_eq!(parsed.includes, ["~/more.inc", "work.inc"]);
    }

    // proves: FAIL-1, PERM-7 (secrets5 #18 addendum: an include naming a
    // FIFO nobody writes or /dev/zero, and includes fanning out, end at once
    // as "unsure" (every write then asks), never a hang)
    #[test]
    fn includes_of_fifos_devices_and_fan_outs_are_unsure_at_once() {
        let base = tree("fifo");
        let project = base.join("app");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let fifo = base.join("fifo1");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let repos = [project.join(".git")];
        for target in [fifo.display().to_string(), "/dev/zero".to_string()] {
            std::fs::write(
                project.join(".git/config"),
                format!("[include]\n\tpath = {target}\n"),
            )
            .unwrap();
            let err = hook_folders_with(&project, &repos, None, &|_| None).unwrap_err();
            assert!(err.0.contains("not a regular file"), "{target}: {err}");
        }
        // Nine levels of a file including the next one twice: 2^10 reads,
        // within git's depth.
        for level in 0..9 {
            let next = format!("l{}.inc", level + 1);
            std::fs::write(
                base.join(format!("l{level}.inc")),
                format!("[include]\n\tpath = {next}\n\tpath = {next}\n"),
            )
            .unwrap();
        }
        std::fs::write(
            project.join(".git/config"),
            format!("[include]\n\tpath = {}\n", base.join("l0.inc").display()),
        )
        .unwrap();
        let err = hook_folders_with(&project, &repos, None, &|_| None).unwrap_err();
        assert!(err.0.contains("more than"), "{err}");
        std::fs::remove_dir_all(&base).unwrap();
    }

    fn tree(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .canonicalize()
            .unwrap()
            .join(format!("ploy-dirs-hooks-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    // proves: SBX-6, PERM-7
    #[test]
    fn hook_folders_come_from_local_global_included_and_env_config() {
        let base = tree("resolve");
        let (home, project) = (base.join("home"), base.join("home/app"));
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(project.join("sub/.git")).unwrap();
        std::fs::write(
            project.join(".git/config"),
            "[core]\n\thooksPath = .husky\n[include]\n\tpath = extra.inc\n",
        )
        .unwrap();
        std::fs::write(
            project.join(".git/extra.inc"),
            "[core]\nhooksPath=tools/hooks\n",
        )
        .unwrap();
        std::fs::write(home.join(".gitconfig"), "[core]\n\thooksPath = .githooks\n").unwrap();
        std::fs::write(
            project.join("sub/.git/config"),
            "[core]\n\thooksPath = ../../x\n",
        )
        .unwrap();
        let repos = [project.join(".git"), project.join("sub/.git")];
        let env = |name: &str| match name {
            "GIT_CONFIG_COUNT" => Some("1".to_string()),
            "GIT_CONFIG_KEY_0" => Some("core.hooksPath".to_string()),
            "GIT_CONFIG_VALUE_0" => Some("ci-hooks".to_string()),
            "GIT_CONFIG_NOSYSTEM" => Some("1".to_string()),
            _ => None,
        };
        let mut found = hook_folders_with(&project, &repos, Some(&home), &env).unwrap();
        found.retain(|p| p.starts_with(&project));
        found.sort();
        let rel: Vec<String> = found
            .iter()
            .map(|p| p.strip_prefix(&project).unwrap().display().to_string())
            .collect();
        assert_eq!(
            rel,
            [
                ".git/extra.inc",
                ".githooks",
                ".husky",
                "ci-hooks",
                "sub/.githooks",
                "sub/ci-hooks",
                "tools/hooks"
            ]
        );
        // The project itself, and a folder outside it, are named too.
        std::fs::write(project.join(".git/config"), "[core]\n\thooksPath = .\n").unwrap();
        std::fs::write(home.join(".gitconfig"), "[core]\n\thooksPath = ~/hooks\n").unwrap();
        let found = hook_folders_with(&project, &repos[..1], Some(&home), &|_| None).unwrap();
        assert_eq!(found, [home.join("hooks"), project.clone()]);
        // With no repository, shared values are placed from the project.
        std::fs::write(home.join(".gitconfig"), "[core]\n\thooksPath = .githooks\n").unwrap();
        let found = hook_folders_with(&project, &[], Some(&home), &|_| None).unwrap();
        assert_eq!(found, [project.join(".githooks")]);
        // A configuration file that cannot be read is not passed over.
        std::fs::write(project.join(".git/config"), "[include]\n\tpath = loop\n").unwrap();
        std::fs::write(project.join(".git/loop"), "[include]\n\tpath = loop\n").unwrap();
        let err = hook_folders_with(&project, &repos[..1], Some(&home), &|_| None).unwrap_err();
        assert!(err.0.contains("deeper"), "{err:?}");
        std::fs::remove_dir_all(&base).unwrap();
    }

    // proof5 #14: `include.path = ../.gitconfig` (and `includeIf`) make a
    // work-tree file git configuration; it is named, placed from `.git`,
    // even before it exists; one that cannot be placed fails closed.
    // proves: PERM-7, SBX-6
    #[test]
    fn included_configuration_files_are_named_and_unplaceable_ones_fail_closed() {
        let base = tree("include");
        let (home, project) = (base.join("home"), base.join("home/app"));
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::write(
            project.join(".git/config"),
            "[include]\n\tpath = ../.gitconfig\n[includeIf \"onbranch:main\"]\n\tpath = ../conf/git.inc\n",
        )
        .unwrap();
        std::fs::write(project.join(".gitconfig"), "[include]\n\tpath = more.inc\n").unwrap();
        let repos = [project.join(".git")];
        let found = hook_folders_with(&project, &repos, Some(&home), &|_| None).unwrap();
        for file in [".gitconfig", "conf/git.inc", "more.inc"] {
            assert!(found.contains(&project.join(file)), "{file}: {found:?}");
        }
        // `~/…` with no home folder known: unsure, never skipped.
        std::fs::write(project.join(".git/config"), "[include]\n\tpath = ~/x.inc\n").unwrap();
        let err = hook_folders_with(&project, &repos, None, &|_| None).unwrap_err();
        assert!(err.0.contains("x.inc"), "{err:?}");
        std::fs::remove_dir_all(&base).unwrap();
    }
}
