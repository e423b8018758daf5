//! 易语言's DLL commands under 32-bit Wine: a C program made from
//! `bindings/easy/verify.e.txt` (never from the header) declares each command exactly as the
//! IDE calls it (`__stdcall`, 整数型 `int32_t`, 长整数型 `int64_t`, 文本型 `char *`, 传址 a
//! pointer, 子程序指针 an address), loads verify.dll with `LoadLibrary`/`GetProcAddress`,
//! and calls every command once with harmless arguments (0 handles, empty texts, 0 callbacks,
//! 传址 into zeroed variables), reading the stack pointer before and after each call: a
//! declaration with a parameter too many, too few or of the wrong size makes the stdcall
//! callee pop another number of bytes, and the stack pointer moves.

use super::*;

use common::host::{easy_calls_program, easy_declared};

#[test]
pub(crate) fn easy_declarations_call_every_export_stdcall_under_wine_x86() {
    let declared = easy_declared();
    assert!(declared.len() >= 100, "易语言 commands: {}", declared.len());
    let dir = program_dir(Arch::X86);
    let source = dir.join("easy_calls.c");
    fs::write(&source, easy_calls_program(&declared)).expect("write easy_calls.c");
    // -O0 and a frame pointer: the stack pointer read after a call is the one the call left.
    let exe = compile_with(
        Arch::X86,
        &source,
        "easy_calls",
        &["-O0", "-fno-omit-frame-pointer"],
    );
    let output = run(&loader(Arch::X86), &exe, &[]);
    let stdout = assert_host_passes(&output, "x86 easy_calls.exe");
    // the control: a declaration one parameter short moves the stack pointer by 4 bytes
    assert!(
        stdout
            .lines()
            .any(|line| line.trim_end() == "control moved 4"),
        "{stdout}"
    );
    let called: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("called "))
        .collect();
    let wanted: BTreeSet<&str> = declared.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(called, wanted, "every command called once, the stack kept");
}

/// The replay of an example (`tests/platforms/windows/example_replay.c`, one source for both:
/// `flags` choose the host's) built as `<name>.exe` against `header` (the declarations made
/// from the generated file, written beside it as `<header_name>`) and run
/// against the sandbox: a banned card (1006, its reason as the remark), a card that logs in
/// and starts the keeper (the 时钟/Timer sees it alive), an account bound to another machine
/// (1022, the old machine code as the remark), 换绑 and the login after it, and the doctor
/// with its callback. That the replay makes the example's calls in the example's order is
/// checked by `hosts_declarations`.
fn replay(name: &str, flags: &[&str], header_name: &str, header: String) {
    let dir = program_dir(Arch::X86);
    fs::write(dir.join(header_name), header).expect("write the declarations");
    // A copy of its own for each host: the two tests may run at once.
    let source = dir.join(format!("{name}.c"));
    fs::copy(root().join(common::host::EXAMPLE_REPLAY), &source).expect("copy the replay");
    let exe = compile_with(Arch::X86, &source, name, flags);

    let program = common::Program::new(common::sandbox(), serde_json::json!({"max_rebinds": 5}));
    let card = program.day_card(&common::unique("HOST-CARD-"), 30);
    let banned = common::unique("HOST-BANNED-");
    program.cards(serde_json::json!([{"card": banned, "state": "disabled",
        "reason": "refund requested"}]));
    let username = common::unique("host");
    let old_machine = "0123456789ABCDEF0123456789ABCDEF";
    program.accounts(
        serde_json::json!([{"username": username, "password": "host-pass",
        "expire_at": "2099-01-01 00:00:00", "status": "active", "device_id": old_machine}]),
    );
    let base_url = program.sandbox.base_url();
    let state = format!("state-{name}");
    let output = run(
        &loader(Arch::X86),
        &exe,
        &[
            &base_url,
            &base_url,
            &program.app_id,
            common::APP_KEY,
            &state,
            &card,
            &banned,
            &username,
            "host-pass",
        ],
    );
    let stdout = assert_host_passes(&output, &format!("x86 {name}.exe"));
    for wanted in [
        "result 1006 banned remark refund requested".to_owned(),
        "keeper started 1".to_owned(),
        format!("result 1022 old machine remark {old_machine}"),
        "result 200 expire_at 2099-01-01 00:00:00".to_owned(),
        "doctor: ".to_owned(),
    ] {
        assert!(stdout.contains(&wanted), "{name}: {wanted}\n{stdout}");
    }
}

/// `bindings/easy/例子.e.txt` replayed by `tests/platforms/windows/example_replay.c` through
/// the declarations of `verify.e.txt`.
#[test]
pub(crate) fn easy_example_replays_under_wine_x86() {
    let text =
        fs::read_to_string(root().join(common::host::EASY_DECLARATIONS)).expect("verify.e.txt");
    replay(
        "easy_replay",
        &[],
        "easy_decl.h",
        common::host::easy_c_declarations(
            &common::host::easy_commands(&text),
            &common::host::easy_constants(&text),
        ),
    );
}

/// `bindings/vb6/Example.bas` replayed by `tests/platforms/windows/example_replay.c`
/// (`-DREPLAY_VB6`) through the `Declare`s of `verify.bas`.
#[test]
pub(crate) fn vb6_example_replays_under_wine_x86() {
    let text = fs::read_to_string(root().join(common::host::VB6_MODULE)).expect("verify.bas");
    replay(
        "vb6_replay",
        &["-DREPLAY_VB6"],
        "vb6_decl.h",
        common::host::vb6_c_declarations(
            &common::host::vb6_declared(),
            &common::host::vb6_constants(&text),
        ),
    );
}
