//! A scripted HTTP/1.1 server for what the sandbox cannot do: redirects, replies with odd
//! bodies, broken connections, and a record of exactly which parameters a call sent.
//!
//! It answers Init with `{"code":200,...,"data":{"api_password": API_PASSWORD}}` unless the
//! script says otherwise, decodes Handle requests (RC4 with that secret, then the plaintext)
//! and records every request. It implements no more of the service than a test asks for.
//!
//! Faults of the connection (core/tests/faults/): a reply can be written as raw bytes
//! ([`Response::raw_http`]), cut short ([`Response::cut`]), dripped a few bytes at a time
//! ([`Response::drip`]), followed by a huge body ([`Response::huge`]), and the connection
//! then kept, closed, reset or held open ([`Then`]). A request is read with `peek` and
//! consumed only once its reply is chosen, so that a reset ([`Then::Reset`]) leaves it
//! unread: closing a socket with unread data sends an RST. Idle kept-alive connections can
//! be closed after a time ([`Setup::idle_close`]), and the whole server stopped
//! ([`FakeServer::stop`]) so that connects are refused.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The session secret the fake server hands out.
pub const API_PASSWORD: &str = "FAKEapiPASSWORD0123456789abcdefg";

/// The largest request head the server reads.
const MAX_HEAD: usize = 64 * 1024;

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request target (`/api/verify`, `/api/verify/{secret}`).
    pub path: String,
    /// The form fields, decoded.
    pub form: Vec<(String, String)>,
    /// For Handle: the decrypted plaintext's pairs, `action` first.
    pub plaintext: Option<Vec<(String, String)>>,
    /// The connection it came on: 1 for the server's first connection, 2 for the next...
    pub connection: usize,
    /// Its place on that connection: 0 for the first request, 1 for the next one sent on the
    /// kept-alive connection...
    pub on_connection: usize,
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

/// What becomes of the connection once the reply is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Then {
    /// Kept for the next request (keep-alive).
    #[default]
    Keep,
    /// Closed (FIN).
    Close,
    /// Reset (RST): the request is left unread and the socket closed.
    Reset,
    /// Kept open this long without reading or writing, then closed.
    Hold(Duration),
}

/// Filler written after a reply's bytes: the rest of a huge body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    /// Body bytes to write in all (those of [`Response::raw`] after the head included).
    pub length: u64,
    /// Whether they are sent as chunks (`Transfer-Encoding: chunked`).
    pub chunked: bool,
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub struct Response {
    /// Wait this long first.
    pub delay: Duration,
    /// Close the connection without answering (after the delay): FIN, or RST when `then` is
    /// [`Then::Reset`].
    pub close: bool,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Bytes written instead of the head and body made of the fields above (anything at
    /// all: a broken head, a wrong `Content-Length`).
    pub raw: Option<Vec<u8>>,
    /// Only the first this many bytes of the reply are written.
    pub cut: Option<usize>,
    /// The reply is written this many bytes at a time, with this pause after each piece.
    pub drip: Option<(usize, Duration)>,
    /// A huge body follows the reply's bytes.
    pub stream: Option<Stream>,
    /// What becomes of the connection afterwards.
    pub then: Then,
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
            raw: None,
            cut: None,
            drip: None,
            stream: None,
            then: Then::Keep,
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

    /// Exactly these bytes on the wire: status line, headers and body as given.
    pub fn raw_http(bytes: impl Into<Vec<u8>>) -> Response {
        Response {
            raw: Some(bytes.into()),
            ..Response::raw(200, "")
        }
    }

    /// A reply of `length` body bytes, announced by `Content-Length` or sent in chunks,
    /// that starts as a valid envelope (`{"code":200,"message":"xxxx...`) and never ends it.
    /// It is written until the client stops reading or `length` bytes are sent; see
    /// [`FakeServer::bytes_sent`].
    pub fn huge(length: u64, chunked: bool) -> Response {
        let framing = if chunked {
            "Transfer-Encoding: chunked".to_owned()
        } else {
            format!("Content-Length: {length}")
        };
        // A body that starts as the service's envelope.
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{framing}\r\n\r\n\
             {{\"code\":200,\"message\":\""
        );
        Response {
            stream: Some(Stream { length, chunked }),
            ..Response::raw_http(head)
        }
    }

    /// Closes the connection without answering.
    pub fn hang_up() -> Response {
        Response {
            close: true,
            ..Response::raw(200, "")
        }
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

    /// Writes only the first `bytes` bytes of the reply (head included).
    pub fn cut(mut self, bytes: usize) -> Response {
        self.cut = Some(bytes);
        self
    }

    /// Writes the reply `piece` bytes at a time, `pause` apart.
    pub fn drip(mut self, piece: usize, pause: Duration) -> Response {
        self.drip = Some((piece.max(1), pause));
        self
    }

    /// What becomes of the connection once the reply is written.
    pub fn then(mut self, then: Then) -> Response {
        self.then = then;
        self
    }

    /// Accepts the request and never answers (well, not for a minute), keeping the
    /// connection open.
    pub fn black_hole() -> Response {
        Response::raw(200, "").after(Duration::from_secs(60))
    }

    /// The bytes of the reply: `raw`, or a head made of the status, the headers and the
    /// body's length, then the body.
    pub fn bytes(&self) -> Vec<u8> {
        if let Some(raw) = &self.raw {
            return raw.clone();
        }
        let mut head = format!(
            "HTTP/1.1 {} Fake\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            self.status,
            self.body.len()
        );
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let mut reply = head.into_bytes();
        reply.extend_from_slice(&self.body);
        reply
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync + 'static;

/// How a server is started (see [`FakeServer::start_with`]).
#[derive(Debug, Clone, Default)]
pub struct Setup {
    /// Listen on this address (e.g. the port of a stopped server) instead of 127.0.0.1 and
    /// an ephemeral port.
    pub addr: Option<SocketAddr>,
    /// Close a kept-alive connection that stays idle this long after a reply.
    pub idle_close: Option<Duration>,
}

/// What the server's threads share.
struct Shared {
    handler: Arc<Handler>,
    requests: Arc<Mutex<Vec<Request>>>,
    idle_close: Option<Duration>,
    stopped: AtomicBool,
    /// A clone of every open connection (by id), to shut down on [`FakeServer::stop`].
    open: Mutex<Vec<(usize, TcpStream)>>,
    accepted: AtomicUsize,
    sent: AtomicU64,
}

/// A running fake server. Its threads live until the test binary ends (or [`FakeServer::stop`]).
pub struct FakeServer {
    url: String,
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
    shared: Arc<Shared>,
    acceptor: Mutex<Option<JoinHandle<()>>>,
}

impl FakeServer {
    /// Serves every request with `handler`, on 127.0.0.1 and an ephemeral port.
    pub fn start(handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> FakeServer {
        FakeServer::start_with(Setup::default(), handler)
    }

    /// Serves every request with `handler`, as `setup` says.
    pub fn start_with(
        setup: Setup,
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> FakeServer {
        let addr = setup
            .addr
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)));
        let listener = TcpListener::bind(addr).expect("bind");
        let addr = listener.local_addr().expect("addr");
        let url = format!("http://{addr}");
        let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
        let shared = Arc::new(Shared {
            handler: Arc::new(handler),
            requests: Arc::clone(&requests),
            idle_close: setup.idle_close,
            stopped: AtomicBool::new(false),
            open: Mutex::new(Vec::new()),
            accepted: AtomicUsize::new(0),
            sent: AtomicU64::new(0),
        });
        let acceptor = {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if shared.stopped.load(Ordering::SeqCst) {
                        return;
                    }
                    let Ok(stream) = stream else { continue };
                    let id = shared.accepted.fetch_add(1, Ordering::SeqCst) + 1;
                    if let Ok(clone) = stream.try_clone() {
                        shared.open.lock().expect("open").push((id, clone));
                    }
                    let shared = Arc::clone(&shared);
                    std::thread::spawn(move || serve(stream, id, &shared));
                }
            })
        };
        FakeServer {
            url,
            addr,
            requests,
            shared,
            acceptor: Mutex::new(Some(acceptor)),
        }
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

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
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

    /// The Init requests received so far.
    pub fn inits(&self) -> usize {
        self.requests().iter().filter(|r| r.is_init()).count()
    }

    /// The Handle requests of `action` received so far.
    pub fn handled_of(&self, action: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.action() == Some(action))
            .count()
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.accepted.load(Ordering::SeqCst)
    }

    /// Bytes written to clients so far (heads, bodies, filler of [`Response::huge`]).
    pub fn bytes_sent(&self) -> u64 {
        self.shared.sent.load(Ordering::SeqCst)
    }

    /// Stops listening (a connect to its address is then refused) and shuts every open
    /// connection down. Threads that are sleeping on a reply finish on their own.
    pub fn stop(&self) {
        let Some(acceptor) = self.acceptor.lock().expect("acceptor").take() else {
            return;
        };
        self.shared.stopped.store(true, Ordering::SeqCst);
        // Wakes the acceptor, which sees `stopped` and drops the listener.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        let _ = acceptor.join();
        for (_, stream) in self.shared.open.lock().expect("open").drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// A request seen on a connection, not yet consumed.
struct Peeked {
    /// Head and body length.
    length: usize,
    path: String,
    body: Vec<u8>,
}

/// Waits for a whole request on `stream` and parses it without consuming it. `None` when the
/// connection ends, stays idle past its read timeout, or carries something that is not
/// HTTP (then it is answered 400 and closed).
fn peek_request(stream: &TcpStream) -> Option<Peeked> {
    let mut buffer = vec![0u8; 16 * 1024];
    let mut started: Option<Instant> = None;
    loop {
        let seen = match stream.peek(&mut buffer) {
            Ok(0) | Err(_) => return None,
            Ok(seen) => seen,
        };
        // Something arrived: the rest of the request is waited for without a timeout.
        if started.is_none() {
            started = Some(Instant::now());
            let _ = stream.set_read_timeout(None);
        }
        if !buffer[0].is_ascii_uppercase() {
            // A TLS ClientHello, or garbage.
            refuse(stream);
            return None;
        }
        let text = &buffer[..seen];
        if let Some(end) = text.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&text[..end]).into_owned();
            let path = head
                .lines()
                .next()
                .and_then(|line| line.split(' ').nth(1))
                .unwrap_or("")
                .to_owned();
            let body_length = head
                .lines()
                .skip(1)
                .filter_map(|line| line.split_once(':'))
                .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
                .and_then(|(_, value)| value.trim().parse::<usize>().ok())
                .unwrap_or(0);
            let length = end + 4 + body_length;
            if seen >= length {
                return Some(Peeked {
                    length,
                    path,
                    body: text[end + 4..length].to_vec(),
                });
            }
            if buffer.len() < length {
                buffer.resize(length, 0);
            }
        } else if seen == buffer.len() {
            if seen >= MAX_HEAD {
                refuse(stream);
                return None;
            }
            buffer.resize(buffer.len() * 2, 0);
        }
        // More is on its way (peek does not wait when some bytes are already there).
        if started.is_some_and(|at| at.elapsed() > Duration::from_secs(10)) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn refuse(mut stream: &TcpStream) {
    let _ = stream
        .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    let _ = stream.shutdown(Shutdown::Write);
    // Drains what the client still sends, so that the close is a FIN, not an RST.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let _ = std::io::copy(&mut stream, &mut std::io::sink());
}

/// Serves one connection, then closes it: its clone in `open` is dropped first, so that
/// dropping `stream` really closes the socket (with an RST when a request is left unread).
fn serve(stream: TcpStream, id: usize, shared: &Shared) {
    serve_requests(&stream, id, shared);
    shared
        .open
        .lock()
        .expect("open")
        .retain(|(open, _)| *open != id);
    drop(stream);
}

fn serve_requests(stream: &TcpStream, id: usize, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let mut index = 0;
    loop {
        if index > 0 {
            let _ = stream.set_read_timeout(shared.idle_close);
        }
        let Some(peeked) = peek_request(stream) else {
            return;
        };
        let form = decode_pairs(&String::from_utf8_lossy(&peeked.body));
        let plaintext = form
            .iter()
            .find(|(k, _)| k == "Data")
            .and_then(|(_, data)| decrypt(data));
        let request = Request {
            path: peeked.path,
            form,
            plaintext,
            connection: id,
            on_connection: index,
        };
        shared.requests.lock().expect("log").push(request.clone());
        let response = (shared.handler)(&request);
        // The request is consumed, unless the connection is to be reset: unread data makes
        // the close an RST.
        if response.then != Then::Reset {
            let mut consumed = vec![0u8; peeked.length];
            let mut reader = stream;
            if reader.read_exact(&mut consumed).is_err() {
                return;
            }
        }
        std::thread::sleep(response.delay);
        if response.close {
            return;
        }
        if write_reply(stream, &response, shared).is_err() {
            return;
        }
        match response.then {
            Then::Keep => index += 1,
            Then::Close => {
                let _ = stream.shutdown(Shutdown::Write);
                return;
            }
            Then::Reset => return,
            Then::Hold(time) => {
                std::thread::sleep(time);
                return;
            }
        }
    }
}

fn write_reply(
    mut stream: &TcpStream,
    response: &Response,
    shared: &Shared,
) -> std::io::Result<()> {
    let mut reply = response.bytes();
    if let Some(cut) = response.cut {
        reply.truncate(cut);
    }
    let mut written_body = 0u64;
    if let Some(stream_spec) = response.stream {
        // The bytes after the head count as body.
        if let Some(end) = reply.windows(4).position(|w| w == b"\r\n\r\n") {
            let body = &reply[end + 4..];
            written_body = body.len() as u64;
            if stream_spec.chunked && !body.is_empty() {
                let framed = [format!("{:x}\r\n", body.len()).as_bytes(), body, b"\r\n"].concat();
                reply.truncate(end + 4);
                reply.extend_from_slice(&framed);
            }
        }
    }
    match response.drip {
        // One write: a head and a body written apart wait for a delayed ACK (Nagle). A large
        // reply goes in pieces, so that `bytes_sent` shows how far the client read.
        None => {
            for part in reply.chunks(64 * 1024) {
                stream.write_all(part)?;
                shared.sent.fetch_add(part.len() as u64, Ordering::SeqCst);
            }
        }
        Some((piece, pause)) => {
            for part in reply.chunks(piece) {
                stream.write_all(part)?;
                stream.flush()?;
                shared.sent.fetch_add(part.len() as u64, Ordering::SeqCst);
                std::thread::sleep(pause);
            }
        }
    }
    stream.flush()?;
    if let Some(Stream { length, chunked }) = response.stream {
        let filler = vec![b'x'; 64 * 1024];
        while written_body < length {
            let piece = &filler[..usize::try_from(length - written_body)
                .unwrap_or(filler.len())
                .min(filler.len())];
            if chunked {
                let framed = [format!("{:x}\r\n", piece.len()).as_bytes(), piece, b"\r\n"].concat();
                stream.write_all(&framed)?;
            } else {
                stream.write_all(piece)?;
            }
            written_body += piece.len() as u64;
            shared.sent.fetch_add(piece.len() as u64, Ordering::SeqCst);
        }
        if chunked {
            stream.write_all(b"0\r\n\r\n")?;
        }
        stream.flush()?;
    }
    Ok(())
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
