//! TLS: the TLS step of a connection, and certificate pinning, applying what a client
//! trusts ([`Trust`], a setting defined in `net/trust.rs`).
//!
//! A client trusts Mozilla's roots by default; it can add the operating system's store
//! (rustls-platform-verifier: company CAs and TLS-inspecting proxies installed in the OS),
//! extra roots from PEM, and pin SHA-256 hashes of SubjectPublicKeyInfo. Verification is
//! never turned off:
//! - a server whose leaf certificate's key is pinned is accepted without a CA (a pinned
//!   self-signed certificate works);
//! - otherwise the chain must validate against the trusted roots, and when pins are set one
//!   of the chain's keys must be pinned, else the handshake fails with [`PinMismatch`].
//!
//! Pins apply to the service's hosts only; a TLS connection to an `https://` proxy is
//! verified against the roots.

use std::fmt;
use std::io::{Read, Write};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{ring, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore, StreamOwned};
use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, Either, NextTimeout, Transport, TransportAdapter,
};

use crate::error::{Error, ErrorKind};
use crate::log::{log, LogHook, LogLevel};
use crate::net::buffers::WipedBuffers;
use crate::net::der::element;

pub use crate::net::trust::Trust;
use crate::net::trust::PIN_LEN;

/// The TLS side of [`Trust`]: the rustls configuration that applies it.
impl Trust {
    /// The rustls configuration for the service's hosts (`with_pins`) or for a proxy.
    pub(crate) fn client_config(&self, with_pins: bool) -> Result<Arc<ClientConfig>, Error> {
        self.config_seen(with_pins, None)
    }

    /// Whether `cert`'s key is one of the pinned keys.
    pub(crate) fn pins_key_of(&self, cert: &CertificateDer<'_>) -> bool {
        spki_sha256(cert).is_some_and(|hash| self.pins.contains(&hash))
    }

    /// [`Trust::client_config`] whose verifier first hands the server's chain (leaf first)
    /// to `seen`, whatever it then decides: the doctor reports the chain of a refused
    /// server too.
    pub(crate) fn config_seen(
        &self,
        with_pins: bool,
        seen: Option<Seen>,
    ) -> Result<Arc<ClientConfig>, Error> {
        let provider = Arc::new(ring::default_provider());
        let mut verifiers: Vec<Arc<dyn ServerCertVerifier>> = Vec::new();
        if self.mozilla || !self.roots.is_empty() {
            let mut store = RootCertStore::empty();
            if self.mozilla {
                store
                    .roots
                    .extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            }
            store.add_parsable_certificates(self.roots.iter().cloned());
            let verifier =
                WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider.clone())
                    .build()
                    .map_err(|err| Error::invalid_argument(format!("trust roots: {err}")))?;
            verifiers.push(verifier);
        }
        if self.system {
            let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
                .map_err(|err| Error::system(format!("the system trust store: {err}")))?;
            verifiers.push(Arc::new(verifier));
        }
        let verifier = Pinning {
            verifiers,
            pins: if with_pins {
                self.pins.clone()
            } else {
                Vec::new()
            },
            provider: provider.clone(),
            seen,
        };
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|err| Error::invalid_argument(format!("TLS versions: {err}")))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        Ok(Arc::new(config))
    }
}

/// The kind and the words of a TLS failure: every refusal names its cause, and where the
/// host can do something about it, what.
#[allow(deprecated)] // rustls still reports the variants it deprecated
pub(crate) fn refusal(err: &rustls::Error) -> (ErrorKind, String) {
    use rustls::CertificateError as Cert;
    let cert = match err {
        rustls::Error::InvalidCertificate(cert) => cert,
        rustls::Error::AlertReceived(alert) => {
            return tls_words(format!(
                "TLS: the server refused the handshake (alert {alert:?}): it may require \
                 another TLS version, or a client certificate"
            ))
        }
        rustls::Error::PeerIncompatible(why) => {
            return tls_words(format!(
                "TLS: the server offers no TLS version or cipher suite this client accepts \
                 (TLS 1.2 and 1.3 with modern ciphers): {why:?}"
            ))
        }
        rustls::Error::NoCertificatesPresented => {
            return tls_words("TLS: the server presented no certificate".to_owned())
        }
        rustls::Error::InvalidMessage(why) => {
            return tls_words(format!(
                "TLS: the server sent something that is not TLS ({why:?}): is this an http:// \
                 server on an https:// URL?"
            ))
        }
        rustls::Error::PeerMisbehaved(why) => {
            return tls_words(format!("TLS: the server broke the TLS protocol ({why:?})"))
        }
        other => return tls_words(format!("TLS handshake failed: {other}")),
    };
    let trust = "trust its CA (add it as a root, or use the system store), or pin the \
                 server's key";
    let why = match cert {
        Cert::Other(other) if other.0.downcast_ref::<SelfSigned>().is_some() => {
            let ca = other.0.downcast_ref::<SelfSigned>().is_some_and(|s| s.ca);
            if ca {
                "is self-signed, and a CA certificate (as `openssl req -x509` makes by \
                 default): to trust this server, pin its key, or give the server a \
                 certificate signed by that CA and add the CA as a root"
                    .to_owned()
            } else {
                "is self-signed: to trust this server, pin its key or add this certificate \
                 as a root"
                    .to_owned()
            }
        }
        Cert::Other(other) if other.0.downcast_ref::<PinMismatch>().is_some() => {
            return (
                ErrorKind::Pin,
                "TLS: the server's certificate chain is valid but matches none of the pinned \
                 keys"
                    .to_owned(),
            )
        }
        Cert::UnknownIssuer => format!("has an unknown issuer: {trust}"),
        Cert::NotValidForName => "is not valid for this host name".to_owned(),
        Cert::NotValidForNameContext {
            expected,
            presented,
        } => {
            // rustls writes the names as `DnsName("host")` and `IpAddress(127.0.0.1)`: the
            // host or address alone reads better.
            let names: Vec<&str> = presented
                .iter()
                .map(|name| match name.split('"').nth(1) {
                    Some(host) => host,
                    None => name
                        .strip_prefix("IpAddress(")
                        .and_then(|rest| rest.strip_suffix(')'))
                        .unwrap_or(name),
                })
                .collect();
            format!(
                "is not valid for this host name: it is for {}, not {}",
                if names.is_empty() {
                    "no host name".to_owned()
                } else {
                    names.join(", ")
                },
                expected.to_str()
            )
        }
        Cert::Expired | Cert::ExpiredContext { .. } => {
            "has expired (or this computer's clock is ahead)".to_owned()
        }
        Cert::NotValidYet | Cert::NotValidYetContext { .. } => {
            "is not valid yet (or this computer's clock is behind)".to_owned()
        }
        Cert::Revoked => "has been revoked by its CA".to_owned(),
        Cert::UnknownRevocationStatus
        | Cert::ExpiredRevocationList
        | Cert::ExpiredRevocationListContext { .. } => "has no usable revocation status".to_owned(),
        Cert::BadEncoding => "is malformed".to_owned(),
        Cert::UnhandledCriticalExtension => {
            "has a critical extension that this client does not know".to_owned()
        }
        Cert::BadSignature => {
            "has a signature that does not verify (a broken or forged chain)".to_owned()
        }
        Cert::UnsupportedSignatureAlgorithm
        | Cert::UnsupportedSignatureAlgorithmContext { .. }
        | Cert::UnsupportedSignatureAlgorithmForPublicKeyContext { .. } => {
            "is signed with an algorithm this client does not support".to_owned()
        }
        Cert::InvalidPurpose | Cert::InvalidPurposeContext { .. } => {
            "is not for TLS servers (its extended key usage)".to_owned()
        }
        Cert::InvalidOcspResponse => "came with an invalid OCSP response".to_owned(),
        Cert::ApplicationVerificationFailure => "was refused by the verifier".to_owned(),
        Cert::Other(other) => match other.0.downcast_ref::<webpki::Error>() {
            Some(webpki) => chain_words(webpki, trust),
            None => format!("is refused: {}", other.0),
        },
        other => format!("is refused: {other:?}"),
    };
    tls_words(format!("TLS: the server's certificate {why}"))
}

fn tls_words(message: String) -> (ErrorKind, String) {
    (ErrorKind::Tls, message)
}

/// Words for the certificate checks that rustls hands on as they are.
#[allow(deprecated)] // webpki still reports the variants it deprecated
fn chain_words(err: &webpki::Error, trust: &str) -> String {
    use webpki::Error as W;
    match err {
        W::CaUsedAsEndEntity => {
            "is a self-signed CA certificate presented as the server's own: to trust this \
             server, pin its key or add this certificate as a root"
                .to_owned()
        }
        W::EndEntityUsedAsCa => {
            "chain uses a server certificate as a CA (a misconfigured chain)".to_owned()
        }
        W::CertDistrusted => format!("chains to a distrusted root: {trust}"),
        W::PathLenConstraintViolated
        | W::NameConstraintViolation
        | W::InvalidNetworkMaskConstraint
        | W::MalformedNameConstraint => "chain breaks a constraint of one of its CAs".to_owned(),
        W::MaximumPathDepthExceeded
        | W::MaximumPathBuildCallsExceeded
        | W::MaximumSignatureChecksExceeded
        | W::MaximumNameConstraintComparisonsExceeded => {
            "chain is too long or too complex to check".to_owned()
        }
        W::RequiredEkuNotFound | W::RequiredEkuNotFoundContext(_) | W::EmptyEkuExtension => {
            "is not for TLS servers (its extended key usage)".to_owned()
        }
        W::UnsupportedCertVersion
        | W::UnsupportedCriticalExtension
        | W::UnsupportedNameType
        | W::ExtensionValueInvalid
        | W::MalformedExtensions
        | W::MalformedDnsIdentifier
        | W::InvalidCertValidity
        | W::InvalidSerialNumber
        | W::BadDer
        | W::BadDerTime
        | W::TrailingData(_) => {
            "is malformed or uses a feature this client does not know".to_owned()
        }
        other => format!("is refused by the certificate check ({other})"),
    }
}

/// The handshake error of a valid chain that matches none of the pinned keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinMismatch;

impl fmt::Display for PinMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the server's certificate chain matches none of the pinned keys")
    }
}

impl std::error::Error for PinMismatch {}

/// The handshake error of a self-signed server certificate that nothing trusts; `ca` when
/// it is a CA certificate (as `openssl req -x509` makes by default), which cannot be a
/// server's own even when trusted as a root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfSigned {
    /// The certificate says it is a CA.
    pub ca: bool,
}

impl fmt::Display for SelfSigned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the server's certificate is self-signed")
    }
}

impl std::error::Error for SelfSigned {}

/// Whether a certificate is signed by its own key (it validates as its own trust anchor).
fn signs_itself(cert: &CertificateDer<'_>, provider: &CryptoProvider, now: UnixTime) -> bool {
    let (Ok(anchor), Ok(leaf)) = (
        webpki::anchor_from_trusted_cert(cert),
        webpki::EndEntityCert::try_from(cert),
    ) else {
        return false;
    };
    leaf.verify_for_usage(
        provider.signature_verification_algorithms.all,
        &[anchor],
        &[],
        now,
        webpki::KeyUsage::server_auth(),
        None,
        None,
    )
    .is_ok()
}

/// Whether a DER certificate names itself as its issuer (issuer equals subject).
fn self_issued(cert: &CertificateDer<'_>) -> bool {
    let issued = || -> Option<bool> {
        let tbs = element(element(cert.as_ref())?.content)?.content;
        // [0] version (optional), serial, signature algorithm, issuer, validity, subject.
        let mut field = element(tbs)?;
        if field.tag == 0xa0 {
            field = element(field.rest)?;
        }
        let algorithm = element(field.rest)?;
        let issuer = element(algorithm.rest)?;
        let validity = element(issuer.rest)?;
        let subject = element(validity.rest)?;
        Some(issuer.whole == subject.whole)
    };
    issued().unwrap_or(false)
}

/// SHA-256 of the DER SubjectPublicKeyInfo of a certificate.
fn spki_sha256(cert: &CertificateDer<'_>) -> Option<[u8; PIN_LEN]> {
    let parsed = webpki::EndEntityCert::try_from(cert).ok()?;
    let spki = parsed.subject_public_key_info();
    let digest = ::ring::digest::digest(&::ring::digest::SHA256, spki.as_ref());
    digest.as_ref().try_into().ok()
}

/// Where a verifier hands the chain it is shown (see [`Trust::config_seen`]).
pub(crate) type Seen = Arc<std::sync::Mutex<Vec<CertificateDer<'static>>>>;

/// Verifies with the trusted roots (any verifier accepting is enough) and the pins.
struct Pinning {
    verifiers: Vec<Arc<dyn ServerCertVerifier>>,
    pins: Vec<[u8; PIN_LEN]>,
    provider: Arc<CryptoProvider>,
    seen: Option<Seen>,
}

impl fmt::Debug for Pinning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pinning")
            .field("verifiers", &self.verifiers.len())
            .field("pins", &self.pins.len())
            .finish()
    }
}

impl Pinning {
    fn pinned(&self, cert: &CertificateDer<'_>) -> bool {
        spki_sha256(cert).is_some_and(|hash| self.pins.contains(&hash))
    }
}

impl ServerCertVerifier for Pinning {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Some(seen) = &self.seen {
            let mut chain = seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            chain.clear();
            chain.push(end_entity.clone().into_owned());
            chain.extend(intermediates.iter().map(|c| c.clone().into_owned()));
        }
        // A pinned leaf key is trusted on its own (a pinned self-signed certificate).
        if !self.pins.is_empty() && self.pinned(end_entity) {
            return Ok(ServerCertVerified::assertion());
        }
        let mut first_error = None;
        for verifier in &self.verifiers {
            match verifier.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            ) {
                Ok(verified) => {
                    if self.pins.is_empty() || intermediates.iter().any(|c| self.pinned(c)) {
                        return Ok(verified);
                    }
                    return Err(rustls::Error::InvalidCertificate(
                        rustls::CertificateError::Other(rustls::OtherError(Arc::new(PinMismatch))),
                    ));
                }
                Err(err) => {
                    first_error.get_or_insert(err);
                }
            }
        }
        let error = first_error.unwrap_or(rustls::Error::InvalidCertificate(
            rustls::CertificateError::UnknownIssuer,
        ));
        // A self-signed certificate, untrusted: say so, so that the host knows what to do.
        let untrusted = match &error {
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer) => {
                Some(false)
            }
            rustls::Error::InvalidCertificate(rustls::CertificateError::Other(other)) => matches!(
                other.0.downcast_ref::<webpki::Error>(),
                Some(webpki::Error::CaUsedAsEndEntity)
            )
            .then_some(true),
            _ => None,
        };
        let self_signed = |ca: bool| {
            intermediates.is_empty()
                && if ca {
                    // A CA certificate is refused before its signature is checked: by its
                    // names.
                    self_issued(end_entity)
                } else {
                    signs_itself(end_entity, &self.provider, now)
                }
        };
        match untrusted {
            Some(ca) if self_signed(ca) => Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::Other(rustls::OtherError(Arc::new(SelfSigned { ca }))),
            )),
            _ => Err(error),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The TLS step of a connection: the service's hosts get the client's trust with its pins,
/// anything else (an `https://` proxy) the trust without pins.
#[derive(Clone)]
pub(crate) struct TlsConnector {
    service: Arc<ClientConfig>,
    other: Arc<ClientConfig>,
    service_hosts: Vec<String>,
    log: Option<LogHook>,
}

impl fmt::Debug for TlsConnector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConnector")
            .field("service_hosts", &self.service_hosts)
            .finish_non_exhaustive()
    }
}

impl TlsConnector {
    pub(crate) fn new(
        trust: &Trust,
        service_hosts: Vec<String>,
        log: Option<LogHook>,
    ) -> Result<TlsConnector, Error> {
        Ok(TlsConnector {
            service: trust.client_config(true)?,
            other: trust.client_config(false)?,
            service_hosts,
            log,
        })
    }
}

/// The host of a URI without IPv6 brackets.
fn bare_host(uri: &ureq::http::Uri) -> Option<&str> {
    uri.host()
        .map(|host| host.trim_start_matches('[').trim_end_matches(']'))
}

impl TlsConnector {
    /// The configuration for `host`, and whether it is one of the service's hosts (with the
    /// pins) rather than another (an `https://` proxy, without them).
    pub(crate) fn config_for(&self, host: &str) -> (Arc<ClientConfig>, bool) {
        if self.service_hosts.iter().any(|known| known == host) {
            (Arc::clone(&self.service), true)
        } else {
            (Arc::clone(&self.other), false)
        }
    }
}

impl<In: Transport> Connector<In> for TlsConnector {
    type Out = Either<In, TlsTransport>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        let Some(transport) = chained else {
            return Ok(None);
        };
        if !details.needs_tls() || transport.is_tls() {
            return Ok(Some(Either::A(transport)));
        }
        let host = bare_host(details.uri).ok_or(ureq::Error::Tls("no host to verify"))?;
        let (config, service) = self.config_for(host);
        let name = ServerName::try_from(host.to_owned())
            .map_err(|_| ureq::Error::Tls("the host is not a valid TLS server name"))?;
        let mut connection = ClientConnection::new(config, name)?;
        let mut socket = TransportAdapter::new(transport.boxed(), details.current_time.clone());
        // The handshake gets what is left of the connect step's time, not a new budget.
        let mut timeout = details.timeout;
        {
            use ureq::unversioned::transport::time::{Duration, Instant};
            if let (Duration::Exact(after), Instant::Exact(now), Instant::Exact(start)) =
                (timeout.after, (details.current_time)(), details.now)
            {
                timeout.after = after
                    .saturating_sub(now.saturating_duration_since(start))
                    .into();
            }
        }
        socket.set_timeout(timeout);
        if let Err(err) = connection.complete_io(&mut socket) {
            log(&self.log, LogLevel::Warn, || {
                // In the words of the call's own refusal where rustls refused.
                let why = err
                    .get_ref()
                    .and_then(|inner| inner.downcast_ref::<rustls::Error>())
                    .map_or_else(|| err.to_string(), |tls| refusal(tls).1);
                format!("TLS handshake with {host} failed: {why}")
            });
            // A timeout of the transport comes back wrapped: unwrap it, it is classified as a
            // connect timeout.
            if err.get_ref().is_some_and(|inner| inner.is::<ureq::Error>()) {
                if let Some(Ok(inner)) = err.into_inner().map(|i| i.downcast::<ureq::Error>()) {
                    return Err(*inner);
                }
                return Err(ureq::Error::Tls("the TLS handshake failed"));
            }
            let refused_by_tls = err
                .get_ref()
                .is_some_and(|inner| inner.is::<rustls::Error>());
            let timed_out = matches!(
                err.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            );
            if refused_by_tls || timed_out {
                return Err(err.into());
            }
            // Closed or reset during the handshake: no request byte was sent.
            return Err(ureq::Error::Tls(HANDSHAKE_CLOSED));
        }
        log(&self.log, LogLevel::Info, || {
            format!(
                "TLS handshake with {host}{} done ({:?})",
                if service { "" } else { " (proxy)" },
                connection
                    .protocol_version()
                    .map_or("?".to_owned(), |v| format!("{v:?}"))
            )
        });
        Ok(Some(Either::B(TlsTransport::established(
            connection,
            socket,
            details.config,
        ))))
    }
}

/// The error of a connection that closed or broke during the TLS handshake (no request byte
/// was sent).
pub(crate) const HANDSHAKE_CLOSED: &str =
    "the server closed the connection during the TLS handshake";

/// A TLS connection made by [`TlsConnector`].
pub(crate) struct TlsTransport {
    buffers: WipedBuffers,
    stream: StreamOwned<ClientConnection, TransportAdapter>,
}

impl TlsTransport {
    /// A TLS connection over `socket` whose handshake `connection` finished, with buffers of
    /// the sizes `config` gives.
    pub(crate) fn established(
        connection: ClientConnection,
        socket: TransportAdapter,
        config: &ureq::config::Config,
    ) -> TlsTransport {
        TlsTransport {
            buffers: WipedBuffers::new(config.input_buffer_size(), config.output_buffer_size()),
            stream: StreamOwned::new(connection, socket),
        }
    }
}

impl fmt::Debug for TlsTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsTransport").finish_non_exhaustive()
    }
}

impl Transport for TlsTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        self.stream.get_mut().set_timeout(timeout);
        let output = &self.buffers.output()[..amount];
        self.stream.write_all(output)?;
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.stream.get_mut().set_timeout(timeout);
        let input = self.buffers.input_append_buf();
        let amount = self.stream.read(input)?;
        self.buffers.input_appended(amount);
        Ok(amount > 0)
    }

    fn is_open(&mut self) -> bool {
        self.stream.get_mut().get_mut().is_open()
    }

    fn is_tls(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_parse_and_bad_ones_are_refused() {
        let mut trust = Trust::default();
        trust
            .add_pin("sha256/47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
            .expect("a valid pin");
        assert!(trust.add_pin("not base64!").is_err());
        assert!(trust.add_pin("AAAA").is_err(), "3 bytes");
        assert!(Trust::default().add_roots_pem(b"nothing here").is_err());
        let none = Trust {
            mozilla: false,
            ..Trust::default()
        };
        assert!(!none.is_usable());
        assert!(trust.client_config(true).is_ok());
    }

    #[test]
    fn no_early_data_is_ever_sent() {
        // Init and the logins are not replay-safe: 0-RTT data stays off, for the service's
        // hosts and for proxies.
        let trust = Trust::default();
        for with_pins in [true, false] {
            let config = trust.client_config(with_pins).expect("config");
            assert!(!config.enable_early_data);
        }
    }
}
