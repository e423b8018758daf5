//! The `verify-sandbox` binary: command line, first stdout line, fixtures file, signals,
//! exit statuses (README "Command line").

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_verify-sandbox");
const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo.json");

/// Kills the child if the test fails before it ends it.
struct Running {
    child: Child,
    url: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn start(args: &[&str]) -> Running {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn verify-sandbox");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        if let Some(Ok(l)) = lines.next() {
            let _ = tx.send(l);
        }
        for _ in lines {} // keep draining
    });
    let mut running = Running {
        child,
        url: String::new(),
    };
    let line = match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(l) => l,
        Err(_) => {
            let _ = running.child.kill();
            let mut err = String::new();
            if let Some(mut e) = running.child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            panic!("no first stdout line within 20 s; stderr: {err}");
        }
    };
    let url = line
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line: {line:?}"))
        .trim()
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    let port: u16 = url.rsplit(':').next().unwrap().parse().expect("port");
    assert_ne!(port, 0, "the real port is printed");
    running.url = url;
    running
}

fn wait_exit(child: &mut Child, within: Duration) -> ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(st) = child.try_wait().expect("try_wait") {
            return st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("did not exit within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: &str) {
    let st = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(child.id().to_string())
        .status()
        .expect("run kill");
    assert!(st.success());
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into()
}

fn init(url: &str, app_id: &str, app_key: &str) -> Value {
    let ts = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        .to_string();
    let sign = common::init_sign(app_id, app_key, &ts);
    let body = format!("AppId={app_id}&AppKey={app_key}&TimeStamp={ts}&Sign={sign}");
    let mut r = agent()
        .post(format!("{url}/api/verify"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .send(body)
        .expect("init reply");
    assert_eq!(r.status().as_u16(), 200);
    serde_json::from_str(&r.body_mut().read_to_string().unwrap()).expect("JSON")
}

#[test]
fn demo_fixtures_init_then_sigterm_exits_0() {
    let mut s = start(&["--port", "0", "--fixtures", DEMO]);
    let v = init(&s.url, "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
    assert_eq!(v["code"], 200, "{v}");
    assert_eq!(
        v["data"]["api_password"]
            .as_str()
            .expect("api_password")
            .len(),
        32
    );
    // a wrong key on the demo program
    let v = init(&s.url, "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012346");
    assert_eq!(v["code"], 1011, "{v}");
    signal(&s.child, "TERM");
    let st = wait_exit(&mut s.child, Duration::from_secs(10));
    assert_eq!(st.code(), Some(0), "exit status after SIGTERM: {st:?}");
}

#[test]
fn sigint_exits_0() {
    let mut s = start(&[]);
    let v = init(&s.url, "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
    assert_eq!(v["code"], 1001, "no fixtures loaded: {v}");
    signal(&s.child, "INT");
    let st = wait_exit(&mut s.child, Duration::from_secs(10));
    assert_eq!(st.code(), Some(0), "{st:?}");
}

#[test]
fn explicit_port_is_used() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let s = start(&["--host", "127.0.0.1", "--port", &port.to_string()]);
    assert_eq!(s.url, format!("http://127.0.0.1:{port}"));
}

#[test]
fn no_control_flag_turns_the_control_api_off() {
    let s = start(&["--no-control", "--fixtures", DEMO]);
    let mut r = agent()
        .get(format!("{}/_sandbox/clock", s.url))
        .call()
        .expect("reply");
    assert_eq!(r.status().as_u16(), 404);
    let _ = r.body_mut().read_to_string();
    assert_eq!(
        init(&s.url, "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")["code"],
        200
    );
    // with control on, the same path answers
    let on = start(&[]);
    let mut r = agent()
        .get(format!("{}/_sandbox/clock", on.url))
        .call()
        .expect("reply");
    assert_eq!(r.status().as_u16(), 200);
    let v: Value = serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
    assert!(v["now"].is_i64(), "{v}");
}

fn expect_exit_2(args: &[&str]) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let st = wait_exit(&mut child, Duration::from_secs(10));
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(st.code(), Some(2), "{args:?}: {st:?}, stderr {err:?}");
    assert!(!err.trim().is_empty(), "{args:?}: a message on stderr");
}

#[test]
fn bad_flag_exits_2() {
    expect_exit_2(&["--bogus"]);
    expect_exit_2(&["--port", "not-a-port"]);
    expect_exit_2(&["--port"]);
}

#[test]
fn unreadable_or_invalid_fixtures_exit_2() {
    expect_exit_2(&["--fixtures", "/nonexistent/dir/fixtures.json"]);
    let bad = std::env::temp_dir().join(format!("verify-sandbox-bad-{}.json", std::process::id()));
    std::fs::write(&bad, "{ this is not json").unwrap();
    expect_exit_2(&["--fixtures", bad.to_str().unwrap()]);
    let _ = std::fs::remove_file(&bad);
}

#[test]
fn demo_fixtures_parse_with_the_library() {
    let f = verify_sandbox::Fixtures::from_file(std::path::Path::new(DEMO));
    assert!(f.is_ok(), "{:?}", f.err());
    let text = std::fs::read_to_string(DEMO).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let p = v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["app_id"] == "10001")
        .expect("program 10001");
    assert_eq!(p["app_key"], "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
}
