//! codec_cost: the reference of the benchmark's per-byte row (benches/run.sh, row 12): the
//! instructions per byte of the `rc4` and `hex` crates themselves, used exactly as
//! `core/src/wire.rs` (`encrypt_data`) uses them: the plaintext copied to a `Vec`, the key
//! cycled to 256 bytes, `Rc4<U256>` over the bytes, the cycled key wiped, `hex::encode_upper`.
//!
//!   cargo build --release -p verify-core --example codec_cost
//!   target/release/examples/codec_cost S N
//!
//! encodes N times the plaintext of a `GetVariable` with a name of S letters `V`
//! (`action=GetVariable&Name=VV..`), with a 32-byte key like a session secret. run.sh runs it
//! under callgrind for S = 1 and S = 16,384 with the same N: the difference of the two totals
//! over N × 16,383 is the codec's cost per name byte (everything else is the same in both).

use std::hint::black_box;

use rc4::cipher::{KeyInit, StreamCipher};
use rc4::consts::U256;
use rc4::Rc4;

/// `wire::encrypt_data`, with the crates called the same way.
fn encrypt_data(api_password: &str, plaintext: &str) -> String {
    let mut bytes = plaintext.as_bytes().to_vec();
    let key = api_password.as_bytes();
    let mut full = [0u8; 256];
    for (slot, byte) in full.iter_mut().zip(key.iter().cycle()) {
        *slot = *byte;
    }
    let mut cipher = Rc4::<U256>::new(&full.into());
    cipher.apply_keystream(&mut bytes);
    zeroize::Zeroize::zeroize(&mut full);
    hex::encode_upper(bytes)
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
    let key = "K7x9Qm2LpR4tW8zN3vB6yH1cF5dJ0gSa";
    let mut total = 0usize;
    for _ in 0..calls {
        total += black_box(encrypt_data(black_box(key), black_box(&plaintext))).len();
    }
    println!("codec name_bytes={size} calls={calls} hex_bytes={total}");
}
