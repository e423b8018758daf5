//! Bad input (README: 404, 405, 413 JSON envelopes; missing fields) and load
//! (200 concurrent connections).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use common::*;
use serde_json::{json, Value};

fn envelope(r: &Raw, status: u16) {
    assert_eq!(r.status, status, "{r:?}");
    assert!(r.content_type.starts_with("application/json"), "{r:?}");
    let v = r.json();
    assert_eq!(v["code"], status, "{v}");
    assert!(v["message"].is_string(), "{v}");
    assert!(v["data"].is_null(), "{v}");
}

#[test]
fn unknown_path_is_404_json() {
    let app = App::new();
    for path in ["/", "/api", "/api/verify2", "/api/other", "/nope/verify"] {
        envelope(&post_form(path, &[], &[("a", "b")]), 404);
    }
    // the service keeps serving
    assert_ok(&app.call(&[("action", "GetBulletin")]));
}

#[test]
fn methods_other_than_post_are_405_json() {
    let app = App::new();
    envelope(&get("/api/verify"), 405);
    envelope(&get(&format!("/api/verify/{}", app.pw)), 405);
    for method in ["PUT", "DELETE", "PATCH"] {
        let req = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}/api/verify", base()))
            .body(())
            .unwrap();
        let mut r = agent().run(req).expect("reply");
        let status = r.status().as_u16();
        let body = r.body_mut().read_to_string().unwrap();
        assert_eq!(status, 405, "{method}: {body}");
        let v: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(v["code"], 405);
    }
}

/// Write a big request while reading the reply concurrently (the server may answer early).
fn send_big(path: &str, body_len: usize) -> String {
    let addr = base().trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(&addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    let mut w = s.try_clone().unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {body_len}\r\nConnection: close\r\n\r\n"
    );
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(head.as_bytes());
        let chunk = vec![b'a'; 64 * 1024];
        let mut left = body_len;
        while left > 0 {
            let n = left.min(chunk.len());
            if w.write_all(&chunk[..n]).is_err() {
                break;
            }
            left -= n;
        }
    });
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                out.extend_from_slice(&buf[..n]);
                if complete_response(&out) {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    drop(s);
    let _ = writer.join();
    String::from_utf8_lossy(&out).into_owned()
}

fn complete_response(buf: &[u8]) -> bool {
    let text = String::from_utf8_lossy(buf);
    let Some(end) = text.find("\r\n\r\n") else {
        return false;
    };
    let head = text[..end].to_ascii_lowercase();
    let Some(cl) = head.lines().find_map(|l| {
        l.strip_prefix("content-length:")
            .map(|v| v.trim().parse::<usize>().unwrap_or(0))
    }) else {
        return false;
    };
    buf.len() >= end + 4 + cl
}

fn split_reply(reply: &str) -> (u16, Value) {
    let status: u16 = reply
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("status line: {reply:?}"));
    let body = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    let v: Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("JSON body ({e}): {body:?}"));
    (status, v)
}

#[test]
fn body_over_one_mib_is_413_json_and_service_keeps_serving() {
    let app = App::new();
    for path in ["/api/verify".to_string(), format!("/api/verify/{}", app.pw)] {
        let reply = send_big(&path, 1024 * 1024 + 1);
        let (status, v) = split_reply(&reply);
        assert_eq!(status, 413, "{reply}");
        assert_eq!(v["code"], 413, "{v}");
        assert!(v["data"].is_null());
    }
    // much bigger
    let (status, _) = split_reply(&send_big("/api/verify", 8 * 1024 * 1024));
    assert_eq!(status, 413);
    // a body just under the limit is read (and is an ordinary 1013)
    let mut body = String::from("AppId=x&pad=");
    body.push_str(&"a".repeat(1024 * 1024 - body.len()));
    assert_eq!(body.len(), 1024 * 1024);
    let r = post_body(
        "/api/verify",
        "application/x-www-form-urlencoded",
        body.into_bytes(),
    );
    assert_eq!(r.status, 200, "exactly 1 MiB is allowed");
    assert_code(&r.json(), 1013);
    // still serving
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    assert_eq!(init(&app.id, &app.key).0, 200);
}

#[test]
fn empty_and_malformed_bodies_are_1013() {
    let app = App::new();
    let r = post_body(
        "/api/verify",
        "application/x-www-form-urlencoded",
        Vec::new(),
    );
    assert_eq!(r.status, 200);
    assert_code(&r.json(), 1013);
    let r = post_body(
        &format!("/api/verify/{}", app.pw),
        "application/x-www-form-urlencoded",
        Vec::new(),
    );
    assert_eq!(r.status, 200);
    assert_code(&r.json(), 1013);
    let r = post_body(
        "/api/verify",
        "application/x-www-form-urlencoded",
        b"%%%&&==&AppId".to_vec(),
    );
    assert_eq!(r.status, 200);
    assert_code(&r.json(), 1013);
    let r = post_body(
        "/api/verify",
        "application/x-www-form-urlencoded",
        vec![0xff, 0xfe, 0x00, 0x80],
    );
    assert_eq!(r.status, 200);
    assert_code(&r.json(), 1013);
    // a handle with only the password
    let v = handle_form("/api/verify", &[("X-Api-Password", &app.pw)], &[]);
    assert_code(&v, 1013);
}

#[test]
fn http_pipelining_on_one_raw_connection() {
    let app = App::new();
    let addr = base().trim_start_matches("http://").to_string();
    let mut req = Vec::new();
    for i in 0..3 {
        let (ts, data, sign) = seal(&app.pw, b"action=GetBulletin");
        let body = format!("TimeStamp={ts}&Data={data}&Sign={sign}");
        let close = if i == 2 { "Connection: close\r\n" } else { "" };
        req.extend_from_slice(
            format!(
                "POST /api/verify/{} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n{close}\r\n{body}",
                app.pw,
                body.len()
            )
            .as_bytes(),
        );
    }
    let reply = raw_http(&req);
    assert_eq!(reply.matches("HTTP/1.1 200").count(), 3, "{reply}");
    assert_eq!(
        reply.matches(&format!("bulletin of {}", app.id)).count(),
        3,
        "{reply}"
    );
}

#[test]
fn two_hundred_concurrent_connections() {
    const N: usize = 200;
    let first = App::new();
    let mut apps = vec![(first.id.clone(), first.key.clone())];
    let mut keep = Vec::new();
    for _ in 1..10 {
        let a = first.other(json!({}));
        apps.push((a.id.clone(), a.key.clone()));
        keep.push(a);
    }
    let apps = Arc::new(apps);
    let barrier = Arc::new(Barrier::new(N));
    let url = base();
    let before = sb().connections_accepted();
    let handles: Vec<_> = (0..N)
        .map(|i| {
            let apps = apps.clone();
            let barrier = barrier.clone();
            let url = url.clone();
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || -> Result<(), String> {
                    let agent = fresh_agent();
                    let (id, key) = &apps[i % apps.len()];
                    barrier.wait();
                    let ts = sb().now().to_string();
                    let sign = init_sign(id, key, &ts);
                    let r = try_post_form_with(
                        &agent,
                        &url,
                        "/api/verify",
                        &[],
                        &[
                            ("AppId", id),
                            ("AppKey", key),
                            ("TimeStamp", &ts),
                            ("Sign", &sign),
                        ],
                    )
                    .map_err(|e| format!("thread {i} init: {e}"))?;
                    let v = r.json();
                    if v["code"] != 200 {
                        return Err(format!("thread {i} init: {v}"));
                    }
                    let pw = v["data"]["api_password"].as_str().unwrap().to_string();
                    let (ts, data, sign) =
                        seal(&pw, format!("action=GetVariable&Name=app&n={i}").as_bytes());
                    let r = try_post_form_with(
                        &agent,
                        &url,
                        "/api/verify",
                        &[("X-Api-Password", &pw)],
                        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
                    )
                    .map_err(|e| format!("thread {i} handle: {e}"))?;
                    let v = r.json();
                    if v["code"] != 200 || v["data"]["value"] != id.as_str() {
                        return Err(format!("thread {i}: expected variable app = {id}, got {v}"));
                    }
                    let (ts, data, sign) = seal(&pw, b"action=GetBulletin");
                    let r = try_post_form_with(
                        &agent,
                        &url,
                        "/api/verify",
                        &[("X-Api-Password", &pw)],
                        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
                    )
                    .map_err(|e| format!("thread {i} bulletin: {e}"))?;
                    let v = r.json();
                    if v["data"]["bulletin"] != format!("bulletin of {id}") {
                        return Err(format!("thread {i}: bulletin {v}"));
                    }
                    Ok(())
                })
                .expect("spawn")
        })
        .collect();
    let errors: Vec<String> = handles
        .into_iter()
        .filter_map(|h| h.join().expect("thread panicked").err())
        .collect();
    assert!(
        errors.is_empty(),
        "{} of {N} clients failed: {:?}",
        errors.len(),
        &errors[..errors.len().min(5)]
    );
    // every client used new connections (3 each); other tests may add more
    assert!(sb().connections_accepted() - before >= (3 * N) as u64);
    drop(keep);
}
