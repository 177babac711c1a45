//! A raw HTTP/1.1 client for tests that must send malformed or hostile
//! requests to a loopback server (no HTTP library would send them).

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Opens a connection to a loopback address (for streaming tests).
pub async fn connect(addr: SocketAddr) -> TcpStream {
    assert!(
        addr.ip().is_loopback(),
        "test clients dial loopback only, not {addr}"
    );
    // The test client's connect: loopback only (checked above).
    #[allow(clippy::disallowed_methods)]
    let stream = TcpStream::connect(addr).await;
    match stream {
        Ok(stream) => stream,
        Err(error) => panic!("connecting to {addr}: {error}"),
    }
}

/// Sends `request` as it is and reads the whole answer (the request should
/// say `connection: close`; reading stops after 10 s).
pub async fn raw(addr: SocketAddr, request: &[u8]) -> Vec<u8> {
    let mut stream = connect(addr).await;
    if let Err(error) = stream.write_all(request).await {
        panic!("sending to {addr}: {error}");
    }
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    answer
}

/// The status code of a raw answer (0 when there is none).
pub fn status(answer: &[u8]) -> u16 {
    let text = String::from_utf8_lossy(answer);
    text.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// The body of a raw (not chunked) answer.
pub fn body(answer: &[u8]) -> String {
    let text = String::from_utf8_lossy(answer);
    text.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

/// The answer without its `date` header, for byte-for-byte comparison.
pub fn without_date(answer: &[u8]) -> String {
    String::from_utf8_lossy(answer)
        .split("\r\n")
        .filter(|line| !line.to_ascii_lowercase().starts_with("date:"))
        .collect::<Vec<_>>()
        .join("\r\n")
}

/// A `POST` with `connection: close`, the given extra header lines and a
/// JSON body.
pub fn post(host: &str, path: &str, headers: &[&str], body: &str) -> Vec<u8> {
    let mut request = format!("POST {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n");
    for h in headers {
        request.push_str(h);
        request.push_str("\r\n");
    }
    request.push_str(&format!(
        "content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    ));
    request.into_bytes()
}
