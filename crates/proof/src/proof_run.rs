//! `proof run`: validate a proof line, then run the plan it validated in the
//! sandbox (PROOF-6).
//!
//! The validator (`ploy-validate`) is the first filter; the sandbox is the
//! safeguard. What runs is the validator's [`ProofPlan`], never the line:
//! the sandbox's init executes its argv vectors itself
//! ([`Sandbox::run_plan`]), so no shell ever interprets a proof. The project
//! is copy-on-write (BEYOND-4). Output is capped by the sandbox and
//! redacted here before anyone sees it.

use std::time::Duration;

use ploy_secrets::Redactor;
use serde::Serialize;

use std::path::Path;

use ploy_validate::{Needed, ProofPlan, ProofVerdict, validate};

use crate::sandbox::{Sandbox, SandboxError, Termination};

/// The end of a proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProofOutcome {
    /// Accepted, ran, exited 0 in time.
    Passed,
    /// Accepted, ran, and did not exit 0 in time.
    Failed,
    /// Not run: the validator or the sandbox refused it.
    Refused,
}

impl ProofOutcome {
    /// `passed`, `failed` or `refused`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProofOutcome::Passed => "passed",
            ProofOutcome::Failed => "failed",
            ProofOutcome::Refused => "refused",
        }
    }
}

/// One rule that refused the proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProofRuleHit {
    /// The requirement ID (PROOF-n, SBX-n, BEYOND-n).
    pub rule: String,
    /// Why.
    pub detail: String,
}

/// Everything about one proof run; serialized as `ploy proof run --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProofReport {
    /// The proof line.
    pub line: String,
    /// passed / failed / refused.
    pub verdict: ProofOutcome,
    /// Rule IDs that refused it (empty unless refused).
    pub rules: Vec<String>,
    /// Each refusal with its detail.
    pub refusals: Vec<ProofRuleHit>,
    /// What ran: the validated plan (none when refused).
    pub plan: Option<ProofPlan>,
    /// The exit code (128 + signal when killed); none when it did not run.
    pub exit_code: Option<i32>,
    /// Whether the wall-time limit stopped it.
    pub timed_out: bool,
    /// Milliseconds from validation to the end.
    pub time_ms: u64,
    /// Captured stdout, capped and redacted.
    pub stdout: String,
    /// Captured stderr, capped and redacted.
    pub stderr: String,
    /// Whether the output was longer than the cap.
    pub output_truncated: bool,
    /// Whether the sandbox's memory limit stopped the proof.
    pub memory_exceeded: bool,
    /// What the sandbox noticed about the run (a limit that stopped it, a
    /// file it could not copy back), redacted.
    pub notes: Vec<String>,
}

impl ProofReport {
    fn refused(line: &str, refusals: Vec<ProofRuleHit>, elapsed: Duration) -> ProofReport {
        let mut rules: Vec<String> = refusals.iter().map(|hit| hit.rule.clone()).collect();
        rules.dedup();
        ProofReport {
            line: line.to_string(),
            verdict: ProofOutcome::Refused,
            rules,
            refusals,
            plan: None,
            exit_code: None,
            timed_out: false,
            time_ms: elapsed.as_millis() as u64,
            stdout: String::new(),
            stderr: String::new(),
            output_truncated: false,
            memory_exceeded: false,
            notes: Vec::new(),
        }
    }

    /// The first refusal as `RULE: detail`, or the failure, in one line.
    pub fn summary(&self) -> String {
        match self.verdict {
            ProofOutcome::Passed => "passed".to_string(),
            ProofOutcome::Failed if self.timed_out => {
                "failed: stopped at the wall-time limit".to_string()
            }
            ProofOutcome::Failed => format!("failed: exit {}", self.exit_code.unwrap_or(-1)),
            ProofOutcome::Refused => self
                .refusals
                .first()
                .map(|hit| format!("refused {}: {}", hit.rule, hit.detail))
                .unwrap_or_else(|| "refused".to_string()),
        }
    }
}

/// Validates `line` and, when accepted, runs the validated plan in `sandbox`.
pub fn run_proof(sandbox: &Sandbox, line: &str, redactor: &Redactor) -> ProofReport {
    let started = std::time::Instant::now();
    let plan = match validate(line) {
        ProofVerdict::Refused { refusals } => {
            let hits = refusals
                .into_iter()
                .map(|refusal| ProofRuleHit {
                    rule: refusal.rule.to_string(),
                    detail: redactor.redact(&refusal.detail).into_owned(),
                })
                .collect();
            return ProofReport::refused(line, hits, started.elapsed());
        }
        ProofVerdict::Accepted { plan } => plan,
    };
    if let Some(hit) = script_outside_project(sandbox.project(), &plan)
        .or_else(|| argument_outside_project(sandbox.project(), &plan))
        .or_else(|| git_dir_not_plain(sandbox.project(), &plan))
        .or_else(|| git_index_hides_changes(sandbox.project(), &plan))
        .or_else(|| needed_missing(sandbox.project(), &plan))
    {
        return ProofReport::refused(line, vec![hit], started.elapsed());
    }
    match sandbox.run_plan(&plan) {
        Err(err) => ProofReport::refused(line, vec![sandbox_hit(&err)], started.elapsed()),
        Ok(out) => {
            let passed = out.success();
            ProofReport {
                line: line.to_string(),
                verdict: if passed {
                    ProofOutcome::Passed
                } else {
                    ProofOutcome::Failed
                },
                rules: Vec::new(),
                refusals: Vec::new(),
                plan: Some(plan),
                exit_code: Some(match out.termination {
                    Termination::Exited(code) => code,
                    Termination::Signaled(signal) => 128 + signal,
                }),
                timed_out: out.timed_out,
                time_ms: started.elapsed().as_millis() as u64,
                stdout: redactor
                    .redact(&String::from_utf8_lossy(&out.stdout))
                    .into_owned(),
                stderr: redactor
                    .redact(&String::from_utf8_lossy(&out.stderr))
                    .into_owned(),
                output_truncated: out.output_truncated,
                memory_exceeded: out.memory_exceeded,
                notes: out
                    .notes
                    .iter()
                    .map(|note| redactor.redact(note).into_owned())
                    .collect(),
            }
        }
    }
}

/// git reads the repository's configuration (which can name programs: a
/// pager, fsmonitor, diff drivers). PERM-7 keeps `.git/config` out of the
/// model's reach; a `.git` that is a file (`gitdir: …`) or a link points git
/// at configuration the project itself may have written, so read-only git
/// proofs refuse it (PROOF-3).
fn git_dir_not_plain(project: &Path, plan: &ProofPlan) -> Option<ProofRuleHit> {
    if !plan
        .commands()
        .any(|command| command.argv.first().is_some_and(|p| p == "git"))
    {
        return None;
    }
    let dot_git = project.join(".git");
    let refuse = |detail: &str| {
        Some(ProofRuleHit {
            rule: "PROOF-3".to_string(),
            detail: detail.to_string(),
        })
    };
    let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
        // Without a `.git` (or with an invalid one) git tries the folder
        // itself as a repository: a project holding `HEAD`, `objects/`,
        // `refs/` and a `config` it wrote (with `core.fsmonitor`, a program
        // git runs) would be one.
        return refuse(
            "the project has no `.git` folder; git would search elsewhere for a repository (the project folder itself can pass for one, with a configuration the project wrote); a proof runs git only in a plain repository",
        );
    };
    if !meta.is_dir() {
        return refuse(
            "the project's `.git` is a file or a link, which can point git at a repository and configuration elsewhere; a proof runs git only in a plain repository",
        );
    }
    let plain = |name: &str, dir: bool| {
        std::fs::symlink_metadata(dot_git.join(name))
            .is_ok_and(|m| if dir { m.is_dir() } else { m.is_file() })
    };
    if !(plain("HEAD", false) && plain("objects", true) && plain("refs", true)) {
        return refuse(
            "the project's `.git` folder is not a repository (no `HEAD`, `objects/` and `refs/`), so git would skip it and take another folder, possibly the project itself, as the repository; a proof runs git only in a plain repository",
        );
    }
    // git also skips a `.git` whose HEAD it cannot read as a HEAD (outside
    // attacker's proof5 #1: `echo garbage > .git/HEAD`, then the project
    // root with a written `HEAD`, `objects/`, `refs/` and `config` was the
    // repository). The run pins GIT_DIR too; this says why up front.
    let head = std::fs::read(dot_git.join("HEAD")).unwrap_or_default();
    if !valid_head(&head) {
        return refuse(
            "the project's `.git/HEAD` is not a valid HEAD (`ref: refs/…` or an object id), so git would skip `.git` and take another folder, possibly the project itself, as the repository; a proof runs git only in a plain repository (restore `.git/HEAD`, e.g. `ref: refs/heads/main`)",
        );
    }
    None
}

/// PROOF-5 (round8 #11): an index entry marked `assume-unchanged` or
/// `skip-worktree` hides that file's changes from every git command a
/// proof may run ([`crate::git_index`]); a proof that runs git is refused
/// while one is.
fn git_index_hides_changes(project: &Path, plan: &ProofPlan) -> Option<ProofRuleHit> {
    if !plan
        .commands()
        .any(|command| command.argv.first().is_some_and(|p| p == "git"))
    {
        return None;
    }
    crate::git_index::index_problem(&project.join(".git")).map(|detail| ProofRuleHit {
        rule: "PROOF-5".to_string(),
        detail,
    })
}

/// PROOF-5: what the plan needs the project to hold for it to decide
/// anything ([`ploy_validate::needed`]; the validator never looks at the
/// disk). A git pathspec that names no path matches nothing, silently
/// (outside attacker's proof5 #10c: `git diff --quiet -- zzz` passed with
/// changes present); a unittest name whose first part is not the
/// project's own module imports an installed one (proof5 #4: `python3 -m
/// unittest crcmod.test` passed on an empty project).
fn needed_missing(project: &Path, plan: &ProofPlan) -> Option<ProofRuleHit> {
    let refuse = |detail: String| {
        Some(ProofRuleHit {
            rule: "PROOF-5".to_string(),
            detail,
        })
    };
    for need in ploy_validate::needed(plan) {
        match need {
            Needed::Path(path) => {
                if std::fs::symlink_metadata(project.join(&path)).is_err() {
                    return refuse(format!(
                        "the git pathspec `{path}` names no path in the project, so it matches nothing and git finds no difference or match whatever the project holds; name paths that exist"
                    ));
                }
            }
            Needed::MakeGoal(goal) => {
                let makefile = first_makefile(project);
                if makefile
                    .as_deref()
                    .is_some_and(|text| !has_explicit_rule(text, &goal))
                {
                    return refuse(format!(
                        "the make target `{goal}` has no rule of its own in the project's makefile (a line `{goal}: …`): a pattern rule (`test-%:`) pastes the rest of the name into its recipe, where the test runner can read it as a filter that selects no test (`cargo test $*`), and a rule only in an included makefile is not read here; name a target the makefile defines"
                    ));
                }
                if std::fs::symlink_metadata(project.join(&goal)).is_ok()
                    && !makefile
                        .as_deref()
                        .is_some_and(|text| declared_phony(text, &goal))
                {
                    return refuse(format!(
                        "the make target `{goal}` is also a file or folder of the project, so make calls it up to date and runs nothing unless the makefile declares `.PHONY: {goal}`; declare it so (in the project's own Makefile), or name another target"
                    ));
                }
            }
            Needed::PythonModule(module) => {
                let is_file =
                    |p: std::path::PathBuf| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
                if !(is_file(project.join(format!("{module}.py")))
                    || is_file(project.join(&module).join("__init__.py")))
                {
                    return refuse(format!(
                        "the test name starts with `{module}`, which is not a module of the project (`{module}.py` or `{module}/__init__.py`), so unittest would import an installed module of that name and run its tests; name the project's tests (add `{module}/__init__.py`), or use `python3 -m unittest discover -s DIR`"
                    ));
                }
            }
            Needed::UnittestStart(start) => {
                if !discovery_finds_a_test(&project.join(&start)) {
                    return refuse(format!(
                        "`unittest discover` from `{start}` finds no test file (a `test*.py` module in the folder, or in a package below it: discovery enters only folders with `__init__.py`), and Python 3.11 passes a run of no test (\"Ran 0 tests … OK\"); start from the folder that holds the tests, or add the `__init__.py` files"
                    ));
                }
            }
            Needed::PytestConfig(start) => {
                if let Some(detail) = crate::pytest_config::pytest_config_problem(project, &start) {
                    return refuse(detail);
                }
            }
            Needed::UnittestName(name) => {
                if names_a_package(project, &name) {
                    return refuse(format!(
                        "the test name `{name}` is a package, and unittest runs only the tests its `__init__.py` defines, none of its modules' (Python 3.11 passes with \"Ran 0 tests … OK\"); name the test modules (`{name}.test_x`) or use `python3 -m unittest discover -s DIR`"
                    ));
                }
            }
        }
    }
    None
}

/// Whether unittest's discovery (the default pattern `test*.py`) finds a
/// test module from `start`: a regular file named `test*.py` (a valid
/// module name) in the folder, or in a folder below it reached through
/// packages (folders with a regular `__init__.py`), as Python's
/// `TestLoader.discover` walks them. Links are not followed and the walk
/// is bounded, so the answer can only be "no" too often (refused, never
/// wrongly run).
fn discovery_finds_a_test(start: &Path) -> bool {
    const MAX_ENTRIES: usize = 20_000;
    const MAX_DEPTH: usize = 32;
    let is_file = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    let is_test_module = |name: &str| {
        name.strip_suffix(".py").is_some_and(|stem| {
            stem.starts_with("test") && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let mut seen = 0usize;
    let mut folders = vec![(start.to_path_buf(), 0usize)];
    while let Some((folder, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return false;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            let path = entry.path();
            if kind.is_file() && is_test_module(name) {
                return true;
            }
            if kind.is_dir() && depth < MAX_DEPTH && is_file(&path.join("__init__.py")) {
                folders.push((path, depth + 1));
            }
        }
    }
    false
}

/// Whether the unittest test name `name` (`tests.test_api`,
/// `tests/test_api.py`, `tests.test_api.TestX.test_y`) resolves, from the
/// project folder, to a package rather than a module: Python imports a
/// folder with `__init__.py` before a `NAME.py` beside it.
fn names_a_package(project: &Path, name: &str) -> bool {
    let name = name.strip_suffix(".py").unwrap_or(name);
    let parts: Vec<&str> = name.split(['.', '/']).filter(|p| !p.is_empty()).collect();
    let is_file = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    let mut folder = project.to_path_buf();
    for (index, part) in parts.iter().enumerate() {
        let package = folder.join(part);
        if is_file(&package.join("__init__.py")) {
            if index + 1 == parts.len() {
                return true;
            }
            folder = package;
        } else {
            // A module (the rest are its classes and methods), or nothing
            // importable: unittest fails on a name it cannot import.
            return false;
        }
    }
    false
}

/// The text of the makefile GNU make reads first (`GNUmakefile`,
/// `makefile`, `Makefile`), up to 1 MiB; `None` when there is none (make
/// then fails on any goal) or it cannot be read. Included makefiles are
/// not read: a goal defined only there is refused, never wrongly run (the
/// checks can only say "no" too often).
fn first_makefile(project: &Path) -> Option<String> {
    const MAX_MAKEFILE_BYTES: u64 = 1 << 20;
    let path = ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .map(|name| project.join(name))
        .find(|path| std::fs::symlink_metadata(path).is_ok())?;
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, MAX_MAKEFILE_BYTES),
        &mut text,
    )
    .ok()?;
    Some(text)
}

/// Whether the makefile `text` names `goal` on a `.PHONY:` line of its
/// own.
fn declared_phony(text: &str, goal: &str) -> bool {
    text.lines().any(|line| {
        line.strip_prefix(".PHONY:")
            .is_some_and(|goals| goals.split_whitespace().any(|g| g == goal))
    })
}

/// Whether the makefile `text` has a rule line that names `goal` among
/// its targets (`goal: deps`, `a goal b:: deps`, `goal: ; recipe`): a
/// line outside a recipe whose text before the first `:` holds no `=`
/// and whose `:` starts no assignment (`:=`, `::=`), and is not a
/// target-specific variable (`goal: X = 1`). `.PHONY:` and other special
/// targets name goals without giving them a rule.
fn has_explicit_rule(text: &str, goal: &str) -> bool {
    text.lines().any(|line| {
        if line.starts_with('\t') {
            return false;
        }
        let line = line.trim_start_matches(' ');
        if line.starts_with('#') || line.starts_with('.') {
            return false;
        }
        let Some((targets, rest)) = line.split_once(':') else {
            return false;
        };
        let rest = rest.strip_prefix(':').unwrap_or(rest);
        let prerequisites = rest.split(';').next().unwrap_or(rest);
        !targets.contains('=')
            && !rest.starts_with('=')
            && !prerequisites.contains('=')
            && targets.split_whitespace().any(|t| t == goal)
    })
}

/// Whether `head` is what git accepts in `.git/HEAD`: a symbolic ref below
/// `refs/`, or a detached object id (SHA-1 or SHA-256 hex), one line.
fn valid_head(head: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(head) else {
        return false;
    };
    let line = text.strip_suffix('\n').unwrap_or(text);
    if line.contains(['\n', '\r']) {
        return false;
    }
    if let Some(target) = line.strip_prefix("ref: ") {
        return target.starts_with("refs/")
            && target.len() > "refs/".len()
            && !target.contains("..")
            && !target.ends_with('/')
            && target
                .bytes()
                .all(|b| b.is_ascii_graphic() && !b"~^:?*[\\".contains(&b));
    }
    matches!(line.len(), 40 | 64) && line.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A project script of the plan (`./check.sh`) that resolves, through
/// symbolic links, outside the project: the validator saw a project path,
/// but it would run another program (PROOF-3). Scripts that do not exist
/// yet are left to the sandbox (an earlier command may build them).
fn script_outside_project(project: &Path, plan: &ProofPlan) -> Option<ProofRuleHit> {
    let root = project.canonicalize().ok()?;
    plan.commands()
        .filter_map(|command| command.argv.first())
        .filter(|program| program.contains('/'))
        .find_map(|program| {
            let resolved = root.join(program).canonicalize().ok()?;
            (!resolved.starts_with(&root)).then(|| ProofRuleHit {
                rule: "PROOF-3".to_string(),
                detail: format!(
                    "`{program}` is a link to {}, outside the project; a proof runs project scripts only",
                    resolved.display()
                ),
            })
        })
}

/// An argument of the plan that names a project path leading, through a
/// symbolic link in the project, outside it: `grep root pw` with
/// `pw -> /etc/passwd`, `head etcd/shadow` with `etcd -> /etc` (outside
/// attacker's validate #19). The validator saw a relative path; the link is
/// just a project file it cannot see (PROOF-3). Every argument is looked at,
/// with an option's value after `=` and every glued tail of a short-option
/// cluster (`-fpw`), so no grammar is needed here: a word that names no
/// project path costs one `stat`. What this cannot see (links found while a
/// program walks a folder, `grep -R`, `rg -L`, and what a build tool opens)
/// resolves inside the sandbox's own view, where only the system folders are
/// and their secrets are hidden (SBX-3).
fn argument_outside_project(project: &Path, plan: &ProofPlan) -> Option<ProofRuleHit> {
    let root = project.canonicalize().ok()?;
    plan.commands()
        .flat_map(|command| command.argv.iter().skip(1))
        .flat_map(|argument| argument_paths(argument))
        .find_map(|candidate| {
            let resolved = resolve_existing(&root, candidate)?;
            (!resolved.starts_with(&root)).then(|| ProofRuleHit {
                rule: "PROOF-3".to_string(),
                detail: format!(
                    "`{candidate}` leads through a link in the project to {}, outside it; a proof reads project files only (remove the link or name its target's copy in the project)",
                    resolved.display()
                ),
            })
        })
}

/// The words of one argument that may be a path: the argument itself, an
/// option's value after `=`, and each glued tail of `-xVALUE`.
fn argument_paths(argument: &str) -> Vec<&str> {
    let mut words = vec![argument];
    if let Some(option) = argument.strip_prefix('-') {
        if let Some((_, value)) = argument.split_once('=') {
            words.push(value);
        }
        if !option.starts_with('-') {
            words.extend(option.char_indices().skip(1).map(|(at, _)| &option[at..]));
        }
    }
    words.retain(|word| !word.is_empty() && !word.starts_with('/'));
    words
}

/// Where the longest existing prefix of `root/relative` really is, or `None`
/// when nothing of it exists below the root. A link that leads nowhere on
/// the host (`x -> /var/cache/…`) may lead somewhere in the sandbox's view:
/// its own text is returned when it is absolute or climbs with `..`.
fn resolve_existing(root: &Path, relative: &str) -> Option<std::path::PathBuf> {
    let path = root.join(relative);
    let ancestor = path
        .ancestors()
        .take_while(|ancestor| ancestor.starts_with(root) && *ancestor != root)
        .find(|ancestor| ancestor.symlink_metadata().is_ok())?;
    match ancestor.canonicalize() {
        Ok(resolved) => Some(resolved),
        Err(_) => {
            let text = std::fs::read_link(ancestor).ok()?;
            let escapes = text.is_absolute()
                || text
                    .components()
                    .any(|part| part == std::path::Component::ParentDir);
            escapes.then_some(text)
        }
    }
}

fn sandbox_hit(err: &SandboxError) -> ProofRuleHit {
    ProofRuleHit {
        rule: err.rule().to_string(),
        detail: err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn plan(line: &str) -> ProofPlan {
        validate(line).plan().cloned().unwrap()
    }

    // proves: PROOF-5 (outside attacker's proof5 #10c, a git pathspec that
    // names nothing, and #4, an installed package's tests run by unittest
    // on an empty project: refused before the run)
    #[test]
    fn what_a_plan_needs_must_be_in_the_project() {
        let root = std::env::temp_dir().join(format!("ploy-needed-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::create_dir_all(root.join("nsp")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "").unwrap();
        std::fs::write(root.join("tests/__init__.py"), "").unwrap();
        std::fs::write(root.join("tests/test_api.py"), "").unwrap();
        std::fs::write(root.join("test_top.py"), "").unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/guide.md"), "").unwrap();
        // A test module below a folder without `__init__.py`: discovery
        // does not enter it.
        std::fs::create_dir_all(root.join("sub/inner")).unwrap();
        std::fs::write(root.join("sub/inner/test_b.py"), "").unwrap();
        std::fs::create_dir_all(root.join("pkg/unit")).unwrap();
        std::fs::write(root.join("pkg/unit/__init__.py"), "").unwrap();
        std::fs::write(root.join("pkg/unit/test_c.py"), "").unwrap();
        let refused = |line: &str| {
            needed_missing(&root, &plan(line)).is_some_and(|hit| hit.rule == "PROOF-5")
        };
        for line in [
            "git diff --quiet -- zzz",
            "git diff --exit-code HEAD -- zzz",
            "! git grep -q --untracked --no-exclude-standard TODO -- zzz",
            "git diff --quiet -- src/lib.rs zzz",
            "! git ls-files -m zzz | grep -q .",
            "python3 -m unittest crcmod.test",
            "python3 -m unittest wadllib.tests.test_docs",
            "python3 -m unittest setuptools.command.test",
            "python3 -m unittest nsp.test_x",
            "python3 -m unittest tests.test_api test_zzz",
            // round6 #2: a discovery or a package that runs no test.
            "python3 -m unittest discover -s docs",
            "python3 -m unittest discover docs",
            "python3 -m unittest discover -s sub",
            "python3 -m unittest discover -s zzz",
            "python3 -m unittest tests",
            "python3 -m unittest tests/",
        ] {
            assert!(refused(line), "{line}");
        }
        // A make goal named like a project path, unless declared phony.
        assert!(refused("make src"));
        std::fs::write(root.join("check"), "").unwrap();
        std::fs::write(root.join("Makefile"), "check:\n\ttrue\n").unwrap();
        assert!(refused("make check"));
        std::fs::write(root.join("Makefile"), ".PHONY: all check\ncheck:\n\ttrue\n").unwrap();
        assert!(!refused("make check"));
        // A goal with no rule of its own: a pattern rule pastes the stem
        // into the recipe (`cargo test $*` reads it as a filter), a
        // `.PHONY` line alone gives no rule ("nothing to be done").
        assert!(refused("make lint"));
        assert!(refused("make all"));
        std::fs::write(
            root.join("Makefile"),
            "X := a:b\ntest-%:\n\tcargo test $*\nunit lint :: deps\nfast: ; true\nslow: V = 1\n\tcheck: x\n",
        )
        .unwrap();
        for goal in ["test-zzz", "X", "check", "slow"] {
            assert!(refused(&format!("make {goal}")), "{goal}");
        }
        for goal in ["unit", "lint", "fast"] {
            assert!(!refused(&format!("make {goal}")), "{goal}");
        }
        for line in [
            "git diff --quiet -- src/lib.rs",
            "git diff --quiet -- src",
            "! git grep -q --untracked --no-exclude-standard TODO -- src",
            "git diff --quiet",
            "python3 -m unittest tests.test_api",
            "python3 -m unittest tests/test_api.py",
            "python3 -m unittest test_top",
            "python3 -m unittest discover -s tests",
            "python3 -m unittest discover",
            "python3 -m unittest discover -s pkg",
            "python3 -m unittest tests.test_api.TestX.test_y",
        ] {
            assert!(!refused(line), "{line}");
        }
        let _ = std::fs::remove_dir_all(&root);
    }

    // proves: PROOF-3, PROOF-6 (git runs only in a plain repository: the
    // outside attacker's #17, a project root that passes for a bare
    // repository whose `config` names `core.fsmonitor`)
    #[test]
    fn git_proofs_need_a_plain_repository() {
        let root = std::env::temp_dir().join(format!("ploy-git-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("objects")).unwrap();
        std::fs::create_dir_all(root.join("refs")).unwrap();
        std::fs::write(root.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(root.join("config"), "[core]\n\tfsmonitor = id\n").unwrap();
        let git = plan("git diff --quiet");
        // No `.git`: the project itself would pass for a repository.
        assert!(git_dir_not_plain(&root, &git).is_some());
        // An empty `.git` folder: git skips it and takes the project.
        std::fs::create_dir(root.join(".git")).unwrap();
        assert!(git_dir_not_plain(&root, &git).is_some());
        // A real repository's layout: allowed.
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::create_dir_all(root.join(".git/refs")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        assert!(git_dir_not_plain(&root, &git).is_none());
        // proof5 #1: a `.git/HEAD` git cannot read makes git skip `.git`.
        for head in [
            "garbage\n",
            "",
            "ref: heads/main\n",
            "ref: refs/heads/a..b\n",
            "0123\n",
        ] {
            std::fs::write(root.join(".git/HEAD"), head).unwrap();
            let hit = git_dir_not_plain(&root, &git);
            assert!(hit.is_some_and(|h| h.rule == "PROOF-3"), "{head:?}");
        }
        for head in [
            "ref: refs/heads/feature/x\n",
            "0123456789abcdef0123456789abcdef01234567\n",
        ] {
            std::fs::write(root.join(".git/HEAD"), head).unwrap();
            assert!(git_dir_not_plain(&root, &git).is_none(), "{head:?}");
        }
        // A `.git` file (`gitdir: …`) is refused.
        std::fs::remove_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git"), "gitdir: elsewhere\n").unwrap();
        assert!(git_dir_not_plain(&root, &git).is_some());
        // A line without git is not concerned.
        assert!(git_dir_not_plain(&root, &plan("test -f HEAD")).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
