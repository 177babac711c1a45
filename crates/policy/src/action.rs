//! Actions: what a tool call proposes to do, reduced to kinds and targets.
//!
//! An [`Action`] is built once per tool call, before [`crate::Permission::assert`].
//! Building it does the classification (path placement, shell analysis) so
//! that `assert` itself is only matching. Each action carries *match units*:
//! the separate things a rule must cover (one per path, per simple command,
//! per URL). An allow needs every unit allowed; a deny needs one unit denied.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::path::{Placement, ProjectRoot};
use crate::protected::PLAN_FILE;

/// The kinds of action (PERM-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// Read a file or list a folder.
    Read,
    /// Create or change a file (includes a media tool's writes and shell redirects).
    Edit,
    /// Run a command.
    Shell,
    /// Touch a path outside the project.
    ExternalDirectory,
    /// Search, fetch or browse the web.
    Web,
}

impl ActionKind {
    /// Every kind, in a fixed order.
    pub const ALL: [Self; 5] = [
        Self::Read,
        Self::Edit,
        Self::Shell,
        Self::ExternalDirectory,
        Self::Web,
    ];

    /// The settings spelling (`read`, `edit`, `shell`, `external_directory`, `web`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Edit => "edit",
            Self::Shell => "shell",
            Self::ExternalDirectory => "external_directory",
            Self::Web => "web",
        }
    }

    /// True for the kinds a tainted conversation always asks about (PERM-3).
    pub fn guarded_by_taint(self) -> bool {
        matches!(self, Self::Edit | Self::Shell | Self::ExternalDirectory)
    }

    pub(crate) fn index(self) -> usize {
        match self {
            Self::Read => 0,
            Self::Edit => 1,
            Self::Shell => 2,
            Self::ExternalDirectory => 3,
            Self::Web => 4,
        }
    }

    /// True when rules of this kind match paths (so `*` stops at `/`).
    pub(crate) fn is_path_kind(self) -> bool {
        matches!(self, Self::Read | Self::Edit | Self::ExternalDirectory)
    }
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of action kinds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct KindSet(u8);

impl KindSet {
    /// The empty set.
    pub const EMPTY: Self = Self(0);

    /// Add a kind.
    pub fn insert(&mut self, kind: ActionKind) {
        self.0 |= 1 << kind.index();
    }

    /// True when the set holds `kind`.
    pub fn contains(self, kind: ActionKind) -> bool {
        self.0 & (1 << kind.index()) != 0
    }

    /// True when every kind of `self` is in `other`.
    pub fn is_subset(self, other: Self) -> bool {
        self.0 & !other.0 == 0
    }

    /// The kinds, in [`ActionKind::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = ActionKind> {
        ActionKind::ALL
            .into_iter()
            .filter(move |k| self.contains(*k))
    }

    /// True when the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl FromIterator<ActionKind> for KindSet {
    fn from_iter<I: IntoIterator<Item = ActionKind>>(iter: I) -> Self {
        let mut set = Self::EMPTY;
        for kind in iter {
            set.insert(kind);
        }
        set
    }
}

impl Serialize for KindSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for KindSet {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let kinds = Vec::<ActionKind>::deserialize(deserializer)?;
        Ok(kinds.into_iter().collect())
    }
}

impl fmt::Display for KindSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for kind in self.iter() {
            if !first {
                f.write_str("+")?;
            }
            first = false;
            f.write_str(kind.as_str())?;
        }
        Ok(())
    }
}

/// What the action is about, as the tool gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "value")]
pub enum Target {
    /// A file or folder path.
    Path(String),
    /// A shell command line.
    Command(String),
    /// A web address or search phrase.
    Url(String),
    /// ploy's own plan file (`.ploy/plan.json`), written only by the plan
    /// tool in its validated format ([`Action::plan_file`]).
    PlanFile(String),
}

impl Target {
    /// The target text.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Path(s) | Self::Command(s) | Self::Url(s) | Self::PlanFile(s) => s,
        }
    }
}

/// One thing a rule must cover: a kind, the texts a pattern is tried on, and
/// (when set) why no allow rule may cover it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchUnit {
    /// The kind of rule that applies to this unit.
    pub kind: ActionKind,
    /// Texts a pattern is tried on (any match counts). For a path: the
    /// project-relative and the absolute form; for a command: its static
    /// words joined by single spaces; for a URL: the URL and its host.
    pub candidates: Vec<String>,
    /// When set, allow rules and pattern approvals cannot cover this unit
    /// (non-static program name, substitution, parse error...). Ask and deny
    /// rules still apply.
    pub allow_blocker: Option<String>,
    /// Extra texts only deny and ask rules are tried on (`rm -rf x` for
    /// `/bin/rm -rf x` or `rm -fr x`, `git push` for `git -C . push`):
    /// seeing through a spelling must never widen an allow.
    pub deny_candidates: Vec<String>,
    /// Commands found among the words of a program ploy does not know to
    /// run its arguments (`dotenv -- npm publish`, `xvfb-run npm publish`;
    /// round6 #10): a deny or ask rule matching one makes the unit ask
    /// (ploy cannot tell whether the program runs it), never deny.
    pub inner_candidates: Vec<String>,
    /// A command's own words (program basename first, quoting removed):
    /// a deny or ask rule whose words are all among them, in another
    /// order or spelling than any form ploy reads, makes the unit ask
    /// (round7 #11b: ploy does not know every program's options).
    pub words: Vec<String>,
    /// Set (the reason) when ploy could not place the command's subcommand
    /// after its options: any deny or ask rule naming the program makes
    /// the unit ask (fail closed).
    pub unplaced: Option<String>,
    /// When set, this unit may write one of ploy's own files or another
    /// agent's resources (PERM-7, the reason): the action always asks,
    /// whatever allow rules and saved approvals say.
    pub protected: Option<String>,
}

impl MatchUnit {
    pub(crate) fn new(kind: ActionKind, candidates: Vec<String>) -> Self {
        Self {
            kind,
            candidates,
            allow_blocker: None,
            deny_candidates: Vec::new(),
            inner_candidates: Vec::new(),
            words: Vec::new(),
            unplaced: None,
            protected: None,
        }
    }

    pub(crate) fn blocked(
        kind: ActionKind,
        candidates: Vec<String>,
        why: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            candidates,
            allow_blocker: Some(why.into()),
            deny_candidates: Vec::new(),
            inner_candidates: Vec::new(),
            words: Vec::new(),
            unplaced: None,
            protected: None,
        }
    }

    pub(crate) fn protecting(mut self, why: Option<String>) -> Self {
        self.protected = why;
        self
    }

    /// A short label for messages (the first candidate).
    pub fn label(&self) -> &str {
        self.candidates.first().map(String::as_str).unwrap_or("")
    }
}

/// The target of the memory tools' actions ([`Action::memory`]).
pub const MEMORY_TARGET: &str = "ploy:memory";

/// A classified tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub(crate) tool: String,
    pub(crate) target: Target,
    pub(crate) kinds: KindSet,
    pub(crate) units: Vec<MatchUnit>,
    pub(crate) notes: Vec<String>,
    /// A model-chosen navigation under the site rule (BROWSER-2, BEYOND-7).
    pub(crate) navigation: bool,
    /// A navigation that sends a form's body (POST): only to a site already
    /// visited in the conversation (BROWSER-2, [`Action::form_post`]).
    pub(crate) form_post: bool,
    /// The secrets a shell line reads by naming them
    /// ([`Action::secret_reads`]).
    pub(crate) secret_reads: Vec<String>,
}

impl Action {
    /// Read a file or folder. Outside the project it is also `external_directory`.
    pub fn read(tool: impl Into<String>, path: &str, root: &ProjectRoot) -> Self {
        Self::path_action(tool.into(), ActionKind::Read, path, root)
    }

    /// Create or change a file. Outside the project it is also
    /// `external_directory`; one of ploy's own files or another agent's
    /// resources (PERM-7, [`crate::ProtectedPaths::protects`]) always asks.
    ///
    /// Placement is lexical: `link/x` where `link` is a symbolic link to
    /// `.git/hooks` is not seen as a hook here. Callers that touch the
    /// filesystem use [`Self::edit_resolved`] with the canonical path.
    pub fn edit(tool: impl Into<String>, path: &str, root: &ProjectRoot) -> Self {
        Self::path_action(tool.into(), ActionKind::Edit, path, root)
    }

    /// An edit of `written` (the path the tool was given) that the caller
    /// resolved to `resolved` (symbolic links of the part that exists
    /// followed, e.g. with `canonicalize` of the nearest existing folder).
    /// Both forms are units: rules must allow both, a deny on either denies,
    /// either outside the project adds `external_directory`, and either
    /// protected makes the action ask (PERM-7). The target stays `written`,
    /// what the person sees and what an exact approval names.
    pub fn edit_resolved(
        tool: impl Into<String>,
        written: &str,
        resolved: &str,
        root: &ProjectRoot,
    ) -> Self {
        let mut action = Self::path_action(tool.into(), ActionKind::Edit, written, root);
        action.add_resolved(ActionKind::Edit, written, resolved, root);
        action
    }

    /// This action with every `edit` unit protected for `why` (PERM-7), when
    /// the caller found from the filesystem what no name can show: the
    /// write makes or changes a folder git takes as a repository outside
    /// `.git` (`ploy_dirs::repository_part`, proof5 #16). `None` leaves
    /// the action as it is.
    pub fn protecting_edits(mut self, why: Option<String>) -> Self {
        if let Some(why) = why {
            for unit in &mut self.units {
                if unit.kind == ActionKind::Edit {
                    unit.protected.get_or_insert_with(|| why.clone());
                }
            }
        }
        self
    }

    /// A read of `written` that the caller resolved to `resolved` (see
    /// [`Self::edit_resolved`]): a symbolic link out of the project is
    /// `external_directory`.
    pub fn read_resolved(
        tool: impl Into<String>,
        written: &str,
        resolved: &str,
        root: &ProjectRoot,
    ) -> Self {
        let mut action = Self::path_action(tool.into(), ActionKind::Read, written, root);
        action.add_resolved(ActionKind::Read, written, resolved, root);
        action
    }

    fn add_resolved(
        &mut self,
        kind: ActionKind,
        written: &str,
        resolved: &str,
        root: &ProjectRoot,
    ) {
        if root.place(written) != root.place(resolved) {
            self.notes
                .push(format!("`{written}` resolves to `{resolved}`"));
            push_path_units(
                &mut self.kinds,
                &mut self.units,
                &mut self.notes,
                kind,
                resolved,
                root,
                None,
            );
        }
    }

    /// ploy's plan tool writing its plan file (`.ploy/plan.json`) in its own
    /// validated format: an `edit` of that one fixed path which PERM-7 does
    /// not protect. Only the plan tool builds this action, after validating
    /// what it writes; the path is not a parameter, so no other edit can
    /// use the exception (an ordinary [`Self::edit`] of the same path is
    /// protected).
    pub fn plan_file(tool: impl Into<String>, root: &ProjectRoot) -> Self {
        let mut kinds = KindSet::EMPTY;
        kinds.insert(ActionKind::Edit);
        let absolute = root.path().join(PLAN_FILE).to_string_lossy().into_owned();
        Self {
            tool: tool.into(),
            target: Target::PlanFile(PLAN_FILE.to_string()),
            kinds,
            units: vec![MatchUnit::new(
                ActionKind::Edit,
                vec![PLAN_FILE.to_string(), absolute],
            )],
            notes: vec![
                "ploy's plan file, written by the plan tool in its validated format".into(),
            ],
            navigation: false,
            form_post: false,
            secret_reads: Vec::new(),
        }
    }

    /// The memory tools (`memory_save`, `memory_search`): ploy's own memory
    /// of this project, in ploy's store, never a project file. A `read`
    /// action on the one name [`MEMORY_TARGET`]: the built-in read rule
    /// allows it, a `read` deny rule on `ploy:memory` turns the memory off.
    /// What is saved carries the conversation's marks, and what is cited
    /// carries them over (BEYOND-5): that, not a question, is what keeps a
    /// hostile page's text from starting clean in a later conversation.
    pub fn memory(tool: impl Into<String>) -> Self {
        let mut kinds = KindSet::EMPTY;
        kinds.insert(ActionKind::Read);
        Self {
            tool: tool.into(),
            target: Target::Path(MEMORY_TARGET.to_string()),
            kinds,
            units: vec![MatchUnit::new(
                ActionKind::Read,
                vec![MEMORY_TARGET.to_string()],
            )],
            notes: vec!["ploy's memory of this project (its store, not a file)".into()],
            navigation: false,
            form_post: false,
            secret_reads: Vec::new(),
        }
    }

    /// A media tool writing a file (image, audio): an `edit` (PERM-1).
    pub fn media_write(tool: impl Into<String>, path: &str, root: &ProjectRoot) -> Self {
        Self::path_action(tool.into(), ActionKind::Edit, path, root)
    }

    /// Search, fetch or browse. Rules match the URL text and its host.
    pub fn web(tool: impl Into<String>, target: &str) -> Self {
        let mut kinds = KindSet::EMPTY;
        kinds.insert(ActionKind::Web);
        let unit = match url::Url::parse(target) {
            Ok(parsed) => {
                // The normalised URL, and the host followed by a marker that
                // no URL serialisation contains, so host patterns never match
                // text elsewhere in a URL (`?u=en.wikipedia.org`).
                let mut candidates = vec![parsed.as_str().to_string()];
                if let Some(host) = parsed.host_str() {
                    candidates.push(format!("{host}{}", crate::rules::WEB_HOST_MARKER));
                }
                MatchUnit::new(ActionKind::Web, candidates)
            }
            // A search phrase or a malformed address: rules still see the
            // text, but no allow rule may cover what cannot be parsed.
            Err(err) => MatchUnit::blocked(
                ActionKind::Web,
                vec![target.to_string()],
                format!("not a parseable URL ({err})"),
            ),
        };
        Self {
            tool: tool.into(),
            target: Target::Url(target.to_string()),
            kinds,
            units: vec![unit],
            notes: Vec::new(),
            navigation: false,
            form_post: false,
            secret_reads: Vec::new(),
        }
    }

    /// A navigation the model chose (`web_fetch`, `browser_open`,
    /// `browser_click`, `browser_type`, and each of their redirect hops): a
    /// [`Self::web`] action that also passes the site rule
    /// ([`crate::site_rule`]): in a tainted conversation a site not yet
    /// visited asks, whatever allow rules and saved approvals say
    /// (BROWSER-2, BEYOND-2, BEYOND-7).
    pub fn navigate(tool: impl Into<String>, url: &str) -> Self {
        let mut action = Self::web(tool, url);
        action.navigation = true;
        action
    }

    /// True for a [`Self::navigate`] action.
    pub fn is_navigation(&self) -> bool {
        self.navigation
    }

    /// A form sent with POST (`browser_type` submitting a POST form): a
    /// [`Self::navigate`] whose site must already have been visited in the
    /// conversation, tainted or not; any other site is denied, not asked,
    /// whatever allow rules and saved approvals say (a page must not make
    /// the model post project text to a site of its choosing; BROWSER-2,
    /// issue 18). The body itself is checked by the egress door (BEYOND-6).
    pub fn form_post(tool: impl Into<String>, url: &str) -> Self {
        let mut action = Self::navigate(tool, url);
        action.form_post = true;
        action
    }

    /// True for a [`Self::form_post`] action.
    pub fn is_form_post(&self) -> bool {
        self.form_post
    }

    /// A web search: rules match the search backend's URL and host (a
    /// phrase is not an address); the phrase is kept in the notes for the
    /// prompt. The phrase must already be scrubbed (SCRUB-1) by the caller.
    pub fn web_search(tool: impl Into<String>, backend_url: &str, phrase: &str) -> Self {
        let mut action = Self::web(tool, backend_url);
        action.notes.push(format!("search phrase: {phrase}"));
        action
    }

    fn path_action(tool: String, kind: ActionKind, path: &str, root: &ProjectRoot) -> Self {
        let mut kinds = KindSet::EMPTY;
        kinds.insert(kind);
        let mut units = Vec::new();
        let mut notes = Vec::new();
        push_path_units(&mut kinds, &mut units, &mut notes, kind, path, root, None);
        Self {
            tool,
            target: Target::Path(path.to_string()),
            kinds,
            units,
            notes,
            navigation: false,
            form_post: false,
            secret_reads: Vec::new(),
        }
    }

    /// The tool that proposed the action.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The target as given.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Every kind this action has (a redirecting command is `shell` + `edit`).
    pub fn kinds(&self) -> KindSet {
        self.kinds
    }

    /// The units rules are matched against.
    pub fn units(&self) -> &[MatchUnit] {
        &self.units
    }

    /// Classification notes (why a kind was added), for prompts and logs.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

/// Add the units for one path touched with `kind`: the unit itself, plus an
/// `external_directory` unit when the path leaves the project. An `edit` of a
/// PERM-7 path (or one the caller already knows may be one: `protected`)
/// is marked protected.
pub(crate) fn push_path_units(
    kinds: &mut KindSet,
    units: &mut Vec<MatchUnit>,
    notes: &mut Vec<String>,
    kind: ActionKind,
    path: &str,
    root: &ProjectRoot,
    protected: Option<String>,
) {
    let protected = if kind == ActionKind::Edit {
        root.protected()
            .protects(path)
            .map(|p| p.to_string())
            .or(protected)
    } else {
        None
    };
    match root.place(path) {
        Placement::Inside { relative, absolute } => {
            units.push(MatchUnit::new(kind, vec![relative, absolute]).protecting(protected));
        }
        Placement::Outside { normalised } => {
            kinds.insert(ActionKind::ExternalDirectory);
            notes.push(format!("`{path}` is outside the project ({normalised})"));
            units.push(MatchUnit::new(kind, vec![normalised.clone()]).protecting(protected));
            units.push(MatchUnit::new(
                ActionKind::ExternalDirectory,
                vec![normalised],
            ));
        }
    }
}
