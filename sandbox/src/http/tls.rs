//! The https listener's certificate: generated at start (a CA and a server certificate for
//! `127.0.0.1`, `::1` and `localhost`) or read from PEM.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose, SanType,
};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::TlsAcceptor;

use crate::fixtures::Tls;

/// A ready acceptor and, when generated, the CA's PEM.
pub struct Prepared {
    pub acceptor: TlsAcceptor,
    pub ca_pem: Option<String>,
}

fn invalid(msg: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, msg)
}

/// Generates a CA and a server certificate signed by it: `(ca_pem, chain_pem, key_pem)`.
pub fn generate() -> Result<(String, String, String), rcgen::Error> {
    let ca_key = KeyPair::generate()?;
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "verify-sandbox local CA");
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca.self_signed(&ca_key)?;

    let key = KeyPair::generate()?;
    let mut server = CertificateParams::new(Vec::<String>::new())?;
    server
        .distinguished_name
        .push(DnType::CommonName, "verify-sandbox");
    server.subject_alt_names = vec![
        SanType::DnsName("localhost".try_into()?),
        SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        SanType::IpAddress(IpAddr::V6(Ipv6Addr::LOCALHOST)),
    ];
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let cert = server.signed_by(&key, &ca_cert, &ca_key)?;
    Ok((ca_cert.pem(), cert.pem(), key.serialize_pem()))
}

/// Builds the acceptor of a TLS setting.
pub fn prepare(tls: &Tls) -> std::io::Result<Prepared> {
    let (ca_pem, chain, key) = match tls {
        Tls::Generated => {
            let (ca, chain, key) =
                generate().map_err(|e| invalid(format!("cannot generate a certificate: {e}")))?;
            (Some(ca), chain, key)
        }
        Tls::Pem { cert_chain, key } => (None, cert_chain.clone(), key.clone()),
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(chain.as_bytes())
        .collect::<Result<_, _>>()
        .map_err(|e| invalid(format!("invalid certificate PEM: {e}")))?;
    if certs.is_empty() {
        return Err(invalid("no certificate in the certificate PEM".to_string()));
    }
    let key = PrivateKeyDer::from_pem_slice(key.as_bytes())
        .map_err(|e| invalid(format!("invalid private key PEM: {e}")))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid(format!("TLS setup: {e}")))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| invalid(format!("certificate and key do not fit: {e}")))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Prepared {
        acceptor: TlsAcceptor::from(Arc::new(config)),
        ca_pem,
    })
}
