//! This machine's own addresses (URL-2, issue 14 item 7): a service bound on
//! all addresses answers on every address of every interface, and an
//! interface may carry a public address (a server, a VPN, a cloud VM with
//! its public IP on the interface). The address policy's ranges cannot know
//! those, so the fetcher also refuses every address this machine holds right
//! now, whatever its range.
//!
//! "Right now": the list is read from the kernel (`getifaddrs`, a netlink
//! dump) for each hop and again at the dial, not cached, so an address added
//! a moment ago is already refused. The interface list costs a few
//! microseconds per hop (`benches/checks.rs`, `local_addresses/*`); reading
//! the two route tables below adds two small `/proc` reads (not re-measured),
//! next to the milliseconds of resolving and connecting. If the list cannot be read, the fetch is refused
//! (fail closed).
//!
//! An address need not sit on an interface to be this machine's: a route of
//! type `local` (`ip route add local 7.7.7.0/24 dev lo`, AnyIP, used by
//! proxies and load balancers) makes the kernel deliver a whole prefix to
//! local sockets, so a service bound on all addresses answers on every
//! address in it (outside attack sandbox #6). Those prefixes are read too,
//! from the kernel's routing tables as `/proc` shows them: IPv4 from
//! `/proc/net/fib_trie` (every leaf of type `LOCAL`, in any table), IPv6
//! from `/proc/net/ipv6_route` (every route flagged `RTF_LOCAL`, all
//! tables). Unreadable tables refuse the fetch, as above.

use std::net::IpAddr;

use crate::{
    address::dial_form,
    refusal::{Refusal, Stage},
};

/// The rule a refusal here enforces.
const RULE: &str = "URL-2";

/// The addresses of this machine's interfaces at the moment of the call,
/// each with its interface name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThisMachine {
    addresses: Vec<(IpAddr, String)>,
    /// Prefixes the kernel delivers locally (`local` routes), as
    /// (network, prefix length).
    local_routes: Vec<(IpAddr, u8)>,
}

/// `RTF_LOCAL` in `/proc/net/ipv6_route`'s flags (linux/ipv6_route.h).
const RTF_LOCAL: u32 = 0x8000_0000;

/// The IPv4 prefixes of type `LOCAL` in `/proc/net/fib_trie`'s text: each
/// leaf line `|-- ADDRESS` is followed by its routes, `/LEN SCOPE TYPE`.
pub fn fib_trie_local_routes(text: &str) -> Vec<(IpAddr, u8)> {
    let mut routes = Vec::new();
    let mut leaf: Option<std::net::Ipv4Addr> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(address) = line.strip_prefix("|-- ") {
            leaf = address.trim().parse().ok();
        } else if let Some(route) = line.strip_prefix('/') {
            let mut words = route.split_whitespace();
            let len = words.next().and_then(|len| len.parse::<u8>().ok());
            let is_local = words.last() == Some("LOCAL");
            if let (Some(address), Some(len), true) = (leaf, len, is_local) {
                let route = (IpAddr::V4(address), len.min(32));
                if !routes.contains(&route) {
                    routes.push(route);
                }
            }
        } else {
            leaf = None;
        }
    }
    routes
}

/// The IPv6 prefixes flagged `RTF_LOCAL` in `/proc/net/ipv6_route`'s text
/// (fields: destination, its prefix length in hex, source, its length,
/// next hop, metric, references, use, flags, device).
pub fn ipv6_route_local_routes(text: &str) -> Vec<(IpAddr, u8)> {
    let mut routes = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(dest), Some(len), Some(flags)) = (fields.first(), fields.get(1), fields.get(8))
        else {
            continue;
        };
        let flags = u32::from_str_radix(flags, 16).unwrap_or(0);
        if fields.len() < 10 || flags & RTF_LOCAL == 0 {
            continue;
        }
        let (Ok(bits), Ok(len)) = (u128::from_str_radix(dest, 16), u8::from_str_radix(len, 16))
        else {
            continue;
        };
        let route = (IpAddr::V6(std::net::Ipv6Addr::from(bits)), len.min(128));
        if !routes.contains(&route) {
            routes.push(route);
        }
    }
    routes
}

/// Whether `ip` lies in `network/len` (same family only).
fn in_prefix(ip: IpAddr, network: IpAddr, len: u8) -> bool {
    match (ip, network) {
        (IpAddr::V4(ip), IpAddr::V4(net)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

impl ThisMachine {
    /// Reads the interface addresses from the kernel now.
    pub fn now() -> std::io::Result<Self> {
        let mut addresses = Vec::new();
        for entry in nix::ifaddrs::getifaddrs().map_err(std::io::Error::from)? {
            let Some(address) = entry.address else {
                continue;
            };
            let ip = if let Some(v4) = address.as_sockaddr_in() {
                IpAddr::V4(v4.ip())
            } else if let Some(v6) = address.as_sockaddr_in6() {
                IpAddr::V6(v6.ip())
            } else {
                continue;
            };
            addresses.push((dial_form(ip), entry.interface_name));
        }
        let mut local_routes =
            fib_trie_local_routes(&std::fs::read_to_string("/proc/net/fib_trie")?);
        // A kernel without IPv6 has no such file: nothing is routed there.
        match std::fs::read_to_string("/proc/net/ipv6_route") {
            Ok(text) => local_routes.extend(ipv6_route_local_routes(&text)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(err),
        }
        Ok(Self {
            addresses,
            local_routes,
        })
    }

    /// A fixed list (tests, the benchmark).
    pub fn from_list(addresses: impl IntoIterator<Item = (IpAddr, String)>) -> Self {
        Self {
            addresses: addresses
                .into_iter()
                .map(|(ip, name)| (dial_form(ip), name))
                .collect(),
            local_routes: Vec::new(),
        }
    }

    /// With these `local` route prefixes as well (tests).
    pub fn with_local_routes(mut self, routes: impl IntoIterator<Item = (IpAddr, u8)>) -> Self {
        self.local_routes.extend(routes);
        self
    }

    /// The `local` route holding `ip`, as `network/len`, if any.
    pub fn local_route_of(&self, ip: IpAddr) -> Option<String> {
        let ip = dial_form(ip);
        self.local_routes
            .iter()
            .find(|(network, len)| in_prefix(ip, *network, *len))
            .map(|(network, len)| format!("{network}/{len}"))
    }

    /// The interface holding `ip`, if this machine holds it (IPv4-mapped
    /// IPv6 is compared as the IPv4 address it is dialled as).
    pub fn interface_of(&self, ip: IpAddr) -> Option<&str> {
        let ip = dial_form(ip);
        self.addresses
            .iter()
            .find(|(own, _)| *own == ip)
            .map(|(_, name)| name.as_str())
    }

    /// Every address held, with its interface.
    pub fn addresses(&self) -> &[(IpAddr, String)] {
        &self.addresses
    }
}

/// Refuses when any of `addresses` belongs to this machine now, or when the
/// list of this machine's addresses cannot be read. `what` names the host
/// for the reason (e.g. "`example.com` resolves to").
pub fn check_not_this_machine(
    addresses: &[IpAddr],
    what: &str,
    stage: Stage,
) -> Result<(), Refusal> {
    let machine = ThisMachine::now().map_err(|err| {
        Refusal::new(
            RULE,
            stage,
            format!(
                "cannot list this machine's own addresses ({err}), so `{what}` cannot be checked against them; refused (fail closed)"
            ),
        )
    })?;
    check_against(&machine, addresses, what, stage)
}

/// [`check_not_this_machine`] against a given list.
pub fn check_against(
    machine: &ThisMachine,
    addresses: &[IpAddr],
    what: &str,
    stage: Stage,
) -> Result<(), Refusal> {
    if cfg!(feature = "teeth") {
        return Ok(());
    }
    for ip in addresses {
        if let Some(interface) = machine.interface_of(*ip) {
            return Err(Refusal::new(
                RULE,
                stage,
                format!(
                    "{what} {ip}, an address of this machine (interface {interface}); a fetch never comes back to this machine, whatever the address's range"
                ),
            ));
        }
        if let Some(route) = machine.local_route_of(*ip) {
            return Err(Refusal::new(
                RULE,
                stage,
                format!(
                    "{what} {ip}, which this machine delivers to itself (a `local` route for {route}); a fetch never comes back to this machine, whatever the address's range"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: URL-2 (outside attack sandbox #6: a `local` route's whole
    // prefix is this machine; parsed from the kernel's own text)
    #[test]
    fn local_routes_are_this_machine() {
        let trie = "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 0.0.0.0\n        /0 universe UNICAST\n     |-- 7.7.7.0\n        /24 host LOCAL\n     |-- 192.0.2.0\n        /24 link UNICAST\n        /32 host LOCAL\n     |-- 192.0.2.255\n        /32 link BROADCAST\nLocal:\n     |-- 7.7.7.0\n        /24 host LOCAL\n";
        let v4 = fib_trie_local_routes(trie);
        assert_eq!(
            v4,
            [
                ("7.7.7.0".parse().unwrap(), 24),
                ("192.0.2.0".parse().unwrap(), 32)
            ]
        );
        let v6 = ipv6_route_local_routes(
            "20010db8000000000000000000000000 20 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000001 00000000 80200001       lo\n\
             fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0\n",
        );
        assert_eq!(v6, [("2001:db8::".parse().unwrap(), 32)]);
        let machine = ThisMachine::from_list([]).with_local_routes(v4.into_iter().chain(v6));
        for ip in [
            "7.7.7.7",
            "7.7.7.255",
            "::ffff:7.7.7.1",
            "2001:db8:1::5",
            "192.0.2.0",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            let refusal = check_against(&machine, &[ip], "`x`", Stage::Resolve).unwrap_err();
            assert_eq!(refusal.rule, "URL-2");
            assert!(
                refusal.reason.contains("local` route"),
                "{}",
                refusal.reason
            );
        }
        for ip in ["7.7.8.1", "192.0.2.1", "2001:db9::1", "93.184.215.14"] {
            let ip: IpAddr = ip.parse().unwrap();
            assert!(
                check_against(&machine, &[ip], "`x`", Stage::Resolve).is_ok(),
                "{ip}"
            );
        }
    }

    // proves: URL-2 (own addresses, whatever their range; mapped forms too)
    #[test]
    fn own_addresses_are_refused_in_every_spelling() {
        let machine = ThisMachine::from_list([
            ("11.22.33.44".parse().unwrap(), "eth0".to_owned()),
            ("2a00:1450::7".parse().unwrap(), "eth0".to_owned()),
        ]);
        for own in ["11.22.33.44", "::ffff:11.22.33.44", "2a00:1450::7"] {
            let ip: IpAddr = own.parse().unwrap();
            let refusal = check_against(&machine, &[ip], "`x`", Stage::Resolve).unwrap_err();
            assert_eq!(refusal.rule, "URL-2");
            assert!(refusal.reason.contains("eth0"), "{}", refusal.reason);
        }
        for other in ["11.22.33.45", "2a00:1450::8", "93.184.215.14"] {
            let ip: IpAddr = other.parse().unwrap();
            assert!(check_against(&machine, &[ip], "`x`", Stage::Resolve).is_ok());
        }
    }

    // proves: URL-2 (the live list holds at least loopback)
    #[test]
    fn the_live_list_is_read_from_the_kernel() {
        let machine = ThisMachine::now().unwrap();
        assert!(
            machine.addresses().iter().any(|(ip, _)| ip.is_loopback()),
            "{machine:?}"
        );
    }
}
