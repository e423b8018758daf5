//! Bounded memory and abuse limits (README "Limits"): the request log is a ring with masked
//! paths, session secrets per program are bounded, slow headers and slow bodies are cut off,
//! and connections above the limit are refused. Each sandbox here has its own `Config`.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{encode_plain, handle_sign, init_sign};
use serde_json::Value;
use verify_sandbox::{Config, Fixtures, Limits, Sandbox};

const PW: &str = "SECRETpw0123456789abcdefghijklmn";

fn sandbox(log_size: usize, limits: Limits) -> Sandbox {
    let sb = Sandbox::start(Config {
        log_size,
        limits,
        ..Config::default()
    })
    .expect("start");
    let f = Fixtures::from_json(&format!(
        r#"{{"programs":[{{"app_id":"77","app_key":"KEY77","api_passwords":["{PW}"]}}]}}"#
    ))
    .expect("fixtures");
    sb.load(f).expect("load");
    sb
}

fn connect(sb: &Sandbox) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", sb.port())).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    s
}

/// Sends a request and reads one reply (headers and `Content-Length` body).
fn exchange(s: &mut TcpStream, request: &str) -> String {
    s.write_all(request.as_bytes()).expect("write");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = s.read(&mut buf).unwrap_or(0);
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if got.len() >= end + 4 + len {
                break;
            }
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

fn clock_request() -> &'static str {
    "GET /_sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
}

/// Reads until EOF (or reset); returns what came and how long it took.
fn read_to_close(s: &mut TcpStream) -> (String, Duration) {
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) => {
                assert_ne!(e.kind(), std::io::ErrorKind::WouldBlock, "not closed: {e}");
                break;
            }
        }
    }
    (String::from_utf8_lossy(&got).into_owned(), start.elapsed())
}

fn post(sb: &Sandbox, path: &str, body: &str) -> String {
    let mut s = connect(sb);
    exchange(
        &mut s,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
}

fn json_body(reply: &str) -> Value {
    let body = reply.split("\r\n\r\n").nth(1).unwrap_or_default();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {reply}"))
}

fn handle_get_bulletin(sb: &Sandbox, pw: &str) -> Value {
    let ts = sb.now().to_string();
    let data = hex::encode_upper(common::rc4(
        pw.as_bytes(),
        encode_plain(&[("action", "GetBulletin")]).as_bytes(),
    ));
    let sign = handle_sign(pw, &ts, &data);
    json_body(&post(
        sb,
        &format!("/api/verify/{pw}"),
        &format!("TimeStamp={ts}&Data={data}&Sign={sign}"),
    ))
}

#[test]
fn request_log_is_a_ring_and_never_shows_the_api_password() {
    let sb = sandbox(5, Limits::default());
    for _ in 0..12 {
        assert_eq!(handle_get_bulletin(&sb, PW)["code"], 200);
    }
    let log = sb.request_log(None);
    assert_eq!(log.len(), 5, "{log:?}");
    assert_eq!(
        log.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![8, 9, 10, 11, 12]
    );
    for e in &log {
        assert_eq!(e.path, "/api/verify/****");
    }
    let mut s = connect(&sb);
    let reply = exchange(
        &mut s,
        "GET /_sandbox/log HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    );
    assert!(!reply.contains(PW), "{reply}");
    assert!(reply.contains("/api/verify/****"), "{reply}");
    let stats = json_body(&exchange(
        &mut s,
        "GET /_sandbox/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    ));
    assert_eq!(stats["requests"], 12, "every request is counted: {stats}");
}

#[test]
fn api_passwords_per_program_are_bounded_oldest_first() {
    let sb = sandbox(
        100,
        Limits {
            api_passwords_per_program: 3,
            ..Limits::default()
        },
    );
    let mut issued = Vec::new();
    for _ in 0..4 {
        let ts = sb.now().to_string();
        let sign = init_sign("77", "KEY77", &ts);
        let v = json_body(&post(
            &sb,
            "/api/verify",
            &format!("AppId=77&AppKey=KEY77&TimeStamp={ts}&Sign={sign}"),
        ));
        assert_eq!(v["code"], 200, "{v}");
        issued.push(v["data"]["api_password"].as_str().expect("pw").to_string());
    }
    // The fixture's secret and the first issued one are retired; the last 3 work.
    assert_eq!(handle_get_bulletin(&sb, PW)["code"], 1001);
    assert_eq!(handle_get_bulletin(&sb, &issued[0])["code"], 1001);
    for pw in &issued[1..] {
        assert_eq!(handle_get_bulletin(&sb, pw)["code"], 200, "{pw}");
    }
}

#[test]
fn slow_headers_and_idle_connections_are_closed_after_the_header_timeout() {
    let sb = sandbox(
        100,
        Limits {
            header_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
    );
    // Slowloris: a head that never ends.
    let mut s = connect(&sb);
    s.write_all(b"GET /_sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .expect("write");
    let (_, took) = read_to_close(&mut s);
    assert!(
        took >= Duration::from_millis(250),
        "closed too early: {took:?}"
    );
    assert!(took < Duration::from_secs(5), "closed too late: {took:?}");

    // A trickle of header lines does not extend it.
    let mut s = connect(&sb);
    let start = Instant::now();
    let mut closed = false;
    for i in 0..40 {
        if s.write_all(format!("GET /_sandbox/clock HTTP/1.1\r\nX-{i}: y\r\n").as_bytes())
            .is_err()
        {
            closed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if !closed {
        let (_, _) = read_to_close(&mut s);
    }
    assert!(start.elapsed() < Duration::from_secs(5));

    // An idle kept-alive connection is closed too; a prompt request is served.
    let mut s = connect(&sb);
    let reply = exchange(&mut s, clock_request());
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let (rest, took) = read_to_close(&mut s);
    assert!(rest.is_empty(), "{rest}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn a_slow_body_gets_408_and_the_connection_is_closed() {
    let sb = sandbox(
        100,
        Limits {
            body_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
    );
    let mut s = connect(&sb);
    s.write_all(
        b"POST /api/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nAppId=77&",
    )
    .expect("write");
    let (reply, took) = read_to_close(&mut s);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let log = sb.request_log(None);
    assert_eq!(log.last().map(|e| e.code), Some(408), "{log:?}");

    // The control API has the same limit.
    let mut s = connect(&sb);
    s.write_all(b"POST /_sandbox/cards HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{")
        .expect("write");
    let (reply, _) = read_to_close(&mut s);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
}

#[test]
fn connections_above_the_limit_are_refused_with_503() {
    let sb = sandbox(
        100,
        Limits {
            max_connections: 3,
            ..Limits::default()
        },
    );
    let mut held: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = connect(&sb);
            let r = exchange(&mut s, clock_request());
            assert!(r.starts_with("HTTP/1.1 200"), "{r}");
            s
        })
        .collect();
    let mut extra = connect(&sb);
    let (reply, _) = read_to_close(&mut extra);
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
    assert!(reply.contains("连接过多"), "{reply}");
    assert_eq!(
        sb.connections_accepted(),
        3,
        "a refused connection is not served"
    );

    // Once one closes, a new connection is served again (polled: the close is async).
    drop(held.pop());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut s = connect(&sb);
        let r = exchange(&mut s, clock_request());
        if r.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(r.starts_with("HTTP/1.1 503"), "{r}");
        assert!(Instant::now() < deadline, "never served again");
        std::thread::sleep(Duration::from_millis(20));
    }
}
