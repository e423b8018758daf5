//! The store.

pub mod faults;
pub mod state;

pub use state::*;
