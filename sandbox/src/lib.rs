//! `verify-sandbox`: a local server that implements the licensing verification service
//! (`docs/protocol.md` summarizes it) in full, over http and https, for offline development
//! and for tests. See the README for the command line, the conventions, the fixtures
//! format, the control API and the web console.
//!
//! ```no_run
//! use verify_sandbox::{Config, Fixtures, Sandbox};
//!
//! let sandbox = Sandbox::start(Config::default()).unwrap();
//! sandbox
//!     .load(Fixtures::from_json(r#"{"programs":[{"app_id":"1","app_key":"K"}]}"#).unwrap())
//!     .unwrap();
//! println!("{}", sandbox.base_url());
//! sandbox.stop();
//! ```
//!
//! # Layout
//!
//! One folder per part of the server. Each part imports only from the parts listed above
//! it, never from one below (no circle, no import back up a layer):
//!
//! 1. `wire.rs`, `time.rs`, `fixtures.rs`: the ground. Request decoding, the signatures and
//!    the sandbox's one `md5_hex`, the names of the actions and of their parameters; the
//!    sandbox clock's formats; the fixtures and configuration types.
//! 2. `inspect/`: the protocol inspector. What the log keeps of a request (`detail.rs`), how
//!    secrets are shown (`mask.rs`), and `diagnose/`, one file per thing it checks (HTTP,
//!    form fields, the signature search, RC4 decoding, the action's name, escaping, parameter
//!    names). It reads the store through the view the store lends it (`Known`).
//! 3. `store/`: everything the sandbox remembers. The state (`state.rs`) and its records,
//!    the lock and its save loop (`shared.rs`), the back office, the console's JSON views,
//!    the request log, the fault table and the state file (`persist.rs`).
//! 4. `service/`: the service's dispatch (`mod.rs`: the entry checks, then the action), the
//!    12 actions (`actions/`), the alternate dialect, and what a fault does to a reply.
//! 5. `http/`: the server (accept loop, routing, body cap), the door, the control API, the
//!    console's files and TLS.
//! 6. `lib.rs` (`Sandbox`, this crate's API) and `main.rs` (the command line).

#![forbid(unsafe_code)]

mod fixtures;
mod http;
mod inspect;
mod service;
mod store;
mod time;
mod wire;

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

pub use fixtures::{
    Account, Blacklist, Card, Config, Fixtures, Limits, Program, Tls, VersionInfo, DEFAULT_LOG_SIZE,
};
pub use store::faults::{Fault, FaultKind};
pub use store::{LogEntry, VerificationStats};

/// The request decoding of `wire.rs` (`Data` and the plaintext pairs), for the cargo-fuzz
/// targets of `fuzz/` only: not part of the crate's API.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::wire::{decrypt_data, key_len_ok, Params};
}

use http::{door, server, tls};
use store::Shared;

/// A running sandbox. Stops on [`Sandbox::stop`] or on drop.
pub struct Sandbox {
    shared: Arc<Shared>,
    /// Who may use the control API and the console.
    door: Arc<door::Door>,
    addr: SocketAddr,
    https_addr: Option<SocketAddr>,
    tls: Option<TlsAcceptor>,
    ca_pem: Option<String>,
    stop: Option<watch::Sender<bool>>,
    thread: Option<JoinHandle<()>>,
    persist: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("addr", &self.addr)
            .field("https_addr", &self.https_addr)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// Binds and starts serving on a multi-thread tokio runtime of its own, in a background
    /// thread. Returns once the listeners are bound. With `state_file`, the state is loaded
    /// from it when it exists (the fixtures are then not loaded) and saved after every
    /// change.
    pub fn start(config: Config) -> std::io::Result<Sandbox> {
        let invalid = |e: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, e);
        let token = match &config.token {
            Some(t) => {
                door::token_ok(t).map_err(|e| invalid(format!("token: {e}")))?;
                Some(t.clone())
            }
            None => {
                use std::net::ToSocketAddrs;
                let addrs: Vec<SocketAddr> = (config.host.as_str(), config.port)
                    .to_socket_addrs()?
                    .collect();
                door::exposed(&addrs).then(door::gen_token)
            }
        };
        for h in &config.allowed_hosts {
            let ip = h
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok();
            if !ip && (h.trim_matches('.').is_empty() || h.contains(['/', ':', ' ', '@'])) {
                return Err(invalid(format!(
                    "allowed host {h:?}: give a host name or an address, without scheme or port"
                )));
            }
        }
        let shared = Arc::new(Shared::with(
            config.control,
            config.log_size,
            config.limits.clone(),
            config.state_file.clone(),
        ));
        let door = Arc::new(door::Door {
            token,
            allowed_hosts: config.allowed_hosts.clone(),
        });
        let restored = shared.load_state_file().map_err(invalid)?;
        if !restored {
            if let Some(f) = config.fixtures {
                shared.lock().load(f).map_err(invalid)?;
            }
        }
        let prepared = config.tls.as_ref().map(tls::prepare).transpose()?;
        let (tls, ca_pem) = match prepared {
            Some(p) => (Some(p.acceptor), p.ca_pem),
            None => (None, None),
        };
        let https = tls.clone().map(|t| (t, config.https_port));
        let (addr, https_addr, stop, thread) = serve_in_background(
            Arc::clone(&shared),
            Arc::clone(&door),
            config.host,
            config.port,
            https,
        )?;
        let persist = if shared.persist.is_some() {
            shared.changed();
            let s = Arc::clone(&shared);
            Some(
                std::thread::Builder::new()
                    .name("verify-sandbox-state".to_string())
                    .spawn(move || s.persist_loop())?,
            )
        } else {
            None
        };
        Ok(Sandbox {
            shared,
            door,
            addr,
            https_addr,
            tls,
            ca_pem,
            stop: Some(stop),
            thread: Some(thread),
            persist,
        })
    }

    /// Stops serving, as a server outage: the listener and every connection are closed, but
    /// programs, cards, accounts, sessions and the clock are kept for [`Sandbox::resume`].
    pub fn pause(&mut self) {
        self.shutdown();
    }

    /// Serves the kept state again on the same address after [`Sandbox::pause`] (a no-op
    /// when serving).
    pub fn resume(&mut self) -> std::io::Result<()> {
        if self.thread.is_some() {
            return Ok(());
        }
        let https = match (&self.tls, self.https_addr) {
            (Some(t), Some(a)) => Some((t.clone(), a.port())),
            _ => None,
        };
        let (addr, https_addr, stop, thread) = serve_in_background(
            Arc::clone(&self.shared),
            Arc::clone(&self.door),
            self.addr.ip().to_string(),
            self.addr.port(),
            https,
        )?;
        self.addr = addr;
        self.https_addr = https_addr;
        self.stop = Some(stop);
        self.thread = Some(thread);
        Ok(())
    }

    /// `https://HOST:PORT` of the https listener, when serving https.
    pub fn https_base_url(&self) -> Option<String> {
        self.https_addr.map(|a| format!("https://{a}"))
    }

    /// The PEM of the generated CA (with [`Tls::Generated`]).
    pub fn ca_pem(&self) -> Option<String> {
        self.ca_pem.clone()
    }

    /// Saves the state file now (when one is set), atomically.
    pub fn save_state(&self) -> std::io::Result<()> {
        match &self.shared.persist {
            Some(p) => store::Persist::write_atomically(&p.path, &self.shared.snapshot()),
            None => Ok(()),
        }
    }

    /// `op`: `standard` or `alternate` replies for a program (README "Dialects").
    pub fn set_dialect(&self, app_id: &str, dialect: &str) -> Result<(), String> {
        self.edit().set_dialect(app_id, dialect)
    }

    /// `http://HOST:PORT` of the bound address.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The token the console and the control API need (README "The door"): the one given
    /// in [`Config::token`], or a random one when bound to anything but loopback; `None`
    /// on loopback without one.
    pub fn token(&self) -> Option<String> {
        self.door.token.clone()
    }

    /// Whether the bound address is reachable from the network (not loopback).
    pub fn exposed(&self) -> bool {
        door::exposed(&[self.addr])
    }

    /// The console's address to open in a browser: on loopback for a wildcard bind
    /// (`0.0.0.0`, `::`), with `?token=` when a token is in force (the console keeps it in a
    /// cookie and drops it from the address).
    pub fn console_url(&self) -> String {
        let mut addr = self.addr;
        if addr.ip().is_unspecified() {
            addr.set_ip(match addr {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        match &self.door.token {
            Some(t) => format!("http://{addr}/_sandbox/?token={t}"),
            None => format!("http://{addr}/_sandbox/"),
        }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Stops accepting, closes every connection (idle kept-alive ones too) and joins the
    /// server thread.
    pub fn stop(mut self) {
        self.shutdown();
        self.end_persist();
    }

    fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    fn end_persist(&mut self) {
        if let Some(t) = self.persist.take() {
            self.shared.stop_persist();
            let _ = t.join();
        }
    }

    /// Adds (or replaces, by key) the records of a fixtures document.
    pub fn load(&self, f: Fixtures) -> Result<(), String> {
        self.edit().load(f)
    }

    /// Creates or replaces a program.
    pub fn add_program(&self, p: Program) -> Result<(), String> {
        self.edit().add_program(p)
    }

    /// Creates (or replaces) a card; returns its key, generated when `card` is empty.
    pub fn add_card(&self, c: Card) -> Result<String, String> {
        self.edit().add_card(c)
    }

    /// Creates (or replaces) an account; returns its user_id.
    pub fn add_account(&self, a: Account) -> Result<i64, String> {
        self.edit().add_account(a)
    }

    /// `approved`, `pending`, `rejected` or `expired`.
    pub fn set_program_status(&self, app_id: &str, status: &str) -> Result<(), String> {
        self.edit().set_program_status(app_id, status)
    }

    /// `op`: `disable`, `enable` or `refund`.
    pub fn update_card(
        &self,
        app_id: &str,
        card: &str,
        op: &str,
        reason: Option<&str>,
    ) -> Result<(), String> {
        self.edit().update_card(app_id, card, op, reason)
    }

    /// `op`: `ban` or `unban`.
    pub fn update_account(
        &self,
        app_id: &str,
        username: &str,
        op: &str,
        reason: Option<&str>,
    ) -> Result<(), String> {
        self.edit().update_account(app_id, username, op, reason)
    }

    /// `op`: `disable` or `enable` a machine code.
    pub fn update_device(
        &self,
        app_id: &str,
        device_id: &str,
        op: &str,
        reason: Option<&str>,
    ) -> Result<(), String> {
        self.edit().update_device(app_id, device_id, op, reason)
    }

    /// Leaves a message for a card (returned once by its next heartbeat).
    pub fn leave_card_message(
        &self,
        app_id: &str,
        card: &str,
        message: &str,
    ) -> Result<(), String> {
        self.edit().leave_card_message(app_id, card, message)
    }

    /// Leaves a message for an account (returned once by its next heartbeat).
    pub fn leave_account_message(
        &self,
        app_id: &str,
        username: &str,
        message: &str,
    ) -> Result<(), String> {
        self.edit().leave_account_message(app_id, username, message)
    }

    /// Completes a pending social sign-in.
    pub fn authorize_social(
        &self,
        state: &str,
        identity: &str,
        display_name: &str,
    ) -> Result<(), String> {
        self.edit().authorize_social(state, identity, display_name)
    }

    /// Moves the sandbox clock by `seconds` (adds to the offset).
    pub fn shift_clock(&self, seconds: i64) {
        self.edit().shift_clock(seconds)
    }

    /// Sets the offset of the sandbox clock from the system clock.
    pub fn set_clock_offset(&self, seconds: i64) {
        self.edit().set_clock_offset(seconds)
    }

    /// The sandbox clock, Unix seconds.
    pub fn now(&self) -> i64 {
        self.shared.now()
    }

    pub fn set_fault(&self, f: Fault) {
        self.edit().set_fault(f)
    }

    /// Clears all faults, or those set for one program.
    pub fn clear_faults(&self, app_id: Option<&str>) {
        self.edit().clear_faults(app_id)
    }

    /// The request log of service requests, of one program or of all.
    pub fn request_log(&self, app_id: Option<&str>) -> Vec<LogEntry> {
        self.shared.lock().request_log(app_id)
    }

    /// One entry of the request log with the inspector's detail, as
    /// `GET /_sandbox/log/{seq}` gives it (README "The inspector"): `None` when there is no
    /// such entry, or its detail is no longer kept (the newest 1,000 are).
    pub fn log_entry(&self, seq: u64) -> Option<serde_json::Value> {
        self.shared.lock().log_entry(seq).ok().flatten()
    }

    /// TCP connections accepted so far.
    pub fn connections_accepted(&self) -> u64 {
        self.shared.connections_accepted()
    }

    pub fn verification_stats(&self, app_id: &str) -> VerificationStats {
        self.shared.lock().verification_stats(app_id)
    }

    /// The stored card record as JSON.
    pub fn card(&self, app_id: &str, card: &str) -> Option<serde_json::Value> {
        self.shared.lock().card_json(app_id, card)
    }

    /// The stored account record as JSON.
    pub fn account(&self, app_id: &str, username: &str) -> Option<serde_json::Value> {
        self.shared.lock().account_json(app_id, username)
    }
}

/// The locked state; the state file is saved after it is released.
struct Edit<'a> {
    guard: std::sync::MutexGuard<'a, store::State>,
    shared: &'a Shared,
}

impl std::ops::Deref for Edit<'_> {
    type Target = store::State;
    fn deref(&self) -> &store::State {
        &self.guard
    }
}

impl std::ops::DerefMut for Edit<'_> {
    fn deref_mut(&mut self) -> &mut store::State {
        &mut self.guard
    }
}

impl Drop for Edit<'_> {
    fn drop(&mut self) {
        self.shared.changed();
    }
}

impl Sandbox {
    fn edit(&self) -> Edit<'_> {
        Edit {
            guard: self.shared.lock(),
            shared: &self.shared,
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.shutdown();
        self.end_persist();
    }
}

type Served = (
    SocketAddr,
    Option<SocketAddr>,
    watch::Sender<bool>,
    JoinHandle<()>,
);

/// Binds `host:port` (and `host:https_port` with TLS) and serves `shared` on a
/// multi-thread tokio runtime of its own, in a background thread. Returns once the
/// listeners are bound.
fn serve_in_background(
    shared: Arc<Shared>,
    door: Arc<door::Door>,
    host: String,
    port: u16,
    https: Option<(TlsAcceptor, u16)>,
) -> std::io::Result<Served> {
    type Bound = std::io::Result<(SocketAddr, Option<SocketAddr>)>;
    let (bound_tx, bound_rx) = std::sync::mpsc::channel::<Bound>();
    let (stop_tx, stop_rx) = watch::channel(false);
    let server_shared = shared;
    let thread = std::thread::Builder::new()
        .name("verify-sandbox".to_string())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("verify-sandbox-worker")
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = bound_tx.send(Err(e));
                    return;
                }
            };
            rt.block_on(async move {
                let bind = async {
                    let listener = TcpListener::bind((host.as_str(), port)).await?;
                    let addr = listener.local_addr()?;
                    let secure = match https {
                        Some((acceptor, hp)) => {
                            let l = TcpListener::bind((host.as_str(), hp)).await?;
                            let a = l.local_addr()?;
                            Some((l, acceptor, a))
                        }
                        None => None,
                    };
                    Ok::<_, std::io::Error>((listener, addr, secure))
                };
                let (listener, addr, secure) = match bind.await {
                    Ok(b) => b,
                    Err(e) => {
                        let _ = bound_tx.send(Err(e));
                        return;
                    }
                };
                let _ = bound_tx.send(Ok((addr, secure.as_ref().map(|s| s.2))));
                let plain = server::serve(
                    listener,
                    None,
                    Arc::clone(&server_shared),
                    Arc::clone(&door),
                    stop_rx.clone(),
                );
                match secure {
                    Some((l, acceptor, _)) => {
                        let tls = server::serve(l, Some(acceptor), server_shared, door, stop_rx);
                        tokio::join!(plain, tls);
                    }
                    None => plain.await,
                }
            });
            // Dropping the runtime drops every connection task, closing its socket.
            rt.shutdown_timeout(std::time::Duration::from_secs(2));
        })?;
    let (addr, https_addr) = match bound_rx.recv() {
        Ok(Ok(a)) => a,
        Ok(Err(e)) => {
            let _ = thread.join();
            return Err(e);
        }
        Err(_) => {
            let _ = thread.join();
            return Err(std::io::Error::other("sandbox thread ended before binding"));
        }
    };
    Ok((addr, https_addr, stop_tx, thread))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    fn get_clock(stream: &mut TcpStream) -> String {
        stream
            .write_all(b"GET /_sandbox/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .unwrap();
        let mut buf = [0u8; 4096];
        let n = stream.read(&mut buf).unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    #[test]
    fn stop_closes_idle_connections_and_the_port_can_be_bound_again() {
        let sandbox = Sandbox::start(Config::default()).unwrap();
        let port = sandbox.port();
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let reply = get_clock(&mut stream);
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
        assert!(reply.contains("date: "), "{reply}");
        assert_eq!(sandbox.connections_accepted(), 1);
        sandbox.stop();
        let mut buf = [0u8; 16];
        // The idle kept-alive connection is closed: EOF or reset, never a timeout.
        match stream.read(&mut buf) {
            Ok(n) => assert_eq!(n, 0),
            Err(e) => assert_ne!(e.kind(), std::io::ErrorKind::WouldBlock, "{e}"),
        }
        let again = Sandbox::start(Config {
            port,
            ..Config::default()
        })
        .unwrap();
        assert_eq!(again.port(), port);
    }

    #[test]
    fn drop_fault_closes_without_a_reply() {
        let sandbox = Sandbox::start(Config::default()).unwrap();
        sandbox.set_fault(Fault {
            kind: FaultKind::Drop,
            app_id: None,
            action: Some("Init".into()),
            count: Some(1),
            delay_ms: 0,
        });
        let mut stream = TcpStream::connect(("127.0.0.1", sandbox.port())).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let body = "AppId=1&AppKey=K&TimeStamp=1&Sign=x";
        write!(
            stream,
            "POST /api/verify HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut got = Vec::new();
        let _ = stream.read_to_end(&mut got);
        assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
        let log = sandbox.request_log(None);
        assert_eq!(log.len(), 1);
        assert_eq!(log[0].code, 1001);
        assert_eq!(log[0].action.as_deref(), Some("Init"));
    }
}
