//! URL-2: resolution behind the [`Resolve`] seam, and the rule that every
//! returned address must pass the address policy.

use std::{
    collections::HashMap, future::Future, net::IpAddr, path::Path, pin::Pin, sync::Arc,
    time::Duration,
};

use crate::{
    address::check_ip,
    refusal::{Refusal, Stage},
};

const RULE: &str = "URL-2";

/// The future a [`Resolve`] returns.
pub type ResolveFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<IpAddr>, ResolveError>> + Send + 'a>>;

/// Name → addresses. Production: [`HickoryResolver`]; air-gapped use and
/// tests: [`HostsFileResolver`] and [`StaticResolver`].
pub trait Resolve: Send + Sync {
    /// Every address the name resolves to. `name` is lowercase ASCII without
    /// a trailing dot.
    fn resolve<'a>(&'a self, name: &'a str) -> ResolveFuture<'a>;
}

/// Why a name could not be resolved (a network error, not a refusal).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The name has no addresses.
    #[error("name `{0}` has no addresses")]
    NotFound(String),
    /// The resolver failed.
    #[error("resolving `{name}` failed: {detail}")]
    Failed {
        /// The name.
        name: String,
        /// What went wrong.
        detail: String,
    },
    /// The resolver did not answer in time.
    #[error("resolving `{0}` timed out")]
    TimedOut(String),
}

/// Resolves `name` with a timeout and checks every address (URL-2).
///
/// `Ok(Ok(addresses))`: all public, at least one. `Ok(Err(refusal))`: some
/// address is refused, so the whole name is. `Err`: resolution failed.
pub async fn resolve_checked(
    resolver: &dyn Resolve,
    name: &str,
    timeout: Duration,
) -> Result<Result<Vec<IpAddr>, Refusal>, ResolveError> {
    let addresses = tokio::time::timeout(timeout, resolver.resolve(name))
        .await
        .map_err(|_| ResolveError::TimedOut(name.to_owned()))??;
    if addresses.is_empty() {
        return Err(ResolveError::NotFound(name.to_owned()));
    }
    for ip in &addresses {
        if let Err(refusal) = check_ip(*ip) {
            return Ok(Err(Refusal::new(
                RULE,
                Stage::Resolve,
                format!("`{name}` resolves to a refused address: {refusal}"),
            )));
        }
    }
    Ok(Ok(addresses))
}

/// The production resolver: hickory-resolver with the system's name servers.
/// Names are queried fully qualified (a trailing dot), so the system's search
/// domains never turn `intranet.example` into an internal name.
///
/// Both families are asked every time (URL-2: *every* returned address must
/// be public, so a public A record must not hide a private AAAA record). The
/// A and AAAA queries run in parallel as two explicit lookups rather than
/// hickory's combined `lookup_ip`, because the combined lookup quietly drops
/// a family whose query failed; here a failed family fails the whole name
/// (fail closed), and only "no records of this type" counts as empty.
pub struct HickoryResolver {
    inner: hickory_resolver::TokioResolver,
}

/// The lookup strategy the production resolver is configured with: both
/// families, never "IPv4 then IPv6" (which skips AAAA when an A exists).
const LOOKUP_STRATEGY: hickory_resolver::config::LookupIpStrategy =
    hickory_resolver::config::LookupIpStrategy::Ipv4AndIpv6;

/// What one address family's query answered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FamilyAnswer {
    /// The family's addresses (possibly none).
    Addresses(Vec<IpAddr>),
    /// The name exists but has no record of this type, or does not exist.
    NoRecords,
    /// The query failed (timeout, SERVFAIL, transport): unknown, not empty.
    Failed(String),
}

impl FamilyAnswer {
    fn from_lookup(
        result: Result<hickory_resolver::lookup::Lookup, hickory_resolver::net::NetError>,
    ) -> Self {
        match result {
            Ok(lookup) => Self::Addresses(
                hickory_resolver::lookup_ip::LookupIp::from(lookup)
                    .iter()
                    .collect(),
            ),
            Err(err) if err.is_no_records_found() || err.is_nx_domain() => Self::NoRecords,
            Err(err) => Self::Failed(err.to_string()),
        }
    }
}

/// Joins the A and AAAA answers. A family that failed makes the whole name
/// fail (its addresses were never seen, so they were never checked).
fn join_families(
    name: &str,
    v4: FamilyAnswer,
    v6: FamilyAnswer,
) -> Result<Vec<IpAddr>, ResolveError> {
    let mut addresses = Vec::new();
    for (family, answer) in [("A", v4), ("AAAA", v6)] {
        match answer {
            FamilyAnswer::Addresses(found) => addresses.extend(found),
            FamilyAnswer::NoRecords => {}
            FamilyAnswer::Failed(detail) => {
                return Err(ResolveError::Failed {
                    name: name.to_owned(),
                    detail: format!(
                        "the {family} query failed ({detail}); a name whose addresses were not all seen is not used"
                    ),
                });
            }
        }
    }
    if addresses.is_empty() {
        return Err(ResolveError::NotFound(name.to_owned()));
    }
    Ok(addresses)
}

impl HickoryResolver {
    /// Builds a resolver from the system configuration (`/etc/resolv.conf`).
    /// Call it inside a tokio runtime.
    pub fn from_system() -> Result<Self, ResolveError> {
        let mut builder =
            hickory_resolver::Resolver::builder_tokio().map_err(|err| ResolveError::Failed {
                name: String::new(),
                detail: format!("cannot read the system resolver configuration: {err}"),
            })?;
        builder.options_mut().ip_strategy = LOOKUP_STRATEGY;
        let inner = builder.build().map_err(|err| ResolveError::Failed {
            name: String::new(),
            detail: format!("cannot build the resolver: {err}"),
        })?;
        Ok(Self { inner })
    }

    /// A resolver asking one name server over UDP at `addr` (tests: a
    /// loopback DNS responder), with the same options as
    /// [`HickoryResolver::from_system`].
    #[cfg(test)]
    fn with_name_server(addr: std::net::SocketAddr) -> Self {
        use hickory_resolver::config::{NameServerConfig, ResolverConfig};
        let mut server = NameServerConfig::udp(addr.ip());
        for connection in &mut server.connections {
            connection.port = addr.port();
        }
        let config = ResolverConfig::from_name_servers(vec![server]);
        let mut builder = hickory_resolver::Resolver::builder_with_config(
            config,
            hickory_resolver::net::runtime::TokioRuntimeProvider::default(),
        );
        builder.options_mut().ip_strategy = LOOKUP_STRATEGY;
        builder.options_mut().attempts = 1;
        builder.options_mut().timeout = Duration::from_millis(500);
        builder.options_mut().cache_size = 0;
        let inner = builder.build().expect("resolver builds");
        Self { inner }
    }

    /// The lookup strategy in effect (always [`LOOKUP_STRATEGY`]).
    #[cfg(test)]
    fn lookup_strategy(&self) -> hickory_resolver::config::LookupIpStrategy {
        self.inner.options().ip_strategy
    }
}

impl Resolve for HickoryResolver {
    fn resolve<'a>(&'a self, name: &'a str) -> ResolveFuture<'a> {
        Box::pin(async move {
            let fqdn = format!("{name}.");
            let (v4, v6) = tokio::join!(
                self.inner.ipv4_lookup(fqdn.as_str()),
                self.inner.ipv6_lookup(fqdn.as_str())
            );
            join_families(
                name,
                FamilyAnswer::from_lookup(v4),
                FamilyAnswer::from_lookup(v6),
            )
        })
    }
}

/// A fixed table of name → addresses (tests and embedding).
#[derive(Debug, Clone, Default)]
pub struct StaticResolver {
    table: Arc<HashMap<String, Vec<IpAddr>>>,
}

impl StaticResolver {
    /// Builds a resolver from `(name, addresses)` pairs; names are matched
    /// case-insensitively without trailing dots.
    pub fn new<I, S>(entries: I) -> Self
    where
        I: IntoIterator<Item = (S, Vec<IpAddr>)>,
        S: AsRef<str>,
    {
        let table = entries
            .into_iter()
            .map(|(name, addrs)| (normalise(name.as_ref()), addrs))
            .collect();
        Self {
            table: Arc::new(table),
        }
    }
}

impl Resolve for StaticResolver {
    fn resolve<'a>(&'a self, name: &'a str) -> ResolveFuture<'a> {
        Box::pin(async move {
            self.table
                .get(&normalise(name))
                .cloned()
                .ok_or_else(|| ResolveError::NotFound(name.to_owned()))
        })
    }
}

fn normalise(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// Why a hosts file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum HostsFileError {
    /// The file could not be read.
    #[error("cannot read hosts file {path}: {source}")]
    Read {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line does not start with an IP address.
    #[error("hosts file {path} line {line}: `{text}` is not an IP address")]
    BadAddress {
        /// The path.
        path: String,
        /// 1-based line number.
        line: usize,
        /// The offending text.
        text: String,
    },
}

/// Answers names from a hosts(5)-format file instead of DNS (air-gapped use,
/// CLI tests). A name missing from the file is not found: there is no fallback
/// to DNS. Every address it answers is still checked by [`resolve_checked`].
#[derive(Debug, Clone)]
pub struct HostsFileResolver {
    table: StaticResolver,
}

impl HostsFileResolver {
    /// Reads and parses a hosts file.
    pub fn from_path(path: &Path) -> Result<Self, HostsFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| HostsFileError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses hosts(5) text: `ADDRESS NAME [ALIAS...]`, `#` starts a comment.
    pub fn parse(text: &str, origin: &str) -> Result<Self, HostsFileError> {
        let mut table: HashMap<String, Vec<IpAddr>> = HashMap::new();
        for (index, line) in text.lines().enumerate() {
            let content = line.split('#').next().unwrap_or_default();
            let mut fields = content.split_whitespace();
            let Some(first) = fields.next() else { continue };
            let ip: IpAddr = first.parse().map_err(|_| HostsFileError::BadAddress {
                path: origin.to_owned(),
                line: index + 1,
                text: first.to_owned(),
            })?;
            for name in fields {
                table.entry(normalise(name)).or_default().push(ip);
            }
        }
        Ok(Self {
            table: StaticResolver {
                table: Arc::new(table),
            },
        })
    }
}

impl Resolve for HostsFileResolver {
    fn resolve<'a>(&'a self, name: &'a str) -> ResolveFuture<'a> {
        self.table.resolve(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("test address parses")
    }

    // proves: URL-2
    #[tokio::test]
    async fn one_private_address_refuses_the_whole_name() {
        let resolver =
            StaticResolver::new([("mixed.example", vec![ip("93.184.215.14"), ip("10.0.0.5")])]);
        let out = resolve_checked(&resolver, "mixed.example", Duration::from_secs(1))
            .await
            .expect("resolves");
        let refusal = out.expect_err("must refuse");
        assert_eq!(refusal.rule, "URL-2");
        assert!(refusal.reason.contains("10.0.0.5"), "{}", refusal.reason);
    }

    // proves: URL-2
    #[tokio::test]
    async fn a_public_a_record_does_not_hide_a_private_aaaa_record() {
        // What the production resolver hands on for a name with a public A
        // and a private AAAA: both families, so the check sees the AAAA.
        let joined = join_families(
            "dual.example",
            FamilyAnswer::Addresses(vec![ip("93.184.215.14")]),
            FamilyAnswer::Addresses(vec![ip("fd00::1")]),
        )
        .expect("both families answered");
        assert_eq!(joined, vec![ip("93.184.215.14"), ip("fd00::1")]);
        let resolver = StaticResolver::new([("dual.example", joined)]);
        let refusal = resolve_checked(&resolver, "dual.example", Duration::from_secs(1))
            .await
            .expect("resolves")
            .expect_err("the private AAAA refuses the name");
        assert_eq!(refusal.rule, "URL-2");
        assert!(refusal.reason.contains("fd00::1"), "{}", refusal.reason);
        // And the other way round: a private A behind a public AAAA.
        let resolver = StaticResolver::new([(
            "dual4.example",
            vec![ip("2606:2800:21f:cb07:6820:80da:af6b:8b2c"), ip("10.1.2.3")],
        )]);
        assert!(
            resolve_checked(&resolver, "dual4.example", Duration::from_secs(1))
                .await
                .expect("resolves")
                .is_err()
        );
    }

    /// A loopback DNS responder: every A query gets `93.184.215.14`; an
    /// AAAA query gets `fd00::1` for `dual.example`, SERVFAIL for
    /// `v6fail.example`, and an empty answer otherwise.
    #[allow(clippy::disallowed_methods)] // a test DNS server on 127.0.0.1
    async fn dns_responder() -> std::net::SocketAddr {
        let socket = tokio::net::UdpSocket::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = socket.local_addr().expect("addr");
        tokio::spawn(async move {
            let mut buf = [0u8; 512];
            while let Ok((len, peer)) = socket.recv_from(&mut buf).await {
                let query = &buf[..len];
                // Question: labels from byte 12, then qtype and qclass.
                let mut end = 12;
                let mut labels = Vec::new();
                while end < len && query[end] != 0 {
                    let n = query[end] as usize;
                    labels
                        .push(String::from_utf8_lossy(&query[end + 1..end + 1 + n]).to_lowercase());
                    end += 1 + n;
                }
                let question_end = end + 5;
                let qtype = u16::from_be_bytes([query[end + 1], query[end + 2]]);
                let name = labels.join(".");
                let (rcode, rdata): (u8, Option<Vec<u8>>) = match (qtype, name.as_str()) {
                    (1, _) => (0, Some(vec![93, 184, 215, 14])),
                    (28, "dual.example") => (
                        0,
                        Some(
                            "fd00::1"
                                .parse::<std::net::Ipv6Addr>()
                                .expect("v6")
                                .octets()
                                .to_vec(),
                        ),
                    ),
                    (28, "v6fail.example") => (2, None),
                    _ => (0, None),
                };
                let mut out = Vec::new();
                out.extend_from_slice(&query[..2]);
                out.extend_from_slice(&[0x81, 0x80 | rcode]);
                out.extend_from_slice(&[0, 1, 0, u8::from(rdata.is_some()), 0, 0, 0, 0]);
                out.extend_from_slice(&query[12..question_end]);
                if let Some(rdata) = rdata {
                    out.extend_from_slice(&[0xc0, 0x0c]);
                    out.extend_from_slice(&qtype.to_be_bytes());
                    out.extend_from_slice(&[0, 1, 0, 0, 0, 60]);
                    out.extend_from_slice(&(rdata.len() as u16).to_be_bytes());
                    out.extend_from_slice(&rdata);
                }
                let _ = socket.send_to(&out, peer).await;
            }
        });
        addr
    }

    // proves: URL-2
    #[tokio::test]
    async fn the_production_resolver_sees_a_private_aaaa_behind_a_public_a_over_real_dns() {
        let server = dns_responder().await;
        let resolver = HickoryResolver::with_name_server(server);
        // A public A alone passes.
        let only_a = resolver.resolve("single.example").await.expect("resolves");
        assert_eq!(only_a, vec![ip("93.184.215.14")]);
        // A public A and a private AAAA: both are seen, so the name is refused.
        let both = resolver.resolve("dual.example").await.expect("resolves");
        assert_eq!(both, vec![ip("93.184.215.14"), ip("fd00::1")]);
        let refusal = resolve_checked(&resolver, "dual.example", Duration::from_secs(2))
            .await
            .expect("resolves")
            .expect_err("the private AAAA refuses the name");
        assert!(refusal.reason.contains("fd00::1"), "{}", refusal.reason);
        // The AAAA query failing fails the name (fail closed), A or not.
        let failed = resolver.resolve("v6fail.example").await;
        assert!(
            matches!(&failed, Err(ResolveError::Failed { detail, .. }) if detail.contains("AAAA")),
            "{failed:?}"
        );
    }

    // proves: URL-2
    #[test]
    fn a_failed_family_fails_the_name_instead_of_being_skipped() {
        for (v4, v6) in [
            (
                FamilyAnswer::Addresses(vec![ip("93.184.215.14")]),
                FamilyAnswer::Failed("timed out".into()),
            ),
            (
                FamilyAnswer::Failed("SERVFAIL".into()),
                FamilyAnswer::Addresses(vec![ip("2606:2800:21f:cb07:6820:80da:af6b:8b2c")]),
            ),
        ] {
            let err = join_families("half.example", v4, v6).expect_err("fail closed");
            assert!(
                matches!(&err, ResolveError::Failed { detail, .. } if detail.contains("query failed")),
                "{err}"
            );
        }
        // No records of one family is an ordinary empty answer.
        assert_eq!(
            join_families(
                "v4only.example",
                FamilyAnswer::Addresses(vec![ip("93.184.215.14")]),
                FamilyAnswer::NoRecords
            ),
            Ok(vec![ip("93.184.215.14")])
        );
        assert_eq!(
            join_families(
                "none.example",
                FamilyAnswer::NoRecords,
                FamilyAnswer::NoRecords
            ),
            Err(ResolveError::NotFound("none.example".into()))
        );
    }

    // proves: URL-2
    #[tokio::test]
    async fn the_production_resolver_asks_both_families() {
        assert_eq!(
            LOOKUP_STRATEGY,
            hickory_resolver::config::LookupIpStrategy::Ipv4AndIpv6
        );
        // Building needs a resolv.conf; where there is one, the strategy is set.
        if let Ok(resolver) = HickoryResolver::from_system() {
            assert_eq!(resolver.lookup_strategy(), LOOKUP_STRATEGY);
        }
    }

    // proves: URL-2
    #[tokio::test]
    async fn no_addresses_is_not_an_allow() {
        let resolver = StaticResolver::new([("empty.example", vec![])]);
        let out = resolve_checked(&resolver, "empty.example", Duration::from_secs(1)).await;
        assert!(matches!(out, Err(ResolveError::NotFound(_))));
    }

    // proves: URL-2
    #[test]
    fn hosts_file_parses_aliases_comments_and_refuses_garbage() {
        let parsed = HostsFileResolver::parse(
            "# comment\n93.184.215.14 a.example b.example # trailing\n\n::1 six.example\n",
            "t",
        )
        .expect("parses");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let got = rt.block_on(parsed.resolve("B.example")).expect("found");
        assert_eq!(got, vec![ip("93.184.215.14")]);
        assert!(rt.block_on(parsed.resolve("missing.example")).is_err());
        assert!(HostsFileResolver::parse("not-an-ip name\n", "t").is_err());
    }
}
