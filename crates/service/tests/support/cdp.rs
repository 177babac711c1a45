//! A minimal Chrome DevTools Protocol client: start Debian's Chromium
//! headless with a fresh profile, talk CDP over the browser's websocket
//! (flattened sessions), and drive pages with real input events.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;

/// The headless browser: the first `chromium`, `chromium-browser` or
/// `google-chrome` on PATH, or why there is none. Tests take it through
/// `ploy_testkit::require_part!("chromium", support::cdp::chromium())`, so a
/// missing browser is a counted skip, and a failure under PLOY_TEST_STRICT=1.
pub fn chromium() -> Result<PathBuf, String> {
    let missing = || {
        "no chromium binary on PATH; install Debian's `chromium` (scripts/setup.sh does)".to_owned()
    };
    let path = std::env::var_os("PATH").ok_or_else(missing)?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(missing())
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;
type Sink = futures_util::stream::SplitSink<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    Message,
>;

/// A headless Chromium and its CDP connection. Killed on drop.
pub struct Browser {
    child: tokio::process::Child,
    sink: tokio::sync::Mutex<Sink>,
    pending: Pending,
    next_id: AtomicU64,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts the browser with a fresh profile and connects to it.
    pub async fn launch(binary: &PathBuf) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = tokio::process::Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--no-proxy-server",
                "--remote-debugging-port=0",
                "--window-size=900,640",
                &format!("--user-data-dir={}", profile.path().display()),
                "about:blank",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let url = tokio::time::timeout(Duration::from_secs(60), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    return url.trim().to_owned();
                }
            }
            panic!("chromium exited without a DevTools endpoint")
        })
        .await
        .expect("chromium did not start within 60 s");
        // Keep draining stderr so the browser never blocks on it.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let (socket, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        let (sink, mut stream) = socket.split();
        let pending: Pending = Arc::new(Mutex::new(HashMap::new()));
        let waiting = pending.clone();
        tokio::spawn(async move {
            while let Some(Ok(message)) = stream.next().await {
                let Message::Text(text) = message else {
                    continue;
                };
                let Ok(value) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                if let Some(id) = value["id"].as_u64()
                    && let Some(sender) = waiting.lock().unwrap().remove(&id)
                {
                    let _ = sender.send(value);
                }
            }
        });
        Browser {
            child,
            sink: tokio::sync::Mutex::new(sink),
            pending,
            next_id: AtomicU64::new(1),
            _profile: profile,
        }
    }

    /// Sends one command (to a page session when given) and returns its
    /// `result`; a CDP error fails the test with its message.
    pub async fn call(&self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let (sender, receiver) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, sender);
        self.sink
            .lock()
            .await
            .send(Message::Text(message.to_string().into()))
            .await
            .unwrap();
        let answer = tokio::time::timeout(Duration::from_secs(30), receiver)
            .await
            .unwrap_or_else(|_| panic!("{method}: no answer within 30 s"))
            .unwrap();
        if let Some(error) = answer.get("error") {
            panic!("{method} failed: {error}");
        }
        answer["result"].clone()
    }

    /// A new tab, attached with a flattened session.
    pub async fn new_page(&self) -> Page<'_> {
        let target = self
            .call(None, "Target.createTarget", json!({"url": "about:blank"}))
            .await;
        let target_id = target["targetId"].as_str().unwrap().to_owned();
        let attached = self
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .await;
        let session = attached["sessionId"].as_str().unwrap().to_owned();
        let page = Page {
            browser: self,
            session,
        };
        page.call("Page.enable", json!({})).await;
        page.call("Runtime.enable", json!({})).await;
        page.call("DOM.enable", json!({})).await;
        page
    }

    /// Stops the browser.
    pub async fn close(mut self) {
        let _ = self.child.kill().await;
    }
}

/// One tab.
pub struct Page<'a> {
    browser: &'a Browser,
    session: String,
}

impl Page<'_> {
    /// A command on this page.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        self.browser.call(Some(&self.session), method, params).await
    }

    /// Navigates and waits for the document to be complete.
    pub async fn goto(&self, url: &str) {
        self.call("Page.navigate", json!({"url": url})).await;
        self.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'")
            .await;
    }

    /// Evaluates `expression` (awaiting a promise) and returns its value.
    pub async fn eval(&self, expression: &str) -> Value {
        let answer = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        if let Some(exception) = answer.get("exceptionDetails") {
            panic!("{expression}: threw {exception}");
        }
        answer["result"]["value"].clone()
    }

    /// Evaluates `expression` and returns a remote object id.
    pub async fn object(&self, expression: &str) -> String {
        let answer = self
            .call("Runtime.evaluate", json!({"expression": expression}))
            .await;
        answer["result"]["objectId"]
            .as_str()
            .unwrap_or_else(|| panic!("{expression}: no object ({answer})"))
            .to_owned()
    }

    /// Waits (up to 20 s) until `expression` is truthy.
    pub async fn wait_for(&self, expression: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let answer = self
                .call(
                    "Runtime.evaluate",
                    json!({"expression": format!("!!({expression})"), "returnByValue": true}),
                )
                .await;
            if answer["result"]["value"] == json!(true) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {expression}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A real mouse click in the middle of the element `selector`.
    pub async fn click(&self, selector: &str) {
        let rect = self
            .eval(&format!(
                "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
                 e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
                 return {{x: r.x + r.width / 2, y: r.y + r.height / 2}}; }})()"
            ))
            .await;
        assert!(!rect.is_null(), "no element {selector}");
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": rect["x"], "y": rect["y"], "button": "left", "clickCount": 1}),
            )
            .await;
        }
    }

    /// Focuses `selector` and types `text` as keyboard input.
    pub async fn type_into(&self, selector: &str, text: &str) {
        self.click(selector).await;
        self.call("Input.insertText", json!({"text": text})).await;
    }

    /// Event listeners on the object `object_id` (CDP DOMDebugger).
    pub async fn listeners(&self, object_id: &str) -> Vec<Value> {
        self.call(
            "DOMDebugger.getEventListeners",
            json!({"objectId": object_id, "depth": 0}),
        )
        .await["listeners"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Every listener on `window`, `document` and each element, as
    /// (where, event type) pairs.
    pub async fn all_listeners(&self) -> Vec<(String, String)> {
        let mut found = Vec::new();
        for (name, expression) in [("window", "window"), ("document", "document")] {
            let id = self.object(expression).await;
            for listener in self.listeners(&id).await {
                found.push((
                    name.to_owned(),
                    listener["type"].as_str().unwrap_or("").to_owned(),
                ));
            }
        }
        let array = self
            .object("Array.from(document.querySelectorAll('*'))")
            .await;
        let properties = self
            .call(
                "Runtime.getProperties",
                json!({"objectId": array, "ownProperties": true}),
            )
            .await;
        for property in properties["result"].as_array().unwrap() {
            let (Some(name), Some(id)) = (
                property["name"].as_str(),
                property["value"]["objectId"].as_str(),
            ) else {
                continue;
            };
            if name.parse::<usize>().is_err() {
                continue;
            }
            let description = property["value"]["description"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            for listener in self.listeners(id).await {
                found.push((
                    description.clone(),
                    listener["type"].as_str().unwrap_or("").to_owned(),
                ));
            }
        }
        found.sort();
        found
    }

    /// A PNG screenshot of the page.
    pub async fn screenshot(&self) -> Vec<u8> {
        use base64::Engine as _;
        let shot = self
            .call("Page.captureScreenshot", json!({"format": "png"}))
            .await;
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap()
    }
}
