//! The key store (STATE-1): search API keys held only in the service's
//! memory. Loaded at start from `PLOY_TAVILY_KEYS`, changed through the
//! panel, read by the service's research at each run. Nothing here writes a
//! file; keys leave this module only through [`KeyStore::values`] (for the
//! backend's own requests) and are named everywhere else by mask (ADMIN-11).

use std::fmt;
use std::sync::RwLock;

use serde::{Deserialize, Serialize};

/// Shortest key the panel keeps: shorter keys would be masked as `…****`
/// (ploy-secrets shows no tail under 16 characters), so two of them could
/// not be told apart, and short values are weak secrets anyway.
pub const MIN_KEY_CHARS: usize = 16;
/// Longest key the panel keeps.
pub const MAX_KEY_CHARS: usize = 256;
/// Most keys held at once.
pub const MAX_KEYS: usize = 32;

/// A search backend whose key the panel manages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Tavily's search API.
    Tavily,
}

impl Provider {
    /// The provider's name as written in the API (`tavily`).
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Tavily => "tavily",
        }
    }
}

/// What the panel shows of a key: never the key (ADMIN-11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyView {
    /// The provider.
    pub provider: Provider,
    /// `…` and the key's last 4 characters.
    pub mask: String,
    /// When it was added, Unix seconds.
    pub added_at: u64,
}

/// Why a key change is refused. Messages carry masks only.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The key's shape is not acceptable.
    #[error(
        "ADMIN-11: a key must be {MIN_KEY_CHARS}-{MAX_KEY_CHARS} printable ASCII characters without spaces ({0})"
    )]
    Malformed(&'static str),
    /// The same key is already held.
    #[error("this key is already held (as {0})")]
    Duplicate(String),
    /// Another key has the same mask, so the two could not be told apart.
    #[error(
        "another key already shows as {0}; remove or replace it first (keys are named by their last 4 characters)"
    )]
    MaskTaken(String),
    /// No key has this mask.
    #[error("no key shows as {0}")]
    NotFound(String),
    /// The store is full.
    #[error("the panel holds at most {MAX_KEYS} keys; remove one first")]
    Full,
    /// The log redactor refused the key, so it could leak into logs.
    #[error("REDACT-1: the log redactor refused this key, so it is not kept")]
    NotRedactable,
}

/// A key in memory. `Debug` shows the mask only.
#[derive(Clone)]
struct Entry {
    provider: Provider,
    key: String,
    mask: String,
    added_at: u64,
}

impl Entry {
    fn view(&self) -> KeyView {
        KeyView {
            provider: self.provider,
            mask: self.mask.clone(),
            added_at: self.added_at,
        }
    }
}

/// Checks a key's shape: printable ASCII, no white space, 16-256 characters.
pub fn validate_key(key: &str) -> Result<(), KeyError> {
    if key.len() < MIN_KEY_CHARS {
        return Err(KeyError::Malformed("too short"));
    }
    if key.len() > MAX_KEY_CHARS {
        return Err(KeyError::Malformed("too long"));
    }
    if !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(KeyError::Malformed(
            "only printable ASCII, no spaces or control characters",
        ));
    }
    Ok(())
}

/// Whether `text` has a mask's shape: `…` and 4 printable ASCII characters
/// (what [`ploy_secrets::mask`] makes of a key the panel accepts). Anything
/// else given as a mask is refused unread, so a key pasted into the wrong
/// field is never echoed or written to the audit log (ADMIN-11).
pub fn is_mask(text: &str) -> bool {
    text.strip_prefix('…')
        .is_some_and(|tail| tail.len() == 4 && tail.bytes().all(|b| b.is_ascii_graphic()))
}

/// The keys, in memory only. Cheap reads; writes take a short lock.
#[derive(Default)]
pub struct KeyStore {
    entries: RwLock<Vec<Entry>>,
}

impl fmt::Debug for KeyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.list()).finish()
    }
}

/// A change prepared under the store's lock: the caller writes the audit
/// line, then commits; dropping it without committing changes nothing.
pub struct PendingChange<'a> {
    guard: std::sync::RwLockWriteGuard<'a, Vec<Entry>>,
    next: Vec<Entry>,
    /// What the change did, as the panel answers it.
    pub view: KeyView,
}

impl PendingChange<'_> {
    /// Applies the change.
    pub fn commit(mut self) {
        *self.guard = std::mem::take(&mut self.next);
    }
}

impl KeyStore {
    /// An empty store.
    pub fn new() -> KeyStore {
        KeyStore::default()
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Entry>> {
        // A panic while holding the lock cannot leave a half-made Vec: every
        // change swaps in a complete one. Keep serving.
        self.entries
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Entry>> {
        self.entries
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The keys, by mask, oldest first.
    pub fn list(&self) -> Vec<KeyView> {
        self.read().iter().map(Entry::view).collect()
    }

    /// The key values of one provider, oldest first: for that provider's
    /// own requests only (BEYOND-6's declared path).
    pub fn values(&self, provider: Provider) -> Vec<String> {
        self.read()
            .iter()
            .filter(|e| e.provider == provider)
            .map(|e| e.key.clone())
            .collect()
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    fn check_new(
        entries: &[Entry],
        key: &str,
        replacing: Option<&str>,
    ) -> Result<String, KeyError> {
        validate_key(key)?;
        let mask = ploy_secrets::mask(key);
        for entry in entries {
            if Some(entry.mask.as_str()) == replacing {
                continue;
            }
            if entry.key == key {
                return Err(KeyError::Duplicate(entry.mask.clone()));
            }
            if entry.mask == mask {
                return Err(KeyError::MaskTaken(mask));
            }
        }
        Ok(mask)
    }

    /// Prepares adding `key`.
    pub fn prepare_add(
        &self,
        provider: Provider,
        key: &str,
        now: u64,
    ) -> Result<PendingChange<'_>, KeyError> {
        let guard = self.write();
        if guard.len() >= MAX_KEYS {
            return Err(KeyError::Full);
        }
        let mask = Self::check_new(&guard, key, None)?;
        let entry = Entry {
            provider,
            key: key.to_owned(),
            mask,
            added_at: now,
        };
        let view = entry.view();
        let mut next = guard.clone();
        next.push(entry);
        Ok(PendingChange { guard, next, view })
    }

    /// Prepares removing the key shown as `mask`.
    pub fn prepare_remove(&self, mask: &str) -> Result<PendingChange<'_>, KeyError> {
        let guard = self.write();
        let Some(index) = guard.iter().position(|e| e.mask == mask) else {
            return Err(KeyError::NotFound(mask.to_owned()));
        };
        let mut next = guard.clone();
        let view = next.remove(index).view();
        Ok(PendingChange { guard, next, view })
    }

    /// Prepares replacing the key shown as `mask` by `key` (same provider,
    /// same place in the order, a new `added_at`).
    pub fn prepare_replace(
        &self,
        mask: &str,
        key: &str,
        now: u64,
    ) -> Result<PendingChange<'_>, KeyError> {
        let guard = self.write();
        let Some(index) = guard.iter().position(|e| e.mask == mask) else {
            return Err(KeyError::NotFound(mask.to_owned()));
        };
        let new_mask = Self::check_new(&guard, key, Some(mask))?;
        let mut next = guard.clone();
        let entry = Entry {
            provider: next[index].provider,
            key: key.to_owned(),
            mask: new_mask,
            added_at: now,
        };
        let view = entry.view();
        next[index] = entry;
        Ok(PendingChange { guard, next, view })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "tvly-AAAAAAAAAAAAAAAAAAAA1111";
    const B: &str = "tvly-BBBBBBBBBBBBBBBBBBBB2222";

    // proves: STATE-1, ADMIN-11
    #[test]
    fn add_remove_replace_by_mask_and_debug_shows_masks_only() {
        let store = KeyStore::new();
        let change = store.prepare_add(Provider::Tavily, A, 10).unwrap();
        assert_eq!(change.view.mask, "…1111");
        change.commit();
        // Dropping a prepared change leaves the store as it was.
        drop(store.prepare_add(Provider::Tavily, B, 11).unwrap());
        assert_eq!(store.list().len(), 1);
        store.prepare_add(Provider::Tavily, B, 11).unwrap().commit();
        assert_eq!(store.values(Provider::Tavily), vec![A, B]);
        let debug = format!("{store:?}");
        assert!(debug.contains("…2222") && !debug.contains(B), "{debug}");

        let c = "tvly-CCCCCCCCCCCCCCCCCCCC3333";
        store.prepare_replace("…1111", c, 12).unwrap().commit();
        assert_eq!(store.values(Provider::Tavily), vec![c, B]);
        store.prepare_remove("…2222").unwrap().commit();
        assert_eq!(store.values(Provider::Tavily), vec![c]);
        assert!(matches!(
            store.prepare_remove("…2222"),
            Err(KeyError::NotFound(_))
        ));
    }

    // proves: ADMIN-11
    #[test]
    fn only_mask_shapes_are_masks() {
        assert!(is_mask("…1aaa") && is_mask("…****"));
        for bad in ["1aaa", "…1aa", "…1aaaa", "...1aaa", "…1 aa", A, "…\n{}\""] {
            assert!(!is_mask(bad), "{bad}");
        }
        assert!(is_mask(&ploy_secrets::mask(A)));
    }

    // proves: ADMIN-11
    #[test]
    fn duplicates_mask_collisions_and_bad_shapes_are_refused() {
        let store = KeyStore::new();
        store.prepare_add(Provider::Tavily, A, 1).unwrap().commit();
        assert!(matches!(
            store.prepare_add(Provider::Tavily, A, 1),
            Err(KeyError::Duplicate(_))
        ));
        assert!(matches!(
            store.prepare_add(Provider::Tavily, "tvly-other-key-ending-1111", 1),
            Err(KeyError::MaskTaken(_))
        ));
        for bad in [
            "tiny-key",
            "has a space in it........",
            "tab\tinside-the-key-value",
            "line\nbreak-in-the-key-value",
            "non-ascii-é-key-value-xxxx",
            &"x".repeat(MAX_KEY_CHARS + 1),
        ] {
            let err = store.prepare_add(Provider::Tavily, bad, 1).err().unwrap();
            assert!(matches!(err, KeyError::Malformed(_)), "{bad:?}: {err}");
            assert!(!err.to_string().contains(bad), "{err}");
        }
        // Replacing a key by itself under its own mask is allowed.
        store
            .prepare_replace("…1111", "tvly-other-key-ending-1111", 2)
            .unwrap()
            .commit();
        for n in 1..MAX_KEYS {
            store
                .prepare_add(Provider::Tavily, &format!("tvly-{n:030}"), 1)
                .unwrap()
                .commit();
        }
        assert!(matches!(
            store.prepare_add(Provider::Tavily, "tvly-one-too-many-keys-xyz9", 1),
            Err(KeyError::Full)
        ));
    }
}
