//! The HTTP side.

pub mod console;
pub mod control;
pub mod door;
pub mod server;
pub mod tls;
