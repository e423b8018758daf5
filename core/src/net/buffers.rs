//! The input and output buffers of a connection ([`WipedBuffers`]), given to ureq through
//! its `Buffers` trait by our TCP and TLS transports (`tcp.rs`, `tls.rs`).
//!
//! They hold what a connection carries in clear: request heads (the session secret is in the
//! Handle path and in `X-Api-Password`), the Init body (the AppKey), and replies (tokens,
//! and the session secret of an Init reply). ureq's own `LazyBuffers` frees them as they
//! are; these are overwritten with zeros when the connection is dropped, and a buffer that
//! has to grow is copied into a new one and the old one wiped (a `Vec` that grows in place
//! would leave its old block to the allocator unwiped).

use crate::util::wiped::Wiped;
use ureq::unversioned::transport::Buffers;

/// The scratch space ureq asks for while it streams a request body (its own `LazyBuffers`
/// makes the same guarantee: the free end of the input buffer, grown to this if needed).
const MIN_TMP: usize = 10 * 1024;

/// A connection's buffers, allocated at the first use and wiped when dropped.
pub(crate) struct WipedBuffers {
    input_size: usize,
    output_size: usize,
    /// `input[consumed..filled]` is what was read and not yet used; `input[filled..]` is
    /// free.
    input: Wiped<Vec<u8>>,
    filled: usize,
    consumed: usize,
    output: Wiped<Vec<u8>>,
    /// Whether the last `input_consume` used any byte (see `Buffers::can_use_input`).
    progress: bool,
}

impl WipedBuffers {
    /// Buffers of `input_size` and `output_size` bytes (each at least 1), not allocated yet.
    pub(crate) fn new(input_size: usize, output_size: usize) -> WipedBuffers {
        WipedBuffers {
            input_size: input_size.max(1),
            output_size: output_size.max(1),
            input: Wiped::new(Vec::new()),
            filled: 0,
            consumed: 0,
            output: Wiped::new(Vec::new()),
            progress: false,
        }
    }

    fn allocate(&mut self) {
        if self.output.len() < self.output_size {
            self.output = Wiped::new(vec![0; self.output_size]);
        }
        if self.input.len() < self.input_size {
            self.grow_input(self.input_size);
        }
    }

    /// Makes the input buffer `size` bytes long, keeping what it holds.
    fn grow_input(&mut self, size: usize) {
        if size <= self.input.len() {
            return;
        }
        let mut bigger = Wiped::new(vec![0; size]);
        let held = self.input.get(..self.filled).unwrap_or_default();
        if let Some(start) = bigger.get_mut(..held.len()) {
            start.copy_from_slice(held);
        }
        // The old buffer is wiped as it is dropped here.
        self.input = bigger;
    }

    /// The free end of the input buffer, after moving what is unread to the front when
    /// everything was read or when the unread part sits in the second half.
    fn free_input(&mut self) -> &mut [u8] {
        if self.consumed > 0 {
            if self.consumed == self.filled {
                self.consumed = 0;
                self.filled = 0;
            } else if self.filled > self.input.len() / 2 {
                self.input.copy_within(self.consumed..self.filled, 0);
                self.filled -= self.consumed;
                self.consumed = 0;
            }
        }
        let filled = self.filled;
        self.input.get_mut(filled..).unwrap_or_default()
    }
}

impl Buffers for WipedBuffers {
    fn output(&mut self) -> &mut [u8] {
        self.allocate();
        &mut self.output
    }

    fn input(&self) -> &[u8] {
        self.input
            .get(self.consumed..self.filled)
            .unwrap_or_default()
    }

    fn input_append_buf(&mut self) -> &mut [u8] {
        self.allocate();
        self.free_input()
    }

    fn input_appended(&mut self, amount: usize) {
        // Never past the end, whatever a transport reports.
        self.filled = self.filled.saturating_add(amount).min(self.input.len());
    }

    fn input_consume(&mut self, amount: usize) {
        self.progress = amount > 0;
        self.consumed = self.consumed.saturating_add(amount).min(self.filled);
    }

    fn tmp_and_output(&mut self) -> (&mut [u8], &mut [u8]) {
        self.allocate();
        let free = self.free_input().len();
        if free < MIN_TMP {
            let size = self.filled.saturating_add(MIN_TMP);
            self.grow_input(size);
        }
        let filled = self.filled;
        let tmp = self.input.get_mut(filled..).unwrap_or_default();
        (tmp, &mut self.output)
    }

    fn can_use_input(&self) -> bool {
        self.consumed < self.filled && self.progress
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append(buffers: &mut WipedBuffers, bytes: &[u8]) {
        let free = buffers.input_append_buf();
        free[..bytes.len()].copy_from_slice(bytes);
        buffers.input_appended(bytes.len());
    }

    #[test]
    fn nothing_is_allocated_before_the_first_use() {
        let buffers = WipedBuffers::new(4096, 4096);
        assert!(buffers.input.capacity() == 0 && buffers.output.capacity() == 0);
        assert!(buffers.input().is_empty());
    }

    #[test]
    fn input_is_appended_consumed_and_moved_to_the_front() {
        let mut buffers = WipedBuffers::new(16, 8);
        assert_eq!(buffers.output().len(), 8);
        assert_eq!(buffers.input_append_buf().len(), 16);
        append(&mut buffers, b"HTTP/1.1 200");
        assert_eq!(buffers.input(), b"HTTP/1.1 200");
        assert!(!buffers.can_use_input(), "nothing consumed yet");
        buffers.input_consume(9);
        assert_eq!(buffers.input(), b"200");
        assert!(buffers.can_use_input());
        // The unread part sits in the second half: it moves to the front for more room.
        assert_eq!(buffers.input_append_buf().len(), 13);
        assert_eq!(buffers.input(), b"200");
        buffers.input_consume(3);
        assert!(!buffers.can_use_input(), "nothing left");
        // Everything read: the whole buffer is free again.
        assert_eq!(buffers.input_append_buf().len(), 16);
        // A transport cannot claim more than the room it had.
        buffers.input_appended(100);
        assert_eq!(buffers.input().len(), 16);
    }

    #[test]
    fn the_scratch_space_for_a_body_grows_the_input_and_keeps_what_it_holds() {
        let mut buffers = WipedBuffers::new(64, 32);
        append(&mut buffers, b"unread");
        let (tmp, output) = buffers.tmp_and_output();
        assert!(tmp.len() >= MIN_TMP, "{}", tmp.len());
        assert_eq!(output.len(), 32);
        assert_eq!(buffers.input(), b"unread");
    }
}
