//! The SMBIOS table as Windows' `GetSystemFirmwareTable('RSMB')` gives it: a small header
//! (`RawSMBIOSData`: calling method, major and minor version, DMI revision, length) and the
//! structures. Pure parsing, tested on Linux with made-up tables; every offset is checked.

/// What machine code v2 reads of the table.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Smbios {
    /// The system UUID (type 1), formatted as Linux's `product_uuid` shows it.
    pub uuid: Option<String>,
    /// Type 1 manufacturer and product name.
    pub system_vendor: Option<String>,
    pub system_product: Option<String>,
    /// Type 1 serial number.
    pub system_serial: Option<String>,
    /// Type 2 (baseboard) manufacturer, product and serial number.
    pub board_vendor: Option<String>,
    pub board_product: Option<String>,
    pub board_serial: Option<String>,
    /// Type 0 (BIOS) vendor.
    pub bios_vendor: Option<String>,
}

/// Reads `RawSMBIOSData`. A table that ends early gives what was read before the end.
pub(crate) fn parse_raw(raw: &[u8]) -> Smbios {
    let mut found = Smbios::default();
    if raw.len() < 8 {
        return found;
    }
    let version = (raw[1], raw[2]);
    let declared = u32::from_le_bytes([raw[4], raw[5], raw[6], raw[7]]) as usize;
    let end = raw.len().min(8usize.saturating_add(declared));
    let table = &raw[8..end];
    let mut at = 0usize;
    while at + 4 <= table.len() {
        let kind = table[at];
        let length = table[at + 1] as usize;
        if length < 4 || at + length > table.len() {
            break;
        }
        let formatted = &table[at..at + length];
        // The strings follow the formatted area and end with two NULs.
        let strings_at = at + length;
        let mut strings_end = strings_at;
        while strings_end + 1 < table.len()
            && !(table[strings_end] == 0 && table[strings_end + 1] == 0)
        {
            strings_end += 1;
        }
        let strings = &table[strings_at..strings_end.min(table.len())];
        let string = |offset: usize| -> Option<String> {
            let index = *formatted.get(offset)? as usize;
            if index == 0 {
                return None;
            }
            let bytes = strings.split(|b| *b == 0).nth(index - 1)?;
            let text = String::from_utf8_lossy(bytes).trim().to_owned();
            (!text.is_empty()).then_some(text)
        };
        match kind {
            0 if found.bios_vendor.is_none() => found.bios_vendor = string(4),
            1 if found.system_vendor.is_none() && found.uuid.is_none() => {
                found.system_vendor = string(4);
                found.system_product = string(5);
                found.system_serial = string(7);
                if let Some(bytes) = formatted.get(8..24) {
                    found.uuid = Some(format_uuid(bytes, version));
                }
            }
            2 if found.board_vendor.is_none() && found.board_serial.is_none() => {
                found.board_vendor = string(4);
                found.board_product = string(5);
                found.board_serial = string(7);
            }
            127 => break,
            _ => {}
        }
        // Past the two NULs.
        at = strings_end + 2;
    }
    found
}

/// The UUID's text: from SMBIOS 2.6 on, its first three fields are little-endian (as
/// Linux's `product_uuid` and Windows' own tools show it).
fn format_uuid(bytes: &[u8], version: (u8, u8)) -> String {
    let mut b = [0u8; 16];
    b.copy_from_slice(&bytes[..16]);
    if version >= (2, 6) {
        b[..4].reverse();
        b[4..6].reverse();
        b[6..8].reverse();
    }
    super::components::uuid_text(&b)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A `RawSMBIOSData` with types 0, 1 and 2 (version 3.2), for tests.
    pub(crate) fn table(uuid: [u8; 16], system: [&str; 3], board: [&str; 3]) -> Vec<u8> {
        let mut body = Vec::new();
        let strings = |list: &[&str]| {
            let mut out = Vec::new();
            for s in list {
                out.extend_from_slice(s.as_bytes());
                out.push(0);
            }
            if list.is_empty() {
                out.push(0);
            }
            out.push(0);
            out
        };
        // Type 0: vendor string 1.
        body.extend_from_slice(&[0, 0x12, 0, 0, 1]);
        body.extend_from_slice(&[0; 0x12 - 5]);
        body.extend(strings(&["American Megatrends"]));
        // Type 1: manufacturer 1, product 2, version 0, serial 3, UUID, wake-up, SKU, family.
        body.extend_from_slice(&[1, 0x1b, 1, 0, 1, 2, 0, 3]);
        body.extend_from_slice(&uuid);
        body.extend_from_slice(&[6, 0, 0]);
        body.extend(strings(&system));
        // Type 2: manufacturer 1, product 2, version 0, serial 3.
        body.extend_from_slice(&[2, 0x08, 2, 0, 1, 2, 0, 3]);
        body.extend(strings(&board));
        body.extend_from_slice(&[127, 4, 3, 0]);
        body.extend(strings(&[]));
        let mut raw = vec![0, 3, 2, 0];
        raw.extend_from_slice(&(body.len() as u32).to_le_bytes());
        raw.extend(body);
        raw
    }

    #[test]
    fn reads_uuid_serials_and_names() {
        let uuid = [
            0x44, 0x45, 0x4c, 0x4c, 0x42, 0x00, 0x10, 0x35, 0x80, 0x52, 0xb4, 0xc0, 0x4f, 0x4e,
            0x34, 0x32,
        ];
        let raw = table(
            uuid,
            ["Dell Inc.", "OptiPlex 7070", "7XK9Q2"],
            ["Dell Inc.", "0YNVJG", "/7XK9Q2/CN1296"],
        );
        let s = parse_raw(&raw);
        assert_eq!(
            s.uuid.as_deref(),
            Some("4C4C4544-0042-3510-8052-B4C04F4E3432")
        );
        assert_eq!(s.system_vendor.as_deref(), Some("Dell Inc."));
        assert_eq!(s.system_product.as_deref(), Some("OptiPlex 7070"));
        assert_eq!(s.system_serial.as_deref(), Some("7XK9Q2"));
        assert_eq!(s.board_product.as_deref(), Some("0YNVJG"));
        assert_eq!(s.board_serial.as_deref(), Some("/7XK9Q2/CN1296"));
        assert_eq!(s.bios_vendor.as_deref(), Some("American Megatrends"));
    }

    #[test]
    fn broken_tables_give_what_they_have() {
        let raw = table([7; 16], ["A", "B", "C"], ["D", "E", "F"]);
        for len in 0..raw.len() {
            let _ = parse_raw(&raw[..len]);
        }
        let mut lying = raw.clone();
        lying[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(parse_raw(&lying), parse_raw(&raw));
        // A string index past the strings is no string.
        let mut bad = raw.clone();
        let at = bad.iter().position(|b| *b == 1).expect("type 1") + 7;
        bad[at] = 9;
        let _ = parse_raw(&bad);
    }
}
