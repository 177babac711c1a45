//! ploy-testkit is dev-only: no crate may list it (or the test seams it
//! carries) among the dependencies it ships with.

#![allow(clippy::expect_used)]

use std::path::Path;

/// Whether a manifest section lists dependencies a crate ships with.
fn ships(section: &str) -> bool {
    section.ends_with("dependencies")
        && !section.ends_with("dev-dependencies")
        && !section.ends_with("dev_dependencies")
}

/// `manifest:line: text` for each non-dev dependency on ploy-testkit.
fn offenders(manifests: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (name, text) in manifests {
        let mut section = String::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            let offends = if line.starts_with('[') {
                section = line.trim_matches(['[', ']']).trim().to_owned();
                // `[dependencies.ploy-testkit]`
                section.strip_suffix(".ploy-testkit").is_some_and(ships)
            } else {
                ships(&section) && line.starts_with("ploy-testkit")
            };
            if offends {
                found.push(format!("{name}:{}: {line}", n + 1));
            }
        }
    }
    found
}

#[test]
fn no_shipped_crate_depends_on_the_test_kit() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/");
    let mut manifests = Vec::new();
    for entry in std::fs::read_dir(crates)
        .expect("crates/ is readable")
        .flatten()
    {
        let manifest = entry.path().join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&manifest) {
            manifests.push((manifest.display().to_string(), text));
        }
    }
    assert!(manifests.len() >= 10, "saw {} manifests", manifests.len());
    let found = offenders(&manifests);
    assert!(
        found.is_empty(),
        "ploy-testkit outside [dev-dependencies]:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_manifest_scan_finds_a_planted_dependency() {
    let planted = [
        (
            "a".to_owned(),
            "[dependencies]\nploy-testkit.workspace = true\n".to_owned(),
        ),
        (
            "b".to_owned(),
            "[dev-dependencies]\nploy-testkit.workspace = true\n".to_owned(),
        ),
        (
            "c".to_owned(),
            "[target.'cfg(unix)'.dependencies]\nploy-testkit = { path = \"x\" }\n".to_owned(),
        ),
        (
            "d".to_owned(),
            "[dependencies.ploy-testkit]\npath = \"x\"\n".to_owned(),
        ),
        (
            "e".to_owned(),
            "[build-dependencies]\nploy-testkit.workspace = true\n".to_owned(),
        ),
    ];
    let found = offenders(&planted);
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(
        found.iter().all(|line| !line.starts_with("b:")),
        "{found:?}"
    );
}
