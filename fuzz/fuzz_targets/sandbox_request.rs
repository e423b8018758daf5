//! The sandbox's request decoding end to end: an in-process sandbox (demo program, one
//! Init made at start) receives the input after its first byte, which says how:
//! - `0x00`: a plaintext (`action=...&Card=...`) sent as a valid Handle request, encrypted
//!   and signed, the session secret in the path;
//! - `0x01`: the same with the session secret in the `X-Api-Password` header;
//! - `0x02`: a raw form body posted to the Init path `/api/verify`;
//! - `0x03`: a raw form body posted to the Handle path `/api/verify/<session secret>`;
//! (the first byte modulo 4). Every answer must be an HTTP reply, and a 200 must carry an
//! envelope that verify-core parses.
#![no_main]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use libfuzzer_sys::fuzz_target;
use verify_core::{wire, Reply};
use verify_sandbox::{Config, Fixtures, Sandbox};

const APP_ID: &str = "10001";
const APP_KEY: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";

struct Fixture {
    _sandbox: Sandbox,
    addr: SocketAddr,
    api_password: String,
}

fn now() -> String {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        .to_string()
}

/// POSTs `body` to `path`; returns the status and the body of the reply.
fn post(addr: SocketAddr, path: &str, headers: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).expect("connect to the sandbox");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         {headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("send the head");
    stream.write_all(body).expect("send the body");
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .expect("the sandbox answers and closes");
    let end = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP reply head");
    let head = String::from_utf8_lossy(&answer[..end]);
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let mut body = answer[end + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    (status, body)
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line_end) = data.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&data[..line_end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok())
            .expect("a chunk size");
        data = &data[line_end + 2..];
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
    out
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let mut fixtures: serde_json::Value =
            serde_json::from_str(include_str!("../../sandbox/fixtures/demo.json")).unwrap();
        // Registrations stay bounded however long the run.
        fixtures["programs"][0]["max_registrations_per_ip"] = 1.into();
        let config = Config {
            fixtures: Some(Fixtures::from_value(fixtures).expect("demo fixtures")),
            log_size: 64,
            ..Config::default()
        };
        let sandbox = Sandbox::start(config).expect("start the sandbox");
        let base = sandbox.base_url();
        let addr: SocketAddr = base
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .expect("the sandbox's address");
        let ts = now();
        let form = format!(
            "AppId={APP_ID}&AppKey={APP_KEY}&TimeStamp={ts}&Sign={}",
            wire::init_sign(APP_ID, APP_KEY, &ts)
        );
        let (status, body) = post(addr, "/api/verify", "", form.as_bytes());
        assert_eq!(status, 200);
        let reply = Reply::from_body(&body).expect("the Init reply");
        assert_eq!(reply.code(), 200, "{reply:?}");
        let api_password = reply
            .str_field("api_password")
            .expect("an api password")
            .to_owned();
        Fixture {
            _sandbox: sandbox,
            addr,
            api_password,
        }
    })
}

fuzz_target!(|input: &[u8]| {
    let Some((&how, rest)) = input.split_first() else {
        return;
    };
    let fixture = fixture();
    let password = fixture.api_password.as_str();
    let handle_path = format!("/api/verify/{}", wire::encode_component(password));
    let (status, body) = match how % 4 {
        0 | 1 => {
            let plaintext = String::from_utf8_lossy(rest);
            let ts = now();
            let data = wire::encrypt_data(password, &plaintext).expect("a valid key");
            let sign = wire::handle_sign(password, &ts, &data);
            let form = format!("TimeStamp={ts}&Data={data}&Sign={sign}");
            if how % 4 == 1 {
                let header = format!("X-Api-Password: {password}\r\n");
                post(fixture.addr, "/api/verify/", &header, form.as_bytes())
            } else {
                post(fixture.addr, &handle_path, "", form.as_bytes())
            }
        }
        2 => post(fixture.addr, "/api/verify", "", rest),
        _ => post(fixture.addr, &handle_path, "", rest),
    };
    assert!((100..600).contains(&status), "status {status}");
    if status == 200 {
        let reply = Reply::from_body(&body).unwrap_or_else(|e| {
            panic!(
                "a 200 of the sandbox that verify-core refuses ({e}): {}",
                String::from_utf8_lossy(&body)
            )
        });
        assert!(reply.code() >= 200, "{reply:?}");
    }
});
