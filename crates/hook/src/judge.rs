//! Judging one host tool call with ploy's rules: the settings and rule
//! layers read once per process ([`Context::load`]), the session's marks
//! from the store ([`crate::session`]), the one decision function
//! (`ploy_policy::Permission::assert`), and what ploy answers the host.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ploy_dirs::PloyDirs;
use ploy_egress::SecretDoor;
use ploy_policy::{
    Action, ActionKind, Basis, Decision, KindSet, PloyFolders, ProjectRoot, ProjectTrust, Rules,
    Settings, TaintMark, Verdict as PolicyVerdict,
};
use ploy_secrets::{Redactor, SecretSet, SecretSources};
use ploy_trust::{
    DetectOptions, ResourceKind, ScriptedPrompt, TrustRequest, TrustStore, Ui, UiMode, detect,
    load_user_settings, resolve,
};

use crate::config::HookSettings;
use crate::session::Sessions;

/// A refusal to judge: the call is denied with this reason (fail closed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The requirement the refusal enforces.
    pub requirement: &'static str,
    /// What went wrong, for a person.
    pub reason: String,
}

impl Refused {
    /// A refusal.
    pub fn new(requirement: &'static str, reason: impl Into<String>) -> Self {
        Self {
            requirement,
            reason: reason.into(),
        }
    }
}

/// What ploy answers the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// ploy has nothing to add: the host's own rules decide.
    NoDecision,
    /// ploy's rules allow it (said only with `hook.answer_allow`).
    Allow {
        /// Why.
        reason: String,
    },
    /// A person must say yes.
    Ask {
        /// Why.
        reason: String,
        /// The requirement that asks.
        requirement: &'static str,
    },
    /// Refused.
    Deny {
        /// Why.
        reason: String,
        /// The requirement that refuses.
        requirement: &'static str,
    },
}

impl Answer {
    pub(crate) fn from_refused(refused: Refused) -> Self {
        Answer::Deny {
            reason: refused.reason,
            requirement: refused.requirement,
        }
    }
}

/// A host tool call, classified.
#[derive(Debug, Clone)]
pub enum Call {
    /// Judge these actions. `native` is what the host itself shows the
    /// person for this tool (`shell` for Bash, `edit` for Write, …): when
    /// ploy asks only by default, about nothing more than that, the host's
    /// own rules decide.
    Actions {
        /// The actions.
        actions: Vec<Action>,
        /// The host tool's own kind.
        native: KindSet,
        /// The command line when it runs on the host, outside any sandbox
        /// (a Claude Code `Bash` call): its text is checked for known
        /// secrets and for reads of the environment's (round8 #2).
        host_line: Option<String>,
    },
    /// A tool that brings web text in: judged, checked for known secrets
    /// (BEYOND-6), and the session is marked before it runs (TAINT-1, TAINT-3).
    Web {
        /// The action (rules match its URL, or the search service's).
        action: Action,
        /// What the call sends out (every key and string of its input, the
        /// URL or query among them), checked for secrets.
        outgoing: String,
        /// The mark stored before the call runs.
        mark: TaintMark,
        /// The host tool's own kind (`web` for a fetcher, `shell` for a
        /// Bash line that reaches the network), as for `Actions`.
        native: KindSet,
        /// The host fetches, not ploy's door: its URL gets the door's text
        /// check here (URL-1). `false` for `ploy mcp`'s own fetches, whose
        /// door checks the address itself after the mark, and for an MCP web
        /// tool whose input has no address (`mcp://<tool>/`: nothing to check).
        host_fetch: bool,
    },
    /// ploy has nothing to say about this tool.
    Pass,
}

/// Everything read from the machine to judge calls in one working folder.
#[derive(Debug)]
pub struct Context {
    /// The `hook` section of the user's settings.
    pub hook: HookSettings,
    /// The rule layers: defaults < user < project (when trusted).
    pub rules: Rules,
    /// The working folder as the project root, with ploy's folders in its
    /// PERM-7 list.
    pub root: ProjectRoot,
    /// The working folder.
    pub cwd: PathBuf,
    /// ploy's state folder.
    pub state_dir: PathBuf,
    /// The project root: the enclosing git work tree's root, or `cwd`.
    pub project: PathBuf,
    /// The `PATH` a host command line runs under (this process's: Claude
    /// Code starts its hooks and its `Bash` tool from one environment);
    /// `None` when unset (round7 #15).
    pub search_path: Option<String>,
    /// Where the known secrets come from (the environment, the `.env` files
    /// of the enclosing git work tree's root, settings `secrets`), read on first use.
    secret_sources: SecretSources,
    /// The known secrets, read on first use.
    known: OnceLock<Known>,
}

/// The known secrets of a call, and what is built from them on demand.
#[derive(Debug)]
struct Known {
    /// Every value (the environment's alone when a file could not be read).
    set: SecretSet,
    /// Why the known secrets could not all be read (then web calls are
    /// refused, BEYOND-6).
    unknown: Option<String>,
    /// The redactor for reasons.
    redactor: OnceLock<Redactor>,
    /// The egress door's own check, for what a web call sends.
    door: OnceLock<SecretDoor>,
}

impl Context {
    /// Read the user's settings, the trust decision for `cwd` (saved
    /// decisions and `default_project_trust` only: extensions are not run
    /// on every tool call, and nothing is saved), the project's settings
    /// when trusted, and build the rule layers. Any failure is a refusal
    /// naming its requirement (PROFILE-2 without settings, CONFIG-1 for a
    /// bad file).
    pub fn load(dirs: &PloyDirs, cwd: &Path) -> Result<Self, Refused> {
        if !cwd.is_absolute() {
            return Err(Refused::new(
                "PERM-1",
                format!(
                    "the working folder `{}` is not an absolute path",
                    cwd.display()
                ),
            ));
        }
        let user = load_user_settings(dirs).map_err(|e| Refused::new("CONFIG-1", e.to_string()))?;
        let origin = user.path.display().to_string();
        let hook =
            HookSettings::from_value(user.settings.as_ref().and_then(Settings::hook), &origin)
                .map_err(|e| Refused::new("CONFIG-1", e.to_string()))?;
        let home = DetectOptions::for_current_user().home;
        // The canonical folder is the root: resolved paths (symbolic links
        // followed) are placed against it.
        let canonical = std::fs::canonicalize(cwd).ok().filter(|c| c.is_dir());
        let project = match &canonical {
            Some(canonical) => Some(project_settings(
                dirs,
                canonical,
                home.clone(),
                user.default_project_trust,
            )?),
            // A folder that does not exist (or is not one) has no project
            // settings; the call is judged with the user's alone.
            None => None,
        };
        let cwd = canonical.as_deref().unwrap_or(cwd);
        let (project_settings, trust) = project.unwrap_or((None, ProjectTrust::Untrusted));
        let resolved =
            ploy_policy::resolve(user.settings.as_ref(), project_settings.as_ref(), trust)
                .map_err(|e| Refused::new(e.requirement(), e.to_string()))?;
        let folders = PloyFolders {
            config_dir: Some(dirs.config.clone()),
            state_dir: Some(dirs.state.clone()),
            trust_file: Some(dirs.trust_file()),
            home,
        };
        // PERM-7: the folders `core.hooksPath` names are git hooks too
        // (husky's `.husky`); unknown = every write asks.
        let git_hooks = ploy_dirs::git_hook_folders(cwd, &[], folders.home.as_deref()).into();
        let root = ProjectRoot::new(cwd)
            .map_err(|e| Refused::new("PERM-1", e.to_string()))?
            .with_ploy_folders(&folders)
            .with_git_hooks(&git_hooks);
        let declared = user
            .settings
            .as_ref()
            .map(Settings::secrets)
            .cloned()
            .unwrap_or_default();
        // The project's secrets, not only the working folder's: Claude Code
        // reports the Bash tool's folder as `cwd`, so after `cd src` the
        // root's `.env` must still be known (secrets5 #2).
        let secrets_folder = enclosing_work_tree(cwd, folders.home.as_deref());
        let secret_sources =
            SecretSources::new(Some(&secrets_folder), &declared.env, &declared.files);
        Ok(Self {
            hook,
            rules: resolved.rules,
            root,
            cwd: cwd.to_path_buf(),
            state_dir: dirs.state.clone(),
            project: secrets_folder.clone(),
            search_path: std::env::var_os("PATH").map(|p| p.to_string_lossy().into_owned()),
            secret_sources,
            known: OnceLock::new(),
        })
    }

    /// The redactor of every known secret (`ploy_secrets::known_secrets`:
    /// the environment, the work tree root's `.env` files, settings
    /// `secrets`), built on first use: only calls that send something out
    /// (web tools, and every `Bash` line, which runs on the host: round8
    /// #2) or print a reason pay for reading them. When a secret file cannot
    /// be read, the environment's secrets alone (web calls are then
    /// refused, [`Context::secrets_unknown`]).
    pub fn redactor(&self) -> &Redactor {
        let known = self.known();
        known.redactor.get_or_init(|| known.set.one_shot_redactor())
    }

    /// The egress door's secret check over the same known secrets: what a
    /// web tool sends is refused exactly as `ploy fetch` would refuse it
    /// (every view, DNS labels and `+` spacing included, pieces cut apart),
    /// one rule for both (BEYOND-6, secrets5 #7). Text checks only: the
    /// hook never opens a connection.
    pub fn door(&self) -> &SecretDoor {
        let known = self.known();
        known
            .door
            .get_or_init(|| SecretDoor::one_shot(known.set.values()))
    }

    /// Why the known secrets could not all be read (an unreadable `.env`),
    /// if so: the door cannot check what a web call sends (BEYOND-6).
    pub fn secrets_unknown(&self) -> Option<&str> {
        self.known().unknown.as_deref()
    }

    fn known(&self) -> &Known {
        // One-shot builds: a hook call checks one request and redacts one
        // reason; an automaton over a large `.env` would cost seconds to
        // build for that (secrets5 #18).
        self.known.get_or_init(|| {
            let (set, unknown) = match ploy_secrets::known_secrets(&self.secret_sources) {
                Ok(set) => (set, None),
                Err(err) => (SecretSet::from_process_env(), Some(err.to_string())),
            };
            Known {
                set,
                unknown,
                redactor: OnceLock::new(),
                door: OnceLock::new(),
            }
        })
    }

    /// Where a written path really lands (symbolic links followed), for
    /// PERM-7 and placement.
    pub fn resolve(&self, path: &str) -> Option<String> {
        ploy_dirs::resolve_links(&self.cwd, path).map(|p| p.to_string_lossy().into_owned())
    }

    /// Judge `call` for `session`.
    pub fn judge(&self, sessions: &Sessions, session: &str, call: &Call) -> Answer {
        match call {
            Call::Pass => Answer::NoDecision,
            Call::Actions {
                actions,
                native,
                host_line,
            } => {
                // A line that runs outside any sandbox: a known secret in
                // its text, or a read of the environment's, is refused or
                // asked before any rule may allow it (round8 #2).
                let host_answer = match host_line {
                    Some(line) => match self.check_host_line(line, false) {
                        Some(deny @ Answer::Deny { .. }) => return deny,
                        other => {
                            let path = actions
                                .iter()
                                .find_map(|action| self.path_question(action, line));
                            match (other, path) {
                                (Some(a), Some(b)) => Some(stricter(a, b)),
                                (a, b) => a.or(b),
                            }
                        }
                    },
                    None => None,
                };
                let state = match sessions.state(session) {
                    Ok(state) => state,
                    Err(err) => {
                        return Answer::Deny {
                            reason: format!(
                                "the session's marks cannot be read ({err}); refusing rather than \
                                 judging it as clean"
                            ),
                            requirement: "TAINT-3",
                        };
                    }
                };
                let mut answer = host_answer.unwrap_or(Answer::NoDecision);
                for action in actions {
                    let decision = ploy_policy::Permission::assert(
                        action,
                        &state.conversation,
                        &self.rules,
                        &state.approvals,
                    );
                    let next = self.answer(action, &decision, *native);
                    answer = stricter(answer, next);
                    if matches!(answer, Answer::Deny { .. }) {
                        break;
                    }
                }
                answer
            }
            Call::Web {
                action,
                outgoing,
                mark,
                native,
                host_fetch,
            } => {
                // URL-1: an address ploy's own door would refuse (loopback,
                // private, metadata, local names, numeric spellings) is
                // refused for the host's fetcher too, whatever the rules
                // (secrets5 #17). The host resolves names itself: a public
                // name that resolves to a private address is a limit the
                // hook cannot close (docs/hook.md).
                if *host_fetch
                    && let ploy_policy::Target::Url(url) = action.target()
                    && let Err(refusal) = ploy_egress::check_url_text(url)
                {
                    return Answer::Deny {
                        reason: format!(
                            "the {} would reach an address ploy never fetches: {}",
                            action.tool(),
                            refusal.reason
                        ),
                        requirement: refusal.rule,
                    };
                }
                let state = match sessions.state(session) {
                    Ok(state) => state,
                    Err(err) => {
                        return Answer::Deny {
                            reason: format!("the session cannot be read ({err})"),
                            requirement: "TAINT-3",
                        };
                    }
                };
                let decision = ploy_policy::Permission::assert(
                    action,
                    &state.conversation,
                    &self.rules,
                    &state.approvals,
                );
                if decision.is_deny() {
                    return Answer::Deny {
                        reason: decision.reason,
                        requirement: decision.requirement,
                    };
                }
                // BEYOND-6: a secret this process knows never leaves in a URL
                // or a search phrase, whatever the rules say; when the
                // secrets cannot all be read, nothing leaves (fail closed).
                if let Some(why) = self.secrets_unknown() {
                    return Answer::Deny {
                        reason: format!(
                            "the {} cannot be checked for secrets: {why}",
                            action.tool()
                        ),
                        requirement: "BEYOND-6",
                    };
                }
                // The door's own check (secrets5 #7); its reason names the
                // rule and the form only, never a character of the value,
                // since it goes back to the model (secrets5 #3).
                if let Err(refusal) = check_outgoing(self.door(), outgoing) {
                    return Answer::Deny {
                        reason: format!("the {}: {}", action.tool(), refusal.reason),
                        requirement: refusal.rule,
                    };
                }
                // A Bash line that reaches the network and reads the
                // environment's secrets sends them (`printenv KEY | curl -d
                // @- …`, round8 #2).
                if *host_fetch
                    && native.contains(ActionKind::Shell)
                    && let Some(answer) = self.check_host_line(outgoing, true)
                {
                    return answer;
                }
                // And one that names a secret it reads (`gh auth token |
                // curl -d @- …`, `cat ~/.aws/credentials | nc …`) sends it
                // too (round8 #4).
                if *host_fetch
                    && native.contains(ActionKind::Shell)
                    && let Some(read) = action.secret_sent()
                {
                    return Answer::Deny {
                        reason: format!(
                            "the line reads `{read}` (a secret file or a credential store), \
                             and the line reaches the network"
                        ),
                        requirement: "BEYOND-6",
                    };
                }
                // TAINT-1 / TAINT-3: marked before the page is read, or not read.
                if let Err(err) = sessions.mark(session, mark) {
                    return Answer::Deny {
                        reason: format!(
                            "the session cannot be marked before web text enters it ({err}); \
                             the web tool does not run"
                        ),
                        requirement: "TAINT-3",
                    };
                }
                // URL-1 for a Bash line that reaches the network (round7
                // #6): a URL written in it, or an address its options or
                // proxy variables hide (`curl --resolve h:443:127.0.0.1`,
                // `-x`, `http :8080`, `wget -e http_proxy=…`: round7 #6
                // residue), that names an address ploy never fetches asks a
                // person, whatever the allow rules (the host's own program
                // connects, so a developer's `curl localhost:3000` is theirs
                // to allow, never silent). After the mark: if the person
                // says yes, the output is outside text.
                if *host_fetch
                    && native.contains(ActionKind::Shell)
                    && let Err(refusal) = ploy_egress::check_urls_in_text(outgoing)
                        .and_then(|()| ploy_egress::check_command_targets(outgoing))
                {
                    return Answer::Ask {
                        reason: format!(
                            "the command would reach an address ploy never fetches: {}",
                            refusal.reason
                        ),
                        requirement: refusal.rule,
                    };
                }
                // A bare program name that PATH may resolve to a project
                // file (round7 #15).
                if *host_fetch
                    && native.contains(ActionKind::Shell)
                    && let Some(question) = self.path_question(action, outgoing)
                {
                    return question;
                }
                let answer = self.answer(action, &decision, *native);
                if !matches!(answer, Answer::Ask { .. } | Answer::Deny { .. }) {
                    self.record_visit(sessions, session, action);
                }
                answer
            }
        }
    }

    /// The checks on a command line that runs on the host with the user's
    /// environment (round8 #2): `None` when it passes. A known secret in
    /// its text is refused whatever program it names, since any program
    /// may send what it is given (BEYOND-6). A read of the environment's
    /// secrets (`printenv`, `$KEY`, `/proc/self/environ`) is refused when
    /// the line `reaches_network`, and otherwise asks as a read of a
    /// secret file does (PERM-2).
    pub fn check_host_line(&self, line: &str, reaches_network: bool) -> Option<Answer> {
        // When a secret file cannot be read (secrets5 #18: one too large),
        // a line that reaches the network is refused; any other line is
        // checked against the secrets that are known (the environment's),
        // as an ordinary call stays answered.
        if let Some(why) = self.secrets_unknown()
            && reaches_network
        {
            return Some(Answer::Deny {
                reason: format!(
                    "the command runs outside any sandbox and cannot be checked for known secrets: {why}"
                ),
                requirement: "BEYOND-6",
            });
        }
        if let Err(refusal) = check_outgoing(self.door(), line) {
            return Some(Answer::Deny {
                reason: format!(
                    "the command runs outside any sandbox, where any program may send what it is \
                     given: {}",
                    refusal.reason
                ),
                requirement: refusal.rule,
            });
        }
        let read = ploy_policy::environment_read_of(line, self.known().set.env_names())?;
        Some(if reaches_network {
            Answer::Deny {
                reason: format!("{read}, and the line reaches the network"),
                requirement: "BEYOND-6",
            }
        } else {
            Answer::Ask {
                reason: format!(
                    "{read}; printing them shows them to the model (a read of a secret, as of a \
                     secret file)"
                ),
                requirement: "PERM-2",
            }
        })
    }

    /// The question for a command line that runs on the host when a bare
    /// program name in it may resolve through `PATH` to a file of the
    /// project instead of the program judged (PERM-7, round7 #15:
    /// [`crate::path_lookup`]).
    pub fn path_question(&self, action: &Action, line: &str) -> Option<Answer> {
        crate::path_lookup::path_question(
            action,
            line,
            self.search_path.as_deref(),
            &self.project,
            &self.cwd,
        )
        .map(|reason| Answer::Ask {
            reason,
            requirement: "PERM-7",
        })
    }

    /// Mark the session after a web tool ran (PostToolUse, a hook installed
    /// late): `Err` when it could not be marked.
    pub fn mark_after(
        &self,
        sessions: &Sessions,
        session: &str,
        call: &Call,
    ) -> Result<(), String> {
        if let Call::Web { mark, action, .. } = call {
            sessions.mark(session, mark)?;
            // The page was read (a person may have said yes to it).
            self.record_visit(sessions, session, action);
        }
        Ok(())
    }

    /// The site of a web action's URL is visited (BEYOND-7); a failure
    /// only makes the next fetch there ask.
    fn record_visit(&self, sessions: &Sessions, session: &str, action: &Action) {
        if let ploy_policy::Target::Url(url) = action.target() {
            let _ = sessions.visit(session, url);
        }
    }

    /// ploy's decision as an answer to the host (see the crate docs).
    fn answer(&self, action: &Action, decision: &Decision, native: KindSet) -> Answer {
        match &decision.verdict {
            PolicyVerdict::Deny => Answer::Deny {
                reason: decision.reason.clone(),
                requirement: decision.requirement,
            },
            PolicyVerdict::Allow if self.hook.answer_allow => Answer::Allow {
                reason: decision.reason.clone(),
            },
            PolicyVerdict::Allow => Answer::NoDecision,
            PolicyVerdict::Ask { .. } => {
                // ploy knows something the host does not: a mark, a protected
                // path, an ask rule, a unit no allow rule can cover, or kinds
                // the host tool does not show (a redirect's edit, a path
                // outside the folder).
                let ploy_specific = !matches!(decision.basis, Basis::Default)
                    || action.units().iter().any(|u| u.allow_blocker.is_some())
                    || !decision.asked_kinds.is_subset(native);
                if ploy_specific || self.hook.answer_allow {
                    Answer::Ask {
                        reason: decision.reason.clone(),
                        requirement: decision.requirement,
                    }
                } else {
                    Answer::NoDecision
                }
            }
        }
    }
}

/// What a web call sends (every key and string of its input, one per
/// line), through the egress door's checks: every view of the text, and the
/// pieces of a secret cut apart anywhere in it.
pub fn check_outgoing(door: &SecretDoor, outgoing: &str) -> Result<(), ploy_egress::Refusal> {
    door.check_sent_text(outgoing)
}

/// The redactor of this process's environment's secrets, built for a few
/// short texts (a hook's reason).
pub fn process_env_redactor() -> Redactor {
    ploy_secrets::SecretSet::from_process_env().one_shot_redactor()
}

/// The stricter of two answers: deny > ask > allow > no decision.
fn stricter(a: Answer, b: Answer) -> Answer {
    fn rank(a: &Answer) -> u8 {
        match a {
            Answer::NoDecision => 0,
            Answer::Allow { .. } => 1,
            Answer::Ask { .. } => 2,
            Answer::Deny { .. } => 3,
        }
    }
    if rank(&b) > rank(&a) { b } else { a }
}

/// The nearest folder from `cwd` up that holds `.git` (a git work tree's
/// root), never above the home folder or at `/`; `cwd` itself when there is
/// none.
pub fn enclosing_work_tree(cwd: &Path, home: Option<&Path>) -> PathBuf {
    for folder in cwd.ancestors() {
        if folder.parent().is_none() || home.is_some_and(|h| folder == h) {
            break;
        }
        if folder.join(".git").symlink_metadata().is_ok() {
            return folder.to_path_buf();
        }
    }
    cwd.to_path_buf()
}

/// Largest project settings file read (1 MiB).
const MAX_PROJECT_SETTINGS_BYTES: u64 = 1 << 20;

/// The project's settings and trust for a canonical folder: saved decisions
/// and `default_project_trust` decide (never a question, never an
/// extension, never a save).
fn project_settings(
    dirs: &PloyDirs,
    canonical: &Path,
    home: Option<PathBuf>,
    default: ploy_policy::DefaultProjectTrust,
) -> Result<(Option<Settings>, ProjectTrust), Refused> {
    let resources = detect(canonical, &DetectOptions { home });
    let store =
        TrustStore::load(&dirs.trust_file()).map_err(|e| Refused::new("TRUST-3", e.to_string()))?;
    let mut prompt = ScriptedPrompt::failing("the hook never asks about trust");
    let request = TrustRequest {
        cwd: canonical,
        resources: &resources,
        flag: None,
        extensions: &[],
        store: &store,
        default,
    };
    let resolution = resolve(&request, Ui::for_mode(UiMode::Json, false, &mut prompt));
    if !resolution.is_trusted() {
        return Ok((None, ProjectTrust::Untrusted));
    }
    let Some(resource) = resources.iter().find(|r| r.kind == ResourceKind::Settings) else {
        return Ok((None, ProjectTrust::Trusted));
    };
    // The project put it there: a regular file of at most 1 MiB, never a
    // FIFO the hook would wait on (secrets5 #18).
    let cannot = |why: String| {
        Refused::new(
            "CONFIG-1",
            format!("{}: cannot read it: {why}", resource.path.display()),
        )
    };
    let text = match ploy_dirs::read_bounded(&resource.path, MAX_PROJECT_SETTINGS_BYTES) {
        Ok(ploy_dirs::FileRead::Bytes(bytes)) => {
            String::from_utf8(bytes).map_err(|_| cannot("it is not UTF-8".into()))?
        }
        Ok(ploy_dirs::FileRead::Missing | ploy_dirs::FileRead::Folder) => {
            return Err(cannot("it is not a file".into()));
        }
        Err(err) => return Err(cannot(err.to_string())),
    };
    let settings = Settings::parse(&text, &resource.path.display().to_string())
        .map_err(|e| Refused::new("CONFIG-1", e.to_string()))?;
    Ok((Some(settings), ProjectTrust::Trusted))
}

/// A web action's mark: what entered the session and from where.
pub fn web_mark(tool: &str, source: ploy_policy::TaintSource) -> TaintMark {
    TaintMark {
        reason: format!("{tool} brings web text into this session"),
        source,
    }
}

/// The kinds of one action, as a set (for `native`).
pub fn kinds(list: &[ploy_policy::ActionKind]) -> KindSet {
    list.iter().copied().collect()
}
