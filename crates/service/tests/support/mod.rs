//! Test support: a real OpenAI-compatible upstream on 127.0.0.1 and a raw
//! HTTP/1.1 client (so tests can send malformed or hostile requests).
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// What the fake upstream saw and did.
#[derive(Debug, Default)]
pub struct UpstreamLog {
    /// Request heads (request line + headers), in arrival order.
    pub heads: Vec<String>,
    /// Request bodies.
    pub bodies: Vec<Vec<u8>>,
    /// Streams that ran to the end.
    pub finished: usize,
    /// Streams whose client went away before the end.
    pub cancelled: usize,
}

/// A fake OpenAI-compatible upstream. A request body with `"stream": true`
/// gets `chunks` SSE events `pause_ms` apart (from the body, defaults 5 and
/// 200); otherwise one JSON completion.
pub struct FakeUpstream {
    pub addr: SocketAddr,
    pub log: Arc<Mutex<UpstreamLog>>,
}

impl FakeUpstream {
    pub async fn start() -> FakeUpstream {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(UpstreamLog::default()));
        let shared = log.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                tokio::spawn(serve_one(stream, shared.clone()));
            }
        });
        FakeUpstream { addr, log }
    }

    pub fn url(&self) -> String {
        format!("http://{}/v1/chat/completions", self.addr)
    }

    pub fn requests(&self) -> usize {
        self.log.lock().unwrap().heads.len()
    }
}

async fn serve_one(stream: TcpStream, log: Arc<Mutex<UpstreamLog>>) {
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).await.unwrap();
    let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    {
        let mut log = log.lock().unwrap();
        log.heads.push(head);
        log.bodies.push(body);
    }
    let mut stream = reader.into_inner();
    if request["stream"] == serde_json::Value::Bool(true) {
        let chunks = request["chunks"].as_u64().unwrap_or(5);
        let pause = Duration::from_millis(request["pause_ms"].as_u64().unwrap_or(200));
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
        if stream.write_all(head.as_bytes()).await.is_err() {
            log.lock().unwrap().cancelled += 1;
            return;
        }
        let (mut read_half, mut write_half) = stream.into_split();
        for i in 0..chunks {
            let event = format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"part{i} \"}}}}]}}\n\n"
            );
            let chunk = format!("{:x}\r\n{event}\r\n", event.len());
            if write_half.write_all(chunk.as_bytes()).await.is_err() {
                log.lock().unwrap().cancelled += 1;
                return;
            }
            // Wait for the pause, but notice at once if the client hangs up.
            let mut probe = [0u8; 1];
            tokio::select! {
                () = tokio::time::sleep(pause) => {}
                read = read_half.read(&mut probe) => {
                    if matches!(read, Ok(0) | Err(_)) {
                        log.lock().unwrap().cancelled += 1;
                        return;
                    }
                }
            }
        }
        let tail = "data: [DONE]\n\n";
        let _ = write_half
            .write_all(format!("{:x}\r\n{tail}\r\n0\r\n\r\n", tail.len()).as_bytes())
            .await;
        log.lock().unwrap().finished += 1;
    } else {
        let answer = serde_json::json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": request["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}]
        })
        .to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
            answer.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
        log.lock().unwrap().finished += 1;
    }
}

/// Send raw bytes, read the whole answer (the request should say
/// `connection: close`).
#[allow(clippy::disallowed_methods)] // test client
pub async fn raw(addr: SocketAddr, request: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    answer
}

/// Open a connection (for streaming tests).
#[allow(clippy::disallowed_methods)] // test client
pub async fn connect(addr: SocketAddr) -> TcpStream {
    TcpStream::connect(addr).await.unwrap()
}

/// Status code of a raw answer.
pub fn status(answer: &[u8]) -> u16 {
    let text = String::from_utf8_lossy(answer);
    text.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Body of a raw (non-chunked) answer.
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

/// A POST request with the given extra header lines and JSON body.
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

pub mod cdp;
pub mod panel;
