//! Small helpers the protocol stands on, none of them about the service: buffers wiped when
//! freed ([`wiped`], public), a call's deadline ([`deadline`]), the process a thing was made
//! in across forks ([`process`]), and tables of texts packed into one string ([`packed`]).

pub(crate) mod deadline;
pub(crate) mod packed;
pub(crate) mod process;
pub mod wiped;
