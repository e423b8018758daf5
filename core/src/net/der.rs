//! The few DER elements the library reads of a certificate (its issuer and subject for the
//! TLS checks, its names and validity for the doctor): one element at a time, lengths up to
//! four bytes, never a panic on short or lying input.

/// One DER element: its tag, all of its bytes, and what follows it.
pub(crate) struct Element<'a> {
    pub(crate) tag: u8,
    pub(crate) content: &'a [u8],
    pub(crate) whole: &'a [u8],
    pub(crate) rest: &'a [u8],
}

/// The DER element at the start of `der`.
pub(crate) fn element(der: &[u8]) -> Option<Element<'_>> {
    let (&tag, rest) = der.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (length, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let (bytes, rest) = rest.split_at(count);
        let length = bytes
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (length, rest)
    };
    let header = der.len() - rest.len();
    Some(Element {
        tag,
        content: rest.get(..length)?,
        whole: der.get(..header.checked_add(length)?)?,
        rest: rest.get(length..)?,
    })
}
