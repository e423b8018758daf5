//! https against a TLS server that is not ours: nginx (Debian's nginx-light) terminating
//! TLS in front of the sandbox. Needs `scripts/install-deps.sh nginx`.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::tls::certs;
use common::{unique, Program, APP_KEY};
use verify_core::{Client, ErrorKind, Options, Trust};

/// nginx in the foreground on a free port, proxying to `upstream`; killed on drop.
struct Nginx {
    child: Child,
    port: u16,
    dir: std::path::PathBuf,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn nginx(upstream: &str, chain_pem: &str, key_pem: &str) -> Nginx {
    let found = Command::new("sh")
        .args(["-c", "command -v nginx || test -x /usr/sbin/nginx"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "nginx is not installed: run `scripts/install-deps.sh nginx`"
    );
    let dir = std::env::temp_dir().join(unique("verify-nginx-"));
    std::fs::create_dir_all(dir.join("tmp")).expect("scratch");
    std::fs::write(dir.join("cert.pem"), chain_pem).expect("cert");
    std::fs::write(dir.join("key.pem"), key_pem).expect("key");
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let conf = common::nginx::https_conf(
        &dir,
        &format!("127.0.0.1:{port}"),
        &dir,
        &format!(
            "proxy_pass {upstream}; proxy_http_version 1.1; proxy_set_header Connection \"\";"
        ),
    );
    std::fs::write(dir.join("nginx.conf"), conf).expect("conf");
    let nginx_bin = common::nginx::binary();
    let mut child = Command::new(nginx_bin)
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nginx starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
            panic!("nginx exited ({status}): {log}");
        }
        assert!(
            Instant::now() < deadline,
            "nginx does not listen after 10 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Nginx { child, port, dir }
}

#[test]
fn https_through_nginx_with_a_custom_ca_and_with_a_pin() {
    let program = Program::fresh();
    let card = program.day_card("NGIN-XTLS-0000-0001", 30);
    let certs = certs(&["127.0.0.1"], (2020, 2090), false);
    let server = nginx(
        &program.sandbox.base_url(),
        &certs.chain_pem,
        &certs.key_pem,
    );
    let url = format!("https://127.0.0.1:{}", server.port);

    let mut trust = Trust::nothing();
    trust.add_roots_pem(certs.ca_pem.as_bytes()).expect("root");
    let options = Options {
        trust,
        ..Options::default()
    };
    let client = Client::with_options(&url, &program.app_id, APP_KEY, options).expect("client");
    let login = client
        .single_login(&card, "MAC-NGINX", None)
        .expect("login through nginx");
    assert_eq!(login.token().map(str::len), Some(40));
    client
        .get_bulletin()
        .expect("a second call on the kept-alive connection");

    let mut pinned = Trust::nothing();
    pinned.add_pin(&certs.leaf_pin).expect("pin");
    let options = Options {
        trust: pinned,
        ..Options::default()
    };
    let client = Client::with_options(&url, &program.app_id, APP_KEY, options).expect("client");
    client.get_bulletin().expect("pinned nginx certificate");

    let err = Client::new(&url, &program.app_id, APP_KEY)
        .expect("client")
        .get_bulletin()
        .expect_err("Mozilla's roots do not know this CA");
    assert_eq!(err.kind(), ErrorKind::Tls);
    let access = std::fs::read_to_string(server.dir.join("access.log")).unwrap_or_default();
    assert!(
        access.contains("POST /api/verify"),
        "nginx logged: {access}"
    );
}
