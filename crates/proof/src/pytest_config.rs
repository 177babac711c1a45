//! pytest's configuration files on the disk (round8 #7, PROOF-5).
//!
//! pytest adds the `addopts` of its configuration file to a proof's
//! command line (`addopts = --co` collects the tests and runs none, and
//! passes). The validator judges the text ([`ploy_validate::
//! pytest_config_refusals`]); this finds the files pytest could read. It
//! runs twice: before the run, on the project ([`crate::proof_run`]: a
//! refusal names PROOF-5), and inside the sandbox right before each pytest
//! command starts (the sandbox's init), because a command earlier on the
//! line that runs the project's code (`./gen.sh && pytest`) can write a
//! configuration into the sandbox's copy after the first look.

use std::{
    io::Read,
    path::{Path, PathBuf},
};

use ploy_validate::{PYTEST_CONFIG_FILES, pytest_config_refusals};

/// Larger configuration files are not read (and refused).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Why the pytest configuration files pytest could read when it starts its
/// search from `start` (a path relative to `project`; see
/// [`ploy_validate::Needed::PytestConfig`]) would make the proof's run
/// decide nothing, if they would. Every candidate file in `start` and in
/// each folder above it up to `project` is judged, not only the first
/// pytest would take: a superset, so the answer can only be "refused" too
/// often. Folders above the project are not read (the model writes none).
pub fn pytest_config_problem(project: &Path, start: &str) -> Option<String> {
    let parts: Vec<&str> = start
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    for depth in (0..=parts.len()).rev() {
        let relative: PathBuf = parts[..depth].iter().collect();
        for name in PYTEST_CONFIG_FILES {
            let shown = relative.join(name);
            let path = project.join(&shown);
            // pytest takes a file (a link to one too) and skips anything else.
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let shown = shown.display().to_string();
            let mut text = Vec::new();
            let read = std::fs::File::open(&path)
                .and_then(|file| file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut text));
            if read.is_err() || text.len() as u64 > MAX_CONFIG_BYTES {
                return Some(format!(
                    "the project's pytest configuration `{shown}` cannot be read (or is over 1 MiB), so what its `addopts` add to the proof's pytest run is unknown"
                ));
            }
            let Ok(text) = String::from_utf8(text) else {
                return Some(format!(
                    "the project's pytest configuration `{shown}` is not UTF-8 text, so what its `addopts` add to the proof's pytest run is unknown"
                ));
            };
            if let Some(refusal) = pytest_config_refusals(&shown, &text).into_iter().next() {
                return Some(refusal.detail);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    // proves: PROOF-5 (round8 #7: every candidate on the way up is read)
    #[test]
    fn round8_7_candidates_from_the_start_up_to_the_project() {
        let root = std::env::temp_dir().join(format!("ploy-pytest-config-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("tests/unit")).unwrap();
        assert_eq!(pytest_config_problem(&root, "tests/unit"), None);
        std::fs::write(root.join("tests/tox.ini"), "[pytest]\naddopts = -q --co\n").unwrap();
        let problem = pytest_config_problem(&root, "tests/unit/test_x.py::test_y").unwrap();
        assert!(problem.contains("tests/tox.ini"), "{problem}");
        // A start that does not pass through `tests` does not read it.
        assert_eq!(pytest_config_problem(&root, "."), None);
        std::fs::write(
            root.join("setup.cfg"),
            "[tool:pytest]\naddopts = -k smoke\n",
        )
        .unwrap();
        assert!(pytest_config_problem(&root, ".").is_some());
        std::fs::write(
            root.join("setup.cfg"),
            "[tool:pytest]\naddopts = -ra -q --strict-markers\n",
        )
        .unwrap();
        assert_eq!(pytest_config_problem(&root, "."), None);
        std::fs::write(root.join("pyproject.toml"), [0xff, 0xfe]).unwrap();
        assert!(pytest_config_problem(&root, ".").is_some());
        let _ = std::fs::remove_dir_all(&root);
    }
}
