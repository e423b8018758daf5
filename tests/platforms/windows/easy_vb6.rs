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
    let called: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("called "))
        .collect();
    let wanted: BTreeSet<&str> = declared.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(called, wanted, "every command called once, the stack kept");
}

/// `bindings/easy/例子.e.txt` replayed by `tests/platforms/windows/easy_replay.c` through the
/// declarations of `verify.e.txt` (`easy_decl.h`, made here), against the sandbox: a banned
/// card (1006, its reason as the remark), a card that logs in and starts the keeper (the
/// 时钟 sees it alive), an account bound to another machine (1022, the old machine code as
/// the remark), 换绑 and the login after it, and the doctor with its callback. That the replay
/// makes the example's calls in the example's order is checked by `hosts_declarations`.
#[test]
pub(crate) fn easy_example_replays_under_wine_x86() {
    let text =
        fs::read_to_string(root().join(common::host::EASY_DECLARATIONS)).expect("verify.e.txt");
    let dir = program_dir(Arch::X86);
    fs::write(
        dir.join("easy_decl.h"),
        common::host::easy_c_declarations(
            &common::host::easy_commands(&text),
            &common::host::easy_constants(&text),
        ),
    )
    .expect("write easy_decl.h");
    let source = dir.join("easy_replay.c");
    fs::copy(
        root().join("tests/platforms/windows/easy_replay.c"),
        &source,
    )
    .expect("copy");
    let exe = compile(Arch::X86, &source, "easy_replay");

    let program = common::Program::new(common::sandbox(), serde_json::json!({"max_rebinds": 5}));
    let card = program.day_card(&common::unique("EASY-CARD-"), 30);
    let banned = common::unique("EASY-BANNED-");
    program.cards(serde_json::json!([{"card": banned, "state": "disabled",
        "reason": "refund requested"}]));
    let username = common::unique("easy");
    let old_machine = "0123456789ABCDEF0123456789ABCDEF";
    program.accounts(
        serde_json::json!([{"username": username, "password": "easy-pass",
        "expire_at": "2099-01-01 00:00:00", "status": "active", "device_id": old_machine}]),
    );
    let base_url = program.sandbox.base_url();
    let output = run(
        &loader(Arch::X86),
        &exe,
        &[
            &base_url,
            &base_url,
            &program.app_id,
            common::APP_KEY,
            "state",
            &card,
            &banned,
            &username,
            "easy-pass",
        ],
    );
    let stdout = assert_host_passes(&output, "x86 easy_replay.exe");
    for wanted in [
        "result 1006 banned remark refund requested".to_owned(),
        "keeper started 1".to_owned(),
        format!("result 1022 old machine remark {old_machine}"),
        "result 200 expire_at 2099-01-01 00:00:00".to_owned(),
        "doctor: ".to_owned(),
    ] {
        assert!(stdout.contains(&wanted), "{wanted}\n{stdout}");
    }
}
