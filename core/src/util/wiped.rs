//! Byte buffers and strings that hold secrets and are overwritten with zeros when dropped
//! ([`Wiped`]), whole allocation included.
//!
//! The writes are the `zeroize` crate's volatile writes, which the compiler may not remove,
//! made eight bytes at a time where the memory is aligned for it (`zeroize` on `[u64]`);
//! `zeroize::Zeroizing` writes a byte at a time, which costs about four instructions a byte
//! where the loop is not unrolled (`opt-level = "s"`, the release profile of this crate).
//! Fixed-size keys on the stack stay `Zeroizing<[u8; N]>`.

use std::fmt;
use std::ops::{Deref, DerefMut};

use zeroize::Zeroize;

/// Overwrites `bytes` with zeros through volatile writes, eight bytes a write where aligned.
pub(crate) fn wipe(bytes: &mut [u8]) {
    let (head, words, tail) = bytemuck::pod_align_to_mut::<u8, u64>(bytes);
    head.zeroize();
    words.zeroize();
    tail.zeroize();
}

/// What [`Wiped`] holds: an owner of one heap block that can be wiped whole.
pub trait Wipe {
    /// Overwrites the whole allocation (the spare capacity too) with zeros and leaves the
    /// value empty.
    fn wipe(&mut self);
}

impl Wipe for Vec<u8> {
    fn wipe(&mut self) {
        // The spare capacity is filled first (it may hold what a shorter length left behind),
        // so that the volatile writes cover the whole block; `resize` within the capacity
        // never reallocates.
        let capacity = self.capacity();
        self.resize(capacity, 0);
        wipe(self);
        self.clear();
    }
}

impl Wipe for String {
    fn wipe(&mut self) {
        // The same block as bytes, without `unsafe`: the string is left empty.
        std::mem::take(self).into_bytes().wipe();
    }
}

/// A `Vec<u8>` or `String` that is wiped ([`Wipe`]) when dropped; it derefs to what it holds.
/// A buffer that has to grow must be copied into a new `Wiped` (a `Vec` that grows in place
/// leaves its old block to the allocator unwiped).
#[derive(Clone)]
pub struct Wiped<T: Wipe>(T);

impl<T: Wipe> Wiped<T> {
    /// Takes `value`, to be wiped when dropped.
    pub fn new(value: T) -> Wiped<T> {
        Wiped(value)
    }

    /// Wipes the value now; it is left empty.
    pub fn wipe_now(&mut self) {
        self.0.wipe();
    }
}

impl<T: Wipe> Drop for Wiped<T> {
    fn drop(&mut self) {
        self.0.wipe();
    }
}

impl<T: Wipe> Deref for Wiped<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Wipe> DerefMut for Wiped<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T, U> AsRef<U> for Wiped<T>
where
    T: Wipe + AsRef<U>,
    U: ?Sized,
{
    fn as_ref(&self) -> &U {
        self.0.as_ref()
    }
}

/// Never shows what it holds: its length only.
impl<T: Wipe> fmt::Debug for Wiped<T>
where
    T: AsRef<[u8]>,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes: &[u8] = self.0.as_ref();
        write!(f, "Wiped({} bytes)", bytes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_of_any_length_and_alignment_is_zeroed() {
        let mut block = [0xA5u8; 64 + 7];
        for start in 0..8 {
            for len in 0..40 {
                block.fill(0xA5);
                let end = start + len;
                wipe(&mut block[start..end]);
                assert!(block[start..end].iter().all(|&b| b == 0), "{start}+{len}");
                assert!(
                    block[..start].iter().all(|&b| b == 0xA5),
                    "before {start}+{len}"
                );
                assert!(
                    block[end..].iter().all(|&b| b == 0xA5),
                    "after {start}+{len}"
                );
            }
        }
    }

    #[test]
    fn a_vec_is_wiped_up_to_its_capacity_in_place_and_left_empty() {
        let mut vec = Vec::with_capacity(100);
        vec.extend_from_slice(&[7u8; 100]);
        vec.truncate(10); // the other 90 bytes are still in the block
        let block = vec.as_ptr();
        vec.wipe();
        assert!(vec.is_empty());
        assert_eq!(vec.capacity(), 100);
        assert_eq!(vec.as_ptr(), block, "wiped where it was, not reallocated");
        // What the block holds past the length is not readable without `unsafe`: the memory
        // scan of the C tests (tests/c/memscan.rs) checks it in the whole process.
    }

    #[test]
    fn a_string_is_left_empty_and_its_debug_shows_no_content() {
        let mut secret = Wiped::new(String::from("hunter2-secret"));
        assert_eq!(format!("{secret:?}"), "Wiped(14 bytes)");
        secret.wipe_now();
        assert!(secret.is_empty());
        let bytes = Wiped::new(b"secret".to_vec());
        assert_eq!(format!("{bytes:?}"), "Wiped(6 bytes)");
    }
}
