//! The site rule (BROWSER-2, BEYOND-2, BEYOND-7): once a conversation has
//! read web text, a model-chosen navigation (`web_fetch`, `browser_open`,
//! `browser_click`, `browser_type`, and every redirect hop of theirs) may
//! only go to a *site* already visited in that conversation.
//!
//! A site is the registrable domain of the URL's host, by the public suffix
//! list compiled in with the `psl` crate (`a.example.co.uk` and
//! `b.example.co.uk` are one site, `example.co.uk` and `other.co.uk` are
//! two), or, for an address literal, the exact address (as the URL parser
//! normalises it: `http://0x7f.1/` is `127.0.0.1`). A host that has no
//! registrable domain (a bare public suffix such as `github.io`, a single
//! label) is its own site, exactly.
//!
//! [`site_rule`] is the one function that decides; `Permission::assert`
//! calls it for navigation actions, the agent's redirect gate calls it for
//! each hop, and a later real-browser backend reuses it unchanged.

use std::fmt;

use url::{Host, Url};

/// A site: a registrable domain (lower case, no trailing dot) or an exact
/// address literal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site(String);

impl Site {
    /// The site as text (`example.co.uk`, `93.184.215.14`, `[2001:db8::1]`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A site read back from the store. The text must be what
    /// [`Site::as_str`] gave; it is checked by deriving the site of
    /// `http://<text>/` again, so a stored row cannot widen the rule.
    pub fn from_stored(text: &str) -> Result<Site, SiteError> {
        let site = site_of(&format!("http://{text}/"))?;
        if site.0 == text {
            Ok(site)
        } else {
            Err(SiteError(format!(
                "`{text}` is not a site (its site would be `{}`)",
                site.0
            )))
        }
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a URL has no site (not a URL, no host).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SiteError(String);

/// The site of `url` (see the module docs).
pub fn site_of(url: &str) -> Result<Site, SiteError> {
    let parsed =
        Url::parse(url).map_err(|err| SiteError(format!("`{url}` is not a URL ({err})")))?;
    match parsed.host() {
        None => Err(SiteError(format!("`{url}` names no host"))),
        Some(Host::Ipv4(addr)) => Ok(Site(addr.to_string())),
        Some(Host::Ipv6(addr)) => Ok(Site(format!("[{addr}]"))),
        Some(Host::Domain(name)) => {
            // The URL parser lower-cases and IDNA-encodes; a trailing dot
            // names the same host and must not make a new site.
            let name = name.trim_end_matches('.');
            if name.is_empty() {
                return Err(SiteError(format!("`{url}` names no host")));
            }
            let site = psl::domain_str(name).unwrap_or(name);
            Ok(Site(site.to_ascii_lowercase()))
        }
    }
}

/// What the site rule says about one navigation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SiteCheck {
    /// No web text has been read in the conversation: any site (the URL
    /// checks of the egress door still apply to the first address).
    Open,
    /// The site was visited in this conversation: it may be navigated to.
    Visited(Site),
    /// A site not visited in this tainted conversation: ask (refused where
    /// nobody can answer).
    NewSite(Site),
    /// The URL has no site; in a tainted conversation this asks too.
    NoSite(SiteError),
}

impl SiteCheck {
    /// True when the navigation may go ahead without asking.
    pub fn passes(&self) -> bool {
        matches!(self, SiteCheck::Open | SiteCheck::Visited(_))
    }
}

/// THE site rule: in a conversation that has read web text (`tainted`), a
/// navigation to `url` passes only when its site is among `visited`.
pub fn site_rule<'a>(
    tainted: bool,
    visited: impl IntoIterator<Item = &'a Site>,
    url: &str,
) -> SiteCheck {
    if !tainted || cfg!(feature = "teeth") {
        return SiteCheck::Open;
    }
    match site_of(url) {
        Err(err) => SiteCheck::NoSite(err),
        Ok(site) => {
            if visited.into_iter().any(|v| *v == site) {
                SiteCheck::Visited(site)
            } else {
                SiteCheck::NewSite(site)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(url: &str) -> String {
        site_of(url).unwrap().0
    }

    // proves: BROWSER-2 (a site is the registrable domain, by the public
    // suffix list)
    #[test]
    fn registrable_domains() {
        assert_eq!(site("https://www.example.com/a"), "example.com");
        assert_eq!(site("https://a.b.example.co.uk/"), "example.co.uk");
        assert_eq!(site("https://EXAMPLE.com./x"), "example.com");
        assert_eq!(site("https://alice.github.io/"), "alice.github.io");
        assert_ne!(
            site("https://alice.github.io/"),
            site("https://bob.github.io/"),
            "a public suffix is not one site"
        );
        assert_eq!(site("https://github.io/"), "github.io");
        assert_eq!(site("http://other-site/?d=1"), "other-site");
        assert_eq!(site("https://bücher.example/"), "xn--bcher-kva.example");
    }

    // proves: BEYOND-2 (an address literal is the exact address, in the
    // form the URL parser normalises it to)
    #[test]
    fn address_literals_are_exact() {
        assert_eq!(site("http://0x7f.1/"), "127.0.0.1");
        assert_eq!(site("http://127.0.0.1:8080/"), "127.0.0.1");
        assert_eq!(site("http://[::1]/"), "[::1]");
        assert_ne!(site("http://93.184.215.14/"), site("http://93.184.215.15/"));
    }

    #[test]
    fn no_host_no_site() {
        assert!(site_of("data:text/plain,hi").is_err());
        assert!(site_of("not a url").is_err());
    }

    // proves: BEYOND-7, BROWSER-2
    #[test]
    fn the_rule() {
        let visited = [site_of("https://docs.example.com/").unwrap()];
        assert_eq!(
            site_rule(false, &visited, "http://evil.test/?d=x"),
            SiteCheck::Open
        );
        assert!(site_rule(true, &visited, "https://www.example.com/2").passes());
        assert!(matches!(
            site_rule(true, &visited, "http://evil.test/?d=x"),
            SiteCheck::NewSite(s) if s.as_str() == "evil.test"
        ));
        assert!(matches!(
            site_rule(true, &visited, "example.com"),
            SiteCheck::NoSite(_)
        ));
        assert!(!site_rule(true, &[], "https://example.com/").passes());
    }

    #[test]
    fn stored_sites_round_trip_and_cannot_widen() {
        for url in [
            "https://a.example.co.uk/",
            "http://0x7f.1/",
            "http://[::1]/",
        ] {
            let s = site_of(url).unwrap();
            assert_eq!(Site::from_stored(s.as_str()).unwrap(), s);
        }
        assert!(Site::from_stored("www.example.com").is_err());
        assert!(Site::from_stored("co.uk/x").is_err());
    }
}
