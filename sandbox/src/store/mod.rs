//! The store: everything the sandbox remembers, behind one lock. `state.rs` holds the state
//! and the helpers the actions use, `records.rs` the records it is made of, `shared.rs` the
//! lock and the state file's save loop; the back office (`back_office.rs`), the console's
//! JSON views (`views.rs`), the request log (`log.rs`) and the state file (`persist.rs`) each
//! add their operations on the state; `faults.rs` is the fault table, `keys.rs` the random
//! keys the store issues.
//!
//! Above the inspector (it keeps the inspector's details and lends it `Known`), below the
//! service and the HTTP side.

mod back_office;
pub mod faults;
mod keys;
mod log;
mod persist;
mod records;
mod shared;
mod state;
mod views;

pub use keys::{gen_api_password, gen_card_key, gen_token};
pub use persist::Persist;
pub use records::{
    AccountRec, Activation, CardRec, CardState, LogEntry, Session, SessionKind, SocialKind,
    SocialPending, VerificationStats,
};
pub use shared::Shared;
pub use state::State;
