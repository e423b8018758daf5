//! The protocol inspector: what the request log keeps of each service request beyond its
//! one-line entry (`detail.rs`), how secrets are shown everywhere (`mask.rs`), and the
//! diagnoses of the mistakes client writers make (`diagnose/`, one file per thing checked).
//!
//! Below the store: the store keeps the inspector's details and lends the diagnoses a view
//! of its records (`Known`); the inspector reads nothing else of the sandbox.

mod detail;
pub mod diagnose;
mod mask;

pub use detail::{detail, Answered, Connection, Detail, Meta, Read, DETAILS_KEPT};
pub use diagnose::{Known, Retired};
pub use mask::{mask_path, mask_secret};
