//! Confirmation nonces (ADMIN-6): a removal or a replacement needs a nonce
//! asked for just before, bound to the action, the target mask and the
//! Origin of the request that asked; single use, 120 s. A rotation of the
//! admin token forgets every outstanding nonce.
//!
//! Nonces are kept by their SHA-256 digest, so looking one up says nothing
//! through timing about the nonces held.

use std::collections::HashMap;
use std::time::Duration;

use sha2::{Digest, Sha256};

/// How long a nonce is good for.
pub const NONCE_TTL: Duration = Duration::from_secs(120);
/// Most nonces outstanding at once; the oldest is dropped past this.
pub const MAX_NONCES: usize = 64;

/// The actions that need a nonce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NonceAction {
    /// `POST /__keys/api/remove`.
    Remove,
    /// `POST /__keys/api/replace`.
    Replace,
}

/// Why a nonce was refused (after authentication, so it may say why).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NonceError {
    /// Not issued, already used, or forgotten at a rotation.
    #[error(
        "ADMIN-6: unknown nonce (never issued, already used, or from before a token rotation); ask for a new one"
    )]
    Unknown,
    /// Older than [`NONCE_TTL`].
    #[error("ADMIN-6: the nonce expired (120 s); ask for a new one")]
    Expired,
    /// Issued for the other action.
    #[error("ADMIN-6: the nonce was issued for another action")]
    OtherAction,
    /// Issued for another key.
    #[error("ADMIN-6: the nonce was issued for another key")]
    OtherTarget,
    /// Issued to another origin.
    #[error("ADMIN-6: the nonce was issued to another origin")]
    OtherOrigin,
}

struct Issued {
    action: NonceAction,
    mask: String,
    origin: String,
    at: Duration,
}

/// The outstanding nonces. Not thread-safe by itself: the panel holds it
/// behind a mutex.
#[derive(Default)]
pub struct NonceStore {
    issued: HashMap<[u8; 32], Issued>,
}

fn digest(nonce: &str) -> [u8; 32] {
    Sha256::digest(nonce.as_bytes()).into()
}

impl NonceStore {
    /// Records `nonce` (fresh from the CSPRNG) for `action` on `mask` by
    /// `origin` at monotonic time `now`.
    pub fn issue(
        &mut self,
        nonce: &str,
        action: NonceAction,
        mask: &str,
        origin: &str,
        now: Duration,
    ) {
        self.issued
            .retain(|_, issued| now.saturating_sub(issued.at) <= NONCE_TTL);
        while self.issued.len() >= MAX_NONCES {
            let oldest = self
                .issued
                .iter()
                .min_by_key(|(_, issued)| issued.at)
                .map(|(key, _)| *key);
            match oldest {
                Some(key) => self.issued.remove(&key),
                None => break,
            };
        }
        self.issued.insert(
            digest(nonce),
            Issued {
                action,
                mask: mask.to_owned(),
                origin: origin.to_owned(),
                at: now,
            },
        );
    }

    /// Uses `nonce`: it is gone afterwards whatever the answer (a nonce
    /// presented for the wrong thing cannot be tried again).
    pub fn redeem(
        &mut self,
        nonce: &str,
        action: NonceAction,
        mask: &str,
        origin: &str,
        now: Duration,
    ) -> Result<(), NonceError> {
        let issued = self
            .issued
            .remove(&digest(nonce))
            .ok_or(NonceError::Unknown)?;
        if now.saturating_sub(issued.at) > NONCE_TTL || now < issued.at {
            return Err(NonceError::Expired);
        }
        if issued.action != action {
            return Err(NonceError::OtherAction);
        }
        if issued.mask != mask {
            return Err(NonceError::OtherTarget);
        }
        if issued.origin != origin {
            return Err(NonceError::OtherOrigin);
        }
        Ok(())
    }

    /// Forgets every nonce (at a rotation of the admin token).
    pub fn clear(&mut self) {
        self.issued.clear();
    }

    /// How many are outstanding.
    pub fn len(&self) -> usize {
        self.issued.len()
    }

    /// Whether none is outstanding.
    pub fn is_empty(&self) -> bool {
        self.issued.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const O: &str = "http://127.0.0.1:1";
    const T: Duration = Duration::from_secs(1000);

    // proves: ADMIN-6
    #[test]
    fn single_use_bound_and_expiring() {
        let mut store = NonceStore::default();
        store.issue("n1", NonceAction::Remove, "…aaaa", O, T);
        assert_eq!(
            store.redeem("n1", NonceAction::Remove, "…aaaa", O, T),
            Ok(())
        );
        assert_eq!(
            store.redeem("n1", NonceAction::Remove, "…aaaa", O, T),
            Err(NonceError::Unknown)
        );
        let cases = [
            (NonceAction::Replace, "…aaaa", O, T, NonceError::OtherAction),
            (NonceAction::Remove, "…bbbb", O, T, NonceError::OtherTarget),
            (
                NonceAction::Remove,
                "…aaaa",
                "http://localhost:1",
                T,
                NonceError::OtherOrigin,
            ),
            (
                NonceAction::Remove,
                "…aaaa",
                O,
                T + NONCE_TTL + Duration::from_millis(1),
                NonceError::Expired,
            ),
        ];
        for (action, mask, origin, at, want) in cases {
            store.issue("n2", NonceAction::Remove, "…aaaa", O, T);
            assert_eq!(store.redeem("n2", action, mask, origin, at), Err(want));
            // Consumed even though it was refused.
            assert_eq!(
                store.redeem("n2", NonceAction::Remove, "…aaaa", O, T),
                Err(NonceError::Unknown)
            );
        }
        store.issue("n3", NonceAction::Replace, "…aaaa", O, T);
        assert_eq!(
            store.redeem("n3", NonceAction::Replace, "…aaaa", O, T + NONCE_TTL),
            Ok(())
        );
        store.issue("n4", NonceAction::Replace, "…aaaa", O, T);
        store.clear();
        assert_eq!(
            store.redeem("n4", NonceAction::Replace, "…aaaa", O, T),
            Err(NonceError::Unknown)
        );
    }

    // proves: ADMIN-6
    #[test]
    fn outstanding_nonces_are_bounded() {
        let mut store = NonceStore::default();
        for n in 0..(MAX_NONCES as u64 + 10) {
            store.issue(
                &format!("n{n}"),
                NonceAction::Remove,
                "…aaaa",
                O,
                T + Duration::from_millis(n),
            );
        }
        assert_eq!(store.len(), MAX_NONCES);
        // The oldest went first; the newest is still good.
        assert_eq!(
            store.redeem("n0", NonceAction::Remove, "…aaaa", O, T),
            Err(NonceError::Unknown)
        );
        let last = format!("n{}", MAX_NONCES as u64 + 9);
        assert_eq!(
            store.redeem(
                &last,
                NonceAction::Remove,
                "…aaaa",
                O,
                T + Duration::from_secs(1)
            ),
            Ok(())
        );
    }
}
