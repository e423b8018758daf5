//! What a client trusts: Mozilla's roots (the default), the operating system's store, extra
//! roots from PEM, and pinned keys (SHA-256 of SubjectPublicKeyInfo). A setting of the
//! client ([`crate::Options::trust`]); the TLS step that applies it, and what pinning
//! means there, is `net/tls.rs` ([`crate::tls`]). It stands first in this folder: the
//! client's options hold it, below every connection.

use std::fmt;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

use crate::error::Error;

/// The length of a SHA-256 pin.
pub(crate) const PIN_LEN: usize = 32;

/// What a client trusts. `Default`: Mozilla's roots.
#[derive(Clone, PartialEq, Eq)]
pub struct Trust {
    /// Mozilla's root certificates (the webpki-roots crate). Default on.
    pub mozilla: bool,
    /// The operating system's trust store (rustls-platform-verifier). Default off.
    pub system: bool,
    pub(crate) roots: Vec<CertificateDer<'static>>,
    pub(crate) pins: Vec<[u8; PIN_LEN]>,
}

impl Default for Trust {
    fn default() -> Self {
        Trust {
            mozilla: true,
            system: false,
            roots: Vec::new(),
            pins: Vec::new(),
        }
    }
}

impl fmt::Debug for Trust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trust")
            .field("mozilla", &self.mozilla)
            .field("system", &self.system)
            .field("roots", &self.roots.len())
            .field("pins", &self.pins.len())
            .finish()
    }
}

impl Trust {
    /// Trusts nothing yet: no store, no root, no pin (add some before use).
    pub fn nothing() -> Trust {
        Trust {
            mozilla: false,
            ..Trust::default()
        }
    }

    /// Adds every certificate of a PEM text as a trusted root. An error when there is
    /// none, or one does not parse.
    pub fn add_roots_pem(&mut self, pem: &[u8]) -> Result<usize, Error> {
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|err| {
                Error::invalid_argument(format!("root certificate PEM does not parse: {err}"))
            })?;
            webpki::anchor_from_trusted_cert(&cert).map_err(|err| {
                Error::invalid_argument(format!("root certificate is not usable: {err}"))
            })?;
            self.roots.push(cert);
            added += 1;
        }
        if added == 0 {
            return Err(Error::invalid_argument(
                "no `-----BEGIN CERTIFICATE-----` block in the root certificate PEM",
            ));
        }
        Ok(added)
    }

    /// Adds the certificates of a PEM file as trusted roots.
    pub fn add_roots_file(&mut self, path: &std::path::Path) -> Result<usize, Error> {
        let pem = std::fs::read(path).map_err(|err| {
            Error::invalid_argument(format!(
                "cannot read {}: {err}",
                crate::error::quoted(&path.to_string_lossy())
            ))
        })?;
        self.add_roots_pem(&pem)
    }

    /// Pins a key: the base64 of the SHA-256 of its DER SubjectPublicKeyInfo, as
    /// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst
    /// -sha256 -binary | base64` prints. A `sha256/` prefix is accepted.
    pub fn add_pin(&mut self, pin: &str) -> Result<(), Error> {
        use base64::Engine;
        let text = pin.trim();
        let text = text.strip_prefix("sha256/").unwrap_or(text);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|err| Error::invalid_argument(format!("pin is not base64: {err}")))?;
        let pin: [u8; PIN_LEN] = bytes.try_into().map_err(|bytes: Vec<u8>| {
            Error::invalid_argument(format!(
                "pin is {} bytes, not the 32 of a SHA-256",
                bytes.len()
            ))
        })?;
        self.pins.push(pin);
        Ok(())
    }

    /// Whether anything can be trusted at all.
    pub fn is_usable(&self) -> bool {
        self.mozilla || self.system || !self.roots.is_empty() || !self.pins.is_empty()
    }

    /// How many keys are pinned.
    pub fn pin_count(&self) -> usize {
        self.pins.len()
    }
}
