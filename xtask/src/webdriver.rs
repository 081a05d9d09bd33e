//! A small WebDriver client for the browser check: starts Debian's `chromedriver` on a free
//! port and speaks the W3C WebDriver HTTP API to it over plain HTTP/1.1 on 127.0.0.1 (JSON in,
//! JSON out), so CI drives a real Chromium with no Node and no browser download.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A running `chromedriver`, stopped when dropped.
pub(crate) struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    /// Starts `chromedriver` on a free port and waits (up to 20 s) until it answers.
    ///
    /// # Errors
    /// When it cannot be started or never answers.
    pub(crate) fn start(chromedriver: &str) -> Result<Self, String> {
        let port = TcpListener::bind(("127.0.0.1", 0))
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {chromedriver}: {e}"))?;
        let driver = Self { child, port };
        let started = Instant::now();
        while driver.request("GET", "/status", None).is_err() {
            if started.elapsed() > Duration::from_secs(20) {
                return Err(format!("{chromedriver} did not answer on port {port}"));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(driver)
    }

    /// Opens a browser session of `chromium` with `args`.
    ///
    /// # Errors
    /// When the driver refuses (no browser, bad flags).
    pub(crate) fn session(&self, chromium: &str, args: &[&str]) -> Result<Session<'_>, String> {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {"binary": chromium, "args": args},
        }}});
        let value = self.request("POST", "/session", Some(&caps))?;
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no sessionId in {value}"))?
            .to_owned();
        Ok(Session { driver: self, id })
    }

    /// One WebDriver command: `value` of the JSON answer, or the driver's error message.
    fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))
            .map_err(|e| format!("{method} {path}: {e}"))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .map_err(|e| e.to_string())?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .map_err(|e| format!("{method} {path}: {e}"))?;
        // chromedriver keeps the connection open despite `Connection: close`: read the head,
        // then exactly `Content-Length` bytes.
        let (head, payload) =
            read_answer(&mut stream).map_err(|e| format!("{method} {path}: {e}"))?;
        let ok = head.split_whitespace().nth(1) == Some("200");
        let json: Value = serde_json::from_str(&payload)
            .map_err(|e| format!("{method} {path}: not JSON ({e}): {payload:.200}"))?;
        if ok {
            Ok(json["value"].clone())
        } else {
            Err(format!(
                "{method} {path}: {:.400}",
                json["value"]["message"].as_str().unwrap_or(&payload)
            ))
        }
    }
}

/// One HTTP answer: the head (status line and headers) and the body of `Content-Length` bytes.
fn read_answer(stream: &mut TcpStream) -> Result<(String, String), String> {
    let mut bytes = Vec::new();
    let mut chunk = [0_u8; 16 * 1024];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = stream.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the connection closed before the answer's head".to_owned());
        }
        bytes.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .ok_or("no Content-Length in the answer")?;
    let body_start = head_end + 4;
    while bytes.len() < body_start + length {
        let n = stream.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the connection closed inside the answer's body".to_owned());
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&bytes[body_start..body_start + length]).into_owned();
    Ok((head, body))
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Best effort: a driver that already exited is fine.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser, closed when dropped.
pub(crate) struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Session<'_> {
    /// Loads `url` (returns when the document has loaded, not when the page is ready).
    ///
    /// # Errors
    /// A driver error.
    pub(crate) fn navigate(&self, url: &str) -> Result<(), String> {
        self.command("POST", "url", Some(&json!({ "url": url })))
            .map(|_| ())
    }

    /// Runs `script` (a function body; `arguments` are `args`) in the page and returns its
    /// result.
    ///
    /// # Errors
    /// A driver error or a script exception.
    pub(crate) fn execute(&self, script: &str, args: &[Value]) -> Result<Value, String> {
        self.command(
            "POST",
            "execute/sync",
            Some(&json!({ "script": script, "args": args })),
        )
    }

    /// The WebDriver id of the first element matching `css`.
    fn element(&self, css: &str) -> Result<String, String> {
        let found = self.command(
            "POST",
            "element",
            Some(&json!({ "using": "css selector", "value": css })),
        )?;
        found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("no element {css}"))
    }

    /// Picks the local file `path` in the `<input type="file">` matching `css`, as a user would.
    ///
    /// # Errors
    /// A driver error or no such element.
    pub(crate) fn pick_file(&self, css: &str, path: &std::path::Path) -> Result<(), String> {
        let element = self.element(css)?;
        let text = path.display().to_string();
        self.command(
            "POST",
            &format!("element/{element}/value"),
            Some(&json!({ "text": text })),
        )
        .map(|_| ())
    }

    /// Drags with the mouse's left button from the centre of the element matching `css` by
    /// `dx`, `dy` pixels, in a few steps.
    ///
    /// # Errors
    /// A driver error or no such element.
    pub(crate) fn drag(&self, css: &str, dx: i32, dy: i32) -> Result<(), String> {
        let element = self.element(css)?;
        let origin = json!({ "element-6066-11e4-a52e-4f735466cecf": element });
        let steps: Vec<Value> = (0..4)
            .map(|_| {
                json!({ "type": "pointerMove", "duration": 20, "origin": "pointer",
                             "x": dx / 4, "y": dy / 4 })
            })
            .collect();
        let mut actions = vec![
            json!({ "type": "pointerMove", "duration": 0, "origin": origin, "x": 0, "y": 0 }),
            json!({ "type": "pointerDown", "button": 0 }),
        ];
        actions.extend(steps);
        actions.push(json!({ "type": "pointerUp", "button": 0 }));
        self.command(
            "POST",
            "actions",
            Some(&json!({ "actions": [{ "type": "pointer", "id": "mouse",
                "parameters": { "pointerType": "mouse" }, "actions": actions }] })),
        )
        .map(|_| ())
    }

    /// Moves the mouse, no button held, to `dx`, `dy` pixels from the centre of the element
    /// matching `css` (the page sees a `pointermove` there, as when a user hovers).
    ///
    /// # Errors
    /// A driver error or no such element.
    pub(crate) fn hover(&self, css: &str, dx: i32, dy: i32) -> Result<(), String> {
        let element = self.element(css)?;
        let origin = json!({ "element-6066-11e4-a52e-4f735466cecf": element });
        let actions = [
            json!({ "type": "pointerMove", "duration": 0, "origin": origin, "x": 0, "y": 0 }),
            json!({ "type": "pointerMove", "duration": 50, "origin": origin, "x": dx, "y": dy }),
        ];
        self.command(
            "POST",
            "actions",
            Some(&json!({ "actions": [{ "type": "pointer", "id": "mouse",
                "parameters": { "pointerType": "mouse" }, "actions": actions }] })),
        )
        .map(|_| ())
    }

    /// A PNG screenshot of the first element matching `css`.
    ///
    /// # Errors
    /// A driver error, no such element, or bad base64.
    pub(crate) fn screenshot(&self, css: &str) -> Result<Vec<u8>, String> {
        use base64::Engine as _;
        let element = self.element(css)?;
        let png = self.command("GET", &format!("element/{element}/screenshot"), None)?;
        base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap_or(""))
            .map_err(|e| format!("screenshot of {css}: {e}"))
    }

    /// The browser console's warnings and errors so far (Chromium's log endpoint).
    pub(crate) fn console(&self) -> Vec<String> {
        self.command("POST", "se/log", Some(&json!({ "type": "browser" })))
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter(|l| l["level"] != "INFO")
            .filter_map(|l| l["message"].as_str().map(|m| m.chars().take(300).collect()))
            .take(8)
            .collect()
    }

    fn command(&self, method: &str, what: &str, body: Option<&Value>) -> Result<Value, String> {
        self.driver
            .request(method, &format!("/session/{}/{what}", self.id), body)
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        // Best effort: closes the browser.
        let _ = self
            .driver
            .request("DELETE", &format!("/session/{}", self.id), None);
    }
}
