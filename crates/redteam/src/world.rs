//! The private network world: a new user + network namespace made by the
//! running process itself ("this machine": loopback and one end of a veth
//! link), and a second network namespace held by one thread ("the
//! internet": the other end, with *local routes* for the public-looking
//! ranges the fixture servers answer on). This machine routes those ranges
//! through the link, so to the egress door they are hosts elsewhere, exactly
//! as on the internet; nothing can leave the two namespaces. Everything is
//! done over netlink in process (rtnetlink), not by running `ip`.
//!
//! [`enter`] must run while the process has one thread (the kernel refuses
//! a new user namespace to a threaded process).

use std::net::Ipv4Addr;

use futures_util::TryStreamExt;
use rtnetlink::packet_route::route::{RouteMessage, RouteScope, RouteType};
use rtnetlink::{LinkUnspec, LinkVeth, RouteMessageBuilder};

/// The kernel's table for local routes.
const LOCAL_TABLE: u32 = 255;

/// Why the world could not be made.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// User or network namespaces are not available to this user.
    #[error(
        "unprivileged user and network namespaces are not available here ({0}); enable them \
         (Debian/Ubuntu: sysctl kernel.unprivileged_userns_clone=1; Ubuntu 24.04+: \
         kernel.apparmor_restrict_unprivileged_userns=0) and run it again"
    )]
    Unavailable(String),
    /// A netlink request failed.
    #[error("could not set up the private network: {0}")]
    Network(String),
}

/// Enter a new user namespace (this user mapped to root in it) and a new
/// network namespace owned by it. Call it while the process is
/// single-threaded.
///
/// # Errors
/// [`WorldError::Unavailable`] when the kernel refuses.
pub fn enter() -> Result<(), WorldError> {
    use nix::sched::{CloneFlags, unshare};
    let uid = nix::unistd::getuid().as_raw();
    let gid = nix::unistd::getgid().as_raw();
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET)
        .map_err(|err| WorldError::Unavailable(format!("unshare: {err}")))?;
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text)
            .map_err(|err| WorldError::Unavailable(format!("writing /proc/self/{file}: {err}")))
    };
    write("setgroups", "deny".into())?;
    write("uid_map", format!("0 {uid} 1"))?;
    write("gid_map", format!("0 {gid} 1"))
}

/// Enter only a new network namespace (the caller already owns its user
/// namespace): for a thread that plays a second host.
///
/// # Errors
/// [`WorldError::Unavailable`] when the kernel refuses.
pub fn enter_network_only() -> Result<(), WorldError> {
    nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET)
        .map_err(|err| WorldError::Unavailable(format!("unshare(CLONE_NEWNET): {err}")))
}

/// A netlink connection to this thread's network namespace.
pub struct Net {
    handle: rtnetlink::Handle,
}

fn net_err(what: &str) -> impl FnOnce(rtnetlink::Error) -> WorldError + '_ {
    move |err| WorldError::Network(format!("{what}: {err}"))
}

impl Net {
    /// Open a connection (inside a Tokio runtime).
    ///
    /// # Errors
    /// The netlink socket cannot be opened.
    pub fn connect() -> Result<Self, WorldError> {
        let (connection, handle, _) = rtnetlink::new_connection()
            .map_err(|err| WorldError::Network(format!("netlink socket: {err}")))?;
        tokio::spawn(connection);
        Ok(Self { handle })
    }

    /// The index of the interface `name`.
    ///
    /// # Errors
    /// No such interface, or netlink failed.
    pub async fn index(&self, name: &str) -> Result<u32, WorldError> {
        let mut links = self.handle.link().get().match_name(name).execute();
        match links.try_next().await.map_err(net_err(name))? {
            Some(link) => Ok(link.header.index),
            None => Err(WorldError::Network(format!("no interface {name}"))),
        }
    }

    /// Bring interface `name` up.
    ///
    /// # Errors
    /// Netlink failed.
    pub async fn up(&self, name: &str) -> Result<(), WorldError> {
        let index = self.index(name).await?;
        self.handle
            .link()
            .set(LinkUnspec::new_with_index(index).up().build())
            .execute()
            .await
            .map_err(net_err(name))
    }

    /// Deliver every packet for `net/prefix` to this namespace's own
    /// sockets, through loopback (a `local` route).
    ///
    /// # Errors
    /// Netlink failed.
    pub async fn route_local(&self, net: Ipv4Addr, prefix: u8) -> Result<(), WorldError> {
        let lo = self.index("lo").await?;
        let route = RouteMessageBuilder::<Ipv4Addr>::new()
            .destination_prefix(net, prefix)
            .output_interface(lo)
            .table_id(LOCAL_TABLE)
            .scope(RouteScope::Host)
            .kind(RouteType::Local)
            .build();
        self.add_route(route, "local route").await
    }

    async fn add_route(&self, route: RouteMessage, what: &str) -> Result<(), WorldError> {
        self.handle
            .route()
            .add(route)
            .execute()
            .await
            .map_err(net_err(what))
    }

    /// Send `net/prefix` through `gateway` (a neighbour on a link).
    ///
    /// # Errors
    /// Netlink failed.
    pub async fn route_via(
        &self,
        net: Ipv4Addr,
        prefix: u8,
        gateway: Ipv4Addr,
    ) -> Result<(), WorldError> {
        let route = RouteMessageBuilder::<Ipv4Addr>::new()
            .destination_prefix(net, prefix)
            .gateway(gateway)
            .build();
        self.add_route(route, "route").await
    }

    /// Create the veth pair `name` / `peer`.
    ///
    /// # Errors
    /// Netlink failed.
    pub async fn veth(&self, name: &str, peer: &str) -> Result<(), WorldError> {
        self.handle
            .link()
            .add(LinkVeth::new(name, peer).build())
            .execute()
            .await
            .map_err(net_err("veth pair"))
    }

    /// Move interface `name` into the network namespace of thread `tid`.
    ///
    /// # Errors
    /// Netlink failed.
    pub async fn move_to(&self, name: &str, tid: u32) -> Result<(), WorldError> {
        let index = self.index(name).await?;
        self.handle
            .link()
            .set(LinkUnspec::new_with_index(index).setns_by_pid(tid).build())
            .execute()
            .await
            .map_err(net_err("move interface"))
    }

    /// Give interface `name` the address `addr/prefix`.
    ///
    /// # Errors
    /// Netlink failed.
    pub async fn address(&self, name: &str, addr: Ipv4Addr, prefix: u8) -> Result<(), WorldError> {
        let index = self.index(name).await?;
        self.handle
            .address()
            .add(index, addr.into(), prefix)
            .execute()
            .await
            .map_err(net_err("address"))
    }
}
