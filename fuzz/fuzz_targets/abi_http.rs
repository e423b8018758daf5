//! The whole HTTP reply path through the C ABI: the exported functions of the `verify`
//! crate (its sources built as an rlib, fuzz/abi, called through `extern "system"`
//! declarations as a C host calls them) against a tiny in-process HTTP server on
//! 127.0.0.1. The server answers Init (`POST /api/verify`) with a valid session, and every
//! other request (the Handle request of `verify_get_bulletin`) with the fuzz input as the raw
//! HTTP reply (status line, headers, body), then closes the connection. The reply's fields
//! are read through `verify_reply_*`; a failure must leave a last-error message that never
//! shows the session secret.
#![no_main]

use std::ffi::{c_char, CStr, CString};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::ptr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;

// Links the C ABI (its exported functions live in the rlib).
use verify as _;

#[repr(C)]
struct VerifyClient {
    _private: [u8; 0],
}

#[repr(C)]
struct VerifyReply {
    _private: [u8; 0],
}

extern "system" {
    fn verify_client_new(
        base_url: *const c_char,
        app_id: *const c_char,
        app_key: *const c_char,
        out: *mut *mut VerifyClient,
    ) -> i32;
    fn verify_client_set_timeouts(
        client: *const VerifyClient,
        connect_ms: u32,
        call_ms: u32,
    ) -> i32;
    fn verify_get_bulletin(client: *const VerifyClient, out: *mut *mut VerifyReply) -> i32;
    fn verify_reply_code(reply: *const VerifyReply) -> i32;
    fn verify_reply_message(reply: *const VerifyReply) -> *const c_char;
    fn verify_reply_str(
        reply: *const VerifyReply,
        pointer: *const c_char,
        out: *mut *const c_char,
    ) -> i32;
    fn verify_reply_int(reply: *const VerifyReply, pointer: *const c_char, out: *mut i64) -> i32;
    fn verify_reply_bool(reply: *const VerifyReply, pointer: *const c_char, out: *mut i32) -> i32;
    fn verify_reply_json(
        reply: *const VerifyReply,
        pointer: *const c_char,
        out: *mut *const c_char,
    ) -> i32;
    fn verify_reply_free(reply: *mut VerifyReply);
    fn verify_last_error_message() -> *const c_char;
    fn verify_code_describe(code: i32) -> *const c_char;
}

const API_PASSWORD: &str = "FUZZ-SESSION-SECRET-0123456789";

struct Fixture {
    client: usize, // *mut VerifyClient, kept for the life of the process
    reply: Arc<Mutex<Vec<u8>>>,
}

/// Reads one request (head and Content-Length body); returns its request line.
fn read_request(stream: &mut TcpStream) -> Option<String> {
    let mut data = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    while data.len() < head_end + length {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        data.extend_from_slice(&chunk[..n]);
    }
    head.lines().next().map(str::to_owned)
}

fn serve(listener: TcpListener, reply: Arc<Mutex<Vec<u8>>>) {
    let init = format!(
        "{{\"code\":200,\"message\":\"ok\",\"data\":{{\"api_password\":\"{API_PASSWORD}\",\
         \"server_time\":1700000000}}}}"
    );
    let init = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{init}",
        init.len()
    );
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let Some(line) = read_request(&mut stream) else {
            continue;
        };
        let answer = if line.starts_with("POST /api/verify ") {
            init.as_bytes().to_vec()
        } else {
            reply.lock().unwrap().clone()
        };
        let _ = stream.write_all(&answer);
        let _ = stream.flush();
        // Closed by the server first: the next request opens a new connection.
    }
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let reply = Arc::new(Mutex::new(Vec::new()));
        let served = reply.clone();
        std::thread::spawn(move || serve(listener, served));
        let url = CString::new(url).unwrap();
        let app_id = CString::new("10001").unwrap();
        let app_key = CString::new("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345").unwrap();
        let mut client = ptr::null_mut();
        // SAFETY: valid NUL-terminated strings and out-pointer.
        let code = unsafe {
            verify_client_new(url.as_ptr(), app_id.as_ptr(), app_key.as_ptr(), &mut client)
        };
        assert_eq!(code, 200, "verify_client_new");
        assert!(!client.is_null());
        // SAFETY: a live client.
        assert_eq!(
            unsafe { verify_client_set_timeouts(client, 1000, 2000) },
            200
        );
        Fixture {
            client: client as usize,
            reply,
        }
    })
}

fn text(pointer: *const c_char) -> String {
    assert!(!pointer.is_null());
    // SAFETY: the library returns NUL-terminated strings valid for this read.
    unsafe { CStr::from_ptr(pointer) }
        .to_string_lossy()
        .into_owned()
}

const POINTERS: &[&str] = &[
    "",
    "/code",
    "/message",
    "/data",
    "/data/bulletin",
    "/data/updated_at",
    "/data/remark",
    "/data/api_password",
    "/data/a/0",
];

fuzz_target!(|input: &[u8]| {
    let fixture = fixture();
    *fixture.reply.lock().unwrap() = input.to_vec();
    let client = fixture.client as *const VerifyClient;
    let mut reply = ptr::null_mut();
    // SAFETY: a live client and a valid out-pointer.
    let code = unsafe { verify_get_bulletin(client, &mut reply) };
    // SAFETY: every code has a static description.
    let _ = text(unsafe { verify_code_describe(code) });
    if code < 0 {
        // SAFETY: no arguments.
        let message = text(unsafe { verify_last_error_message() });
        assert!(
            !message.is_empty(),
            "a local failure ({code}) without a message"
        );
        let secret_in_input = input
            .windows(API_PASSWORD.len())
            .any(|w| w == API_PASSWORD.as_bytes());
        assert!(
            secret_in_input || !message.contains(API_PASSWORD),
            "the session secret in an error message: {message}"
        );
    }
    if reply.is_null() {
        return;
    }
    // SAFETY: `reply` is a live reply until verify_reply_free below; strings borrowed from it
    // are read before that.
    unsafe {
        assert_eq!(verify_reply_code(reply), code);
        let _ = text(verify_reply_message(reply));
        for pointer in POINTERS {
            let pointer = CString::new(*pointer).unwrap();
            let mut s = ptr::null();
            if verify_reply_str(reply, pointer.as_ptr(), &mut s) == 0 {
                let _ = text(s);
            }
            let mut j = ptr::null();
            if verify_reply_json(reply, pointer.as_ptr(), &mut j) == 0 {
                let _ = text(j);
            }
            let mut i = 0i64;
            let _ = verify_reply_int(reply, pointer.as_ptr(), &mut i);
            let mut b = 0i32;
            let _ = verify_reply_bool(reply, pointer.as_ptr(), &mut b);
        }
        // The Init reply's secret is never handed to the host.
        let secret = CString::new("/data/api_password").unwrap();
        let mut s = ptr::null();
        if verify_reply_str(reply, secret.as_ptr(), &mut s) == 0 {
            let value = text(s);
            assert!(
                value != API_PASSWORD
                    || input
                        .windows(API_PASSWORD.len())
                        .any(|w| w == API_PASSWORD.as_bytes())
            );
        }
        verify_reply_free(reply);
    }
});
