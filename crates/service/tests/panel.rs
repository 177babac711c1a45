//! The key panel attacked over real loopback sockets (B-2..B-6, ADMIN-1..11,
//! STATE-1). The browser half of the suite (B-1, B-7) is in
//! `panel_browser.rs`.
#![allow(clippy::disallowed_methods)] // test servers and clients
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use ploy_secrets::Redactor;
use ploy_service::panel::gate::{DENIED_BODY, LOCKOUT_LIMIT};
use support::panel::{PanelHarness, TestClock, captured_logs, request, start_service};
use support::{body, status, without_date};

const KEY_A: &str = "tvly-dev-AAAAAAAAAAAAAAAAAAAAAAAAAAAA1aaa";
const KEY_B: &str = "tvly-dev-BBBBBBBBBBBBBBBBBBBBBBBBBBBB2bbb";

/// Every route of the panel, as (method, path, body).
fn routes(mask: &str) -> Vec<(&'static str, &'static str, Option<String>)> {
    vec![
        ("GET", "/__keys", None),
        ("GET", "/__keys/api/keys", None),
        (
            "POST",
            "/__keys/api/keys",
            Some(format!(r#"{{"provider":"tavily","key":"{KEY_B}"}}"#)),
        ),
        (
            "POST",
            "/__keys/api/nonce",
            Some(format!(r#"{{"action":"remove","mask":"{mask}"}}"#)),
        ),
        (
            "POST",
            "/__keys/api/remove",
            Some(format!(r#"{{"mask":"{mask}","nonce":"00"}}"#)),
        ),
        (
            "POST",
            "/__keys/api/replace",
            Some(format!(
                r#"{{"mask":"{mask}","key":"{KEY_B}","nonce":"00"}}"#
            )),
        ),
        ("OPTIONS", "/__keys/api/keys", None),
        ("GET", "/__keys/api/unknown", None),
        ("DELETE", "/__keys/api/keys", None),
    ]
}

// proves: B-2, ADMIN-2, ADMIN-9, ADMIN-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b2_rebinding_hosts_get_the_one_denial_on_every_route() {
    let panel = PanelHarness::start().await;
    assert_eq!(panel.add(KEY_A).await.0, 201);
    let mask = "…1aaa";
    let denial = panel.denial().await;
    assert!(denial.contains(DENIED_BODY));
    let port = panel.addr.port();
    let bearer = format!("Bearer {}", panel.token);
    let other_port = format!("127.0.0.1:{}", port + 1);
    let nip = format!("127.0.0.1.nip.io:{port}");
    let evil_port = format!("evil.example:{port}");
    let colon_port = format!(":{port}");
    // (Host header lines, request target), each with the right token and an
    // Origin matching the Host (as a rebinding page's own requests carry).
    let hosts: Vec<(Vec<&str>, bool)> = vec![
        (vec!["evil.example"], false),
        (vec![evil_port.as_str()], false),
        (vec![""], false),
        (vec![], false),
        (vec![nip.as_str()], false),
        (vec![other_port.as_str()], false),
        (vec!["localhost"], false),
        (vec!["127.0.0.1"], false),
        (vec![colon_port.as_str()], false),
        (vec!["127.0.0.1:0"], false),
        // Two Host headers, one of them right.
        (vec![], true),
    ];
    let mut tried = 0;
    for (method, path, body) in routes(mask) {
        for (host_lines, doubled) in &hosts {
            let mut headers: Vec<(&str, String)> = Vec::new();
            for h in host_lines {
                headers.push(("host", (*h).to_string()));
                headers.push(("origin", format!("http://{h}")));
            }
            if *doubled {
                headers.push(("host", panel.host()));
                headers.push(("host", "evil.example".into()));
                headers.push(("origin", panel.origin()));
            }
            headers.push(("authorization", bearer.clone()));
            if body.is_some() {
                headers.push(("content-type", "application/json".into()));
            }
            let refs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let answer = panel
                .send(&request(method, path, &refs, body.as_deref()))
                .await;
            assert_eq!(
                without_date(&answer),
                denial,
                "{method} {path} with hosts {host_lines:?}"
            );
            tried += 1;
        }
        // Absolute-form request target naming the right host.
        let absolute = format!("http://{}{path}", panel.host());
        let host = panel.host();
        let origin = panel.origin();
        let mut refs = vec![
            ("host", host.as_str()),
            ("origin", origin.as_str()),
            ("authorization", bearer.as_str()),
        ];
        if body.is_some() {
            refs.push(("content-type", "application/json"));
        }
        let answer = panel
            .send(&request(method, &absolute, &refs, body.as_deref()))
            .await;
        assert_eq!(
            without_date(&answer),
            denial,
            "absolute-form {method} {path}"
        );
        tried += 1;
    }
    assert!(tried > 90);
    assert_eq!(panel.keys().await.len(), 1, "the key list changed");
    // None of these spent the lockout budget (they failed before the token).
    assert_eq!(panel.service.panel().unwrap().gate().failures(), 0);
}

// proves: B-3, ADMIN-5, ADMIN-2, ADMIN-4
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b3_brute_force_locks_and_then_the_right_token_gets_the_same_denial() {
    let mut panel = PanelHarness::start().await;
    let denial = panel.denial().await;
    let host = panel.host();
    let right = panel.token.clone();
    for n in 0..LOCKOUT_LIMIT {
        // Near misses and junk: the first or the last digit changed, short, long.
        let wrong = match n % 4 {
            0 => format!(
                "{}{}",
                if right.starts_with('0') { '1' } else { '0' },
                &right[1..]
            ),
            1 => format!(
                "{}{}",
                &right[..63],
                if right.ends_with('0') { '1' } else { '0' }
            ),
            2 => format!("guess-{n}"),
            _ => format!("{right}{n}"),
        };
        let bearer = format!("Bearer {wrong}");
        let answer = panel
            .send(&request(
                "GET",
                "/__keys/api/keys",
                &[("host", &host), ("authorization", &bearer)],
                None,
            ))
            .await;
        assert_eq!(without_date(&answer), denial, "attempt {n}");
    }
    // The right token now gets the very same bytes, on every route.
    let (code, text) = panel.call("GET", "/__keys/api/keys", &right, None).await;
    assert_eq!((code, text.as_str()), (401, DENIED_BODY));
    let bearer = format!("Bearer {right}");
    let answer = panel
        .send(&request(
            "GET",
            "/__keys/api/keys",
            &[("host", &host), ("authorization", &bearer)],
            None,
        ))
        .await;
    assert_eq!(without_date(&answer), denial);
    let (code, _) = panel.add(KEY_A).await;
    assert_eq!(code, 401);
    assert!(panel.service.keys().is_empty());
    // The lockout is written to the audit log.
    let audit = panel.audit_lines();
    assert!(audit.iter().any(|l| l["action"] == "lockout"), "{audit:?}");

    // Rotation (service password) ends it; the old token stays dead.
    let (code, answer) = panel.rotate().await;
    assert_eq!(code, 200, "{answer}");
    assert_ne!(panel.token, right);
    assert_eq!(panel.keys().await.len(), 0);
    let (code, _) = panel.call("GET", "/__keys/api/keys", &right, None).await;
    assert_eq!(code, 401);
}

// proves: B-4, ADMIN-6
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b4_nonces_refuse_replay_expiry_other_target_action_origin_and_rotation() {
    let mut panel = PanelHarness::start().await;
    assert_eq!(panel.add(KEY_A).await.0, 201);
    assert_eq!(panel.add(KEY_B).await.0, 201);
    let (a, b) = ("…1aaa", "…2bbb");
    let remove =
        |mask: &str, nonce: &str| serde_json::json!({"mask": mask, "nonce": nonce}).to_string();

    // Without a nonce, or with a made-up one.
    let (code, text) = panel
        .call(
            "POST",
            "/__keys/api/remove",
            &panel.token,
            Some(&remove(a, "f00d")),
        )
        .await;
    assert_eq!(code, 400, "{text}");
    assert!(text.contains("ADMIN-6"), "{text}");
    let (code, _) = panel
        .call(
            "POST",
            "/__keys/api/remove",
            &panel.token,
            Some(&format!(r#"{{"mask":"{a}"}}"#)),
        )
        .await;
    assert_eq!(code, 400);

    // Other target.
    let nonce = panel.nonce("remove", a).await;
    let (code, text) = panel
        .call(
            "POST",
            "/__keys/api/remove",
            &panel.token,
            Some(&remove(b, &nonce)),
        )
        .await;
    assert_eq!(code, 400, "{text}");
    assert!(text.contains("another key"), "{text}");
    // ... and it was used up by that attempt.
    let (code, text) = panel
        .call(
            "POST",
            "/__keys/api/remove",
            &panel.token,
            Some(&remove(a, &nonce)),
        )
        .await;
    assert_eq!(code, 400, "{text}");

    // Other action: a replace nonce does not remove.
    let nonce = panel.nonce("replace", a).await;
    let (code, text) = panel
        .call(
            "POST",
            "/__keys/api/remove",
            &panel.token,
            Some(&remove(a, &nonce)),
        )
        .await;
    assert_eq!(code, 400);
    assert!(text.contains("another action"), "{text}");

    // Expired (injected clock: 121 s later).
    let nonce = panel.nonce("remove", a).await;
    panel.clock.advance(Duration::from_secs(121));
    let (code, text) = panel
        .call(
            "POST",
            "/__keys/api/remove",
            &panel.token,
            Some(&remove(a, &nonce)),
        )
        .await;
    assert_eq!(code, 400);
    assert!(text.contains("expired"), "{text}");

    // Other origin: asked for from http://127.0.0.1:P, used from http://localhost:P.
    let nonce = panel.nonce("remove", a).await;
    let localhost = format!("localhost:{}", panel.addr.port());
    let local_origin = format!("http://{localhost}");
    let bearer = format!("Bearer {}", panel.token);
    let body_text = remove(a, &nonce);
    let answer = panel
        .send(&request(
            "POST",
            "/__keys/api/remove",
            &[
                ("host", &localhost),
                ("origin", &local_origin),
                ("authorization", &bearer),
                ("content-type", "application/json"),
            ],
            Some(&body_text),
        ))
        .await;
    assert_eq!(status(&answer), 400, "{}", String::from_utf8_lossy(&answer));
    assert!(body(&answer).contains("another origin"));

    // From before a rotation.
    let nonce = panel.nonce("remove", a).await;
    assert_eq!(panel.rotate().await.0, 200);
    let (code, text) = panel
        .call(
            "POST",
            "/__keys/api/remove",
            &panel.token,
            Some(&remove(a, &nonce)),
        )
        .await;
    assert_eq!(code, 400);
    assert!(text.contains("unknown nonce"), "{text}");

    // Replay of a good one.
    assert_eq!(
        panel.keys().await.len(),
        2,
        "a refused nonce changed something"
    );
    let nonce = panel.nonce("remove", a).await;
    let (code, text) = panel
        .call(
            "POST",
            "/__keys/api/remove",
            &panel.token,
            Some(&remove(a, &nonce)),
        )
        .await;
    assert_eq!(code, 200, "{text}");
    assert_eq!(panel.add(KEY_A).await.0, 201);
    let (code, _) = panel
        .call(
            "POST",
            "/__keys/api/remove",
            &panel.token,
            Some(&remove(a, &nonce)),
        )
        .await;
    assert_eq!(code, 400, "a nonce was used twice");
    assert_eq!(panel.keys().await.len(), 2);

    // Replace needs its own nonce too.
    let replace = |nonce: &str| {
        serde_json::json!({"mask": b, "key": "tvly-dev-CCCCCCCCCCCCCCCCCCCCCCCC3ccc", "nonce": nonce}).to_string()
    };
    let nonce = panel.nonce("remove", b).await;
    let (code, _) = panel
        .call(
            "POST",
            "/__keys/api/replace",
            &panel.token,
            Some(&replace(&nonce)),
        )
        .await;
    assert_eq!(code, 400);
    let nonce = panel.nonce("replace", b).await;
    let (code, text) = panel
        .call(
            "POST",
            "/__keys/api/replace",
            &panel.token,
            Some(&replace(&nonce)),
        )
        .await;
    assert_eq!(code, 200, "{text}");
    let masks: Vec<String> = panel
        .keys()
        .await
        .iter()
        .map(|k| k["mask"].as_str().unwrap().to_owned())
        .collect();
    // Replaced in place (A was removed and added again, so it is last).
    assert_eq!(masks, vec!["…3ccc".to_string(), "…1aaa".to_string()]);

    // Every attempt has its audit line; the refused ones say so.
    let audit = panel.audit_lines();
    let refused = audit
        .iter()
        .filter(|l| l["result"].as_str().unwrap().starts_with("refused"))
        .count();
    assert!(refused >= 8, "{audit:#?}");
}

fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

// proves: B-5, ADMIN-11, STATE-1, ADMIN-3
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b5_a_canary_key_appears_nowhere_but_in_memory() {
    let logs = captured_logs();
    let canary = "tvly-CANARY-9f8e7d6c5b4a39281706zZ9q";
    let replacement = "tvly-CANARY2-0a1b2c3d4e5f60718293yY8w";
    let (by_value, _) = Redactor::new([canary, replacement]);
    let mut panel = PanelHarness::start().await;
    let mut answers = Vec::new();
    let (code, text) = panel.add(canary).await;
    assert_eq!(code, 201, "{text}");
    answers.push(text);
    // The key is in memory, where research reads it (STATE-1).
    assert_eq!(
        panel
            .service
            .keys()
            .values(ploy_service::panel::keys::Provider::Tavily),
        vec![canary.to_string()]
    );
    // Every other route and mistake: list, page, duplicate, nonce, replace,
    // bad bodies that carry the key in other fields.
    for (method, path, body) in [
        ("GET", "/__keys/api/keys", None),
        ("GET", "/__keys", None),
        (
            "POST",
            "/__keys/api/keys",
            Some(format!(r#"{{"provider":"tavily","key":"{canary}"}}"#)),
        ),
        (
            "POST",
            "/__keys/api/keys",
            Some(format!(r#"{{"provider":"{canary}","key":"x"}}"#)),
        ),
        (
            "POST",
            "/__keys/api/keys",
            Some(format!(
                r#"{{"provider":"tavily","key":"{canary}","extra":"{canary}"}}"#
            )),
        ),
        (
            "POST",
            "/__keys/api/keys",
            Some(format!(r#"{{"provider":"tavily","key":["{canary}"]}}"#)),
        ),
        (
            "POST",
            "/__keys/api/keys",
            Some(format!(r#"{{"provider":"tavily","key":"{canary}"#)),
        ),
        (
            "POST",
            "/__keys/api/nonce",
            Some(format!(r#"{{"action":"remove","mask":"{canary}"}}"#)),
        ),
        (
            "POST",
            "/__keys/api/remove",
            Some(format!(r#"{{"mask":"{canary}","nonce":"{canary}"}}"#)),
        ),
        (
            "POST",
            "/__keys/api/replace",
            Some(format!(
                r#"{{"mask":"{canary}","key":"{canary}","nonce":"x"}}"#
            )),
        ),
        (
            "POST",
            "/__keys/api/replace",
            Some(format!(
                r#"{{"mask":"…zZ9q","key":"{canary}","nonce":"x"}}"#
            )),
        ),
    ] {
        let (_, text) = panel
            .call(method, path, &panel.token, body.as_deref())
            .await;
        answers.push(text);
    }
    let mask = ploy_secrets::mask(canary);
    let nonce = panel.nonce("replace", &mask).await;
    let body = serde_json::json!({"mask": mask, "key": replacement, "nonce": nonce}).to_string();
    let (code, text) = panel
        .call("POST", "/__keys/api/replace", &panel.token, Some(&body))
        .await;
    assert_eq!(code, 200, "{text}");
    answers.push(text);
    let nonce = panel
        .nonce("remove", &ploy_secrets::mask(replacement))
        .await;
    let body =
        serde_json::json!({"mask": ploy_secrets::mask(replacement), "nonce": nonce}).to_string();
    let (code, text) = panel
        .call("POST", "/__keys/api/remove", &panel.token, Some(&body))
        .await;
    assert_eq!(code, 200, "{text}");
    answers.push(text);
    assert_eq!(panel.rotate().await.0, 200);

    for answer in &answers {
        assert!(
            !by_value.contains_secret(answer),
            "a key is in an answer: {answer}"
        );
    }
    // The masks are what the answers name.
    assert!(answers.iter().any(|a| a.contains("…zZ9q")));
    // Files: the state folder (state.json, audit.log, ploy.db, service file).
    let token = panel.token.clone();
    for path in files_under(panel.state.path()) {
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !by_value.contains_secret_bytes(&bytes),
            "a key is in {}",
            path.display()
        );
        assert!(
            !text.contains(&token),
            "the admin token is in {}",
            path.display()
        );
    }
    // Only the digest of the admin token is kept.
    let state = std::fs::read_to_string(panel.state.path().join("state.json")).unwrap();
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(token.as_bytes()));
    assert!(state.contains(&digest), "{state}");
    let audit = std::fs::read_to_string(panel.state.path().join("audit.log")).unwrap();
    assert!(
        audit.contains("…zZ9q") && audit.contains("…yY8w"),
        "{audit}"
    );
    panel.service.shutdown().await.unwrap();
    // Every log line of the whole test, at TRACE, before redaction.
    let logged = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(
        logged.contains("key panel"),
        "no panel log line was captured"
    );
    assert!(!by_value.contains_secret(&logged), "a key was logged");
}

// proves: B-6, ADMIN-10
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b6_public_bind_mounts_no_panel_and_says_so() {
    let state = tempfile::tempdir().unwrap();
    let section = r#"{"allow_public_bind":true,"listen":"0.0.0.0:0"}"#;
    let service = start_service(state.path(), section, Vec::new(), TestClock::new())
        .await
        .unwrap();
    match service.panel_status() {
        ploy_service::PanelStatus::NotMounted { reason } => {
            assert!(
                reason.contains("ADMIN-10") && reason.contains("NOT mounted"),
                "{reason}"
            );
        }
        other => panic!("mounted on a public bind: {other:?}"),
    }
    assert!(service.panel().is_none());
    // Traffic only to loopback: the listener is on every address, we use 127.0.0.1.
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], service.api_addr().port()));
    let file: ploy_service::ServiceFile =
        serde_json::from_str(&std::fs::read_to_string(service.service_file()).unwrap()).unwrap();
    let host = addr.to_string();
    let bearer = format!("Bearer {}", file.password);
    for with_password in [false, true] {
        let mut headers = vec![("host", host.as_str())];
        if with_password {
            headers.push(("authorization", bearer.as_str()));
        }
        let unmounted =
            without_date(&support::raw(addr, &request("GET", "/__nothing", &headers, None)).await);
        for path in ["/__keys", "/__keys/api/keys", "/__keys/api/nonce"] {
            let answer = support::raw(addr, &request("GET", path, &headers, None)).await;
            assert_eq!(
                without_date(&answer).replace(path, "/__nothing"),
                unmounted,
                "{path} (password: {with_password})"
            );
        }
    }
    // Rotation has nothing to rotate; no panel file was made.
    let answer = support::raw(
        addr,
        &request(
            "POST",
            "/v1/admin-token/rotate",
            &[("host", &host), ("authorization", &bearer)],
            Some(""),
        ),
    )
    .await;
    assert_eq!(status(&answer), 409);
    assert!(body(&answer).contains("ADMIN-10"));
    assert!(!state.path().join("state.json").exists());
    assert!(!state.path().join("audit.log").exists());
    service.shutdown().await.unwrap();
}

// proves: ADMIN-3, ADMIN-7
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn symlinks_planted_at_state_json_or_audit_log_are_refused() {
    for name in ["state.json", "audit.log"] {
        let state = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("victim");
        std::fs::write(&target, b"untouched").unwrap();
        std::os::unix::fs::symlink(&target, state.path().join(name)).unwrap();
        let err = start_service(state.path(), "{}", Vec::new(), TestClock::new())
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains(name) && err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read(&target).unwrap(), b"untouched");
        // Nothing half-started: no service file left behind.
        assert!(
            !std::fs::read_dir(state.path())
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("service-"))
        );
    }

    // Planted while running: the change is refused (fail closed), nothing is
    // written through the link, the key is not added.
    let mut panel = PanelHarness::start().await;
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("victim");
    std::fs::write(&target, b"untouched").unwrap();
    let audit = panel.state.path().join("audit.log");
    std::fs::remove_file(&audit).unwrap();
    std::os::unix::fs::symlink(&target, &audit).unwrap();
    let (code, text) = panel.add(KEY_A).await;
    assert_eq!(code, 503, "{text}");
    assert!(text.contains("ADMIN-7"), "{text}");
    assert!(panel.service.keys().is_empty());
    assert_eq!(std::fs::read(&target).unwrap(), b"untouched");
    // A rotation is an audited change too: refused, old token still good.
    let old = panel.token.clone();
    assert_eq!(panel.rotate().await.0, 503);
    assert_eq!(panel.token, old);
    assert_eq!(panel.keys().await.len(), 0);
    std::fs::remove_file(&audit).unwrap();

    let state_json = panel.state.path().join("state.json");
    std::fs::remove_file(&state_json).unwrap();
    std::os::unix::fs::symlink(&target, &state_json).unwrap();
    assert_eq!(panel.rotate().await.0, 503);
    assert_eq!(std::fs::read(&target).unwrap(), b"untouched");
    assert_eq!(panel.token, old);
}

// proves: ADMIN-7
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unwritable_or_widened_audit_log_refuses_the_change() {
    use std::os::unix::fs::PermissionsExt;
    let panel = PanelHarness::start().await;
    let audit = panel.state.path().join("audit.log");
    std::fs::set_permissions(&audit, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (code, text) = panel.add(KEY_A).await;
    assert_eq!(code, 503, "{text}");
    assert!(panel.service.keys().is_empty());
    std::fs::set_permissions(&audit, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::remove_file(&audit).unwrap();
    std::fs::create_dir(&audit).unwrap();
    let (code, _) = panel.add(KEY_A).await;
    assert_eq!(code, 503);
    assert!(panel.service.keys().is_empty());
    std::fs::remove_dir(&audit).unwrap();
    let (code, _) = panel.add(KEY_A).await;
    assert_eq!(code, 201);
    let lines = panel.audit_lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["action"], "add");
    assert_eq!(lines[0]["target"], "…1aaa");
    assert_eq!(lines[0]["origin"], panel.origin());
    assert_eq!(lines[0]["result"], "ok");
}

// proves: ADMIN-8, ADMIN-2
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_has_the_strict_headers_and_never_cors_or_cookies() {
    let panel = PanelHarness::start().await;
    let host = panel.host();
    let page1 = panel
        .send(&request("GET", "/__keys", &[("host", &host)], None))
        .await;
    let page2 = panel
        .send(&request("GET", "/__keys", &[("host", &host)], None))
        .await;
    assert_eq!(status(&page1), 200);
    let head = |answer: &[u8]| {
        String::from_utf8_lossy(answer)
            .split("\r\n\r\n")
            .next()
            .unwrap()
            .to_ascii_lowercase()
    };
    let nonce_of = |answer: &[u8]| {
        let head = head(answer);
        let start = head.find("'nonce-").unwrap() + 7;
        head[start..start + 32].to_string()
    };
    let (n1, n2) = (nonce_of(&page1), nonce_of(&page2));
    assert_ne!(n1, n2, "the script nonce is per response");
    assert!(body(&page1).contains(&format!("<script nonce=\"{n1}\">")));
    assert!(head(&page1).contains("content-type: text/html; charset=utf-8"));
    let mut answers = vec![page1];
    answers.push(
        panel
            .send(&request(
                "GET",
                "/__keys/api/keys",
                &[("host", &host)],
                None,
            ))
            .await,
    );
    let bearer = format!("Bearer {}", panel.token);
    answers.push(
        panel
            .send(&request(
                "GET",
                "/__keys/api/keys",
                &[("host", &host), ("authorization", &bearer)],
                None,
            ))
            .await,
    );
    answers.push(
        panel
            .send(&request(
                "OPTIONS",
                "/__keys/api/keys",
                &[
                    ("host", &host),
                    ("origin", "http://evil.example"),
                    ("access-control-request-method", "POST"),
                    ("access-control-request-headers", "authorization"),
                ],
                None,
            ))
            .await,
    );
    for answer in &answers {
        let head = head(answer);
        for required in [
            "content-security-policy: default-src 'none'",
            "frame-ancestors 'none'",
            "form-action 'none'",
            "base-uri 'none'",
            "x-content-type-options: nosniff",
            "referrer-policy: no-referrer",
            "cache-control: no-store",
            "x-frame-options: deny",
        ] {
            assert!(head.contains(required), "{required} missing in {head}");
        }
        assert!(!head.contains("access-control-"), "{head}");
        assert!(!head.contains("set-cookie"), "{head}");
    }
    assert_eq!(status(&answers[3]), 401, "a preflight is denied");
}

// proves: ADMIN-2, ADMIN-11
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_are_400_with_json_errors_after_the_gate() {
    let panel = PanelHarness::start().await;
    let host = panel.host();
    let origin = panel.origin();
    let bearer = format!("Bearer {}", panel.token);
    let good = format!(r#"{{"provider":"tavily","key":"{KEY_A}"}}"#);
    let big = format!(
        r#"{{"provider":"tavily","key":"{}"}}"#,
        "x".repeat(17 * 1024)
    );
    for (content_type, payload, why) in [
        (Some("text/plain"), good.as_str(), "wrong type"),
        (
            Some("application/x-www-form-urlencoded"),
            good.as_str(),
            "form",
        ),
        (
            Some("application/json; charset=latin1"),
            good.as_str(),
            "charset",
        ),
        (None, good.as_str(), "no type"),
        (Some("application/json"), big.as_str(), "over 16 KiB"),
        (
            Some("application/json"),
            r#"{"provider":"tavily","key":"tvly-dev-0000000000000000","admin":true}"#,
            "unknown field",
        ),
        (
            Some("application/json"),
            r#"{"provider":"openai","key":"tvly-dev-0000000000000000"}"#,
            "unknown provider",
        ),
        (
            Some("application/json"),
            r#"{"provider":"tavily"}"#,
            "missing key",
        ),
        (
            Some("application/json"),
            r#"{"provider":"tavily","key":"short"}"#,
            "short key",
        ),
        (Some("application/json"), "not json", "syntax"),
    ] {
        let mut headers = vec![
            ("host", host.as_str()),
            ("origin", origin.as_str()),
            ("authorization", bearer.as_str()),
        ];
        if let Some(t) = content_type {
            headers.push(("content-type", t));
        }
        let answer = panel
            .send(&request(
                "POST",
                "/__keys/api/keys",
                &headers,
                Some(payload),
            ))
            .await;
        assert_eq!(
            status(&answer),
            400,
            "{why}: {}",
            String::from_utf8_lossy(&answer)
        );
        let value: serde_json::Value = serde_json::from_str(&body(&answer)).unwrap();
        assert!(value["error"]["message"].is_string(), "{why}");
    }
    assert!(panel.service.keys().is_empty());
    // Wrong method after the gate: 405; unknown route: 404.
    let (code, _) = panel
        .call("PUT", "/__keys/api/keys", &panel.token, None)
        .await;
    assert_eq!(code, 405);
    let (code, _) = panel
        .call("GET", "/__keys/api/other", &panel.token, None)
        .await;
    assert_eq!(code, 404);
}

// proves: ADMIN-3
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_token_is_shown_once_and_survives_a_restart_as_a_digest() {
    let panel = PanelHarness::start().await;
    let token = panel.token.clone();
    assert_eq!(token.len(), 64, "256 bits as hex");
    let PanelHarness { service, state, .. } = panel;
    service.shutdown().await.unwrap();
    let again = PanelHarness::start_in(state, "{}", vec![KEY_A.into()]).await;
    assert!(
        again.token.is_empty(),
        "a second start showed a token again"
    );
    let (code, text) = again.call("GET", "/__keys/api/keys", &token, None).await;
    assert_eq!(code, 200, "{text}");
    // The start key from PLOY_TAVILY_KEYS is listed by mask.
    assert!(text.contains("…1aaa") && !text.contains(KEY_A), "{text}");
}

// proves: STATE-1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_key_that_cannot_be_kept_stops_the_start_naming_its_mask_only() {
    let state = tempfile::tempdir().unwrap();
    let err = start_service(
        state.path(),
        "{}",
        vec!["tvly short".into()],
        TestClock::new(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("STATE-1") && err.contains("PLOY_TAVILY_KEYS"),
        "{err}"
    );
    assert!(!err.contains("tvly short"), "{err}");
}

// An outsider's header tricks, each tried with the right token: duplicated
// or malformed Origin, Host and Authorization headers, a cross-site fetch
// marker, look-alike hosts. Every one gets the one denial; only the tricks
// that pass Origin and Host and present a bearer may count towards the lockout.
// proves: ADMIN-1, ADMIN-2, ADMIN-8, ADMIN-9
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_tricks_with_the_right_token_get_the_one_denial() {
    let panel = PanelHarness::start().await;
    let denial = panel.denial().await;
    let host = panel.host();
    let origin = panel.origin();
    let port = panel.addr.port();
    let bearer = format!("Bearer {}", panel.token);
    let localhost_origin = format!("http://localhost:{port}");
    let slash_origin = format!("{origin}/");
    let https_origin = format!("https://{host}");
    let dotted_host = format!("127.0.0.1.:{port}");
    let decimal_host = format!("2130706433:{port}");
    let spaced = format!("Bearer  {}", panel.token);
    let lower = format!("bearer {}", panel.token);
    let basic = format!("Basic {}", panel.token);
    // (A trailing space is not a trick: HTTP strips a field value's
    // surrounding white space before anyone sees it, RFC 9110 §5.5.)
    let body = r#"{"provider":"tavily","key":"tvly-trick-000000000000000"}"#;
    let tricks: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "two origins",
            vec![
                ("host", &host),
                ("origin", &origin),
                ("origin", "http://evil.example"),
                ("authorization", &bearer),
            ],
        ),
        (
            "origin null",
            vec![
                ("host", &host),
                ("origin", "null"),
                ("authorization", &bearer),
            ],
        ),
        (
            "origin with a slash",
            vec![
                ("host", &host),
                ("origin", &slash_origin),
                ("authorization", &bearer),
            ],
        ),
        (
            "https origin",
            vec![
                ("host", &host),
                ("origin", &https_origin),
                ("authorization", &bearer),
            ],
        ),
        (
            "other own origin",
            vec![
                ("host", &host),
                ("origin", &localhost_origin),
                ("authorization", &bearer),
            ],
        ),
        (
            "cross-site marker",
            vec![
                ("host", &host),
                ("origin", &origin),
                ("sec-fetch-site", "cross-site"),
                ("authorization", &bearer),
            ],
        ),
        (
            "same-site marker",
            vec![
                ("host", &host),
                ("origin", &origin),
                ("sec-fetch-site", "same-site"),
                ("authorization", &bearer),
            ],
        ),
        (
            "trailing-dot host",
            vec![
                ("host", &dotted_host),
                ("origin", &origin),
                ("authorization", &bearer),
            ],
        ),
        (
            "decimal host",
            vec![
                ("host", &decimal_host),
                ("origin", &origin),
                ("authorization", &bearer),
            ],
        ),
        (
            "two hosts",
            vec![
                ("host", &host),
                ("host", &host),
                ("origin", &origin),
                ("authorization", &bearer),
            ],
        ),
        (
            "two bearers",
            vec![
                ("host", &host),
                ("origin", &origin),
                ("authorization", &bearer),
                ("authorization", &bearer),
            ],
        ),
        (
            "two spaces",
            vec![
                ("host", &host),
                ("origin", &origin),
                ("authorization", &spaced),
            ],
        ),
        (
            "lower-case scheme",
            vec![
                ("host", &host),
                ("origin", &origin),
                ("authorization", &lower),
            ],
        ),
        (
            "basic scheme",
            vec![
                ("host", &host),
                ("origin", &origin),
                ("authorization", &basic),
            ],
        ),
        (
            "no origin on a change",
            vec![("host", &host), ("authorization", &bearer)],
        ),
    ];
    for (name, mut headers) in tricks {
        headers.push(("content-type", "application/json"));
        let answer = panel
            .send(&request("POST", "/__keys/api/keys", &headers, Some(body)))
            .await;
        assert_eq!(without_date(&answer), denial, "{name}");
    }
    assert!(panel.service.keys().is_empty());
    // Counted: only a trick that passed Origin and Host and presented a
    // `Bearer ` credential (the two-space one). Another scheme, the scheme
    // in lower case, or two Authorization headers present no bearer at all.
    assert_eq!(panel.service.panel().unwrap().gate().failures(), 1);
    // And the panel still works for the real page's requests.
    assert_eq!(panel.add("tvly-after-tricks-00000000000").await.0, 201);
}
