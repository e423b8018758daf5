//! # verify: the C ABI of the verify licensing client
//!
//! Every exported function of `libverify.so`, `verify.dll`, `libverify.dylib` and
//! `libverify.a`, over the safe protocol core `verify-core`; the only `unsafe` code of the
//! project. The header `include/verify.h` is generated from these files by cbindgen
//! (`cargo run -p verify-codegen` regenerates it with the other generated
//! files; a test fails when one is stale).
//!
//! Conventions (docs/architecture.md, "C ABI conventions"): the prefix `verify_`; opaque handles with `_new`/`_free`
//! pairs where `_free(NULL)` does nothing; one code space for results; NULL, invalid UTF-8
//! and out-of-range integers give a negative code, never undefined behaviour; every body runs
//! inside `guard`, so no panic crosses the boundary; every export and callback type uses the
//! `system` calling convention (`stdcall` on 32-bit Windows, the C convention elsewhere),
//! written `VERIFY_CALL` in the header. Files: one concern each.

// The exported functions take raw pointers from C hosts and are not `unsafe fn`: C cannot
// tell the difference, each checks NULL itself, and each doc comment states the caller's
// contract for the pointers it cannot check (liveness, NUL termination).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod cancel;
mod client;
mod client_diagnose;
mod codepage;
mod diagnose;
mod generated;
mod guard;
mod keeper;
mod language;
mod machine;
mod meta;
mod options;
mod reply;

/// The version of the C ABI, also returned by `verify_abi_version()`. It changes when an
/// exported function's signature or meaning changes incompatibly (CHANGELOG.md).
pub const VERIFY_ABI_VERSION: u32 = 2;
