//! Trust resolution for a working directory 20 levels deep with a
//! 1,000-entry trust file (issue 5: median under 1 ms).
//!
//! * `resolve_only`: [`ploy_trust::resolve`] with the trust file already read
//!   (the walk up 20+ ancestors and the lookups).
//! * `decide_end_to_end`: [`ploy_trust::decide`] as a run does it: canonical
//!   path, detection on disk, user settings, reading and checking the
//!   1,000-entry trust file, resolution.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::{fs, hint::black_box, path::PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use ploy_trust::{
    DecidedBy, DefaultProjectTrust, DetectOptions, LoadOptions, PloyDirs, ScriptedPrompt,
    TrustRequest, TrustStore, Ui, UiMode, decide, detect, resolve,
};

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let mut cwd = root.join("work");
    for level in 0..20 {
        cwd.push(format!("level{level}"));
    }
    fs::create_dir_all(cwd.join(".ploy")).unwrap();
    fs::write(cwd.join(".ploy/settings.json"), "{}").unwrap();

    let dirs = PloyDirs::new(root.join("config"), root.join("state"));
    let trust_file = dirs.trust_file();
    // 999 unrelated decisions plus one at the top of the tree, so the lookup
    // walks every level before it finds the applying one.
    let mut text = String::from("{\n  \"version\": 1,\n  \"projects\": {\n");
    for i in 0..999 {
        text.push_str(&format!(
            "    \"/home/someone/src/project-{i}/sub\": {{ \"trusted\": {} }},\n",
            i % 2 == 0
        ));
    }
    text.push_str(&format!(
        "    {}: {{ \"trusted\": true }}\n  }}\n}}\n",
        serde_json::to_string(root.join("work").to_str().unwrap()).unwrap()
    ));
    fs::create_dir_all(&dirs.config).unwrap();
    fs::write(&trust_file, text).unwrap();
    fs::set_permissions(
        &trust_file,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();

    let store = TrustStore::load(&trust_file).unwrap();
    assert_eq!(store.len(), 1000);
    let resources = detect(&cwd, &DetectOptions::default());
    c.bench_function("resolve_only_20_deep_1000_entries", |b| {
        b.iter(|| {
            let request = TrustRequest {
                cwd: black_box(&cwd),
                resources: &resources,
                flag: None,
                extensions: &[],
                store: &store,
                default: DefaultProjectTrust::Ask,
            };
            let mut prompt = ScriptedPrompt::default();
            let resolution = resolve(&request, Ui::for_mode(UiMode::Print, false, &mut prompt));
            assert_eq!(resolution.decided_by, DecidedBy::Saved);
            resolution
        })
    });

    let mut options = LoadOptions::new(&cwd);
    options.detect = DetectOptions::default();
    options.mode = UiMode::Print;
    c.bench_function("decide_end_to_end_20_deep_1000_entries", |b| {
        b.iter(|| {
            let mut prompt = ScriptedPrompt::default();
            let decided = decide(&dirs, black_box(&options), &mut prompt).unwrap();
            assert_eq!(decided.resolution.decided_by, DecidedBy::Saved);
            decided
        })
    });
    let _: PathBuf = cwd;
}

criterion_group!(benches, bench);
criterion_main!(benches);
