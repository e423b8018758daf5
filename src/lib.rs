//! # verify
//!
//! Client SDK of the licensing verification service: the Init handshake, the card and
//! account logins, the heartbeat and every other action, as a safe Rust API and as a C ABI
//! (`verify.dll`, `libverify.so`, `libverify.dylib`, `libverify.a`; header `include/verify.h`).
//!
//! ```no_run
//! use verify::{Client, SessionKind};
//!
//! let client = Client::new("http://127.0.0.1:8080", "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")?;
//! let login = client.single_login("DEMO-CARD-0000-0001", "3F2A9C0B7D1E4F56", None)?;
//! let beat = client.heartbeat(login.token.as_str(), SessionKind::Card, None)?;
//! println!("valid until {}", beat.expire_at);
//! # Ok::<(), verify::Error>(())
//! ```
//!
//! The layers, each depending only on those below it:
//! - [`wire`]: plaintext codec, RC4 + hex, MD5 signatures (pure functions);
//! - [`transport`]: one form POST with timeouts, a body cap and kept-alive connections;
//! - [`Client`]: Init, Handle, the session secret, re-init and the clock offset;
//! - [`actions`]: the 12 actions with typed replies, and a generic [`Client::call`];
//! - [`keeper`]: the background heartbeat with events ([`Keeper`]);
//! - `ffi`: the C ABI (the only place with `unsafe`).

pub mod actions;
mod cancel;
mod client;
pub mod error;
pub mod ffi;
pub mod keeper;
mod machine;
mod reply;
pub mod transport;
pub mod wire;

pub use actions::{
    Bulletin, Call, CardInfo, CardLogin, CardUses, Heartbeat, LatestVersion, PasswordChanged,
    Rebind, Recharge, Registration, Renewal, SessionKind, SocialPoll, SocialRegistration,
    SocialStart, Token, UserInfo, UserSession, Variable, Variables,
};
pub use cancel::CancelToken;
pub use client::{ActionRequest, Client};
pub use error::{describe, Error, ErrorKind};
pub use keeper::{Event, EventKind, Keeper, KeeperOptions, KeeperState, KeeperStatus};
pub use machine::{machine_code, MACHINE_CODE_LEN};
pub use reply::{FromData, Reply};

/// The crate version, also returned by `verify_version()`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The version of the C ABI, also returned by `verify_abi_version()`. It changes when an
/// exported function's signature or meaning changes incompatibly.
pub const ABI_VERSION: u32 = 1;
