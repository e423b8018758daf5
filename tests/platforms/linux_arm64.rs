//! libverify.so for Linux ARM64 (aarch64), built on this x86-64 machine
//! (`scripts/build-arm64.sh`: the release build, with Debian's cross gcc) and run here under
//! user-mode emulation (`qemu-aarch64`) against a sandbox running natively on 127.0.0.1:
//!
//! - `examples-c/demo.c` passes all its steps, over http and over https (trusting the
//!   sandbox's generated CA): ring's aarch64 assembly and the whole TLS stack run right;
//! - `tests/c/c_abi.c`'s misuse and construction scenarios: bad input of every kind for
//!   every call gives its negative code, as on x86-64;
//! - `tests/c/c_threads.c`: eight POSIX threads share one client, 1,000 calls, over http
//!   and https;
//! - the ARM64 package (`scripts/package.sh --target aarch64-unknown-linux-gnu`) builds
//!   examples-c with CMake and demo.c with pkg-config, cross-compiled, and they pass.
//!
//! Every program is compiled with `aarch64-linux-gnu-gcc` and the flags of the x86-64 hosts
//! (`-std=c99 -Wall -Wextra -Werror -pedantic`), linked to the ARM64 `libverify.so` by its
//! rpath. The first use runs `scripts/build-arm64.sh` (installs the cross compiler, its C
//! library and qemu-user when missing; builds nothing when the library is up to date).

#[path = "../common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::host::{
    assert_demo_output, demo_sandbox_with, host_sources, root, run_script, show, text, Scratch,
    C_FLAGS, C_POSIX_FLAGS, DEMO_STEPS,
};
use common::{Program, APP_KEY};
use verify_sandbox::{Config, Sandbox, Tls};

/// The C library and dynamic loader of the target, for qemu (`-L`).
const SYSROOT: &str = "/usr/aarch64-linux-gnu";

/// How much slower than native a host runs under qemu, for its time limits
/// (`VERIFY_HOST_SLACK` of tests/c/host.h).
const QEMU_SLACK: &str = "5";

/// `target/aarch64-unknown-linux-gnu/release`, with a fresh ARM64 `libverify.so`.
fn library() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let stdout = run_script("build-arm64.sh", &[]);
        let dir = PathBuf::from(stdout.lines().last().unwrap_or_default());
        let dir = if dir.is_absolute() {
            dir
        } else {
            root().join(dir)
        };
        assert!(dir.join("libverify.so").is_file(), "{}", dir.display());
        dir
    })
}

/// Compiles the C `source` (with its parts) for ARM64 into `scratch`, linked to the ARM64 library by rpath.
fn compile(source: &Path, scratch: &Scratch, extra: &[&str]) -> PathBuf {
    let lib = library();
    let program = scratch.0.join(source.file_stem().expect("a C file name"));
    let output = Command::new("aarch64-linux-gnu-gcc")
        .args(C_FLAGS)
        .args(extra)
        .arg("-I")
        .arg(root().join("include"))
        .args(host_sources(source))
        .arg("-L")
        .arg(lib)
        .arg("-lverify")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&program)
        .output()
        .expect("run aarch64-linux-gnu-gcc");
    assert!(
        output.status.success(),
        "compiling {} for ARM64 failed\n{}",
        source.display(),
        show(&output)
    );
    let file = Command::new("aarch64-linux-gnu-readelf")
        .arg("-h")
        .arg(&program)
        .output()
        .expect("run readelf");
    assert!(
        text(&file).0.contains("AArch64"),
        "{} is not an ARM64 program",
        program.display()
    );
    program
}

/// Runs an ARM64 program under qemu-aarch64 with `args`; `ca` is the CA file a host trusts
/// for https (`VERIFY_HOST_CA`).
fn qemu(program: &Path, args: &[&str], ca: Option<&Path>) -> Output {
    let mut command = Command::new("qemu-aarch64");
    command
        .arg("-L")
        .arg(SYSROOT)
        .arg(program)
        .args(args)
        // cargo test's LD_LIBRARY_PATH names the x86-64 build: the rpath finds the ARM64 one.
        .env_remove("LD_LIBRARY_PATH")
        .env("VERIFY_HOST_SLACK", QEMU_SLACK)
        .current_dir(root());
    if let Some(ca) = ca {
        command.env("VERIFY_HOST_CA", ca);
    }
    command.output().expect("run qemu-aarch64")
}

/// A C host of tests/c/ passed every check ("RESULT: ... 0 failed", exit 0).
fn assert_host_passed(output: &Output, what: &str) -> String {
    let stdout = text(output).0;
    assert!(
        output.status.success() && stdout.contains(" checks, 0 failed"),
        "{what} failed under qemu-aarch64\n{}",
        show(output)
    );
    stdout
}

/// An https sandbox (it serves http too) and its CA written into `scratch`.
fn https_sandbox(scratch: &Scratch) -> (Sandbox, PathBuf) {
    let sandbox = Sandbox::start(Config {
        tls: Some(Tls::Generated),
        ..Config::default()
    })
    .expect("start the sandbox");
    let ca = scratch.0.join("ca.pem");
    std::fs::write(&ca, sandbox.ca_pem().expect("generated CA")).expect("write the CA");
    (sandbox, ca)
}

fn demo(https: bool) {
    let scratch = Scratch::new();
    let program = compile(&root().join("examples-c/demo.c"), &scratch, &[]);
    let (sandbox, app_id, app_key) = demo_sandbox_with(Config {
        tls: https.then_some(Tls::Generated),
        ..Config::default()
    });
    let ca = scratch.0.join("ca.pem");
    let url = if https {
        std::fs::write(&ca, sandbox.ca_pem().expect("generated CA")).expect("write the CA");
        sandbox.https_base_url().expect("https listener")
    } else {
        sandbox.base_url()
    };
    let mut args = vec![url.as_str(), &app_id, &app_key];
    let ca_text = ca.display().to_string();
    if https {
        args.extend(["--ca", &ca_text]);
    }
    let output = qemu(&program, &args, None);
    sandbox.stop();
    let report = format!("ARM64 demo under qemu-aarch64\n{}", show(&output));
    let stdout = text(&output).0;
    assert!(output.status.success(), "{report}");
    assert!(stdout.contains(&format!("server {url}")), "{report}");
    assert_demo_output(&stdout, DEMO_STEPS, &app_key, &report);
}

#[test]
fn arm64_c_demo_passes_under_qemu_over_http() {
    demo(false);
}

#[test]
fn arm64_c_demo_passes_under_qemu_over_https() {
    demo(true);
}

#[test]
fn arm64_misuse_of_every_call_gives_its_code_under_qemu() {
    let scratch = Scratch::new();
    let program = compile(&root().join("tests/c/c_abi.c"), &scratch, &[]);
    for scenario in ["misuse", "construction"] {
        let output = qemu(&program, &[scenario], None);
        let stdout = assert_host_passed(&output, &format!("ARM64 c_abi {scenario}"));
        assert!(
            stdout.contains(&format!("RESULT: {scenario}: ")),
            "{stdout}"
        );
    }
}

fn threads(https: bool) {
    let scratch = Scratch::new();
    let host = compile(&root().join("tests/c/c_threads.c"), &scratch, C_POSIX_FLAGS);
    let (sandbox, ca) = https_sandbox(&scratch);
    let program = Program::new(&sandbox, serde_json::json!({}));
    let url = if https {
        sandbox.https_base_url().expect("https listener")
    } else {
        sandbox.base_url()
    };
    let output = qemu(
        &host,
        &["many", &url, &program.app_id, APP_KEY],
        https.then_some(ca.as_path()),
    );
    assert_host_passed(&output, "ARM64 c_threads many");
    let bulletins = sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|e| e.action.as_deref() == Some("GetBulletin") && e.code == 200)
        .count();
    // 1000 from the workers, 1 for the reply the threads then read together.
    assert_eq!(bulletins, 1001, "the sandbox answered every call once");
    sandbox.stop();
}

#[test]
fn arm64_one_client_many_threads_under_qemu_over_http() {
    threads(false);
}

#[test]
fn arm64_one_client_many_threads_under_qemu_over_https() {
    threads(true);
}

/// The ARM64 package (`scripts/package.sh --target aarch64-unknown-linux-gnu`), consumed
/// without the source tree by a cross build: examples-c with CMake (`find_package(verify)`,
/// the cross compilers as a host's toolchain would name them) and demo.c with the
/// package's pkg-config flags, both run under qemu-aarch64 against the sandbox.
#[test]
fn arm64_package_builds_the_demos_with_cmake_and_pkg_config() {
    let scratch = Scratch::new();
    let stdout = common::host::run_ok(
        Command::new("bash")
            .arg("scripts/package.sh")
            .args(["--target", "aarch64-unknown-linux-gnu", "--out"])
            .arg(&scratch.0)
            .arg("--from")
            .arg(library())
            .current_dir(root()),
        "scripts/package.sh --target aarch64-unknown-linux-gnu",
    );
    let folder = PathBuf::from(stdout.lines().last().expect("package.sh prints the folder"));
    assert!(
        folder.ends_with(format!(
            "verify-{}-aarch64-unknown-linux-gnu",
            env!("CARGO_PKG_VERSION")
        )),
        "{}",
        folder.display()
    );
    for file in [
        "include/verify.h",
        "lib/libverify.so",
        "lib/libverify.a",
        "lib/pkgconfig/verify.pc",
        "lib/pkgconfig/verify-static.pc",
        "lib/cmake/verify/verifyConfig.cmake",
        "lib/cmake/verify/verifyConfigVersion.cmake",
    ] {
        assert!(
            folder.join(file).is_file(),
            "the ARM64 package lacks {file}"
        );
    }
    assert!(
        !folder.join("bin").exists(),
        "a cross-built package has no sandbox"
    );

    // CMake, cross-compiling with the package found by CMAKE_PREFIX_PATH alone.
    let build = scratch.0.join("build");
    let configure = common::host::run_ok(
        Command::new("cmake")
            .arg("-S")
            .arg(root().join("examples-c"))
            .arg("-B")
            .arg(&build)
            .args([
                "-DCMAKE_SYSTEM_NAME=Linux",
                "-DCMAKE_SYSTEM_PROCESSOR=aarch64",
                "-DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc",
                "-DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++",
            ])
            .arg(format!("-DCMAKE_PREFIX_PATH={}", folder.display()))
            .arg(format!(
                "-DVERIFY_ROOT={}",
                scratch.0.join("no-source-tree").display()
            )),
        "cmake configure for aarch64",
    );
    assert!(
        configure.contains("using the installed package"),
        "CMake did not use the package:\n{configure}"
    );
    common::host::run_ok(
        Command::new("cmake").arg("--build").arg(&build),
        "cmake --build",
    );

    // pkg-config, with the cross gcc.
    let flags = common::host::run_ok(
        Command::new("pkg-config")
            .args(["--cflags", "--libs", "verify"])
            .env("PKG_CONFIG_PATH", folder.join("lib/pkgconfig")),
        "pkg-config verify",
    );
    let demo_pc = scratch.0.join("demo_pc");
    common::host::run_ok(
        Command::new("aarch64-linux-gnu-gcc")
            .args(C_FLAGS)
            .arg(root().join("examples-c/demo.c"))
            .args(flags.split_whitespace())
            .arg("-o")
            .arg(&demo_pc),
        "aarch64-linux-gnu-gcc with the package's pkg-config flags",
    );

    for demo in [build.join("demo"), build.join("demo_cpp"), demo_pc] {
        let (sandbox, app_id, app_key) = demo_sandbox_with(Config::default());
        let output = Command::new("qemu-aarch64")
            .arg("-L")
            .arg(SYSROOT)
            .arg(&demo)
            .args([sandbox.base_url().as_str(), &app_id, &app_key])
            // The package's own library, through the rpath of its flags.
            .env_remove("LD_LIBRARY_PATH")
            .current_dir(std::env::temp_dir())
            .output()
            .expect("run qemu-aarch64");
        sandbox.stop();
        let stdout = text(&output).0;
        assert!(
            output.status.success() && stdout.contains("PASSED: all 13 steps"),
            "{} against the ARM64 package\n{}",
            demo.display(),
            show(&output)
        );
    }
}
