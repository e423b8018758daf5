//! The table, row by row, with injected component values: each row is a test of
//! the rule, the anchor and the store together (`check_with` with a made-up machine and a
//! scratch state folder). The real sources are read by `tests/c/keeper.rs` (Linux, under
//! strace) and `tests/platforms/windows/` (Windows programs under Wine).

use std::fs;
use std::path::PathBuf;

use super::components::{ComponentKind, Components};
use super::rule::ComponentState;
use super::v2::{check_with, MachineCheck, Outcome};

const SALT: &str = "10001";

/// A scratch state folder, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let dir = std::env::temp_dir().join(format!(
            "verify-machine-table-{}-{name}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        Folder(dir)
    }

    fn check(&self, machine: &Components) -> MachineCheck {
        check_with(SALT, Some(self.0.clone()), machine, None).expect("never an error")
    }

    /// Copies this folder's files into `other` (a disk image copied, a store carried over).
    fn copy_to(&self, other: &Folder) {
        fs::create_dir_all(&other.0).expect("create");
        for entry in fs::read_dir(&self.0).expect("list").flatten() {
            fs::copy(entry.path(), other.0.join(entry.file_name())).expect("copy");
        }
    }

    fn wipe(&self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        self.wipe();
    }
}

/// A Windows PC as v2 reads it.
fn pc(board: &str) -> Components {
    let mut c = Components::new();
    c.set(
        ComponentKind::BoardUuid,
        &format!("4C4C4544-0042-3510-8052-{board}"),
    )
    .set(ComponentKind::BoardSerial, &format!("/7XK9Q2/CN{board}"))
    .set(
        ComponentKind::OsInstall,
        &format!("0b5e1c1e-7a3d-4c2b-9e8f-{board}"),
    )
    .set(ComponentKind::SystemVolume, &format!("1A2B{}", &board[..4]))
    .set(
        ComponentKind::Cpu,
        "GenuineIntel 000906EA Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz",
    )
    .set(
        ComponentKind::Model,
        "Dell Inc. / OptiPlex 7070 / Dell Inc. / 0YNVJG",
    );
    c
}

fn state(check: &MachineCheck, kind: ComponentKind) -> ComponentState {
    check
        .components
        .iter()
        .find(|c| c.kind == kind)
        .map(|c| c.state)
        .expect("every kind is listed")
}

/// The first run on a machine: issued, every component not stored yet.
fn first(folder: &Folder, machine: &Components) -> String {
    let check = folder.check(machine);
    assert_eq!(check.outcome, Outcome::Issued);
    assert!(check.components.iter().all(|c| matches!(
        c.state,
        ComponentState::NotStored | ComponentState::Unreadable | ComponentState::Placeholder
    )));
    assert_eq!(check.code.len(), super::MACHINE_CODE_LEN);
    check.code
}

#[test]
fn row_reboot_update_program_reinstalled_hostname_same() {
    let folder = Folder::new("reboot");
    let machine = pc("B4C04F4E3432");
    let code = first(&folder, &machine);
    // A reboot, an update, a new host name: nothing v2 reads changes.
    let again = folder.check(&machine);
    assert_eq!(
        (again.code.as_str(), again.outcome),
        (code.as_str(), Outcome::Kept)
    );
    assert!(again
        .components
        .iter()
        .all(|c| c.state == ComponentState::Matches));
    // The program reinstalled, its state folder removed with it: issued again, the same.
    folder.wipe();
    let reinstalled = folder.check(&machine);
    assert_eq!(reinstalled.outcome, Outcome::Issued);
    assert_eq!(reinstalled.code, code);
}

#[test]
fn row_usb_drive_and_network_adapters_same() {
    // Removable drives and network adapters (USB, virtual, VPN) are no component: the
    // list v2 reads is the same before and after one is added.
    let names: Vec<&str> = ComponentKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(
        names,
        [
            "board_uuid",
            "board_serial",
            "os_install",
            "system_volume",
            "cpu",
            "model"
        ]
    );
    let folder = Folder::new("usb");
    let machine = pc("B4C04F4E3432");
    let code = first(&folder, &machine);
    let with_adapter = machine.clone();
    assert_eq!(folder.check(&with_adapter).code, code);
}

#[test]
fn row_disk_replaced_or_windows_reinstalled_same() {
    let folder = Folder::new("reinstall");
    let machine = pc("B4C04F4E3432");
    let code = first(&folder, &machine);
    let mut reinstalled = machine.clone();
    reinstalled
        .set(
            ComponentKind::OsInstall,
            "77777777-1111-4222-8333-444444444444",
        )
        .set(ComponentKind::SystemVolume, "9C3E11F0");
    // The state folder on another drive survived: the stored code is kept.
    let kept = folder.check(&reinstalled);
    assert_eq!(
        (kept.code.as_str(), kept.outcome),
        (code.as_str(), Outcome::Kept)
    );
    assert_eq!(
        state(&kept, ComponentKind::OsInstall),
        ComponentState::Differs
    );
    assert_eq!(
        state(&kept, ComponentKind::SystemVolume),
        ComponentState::Differs
    );
    assert_eq!(
        state(&kept, ComponentKind::BoardUuid),
        ComponentState::Matches
    );
    // The new disk has no state folder: issued from the board again, the same code.
    let fresh = Folder::new("reinstall-fresh");
    assert_eq!(first(&fresh, &reinstalled), code);
}

#[test]
fn row_machine_guid_edited_same() {
    let folder = Folder::new("guid");
    let machine = pc("B4C04F4E3432");
    let code = first(&folder, &machine);
    let mut edited = machine.clone();
    edited.set(
        ComponentKind::OsInstall,
        "00112233-4455-6677-8899-aabbccddeeff",
    );
    let check = folder.check(&edited);
    assert_eq!(
        (check.code.as_str(), check.outcome),
        (code.as_str(), Outcome::Kept)
    );
    assert_eq!(
        state(&check, ComponentKind::OsInstall),
        ComponentState::Differs
    );
    // And without a store, from the board alone.
    assert_eq!(first(&Folder::new("guid-fresh"), &edited), code);
}

#[test]
fn row_another_computer_different() {
    let (a, b) = (Folder::new("other-a"), Folder::new("other-b"));
    let code_a = first(&a, &pc("B4C04F4E3432"));
    // Another PC of the same model (same processor and model names).
    let other = pc("C0FFEE123456");
    let code_b = first(&b, &other);
    assert_ne!(code_a, code_b);
    // Even with the first PC's store copied over (it opens: same processor model).
    let carried = Folder::new("other-carried");
    a.copy_to(&carried);
    let check = carried.check(&other);
    assert_eq!(check.outcome, Outcome::Reissued);
    assert_eq!(check.code, code_b);
    assert_eq!(
        state(&check, ComponentKind::BoardUuid),
        ComponentState::Differs
    );
    assert_eq!(state(&check, ComponentKind::Cpu), ComponentState::Matches);
}

#[test]
fn row_motherboard_replaced_different() {
    let folder = Folder::new("board");
    let machine = pc("B4C04F4E3432");
    let code = first(&folder, &machine);
    let mut new_board = machine.clone();
    new_board
        .set(
            ComponentKind::BoardUuid,
            "A1B2C3D4-0000-1111-2222-333344445555",
        )
        .set(ComponentKind::BoardSerial, "MB-77310042")
        .set(
            ComponentKind::Model,
            "Dell Inc. / OptiPlex 7070 / Dell Inc. / 0X8DXD",
        );
    let check = folder.check(&new_board);
    assert_eq!(check.outcome, Outcome::Reissued);
    assert_ne!(check.code, code);
    assert_eq!(
        state(&check, ComponentKind::OsInstall),
        ComponentState::Matches
    );
    assert_eq!(
        state(&check, ComponentKind::SystemVolume),
        ComponentState::Matches
    );
    assert!(check.score < 0, "{}", check.score);
}

#[test]
fn row_vm_cloned_different() {
    // A VM: the hypervisor's names, a serial the clone keeps.
    let mut original = Components::new();
    original
        .set(
            ComponentKind::BoardUuid,
            "564D1C42-7D2A-9E3B-1F44-0A8B2C3D4E5F",
        )
        .set(ComponentKind::BoardSerial, "VMware-56 4d 1c 42 7d 2a 9e 3b")
        .set(
            ComponentKind::OsInstall,
            "0b5e1c1e-7a3d-4c2b-9e8f-0123456789ab",
        )
        .set(ComponentKind::SystemVolume, "5E3A9C01")
        .set(ComponentKind::Cpu, "GenuineIntel 000906EA Intel(R) Xeon(R)")
        .set(
            ComponentKind::Model,
            "VMware, Inc. / VMware7,1 / Intel Corporation / 440BX Desktop Reference Platform",
        );
    let folder = Folder::new("vm");
    let code = first(&folder, &original);
    // The clone: a new SMBIOS UUID; MachineGuid, volume serial, board serial, the store
    // (copied with the disk) all the same.
    let mut clone = original.clone();
    clone.set(
        ComponentKind::BoardUuid,
        "564D9A17-0B3C-5D2E-8F61-7C4B3A2D1E0F",
    );
    let cloned_disk = Folder::new("vm-clone");
    folder.copy_to(&cloned_disk);
    let check = cloned_disk.check(&clone);
    assert_eq!(check.outcome, Outcome::Reissued);
    assert_ne!(check.code, code);
    assert_eq!(
        state(&check, ComponentKind::BoardSerial),
        ComponentState::Matches
    );
    assert_eq!(
        state(&check, ComponentKind::OsInstall),
        ComponentState::Matches
    );
    // The original keeps its code.
    assert_eq!(folder.check(&original).code, code);
}

#[test]
fn row_windows_image_copied_without_sysprep_different() {
    let folder = Folder::new("image");
    let source = pc("B4C04F4E3432");
    let code = first(&folder, &source);
    // Another PC (another model too) with the same MachineGuid and volume serial.
    let mut target = pc("D00DFEED0001");
    target
        .set_opt(
            ComponentKind::OsInstall,
            source.get(ComponentKind::OsInstall),
        )
        .set_opt(
            ComponentKind::SystemVolume,
            source.get(ComponentKind::SystemVolume),
        )
        .set(
            ComponentKind::Cpu,
            "AuthenticAMD 00A20F12 AMD Ryzen 5 5600X 6-Core Processor",
        )
        .set(
            ComponentKind::Model,
            "Micro-Star International Co., Ltd. / MS-7C56",
        );
    let copied = Folder::new("image-copy");
    folder.copy_to(&copied);
    let check = copied.check(&target);
    // Another processor: the copied store does not open; the code comes from the board.
    assert_eq!(check.outcome, Outcome::StoreUnreadable);
    assert_ne!(check.code, code);
    // And with the same processor model, the store opens and the board decides.
    let mut same_cpu = target.clone();
    same_cpu.set_opt(ComponentKind::Cpu, source.get(ComponentKind::Cpu));
    let copied_again = Folder::new("image-copy-cpu");
    folder.copy_to(&copied_again);
    let check = copied_again.check(&same_cpu);
    assert_eq!(check.outcome, Outcome::Reissued);
    assert_ne!(check.code, code);
    assert_eq!(
        state(&check, ComponentKind::OsInstall),
        ComponentState::Matches
    );
}

#[test]
fn row_two_boards_with_the_same_placeholder_uuid_different() {
    for dummy in [
        "03000200-0400-0500-0006-000700080009",
        "00000000-0000-0000-0000-000000000000",
        "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
    ] {
        let mut a = pc("B4C04F4E3432");
        a.set(ComponentKind::BoardUuid, dummy);
        let mut b = pc("C0FFEE123456");
        b.set(ComponentKind::BoardUuid, dummy);
        let (fa, fb) = (Folder::new("dummy-a"), Folder::new("dummy-b"));
        let code_a = first(&fa, &a);
        assert_ne!(first(&fb, &b), code_a, "{dummy}");
        let check = fb.check(&b);
        assert_eq!(
            state(&check, ComponentKind::BoardUuid),
            ComponentState::Placeholder
        );
        // A's store carried to B: B still gets its own code.
        let carried = Folder::new("dummy-carried");
        fa.copy_to(&carried);
        let check = carried.check(&b);
        assert_eq!(check.outcome, Outcome::Reissued, "{dummy}");
        assert_ne!(check.code, code_a);
        // With a placeholder serial too, the installation decides.
        let (mut a2, mut b2) = (a.clone(), b.clone());
        a2.set(ComponentKind::BoardSerial, "To be filled by O.E.M.");
        b2.set(ComponentKind::BoardSerial, "To be filled by O.E.M.");
        let (fa2, fb2) = (Folder::new("dummy-a2"), Folder::new("dummy-b2"));
        let code_a2 = first(&fa2, &a2);
        assert_ne!(first(&fb2, &b2), code_a2, "{dummy}");
        let carried = Folder::new("dummy-carried2");
        fa2.copy_to(&carried);
        assert_ne!(carried.check(&b2).code, code_a2);
    }
}

#[test]
fn row_a_component_cannot_be_read_same() {
    let machine = pc("B4C04F4E3432");
    for kind in ComponentKind::ALL {
        let folder = Folder::new(&format!("unreadable-{}", kind.name()));
        let code = first(&folder, &machine);
        let mut missing = machine.clone();
        missing.clear(kind);
        let check = folder.check(&missing);
        assert_eq!(check.code, code, "{kind:?} unreadable");
        assert_eq!(state(&check, kind), ComponentState::Unreadable);
        if kind == ComponentKind::Cpu {
            // The processor keys the store (CPUID, which always answers on x86): without it
            // the store does not open, and the board gives the same code again.
            assert_eq!(check.outcome, Outcome::StoreUnreadable);
            folder.wipe();
            first(&folder, &machine);
            continue;
        }
        assert_eq!(check.outcome, Outcome::Kept, "{kind:?}");
        // Readable again later: it matches (its hash was kept meanwhile).
        let back = folder.check(&machine);
        assert_eq!(state(&back, kind), ComponentState::Matches, "{kind:?}");
        assert_eq!(back.code, code);
    }
    // The board UUID unreadable and the MachineGuid edited at once: serial and volume
    // still decide.
    let folder = Folder::new("unreadable-two");
    let code = first(&folder, &machine);
    let mut worse = machine.clone();
    worse.clear(ComponentKind::BoardUuid).set(
        ComponentKind::OsInstall,
        "00112233-4455-6677-8899-aabbccddeeff",
    );
    assert_eq!(folder.check(&worse).code, code);
    // Nothing readable at all: still a code, never an error (v1's identity).
    let nothing = Components::new();
    let check = Folder::new("unreadable-all").check(&nothing);
    assert_eq!(check.code.len(), super::MACHINE_CODE_LEN);
}

/// What Linux without root cannot tell apart (docs/machine-code.md): with no board
/// component, a reinstall (new machine-id and root file system) looks like another
/// machine of the same model, and a VM clone with its disk looks like the original.
#[test]
fn linux_without_root_cannot_tell_a_reinstall_or_a_clone() {
    let mut user = Components::new();
    user.set(ComponentKind::OsInstall, "3d1219c7c4c5404aaa1f6d2a48adfda4")
        .set(
            ComponentKind::SystemVolume,
            "2f0e4c4b-8a51-4b8e-9d1e-5c0f3a6b7d21",
        )
        .set(
            ComponentKind::Cpu,
            "GenuineIntel 000906EA Intel(R) Core(TM) i7-8700",
        )
        .set(ComponentKind::Model, "LENOVO / 20XW");
    let folder = Folder::new("linux-user");
    let code = first(&folder, &user);
    // machine-id regenerated alone: kept (the root file system still matches).
    let mut new_id = user.clone();
    new_id.set(
        ComponentKind::OsInstall,
        "99999999aaaa4bbbbccccddddeeeeffff",
    );
    assert_eq!(folder.check(&new_id).outcome, Outcome::Kept);
    // Reinstalled: both change, and nothing tells it from another machine.
    let mut reinstalled = user.clone();
    reinstalled
        .set(ComponentKind::OsInstall, "0123456789abcdef0123456789abcdef")
        .set(
            ComponentKind::SystemVolume,
            "7d6c5b4a-3928-4716-a5b4-c3d2e1f00f1e",
        );
    let check = folder.check(&reinstalled);
    assert_eq!(check.outcome, Outcome::Reissued);
    assert_ne!(check.code, code);
    // As root (the board read), the clone and the reinstall are told apart.
    let mut root = user.clone();
    root.set(
        ComponentKind::BoardUuid,
        "5AC1E3F2-96B0-4F1E-8D55-0D3C2B1A0F9E",
    );
    let root_folder = Folder::new("linux-root");
    let root_code = first(&root_folder, &root);
    let mut root_reinstalled = reinstalled.clone();
    root_reinstalled.set_opt(ComponentKind::BoardUuid, root.get(ComponentKind::BoardUuid));
    assert_eq!(root_folder.check(&root_reinstalled).code, root_code);
}

#[test]
fn a_damaged_or_foreign_store_is_ignored_and_replaced() {
    let folder = Folder::new("damaged");
    let machine = pc("B4C04F4E3432");
    let code = first(&folder, &machine);
    let file = fs::read_dir(&folder.0)
        .expect("list")
        .flatten()
        .next()
        .expect("the store")
        .path();
    let mut bytes = fs::read(&file).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&file, &bytes).expect("write");
    let check = folder.check(&machine);
    assert_eq!(check.outcome, Outcome::StoreUnreadable);
    assert_eq!(check.code, code, "issued again from the board");
    assert!(check.note.is_some());
    assert_eq!(folder.check(&machine).outcome, Outcome::Kept, "replaced");
    // Another program (salt) never sees this one's codes or store.
    let other = check_with("other-app", Some(folder.0.clone()), &machine, None).expect("ok");
    assert_eq!(other.outcome, Outcome::Issued);
    assert_ne!(other.code, code);
}

#[test]
fn the_store_holds_hashes_never_values() {
    let folder = Folder::new("values");
    let machine = pc("B4C04F4E3432");
    first(&folder, &machine);
    for entry in fs::read_dir(&folder.0).expect("list").flatten() {
        let bytes = fs::read(entry.path()).expect("read");
        for kind in ComponentKind::ALL {
            let value = machine.get(kind).expect("set");
            assert!(
                !bytes.windows(value.len()).any(|w| w == value.as_bytes()),
                "{kind:?} in clear"
            );
        }
    }
}

#[test]
fn a_kept_code_is_not_rewritten() {
    let folder = Folder::new("quiet");
    let machine = pc("B4C04F4E3432");
    first(&folder, &machine);
    let file = fs::read_dir(&folder.0)
        .expect("list")
        .flatten()
        .next()
        .expect("the store")
        .path();
    let before = fs::read(&file).expect("read");
    folder.check(&machine);
    assert_eq!(
        fs::read(&file).expect("read"),
        before,
        "a warm call writes nothing"
    );
}
