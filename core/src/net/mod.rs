//! The connection code: how one form POST reaches the service, from the base URL to the
//! bytes on a socket.
//!
//! Each file depends only on those listed before it:
//! - [`trust`]: what a client trusts (Mozilla's roots, the system's store, PEM roots, pins),
//!   a setting of the client ([`crate::Options::trust`]) that the TLS step applies;
//! - [`der`]: the few DER elements read of a certificate (for the TLS checks and the
//!   doctor);
//! - [`buffers`]: a connection's input and output buffers, wiped when they are freed;
//! - [`url`]: base URLs of the service, parsed in full when a client is made;
//! - [`resolve`]: name resolution (IP literals, fixed addresses, a cache of recent lookups,
//!   lookups on threads of their own);
//! - [`tls`]: the TLS step of a connection and certificate pinning, applying what a client
//!   trusts ([`trust`]);
//! - [`tcp`]: the TCP transport under every connection (the request in one write, the
//!   socket's options);
//! - [`addresses`]: the addresses of the winning line's name, remembered across starts in
//!   the state folder;
//! - [`race`]: racing connection attempts across every address of every base URL (Happy
//!   Eyeballs v2);
//! - [`connect`]: a client's new direct connections, raced, with the winning line
//!   remembered;
//! - [`proxy`]: the client's proxy setting, and a proxy shown without credentials;
//! - [`transport`]: one form POST (the HTTP agent, timeouts, the body cap, the `Date`
//!   header), over kept-alive connections made by [`connect`] or through a proxy.
//!
//! The client ([`crate::Client`]) and the doctor ([`crate::diagnose()`]) use [`transport`],
//! [`url`] and [`tls`]; the three are public as `verify_core::transport`, `verify_core::url`
//! and `verify_core::tls`.

pub(crate) mod addresses;
pub(crate) mod buffers;
pub(crate) mod connect;
pub(crate) mod der;
pub(crate) mod proxy;
pub(crate) mod race;
pub(crate) mod resolve;
pub(crate) mod tcp;
pub mod tls;
pub mod transport;
pub(crate) mod trust;
pub mod url;
