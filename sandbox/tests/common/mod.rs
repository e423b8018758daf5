//! Shared helpers for the black-box HTTP tests of `verify-sandbox`.
//!
//! * one sandbox per test binary (`sb()`), started lazily;
//! * every test creates its own program (`App::new`) with a unique AppId, so tests run in
//!   parallel without sharing cards, accounts, faults or statistics;
//! * the sandbox clock is global: tests that move it take the exclusive side of a
//!   read/write lock (`App::exclusive`), every other test holds the shared side
//!   (`App::new`), and the exclusive guard puts the clock offset back to 0 when it drops;
//! * a tiny protocol client written directly with rc4, md-5, hex and ureq.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use md5::{Digest, Md5};
use rc4::{consts, KeyInit, Rc4, StreamCipher};
use serde_json::{json, Value};
use verify_sandbox::{Config, Fixtures, Sandbox};

// ---------------------------------------------------------------------------------------
// The sandbox of this test binary
// ---------------------------------------------------------------------------------------

static SANDBOX: OnceLock<Sandbox> = OnceLock::new();

/// The sandbox shared by every test of this binary.
pub fn sb() -> &'static Sandbox {
    SANDBOX.get_or_init(|| Sandbox::start(Config::default()).expect("start sandbox"))
}

pub fn base() -> String {
    sb().base_url()
}

/// Sandbox clock, unix seconds.
pub fn now() -> i64 {
    sb().now()
}

pub fn system_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64
}

static CLOCK_LOCK: RwLock<()> = RwLock::new(());

pub enum ClockGuard {
    Shared(SharedClock),
    Exclusive(ExclusiveClock),
}

thread_local! {
    /// Shared guards held by this thread: a second one is a no-op (a recursive read lock
    /// would deadlock behind a waiting writer).
    static SHARED_HELD: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

pub struct SharedClock(Option<RwLockReadGuard<'static, ()>>);

impl Drop for SharedClock {
    fn drop(&mut self) {
        SHARED_HELD.with(|h| h.set(h.get() - 1));
        self.0.take();
    }
}

/// Held by tests that move the sandbox clock. Dropping it sets the offset back to 0.
pub struct ExclusiveClock(Option<RwLockWriteGuard<'static, ()>>);

impl Drop for ExclusiveClock {
    fn drop(&mut self) {
        sb().set_clock_offset(0);
        self.0.take();
    }
}

pub fn shared_clock() -> ClockGuard {
    let held = SHARED_HELD.with(|h| {
        let n = h.get();
        h.set(n + 1);
        n
    });
    let g = if held == 0 {
        Some(CLOCK_LOCK.read().unwrap_or_else(|e| e.into_inner()))
    } else {
        None
    };
    ClockGuard::Shared(SharedClock(g))
}

pub fn exclusive_clock() -> ClockGuard {
    assert_eq!(
        SHARED_HELD.with(|h| h.get()),
        0,
        "take the exclusive clock before any shared one"
    );
    let g = CLOCK_LOCK.write().unwrap_or_else(|e| e.into_inner());
    ClockGuard::Exclusive(ExclusiveClock(Some(g)))
}

// ---------------------------------------------------------------------------------------
// Unique names
// ---------------------------------------------------------------------------------------

static COUNTER: AtomicU64 = AtomicU64::new(1);

pub fn next_n() -> u64 {
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// A fresh AppId (letters and digits only).
pub fn unique_app_id() -> String {
    format!("T{}A{}", std::process::id() % 10000, next_n())
}

/// A fresh 32-character AppKey (uppercase letters and digits).
pub fn unique_app_key() -> String {
    let s = format!("KEY{:029}", next_n() * 7919 + 13);
    assert_eq!(s.len(), 32);
    s
}

/// A fresh card key `XXXX-XXXX-XXXX-XXXX`.
pub fn unique_card_key() -> String {
    let h = format!("{:016X}", 0x7E57_0000_0000_0000u64 + next_n());
    format!("{}-{}-{}-{}", &h[0..4], &h[4..8], &h[8..12], &h[12..16])
}

/// A fresh machine code.
pub fn unique_mac() -> String {
    format!("MAC{:013}", next_n())
}

// ---------------------------------------------------------------------------------------
// Codec
// ---------------------------------------------------------------------------------------

pub fn md5_hex(s: &[u8]) -> String {
    let mut h = Md5::new();
    h.update(s);
    hex::encode(h.finalize())
}

/// RC4 with the `rc4` crate (key sizes used by the protocol and the vectors).
pub fn rc4(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut buf = data.to_vec();
    macro_rules! run {
        ($n:ty) => {{
            let mut c = Rc4::<$n>::new_from_slice(key).expect("rc4 key");
            c.apply_keystream(&mut buf);
        }};
    }
    match key.len() {
        1 => run!(consts::U1),
        5 => run!(consts::U5),
        7 => run!(consts::U7),
        8 => run!(consts::U8),
        16 => run!(consts::U16),
        32 => run!(consts::U32),
        n => panic!("rc4 helper: unsupported key length {n}"),
    }
    buf
}

pub fn init_sign(app_id: &str, app_key: &str, ts: &str) -> String {
    md5_hex(format!("{app_id}{app_key}{ts}{app_key}").as_bytes())
}

pub fn handle_sign(pw: &str, ts: &str, data: &str) -> String {
    md5_hex(format!("{pw}{ts}{data}").as_bytes())
}

/// Percent-encode everything except A-Z a-z 0-9 - _ . ~
pub fn pct(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' || b == b'~' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{:02X}", b));
        }
    }
    out
}

/// The plaintext parameter string, pairs in the given order.
pub fn encode_plain(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", pct(k), pct(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Uppercase hex of RC4(pw, plaintext).
pub fn encrypt_hex(pw: &str, plaintext: &[u8]) -> String {
    hex::encode_upper(rc4(pw.as_bytes(), plaintext))
}

// ---------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------

pub fn agent_config() -> ureq::config::ConfigBuilder<ureq::typestate::AgentScope> {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(20)))
}

pub fn new_agent() -> ureq::Agent {
    agent_config().build().into()
}

/// An agent that does not keep connections (every request on a new connection).
pub fn fresh_agent() -> ureq::Agent {
    agent_config().max_idle_connections(0).build().into()
}

pub fn agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(new_agent)
}

#[derive(Debug, Clone)]
pub struct Raw {
    pub status: u16,
    pub content_type: String,
    pub date: Option<String>,
    pub body: String,
}

impl Raw {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| {
            panic!(
                "reply is not JSON ({e}): status {} body {:?}",
                self.status, self.body
            )
        })
    }
}

fn to_raw(mut resp: ureq::http::Response<ureq::Body>) -> Result<Raw, ureq::Error> {
    let status = resp.status().as_u16();
    let h = |n: &str| {
        resp.headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.to_string())
    };
    let content_type = h("content-type").unwrap_or_default();
    let date = h("date");
    let body = resp.body_mut().read_to_string()?;
    Ok(Raw {
        status,
        content_type,
        date,
        body,
    })
}

fn form_body(form: &[(&str, &str)]) -> String {
    form.iter()
        .map(|(k, v)| format!("{}={}", pct(k), pct(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// POST a form to `path` (relative to the base URL) with extra headers, on `agent`.
pub fn try_post_form_with(
    agent: &ureq::Agent,
    base_url: &str,
    path: &str,
    headers: &[(&str, &str)],
    form: &[(&str, &str)],
) -> Result<Raw, ureq::Error> {
    let mut req = agent.post(format!("{base_url}{path}"));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req
        .header("Content-Type", "application/x-www-form-urlencoded")
        .send(form_body(form))?;
    to_raw(resp)
}

pub fn try_post_form(
    path: &str,
    headers: &[(&str, &str)],
    form: &[(&str, &str)],
) -> Result<Raw, ureq::Error> {
    try_post_form_with(agent(), &base(), path, headers, form)
}

pub fn post_form(path: &str, headers: &[(&str, &str)], form: &[(&str, &str)]) -> Raw {
    try_post_form(path, headers, form).unwrap_or_else(|e| panic!("POST {path}: {e}"))
}

/// POST raw bytes with a content type.
pub fn post_body(path: &str, content_type: &str, body: Vec<u8>) -> Raw {
    let resp = agent()
        .post(format!("{}{path}", base()))
        .header("Content-Type", content_type)
        .send(&body[..])
        .unwrap_or_else(|e| panic!("POST {path}: {e}"));
    to_raw(resp).expect("read body")
}

pub fn get(path: &str) -> Raw {
    let resp = agent()
        .get(format!("{}{path}", base()))
        .call()
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    to_raw(resp).expect("read body")
}

/// Send one raw HTTP/1.1 request over a new TCP connection and read the reply until close.
pub fn raw_http(request: &[u8]) -> String {
    let addr = base().trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request).expect("write");
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

// ---------------------------------------------------------------------------------------
// Protocol client
// ---------------------------------------------------------------------------------------

pub fn code(v: &Value) -> i64 {
    v["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no integer code in {v}"))
}

/// Init with the sandbox clock's TimeStamp.
pub fn init(app_id: &str, app_key: &str) -> (i64, Value) {
    let ts = now().to_string();
    let v = init_at(app_id, app_key, &ts);
    (code(&v), v)
}

pub fn init_at(app_id: &str, app_key: &str, ts: &str) -> Value {
    let sign = init_sign(app_id, app_key, ts);
    init_form(&[
        ("AppId", app_id),
        ("AppKey", app_key),
        ("TimeStamp", ts),
        ("Sign", &sign),
    ])
}

pub fn init_form(form: &[(&str, &str)]) -> Value {
    let r = post_form("/api/verify", &[], form);
    assert_eq!(r.status, 200, "service replies are HTTP 200: {r:?}");
    r.json()
}

/// Seal a plaintext: (TimeStamp, Data, Sign) with the sandbox clock.
pub fn seal(pw: &str, plaintext: &[u8]) -> (String, String, String) {
    let ts = now().to_string();
    let data = encrypt_hex(pw, plaintext);
    let sign = handle_sign(pw, &ts, &data);
    (ts, data, sign)
}

/// Handle with pairs (ApiPassword in the X-Api-Password header, path `/api/verify`).
pub fn handle(pw: &str, pairs: &[(&str, &str)]) -> Value {
    handle_bytes(pw, encode_plain(pairs).as_bytes())
}

/// Handle with a raw plaintext string.
pub fn handle_plain(pw: &str, plaintext: &str) -> Value {
    handle_bytes(pw, plaintext.as_bytes())
}

pub fn handle_bytes(pw: &str, plaintext: &[u8]) -> Value {
    let r = handle_raw(pw, plaintext);
    assert_eq!(r.status, 200, "service replies are HTTP 200: {r:?}");
    r.json()
}

pub fn handle_raw(pw: &str, plaintext: &[u8]) -> Raw {
    let (ts, data, sign) = seal(pw, plaintext);
    post_form(
        "/api/verify",
        &[("X-Api-Password", pw)],
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
    )
}

/// Handle form POST with everything explicit.
pub fn handle_form(path: &str, headers: &[(&str, &str)], form: &[(&str, &str)]) -> Value {
    let r = post_form(path, headers, form);
    assert_eq!(r.status, 200, "service replies are HTTP 200: {r:?}");
    r.json()
}

/// Retry `f(now)` until the sandbox clock did not tick while it ran (for ±300 s boundaries).
pub fn at_stable_second<T>(f: impl Fn(i64) -> T) -> T {
    for _ in 0..10 {
        let n1 = now();
        let out = f(n1);
        if now() == n1 {
            return out;
        }
    }
    panic!("the sandbox clock kept ticking during every attempt");
}

// ---------------------------------------------------------------------------------------
// Times (Beijing, UTC+08:00)
// ---------------------------------------------------------------------------------------

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Unix seconds → `YYYY-MM-DD HH:mm:ss` Beijing time.
pub fn bj(unix: i64) -> String {
    let t = unix + 8 * 3600;
    let days = t.div_euclid(86400);
    let secs = t.rem_euclid(86400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        y,
        m,
        d,
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// `YYYY-MM-DD HH:mm:ss` Beijing time → unix seconds.
pub fn parse_bj(s: &str) -> i64 {
    let bad = || panic!("not a `YYYY-MM-DD HH:mm:ss` time: {s:?}");
    if s.len() != 19
        || &s[4..5] != "-"
        || &s[7..8] != "-"
        || &s[10..11] != " "
        || &s[13..14] != ":"
        || &s[16..17] != ":"
    {
        bad();
    }
    let n = |a: usize, b: usize| -> i64 { s[a..b].parse().unwrap_or_else(|_| bad()) };
    let days = days_from_civil(n(0, 4), n(5, 7), n(8, 10));
    days * 86400 + n(11, 13) * 3600 + n(14, 16) * 60 + n(17, 19) - 8 * 3600
}

/// Assert a `YYYY-MM-DD HH:mm:ss` string is within `tol` seconds of `expected` (unix).
#[track_caller]
pub fn assert_time_near(got: &Value, expected: i64, tol: i64) {
    let s = got
        .as_str()
        .unwrap_or_else(|| panic!("expected a time string, got {got}"));
    let t = parse_bj(s);
    assert!(
        (t - expected).abs() <= tol,
        "time {s} is {} s away from expected {} (tolerance {tol} s)",
        t - expected,
        bj(expected)
    );
}

pub const DAY: i64 = 86400;
pub const FAR_FUTURE: &str = "2099-12-31 23:59:59";

#[track_caller]
pub fn assert_token(v: &Value) {
    let t = v
        .as_str()
        .unwrap_or_else(|| panic!("token is not a string: {v}"));
    assert_eq!(t.len(), 40, "token length: {t}");
    assert!(
        t.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
        "token charset [a-z0-9]: {t}"
    );
}

#[track_caller]
pub fn assert_code(v: &Value, expected: i64) {
    assert_eq!(
        v["code"].as_i64(),
        Some(expected),
        "expected code {expected}, reply {v}"
    );
    assert!(v["message"].is_string(), "message must be a string: {v}");
    if expected != 200 && expected != 201 && v.get("data").is_some() {
        // data is null on most errors; some carry data.remark
        assert!(v["data"].is_null() || v["data"].is_object(), "data: {v}");
    }
}

#[track_caller]
pub fn assert_ok(v: &Value) -> &Value {
    assert_eq!(v["code"].as_i64(), Some(200), "expected success, reply {v}");
    assert!(v["data"].is_object(), "success data must be an object: {v}");
    &v["data"]
}

// ---------------------------------------------------------------------------------------
// Test programs
// ---------------------------------------------------------------------------------------

/// Deep-merge `extra` into `base` (objects merged, everything else replaced).
pub fn merge(base: &mut Value, extra: &Value) {
    match (base, extra) {
        (Value::Object(b), Value::Object(e)) => {
            for (k, v) in e {
                merge(b.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (b, e) => *b = e.clone(),
    }
}

pub fn load(v: Value) {
    let f =
        Fixtures::from_value(v.clone()).unwrap_or_else(|e| panic!("fixtures rejected ({e}): {v}"));
    sb().load(f)
        .unwrap_or_else(|e| panic!("load rejected ({e}): {v}"));
}

/// A program of its own, initialised (api password ready).
pub struct App {
    pub id: String,
    pub key: String,
    pub pw: String,
    _guard: Option<ClockGuard>,
}

impl App {
    /// A program with default settings; holds the shared side of the clock lock.
    pub fn new() -> App {
        Self::with(json!({}))
    }

    /// A program with settings merged over the defaults; holds the shared clock lock.
    pub fn with(extra: Value) -> App {
        let g = shared_clock();
        Self::create(extra, Some(g))
    }

    /// A program for a test that moves the clock; holds the exclusive clock lock.
    pub fn exclusive(extra: Value) -> App {
        let g = exclusive_clock();
        Self::create(extra, Some(g))
    }

    /// A second program for the same test (no extra lock).
    pub fn other(&self, extra: Value) -> App {
        Self::create(extra, None)
    }

    fn create(extra: Value, guard: Option<ClockGuard>) -> App {
        let id = unique_app_id();
        let key = unique_app_key();
        let mut p = json!({
            "app_id": id,
            "app_key": key,
            "status": "approved",
            "bulletin": format!("bulletin of {id}"),
            "variables": {"greeting": "hello", "app": id},
            "version": {"version": "1.2.0", "changelog": "fixes", "download_url": "https://example.invalid/dl", "force_update": false}
        });
        merge(&mut p, &extra);
        load(json!({"programs": [p]}));
        let (c, v) = init(&id, &key);
        let pw = if c == 200 {
            v["data"]["api_password"]
                .as_str()
                .expect("api_password")
                .to_string()
        } else {
            String::new() // for programs that are not approved
        };
        App {
            id,
            key,
            pw,
            _guard: guard,
        }
    }

    pub fn call(&self, pairs: &[(&str, &str)]) -> Value {
        handle(&self.pw, pairs)
    }

    pub fn plain(&self, plaintext: &str) -> Value {
        handle_plain(&self.pw, plaintext)
    }

    /// Load a card of this program; `spec` is merged over a 30-day duration card.
    pub fn card(&self, spec: Value) -> String {
        let key = spec["card"]
            .as_str()
            .map(|s| s.to_string())
            .unwrap_or_else(unique_card_key);
        let mut c = json!({
            "app_id": self.id, "card": key, "type_name": "月卡",
            "kind": "duration", "duration": 30, "duration_type": "day", "state": "unused"
        });
        merge(&mut c, &spec);
        if c["kind"] == "count" {
            let o = c.as_object_mut().unwrap();
            o.remove("duration");
            o.remove("duration_type");
        }
        load(json!({"cards": [c]}));
        key
    }

    pub fn day_card(&self, days: i64) -> String {
        self.card(json!({"duration": days, "type_name": "天卡"}))
    }

    pub fn hour_card(&self, hours: i64) -> String {
        self.card(json!({"duration": hours, "duration_type": "hour", "type_name": "时卡"}))
    }

    pub fn count_card(&self, total: i64, used: i64) -> String {
        self.card(json!({"kind": "count", "total": total, "used": used, "type_name": "次卡"}))
    }

    /// Load an account; `spec` merged over an active, unbound account expiring in 2090.
    pub fn account(&self, username: &str, password: &str, spec: Value) {
        let mut a = json!({
            "app_id": self.id, "username": username, "password": password,
            "device_id": "", "expire_at": "2090-01-01 00:00:00", "status": "active",
            "bind_count": 0, "remark": "", "reason": "", "social_id": null
        });
        merge(&mut a, &spec);
        load(json!({"accounts": [a]}));
    }

    pub fn card_record(&self, card: &str) -> Value {
        sb().card(&self.id, card)
            .unwrap_or_else(|| panic!("card {card} not stored"))
    }

    pub fn account_record(&self, username: &str) -> Option<Value> {
        sb().account(&self.id, username)
    }

    pub fn single_login(&self, card: &str, mac: &str) -> Value {
        self.call(&[("action", "SingleLogin"), ("Card", card), ("Mac", mac)])
    }

    pub fn user_login(&self, user: &str, pwd: &str, mac: &str) -> Value {
        self.call(&[
            ("action", "UserLogin"),
            ("UserName", user),
            ("Password", pwd),
            ("Mac", mac),
        ])
    }

    pub fn heartbeat(&self, token: &str, ty: &str) -> Value {
        self.call(&[("action", "UserHeartbeat"), ("Token", token), ("Type", ty)])
    }

    /// Card login that must succeed; returns the token.
    pub fn card_token(&self, card: &str, mac: &str) -> String {
        let v = self.single_login(card, mac);
        assert_ok(&v)["token"].as_str().expect("token").to_string()
    }

    /// Account login that must succeed; returns the token.
    pub fn user_token(&self, user: &str, pwd: &str, mac: &str) -> String {
        let v = self.user_login(user, pwd, mac);
        assert_ok(&v)["token"].as_str().expect("token").to_string()
    }
}
