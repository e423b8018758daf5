//! The C, C++ and typed C++ demos under Wine (x64 and x86), and the time mark kept in the
//! registry.

use super::*;

pub(crate) fn c_demo(arch: Arch) {
    let exe = compile(arch, &root().join("examples-c/demo.c"), "demo");
    let loader = loader(arch);
    let (sandbox, app_id, app_key) = demo_sandbox();
    let output = run(&loader, &exe, &[&sandbox.base_url(), &app_id, &app_key]);
    sandbox.stop();
    let report = format!("{arch:?} demo.exe under Wine\n{}", show(&output));
    assert!(output.status.success(), "{report}");
    assert_demo_output(&text(&output).0, DEMO_STEPS, &app_key, &report);
}

#[test]
pub(crate) fn c_demo_passes_under_wine_x64() {
    c_demo(Arch::X64);
}

/// The offline store's time mark keeps its second place in the user's registry: after the
/// demo's run with a state folder (offline verdicts on), `HKEY_CURRENT_USER\Software\verify`
/// holds the program's sealed mark (a binary value `clock-...`), and nothing of it in
/// `%APPDATA%`.
#[test]
pub(crate) fn the_time_mark_is_kept_in_the_registry_under_wine_x64() {
    let _marks = offline::REGISTRY_MARKS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let exe = compile(Arch::X64, &root().join("examples-c/demo.c"), "demo");
    let loader = loader(Arch::X64);
    let mut clear = wine_command(&loader, "reg".as_ref());
    clear.args(["delete", r"HKCU\Software\verify", "/f"]);
    let _ = clear.output();
    let (sandbox, app_id, app_key) = demo_sandbox();
    let output = run(
        &loader,
        &exe,
        &[
            &sandbox.base_url(),
            &app_id,
            &app_key,
            "--state",
            "mark-state",
        ],
    );
    sandbox.stop();
    let report = format!("demo.exe --state under Wine\n{}", show(&output));
    assert!(output.status.success(), "{report}");
    let mut query = wine_command(&loader, "reg".as_ref());
    query.args(["query", r"HKCU\Software\verify"]);
    let listed = query.output().expect("run wine reg query");
    let (stdout, _) = text(&listed);
    assert!(
        stdout
            .lines()
            .any(|l| l.contains("clock-") && l.contains("REG_BINARY")),
        "no time mark in the registry\n{}\n{report}",
        show(&listed)
    );
}

#[test]
pub(crate) fn c_demo_passes_under_wine_x86() {
    c_demo(Arch::X86);
}

pub(crate) fn cpp_demo(arch: Arch) {
    let exe = compile(arch, &root().join("examples-c/demo.cpp"), "demo_cpp");
    let loader = loader(arch);
    let (sandbox, app_id, app_key) = demo_sandbox();
    let output = run(&loader, &exe, &[&sandbox.base_url(), &app_id, &app_key]);
    sandbox.stop();
    let report = format!("{arch:?} demo_cpp.exe under Wine\n{}", show(&output));
    let stdout = text(&output).0;
    assert!(output.status.success(), "{report}");
    for line in [
        "[client.init] code 200",
        "[client.single_login] code 200",
        "[client.user_login(machine B)] code 200",
        "device_id      \"DEMO-MACHINE-B-0002\"",
        "PASSED: all 13 steps got their expected code",
    ] {
        assert!(stdout.contains(line), "missing `{line}`\n{report}");
    }
    assert!(!stdout.contains(&app_key), "the AppKey is never printed");
}

#[test]
pub(crate) fn cpp_demo_passes_under_wine_x64() {
    cpp_demo(Arch::X64);
}

#[test]
pub(crate) fn cpp_demo_passes_under_wine_x86() {
    cpp_demo(Arch::X86);
}

// --- the typed C++ program ----------------------------------------------------------------

pub(crate) fn cpp_typed(arch: Arch, std: &str) {
    let name = format!("cpp_typed_{}", std.trim_start_matches("-std="));
    // mingw's GCC 12 defines std::type_info::operator== inline in C++23 and again in the static
    // libstdc++.a (GCC bug 110572, fixed in 13.3): the two are the same function, so the
    // C++23 build lets the linker keep the first.
    let mut flags = vec![std];
    if std == "-std=c++23" {
        flags.push("-Wl,--allow-multiple-definition");
    }
    let exe = compile_with(arch, &root().join("tests/cpp/cpp_typed.cpp"), &name, &flags);
    let loader = loader(arch);
    let issue = common::host::TypedProgram::new("WTYP-CARD-0000-0001");
    let mut command = wine_command(&loader, exe.as_os_str());
    command
        .args(issue.args())
        .current_dir(exe.parent().expect("the program folder"));
    let output = common::host::run_host_command(command, |line| issue.answer(line));
    let report = format!("{arch:?} {name}.exe under Wine\n{}", output.report());
    issue.assert_output(&output, &report);
    let stdout = &output.stdout;
    let expected = format!(
        "expected: {}",
        if std == "-std=c++23" { "yes" } else { "no" }
    );
    assert!(stdout.contains(&expected), "no `{expected}`\n{report}");
}

#[test]
pub(crate) fn cpp_typed_program_passes_under_wine_x64() {
    cpp_typed(Arch::X64, "-std=c++17");
}

#[test]
pub(crate) fn cpp_typed_program_with_std_expected_passes_under_wine_x64() {
    cpp_typed(Arch::X64, "-std=c++23");
}

#[test]
pub(crate) fn cpp_typed_program_passes_under_wine_x86() {
    cpp_typed(Arch::X86, "-std=c++17");
}
