//! The doctor's TLS step over a connected stream: the client's own trust and pins, and what
//! the server showed (protocol; for each certificate of the chain its names, issuer,
//! validity, SHA-256 fingerprint and key pin; the pins the program expects), even when it is
//! refused; the refusal in words, with a key. A chain the program does not trust that a
//! proxy or security software made (through a tunnel, or an issuer known for it) is named
//! as an interception.

use std::io;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Instant;

use rustls::pki_types::ServerName;
use rustls::ClientConnection;
use serde_json::{json, Value};

use super::cert::{self, pin_text, CertFacts};
use super::reach::Line;
use super::report::{rfc3339_of, span, Step, Verdict};
use super::stop::Stop;
use super::table::StepKind;
use crate::net::tls::{PinMismatch, Seen, SelfSigned, Trust};

/// A certificate that ends within this is reported.
const EXPIRES_SOON: i64 = 14 * 86_400;

/// Words in an issuer's name that products inspecting TLS put there (security software,
/// company proxies, debugging proxies), lowercase.
const INTERCEPTORS: &[&str] = &[
    "mitmproxy",
    "fiddler",
    "charles proxy",
    "kaspersky",
    "avast",
    "eset",
    "bitdefender",
    "norton",
    "sophos",
    "fortinet",
    "fortigate",
    "zscaler",
    "palo alto",
    "blue coat",
    "cisco umbrella",
    "netskope",
    "forcepoint",
    "websense",
    "trend micro",
    "mcafee",
    "qihoo",
    "huorong",
    "火绒",
];

/// How the handshake was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Path {
    /// Straight to the server.
    Direct,
    /// Through a proxy's tunnel.
    Tunnel,
}

/// The TLS step over a connected stream: the client's own trust and pins, and what the
/// server showed (protocol, chain, validity), even when it is refused.
pub(crate) fn handshake(
    line: &Line,
    mut stream: TcpStream,
    trust: &Trust,
    path: Path,
    stop: &Stop,
) -> Step {
    let started = Instant::now();
    let seen: Seen = Arc::default();
    let fail = |key, message: String| Step::new(StepKind::Tls, Verdict::Fail, key, message);
    let config = match trust.config_seen(true, Some(Arc::clone(&seen))) {
        Ok(config) => config,
        Err(err) => return fail("tls.no_trust", err.message().to_owned()),
    };
    let Ok(name) = ServerName::try_from(line.host.clone()) else {
        return fail(
            "tls.bad_name",
            format!("{} is not a valid TLS server name", line.host),
        );
    };
    let mut connection = match ClientConnection::new(config, name) {
        Ok(connection) => connection,
        Err(err) => return fail("tls.refused", crate::net::tls::refusal(&err).1),
    };
    let outcome = drive(&mut connection, &mut stream, stop);
    let took = started.elapsed();
    let chain: Vec<CertFacts> = seen
        .lock()
        .map(|chain| chain.iter().filter_map(|c| cert::facts(c)).collect())
        .unwrap_or_default();
    let pinned = seen
        .lock()
        .map(|chain| chain.iter().position(|c| trust.pins_key_of(c)))
        .unwrap_or(None);
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let mut step = match outcome {
        Ok(()) => passed(&connection, &chain, pinned, trust.pin_count()),
        Err(Shake::Tls(err)) => {
            let (_, words) = crate::net::tls::refusal(&err);
            let key = tls_key(&err);
            match intercepted(key, &chain, path) {
                Some(issuer) => fail(
                    "tls.intercepted",
                    format!(
                        "{words}; the chain is issued by {issuer}, which inspects TLS (security \
                         software or a proxy), not by the server's authority"
                    ),
                ),
                None => fail(key, words),
            }
        }
        Err(Shake::Cancelled) => {
            return Step::new(StepKind::Tls, Verdict::Skip, "cancelled", "cancelled").took(took)
        }
        Err(Shake::TimedOut) => fail(
            "tls.timeout",
            format!(
                "the server accepted the connection but did not finish the TLS handshake \
                 within {} ms (is it a TLS server? a middlebox holding it?)",
                took.as_millis()
            ),
        ),
        Err(Shake::Closed(err)) => fail(
            "tls.closed",
            format!(
                "the server closed the connection during the TLS handshake ({err}): a \
                 filter, or a server that does not speak TLS on this port"
            ),
        ),
    };
    step = step
        .took(took)
        .detail("host", line.host.as_str())
        .detail(
            "chain",
            chain.iter().map(CertFacts::to_json).collect::<Vec<_>>(),
        )
        .detail("pins", trust.pin_count())
        .detail(
            "expected_pins",
            trust
                .pins
                .iter()
                .map(|pin| pin_text(pin))
                .collect::<Vec<_>>(),
        );
    if let Some(leaf) = chain.first() {
        step = step
            .detail("subject", leaf.subject.as_str())
            .detail("issuer", leaf.issuer.as_str())
            .detail("names", leaf.names.clone())
            .detail("not_before", rfc3339_of(leaf.not_before))
            .detail("not_after", rfc3339_of(leaf.not_after))
            .detail("server_pin", leaf.pin.as_str())
            .detail("sha256", leaf.sha256.as_str());
    }
    step
}

/// The issuer of a chain that someone between the program and the server made: a chain the
/// program does not trust (or whose keys are not pinned) seen through a proxy's tunnel, or
/// issued by a product known to inspect TLS.
fn intercepted(key: &str, chain: &[CertFacts], path: Path) -> Option<String> {
    if !matches!(
        key,
        "tls.unknown_issuer" | "tls.pin_mismatch" | "tls.self_signed"
    ) {
        return None;
    }
    let issuer = chain.first().map(|leaf| leaf.issuer.clone())?;
    let known = chain.iter().any(|c| {
        let name = c.issuer.to_lowercase();
        INTERCEPTORS.iter().any(|word| name.contains(word))
    });
    (known || path == Path::Tunnel).then_some(issuer)
}

/// The step of a finished handshake.
fn passed(
    connection: &ClientConnection,
    chain: &[CertFacts],
    pinned: Option<usize>,
    pins: usize,
) -> Step {
    let protocol = match connection.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLS 1.3".to_owned(),
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLS 1.2".to_owned(),
        Some(other) => format!("{other:?}"),
        None => "TLS".to_owned(),
    };
    let pin_words = match (pins, pinned) {
        (0, _) => "no pins set".to_owned(),
        (_, Some(0)) => "the server's own key is pinned".to_owned(),
        (_, Some(at)) => format!("the key of certificate {} of the chain is pinned", at + 1),
        (_, None) => "a pinned key matched".to_owned(),
    };
    let now = super::report::unix_now();
    let (verdict, key, words) = match chain.first() {
        Some(leaf) => {
            let left = leaf.not_after.saturating_sub(now);
            let verdict = if left < EXPIRES_SOON {
                (Verdict::Warn, "tls.expires_soon")
            } else {
                (Verdict::Pass, "tls.ok")
            };
            (
                verdict.0,
                verdict.1,
                format!(
                    "{protocol}; certificate {} issued by {}, valid until {} ({} left); {pin_words}",
                    leaf.subject,
                    leaf.issuer,
                    rfc3339_of(leaf.not_after),
                    span(left)
                ),
            )
        }
        None => (Verdict::Pass, "tls.ok", format!("{protocol}; {pin_words}")),
    };
    Step::new(StepKind::Tls, verdict, key, words)
        .detail("protocol", protocol)
        // A finished handshake with pins set means one matched.
        .detail(
            "pin_matched",
            if pins == 0 { Value::Null } else { json!(true) },
        )
        .detail("pinned_certificate", pinned.map(|at| at + 1))
}

/// The key of a TLS refusal.
#[allow(deprecated)] // rustls still reports the variants it deprecated
fn tls_key(err: &rustls::Error) -> &'static str {
    use rustls::CertificateError as Cert;
    let rustls::Error::InvalidCertificate(cert) = err else {
        return "tls.refused";
    };
    match cert {
        Cert::Other(other) if other.0.downcast_ref::<PinMismatch>().is_some() => "tls.pin_mismatch",
        Cert::Other(other) if other.0.downcast_ref::<SelfSigned>().is_some() => "tls.self_signed",
        Cert::Other(other)
            if matches!(
                other.0.downcast_ref::<webpki::Error>(),
                Some(webpki::Error::CaUsedAsEndEntity)
            ) =>
        {
            "tls.self_signed"
        }
        Cert::Expired | Cert::ExpiredContext { .. } => "tls.expired",
        Cert::NotValidYet | Cert::NotValidYetContext { .. } => "tls.not_yet_valid",
        Cert::UnknownIssuer => "tls.unknown_issuer",
        Cert::NotValidForName | Cert::NotValidForNameContext { .. } => "tls.wrong_name",
        _ => "tls.refused",
    }
}

enum Shake {
    Tls(rustls::Error),
    TimedOut,
    Cancelled,
    Closed(io::Error),
}

/// Runs a handshake on a blocking socket, each read and write waiting at most a slice of
/// the time left, so that a cancel or the deadline stops it.
fn drive(
    connection: &mut ClientConnection,
    stream: &mut TcpStream,
    stop: &Stop,
) -> Result<(), Shake> {
    let timed_out = |err: &io::Error| {
        matches!(
            err.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        )
    };
    loop {
        if stop.cancelled() {
            return Err(Shake::Cancelled);
        }
        let slice = stop.slice();
        if slice.is_zero() {
            return Err(Shake::TimedOut);
        }
        let _ = stream.set_read_timeout(Some(slice));
        let _ = stream.set_write_timeout(Some(stop.remaining().max(slice)));
        while connection.wants_write() {
            match connection.write_tls(stream) {
                Ok(_) => {}
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if timed_out(&err) => return Err(Shake::TimedOut),
                Err(err) => return Err(Shake::Closed(err)),
            }
        }
        if !connection.is_handshaking() {
            return Ok(());
        }
        match connection.read_tls(stream) {
            Ok(0) => {
                return Err(Shake::Closed(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "end of stream",
                )))
            }
            Ok(_) => {
                if let Err(err) = connection.process_new_packets() {
                    // Tell the server why (the alert), as the client does.
                    let _ = connection.write_tls(stream);
                    return Err(Shake::Tls(err));
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            // A slice passed: look at the cancel and the deadline again.
            Err(err) if timed_out(&err) => {}
            Err(err) => return Err(Shake::Closed(err)),
        }
    }
}
