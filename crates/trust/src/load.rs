//! Loading (TRUST-5, TRUST-6): what loads before the decision, the decision
//! itself, and what loads after it.
//!
//! Before the decision only these load: the user's settings (for
//! `default_project_trust` and the user's extensions), the trust file, and
//! command-line extensions. Context files load regardless of the decision
//! (unless turned off). After the decision, and only when the project is
//! trusted (`Some(true)`): project settings (layered over the user's by
//! ploy-policy, each value keeping its source), project skills, prompts,
//! themes, system prompt files and extensions. Not trusted: each skipped
//! resource is listed once in [`LoadedProject::skipped`].
//!
//! "No decision needed" (`None`) also loads nothing project-local: detection
//! found nothing, and anything that appeared since was never decided on.

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    time::Duration,
};

use ploy_policy::{ProjectTrust, ResolvedSettings, Settings, SettingsError, ValueSource};
use serde::Serialize;

use crate::{
    PloyDirs, TrustError, canonical_dir,
    context::{ContextFile, load_context_files, project_of_resource, read_capped, resolve_within},
    detect::{DetectOptions, Resource, ResourceKind, detect},
    extension::{ExtensionOrigin, ExtensionSpec},
    prompt::TrustPrompt,
    resolve::{DefaultProjectTrust, Resolution, TrustRequest, Ui, UiMode, resolve},
    skills::{Skill, SkillSource, discover_project_skills, discover_skills},
    store::TrustStore,
};

/// Largest extension timeout a settings file may ask for (ploy-policy's
/// settings validation uses the same bound).
const MAX_EXTENSION_TIMEOUT_MS: u64 = 600_000;

/// Largest system prompt file read.
const MAX_SYSTEM_PROMPT_BYTES: usize = 256 * 1024;

/// How a run was started.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// The working directory as given (made canonical inside).
    pub cwd: PathBuf,
    /// `Some(true)` for `--approve`, `Some(false)` for `--no-approve`.
    pub flag: Option<bool>,
    /// The UI mode (interactive, `-p`, json, rpc).
    pub mode: UiMode,
    /// Whether stdin is a terminal (a question needs one).
    pub stdin_is_tty: bool,
    /// Extensions given on the command line, asked after the user's.
    pub command_line_extensions: Vec<ExtensionSpec>,
    /// Load context files (`AGENTS.md`, …); off only when the user says so.
    pub context_files: bool,
    /// Detection options (the user's home).
    pub detect: DetectOptions,
}

impl LoadOptions {
    /// Interactive mode without a TTY (so never a question), no flag, no
    /// command-line extensions, context files on, the current user's home.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            flag: None,
            mode: UiMode::Interactive,
            stdin_is_tty: false,
            command_line_extensions: Vec::new(),
            context_files: true,
            detect: DetectOptions::for_current_user(),
        }
    }
}

/// The user's settings file, read.
#[derive(Debug, Clone)]
pub struct UserSettings {
    /// Where it is (or would be).
    pub path: PathBuf,
    /// The parsed file; `None` when it does not exist.
    pub settings: Option<Settings>,
    /// `default_project_trust` with where it came from.
    pub default_project_trust: DefaultProjectTrust,
    /// `User` when the file sets it, `Default` otherwise.
    pub default_project_trust_source: ValueSource,
    /// The user's extensions (they may answer `project_trust`).
    pub extensions: Vec<ExtensionSpec>,
}

/// Reads the user's `settings.json`. A missing file is fine (defaults); an
/// invalid one is an error naming the file, key and line.
pub fn load_user_settings(dirs: &PloyDirs) -> Result<UserSettings, TrustError> {
    let path = dirs.settings_file();
    let settings = read_settings(&path)?;
    let (default_project_trust, default_project_trust_source) =
        match settings.as_ref().and_then(Settings::default_project_trust) {
            Some(value) => (value, ValueSource::User),
            None => (DefaultProjectTrust::Ask, ValueSource::Default),
        };
    let extensions = match &settings {
        Some(s) => parse_extensions(s.extensions(), s.origin(), ExtensionOrigin::User, None)?,
        None => Vec::new(),
    };
    Ok(UserSettings {
        path,
        settings,
        default_project_trust,
        default_project_trust_source,
        extensions,
    })
}

fn read_settings(path: &Path) -> Result<Option<Settings>, TrustError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(TrustError::Io {
                path: path.to_path_buf(),
                action: "read settings",
                source,
            });
        }
    };
    Ok(Some(Settings::parse(&text, &path.display().to_string())?))
}

/// Parses an `extensions` section: a list whose entries are a command string
/// or `{"command": …, "args": […], "timeout_ms": …}`. A relative command with
/// a `/` is taken from `base` (the project root) or refused when there is none.
fn parse_extensions(
    value: Option<&serde_json::Value>,
    origin: &str,
    ext_origin: ExtensionOrigin,
    base: Option<&Path>,
) -> Result<Vec<ExtensionSpec>, TrustError> {
    let invalid = |key: String, message: String| TrustError::ExtensionsInvalid {
        origin: origin.to_owned(),
        key,
        message,
    };
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let list = value
        .as_array()
        .ok_or_else(|| invalid(String::new(), "must be a list".to_owned()))?;
    let mut specs = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let (command, args, timeout) = match entry {
            serde_json::Value::String(command) => (command.clone(), Vec::new(), None),
            serde_json::Value::Object(map) => {
                if let Some(unknown) = map
                    .keys()
                    .find(|k| !matches!(k.as_str(), "command" | "args" | "timeout_ms"))
                {
                    return Err(invalid(
                        format!("[{i}].{unknown}"),
                        "unknown key (expected command, args, timeout_ms)".to_owned(),
                    ));
                }
                let command = map
                    .get("command")
                    .and_then(|c| c.as_str())
                    .ok_or_else(|| {
                        invalid(format!("[{i}].command"), "must be a string".to_owned())
                    })?
                    .to_owned();
                let args = match map.get("args") {
                    None => Vec::new(),
                    Some(args) => args
                        .as_array()
                        .and_then(|a| {
                            a.iter()
                                .map(|x| x.as_str().map(str::to_owned))
                                .collect::<Option<Vec<_>>>()
                        })
                        .ok_or_else(|| {
                            invalid(
                                format!("[{i}].args"),
                                "must be a list of strings".to_owned(),
                            )
                        })?,
                };
                let timeout = match map.get("timeout_ms") {
                    None => None,
                    Some(t) => Some(
                        t.as_u64()
                            .filter(|ms| (1..=MAX_EXTENSION_TIMEOUT_MS).contains(ms))
                            .ok_or_else(|| {
                                invalid(
                                    format!("[{i}].timeout_ms"),
                                    format!("must be a whole number from 1 to {MAX_EXTENSION_TIMEOUT_MS}"),
                                )
                            })?,
                    ),
                };
                (command, args, timeout)
            }
            _ => {
                return Err(invalid(
                    format!("[{i}]"),
                    "must be a command string or an object".to_owned(),
                ));
            }
        };
        if command.trim().is_empty() {
            return Err(invalid(
                format!("[{i}].command"),
                "must not be empty".to_owned(),
            ));
        }
        let as_path = PathBuf::from(&command);
        let command = if as_path.is_absolute() || !command.contains('/') {
            as_path
        } else {
            match base {
                Some(base) => base.join(as_path),
                None => {
                    return Err(invalid(
                        format!("[{i}].command"),
                        "a path must be absolute (or a bare program name found on PATH)".to_owned(),
                    ));
                }
            }
        };
        let mut spec = ExtensionSpec::new(command, ext_origin);
        spec.args = args;
        if let Some(ms) = timeout {
            spec.timeout = Duration::from_millis(ms);
        }
        specs.push(spec);
    }
    Ok(specs)
}

/// The decision for a directory, with what was read to make it.
#[derive(Debug, Clone)]
pub struct Decided {
    /// The decision and why.
    pub resolution: Resolution,
    /// The user's settings.
    pub user: UserSettings,
    /// The trust file that was read.
    pub trust_file: PathBuf,
    /// Warnings for the user (trust file mode, failed save, …).
    pub warnings: Vec<String>,
}

/// Decides trust for `options.cwd`: canonical path, detection, user settings,
/// trust file, [`resolve`], and saving a remembered answer.
pub fn decide(
    dirs: &PloyDirs,
    options: &LoadOptions,
    prompt: &mut dyn TrustPrompt,
) -> Result<Decided, TrustError> {
    let cwd = canonical_dir(&options.cwd)?;
    let resources = detect(&cwd, &options.detect);
    let user = load_user_settings(dirs)?;
    let trust_file = dirs.trust_file();
    let store = TrustStore::load(&trust_file)?;
    let mut warnings: Vec<String> = store.warnings().to_vec();
    let mut extensions = user.extensions.clone();
    extensions.extend(options.command_line_extensions.iter().cloned());
    let request = TrustRequest {
        cwd: &cwd,
        resources: &resources,
        flag: options.flag,
        extensions: &extensions,
        store: &store,
        default: user.default_project_trust,
    };
    let resolution = resolve(
        &request,
        Ui::for_mode(options.mode, options.stdin_is_tty, prompt),
    );
    if let Err(err) = resolution.persist(&trust_file) {
        // The decision for this run stands; only remembering it failed.
        warnings.push(format!("warning: the decision was not saved: {err}"));
    }
    Ok(Decided {
        resolution,
        user,
        trust_file,
        warnings,
    })
}

/// Everything that loaded for a run.
#[derive(Debug, Clone)]
pub struct LoadedProject {
    /// The decision and why.
    pub resolution: Resolution,
    /// The user's settings.
    pub user: UserSettings,
    /// The project's settings; only when trusted.
    pub project_settings: Option<Settings>,
    /// Context files (loaded regardless of trust unless turned off).
    pub context_files: Vec<ContextFile>,
    /// The user's skills, then the trusted project's.
    pub skills: Vec<Skill>,
    /// Prompt template files of a trusted project.
    pub prompts: Vec<PathBuf>,
    /// Theme files of a trusted project.
    pub themes: Vec<PathBuf>,
    /// `.ploy/SYSTEM.md` of a trusted project.
    pub system_prompt: Option<ContextFile>,
    /// `.ploy/APPEND_SYSTEM.md` of a trusted project.
    pub append_system_prompt: Option<ContextFile>,
    /// User, command-line, then (trusted) project extensions.
    pub extensions: Vec<ExtensionSpec>,
    /// Resources skipped because the project is not trusted, each once.
    pub skipped: Vec<Resource>,
    /// Warnings for the user.
    pub warnings: Vec<String>,
}

impl LoadedProject {
    /// The trust input of ploy-policy's layering.
    pub fn project_trust(&self) -> ProjectTrust {
        if self.resolution.is_trusted() {
            ProjectTrust::Trusted
        } else {
            ProjectTrust::Untrusted
        }
    }

    /// The effective settings (profile, `default_project_trust`, rule layers),
    /// each value with its source, layered by ploy-policy. Fails when the
    /// user's settings lack the mandatory profile (PROFILE-2).
    pub fn resolved_settings(&self) -> Result<ResolvedSettings, SettingsError> {
        ploy_policy::resolve(
            self.user.settings.as_ref(),
            self.project_settings.as_ref(),
            self.project_trust(),
        )
    }

    /// One message listing every skipped resource once, or `None`.
    pub fn skipped_notice(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        let mut text = format!("project not trusted ({}); skipped:", self.resolution.reason);
        for resource in &self.skipped {
            text.push_str(&format!(
                "\n  {} ({})",
                resource.path.display(),
                resource.kind.label()
            ));
        }
        Some(text)
    }
}

/// Decides trust and loads what the decision allows (see the module docs).
pub fn load_project(
    dirs: &PloyDirs,
    options: &LoadOptions,
    prompt: &mut dyn TrustPrompt,
) -> Result<LoadedProject, TrustError> {
    let Decided {
        resolution,
        user,
        warnings: mut all_warnings,
        ..
    } = decide(dirs, options, prompt)?;
    let cwd = resolution.cwd.clone();

    let context_files = if options.context_files {
        load_context_files(&cwd, Some(&dirs.config), &mut all_warnings)
    } else {
        Vec::new()
    };
    let mut skills = discover_skills(&dirs.skills_dir(), SkillSource::User, &mut all_warnings);
    // `~/.agents/skills` is the user's own folder (detection leaves it out of
    // the project's resources), so it loads as the user's, whatever the trust.
    if let Some(home) = &options.detect.home {
        let own = home.join(".agents").join("skills");
        if own.is_dir() {
            skills.extend(discover_skills(&own, SkillSource::User, &mut all_warnings));
        }
    }
    let mut extensions = user.extensions.clone();
    extensions.extend(options.command_line_extensions.iter().cloned());

    let mut loaded = LoadedProject {
        resolution,
        user,
        project_settings: None,
        context_files,
        skills: Vec::new(),
        prompts: Vec::new(),
        themes: Vec::new(),
        system_prompt: None,
        append_system_prompt: None,
        extensions: Vec::new(),
        skipped: Vec::new(),
        warnings: Vec::new(),
    };

    if loaded.resolution.is_trusted() {
        for resource in loaded.resolution.resources.clone() {
            let path = &resource.path;
            match resource.kind {
                ResourceKind::Settings => {
                    let settings = read_settings(path)?;
                    if let Some(s) = &settings {
                        extensions.extend(parse_extensions(
                            s.extensions(),
                            s.origin(),
                            ExtensionOrigin::Project,
                            Some(&cwd),
                        )?);
                    }
                    loaded.project_settings = settings;
                }
                ResourceKind::Extensions => {
                    extensions.extend(
                        list_files(path)
                            .into_iter()
                            .filter(|p| is_executable(p))
                            .map(|p| ExtensionSpec::new(p, ExtensionOrigin::Project)),
                    );
                }
                ResourceKind::Skills | ResourceKind::AgentsSkills => {
                    skills.extend(discover_project_skills(
                        path,
                        &project_of_resource(path),
                        &mut all_warnings,
                    ));
                }
                ResourceKind::Prompts => {
                    loaded.prompts = files_within(path, &mut all_warnings);
                }
                ResourceKind::Themes => loaded.themes = files_within(path, &mut all_warnings),
                ResourceKind::SystemPrompt => {
                    loaded.system_prompt = read_text_resource(path, &mut all_warnings);
                }
                ResourceKind::AppendSystemPrompt => {
                    loaded.append_system_prompt = read_text_resource(path, &mut all_warnings);
                }
            }
        }
    } else if loaded.resolution.trusted == Some(false) {
        loaded.skipped = loaded.resolution.resources.clone();
    }
    loaded.skills = skills;
    loaded.extensions = extensions;
    loaded.warnings = all_warnings;
    Ok(loaded)
}

fn list_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The files of a trusted project's folder (prompts, themes) whose real
/// path stays inside the project; a file that leads out is left out with a
/// warning (TRUST-5). The resolved paths are the ones kept, so they are
/// the ones read.
fn files_within(dir: &Path, warnings: &mut Vec<String>) -> Vec<PathBuf> {
    let project = project_of_resource(dir);
    list_files(dir)
        .into_iter()
        .filter_map(|file| match resolve_within(&file, &project) {
            Ok(real) => Some(real),
            Err(why) => {
                warnings.push(not_read(&file, &why));
                None
            }
        })
        .collect()
}

/// The warning for a project file left unread because of where it leads.
fn not_read(path: &Path, why: &str) -> String {
    format!(
        "{} was not read: {why} (TRUST-5: a trusted project's files come from the project)",
        path.display()
    )
}

/// A trusted project's system prompt file, read only when its real path
/// stays inside the project (TRUST-5: `.ploy/SYSTEM.md -> ~/.ssh/id_rsa`
/// is not read into the system prompt). The resolved path is what is read.
fn read_text_resource(path: &Path, warnings: &mut Vec<String>) -> Option<ContextFile> {
    let real = match resolve_within(path, &project_of_resource(path)) {
        Ok(real) => real,
        Err(why) => {
            warnings.push(not_read(path, &why));
            return None;
        }
    };
    match read_capped(&real, MAX_SYSTEM_PROMPT_BYTES) {
        Ok((text, cut)) => {
            if cut {
                warnings.push(format!(
                    "{} is longer than {MAX_SYSTEM_PROMPT_BYTES} bytes; the rest was cut",
                    path.display()
                ));
            }
            Some(ContextFile {
                path: path.to_path_buf(),
                text,
            })
        }
        Err(err) => {
            warnings.push(format!("{} could not be read: {err}", path.display()));
            None
        }
    }
}

/// A value for `ploy config show`: its key, its value as JSON, and its source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShownValue {
    /// Dotted key (`security_profile.sandbox`, `permissions.shell.allow`).
    pub key: String,
    /// The value.
    pub value: serde_json::Value,
    /// Where it came from: `default`, `user` or `project`.
    pub source: &'static str,
}

/// The effective settings as a flat list of values with sources, for
/// `ploy config show`.
pub fn effective_values(loaded: &LoadedProject) -> Result<Vec<ShownValue>, SettingsError> {
    let resolved = loaded.resolved_settings()?;
    let source = |s: ValueSource| match s {
        ValueSource::Default => "default",
        ValueSource::User => "user",
        ValueSource::Project => "project",
    };
    let mut values = vec![
        ShownValue {
            key: "security_profile.sandbox".to_owned(),
            value: serde_json::Value::String(resolved.profile.sandbox().to_string()),
            source: source(resolved.sandbox_source),
        },
        ShownValue {
            key: "security_profile.approval".to_owned(),
            value: serde_json::Value::String(resolved.profile.approval().to_string()),
            source: source(resolved.approval_source),
        },
        ShownValue {
            key: "default_project_trust".to_owned(),
            value: serde_json::to_value(resolved.default_project_trust.value)
                .unwrap_or(serde_json::Value::Null),
            source: source(resolved.default_project_trust.source),
        },
    ];
    for layer in resolved.rules.layers() {
        let layer_source = match layer.source() {
            ploy_policy::RuleSource::Default => "default",
            ploy_policy::RuleSource::User => "user",
            ploy_policy::RuleSource::Project => "project",
            ploy_policy::RuleSource::Conversation => "conversation",
        };
        for rule in layer.rules() {
            values.push(ShownValue {
                key: format!("permissions.{}.{}", rule.kind, rule.effect),
                value: serde_json::Value::String(rule.pattern.clone()),
                source: layer_source,
            });
        }
    }
    for ext in &loaded.extensions {
        values.push(ShownValue {
            key: "extensions".to_owned(),
            value: serde_json::json!({
                "command": ext.command,
                "args": ext.args,
                "timeout_ms": ext.timeout.as_millis(),
            }),
            source: match ext.origin {
                ExtensionOrigin::User => "user",
                ExtensionOrigin::CommandLine => "command_line",
                ExtensionOrigin::Project => "project",
            },
        });
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_entries_parse_and_bad_ones_name_the_key() {
        let value = serde_json::json!([
            "/bin/ext-a",
            {"command": "ext-b", "args": ["-x"], "timeout_ms": 250},
        ]);
        let specs = parse_extensions(Some(&value), "s.json", ExtensionOrigin::User, None).unwrap();
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[1].args, ["-x"]);
        assert_eq!(specs[1].timeout, Duration::from_millis(250));
        for (bad, key) in [
            (serde_json::json!({"a": 1}), "extensions"),
            (serde_json::json!([1]), "[0]"),
            (
                serde_json::json!([{"command": "x", "run": true}]),
                "[0].run",
            ),
            (
                serde_json::json!([{"command": "x", "timeout_ms": 0}]),
                "[0].timeout_ms",
            ),
            (
                serde_json::json!([{"command": "x", "timeout_ms": 10_000_000}]),
                "[0].timeout_ms",
            ),
            (serde_json::json!([{"command": "rel/x"}]), "[0].command"),
            (serde_json::json!([{"args": []}]), "[0].command"),
            (serde_json::json!([""]), "[0].command"),
        ] {
            let err = parse_extensions(Some(&bad), "s.json", ExtensionOrigin::User, None)
                .unwrap_err()
                .to_string();
            assert!(err.contains("s.json") && err.contains(key), "{bad}: {err}");
        }
        let project = parse_extensions(
            Some(&serde_json::json!(["tools/ext"])),
            "p.json",
            ExtensionOrigin::Project,
            Some(Path::new("/proj")),
        )
        .unwrap();
        assert_eq!(project[0].command, PathBuf::from("/proj/tools/ext"));
    }
}
