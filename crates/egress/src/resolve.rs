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
pub struct HickoryResolver {
    inner: hickory_resolver::TokioResolver,
}

impl HickoryResolver {
    /// Builds a resolver from the system configuration (`/etc/resolv.conf`).
    /// Call it inside a tokio runtime.
    pub fn from_system() -> Result<Self, ResolveError> {
        let builder =
            hickory_resolver::Resolver::builder_tokio().map_err(|err| ResolveError::Failed {
                name: String::new(),
                detail: format!("cannot read the system resolver configuration: {err}"),
            })?;
        let inner = builder.build().map_err(|err| ResolveError::Failed {
            name: String::new(),
            detail: format!("cannot build the resolver: {err}"),
        })?;
        Ok(Self { inner })
    }
}

impl Resolve for HickoryResolver {
    fn resolve<'a>(&'a self, name: &'a str) -> ResolveFuture<'a> {
        Box::pin(async move {
            let fqdn = format!("{name}.");
            let lookup =
                self.inner
                    .lookup_ip(fqdn.as_str())
                    .await
                    .map_err(|err| ResolveError::Failed {
                        name: name.to_owned(),
                        detail: err.to_string(),
                    })?;
            Ok(lookup.iter().collect())
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
