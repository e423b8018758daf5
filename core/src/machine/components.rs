//! The components of machine code v2: what each is, how a value is made comparable, which
//! values are placeholders that never count, and the salted hash kept of each.

use ring::hmac;

/// A component of machine code v2. The numbers are the C ABI's (`VERIFY_MACHINE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ComponentKind {
    /// The SMBIOS system UUID: Windows `GetSystemFirmwareTable`, Linux
    /// `/sys/class/dmi/id/product_uuid` (root only), macOS `IOPlatformUUID`.
    BoardUuid = 1,
    /// The board's serial number: SMBIOS baseboard serial (or the system serial where the
    /// board has none), Linux `/sys/class/dmi/id/board_serial` (root only), macOS
    /// `IOPlatformSerialNumber`.
    BoardSerial = 2,
    /// The operating system installation's identity: Windows `MachineGuid`, Linux
    /// `/etc/machine-id`. None on macOS.
    OsInstall = 3,
    /// The system volume: the Windows system volume's serial number, the Linux root file
    /// system's UUID. None on macOS.
    SystemVolume = 4,
    /// The processor's signature: CPUID vendor, family, model and stepping, and brand
    /// string (Linux elsewhere than x86: `/proc/cpuinfo`'s identification lines).
    Cpu = 5,
    /// The machine's model: the SMBIOS system and board manufacturer and product names
    /// (Linux: the DMI fields every user can read), macOS `hw.model`.
    Model = 6,
}

impl ComponentKind {
    /// Every kind, in order of weight (the heaviest first).
    pub const ALL: [ComponentKind; 6] = [
        ComponentKind::BoardUuid,
        ComponentKind::BoardSerial,
        ComponentKind::OsInstall,
        ComponentKind::SystemVolume,
        ComponentKind::Cpu,
        ComponentKind::Model,
    ];

    /// Its name, as in the explanation: `board_uuid`, `board_serial`, `os_install`,
    /// `system_volume`, `cpu`, `model`.
    pub fn name(self) -> &'static str {
        match self {
            ComponentKind::BoardUuid => "board_uuid",
            ComponentKind::BoardSerial => "board_serial",
            ComponentKind::OsInstall => "os_install",
            ComponentKind::SystemVolume => "system_volume",
            ComponentKind::Cpu => "cpu",
            ComponentKind::Model => "model",
        }
    }

    /// The kind of a name from [`ComponentKind::name`].
    pub fn from_name(name: &str) -> Option<ComponentKind> {
        ComponentKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
    }

    /// The kind of a C ABI number.
    pub fn from_number(number: i32) -> Option<ComponentKind> {
        ComponentKind::ALL
            .into_iter()
            .find(|kind| *kind as i32 == number)
    }

    /// Whether it identifies one machine (or one installation), rather than a model of
    /// machine: the processor and the model are shared by every machine of a model.
    pub fn identifies(self) -> bool {
        !matches!(self, ComponentKind::Cpu | ComponentKind::Model)
    }
}

/// What was read of each component; `None` where it could not be read or is a
/// placeholder.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Components {
    values: [Option<String>; 6],
    placeholders: [bool; 6],
}

impl std::fmt::Debug for Components {
    /// Values are never printed: which components were read, that is all.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut list = f.debug_map();
        for kind in ComponentKind::ALL {
            let state = match (self.get(kind), self.is_placeholder(kind)) {
                (Some(_), _) => "read",
                (None, true) => "placeholder",
                (None, false) => "unreadable",
            };
            list.entry(&kind.name(), &state);
        }
        list.finish()
    }
}

fn slot(kind: ComponentKind) -> usize {
    kind as usize - 1
}

impl Components {
    /// No component read.
    pub fn new() -> Components {
        Components::default()
    }

    /// Sets `kind` from a raw value: normalised, and dropped (kept as a placeholder) when it
    /// is empty or a known dummy value.
    pub fn set(&mut self, kind: ComponentKind, raw: &str) -> &mut Components {
        let value = normalise(kind, raw);
        let index = slot(kind);
        if value.is_empty() || is_placeholder(kind, &value) {
            self.values[index] = None;
            self.placeholders[index] = !value.is_empty() || !raw.trim().is_empty();
        } else {
            self.values[index] = Some(value);
            self.placeholders[index] = false;
        }
        self
    }

    /// Sets `kind` from an optional raw value (`None`: not readable).
    pub fn set_opt(&mut self, kind: ComponentKind, raw: Option<&str>) -> &mut Components {
        match raw {
            Some(raw) => self.set(kind, raw),
            None => self.clear(kind),
        }
    }

    /// Marks `kind` as not readable.
    pub fn clear(&mut self, kind: ComponentKind) -> &mut Components {
        self.values[slot(kind)] = None;
        self.placeholders[slot(kind)] = false;
        self
    }

    /// The normalised value of `kind`, if it was read and is not a placeholder.
    pub(crate) fn get(&self, kind: ComponentKind) -> Option<&str> {
        self.values[slot(kind)].as_deref()
    }

    /// Whether `kind` was read but is a placeholder (not counted).
    pub fn is_placeholder(&self, kind: ComponentKind) -> bool {
        self.placeholders[slot(kind)]
    }

    /// Whether `kind` was read and counts.
    pub fn has(&self, kind: ComponentKind) -> bool {
        self.get(kind).is_some()
    }
}

/// A comparable form: trimmed, inner runs of white space made one space; UUIDs and hex
/// identities uppercase (a UUID read on Linux and on Windows compares equal).
fn normalise(kind: ComponentKind, raw: &str) -> String {
    let words: Vec<&str> = raw
        .split(|c: char| c.is_whitespace() || c == '\0')
        .filter(|w| !w.is_empty())
        .collect();
    let text = words.join(" ");
    match kind {
        ComponentKind::BoardUuid | ComponentKind::OsInstall | ComponentKind::SystemVolume => {
            let inner = text.trim_start_matches('{').trim_end_matches('}');
            inner.to_ascii_uppercase()
        }
        _ => text,
    }
}

/// SMBIOS system UUIDs that many boards ship with, or that mean "not set": never an
/// identity. All-zero and all-FF UUIDs (and any made of one repeated digit) are caught by
/// the rule in [`is_placeholder`]; these are the others, in the byte order that Linux and
/// `GetSystemFirmwareTable` readers show (both orders where boards differ).
const PLACEHOLDER_UUIDS: &[&str] = &[
    // AMI's default ("03000200-0400-0500-0006-000700080009"), in both byte orders.
    "03000200-0400-0500-0006-000700080009",
    "00020003-0004-0005-0006-000700080009",
    // Dell boards whose service tag was never written.
    "4C4C4544-0000-2010-8020-80C04F202020",
    "44454C4C-0000-1020-8020-80C04F202020",
    // Sample values left in firmware.
    "12345678-1234-5678-90AB-CDDEEFAABBCC",
    "78563412-3412-7856-90AB-CDDEEFAABBCC",
    "01234567-89AB-CDEF-0123-456789ABCDEF",
    "00000000-0000-0000-0000-000000000001",
];

/// Serial numbers and names that mean "not set" (compared without case).
const PLACEHOLDER_TEXTS: &[&str] = &[
    "to be filled by o.e.m.",
    "to be filled by oem",
    "default string",
    "system serial number",
    "base board serial number",
    "chassis serial number",
    "system product name",
    "system manufacturer",
    "system version",
    "not specified",
    "not applicable",
    "not available",
    "none",
    "n/a",
    "na",
    "oem",
    "o.e.m.",
    "unknown",
    "invalid",
    "empty",
    "null",
    "serial",
    "123456789",
    "1234567890",
    "0123456789",
    "default",
];

/// Whether a normalised value is a placeholder of `kind`: a known dummy, or one character
/// repeated (`0`, `00000000-0000-...`, `FFFF...`, `xxxxxxxx`, `........`).
pub(crate) fn is_placeholder(kind: ComponentKind, value: &str) -> bool {
    let significant: Vec<char> = value.chars().filter(|c| *c != '-' && *c != ' ').collect();
    if significant.is_empty() {
        return true;
    }
    let repeated = significant
        .iter()
        .all(|c| c.eq_ignore_ascii_case(&significant[0]));
    match kind {
        ComponentKind::BoardUuid => repeated || PLACEHOLDER_UUIDS.contains(&value),
        ComponentKind::BoardSerial | ComponentKind::OsInstall | ComponentKind::SystemVolume => {
            repeated
                || PLACEHOLDER_TEXTS
                    .iter()
                    .any(|p| value.eq_ignore_ascii_case(p))
        }
        // A processor or model name may be short, but not a known "not set" text.
        ComponentKind::Cpu | ComponentKind::Model => PLACEHOLDER_TEXTS
            .iter()
            .any(|p| value.eq_ignore_ascii_case(p)),
    }
}

/// 16 bytes as a UUID's text (8-4-4-4-12 hex digits, uppercase).
#[cfg(any(target_os = "linux", windows, test))]
pub(crate) fn uuid_text(bytes: &[u8]) -> String {
    let hex = hex::encode_upper(bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Bytes of a component hash kept in the store.
pub(crate) const HASH_LEN: usize = 16;

/// The salted hash of a component's value, as kept in the store: HMAC-SHA256(salt,
/// "verify machine component" ‖ kind ‖ value), its first 16 bytes as hex. The value cannot
/// be recovered from it, and another program (salt) sees another hash.
pub(crate) fn component_hash(salt: &str, kind: ComponentKind, value: &str) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, salt.as_bytes());
    let mut context = hmac::Context::with_key(&key);
    context.update(b"verify machine component\0");
    context.update(kind.name().as_bytes());
    context.update(b"\0");
    context.update(value.as_bytes());
    hex::encode(&context.sign().as_ref()[..HASH_LEN])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_never_count() {
        let mut c = Components::new();
        for uuid in [
            "00000000-0000-0000-0000-000000000000",
            "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "03000200-0400-0500-0006-000700080009",
            "{03000200-0400-0500-0006-000700080009}",
            "4c4c4544-0000-2010-8020-80c04f202020",
        ] {
            c.set(ComponentKind::BoardUuid, uuid);
            assert!(!c.has(ComponentKind::BoardUuid), "{uuid} counted");
            assert!(c.is_placeholder(ComponentKind::BoardUuid), "{uuid}");
        }
        for serial in [
            "To be filled by O.E.M.",
            "Default string",
            "0",
            "  ",
            "None",
            "xxxxxxxx",
        ] {
            c.set(ComponentKind::BoardSerial, serial);
            assert!(!c.has(ComponentKind::BoardSerial), "{serial:?} counted");
        }
        c.set(
            ComponentKind::BoardUuid,
            "4c4c4544-0042-3510-8052-b4c04f4e3432",
        );
        assert!(c.has(ComponentKind::BoardUuid));
        c.set(ComponentKind::BoardSerial, " /7XK9Q2\t/CN1296 ");
        assert_eq!(c.get(ComponentKind::BoardSerial), Some("/7XK9Q2 /CN1296"));
        c.set_opt(ComponentKind::Cpu, None);
        assert!(!c.has(ComponentKind::Cpu) && !c.is_placeholder(ComponentKind::Cpu));
    }

    #[test]
    fn uuids_compare_without_case_or_braces() {
        let mut a = Components::new();
        let mut b = Components::new();
        a.set(
            ComponentKind::BoardUuid,
            "{5ac1e3f2-96b0-4f1e-8d55-0d3c2b1a0f9e}",
        );
        b.set(
            ComponentKind::BoardUuid,
            "5AC1E3F2-96B0-4F1E-8D55-0D3C2B1A0F9E\n",
        );
        assert_eq!(a, b);
    }

    #[test]
    fn hashes_are_salted_and_per_kind() {
        let one = component_hash("app", ComponentKind::OsInstall, "abc");
        assert_eq!(one.len(), HASH_LEN * 2);
        assert_ne!(one, component_hash("app2", ComponentKind::OsInstall, "abc"));
        assert_ne!(
            one,
            component_hash("app", ComponentKind::SystemVolume, "abc")
        );
        assert_eq!(one, component_hash("app", ComponentKind::OsInstall, "abc"));
    }

    #[test]
    fn values_never_show_in_debug() {
        let mut c = Components::new();
        c.set(ComponentKind::OsInstall, "secret-machine-guid");
        let shown = format!("{c:?}");
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.contains("os_install"), "{shown}");
    }
}
