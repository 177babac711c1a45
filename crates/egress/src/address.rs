//! The address policy: pure, with its own CIDR tables (std's `is_global` is
//! unstable). Anything not plainly public is refused. IPv4 embedded in IPv6 is
//! judged by the embedded IPv4 address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address was refused: the range it falls in and what that range is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressRefusal {
    /// The refused address as given.
    pub address: IpAddr,
    /// The range (CIDR) that refused it, e.g. `"127.0.0.0/8"`.
    pub range: &'static str,
    /// What the range is, e.g. `"loopback"`.
    pub what: &'static str,
}

impl std::fmt::Display for AddressRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "address {} is in {} ({}), not a public address",
            self.address, self.range, self.what
        )
    }
}

/// One IPv4 range: network, prefix length, printable CIDR, meaning.
struct V4Range(u32, u8, &'static str, &'static str);
/// One IPv6 range: network, prefix length, printable CIDR, meaning.
struct V6Range(u128, u8, &'static str, &'static str);

const fn v4(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from_be_bytes([a, b, c, d])
}

/// IPv4 ranges that are never fetched (IANA special-purpose registry plus
/// cloud metadata addresses that sit outside those ranges).
const V4_REFUSED: &[V4Range] = &[
    V4Range(v4(0, 0, 0, 0), 8, "0.0.0.0/8", "this network"),
    V4Range(v4(10, 0, 0, 0), 8, "10.0.0.0/8", "private network"),
    V4Range(v4(100, 64, 0, 0), 10, "100.64.0.0/10", "carrier-grade NAT"),
    V4Range(v4(127, 0, 0, 0), 8, "127.0.0.0/8", "loopback"),
    V4Range(
        v4(169, 254, 0, 0),
        16,
        "169.254.0.0/16",
        "link-local and cloud metadata",
    ),
    V4Range(v4(172, 16, 0, 0), 12, "172.16.0.0/12", "private network"),
    V4Range(
        v4(192, 0, 0, 0),
        24,
        "192.0.0.0/24",
        "IETF protocol assignments",
    ),
    V4Range(
        v4(192, 0, 2, 0),
        24,
        "192.0.2.0/24",
        "documentation (TEST-NET-1)",
    ),
    V4Range(v4(192, 31, 196, 0), 24, "192.31.196.0/24", "AS112 service"),
    V4Range(v4(192, 52, 193, 0), 24, "192.52.193.0/24", "AMT"),
    V4Range(
        v4(192, 88, 99, 0),
        24,
        "192.88.99.0/24",
        "6to4 relay anycast",
    ),
    V4Range(v4(192, 168, 0, 0), 16, "192.168.0.0/16", "private network"),
    V4Range(
        v4(192, 175, 48, 0),
        24,
        "192.175.48.0/24",
        "direct delegation AS112",
    ),
    V4Range(v4(198, 18, 0, 0), 15, "198.18.0.0/15", "benchmarking"),
    V4Range(
        v4(198, 51, 100, 0),
        24,
        "198.51.100.0/24",
        "documentation (TEST-NET-2)",
    ),
    V4Range(
        v4(203, 0, 113, 0),
        24,
        "203.0.113.0/24",
        "documentation (TEST-NET-3)",
    ),
    V4Range(v4(224, 0, 0, 0), 4, "224.0.0.0/4", "multicast"),
    V4Range(v4(240, 0, 0, 0), 4, "240.0.0.0/4", "reserved"),
    V4Range(
        v4(255, 255, 255, 255),
        32,
        "255.255.255.255/32",
        "broadcast",
    ),
    V4Range(
        v4(168, 63, 129, 16),
        32,
        "168.63.129.16/32",
        "Azure host metadata",
    ),
];

const fn v6(s: [u16; 8]) -> u128 {
    let mut out: u128 = 0;
    let mut i = 0;
    while i < 8 {
        out = (out << 16) | s[i] as u128;
        i += 1;
    }
    out
}

/// IPv6 ranges inside 2000::/3 that are still refused.
const V6_REFUSED_IN_GLOBAL: &[V6Range] = &[
    V6Range(
        v6([0x2001, 0x0db8, 0, 0, 0, 0, 0, 0]),
        32,
        "2001:db8::/32",
        "documentation",
    ),
    V6Range(
        v6([0x2001, 0, 0, 0, 0, 0, 0, 0]),
        23,
        "2001::/23",
        "IETF protocol assignments (Teredo, ORCHID, ...)",
    ),
    V6Range(
        v6([0x3fff, 0, 0, 0, 0, 0, 0, 0]),
        20,
        "3fff::/20",
        "documentation",
    ),
    V6Range(
        v6([0x2002, 0, 0, 0, 0, 0, 0, 0]),
        16,
        "2002::/16",
        "6to4 (embeds an IPv4 address of any kind)",
    ),
];

/// Named IPv6 ranges outside 2000::/3, for clearer reasons.
const V6_REFUSED_NAMED: &[V6Range] = &[
    V6Range(
        v6([0x0100, 0, 0, 0, 0, 0, 0, 0]),
        64,
        "100::/64",
        "discard-only",
    ),
    V6Range(
        v6([0x0064, 0xff9b, 0x0001, 0, 0, 0, 0, 0]),
        48,
        "64:ff9b:1::/48",
        "local-use IPv4/IPv6 translation",
    ),
    V6Range(
        v6([0xfc00, 0, 0, 0, 0, 0, 0, 0]),
        7,
        "fc00::/7",
        "unique local (private network)",
    ),
    V6Range(
        v6([0xfe80, 0, 0, 0, 0, 0, 0, 0]),
        10,
        "fe80::/10",
        "link-local",
    ),
    V6Range(
        v6([0xfec0, 0, 0, 0, 0, 0, 0, 0]),
        10,
        "fec0::/10",
        "site-local (deprecated)",
    ),
    V6Range(
        v6([0xff00, 0, 0, 0, 0, 0, 0, 0]),
        8,
        "ff00::/8",
        "multicast",
    ),
    V6Range(
        v6([0x5f00, 0, 0, 0, 0, 0, 0, 0]),
        16,
        "5f00::/16",
        "segment routing (SRv6) SIDs",
    ),
];

fn in_v4(addr: u32, net: u32, prefix: u8) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - prefix)
    };
    addr & mask == net & mask
}

fn in_v6(addr: u128, net: u128, prefix: u8) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u128::MAX << (128 - prefix)
    };
    addr & mask == net & mask
}

/// The address policy: `Ok(())` only for a plainly public address.
///
/// IPv4-mapped (`::ffff:0:0/96`), IPv4-compatible (`::/96`), SIIT
/// (`::ffff:0:0:0/96`) and NAT64 (`64:ff9b::/96`) IPv6 addresses are judged by
/// the IPv4 address they carry; every other IPv6 address must be inside
/// `2000::/3` and outside the special ranges there.
pub fn check_ip(ip: IpAddr) -> Result<(), AddressRefusal> {
    if cfg!(feature = "teeth") {
        return Ok(());
    }
    match ip {
        IpAddr::V4(v4addr) => check_v4(v4addr).map_err(|(range, what)| AddressRefusal {
            address: ip,
            range,
            what,
        }),
        IpAddr::V6(v6addr) => check_v6(v6addr).map_err(|(range, what)| AddressRefusal {
            address: ip,
            range,
            what,
        }),
    }
}

fn check_v4(addr: Ipv4Addr) -> Result<(), (&'static str, &'static str)> {
    let bits = u32::from(addr);
    for V4Range(net, prefix, range, what) in V4_REFUSED {
        if in_v4(bits, *net, *prefix) {
            return Err((range, what));
        }
    }
    Ok(())
}

/// The IPv4 address carried inside an IPv6 address, for the embeddings that
/// deliver packets to that IPv4 address.
fn embedded_v4(addr: Ipv6Addr) -> Option<(Ipv4Addr, &'static str)> {
    let bits = u128::from(addr);
    let low = Ipv4Addr::from((bits & 0xffff_ffff) as u32);
    if in_v6(bits, v6([0, 0, 0, 0, 0, 0xffff, 0, 0]), 96) {
        return Some((low, "IPv4-mapped ::ffff:0:0/96"));
    }
    if in_v6(bits, v6([0, 0, 0, 0, 0xffff, 0, 0, 0]), 96) {
        return Some((low, "SIIT ::ffff:0:0:0/96"));
    }
    if in_v6(bits, v6([0x0064, 0xff9b, 0, 0, 0, 0, 0, 0]), 96) {
        return Some((low, "NAT64 64:ff9b::/96"));
    }
    // `::` and `::1` are in ::/96 too but are their own things, judged below.
    if in_v6(bits, 0, 96) && bits > 1 {
        return Some((low, "IPv4-compatible ::/96"));
    }
    None
}

fn check_v6(addr: Ipv6Addr) -> Result<(), (&'static str, &'static str)> {
    let bits = u128::from(addr);
    if bits == 0 {
        return Err(("::/128", "unspecified"));
    }
    if bits == 1 {
        return Err(("::1/128", "loopback"));
    }
    if let Some((inner, embedding)) = embedded_v4(addr) {
        return check_v4(inner).map_err(|(_, what)| (embedding, what));
    }
    for V6Range(net, prefix, range, what) in V6_REFUSED_NAMED {
        if in_v6(bits, *net, *prefix) {
            return Err((range, what));
        }
    }
    if !in_v6(bits, v6([0x2000, 0, 0, 0, 0, 0, 0, 0]), 3) {
        return Err(("outside 2000::/3", "not global unicast"));
    }
    for V6Range(net, prefix, range, what) in V6_REFUSED_IN_GLOBAL {
        if in_v6(bits, *net, *prefix) {
            return Err((range, what));
        }
    }
    Ok(())
}

/// The ranges an operator-named host (see `OperatorHost`) may be written as
/// or resolve to, beyond public addresses: the operator's own machine and
/// networks. Link-local (cloud metadata), multicast, broadcast, unspecified,
/// documentation, translation and reserved ranges stay refused even there.
const OPERATOR_RANGES: &[&str] = &[
    "127.0.0.0/8",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",
    "::1/128",
    "fc00::/7",
];

/// The address policy for the operator-named host only: public, loopback,
/// private, carrier-grade NAT and unique-local addresses pass (an IPv4-mapped
/// address is judged as the IPv4 address it is dialled as); nothing else.
pub(crate) fn check_operator_ip(ip: IpAddr) -> Result<(), AddressRefusal> {
    match check_ip(dial_form(ip)) {
        Err(refusal) if OPERATOR_RANGES.contains(&refusal.range) => Ok(()),
        other => other,
    }
}

/// The address to dial for a checked address: IPv4-mapped IPv6 becomes the
/// IPv4 address it stands for (`to_canonical`), everything else is unchanged.
pub(crate) fn dial_form(ip: IpAddr) -> IpAddr {
    ip.to_canonical()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(s: &str) -> bool {
        check_ip(s.parse().expect("test address parses")).is_err()
    }

    // proves: URL-1
    #[test]
    fn every_listed_v4_range_is_refused_at_both_edges() {
        for V4Range(net, prefix, range, _) in V4_REFUSED {
            let first = Ipv4Addr::from(*net);
            let span = if *prefix == 32 {
                0
            } else {
                (1u32 << (32 - prefix)) - 1
            };
            let last = Ipv4Addr::from(net | span);
            assert!(check_ip(first.into()).is_err(), "{range} first {first}");
            assert!(check_ip(last.into()).is_err(), "{range} last {last}");
        }
    }

    // proves: URL-1
    #[test]
    fn neighbours_of_private_ranges_are_public() {
        for ok in [
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "93.184.215.14",
            "1.1.1.1",
            "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
            "2a00:1450:4001:80b::200e",
            "::ffff:93.184.215.14",
            "64:ff9b::5db8:d70e",
        ] {
            assert!(!refused(ok), "{ok} should be public");
        }
    }

    // proves: URL-1
    #[test]
    fn v6_specials_and_embeddings_are_refused() {
        for bad in [
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:7f00:1",
            "::ffff:169.254.169.254",
            "::ffff:0:10.0.0.1",
            "::127.0.0.1",
            "::0.0.0.2",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::1",
            "fc00::1",
            "fd00:ec2::254",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "100::1",
            "2001::1",
            "2001:10::1",
            "3fff::1",
            "5f00::1",
            "2002:7f00:1::1",
            "2002:c0a8:101::1",
            "4000::1",
            "1000::1",
            "e000::1",
        ] {
            assert!(refused(bad), "{bad} should be refused");
        }
    }
}
