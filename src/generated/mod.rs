//! Files generated from verify-core's tables by `tests/generated.rs`; do not edit them.
//! Regenerate: `VERIFY_BLESS=1 cargo test --test generated`.

mod actions;
// The code constants are for the header; the library reads verify-core's table.
#[allow(dead_code)]
mod codes;
