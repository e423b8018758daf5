//! # verify-core
//!
//! The protocol core of the `verify` licensing client: a safe, blocking Rust client of the
//! licensing verification service (the Init handshake, the card and account logins, the
//! heartbeat and every other action). The C ABI (`libverify.so`, `verify.dll`,
//! `libverify.dylib`, `libverify.a`, header `include/verify.h`) is the `verify` crate at
//! the repository root, a thin layer over this one. This crate has no `unsafe` code.
//!
//! ```no_run
//! use verify_core::{Client, SessionKind};
//!
//! let client = Client::new("http://127.0.0.1:8080", "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")?;
//! let login = client.single_login("DEMO-CARD-0000-0001", "3F2A9C0B7D1E4F56", None)?;
//! let token = login.token().unwrap_or_default();
//! let beat = client.heartbeat(token, SessionKind::Card, None)?;
//! println!("valid until {}", beat.expire_at().unwrap_or("?"));
//! # Ok::<(), verify_core::Error>(())
//! ```
//!
//! The layers, each depending only on those below it:
//! - [`wire`]: plaintext codec, RC4 + hex, MD5 signatures (pure functions);
//! - [`transport`]: one form POST with timeouts, a body cap and kept-alive connections,
//!   over the rest of the connection code ([`tls`], [`url`], and the private racing, name
//!   resolution and TCP of `core/src/net/`);
//! - [`Client`]: Init, Handle, the session secret, re-init, the clock offset, one deadline
//!   per host call;
//! - [`actions`]: the action table with its typed calls and reply views, the generic
//!   [`Client::call`] and the social wait;
//! - [`keeper`]: the background heartbeat with events ([`Keeper`]);
//! - [`diagnose()`]: the doctor, every step a login depends on in one call, as a
//!   [`Report`] (JSON and text, redacted);
//! - [`codes`]: the table of result codes; [`machine_code`] and [`machine_code_with`]: the
//!   machine code (v1, and v2 with [`machine_check`]'s explanation), [`machine_virtualization`].

#![forbid(unsafe_code)]

pub mod actions;
mod cancel;
mod client;
pub mod codes;
pub mod diagnose;
pub mod error;
#[cfg(any(fuzzing, test))]
#[doc(hidden)]
pub mod fuzz;
pub mod keeper;
pub mod language;
mod log;
mod machine;
mod net;
pub mod offline;
pub mod options;
mod reply;
mod request;
mod session;
mod state;
mod util;
pub mod wire;

pub use actions::{
    Bulletin, CardInfo, CardLogin, Heartbeat, LatestVersion, PasswordChanged, Rebind, Recharge,
    Registration, Renewal, SessionKind, SocialRegistration, SocialStart, UserInfo, UserSession,
    Variable, Variables,
};
pub use cancel::{CancelToken, Watch};
pub use client::{Client, MAX_REQUEST_BYTES};
pub use codes::{describe, user_message};
pub use diagnose::{diagnose, diagnose_client, diagnose_with, DiagnoseOptions, Report};
pub use error::{Error, ErrorKind, HttpFacts};
pub use keeper::{Event, EventKind, Keeper, KeeperOptions, KeeperState, KeeperStatus};
pub use language::Language;
pub use machine::{
    component_weight, machine_check, machine_code, machine_code_with, machine_virtualization,
    ComponentCheck, ComponentKind, ComponentState, Components, MachineCheck, MachineOptions,
    MachineVersion, Outcome, Sign, SignKind, Virtualization, MACHINE_CODE_LEN,
};
pub use net::{tls, transport, url};
pub use options::{LogHook, LogLevel, Options, ProxyChoice, StateFolder};
pub use reply::{type_name, OfflineInfo, Reply};
pub use request::ActionRequest;
pub use tls::Trust;
pub use util::wiped;

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
