//! The C ABI: every `extern "C"` function of the library, and the only `unsafe` code.
//!
//! Conventions (DESIGN section 5): the prefix `verify_`; opaque handles with `_new`/`_free`
//! pairs where `_free(NULL)` does nothing; one code space for results; NULL, invalid UTF-8
//! and out-of-range integers give a negative code, never undefined behaviour; each body runs
//! inside `guard`, so no panic crosses the boundary. The items are public so that Rust tests
//! can call the exported functions exactly as a C host does.

// The exported functions take raw pointers from C hosts and are not `unsafe fn`: C cannot
// tell the difference, each checks NULL itself, and each doc comment states the caller's
// contract for the pointers it cannot check (liveness, NUL termination).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod client;
mod codes;
mod guard;
mod keeper;
mod meta;
pub(crate) mod os;
mod reply;

pub use client::*;
pub use codes::*;
pub use guard::MAX_ARG_BYTES;
pub use keeper::*;
pub use meta::*;
pub use reply::*;
