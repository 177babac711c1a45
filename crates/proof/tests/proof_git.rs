//! git inside a proof uses the project's own repository and never runs a
//! program its discovery or its included configuration would pick up
//! (outside attacker's proof5 #1 and #14). The real sandbox, the real git.
#![allow(clippy::disallowed_methods)] // the test sets up repositories with the host's git
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use ploy_proof::{
    proof_run::{ProofOutcome, run_proof},
    sandbox::{Sandbox, SandboxPolicy},
};
use ploy_secrets::Redactor;

const MARK: &str = "FSMON-RAN-PROOF5";

struct Project(PathBuf);

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// A repository with one commit (`README.md`, `src/main.rs`) and a sandbox
/// for it; None when the sandbox or git cannot run here (`require_part!`).
fn repository(name: &str) -> Option<(Project, Sandbox)> {
    let has_git = Command::new("git").arg("--version").output().is_ok();
    ploy_testkit::strict::require_part("git", if has_git { Ok(()) } else { Err("no git") })?;
    let root = std::env::temp_dir()
        .canonicalize()
        .unwrap()
        .join(format!("ploy-proof-git-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("README.md"), "readme\n").unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "one"]);
    let project = Project(root);
    let sandbox = Sandbox::with_init(
        SandboxPolicy::new(&project.0),
        PathBuf::from(env!("CARGO_BIN_EXE_ploy-sandbox-run")),
    )
    .unwrap();
    let probe = sandbox.probe();
    let usable = if probe.can_run() {
        Ok(())
    } else {
        Err(format!("the sandbox cannot run here: {probe:?}"))
    };
    ploy_testkit::strict::require_part("user namespaces", usable)?;
    Some((project, sandbox))
}

fn fsmonitor_config() -> String {
    format!(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\
         \tfsmonitor = \"echo {MARK} >&2; false\"\n"
    )
}

// A plain repository: git proofs pass, with a pathspec below the root too.
// proves: PROOF-3
#[test]
fn git_proofs_in_a_plain_repository_still_pass() {
    let Some((_project, sandbox)) = repository("plain") else {
        return;
    };
    let redactor = Redactor::empty();
    for line in [
        "git diff --quiet",
        "git diff --quiet HEAD -- src",
        "git ls-files --error-unmatch src/main.rs",
        "git status --porcelain | grep -q . || test -f README.md",
    ] {
        let report = run_proof(&sandbox, line, &redactor);
        assert_eq!(report.verdict, ProofOutcome::Passed, "{line}: {report:?}");
    }
}

// proof5 #1: `.git/HEAD` made invalid, and the project root holding `HEAD`,
// `objects/`, `refs/` and a `config` with `core.fsmonitor`: git took the
// project as its repository and ran the program; the proof passed.
// proves: PROOF-3
#[test]
fn a_project_root_passing_for_a_bare_repository_never_runs_its_fsmonitor() {
    let Some((project, sandbox)) = repository("bare") else {
        return;
    };
    let root = &project.0;
    std::fs::create_dir_all(root.join("objects/info")).unwrap();
    std::fs::create_dir_all(root.join("refs/heads")).unwrap();
    std::fs::write(root.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(root.join("config"), fsmonitor_config()).unwrap();
    std::fs::write(root.join(".git/HEAD"), "garbage\n").unwrap();
    let redactor = Redactor::empty();
    for line in [
        "git diff --quiet",
        "git status --porcelain | grep -q README",
    ] {
        let report = run_proof(&sandbox, line, &redactor);
        assert_ne!(report.verdict, ProofOutcome::Passed, "{line}: {report:?}");
        assert!(!report.stderr.contains(MARK), "{line}: {report:?}");
        assert_eq!(report.rules, ["PROOF-3"], "{line}: {report:?}");
    }
}

// proof5 #14: `.git/config` includes a project file (`../.gitconfig`) that
// names `core.fsmonitor`: the proof's git must not run it (the run pins
// `core.fsmonitor=false` on git's command line), and a git proof is decided
// by git alone. Also any folder on the way up that passes for a bare
// repository is never taken (GIT_DIR is pinned).
// proves: PROOF-3
#[test]
fn an_included_configuration_file_cannot_start_a_program_in_a_git_proof() {
    let Some((project, sandbox)) = repository("include") else {
        return;
    };
    let root = &project.0;
    std::fs::write(root.join(".gitconfig"), fsmonitor_config()).unwrap();
    git(root, &["config", "include.path", "../.gitconfig"]);
    // A sub-folder that passes for a bare repository, too.
    std::fs::create_dir_all(root.join("src/objects")).unwrap();
    std::fs::create_dir_all(root.join("src/refs/heads")).unwrap();
    std::fs::write(root.join("src/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(root.join("src/config"), fsmonitor_config()).unwrap();
    // The host's own git would run it (the attack is real here).
    let host = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["status", "--porcelain"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&host.stderr).contains(MARK),
        "the fixture does not reproduce the attack: {host:?}"
    );
    let redactor = Redactor::empty();
    for line in [
        "git diff --quiet",
        "git diff --quiet HEAD -- src",
        "git status --porcelain | grep -q gitconfig",
    ] {
        let report = run_proof(&sandbox, line, &redactor);
        assert!(!report.stderr.contains(MARK), "{line}: {report:?}");
        assert_eq!(report.verdict, ProofOutcome::Passed, "{line}: {report:?}");
    }
}

// round8 #11: `git update-index --assume-unchanged` (or `--skip-worktree`)
// hid an edit from `git diff --quiet` and `git status`, so "nothing
// changed" passed with the file changed. A git proof is refused while the
// index carries either flag (index versions 2 to 4), and passes again
// once the flag is cleared.
// proves: PROOF-5
#[test]
fn round8_11_index_flags_that_hide_changes_refuse_git_proofs() {
    let Some((project, sandbox)) = repository("flags") else {
        return;
    };
    let root = &project.0;
    let redactor = Redactor::empty();
    std::fs::write(root.join("README.md"), "edited\n").unwrap();
    for (set, clear) in [
        ("--assume-unchanged", "--no-assume-unchanged"),
        ("--skip-worktree", "--no-skip-worktree"),
    ] {
        for version in ["2", "3", "4"] {
            git(root, &["update-index", "--index-version", version]);
            git(root, &["update-index", set, "README.md"]);
            // The host's own git is fooled (the attack is real here).
            let host = Command::new("git")
                .arg("-C")
                .arg(root)
                .args(["diff", "--quiet"])
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .status()
                .unwrap();
            assert!(host.success(), "the fixture does not hide the edit");
            for line in [
                "git diff --quiet",
                "! git status --porcelain --ignored | grep -q README",
                "git diff --quiet -- README.md",
            ] {
                let report = run_proof(&sandbox, line, &redactor);
                assert_eq!(
                    report.verdict,
                    ProofOutcome::Refused,
                    "{set} v{version} {line}: {report:?}"
                );
                assert_eq!(report.rules, ["PROOF-5"], "{line}: {report:?}");
                assert!(
                    report.refusals[0].detail.contains("README.md"),
                    "{report:?}"
                );
            }
            git(root, &["update-index", clear, "README.md"]);
            // Cleared: git sees the edit, and a proof says so.
            let report = run_proof(&sandbox, "git diff --quiet", &redactor);
            assert_eq!(
                report.verdict,
                ProofOutcome::Failed,
                "{set} v{version}: {report:?}"
            );
        }
    }
    // A proof that runs no git is not concerned.
    git(root, &["update-index", "--assume-unchanged", "README.md"]);
    let report = run_proof(&sandbox, "grep -q edited README.md", &redactor);
    assert_eq!(report.verdict, ProofOutcome::Passed, "{report:?}");
}
