//! The command line of the binary (README "Command line"): `--help` with every flag and its
//! default, `--version`, bad flags (exit 2 naming the flag), `--state` (load, save after
//! every change, atomic rename, survives SIGKILL), `--https-port` and its stdout lines, the
//! `token:` and `console:` lines, `--token` and `VERIFY_SANDBOX_TOKEN`, and the warning of a
//! bind that is reachable from the network.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_verify-sandbox");
const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo.json");

struct Running {
    child: Child,
    lines: Vec<String>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Running {
    fn http(&self) -> String {
        self.lines[0]
            .strip_prefix("listening on ")
            .expect("first line")
            .to_string()
    }
}

/// Starts the binary and reads `n` stdout lines (deadline 20 s).
fn start(args: &[&str], n: usize) -> Running {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn verify-sandbox");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while lines.len() < n {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) => lines.push(l),
            Err(_) => {
                let _ = child.kill();
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                panic!("only {lines:?} within 20 s; stderr: {err}");
            }
        }
    }
    Running { child, lines }
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run verify-sandbox");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into()
}

fn post(url: &str, body: Value) -> Value {
    let mut r = agent()
        .post(url)
        .header("Content-Type", "application/json")
        .send(body.to_string())
        .expect("reply");
    serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON")
}

fn get(url: &str) -> Value {
    let mut r = agent().get(url).call().expect("reply");
    serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("verify-sandbox-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Polls `f` until it returns `Some` (deadline 10 s).
fn poll<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn help_lists_every_flag_with_its_default() {
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, Some(0));
    for flag in [
        "--host",
        "--port",
        "--fixtures",
        "--no-control",
        "--state",
        "--log-size",
        "--https-port",
        "--tls-cert",
        "--tls-key",
        "--ca-out",
        "--header-timeout",
        "--body-timeout",
        "--max-connections",
        "--max-api-passwords",
        "--token",
        "--allowed-host",
        "--version",
    ] {
        assert!(out.contains(flag), "{flag} missing from --help:\n{out}");
    }
    for default in [
        "[default: 127.0.0.1]",
        "[default: 10000]",
        "[default: 60]",
        "[default: 1024]",
        "[default: 1000]",
    ] {
        assert!(
            out.contains(default),
            "{default} missing from --help:\n{out}"
        );
    }
    // Every flag that takes a value states its default (one line per flag).
    for l in out
        .lines()
        .filter(|l| l.trim_start().starts_with("--") && l.contains('<'))
    {
        assert!(l.contains("[default:"), "no default: {l}");
    }
}

#[test]
fn version_prints_the_crate_version() {
    let (code, out, _) = run(&["--version"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out.trim(),
        format!("verify-sandbox {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn bad_flags_exit_2_naming_the_flag() {
    for (args, named) in [
        (&["--bogus"][..], "--bogus"),
        (&["--port", "abc"][..], "--port"),
        (&["--port", "70000"][..], "--port"),
        (&["--log-size", "many"][..], "--log-size"),
        (&["--https-port", "x"][..], "--https-port"),
        (&["--tls-cert", "/nonexistent"][..], "--tls-key"),
        (&["--fixtures", "/nonexistent/f.json"][..], "--fixtures"),
        (&["--token", "two words"][..], "--token"),
        (&["--allowed-host", "http://x.test"][..], "--allowed-host"),
        (
            &[
                "--tls-cert",
                "/nonexistent/c",
                "--tls-key",
                "/nonexistent/k",
            ][..],
            "--tls-cert",
        ),
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.contains(named),
            "{args:?}: stderr should name {named}: {err}"
        );
    }
}

fn saved(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

fn has_card(state: &Value, card: &str) -> bool {
    state["cards"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| c["key"] == card))
}

#[cfg(unix)]
#[test]
fn state_file_is_saved_atomically_and_survives_a_kill() {
    use std::os::unix::fs::MetadataExt;
    let dir = temp_dir("state");
    let file = dir.join("state.json");
    let f = file.to_str().expect("path");

    let sb = start(&["--fixtures", DEMO, "--state", f], 1);
    let url = sb.http();
    // The loaded fixtures are saved at start.
    let first = poll("the first save", || {
        saved(&file).filter(|s| s["programs"][0]["app_id"] == "10001")
    });
    assert!(has_card(&first, "DEMO-CARD-0000-0001"), "{first}");
    let inode = std::fs::metadata(&file).expect("state file").ino();
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("state file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the state file holds secrets: {mode:o}");
    }

    let made = post(
        &format!("{url}/_sandbox/cards"),
        json!({"app_id": "10001", "card": "SAVE-DTOD-ISK0-0001"}),
    );
    assert_eq!(made["ok"], true, "{made}");
    let after = poll("the card in the state file", || {
        saved(&file).filter(|s| has_card(s, "SAVE-DTOD-ISK0-0001"))
    });
    assert!(has_card(&after, "DEMO-CARD-0000-0001"));
    // A new file was renamed over the old one (never rewritten in place).
    assert_ne!(std::fs::metadata(&file).expect("state file").ino(), inode);
    // No temporary file is left beside it.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    assert_eq!(names, vec!["state.json".to_string()], "{names:?}");

    // Disable it, then kill -9: the change was saved before the kill.
    let r = post(
        &format!("{url}/_sandbox/cards/update"),
        json!({"app_id": "10001", "card": "SAVE-DTOD-ISK0-0001", "op": "disable", "reason": "r1"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    poll("the disable in the state file", || {
        saved(&file).filter(|s| {
            s["cards"].as_array().is_some_and(|cs| {
                cs.iter()
                    .any(|c| c["key"] == "SAVE-DTOD-ISK0-0001" && c["reason"] == "r1")
            })
        })
    });
    drop(sb); // SIGKILL

    // Restart without fixtures: everything is back, from the state file alone.
    let sb = start(&["--state", f], 1);
    let url = sb.http();
    let c = get(&format!(
        "{url}/_sandbox/cards/get?app_id=10001&card=SAVE-DTOD-ISK0-0001"
    ));
    assert_eq!(c["card"]["state"], "disabled", "{c}");
    assert_eq!(c["card"]["reason"], "r1", "{c}");
    let p = get(&format!("{url}/_sandbox/programs"));
    assert_eq!(p["programs"][0]["app_id"], "10001", "{p}");

    // With both, the existing state file wins over the fixtures (the demo card stays spent).
    drop(sb);
    let sb = start(&["--state", f, "--fixtures", DEMO], 1);
    let c = get(&format!(
        "{}/_sandbox/cards/get?app_id=10001&card=SAVE-DTOD-ISK0-0001",
        sb.http()
    ));
    assert_eq!(c["card"]["state"], "disabled", "{c}");
    drop(sb);

    // An invalid state file is refused (exit 2, naming the file); it is not overwritten.
    std::fs::write(&file, "{not json").expect("write");
    let (code, _, err) = run(&["--state", f]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("state.json") && err.contains("--state"),
        "{err}"
    );
    // Certificate files that are not PEM: exit 2 naming the flags.
    let junk = dir.join("junk.pem");
    std::fs::write(&junk, "junk").expect("write");
    let j = junk.to_str().expect("path");
    let (code, _, err) = run(&["--tls-cert", j, "--tls-key", j]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--tls-cert"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "{not json");
    let _ = std::fs::remove_dir_all(&dir);
}

fn https_agent(ca_pem: &[u8]) -> ureq::Agent {
    let cert = ureq::tls::Certificate::from_pem(ca_pem).expect("CA PEM");
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::Specific(Arc::new(vec![cert])))
        .build();
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .tls_config(tls)
        .build()
        .into()
}

#[test]
fn https_port_prints_the_https_address_and_the_ca_path() {
    let dir = temp_dir("https");
    let ca = dir.join("ca.pem");
    let sb = start(
        &[
            "--https-port",
            "0",
            "--ca-out",
            ca.to_str().expect("path"),
            "--fixtures",
            DEMO,
        ],
        3,
    );
    assert!(
        sb.lines[0].starts_with("listening on http://127.0.0.1:"),
        "{:?}",
        sb.lines
    );
    let https = sb.lines[1]
        .strip_prefix("listening on ")
        .expect("second line")
        .to_string();
    assert!(https.starts_with("https://127.0.0.1:"), "{:?}", sb.lines);
    assert_eq!(sb.lines[2], format!("ca: {}", ca.display()));
    let pem = std::fs::read(&ca).expect("CA file");
    assert!(String::from_utf8_lossy(&pem).contains("BEGIN CERTIFICATE"));
    let mut r = https_agent(&pem)
        .get(format!("{https}/_sandbox/clock"))
        .call()
        .expect("https reply");
    assert_eq!(r.status().as_u16(), 200);
    let v: Value =
        serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON");
    assert!(v["now"].is_i64(), "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The next stderr line of a running binary (deadline 20 s).
fn stderr_line(sb: &mut Running) -> String {
    let stderr = sb.child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("a stderr line within 20 s")
}

fn get_with(url: &str, token: &str) -> (u16, String) {
    let mut r = agent()
        .get(url)
        .header("Authorization", format!("Bearer {token}"))
        .call()
        .expect("reply");
    (
        r.status().as_u16(),
        r.body_mut().read_to_string().expect("body"),
    )
}

#[test]
fn a_network_bind_prints_the_token_and_the_console_address_and_warns() {
    // Bound to every address; the test talks to it over loopback only.
    let mut sb = start(&["--host", "0.0.0.0", "--fixtures", DEMO], 3);
    let url = sb.http();
    assert!(url.starts_with("http://0.0.0.0:"), "{:?}", sb.lines);
    let port = url.rsplit(':').next().expect("port").to_string();
    let token = sb.lines[1]
        .strip_prefix("token: ")
        .unwrap_or_else(|| panic!("second line: {:?}", sb.lines))
        .to_string();
    assert_eq!(token.len(), 64, "{token}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{token}");
    assert_eq!(
        sb.lines[2],
        format!("console: http://127.0.0.1:{port}/_sandbox/?token={token}")
    );
    let warning = stderr_line(&mut sb);
    assert!(
        warning.contains("WARNING") && warning.contains("reachable from the network"),
        "{warning}"
    );
    let local = format!("http://127.0.0.1:{port}");
    let (status, _) = get_with(&format!("{local}/_sandbox/programs"), "wrong");
    assert_eq!(status, 401);
    let (status, body) = get_with(&format!("{local}/_sandbox/programs"), &token);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("10001"), "{body}");
}

#[test]
fn token_flag_and_environment_choose_the_token() {
    let sb = start(&["--token", "lab-token-1"], 3);
    assert_eq!(sb.lines[1], "token: lab-token-1", "{:?}", sb.lines);
    let url = sb.http();
    assert_eq!(
        sb.lines[2],
        format!("console: {url}/_sandbox/?token=lab-token-1")
    );
    assert_eq!(
        get_with(&format!("{url}/_sandbox/clock"), "lab-token-1").0,
        200
    );

    let mut child = Command::new(BIN)
        .env("VERIFY_SANDBOX_TOKEN", "from-the-environment")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let first = lines.next().expect("line").expect("line");
    let second = lines.next().expect("line").expect("line");
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.starts_with("listening on "), "{first}");
    assert_eq!(second, "token: from-the-environment");
}

#[test]
fn a_loopback_bind_prints_the_console_address_without_a_token() {
    let sb = start(&[], 2);
    let url = sb.http();
    assert_eq!(sb.lines[1], format!("console: {url}/_sandbox/"));
    let v = get(&format!("{url}/_sandbox/clock"));
    assert!(v["now"].is_i64(), "{v}");
}
