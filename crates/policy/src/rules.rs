//! Permission rules: allow / ask / deny by kind, with glob patterns (PERM-2).
//!
//! Patterns are globs (`globset`):
//! * `read`, `edit`, `external_directory`: matched on the path, both its
//!   project-relative form (`src/main.rs`) and its absolute normalised form
//!   (`/home/u/proj/src/main.rs`, or `~/.ssh/id_rsa`). `*` stops at `/`;
//!   `**` crosses folders.
//! * `shell`: matched on ONE simple command at a time (its static words
//!   joined by single spaces), never on the raw line. A pattern ending in
//!   ` *` also matches the bare prefix (`cargo test *` matches `cargo test`).
//! * `web`: a pattern with `://` is matched on the normalised URL
//!   (`https://docs.rs/*`); any other pattern on the host only
//!   (`*.wikipedia.org`, `*` for every host).
//!
//! Layers, lowest first: built-in defaults < user settings < project settings
//! (only when the project is trusted) < conversation rules. Deny rules of any
//! layer win; otherwise, for each unit, the highest layer with a matching ask
//! or allow rule decides it, ask winning over allow inside one layer.

use std::fmt;

use globset::{Candidate, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::action::ActionKind;

/// What a rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Run without asking.
    Allow,
    /// Ask a person.
    Ask,
    /// Refuse; nothing overrides a deny.
    Deny,
}

impl Effect {
    /// The settings spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a rule layer comes from, lowest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleSource {
    /// Built into ploy.
    Default,
    /// The user's settings file.
    User,
    /// The project's `.ploy/settings.json` (only when trusted).
    Project,
    /// Rules stored in the conversation itself.
    Conversation,
}

impl RuleSource {
    /// Lowercase name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::User => "user",
            Self::Project => "project",
            Self::Conversation => "conversation",
        }
    }
}

impl fmt::Display for RuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rule: kind, effect and glob pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The kind of action the rule applies to.
    pub kind: ActionKind,
    /// What the rule does.
    pub effect: Effect,
    /// The glob pattern (see the module docs for what it is matched on).
    pub pattern: String,
}

impl Rule {
    /// A rule.
    pub fn new(kind: ActionKind, effect: Effect, pattern: impl Into<String>) -> Self {
        Self {
            kind,
            effect,
            pattern: pattern.into(),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} `{}`", self.kind, self.effect, self.pattern)
    }
}

/// Why a rule could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The pattern is empty or only whitespace (it would match nothing useful,
    /// or everything, depending on reading: refused rather than guessed).
    #[error("PERM-2: empty pattern in a {kind} rule; write `*` or `**` to mean everything")]
    EmptyPattern {
        /// The rule's kind.
        kind: ActionKind,
    },
    /// The glob does not parse.
    #[error("PERM-2: invalid {kind} pattern `{pattern}`: {reason}")]
    InvalidPattern {
        /// The rule's kind.
        kind: ActionKind,
        /// The pattern as written.
        pattern: String,
        /// What the glob parser said.
        reason: String,
    },
    /// A stored value of the conversation (a visited site) is not valid.
    #[error("BROWSER-2: {reason}")]
    Invalid {
        /// What is wrong.
        reason: String,
    },
}

/// The files a read asks about by default, as a person reads them: the
/// secret-file rule of ploy-secrets ([`ploy_secrets::SECRET_FILE_NAMES`]:
/// `.env`, `.env.*` except the templates, `.envrc`, `*.env`, credential
/// files such as `.aws/credentials`, `.netrc`, `.pgpass`, private keys), in
/// any folder and any case. [`secret_file_patterns`] spells them as globs.
pub const SECRET_FILE_PATTERNS: &[&str] = ploy_secrets::SECRET_FILE_NAMES;

/// The built-in `read` ask patterns for secret files, as globs: exactly
/// [`ploy_secrets::secret_file_globs`], so the files whose read asks are
/// the files whose values ploy knows as secrets (one rule; secrets5 #1,
/// #10). A glob has no negation or case folding, so the rule spells out
/// `.env*` without `.env.example` and each letter in both cases.
pub fn secret_file_patterns() -> Vec<String> {
    ploy_secrets::secret_file_globs()
}

/// Suffix of a web action's host candidate (and of host patterns). A parsed
/// URL's serialisation never contains a raw space, so a host pattern can only
/// ever match the host. (A suffix, not a prefix, keeps `*.example.org` a
/// cheap literal-suffix match inside globset.)
pub(crate) const WEB_HOST_MARKER: &str = " ";

/// Compile one pattern into the glob set(s) it stands for.
pub(crate) fn add_pattern(
    builder: &mut GlobSetBuilder,
    kind: ActionKind,
    pattern: &str,
) -> Result<usize, RuleError> {
    if pattern.trim().is_empty() {
        return Err(RuleError::EmptyPattern { kind });
    }
    let mut added = 0;
    let mut push = |text: &str| -> Result<(), RuleError> {
        let glob = GlobBuilder::new(text)
            .literal_separator(kind.is_path_kind())
            .backslash_escape(true)
            .build()
            .map_err(|err| RuleError::InvalidPattern {
                kind,
                pattern: pattern.to_string(),
                reason: err.kind().to_string(),
            })?;
        builder.add(glob);
        added += 1;
        Ok(())
    };
    if kind == ActionKind::Web && !pattern.contains("://") {
        // A host pattern: matched only against the marked host candidate.
        push(&format!("{pattern}{WEB_HOST_MARKER}"))?;
        return Ok(added);
    }
    push(pattern)?;
    if kind == ActionKind::Shell {
        // `cargo test *` also means the bare `cargo test`.
        if let Some(prefix) = pattern.strip_suffix(" *")
            && !prefix.trim().is_empty()
        {
            push(prefix)?;
        }
    }
    Ok(added)
}

/// A compiled glob set with, for each glob, the index of the rule it came from.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    set: GlobSet,
    owner: Vec<usize>,
    /// The built-in secret-file read asks: the index of the rule of the
    /// first of [`ploy_secrets::secret_file_globs`], matched through
    /// [`ploy_secrets::secret_file_glob_index`] (the same globs, without
    /// compiling them on each hook call: issue 16).
    secret_files: Option<usize>,
}

impl Matcher {
    pub(crate) fn build(
        kind: ActionKind,
        patterns: impl Iterator<Item = (usize, String)>,
    ) -> Result<Option<Self>, RuleError> {
        let mut builder = GlobSetBuilder::new();
        let mut owner = Vec::new();
        for (index, pattern) in patterns {
            let added = add_pattern(&mut builder, kind, &pattern)?;
            owner.extend(std::iter::repeat_n(index, added));
        }
        if owner.is_empty() {
            return Ok(None);
        }
        let set = builder.build().map_err(|err| RuleError::InvalidPattern {
            kind,
            pattern: String::new(),
            reason: err.to_string(),
        })?;
        Ok(Some(Self {
            set,
            owner,
            secret_files: None,
        }))
    }

    /// Append the owner index of every glob matching `candidate` (the
    /// text `text`) to `out` (duplicates possible; of the secret-file
    /// rules, the first only); `scratch` is reused between calls.
    pub(crate) fn hits_into(
        &self,
        candidate: &Candidate<'_>,
        text: &str,
        scratch: &mut Vec<usize>,
        out: &mut Vec<usize>,
    ) {
        self.set.matches_candidate_into(candidate, scratch);
        out.extend(scratch.iter().filter_map(|g| self.owner.get(*g).copied()));
        if let Some(first) = self.secret_files
            && let Some(glob) = ploy_secrets::secret_file_glob_index(text)
        {
            out.push(first + glob);
        }
    }

    /// The owner index of the first glob matching any candidate.
    pub(crate) fn first_match(&self, candidates: &[String]) -> Option<usize> {
        for candidate in candidates {
            if let Some(first) = self.secret_files
                && let Some(glob) = ploy_secrets::secret_file_glob_index(candidate)
            {
                return Some(first + glob);
            }
            // `is_match` first: the common case is no match, and it does not allocate.
            if self.set.is_match(candidate.as_str()) {
                let hits = self.set.matches(candidate.as_str());
                if let Some(first) = hits.iter().min() {
                    return self.owner.get(*first).copied();
                }
            }
        }
        None
    }
}

/// The rules of one source, compiled.
#[derive(Debug, Clone)]
pub struct RuleLayer {
    source: RuleSource,
    origin: Option<String>,
    rules: Vec<Rule>,
    // One glob set per kind (all effects): one match call per candidate.
    matchers: [Option<Matcher>; 5],
    // For each shell deny or ask rule (by index): its words, `*` words
    // left out ([`RuleLayer::scattered_match`]).
    words: Vec<Option<Vec<RuleWord>>>,
}

/// The words of a shell deny or ask rule, each as a glob on one word (`*`
/// words left out), or `None` for any other rule or a pattern whose words
/// do not compile one by one.
fn rule_words(rule: &Rule) -> Option<Vec<RuleWord>> {
    if rule.kind != ActionKind::Shell || rule.effect == Effect::Allow {
        return None;
    }
    rule.pattern
        .split_whitespace()
        .filter(|w| *w != "*")
        .map(RuleWord::new)
        .collect::<Option<Vec<_>>>()
        .filter(|words| !words.is_empty())
}

/// One word of a deny or ask rule: plain text (most are: `git`, `push`,
/// `--force`) is compared as it is, and only a word with glob characters is
/// compiled, since the hook compiles every layer once per tool call and a
/// regular expression per word cost more than the comparison (issue 16).
#[derive(Debug, Clone)]
pub(crate) enum RuleWord {
    /// No glob character: equal or not.
    Plain(String),
    /// A glob (`push*`, `/*`).
    Glob(GlobMatcher),
}

impl RuleWord {
    /// `None` when the glob does not compile (the rule then has no words).
    fn new(word: &str) -> Option<Self> {
        if !word.contains(['*', '?', '[', ']', '{', '}', '\\']) {
            return Some(Self::Plain(word.to_string()));
        }
        GlobBuilder::new(word)
            .backslash_escape(true)
            .build()
            .ok()
            .map(|g| Self::Glob(g.compile_matcher()))
    }

    fn is_match(&self, word: &str) -> bool {
        match self {
            Self::Plain(text) => text == word,
            Self::Glob(matcher) => matcher.is_match(word),
        }
    }

    /// The word as the rule wrote it.
    fn text(&self) -> &str {
        match self {
            Self::Plain(text) => text,
            Self::Glob(matcher) => matcher.glob().glob(),
        }
    }
}

/// True when `word` is `rule_word` as a program reading GNU-style long
/// options takes it: equal, or `--name[=value]` whose name is an
/// abbreviation (two letters or more) of the rule's `--long` option.
fn word_matches(rule_word: &RuleWord, word: &str) -> bool {
    if rule_word.is_match(word) {
        return true;
    }
    let long = rule_word.text();
    match (long.strip_prefix("--"), word.strip_prefix("--")) {
        (Some(long), Some(name)) => {
            let name = name.split('=').next().unwrap_or_default();
            name.len() >= 2
                && long.len() > name.len()
                && long.starts_with(name)
                && long.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        }
        _ => false,
    }
}

impl RuleLayer {
    /// Compile a layer; refuses invalid or empty patterns.
    pub fn new(source: RuleSource, rules: Vec<Rule>) -> Result<Self, RuleError> {
        Self::compile(source, rules, None)
    }

    /// Compile a layer whose rules from index `secret_files` on are the
    /// built-in secret-file read asks ([`secret_file_patterns`]): those are
    /// matched through ploy-secrets, not compiled.
    fn compile(
        source: RuleSource,
        rules: Vec<Rule>,
        secret_files: Option<usize>,
    ) -> Result<Self, RuleError> {
        let compiled = secret_files.unwrap_or(rules.len());
        let mut matchers: [Option<Matcher>; 5] = Default::default();
        for kind in ActionKind::ALL {
            // A shell deny or ask rule also matches by its other
            // spellings of the same command (`rm -Rf *` is `rm -rf *`):
            // stricter only, so never for an allow rule.
            let patterns = rules[..compiled]
                .iter()
                .enumerate()
                .filter(|(_, r)| r.kind == kind)
                .flat_map(|(i, r)| {
                    let others = if kind == ActionKind::Shell && r.effect != Effect::Allow {
                        crate::subcommand::rule_forms(&r.pattern)
                    } else {
                        Vec::new()
                    };
                    std::iter::once((i, r.pattern.clone()))
                        .chain(others.into_iter().map(move |p| (i, p)))
                });
            matchers[kind.index()] = Matcher::build(kind, patterns)?;
        }
        if let Some(first) = secret_files
            && let Some(read) = &mut matchers[ActionKind::Read.index()]
        {
            read.secret_files = Some(first);
        }
        let words = rules.iter().map(rule_words).collect();
        Ok(Self {
            source,
            origin: None,
            rules,
            matchers,
            words,
        })
    }

    /// An empty layer.
    pub fn empty(source: RuleSource) -> Self {
        Self {
            source,
            origin: None,
            rules: Vec::new(),
            matchers: Default::default(),
            words: Vec::new(),
        }
    }

    /// Record where the layer was read from (a file path), for messages.
    pub fn with_origin(mut self, origin: impl Into<String>) -> Self {
        self.origin = Some(origin.into());
        self
    }

    /// The built-in defaults: reading inside the project is allowed (PERM-6),
    /// except files that usually hold secrets, which ask (see
    /// [`SECRET_FILE_PATTERNS`]; a user or project allow rule may open them,
    /// since a higher layer decides). Everything else falls through to "ask".
    ///
    /// The secret-file asks are the globs of [`secret_file_patterns`] (the
    /// reason names the one that matched), matched by ploy-secrets' rule
    /// without compiling them: the hook builds this layer once per tool
    /// call, and the compile cost more than the rest of the call (issue 16).
    pub fn builtin() -> Self {
        let mut rules = vec![Rule::new(ActionKind::Read, Effect::Allow, "**")];
        let first_secret = rules.len();
        rules.extend(
            secret_file_patterns()
                .into_iter()
                .map(|pattern| Rule::new(ActionKind::Read, Effect::Ask, pattern)),
        );
        // The built-in pattern is a constant known to compile; an error here
        // would be a programming error caught by the tests, and failing
        // closed (an empty layer) only means more questions.
        Self::compile(RuleSource::Default, rules, Some(first_secret))
            .unwrap_or_else(|_| Self::empty(RuleSource::Default))
    }

    /// The same rules under another source label.
    pub(crate) fn relabel(mut self, source: RuleSource) -> Self {
        self.source = source;
        self
    }

    /// Where the layer comes from.
    pub fn source(&self) -> RuleSource {
        self.source
    }

    /// The file it was read from, when known.
    pub fn origin(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    /// The rules, in the order given.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// True when the layer holds no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Add one rule (layers only grow; recompiles this layer).
    pub fn push(&mut self, rule: Rule) -> Result<(), RuleError> {
        let mut rules = self.rules.clone();
        rules.push(rule);
        let rebuilt = Self::new(self.source, rules)?;
        self.rules = rebuilt.rules;
        self.matchers = rebuilt.matchers;
        self.words = rebuilt.words;
        Ok(())
    }

    /// The first rule of `kind` and `effect` matching any candidate.
    pub fn first_match(
        &self,
        kind: ActionKind,
        effect: Effect,
        candidates: &[String],
    ) -> Option<&Rule> {
        if !self.has_kind(kind) {
            return None;
        }
        let mut scratch = Vec::new();
        let mut hits = Vec::new();
        for candidate in candidates {
            self.hits_into(
                kind,
                &Candidate::new(candidate.as_str()),
                candidate,
                &mut scratch,
                &mut hits,
            );
        }
        self.first_hit(&hits, effect)
    }

    /// Append the indices of this layer's `kind` rules matching `candidate`.
    pub(crate) fn hits_into(
        &self,
        kind: ActionKind,
        candidate: &Candidate<'_>,
        text: &str,
        scratch: &mut Vec<usize>,
        out: &mut Vec<usize>,
    ) {
        if let Some(matcher) = &self.matchers[kind.index()] {
            matcher.hits_into(candidate, text, scratch, out);
        }
    }

    /// True when the layer has any rule of `kind` (skip the match call otherwise).
    pub(crate) fn has_kind(&self, kind: ActionKind) -> bool {
        self.matchers[kind.index()].is_some()
    }

    /// The first-written shell deny or ask rule that names options and
    /// whose words are all among `words` (a command's own words, program
    /// first) in an order ploy does not read as the rule's command (round7
    /// #11b): its first word names the program, its other plain words
    /// appear in their order, each option anywhere (a `--long` option also
    /// by its abbreviation). With `program_only`, the program alone decides
    /// (ploy could not place the subcommand). Deny rules come first.
    pub(crate) fn scattered_match(&self, words: &[String], program_only: bool) -> Option<&Rule> {
        let (program, rest) = words.split_first()?;
        let fits = |rule_words: &Vec<RuleWord>| -> bool {
            let Some((first, others)) = rule_words.split_first() else {
                return false;
            };
            if !first.is_match(program.as_str()) {
                return false;
            }
            if program_only {
                return true;
            }
            let is_option = |w: &&RuleWord| w.text().starts_with('-');
            // A rule without options is matched by the command's readings
            // alone (`git stash push` is not `git push`).
            if !others.iter().any(|w| is_option(&w)) {
                return false;
            }
            // Its other words in their order, its options anywhere.
            let mut at = 0;
            for plain in others.iter().filter(|w| !is_option(w)) {
                match rest[at..].iter().position(|w| plain.is_match(w.as_str())) {
                    Some(found) => at += found + 1,
                    None => return false,
                }
            }
            let mut used = vec![false; rest.len()];
            others.iter().filter(is_option).all(|option| {
                let found = rest
                    .iter()
                    .enumerate()
                    .position(|(i, w)| !used[i] && word_matches(option, w));
                found.map(|i| used[i] = true).is_some()
            })
        };
        let hit = |effect: Effect| {
            self.words
                .iter()
                .enumerate()
                .filter(|(i, _)| self.rules.get(*i).is_some_and(|r| r.effect == effect))
                .find(|(_, w)| w.as_ref().is_some_and(&fits))
                .and_then(|(i, _)| self.rules.get(i))
        };
        hit(Effect::Deny).or_else(|| hit(Effect::Ask))
    }

    /// Among hit indices, the first-written rule with `effect`.
    pub(crate) fn first_hit(&self, hits: &[usize], effect: Effect) -> Option<&Rule> {
        hits.iter()
            .copied()
            .filter(|i| self.rules.get(*i).is_some_and(|r| r.effect == effect))
            .min()
            .and_then(|i| self.rules.get(i))
    }
}

/// The settings-derived rule layers: defaults < user < project (when trusted).
/// Conversation rules travel separately in [`crate::ConversationRules`].
#[derive(Debug, Clone)]
pub struct Rules {
    // Lowest precedence first.
    layers: Vec<RuleLayer>,
}

impl Default for Rules {
    fn default() -> Self {
        Self::builtin()
    }
}

impl Rules {
    /// Only the built-in defaults.
    pub fn builtin() -> Self {
        Self {
            layers: vec![RuleLayer::builtin()],
        }
    }

    /// No layer at all, not even the defaults (tests and benchmarks).
    pub fn none() -> Self {
        Self { layers: Vec::new() }
    }

    /// Add a layer above the existing ones. A project layer is added only
    /// when the project is trusted (TRUST); an untrusted one is dropped here
    /// so that no caller can forget the check.
    pub fn with_layer(mut self, layer: RuleLayer, trust: ProjectTrust) -> Self {
        if layer.source() == RuleSource::Project && trust != ProjectTrust::Trusted {
            return self;
        }
        self.layers.push(layer);
        self
    }

    /// The layers, lowest precedence first.
    pub fn layers(&self) -> &[RuleLayer] {
        &self.layers
    }
}

/// The project trust decision, made by ploy-trust and passed in as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProjectTrust {
    /// Project settings load.
    Trusted,
    /// Project settings are skipped.
    Untrusted,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    // proves: PERM-2
    #[test]
    fn path_star_does_not_cross_folders() {
        let layer = RuleLayer::new(
            RuleSource::User,
            vec![Rule::new(ActionKind::Edit, Effect::Allow, "src/*")],
        )
        .unwrap();
        assert!(
            layer
                .first_match(ActionKind::Edit, Effect::Allow, &cands(&["src/a.rs"]))
                .is_some()
        );
        assert!(
            layer
                .first_match(ActionKind::Edit, Effect::Allow, &cands(&["src/a/b.rs"]))
                .is_none()
        );
        assert!(
            layer
                .first_match(ActionKind::Read, Effect::Allow, &cands(&["src/a.rs"]))
                .is_none()
        );
    }

    // proves: PERM-2
    #[test]
    fn command_prefix_matches_bare_command() {
        let layer = RuleLayer::new(
            RuleSource::User,
            vec![Rule::new(ActionKind::Shell, Effect::Allow, "cargo test *")],
        )
        .unwrap();
        for ok in ["cargo test", "cargo test --all", "cargo test a/b"] {
            assert!(
                layer
                    .first_match(ActionKind::Shell, Effect::Allow, &cands(&[ok]))
                    .is_some(),
                "{ok}"
            );
        }
        for no in ["cargo testx", "cargo build", "xcargo test", "cargo"] {
            assert!(
                layer
                    .first_match(ActionKind::Shell, Effect::Allow, &cands(&[no]))
                    .is_none(),
                "{no}"
            );
        }
    }

    // proves: PERM-2
    #[test]
    fn bad_patterns_refused() {
        assert!(matches!(
            RuleLayer::new(
                RuleSource::User,
                vec![Rule::new(ActionKind::Edit, Effect::Deny, "  ")]
            ),
            Err(RuleError::EmptyPattern { .. })
        ));
        assert!(matches!(
            RuleLayer::new(
                RuleSource::User,
                vec![Rule::new(ActionKind::Edit, Effect::Deny, "a[")]
            ),
            Err(RuleError::InvalidPattern { .. })
        ));
    }

    // proves: PERM-6
    #[test]
    fn builtin_defaults_compile_and_only_allow_reads() {
        let layer = RuleLayer::builtin();
        assert_eq!(
            layer.rules()[0],
            Rule::new(ActionKind::Read, Effect::Allow, "**")
        );
        assert!(
            layer.rules()[1..]
                .iter()
                .all(|r| r.kind == ActionKind::Read && r.effect == Effect::Ask),
            "every other built-in rule is a read ask"
        );
        assert!(
            layer
                .first_match(ActionKind::Read, Effect::Allow, &cands(&["src/a.rs"]))
                .is_some()
        );
        for kind in [
            ActionKind::Edit,
            ActionKind::Shell,
            ActionKind::ExternalDirectory,
            ActionKind::Web,
        ] {
            assert!(
                layer
                    .first_match(kind, Effect::Allow, &cands(&["x"]))
                    .is_none()
            );
        }
    }

    // proves: TRUST-5
    #[test]
    fn untrusted_project_layer_is_dropped() {
        let layer = RuleLayer::new(
            RuleSource::Project,
            vec![Rule::new(ActionKind::Shell, Effect::Allow, "*")],
        )
        .unwrap();
        let rules = Rules::builtin().with_layer(layer.clone(), ProjectTrust::Untrusted);
        assert_eq!(rules.layers().len(), 1);
        let rules = Rules::builtin().with_layer(layer, ProjectTrust::Trusted);
        assert_eq!(rules.layers().len(), 2);
    }

    // proves: PERM-2
    #[test]
    fn secret_files_ask_by_default_but_not_env_example() {
        let layer = RuleLayer::builtin();
        let ask = |path: &str| {
            layer
                .first_match(ActionKind::Read, Effect::Ask, &cands(&[path]))
                .is_some()
        };
        for secret in [
            ".env",
            "sub/.env",
            ".env.local",
            ".env.production",
            ".env.e",
            ".env.exampl",
            ".env.examplf",
            ".env.example.bak",
            ".env.",
            "certs/server.pem",
            "tls.key",
            "home/id_rsa",
            "id_rsa.pub",
            "id_ed25519",
            "/home/u/proj/.env",
            // secrets5 #1: any env file, any folder, any case.
            "backend/.envrc",
            ".envrc2",
            "backend/.ENV",
            "backend/.env-prod",
            "backend/prod.env",
            "config/.env.local",
            "sub/.Env.Production",
            ".flaskenv",
            // secrets5 #10: credential files copied into the project.
            ".aws/credentials",
            ".netrc",
            ".pgpass",
            ".docker/config.json",
            ".git-credentials",
            ".npmrc",
            ".pypirc",
            ".kube/config",
            "secrets.yaml",
            "credentials.json",
        ] {
            assert!(ask(secret), "{secret} must ask");
        }
        for plain in [
            ".env.example",
            "sub/.env.example",
            "sub/.ENV.EXAMPLE",
            "src/env.rs",
            "keys.md",
            "src/credentials.go",
        ] {
            assert!(!ask(plain), "{plain} must not ask");
        }
    }

    // proves: PERM-2, REDACT-1 (secrets5 #1: the files whose read asks are
    // exactly the files ploy-secrets reads known secrets from)
    #[test]
    fn read_ask_rules_are_the_secret_file_rule() {
        let layer = RuleLayer::builtin();
        let ask = |path: &str| {
            layer
                .first_match(ActionKind::Read, Effect::Ask, &cands(&[path]))
                .is_some()
        };
        let names = [
            ".env",
            ".ENV",
            ".envrc",
            ".EnvRc",
            ".env.example",
            ".ENV.example",
            ".env.sampl",
            ".env.sample",
            ".env.samplez",
            "x.env",
            "x.env.y",
            "env",
            "x.envy",
            "prod.env.example",
            "secrets",
            "secrets.rs",
            "secrets.json",
            "credentials",
            "credentials.go",
            "id_rsa",
            "id_rsa.pub",
            "x.pem",
            "x.PEM",
            "x.key",
            ".netrc",
            ".NETRC",
            "_netrc",
            ".pgpass",
            "kubeconfig",
            "a.kubeconfig",
            "terraform.tfvars",
            ".vault-token",
            "README.md",
            "a.rs",
        ];
        for folder in [
            "",
            "sub/",
            "/abs/proj/",
            "a/.aws/",
            "b/.docker/",
            "c/.kube/",
        ] {
            for name in names.iter().chain(&["config", "config.json"]) {
                let path = format!("{folder}{name}");
                assert_eq!(ask(&path), ploy_secrets::is_secret_file(&path), "{path}");
            }
        }
    }
}
