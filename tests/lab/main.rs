//! The network lab (docs/network-lab.md): real TCP, DNS and TLS between network
//! namespaces, through a user-space packet relay that adds latency, bandwidth limits,
//! stalls, black holes and resets, with dnsmasq as the name server and the sandbox behind
//! it. One lab per test binary (`lab::lab()`), a slot per test.
//!
//! - `selftest`: the lab does what it says (a configured round trip is what a connect and a
//!   DNS query measure; a black hole drops SYNs while ARP answers; a stall holds traffic and
//!   lets it go; a reset resets; a slow name server answers late; a rate limits).
//! - `racing`: the bounds of a licensed program's start (round trips of a cold
//!   start, a black-holed primary with a mirror, a dual-stack name with IPv6 black-holed, the
//!   remembered winner, a slow name server within the deadline).
//! - `keeper`: the keeper through a 30 s stall and a 3 s round-trip spike.
//! - `figures`: the table of BENCHMARKS.md's network lab section (`benches/lab.sh`).
//! - `cancel`: a cancel stops a call within 50 ms from C, C++, C# and Python on a black-holed line,
//!   a slow name server, a stalled TLS handshake and a server that never answers.
//! - `doctor`: `verify-doctor` names a black-holed primary beside a healthy mirror, a slow
//!   name server and a name that does not resolve, each by its step and on its first line
//!   in three languages; `doctor_causes`: a hosts file pointing elsewhere, a TLS-intercepting
//!   proxy (mitmproxy), a gateway's 502 (nginx), stored files of another machine.
//!
//! Needs root (namespaces), python3, iproute2, dnsmasq, ethtool and libcurl's headers, and
//! for the doctor's causes nginx and mitmproxy: `scripts/install-deps.sh python3 iproute2
//! dnsmasq ethtool libcurl-dev nginx mitmproxy`. Without them the
//! tests fail and say why.

#[path = "../common/mod.rs"]
mod common;

mod cancel;
mod doctor;
mod doctor_causes;
mod figures;
mod keeper;
mod lab;
mod racing;
mod selftest;
