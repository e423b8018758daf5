//! FreeLibrary under Wine: every cycle unloads verify.dll with a lookup still running, or
//! right after a keeper that has beaten was stopped.

use super::*;

/// Runs `win_unload.exe 100` for `arch` in mount and network namespaces of the test's own:
/// a loopback network whose name server (127.0.0.1:53, a UDP socket of the test's that reads
/// nothing and never answers) is the one `resolv.conf` names, for Wine (x64) or in the chroot
/// of 32-bit Wine (x86). Every cycle unloads verify.dll with a lookup still running.
pub(crate) fn unload(arch: Arch) {
    let exe = compile(
        arch,
        &root().join("tests/platforms/windows/win_unload.c"),
        "win_unload",
    );
    let dir = exe.parent().expect("the program folder");
    let resolv = dir.join("resolv.conf");
    fs::write(
        &resolv,
        "nameserver 127.0.0.1\noptions timeout:3 attempts:1\n",
    )
    .expect("write resolv.conf");
    let win = windows();
    let etc = match arch {
        Arch::X64 => PathBuf::from("/etc/resolv.conf"),
        Arch::X86 => win.wine32_root.join("etc/resolv.conf"),
    };
    // The name server is bound before the program starts; it ends with the namespace's shell.
    let script = r#"set -e
ip link set lo up
mount --bind "$RESOLV" "$ETC"
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
print("ready", flush=True)
time.sleep(600)' > "$READY" &
server=$!
tries=0
until [ -s "$READY" ] || [ "$tries" -ge 200 ]; do sleep 0.05; tries=$((tries + 1)); done
status=0
"$@" || status=$?
kill "$server"
exit "$status""#;
    let mut command = Command::new("unshare");
    command
        .args(["--mount", "--net", "--", "sh", "-c", script, "sh"])
        .env("RESOLV", &resolv)
        .env("ETC", &etc)
        .env("READY", dir.join("name-server-ready"));
    match arch {
        Arch::X64 => {
            command.arg(&win.wine64);
            wine_env(&mut command, &win.prefix);
        }
        Arch::X86 => {
            command.arg(root().join("scripts/wine32.sh")).arg("exec");
        }
    }
    command.arg(&exe).arg("100").current_dir(dir);
    let started = Instant::now();
    let output = command.output().expect("run unshare");
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_unload.exe"));
    notice(&format!(
        "{arch:?}: 100 FreeLibrary cycles with lookups in flight in {:.1} s: {}",
        started.elapsed().as_secs_f64(),
        stdout.lines().find(|l| l.contains("cycles")).unwrap_or("")
    ));
}

#[test]
pub(crate) fn free_library_with_lookups_in_flight_under_wine_x64() {
    unload(Arch::X64);
}

#[test]
pub(crate) fn free_library_with_lookups_in_flight_under_wine_x86() {
    unload(Arch::X86);
}

/// Runs `win_unload.exe 100 BASE_URL APP_ID APP_KEY CARD` for `arch` against this binary's
/// sandbox: 100 cycles of LoadLibrary, a card login, a keeper that has beaten at least once,
/// `verify_keeper_stop` and free, the client freed, and FreeLibrary, each of which unloads
/// verify.dll (the program polls `GetModuleHandle` for it).
fn unload_after_keepers(arch: Arch) {
    // A name of its own: the lookup test of the same arch may compile and run at once.
    let exe = compile(
        arch,
        &root().join("tests/platforms/windows/win_unload.c"),
        "win_unload_keepers",
    );
    let program = common::Program::fresh();
    let card = program.day_card(&common::unique("UNLOAD-"), 30);
    let started = Instant::now();
    let output = run(
        &loader(arch),
        &exe,
        &[
            "100",
            &program.sandbox.base_url(),
            &program.app_id,
            common::APP_KEY,
            &card,
        ],
    );
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_unload.exe (keepers)"));
    notice(&format!(
        "{arch:?}: 100 FreeLibrary cycles after stopped keepers in {:.1} s: {}",
        started.elapsed().as_secs_f64(),
        stdout.lines().find(|l| l.contains("cycles")).unwrap_or("")
    ));
}

#[test]
pub(crate) fn free_library_after_a_stopped_keeper_under_wine_x64() {
    unload_after_keepers(Arch::X64);
}

#[test]
pub(crate) fn free_library_after_a_stopped_keeper_under_wine_x86() {
    unload_after_keepers(Arch::X86);
}
