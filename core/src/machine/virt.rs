//! Whether this machine looks virtual, and what was seen: the hypervisor bit of CPUID and
//! the hypervisor's name, firmware (SMBIOS/DMI) vendor strings of virtual machines, and
//! container markers. It only reports; the host decides what that means for its licence.

#[cfg(target_os = "linux")]
use std::fs;

/// What a sign of virtualisation is. The numbers are the C ABI's (`VERIFY_VIRTUAL_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignKind {
    /// CPUID leaf 1, ECX bit 31 (set by hypervisors); the detail is the hypervisor's
    /// vendor from leaf 0x40000000 (`KVMKVMKVM`, `Microsoft Hv`, `VMwareVMware`...) where
    /// it gives one.
    HypervisorBit = 1,
    /// A firmware (SMBIOS/DMI) vendor or product string of a virtual machine (`QEMU`,
    /// `VMware, Inc.`, `innotek GmbH`, `Microsoft Corporation Virtual Machine`...); the
    /// detail is the string.
    Firmware = 2,
    /// A container marker: `/.dockerenv`, `/run/.containerenv`, `/run/systemd/container`,
    /// or a container's name in `/proc/1/cgroup`; the detail says which.
    Container = 3,
    /// The operating system says it runs under a hypervisor (macOS `kern.hv_vmm_present`,
    /// Linux `/sys/hypervisor/type`); the detail says which.
    System = 4,
}

impl SignKind {
    /// Its name: `hypervisor_bit`, `firmware`, `container`, `system`.
    pub fn name(self) -> &'static str {
        match self {
            SignKind::HypervisorBit => "hypervisor_bit",
            SignKind::Firmware => "firmware",
            SignKind::Container => "container",
            SignKind::System => "system",
        }
    }
}

/// One thing seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sign {
    /// What it is.
    pub kind: SignKind,
    /// What was seen (a vendor string, a file name), never a serial number or identity.
    pub detail: String,
}

/// What [`machine_virtualization`] saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Virtualization {
    /// Every sign seen, in the order of [`SignKind`].
    pub signs: Vec<Sign>,
}

impl Virtualization {
    /// Whether the machine looks virtual or containerised: any sign seen.
    pub fn looks_virtual(&self) -> bool {
        !self.signs.is_empty()
    }

    /// Whether a sign of `kind` was seen.
    pub fn has(&self, kind: SignKind) -> bool {
        self.signs.iter().any(|s| s.kind == kind)
    }

    fn add(&mut self, kind: SignKind, detail: impl Into<String>) {
        self.signs.push(Sign {
            kind,
            detail: detail.into(),
        });
    }
}

/// Vendor and product strings of virtual machines' firmware (compared without case, as
/// parts of the string).
const VM_FIRMWARE: &[&str] = &[
    "qemu",
    "kvm",
    "vmware",
    "virtualbox",
    "innotek",
    "xen",
    "bochs",
    "parallels",
    "bhyve",
    "virtual machine",
    "hyper-v",
    "amazon ec2",
    "google compute engine",
    "openstack",
    "digitalocean",
    "cloud hypervisor",
    "firecracker",
    "apple virtualization",
    "virtualmac",
    "utm",
];

/// Whether a firmware string names a virtual machine.
pub(crate) fn vm_firmware(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    VM_FIRMWARE.iter().any(|name| {
        // Short names as whole words only ("kvm", "xen", "utm"; not "Lexenon").
        if name.len() <= 3 {
            lower
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| word == *name)
        } else {
            lower.contains(name)
        }
    })
}

/// Container names in a cgroup file.
#[cfg(any(target_os = "linux", test))]
const CONTAINER_CGROUPS: &[&str] = &[
    "docker",
    "kubepods",
    "lxc",
    "containerd",
    "libpod",
    "podman",
];

/// The container's name in `/proc/1/cgroup`, if any.
#[cfg(any(target_os = "linux", test))]
pub(crate) fn cgroup_container(text: &str) -> Option<&'static str> {
    CONTAINER_CGROUPS
        .iter()
        .copied()
        .find(|name| text.lines().any(|line| line.contains(name)))
}

/// Whether this machine looks virtual, and what was seen. Reads only: CPUID, the firmware
/// strings (Linux sysfs, the Windows SMBIOS table, macOS `hw.model`), container markers.
pub fn machine_virtualization() -> Virtualization {
    let mut seen = Virtualization::default();
    if let Some(leaf1) = verify_machine_sys::cpuid(1, 0) {
        if leaf1[2] & (1 << 31) != 0 {
            let vendor = verify_machine_sys::cpuid(0x4000_0000, 0)
                .map(|r| super::read::registers_text(&[r[1], r[2], r[3]]))
                .filter(|v| !v.is_empty() && v.is_ascii())
                .unwrap_or_default();
            seen.add(SignKind::HypervisorBit, vendor);
        }
    }
    for text in firmware_strings() {
        if vm_firmware(&text) && !seen.signs.iter().any(|s| s.detail == text) {
            seen.add(SignKind::Firmware, text);
        }
    }
    platform(&mut seen);
    seen
}

#[cfg(target_os = "linux")]
fn firmware_strings() -> Vec<String> {
    [
        "sys_vendor",
        "product_name",
        "board_vendor",
        "bios_vendor",
        "chassis_vendor",
    ]
    .iter()
    .filter_map(|name| fs::read_to_string(format!("/sys/class/dmi/id/{name}")).ok())
    .map(|text| text.trim().to_owned())
    .filter(|text| !text.is_empty())
    .collect()
}

#[cfg(windows)]
fn firmware_strings() -> Vec<String> {
    let Some(raw) = verify_machine_sys::firmware_table(b"RSMB", 0) else {
        return Vec::new();
    };
    let s = super::smbios::parse_raw(&raw);
    [
        s.system_vendor,
        s.system_product,
        s.board_vendor,
        s.bios_vendor,
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(target_os = "macos")]
fn firmware_strings() -> Vec<String> {
    super::read::sysctl_string("hw.model").into_iter().collect()
}

#[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
fn firmware_strings() -> Vec<String> {
    Vec::new()
}

#[cfg(target_os = "linux")]
fn platform(seen: &mut Virtualization) {
    if let Ok(kind) = fs::read_to_string("/sys/hypervisor/type") {
        let kind = kind.trim();
        if !kind.is_empty() {
            seen.add(SignKind::System, format!("/sys/hypervisor/type: {kind}"));
        }
    }
    for marker in ["/.dockerenv", "/run/.containerenv"] {
        if std::path::Path::new(marker).exists() {
            seen.add(SignKind::Container, marker);
        }
    }
    if let Ok(kind) = fs::read_to_string("/run/systemd/container") {
        let kind = kind.trim();
        if !kind.is_empty() {
            seen.add(
                SignKind::Container,
                format!("/run/systemd/container: {kind}"),
            );
        }
    }
    if let Some(name) = fs::read_to_string("/proc/1/cgroup")
        .ok()
        .as_deref()
        .and_then(cgroup_container)
    {
        seen.add(SignKind::Container, format!("/proc/1/cgroup: {name}"));
    }
}

#[cfg(target_os = "macos")]
fn platform(seen: &mut Virtualization) {
    use sysctl::Sysctl;
    let present = sysctl::Ctl::new("kern.hv_vmm_present")
        .and_then(|ctl| ctl.value_string())
        .is_ok_and(|v| v.trim() == "1");
    if present {
        seen.add(SignKind::System, "kern.hv_vmm_present");
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn platform(_seen: &mut Virtualization) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn firmware_strings_of_virtual_machines() {
        for vm in [
            "QEMU",
            "VMware, Inc.",
            "VMware Virtual Platform",
            "innotek GmbH",
            "VirtualBox",
            "Xen",
            "Microsoft Corporation Virtual Machine",
            "Amazon EC2",
            "Google Compute Engine",
            "KVM",
            "BHYVE",
            "Parallels Software International Inc.",
        ] {
            assert!(vm_firmware(vm), "{vm}");
        }
        for real in [
            "Dell Inc.",
            "LENOVO",
            "ASUSTeK COMPUTER INC.",
            "Microsoft Corporation",
            "Lexenon",
        ] {
            assert!(!vm_firmware(real), "{real}");
        }
    }

    #[test]
    fn container_cgroups() {
        assert_eq!(
            cgroup_container("12:pids:/docker/3f2a9c\n0::/\n"),
            Some("docker")
        );
        assert_eq!(
            cgroup_container("0::/kubepods/besteffort/pod1/abc\n"),
            Some("kubepods")
        );
        assert_eq!(cgroup_container("0::/init.scope\n1:name=systemd:/\n"), None);
    }

    #[test]
    fn details_are_never_identities() {
        let seen = machine_virtualization();
        let components = super::super::read::components();
        for sign in &seen.signs {
            for kind in [
                super::super::ComponentKind::BoardUuid,
                super::super::ComponentKind::BoardSerial,
                super::super::ComponentKind::OsInstall,
                super::super::ComponentKind::SystemVolume,
            ] {
                if let Some(value) = components.get(kind) {
                    assert!(!sign.detail.contains(value), "{kind:?} in {sign:?}");
                }
            }
        }
        assert_eq!(seen.looks_virtual(), !seen.signs.is_empty());
    }
}
