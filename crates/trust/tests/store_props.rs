//! Property tests of the trust file: the nearest saved decision equals a
//! brute-force oracle (longest saved ancestor by path components, never by
//! string prefix), saves round-trip through the file, and real symlinked or
//! `..`-laden spellings of one directory always reach the same key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    collections::BTreeMap,
    fs,
    path::{Path, PathBuf},
};

use ploy_trust::{TrustStore, canonical_dir};
use proptest::prelude::*;

/// Short names so that ancestors, siblings and string prefixes collide often.
fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "ab", "b", "a b", "é", "x.y"]).prop_map(str::to_owned)
}

fn abs_path() -> impl Strategy<Value = PathBuf> {
    prop::collection::vec(name(), 0..5).prop_map(|parts| {
        let mut p = PathBuf::from("/");
        for part in parts {
            p.push(part);
        }
        p
    })
}

fn oracle(saved: &BTreeMap<PathBuf, bool>, cwd: &Path) -> Option<(PathBuf, bool)> {
    saved
        .iter()
        .filter(|(dir, _)| cwd.starts_with(dir))
        .max_by_key(|(dir, _)| dir.components().count())
        .map(|(dir, t)| (dir.clone(), *t))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    // proves: TRUST-3
    #[test]
    fn nearest_matches_the_oracle_after_a_round_trip(
        entries in prop::collection::vec((abs_path(), any::<bool>()), 0..12),
        cwd in abs_path(),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("trust.json");
        let mut saved = BTreeMap::new();
        for (dir, trusted) in &entries {
            TrustStore::save(&file, dir, *trusted).unwrap();
            saved.insert(dir.clone(), *trusted);
        }
        let store = if entries.is_empty() {
            TrustStore::empty(&file)
        } else {
            TrustStore::load(&file).unwrap()
        };
        prop_assert_eq!(store.len(), saved.len());
        let got = store.nearest(&cwd).map(|m| (m.dir, m.trusted));
        prop_assert_eq!(got, oracle(&saved, &cwd));
    }

    // proves: TRUST-3
    #[test]
    fn every_spelling_of_a_directory_has_one_key(
        depth in 1usize..5,
        detours in prop::collection::vec(0usize..3, 1..4),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let mut real = root.clone();
        for i in 0..depth {
            real.push(format!("d{i}"));
        }
        fs::create_dir_all(&real).unwrap();
        fs::create_dir_all(root.join("side")).unwrap();
        std::os::unix::fs::symlink(&real, root.join("side/link")).unwrap();
        // Build a spelling: wander into `side`, back out with `..`, through `.`,
        // and finally through the symlink or the real path.
        let mut spelled = root.clone();
        for detour in &detours {
            match detour {
                0 => { spelled.push("side"); spelled.push(".."); }
                1 => spelled.push("."),
                _ => { spelled.push("side"); spelled.push("."); spelled.push(".."); }
            }
        }
        let via_link = spelled.join("side/link");
        let mut via_real = spelled.clone();
        for i in 0..depth {
            via_real.push(format!("d{i}"));
        }
        let key_link = canonical_dir(&via_link).unwrap();
        let key_real = canonical_dir(&via_real).unwrap();
        prop_assert_eq!(&key_link, &real);
        prop_assert_eq!(&key_real, &real);
    }
}
