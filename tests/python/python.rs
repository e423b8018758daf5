//! The Python package `verify-sdk` (`bindings/python`, import `verify`), as its users get it:
//! a wheel built by `scripts/build-python.sh` and installed with pip into a fresh virtual
//! environment, then
//!
//! - its pytest suite (`bindings/python/tests`: every action, refusals, the keeper seeing a
//!   ban, an offline start, machine codes, asyncio) against this binary's sandbox;
//! - the typed program `tests/python/python_typed.py` (the program of the typed C++ and C#
//!   hosts: card login, account login, wrong password, bad card, wrong AppKey, an offline
//!   start, the keeper seeing a ban; a newcomer's, with the bad card's message in Chinese),
//!   checked like them by `common::host::TypedProgram`;
//! - `mypy --strict` over the package, its pytest suite and the typed program (which satisfies it with no
//!   `assert` and no `cast`), and `vermin` for the oldest CPython the package states (3.8);
//! - `scripts/build-python.sh` with no target: this machine's wheel alone, which installs;
//! - a program frozen with PyInstaller, with no hook of its own, run against the sandbox;
//! - the release wheels: Linux x86-64 and ARM64 built against glibc 2.17 and found
//!   manylinux_2_17 by `auditwheel`, Windows x64 and x86 carrying the DLLs of
//!   `scripts/build-windows.sh`, and the sdist, which loads a library named by
//!   `VERIFY_LIBRARY`.
//!
//! Tools come from PyPI once, into `target/python/` (reused): the build venv of
//! build-python.sh (setuptools, wheel, build, auditwheel, mypy, vermin; pytest added for the
//! types of the suite) and a wheelhouse of
//! pytest and PyInstaller that each fresh venv installs from without the network.

#[path = "../common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::host::{
    first_fenced, library_dir, require_tool, root, run_host_command, run_script, show, target_dir,
    test_config_home, text, Scratch, TypedProgram,
};
use common::APP_KEY;
use verify_sandbox::{Fault, FaultKind};

/// The version of the package (and of the crate).
const VERSION: &str = env!("CARGO_PKG_VERSION");

fn work() -> PathBuf {
    target_dir().join("python")
}

fn tools_python() -> PathBuf {
    work().join("tools/bin/python3")
}

/// Runs `command`, panicking with its output unless it succeeds; returns its stdout.
fn run(command: &mut Command, what: &str) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(output.status.success(), "{what} failed\n{}", show(&output));
    text(&output).0
}

/// The wheel of the library under test (the tests' debug build), tagged linux_x86_64, with
/// the tools and the wheelhouse ready; built once per test binary.
fn test_wheel() -> PathBuf {
    static WHEEL: OnceLock<PathBuf> = OnceLock::new();
    WHEEL
        .get_or_init(|| {
            require_tool("python3", "venv");
            let library = library_dir().join("libverify.so");
            let dist = run_script(
                "build-python.sh",
                &[
                    "--library",
                    library.to_str().expect("a UTF-8 path"),
                    "--platform",
                    "linux_x86_64",
                ],
            );
            let wheel = PathBuf::from(dist.trim())
                .join(format!("verify_sdk-{VERSION}-py3-none-linux_x86_64.whl"));
            assert!(wheel.is_file(), "no {}", wheel.display());

            let python = tools_python();
            let ready = Command::new(&python)
                .args(["-c", "import mypy, vermin, pytest"])
                .status()
                .is_ok_and(|s| s.success());
            if !ready {
                run(
                    Command::new(&python).args([
                        "-m",
                        "pip",
                        "install",
                        "--quiet",
                        "--disable-pip-version-check",
                        "mypy",
                        "vermin",
                        "pytest",
                    ]),
                    "pip install mypy vermin pytest",
                );
            }
            let wheelhouse = work().join("wheelhouse");
            let marker = wheelhouse.join(".complete");
            if !marker.is_file() {
                run(
                    Command::new(&python)
                        .args([
                            "-m",
                            "pip",
                            "download",
                            "--quiet",
                            "--disable-pip-version-check",
                            "--dest",
                        ])
                        .arg(&wheelhouse)
                        .args(["pytest", "pyinstaller"]),
                    "pip download pytest pyinstaller",
                );
                std::fs::write(&marker, "").expect("mark the wheelhouse");
            }
            wheel
        })
        .clone()
}

/// A fresh virtual environment in `scratch` with `wheel` (and `extra` from the wheelhouse)
/// installed by pip; returns its python.
fn fresh_venv(scratch: &Scratch, wheel: &Path, extra: &[&str]) -> PathBuf {
    let venv = scratch.0.join("venv");
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&venv),
        "python3 -m venv",
    );
    let python = venv.join("bin/python");
    run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-index",
                "--find-links",
            ])
            .arg(work().join("wheelhouse"))
            .arg(wheel)
            .args(extra),
        "pip install of the wheel into a fresh venv",
    );
    python
}

/// A command running `python` without the variables that would pick another library.
fn python_command(python: &Path) -> Command {
    let mut command = Command::new(python);
    command
        .env_remove("VERIFY_LIBRARY")
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("PYTHONPATH")
        .env("XDG_CONFIG_HOME", test_config_home());
    command
}

#[test]
fn the_installed_wheel_loads_its_own_library() {
    let scratch = Scratch::new();
    let python = fresh_venv(&scratch, &test_wheel(), &[]);
    let stdout = run(
        python_command(&python).args([
            "-c",
            "import os, verify; print(verify.library_path()); print(verify.abi_version()); \
             print(verify.library_version()); \
             print(os.path.isfile(verify.nuitka_configuration()))",
        ]),
        "import verify",
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with(scratch.0.join("venv").to_str().expect("UTF-8"))
            && lines[0].ends_with("site-packages/verify/libverify.so"),
        "the library is the wheel's: {stdout}"
    );
    assert_eq!(&lines[1..], ["2", VERSION, "True"], "{stdout}");
}

#[test]
fn pytest_suite_passes_against_the_sandbox() {
    let scratch = Scratch::new();
    let python = fresh_venv(&scratch, &test_wheel(), &["pytest"]);
    let output = python_command(&python)
        .args([
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rA",
            "tests",
        ])
        .env("VERIFY_SANDBOX_URL", common::sandbox().base_url())
        .current_dir(root().join("bindings/python"))
        .output()
        .expect("pytest runs");
    let report = show(&output);
    assert!(output.status.success(), "pytest failed\n{report}");
    let (stdout, _) = text(&output);
    let summary = stdout
        .lines()
        .rev()
        .find(|line| line.contains(" passed"))
        .unwrap_or_else(|| panic!("no tests ran\n{report}"));
    let passed: usize = summary
        .trim_matches(|c: char| !c.is_ascii_digit())
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        passed >= 25 && !summary.contains("failed") && !summary.contains("error"),
        "{summary}\n{report}"
    );
}

#[test]
fn typed_program_on_the_python_api() {
    let scratch = Scratch::new();
    let python = fresh_venv(&scratch, &test_wheel(), &[]);
    let typed = TypedProgram::new("PTYP-CARD-0000-0001");
    let mut command = python_command(&python);
    command
        .arg(root().join("tests/python/python_typed.py"))
        .args(typed.args())
        .current_dir(&scratch.0);
    let sandbox = typed.program.sandbox;
    let app_id = typed.program.app_id.clone();
    let output = run_host_command(command, |line| match line {
        // The service out of reach: every request of the program is answered too late.
        "@@ outage" => {
            sandbox.set_fault(Fault {
                kind: FaultKind::Delay,
                app_id: Some(app_id.clone()),
                action: None,
                count: None,
                delay_ms: 30_000,
            });
            Some("go".to_owned())
        }
        "@@ back" => {
            sandbox.clear_faults(Some(&app_id));
            Some("go".to_owned())
        }
        _ => typed.answer(line),
    });
    let report = output.report();
    typed.assert_output(&output, &report);
    for line in [
        "offline start 202 reason -",
        // The end user's message of 1004 in Simplified Chinese (core/src/codes.rs).
        "bad card says 卡密无效，请检查后重新输入。",
    ] {
        assert!(
            output.stdout.lines().any(|l| l.starts_with(line)),
            "no line `{line}`\n{report}"
        );
    }
}

#[test]
fn mypy_strict_and_the_oldest_python() {
    test_wheel();
    let package = root().join("bindings/python");
    run(
        Command::new(tools_python())
            .args(["-m", "mypy", "--strict", "--no-incremental"])
            .current_dir(&package),
        "mypy --strict",
    );
    // The pytest suite too, as a Python developer's own tests would be checked (pytest in the
    // tools venv for its types).
    run(
        Command::new(tools_python())
            .args(["-m", "mypy", "--strict", "--no-incremental", "tests"])
            .env("MYPYPATH", package.join("src"))
            .current_dir(&package),
        "mypy --strict of bindings/python/tests",
    );
    // The newcomer's typed program passes mypy --strict on the package's types alone: no
    // assert, no cast, no type: ignore to help it.
    let typed = root().join("tests/python/python_typed.py");
    run(
        Command::new(tools_python())
            .args(["-m", "mypy", "--strict", "--no-incremental"])
            .arg(&typed)
            .env("MYPYPATH", package.join("src"))
            .current_dir(&package),
        "mypy --strict of tests/python/python_typed.py",
    );
    let source = std::fs::read_to_string(&typed).expect("the typed program");
    for (number, line) in source.lines().enumerate() {
        let code = line.trim_start();
        assert!(
            !code.starts_with("assert ")
                && !code.contains("cast(")
                && !code.contains("type: ignore"),
            "python_typed.py:{}: {line}",
            number + 1
        );
    }
    // The oldest CPython stated in pyproject.toml (requires-python) and the README.
    let pyproject = std::fs::read_to_string(package.join("pyproject.toml")).expect("pyproject");
    assert!(pyproject.contains("requires-python = \">=3.8\""));
    run(
        Command::new(work().join("tools/bin/vermin"))
            .args([
                "--no-tips",
                "--violations",
                "--target=3.8-",
                "src/verify",
                "tests",
            ])
            .arg(root().join("tests/python/python_typed.py"))
            .current_dir(&package),
        "vermin --target=3.8-",
    );
}

#[test]
fn pyinstaller_frozen_program_finds_the_library() {
    let scratch = Scratch::new();
    let python = fresh_venv(&scratch, &test_wheel(), &["pyinstaller"]);
    let dist = scratch.0.join("dist");
    run(
        python_command(&python)
            .args([
                "-m",
                "PyInstaller",
                "--onefile",
                "--noconfirm",
                "--log-level",
                "WARN",
            ])
            .arg("--distpath")
            .arg(&dist)
            .arg("--workpath")
            .arg(scratch.0.join("build"))
            .arg("--specpath")
            .arg(&scratch.0)
            .arg(root().join("tests/python/python_frozen.py"))
            .current_dir(&scratch.0),
        "pyinstaller --onefile",
    );
    let program = common::Program::fresh();
    // Run from elsewhere, with the venv gone: only the bundle can hold the library.
    std::fs::remove_dir_all(scratch.0.join("venv")).expect("remove the venv");
    let stdout = run(
        python_command(&dist.join("python_frozen"))
            .args([&program.sandbox.base_url(), &program.app_id, APP_KEY])
            .current_dir(std::env::temp_dir()),
        "the frozen program",
    );
    for line in ["frozen True", "bulletin 公告 bulletin", "machine code 32"] {
        assert!(stdout.lines().any(|l| l == line), "no `{line}`\n{stdout}");
    }
    let library = stdout
        .lines()
        .find_map(|l| l.strip_prefix("library "))
        .expect("the library line");
    assert!(
        library.contains("_MEI") && library.ends_with("/verify/libverify.so"),
        "the library comes from the bundle: {library}"
    );
}

/// `scripts/build-python.sh` with no target builds this machine's wheel alone (here with the
/// debug library, `--debug`), prints its path, and that wheel installs with pip into a fresh
/// venv and calls the sandbox with the library it carries.
#[test]
fn build_python_sh_builds_this_machines_wheel() {
    test_wheel();
    let scratch = Scratch::new();
    let out = scratch.0.join("dist");
    let printed = run_script(
        "build-python.sh",
        &["--debug", "--out", out.to_str().expect("a UTF-8 path")],
    );
    let wheel = PathBuf::from(printed.lines().last().unwrap_or("").trim());
    assert_eq!(
        wheel,
        out.join(format!("verify_sdk-{VERSION}-py3-none-linux_x86_64.whl")),
        "{printed}"
    );
    let built: Vec<_> = std::fs::read_dir(&out)
        .expect("the wheels' folder")
        .filter_map(|entry| entry.ok().map(|e| e.file_name()))
        .collect();
    assert_eq!(built.len(), 1, "one wheel only: {built:?}");
    let python = fresh_venv(&scratch, &wheel, &[]);
    let library = bulletin_and_library(&python, "this machine's wheel");
    assert!(
        library.ends_with("site-packages/verify/libverify.so"),
        "{library}"
    );
}

/// Runs `python` on a call of the sandbox through the installed package: checks the
/// bulletin it got, and returns the path of the library it loaded.
fn bulletin_and_library(python: &Path, what: &str) -> String {
    let program = common::Program::fresh();
    let stdout = run(
        python_command(python).args([
            "-c",
            "import sys, verify; c = verify.Client(*sys.argv[1:4]); \
             print(c.get_bulletin().bulletin); print(verify.library_path())",
            &program.sandbox.base_url(),
            &program.app_id,
            APP_KEY,
        ]),
        what,
    );
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("公告 bulletin"), "{what}: {stdout}");
    lines.next().unwrap_or("").to_owned()
}

/// `target/python/dist` after `scripts/build-python.sh all` built every wheel and the sdist
/// (once per test binary).
fn release_dist() -> PathBuf {
    static DIST: OnceLock<PathBuf> = OnceLock::new();
    DIST.get_or_init(|| {
        test_wheel();
        PathBuf::from(run_script("build-python.sh", &["all"]).trim())
    })
    .clone()
}

/// The release wheel whose platform tags include `platform` (`wheel tags` sorts them).
fn release_wheel(platform: &str) -> PathBuf {
    let dist = release_dist();
    let prefix = format!("verify_sdk-{VERSION}-py3-none-");
    std::fs::read_dir(&dist)
        .expect("the dist folder")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .find(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(".whl"))
                .is_some_and(|tags| tags.split('.').any(|tag| tag == platform))
        })
        .unwrap_or_else(|| panic!("no {platform} wheel in {}", dist.display()))
}

/// The file `name` of a wheel.
fn read(wheel: &Path, name: &str) -> Vec<u8> {
    let output = Command::new("unzip")
        .arg("-p")
        .arg(wheel)
        .arg(name)
        .output()
        .expect("unzip runs");
    assert!(output.status.success(), "{} has no {name}", wheel.display());
    output.stdout
}

/// No Python for ARM64 runs here: the ARM64 wheel's library (glibc 2.17) runs the C demo
/// (examples-c/demo.c, built with aarch64-linux-gnu-gcc) under qemu-aarch64 against the
/// sandbox, as tests/platforms/linux_arm64.rs runs the library of scripts/build-arm64.sh.
#[test]
fn arm64_wheel_library_runs_the_c_demo_under_qemu() {
    require_tool("aarch64-linux-gnu-gcc", "arm64");
    require_tool("qemu-aarch64", "arm64");
    let scratch = Scratch::new();
    let library = read(
        &release_wheel("manylinux_2_17_aarch64"),
        "verify/libverify.so",
    );
    std::fs::write(scratch.0.join("libverify.so"), library).expect("write the library");
    let program = scratch.0.join("demo");
    run(
        Command::new("aarch64-linux-gnu-gcc")
            .args(common::host::C_FLAGS)
            .arg("-I")
            .arg(root().join("include"))
            .arg(root().join("examples-c/demo.c"))
            .arg("-L")
            .arg(&scratch.0)
            .arg("-lverify")
            .arg(format!("-Wl,-rpath,{}", scratch.0.display()))
            .arg("-o")
            .arg(&program),
        "aarch64-linux-gnu-gcc demo.c",
    );
    let (sandbox, app_id, app_key) = common::host::demo_sandbox();
    let url = sandbox.base_url();
    let output = Command::new("qemu-aarch64")
        .arg("-L")
        .arg("/usr/aarch64-linux-gnu")
        .arg(&program)
        .args([url.as_str(), &app_id, &app_key])
        .env_remove("LD_LIBRARY_PATH")
        .current_dir(root())
        .output()
        .expect("run qemu-aarch64");
    sandbox.stop();
    let report = format!(
        "the ARM64 wheel's library under qemu-aarch64\n{}",
        show(&output)
    );
    assert!(output.status.success(), "{report}");
    common::host::assert_demo_output(
        &text(&output).0,
        common::host::DEMO_STEPS,
        &app_key,
        &report,
    );
}

/// The wheels and the sdist of a release, as `scripts/build-python.sh` builds them (it fails
/// when auditwheel does not find a Linux wheel manylinux_2_17): each carries its library,
/// the Linux x86-64 one installs and runs against the sandbox, the Windows ones carry the
/// very DLLs that tests/platforms/windows/ checks under Wine, and the sdist carries none and loads
/// the one `VERIFY_LIBRARY` names.
#[test]
fn release_wheels_and_sdist() {
    let dist = release_dist();
    let wheel = |platform: &str| release_wheel(platform);

    let linux = wheel("manylinux_2_17_x86_64");
    let arm = wheel("manylinux_2_17_aarch64");
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let version = env!("CARGO_PKG_VERSION");
        let shipped = read(
            &linux,
            &format!("verify_sdk-{version}.dist-info/licenses/{licence}"),
        );
        let repository = std::fs::read(root().join(licence)).expect("the licence text");
        assert!(shipped == repository, "the wheel's {licence}");
    }
    // Every wheel carries the notices of the crates in its library (scripts/notices.sh).
    // (A Windows wheel's with the mingw-w64 runtime the linker put into verify.dll.)
    let notices = common::host::third_party_notices(common::host::Notices::Library);
    let windows_notices = common::host::third_party_notices(common::host::Notices::Windows);
    for (platform, notices) in [
        ("manylinux_2_17_x86_64", &notices),
        ("manylinux_2_17_aarch64", &notices),
        ("win_amd64", &windows_notices),
        ("win32", &windows_notices),
    ] {
        let shipped = read(
            &wheel(platform),
            &format!("verify_sdk-{VERSION}.dist-info/licenses/THIRD-PARTY-NOTICES"),
        );
        assert!(
            &shipped == notices,
            "{platform}: the wheel's THIRD-PARTY-NOTICES"
        );
    }
    for (file, machine) in [(&linux, "X86-64"), (&arm, "AArch64")] {
        let library = read(file, "verify/libverify.so");
        let scratch = Scratch::new();
        let path = scratch.0.join("libverify.so");
        std::fs::write(&path, library).expect("write the library");
        let header = run(Command::new("readelf").arg("-h").arg(&path), "readelf -h");
        assert!(header.contains(machine), "{}: {header}", file.display());
        // No symbol of a glibc newer than 2.17.
        let symbols = run(Command::new("readelf").arg("-V").arg(&path), "readelf -V");
        for version in symbols
            .split_whitespace()
            .filter_map(|word| word.strip_prefix("GLIBC_2."))
        {
            let minor: u32 = version
                .split('.')
                .next()
                .and_then(|m| m.parse().ok())
                .unwrap_or(0);
            assert!(minor <= 17, "GLIBC_2.{version} in {}", file.display());
        }
    }

    // The x86-64 wheel installs and calls the sandbox.
    let scratch = Scratch::new();
    let python = fresh_venv(&scratch, &linux, &[]);
    bulletin_and_library(&python, "the manylinux wheel");

    // Every function the package declares (and so looks up when it loads the library).
    let mut declared: Vec<String> = Vec::new();
    for file in ["_native.py", "_generated/native.py"] {
        let path = root().join("bindings/python/src/verify").join(file);
        let source = std::fs::read_to_string(&path).expect("the package's declarations");
        for line in source.lines() {
            let line = line.trim_start();
            let name = line
                .strip_prefix("(\"")
                .or_else(|| line.strip_prefix("\""))
                .or_else(|| line.strip_prefix("lib."))
                .filter(|rest| rest.starts_with("verify_"))
                .and_then(|rest| rest.split(['"', '.']).next());
            if let Some(name) = name {
                declared.push(name.to_owned());
            }
        }
    }
    declared.sort();
    declared.dedup();
    assert!(declared.len() > 90, "{declared:?}");
    for (platform, arch) in [("win_amd64", "x64"), ("win32", "x86")] {
        let carried = read(&wheel(platform), "verify/verify.dll");
        let built = std::fs::read(target_dir().join("windows").join(arch).join("verify.dll"))
            .expect("the DLL of build-windows.sh");
        assert!(
            carried == built,
            "{platform}: the wheel's DLL is the one build-windows.sh built"
        );
        // The DLL exports each of them by its plain name (what ctypes looks up, also for
        // stdcall on x86).
        let scratch = Scratch::new();
        let dll = scratch.0.join("verify.dll");
        std::fs::write(&dll, carried).expect("write the DLL");
        let exports = run(
            Command::new("x86_64-w64-mingw32-objdump")
                .arg("-p")
                .arg(&dll),
            "objdump -p verify.dll",
        );
        let exported: Vec<&str> = exports
            .lines()
            .filter_map(|line| line.trim().strip_prefix('[')?.split_once(']'))
            .map(|(_, name)| name.trim())
            .collect();
        for name in &declared {
            assert!(
                exported.contains(&name.as_str()),
                "{platform}: the DLL does not export {name}"
            );
        }
    }

    // The sdist: no library inside; VERIFY_LIBRARY names one, and without it the error says so.
    let sdist = dist.join(format!("verify_sdk-{VERSION}.tar.gz"));
    let listing = run(Command::new("tar").arg("tzf").arg(&sdist), "tar tzf");
    assert!(
        listing.contains("src/verify/_generated/results.py")
            && listing.contains("THIRD-PARTY-NOTICES")
            && !listing.contains("libverify.so")
            && !listing.contains("verify.dll"),
        "{listing}"
    );
    let target = scratch.0.join("from-sdist");
    run(
        Command::new(tools_python())
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-build-isolation",
                "--no-deps",
                "--target",
            ])
            .arg(&target)
            .arg(&sdist),
        "pip install of the sdist",
    );
    let import = |library: Option<&Path>| {
        let mut command = python_command(&python);
        command
            .args(["-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import verify; print(verify.library_path())"])
            .arg(&target);
        if let Some(library) = library {
            command.env("VERIFY_LIBRARY", library);
        }
        command.output().expect("python runs")
    };
    let named = library_dir().join("libverify.so");
    let output = import(Some(&named));
    assert!(output.status.success(), "{}", show(&output));
    assert_eq!(text(&output).0.trim(), named.to_str().expect("UTF-8"));
    let output = import(None);
    assert!(!output.status.success(), "{}", show(&output));
    assert!(
        text(&output).1.contains("VERIFY_LIBRARY"),
        "{}",
        show(&output)
    );
}

/// The first ```python block of bindings/python/README.md (the typed, throwing form) passes
/// `mypy --strict` and, with the address and id of a sandbox loaded with the demo fixtures,
/// logs in, prints the expiry in UTC+08:00 and keeps the session.
#[test]
fn the_readme_example_runs() {
    let source = &first_fenced("bindings/python/README.md", "python");
    for part in ["\"http://127.0.0.1:8080\"", "\"10001\""] {
        assert!(source.contains(part), "the example no longer has {part}");
    }
    let scratch = Scratch::new();
    let file = scratch.0.join("app.py");
    std::fs::write(&file, source).expect("write the example");
    let python = fresh_venv(&scratch, &test_wheel(), &[]);
    run(
        Command::new(tools_python())
            .args(["-m", "mypy", "--strict", "--no-incremental"])
            .arg(&file)
            .env("MYPYPATH", root().join("bindings/python/src"))
            .current_dir(&scratch.0),
        "mypy --strict of the README's example",
    );

    let (sandbox, app_id, _app_key) = common::host::demo_sandbox();
    let source = source
        .replace(
            "\"http://127.0.0.1:8080\"",
            &format!("\"{}\"", sandbox.base_url()),
        )
        .replace("\"10001\"", &format!("\"{app_id}\""));
    std::fs::write(&file, source).expect("write the example");
    let stdout = run(
        python_command(&python).arg(&file).current_dir(&scratch.0),
        "the README's example",
    );
    sandbox.stop();
    assert!(
        stdout.starts_with("valid until 20")
            && stdout.lines().next().is_some_and(|l| l.ends_with("+08:00")),
        "{stdout}"
    );
    assert!(stdout.contains("licensed: "), "{stdout}");
}
