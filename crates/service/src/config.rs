//! The service's configuration (CONFIG-1: fail loudly at load).
//!
//! Sources, later wins: built-in defaults → the `service` section (JSON) →
//! command-line flags. Unknown keys, bad addresses, non-loopback binds and
//! out-of-range limits are errors that name the key.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use ploy_model::LoopbackUpstream;

/// Environment variable that overrides the state folder (ploy-dirs' name).
pub use ploy_dirs::STATE_DIR_ENV;

/// The default model upstream (Ollama's OpenAI-compatible endpoint).
pub use ploy_model::DEFAULT_UPSTREAM;

/// Default request body limit for the gateway and the API (4 MiB).
pub const DEFAULT_BODY_LIMIT: usize = 4 * 1024 * 1024;
/// Largest accepted body limit (64 MiB).
pub const MAX_BODY_LIMIT: usize = 64 * 1024 * 1024;
/// Default limit on a request's head (request line + headers).
pub const DEFAULT_HEADER_LIMIT: usize = 16 * 1024;

/// A configuration refusal. Every variant names the key and CONFIG-1 or the
/// requirement that forbids the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The section does not parse (unknown key, wrong type).
    #[error("CONFIG-1: {origin}: the `service` section is invalid: {reason}")]
    Section {
        /// Where the section came from.
        origin: String,
        /// serde's message, which names the key.
        reason: String,
    },
    /// A value is out of range or malformed.
    #[error("CONFIG-1: service.{key} = {value:?} is invalid: {reason}")]
    Invalid {
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
        /// Why, and what is accepted.
        reason: String,
    },
    /// A non-loopback bind was asked for.
    #[error(
        "ADMIN-10: refusing to listen on {addr} ({key}): ploy's service binds loopback only \
         (127.0.0.1 or [::1]); a public address would expose it to the network{hint}"
    )]
    PublicBind {
        /// The key or flag.
        key: &'static str,
        /// The address.
        addr: SocketAddr,
        /// What to do instead.
        hint: &'static str,
    },
    /// The upstream is not an acceptable loopback URL.
    #[error("GW-1: service.upstream = {url:?} is refused: {reason}")]
    Upstream {
        /// The URL given.
        url: String,
        /// Why.
        reason: String,
    },
    /// No state folder could be found.
    #[error(
        "no state folder: set {STATE_DIR_ENV} or service.state_dir (no home directory was found)"
    )]
    NoStateDir,
}

/// The `service` section as written by the user. Every key is optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSection {
    /// API listen address, `ADDR:PORT`.
    pub listen: Option<String>,
    /// Gateway listen address, `127.0.0.1:PORT`.
    pub gateway_listen: Option<String>,
    /// Explicitly allow the API on a non-loopback address (ADMIN-10). The
    /// gateway and the exec-token route never serve on it.
    pub allow_public_bind: Option<bool>,
    /// The model upstream URL (loopback `http://` only).
    pub upstream: Option<String>,
    /// When set, the gateway pins every request's `model` to this name.
    pub model: Option<String>,
    /// Request body limit in bytes.
    pub body_limit_bytes: Option<usize>,
    /// Request head limit in bytes.
    pub header_limit_bytes: Option<usize>,
    /// Upstream connect timeout, milliseconds.
    pub connect_timeout_ms: Option<u64>,
    /// Time allowed for the upstream's response headers, milliseconds.
    pub first_byte_timeout_ms: Option<u64>,
    /// Longest silence allowed inside a streamed upstream body, milliseconds.
    pub idle_timeout_ms: Option<u64>,
    /// Time allowed for a client to send its request head, milliseconds.
    pub request_header_timeout_ms: Option<u64>,
    /// The state folder (service files, database).
    pub state_dir: Option<PathBuf>,
    /// The key panel's settings.
    pub admin: Option<AdminSection>,
}

/// The key panel's part of the `service` section (`service.admin`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminSection {
    /// Host names (without port) the panel answers to (ADMIN-9); the API's
    /// port is appended. Default: `127.0.0.1`, `localhost`, `[::1]`.
    pub allowed_hosts: Option<Vec<String>>,
}

impl ServiceSection {
    /// Parse the section from JSON text. `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<ServiceSection, ConfigError> {
        serde_json::from_str(text).map_err(|e| ConfigError::Section {
            origin: origin.to_string(),
            reason: e.to_string(),
        })
    }

    /// Parse the section from an already-parsed JSON value.
    pub fn from_value(
        value: serde_json::Value,
        origin: &str,
    ) -> Result<ServiceSection, ConfigError> {
        serde_json::from_value(value).map_err(|e| ConfigError::Section {
            origin: origin.to_string(),
            reason: e.to_string(),
        })
    }
}

/// The validated configuration the service runs with.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// API listen address (loopback unless `allow_public_bind`).
    pub api_listen: SocketAddr,
    /// Gateway listen address (127.0.0.1 only, GW-1).
    pub gateway_listen: SocketAddr,
    /// True when the API is allowed on a non-loopback address.
    pub allow_public_bind: bool,
    /// The validated model upstream.
    pub upstream: LoopbackUpstream,
    /// Model name pinned into every gateway request, if set.
    pub model: Option<String>,
    /// Request body limit in bytes.
    pub body_limit: usize,
    /// Request head limit in bytes.
    pub header_limit: usize,
    /// Upstream connect timeout.
    pub connect_timeout: Duration,
    /// Upstream response-headers timeout.
    pub first_byte_timeout: Duration,
    /// Longest silence inside a streamed upstream body.
    pub idle_timeout: Duration,
    /// Client request-head timeout.
    pub request_header_timeout: Duration,
    /// The state folder.
    pub state_dir: PathBuf,
    /// The key panel's Host allowlist (names without port, lowercase);
    /// `None` means the loopback names.
    pub admin_allowed_hosts: Option<Vec<String>>,
}

/// Overrides from command-line flags; `None` keeps the section's value.
#[derive(Debug, Clone, Default)]
pub struct ConfigFlags {
    /// `--listen`.
    pub listen: Option<String>,
    /// `--gateway-listen`.
    pub gateway_listen: Option<String>,
    /// `--upstream`.
    pub upstream: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--body-limit`.
    pub body_limit_bytes: Option<usize>,
}

const LOOPBACK_ANY_PORT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0);

impl ServiceConfig {
    /// Build and validate the configuration. `state_dir_env` is the value of
    /// `PLOY_STATE_DIR` (passed in so tests never touch the real home).
    pub fn load(
        section: ServiceSection,
        flags: ConfigFlags,
        state_dir_env: Option<PathBuf>,
    ) -> Result<ServiceConfig, ConfigError> {
        let allow_public_bind = section.allow_public_bind.unwrap_or(false);
        let api_listen = match flags.listen.as_deref().or(section.listen.as_deref()) {
            Some(text) => parse_addr("listen", text)?,
            None => LOOPBACK_ANY_PORT,
        };
        if !api_listen.ip().is_loopback() && !allow_public_bind {
            return Err(ConfigError::PublicBind {
                key: "listen",
                addr: api_listen,
                hint: "; use 127.0.0.1:PORT",
            });
        }
        let gateway_listen = match flags
            .gateway_listen
            .as_deref()
            .or(section.gateway_listen.as_deref())
        {
            Some(text) => parse_addr("gateway_listen", text)?,
            None => LOOPBACK_ANY_PORT,
        };
        // GW-1: the gateway is 127.0.0.1 only, whatever allow_public_bind says.
        if gateway_listen.ip() != IpAddr::V4(Ipv4Addr::LOCALHOST) {
            return Err(ConfigError::PublicBind {
                key: "gateway_listen",
                addr: gateway_listen,
                hint: "; the gateway listens on 127.0.0.1 only (GW-1), allow_public_bind does not apply",
            });
        }
        let upstream_text = flags
            .upstream
            .or(section.upstream)
            .unwrap_or_else(|| DEFAULT_UPSTREAM.to_string());
        let model = flags.model.or(section.model);
        if let Some(name) = &model
            && (name.is_empty() || name.len() > 256 || name.chars().any(char::is_control))
        {
            return Err(ConfigError::Invalid {
                key: "model",
                value: name.clone(),
                reason: "a model name is 1-256 printable characters".into(),
            });
        }
        let body_limit = flags
            .body_limit_bytes
            .or(section.body_limit_bytes)
            .unwrap_or(DEFAULT_BODY_LIMIT);
        if body_limit == 0 || body_limit > MAX_BODY_LIMIT {
            return Err(ConfigError::Invalid {
                key: "body_limit_bytes",
                value: body_limit.to_string(),
                reason: format!("must be between 1 and {MAX_BODY_LIMIT}"),
            });
        }
        let header_limit = section.header_limit_bytes.unwrap_or(DEFAULT_HEADER_LIMIT);
        if !(8 * 1024..=1024 * 1024).contains(&header_limit) {
            return Err(ConfigError::Invalid {
                key: "header_limit_bytes",
                value: header_limit.to_string(),
                reason: "must be between 8192 and 1048576".into(),
            });
        }
        let state_dir = match section
            .state_dir
            .or(state_dir_env)
            .filter(|p| !p.as_os_str().is_empty())
        {
            Some(dir) => dir,
            None => platform_state_dir().ok_or(ConfigError::NoStateDir)?,
        };
        let upstream_timeouts = (
            timeout("connect_timeout_ms", section.connect_timeout_ms, 5_000)?,
            timeout(
                "first_byte_timeout_ms",
                section.first_byte_timeout_ms,
                120_000,
            )?,
            timeout("idle_timeout_ms", section.idle_timeout_ms, 300_000)?,
        );
        Ok(ServiceConfig {
            api_listen,
            gateway_listen,
            allow_public_bind,
            upstream: LoopbackUpstream::parse(&upstream_text).map_err(|error| {
                ConfigError::Upstream {
                    url: error.url,
                    reason: error.reason,
                }
            })?,
            model,
            body_limit,
            header_limit,
            connect_timeout: upstream_timeouts.0,
            first_byte_timeout: upstream_timeouts.1,
            idle_timeout: upstream_timeouts.2,
            request_header_timeout: timeout(
                "request_header_timeout_ms",
                section.request_header_timeout_ms,
                10_000,
            )?,
            state_dir,
            admin_allowed_hosts: section
                .admin
                .and_then(|admin| admin.allowed_hosts)
                .map(validate_allowed_hosts)
                .transpose()?,
        })
    }
}

/// ADMIN-9: each allowed host is a DNS name or an IP literal (`[::1]` in
/// brackets), lowercase, without port, scheme, path or wildcard.
fn validate_allowed_hosts(hosts: Vec<String>) -> Result<Vec<String>, ConfigError> {
    let invalid = |value: &str, reason: &str| ConfigError::Invalid {
        key: "admin.allowed_hosts",
        value: value.to_string(),
        reason: reason.to_string(),
    };
    if hosts.is_empty() || hosts.len() > 16 {
        return Err(invalid(
            &format!("{hosts:?}"),
            "give 1-16 host names (omit the key for the loopback names)",
        ));
    }
    let mut out = Vec::new();
    for host in hosts {
        let lower = host.to_ascii_lowercase();
        let ip6 = lower
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
            .is_some_and(|inner| inner.parse::<std::net::Ipv6Addr>().is_ok());
        let name = !lower.is_empty()
            && lower.len() <= 253
            && lower.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && !label.starts_with('-')
                    && !label.ends_with('-')
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if !(ip6 || name) {
            return Err(invalid(
                &host,
                "a host name or IP address without port, scheme, path or wildcard (e.g. localhost, [::1])",
            ));
        }
        if !out.contains(&lower) {
            out.push(lower);
        }
    }
    Ok(out)
}

fn parse_addr(key: &'static str, text: &str) -> Result<SocketAddr, ConfigError> {
    // "localhost:PORT" is accepted and means 127.0.0.1; no other name is
    // resolved (a name could resolve to anything).
    let normalised = match text.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}"),
        None => text.to_string(),
    };
    normalised
        .parse::<SocketAddr>()
        .map_err(|_| ConfigError::Invalid {
            key,
            value: text.to_string(),
            reason: "expected ADDR:PORT with a numeric address, e.g. 127.0.0.1:0".into(),
        })
}

fn timeout(
    key: &'static str,
    value: Option<u64>,
    default_ms: u64,
) -> Result<Duration, ConfigError> {
    let ms = value.unwrap_or(default_ms);
    if ms == 0 || ms > 3_600_000 {
        return Err(ConfigError::Invalid {
            key,
            value: ms.to_string(),
            reason: "must be between 1 and 3600000 milliseconds".into(),
        });
    }
    Ok(Duration::from_millis(ms))
}

/// The platform state folder for "ploy" (XDG state dir on Linux, else the
/// local data dir): the one lookup in ploy-dirs, shared with ploy-trust.
pub use ploy_dirs::platform_state_dir;

/// The state folder: `PLOY_STATE_DIR` when set and non-empty, else the
/// platform's (ploy-dirs' lookup); an error when neither exists.
pub fn state_dir_from_env() -> Result<PathBuf, ConfigError> {
    ploy_dirs::state_dir_from_env().ok_or(ConfigError::NoStateDir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(section: &str, flags: ConfigFlags) -> Result<ServiceConfig, ConfigError> {
        ServiceConfig::load(
            ServiceSection::parse(section, "test")?,
            flags,
            Some(PathBuf::from("/tmp/ploy-test-state")),
        )
    }

    // proves: CONFIG-1
    #[test]
    fn unknown_key_is_an_error_naming_it() {
        let err = load(
            r#"{"listen":"127.0.0.1:0","upstreem":"x"}"#,
            ConfigFlags::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("upstreem"), "{err}");
        assert!(err.to_string().contains("CONFIG-1"), "{err}");
    }

    // proves: CONFIG-1
    #[test]
    fn bad_limits_and_timeouts_are_errors() {
        for section in [
            r#"{"body_limit_bytes":0}"#,
            r#"{"body_limit_bytes":999999999999}"#,
            r#"{"header_limit_bytes":10}"#,
            r#"{"connect_timeout_ms":0}"#,
            r#"{"idle_timeout_ms":99999999999}"#,
            r#"{"model":""}"#,
            r#"{"listen":"not an address"}"#,
            r#"{"body_limit_bytes":-1}"#,
        ] {
            assert!(
                load(section, ConfigFlags::default()).is_err(),
                "{section} accepted"
            );
        }
    }

    // proves: ADMIN-10, GW-1
    #[test]
    fn public_binds_are_refused() {
        for addr in [
            "0.0.0.0:0",
            "192.168.1.20:8080",
            "[::]:0",
            "10.0.0.1:1",
            "8.8.8.8:53",
        ] {
            let err = load(
                "{}",
                ConfigFlags {
                    listen: Some(addr.into()),
                    ..Default::default()
                },
            )
            .unwrap_err();
            assert!(err.to_string().contains("ADMIN-10"), "{addr}: {err}");
            let err = load(
                r#"{"allow_public_bind":true}"#,
                ConfigFlags {
                    gateway_listen: Some(addr.into()),
                    ..Default::default()
                },
            )
            .unwrap_err();
            assert!(err.to_string().contains("GW-1"), "{addr}: {err}");
        }
        // The gateway refuses [::1] too: 127.0.0.1 only.
        assert!(
            load(
                "{}",
                ConfigFlags {
                    gateway_listen: Some("[::1]:0".into()),
                    ..Default::default()
                }
            )
            .is_err()
        );
        // Explicit allow_public_bind lets the API (only) bind publicly.
        let ok = load(
            r#"{"allow_public_bind":true}"#,
            ConfigFlags {
                listen: Some("0.0.0.0:0".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(ok.allow_public_bind);
    }

    // proves: ADMIN-9, CONFIG-1
    #[test]
    fn admin_allowed_hosts_are_validated() {
        let ok = load(
            r#"{"admin":{"allowed_hosts":["LocalHost","127.0.0.1","[::1]","ploy.test"]}}"#,
            ConfigFlags::default(),
        )
        .unwrap();
        assert_eq!(
            ok.admin_allowed_hosts.unwrap(),
            vec!["localhost", "127.0.0.1", "[::1]", "ploy.test"]
        );
        for bad in [
            r#"{"admin":{"allowed_hosts":[]}}"#,
            r#"{"admin":{"allowed_hosts":["127.0.0.1:8080"]}}"#,
            r#"{"admin":{"allowed_hosts":["*.example"]}}"#,
            r#"{"admin":{"allowed_hosts":["http://localhost"]}}"#,
            r#"{"admin":{"allowed_hosts":["a b"]}}"#,
            r#"{"admin":{"allowed_hosts":[""]}}"#,
            r#"{"admin":{"allowed_hosts":["::1"]}}"#,
            r#"{"admin":{"allowedHosts":["localhost"]}}"#,
        ] {
            let err = load(bad, ConfigFlags::default()).unwrap_err();
            assert!(err.to_string().contains("CONFIG-1"), "{bad}: {err}");
        }
        assert!(
            load("{}", ConfigFlags::default())
                .unwrap()
                .admin_allowed_hosts
                .is_none()
        );
    }

    // proves: GW-1
    #[test]
    fn defaults_are_loopback() {
        let config = load("{}", ConfigFlags::default()).unwrap();
        assert_eq!(config.api_listen, LOOPBACK_ANY_PORT);
        assert_eq!(config.gateway_listen, LOOPBACK_ANY_PORT);
        assert_eq!(config.upstream.to_string(), DEFAULT_UPSTREAM);
    }
}
