//! This machine's own addresses (URL-2, issue 14 item 7): a service bound on
//! all addresses answers on every address of every interface, and an
//! interface may carry a public address (a server, a VPN, a cloud VM with
//! its public IP on the interface). The address policy's ranges cannot know
//! those, so the fetcher also refuses every address this machine holds right
//! now, whatever its range.
//!
//! "Right now": the list is read from the kernel (`getifaddrs`, a netlink
//! dump) for each hop and again at the dial, not cached, so an address added
//! a moment ago is already refused. It costs a few microseconds per hop
//! (`benches/checks.rs`, `local_addresses/*`), next to the milliseconds of
//! resolving and connecting. If the list cannot be read, the fetch is refused
//! (fail closed).

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
        Ok(Self { addresses })
    }

    /// A fixed list (tests, the benchmark).
    pub fn from_list(addresses: impl IntoIterator<Item = (IpAddr, String)>) -> Self {
        Self {
            addresses: addresses
                .into_iter()
                .map(|(ip, name)| (dial_form(ip), name))
                .collect(),
        }
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
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
