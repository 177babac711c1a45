//! The SSRF bypass corpus: every URL here is refused, at the stage named.
//! Gathered from public SSRF material (PayloadsAllTheThings, Orange Tsai's
//! "A New Era of SSRF", cloud metadata docs, DNS rebinding services), plus
//! public URLs that must pass the text stage.

#![allow(clippy::expect_used)]

use std::{net::IpAddr, time::Duration};

use ploy_egress::{Stage, StaticResolver, check_url_text, resolve_checked};
use proptest::prelude::*;

/// Refused by the pure text check (URL-1): numeric forms, local names,
/// userinfo, schemes, and literal addresses judged by the address policy.
const REFUSED_AT_TEXT: &[&str] = &[
    // Numeric host forms: decimal, octal, hex, short, mixed, padded.
    "http://2130706433/",
    "http://017700000001/",
    "http://0x7f000001/",
    "http://0x7F000001/",
    "http://0x7f.0x0.0x0.0x1/",
    "http://0177.0.0.1/",
    "http://0177.0000.0000.0001/",
    "http://00177.0.0.01/",
    "http://127.1/",
    "http://127.0.1/",
    "http://127.000.000.001/",
    "http://0x7f.1/",
    "http://0/",
    "http://3232235521/",
    "http://0xc0a80001/",
    "http://0300.0250.0.1/",
    "http://192.168.1/",
    "http://10.1/",
    "http://167772161/",
    "http://2852039166/",
    "http://0xa9fea9fe/",
    "http://0251.0376.0251.0376/",
    "http://0xa9.0xfe.0xa9.0xfe/",
    "http://169.254.43518/",
    "http://169.16689662/",
    "http://1572395042/",
    "http://0x5db8d70e/",
    "http://93.184.55054/",
    "http://1.2.3.4.5/",
    "http://999.999.999.999/",
    "http://256.0.0.1/",
    // Canonical literal addresses in refused ranges.
    "http://0.0.0.0/",
    "http://127.0.0.1/",
    "http://127.0.0.1:80/",
    "http://127.0.0.1:22/",
    "http://127.255.255.254/",
    "http://127.0.0.1./",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.0.1/",
    "http://100.64.0.1/",
    "http://198.18.0.1/",
    "http://224.0.0.1/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://192.0.2.1/",
    "http://198.51.100.7/",
    "http://203.0.113.5/",
    "http://192.88.99.1/",
    // Cloud metadata endpoints by address.
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://169.254.170.2/v2/credentials",
    "http://100.100.100.200/latest/meta-data/",
    "http://192.0.0.192/latest/",
    "http://168.63.129.16/machine?comp=goalstate",
    // IPv6 literals and every IPv4 embedding.
    "http://[::]/",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::1]:8080/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[::ffff:192.168.0.1]/",
    "http://[::ffff:0.0.0.0]/",
    "http://[::127.0.0.1]/",
    "http://[::ffff:0:127.0.0.1]/",
    "http://[64:ff9b::127.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[64:ff9b:1::1]/",
    "http://[fc00::1]/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[fe80::1]/",
    "http://[fe80::1%25eth0]/",
    "http://[fec0::1]/",
    "http://[ff02::1]/",
    "http://[2001:db8::1]/",
    "http://[2002:7f00:1::]/",
    "http://[2001::1]/",
    "http://[100::1]/",
    "http://[3fff::1]/",
    "http://[5f00::1]/",
    "http://[4000::1]/",
    // Percent-encoded, IDNA and full-width spellings.
    "http://%31%32%37%2e%30%2e%30%2e%31/",
    "http://%6c%6f%63%61%6c%68%6f%73%74/",
    "http://\u{ff11}\u{ff12}\u{ff17}.\u{ff10}.\u{ff10}.\u{ff11}/",
    "http://127\u{3002}0\u{3002}0\u{3002}1/",
    "http://127\u{ff0e}0\u{ff0e}0\u{ff0e}1/",
    "http://127\u{ff61}0\u{ff61}0\u{ff61}1/",
    "http://\u{24db}\u{24de}\u{24d2}\u{24d0}\u{24db}\u{24d7}\u{24de}\u{24e2}\u{24e3}/",
    "http://\u{2460}\u{2461}\u{2466}.\u{24ea}.\u{24ea}.\u{2460}/",
    "http://\u{ff4c}\u{ff4f}\u{ff43}\u{ff41}\u{ff4c}\u{ff48}\u{ff4f}\u{ff53}\u{ff54}/",
    "http://127.0.0.1%00.example.com/",
    // Local names, any case, trailing dots.
    "http://localhost/",
    "http://LOCALHOST/",
    "http://LocalHost./",
    "http://localhost:8080/admin",
    "http://localhost./",
    "http://localhost../",
    "http://foo.localhost/",
    "http://a.b.localhost./",
    "http://printer.local/",
    "http://printer.LOCAL./",
    "http://nas.lan/",
    "http://router.LAN/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata.google.internal./",
    "http://db.corp.internal/",
    "http://instance-data/latest/meta-data/",
    "http://metadata/computeMetadata/v1/",
    "http://intranet/",
    "http://localhost.localdomain/",
    "http://router.home.arpa/",
    // Userinfo and backslash confusions.
    "http://user:pass@example.com/",
    "http://user@example.com/",
    "http://@example.com/",
    "http://:@example.com/",
    "http://example.com@127.0.0.1/",
    "http://127.0.0.1@example.com/",
    "http://example.com:80@127.0.0.1/",
    "http://evil.com%20@127.0.0.1/",
    "http://127.0.0.1\\@example.com/",
    "http:\\\\127.0.0.1\\",
    "http:/127.0.0.1/",
    "http:127.0.0.1/",
    "http:///127.0.0.1/",
    "\thttp://127.0.0.1/",
    "http://127.0.0.1\t/",
    "http://127.0.\n0.1/",
    "HTTP://127.0.0.1/",
    "hTtP://localhost/",
    // Schemes other than http and https.
    "file:///etc/passwd",
    "file://localhost/etc/passwd",
    "gopher://127.0.0.1:6379/_INFO",
    "dict://127.0.0.1:11211/stat",
    "ftp://example.com/file",
    "ldap://127.0.0.1/",
    "sftp://example.com/",
    "tftp://example.com/",
    "jar:http://example.com!/",
    "netdoc:///etc/passwd",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "ws://example.com/",
    "wss://example.com/",
    "mailto:a@example.com",
    "ssh://example.com/",
    "redis://127.0.0.1:6379/",
    "view-source:http://example.com/",
    "//example.com/",
    "example.com",
    "",
];

/// Names that pass the text check but resolve (here: a table standing in for
/// public DNS and rebinding services) to refused addresses (URL-2).
fn refused_at_resolve() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("http://localtest.me/", vec!["127.0.0.1"]),
        ("http://127.0.0.1.nip.io/", vec!["127.0.0.1"]),
        (
            "http://169.254.169.254.nip.io/latest/",
            vec!["169.254.169.254"],
        ),
        (
            "http://app.localhost.my.company.127.0.0.1.nip.io/",
            vec!["127.0.0.1"],
        ),
        ("http://spoofed.burpcollaborator.net/", vec!["127.0.0.1"]),
        (
            "http://7f000001.c0a80001.rbndr.us/",
            vec!["93.184.215.14", "192.168.0.1"],
        ),
        (
            "http://mixed.example.com/",
            vec!["93.184.215.14", "10.0.0.1"],
        ),
        ("http://v6.example.com/", vec!["::1"]),
        ("http://v6mapped.example.com/", vec!["::ffff:127.0.0.1"]),
        ("http://nat64.example.com/", vec!["64:ff9b::a9fe:a9fe"]),
        ("http://ula.example.com/", vec!["fd00::1"]),
        ("http://linklocal.example.com/", vec!["fe80::1"]),
        ("http://zero.example.com/", vec!["0.0.0.0"]),
        ("http://cgnat.example.com/", vec!["100.64.0.1"]),
        ("http://ec2.example.com/", vec!["169.254.169.254"]),
        ("http://alibaba.example.com/", vec!["100.100.100.200"]),
        ("http://azure.example.com/", vec!["168.63.129.16"]),
        ("http://tun6to4.example.com/", vec!["2002:7f00:1::1"]),
        ("http://multicast.example.com/", vec!["224.0.0.251"]),
        ("http://bench.example.com/", vec!["198.18.0.1"]),
        ("http://localhost.example.com/", vec!["127.0.0.1"]),
        (
            "https://sixfour.example.com/",
            vec!["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "::1"],
        ),
    ]
}

/// Public URLs that must pass the text stage.
const PASS_TEXT: &[&str] = &[
    "https://example.com/",
    "https://www.rust-lang.org/learn",
    "http://93.184.215.14/",
    "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/",
    "https://[2a00:1450:4001:80b::200e]/",
    "https://[::ffff:93.184.215.14]/",
    "https://docs.rs/tokio/latest/tokio/",
    "https://en.wikipedia.org/wiki/Server-side_request_forgery",
    "https://example.com:8443/path?q=a&b=c",
    "https://xn--bcher-kva.example/",
    "https://b\u{fc}cher.example/",
    "https://EXAMPLE.COM./",
    "https://sub.domain.example.co.uk/a/b/c.html",
    "http://1.1.1.1/",
    "https://8.8.8.8/dns-query",
    "https://example.com/@127.0.0.1",
    "https://example.com/?url=http://127.0.0.1/",
    "https://example.com/#@localhost",
    "https://localhost.example.com/",
    "https://local.example.com/",
    "https://internal.example.com/",
    "https://lan.example.com/",
    "https://0x7f.example.com/",
    "https://1password.com/",
    "https://github.com/rust-lang/rust/issues?q=is%3Aopen",
];

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

// proves: URL-1
#[test]
fn corpus_is_large_enough() {
    assert!(
        REFUSED_AT_TEXT.len() + refused_at_resolve().len() >= 120,
        "the bypass corpus must hold at least 120 URLs, has {}",
        REFUSED_AT_TEXT.len() + refused_at_resolve().len()
    );
}

// proves: URL-1
#[test]
fn every_text_stage_bypass_is_refused_with_a_reason() {
    let mut allowed = Vec::new();
    for url in REFUSED_AT_TEXT {
        match check_url_text(url) {
            Ok(checked) => allowed.push(format!("{url:?} -> {checked}")),
            Err(refusal) => {
                assert_eq!(refusal.rule, "URL-1", "{url:?}");
                assert_eq!(refusal.stage, Stage::Text, "{url:?}");
                assert!(!refusal.reason.is_empty(), "{url:?}");
            }
        }
    }
    assert!(
        allowed.is_empty(),
        "these bypasses got through: {allowed:#?}"
    );
}

// proves: URL-2
#[test]
fn every_resolve_stage_bypass_passes_text_then_is_refused_at_resolution() {
    let cases = refused_at_resolve();
    let table: Vec<(String, Vec<IpAddr>)> = cases
        .iter()
        .map(|(url, addrs)| {
            let checked = check_url_text(url).unwrap_or_else(|r| panic!("{url} text: {r}"));
            let name = checked.name().expect("a name").to_owned();
            (
                name,
                addrs.iter().map(|a| a.parse().expect("addr")).collect(),
            )
        })
        .collect();
    let resolver = StaticResolver::new(table.clone());
    let rt = runtime();
    for (name, _) in &table {
        let out = rt
            .block_on(resolve_checked(&resolver, name, Duration::from_secs(1)))
            .expect("the table answers");
        let refusal = out.expect_err(name);
        assert_eq!(refusal.rule, "URL-2", "{name}");
        assert_eq!(refusal.stage, Stage::Resolve, "{name}");
    }
}

// proves: URL-1
#[test]
fn public_urls_pass_the_text_stage() {
    for url in PASS_TEXT {
        if let Err(refusal) = check_url_text(url) {
            panic!("{url} must pass the text stage: {refusal}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    // proves: URL-1
    #[test]
    fn noise_after_the_host_never_turns_a_refusal_into_an_allow(
        index in 0..REFUSED_AT_TEXT.len(),
        noise in "[a-zA-Z0-9/?#=&%@._~-]{0,24}",
    ) {
        let url = REFUSED_AT_TEXT[index];
        // Only URLs whose host part is followed by a path can take noise
        // there without changing the host.
        if let Some(slash) = url.rfind('/').filter(|_| url.ends_with('/')) {
            let noisy = format!("{}{}", &url[..=slash], noise);
            prop_assert!(check_url_text(&noisy).is_err(), "{noisy:?} became allowed");
        }
    }

    // proves: URL-1
    #[test]
    fn text_check_never_panics(input in "\\PC{0,80}") {
        let _ = check_url_text(&input);
    }
}
