//! The door of the back office (README "The door"): the console and the control API refuse a
//! foreign `Host` (DNS rebinding), state-changing requests of another origin (cross-site
//! forms and `text/plain` posts), control requests that are not JSON, and, bound to anything
//! but loopback or given a token, requests without the token; the service stays open. Each
//! refusal is a test that an attack which succeeded before the door would fail.
//!
//! Every request here is written by hand over TCP to 127.0.0.1, so that each header is the
//! one a browser (or an attacker's page) would send. Each test has a sandbox of its own: a
//! successful attack would reset it.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;
use verify_sandbox::{Config, Fixtures, Sandbox};

mod common;

const CARD: &str = "DOOR-TEST-CARD-0001";

/// A sandbox with one program and one card, started with `config`.
fn sandbox(config: Config) -> Sandbox {
    let sb = Sandbox::start(config).expect("start the sandbox");
    sb.load(
        Fixtures::from_json(&format!(
            r#"{{"programs":[{{"app_id":"door","app_key":"DOORKEY0000000000000000000000001"}}],
                "cards":[{{"app_id":"door","card":"{CARD}"}}]}}"#
        ))
        .expect("fixtures"),
    )
    .expect("load");
    sb
}

fn loopback() -> Sandbox {
    sandbox(Config::default())
}

/// `127.0.0.1:PORT`, the Host a browser sends for the sandbox's own address.
fn own(sb: &Sandbox) -> String {
    format!("127.0.0.1:{}", sb.port())
}

#[derive(Debug)]
struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }

    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

/// One request on a new connection to 127.0.0.1 (`Connection: close`), exactly these
/// headers plus `Content-Length`.
fn send(sb: &Sandbox, method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", sb.port())).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut req = format!("{method} {target} HTTP/1.1\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    s.write_all(req.as_bytes()).expect("write");
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    Reply {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// A `POST` to the sandbox's own address (`Host` 127.0.0.1:PORT) with these other headers.
fn post_own(sb: &Sandbox, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let host = own(sb);
    let mut all = vec![("Host", host.as_str())];
    all.extend_from_slice(headers);
    send(sb, "POST", path, &all, body)
}

fn card_exists(sb: &Sandbox) -> bool {
    sb.card("door", CARD).is_some()
}

fn card_state(sb: &Sandbox) -> String {
    sb.card("door", CARD).expect("card")["state"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The sandbox clock is still the system clock (not moved by a day).
fn clock_unmoved(sb: &Sandbox) -> bool {
    let system = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64;
    (sb.now() - system).abs() < 600
}

#[test]
fn a_cross_site_text_plain_post_cannot_reset_the_sandbox() {
    // What `fetch(url, {method: "POST", mode: "no-cors", body: "{}"})` sends from a page of
    // another site: text/plain needs no CORS preflight.
    let sb = loopback();
    let r = post_own(
        &sb,
        "/_sandbox/reset",
        &[
            ("Origin", "http://evil.example"),
            ("Sec-Fetch-Site", "cross-site"),
            ("Content-Type", "text/plain;charset=UTF-8"),
        ],
        "{}",
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.json()["error"].as_str().unwrap().contains("evil.example"));
    assert!(card_exists(&sb), "the reset went through");
}

#[test]
fn a_cross_site_form_post_cannot_move_the_clock() {
    // A form (or no-cors fetch) of type application/x-www-form-urlencoded whose body is JSON.
    let sb = loopback();
    let r = post_own(
        &sb,
        "/_sandbox/clock",
        &[
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        r#"{"shift":86400}"#,
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(clock_unmoved(&sb), "the clock moved");
}

#[test]
fn a_cross_site_multipart_form_cannot_disable_a_card() {
    let sb = loopback();
    let r = post_own(
        &sb,
        "/_sandbox/cards/update",
        &[
            ("Origin", "null"),
            ("Content-Type", "multipart/form-data; boundary=x"),
        ],
        &format!(r#"{{"app_id":"door","card":"{CARD}","op":"disable"}}"#),
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert_eq!(card_state(&sb), "unused");
}

#[test]
fn another_origin_is_refused_even_with_a_json_body() {
    let sb = loopback();
    let r = post_own(
        &sb,
        "/_sandbox/cards/delete",
        &[
            ("Origin", "https://evil.example"),
            ("Content-Type", "application/json"),
        ],
        &format!(r#"{{"app_id":"door","card":"{CARD}"}}"#),
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(card_exists(&sb));
}

#[test]
fn a_page_on_another_local_port_is_refused() {
    // Same site (127.0.0.1), another origin: a dev server of some other project.
    let sb = loopback();
    let r = post_own(
        &sb,
        "/_sandbox/reset",
        &[
            ("Origin", &format!("http://127.0.0.1:{}", sb.port() ^ 1)),
            ("Content-Type", "application/json"),
        ],
        "{}",
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(card_exists(&sb));
}

#[test]
fn sec_fetch_site_cross_site_without_origin_is_refused() {
    let sb = loopback();
    for site in ["cross-site", "same-site"] {
        let r = post_own(
            &sb,
            "/_sandbox/reset",
            &[
                ("Sec-Fetch-Site", site),
                ("Content-Type", "application/json"),
            ],
            "{}",
        );
        assert_eq!(r.status, 403, "{site}: {r:?}");
        assert!(r.json()["error"].as_str().unwrap().contains(site));
    }
    assert!(card_exists(&sb));
}

#[test]
fn control_requests_that_are_not_json_are_refused() {
    // curl -d '...' sends application/x-www-form-urlencoded; no Origin at all.
    let sb = loopback();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut headers = vec![("Host", own(&sb))];
        if let Some(t) = content_type {
            headers.push(("Content-Type", t.to_string()));
        }
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = send(
            &sb,
            "POST",
            "/_sandbox/cards/update",
            &headers,
            &format!(r#"{{"app_id":"door","card":"{CARD}","op":"refund"}}"#),
        );
        assert_eq!(r.status, 415, "{content_type:?}: {r:?}");
        assert!(r.json()["error"]
            .as_str()
            .unwrap()
            .contains("application/json"));
    }
    assert_eq!(card_state(&sb), "unused");
}

#[test]
fn a_foreign_host_cannot_read_the_back_office() {
    // A page of evil.example whose name now resolves to 127.0.0.1 (DNS rebinding) is
    // same-origin with itself: only the Host tells.
    let sb = loopback();
    let host = format!("evil.example:{}", sb.port());
    for path in [
        "/_sandbox/programs",
        "/_sandbox/cards?app_id=door",
        "/_sandbox/",
    ] {
        let r = send(&sb, "GET", path, &[("Host", &host)], "");
        assert_eq!(r.status, 403, "{path}: {r:?}");
        assert!(!r.body.contains(CARD), "{path} leaked: {}", r.body);
        assert!(!r.body.contains("DOORKEY"), "{path} leaked: {}", r.body);
    }
}

#[test]
fn a_foreign_host_cannot_change_state() {
    let sb = loopback();
    let host = format!("evil.example:{}", sb.port());
    let origin = format!("http://{host}");
    let r = send(
        &sb,
        "POST",
        "/_sandbox/reset",
        &[
            ("Host", &host),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        "{}",
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.json()["error"].as_str().unwrap().contains("evil.example"));
    assert!(card_exists(&sb));
}

#[test]
fn a_foreign_host_in_an_absolute_target_is_refused() {
    let sb = loopback();
    let r = send(
        &sb,
        "GET",
        "http://evil.example/_sandbox/programs",
        &[("Host", &own(&sb))],
        "",
    );
    assert_eq!(r.status, 403, "{r:?}");
    let r = send(&sb, "GET", "/_sandbox/programs", &[], "");
    assert_eq!(r.status, 403, "no Host at all: {r:?}");
}

#[test]
fn loopback_names_allowed_hosts_and_the_same_origin_are_served() {
    let sb = sandbox(Config {
        allowed_hosts: vec!["sandbox.test".into(), ".lab.test".into()],
        ..Config::default()
    });
    let port = sb.port();
    for host in [
        own(&sb),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        format!("127.0.0.2:{port}"),
        format!("sandbox.test:{port}"),
        format!("a.lab.test:{port}"),
        "sandbox.test".to_string(),
    ] {
        let r = send(&sb, "GET", "/_sandbox/clock", &[("Host", &host)], "");
        assert_eq!(r.status, 200, "{host}: {r:?}");
    }
    for host in [
        format!("sandbox.test.evil.example:{port}"),
        format!("lab.test.example:{port}"),
        format!("10.1.2.3:{port}"),
    ] {
        let r = send(&sb, "GET", "/_sandbox/clock", &[("Host", &host)], "");
        assert_eq!(r.status, 403, "{host}: {r:?}");
    }
    // The console's own POST: same origin, JSON.
    let host = format!("localhost:{port}");
    let r = send(
        &sb,
        "POST",
        "/_sandbox/clock",
        &[
            ("Host", &host),
            ("Origin", &format!("http://{host}")),
            ("Sec-Fetch-Site", "same-origin"),
            ("Content-Type", "application/json; charset=utf-8"),
        ],
        r#"{"shift":60}"#,
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["offset"], 60);
    assert!(sb.token().is_none(), "no token on loopback");
}

#[test]
fn a_non_loopback_bind_needs_the_token() {
    // Bound to every address: reachable from the network. The test talks to it over
    // loopback only.
    let sb = sandbox(Config {
        host: "0.0.0.0".into(),
        ..Config::default()
    });
    assert!(sb.exposed());
    let token = sb.token().expect("a random token for a network bind");
    assert_eq!(token.len(), 64, "{token}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{token}");
    let host = own(&sb);
    let r = send(&sb, "GET", "/_sandbox/programs", &[("Host", &host)], "");
    assert_eq!(r.status, 401, "{r:?}");
    assert!(r.header("www-authenticate").is_some(), "{r:?}");
    assert!(!r.body.contains("DOORKEY"), "{}", r.body);
    let r = send(
        &sb,
        "POST",
        "/_sandbox/reset",
        &[("Host", &host), ("Content-Type", "application/json")],
        "{}",
    );
    assert_eq!(r.status, 401, "{r:?}");
    assert!(card_exists(&sb));
    let r = send(
        &sb,
        "GET",
        "/_sandbox/programs",
        &[("Host", &host), ("Authorization", "Bearer not-the-token")],
        "",
    );
    assert_eq!(r.status, 401, "{r:?}");

    let bearer = format!("Bearer {token}");
    let r = send(
        &sb,
        "GET",
        "/_sandbox/programs",
        &[("Host", &host), ("Authorization", &bearer)],
        "",
    );
    assert_eq!(r.status, 200, "{r:?}");
    let r = send(
        &sb,
        "POST",
        "/_sandbox/cards/update",
        &[
            ("Host", &host),
            ("Authorization", &bearer),
            ("Content-Type", "application/json"),
        ],
        &format!(r#"{{"app_id":"door","card":"{CARD}","op":"disable","reason":"r"}}"#),
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(card_state(&sb), "disabled");
    // The token does not open the door to another site.
    let r = send(
        &sb,
        "POST",
        "/_sandbox/reset",
        &[
            ("Host", &host),
            ("Authorization", &bearer),
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/json"),
        ],
        "{}",
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(card_exists(&sb));
}

#[test]
fn the_console_takes_the_token_once_from_its_address_and_keeps_it_in_a_cookie() {
    let sb = sandbox(Config {
        host: "0.0.0.0".into(),
        ..Config::default()
    });
    let token = sb.token().expect("token");
    let port = sb.port();
    assert_eq!(
        sb.console_url(),
        format!("http://127.0.0.1:{port}/_sandbox/?token={token}")
    );
    let host = own(&sb);
    let page = send(&sb, "GET", "/_sandbox/", &[("Host", &host)], "");
    assert_eq!(page.status, 401, "{page:?}");
    assert!(page.body.contains("token"), "{}", page.body);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));

    let wrong = send(&sb, "GET", "/_sandbox/?token=0123", &[("Host", &host)], "");
    assert_eq!(wrong.status, 401, "{wrong:?}");

    let r = send(
        &sb,
        "GET",
        &format!("/_sandbox/?token={token}"),
        &[("Host", &host)],
        "",
    );
    assert_eq!(r.status, 303, "{r:?}");
    assert_eq!(r.header("location").as_deref(), Some("/_sandbox/"));
    let cookie = r.header("set-cookie").expect("Set-Cookie");
    let name = format!("verify_sandbox_token_{port}");
    assert!(cookie.starts_with(&format!("{name}={token};")), "{cookie}");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/_sandbox"] {
        assert!(cookie.contains(attribute), "{attribute}: {cookie}");
    }
    let jar = format!("{name}={token}");
    let page = send(
        &sb,
        "GET",
        "/_sandbox/",
        &[("Host", &host), ("Cookie", &jar)],
        "",
    );
    assert_eq!(page.status, 200, "{page:?}");
    assert!(page.body.contains("console.js"), "{}", page.body);
    let v = send(
        &sb,
        "GET",
        "/_sandbox/cards?app_id=door",
        &[("Host", &host), ("Cookie", &jar)],
        "",
    )
    .json();
    assert_eq!(v["cards"][0]["card"], CARD, "{v}");
    // Another port's cookie is not this sandbox's.
    let other = format!("verify_sandbox_token_{}={token}", port ^ 1);
    let r = send(
        &sb,
        "GET",
        "/_sandbox/clock",
        &[("Host", &host), ("Cookie", &other)],
        "",
    );
    assert_eq!(r.status, 401, "{r:?}");
}

#[test]
fn a_chosen_token_is_required_on_loopback_too() {
    let sb = sandbox(Config {
        token: Some("lab-token.1".into()),
        ..Config::default()
    });
    assert!(!sb.exposed());
    assert_eq!(sb.token().as_deref(), Some("lab-token.1"));
    let host = own(&sb);
    let r = send(&sb, "GET", "/_sandbox/clock", &[("Host", &host)], "");
    assert_eq!(r.status, 401, "{r:?}");
    let r = send(
        &sb,
        "GET",
        "/_sandbox/clock",
        &[("Host", &host), ("Authorization", "bearer lab-token.1")],
        "",
    );
    assert_eq!(r.status, 200, "{r:?}");
    let bad = Sandbox::start(Config {
        token: Some("has space".into()),
        ..Config::default()
    });
    assert!(
        bad.is_err(),
        "a token that cannot go in a cookie is refused"
    );
}

#[test]
fn the_service_stays_open_to_any_host_origin_and_no_token() {
    let sb = sandbox(Config {
        host: "0.0.0.0".into(),
        ..Config::default()
    });
    let ts = sb.now().to_string();
    let key = "DOORKEY0000000000000000000000001";
    let sign = common::init_sign("door", key, &ts);
    let r = send(
        &sb,
        "POST",
        "/api/verify",
        &[
            ("Host", "licensing.example.com"),
            ("Origin", "http://evil.example"),
            ("Content-Type", "text/plain"),
        ],
        &format!("AppId=door&AppKey={key}&TimeStamp={ts}&Sign={sign}"),
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["code"], 200, "{r:?}");
}
