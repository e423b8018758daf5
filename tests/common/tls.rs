//! Certificates for the TLS tests, made with rcgen.

use base64::Engine;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, SanType};

/// A certificate chain for a sandbox: a CA, and a leaf for `names` valid between the given
/// years (signed by the CA, or self-signed).
pub struct Certs {
    pub ca_pem: String,
    pub chain_pem: String,
    pub key_pem: String,
    /// base64 SHA-256 of the leaf's SubjectPublicKeyInfo.
    pub leaf_pin: String,
}

pub fn pin_of(key: &KeyPair) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, &key.public_key_der());
    base64::engine::general_purpose::STANDARD.encode(digest.as_ref())
}

pub fn certs(names: &[&str], years: (i32, i32), self_signed: bool) -> Certs {
    let ca_key = KeyPair::generate().expect("ca key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("ca params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    // Names of their own: OpenSSL (the libcurl client of the network lab) takes a leaf whose
    // subject is its issuer's name for a self-signed certificate.
    ca.distinguished_name
        .push(DnType::CommonName, "verify tests CA");
    let ca_cert = ca.self_signed(&ca_key).expect("ca");
    let key = KeyPair::generate().expect("leaf key");
    let mut leaf = CertificateParams::new(Vec::<String>::new()).expect("leaf params");
    leaf.distinguished_name
        .push(DnType::CommonName, "verify tests server");
    leaf.subject_alt_names = names
        .iter()
        .map(|name| match name.parse() {
            Ok(ip) => SanType::IpAddress(ip),
            Err(_) => SanType::DnsName((*name).try_into().expect("dns name")),
        })
        .collect();
    leaf.not_before = rcgen::date_time_ymd(years.0, 1, 1);
    leaf.not_after = rcgen::date_time_ymd(years.1, 1, 1);
    let cert = if self_signed {
        leaf.self_signed(&key).expect("self-signed leaf")
    } else {
        leaf.signed_by(&key, &ca_cert, &ca_key).expect("leaf")
    };
    Certs {
        ca_pem: ca_cert.pem(),
        chain_pem: cert.pem(),
        key_pem: key.serialize_pem(),
        leaf_pin: pin_of(&key),
    }
}
