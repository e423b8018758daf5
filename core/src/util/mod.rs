//! Small helpers the protocol stands on, none of them about the service: buffers wiped when
//! freed ([`wiped`], public), a call's deadline ([`deadline`]), the process a thing was made
//! in across forks ([`process`]), tables of texts packed into one string ([`packed`]), and a
//! comparison of secrets that takes the same time wherever they differ ([`constant_eq`]).

pub(crate) mod deadline;
pub(crate) mod packed;
pub(crate) mod process;
pub mod wiped;

/// Whether `a` and `b` are equal, in a time that does not depend on where they differ (for
/// hashes and checks of secrets).
pub(crate) fn constant_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
