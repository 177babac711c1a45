//! BEYOND-1: the [`Dial`] seam connects to an address that already passed the
//! check. The production dialer checks the address a second time at the dial
//! itself, so no caller can reach a refused address through it.

use std::{future::Future, io, net::SocketAddr, pin::Pin};

use tokio::io::{AsyncRead, AsyncWrite};

use crate::{address::check_ip, local::check_not_this_machine, refusal::Stage, text::OperatorHost};

/// A byte stream the fetcher can speak HTTP (or TLS) over.
pub trait EgressStream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> EgressStream for T {}

/// A boxed [`EgressStream`].
pub type BoxedStream = Box<dyn EgressStream>;

/// The future a [`Dial`] returns.
pub type DialFuture<'a> = Pin<Box<dyn Future<Output = io::Result<BoxedStream>> + Send + 'a>>;

/// Checked address → connected stream. Production: [`TcpDial`]. Tests map
/// public test addresses to loopback servers.
pub trait Dial: Send + Sync {
    /// Connects to exactly `addr` (an address that passed the policy).
    fn dial(&self, addr: SocketAddr) -> DialFuture<'_>;

    /// Connects to `addr`, an address of the operator-named host (which the
    /// address policy does not judge). The default is [`Dial::dial`] (test
    /// dialers); the production dialer checks the port and, for a literal
    /// operator address, the address itself instead of the policy.
    fn dial_operator<'a>(&'a self, addr: SocketAddr, operator: &'a OperatorHost) -> DialFuture<'a> {
        let _ = operator;
        self.dial(addr)
    }
}

/// The production dialer: plain TCP to the given address, after checking it
/// against the address policy again. System proxy settings are never read.
#[derive(Debug, Clone, Copy, Default)]
pub struct TcpDial;

/// The one place in ploy that opens a TCP connection (the egress door).
/// Callers ([`TcpDial::dial`], [`TcpDial::dial_operator`]) check the address
/// first; nothing else calls it.
#[allow(clippy::disallowed_methods)]
async fn open_tcp(addr: SocketAddr) -> io::Result<BoxedStream> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    Ok(Box::new(stream) as BoxedStream)
}

impl Dial for TcpDial {
    // The address is checked right here, a second time, before connecting.
    fn dial(&self, addr: SocketAddr) -> DialFuture<'_> {
        Box::pin(async move {
            if let Err(refusal) = check_ip(addr.ip()) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("BEYOND-1: dial refused: {refusal}"),
                ));
            }
            // This machine's own addresses, read again right at the dial.
            if let Err(refusal) =
                check_not_this_machine(&[addr.ip()], "the dial target is", Stage::Dial)
            {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("BEYOND-1: dial refused: {}", refusal.reason),
                ));
            }
            open_tcp(addr).await
        })
    }

    // The operator's own host (issue 7): the policy is replaced by "this is
    // the operator's port, and their address when they wrote one".
    fn dial_operator<'a>(&'a self, addr: SocketAddr, operator: &'a OperatorHost) -> DialFuture<'a> {
        Box::pin(async move {
            let address_ok = operator
                .literal_address()
                .is_none_or(|ip| crate::address::dial_form(ip) == addr.ip());
            if let Err(refusal) = crate::address::check_operator_ip(addr.ip()) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("BEYOND-1: dial refused: {refusal}, even for the operator-named host"),
                ));
            }
            if addr.port() != operator.port() || !address_ok {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "BEYOND-1: dial refused: {addr} is not the operator-named host {}:{}",
                        operator.host(),
                        operator.port()
                    ),
                ));
            }
            open_tcp(addr).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: BEYOND-1
    #[tokio::test]
    async fn production_dial_refuses_loopback_and_private_itself() {
        // A real listener on loopback: the dial must refuse before connecting.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        for addr in [
            format!("127.0.0.1:{port}"),
            format!("[::1]:{port}"),
            format!("[::ffff:127.0.0.1]:{port}"),
            "10.0.0.1:80".to_owned(),
            "169.254.169.254:80".to_owned(),
        ] {
            let addr: SocketAddr = addr.parse().expect("parses");
            let err = match TcpDial.dial(addr).await {
                Ok(_) => panic!("dial to {addr} must be refused"),
                Err(err) => err,
            };
            assert_eq!(err.kind(), io::ErrorKind::PermissionDenied, "{addr}");
        }
        // Nothing connected to the listener.
        let accepted =
            tokio::time::timeout(std::time::Duration::from_millis(50), listener.accept()).await;
        assert!(accepted.is_err(), "no connection may reach loopback");
    }
}
