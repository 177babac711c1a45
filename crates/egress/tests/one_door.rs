//! The one door (URL-2, BEYOND-1): no crate but ploy-egress may open a
//! network connection. This scans every other crate's `src/` for network
//! client APIs and fails naming the file and line.

#![allow(clippy::expect_used)]

use std::{
    fs,
    path::{Path, PathBuf},
};

/// Text that means "this code talks to the network".
const FORBIDDEN: &[&str] = &[
    "reqwest",
    "hyper::client",
    "hyper_util::client",
    "TcpStream::connect",
    "UdpSocket",
    "TcpSocket",
    "ureq",
    "isahc",
    "curl::",
    "hickory_resolver",
    "trust_dns",
    "ToSocketAddrs",
    "socket2",
];

/// The named exceptions: (path relative to `crates/`, the forbidden texts
/// that file alone may use, why). Narrow on purpose: a file listed here for
/// an HTTP client still may not open a socket itself.
const ALLOWLIST: &[(&str, &[&str], &str)] = &[
    (
        "model/src/upstream.rs",
        &["TcpStream::connect", "hyper::client"],
        "the model client's and the gateway's one connect: `connect_loopback` refuses every non-loopback address at the connect itself",
    ),
    (
        "testkit/src/net.rs",
        &["TcpStream::connect"],
        "dev-only test seam (never in a shipped crate): `MapDial` dials only the loopback fixture servers a test mapped, and refuses any other target",
    ),
    (
        "testkit/src/raw_http.rs",
        &["TcpStream::connect"],
        "dev-only raw test client: asserts the address is loopback before connecting",
    ),
    (
        "redteam/src/sites.rs",
        &["UdpSocket"],
        "`ploy redteam`'s stand-in name servers: UDP listeners inside its own private network namespace that record and answer the lookups sent to them (round7 #16), as its fixture sites do for HTTP; they never send a query",
    ),
    (
        "service/src/client.rs",
        &["hyper::client"],
        "`ploy status`/`ploy exec` speak HTTP to the local service over streams from `connect_loopback`",
    ),
];

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/ directory")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Every forbidden use in the `src/` of crates other than egress.
fn violations(crates: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(crates) else {
        return vec![format!("cannot read {}", crates.display())];
    };
    for entry in entries.flatten() {
        let krate = entry.path();
        if krate.file_name().is_some_and(|name| name == "egress") {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&krate.join("src"), &mut files);
        for file in files {
            let relative = file
                .strip_prefix(crates)
                .unwrap_or(&file)
                .to_string_lossy()
                .into_owned();
            let allowed: &[&str] = ALLOWLIST
                .iter()
                .find(|(path, _, _)| *path == relative)
                .map_or(&[], |(_, needles, _)| needles);
            let Ok(text) = fs::read_to_string(&file) else {
                found.push(format!("{relative}: unreadable"));
                continue;
            };
            for (index, line) in text.lines().enumerate() {
                for needle in FORBIDDEN {
                    if line.contains(needle) && !allowed.contains(needle) {
                        found.push(format!(
                            "{relative}:{}: uses `{needle}`: {}",
                            index + 1,
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    found
}

// proves: URL-2, BEYOND-1
#[test]
fn no_other_crate_opens_a_network_connection() {
    let found = violations(&crates_dir());
    assert!(
        found.is_empty(),
        "network access outside ploy-egress (route it through ploy_egress::Fetcher):\n{}",
        found.join("\n")
    );
}

// proves: URL-2, BEYOND-1
#[test]
fn the_scan_catches_a_planted_client() {
    // A throwaway tree shaped like crates/: the scan must name file and line.
    let root = std::env::temp_dir().join(format!("ploy-one-door-{}", std::process::id()));
    let src = root.join("sneaky").join("src");
    fs::create_dir_all(&src).expect("mkdir");
    fs::write(
        src.join("lib.rs"),
        "fn f() {\n    let s = std::net::TcpStream::connect(\"x\");\n}\n",
    )
    .expect("write");
    fs::create_dir_all(root.join("egress").join("src")).expect("mkdir");
    fs::write(
        root.join("egress").join("src").join("lib.rs"),
        "use hyper::client;\n",
    )
    .expect("write");
    let found = violations(&root);
    fs::remove_dir_all(&root).expect("cleanup");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("sneaky/src/lib.rs:2:"), "{found:?}");
}
