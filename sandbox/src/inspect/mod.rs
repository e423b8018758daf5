//! The inspector.

pub mod detail;
pub mod diagnose;

pub use detail::*;
