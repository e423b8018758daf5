//! Many short texts of a table kept as one string and where each ends, for lookups at run
//! time: a `&'static str` per text costs 16 bytes and a 24-byte relocation in the shipped
//! library, an end 2 bytes. The tables of end-user messages (`codes`) and of the doctor's
//! sentences (`diagnose::table`) are read through this; their `&str` rows stay for the
//! generators and the tests, which the library does not link.

/// `N` texts, one after the other in `all`; the `i`th ends at `ends[i]`.
pub(crate) struct Packed<const N: usize> {
    all: &'static str,
    ends: [u16; N],
}

impl<const N: usize> Packed<N> {
    /// The texts of `all` (their concatenation) cut at `lengths` (each one's length in bytes,
    /// in order). Checked when the program is compiled: the lengths add up to `all`'s, and
    /// `all` fits the 2-byte ends.
    pub(crate) const fn new(all: &'static str, lengths: [usize; N]) -> Self {
        let mut ends = [0u16; N];
        let mut end = 0;
        let mut i = 0;
        while i < N {
            end += lengths[i];
            assert!(
                end <= u16::MAX as usize,
                "the texts are longer than 64 KiB in all"
            );
            ends[i] = end as u16;
            i += 1;
        }
        assert!(end == all.len(), "the lengths do not add up to the texts");
        Packed { all, ends }
    }

    /// The `index`th text ("" past the last).
    pub(crate) fn get(&self, index: usize) -> &'static str {
        let start = match index.checked_sub(1) {
            Some(before) => self
                .ends
                .get(before)
                .map_or(usize::MAX, |&end| usize::from(end)),
            None => 0,
        };
        let end = self.ends.get(index).map_or(0, |&end| usize::from(end));
        self.all.get(start..end).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_text_is_cut_where_its_length_says() {
        static TEXTS: Packed<4> = Packed::new(concat!("ab", "", "请", "c"), [2, 0, 3, 1]);
        let texts: Vec<&str> = (0..4).map(|i| TEXTS.get(i)).collect();
        assert_eq!(texts, ["ab", "", "请", "c"]);
        assert_eq!(TEXTS.get(4), "");
        assert_eq!(TEXTS.get(usize::MAX), "");
    }
}
