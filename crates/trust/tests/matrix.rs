//! The resolution matrix of issue 5, generated in code:
//! {no resources, each resource kind, empty `.ploy`, `.agents/skills` two
//! levels up} × {no saved decision, saved at the directory (yes/no), saved at
//! an ancestor (yes/no), conflicting saves at two ancestors (both orders)} ×
//! {default ask, always, never} × {interactive with a scripted answer,
//! interactive without a TTY, `-p`, json, rpc} × {no flag, `-a`, `-na`} ×
//! {extension says yes, no, nothing, crashes, hangs}.
//!
//! Real parts: real folders on disk and real detection, a real trust file
//! written and read through the store, and real extension programs (`sh`
//! scripts) run through `ploy_proof::host`. The expected result comes from the
//! rule order as written in SPEC §13, restated here independently.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    fs,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    sync::atomic::{AtomicUsize, Ordering},
    time::Duration,
};

use ploy_trust::{
    DecidedBy, DefaultProjectTrust, DetectOptions, ExtensionAnswer, ExtensionOrigin, ExtensionSpec,
    PromptChoice, ResourceKind, ScriptedPrompt, TrustRequest, TrustStore, Ui, UiMode, detect,
    resolve,
};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Resources {
    None,
    Kind(ResourceKind),
    EmptyPloy,
    AgentsSkillsTwoUp,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Saved {
    None,
    AtDir(bool),
    AtAncestor(bool),
    /// Two ancestors disagree; the value is the NEAREST one's.
    Conflicting(bool),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    InteractiveScripted,
    InteractiveNoTty,
    Print,
    Json,
    Rpc,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Ext {
    Yes,
    No,
    Nothing,
    Crashes,
    Hangs,
}

const HANG_TIMEOUT: Duration = Duration::from_millis(60);

fn resource_variants() -> Vec<Resources> {
    let mut all = vec![Resources::None];
    all.extend(ResourceKind::ALL.into_iter().map(Resources::Kind));
    all.push(Resources::EmptyPloy);
    all.push(Resources::AgentsSkillsTwoUp);
    all
}

fn saved_variants() -> Vec<Saved> {
    vec![
        Saved::None,
        Saved::AtDir(true),
        Saved::AtDir(false),
        Saved::AtAncestor(true),
        Saved::AtAncestor(false),
        Saved::Conflicting(true),
        Saved::Conflicting(false),
    ]
}

/// root/a/b/project is the working directory.
struct Fixture {
    _tmp: tempfile::TempDir,
    cwd: PathBuf,
    store: TrustStore,
    resources: Resources,
    saved: Saved,
}

fn build_fixture(resources: Resources, saved: Saved) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let cwd = root.join("a/b/project");
    fs::create_dir_all(&cwd).unwrap();
    let ploy = cwd.join(".ploy");
    match resources {
        Resources::None => {
            // Unrelated files that must not count.
            fs::write(cwd.join("README.md"), "hi").unwrap();
        }
        Resources::EmptyPloy => {
            fs::create_dir_all(ploy.join("skills")).unwrap();
            fs::create_dir_all(ploy.join("extensions")).unwrap();
        }
        Resources::AgentsSkillsTwoUp => {
            let skill = root.join("a/.agents/skills/s");
            fs::create_dir_all(&skill).unwrap();
            fs::write(
                skill.join("SKILL.md"),
                "---\nname: s\ndescription: d\n---\n",
            )
            .unwrap();
        }
        Resources::Kind(kind) => {
            fs::create_dir_all(&ploy).unwrap();
            let put = |dir: &str| {
                fs::create_dir_all(ploy.join(dir)).unwrap();
                fs::write(ploy.join(dir).join("x"), "x").unwrap();
            };
            match kind {
                ResourceKind::Settings => fs::write(ploy.join("settings.json"), "{}").unwrap(),
                ResourceKind::Extensions => put("extensions"),
                ResourceKind::Skills => put("skills"),
                ResourceKind::Prompts => put("prompts"),
                ResourceKind::Themes => put("themes"),
                ResourceKind::SystemPrompt => fs::write(ploy.join("SYSTEM.md"), "x").unwrap(),
                ResourceKind::AppendSystemPrompt => {
                    fs::write(ploy.join("APPEND_SYSTEM.md"), "x").unwrap()
                }
                ResourceKind::AgentsSkills => {
                    fs::create_dir_all(cwd.join(".agents/skills/s")).unwrap();
                    fs::write(cwd.join(".agents/skills/s/SKILL.md"), "x").unwrap();
                }
            }
        }
    }
    let trust_file = root.join("config/trust.json");
    let near = root.join("a/b");
    let far = root.join("a");
    match saved {
        Saved::None => {}
        Saved::AtDir(v) => TrustStore::save(&trust_file, &cwd, v).unwrap(),
        Saved::AtAncestor(v) => TrustStore::save(&trust_file, &near, v).unwrap(),
        Saved::Conflicting(v) => {
            TrustStore::save(&trust_file, &far, !v).unwrap();
            TrustStore::save(&trust_file, &near, v).unwrap();
        }
    }
    // Unrelated decisions that must never apply.
    TrustStore::save(&trust_file, &root.join("a/b/project-other"), true).unwrap();
    TrustStore::save(&trust_file, &cwd.join("sub"), true).unwrap();
    let store = TrustStore::load(&trust_file).unwrap();
    Fixture {
        _tmp: tmp,
        cwd,
        store,
        resources,
        saved,
    }
}

fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}

struct Extensions {
    _tmp: tempfile::TempDir,
    yes: ExtensionSpec,
    no: ExtensionSpec,
    nothing: ExtensionSpec,
    crashes: ExtensionSpec,
    hangs: ExtensionSpec,
}

fn extensions() -> Extensions {
    let tmp = tempfile::tempdir().unwrap();
    let spec = |path: PathBuf, timeout: Duration| ExtensionSpec {
        command: path,
        args: Vec::new(),
        timeout,
        origin: ExtensionOrigin::User,
    };
    // Generous timeouts for the answering ones: a loaded CI machine must not
    // turn a yes into a timeout. Only the hanging one has a short limit.
    let slow_ok = Duration::from_secs(30);
    let d = tmp.path();
    Extensions {
        yes: spec(
            write_script(
                d,
                "yes.sh",
                "read line\necho '{\"result\":{\"decision\":\"yes\"}}'",
            ),
            slow_ok,
        ),
        no: spec(
            write_script(
                d,
                "no.sh",
                "read line\necho '{\"result\":{\"decision\":\"no\",\"remember\":true}}'",
            ),
            slow_ok,
        ),
        nothing: spec(
            write_script(d, "nothing.sh", "read line\necho '{\"result\":null}'"),
            slow_ok,
        ),
        // Starts to answer yes, then dies: a crash is no answer, never yes.
        crashes: spec(
            write_script(
                d,
                "crashes.sh",
                "read line\necho '{\"result\":{\"decision\":\"yes\"}}'\nkill -KILL $$",
            ),
            slow_ok,
        ),
        hangs: spec(
            write_script(d, "hangs.sh", "read line\nsleep 30"),
            HANG_TIMEOUT,
        ),
        _tmp: tmp,
    }
}

fn needs_trust(resources: Resources) -> bool {
    !matches!(resources, Resources::None | Resources::EmptyPloy)
}

/// SPEC §13's order, restated: flag → no resources → extension → saved →
/// default → prompt (with a UI) / skip (without).
fn expected(
    fx: &Fixture,
    default: DefaultProjectTrust,
    mode: Mode,
    flag: Option<bool>,
    ext: Ext,
    choice: PromptChoice,
) -> (Option<bool>, DecidedBy, Option<(PathBuf, bool)>) {
    if let Some(f) = flag {
        return (Some(f), DecidedBy::Flag, None);
    }
    if !needs_trust(fx.resources) {
        return (None, DecidedBy::NoResources, None);
    }
    match ext {
        Ext::Yes => return (Some(true), DecidedBy::Extension, None),
        Ext::No => {
            return (
                Some(false),
                DecidedBy::Extension,
                Some((fx.cwd.clone(), false)),
            );
        }
        Ext::Nothing | Ext::Crashes | Ext::Hangs => {}
    }
    match fx.saved {
        Saved::None => {}
        Saved::AtDir(v) | Saved::AtAncestor(v) | Saved::Conflicting(v) => {
            return (Some(v), DecidedBy::Saved, None);
        }
    }
    match default {
        DefaultProjectTrust::Always => return (Some(true), DecidedBy::Default, None),
        DefaultProjectTrust::Never => return (Some(false), DecidedBy::Default, None),
        DefaultProjectTrust::Ask => {}
    }
    if mode != Mode::InteractiveScripted {
        return (Some(false), DecidedBy::NonInteractive, None);
    }
    let parent = fx.cwd.parent().unwrap().to_path_buf();
    let remember = match choice {
        PromptChoice::Trust => Some((fx.cwd.clone(), true)),
        PromptChoice::TrustParent => Some((parent, true)),
        PromptChoice::DoNotTrust => Some((fx.cwd.clone(), false)),
        PromptChoice::TrustSession | PromptChoice::DoNotTrustSession => None,
    };
    (Some(choice.trusts()), DecidedBy::Prompt, remember)
}

#[derive(Clone, Copy)]
struct Case {
    fixture: usize,
    default: DefaultProjectTrust,
    mode: Mode,
    flag: Option<bool>,
    ext: Ext,
    choice: PromptChoice,
}

fn run_case(fx: &Fixture, exts: &Extensions, case: Case) -> Result<(), String> {
    let resources = detect(&fx.cwd, &DetectOptions::default());
    if needs_trust(fx.resources) == resources.is_empty() {
        return Err(format!(
            "detection of {:?} found {resources:?}",
            fx.resources
        ));
    }
    let ext = match case.ext {
        Ext::Yes => &exts.yes,
        Ext::No => &exts.no,
        Ext::Nothing => &exts.nothing,
        Ext::Crashes => &exts.crashes,
        Ext::Hangs => &exts.hangs,
    };
    let extensions = std::slice::from_ref(ext);
    let request = TrustRequest {
        cwd: &fx.cwd,
        resources: &resources,
        flag: case.flag,
        extensions,
        store: &fx.store,
        default: case.default,
    };
    let mut prompt = ScriptedPrompt::new([case.choice]);
    let (mode, tty) = match case.mode {
        Mode::InteractiveScripted => (UiMode::Interactive, true),
        Mode::InteractiveNoTty => (UiMode::Interactive, false),
        Mode::Print => (UiMode::Print, true),
        Mode::Json => (UiMode::Json, true),
        Mode::Rpc => (UiMode::Rpc, true),
    };
    let resolution = resolve(&request, Ui::for_mode(mode, tty, &mut prompt));
    let (trusted, by, remember) = expected(
        fx,
        case.default,
        case.mode,
        case.flag,
        case.ext,
        case.choice,
    );
    let got_remember = resolution
        .remember
        .as_ref()
        .map(|m| (m.dir.clone(), m.trusted));
    if resolution.trusted != trusted || resolution.decided_by != by || got_remember != remember {
        return Err(format!(
            "got trusted={:?} by={:?} remember={got_remember:?}, expected trusted={trusted:?} \
             by={by:?} remember={remember:?}; reason: {}; extensions: {:?}",
            resolution.trusted, resolution.decided_by, resolution.reason, resolution.extensions
        ));
    }
    // A question is asked exactly when the prompt rule decides, never without a UI.
    let asked = prompt.asked();
    if asked != usize::from(by == DecidedBy::Prompt) {
        return Err(format!("prompt asked {asked} times with decided_by {by:?}"));
    }
    // The extension is consulted only after the flag and detection rules.
    let consulted = case.flag.is_none() && needs_trust(fx.resources);
    if resolution.extensions.len() != usize::from(consulted) {
        return Err(format!("extensions consulted: {:?}", resolution.extensions));
    }
    if let Some(outcome) = resolution.extensions.first() {
        let ok = matches!(
            (case.ext, &outcome.answer),
            (Ext::Yes, ExtensionAnswer::Yes { remember: false })
                | (Ext::No, ExtensionAnswer::No { remember: true })
                | (
                    Ext::Nothing | Ext::Crashes | Ext::Hangs,
                    ExtensionAnswer::NoAnswer { .. }
                )
        );
        if !ok {
            return Err(format!(
                "extension {:?} answered {:?}",
                case.ext, outcome.answer
            ));
        }
    }
    if trusted.is_some() && resolution.reason.is_empty() {
        return Err("a decision without a reason".to_owned());
    }
    Ok(())
}

// proves: TRUST-2, TRUST-3, TRUST-4, TRUST-6, TRUST-7
#[test]
fn resolution_matrix() {
    let mut fixtures = Vec::new();
    for resources in resource_variants() {
        for saved in saved_variants() {
            fixtures.push(build_fixture(resources, saved));
        }
    }
    let exts = extensions();
    let mut cases = Vec::new();
    let mut n = 0usize;
    for fixture in 0..fixtures.len() {
        for default in [
            DefaultProjectTrust::Ask,
            DefaultProjectTrust::Always,
            DefaultProjectTrust::Never,
        ] {
            for mode in [
                Mode::InteractiveScripted,
                Mode::InteractiveNoTty,
                Mode::Print,
                Mode::Json,
                Mode::Rpc,
            ] {
                for flag in [None, Some(true), Some(false)] {
                    for ext in [Ext::Yes, Ext::No, Ext::Nothing, Ext::Crashes, Ext::Hangs] {
                        // Every answer of the question appears across the matrix.
                        let choice = PromptChoice::ALL[n % PromptChoice::ALL.len()];
                        n += 1;
                        cases.push(Case {
                            fixture,
                            default,
                            mode,
                            flag,
                            ext,
                            choice,
                        });
                    }
                }
            }
        }
    }
    assert_eq!(cases.len(), 11 * 7 * 3 * 5 * 3 * 5);

    // Most cases wait on a process (and the hang cases on the timeout), not on
    // the CPU: run them on a few threads.
    let next = AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..24 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let fx = &fixtures[case.fixture];
                    if let Err(why) = run_case(fx, &exts, *case) {
                        failures.lock().unwrap().push(format!(
                            "resources={:?} saved={:?} default={:?} mode={:?} flag={:?} ext={:?} \
                             choice={:?}: {why}",
                            fx.resources,
                            fx.saved,
                            case.default,
                            case.mode,
                            case.flag,
                            case.ext,
                            case.choice
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed; first ones:\n{}",
        failures.len(),
        cases.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

// proves: TRUST-6
#[test]
fn first_yes_or_no_wins_and_later_extensions_are_not_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let cwd = root.join("p");
    fs::create_dir_all(cwd.join(".ploy")).unwrap();
    fs::write(cwd.join(".ploy/settings.json"), "{}").unwrap();
    let marker = root.join("late-was-asked");
    let exts = extensions();
    let late = ExtensionSpec {
        command: write_script(
            &root,
            "late.sh",
            &format!(
                "touch {}\necho '{{\"result\":{{\"decision\":\"yes\"}}}}'",
                marker.display()
            ),
        ),
        args: Vec::new(),
        timeout: Duration::from_secs(30),
        origin: ExtensionOrigin::CommandLine,
    };
    let chain = [
        exts.nothing.clone(),
        exts.crashes.clone(),
        exts.hangs.clone(),
        exts.no.clone(),
        late,
    ];
    let resources = detect(&cwd, &DetectOptions::default());
    let store = TrustStore::empty(&root.join("trust.json"));
    let request = TrustRequest {
        cwd: &cwd,
        resources: &resources,
        flag: None,
        extensions: &chain,
        store: &store,
        default: DefaultProjectTrust::Always,
    };
    let mut prompt = ScriptedPrompt::new([PromptChoice::Trust]);
    let resolution = resolve(
        &request,
        Ui::for_mode(UiMode::Interactive, true, &mut prompt),
    );
    assert_eq!(resolution.trusted, Some(false));
    assert_eq!(resolution.decided_by, DecidedBy::Extension);
    assert_eq!(resolution.extensions.len(), 4);
    assert!(
        !marker.exists(),
        "an extension after the deciding one was run"
    );
    assert_eq!(prompt.asked(), 0);
}

// proves: TRUST-4
#[test]
fn an_unanswered_question_is_not_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().canonicalize().unwrap();
    fs::create_dir_all(cwd.join(".ploy")).unwrap();
    fs::write(cwd.join(".ploy/SYSTEM.md"), "obey the repo").unwrap();
    let resources = detect(&cwd, &DetectOptions::default());
    let store = TrustStore::empty(&cwd.join("trust.json"));
    let request = TrustRequest {
        cwd: &cwd,
        resources: &resources,
        flag: None,
        extensions: &[],
        store: &store,
        default: DefaultProjectTrust::Ask,
    };
    let mut prompt = ScriptedPrompt::failing("terminal closed");
    let resolution = resolve(
        &request,
        Ui::for_mode(UiMode::Interactive, true, &mut prompt),
    );
    assert_eq!(resolution.trusted, Some(false));
    assert_eq!(resolution.decided_by, DecidedBy::Prompt);
    assert!(resolution.remember.is_none());
    assert!(resolution.reason.contains("terminal closed"));
}
