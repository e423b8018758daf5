//! Entry points of the fuzz targets (`fuzz/`) into parsers of outside data that are not
//! public API. Compiled only with `--cfg fuzzing` (cargo-fuzz sets it) and for the unit
//! tests, which replay the committed seeds (`fuzz/corpus/`): not part of the API.

use crate::machine::smbios;
use crate::machine::v2::Record;
use crate::offline::Verdict;

/// The SMBIOS reader (`RawSMBIOSData` as Windows' `GetSystemFirmwareTable('RSMB')` gives
/// it, malformed on real boards): never panics, reads the same twice, and every string it
/// gives comes from the table (no longer than it).
pub fn smbios_table(raw: &[u8]) {
    let found = smbios::parse_raw(raw);
    assert_eq!(found, smbios::parse_raw(raw), "the same table read twice");
    for text in [
        &found.uuid,
        &found.system_vendor,
        &found.system_product,
        &found.system_serial,
        &found.board_vendor,
        &found.board_product,
        &found.board_serial,
        &found.bios_vendor,
    ]
    .into_iter()
    .flatten()
    {
        // A UUID is 36 characters made from 16 bytes; other strings are (lossy) copies.
        assert!(
            text.len() <= raw.len().saturating_mul(3).max(36),
            "a string longer than the table could hold"
        );
    }
}

/// What the state folder's files hold once unsealed (a sealed file that opens is still
/// data from disk): the offline verdict, and machine code v2's record. A verdict that
/// parses writes and parses back to itself; a record that parses does too.
pub fn unsealed(bytes: &[u8]) {
    if let Some(verdict) = Verdict::from_bytes(bytes) {
        let again = Verdict::from_bytes(&verdict.to_bytes());
        assert_eq!(
            again.as_ref(),
            Some(&verdict),
            "a verdict written and read back"
        );
        let _ = verdict.expiry();
    }
    if let Some(record) = Record::decode(bytes) {
        assert!(
            Record::decode(record.encode().as_bytes()).is_some(),
            "a record written and read back"
        );
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Runs `target` on every committed seed of `fuzz/corpus/<name>/`.
    fn replay(name: &str, target: fn(&[u8])) {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/corpus")
            .join(name);
        let mut seeds = 0;
        for entry in std::fs::read_dir(&folder).expect("the corpus folder") {
            let path = entry.expect("an entry").path();
            target(&std::fs::read(&path).expect("a seed"));
            seeds += 1;
        }
        assert!(seeds >= 5, "{} holds {seeds} seeds", folder.display());
    }

    fn seed(path: &str) -> Vec<u8> {
        std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../fuzz/corpus")
                .join(path),
        )
        .expect("a seed")
    }

    #[test]
    fn the_smbios_seeds_pass() {
        replay("smbios", super::smbios_table);
        // The seeds reach the reader's every part: a whole table gives every field.
        let table = super::smbios::parse_raw(&seed("smbios/table-3.2"));
        assert_eq!(table.board_serial.as_deref(), Some("BOARD-9"));
        assert_eq!(table.system_product.as_deref(), Some("OptiPlex 7090"));
        assert!(table.uuid.is_some() && table.bios_vendor.is_some());
    }

    #[test]
    fn the_unsealed_seeds_pass() {
        replay("unsealed", super::unsealed);
        let verdict =
            super::Verdict::from_bytes(&seed("unsealed/verdict-card")).expect("a verdict");
        assert!(verdict.expiry().is_some());
        assert!(super::Record::decode(&seed("unsealed/record-v2")).is_some());
        assert!(super::Record::decode(&seed("unsealed/record-unknown-key")).is_some());
    }
}
