//! The HTTP side, the top layer below `Sandbox`: the server (`server.rs`: accept loop,
//! connections, routing, body cap, faults on the way out), the door that guards the back
//! office (`door.rs`), the control API (`control.rs`), the console's files (`console.rs` and
//! `console/`) and the https listener's certificates (`tls.rs`).

mod console;
mod control;
pub mod door;
pub mod server;
pub mod tls;
