//! The sandbox's web console in a real browser (headless Chromium through chromedriver and
//! the W3C WebDriver protocol): create a card in the page, log in with it from a C host
//! (tests/console/console_host.c) that runs a keeper, see the session appear live (the page
//! follows the sandbox's server-sent events, it does not poll), send a message in the page
//! and see it delivered exactly once, open a refused request in the inspector and read its
//! diagnosis, ban the card in the page and see the keeper end with 1006 and the reason; the
//! service's Chinese (the bulletin) is drawn with Chinese glyphs, not empty boxes. A
//! second test opens a sandbox that needs a token through the address it prints, and checks
//! that the page keeps the token in a cookie, not in its address.
//!
//! Screenshots of the console are written to `target/test-output/console/` (the `target`
//! folder of the build: `console-*.png`), for a person to look at; nothing compares them.
//!
//! Needs cc, chromium, chromedriver and a Chinese font (`scripts/install-deps.sh gcc chromium
//! cjk-font`). Every wait polls with a deadline.

#[path = "../common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::host::{demo_fixtures, host_command, library_dir, require_tool, root, Scratch};
use serde_json::{json, Value};
use verify_sandbox::{Config, Fixtures, Sandbox};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// W3C WebDriver's key for an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Polls `f` every 50 ms until it gives `Some`, for at most `secs` seconds.
fn poll<T>(what: &str, secs: u64, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {secs} s waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// One HTTP/1.1 exchange with chromedriver (`Connection: close`); returns the status and
/// the JSON body.
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| e.to_string())?;
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    // Read the head, then the body by its Content-Length (chromedriver may keep the
    // connection open) or, chunked, to the last chunk.
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    let (end, head) = loop {
        let n = s.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("closed before the head".into());
        }
        raw.extend_from_slice(&buf[..n]);
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break (
                end,
                String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase(),
            );
        }
    };
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    let length: Option<usize> = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok());
    let chunked = head.contains("transfer-encoding: chunked");
    loop {
        let have = raw.len() - (end + 4);
        let done = match length {
            Some(len) => have >= len,
            None if chunked => raw.ends_with(b"0\r\n\r\n"),
            None => false,
        };
        if done {
            break;
        }
        let n = s.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let mut payload = raw[end + 4..].to_vec();
    if let Some(len) = length {
        payload.truncate(len);
    }
    if chunked {
        let mut out = Vec::new();
        let mut rest = &payload[..];
        while let Some(nl) = rest.windows(2).position(|w| w == b"\r\n") {
            let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..nl]).trim(), 16)
                .map_err(|e| e.to_string())?;
            if size == 0 || rest.len() < nl + 2 + size {
                break;
            }
            let start = nl + 2;
            out.extend_from_slice(&rest[start..start + size]);
            rest = &rest[(start + size + 2).min(rest.len())..];
        }
        payload = out;
    }
    let v: Value = serde_json::from_slice(&payload).map_err(|e| format!("{e}: {head}"))?;
    Ok((status, v))
}

/// chromedriver and one browser session; both end on drop.
struct Browser {
    port: u16,
    session: String,
    driver: Child,
    _profile: Scratch,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(
            self.port,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Browser {
    fn start() -> Browser {
        let port = free_port();
        let mut driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let ready = (|| {
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                if let Ok((200, v)) = http(port, "GET", "/status", None) {
                    if v["value"]["ready"] == true {
                        return true;
                    }
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            false
        })();
        if !ready {
            let _ = driver.kill();
            panic!("chromedriver did not become ready within 30 s");
        }
        let profile = Scratch::new();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--window-size=1280,1600",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                    format!("--user-data-dir={}", profile.0.display()),
                ],
            },
        }}});
        let (status, v) = match http(port, "POST", "/session", Some(&caps)) {
            Ok(r) => r,
            Err(e) => {
                let _ = driver.kill();
                panic!("new session: {e}");
            }
        };
        let Some(session) = v["value"]["sessionId"].as_str().map(str::to_string) else {
            let _ = driver.kill();
            panic!("new session: HTTP {status} {v}");
        };
        Browser {
            port,
            session,
            driver,
            _profile: profile,
        }
    }

    /// A WebDriver command of this session: `Ok(value)`, or `Err(error name)`.
    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let full = format!("/session/{}{path}", self.session);
        let (status, v) =
            http(self.port, method, &full, body.as_ref()).map_err(|e| e.to_string())?;
        if status == 200 {
            Ok(v["value"].clone())
        } else {
            Err(format!(
                "{} ({})",
                v["value"]["error"].as_str().unwrap_or("error"),
                v["value"]["message"].as_str().unwrap_or_default()
            ))
        }
    }

    fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })))
            .unwrap_or_else(|e| panic!("navigate to {url}: {e}"));
    }

    fn find(&self, css: &str) -> Result<String, String> {
        let v = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        )?;
        v[ELEMENT]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("no element id in {v}"))
    }

    /// Clicks the element `css` once it exists (the page re-renders its tables every
    /// second: a stale element is looked up again).
    fn click(&self, css: &str) {
        poll(&format!("a click on {css}"), 20, || {
            let id = self.find(css).ok()?;
            self.cmd("POST", &format!("/element/{id}/click"), Some(json!({})))
                .ok()
        });
    }

    /// Clears the input `css` and types `text` into it.
    fn type_into(&self, css: &str, text: &str) {
        let id = poll(&format!("the input {css}"), 20, || self.find(css).ok());
        self.cmd("POST", &format!("/element/{id}/clear"), Some(json!({})))
            .unwrap_or_else(|e| panic!("clear {css}: {e}"));
        self.cmd(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        )
        .unwrap_or_else(|e| panic!("type into {css}: {e}"));
    }

    /// Runs a script in the page and returns its result.
    fn eval(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
        .unwrap_or_else(|e| panic!("script {script}: {e}"))
    }

    /// Whether the Chinese characters of the element `css` are drawn with glyphs: each is
    /// drawn alone on a canvas in the element's own font, and the bitmaps must have ink and
    /// differ from each other, where characters without a glyph (tofu, .notdef) all give the
    /// same box. Characters no font has (unassigned code points) are drawn the same way as
    /// the control: they must come out alike, or the check could not see tofu. Returns the
    /// page's measurements (font, characters, distinct and inked bitmaps, widths).
    fn chinese_glyphs(&self, css: &str) -> Value {
        let script = r#"
            const el = document.querySelector(arguments[0]);
            if (!el) return null;
            const family = getComputedStyle(el).fontFamily;
            const chars = Array.from(el.textContent).filter((c) => /[\u4e00-\u9fff]/.test(c));
            const canvas = document.createElement("canvas");
            canvas.width = 64;
            canvas.height = 64;
            const ctx = canvas.getContext("2d", { willReadFrequently: true });
            ctx.font = "40px " + family;
            ctx.textBaseline = "top";
            const draw = (c) => {
                ctx.clearRect(0, 0, 64, 64);
                ctx.fillText(c, 4, 4);
                const data = ctx.getImageData(0, 0, 64, 64).data;
                let bits = "", ink = 0;
                for (let i = 3; i < data.length; i += 4) {
                    const on = data[i] > 127;
                    bits += on ? "1" : "0";
                    if (on) ink++;
                }
                return { bits, ink };
            };
            const some = chars.slice(0, 8);
            const drawn = some.map(draw);
            const missing = ["͸", "͹", "΀", "΁"].map(draw);
            return {
                lang: el.closest("[lang]") ? el.closest("[lang]").getAttribute("lang") : "",
                page_lang: document.documentElement.lang,
                family,
                chars: some.join(""),
                distinct: new Set(drawn.map((d) => d.bits)).size,
                inked: drawn.filter((d) => d.ink >= 20).length,
                missing_distinct: new Set(missing.map((d) => d.bits)).size,
                width: ctx.measureText(some.join("")).width,
                missing_width: ctx.measureText("͸".repeat(some.length)).width,
            };
        "#;
        self.eval(script, json!([css]))
    }

    /// Writes a PNG screenshot of the page, or of the element `css` when given, to
    /// `target/test-output/console/console-NAME.png`.
    fn screenshot(&self, name: &str, css: Option<&str>) {
        use base64::Engine;
        let path = match css {
            Some(css) => {
                let id = poll(&format!("the element {css}"), 20, || self.find(css).ok());
                self.eval(
                    "document.querySelector(arguments[0]).scrollIntoView({block: 'start'}); \
                     window.scrollBy(0, -60);",
                    json!([css]),
                );
                format!("/element/{id}/screenshot")
            }
            None => "/screenshot".to_string(),
        };
        let png = self
            .cmd("GET", &path, None)
            .unwrap_or_else(|e| panic!("screenshot {name}: {e}"));
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().expect("base64 PNG"))
            .expect("a base64 PNG");
        assert!(
            bytes.starts_with(b"\x89PNG"),
            "screenshot {name} is not a PNG"
        );
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).expect("create the screenshot folder");
        let file = dir.join(format!("console-{name}.png"));
        std::fs::write(&file, bytes).unwrap_or_else(|e| panic!("write {}: {e}", file.display()));
    }

    /// The address the page is at.
    fn url(&self) -> String {
        self.cmd("GET", "/url", None)
            .expect("current URL")
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The trimmed text of the first element matching `css`, when there is one.
    fn text_of(&self, css: &str) -> Option<String> {
        let v = self.eval(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
            json!([css]),
        );
        v.as_str().map(|s| s.trim().to_string())
    }
}

/// `target/test-output/console/`: the test binary is `target/<profile>/deps/console-*`.
fn screenshot_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.ancestors()
        .nth(3)
        .expect("the test binary lives in target/<profile>/deps")
        .join("test-output/console")
}

/// POSTs a form to the sandbox's service with bare TCP; returns the reply's body.
fn post_form(base_url: &str, path: &str, form: &str) -> String {
    let addr = base_url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).expect("connect to the sandbox");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
        form.len()
    )
    .expect("write");
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    reply
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

/// The host program's stdout, collected line by line by a thread.
struct Host {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Host {
    fn lines(&self) -> Vec<String> {
        self.lines.lock().map(|l| l.clone()).unwrap_or_default()
    }

    fn wait_line(&self, what: &str, secs: u64, f: impl Fn(&str) -> bool) -> String {
        poll(what, secs, || self.lines().into_iter().find(|l| f(l)))
    }
}

fn compile_host(scratch: &Path) -> PathBuf {
    let lib = library_dir();
    let exe = scratch.join("console_host");
    let out = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(root().join("include"))
        .arg(root().join("tests/console/console_host.c"))
        .arg("-L")
        .arg(&lib)
        .arg("-lverify")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run cc");
    assert!(
        out.status.success(),
        "cc tests/console/console_host.c failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

#[test]
fn console_creates_a_card_sends_a_message_once_and_bans_the_session() {
    require_tool("cc", "gcc");
    require_tool(CHROMEDRIVER, "chromium");
    require_tool(CHROMIUM, "chromium");
    let scratch = Scratch::new();
    let host_exe = compile_host(&scratch.0);

    // A sandbox of its own with the demo program (the console selects its only program).
    let app_id = common::unique("console");
    let (fixtures, app_key) = demo_fixtures(&app_id);
    let sandbox = Sandbox::start(Config::default()).expect("start the sandbox");
    sandbox
        .load(Fixtures::from_value(fixtures).expect("fixtures"))
        .expect("load");
    let console = format!("{}/_sandbox/", sandbox.base_url());

    let browser = Browser::start();
    browser.goto(&console);
    poll("the console to list the program", 20, || {
        browser
            .text_of(&format!("#programs tr[data-app=\"{app_id}\"]"))
            .filter(|t| t.contains(&app_id))
    });
    // The page follows the sandbox's event stream.
    poll("the page's event stream", 20, || {
        let v = browser.eval("return window.sandboxConsole.streaming;", json!([]));
        (v == true).then_some(())
    });
    let (_, stats) = http(sandbox.port(), "GET", "/_sandbox/stats", None).expect("stats");
    assert!(stats["event_streams"].as_u64() >= Some(1), "{stats}");
    browser.screenshot("1-programs", None);
    // The bulletin (Chinese, from the fixtures) is drawn with Chinese glyphs, not boxes: the
    // test command installs a CJK font (scripts/install-deps.sh cjk-font) and the console's
    // font stack names the usual ones of each system.
    let glyphs = browser.chinese_glyphs(&format!(
        "#programs tr[data-app=\"{app_id}\"] td.service-text"
    ));
    let count = glyphs["chars"].as_str().map_or(0, |c| c.chars().count()) as u64;
    assert!(
        count >= 4
            && glyphs["distinct"].as_u64() == Some(count)
            && glyphs["inked"].as_u64() == Some(count)
            && glyphs["missing_distinct"].as_u64() == Some(1)
            && glyphs["lang"] == "zh-CN"
            && glyphs["page_lang"] == "en"
            && glyphs["family"]
                .as_str()
                .is_some_and(|f| f.contains("Microsoft YaHei") && f.contains("PingFang SC")),
        "the bulletin's Chinese is not drawn with glyphs (is a CJK font installed? \
         `fc-list :lang=zh`): {glyphs}"
    );

    // 1. Create one card in the page.
    browser.type_into("#card-count", "1");
    browser.click("#card-create");
    let card = poll("the created card's key", 20, || {
        browser
            .text_of("#card-created code.new-card")
            .filter(|k| k.len() == 19)
    });
    assert!(
        sandbox.card(&app_id, &card).is_some(),
        "the page created {card}"
    );

    // 2. The C host logs in with it and keeps the session (1 s heartbeats).
    let mut child = host_command(&host_exe)
        .args([
            sandbox.base_url().as_str(),
            app_id.as_str(),
            app_key.as_str(),
            card.as_str(),
            "CONSOLE-TEST-MACHINE",
            "1000",
            "120",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the host");
    let lines = Arc::new(Mutex::new(Vec::new()));
    let stdout = child.stdout.take().expect("host stdout");
    let sink = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(mut l) = sink.lock() {
                l.push(line);
            }
        }
    });
    let host = Host { child, lines };
    let login = host.wait_line("the host's login", 30, |l| l.starts_with("LOGIN "));
    assert!(login.starts_with("LOGIN code=200"), "{login}");
    host.wait_line("a heartbeat", 30, |l| l.starts_with("EVENT ALIVE code=200"));
    // The page shows the live session (announced by the event stream).
    poll("the session in the page", 20, || {
        browser.text_of(&format!("#sessions tr[data-subject=\"{card}\"]"))
    });
    browser.screenshot("2-live-session", None);

    // 3. Send a message in the page: delivered once.
    let text = "hello from the console";
    browser.eval(
        "document.querySelector('#msg-target-kind').value = 'card';",
        json!([]),
    );
    browser.type_into("#msg-target", &card);
    browser.type_into("#msg-text", text);
    browser.click("#msg-send");
    poll("the page to confirm the message", 20, || {
        browser
            .text_of("#msg-status")
            .filter(|t| t.contains("queued"))
    });
    host.wait_line("the message", 30, |l| l.starts_with("EVENT MESSAGE"));
    let delivered_at = host.lines().len();
    // Two more heartbeats after it: the message is not delivered again.
    poll("two heartbeats after the message", 30, || {
        let alive = host.lines()[delivered_at..]
            .iter()
            .filter(|l| l.starts_with("EVENT ALIVE"))
            .count();
        (alive >= 2).then_some(())
    });
    let messages: Vec<String> = host
        .lines()
        .into_iter()
        .filter(|l| l.starts_with("EVENT MESSAGE"))
        .collect();
    assert_eq!(messages, vec![format!("EVENT MESSAGE text={text}")]);

    // 4. A client writer's mistake: Init with the TimeStamp in milliseconds. Open it in the
    // page's inspector and read the diagnosis.
    let millis = format!("{}123", sandbox.now());
    let reply = post_form(
        &sandbox.base_url(),
        "/api/verify",
        &format!("AppId={app_id}&AppKey={app_key}&TimeStamp={millis}&Sign=0"),
    );
    assert!(reply.contains("\"code\":1014"), "{reply}");
    let seq = sandbox
        .request_log(Some(&app_id))
        .iter()
        .rev()
        .find(|e| e.code == 1014)
        .expect("the refused Init in the log")
        .seq;
    browser.click(&format!("#log tr[data-seq=\"{seq}\"] button.open"));
    let diagnosis = poll("the diagnosis in the inspector", 20, || {
        browser.text_of("#entry-diagnoses li[data-kind=\"timestamp_milliseconds\"]")
    });
    assert!(
        diagnosis.contains(&format!("TimeStamp {millis} is in milliseconds")),
        "{diagnosis}"
    );
    assert!(diagnosis.contains("divide by 1000"), "{diagnosis}");
    let why = browser.text_of("#entry-why").unwrap_or_default();
    assert!(
        why.contains("1014") && why.contains("milliseconds"),
        "{why}"
    );
    let form = browser.text_of("#entry-form").unwrap_or_default();
    assert!(form.contains(&millis), "{form}");
    assert!(!form.contains(&app_key), "the AppKey is masked: {form}");
    assert!(form.contains(&format!("{}****", &app_key[..4])), "{form}");
    browser.screenshot("3-inspector", Some("#entry-section"));

    // 5. Ban the card in the page: the keeper ends with 1006 and the reason.
    let reason = "banned by the console test";
    browser.type_into("#ban-reason", reason);
    browser.click(&format!("#cards tr[data-card=\"{card}\"] button.ban"));
    let ended = host.wait_line("the ban to end the session", 30, |l| {
        l.starts_with("EVENT ENDED")
    });
    assert_eq!(ended, format!("EVENT ENDED code=1006 remark={reason}"));
    host.wait_line("the host to finish", 30, |l| l.starts_with("DONE"));
    poll("the page to show the card disabled", 20, || {
        let v = browser.eval(
            "const r = document.querySelector(arguments[0]); return r ? r.dataset.status : null;",
            json!([format!("#cards tr[data-card=\"{card}\"]")]),
        );
        (v == "disabled").then_some(())
    });
    let mut host = host;
    let status = poll("the host to exit", 30, || {
        host.child.try_wait().ok().flatten()
    });
    assert!(
        status.success(),
        "host exit status {status:?}: {:?}",
        host.lines()
    );
    assert_eq!(
        sandbox.card(&app_id, &card).expect("card")["reason"],
        reason,
        "the ban went through the control API"
    );
    browser.screenshot("4-banned", None);
    browser.screenshot("5-request-log", Some("#log-section"));
    // Every refresh of the page came from an event of the stream, an action in the page, or
    // the start: no polling.
    let s = browser.eval("return window.sandboxConsole;", json!([]));
    let (events, refreshes, actions) = (
        s["events"].as_u64().unwrap_or(0),
        s["refreshes"].as_u64().unwrap_or(u64::MAX),
        s["actions"].as_u64().unwrap_or(0),
    );
    assert!(events >= 1, "{s}");
    assert!(refreshes <= events + actions + 1, "{s}");
}

#[test]
fn console_takes_the_token_from_its_address_and_keeps_it_in_a_cookie() {
    require_tool(CHROMEDRIVER, "chromium");
    require_tool(CHROMIUM, "chromium");
    let app_id = common::unique("token");
    let (fixtures, _) = demo_fixtures(&app_id);
    let token = format!("console-test-{}", std::process::id());
    let sandbox = Sandbox::start(Config {
        token: Some(token.clone()),
        ..Config::default()
    })
    .expect("start the sandbox");
    sandbox
        .load(Fixtures::from_value(fixtures).expect("fixtures"))
        .expect("load");
    let console = sandbox.console_url();
    assert!(
        console.ends_with(&format!("/_sandbox/?token={token}")),
        "{console}"
    );

    let browser = Browser::start();
    // Without the token the page says what to do.
    browser.goto(&format!("{}/_sandbox/", sandbox.base_url()));
    let refusal = poll("the refusal page", 20, || browser.text_of("#refusal"));
    assert!(refusal.contains("token"), "{refusal}");
    browser.screenshot("6-needs-the-token", None);

    // The printed address: the page loads, and the token leaves the address bar.
    browser.goto(&console);
    poll("the console to list the program", 20, || {
        browser
            .text_of(&format!("#programs tr[data-app=\"{app_id}\"]"))
            .filter(|t| t.contains(&app_id))
    });
    let url = browser.url();
    assert!(
        !url.contains(&token),
        "the token stayed in the address: {url}"
    );
    assert!(url.ends_with("/_sandbox/"), "{url}");
    let cookies = browser.cmd("GET", "/cookie", None).expect("cookies");
    let name = format!("verify_sandbox_token_{}", sandbox.port());
    let cookie = cookies
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["name"] == name.as_str()))
        .unwrap_or_else(|| panic!("no cookie {name} in {cookies}"));
    assert_eq!(cookie["value"], token.as_str());
    assert_eq!(cookie["httpOnly"], true, "{cookie}");
    assert_eq!(cookie["sameSite"], "Strict", "{cookie}");
    // The page's control requests and its event stream go through with the cookie.
    poll("the page's event stream", 20, || {
        let v = browser.eval("return window.sandboxConsole.streaming;", json!([]));
        (v == true).then_some(())
    });
    browser.type_into("#card-count", "2");
    browser.click("#card-create");
    poll("two created cards", 20, || {
        let v = browser.eval(
            "return document.querySelectorAll('#card-created code.new-card').length;",
            json!([]),
        );
        (v == 2).then_some(())
    });
    // And a page without the cookie is refused again.
    browser
        .cmd("DELETE", "/cookie", None)
        .expect("delete the cookies");
    browser.goto(&format!("{}/_sandbox/", sandbox.base_url()));
    poll("the refusal page again", 20, || browser.text_of("#refusal"));
}
