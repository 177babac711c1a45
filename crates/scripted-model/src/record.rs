//! How a received request is written down: shared by the scripted model's
//! log and the test kit's web server, so both show a request the same way.

use http::request::Parts;

/// The request target as sent: path and query.
pub fn target(parts: &Parts) -> String {
    parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.to_string(), |pq| pq.as_str().to_owned())
}

/// Header names (lower case) and values (invalid UTF-8 replaced), one pair
/// per value.
pub fn headers(parts: &Parts) -> Vec<(String, String)> {
    parts
        .headers
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// The request head as text: request line, `name: value` lines, blank line.
pub fn head_text(method: &str, target: &str, headers: &[(String, String)]) -> String {
    let mut head = format!("{method} {target} HTTP/1.1\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// The first value of header `name` (any case).
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}
