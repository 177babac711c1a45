//! The trust file (TRUST-3): saved decisions keyed by canonical directory.
//!
//! Format (pretty JSON, so errors can name a line):
//!
//! ```json
//! {
//!   "version": 1,
//!   "projects": {
//!     "/home/me/src/app": { "trusted": true },
//!     "/home/me/downloads": { "trusted": false }
//!   }
//! }
//! ```
//!
//! * Keys are canonical absolute paths (symlinks and `..` resolved by
//!   [`crate::canonical_dir`] before saving and before looking up).
//! * Reading checks the open descriptor: owned by someone else, or writable by
//!   group/others → error (anyone who can write it can trust any project);
//!   readable by group/others (e.g. `0644`) → a warning, and the next save
//!   rewrites it `0600`.
//! * A malformed file is an error naming the file and the line, never "no
//!   decisions" and never "trusted".
//! * Every change takes an exclusive lock (a `trust.json.lock` file beside it,
//!   std's `File::lock`), re-reads the file, and replaces it atomically (a
//!   `0600` temp file in the same folder, fsync, rename, fsync of the folder),
//!   so concurrent ploy processes never lose each other's decisions.

use std::{
    collections::{BTreeMap, HashMap},
    fs::{self, File, OpenOptions},
    io::{Read, Write},
    os::unix::fs::{MetadataExt, OpenOptionsExt},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use serde::{Deserialize, Serialize};

use crate::TrustError;

const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFileV1 {
    version: u32,
    #[serde(default, deserialize_with = "unique_keys")]
    projects: HashMap<String, SavedEntry>,
}

/// The file as written: sorted keys, so diffs and line numbers are stable.
#[derive(Serialize)]
struct TrustFileOut<'a> {
    version: u32,
    projects: BTreeMap<&'a str, &'a SavedEntry>,
}

const DUPLICATE: &str = "is saved twice";

/// A key saved twice is ambiguous (which decision did the user mean?), so it
/// is malformed rather than "the last one wins".
fn unique_keys<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<HashMap<String, SavedEntry>, D::Error> {
    struct Unique;
    impl<'de> serde::de::Visitor<'de> for Unique {
        type Value = HashMap<String, SavedEntry>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of directory → {\"trusted\": bool}")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = HashMap::with_capacity(map.size_hint().unwrap_or(0));
            while let Some((key, entry)) = map.next_entry::<String, SavedEntry>()? {
                match out.entry(key) {
                    std::collections::hash_map::Entry::Occupied(seen) => {
                        return Err(serde::de::Error::custom(format!(
                            "directory {} {DUPLICATE}",
                            serde_json::to_string(seen.key()).unwrap_or_default()
                        )));
                    }
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert(entry);
                    }
                }
            }
            Ok(out)
        }
    }
    deserializer.deserialize_map(Unique)
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedEntry {
    trusted: bool,
}

/// The saved decision that applied to a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SavedMatch {
    /// The directory the decision was saved for (the working directory or an
    /// ancestor).
    pub dir: PathBuf,
    /// The saved decision.
    pub trusted: bool,
}

/// The trust file, read.
#[derive(Debug, Clone, Default)]
pub struct TrustStore {
    path: PathBuf,
    // Keyed by the path text: hashing a string is much cheaper than hashing a
    // `Path` component by component, and keys are canonical UTF-8 paths.
    entries: HashMap<String, SavedEntry>,
    warnings: Vec<String>,
}

impl TrustStore {
    /// Reads the trust file at `path`. A missing file is an empty store.
    pub fn load(path: &Path) -> Result<Self, TrustError> {
        let (file, warnings) = match read_checked(path)? {
            Some((text, warnings)) => (parse(path, &text)?, warnings),
            None => (
                TrustFileV1 {
                    version: FORMAT_VERSION,
                    projects: HashMap::new(),
                },
                Vec::new(),
            ),
        };
        let entries = file.projects;
        Ok(Self {
            path: path.to_path_buf(),
            entries,
            warnings,
        })
    }

    /// An empty store that is never written (tests, `--approve` runs).
    pub fn empty(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            ..Self::default()
        }
    }

    /// The file this store was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Warnings found while reading (e.g. a `0644` mode).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Number of saved decisions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is saved.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All saved decisions, sorted by directory.
    pub fn entries(&self) -> Vec<SavedMatch> {
        let mut all: Vec<SavedMatch> = self
            .entries
            .iter()
            .map(|(dir, entry)| SavedMatch {
                dir: PathBuf::from(dir),
                trusted: entry.trusted,
            })
            .collect();
        all.sort_by(|a, b| a.dir.cmp(&b.dir));
        all
    }

    /// The nearest saved decision for `canonical_cwd` or an ancestor (TRUST-3).
    pub fn nearest(&self, canonical_cwd: &Path) -> Option<SavedMatch> {
        canonical_cwd.ancestors().find_map(|dir| {
            self.entries.get(dir.to_str()?).map(|entry| SavedMatch {
                dir: dir.to_path_buf(),
                trusted: entry.trusted,
            })
        })
    }

    /// Saves `trusted` for `canonical_dir` in the file at `path` (lock,
    /// re-read, atomic replace). Refuses a relative path.
    pub fn save(path: &Path, canonical_dir: &Path, trusted: bool) -> Result<(), TrustError> {
        let key = key_of(canonical_dir)?;
        modify(path, |projects| {
            projects.insert(key, SavedEntry { trusted });
        })
        .map(|_| ())
    }

    /// Removes the decision saved for exactly `canonical_dir`. Returns whether
    /// there was one.
    pub fn forget(path: &Path, canonical_dir: &Path) -> Result<bool, TrustError> {
        let key = key_of(canonical_dir)?;
        modify(path, |projects| projects.remove(&key).is_some())
    }
}

fn key_of(dir: &Path) -> Result<String, TrustError> {
    if !dir.is_absolute() {
        return Err(TrustError::NotCanonical {
            path: dir.to_path_buf(),
        });
    }
    dir.to_str()
        .map(str::to_owned)
        .ok_or_else(|| TrustError::NotCanonical {
            path: dir.to_path_buf(),
        })
}

/// Opens, checks owner and mode on the open descriptor, and reads the file.
/// `None` when it does not exist.
fn read_checked(path: &Path) -> Result<Option<(String, Vec<String>)>, TrustError> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(TrustError::Io {
                path: path.to_path_buf(),
                action: "open the trust file",
                source,
            });
        }
    };
    let meta = file.metadata().map_err(|source| TrustError::Io {
        path: path.to_path_buf(),
        action: "inspect the trust file",
        source,
    })?;
    if !meta.is_file() {
        return Err(TrustError::TrustFileNotAFile {
            path: path.to_path_buf(),
        });
    }
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(TrustError::TrustFileOwner {
            path: path.to_path_buf(),
            owner: meta.uid(),
            me,
        });
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o022 != 0 {
        return Err(TrustError::TrustFileWritableByOthers {
            path: path.to_path_buf(),
            mode,
        });
    }
    let mut warnings = Vec::new();
    if mode & 0o044 != 0 {
        warnings.push(format!(
            "warning (TRUST-3): trust file {} has mode {mode:04o}; other users can read which \
             projects you trust. It should be 0600: run `chmod 600 {}` (ploy rewrites it 0600 \
             on the next change).",
            path.display(),
            path.display()
        ));
    }
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|source| TrustError::Io {
            path: path.to_path_buf(),
            action: "read the trust file",
            source,
        })?;
    Ok(Some((text, warnings)))
}

fn parse(path: &Path, text: &str) -> Result<TrustFileV1, TrustError> {
    let file: TrustFileV1 = serde_json::from_str(text).map_err(|err| {
        let reason = err.to_string();
        // serde_json reports a duplicate where the map ends; name the line of
        // the second spelling of the key instead.
        let line = reason
            .strip_prefix("directory ")
            .and_then(|rest| rest.split_once(&format!(" {DUPLICATE}")))
            .and_then(|(quoted, _)| {
                let first = text.find(quoted)?;
                let second = first + quoted.len() + text[first + quoted.len()..].find(quoted)?;
                Some(text[..second].matches('\n').count() + 1)
            })
            .unwrap_or(err.line());
        TrustError::TrustFileMalformed {
            path: path.to_path_buf(),
            line,
            reason,
        }
    })?;
    if file.version != FORMAT_VERSION {
        return Err(TrustError::TrustFileMalformed {
            path: path.to_path_buf(),
            line: line_of(text, "\"version\""),
            reason: format!(
                "unsupported version {} (this ploy reads version {FORMAT_VERSION})",
                file.version
            ),
        });
    }
    for key in file.projects.keys() {
        // Checked on the text: `Path::components` would hide `/./` and `//`.
        let clean = key == "/"
            || (key.starts_with('/')
                && key.as_bytes()[1..]
                    .split(|b| *b == b'/')
                    .all(|seg| !seg.is_empty() && seg != b"." && seg != b".."));
        if !clean {
            let quoted = serde_json::to_string(key).unwrap_or_else(|_| key.clone());
            return Err(TrustError::TrustFileMalformed {
                path: path.to_path_buf(),
                line: line_of(text, &quoted),
                reason: format!(
                    "key {quoted} is not a canonical absolute directory (no `.`, `..`, \
                     trailing `/` or relative paths)"
                ),
            });
        }
    }
    Ok(file)
}

/// 1-based line of the first occurrence of `needle`, or 0 when not found.
fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle)
        .map(|at| text[..at].matches('\n').count() + 1)
        .unwrap_or(0)
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn modify<T>(
    path: &Path,
    change: impl FnOnce(&mut HashMap<String, SavedEntry>) -> T,
) -> Result<T, TrustError> {
    let io = |action: &'static str, at: &Path| {
        let at = at.to_path_buf();
        move |source| TrustError::Io {
            path: at,
            action,
            source,
        }
    };
    let dir = path.parent().ok_or_else(|| TrustError::NotCanonical {
        path: path.to_path_buf(),
    })?;
    // The config folder holds the trust file and settings: created 0700, or
    // tightened when it grants group or other access (SVC-1).
    ploy_dirs::ensure_private_dir(dir)?;
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("trust.json");
    let lock_path = dir.join(format!("{file_name}.lock"));
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&lock_path)
        .map_err(io("open the trust lock file", &lock_path))?;
    lock.lock().map_err(io("lock the trust file", &lock_path))?;

    // Re-read under the lock: another process may have saved meanwhile.
    let mut current = match read_checked(path)? {
        Some((text, _)) => parse(path, &text)?,
        None => TrustFileV1 {
            version: FORMAT_VERSION,
            projects: HashMap::new(),
        },
    };
    let result = change(&mut current.projects);
    let out = TrustFileOut {
        version: FORMAT_VERSION,
        projects: current
            .projects
            .iter()
            .map(|(dir, entry)| (dir.as_str(), entry))
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&out).map_err(|err| TrustError::Io {
        path: path.to_path_buf(),
        action: "encode the trust file",
        source: std::io::Error::other(err),
    })?;
    text.push('\n');

    let temp_path = dir.join(format!(
        ".{file_name}.tmp-{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        // create_new never follows or reuses an existing path.
        let mut temp = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp_path)?;
        temp.write_all(text.as_bytes())?;
        temp.sync_all()?;
        fs::rename(&temp_path, path)?;
        File::open(dir)?.sync_all()
    })();
    if let Err(source) = written {
        let _ = fs::remove_file(&temp_path);
        return Err(TrustError::Io {
            path: path.to_path_buf(),
            action: "write the trust file",
            source,
        });
    }
    drop(lock);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    // proves: TRUST-3
    #[test]
    fn nearest_ancestor_wins() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("trust.json");
        TrustStore::save(&file, Path::new("/a"), true).unwrap();
        TrustStore::save(&file, Path::new("/a/b"), false).unwrap();
        let store = TrustStore::load(&file).unwrap();
        assert_eq!(
            store.nearest(Path::new("/a/b/c")).unwrap().dir,
            Path::new("/a/b")
        );
        assert!(!store.nearest(Path::new("/a/b/c")).unwrap().trusted);
        assert!(store.nearest(Path::new("/a/x")).unwrap().trusted);
        assert!(
            store.nearest(Path::new("/ab")).is_none(),
            "prefix of a name is not an ancestor"
        );
        assert!(store.nearest(Path::new("/z")).is_none());
    }

    // proves: TRUST-3
    #[test]
    fn written_file_is_0600_and_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cfg/trust.json");
        TrustStore::save(&file, Path::new("/p"), true).unwrap();
        let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(TrustStore::forget(&file, Path::new("/p")).unwrap());
        assert!(!TrustStore::forget(&file, Path::new("/p")).unwrap());
        assert!(TrustStore::load(&file).unwrap().is_empty());
    }

    // proves: TRUST-3
    #[test]
    fn malformed_file_names_file_and_line_and_refuses_to_save() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("trust.json");
        fs::write(
            &file,
            "{\n  \"version\": 1,\n  \"projects\": {\n    \"/a\": {\"trusted\": yes}\n  }\n}\n",
        )
        .unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        let err = TrustStore::load(&file).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(&file.display().to_string()), "{text}");
        assert!(text.contains("line 4"), "{text}");
        // Saving over a malformed file would erase the user's other decisions.
        assert!(TrustStore::save(&file, Path::new("/b"), true).is_err());
    }

    // proves: TRUST-3
    #[test]
    fn relative_or_dotted_keys_are_malformed_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("trust.json");
        for key in ["a/b", "/a/../b", "/a/./b", "/a/", "//a", "/a/.", ""] {
            let text = format!(
                "{{\n  \"version\": 1,\n  \"projects\": {{\n    \"/ok\": {{\"trusted\": false}},\n    \"{key}\": {{\"trusted\": true}}\n  }}\n}}\n"
            );
            fs::write(&file, text).unwrap();
            fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
            let err = TrustStore::load(&file).unwrap_err().to_string();
            assert!(err.contains("line 5"), "{key}: {err}");
        }
    }

    // proves: TRUST-3
    #[test]
    fn a_directory_saved_twice_is_malformed_not_last_wins() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("trust.json");
        fs::write(
            &file,
            "{\n  \"version\": 1,\n  \"projects\": {\n    \"/a\": {\"trusted\": false},\n    \"/a\": {\"trusted\": true}\n  }\n}\n",
        )
        .unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        let err = TrustStore::load(&file).unwrap_err().to_string();
        assert!(
            err.contains("saved twice") && err.contains("line 5"),
            "{err}"
        );
    }

    // proves: TRUST-3
    #[test]
    fn unknown_fields_and_versions_are_malformed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("trust.json");
        for text in [
            "{\"version\": 1, \"projects\": {\"/a\": {\"trusted\": true, \"always\": true}}}",
            "{\"version\": 2, \"projects\": {}}",
            "{\"projects\": {}}",
            "[]",
            "",
        ] {
            fs::write(&file, text).unwrap();
            fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
            assert!(
                matches!(
                    TrustStore::load(&file),
                    Err(TrustError::TrustFileMalformed { .. })
                ),
                "{text}"
            );
        }
    }

    // proves: TRUST-3
    #[test]
    fn mode_0644_warns_and_group_writable_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("trust.json");
        TrustStore::save(&file, Path::new("/p"), true).unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        let store = TrustStore::load(&file).unwrap();
        assert_eq!(store.warnings().len(), 1);
        assert!(store.warnings()[0].contains("0644"));
        TrustStore::save(&file, Path::new("/q"), true).unwrap();
        assert_eq!(
            fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        for mode in [0o664, 0o646, 0o666] {
            fs::set_permissions(&file, fs::Permissions::from_mode(mode)).unwrap();
            let err = TrustStore::load(&file).unwrap_err();
            assert!(
                matches!(err, TrustError::TrustFileWritableByOthers { .. }),
                "{err}"
            );
            assert!(TrustStore::save(&file, Path::new("/r"), true).is_err());
        }
    }

    // proves: TRUST-3
    #[test]
    fn concurrent_saves_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("trust.json");
        std::thread::scope(|scope| {
            for t in 0..4 {
                let file = &file;
                scope.spawn(move || {
                    for i in 0..25 {
                        TrustStore::save(file, Path::new(&format!("/p/{t}/{i}")), i % 2 == 0)
                            .unwrap();
                    }
                });
            }
        });
        let store = TrustStore::load(&file).unwrap();
        assert_eq!(store.len(), 100);
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(leftovers.is_empty());
    }
}
