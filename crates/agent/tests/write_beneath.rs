//! What runs is what was approved: an approved write does not follow a
//! folder swapped for a symbolic link after the ask (outside attack
//! tui-rpc #7), and the write tool never writes inside a `.git` folder on an
//! allow rule (tui-rpc #8 side note, PERM-7).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use ploy_agent::approve::{Answer, ApprovalRequest, Approver};
use ploy_agent::tool::BoxFuture;
use ploy_policy::{ActionKind, Effect, Rule};
use serde_json::json;
use support::*;

/// A person who answers `once`; before answering (after the ask was
/// shown), `swap` (if any) replaces a project folder with a link outside.
struct Person {
    swap: Option<(PathBuf, PathBuf)>,
    asked: AtomicUsize,
}

impl Approver for Person {
    fn can_answer(&self) -> bool {
        true
    }

    fn ask<'a>(&'a self, _request: &'a ApprovalRequest) -> BoxFuture<'a, Answer> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        if let Some((folder, outside)) = &self.swap {
            std::fs::rename(folder, folder.with_extension("moved")).unwrap();
            std::os::unix::fs::symlink(outside, folder).unwrap();
        }
        Box::pin(async { Answer::Once })
    }
}

fn person(swap: Option<(PathBuf, PathBuf)>) -> Person {
    Person {
        swap,
        asked: AtomicUsize::new(0),
    }
}

// proves: PERM-1 (the approved write lands where it was approved, or
// nowhere; tui-rpc #7)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_write_does_not_follow_a_folder_swapped_for_a_link() {
    for tool in ["write", "edit"] {
        let world = World::new();
        let outside = world.dir.path().canonicalize().unwrap().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        // The same text inside and outside, so that the check "the file is
        // what the diff was shown against" cannot tell the swap: only the
        // way the write opens its folders can.
        std::fs::write(outside.join("notes.txt"), "original text\n").unwrap();
        std::fs::create_dir_all(world.project.join("docs")).unwrap();
        std::fs::write(world.project.join("docs/notes.txt"), "original text\n").unwrap();
        let model = scripted(obedient()).await;
        let args = if tool == "write" {
            json!({"path": "docs/new.txt", "content": "approved text\n"})
        } else {
            json!({"path": "docs/notes.txt", "old_string": "original", "new_string": "approved"})
        };
        let prompt = orders(&[(tool, args)]);
        let swapper = person(Some((world.project.join("docs"), outside.clone())));
        let run = Run::new(rules(&[]));
        let (_, events, _) = run_prompt_asking(&world, &model, run, &prompt, &swapper).await;
        assert_eq!(
            swapper.asked.load(Ordering::SeqCst),
            1,
            "{tool}: asked once"
        );
        let results = tool_results(&events.events());
        assert!(!results[0].0, "{tool}: {results:?}");
        assert!(
            results[0].1.contains("symbolic link"),
            "{tool}: {results:?}"
        );
        // Nothing outside changed, nothing new appeared there.
        assert_eq!(
            std::fs::read_to_string(outside.join("notes.txt")).unwrap(),
            "original text\n",
            "{tool}"
        );
        let names: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
        assert_eq!(names.len(), 1, "{tool}: {names:?}");
    }
}

// The same approval without the swap writes: the refusal above is the
// swap's doing, not a write tool that cannot write.
// proves: PERM-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_write_without_a_swap_lands() {
    let world = World::new();
    std::fs::create_dir_all(world.project.join("docs")).unwrap();
    let model = scripted(obedient()).await;
    let prompt = orders(&[
        (
            "write",
            json!({"path": "docs/notes.txt", "content": "approved text\n"}),
        ),
        (
            "write",
            json!({"path": "docs/new/deeper/file.txt", "content": "made its folders\n"}),
        ),
    ]);
    let yes = person(None);
    let (_, events, _) =
        run_prompt_asking(&world, &model, Run::new(rules(&[])), &prompt, &yes).await;
    let results = tool_results(&events.events());
    assert!(results[0].0 && results[1].0, "{results:?}");
    assert_eq!(
        std::fs::read_to_string(world.project.join("docs/notes.txt")).unwrap(),
        "approved text\n"
    );
    assert!(exists(&world.project.join("docs/new/deeper/file.txt")));
}

// proves: PERM-7 (every path inside `.git`: with `edit` allowed on `**` the
// write tool is refused for HEAD, index, packed-refs, refs, alternates,
// info; tui-rpc #8 side note)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_write_tool_never_writes_inside_a_git_folder_on_an_allow_rule() {
    let world = World::new();
    let git = world.project.join(".git");
    for (path, text) in [
        ("HEAD", "ref: refs/heads/main\n"),
        ("index", "DIRC"),
        ("packed-refs", "# pack-refs\n"),
        (
            "refs/heads/main",
            "0000000000000000000000000000000000000000\n",
        ),
        ("objects/info/alternates", ""),
        ("info/exclude", "# exclude\n"),
    ] {
        std::fs::create_dir_all(git.join(path).parent().unwrap()).unwrap();
        std::fs::write(git.join(path), text).unwrap();
    }
    let targets = [
        ".git/HEAD",
        ".git/index",
        ".git/packed-refs",
        ".git/refs/heads/main",
        ".git/objects/info/alternates",
        ".git/info/exclude",
        ".git/info/attributes",
    ];
    let orders_list: Vec<(&str, serde_json::Value)> = targets
        .iter()
        .map(|t| ("write", json!({"path": t, "content": "PLANTED\n"})))
        .collect();
    let model = scripted(obedient()).await;
    let run = Run::new(rules(&[Rule::new(ActionKind::Edit, Effect::Allow, "**")]));
    let (_, events, _) = run_prompt(&world, &model, run, &orders(&orders_list)).await;
    let results = tool_results(&events.events());
    assert_eq!(results.len(), targets.len(), "{results:?}");
    for (target, (ok, text)) in targets.iter().zip(&results) {
        assert!(!ok && text.contains("PERM-7"), "{target}: {text}");
        let on_disk = std::fs::read_to_string(world.project.join(target)).unwrap_or_default();
        assert!(!on_disk.contains("PLANTED"), "{target} was written");
    }
}
