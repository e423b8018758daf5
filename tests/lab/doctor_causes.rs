//! The doctor's second round of causes on the lab's networks, each the first line's cause in
//! English, Simplified and Traditional Chinese, with what follows from it marked as its
//! knock-on: the hosts file pointing the licensing host elsewhere (a common crack); a
//! TLS-intercepting proxy with its own CA (mitmproxy, as security software and company
//! proxies do it); a reverse proxy's 502 page (nginx with nothing behind it), its status,
//! `Server` and title named and the clock judged from its `Date`; stored files of another
//! machine (sealed there, opened here), a warning while the server answers.
//!
//! Needs, besides the lab's tools, nginx and mitmproxy: `scripts/install-deps.sh nginx
//! mitmproxy`. Without them the tests fail and say why.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use verify_core::{Client, Options, ProxyChoice, StateFolder};
use verify_sandbox::{Config, Fixtures, Sandbox};

use crate::common::host::require_tool;
use crate::common::{unique, APP_KEY};
use crate::doctor::{args_of, assert_first_lines, doctor_as, keys, lab_ca, steps};
use crate::lab::{lab, Slot};

/// A process of the test, killed (and its folder removed) when dropped.
struct Running {
    child: Child,
    dir: PathBuf,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Waits until `host:port` takes a connection from inside `slot` (at most 30 s).
fn wait_listening(slot: &Slot, host: &str, port: u16, what: &str, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let answer = slot.probe(
            "connect",
            json!({"host": host, "port": port, "timeout_ms": 500}),
        );
        if answer["error"].is_null() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited ({status}) before it listened");
        }
        assert!(
            Instant::now() < deadline,
            "{what} does not listen on {host}:{port} after 30 s: {answer}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `verdict:key` of the steps of `kind`.
fn keys_of(report: &Value, kind: &str) -> Vec<String> {
    keys(&steps(report, kind, None))
}

/// The first step of `kind`.
fn step_of(report: &Value, kind: &str) -> Value {
    steps(report, kind, None)
        .first()
        .map(|s| (*s).clone())
        .unwrap_or_default()
}

#[test]
fn the_doctor_names_a_hosts_file_pointing_the_licensing_host_elsewhere() {
    let slot = lab().slot();
    let primary = slot.url(&slot.primary);
    let program = lab().sandbox().program();
    // The slot's hosts file (`ip netns exec` shows it as /etc/hosts): the licensing host on
    // this machine's loopback, where nothing answers, as a crack points it at its own server.
    let hosts = PathBuf::from(format!("/etc/netns/{}/hosts", slot.ns));
    let before = std::fs::read_to_string(&hosts).expect("the slot's hosts file");
    std::fs::write(&hosts, format!("{before}127.0.0.1 {}\n", slot.primary)).expect("write");
    let args = args_of(None);
    let (report, code, _) = doctor_as(&slot, &primary, &program.app_id, APP_KEY, &args);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(1), "{pretty}");
    assert_eq!(
        keys_of(&report, "lookup"),
        ["fail:lookup.hosts_file"],
        "{pretty}"
    );
    let lookup = step_of(&report, "lookup");
    assert_eq!(
        lookup["details"]["resolver"]["kind"], "hosts_file",
        "{pretty}"
    );
    assert_eq!(
        lookup["details"]["resolver"]["path"], "/etc/hosts",
        "{pretty}"
    );
    assert_eq!(
        lookup["details"]["resolver"]["addresses"],
        json!(["127.0.0.1"]),
        "{pretty}"
    );
    // What failed after it follows from it: one cause.
    assert_eq!(report["counts"]["causes"], 1, "{pretty}");
    for step in report["steps"].as_array().into_iter().flatten() {
        if step["verdict"] == "fail" && step["step"] != "lookup" {
            assert_eq!(step["knock_on"], "lookup.hosts_file", "{pretty}");
        }
    }
    assert_first_lines(
        &slot,
        &report,
        (&primary, &program.app_id, APP_KEY, &args),
        "lookup.hosts_file",
        [
            &format!(
                "FAIL: The hosts file (/etc/hosts) points {} to 127.0.0.1: remove that line",
                slot.primary
            ),
            &format!(
                "FAIL：hosts 文件（/etc/hosts）把 {} 指向 127.0.0.1",
                slot.primary
            ),
            &format!(
                "FAIL：hosts 檔案（/etc/hosts）把 {} 指向 127.0.0.1",
                slot.primary
            ),
        ],
    );
    std::fs::write(&hosts, before).expect("restore the hosts file");
}

/// mitmproxy's `mitmdump` in `slot`'s namespace on 127.0.0.1:`port`: it intercepts TLS with
/// a CA of its own (made in its folder at its first start) and verifies nothing upstream.
fn mitmproxy(slot: &Slot, port: u16) -> Running {
    require_tool("mitmdump", "mitmproxy");
    let dir = std::env::temp_dir().join(unique("verify-lab-mitm-"));
    std::fs::create_dir_all(&dir).expect("mitmproxy's folder");
    let mut child = Command::new("ip")
        .args(["netns", "exec", &slot.ns, "mitmdump", "--quiet"])
        .args([
            "--listen-host",
            "127.0.0.1",
            "--listen-port",
            &port.to_string(),
        ])
        .arg("--set")
        .arg(format!("confdir={}", dir.display()))
        .args(["--set", "ssl_insecure=true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mitmdump starts");
    wait_listening(slot, "127.0.0.1", port, "mitmdump", &mut child);
    Running { child, dir }
}

#[test]
fn the_doctor_names_a_proxy_that_intercepts_tls_with_its_own_ca() {
    let slot = lab().slot();
    let primary = slot.url(&slot.primary);
    let program = lab().sandbox().program();
    let _proxy = mitmproxy(&slot, 8080);
    let mut args = lab_ca();
    args.extend(["--proxy".to_owned(), "http://127.0.0.1:8080".to_owned()]);
    let (report, code, _) = doctor_as(&slot, &primary, &program.app_id, APP_KEY, &args);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(1), "{pretty}");
    assert_eq!(keys_of(&report, "proxy"), ["pass:proxy.ok"], "{pretty}");
    assert_eq!(
        keys_of(&report, "tls"),
        ["fail:tls.intercepted"],
        "{pretty}"
    );
    let tls = step_of(&report, "tls");
    let issuer = tls["details"]["issuer"].as_str().unwrap_or_default();
    assert!(issuer.contains("mitmproxy"), "{pretty}");
    // The evidence support reads instead of running openssl: the names, the fingerprint and
    // the key's pin of the certificate the proxy made.
    let names = tls["details"]["names"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(names.contains(&json!(slot.primary)), "{pretty}");
    assert!(tls["details"]["server_pin"]
        .as_str()
        .is_some_and(|pin| pin.starts_with("sha256/")));
    assert_eq!(report["counts"]["causes"], 1, "{pretty}");
    assert_first_lines(
        &slot,
        &report,
        (&primary, &program.app_id, APP_KEY, &args),
        "tls.intercepted",
        [
            &format!(
                "FAIL: The secure connection is intercepted: the certificate is issued by {issuer}"
            ),
            &format!("FAIL：安全连接被拦截：证书由 {issuer} 签发"),
            &format!("FAIL：安全連線被攔截：憑證由 {issuer} 簽發"),
        ],
    );
}

/// nginx in the lab's server namespace on `address`:8443 with the lab's certificate, in front
/// of nothing (port 9 of its loopback): every request gets its 502 page.
fn bad_gateway(address: &str) -> Running {
    crate::common::nginx::require();
    let nginx = crate::common::nginx::binary();
    let dir = std::env::temp_dir().join(unique("verify-lab-nginx-"));
    std::fs::create_dir_all(dir.join("tmp")).expect("nginx's folder");
    let conf = crate::common::nginx::https_conf(
        &dir,
        &format!("{address}:8443"),
        &lab().dir.join("sandbox"),
        "proxy_pass http://127.0.0.1:9;",
    );
    std::fs::write(dir.join("nginx.conf"), conf).expect("nginx.conf");
    let child = Command::new("ip")
        .args(["netns", "exec", &lab().server_ns, nginx, "-p"])
        .arg(&dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nginx starts");
    Running { child, dir }
}

#[test]
fn the_doctor_names_a_gateways_502_page() {
    let slot = lab().slot();
    let mut gateway = bad_gateway(&slot.primary_v4);
    wait_listening(&slot, &slot.primary_v4, 8443, "nginx", &mut gateway.child);
    let url = format!("https://{}:8443", slot.primary);
    let program = lab().sandbox().program();
    let args = args_of(None);
    let (report, code, _) = doctor_as(&slot, &url, &program.app_id, APP_KEY, &args);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(1), "{pretty}");
    assert_eq!(keys_of(&report, "tls"), ["pass:tls.ok"], "{pretty}");
    assert_eq!(keys_of(&report, "init"), ["fail:init.gateway"], "{pretty}");
    // Judged from the 502 page's Date.
    assert_eq!(keys_of(&report, "clock"), ["pass:clock.ok"], "{pretty}");
    let init = step_of(&report, "init");
    assert_eq!(init["details"]["status"], 502, "{pretty}");
    assert_eq!(init["details"]["title"], "502 Bad Gateway", "{pretty}");
    let server = init["details"]["server"].as_str().unwrap_or_default();
    assert!(server.starts_with("nginx"), "{pretty}");
    assert_first_lines(
        &slot,
        &report,
        (&url, &program.app_id, APP_KEY, &args),
        "init.gateway",
        [
            &format!("FAIL: A gateway ({server}) answered HTTP 502"),
            &format!("FAIL：网关（{server}）返回 HTTP 502"),
            &format!("FAIL：閘道（{server}）回傳 HTTP 502"),
        ],
    );
}

#[test]
fn the_doctor_names_stored_files_of_another_machine() {
    let slot = lab().slot();
    let primary = slot.url(&slot.primary);
    let program = lab().sandbox().program();
    // The store, made on "another machine": a login of the same program (AppId and AppKey)
    // on a loopback sandbox of this process, sealed under another machine's identity.
    let sandbox = Sandbox::start(Config::default()).expect("a loopback sandbox");
    let card = unique("LABFOREIGN");
    sandbox
        .load(
            Fixtures::from_value(json!({
                "programs": [{"app_id": program.app_id, "app_key": APP_KEY, "status": "approved"}],
                "cards": [{"app_id": program.app_id, "card": card, "kind": "duration",
                           "duration": 30}],
            }))
            .expect("fixtures"),
        )
        .expect("load");
    let folder = std::env::temp_dir().join(unique("verify-lab-store-"));
    let options = Options {
        proxy: ProxyChoice::None,
        state_folder: Some(StateFolder::Path(folder.clone())),
        clock_mark_folder: Some(folder.join("mark")),
        offline_grace: Some(Duration::from_secs(3600)),
        machine_identity: Some("another machine".into()),
        ..Options::default()
    };
    Client::with_options(&sandbox.base_url(), &program.app_id, APP_KEY, options)
        .expect("client")
        .single_login(&card, "ANOTHER-MACHINE", None)
        .expect("the login on the other machine");
    let mut args = args_of(None);
    args.extend([
        "--state-folder".to_owned(),
        folder.display().to_string(),
        "--offline-grace".to_owned(),
        "3600".to_owned(),
    ]);
    let (report, code, _) = doctor_as(&slot, &primary, &program.app_id, APP_KEY, &args);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    // The server answers: the next login online writes the store anew, a warning.
    assert_eq!(code, Some(3), "{pretty}");
    assert!(
        keys_of(&report, "offline").contains(&"warn:offline.other_machine".to_owned()),
        "{pretty}"
    );
    assert_first_lines(
        &slot,
        &report,
        (&primary, &program.app_id, APP_KEY, &args),
        "offline.other_machine",
        [
            "WARN: The stored licence files were made on another computer",
            "WARN：已保存的授权文件来自另一台电脑",
            "WARN：已儲存的授權檔案來自另一台電腦",
        ],
    );
    let _ = std::fs::remove_dir_all(&folder);
}
