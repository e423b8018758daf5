//! One client shared by many threads under Wine, on x64 and x86.

use super::*;

pub(crate) fn threads(arch: Arch) {
    let exe = compile(
        arch,
        &root().join("tests/platforms/windows/win_threads.c"),
        "win_threads",
    );
    let _guid = MACHINE_GUID
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let loader = loader(arch);
    let program = common::Program::fresh();
    let card = program.day_card(&common::unique("WINTHREADS-"), 30);
    let output = run(
        &loader,
        &exe,
        &[
            &program.sandbox.base_url(),
            &program.app_id,
            common::APP_KEY,
            &card,
            "8",
            "25",
        ],
    );
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_threads.exe"));
    assert!(
        stdout.contains("threads 8, calls 25, ok 800"),
        "{arch:?}: {stdout}"
    );
    // Every heartbeat reached the server: 8 × 25 of them, plus the login's Init and login.
    let heartbeats = program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|entry| entry.action.as_deref() == Some("UserHeartbeat"))
        .count();
    assert_eq!(heartbeats, 200, "{arch:?}: heartbeats the sandbox saw");
}

#[test]
pub(crate) fn one_client_many_threads_under_wine_x64() {
    threads(Arch::X64);
}

#[test]
pub(crate) fn one_client_many_threads_under_wine_x86() {
    threads(Arch::X86);
}
