//! URL-1: the pure text check. The URL is parsed once with the WHATWG parser
//! (the `url` crate, the same parse the request uses); numeric host forms are
//! judged on the *original* host text, because the parser normalises
//! `0x7f.1` to `127.0.0.1`.

use std::net::IpAddr;

use url::{Host, Url};

use crate::{
    address::check_ip,
    refusal::{Refusal, Stage},
};

const RULE: &str = "URL-1";

/// Name suffixes that only ever mean a local network.
const LOCAL_SUFFIXES: &[&str] = &[
    ".local",
    ".internal",
    ".lan",
    ".localhost",
    ".localdomain",
    ".home.arpa",
];

/// A URL that passed the text check. Only this type reaches resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedUrl {
    url: Url,
    target: Target,
    /// The host and port are exactly the operator-named ones (see
    /// [`OperatorHost`]): the address policy does not apply to them.
    operator: bool,
}

/// The one host and port the operator named in their own configuration
/// (a self-hosted SearXNG), which the address policy lets through even when
/// it is private or loopback (issue 7: "the only kind of address allowed to
/// be non-public, and only when the operator names it explicitly").
///
/// It matches only the same scheme and host *as written* (a name, or a
/// canonical literal address) on the same port; another name for the same address,
/// another port, or another spelling of the address is judged by the normal
/// rules. Scheme (http/https only), no user info, pinning, caps and the
/// checks on every redirect away from it still apply. Build it only from
/// operator configuration, never from anything a model or a web page wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorHost {
    https: bool,
    host: Target,
    port: u16,
}

impl OperatorHost {
    /// The operator host of a configured base URL (e.g. SearXNG's
    /// `http://searx.lan:8888/`). Refuses what no configuration should name:
    /// other schemes, user info, a missing host, numeric host forms other
    /// than a canonical dotted quad, names ending in a number.
    pub fn from_base_url(base: &str) -> Result<Self, Refusal> {
        let refuse = |reason: String| Refusal::new(RULE, Stage::Text, reason);
        let url = Url::parse(base)
            .map_err(|err| refuse(format!("operator URL `{base}` does not parse: {err}")))?;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(refuse(format!(
                "operator URL `{base}`: only http and https are allowed"
            )));
        }
        let raw = raw_authority(base).unwrap_or(RawAuthority {
            has_userinfo: false,
            host: String::new(),
        });
        if raw.has_userinfo || !url.username().is_empty() || url.password().is_some() {
            return Err(refuse(format!(
                "operator URL `{base}` carries user info, which is never sent"
            )));
        }
        let host = match url.host() {
            None => return Err(refuse(format!("operator URL `{base}` has no host"))),
            Some(Host::Ipv4(addr)) => {
                if raw.host != addr.to_string() {
                    return Err(refuse(format!(
                        "operator URL `{base}`: write the address as a plain dotted quad, not `{}`",
                        raw.host
                    )));
                }
                Target::Address(IpAddr::V4(addr))
            }
            Some(Host::Ipv6(addr)) => Target::Address(IpAddr::V6(addr)),
            Some(Host::Domain(domain)) => {
                let name = domain.trim_end_matches('.').to_ascii_lowercase();
                if name == "localhost" {
                    // Written as a name it would be resolved; the operator
                    // writes the loopback address itself instead.
                    return Err(refuse(format!(
                        "operator URL `{base}`: write 127.0.0.1 (or [::1]) instead of `localhost`"
                    )));
                }
                let last = name.rsplit('.').next().unwrap_or_default();
                if name.is_empty() || last.chars().all(|c| c.is_ascii_digit()) {
                    return Err(refuse(format!(
                        "operator URL `{base}`: host `{domain}` is empty or ends in a number"
                    )));
                }
                Target::Name(name)
            }
        };
        if let Target::Address(ip) = host
            && let Err(refusal) = crate::address::check_operator_ip(ip)
        {
            return Err(refuse(format!(
                "operator URL `{base}`: {refusal}; even an operator-named host may only be this machine, a private network or a public address"
            )));
        }
        let port = url.port_or_known_default().unwrap_or(80);
        Ok(Self {
            https: url.scheme() == "https",
            host,
            port,
        })
    }

    /// The host as it must be written (a lowercase name or an address).
    pub fn host(&self) -> String {
        match &self.host {
            Target::Name(name) => name.clone(),
            Target::Address(ip) => ip.to_string(),
        }
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The literal address the operator named, if they named one.
    pub(crate) fn literal_address(&self) -> Option<IpAddr> {
        match self.host {
            Target::Address(ip) => Some(ip),
            Target::Name(_) => None,
        }
    }

    fn matches(&self, https: bool, target: &Target, port: Option<u16>) -> bool {
        https == self.https && port == Some(self.port) && *target == self.host
    }
}

/// What the host of a checked URL is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A name to resolve (lowercase ASCII, trailing dots removed).
    Name(String),
    /// A literal address that already passed the address policy.
    Address(IpAddr),
}

impl CheckedUrl {
    /// The parsed URL (fragment removed: it is never sent).
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The name to resolve, or `None` for a literal address.
    pub fn name(&self) -> Option<&str> {
        match &self.target {
            Target::Name(name) => Some(name),
            Target::Address(_) => None,
        }
    }

    /// The literal address, when the URL names one.
    pub fn literal_address(&self) -> Option<IpAddr> {
        match self.target {
            Target::Name(_) => None,
            Target::Address(ip) => Some(ip),
        }
    }

    /// The port to connect to (the scheme's default when none is written).
    pub fn port(&self) -> u16 {
        // Both allowed schemes have a default port, so this never falls back.
        self.url.port_or_known_default().unwrap_or(80)
    }

    /// Whether the scheme is `https`.
    pub fn is_https(&self) -> bool {
        self.url.scheme() == "https"
    }

    /// Whether this URL's host and port are exactly the operator-named ones,
    /// so the address policy was not applied to them.
    pub fn is_operator_host(&self) -> bool {
        self.operator
    }

    /// Resolves a redirect `Location` against this URL and checks the result
    /// with the same text rules (URL-3 repeats URL-1). A path-relative
    /// location keeps this URL's already-checked host; any location that
    /// carries its own authority is judged on its own host text.
    pub fn join_checked(&self, location: &str) -> Result<CheckedUrl, Refusal> {
        self.join_checked_with(location, None)
    }

    /// [`CheckedUrl::join_checked`], with the operator host let through
    /// when the location names exactly it.
    pub(crate) fn join_checked_with(
        &self,
        location: &str,
        operator: Option<&OperatorHost>,
    ) -> Result<CheckedUrl, Refusal> {
        let joined = self.url.join(location).map_err(|err| {
            Refusal::new(
                RULE,
                Stage::Text,
                format!("redirect location does not parse as a URL: {err}"),
            )
        })?;
        let raw = raw_authority(location);
        let raw = match raw {
            Some(raw) => raw,
            // Path-relative: the host is ours, already written canonically.
            None => RawAuthority {
                has_userinfo: false,
                host: self.url.host_str().unwrap_or_default().to_owned(),
            },
        };
        check_parsed(joined, &raw, operator)
    }
}

impl std::fmt::Display for CheckedUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.url.as_str())
    }
}

/// The URL text check (URL-1). Pure: no DNS, no I/O.
///
/// Refuses: schemes other than `http`/`https`; any userinfo (even an empty
/// `@`); `localhost` and names under `.localhost`, `.local`, `.internal`,
/// `.lan` (any case, trailing dots ignored); single-label names; host text the
/// parser reads as an IPv4 number but that was not written as a canonical
/// dotted quad (decimal integer, octal, hex, short forms, percent-encoded or
/// full-width digits, trailing dot); literal addresses the address policy
/// refuses.
pub fn check_url_text(input: &str) -> Result<CheckedUrl, Refusal> {
    check_url_text_with(input, None)
}

/// Every URL written in free text (`scheme://…`, up to the next space,
/// quote, or shell operator) through [`check_url_text`]: for a command
/// line run on the host, whose program resolves and connects by itself,
/// the text check is all ploy can apply (URL-1). A host written without a
/// scheme (`curl 127.0.0.1`) is not seen; the sandbox is the closed form.
pub fn check_urls_in_text(text: &str) -> Result<(), Refusal> {
    const ENDS: &[char] = &['"', '\'', '`', ';', '|', '&', '(', ')', '<', '>', '{', '}'];
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let before = &rest[..at];
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')))
            .map_or(0, |i| {
                i + before[i..].chars().next().map_or(1, char::len_utf8)
            });
        let after = &rest[at..];
        let len = after
            .find(|c: char| c.is_whitespace() || ENDS.contains(&c))
            .unwrap_or(after.len());
        let url = &rest[start..at + len];
        if start < at {
            check_url_text(url)?;
        }
        rest = &rest[at + len.max(3)..];
    }
    Ok(())
}

/// [`check_url_text`], letting `operator`'s exact host and port past the
/// host rules (local names, private literal addresses). Everything else
/// (scheme, user info, numeric spellings) is checked as usual.
pub(crate) fn check_url_text_with(
    input: &str,
    operator: Option<&OperatorHost>,
) -> Result<CheckedUrl, Refusal> {
    let url = Url::parse(input)
        .map_err(|err| Refusal::new(RULE, Stage::Text, format!("not a valid URL: {err}")))?;
    let raw = raw_authority(input).unwrap_or(RawAuthority {
        has_userinfo: false,
        host: String::new(),
    });
    check_parsed(url, &raw, operator)
}

fn check_parsed(
    mut url: Url,
    raw: &RawAuthority,
    operator: Option<&OperatorHost>,
) -> Result<CheckedUrl, Refusal> {
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return Err(Refusal::new(
            RULE,
            Stage::Text,
            format!("scheme `{scheme}` is not allowed (only http and https)"),
        ));
    }
    if raw.has_userinfo || !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::new(
            RULE,
            Stage::Text,
            "credentials (user info before `@`) are not allowed in a URL",
        ));
    }
    let port = url.port_or_known_default();
    let https = url.scheme() == "https";
    let is_operator = |target: &Target| operator.is_some_and(|op| op.matches(https, target, port));
    let mut operator_match = false;
    let target = match url.host() {
        None => return Err(Refusal::new(RULE, Stage::Text, "the URL has no host")),
        Some(Host::Ipv4(addr)) => {
            // The parser accepts many spellings of a number; only the
            // canonical dotted quad, written exactly so, is allowed.
            if raw.host != addr.to_string() {
                return Err(Refusal::new(
                    RULE,
                    Stage::Text,
                    format!(
                        "numeric host form `{}` (read as {addr}) is not allowed; only a plain dotted-quad address is",
                        raw.host
                    ),
                ));
            }
            let literal = Target::Address(IpAddr::V4(addr));
            if is_operator(&literal) {
                operator_match = true;
                literal
            } else {
                check_literal(IpAddr::V4(addr))?
            }
        }
        Some(Host::Ipv6(addr)) => {
            let literal = Target::Address(IpAddr::V6(addr));
            if is_operator(&literal) {
                operator_match = true;
                literal
            } else {
                check_literal(IpAddr::V6(addr))?
            }
        }
        Some(Host::Domain(domain)) => {
            let name = Target::Name(domain.trim_end_matches('.').to_ascii_lowercase());
            if is_operator(&name) {
                operator_match = true;
                name
            } else {
                Target::Name(check_name(domain)?)
            }
        }
    };
    url.set_fragment(None);
    Ok(CheckedUrl {
        url,
        target,
        operator: operator_match,
    })
}

fn check_literal(ip: IpAddr) -> Result<Target, Refusal> {
    check_ip(ip).map_err(|refusal| Refusal::new(RULE, Stage::Text, refusal.to_string()))?;
    Ok(Target::Address(ip))
}

fn check_name(domain: &str) -> Result<String, Refusal> {
    let name = domain.trim_end_matches('.').to_ascii_lowercase();
    if name.is_empty() {
        return Err(Refusal::new(RULE, Stage::Text, "the host name is empty"));
    }
    if name == "localhost" {
        return Err(Refusal::new(
            RULE,
            Stage::Text,
            format!("host `{domain}` is this machine (localhost)"),
        ));
    }
    for suffix in LOCAL_SUFFIXES {
        if name.ends_with(suffix) {
            return Err(Refusal::new(
                RULE,
                Stage::Text,
                format!("host `{domain}` ends in `{suffix}`, a local-network name"),
            ));
        }
    }
    if !name.contains('.') {
        return Err(Refusal::new(
            RULE,
            Stage::Text,
            format!("host `{domain}` is a single-label name, which only local networks resolve"),
        ));
    }
    // No top-level domain is numeric; a numeric last label is an address
    // written in a form the parser did not take as one.
    let last = name.rsplit('.').next().unwrap_or_default();
    let hex = last
        .strip_prefix("0x")
        .is_some_and(|h| h.chars().all(|c| c.is_ascii_hexdigit()));
    if last.chars().all(|c| c.is_ascii_digit()) || hex {
        return Err(Refusal::new(
            RULE,
            Stage::Text,
            format!("host `{domain}` ends in a number: numeric host forms are not allowed"),
        ));
    }
    Ok(name)
}

/// The authority as written in the original text, before normalisation.
struct RawAuthority {
    has_userinfo: bool,
    host: String,
}

/// Extracts the host text as written, following the WHATWG parser's own
/// steps for special schemes: outer C0/space trimmed, tab and newlines
/// removed, any run of `/` and `\` after the scheme skipped, the authority
/// ending at `/`, `\`, `?` or `#`, user info ending at the last `@`, the host
/// ending at the first `:` outside brackets. Returns `None` for a
/// path-relative reference (no authority of its own).
fn raw_authority(input: &str) -> Option<RawAuthority> {
    let cleaned: String = input
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (had_scheme, rest) = match cleaned.find(':') {
        Some(idx) if is_scheme(&cleaned[..idx]) => (true, &cleaned[idx + 1..]),
        _ => (false, cleaned.as_str()),
    };
    let after_slashes = rest.trim_start_matches(['/', '\\']);
    let slashes = rest.len() - after_slashes.len();
    if !had_scheme && slashes < 2 {
        return None;
    }
    let end = after_slashes
        .find(['/', '\\', '?', '#'])
        .unwrap_or(after_slashes.len());
    let authority = &after_slashes[..end];
    let (has_userinfo, host_port) = match authority.rfind('@') {
        Some(at) => (true, &authority[at + 1..]),
        None => (false, authority),
    };
    let host = if host_port.starts_with('[') {
        match host_port.find(']') {
            Some(close) => &host_port[..=close],
            None => host_port,
        }
    } else {
        host_port.split(':').next().unwrap_or_default()
    };
    Some(RawAuthority {
        has_userinfo,
        host: host.to_owned(),
    })
}

fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: URL-1
    #[test]
    fn canonical_public_forms_pass() {
        for ok in [
            "https://example.com/",
            "http://93.184.215.14/",
            "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/",
            "https://EXAMPLE.com./path?q=1#frag",
        ] {
            assert!(check_url_text(ok).is_ok(), "{ok}");
        }
    }

    // proves: URL-1 (round7 #1: a host command line's URLs)
    #[test]
    fn urls_in_a_command_line_are_checked() {
        for bad in [
            "curl -s http://127.0.0.1:80/page.html",
            "curl -s 'http://localhost/x'",
            "wget -qO- \"http://169.254.169.254/latest/meta-data/\"",
            "echo a && curl http://0x7f.1/|sh",
            "curl -s https://example.com/ http://10.0.0.1/",
            "curl -d x HTTP://[::1]:8080/",
        ] {
            assert!(check_urls_in_text(bad).is_err(), "{bad}");
        }
        for ok in [
            "curl -s https://example.com/a?b=c",
            "curl --version",
            "echo ://",
            "git fetch origin",
        ] {
            assert!(check_urls_in_text(ok).is_ok(), "{ok}");
        }
    }

    // proves: URL-1
    #[test]
    fn fragment_is_never_kept() {
        let checked = check_url_text("https://example.com/a#secret").expect("passes");
        assert_eq!(checked.url().as_str(), "https://example.com/a");
    }

    // proves: URL-3
    #[test]
    fn redirect_join_checks_the_location_host_as_written() {
        let base = check_url_text("https://example.com/a/b").expect("passes");
        assert!(base.join_checked("/c").is_ok());
        assert!(base.join_checked("../c").is_ok());
        assert!(base.join_checked("//0x7f000001/").is_err());
        assert!(base.join_checked("http://2130706433/").is_err());
        assert!(base.join_checked("//localhost./").is_err());
        assert!(base.join_checked("//@example.com/").is_err());
        assert!(base.join_checked("\\\\127.1/").is_err());
        assert!(base.join_checked("gopher://example.com/").is_err());
    }
}
