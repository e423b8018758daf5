//! Sandbox memory under sustained load (README "Limits", BENCHMARKS.md "Sandbox memory"):
//! the binary serves 1,000,000 Handle requests over loopback keep-alive connections and its
//! resident set size is read from /proc after 100k and after 1M. Ignored by default (it
//! takes about a minute in release); `sandbox/bench/memory.sh` runs it and writes the
//! figures into BENCHMARKS.md.

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rc4::{KeyInit, Rc4, StreamCipher};

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_verify-sandbox");
const PW: &str = "BENCHpw0123456789abcdefghijklmno";
const THREADS: usize = 2;

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

fn request(ts: i64) -> Vec<u8> {
    let mut data = b"action=GetBulletin".to_vec();
    let mut c = Rc4::<rc4::consts::U32>::new_from_slice(PW.as_bytes()).expect("key");
    c.apply_keystream(&mut data);
    let data = hex::encode_upper(data);
    let sign = common::handle_sign(PW, &ts.to_string(), &data);
    let body = format!("TimeStamp={ts}&Data={data}&Sign={sign}");
    format!(
        "POST /api/verify/{PW} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64
}

/// Sends `n` requests on one kept-alive connection, reading each reply.
fn drive(port: u16, n: usize) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_nodelay(true).expect("nodelay");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut req = request(now());
    let mut buf = vec![0u8; 8192];
    for i in 0..n {
        if i % 20_000 == 0 {
            req = request(now());
        }
        s.write_all(&req).expect("write");
        // Read one reply: headers, then Content-Length bytes.
        let mut got = Vec::new();
        loop {
            let k = s.read(&mut buf).expect("read");
            assert!(k > 0, "closed");
            got.extend_from_slice(&buf[..k]);
            if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .expect("content-length");
                if got.len() >= end + 4 + len {
                    assert!(head.starts_with("http/1.1 200"), "{head}");
                    break;
                }
            }
        }
    }
}

fn phase(port: u16, total: usize) {
    let per = total / THREADS;
    let handles: Vec<_> = (0..THREADS)
        .map(|_| std::thread::spawn(move || drive(port, per)))
        .collect();
    for h in handles {
        h.join().expect("driver");
    }
}

#[test]
#[ignore = "a minute of load: run by sandbox/bench/memory.sh"]
fn rss_stays_flat_from_100k_to_1m_requests() {
    let dir = std::env::temp_dir().join(format!("verify-sandbox-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let fixtures = dir.join("f.json");
    std::fs::write(
        &fixtures,
        format!(r#"{{"programs":[{{"app_id":"1","app_key":"K","api_passwords":["{PW}"]}}]}}"#),
    )
    .expect("fixtures");
    let mut child = Command::new(BIN)
        .args(["--fixtures", fixtures.to_str().expect("path")])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("first line");
    let port: u16 = line
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port");
    let pid = child.id();
    let start = rss_kib(pid);
    let t = Instant::now();
    phase(port, 100_000);
    let at_100k = rss_kib(pid);
    let t_100k = t.elapsed();
    phase(port, 900_000);
    let at_1m = rss_kib(pid);
    let t_1m = t.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    println!("sandbox_memory rss_start_kib={start}");
    println!(
        "sandbox_memory rss_100k_kib={at_100k} secs_100k={:.1}",
        t_100k.as_secs_f64()
    );
    println!(
        "sandbox_memory rss_1m_kib={at_1m} secs_1m={:.1}",
        t_1m.as_secs_f64()
    );
    // Flat: 900k more requests add less than 8 MiB (the log ring is full after 10k).
    assert!(
        at_1m < at_100k + 8 * 1024,
        "RSS grew from {at_100k} KiB to {at_1m} KiB"
    );
}
