//! The browser harness: Debian's Chromium driven through chromedriver (WebDriver, with the
//! `fantoccini` client), against a real server on 127.0.0.1:0.
//!
//! Without Chromium the browser tests are skipped with a line saying so, unless `CI` is
//! set: then a missing browser is a failure (`.ci/run` installs it).
#![allow(dead_code)]

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Whether the browser tests can run here; `false` (with a line on stderr) means skip.
/// Panics when `CI` is set and the browser is missing.
pub fn available() -> bool {
    let present = Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists();
    if !present {
        if std::env::var_os("CI").is_some() {
            panic!(
                "CI is set but {CHROMIUM} or {CHROMEDRIVER} is missing: .ci/run installs them (apt-get install chromium chromium-driver)"
            );
        }
        eprintln!(
            "skipped: no {CHROMIUM} / {CHROMEDRIVER} (apt-get install chromium chromium-driver)"
        );
    }
    present
}

/// Where screenshots go: `target/e2e/`.
pub fn shots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// One browser: its own chromedriver and a fresh profile.
pub struct Browser {
    pub client: Client,
    driver: Child,
    profile: PathBuf,
    pub base: String,
}

impl Browser {
    /// A headless Chromium window of `width`×`height` opened on nothing yet; `base` is the
    /// server's `http://127.0.0.1:PORT`.
    pub async fn open(base: &str, width: u32, height: u32) -> Browser {
        Browser::open_as(base, width, height, None).await
    }

    /// A phone: Chromium's device emulation at `width`×`height` CSS px, pixel ratio 3,
    /// with touch (so the page's `pointer: coarse` rules and touch controls apply).
    pub async fn open_phone(base: &str, width: u32, height: u32) -> Browser {
        let metrics = json!({"deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0, "touch": true}});
        Browser::open_as(base, width, height, Some(metrics)).await
    }

    async fn open_as(
        base: &str,
        width: u32,
        height: u32,
        mobile: Option<serde_json::Value>,
    ) -> Browser {
        let port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let profile = std::env::temp_dir().join(format!("uc-chrome-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", format!("--window-size={width},{height}"),
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
        });
        let mut caps = caps;
        if let Some(m) = mobile {
            caps["goog:chromeOptions"]["mobileEmulation"] = m;
        }
        let caps = caps.as_object().cloned().unwrap_or_default();
        let url = format!("http://127.0.0.1:{port}");
        let mut last_error = String::new();
        for _ in 0..50 {
            let mut builder =
                ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
            builder.capabilities(caps.clone());
            match builder.connect(&url).await {
                Ok(client) => {
                    return Browser {
                        client,
                        driver,
                        profile,
                        base: base.to_string(),
                    };
                }
                Err(e) => last_error = e.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        panic!("chromedriver did not start a session: {last_error}");
    }

    pub async fn goto(&self, path: &str) {
        self.client
            .goto(&format!("{}{path}", self.base))
            .await
            .expect("navigate");
    }

    /// Waits (up to `secs`) until the page's notice bar shows a line with `text` in it;
    /// the whole line.
    pub async fn notice_with(&self, text: &str, secs: u64) -> String {
        let js = format!(
            "(() => {{ const n = document.getElementById('notice'); return n && !n.hidden && n.textContent.includes({text:?}) ? n.textContent : false; }})()"
        );
        let v = self.wait_until(&js, secs).await;
        v.as_str().unwrap_or_default().to_string()
    }

    /// Waits (up to `secs`) until `js` (an expression) is truthy; panics naming it otherwise.
    pub async fn wait_until(&self, js: &str, secs: u64) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let v = self
                .client
                .execute(&format!("return ({js});"), vec![])
                .await
                .unwrap_or(Value::Null);
            if !(v.is_null() || v == false || v == 0 || v == "") {
                return v;
            }
            if tokio::time::Instant::now() > deadline {
                let screen = self.screen().await;
                let notice = self.text("#notice").await;
                panic!("waited {secs} s for `{js}`; the page shows {screen:?} (notice {notice:?})");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn eval(&self, js: &str) -> Value {
        self.client
            .execute(&format!("return ({js});"), vec![])
            .await
            .expect("script runs")
    }

    /// The screen the page shows (`main[data-screen]`).
    pub async fn screen(&self) -> String {
        self.eval("document.getElementById('app').dataset.screen")
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub async fn wait_screen(&self, screen: &str, secs: u64) {
        self.wait_until(
            &format!("document.getElementById('app').dataset.screen === '{screen}'"),
            secs,
        )
        .await;
    }

    pub async fn text(&self, css: &str) -> String {
        self.eval(&format!(
            "(document.querySelector('{css}') || {{textContent: ''}}).textContent"
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// Clicks the button with this accessible name (waiting for it, up to 10 s).
    pub async fn click(&self, name: &str) {
        let xpath =
            format!("//button[normalize-space()='{name}'] | //a[normalize-space()='{name}']");
        self.wait_until(
            &format!(
                "document.evaluate(\"{xpath}\", document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue"
            ),
            10,
        )
        .await;
        // The lobby re-renders on each of its frames, so the element found may be
        // replaced before the click lands: find it again, a few times.
        for attempt in 1..=5 {
            let clicked = match self.client.find(Locator::XPath(&xpath)).await {
                Ok(button) => button.click().await.map(|_| ()),
                Err(e) => Err(e),
            };
            match clicked {
                Ok(()) => return,
                Err(e) if is_stale(&e) && attempt < 5 => continue,
                Err(e) => panic!("clicking {name}: {e}"),
            }
        }
    }

    /// Picks `value` in the `<select>` matched by `css`, finding it again when a re-render
    /// replaced it between the find and the pick.
    pub async fn select(&self, css: &str, value: &str) {
        for attempt in 1..=5 {
            let picked = match self.client.find(Locator::Css(css)).await {
                Ok(select) => select.select_by_value(value).await.map(|_| ()),
                Err(e) => Err(e),
            };
            match picked {
                Ok(()) => return,
                Err(e) if is_stale(&e) && attempt < 5 => continue,
                Err(e) => panic!("picking {value} in {css}: {e}"),
            }
        }
    }

    /// Types into the field whose label says `label`.
    pub async fn fill(&self, label: &str, text: &str) {
        let xpath = format!("//input[@id=//label[normalize-space()='{label}']/@for]");
        let field = self
            .client
            .find(Locator::XPath(&xpath))
            .await
            .unwrap_or_else(|e| panic!("no field labelled {label}: {e}"));
        field.clear().await.expect("clear");
        field.send_keys(text).await.expect("type");
    }

    /// Holds `key` for `ms` milliseconds (a real key press, through WebDriver).
    pub async fn hold_key(&self, key: char, ms: u64) {
        let keys = KeyActions::new("keyboard".into())
            .then(KeyAction::Down { value: key })
            .then(KeyAction::Pause {
                duration: Duration::from_millis(ms),
            })
            .then(KeyAction::Up { value: key });
        self.client
            .perform_actions(keys)
            .await
            .expect("key actions");
    }

    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.client.screenshot().await.expect("screenshot");
        let path = shots().join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write the screenshot");
        path
    }

    /// How many different colours a sample of the canvas has (a blank canvas has one).
    pub async fn canvas_colours(&self) -> u64 {
        self.eval(
            "(() => { const c = document.querySelector('canvas'); if (!c) return 0;
               const g = c.getContext('2d'); const d = g.getImageData(0, 0, c.width, c.height).data;
               const seen = new Set(); const step = Math.max(4, Math.floor(d.length / 4 / 5000)) * 4;
               for (let k = 0; k < d.length; k += step) seen.add((d[k] << 16) | (d[k + 1] << 8) | d[k + 2]);
               return seen.size; })()",
        )
        .await
        .as_u64()
        .unwrap_or(0)
    }

    /// The page's uncaught errors so far (`window.__pageErrors`).
    pub async fn page_errors(&self) -> Vec<String> {
        self.eval("window.__pageErrors || []")
            .await
            .as_array()
            .map(|a| a.iter().map(|v| v.to_string()).collect())
            .unwrap_or_default()
    }

    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Whether WebDriver said the element was replaced (a re-render) since it was found.
fn is_stale(e: &fantoccini::error::CmdError) -> bool {
    matches!(e, fantoccini::error::CmdError::Standard(w)
        if w.error == fantoccini::error::ErrorStatus::StaleElementReference)
}
