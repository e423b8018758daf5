//! A scripted HTTP/1.1 server for what the sandbox cannot do: redirects, replies with odd
//! bodies, and a record of exactly which parameters a call sent.
//!
//! It answers Init with `{"code":200,...,"data":{"api_password": API_PASSWORD}}` unless the
//! script says otherwise, decodes Handle requests (RC4 with that secret, then the plaintext)
//! and records every request. It implements no more of the service than a test asks for.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// The session secret the fake server hands out.
pub const API_PASSWORD: &str = "FAKEapiPASSWORD0123456789abcdefg";

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request target (`/api/verify`, `/api/verify/{secret}`).
    pub path: String,
    /// The form fields, decoded.
    pub form: Vec<(String, String)>,
    /// For Handle: the decrypted plaintext's pairs, `action` first.
    pub plaintext: Option<Vec<(String, String)>>,
}

impl Request {
    /// Whether this is the Init handshake.
    pub fn is_init(&self) -> bool {
        self.path == "/api/verify" && self.form.iter().any(|(k, _)| k == "AppId")
    }

    /// The `action` of a Handle request.
    pub fn action(&self) -> Option<&str> {
        self.plaintext
            .as_ref()?
            .iter()
            .find(|(k, _)| k == "action")
            .map(|(_, v)| v.as_str())
    }

    /// The plaintext's keys, `action` first.
    pub fn keys(&self) -> Vec<&str> {
        self.plaintext
            .iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .collect()
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub struct Response {
    /// Wait this long first.
    pub delay: Duration,
    /// Close the connection without answering (after the delay).
    pub close: bool,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// A reply with this status and raw body.
    pub fn raw(status: u16, body: impl Into<Vec<u8>>) -> Response {
        Response {
            delay: Duration::ZERO,
            close: false,
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// An HTTP 200 JSON reply.
    pub fn json(value: Value) -> Response {
        Response::raw(200, value.to_string())
    }

    /// The service's envelope with `code` and `data`.
    pub fn envelope(code: i32, data: Value) -> Response {
        Response::json(json!({"code": code, "message": "fake", "data": data}))
    }

    /// A successful Init.
    pub fn init_ok() -> Response {
        Response::envelope(200, json!({"api_password": API_PASSWORD}))
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Waits `delay` before answering.
    pub fn after(mut self, delay: Duration) -> Response {
        self.delay = delay;
        self
    }

    /// Accepts the request and never answers (well, not for a minute), keeping the
    /// connection open.
    pub fn black_hole() -> Response {
        Response::raw(200, "").after(Duration::from_secs(60))
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync + 'static;

/// A running fake server. Its threads live until the test binary ends.
pub struct FakeServer {
    url: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl FakeServer {
    /// Serves every request with `handler`, on 127.0.0.1 and an ephemeral port.
    pub fn start(handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
        let handler: Arc<Handler> = Arc::new(handler);
        let log = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let handler = Arc::clone(&handler);
                let log = Arc::clone(&log);
                std::thread::spawn(move || serve(stream, &*handler, &log));
            }
        });
        FakeServer { url, requests }
    }

    /// A server that answers Init with [`Response::init_ok`] and Handle with `handle`.
    pub fn with_handle(
        handle: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> FakeServer {
        FakeServer::start(move |request| {
            if request.is_init() {
                Response::init_ok()
            } else {
                handle(request)
            }
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("requests").clone()
    }

    /// The Handle requests received so far.
    pub fn handled(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.plaintext.is_some())
            .collect()
    }
}

fn serve(stream: TcpStream, handler: &Handler, log: &Mutex<Vec<Request>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let _ = stream.set_nodelay(true);
    let mut writer = stream;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let path = line.split(' ').nth(1).unwrap_or("").to_owned();
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).map_or(true, |n| n == 0) {
                return;
            }
            if header.trim_end().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.trim().eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().expect("content-length");
                }
            }
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let form = decode_pairs(&String::from_utf8_lossy(&body));
        let plaintext = form
            .iter()
            .find(|(k, _)| k == "Data")
            .and_then(|(_, data)| decrypt(data));
        let request = Request {
            path,
            form,
            plaintext,
        };
        log.lock().expect("log").push(request.clone());
        let response = handler(&request);
        std::thread::sleep(response.delay);
        if response.close {
            return;
        }
        let mut head = format!(
            "HTTP/1.1 {} Fake\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            response.status,
            response.body.len()
        );
        for (name, value) in &response.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        // One write: a head and a body written apart wait for a delayed ACK (Nagle).
        let mut reply = head.into_bytes();
        reply.extend_from_slice(&response.body);
        if writer.write_all(&reply).is_err() || writer.flush().is_err() {
            return;
        }
    }
}

/// `k=v&k=v` with form semantics (`+` is a space, `%XX` a byte).
fn decode_pairs(text: &str) -> Vec<(String, String)> {
    let decode = |part: &str| {
        percent_encoding::percent_decode_str(&part.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decrypt(data: &str) -> Option<Vec<(String, String)>> {
    let mut bytes = hex::decode(data).ok()?;
    verify_core::wire::rc4_apply(API_PASSWORD.as_bytes(), &mut bytes).ok()?;
    Some(decode_pairs(&String::from_utf8(bytes).ok()?))
}
