//! A headless Chromium driven through WebDriver (Debian's `chromium` and `chromium-driver`),
//! for the tests of the pages the server serves: the W3C protocol's few calls a test needs
//! (open a page, run a script, size the window, take a screenshot), and Chromium's browser
//! log.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

/// Where Debian installs the driver; `CHROMEDRIVER` names another.
const DRIVER: &str = "/usr/bin/chromedriver";
/// Where Debian installs the browser; `CHROMIUM` names another.
const BROWSER: &str = "/usr/bin/chromium";

/// A browser session; the driver and its browser stop when it is dropped.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    client: awc::Client,
}

impl Browser {
    /// Starts the driver on a free port and opens a headless session with the browser's
    /// console log kept. Panics with what to install when the driver or browser is missing.
    pub async fn start() -> Browser {
        let driver_path = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| DRIVER.to_owned());
        let browser_path = std::env::var("CHROMIUM").unwrap_or_else(|_| BROWSER.to_owned());
        for path in [&driver_path, &browser_path] {
            assert!(
                std::path::Path::new(path).exists(),
                "{path} is missing: the browser tests need Debian's `chromium` and \
                 `chromium-driver` (apt-get install chromium chromium-driver; .ci/run does)"
            );
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let driver = Command::new(&driver_path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{driver_path}: {e}"));
        let client = awc::Client::builder()
            .timeout(Duration::from_secs(60))
            .finish();
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        loop {
            let ready = match client.get(format!("{base}/status")).send().await {
                Ok(mut r) => r
                    .json::<Value>()
                    .await
                    .is_ok_and(|v| v["value"]["ready"] == true),
                Err(_) => false,
            };
            if ready {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut browser = Browser {
            driver,
            base,
            session: String::new(),
            client,
        };
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": browser_path,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--hide-scrollbars",
                         "--window-size=1920,1080"],
            },
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let session = browser.call("POST", "/session", capabilities).await;
        browser.session = session["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {session}"))
            .to_owned();
        browser
    }

    /// One WebDriver call on the session (`path` after `/session/<id>`, or `/session`
    /// itself): its `value`; panics on a WebDriver error.
    async fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = if path == "/session" {
            format!("{}/session", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let request = match method {
            "GET" => self.client.get(url),
            "DELETE" => self.client.delete(url),
            _ => self.client.post(url),
        };
        let mut response = if method == "POST" {
            request.send_json(&body).await
        } else {
            request.send().await
        }
        .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        let body: Value = response
            .json()
            .limit(64 << 20)
            .await
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        if let Some(error) = body["value"]["error"].as_str() {
            panic!(
                "WebDriver {method} {path}: {error}: {}",
                body["value"]["message"]
            );
        }
        body["value"].clone()
    }

    /// Opens `url` and waits for its `load` event.
    pub async fn open(&self, url: &str) {
        self.call("POST", "/url", json!({ "url": url })).await;
    }

    /// Runs `script` (a function body; `arguments` are `args`) in the page: what it returns.
    pub async fn run(&self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": args }),
        )
        .await
    }

    /// What `expression` is in the page.
    pub async fn eval(&self, expression: &str) -> Value {
        self.run(&format!("return ({expression});"), json!([]))
            .await
    }

    /// Waits until `expression` is true in the page, at most `within`; the time it took, or
    /// `None` if it never was.
    pub async fn until(&self, expression: &str, within: Duration) -> Option<Duration> {
        let started = Instant::now();
        loop {
            if self.eval(expression).await == Value::Bool(true) {
                return Some(started.elapsed());
            }
            if started.elapsed() > within {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sizes the window so that the page's viewport is `width` x `height` CSS pixels.
    pub async fn viewport(&self, width: i64, height: i64) {
        let mut outer = (width, height);
        for _ in 0..3 {
            self.call(
                "POST",
                "/window/rect",
                json!({"width": outer.0, "height": outer.1}),
            )
            .await;
            let inner = self.eval("[window.innerWidth, window.innerHeight]").await;
            let (w, h) = (
                inner[0].as_i64().unwrap_or(0),
                inner[1].as_i64().unwrap_or(0),
            );
            if (w, h) == (width, height) {
                return;
            }
            outer = (outer.0 + width - w, outer.1 + height - h);
        }
        panic!("the viewport could not be made {width}x{height}");
    }

    /// A PNG of the viewport, written to `path`.
    pub async fn screenshot(&self, path: &std::path::Path) {
        let data = self.call("GET", "/screenshot", Value::Null).await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().unwrap_or_default())
            .unwrap();
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, png).unwrap();
    }

    /// The browser's log since the last call: `{level, source, message}` entries.
    pub async fn log(&self) -> Vec<Value> {
        let entries = self
            .call("POST", "/se/log", json!({"type": "browser"}))
            .await;
        entries.as_array().cloned().unwrap_or_default()
    }

    /// Ends the session (closing the browser) and the driver.
    pub async fn quit(mut self) {
        let _ = self.call("DELETE", "", Value::Null).await;
        self.session.clear();
    }
}

/// A test that panics still closes its browser: the session is ended over a plain socket
/// (drop cannot await), then the driver is stopped.
impl Drop for Browser {
    fn drop(&mut self) {
        use std::io::{Read as _, Write as _};
        if !self.session.is_empty()
            && let Ok(mut socket) =
                std::net::TcpStream::connect(self.base.trim_start_matches("http://"))
        {
            let _ = socket.set_read_timeout(Some(Duration::from_secs(10)));
            let _ = write!(
                socket,
                "DELETE /session/{} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                self.session
            );
            let _ = socket.read(&mut [0u8; 1024]);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
