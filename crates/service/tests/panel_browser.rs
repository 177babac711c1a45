//! B-7: the key panel in a real browser (Debian's Chromium, headless, driven
//! over the DevTools protocol): log in with the token, add a key, see its
//! mask, remove it with confirmation; load the script twice and count the
//! controls and their listeners (ADMIN-12); a PNG screenshot is saved under
//! `target/` and its path printed.
#![allow(clippy::disallowed_methods)] // test servers, clients and the browser process
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use ploy_secrets::Redactor;
use ploy_service::panel::keys::Provider;
use support::cdp::{Browser, chromium};
use support::panel::PanelHarness;

const KEY: &str = "tvly-browser-7Qm2Xc9Lp4Rt8Wz1Hk6N";

fn screenshot_path(name: &str) -> std::path::PathBuf {
    // CARGO_TARGET_DIR when set, else the workspace's target/.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("panel-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap().join(name)
}

/// The panel's controls and all nodes under its root.
const COUNT_CONTROLS: &str = "(() => { const r = document.getElementById('ploy-keys'); \
    return {nodes: r.querySelectorAll('*').length, \
            controls: r.querySelectorAll('button, input, select, form').length, \
            roots: document.querySelectorAll('#ploy-keys').length}; })()";

// proves: B-7, ADMIN-12, ADMIN-8, ADMIN-6, ADMIN-11
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b7_log_in_add_see_the_mask_remove_with_confirmation_and_load_the_script_twice() {
    let chromium = ploy_testkit::require_part!("chromium", chromium());
    let panel = PanelHarness::start().await;
    let browser = Browser::launch(&chromium).await;
    let page = browser.new_page().await;
    let url = format!("http://{}/__keys", panel.host());
    page.goto(&url).await;
    page.wait_for("document.getElementById('ploy-token')").await;
    // No cookie exists, before or after (ADMIN-8).
    assert_eq!(page.eval("document.cookie").await, "");

    // Log in: type the token, press the button.
    page.type_into("#ploy-token", &panel.token).await;
    page.click("button[data-action=login]").await;
    page.wait_for("document.querySelector('form[data-form=add]')")
        .await;
    assert_eq!(
        page.eval("sessionStorage.getItem('ploy.admin-token')")
            .await,
        panel.token.as_str()
    );

    // Add a key; its mask shows, the key itself is nowhere in the page.
    page.type_into("#ploy-new-key", KEY).await;
    page.click("button[data-action=add]").await;
    page.wait_for("document.querySelector('td.mask')").await;
    let mask = ploy_secrets::mask(KEY);
    assert_eq!(
        page.eval("document.querySelector('td.mask').textContent")
            .await,
        mask.as_str()
    );
    assert_eq!(
        panel.service.keys().values(Provider::Tavily),
        vec![KEY.to_string()]
    );
    let html = page.eval("document.documentElement.outerHTML").await;
    let (by_value, _) = Redactor::new([KEY]);
    assert!(
        !by_value.contains_secret(html.as_str().unwrap()),
        "the key is in the page"
    );
    assert_eq!(
        page.eval("document.getElementById('ploy-new-key').value")
            .await,
        ""
    );

    // The same controls and listeners after a second load of the script.
    let script = page
        .eval("document.querySelector('script').textContent")
        .await
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(script.trim(), ploy_service::panel::page::script());
    let before = page.eval(COUNT_CONTROLS).await;
    let listeners_before = page.all_listeners().await;
    assert!(
        listeners_before.iter().any(|(_, kind)| kind == "click")
            && listeners_before.iter().any(|(_, kind)| kind == "submit"),
        "{listeners_before:?}"
    );
    page.eval(&script).await;
    page.wait_for("document.querySelector('td.mask')").await;
    let after = page.eval(COUNT_CONTROLS).await;
    let listeners_after = page.all_listeners().await;
    assert_eq!(before, after, "a second load added controls");
    assert_eq!(before["roots"], 1);
    assert_eq!(
        listeners_before, listeners_after,
        "a second load added listeners"
    );

    // Take the screenshot while the key is listed.
    let shot = page.screenshot().await;
    assert!(shot.starts_with(b"\x89PNG\r\n\x1a\n") && shot.len() > 2000);
    let path = screenshot_path("b7-panel-with-key.png");
    std::fs::write(&path, &shot).unwrap();
    println!("B-7 screenshot: {}", path.display());

    // Remove with confirmation: the first click only asks.
    page.click("button[data-action=ask-remove]").await;
    page.wait_for("document.querySelector('button[data-action=confirm-remove]')")
        .await;
    assert_eq!(
        panel.service.keys().values(Provider::Tavily).len(),
        1,
        "removed without confirmation"
    );
    let shot = page.screenshot().await;
    let confirm_path = screenshot_path("b7-panel-confirm-remove.png");
    std::fs::write(&confirm_path, &shot).unwrap();
    println!("B-7 screenshot: {}", confirm_path.display());
    page.click("button[data-action=confirm-remove]").await;
    page.wait_for("!document.querySelector('td.mask') && document.getElementById('ploy-status').textContent.startsWith('Removed')").await;
    assert!(panel.service.keys().is_empty());

    // After the double load, one click adds once: a doubled handler would
    // send a second add (refused as a duplicate, and audited as refused).
    page.type_into("#ploy-new-key", KEY).await;
    page.click("button[data-action=add]").await;
    page.wait_for("document.querySelector('td.mask')").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let audit = panel.audit_lines();
    let actions: Vec<(String, String)> = audit
        .iter()
        .map(|l| {
            (
                l["action"].as_str().unwrap().to_owned(),
                l["result"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        actions,
        vec![
            ("add".into(), "ok".into()),
            ("remove".into(), "ok".into()),
            ("add".into(), "ok".into())
        ],
        "{audit:#?}"
    );
    for line in &audit {
        assert_eq!(line["origin"], panel.origin());
    }

    // Log out: the token leaves sessionStorage.
    page.click("button[data-action=logout]").await;
    page.wait_for("document.getElementById('ploy-token')").await;
    assert!(
        page.eval("sessionStorage.getItem('ploy.admin-token')")
            .await
            .is_null()
    );

    // The count can see a doubled registration: the same script without its
    // abort of the earlier load adds a second pair of listeners.
    let listeners = page.all_listeners().await;
    let careless = script.replacen("previous.abort();", "void previous;", 1);
    assert_ne!(careless, script);
    page.eval(&careless).await;
    let doubled = page.all_listeners().await;
    assert_eq!(doubled.len(), listeners.len() + 2, "{doubled:?}");
    browser.close().await;
}

// proves: ADMIN-8, ADMIN-5
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_in_the_page_is_refused_and_forgotten() {
    let chromium = ploy_testkit::require_part!("chromium", chromium());
    let panel = PanelHarness::start().await;
    let browser = Browser::launch(&chromium).await;
    let page = browser.new_page().await;
    page.goto(&format!("http://{}/__keys", panel.host())).await;
    page.wait_for("document.getElementById('ploy-token')").await;
    page.type_into("#ploy-token", "not-the-token").await;
    page.click("button[data-action=login]").await;
    page.wait_for("document.getElementById('ploy-status').textContent.startsWith('Refused')")
        .await;
    assert!(
        page.eval("sessionStorage.getItem('ploy.admin-token')")
            .await
            .is_null()
    );
    assert!(
        page.eval("document.getElementById('ploy-token') !== null")
            .await
            .as_bool()
            .unwrap()
    );
    assert_eq!(panel.service.panel().unwrap().gate().failures(), 1);
    browser.close().await;
}
