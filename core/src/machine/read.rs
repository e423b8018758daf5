//! Reading the components of this machine, natively: files on Linux, the registry and the
//! firmware table on Windows, IOKit and sysctl on macOS, CPUID on x86. No process is
//! spawned, no WMI, no PowerShell. What cannot be read is left out, never an error.
//! Removable drives and network adapters are never read.

#[cfg(any(target_os = "linux", test))]
use std::fs;
#[cfg(any(target_os = "linux", test))]
use std::path::Path;

use super::components::{ComponentKind, Components};

/// The components of this machine.
pub(crate) fn components() -> Components {
    let mut found = Components::new();
    found.set_opt(ComponentKind::Cpu, cpu_signature().as_deref());
    platform(&mut found);
    found
}

/// The processor's signature: CPUID vendor, leaf 1's family, model and stepping, and the
/// brand string; elsewhere than x86, `/proc/cpuinfo`'s identification (Linux) or
/// `machdep.cpu.brand_string` (macOS).
pub(crate) fn cpu_signature() -> Option<String> {
    if let Some(leaf0) = verify_machine_sys::cpuid(0, 0) {
        let vendor = registers_text(&[leaf0[1], leaf0[3], leaf0[2]]);
        let signature = verify_machine_sys::cpuid(1, 0).map_or(0, |r| r[0] & 0x0FFF_3FFF);
        let mut brand = Vec::new();
        for leaf in 0x8000_0002..=0x8000_0004u32 {
            if let Some(r) = verify_machine_sys::cpuid(leaf, 0) {
                brand.extend_from_slice(&r);
            }
        }
        return Some(format!(
            "{vendor} {signature:08X} {}",
            registers_text(&brand)
        ));
    }
    other_cpu()
}

/// ASCII text of CPUID registers, NULs dropped.
pub(crate) fn registers_text(registers: &[u32]) -> String {
    let bytes: Vec<u8> = registers
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .filter(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).trim().to_owned()
}

#[cfg(target_os = "linux")]
fn other_cpu() -> Option<String> {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| cpuinfo_signature(&text))
}

#[cfg(target_os = "macos")]
fn other_cpu() -> Option<String> {
    sysctl_string("machdep.cpu.brand_string")
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn other_cpu() -> Option<String> {
    None
}

/// The identification lines of the first processor in `/proc/cpuinfo` (ARM, RISC-V,
/// POWER...): implementer, part, variant, revision, model name.
#[cfg(any(target_os = "linux", test))]
pub(crate) fn cpuinfo_signature(text: &str) -> Option<String> {
    const KEYS: [&str; 8] = [
        "vendor_id",
        "cpu family",
        "model name",
        "CPU implementer",
        "CPU architecture",
        "CPU variant",
        "CPU part",
        "uarch",
    ];
    let first = text.split("\n\n").next().unwrap_or("");
    let parts: Vec<String> = first
        .lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(key, _)| KEYS.contains(&key.trim()))
        .map(|(key, value)| format!("{}={}", key.trim(), value.trim()))
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

// --- Linux -----------------------------------------------------------------------------------

/// The DMI folder of sysfs.
#[cfg(any(target_os = "linux", test))]
const DMI: &str = "/sys/class/dmi/id";

#[cfg(target_os = "linux")]
fn platform(found: &mut Components) {
    linux(found, Path::new("/"));
    found.set_opt(ComponentKind::SystemVolume, root_fs_uuid().as_deref());
}

/// The file components under `root` (`/`, or a made-up tree in tests).
#[cfg(any(target_os = "linux", test))]
pub(crate) fn linux(found: &mut Components, root: &Path) {
    let read = |path: &str| -> Option<String> {
        let text = fs::read_to_string(root.join(path.trim_start_matches('/'))).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_owned())
    };
    let dmi = |name: &str| read(&format!("{DMI}/{name}"));
    let os = super::LINUX_SOURCES.iter().find_map(|path| read(path));
    found.set_opt(ComponentKind::OsInstall, os.as_deref());
    // Root only (mode 0400): a normal user reads neither (docs/machine-code.md).
    found.set_opt(ComponentKind::BoardUuid, dmi("product_uuid").as_deref());
    set_first(
        found,
        ComponentKind::BoardSerial,
        &[dmi("board_serial"), dmi("product_serial")],
    );
    found.set_opt(
        ComponentKind::Model,
        model_text(&[
            dmi("sys_vendor"),
            dmi("product_name"),
            dmi("board_vendor"),
            dmi("board_name"),
        ])
        .as_deref(),
    );
}

/// Sets `kind` to the first candidate that counts (read, not a placeholder).
#[cfg(any(target_os = "linux", windows, test))]
fn set_first(found: &mut Components, kind: ComponentKind, candidates: &[Option<String>]) {
    found.clear(kind);
    let mut placeholder = false;
    for candidate in candidates.iter().flatten() {
        found.set(kind, candidate);
        if found.has(kind) {
            return;
        }
        placeholder |= found.is_placeholder(kind);
    }
    if placeholder {
        found.set(kind, "0");
    }
}

/// The names of a model joined with " / ", placeholders ("To be filled by O.E.M.") left out.
#[cfg(any(target_os = "linux", windows, test))]
fn model_text(parts: &[Option<String>]) -> Option<String> {
    let kept: Vec<&str> = parts
        .iter()
        .flatten()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty() && !super::components::is_placeholder(ComponentKind::Model, p))
        .collect();
    (!kept.is_empty()).then(|| kept.join(" / "))
}

/// The UUID of the file system mounted on `/`: the udev link in `/dev/disk/by-uuid` that
/// points to its device (any user), or the file system's own superblock (ext2/3/4, XFS,
/// Btrfs) where the device is readable (root). `None` for an overlay (containers) or tmpfs.
#[cfg(target_os = "linux")]
fn root_fs_uuid() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let (major, minor, source) = root_mount(&mountinfo)?;
    let device = (major != 0).then_some((major, minor));
    if let Ok(links) = fs::read_dir("/dev/disk/by-uuid") {
        for link in links.flatten() {
            let Ok(meta) = fs::metadata(link.path()) else {
                continue;
            };
            let rdev = meta.rdev();
            if Some(dev_numbers(rdev)) == device
                || fs::metadata(&source).is_ok_and(|m| m.rdev() == rdev)
            {
                return Some(link.file_name().to_string_lossy().into_owned());
            }
        }
    }
    let mut candidates = Vec::new();
    if source.starts_with("/dev/") && source != "/dev/root" {
        candidates.push(source);
    }
    if let Some((major, minor)) = device {
        candidates.push(format!("/dev/block/{major}:{minor}"));
        if let Ok(uevent) = fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/uevent")) {
            if let Some(name) = uevent.lines().find_map(|l| l.strip_prefix("DEVNAME=")) {
                candidates.push(format!("/dev/{name}"));
            }
        }
    }
    candidates
        .iter()
        .find_map(|device| superblock_uuid_of(Path::new(device)))
        .or_else(root_fs_id)
}

/// Where neither the udev link nor the device can be read (no udev, a device the process
/// may not open): the id `statfs(2)` gives any user, for file systems whose id is made from
/// their UUID (ext2/3/4, Btrfs; not XFS, whose id is the device's number).
#[cfg(target_os = "linux")]
fn root_fs_id() -> Option<String> {
    const EXT: u64 = 0xEF53;
    const BTRFS: u64 = 0x9123_683E;
    let (kind, id) = verify_machine_sys::file_system_id(Path::new("/"))?;
    ([EXT, BTRFS].contains(&kind) && id != 0).then(|| format!("fsid:{kind:x}:{id:016x}"))
}

/// Major and minor numbers of a `dev_t` (glibc's encoding).
#[cfg(target_os = "linux")]
fn dev_numbers(dev: u64) -> (u64, u64) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major, minor)
}

/// The root mount of `/proc/self/mountinfo`: its device numbers and source. The last line
/// for `/` wins (a later mount hides an earlier one).
#[cfg(any(target_os = "linux", test))]
pub(crate) fn root_mount(mountinfo: &str) -> Option<(u64, u64, String)> {
    mountinfo.lines().rev().find_map(|line| {
        let fields: Vec<&str> = line.split(' ').collect();
        if fields.get(4) != Some(&"/") {
            return None;
        }
        let (major, minor) = fields.get(2)?.split_once(':')?;
        let dash = fields.iter().position(|f| *f == "-")?;
        let source = fields.get(dash + 2)?;
        Some((
            major.parse().ok()?,
            minor.parse().ok()?,
            (*source).to_owned(),
        ))
    })
}

/// The file system UUID in the superblock of `device`, when it can be read.
#[cfg(target_os = "linux")]
fn superblock_uuid_of(device: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(SUPERBLOCK_READ);
    fs::File::open(device)
        .ok()?
        .take(SUPERBLOCK_READ as u64)
        .read_to_end(&mut head)
        .ok()?;
    superblock_uuid(&head)
}

/// Bytes read from the start of a device: enough for Btrfs's superblock at 64 KiB.
#[cfg(any(target_os = "linux", test))]
const SUPERBLOCK_READ: usize = 0x10000 + 0x1000;

/// The UUID of an ext2/3/4, XFS or Btrfs file system from its first bytes.
#[cfg(any(target_os = "linux", test))]
pub(crate) fn superblock_uuid(head: &[u8]) -> Option<String> {
    let uuid_at = |at: usize| head.get(at..at + 16).map(super::components::uuid_text);
    // ext2/3/4: superblock at 1024, magic 0xEF53 at +0x38, UUID at +0x68.
    if head.get(1024 + 0x38..1024 + 0x3a) == Some(&[0x53, 0xef][..]) {
        return uuid_at(1024 + 0x68);
    }
    // XFS: "XFSB" at 0, UUID at 32.
    if head.get(..4) == Some(&b"XFSB"[..]) {
        return uuid_at(32);
    }
    // Btrfs: superblock at 64 KiB, magic "_BHRfS_M" at +0x40, fsid at +0x20.
    if head.get(0x10040..0x10048) == Some(&b"_BHRfS_M"[..]) {
        return uuid_at(0x10020);
    }
    None
}

// --- Windows ---------------------------------------------------------------------------------

#[cfg(windows)]
fn platform(found: &mut Components) {
    found.set_opt(
        ComponentKind::OsInstall,
        super::os::machine_identity().as_deref(),
    );
    let serial = verify_machine_sys::system_volume_serial().map(|s| format!("{s:08X}"));
    found.set_opt(ComponentKind::SystemVolume, serial.as_deref());
    let smbios = verify_machine_sys::firmware_table(b"RSMB", 0)
        .map(|raw| super::smbios::parse_raw(&raw))
        .unwrap_or_default();
    from_smbios(found, &smbios);
}

/// The board components of an SMBIOS table.
#[cfg(any(windows, test))]
pub(crate) fn from_smbios(found: &mut Components, smbios: &super::smbios::Smbios) {
    found.set_opt(ComponentKind::BoardUuid, smbios.uuid.as_deref());
    set_first(
        found,
        ComponentKind::BoardSerial,
        &[smbios.board_serial.clone(), smbios.system_serial.clone()],
    );
    found.set_opt(
        ComponentKind::Model,
        model_text(&[
            smbios.system_vendor.clone(),
            smbios.system_product.clone(),
            smbios.board_vendor.clone(),
            smbios.board_product.clone(),
        ])
        .as_deref(),
    );
}

// --- macOS -----------------------------------------------------------------------------------

#[cfg(target_os = "macos")]
fn platform(found: &mut Components) {
    let uuid = verify_machine_sys::platform_property("IOPlatformUUID")
        .or_else(super::os::machine_identity);
    found.set_opt(ComponentKind::BoardUuid, uuid.as_deref());
    found.set_opt(
        ComponentKind::BoardSerial,
        verify_machine_sys::platform_property("IOPlatformSerialNumber").as_deref(),
    );
    found.set_opt(ComponentKind::Model, sysctl_string("hw.model").as_deref());
}

#[cfg(target_os = "macos")]
pub(crate) fn sysctl_string(name: &str) -> Option<String> {
    use sysctl::Sysctl;
    sysctl::Ctl::new(name)
        .and_then(|ctl| ctl.value_string())
        .ok()
}

#[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
fn platform(_found: &mut Components) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superblocks_of_ext4_xfs_btrfs() {
        let uuid: Vec<u8> = (1..=16).collect();
        let mut ext4 = vec![0u8; 4096];
        ext4[1024 + 0x38] = 0x53;
        ext4[1024 + 0x39] = 0xef;
        ext4[1024 + 0x68..1024 + 0x78].copy_from_slice(&uuid);
        let text = "01020304-0506-0708-090A-0B0C0D0E0F10";
        assert_eq!(superblock_uuid(&ext4).as_deref(), Some(text));
        let mut xfs = vec![0u8; 512];
        xfs[..4].copy_from_slice(b"XFSB");
        xfs[32..48].copy_from_slice(&uuid);
        assert_eq!(superblock_uuid(&xfs).as_deref(), Some(text));
        let mut btrfs = vec![0u8; SUPERBLOCK_READ];
        btrfs[0x10040..0x10048].copy_from_slice(b"_BHRfS_M");
        btrfs[0x10020..0x10030].copy_from_slice(&uuid);
        assert_eq!(superblock_uuid(&btrfs).as_deref(), Some(text));
        assert_eq!(superblock_uuid(&[0u8; 2048]), None);
        assert_eq!(superblock_uuid(&ext4[..1100]), None);
    }

    #[test]
    fn the_root_mount_is_the_last_one_on_slash() {
        let info = "22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n\
                    30 22 0:26 / /proc rw - proc proc rw\n\
                    40 22 0:35 / / rw - overlay overlay rw,lowerdir=/x\n";
        assert_eq!(root_mount(info), Some((0, 35, "overlay".to_owned())));
        assert_eq!(
            root_mount(&info.lines().take(2).collect::<Vec<_>>().join("\n")),
            Some((8, 2, "/dev/sda2".to_owned()))
        );
        assert_eq!(root_mount("garbage"), None);
    }

    #[test]
    fn linux_files_as_a_normal_user_and_as_root() {
        let dir = std::env::temp_dir().join(format!("verify-read-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let dmi = dir.join(DMI.trim_start_matches('/'));
        fs::create_dir_all(&dmi).expect("dir");
        fs::create_dir_all(dir.join("etc")).expect("dir");
        fs::write(
            dir.join("etc/machine-id"),
            "3d1219c7c4c5404aaa1f6d2a48adfda4\n",
        )
        .expect("w");
        for (name, value) in [
            ("sys_vendor", "LENOVO"),
            ("product_name", "20XW"),
            ("board_vendor", "LENOVO"),
            ("board_name", "To be filled by O.E.M."),
        ] {
            fs::write(dmi.join(name), format!("{value}\n")).expect("w");
        }
        // A normal user: no product_uuid, no board_serial (mode 0400 in sysfs).
        let mut user = Components::new();
        linux(&mut user, &dir);
        assert!(user.has(ComponentKind::OsInstall));
        assert!(!user.has(ComponentKind::BoardUuid));
        assert!(!user.has(ComponentKind::BoardSerial));
        assert_eq!(
            user.get(ComponentKind::Model),
            Some("LENOVO / 20XW / LENOVO")
        );
        // Root: both, and a placeholder board serial falls back to the product serial.
        fs::write(
            dmi.join("product_uuid"),
            "5ac1e3f2-96b0-4f1e-8d55-0d3c2b1a0f9e\n",
        )
        .expect("w");
        fs::write(dmi.join("board_serial"), "Default string\n").expect("w");
        fs::write(dmi.join("product_serial"), "PF3ABCDE\n").expect("w");
        let mut root = Components::new();
        linux(&mut root, &dir);
        assert_eq!(
            root.get(ComponentKind::BoardUuid),
            Some("5AC1E3F2-96B0-4F1E-8D55-0D3C2B1A0F9E")
        );
        assert_eq!(root.get(ComponentKind::BoardSerial), Some("PF3ABCDE"));
        fs::write(dmi.join("product_serial"), "0\n").expect("w");
        linux(&mut root, &dir);
        assert!(!root.has(ComponentKind::BoardSerial));
        assert!(root.is_placeholder(ComponentKind::BoardSerial));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn cpuinfo_of_an_arm_machine() {
        let text = "processor\t: 0\nBogoMIPS\t: 48.00\nCPU implementer\t: 0x41\n\
                    CPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n\n\
                    processor\t: 1\nCPU implementer\t: 0x41\n";
        assert_eq!(
            cpuinfo_signature(text).as_deref(),
            Some("CPU implementer=0x41 CPU architecture=8 CPU variant=0x3 CPU part=0xd0c")
        );
        assert_eq!(cpuinfo_signature("nothing here"), None);
    }

    #[test]
    fn smbios_board_components() {
        let raw = super::super::smbios::tests::table(
            [0; 16],
            ["QEMU", "Standard PC (Q35 + ICH9, 2009)", "Not Specified"],
            ["QEMU", "Q35", "BSN-1234"],
        );
        let smbios = super::super::smbios::parse_raw(&raw);
        let mut found = Components::new();
        from_smbios(&mut found, &smbios);
        assert!(!found.has(ComponentKind::BoardUuid), "all-zero UUID");
        assert!(found.is_placeholder(ComponentKind::BoardUuid));
        assert_eq!(found.get(ComponentKind::BoardSerial), Some("BSN-1234"));
        assert_eq!(
            found.get(ComponentKind::Model),
            Some("QEMU / Standard PC (Q35 + ICH9, 2009) / QEMU / Q35")
        );
    }
}
