//! What the doctor shows of a certificate, as `openssl x509 -noout -text -fingerprint`
//! would: its subject, its issuer, its validity, the names it is for (subjectAltName), its
//! SHA-256 fingerprint and its key's pin (base64 SHA-256 of the SubjectPublicKeyInfo, as the
//! client's pins are written). Read from the DER (`net/der.rs`: the fields only; the chain's
//! checks are rustls's and webpki's).

use std::net::{Ipv4Addr, Ipv6Addr};

use base64::Engine;
use serde_json::{json, Value};

use super::report::rfc3339_of;
use crate::net::der::element;

/// The names and dates of one certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CertFacts {
    /// `CN=..., O=...` of the subject.
    pub(crate) subject: String,
    /// The same of the issuer.
    pub(crate) issuer: String,
    /// Not valid before, Unix seconds.
    pub(crate) not_before: i64,
    /// Not valid after, Unix seconds.
    pub(crate) not_after: i64,
    /// The DNS names and addresses of its subjectAltName.
    pub(crate) names: Vec<String>,
    /// SHA-256 of the certificate, `AB:CD:...` as openssl prints it.
    pub(crate) sha256: String,
    /// `sha256/` and the base64 SHA-256 of its SubjectPublicKeyInfo: the pin of its key.
    pub(crate) pin: String,
}

impl CertFacts {
    /// As an entry of the JSON's `chain`.
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "subject": self.subject,
            "issuer": self.issuer,
            "not_before": rfc3339_of(self.not_before),
            "not_after": rfc3339_of(self.not_after),
            "names": self.names,
            "sha256": self.sha256,
            "spki_pin": self.pin,
        })
    }
}

/// `sha256/` and the base64 of a SHA-256 hash: a pin as the client's options write it.
pub(crate) fn pin_text(hash: &[u8]) -> String {
    format!(
        "sha256/{}",
        base64::engine::general_purpose::STANDARD.encode(hash)
    )
}

/// Reads a certificate's subject, issuer and validity; `None` when it does not parse.
pub(crate) fn facts(der: &[u8]) -> Option<CertFacts> {
    let certificate = element(der)?.content;
    let tbs = element(certificate)?.content;
    let first = element(tbs)?;
    let (tag, mut rest) = (first.tag, first.rest);
    // [0] version, then the serial; without a version the serial came first.
    if tag == 0xa0 {
        rest = element(rest)?.rest;
    }
    let rest = element(rest)?.rest; // signature algorithm
    let issuer = element(rest)?;
    let (issuer, rest) = (issuer.content, issuer.rest);
    let validity = element(rest)?;
    let (validity, rest) = (validity.content, validity.rest);
    let subject = element(rest)?;
    let (subject, rest) = (subject.content, subject.rest);
    let spki = element(rest)?;
    let names = alt_names(spki.rest);
    let digest = |data: &[u8]| ring::digest::digest(&ring::digest::SHA256, data);
    let before = element(validity)?;
    let (before_tag, before, rest) = (before.tag, before.content, before.rest);
    let after = element(rest)?;
    let (after_tag, after) = (after.tag, after.content);
    Some(CertFacts {
        subject: name(subject),
        issuer: name(issuer),
        not_before: time(before_tag, before)?,
        not_after: time(after_tag, after)?,
        names,
        sha256: digest(der)
            .as_ref()
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(":"),
        pin: pin_text(digest(spki.whole).as_ref()),
    })
}

/// The DNS names and IP addresses of the subjectAltName extension, read from what follows
/// the SubjectPublicKeyInfo (the optional unique identifiers, then `[3]` extensions).
fn alt_names(mut rest: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    while let Some(field) = element(rest) {
        rest = field.rest;
        if field.tag != 0xa3 {
            continue;
        }
        let Some(extensions) = element(field.content) else {
            break;
        };
        let mut list = extensions.content;
        while let Some(extension) = element(list) {
            list = extension.rest;
            let Some(oid) = element(extension.content) else {
                continue;
            };
            // 2.5.29.17, subjectAltName.
            if oid.content != [0x55, 0x1d, 0x11] {
                continue;
            }
            let mut value = element(oid.rest);
            // An optional `critical` BOOLEAN before the OCTET STRING.
            if value.as_ref().is_some_and(|v| v.tag == 0x01) {
                value = value.and_then(|v| element(v.rest));
            }
            let Some(general) = value.and_then(|v| element(v.content)) else {
                continue;
            };
            let mut entries = general.content;
            while let Some(entry) = element(entries) {
                entries = entry.rest;
                match (entry.tag, entry.content.len()) {
                    (0x82, _) => names.push(String::from_utf8_lossy(entry.content).into_owned()),
                    (0x87, 4) => {
                        let mut octets = [0u8; 4];
                        octets.copy_from_slice(entry.content);
                        names.push(Ipv4Addr::from(octets).to_string());
                    }
                    (0x87, 16) => {
                        let mut octets = [0u8; 16];
                        octets.copy_from_slice(entry.content);
                        names.push(Ipv6Addr::from(octets).to_string());
                    }
                    _ => {}
                }
            }
        }
    }
    names
}

/// `CN=..., O=...` of a Name's contents (the attributes the doctor knows, in order).
fn name(mut rdns: &[u8]) -> String {
    let mut parts = Vec::new();
    while let Some(set) = element(rdns) {
        let (set, rest) = (set.content, set.rest);
        rdns = rest;
        let mut attributes = set;
        while let Some(pair) = element(attributes) {
            let (pair, rest) = (pair.content, pair.rest);
            attributes = rest;
            let Some(oid) = element(pair) else {
                continue;
            };
            let (oid, value) = (oid.content, oid.rest);
            let label = match oid {
                [0x55, 0x04, 0x03] => "CN",
                [0x55, 0x04, 0x06] => "C",
                [0x55, 0x04, 0x07] => "L",
                [0x55, 0x04, 0x08] => "ST",
                [0x55, 0x04, 0x0a] => "O",
                [0x55, 0x04, 0x0b] => "OU",
                _ => continue,
            };
            if let Some(text) = element(value).map(|e| e.content) {
                parts.push(format!("{label}={}", String::from_utf8_lossy(text)));
            }
        }
    }
    if parts.is_empty() {
        "(no name)".to_owned()
    } else {
        parts.join(", ")
    }
}

/// A UTCTime (0x17) or GeneralizedTime (0x18) in Unix seconds.
fn time(tag: u8, text: &[u8]) -> Option<i64> {
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let (year, at) = match tag {
        0x17 => {
            let yy = digits(0..2)?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, 2)
        }
        0x18 => (digits(0..4)?, 4),
        _ => return None,
    };
    let month = digits(at..at + 2)?;
    let day = digits(at + 2..at + 4)?;
    let hour = digits(at + 4..at + 6)?;
    let minute = digits(at + 6..at + 8)?;
    let second = digits(at + 8..at + 10)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hour * 3600 + minute * 60 + second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_truncated_input() {
        assert_eq!(time(0x17, b"700101000000Z"), Some(0));
        assert_eq!(time(0x18, b"20000229000000Z"), Some(951_782_400));
        assert_eq!(time(0x17, b"99123123595"), None);
        assert_eq!(facts(&[0x30, 0x82, 0x01]), None);
        assert_eq!(facts(&[]), None);
    }
}
