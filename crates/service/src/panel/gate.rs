//! The panel's one gate (ADMIN-1, ADMIN-2, ADMIN-4, ADMIN-5, ADMIN-8,
//! ADMIN-9): every `/__keys/api/*` request passes [`Gate::check`], in this
//! fixed order:
//!
//! 1. **Origin**: on a state-changing request (anything but GET and HEAD)
//!    exactly one `Origin` header, equal to `http://<Host>` for a Host in
//!    the allowlist; on a read, when present, the same. A `Sec-Fetch-Site`
//!    header, when a browser sends one, must say `same-origin`.
//! 2. **Host**: exactly one `Host`, in `admin.allowed_hosts` (default the
//!    loopback names with the API's port), and an origin-form target.
//! 3. **Credential**: `Authorization: Bearer <admin token>`; SHA-256 of what
//!    was presented compared in constant time with the stored digest.
//!
//! The same work is done whatever fails: all three checks are computed, the
//! presented bearer (or nothing) is always hashed and compared, the one lock
//! is always taken; only then is the first failure picked. Every failure is
//! the same 401 ([`DENIED_BODY`]), so nothing tells which check failed.
//!
//! Lockout (ADMIN-5): after [`LOCKOUT_LIMIT`] failed credentials the gate
//! refuses everything, a correct token included, until the token is rotated
//! or the service restarts. Only a request that passed Origin and Host *and
//! presented a bearer* counts: a web page (which cannot pass the first two)
//! cannot spend the operator's budget.

use std::sync::Mutex;

use http::{HeaderMap, Method, Uri, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::auth::{HostAllowlist, bearer};

const SEC_FETCH_SITE: header::HeaderName = header::HeaderName::from_static("sec-fetch-site");

/// Failed credentials before the panel locks (NIST SP 800-63B-4's cap).
pub const LOCKOUT_LIMIT: u32 = 100;

/// The one body of every panel denial, byte for byte (ADMIN-2).
pub const DENIED_BODY: &str = "{\"error\":{\"type\":\"ploy_refused\",\"message\":\"ADMIN-2: refused. The key panel answers only its own page, on an allowed loopback host, with the admin token. After 100 failed tokens it refuses everything until the token is rotated (ploy keys admin-token --rotate) or the service restarts.\"}}";

/// Why a request was refused: for the service's own log line only, never
/// for the answer (ADMIN-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The Origin (or Sec-Fetch-Site) check failed.
    Origin,
    /// The Host check failed.
    Host,
    /// The panel is locked (ADMIN-5).
    Locked,
    /// The credential was missing or wrong. `counted` is true when it was a
    /// presented bearer that counted towards the lockout; `locked_now` when
    /// this failure reached the limit.
    Credential {
        /// Counted towards [`LOCKOUT_LIMIT`].
        counted: bool,
        /// This failure locked the panel.
        locked_now: bool,
    },
}

impl Refusal {
    /// A short name for logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Origin => "origin",
            Refusal::Host => "host",
            Refusal::Locked => "locked",
            Refusal::Credential { .. } => "credential",
        }
    }
}

/// What an admitted request carries forward: its checked origin (what a
/// nonce is bound to and the audit line names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// `http://<host>`: the request's Origin, or for a read without one,
    /// the origin of its (checked) Host.
    pub origin: String,
}

struct Credential {
    digest: [u8; 32],
    failures: u32,
}

/// The gate: the allowlist, the admin token's digest and the failure count.
pub struct Gate {
    hosts: HostAllowlist,
    credential: Mutex<Credential>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("hosts", &self.hosts.hosts())
            .field("failures", &self.failures())
            .finish_non_exhaustive()
    }
}

/// One header's value, when there is exactly one and it is visible ASCII.
fn single<'a>(headers: &'a HeaderMap, name: &header::HeaderName) -> Result<Option<&'a str>, ()> {
    let mut values = headers.get_all(name).iter();
    match (values.next(), values.next()) {
        (None, _) => Ok(None),
        (Some(value), None) => value.to_str().map(Some).map_err(|_| ()),
        _ => Err(()),
    }
}

impl Gate {
    /// A gate for `hosts` (exact `host:port` values) and the admin token's
    /// SHA-256 `digest`.
    pub fn new(hosts: HostAllowlist, digest: [u8; 32]) -> Gate {
        Gate {
            hosts,
            credential: Mutex::new(Credential {
                digest,
                failures: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Credential> {
        // The guarded data is two plain values, always consistent.
        self.credential
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The allowlist.
    pub fn hosts(&self) -> &HostAllowlist {
        &self.hosts
    }

    /// Failed credentials counted so far.
    pub fn failures(&self) -> u32 {
        self.lock().failures
    }

    /// Whether the panel is locked (ADMIN-5).
    pub fn is_locked(&self) -> bool {
        self.failures() >= LOCKOUT_LIMIT
    }

    /// A new admin token's digest: the old token stops working and the
    /// failure count (and so a lockout) is cleared.
    pub fn rotate(&self, digest: [u8; 32]) {
        let mut credential = self.lock();
        credential.digest = digest;
        credential.failures = 0;
    }

    /// The page's check (`GET /__keys`): the Host only. A navigation carries
    /// neither Origin nor a bearer, and the page holds no secret.
    pub fn check_page(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        if self.hosts.host_ok(uri, headers) {
            Ok(())
        } else {
            Err(Refusal::Host)
        }
    }

    /// The origin stage. Returns the request's own origin (`http://<Host>`)
    /// when it passes.
    fn origin_stage(&self, method: &Method, headers: &HeaderMap) -> Option<String> {
        let own = single(headers, &header::HOST)
            .ok()
            .flatten()
            .map(|host| format!("http://{}", host.to_ascii_lowercase()));
        let fetch_site_ok = match single(headers, &SEC_FETCH_SITE) {
            Ok(None) => true,
            Ok(Some(site)) => site == "same-origin",
            Err(()) => false,
        };
        let reading = method == Method::GET || method == Method::HEAD;
        let origin_ok = match single(headers, &header::ORIGIN) {
            Ok(Some(origin)) => {
                own.as_deref() == Some(origin) && self.hosts.is_allowed_origin(origin)
            }
            Ok(None) => reading,
            Err(()) => false,
        };
        // A read without Origin and without Host passes this stage and fails
        // the next; its origin is then never used.
        (fetch_site_ok && origin_ok).then(|| own.unwrap_or_default())
    }

    /// The full check, in the fixed order Origin → Host → credential, doing
    /// the same work whatever fails.
    pub fn check(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
    ) -> Result<Admitted, Refusal> {
        let origin = self.origin_stage(method, headers);
        let host_ok = self.hosts.host_ok(uri, headers);
        let presented = bearer(headers);
        // Always hash and compare, even when an earlier check failed or no
        // bearer was sent (then the empty string, which is never the token).
        let digest: [u8; 32] = Sha256::digest(presented.unwrap_or_default()).into();
        let mut credential = self.lock();
        let matches = bool::from(digest.ct_eq(&credential.digest)) && presented.is_some();
        let locked = credential.failures >= LOCKOUT_LIMIT;
        let Some(origin) = origin else {
            return Err(Refusal::Origin);
        };
        if !host_ok {
            return Err(Refusal::Host);
        }
        if locked {
            return Err(Refusal::Locked);
        }
        if !matches {
            let counted = presented.is_some();
            if counted {
                credential.failures += 1;
            }
            return Err(Refusal::Credential {
                counted,
                locked_now: counted && credential.failures == LOCKOUT_LIMIT,
            });
        }
        Ok(Admitted { origin })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn gate() -> Gate {
        Gate::new(
            HostAllowlist::for_listener("127.0.0.1:4000".parse().unwrap()),
            Sha256::digest(TOKEN.as_bytes()).into(),
        )
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        map
    }

    fn uri() -> Uri {
        "/__keys/api/keys".parse().unwrap()
    }

    const HOST: (&str, &str) = ("host", "127.0.0.1:4000");
    const ORIGIN: (&str, &str) = ("origin", "http://127.0.0.1:4000");
    fn auth(token: &str) -> (String, String) {
        ("authorization".into(), format!("Bearer {token}"))
    }

    fn check(
        gate: &Gate,
        method: Method,
        pairs: &[(&str, &str)],
        token: Option<&str>,
    ) -> Result<Admitted, Refusal> {
        let mut map = headers(pairs);
        if let Some(token) = token {
            let (name, value) = auth(token);
            map.insert(
                header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        gate.check(&method, &uri(), &map)
    }

    // proves: ADMIN-1, ADMIN-8, ADMIN-9
    #[test]
    fn order_is_origin_then_host_then_credential() {
        let g = gate();
        assert!(check(&g, Method::POST, &[HOST, ORIGIN], Some(TOKEN)).is_ok());
        assert!(check(&g, Method::GET, &[HOST], Some(TOKEN)).is_ok());
        // Everything wrong: the origin is named first.
        assert_eq!(
            check(
                &g,
                Method::POST,
                &[("host", "evil.example"), ("origin", "http://evil.example")],
                Some("bad")
            ),
            Err(Refusal::Origin)
        );
        // A POST without Origin fails at the origin stage.
        assert_eq!(
            check(&g, Method::POST, &[HOST], Some(TOKEN)),
            Err(Refusal::Origin)
        );
        // Origin right for one allowed host but not this request's Host.
        assert_eq!(
            check(
                &g,
                Method::POST,
                &[HOST, ("origin", "http://localhost:4000")],
                Some(TOKEN)
            ),
            Err(Refusal::Origin)
        );
        // Host evil, origin matching it: the origin check catches it first
        // (it is not an allowed origin); with no Origin on a read, the Host.
        assert_eq!(
            check(
                &g,
                Method::GET,
                &[("host", "evil.example:4000")],
                Some(TOKEN)
            ),
            Err(Refusal::Host)
        );
        assert_eq!(
            check(
                &g,
                Method::GET,
                &[HOST, ("sec-fetch-site", "cross-site")],
                Some(TOKEN)
            ),
            Err(Refusal::Origin)
        );
        assert_eq!(
            check(&g, Method::GET, &[HOST, ("origin", "null")], Some(TOKEN)),
            Err(Refusal::Origin)
        );
        assert!(matches!(
            check(&g, Method::GET, &[HOST], Some("wrong")),
            Err(Refusal::Credential { counted: true, .. })
        ));
        assert!(matches!(
            check(&g, Method::GET, &[HOST], None),
            Err(Refusal::Credential { counted: false, .. })
        ));
        // Only the presented wrong bearer counted.
        assert_eq!(g.failures(), 1);
    }

    // proves: ADMIN-5
    #[test]
    fn lockout_after_100_refuses_the_right_token_until_rotation() {
        let g = gate();
        for n in 1..=LOCKOUT_LIMIT {
            let refusal = check(&g, Method::GET, &[HOST], Some("wrong")).unwrap_err();
            assert_eq!(
                refusal,
                Refusal::Credential {
                    counted: true,
                    locked_now: n == LOCKOUT_LIMIT
                }
            );
        }
        assert!(g.is_locked());
        assert_eq!(
            check(&g, Method::GET, &[HOST], Some(TOKEN)),
            Err(Refusal::Locked)
        );
        // Refusals from pages (origin/host) never count.
        let g2 = gate();
        for _ in 0..(2 * LOCKOUT_LIMIT) {
            let _ = check(
                &g2,
                Method::POST,
                &[HOST, ("origin", "http://evil.example")],
                Some("x"),
            );
            let _ = check(
                &g2,
                Method::GET,
                &[("host", "evil.example:4000")],
                Some("x"),
            );
        }
        assert_eq!(g2.failures(), 0);
        let next = "f".repeat(64);
        g.rotate(Sha256::digest(next.as_bytes()).into());
        assert!(!g.is_locked());
        assert!(check(&g, Method::GET, &[HOST], Some(&next)).is_ok());
        assert!(check(&g, Method::GET, &[HOST], Some(TOKEN)).is_err());
    }

    // proves: ADMIN-4
    #[test]
    fn near_misses_are_refused() {
        let g = gate();
        let mut first = TOKEN.to_string();
        first.replace_range(0..1, "1");
        let mut last = TOKEN.to_string();
        last.replace_range(63..64, "0");
        for bad in [
            first.as_str(),
            last.as_str(),
            &TOKEN[..63],
            &format!("{TOKEN}0"),
            "",
            &TOKEN.to_uppercase(),
        ] {
            assert!(check(&g, Method::GET, &[HOST], Some(bad)).is_err(), "{bad}");
        }
        let mut map = headers(&[HOST]);
        map.append(
            header::AUTHORIZATION,
            format!("Bearer {TOKEN}").parse().unwrap(),
        );
        map.append(
            header::AUTHORIZATION,
            format!("Bearer {TOKEN}").parse().unwrap(),
        );
        assert!(g.check(&Method::GET, &uri(), &map).is_err(), "two headers");
        let map = headers(&[HOST, ("authorization", &format!("bearer {TOKEN}"))]);
        assert!(g.check(&Method::GET, &uri(), &map).is_err(), "scheme case");
    }
}
