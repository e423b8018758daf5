//! Proxies, with real ones: tinyproxy (HTTP CONNECT, with and without credentials) and
//! microsocks (SOCKS5, socks5 and socks5h, with and without credentials); loopback never
//! goes through a proxy and NO_PROXY is honoured.
//!
//! Needs `scripts/install-deps.sh tinyproxy microsocks test-hosts`: the last adds
//! `127.0.0.1 verify-sandbox.test` to /etc/hosts, a name that is not loopback to the client
//! (so requests to it go through the proxy) but that resolves to the sandbox.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{unique, APP_KEY};
use serde_json::json;
use verify_core::{Client, ErrorKind, Options, ProxyChoice};
use verify_sandbox::{Config, Fixtures, Sandbox};

/// The test host name of the sandbox (see the module's docs).
const HOST: &str = "verify-sandbox.test";

fn require(tool: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "`{tool}` is not installed: run `scripts/install-deps.sh tinyproxy microsocks test-hosts`"
    );
    let hosts = std::fs::read_to_string("/etc/hosts").unwrap_or_default();
    assert!(
        hosts.contains(HOST),
        "{HOST} is not in /etc/hosts: run `scripts/install-deps.sh test-hosts`"
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Waits until something listens on `port`.
fn wait_listening(port: u16, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the proxy exited: {status}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("nothing listens on {port} after 10 s");
}

/// A proxy process, killed on drop.
struct Proxy {
    child: Child,
    port: u16,
    log: Option<PathBuf>,
    _dir: PathBuf,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self._dir);
    }
}

impl Proxy {
    fn log(&self) -> String {
        self.log
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default()
    }
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(unique("verify-proxy-"));
    std::fs::create_dir_all(&dir).expect("scratch");
    dir
}

/// tinyproxy on a free port, with `BasicAuth user password` when given.
fn tinyproxy(auth: Option<(&str, &str)>) -> Proxy {
    require("tinyproxy");
    let dir = scratch();
    let port = free_port();
    let log = dir.join("tinyproxy.log");
    let mut conf = format!(
        "Port {port}\nListen 127.0.0.1\nTimeout 30\nMaxClients 50\nAllow 127.0.0.1\n\
         LogLevel Connect\nLogFile \"{}\"\n",
        log.display()
    );
    if let Some((user, password)) = auth {
        conf.push_str(&format!("BasicAuth {user} {password}\n"));
    }
    let conf_path = dir.join("tinyproxy.conf");
    std::fs::write(&conf_path, conf).expect("conf");
    let mut child = Command::new("tinyproxy")
        .arg("-d")
        .arg("-c")
        .arg(&conf_path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tinyproxy starts");
    wait_listening(port, &mut child);
    Proxy {
        child,
        port,
        log: Some(log),
        _dir: dir,
    }
}

/// microsocks on a free port, with `-u user -P password` when given.
fn microsocks(auth: Option<(&str, &str)>) -> Proxy {
    require("microsocks");
    let port = free_port();
    let mut command = Command::new("microsocks");
    command.args(["-i", "127.0.0.1", "-p", &port.to_string()]);
    if let Some((user, password)) = auth {
        command.args(["-u", user, "-P", password]);
    }
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("microsocks starts");
    wait_listening(port, &mut child);
    Proxy {
        child,
        port,
        log: None,
        _dir: scratch(),
    }
}

fn sandbox_and_program() -> (&'static Sandbox, String) {
    static SANDBOX: std::sync::OnceLock<Sandbox> = std::sync::OnceLock::new();
    let sandbox = SANDBOX.get_or_init(|| Sandbox::start(Config::default()).expect("sandbox"));
    let app_id = unique("proxy");
    sandbox
        .load(
            Fixtures::from_value(json!({
                "programs": [{"app_id": app_id, "app_key": APP_KEY, "status": "approved"}]
            }))
            .expect("fixtures"),
        )
        .expect("load");
    (sandbox, app_id)
}

/// A client of the sandbox by its test host name through `proxy`.
fn client_via(sandbox: &Sandbox, app_id: &str, proxy: ProxyChoice) -> Client {
    let options = Options {
        proxy,
        // The test host name is not loopback: plain http to it must be allowed.
        allow_insecure_http: true,
        connect_timeout: Duration::from_secs(5),
        call_timeout: Duration::from_secs(10),
        ..Options::default()
    };
    Client::with_options(
        &format!("http://{HOST}:{}", sandbox.port()),
        app_id,
        APP_KEY,
        options,
    )
    .expect("client")
}

#[test]
fn tinyproxy_connect_without_and_with_credentials() {
    let (sandbox, app_id) = sandbox_and_program();
    let open = tinyproxy(None);
    let client = client_via(
        sandbox,
        &app_id,
        ProxyChoice::Url(format!("http://127.0.0.1:{}", open.port)),
    );
    client.get_bulletin().expect("through tinyproxy");
    assert!(
        open.log().contains(HOST),
        "tinyproxy saw no request for {HOST}:\n{}",
        open.log()
    );

    let guarded = tinyproxy(Some(("proxyuser", "proxy-secret")));
    let client = client_via(
        sandbox,
        &app_id,
        ProxyChoice::Url(format!("http://127.0.0.1:{}", guarded.port)),
    );
    let err = client.get_bulletin().expect_err("no credentials");
    assert_eq!(err.kind(), ErrorKind::Proxy, "{err}");
    assert!(
        err.message().contains("authentication"),
        "{}",
        err.message()
    );
    let client = client_via(
        sandbox,
        &app_id,
        ProxyChoice::Url(format!(
            "http://proxyuser:proxy-secret@127.0.0.1:{}",
            guarded.port
        )),
    );
    client.get_bulletin().expect("with credentials");
    assert!(!format!("{client:?}").contains("proxy-secret"));
}

#[test]
fn microsocks_socks5_and_socks5h_without_and_with_credentials() {
    let (sandbox, app_id) = sandbox_and_program();
    let open = microsocks(None);
    for scheme in ["socks5", "socks5h"] {
        let client = client_via(
            sandbox,
            &app_id,
            ProxyChoice::Url(format!("{scheme}://127.0.0.1:{}", open.port)),
        );
        client
            .get_bulletin()
            .unwrap_or_else(|e| panic!("through microsocks ({scheme}): {e}"));
    }
    let guarded = microsocks(Some(("sockuser", "sock-secret")));
    let client = client_via(
        sandbox,
        &app_id,
        ProxyChoice::Url(format!("socks5h://127.0.0.1:{}", guarded.port)),
    );
    let err = client.get_bulletin().expect_err("no credentials");
    assert_eq!(err.kind(), ErrorKind::Proxy, "{err}");
    let client = client_via(
        sandbox,
        &app_id,
        ProxyChoice::Url(format!(
            "socks5h://sockuser:sock-secret@127.0.0.1:{}",
            guarded.port
        )),
    );
    client.get_bulletin().expect("with credentials");
}

#[test]
fn an_unreachable_proxy_is_its_own_failure_and_loopback_never_uses_a_proxy() {
    let (sandbox, app_id) = sandbox_and_program();
    let dead = format!("http://127.0.0.1:{}", free_port());
    let client = client_via(sandbox, &app_id, ProxyChoice::Url(dead.clone()));
    let err = client.get_bulletin().expect_err("dead proxy");
    assert_eq!(err.kind(), ErrorKind::Proxy, "{err}");
    assert!(err.message().contains("unreachable"), "{}", err.message());

    // The same dead proxy, to the sandbox's loopback address: no proxy is used.
    let options = Options {
        proxy: ProxyChoice::Url(dead),
        ..Options::default()
    };
    let client =
        Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, options).expect("client");
    client.get_bulletin().expect("loopback goes direct");
}

#[test]
fn the_system_proxy_honours_no_proxy() {
    let (sandbox, app_id) = sandbox_and_program();
    let dead = format!("http://127.0.0.1:{}", free_port());
    // This test binary's other tests name their proxy explicitly: the variables matter only
    // here.
    std::env::set_var("HTTP_PROXY", &dead);
    std::env::set_var("HTTPS_PROXY", &dead);
    std::env::set_var("NO_PROXY", "example.invalid");
    let proxied = client_via(sandbox, &app_id, ProxyChoice::System);
    let err = proxied
        .get_bulletin()
        .expect_err("through the dead system proxy");
    assert_eq!(err.kind(), ErrorKind::Proxy, "{err}");
    std::env::set_var("NO_PROXY", format!("example.invalid,{HOST}"));
    let direct = client_via(sandbox, &app_id, ProxyChoice::System);
    let outcome = direct.get_bulletin();
    std::env::remove_var("HTTP_PROXY");
    std::env::remove_var("HTTPS_PROXY");
    std::env::remove_var("NO_PROXY");
    outcome.expect("NO_PROXY names the host: direct");
}
