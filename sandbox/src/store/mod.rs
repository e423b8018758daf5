//! The store: everything the sandbox remembers, behind one lock.

mod back_office;
pub mod faults;
mod log;
mod persist;
mod records;
mod shared;
mod state;
mod views;

pub use log::LogEntry;
pub use persist::{Persist, Saved};
pub use records::*;
pub use shared::Shared;
pub use state::*;
