//! The machine code of Windows programs: MachineGuid from the registry, and machine code
//! v2 from the real sources through Wine.

use super::*;

/// The MachineGuid of the Wine prefixes: `machine_code_comes_from_the_registry_under_wine`
/// changes it (write), and the programs that check their machine code stays the same while
/// they run (the thread test) must not see it change (read).
pub(crate) static MACHINE_GUID: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// The registry value of `MachineGuid` in `loader`'s prefix, through Wine's `reg`.
pub(crate) fn machine_guid(loader: &Loader) -> String {
    let mut query = wine_command(loader, "reg".as_ref());
    query.args([
        "query",
        r"HKLM\Software\Microsoft\Cryptography",
        "/v",
        "MachineGuid",
    ]);
    let output = query.output().expect("run wine reg query");
    let (stdout, _) = text(&output);
    stdout
        .lines()
        .find(|l| l.contains("MachineGuid"))
        .and_then(|l| l.split_whitespace().last())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no MachineGuid in the prefix\n{}", show(&output)))
}

pub(crate) fn set_machine_guid(loader: &Loader, guid: &str) {
    let mut add = wine_command(loader, "reg".as_ref());
    add.args([
        "add",
        r"HKLM\Software\Microsoft\Cryptography",
        "/v",
        "MachineGuid",
        "/t",
        "REG_SZ",
        "/d",
        guid,
        "/f",
    ]);
    let output = add.output().expect("run wine reg add");
    assert!(output.status.success(), "reg add\n{}", show(&output));
}

/// Puts the prefix's MachineGuid back when the test ends, passed or not.
pub(crate) struct RestoreGuid(Loader, String);

impl Drop for RestoreGuid {
    fn drop(&mut self) {
        set_machine_guid(&self.0, &self.1);
    }
}

pub(crate) fn codes(loader: &Loader, exe: &Path, salts: &[&str]) -> Vec<String> {
    let output = run(loader, exe, salts);
    let stdout = assert_host_passes(&output, "win_machine.exe");
    salts
        .iter()
        .map(|salt| {
            let label = format!("machine_code {salt} ");
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(&label))
                .unwrap_or_else(|| panic!("no code for {salt}\n{stdout}"))
                .to_owned()
        })
        .collect()
}

#[test]
pub(crate) fn machine_code_comes_from_the_registry_under_wine() {
    let win = windows();
    let _guid = MACHINE_GUID
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let wine64 = loader(Arch::X64);
    let exe64 = compile(
        Arch::X64,
        &root().join("tests/platforms/windows/win_machine.c"),
        "win_machine",
    );
    let exe86 = compile(
        Arch::X86,
        &root().join("tests/platforms/windows/win_machine.c"),
        "win_machine",
    );
    let salts = ["app-one", "app-two"];

    // Stable: two runs give the same codes; salts give different ones.
    let first = codes(&wine64, &exe64, &salts);
    let second = codes(&wine64, &exe64, &salts);
    assert_eq!(first, second, "the machine code changed between two runs");
    assert_ne!(first[0], first[1], "the salt changes the code");

    // From MachineGuid: another value gives other codes, the same value the same again,
    // and no random identity file was written in the profile.
    let original = machine_guid(&wine64);
    let _restore = RestoreGuid(wine64.clone(), original.clone());
    set_machine_guid(&wine64, "0b5e1c1e-7a3d-4c2b-9e8f-0123456789ab");
    let other = codes(&wine64, &exe64, &salts);
    assert_ne!(other, first, "the code does not follow MachineGuid");
    assert_eq!(codes(&wine64, &exe64, &salts), other, "stable again");
    set_machine_guid(&wine64, &original);
    assert_eq!(codes(&wine64, &exe64, &salts), first, "back to the first");
    let users = win.prefix.join("drive_c/users");
    let fallback: Vec<_> = fs::read_dir(&users)
        .map(|dirs| {
            dirs.filter_map(Result::ok)
                .map(|d| d.path().join("AppData/Roaming/verify/machine-id"))
                .filter(|p| p.exists())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        fallback.is_empty(),
        "a fallback identity was written: {fallback:?}"
    );
    notice(&format!(
        "x64 machine code under Wine (MachineGuid {original}): {}",
        first[0]
    ));

    // A 32-bit process: its prefix (32-bit Wine's own, in the chroot) has a MachineGuid of
    // its own, which it reads into the same codes as a 64-bit process given that GUID.
    let wine32 = loader(Arch::X86);
    let guid32 = machine_guid(&wine32);
    let codes32 = codes(&wine32, &exe86, &salts);
    set_machine_guid(&wine64, &guid32);
    assert_eq!(
        codes(&wine64, &exe64, &salts),
        codes32,
        "x86 and x64 give other codes for the MachineGuid {guid32}"
    );
    assert_ne!(codes32, first, "x86 ignores its MachineGuid");
}

/// One run of `win_machine v2 SALT FOLDER`: (code, outcome number, [(component, state)]).
pub(crate) struct WineV2 {
    pub(crate) code: String,
    pub(crate) outcome: String,
    pub(crate) components: Vec<(String, String)>,
    pub(crate) stdout: String,
}

impl WineV2 {
    pub(crate) fn state(&self, component: &str) -> &str {
        self.components
            .iter()
            .find(|(name, _)| name == component)
            .map(|(_, state)| state.as_str())
            .unwrap_or_else(|| panic!("no {component}\n{}", self.stdout))
    }
}

/// Runs `win_machine v2` under Wine; `setup` (shell lines, as root) runs first in new mount
/// and network namespaces of the test's own when it is not empty: a made-up DMI folder that
/// Wine's `GetSystemFirmwareTable` reads, adapters. The machine itself is never changed.
pub(crate) fn v2_under_wine(
    exe: &Path,
    salt: &str,
    folder: &Path,
    setup: &str,
    env: &[(&str, &str)],
) -> WineV2 {
    let win = windows();
    let windows_folder = format!("Z:{}", folder.display().to_string().replace('/', "\\"));
    let args = ["v2", salt, windows_folder.as_str()];
    let output = if setup.is_empty() {
        run(&loader(Arch::X64), exe, &args)
    } else {
        let mut command = Command::new("unshare");
        command
            .args(["--mount", "--net", "--", "sh", "-c"])
            .arg(format!("set -e\n{setup}\nexec \"$@\""))
            .arg("sh")
            .arg(&win.wine64)
            .arg(exe)
            .args(args)
            .current_dir(exe.parent().expect("the program folder"));
        wine_env(&mut command, &win.prefix);
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().expect("run unshare")
    };
    let stdout = assert_host_passes(&output, "win_machine.exe v2");
    let field = |label: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(label))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no `{label}`\n{stdout}"))
    };
    let outcome = match field("v2-outcome ").as_str() {
        "1" => "issued",
        "2" => "kept",
        "3" => "reissued",
        "4" => "store_unreadable",
        other => panic!("outcome {other}"),
    }
    .to_owned();
    WineV2 {
        code: field("v2-code "),
        outcome,
        components: stdout
            .lines()
            .filter_map(|l| l.strip_prefix("component "))
            .filter_map(|l| l.split_once(' '))
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .collect(),
        stdout: stdout.clone(),
    }
}

/// The sources Wine builds its SMBIOS table from, made up in the namespace (root): the DMI
/// folder for the names and serials, and `/var/lib/dbus/machine-id`, which Wine 8 turns into
/// the system UUID ($DBUS_ID, 32 hex digits).
pub(crate) const WINE_DMI: &str = "mount -t tmpfs verify-dmi /sys/class
mkdir -p /sys/class/dmi/id
printf '%s\\n' \"$DBUS_ID\" > /sys/class/dmi/id/dbus-machine-id
mount --bind /sys/class/dmi/id/dbus-machine-id /var/lib/dbus/machine-id
printf '%s\\n' \"$DMI_UUID\" > /sys/class/dmi/id/product_uuid
printf '%s\\n' \"$DMI_SERIAL\" > /sys/class/dmi/id/board_serial
printf 'Dell Inc.\\n' > /sys/class/dmi/id/sys_vendor
printf 'OptiPlex 7070\\n' > /sys/class/dmi/id/product_name";

/// Machine code v2 of Windows programs: the real sources through Wine (MachineGuid from the
/// registry, the SMBIOS table from GetSystemFirmwareTable, the volume serial, CPUID), and
/// the table's rows that Wine can play: MachineGuid edited, a reinstall (new MachineGuid and
/// volume serial) on the same board, a VM clone (new SMBIOS UUID).
#[test]
pub(crate) fn machine_code_v2_under_wine() {
    let _guid = MACHINE_GUID
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let wine64 = loader(Arch::X64);
    let exe = compile(
        Arch::X64,
        &root().join("tests/platforms/windows/win_machine.c"),
        "win_machine",
    );
    let dir = program_dir(Arch::X64).join(format!("v2-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create");
    let original = machine_guid(&wine64);
    let _restore = RestoreGuid(wine64.clone(), original.clone());

    // The real sources: issued, then kept; a second salt, another code.
    let plain = dir.join("plain");
    let first = v2_under_wine(&exe, "wine-v2", &plain, "", &[]);
    assert_eq!(first.outcome, "issued", "{}", first.stdout);
    let second = v2_under_wine(&exe, "wine-v2", &plain, "", &[]);
    assert_eq!(
        (second.outcome.as_str(), second.code.as_str()),
        ("kept", first.code.as_str()),
        "{}",
        second.stdout
    );
    assert_eq!(second.state("os_install"), "matches", "{}", second.stdout);
    assert_eq!(second.state("cpu"), "matches", "{}", second.stdout);
    notice(&format!("v2 under Wine, real sources:\n{}", second.stdout));

    // MachineGuid edited: the same code.
    set_machine_guid(&wine64, "0b5e1c1e-7a3d-4c2b-9e8f-0123456789ab");
    let edited = v2_under_wine(&exe, "wine-v2", &plain, "", &[]);
    assert_eq!(edited.state("os_install"), "differs", "{}", edited.stdout);
    if edited.state("system_volume") == "matches" {
        assert_eq!(edited.code, first.code, "{}", edited.stdout);
    }
    set_machine_guid(&wine64, &original);

    // A board (made-up DMI, as Wine reads it): a reinstall keeps the code, a clone does not.
    if !Path::new("/var/lib/dbus/machine-id").is_file() {
        notice("no /var/lib/dbus/machine-id (Wine's SMBIOS UUID): the board rows not played");
        return;
    }
    let uuid = "4c4c454400423510";
    let env = [
        ("DMI_UUID", uuid),
        ("DBUS_ID", "4c4c4544004235108052b4c04f4e3432"),
        ("DMI_SERIAL", "/7XK9Q2/CN1296"),
    ];
    let board = dir.join("board");
    let pc = v2_under_wine(&exe, "wine-v2", &board, WINE_DMI, &env);
    assert_eq!(pc.state("board_uuid"), "not_stored", "{}", pc.stdout);
    assert_eq!(pc.state("board_serial"), "not_stored", "{}", pc.stdout);
    assert_eq!(pc.state("model"), "not_stored", "{}", pc.stdout);
    // Reinstalled: another MachineGuid, and no state folder (a new disk): the same code.
    set_machine_guid(&wine64, "77777777-1111-4222-8333-444444444444");
    let reinstalled = v2_under_wine(&exe, "wine-v2", &dir.join("board-new-disk"), WINE_DMI, &env);
    assert_eq!(reinstalled.outcome, "issued");
    assert_eq!(reinstalled.code, pc.code, "{}", reinstalled.stdout);
    // ... and with the state folder kept: kept.
    let kept = v2_under_wine(&exe, "wine-v2", &board, WINE_DMI, &env);
    assert_eq!(
        (kept.outcome.as_str(), kept.code.as_str()),
        ("kept", pc.code.as_str()),
        "{}",
        kept.stdout
    );
    set_machine_guid(&wine64, &original);
    // A VM clone: a new SMBIOS UUID, the same MachineGuid, volume and serial: another code.
    let clone_env = [
        ("DMI_UUID", uuid),
        ("DBUS_ID", "4c4c4544004235108052c0ffee123456"),
        ("DMI_SERIAL", "/7XK9Q2/CN1296"),
    ];
    let clone = v2_under_wine(&exe, "wine-v2", &board, WINE_DMI, &clone_env);
    assert_eq!(clone.outcome, "reissued", "{}", clone.stdout);
    assert_ne!(clone.code, pc.code);
    assert_eq!(clone.state("board_uuid"), "differs");
    // A placeholder UUID never counts.
    let dummy_env = [
        ("DMI_UUID", uuid),
        ("DBUS_ID", "00000000000000000000000000000000"),
        ("DMI_SERIAL", "Default string"),
    ];
    let dummy = v2_under_wine(&exe, "wine-v2", &dir.join("dummy"), WINE_DMI, &dummy_env);
    assert_eq!(dummy.state("board_uuid"), "placeholder", "{}", dummy.stdout);
    assert_eq!(
        dummy.state("board_serial"),
        "placeholder",
        "{}",
        dummy.stdout
    );
    let _ = fs::remove_dir_all(&dir);
}
