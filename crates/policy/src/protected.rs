//! PERM-7: ploy's own files and other agents' project resources.
//!
//! [`ProtectedPaths::protects`] is the one function that says whether a path
//! is one of them. [`crate::Action`] building calls it for every path an
//! action may write (edit tools, shell redirect targets, path arguments of
//! commands that may write), and [`crate::Permission::assert`] then answers
//! "ask" whatever the allow rules and saved approvals say (a deny rule still
//! denies). The sandbox (SBX-6) and the hook adapter call the same function.
//!
//! Pure: the caller passes the project root, ploy's folders and the home
//! folder; nothing here touches the filesystem.
//!
//! What is protected, wherever it appears in the path (any depth, inside or
//! outside the project: a nested repository's hooks or another project's
//! `.claude` folder plant code just as well):
//! * the folders `.ploy`, `.claude`, `.pi`, `.codex`, `.vscode`, `.agents`
//!   and everything below them; other agents' and editors' folders
//!   (`.opencode`, `.gemini`, `.cursor`, `.continue`, `.zed`, `.idea`,
//!   `.amazonq`, `.kiro`, `.roo`, `.windsurf`, `.theia`, `.fleet`),
//!   `.devcontainer`, other version control's folders (`.hg`, `.jj`), hook
//!   folders by convention (`.husky`, `.githooks`, `.git-hooks`) and
//!   `.mise` (`PROTECTED_DIRS` says what runs each);
//! * a `hooks` folder below a `.git` folder (`.git/hooks/**`, and a
//!   submodule's `.git/modules/x/hooks/**`), and git's `config` /
//!   `config.worktree` files below a `.git` folder;
//! * git's pointer files below a `.git` folder: `commondir` (a linked
//!   worktree's admin folder names the repository whose config and hooks
//!   git then uses) and `gitdir` (`.git/worktrees/x/gitdir`,
//!   `.git/modules/x/gitdir`); pointing one elsewhere makes the host's git
//!   read a planted `config` (`core.fsmonitor`, `core.hooksPath`) — code
//!   the next `git status` runs;
//! * every other path inside a `.git` folder (`HEAD`, `index`,
//!   `packed-refs`, `refs/**`, `objects/info/alternates`, `info/*`,
//!   `worktrees/**`, `modules/**`): they decide what git checks out,
//!   commits, pushes and which filters it runs, and the sandbox locks the
//!   whole folder anyway (SBX-6); a `.git` *file* (a worktree's or a
//!   submodule's `gitdir:` pointer) is the `.git` name itself;
//! * the files `.mcp.json` and `.envrc`, git hook managers' lists, and the
//!   configuration of tools that run a program it names on the user's next
//!   ordinary command: `.npmrc`, `.yarnrc(.yml)`, `.pnpmfile.cjs`,
//!   `bunfig.toml`, mise's `mise.toml`, `opencode.json(c)`,
//!   `.aider.conf.yml`, `.devcontainer.json`, `.hgrc`, and cargo's
//!   `.cargo/config(.toml)` (`PROTECTED_FILES`, `PROTECTED_TAILS`);
//! * code and configuration a tool runs on the user's next ordinary
//!   command (round6 #9): Yarn's `.yarn/releases`, `.yarn/plugins`,
//!   `.yarn/sdks` and Plug'n'Play's `.pnp.cjs`/`.pnp.loader.mjs`, mise's
//!   `conf.d`, Maven's `.mvn/`, the `gradlew`/`mvnw` wrappers and
//!   `gradle/wrapper/`, a virtualenv's `bin/` and `pyvenv.cfg`,
//!   `rust-toolchain(.toml)` (round7 #3), `.tool-versions`, `.bazelrc`, sbt's `.jvmopts`/`.sbtopts`,
//!   Vim's and Neovim's `.exrc`/`.nvimrc`/`.nvim.lua`, `.bundle/config`
//!   (`PROTECTED_SUBDIRS` and the lists above);
//! * below the home folder (or `~`): git's user configuration
//!   (`.gitconfig`, `.config/git/config`), Claude Code's `.claude.json`,
//!   the shells' start-up files, `.ssh/**`, cargo's and npm's user
//!   configuration, autostart and user services (`HOME_FILES`), whatever
//!   the project is (a session started in the home folder);
//! * ploy's config and state folders and the trust file (given by the caller);
//! * a path that *holds* one of these: a `.git` folder itself, or a folder
//!   above ploy's folders (other than `/`, the home folder and the project
//!   root), since moving or extracting into it writes them.
//!
//! `.agents/**` goes beyond the SPEC's list: TRUST-2 names `.agents/skills`
//! as a resource that loads instructions and code, which is exactly what
//! PERM-7 is for.
//!
//! How a path is compared:
//! * relative paths are taken from the project root; `~` and `~/…` from the
//!   home folder when the caller gave one;
//! * normalised by its text: `.` dropped, `..` pops, repeated and trailing
//!   slashes ignored;
//! * compared **case-insensitively** (Unicode lowercase, plus the two
//!   characters whose case folding gives an ASCII letter of these names:
//!   `K` KELVIN SIGN and `ſ` LONG S), with trailing dots and spaces and an
//!   NTFS `:stream` suffix dropped from each name. Why: on a case-insensitive
//!   filesystem (macOS by default, Windows, a mounted FAT or NTFS volume, or
//!   ext4 with casefold folders) `.GIT/Hooks` *is* `.git/hooks`; treating
//!   them alike everywhere costs nothing on Linux (a folder really named
//!   `.Claude` is protected too, and only asks);
//! * symbolic links are not followed (pure code cannot): the caller
//!   canonicalises what exists and passes the resolved path too (see
//!   [`crate::Action::edit_resolved`]).

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// ploy's plan file, project-relative. Only [`crate::Action::plan_file`]
/// builds an action for it that is not protected; an ordinary edit of this
/// path is protected like the rest of `.ploy/**`.
pub const PLAN_FILE: &str = ".ploy/plan.json";

/// What another agent's or editor's project folder is, for the person asked.
const AGENT_DIR: &str = "another agent's or editor's project folder (its settings name MCP servers, hooks and \
     tasks it starts)";

/// Folders protected with everything below them, and why. Each runs
/// programs later, outside ploy and any sandbox, when the tool named opens
/// the folder or runs its next ordinary command (secrets5 #14, proof5 #5).
const PROTECTED_DIRS: &[(&str, &str)] = &[
    (
        ".ploy",
        "ploy's project folder (settings, extensions, skills)",
    ),
    (
        ".claude",
        "Claude Code's project folder (settings, hooks, commands)",
    ),
    (".pi", "pi's project folder (settings, extensions)"),
    (".codex", "Codex's project folder (settings)"),
    (
        ".vscode",
        "VS Code's project folder (tasks and launch configurations run programs)",
    ),
    (
        ".agents",
        "the agents' skills folder (loaded as instructions)",
    ),
    (
        ".husky",
        "husky's git hooks folder (git runs its scripts at commit and push)",
    ),
    (
        ".lefthook",
        "lefthook's script folder (the git hook runs the scripts its configuration names)",
    ),
    (
        ".lefthook-local",
        "lefthook's local script folder (the git hook runs the scripts its configuration names)",
    ),
    (
        ".githooks",
        "a git hooks folder by convention (`core.hooksPath` points git at it)",
    ),
    (
        ".git-hooks",
        "a git hooks folder by convention (`core.hooksPath` points git at it)",
    ),
    (
        ".hg",
        "Mercurial's repository folder (`hgrc` hooks run at the next hg command)",
    ),
    (
        ".jj",
        "Jujutsu's repository folder (its config names programs jj runs)",
    ),
    (
        ".devcontainer",
        "a dev container definition (postCreateCommand and its kin run when an editor opens the \
         folder)",
    ),
    (
        ".opencode",
        "OpenCode's project folder (plugins, commands and MCP servers it starts)",
    ),
    (".gemini", AGENT_DIR),
    (".cursor", AGENT_DIR),
    (".continue", AGENT_DIR),
    (".zed", AGENT_DIR),
    (".idea", AGENT_DIR),
    (".amazonq", AGENT_DIR),
    (".kiro", AGENT_DIR),
    (".roo", AGENT_DIR),
    (".windsurf", AGENT_DIR),
    (".theia", AGENT_DIR),
    (".fleet", AGENT_DIR),
    (
        ".mise",
        "mise's project folder (hooks, tasks and env scripts run on entering the folder)",
    ),
    (
        ".mvn",
        "Maven's project folder (extensions.xml, jvm.config, maven.config and the wrapper load \
         code on every mvn command)",
    ),
];

/// What Yarn's own code folders are, for the person asked.
const YARN_CODE: &str = "Yarn's code in the project (yarnPath's release, plugins and editor SDKs run on every \
     yarn command or editor start)";

/// What a virtualenv's scripts are, for the person asked.
const VENV: &str = "a Python virtualenv's programs and activate scripts (the user's shell sources them; \
     `uv run`, `python` and every installed script run from there)";

/// What a build tool wrapper is, for the person asked.
const WRAPPER: &str = "a build tool wrapper (the user's next ./gradlew or ./mvnw runs or downloads what it \
     names)";

/// Folders protected with everything below them wherever the names appear
/// in this order, and why (round6 #9: files a tool runs on the next
/// ordinary command). The folder that holds them (`.yarn`, `.venv`) is not:
/// protecting it would lock a virtualenv's `site-packages` and Yarn's cache
/// in the sandbox too (SBX-6), which `uv run` and `yarn install` write.
const PROTECTED_SUBDIRS: &[(&[&str], &str)] = &[
    (&[".yarn", "releases"], YARN_CODE),
    (&[".yarn", "plugins"], YARN_CODE),
    (&[".yarn", "sdks"], YARN_CODE),
    (&[".config", "mise", "conf.d"], MISE),
    (&["mise", "conf.d"], MISE),
    (&[".venv", "bin"], VENV),
    (&["venv", "bin"], VENV),
    (&[".venv", "scripts"], VENV),
    (&["gradle", "wrapper"], WRAPPER),
];

/// What a hook manager's configuration is, for the person asked.
const HOOK_LIST: &str =
    "a git hook manager's list (the installed git hook runs the commands it names)";

/// What mise's configuration is, for the person asked.
const MISE: &str =
    "mise's configuration (its hooks, tasks and `_.source` scripts run on entering the folder)";

/// Files protected wherever they are, and why.
const PROTECTED_FILES: &[(&str, &str)] = &[
    (
        ".mcp.json",
        "an MCP server list (it names programs an agent starts)",
    ),
    (
        ".envrc",
        "a direnv script (it runs when a shell enters the folder)",
    ),
    // Hook managers: the hook in `.git/hooks` (protected) is a stub that
    // runs what these files name, at the user's next commit or push.
    (".pre-commit-config.yaml", HOOK_LIST),
    (".pre-commit-config.yml", HOOK_LIST),
    ("lefthook.yml", HOOK_LIST),
    ("lefthook.yaml", HOOK_LIST),
    (".lefthook.yml", HOOK_LIST),
    (".lefthook.yaml", HOOK_LIST),
    ("lefthook-local.yml", HOOK_LIST),
    (".lefthook-local.yml", HOOK_LIST),
    (".overcommit.yml", HOOK_LIST),
    (".lintstagedrc", HOOK_LIST),
    (".lintstagedrc.json", HOOK_LIST),
    (".lintstagedrc.yaml", HOOK_LIST),
    (".lintstagedrc.yml", HOOK_LIST),
    (".lintstagedrc.js", HOOK_LIST),
    (".lintstagedrc.mjs", HOOK_LIST),
    (".lintstagedrc.cjs", HOOK_LIST),
    ("lint-staged.config.js", HOOK_LIST),
    // round8 #3: every config name and format lefthook reads (it takes
    // whichever exists), lint-staged's other extensions, husky 4's
    // `.huskyrc*` (its hooks read the commands at every commit) and
    // commitlint's configuration (JavaScript the commit-msg hook loads).
    ("lefthook.toml", HOOK_LIST),
    (".lefthook.toml", HOOK_LIST),
    ("lefthook.json", HOOK_LIST),
    (".lefthook.json", HOOK_LIST),
    ("lefthook.jsonc", HOOK_LIST),
    (".lefthook.jsonc", HOOK_LIST),
    ("lefthook-local.yaml", HOOK_LIST),
    (".lefthook-local.yaml", HOOK_LIST),
    ("lefthook-local.toml", HOOK_LIST),
    (".lefthook-local.toml", HOOK_LIST),
    ("lefthook-local.json", HOOK_LIST),
    (".lefthook-local.json", HOOK_LIST),
    ("lefthook-local.jsonc", HOOK_LIST),
    (".lefthook-local.jsonc", HOOK_LIST),
    (".lintstagedrc.ts", HOOK_LIST),
    (".lintstagedrc.mts", HOOK_LIST),
    (".lintstagedrc.cts", HOOK_LIST),
    ("lint-staged.config.mjs", HOOK_LIST),
    ("lint-staged.config.cjs", HOOK_LIST),
    ("lint-staged.config.ts", HOOK_LIST),
    ("lint-staged.config.mts", HOOK_LIST),
    ("lint-staged.config.cts", HOOK_LIST),
    (".huskyrc", HOOK_LIST),
    (".huskyrc.js", HOOK_LIST),
    (".huskyrc.json", HOOK_LIST),
    (".huskyrc.yaml", HOOK_LIST),
    (".huskyrc.yml", HOOK_LIST),
    ("husky.config.js", HOOK_LIST),
    ("commitlint.config.js", HOOK_LIST),
    ("commitlint.config.cjs", HOOK_LIST),
    ("commitlint.config.mjs", HOOK_LIST),
    ("commitlint.config.ts", HOOK_LIST),
    ("commitlint.config.cts", HOOK_LIST),
    ("commitlint.config.mts", HOOK_LIST),
    (".commitlintrc", HOOK_LIST),
    (".commitlintrc.js", HOOK_LIST),
    (".commitlintrc.cjs", HOOK_LIST),
    (".commitlintrc.mjs", HOOK_LIST),
    (".commitlintrc.ts", HOOK_LIST),
    (".commitlintrc.cts", HOOK_LIST),
    (".commitlintrc.json", HOOK_LIST),
    (".commitlintrc.yaml", HOOK_LIST),
    (".commitlintrc.yml", HOOK_LIST),
    // Start-up files an interpreter or debugger reads from the current
    // folder at every start (round8 #3: `python -m pdb`, `breakpoint()`,
    // `pytest --pdb` run `.pdbrc`).
    (
        ".pdbrc",
        "pdb's start-up file (Python's debugger runs it at every start in this folder)",
    ),
    (
        ".pdbrc.py",
        "pdb's start-up file (Python's debugger runs it at every start in this folder)",
    ),
    (
        ".rprofile",
        "R's start-up file (R sources it at every start in this folder)",
    ),
    (
        ".ghci",
        "GHCi's start-up file (run at every start in this folder)",
    ),
    (
        ".pryrc",
        "pry's start-up file (Ruby's console runs it at every start in this folder)",
    ),
    (
        ".rvmrc",
        "an RVM project file (sourced by the shell on entering the folder, like `.envrc`)",
    ),
    // Package managers and tools that run a program their configuration
    // names on the user's next ordinary command (secrets5 #14, proof5 #5).
    (
        ".npmrc",
        "npm's configuration (node-options, script-shell and hooks run programs with every npm \
         script)",
    ),
    (
        ".yarnrc.yml",
        "Yarn's configuration (yarnPath and plugins run on every yarn command)",
    ),
    (
        ".yarnrc",
        "Yarn's configuration (yarn-path runs a program on every yarn command)",
    ),
    (
        ".pnpmfile.cjs",
        "pnpm's hook file (code pnpm runs on every install)",
    ),
    (
        ".pnpmfile.mjs",
        "pnpm's hook file (code pnpm runs on every install)",
    ),
    (
        "bunfig.toml",
        "Bun's configuration (preload scripts run with every bun command)",
    ),
    (
        ".bunfig.toml",
        "Bun's configuration (preload scripts run with every bun command)",
    ),
    ("mise.toml", MISE),
    (".mise.toml", MISE),
    ("mise.local.toml", MISE),
    (".mise.local.toml", MISE),
    (
        "opencode.json",
        "OpenCode's configuration (MCP servers and plugins it starts)",
    ),
    (
        "opencode.jsonc",
        "OpenCode's configuration (MCP servers and plugins it starts)",
    ),
    (
        ".aider.conf.yml",
        "aider's configuration (the lint and test commands it runs)",
    ),
    (
        ".devcontainer.json",
        "a dev container definition (postCreateCommand and its kin run when an editor opens the \
         folder)",
    ),
    (
        ".hgrc",
        "Mercurial's configuration (hooks run at the next hg command)",
    ),
    // round6 #9 and its kin: code or configuration a tool runs on the
    // user's next ordinary command.
    (
        ".pnp.cjs",
        "Yarn Plug'n'Play's loader (every node and yarn command in the project requires it)",
    ),
    (
        ".pnp.js",
        "Yarn Plug'n'Play's loader (every node and yarn command in the project requires it)",
    ),
    (
        ".pnp.loader.mjs",
        "Yarn Plug'n'Play's ESM loader (every node command in the project loads it)",
    ),
    ("gradlew", WRAPPER),
    ("gradlew.bat", WRAPPER),
    ("mvnw", WRAPPER),
    ("mvnw.cmd", WRAPPER),
    (
        "rust-toolchain.toml",
        "rustup's toolchain file (its `path` names the cargo and rustc every cargo command runs)",
    ),
    (
        "rust-toolchain",
        "rustup's toolchain file (its `path` names the cargo and rustc every cargo command runs)",
    ),
    (
        ".tool-versions",
        "asdf's and mise's version pins (a `path:` version names the folder whose programs run \
         for that tool)",
    ),
    (
        ".bazelrc",
        "Bazel's configuration (--run_under and status commands run programs on every build)",
    ),
    (
        ".jvmopts",
        "sbt's JVM options (a -javaagent runs code on every sbt command)",
    ),
    (
        ".sbtopts",
        "sbt's options (they can load code on every sbt command)",
    ),
    (
        ".nvim.lua",
        "Neovim's project start-up file (exrc runs it when Neovim opens the folder)",
    ),
    (
        ".nvimrc",
        "Neovim's project start-up file (exrc runs it when Neovim opens the folder)",
    ),
    (
        ".exrc",
        "Vim's project start-up file (exrc runs it when Vim opens the folder)",
    ),
    (
        "pyvenv.cfg",
        "a Python virtualenv's configuration (`home` names the interpreter `python` runs)",
    ),
];

/// Files protected by their last names, wherever they are: (names, why).
/// cargo reads `.cargo/config.toml` in every folder up from where it runs;
/// its `[build] rustc-wrapper`, `[target.*] runner` and aliases run programs
/// on every `cargo build`/`test`/`run` (secrets5 #14).
const PROTECTED_TAILS: &[(&[&str], &str)] = &[
    (&[".cargo", "config.toml"], CARGO),
    (&[".cargo", "config"], CARGO),
    (&[".config", "mise.toml"], MISE),
    (&[".config", "mise", "config.toml"], MISE),
    (&[".config", "mise", "config.local.toml"], MISE),
    (&["mise", "config.toml"], MISE),
    (&[".bundle", "config"], BUNDLER),
];

/// What Bundler's project configuration is, for the person asked.
const BUNDLER: &str = "Bundler's project configuration (BUNDLE_GEMFILE names the Ruby file every bundle \
     command runs)";

/// What cargo's configuration is, for the person asked.
const CARGO: &str = "cargo's configuration (rustc-wrapper, runners and aliases run programs on every cargo \
     command)";

/// What a shell start-up file is, for the person asked.
const SHELL_START: &str = "a shell start-up file (every new shell runs it)";

/// Files (and folders, `true`: everything below) under the home folder that
/// name programs something runs later: (home-relative folded path, below,
/// what).
const HOME_FILES: [(&str, bool, &str); 21] = [
    (
        ".gitconfig",
        false,
        "git's user configuration (it names programs git runs)",
    ),
    (
        ".config/git/config",
        false,
        "git's user configuration (it names programs git runs)",
    ),
    (
        ".config/git/attributes",
        false,
        "git's user attributes (they pick filter programs)",
    ),
    (
        ".claude.json",
        false,
        "Claude Code's user file (its MCP servers are programs the agent starts)",
    ),
    (".bashrc", false, SHELL_START),
    (".bash_profile", false, SHELL_START),
    (".bash_login", false, SHELL_START),
    (".bash_logout", false, SHELL_START),
    (".profile", false, SHELL_START),
    (".zshrc", false, SHELL_START),
    (".zshenv", false, SHELL_START),
    (".zprofile", false, SHELL_START),
    (".zlogin", false, SHELL_START),
    (".config/fish", true, SHELL_START),
    (
        ".ssh",
        true,
        "ssh's folder (authorized_keys lets others in; config runs ProxyCommand)",
    ),
    (
        ".cargo/config.toml",
        false,
        "cargo's user configuration (aliases and runners run programs)",
    ),
    (
        ".cargo/config",
        false,
        "cargo's user configuration (aliases and runners run programs)",
    ),
    (
        ".npmrc",
        false,
        "npm's user configuration (script-shell and hooks run programs)",
    ),
    (
        ".config/autostart",
        true,
        "programs the desktop starts at login",
    ),
    (
        ".config/systemd/user",
        true,
        "services systemd starts for the user",
    ),
    (
        ".config/direnv",
        true,
        "direnv's configuration (it runs scripts in folders)",
    ),
];

/// git's configuration files below a `.git` folder.
const GIT_CONFIG_FILES: [&str; 2] = ["config", "config.worktree"];

/// git's pointer files below a `.git` folder: where git finds the
/// repository (and so the config and hooks) it uses.
const GIT_POINTER_FILES: [&str; 2] = ["commondir", "gitdir"];

/// Every name a protected path is made of, for glob matching.
fn matchable_names() -> impl Iterator<Item = &'static str> {
    PROTECTED_DIRS
        .iter()
        .chain(PROTECTED_FILES.iter())
        .map(|(name, _)| *name)
        .chain(
            PROTECTED_TAILS
                .iter()
                .chain(PROTECTED_SUBDIRS.iter())
                .flat_map(|(names, _)| names.iter().copied()),
        )
        .chain([".git", "hooks"])
        .chain(GIT_CONFIG_FILES)
        .chain(GIT_POINTER_FILES)
}

/// The protected names one glob component (`.g*`, `hoo?s`, `[.]claude`)
/// may match, case-insensitively. With `dot_globs` false, a pattern that
/// does not start with `.` does not match a name that does (bash's default).
/// A pattern that does not compile matches every name (fail closed).
pub(crate) fn names_matching(pattern: &str, dot_globs: bool) -> Vec<String> {
    let matcher = globset::GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher());
    matchable_names()
        .filter(|name| dot_globs || !name.starts_with('.') || pattern.starts_with('.'))
        .filter(|name| match &matcher {
            Ok(m) => m.is_match(name),
            Err(_) => true,
        })
        .map(|name| name.to_string())
        .collect()
}

/// ploy's own folders and files outside the project, as the caller knows them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PloyFolders {
    /// ploy's config folder (settings, trust file, skills).
    pub config_dir: Option<PathBuf>,
    /// ploy's state folder (database, service files).
    pub state_dir: Option<PathBuf>,
    /// The trust file (normally inside the config folder; it may be elsewhere).
    pub trust_file: Option<PathBuf>,
    /// The user's home folder, to expand `~/…` forms.
    pub home: Option<PathBuf>,
}

/// Where git takes hooks from besides `.git/hooks`, as the caller read it
/// from git's configuration (`core.hooksPath`; `ploy_dirs::git_hook_folders`
/// reads it). Pure code cannot read files, so the caller passes this in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitHooks {
    /// The folders named (absolute); each is protected with everything
    /// below it (only its own entries when it holds the project).
    Known(Vec<PathBuf>),
    /// The configuration could not be read for sure (why): fail closed,
    /// every path may be a hook, so every write asks.
    Unknown(String),
}

impl<E: fmt::Display> From<Result<Vec<PathBuf>, E>> for GitHooks {
    fn from(read: Result<Vec<PathBuf>, E>) -> Self {
        match read {
            Ok(folders) => Self::Known(folders),
            Err(err) => Self::Unknown(err.to_string()),
        }
    }
}

/// Why a path is protected (PERM-7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protected {
    /// The path as compared (normalised; absolute, or `~/…`).
    pub path: String,
    /// What it is, for the person asked.
    pub what: String,
}

impl fmt::Display for Protected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is {}", self.path, self.what)
    }
}

/// One of ploy's folders, kept as folded names for comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Folder {
    names: Vec<String>,
    what: &'static str,
}

/// The PERM-7 list for one project. Build it once; [`Self::protects`] is pure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedPaths {
    project: PathBuf,
    project_names: Vec<String>,
    home: Option<PathBuf>,
    home_names: Option<Vec<String>>,
    folders: Vec<Folder>,
    /// Folded names of the folders `core.hooksPath` names.
    hook_folders: Vec<Vec<String>>,
    /// Why git's hooks folder is unknown, when it is (fail closed).
    hooks_unknown: Option<String>,
}

impl ProtectedPaths {
    /// The list for `project` (absolute; normalised lexically) with ploy's
    /// folders. Relative folders in `ploy` are ignored: they cannot be placed.
    pub fn new(project: &Path, ploy: &PloyFolders) -> Self {
        let project = normalise(project);
        let project_names = folded_names(&project);
        let home = ploy
            .home
            .as_deref()
            .filter(|h| h.is_absolute())
            .map(normalise);
        let home_names = home.as_deref().map(folded_names);
        let mut folders = Vec::new();
        for (path, what) in [
            (&ploy.config_dir, "ploy's config folder"),
            (&ploy.state_dir, "ploy's state folder"),
            (&ploy.trust_file, "ploy's trust file"),
        ] {
            if let Some(path) = path.as_deref().filter(|p| p.is_absolute()) {
                folders.push(Folder {
                    names: folded_names(&normalise(path)),
                    what,
                });
            }
        }
        Self {
            project,
            project_names,
            home,
            home_names,
            folders,
            hook_folders: Vec::new(),
            hooks_unknown: None,
        }
    }

    /// The same list, also protecting the folders git takes hooks from
    /// (`core.hooksPath`, e.g. husky's `.husky`): the host's next commit
    /// runs what is written there. [`GitHooks::Unknown`] protects every path.
    pub fn with_git_hooks(mut self, hooks: &GitHooks) -> Self {
        match hooks {
            GitHooks::Known(folders) => {
                self.hooks_unknown = None;
                self.hook_folders = folders
                    .iter()
                    .filter(|p| p.is_absolute())
                    .map(|p| folded_names(&normalise(p)))
                    .collect();
            }
            GitHooks::Unknown(why) => self.hooks_unknown = Some(why.clone()),
        }
        self
    }

    /// The list for `project` with no knowledge of ploy's folders (only the
    /// names that are protected wherever they are).
    pub fn names_only(project: &Path) -> Self {
        Self::new(project, &PloyFolders::default())
    }

    /// The project root this list places relative paths from.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// THE PERM-7 function: `Some` when `path` (relative to the project, `~`
    /// form, or absolute) is one of ploy's own files or another agent's
    /// resources, or a folder that holds one; with what it is.
    pub fn protects(&self, path: &str) -> Option<Protected> {
        if cfg!(feature = "teeth") {
            return None;
        }
        let placed = self.place(path);
        let names = placed.names();
        if let Some(what) = name_rule(names) {
            return Some(self.protected(&placed, what.to_string()));
        }
        if let Some(what) = self.hook_rule(&placed.placed) {
            return Some(self.protected(&placed, what));
        }
        if let Some(what) = self.home_rule(&placed.placed) {
            return Some(self.protected(&placed, what.to_string()));
        }
        match &placed.placed {
            Placed::Absolute(names) => {
                for folder in &self.folders {
                    if names.starts_with(&folder.names) {
                        return Some(self.protected(&placed, folder.what.to_string()));
                    }
                    if folder.names.starts_with(names)
                        && names.len() > 1
                        && Some(names) != self.home_names.as_ref()
                        && *names != self.project_names
                    {
                        return Some(
                            self.protected(&placed, format!("a folder that holds {}", folder.what)),
                        );
                    }
                }
            }
            Placed::Tilde(rest) => {
                // The home folder is unknown (no home given, or `~user`):
                // match when a folder's last two names appear in order.
                for folder in &self.folders {
                    let tail = &folder.names[folder.names.len().saturating_sub(2)..];
                    if !tail.is_empty() && rest.windows(tail.len()).any(|w| w == tail) {
                        return Some(self.protected(&placed, folder.what.to_string()));
                    }
                }
            }
        }
        None
    }

    /// This list with `other`'s knowledge of git's hooks folders.
    pub(crate) fn with_hooks_of(mut self, other: &Self) -> Self {
        self.hook_folders = other.hook_folders.clone();
        self.hooks_unknown = other.hooks_unknown.clone();
        self
    }

    /// The `core.hooksPath` rule: inside a hooks folder, or a folder that
    /// holds one; every path when the folder is unknown.
    fn hook_rule(&self, placed: &Placed) -> Option<String> {
        const WHAT: &str = "git's hooks folder or a configuration file git includes \
             (core.hooksPath / include.path name it: git runs its scripts and the programs \
             its settings name)";
        if let Some(why) = &self.hooks_unknown {
            return Some(format!(
                "possibly a git hook: where git takes hooks from cannot be read ({why}), so \
                 any file may be one"
            ));
        }
        for hooks in &self.hook_folders {
            match placed {
                Placed::Absolute(names) => {
                    if names.starts_with(hooks) {
                        // A hooks folder that holds the project (`~` or
                        // `..`): git runs only its own entries.
                        let above_project = self.project_names.starts_with(hooks)
                            && self.project_names.len() > hooks.len();
                        if !above_project || names.len() == hooks.len() + 1 {
                            return Some(format!("in {WHAT}"));
                        }
                    } else if hooks.starts_with(names)
                        && names.len() > self.project_names.len()
                        && names.starts_with(&self.project_names)
                    {
                        return Some(format!("a folder that holds {WHAT}"));
                    }
                }
                Placed::Tilde(rest) => {
                    // Home unknown: match the folder's last two names.
                    let tail = &hooks[hooks.len().saturating_sub(2)..];
                    if !tail.is_empty() && rest.windows(tail.len()).any(|w| w == tail) {
                        return Some(format!("in {WHAT}"));
                    }
                }
            }
        }
        None
    }

    /// True when the line's own guess of where `path` lands may be wrong
    /// because the folder changed first (`cd`): `path` is judged below every
    /// folder in `dirs` as well. Used by the shell classification.
    pub(crate) fn protects_below(&self, dirs: &[String], path: &str) -> Option<Protected> {
        if let Some(hit) = self.protects(path) {
            return Some(hit);
        }
        if path.starts_with('/') || path.starts_with('~') {
            return None;
        }
        // Every name of every folder changed to, in order, then the path:
        // a superset of each real combination (`cd a || cd b; cd c`) for
        // the name rules, which only ask that names appear in order.
        let mut joined: Vec<String> = Vec::new();
        for dir in dirs {
            joined.extend(
                dir.split('/')
                    .filter(|n| !matches!(*n, "" | "." | ".."))
                    .map(fold),
            );
            if let Some(hit) = self.protects(&format!("{dir}/{path}")) {
                return Some(hit);
            }
        }
        joined.extend(
            path.split('/')
                .filter(|n| !matches!(*n, "" | "." | ".."))
                .map(fold),
        );
        name_rule(&joined).map(|what| Protected {
            path: format!("{}/{path}", dirs.join("/")),
            what: format!("possibly {what} (the line changes folder first)"),
        })
    }

    /// The user's own configuration that runs programs: git's, Claude
    /// Code's user file, the shells' start-up files, ssh's folder, cargo's
    /// and npm's (integrations #7: with the session in the home folder an
    /// `edit **` rule wrote them). Only below the home folder (or `~`).
    fn home_rule(&self, placed: &Placed) -> Option<&'static str> {
        let rest: &[String] = match placed {
            Placed::Absolute(names) => {
                let home = self.home_names.as_ref()?;
                names.strip_prefix(home.as_slice())?
            }
            Placed::Tilde(rest) => rest,
        };
        HOME_FILES.iter().find_map(|(path, below, what)| {
            let wanted: Vec<&str> = path.split('/').collect();
            let matches = if *below {
                rest.len() >= wanted.len() && rest.iter().zip(&wanted).all(|(a, b)| a == b)
            } else {
                rest.len() == wanted.len() && rest.iter().zip(&wanted).all(|(a, b)| a == b)
            };
            matches.then_some(*what)
        })
    }

    fn protected(&self, placed: &PlacedPath, what: String) -> Protected {
        Protected {
            path: placed.display.clone(),
            what,
        }
    }

    fn place(&self, raw: &str) -> PlacedPath {
        if let Some(rest) = raw.strip_prefix('~') {
            let (user, rest) = rest.split_once('/').unwrap_or((rest, ""));
            if user.is_empty()
                && let Some(home) = &self.home
            {
                let joined = normalise(&home.join(rest));
                return PlacedPath::absolute(&joined);
            }
            let mut names: Vec<String> = Vec::new();
            for part in rest.split('/') {
                match part {
                    "" | "." => {}
                    ".." => {
                        names.pop();
                    }
                    other => names.push(fold(other)),
                }
            }
            return PlacedPath {
                display: crate::path::tilde_normalise(raw),
                placed: Placed::Tilde(names),
            };
        }
        let joined = if Path::new(raw).is_absolute() {
            normalise(Path::new(raw))
        } else {
            normalise(&self.project.join(raw))
        };
        PlacedPath::absolute(&joined)
    }
}

/// A path placed for comparison.
struct PlacedPath {
    display: String,
    placed: Placed,
}

enum Placed {
    /// Folded names of an absolute path.
    Absolute(Vec<String>),
    /// Folded names after `~` or `~user`, the home folder being unknown.
    Tilde(Vec<String>),
}

impl PlacedPath {
    fn absolute(path: &Path) -> Self {
        Self {
            display: path.to_string_lossy().into_owned(),
            placed: Placed::Absolute(folded_names(path)),
        }
    }

    fn names(&self) -> &[String] {
        match &self.placed {
            Placed::Absolute(n) | Placed::Tilde(n) => n,
        }
    }
}

/// The name rules, on folded names (any depth).
fn name_rule(names: &[String]) -> Option<&'static str> {
    for (i, name) in names.iter().enumerate() {
        if let Some((_, what)) = PROTECTED_DIRS.iter().find(|(n, _)| n == name) {
            return Some(what);
        }
        if name == ".git" {
            let below = &names[i + 1..];
            if below.is_empty() {
                return Some(
                    "a git folder, or a `.git` file that points git at one (it holds git's \
                     hooks and configuration)",
                );
            }
            if below.iter().any(|n| n == "hooks") {
                return Some("a git hook (code git runs later)");
            }
            if below
                .last()
                .is_some_and(|n| GIT_CONFIG_FILES.contains(&n.as_str()))
            {
                return Some("git's configuration (it names programs git runs)");
            }
            if below
                .last()
                .is_some_and(|n| GIT_POINTER_FILES.contains(&n.as_str()))
            {
                return Some(
                    "a git pointer file (it sends git to another repository's configuration and hooks)",
                );
            }
            // Everything else git keeps there steers what git does next:
            // `HEAD` and `refs/**` pick the commit checked out and pushed,
            // `index` what is committed, `objects/info/alternates` where
            // objects come from, `info/*` excludes and attributes (filter
            // programs), `worktrees/**` and `modules/**` other repositories
            // (tui-rpc #8 side note: `edit allow **` rewrote them).
            return Some(
                "inside a git folder (HEAD, refs, index, objects and info steer what git \
                 checks out, commits, pushes and runs)",
            );
        }
    }
    if let Some((_, what)) = PROTECTED_SUBDIRS.iter().find(|(sequence, _)| {
        names
            .windows(sequence.len())
            .any(|w| w.iter().eq(sequence.iter()))
    }) {
        return Some(what);
    }
    if let Some((_, what)) = PROTECTED_TAILS.iter().find(|(tail, _)| {
        names.len() >= tail.len() && names[names.len() - tail.len()..].iter().eq(tail.iter())
    }) {
        return Some(what);
    }
    let last = names.last()?;
    PROTECTED_FILES
        .iter()
        .find(|(n, _)| n == last)
        .map(|(_, what)| *what)
}

/// Fold one name for comparison (see the module docs).
fn fold(name: &str) -> String {
    let base = name.split(':').next().unwrap_or(name);
    let trimmed = base.trim_end_matches(['.', ' ']);
    // A name made only of dots and spaces keeps its text (`...` is a name).
    let base = if trimmed.is_empty() { base } else { trimmed };
    let mut out = String::with_capacity(base.len());
    for c in base.chars() {
        match c {
            'ſ' => out.push('s'),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

fn folded_names(path: &Path) -> Vec<String> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(fold(&n.to_string_lossy())),
            _ => None,
        })
        .collect()
}

/// Lexical normalisation: drop `.`, let `..` pop (never above `/`).
pub(crate) fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_covers_case_and_windows_name_forms() {
        assert_eq!(fold(".GIT"), ".git");
        assert_eq!(fold("HOO\u{212A}S"), "hooks");
        assert_eq!(fold(".v\u{17F}code"), ".vscode");
        assert_eq!(fold(".git. "), ".git");
        assert_eq!(fold(".git::$INDEX_ALLOCATION"), ".git");
        assert_eq!(fold("..."), "...");
    }
}
