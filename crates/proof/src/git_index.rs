//! git's index flags that hide changes from read-only git proofs (round8
//! #11, PROOF-5).
//!
//! An index entry marked `assume-unchanged` (`git update-index
//! --assume-unchanged`, the "valid" bit) or `skip-worktree` (extended flag)
//! tells git that the file in the work tree matches the index without
//! looking at it: `git diff --quiet`, `git status --porcelain` and `git
//! ls-files -m` report no change however the file was edited, and `git
//! grep` reads a skip-worktree file's indexed copy. No configuration makes
//! git ignore the flags (`core.ignoreStat=false` only stops git setting
//! them), and a proof may not rewrite the index, so a proof that runs git
//! is refused while any entry carries either flag. The check reads
//! `.git/index` (and split-index `sharedindex.*` files) before the run; the
//! sandbox keeps `.git` read-only (SBX-6), so git inside reads the same
//! index.

use std::path::Path;

/// Larger index files are not read (and refused): 256 MiB is far beyond
/// any project a proof checks (git's own index is about 2 MiB).
const MAX_INDEX_BYTES: u64 = 256 << 20;

/// An entry flag that hides a file's changes from git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hidden {
    /// The entry's path, as the index holds it.
    pub path: String,
    /// `assume-unchanged` or `skip-worktree`.
    pub flag: &'static str,
}

/// The first entry of the index file `bytes` that carries a hiding flag;
/// `Err` when the file is not an index this reader knows (versions 2 to
/// 4; `hash_len` is 20 for SHA-1 repositories, 32 for SHA-256).
pub fn first_hidden(bytes: &[u8], hash_len: usize) -> Result<Option<Hidden>, String> {
    let u32_at = |at: usize| -> Result<u32, String> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| "the index ends early".to_string())
    };
    let u16_at = |at: usize| -> Result<u16, String> {
        bytes
            .get(at..at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| "the index ends early".to_string())
    };
    if bytes.get(..4) != Some(b"DIRC") {
        return Err("no index signature".into());
    }
    let version = u32_at(4)?;
    if !(2..=4).contains(&version) {
        return Err(format!("index version {version}"));
    }
    let count = u32_at(8)?;
    let mut at = 12usize;
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at;
        let flags_at = start + 40 + hash_len;
        let flags = u16_at(flags_at)?;
        let extended = flags & 0x4000 != 0;
        if extended && version < 3 {
            return Err("an extended entry in a version 2 index".into());
        }
        let extra = if extended { u16_at(flags_at + 2)? } else { 0 };
        let name_at = flags_at + 2 + if extended { 2 } else { 0 };
        let name: Vec<u8>;
        if version == 4 {
            // Prefix compression: drop N bytes of the previous name, then a
            // NUL-terminated suffix; no padding.
            let mut p = name_at;
            let mut byte = *bytes.get(p).ok_or("the index ends early")?;
            p += 1;
            let mut drop = u64::from(byte & 0x7f);
            while byte & 0x80 != 0 {
                byte = *bytes.get(p).ok_or("the index ends early")?;
                p += 1;
                drop = drop
                    .checked_add(1)
                    .and_then(|d| d.checked_mul(128))
                    .and_then(|d| d.checked_add(u64::from(byte & 0x7f)))
                    .ok_or("a bad path length")?;
            }
            let keep = usize::try_from(drop)
                .ok()
                .and_then(|d| previous.len().checked_sub(d))
                .ok_or("a bad path length")?;
            let end = bytes[p.min(bytes.len())..]
                .iter()
                .position(|b| *b == 0)
                .ok_or("the index ends early")?;
            let mut full = previous[..keep].to_vec();
            full.extend_from_slice(&bytes[p..p + end]);
            name = full;
            at = p + end + 1;
        } else {
            let end = bytes
                .get(name_at..)
                .and_then(|rest| rest.iter().position(|b| *b == 0))
                .ok_or("the index ends early")?;
            name = bytes[name_at..name_at + end].to_vec();
            // The entry is padded with 1 to 8 NULs to a multiple of 8.
            at = start + ((name_at - start + end + 8) & !7);
            if at > bytes.len() {
                return Err("the index ends early".into());
            }
        }
        let flag = if flags & 0x8000 != 0 {
            Some("assume-unchanged")
        } else if extra & 0x4000 != 0 {
            Some("skip-worktree")
        } else {
            None
        };
        if let Some(flag) = flag {
            return Ok(Some(Hidden {
                path: String::from_utf8_lossy(&name).into_owned(),
                flag,
            }));
        }
        previous = name;
    }
    // Extensions and the checksum follow.
    if at + hash_len > bytes.len() {
        return Err("the index ends early".into());
    }
    Ok(None)
}

/// Why the index of the repository at `dot_git` hides changes from git, if
/// it does or cannot be read (see the module documentation).
pub fn index_problem(dot_git: &Path) -> Option<String> {
    let config = std::fs::read_to_string(dot_git.join("config")).unwrap_or_default();
    let sha256 = config.lines().any(|line| {
        let line = line.to_ascii_lowercase();
        line.contains("objectformat") && line.contains("sha256")
    });
    let hash_len = if sha256 { 32 } else { 20 };
    let mut files = vec![dot_git.join("index")];
    if let Ok(entries) = std::fs::read_dir(dot_git) {
        files.extend(
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("sharedindex."))
                .map(|e| e.path()),
        );
    }
    for file in files {
        let Ok(meta) = std::fs::symlink_metadata(&file) else {
            // No index yet: nothing is flagged.
            continue;
        };
        let shown = file
            .file_name()
            .map(|n| format!(".git/{}", n.to_string_lossy()))
            .unwrap_or_default();
        if !meta.is_file() || meta.len() > MAX_INDEX_BYTES {
            return Some(format!(
                "git's index `{shown}` is not a plain file ploy can read, so it cannot tell whether entries hide changes (`assume-unchanged`, `skip-worktree`)"
            ));
        }
        let bytes = match std::fs::read(&file) {
            Ok(bytes) => bytes,
            Err(err) => return Some(format!("git's index `{shown}` cannot be read ({err})")),
        };
        match first_hidden(&bytes, hash_len) {
            Ok(None) => {}
            Ok(Some(hidden)) => {
                return Some(format!(
                    "git's index marks `{}` {}, so git takes the file as unchanged without looking at it: `git diff`, `git status` and `git grep` cannot see its changes; clear the flag (`git update-index --no-{} {}`) before a proof runs git",
                    hidden.path, hidden.flag, hidden.flag, hidden.path
                ));
            }
            Err(why) => {
                return Some(format!(
                    "git's index `{shown}` cannot be read ({why}), so ploy cannot tell whether entries hide changes (`assume-unchanged`, `skip-worktree`)"
                ));
            }
        }
    }
    None
}
