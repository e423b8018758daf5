//! The offline store's second place on Windows is the user's registry
//! (`HKEY_CURRENT_USER\Software\verify`, a value per program): the table of moves against it,
//! as users make them with `reg.exe` and regedit, under Wine, x64 and x86
//! (`tests/c/c_offline_pieces.c`, the scene of `common::host::pieces`).

use super::*;

use std::sync::Mutex;

use common::host::{PiecesHost, PiecesScene, State};
use verify_core::codes::{ERR_CLOCK_BACK, ERR_TIME_UNCONFIRMED, OFFLINE};

/// Held by the tests that change `HKEY_CURRENT_USER\Software\verify` of a prefix (the key is
/// deleted, imported, made unreadable), and by those that read it back.
pub(crate) static REGISTRY_MARKS: Mutex<()> = Mutex::new(());

/// The key of the second place.
const KEY: &str = r"HKCU\Software\verify";

/// `path` (on this machine) as the Windows programs of `arch` see it: `Z:\...`, inside the
/// chroot for x86.
fn windows_path(arch: Arch, path: &Path) -> String {
    let inside = match arch {
        Arch::X64 => path.to_path_buf(),
        Arch::X86 => Path::new("/").join(
            path.strip_prefix(&windows().wine32_root)
                .expect("x86 programs live inside the chroot"),
        ),
    };
    format!("Z:{}", inside.display()).replace('/', "\\")
}

/// Runs Wine's `reg` with `args` under `loader`; fails the test unless it succeeds.
fn reg(loader: &Loader, args: &[&str]) -> String {
    let mut command = wine_command(loader, "reg".as_ref());
    command.args(args);
    let output = command.output().expect("run wine reg");
    assert!(output.status.success(), "reg {args:?}\n{}", show(&output));
    text(&output).0
}

/// The registry value of the program `app_id`'s mark: `clock-` and its scope (the first six
/// bytes of the SHA-256 of the AppId, in hex, as its state files are named).
fn mark_value(app_id: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, app_id.as_bytes());
    let scope: String = digest.as_ref()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("clock-{scope}")
}

fn offline_marks(arch: Arch) {
    let _marks = REGISTRY_MARKS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let _guid = MACHINE_GUID
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let exe = compile(
        arch,
        &root().join("tests/c/c_offline_pieces.c"),
        "c_offline_pieces",
    );
    let acl = compile(
        arch,
        &root().join("tests/platforms/windows/win_registry_read.c"),
        "win_registry_read",
    );
    let loader = loader(arch);
    let dir = program_dir(arch);
    let older_reg = dir.join("pieces-older.reg");
    let older_reg_windows = windows_path(arch, &older_reg);
    // Set while a start runs with the key unreadable (through `win_registry_read.exe`).
    let denied = std::rc::Rc::new(std::cell::Cell::new(false));
    let (run_loader, run_denied) = (loader.clone(), std::rc::Rc::clone(&denied));
    let start_host = move |args: &[String]| {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        let program = if run_denied.get() {
            args.insert(0, "c_offline_pieces.exe");
            &acl
        } else {
            &exe
        };
        let output = run(&run_loader, program, &args);
        let report = show(&output);
        assert!(output.status.success(), "c_offline_pieces.exe\n{report}");
        let stdout = text(&output).0;
        if run_denied.get() {
            assert!(
                stdout.starts_with("unreadable"),
                "the key is still readable\n{report}"
            );
        }
        (stdout, report)
    };
    let host = PiecesHost {
        run: Box::new(start_host),
        state_arg: "pieces-state".to_owned(),
        state_dir: dir.join("pieces-state"),
    };
    let mut scene = PiecesScene::new(host, || {
        reg(&loader, &["export", KEY, &older_reg_windows, "/y"]);
    });
    let value = mark_value(&scene.app_id);
    let listed = reg(&loader, &["query", KEY]);
    assert!(
        listed
            .lines()
            .any(|l| l.contains(&value) && l.contains("REG_BINARY")),
        "no {value} in the registry\n{listed}"
    );
    let newer_reg = dir.join("pieces-newer.reg");
    let newer_reg_windows = windows_path(arch, &newer_reg);
    reg(&loader, &["export", KEY, &newer_reg_windows, "/y"]);
    // Whether the key differs from its newer copy (a start with the server down writes
    // nothing there: the marks are ahead of the clock).
    let changed = std::cell::Cell::new(false);
    let put_back_newer = || {
        if changed.replace(false) {
            let _ = wine_command(&loader, "reg".as_ref())
                .args(["delete", KEY, "/f"])
                .output();
            reg(&loader, &["import", &newer_reg_windows]);
        }
    };

    let row = |name: &str, state: State, second: &dyn Fn(), expected: i32| {
        put_back_newer();
        scene.set_state(state);
        second();
        scene.expect(&format!("{arch:?}: {name}"), expected);
    };
    let untouched = || {};
    let value_deleted = || {
        changed.set(true);
        reg(&loader, &["delete", KEY, "/v", &value, "/f"]);
    };
    let key_deleted = || {
        changed.set(true);
        reg(&loader, &["delete", KEY, "/f"]);
    };
    let older_imported = || {
        changed.set(true);
        reg(&loader, &["import", &older_reg_windows]);
    };
    row(
        "nothing else (control)",
        State::Now,
        &untouched,
        ERR_CLOCK_BACK,
    );
    row(
        "the registry value deleted",
        State::Now,
        &value_deleted,
        ERR_TIME_UNCONFIRMED,
    );
    row(
        "the key deleted",
        State::Now,
        &key_deleted,
        ERR_TIME_UNCONFIRMED,
    );
    denied.set(true);
    row(
        "the key made unreadable",
        State::Now,
        &untouched,
        ERR_TIME_UNCONFIRMED,
    );
    denied.set(false);
    row(
        "the state folder's mark deleted",
        State::NowWithoutMark,
        &untouched,
        ERR_TIME_UNCONFIRMED,
    );
    row(
        "an older state folder, the key deleted",
        State::Older,
        &key_deleted,
        ERR_TIME_UNCONFIRMED,
    );
    row(
        "an older state folder, the value deleted",
        State::Older,
        &value_deleted,
        ERR_TIME_UNCONFIRMED,
    );
    row(
        "an older state folder (the registry intact)",
        State::Older,
        &untouched,
        ERR_CLOCK_BACK,
    );
    row(
        "an older value imported alone (reg import)",
        State::Now,
        &older_imported,
        ERR_CLOCK_BACK,
    );
    row(
        "an older state folder and an older value imported (the limit)",
        State::Older,
        &older_imported,
        OFFLINE,
    );
    // One online login heals the key deleted.
    changed.set(true);
    put_back_newer();
    scene.set_state(State::Now);
    key_deleted();
    scene.heal(&format!("{arch:?}: the key deleted"));
    let _ = fs::remove_file(older_reg);
    let _ = fs::remove_file(newer_reg);
}

/// x64: every row of the registry's table under Wine.
#[test]
pub(crate) fn the_registry_second_place_vouches_under_wine_x64() {
    offline_marks(Arch::X64);
}

/// x86 (32-bit Wine in the i386 chroot): every row of the registry's table.
#[test]
pub(crate) fn the_registry_second_place_vouches_under_wine_x86() {
    offline_marks(Arch::X86);
}
