//! codec_cost: the reference of the benchmark's per-byte row (benches/run.sh, row 12): the
//! instructions per byte of the `rc4` and hex crates themselves (hex: `const-hex`, which
//! verify-core imports as `hex`), through their fastest APIs: a fresh `Rc4` over the
//! plaintext's bytes (`apply_keystream`) and `hex::encode_to_slice_upper` into a buffer of
//! twice the length (`Data` is uppercase). This is what the crates cost;
//! `verify_core::wire::handle_body` uses them the same way, and a request adds to it the MD5
//! of the hex (the `Sign`), the form, the copies into the connection and the reply.
//!
//!   cargo build --release -p verify-core --example codec_cost
//!   target/release/examples/codec_cost S N
//!
//! encodes N times the plaintext of a `GetVariable` with a name of S letters `V`
//! (`action=GetVariable&Name=VV..`), with a 32-byte key like a session secret. run.sh runs it
//! under callgrind for S = 1 and S = 16,384 with the same N: the difference of the two totals
//! over N × 16,383 is the crates' cost per name byte (everything else is the same in both).
//!
//!   target/release/examples/codec_cost S N body
//!
//! builds instead, N times, what verify-core makes of that request before sending it: the
//! plaintext (`wire::plaintext`) and the whole Handle body (`wire::handle_body`: `Data`,
//! `Sign` and the form), to set against the reference the same way.

use std::hint::black_box;

use rc4::cipher::{KeyInit, StreamCipher};
use rc4::consts::U32;
use rc4::Rc4;
use verify_core::wire;

/// RC4 then uppercase hex, straight through the crates.
fn encrypt_data(key: &[u8; 32], plaintext: &str, bytes: &mut Vec<u8>, hex: &mut Vec<u8>) -> usize {
    bytes.clear();
    bytes.extend_from_slice(plaintext.as_bytes());
    let mut cipher = Rc4::<U32>::new(key.into());
    cipher.apply_keystream(bytes);
    hex.resize(bytes.len() * 2, 0);
    if hex::encode_to_slice_upper(&bytes[..], &mut hex[..]).is_err() {
        return 0;
    }
    hex.len()
}

/// The plaintext and the Handle body, as `Client` builds them.
fn handle_body(key: &[u8; 32], name: &str) -> usize {
    let key = std::str::from_utf8(key).unwrap_or("K");
    let plaintext = zeroize::Zeroizing::new(wire::plaintext("GetVariable", &[("Name", name)]));
    match wire::handle_body(key, &plaintext, "1700000000") {
        Ok(body) => black_box(body.as_slice()).len(),
        Err(_) => 0,
    }
}

fn count(text: Option<String>) -> usize {
    match text.as_deref().map(str::parse::<usize>) {
        Some(Ok(n)) if n > 0 => n,
        _ => {
            eprintln!("usage: codec_cost S N   (S name bytes, N encodings; both positive)");
            std::process::exit(2);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let size = count(args.next());
    let calls = count(args.next());
    let plaintext = format!("action=GetVariable&Name={}", "V".repeat(size));
    let key = b"K7x9Qm2LpR4tW8zN3vB6yH1cF5dJ0gSa";
    if args.next().as_deref() == Some("body") {
        let name = "V".repeat(size);
        let total: usize = (0..calls)
            .map(|_| handle_body(black_box(key), black_box(&name)))
            .sum();
        println!("body name_bytes={size} calls={calls} body_bytes={total}");
        return;
    }
    let (mut bytes, mut hex) = (Vec::new(), Vec::new());
    let mut total = 0usize;
    for _ in 0..calls {
        total += black_box(encrypt_data(
            black_box(key),
            black_box(&plaintext),
            &mut bytes,
            &mut hex,
        ));
    }
    println!("codec name_bytes={size} calls={calls} hex_bytes={total}");
}
