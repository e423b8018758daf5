//! The process a connection, a keeper or a thread belongs to.
//!
//! A child made by `fork` inherits the parent's memory (kept-alive connections, a keeper's
//! state, thread handles) but only the thread that forked. What it inherited is the
//! parent's: a connection's socket is shared with the parent (a request written on it
//! would cross the parent's replies), and a thread handle names a thread that does not
//! exist in the child (joining it fails). So each of them records the process it was made
//! in ([`Born`]), and in another process it is set aside without a byte written, a socket
//! shut down or a thread joined: the pool drops such a connection unprobed (its file
//! descriptor closes; the parent's stays open) and connects again, a keeper reports that
//! it ended, and its threads' handles are forgotten.
//!
//! The count of forks comes from `verify-machine-sys` (`pthread_atfork`): one atomic load,
//! no system call.

use std::thread::JoinHandle;

/// The process something was made in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Born(u64);

impl Born {
    /// The calling process.
    pub(crate) fn here() -> Born {
        Born(verify_machine_sys::fork_generation())
    }

    /// Whether the calling process is the one this was made in (false in a forked child).
    pub(crate) fn is_here(self) -> bool {
        self == Born::here()
    }
}

/// A thread started by the library, joined only in the process that started it: in a forked
/// child its handle is forgotten (neither joined nor detached: the thread is the parent's).
pub(crate) struct Thread {
    handle: Option<JoinHandle<()>>,
    born: Born,
}

impl Thread {
    /// The handle of a thread just started by the calling process.
    pub(crate) fn new(handle: JoinHandle<()>) -> Thread {
        Thread {
            handle: Some(handle),
            born: Born::here(),
        }
    }

    /// Whether the thread runs in the calling process.
    pub(crate) fn is_here(&self) -> bool {
        self.born.is_here()
    }

    /// Whether there is nothing left to wait for: the thread ended, or it is another
    /// process's.
    pub(crate) fn is_finished(&self) -> bool {
        !self.is_here() || self.handle.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Waits for the thread to end (in the process that started it).
    pub(crate) fn join(mut self) {
        if let Some(handle) = self.handle.take() {
            if self.born.is_here() {
                let _ = handle.join();
            } else {
                std::mem::forget(handle);
            }
        }
    }
}

impl Drop for Thread {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            if !self.born.is_here() {
                std::mem::forget(handle);
            }
        }
    }
}
