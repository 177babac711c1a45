//! Resolution (TRUST-3..7): ONE function, [`resolve`], that returns the trust
//! decision and the rule that made it. The order is fixed:
//!
//! 1. command-line override (`--approve` / `--no-approve`) → `flag`
//! 2. no resource needs trust → `trusted: None`, `no_resources`
//! 3. user/global and command-line extensions answer `project_trust`; the first
//!    yes/no wins (a crash or timeout is no answer) → `extension`
//! 4. the nearest saved decision for the working directory or an ancestor →
//!    `saved`
//! 5. `default_project_trust`: `always` → trusted, `never` → not trusted →
//!    `default`
//! 6. `ask` with a UI → the question → `prompt` (an unanswered question is
//!    "not trusted, this session only")
//! 7. `ask` without a UI (`-p`, `--mode json`, `--mode rpc`, stdin not a TTY)
//!    → not trusted, never a question → `non_interactive`

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::{
    detect::Resource,
    extension::{ExtensionAnswer, ExtensionOutcome, ExtensionSpec, ask_project_trust},
    prompt::{PromptChoice, PromptRequest, TrustPrompt},
    store::{SavedMatch, TrustStore},
};

/// The global setting `default_project_trust` (TRUST-4), owned by
/// ploy-policy's settings format.
pub use ploy_policy::DefaultProjectTrust;

/// How ploy was started, for deciding whether a question can be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UiMode {
    /// The interactive UI (a question is possible when stdin is a TTY).
    Interactive,
    /// `-p`: print mode.
    Print,
    /// `--mode json`.
    Json,
    /// `--mode rpc`.
    Rpc,
}

/// The UI available to the resolver.
pub enum Ui<'a> {
    /// A question can be asked.
    Prompt(&'a mut dyn TrustPrompt),
    /// No question can be asked; the mode says why.
    NonInteractive(NonInteractiveReason),
}

impl<'a> Ui<'a> {
    /// The UI for a mode: a question only in interactive mode with a TTY on
    /// stdin (TRUST-7).
    pub fn for_mode(mode: UiMode, stdin_is_tty: bool, prompt: &'a mut dyn TrustPrompt) -> Self {
        match mode {
            UiMode::Interactive if stdin_is_tty => Ui::Prompt(prompt),
            UiMode::Interactive => Ui::NonInteractive(NonInteractiveReason::NoTty),
            UiMode::Print => Ui::NonInteractive(NonInteractiveReason::Print),
            UiMode::Json => Ui::NonInteractive(NonInteractiveReason::Json),
            UiMode::Rpc => Ui::NonInteractive(NonInteractiveReason::Rpc),
        }
    }
}

/// Why no question can be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NonInteractiveReason {
    /// `-p`
    Print,
    /// `--mode json`
    Json,
    /// `--mode rpc`
    Rpc,
    /// stdin is not a terminal
    NoTty,
}

impl NonInteractiveReason {
    fn describe(self) -> &'static str {
        match self {
            Self::Print => "print mode (-p)",
            Self::Json => "--mode json",
            Self::Rpc => "--mode rpc",
            Self::NoTty => "stdin is not a terminal",
        }
    }
}

/// Which rule decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// `--approve` / `--no-approve`.
    Flag,
    /// Nothing needs trust.
    NoResources,
    /// An extension answered `project_trust`.
    Extension,
    /// A saved decision in the trust file.
    Saved,
    /// `default_project_trust` was `always` or `never`.
    Default,
    /// The user answered the question.
    Prompt,
    /// `ask` without a UI: skipped.
    NonInteractive,
}

/// Everything the resolver looks at.
pub struct TrustRequest<'a> {
    /// The canonical working directory ([`crate::canonical_dir`]).
    pub cwd: &'a Path,
    /// The resources found ([`crate::detect::detect`]).
    pub resources: &'a [Resource],
    /// `Some(true)` for `--approve`, `Some(false)` for `--no-approve`.
    pub flag: Option<bool>,
    /// User/global and command-line extensions, in order (project extensions
    /// never take part: they are what is being decided).
    pub extensions: &'a [ExtensionSpec],
    /// The trust file, read.
    pub store: &'a TrustStore,
    /// `default_project_trust` from the user's settings.
    pub default: DefaultProjectTrust,
}

/// The decision and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resolution {
    /// The canonical working directory.
    pub cwd: PathBuf,
    /// `Some(true)` trusted, `Some(false)` not trusted, `None` no decision
    /// needed (nothing project-local that needs trust exists).
    pub trusted: Option<bool>,
    /// The rule that decided.
    pub decided_by: DecidedBy,
    /// One human sentence: why.
    pub reason: String,
    /// The resources that need trust.
    pub resources: Vec<Resource>,
    /// The nearest saved decision, whether or not it was the deciding rule.
    pub saved: Option<SavedMatch>,
    /// What each extension asked answered, in order.
    pub extensions: Vec<ExtensionOutcome>,
    /// A decision the user or an extension asked to remember; the caller saves
    /// it with [`Resolution::persist`].
    pub remember: Option<SavedMatch>,
}

impl Resolution {
    /// True only when the project is trusted; `None` (no decision needed)
    /// loads nothing project-local either.
    pub fn is_trusted(&self) -> bool {
        self.trusted == Some(true)
    }

    /// Saves [`Resolution::remember`], if any, in the trust file at `path`.
    pub fn persist(&self, path: &Path) -> Result<(), crate::TrustError> {
        match &self.remember {
            Some(entry) => TrustStore::save(path, &entry.dir, entry.trusted),
            None => Ok(()),
        }
    }
}

/// Decides whether the project at `request.cwd` is trusted and which rule
/// decided. See the module documentation for the order.
pub fn resolve(request: &TrustRequest<'_>, ui: Ui<'_>) -> Resolution {
    let cwd = request.cwd;
    let saved = request.store.nearest(cwd);
    let mut resolution = Resolution {
        cwd: cwd.to_path_buf(),
        trusted: None,
        decided_by: DecidedBy::NoResources,
        reason: String::new(),
        resources: request.resources.to_vec(),
        saved: saved.clone(),
        extensions: Vec::new(),
        remember: None,
    };
    let mut decide = |trusted: Option<bool>, by: DecidedBy, reason: String| {
        resolution.trusted = trusted;
        resolution.decided_by = by;
        resolution.reason = reason;
    };

    if let Some(flag) = request.flag {
        let word = if flag { "--approve" } else { "--no-approve" };
        decide(
            Some(flag),
            DecidedBy::Flag,
            format!("{word} on the command line (this run only)"),
        );
        return resolution;
    }
    if request.resources.is_empty() {
        decide(
            None,
            DecidedBy::NoResources,
            "no project files that need trust were found".to_owned(),
        );
        return resolution;
    }

    let mut outcomes = Vec::new();
    let mut by_extension = None;
    for extension in request.extensions {
        let answer = ask_project_trust(extension, cwd, request.resources);
        let decided = match &answer {
            ExtensionAnswer::Yes { remember } => Some((true, *remember)),
            ExtensionAnswer::No { remember } => Some((false, *remember)),
            ExtensionAnswer::NoAnswer { .. } => None,
        };
        outcomes.push(ExtensionOutcome {
            extension: extension.command.clone(),
            answer,
        });
        if let Some(decided) = decided {
            by_extension = Some((extension.command.clone(), decided));
            break;
        }
    }
    resolution.extensions = outcomes;
    if let Some((program, (trusted, remember))) = by_extension {
        resolution.trusted = Some(trusted);
        resolution.decided_by = DecidedBy::Extension;
        resolution.reason = format!(
            "extension {} answered {}",
            program.display(),
            if trusted { "yes" } else { "no" }
        );
        if remember {
            resolution.remember = Some(SavedMatch {
                dir: cwd.to_path_buf(),
                trusted,
            });
        }
        return resolution;
    }

    if let Some(entry) = saved {
        resolution.trusted = Some(entry.trusted);
        resolution.decided_by = DecidedBy::Saved;
        resolution.reason = format!(
            "saved decision for {}: {}",
            entry.dir.display(),
            if entry.trusted {
                "trusted"
            } else {
                "not trusted"
            }
        );
        return resolution;
    }

    match request.default {
        DefaultProjectTrust::Always => {
            resolution.trusted = Some(true);
            resolution.decided_by = DecidedBy::Default;
            resolution.reason = "default_project_trust is \"always\"".to_owned();
        }
        DefaultProjectTrust::Never => {
            resolution.trusted = Some(false);
            resolution.decided_by = DecidedBy::Default;
            resolution.reason = "default_project_trust is \"never\"".to_owned();
        }
        DefaultProjectTrust::Ask => match ui {
            Ui::NonInteractive(why) => {
                resolution.trusted = Some(false);
                resolution.decided_by = DecidedBy::NonInteractive;
                resolution.reason = format!(
                    "no saved decision and no question possible ({}): project resources skipped; \
                     use `ploy trust allow` or --approve",
                    why.describe()
                );
            }
            Ui::Prompt(prompt) => {
                let parent = cwd.parent().unwrap_or(cwd);
                let asked = prompt.ask(&PromptRequest {
                    cwd,
                    parent,
                    resources: request.resources,
                });
                resolution.decided_by = DecidedBy::Prompt;
                match asked {
                    Ok(choice) => {
                        resolution.trusted = Some(choice.trusts());
                        resolution.reason = format!("you chose \"{}\"", choice.label());
                        resolution.remember = match choice {
                            PromptChoice::Trust => Some(SavedMatch {
                                dir: cwd.to_path_buf(),
                                trusted: true,
                            }),
                            PromptChoice::TrustParent => Some(SavedMatch {
                                dir: parent.to_path_buf(),
                                trusted: true,
                            }),
                            PromptChoice::DoNotTrust => Some(SavedMatch {
                                dir: cwd.to_path_buf(),
                                trusted: false,
                            }),
                            PromptChoice::TrustSession | PromptChoice::DoNotTrustSession => None,
                        };
                    }
                    Err(why) => {
                        resolution.trusted = Some(false);
                        resolution.reason =
                            format!("the trust question got no answer ({why}): not trusted");
                    }
                }
            }
        },
    }
    resolution
}
