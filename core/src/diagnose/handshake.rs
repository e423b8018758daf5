//! The doctor's TLS step over a connected stream: the client's own trust and pins, and what
//! the server showed (protocol, the chain's names and validity, whether a pin matched), even
//! when it is refused; the refusal in the words of the client's own error, with a key.

use std::io;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;
use rustls::ClientConnection;
use serde_json::{json, Value};

use super::cert;
use super::reach::Line;
use super::report::{rfc3339_of, span, Step, StepKind, Verdict};
use crate::net::tls::{PinMismatch, Seen, SelfSigned, Trust};
use crate::util::deadline::Deadline;

/// A certificate that ends within this is reported.
const EXPIRES_SOON: i64 = 14 * 86_400;

/// The TLS step over a connected stream: the client's own trust and pins, and what the
/// server showed (protocol, chain, validity), even when it is refused.
pub(crate) fn handshake(
    line: &Line,
    mut stream: TcpStream,
    trust: &Trust,
    deadline: Deadline,
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
    let outcome = drive(&mut connection, &mut stream, deadline);
    let took = started.elapsed();
    let chain: Vec<cert::CertFacts> = seen
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
            fail(tls_key(&err), words)
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
    step = step.took(took).detail(
        "chain",
        chain
            .iter()
            .map(|c| {
                json!({
                    "subject": c.subject,
                    "issuer": c.issuer,
                    "not_before": rfc3339_of(c.not_before),
                    "not_after": rfc3339_of(c.not_after),
                })
            })
            .collect::<Vec<_>>(),
    );
    step.detail("pins", trust.pin_count())
}

/// The step of a finished handshake.
fn passed(
    connection: &ClientConnection,
    chain: &[cert::CertFacts],
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
    let now = crate::diagnose::unix_now();
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
    Closed(io::Error),
}

/// Runs a handshake on a blocking socket, every read and write bounded by `deadline`.
fn drive(
    connection: &mut ClientConnection,
    stream: &mut TcpStream,
    deadline: Deadline,
) -> Result<(), Shake> {
    let timed_out = |err: &io::Error| {
        matches!(
            err.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        )
    };
    loop {
        let left = deadline.remaining();
        if left < Duration::from_millis(1) {
            return Err(Shake::TimedOut);
        }
        let _ = stream.set_read_timeout(Some(left));
        let _ = stream.set_write_timeout(Some(left));
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
            Err(err) if timed_out(&err) => return Err(Shake::TimedOut),
            Err(err) => return Err(Shake::Closed(err)),
        }
    }
}
