//! Addresses a host command line reaches that no `scheme://` URL in it
//! shows (round7 #6 residue): curl's `--resolve host:443:127.0.0.1` and
//! `--connect-to ::127.0.0.1:8080` send a public URL to a private address,
//! `-x`/`--proxy 127.0.0.1:8080` and the `*_proxy=` variables send every
//! request through one, HTTPie's `http :8080/path` is `localhost:8080`,
//! `wget -e http_proxy=…` sets a proxy, `--unix-socket` talks to a local
//! socket. Each address is put through [`check_url_text`] as the door
//! would see it (URL-1); what ploy cannot read (options from a file,
//! `curl -K`, `wget -i`) is refused too, so the caller asks.
//!
//! Text only, over-reading on purpose: the words are split the way a shell
//! splits them closely enough to find options (quotes removed, operators
//! end a command); a word taken for an option that is not one only asks.

use crate::refusal::Refusal;
use crate::text::check_url_text;

/// The programs whose options are read here.
const CURL: &[&str] = &["curl"];
const WGET: &[&str] = &["wget", "wget2"];
const HTTPIE: &[&str] = &["http", "https", "httpie", "xh", "xhs"];

/// curl options that name a proxy (`-x`, `--proxy`, …).
const CURL_PROXY: &[&str] = &[
    "-x",
    "--proxy",
    "--preproxy",
    "--socks4",
    "--socks4a",
    "--socks5",
    "--socks5-hostname",
];

/// HTTPie options that take a value (so the value is not the URL).
const HTTPIE_VALUES: &[&str] = &[
    "-a",
    "--auth",
    "-A",
    "--auth-type",
    "-o",
    "--output",
    "-s",
    "--style",
    "-p",
    "--print",
    "--session",
    "--session-read-only",
    "--proxy",
    "--cert",
    "--cert-key",
    "--cert-key-pass",
    "--verify",
    "--ssl",
    "--ciphers",
    "--timeout",
    "--max-redirects",
    "--default-scheme",
    "--pretty",
    "--format-options",
    "--response-charset",
    "--response-mime",
    "--boundary",
    "--unix-socket",
];

/// HTTP methods HTTPie takes before the URL.
const METHODS: &[&str] = &[
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT",
];

/// Check every address the options and variables of `line` name (see the
/// module docs): `Err` with the first refusal.
pub fn check_command_targets(line: &str) -> Result<(), Refusal> {
    for command in commands(line) {
        for word in &command {
            proxy_assignment(word)?;
        }
        for (at, word) in command.iter().enumerate() {
            let program = word.rsplit('/').next().unwrap_or(word);
            let args = &command[at + 1..];
            if CURL.contains(&program) {
                curl(args)?;
            } else if WGET.contains(&program) {
                wget(args)?;
            } else if HTTPIE.contains(&program) {
                httpie(program, args)?;
            }
        }
    }
    Ok(())
}

/// An option's value: attached (`--opt=V`, `-xV` for a short one) or the
/// next word. Returns (value, words used).
fn option_value<'a>(word: &'a str, next: Option<&'a String>, names: &[&str]) -> Option<&'a str> {
    for name in names {
        if word == *name {
            return next.map(String::as_str);
        }
        if name.starts_with("--") {
            if let Some(value) = word.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                return Some(value);
            }
        } else if let Some(value) = word.strip_prefix(name).filter(|v| !v.is_empty()) {
            return Some(value);
        }
    }
    None
}

fn refusal(reason: String) -> Refusal {
    Refusal::new("URL-1", crate::refusal::Stage::Text, reason)
}

fn curl(args: &[String]) -> Result<(), Refusal> {
    for (i, word) in args.iter().enumerate() {
        let next = args.get(i + 1);
        if let Some(value) = option_value(word, next, &["--resolve"]) {
            // [+]HOST:PORT:ADDRESS[,ADDRESS]…
            let fields = split_fields(value.trim_start_matches('+'), 3);
            if let Some(addresses) = fields.get(2) {
                for address in addresses.split(',').filter(|a| !a.is_empty()) {
                    check_address(address, &format!("curl --resolve {value}"))?;
                }
            }
        }
        if let Some(value) = option_value(word, next, &["--connect-to"]) {
            // HOST1:PORT1:HOST2:PORT2; an empty HOST2 keeps the host.
            let fields = split_fields(value, 4);
            if let Some(host) = fields.get(2).filter(|h| !h.is_empty()) {
                let port = fields.get(3).filter(|p| !p.is_empty());
                let target = match port {
                    Some(port) => format!("{}:{port}", bracketed(host)),
                    None => bracketed(host),
                };
                check_address(&target, &format!("curl --connect-to {value}"))?;
            }
        }
        if let Some(value) = option_value(word, next, CURL_PROXY) {
            check_proxy(value, &format!("curl {word} {value}"))?;
        }
        if let Some(value) = option_value(word, next, &["--url"]) {
            check_address(value, &format!("curl --url {value}"))?;
        }
        if option_value(word, next, &["--unix-socket", "--abstract-unix-socket"]).is_some() {
            return Err(refusal(format!(
                "`curl {word}` connects to a socket on this machine"
            )));
        }
        if option_value(word, next, &["-K", "--config"]).is_some() {
            return Err(refusal(format!(
                "`curl {word}` reads options (and addresses) from a file ploy does not read"
            )));
        }
    }
    Ok(())
}

fn wget(args: &[String]) -> Result<(), Refusal> {
    for (i, word) in args.iter().enumerate() {
        let next = args.get(i + 1);
        if let Some(value) = option_value(word, next, &["-e", "--execute"]) {
            // A `.wgetrc` command: `http_proxy=…` is checked as an
            // assignment; the others name no address.
            proxy_assignment(value)?;
        }
        if option_value(word, next, &["-i", "--input-file", "--config"]).is_some() {
            return Err(refusal(format!(
                "`wget {word}` reads addresses or settings from a file ploy does not read"
            )));
        }
    }
    Ok(())
}

fn httpie(program: &str, args: &[String]) -> Result<(), Refusal> {
    let scheme = if matches!(program, "https" | "xhs") {
        "https"
    } else {
        "http"
    };
    let mut skip = false;
    let mut url_seen = false;
    for (i, word) in args.iter().enumerate() {
        if skip {
            skip = false;
            continue;
        }
        let next = args.get(i + 1);
        if let Some(value) = option_value(word, next, &["--proxy"]) {
            // PROTOCOL:URL
            let url = value.split_once(':').map_or(value, |(_, url)| url);
            check_proxy(url, &format!("{program} --proxy {value}"))?;
        }
        if option_value(word, next, &["--unix-socket"]).is_some() {
            return Err(refusal(format!(
                "`{program} {word}` connects to a socket on this machine"
            )));
        }
        if word.starts_with('-') {
            skip = HTTPIE_VALUES.contains(&word.as_str());
            continue;
        }
        if url_seen || METHODS.contains(&word.as_str()) {
            continue;
        }
        url_seen = true;
        // `:8080/path` and `:/path` are `localhost`; a URL without a scheme
        // gets the program's default one.
        let url = if let Some(rest) = word.strip_prefix(':') {
            format!("{scheme}://localhost:{rest}")
        } else if word.contains("://") {
            word.clone()
        } else {
            format!("{scheme}://{word}")
        };
        let url = url.replace("localhost:/", "localhost/");
        if let Err(refused) = check_url_text(&url) {
            return Err(refusal(format!(
                "`{program} {word}` reaches {url}: {}",
                refused.reason
            )));
        }
    }
    Ok(())
}

/// `NAME=VALUE` where NAME is a proxy variable (`http_proxy`, `HTTPS_PROXY`,
/// `all_proxy`, …; not `no_proxy`): the proxy is checked.
fn proxy_assignment(word: &str) -> Result<(), Refusal> {
    let Some((name, value)) = word.split_once('=') else {
        return Ok(());
    };
    let lower = name.to_ascii_lowercase();
    if lower.ends_with("_proxy") && lower != "no_proxy" && !value.is_empty() {
        check_proxy(value, word)?;
    }
    Ok(())
}

/// A proxy, with or without a scheme (`socks5h://h:1080`, `h:3128`).
fn check_proxy(value: &str, shown: &str) -> Result<(), Refusal> {
    let rest = value.split_once("://").map_or(value, |(_, rest)| rest);
    check_address(rest, shown)
}

/// A `host[:port][/path]` (or `user@host`) as the door's text check sees it.
fn check_address(address: &str, shown: &str) -> Result<(), Refusal> {
    let rest = address.split_once("://").map_or(address, |(_, rest)| rest);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    // A bare IPv6 address (`::1`, `fd00::1`) is bracketed for the URL.
    let host_part = rest.split('/').next().unwrap_or(rest);
    let rest = if host_part.matches(':').count() > 1 && !host_part.starts_with('[') {
        bracketed(host_part)
    } else {
        rest.to_string()
    };
    let url = format!("http://{rest}");
    check_url_text(&url).map(|_| ()).map_err(|refused| {
        refusal(format!(
            "`{shown}` sends the request to {rest}: {}",
            refused.reason
        ))
    })
}

fn bracketed(host: &str) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

/// `a:b:[::1]:d` split on `:` outside brackets, into at most `max` fields
/// (the last one keeps the rest).
fn split_fields(text: &str, max: usize) -> Vec<String> {
    let mut fields = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '[' => {
                depth += 1;
                current.push(c);
            }
            ']' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ':' if depth == 0 && fields.len() + 1 < max => {
                fields.push(std::mem::take(&mut current));
            }
            _ => current.push(c),
        }
    }
    fields.push(current);
    fields
}

/// The simple commands of a line, as words with quotes removed: an
/// operator (`;`, `|`, `&`, `(`, `)`, a newline, a backquote) outside
/// quotes ends a command. Close enough to find options; never a parser.
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    let mut quote: Option<char> = None;
    let end_word = |word: &mut String, in_word: &mut bool, words: &mut Vec<String>| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                    in_word = true;
                }
            }
            (None, ';' | '|' | '&' | '(' | ')' | '\n' | '`') => {
                end_word(&mut word, &mut in_word, &mut words);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            (None, c) if c.is_whitespace() => end_word(&mut word, &mut in_word, &mut words),
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut words);
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: URL-1 (round7 #6 residue: the address a command reaches is
    // hidden in its options or variables)
    #[test]
    fn round7_6_addresses_hidden_in_options_are_checked() {
        for line in [
            "curl --resolve example.com:443:127.0.0.1 https://example.com/",
            "curl --resolve=+example.com:443:10.0.0.5 https://example.com/",
            "curl --resolve example.com:443:[::1] https://example.com/",
            "curl --resolve 'example.com:80:93.184.216.34,169.254.169.254' http://example.com/",
            "curl --connect-to ::127.0.0.1:8080 https://example.com/",
            "curl --connect-to example.com:443:[fd00::1]:443 https://example.com/",
            "curl -x 127.0.0.1:8080 https://example.com/",
            "curl -x127.0.0.1:8080 https://example.com/",
            "curl --proxy=localhost:3128 https://example.com/",
            "curl --socks5-hostname 10.1.2.3:1080 https://example.com/",
            "curl --unix-socket /var/run/docker.sock http://localhost/containers/json",
            "curl -K cfg https://example.com/",
            "curl --url 127.0.0.1:6379",
            "http :8080/admin",
            "http GET :/path",
            "https :8443",
            "xh localhost:3000/x",
            "http --auth u:p 10.0.0.1/x",
            "http --proxy http:127.0.0.1:3128 example.com",
            "wget -e use_proxy=on -e http_proxy=127.0.0.1:3128 https://example.com/",
            "wget --execute=https_proxy=localhost:8080 https://example.com/",
            "wget -i urls.txt",
            "http_proxy=http://127.0.0.1:8080 curl https://example.com/",
            "export HTTPS_PROXY=10.0.0.1:3128; curl https://example.com/",
            "timeout 5 env ALL_PROXY=socks5h://localhost:1080 curl https://example.com/",
            "sudo curl --resolve example.com:443:0x7f000001 https://example.com/",
        ] {
            let refused = check_command_targets(line).expect_err(line);
            assert_eq!(refused.rule, "URL-1", "{line}");
        }
        for line in [
            "curl https://example.com/",
            "curl --resolve example.com:443:93.184.216.34 https://example.com/",
            "curl --connect-to example.com:443::8443 https://example.com/",
            "curl -x proxy.example.com:3128 https://example.com/",
            "curl -H 'Host: localhost' -o out.txt https://example.com/",
            "http example.com/api a=b",
            "http --auth u:p POST example.com/x",
            "https api.github.com/repos",
            "wget -e robots=off -qO- https://example.com/",
            "no_proxy=localhost curl https://example.com/",
            "echo ':8080' | grep 8080",
        ] {
            assert!(check_command_targets(line).is_ok(), "{line}");
        }
    }

    #[test]
    fn words_and_commands_split_like_a_shell() {
        assert_eq!(
            commands("a 'b c' \"d\\\"e\" f\\ g; h|i && (j)"),
            vec![
                vec!["a", "b c", "d\"e", "f g"],
                vec!["h"],
                vec!["i"],
                vec!["j"]
            ]
        );
        assert_eq!(
            split_fields("::127.0.0.1:8080", 4),
            ["", "", "127.0.0.1", "8080"]
        );
        assert_eq!(split_fields("h:443:[::1]", 3), ["h", "443", "[::1]"]);
        assert_eq!(split_fields("h:443:a,b:c", 3), ["h", "443", "a,b:c"]);
    }
}
