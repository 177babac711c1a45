//! Request checks shared by the API and the gateway: the Host allowlist
//! (DNS rebinding), the Origin check, and constant-time secret comparison.

use http::{HeaderMap, Uri, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A 256-bit secret from the operating system's CSPRNG, as 64 hex digits.
/// Used for the service password (SVC-1) and the gateway token (GW-4).
pub fn new_secret() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(hex::encode(bytes))
}

/// A secret kept only as its SHA-256 digest, compared in constant time.
#[derive(Clone)]
pub struct SecretDigest([u8; 32]);

impl std::fmt::Debug for SecretDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretDigest(..)")
    }
}

impl SecretDigest {
    /// Digest of `secret`.
    pub fn of(secret: &str) -> SecretDigest {
        SecretDigest(Sha256::digest(secret.as_bytes()).into())
    }

    /// True when `candidate` is the secret. Comparing fixed-size digests in
    /// constant time leaks neither the secret's bytes nor its length.
    pub fn matches(&self, candidate: &[u8]) -> bool {
        let digest: [u8; 32] = Sha256::digest(candidate).into();
        bool::from(digest.ct_eq(&self.0))
    }
}

/// The Host values a listener accepts: loopback names and addresses with its
/// own port (plus its own address when bound publicly on purpose).
#[derive(Debug, Clone)]
pub struct HostAllowlist {
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl HostAllowlist {
    /// The allowlist for a listener bound to `bound`.
    pub fn for_listener(bound: std::net::SocketAddr) -> HostAllowlist {
        let port = bound.port();
        let mut hosts = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        let own = bound.to_string();
        if !bound.ip().is_unspecified() && !hosts.contains(&own) {
            hosts.push(own);
        }
        HostAllowlist::from_hosts(hosts)
    }

    /// An allowlist of exact `host:port` values (lowercase); each one's
    /// origin is `http://host:port`.
    pub fn from_hosts(hosts: Vec<String>) -> HostAllowlist {
        let hosts: Vec<String> = hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect();
        let origins = hosts.iter().map(|h| format!("http://{h}")).collect();
        HostAllowlist { hosts, origins }
    }

    /// The allowed `host:port` values.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// Whether `origin` is the origin of one of the allowed hosts, exactly.
    pub fn is_allowed_origin(&self, origin: &str) -> bool {
        self.origins.iter().any(|o| o == origin)
    }

    /// Host check (ADMIN-9-style rebinding defence): exactly one Host header,
    /// in the allowlist; empty, missing or `:port` is refused. Absolute-form
    /// request targets (`POST http://evil/...`) are refused too.
    pub fn host_ok(&self, uri: &Uri, headers: &HeaderMap) -> bool {
        if uri.scheme().is_some() || uri.authority().is_some() {
            return false;
        }
        let mut values = headers.get_all(header::HOST).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return false;
        };
        let Ok(text) = value.to_str() else {
            return false;
        };
        let text = text.to_ascii_lowercase();
        self.hosts.contains(&text)
    }

    /// Origin check: when an Origin header is present, it must be this
    /// listener's own origin. `Origin: null` and anything else is refused.
    pub fn origin_ok(&self, headers: &HeaderMap) -> bool {
        let mut values = headers.get_all(header::ORIGIN).iter();
        match (values.next(), values.next()) {
            (None, _) => true,
            (Some(value), None) => value
                .to_str()
                .map(|text| self.origins.iter().any(|o| o == text))
                .unwrap_or(false),
            _ => false,
        }
    }
}

/// The bearer credential in `Authorization: Bearer <secret>`, exactly: one
/// header, the scheme `Bearer`, one space, then the secret.
pub fn bearer(headers: &HeaderMap) -> Option<&[u8]> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return None;
    };
    value.as_bytes().strip_prefix(b"Bearer ")
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: SVC-1, GW-4
    #[test]
    fn secrets_are_256_bit_and_fresh() {
        let a = new_secret().unwrap();
        let b = new_secret().unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        let digest = SecretDigest::of(&a);
        assert!(digest.matches(a.as_bytes()));
        assert!(!digest.matches(b.as_bytes()));
        assert!(!digest.matches(format!("{a} ").as_bytes()));
        assert!(!digest.matches(&a.as_bytes()[..63]));
        assert!(!digest.matches(b""));
    }

    // proves: GW-3
    #[test]
    fn host_allowlist_refuses_rebinding_names() {
        let list = HostAllowlist::for_listener("127.0.0.1:4000".parse().unwrap());
        let uri: Uri = "/v1/x".parse().unwrap();
        let check = |host: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(h) = host {
                headers.insert(header::HOST, h.parse().unwrap());
            }
            list.host_ok(&uri, &headers)
        };
        assert!(check(Some("127.0.0.1:4000")));
        assert!(check(Some("LOCALHOST:4000")));
        for bad in [
            None,
            Some(""),
            Some(":4000"),
            Some("evil.example"),
            Some("evil.example:4000"),
            Some("127.0.0.1"),
            Some("127.0.0.1:4001"),
            Some("localhost"),
            Some("127.0.0.1.nip.io:4000"),
        ] {
            assert!(!check(bad), "{bad:?} accepted");
        }
        let absolute: Uri = "http://127.0.0.1:4000/v1/x".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, "127.0.0.1:4000".parse().unwrap());
        assert!(!list.host_ok(&absolute, &headers));
    }
}
