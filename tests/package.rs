//! The package of `scripts/package.sh` is consumable without the source tree: examples-c
//! builds with CMake (`find_package(verify)`) and with pkg-config against the package folder
//! alone, and the demos run against the sandbox.
//!
//! Needs cc, cmake and pkg-config (`scripts/install-deps.sh gcc cmake pkg-config`).

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::host::{
    demo_sandbox, library_dir, require_tool, root, run_ok, without_test_env, Scratch,
};

/// Assembles the package from the debug build of this test run; returns its folder.
fn package(scratch: &Scratch) -> PathBuf {
    // package.sh takes bin/verify-sandbox from next to the library: build it (a no-op when
    // `cargo test --workspace` already did).
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    run_ok(
        without_test_env(&mut Command::new(cargo))
            .args(["build", "-p", "verify-sandbox", "--bin", "verify-sandbox"])
            .current_dir(root()),
        "cargo build -p verify-sandbox",
    );
    let stdout = run_ok(
        Command::new("bash")
            .arg("scripts/package.sh")
            .args(["--profile", "debug", "--out"])
            .arg(&scratch.0)
            .arg("--from")
            .arg(library_dir())
            .current_dir(root()),
        "scripts/package.sh",
    );
    let folder = PathBuf::from(stdout.lines().last().expect("package.sh prints the folder"));
    for file in [
        "include/verify.h",
        "include/verify.hpp",
        "lib/libverify.so",
        "lib/libverify.a",
        "lib/pkgconfig/verify.pc",
        "lib/pkgconfig/verify-static.pc",
        "bin/verify-sandbox",
        "lib/cmake/verify/verifyConfig.cmake",
        "lib/cmake/verify/verifyConfigVersion.cmake",
        "bindings/csharp/Verify.cs",
    ] {
        assert!(folder.join(file).is_file(), "the package lacks {file}");
    }
    for file in [
        "include/verify.h",
        "include/verify.hpp",
        "LICENSE-MIT",
        "LICENSE-APACHE",
    ] {
        assert_eq!(
            std::fs::read(folder.join(file)).ok(),
            std::fs::read(root().join(file)).ok(),
            "the package's {file} is the repository's"
        );
    }
    // The C++ headers verify.hpp includes, the whole folder as in the repository.
    let mut folders = vec![PathBuf::from("include/verify")];
    let mut headers = 0;
    while let Some(relative) = folders.pop() {
        for entry in std::fs::read_dir(root().join(&relative)).expect("include/verify") {
            let name = relative.join(entry.expect("an entry").file_name());
            if root().join(&name).is_dir() {
                folders.push(name);
                continue;
            }
            headers += 1;
            assert_eq!(
                std::fs::read(folder.join(&name)).ok(),
                std::fs::read(root().join(&name)).ok(),
                "the package's {} is the repository's",
                name.display()
            );
        }
    }
    assert!(headers > 10, "the C++ headers: {headers}");
    folder
}

fn run_demo(demo: &std::path::Path) -> String {
    let (sandbox, app_id, app_key) = demo_sandbox();
    let stdout = run_ok(
        Command::new(demo)
            // The package's own library, through the rpath its build set.
            .env_remove("LD_LIBRARY_PATH")
            .arg(sandbox.base_url())
            .arg(&app_id)
            .arg(&app_key)
            // Not the repository root: nothing may be found through relative paths.
            .current_dir(std::env::temp_dir()),
        "the demo built against the package",
    );
    sandbox.stop();
    stdout
}

#[test]
fn cmake_find_package_builds_the_demo_from_the_package_alone() {
    require_tool("cc", "gcc");
    require_tool("cmake", "cmake");
    let scratch = Scratch::new();
    let folder = package(&scratch);
    let build = scratch.0.join("build");
    let configure = run_ok(
        Command::new("cmake")
            .arg("-S")
            .arg(root().join("examples-c"))
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", folder.display()))
            // Point the fallback at nothing, so only the package can satisfy the build.
            .arg(format!(
                "-DVERIFY_ROOT={}",
                scratch.0.join("no-source-tree").display()
            )),
        "cmake configure",
    );
    assert!(
        configure.contains("using the installed package"),
        "CMake did not use the package:\n{configure}"
    );
    run_ok(
        Command::new("cmake").arg("--build").arg(&build),
        "cmake --build",
    );
    let stdout = run_demo(&build.join("demo"));
    assert!(stdout.contains("PASSED"), "{stdout}");
    // The C++ demo, `#include "verify.hpp"` from the package's include folder.
    let stdout = run_demo(&build.join("demo_cpp"));
    assert!(stdout.contains("PASSED"), "{stdout}");
}

#[test]
fn pkg_config_gives_the_flags_to_build_the_demo() {
    require_tool("cc", "gcc");
    require_tool("pkg-config", "pkg-config");
    let scratch = Scratch::new();
    let folder = package(&scratch);
    let flags = run_ok(
        Command::new("pkg-config")
            .args(["--cflags", "--libs", "verify"])
            .env("PKG_CONFIG_PATH", folder.join("lib/pkgconfig")),
        "pkg-config",
    );
    let demo = scratch.0.join("demo_pc");
    run_ok(
        Command::new("cc")
            .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
            .arg(root().join("examples-c/demo.c"))
            .args(flags.split_whitespace())
            .arg("-o")
            .arg(&demo),
        "cc with pkg-config flags",
    );
    let stdout = run_demo(&demo);
    assert!(stdout.contains("PASSED"), "{stdout}");
    // The C++ demo with the same flags: verify.hpp and the folder of headers it includes.
    let demo_cpp = scratch.0.join("demo_cpp_pc");
    run_ok(
        Command::new("c++")
            .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"])
            .arg(root().join("examples-c/demo.cpp"))
            .args(flags.split_whitespace())
            .arg("-o")
            .arg(&demo_cpp),
        "c++ with pkg-config flags",
    );
    let stdout = run_demo(&demo_cpp);
    assert!(stdout.contains("PASSED"), "{stdout}");
}

#[test]
fn the_package_is_relocatable_and_its_static_flags_link_the_static_library() {
    require_tool("cc", "gcc");
    require_tool("pkg-config", "pkg-config");
    let scratch = Scratch::new();
    let built = package(&scratch);
    // Moved elsewhere after it was made: nothing in it may name the folder it was made in.
    let moved = scratch.0.join("elsewhere").join("verify-pkg");
    std::fs::create_dir_all(moved.parent().expect("parent")).expect("create");
    std::fs::rename(&built, &moved).expect("move the package");
    let flags = run_ok(
        Command::new("pkg-config")
            .args(["--cflags", "--libs", "verify-static"])
            .env("PKG_CONFIG_PATH", moved.join("lib/pkgconfig")),
        "pkg-config verify-static",
    );
    assert!(flags.contains("libverify.a"), "static flags: {flags}");
    assert!(
        !flags.contains("-lverify"),
        "static flags name the shared library: {flags}"
    );
    assert!(
        flags.contains(&moved.display().to_string()),
        "the flags point into the moved package: {flags}"
    );
    let demo = scratch.0.join("demo_static");
    run_ok(
        Command::new("cc")
            .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
            .arg(root().join("examples-c/demo.c"))
            .args(flags.split_whitespace())
            .arg("-o")
            .arg(&demo),
        "cc with the static pkg-config flags",
    );
    let linked = run_ok(Command::new("ldd").arg(&demo), "ldd");
    assert!(
        !linked.contains("libverify"),
        "the static demo loads libverify: {linked}"
    );
    let stdout = run_demo(&demo);
    assert!(stdout.contains("PASSED"), "{stdout}");
    let version = run_ok(
        Command::new(moved.join("bin/verify-sandbox")).arg("--version"),
        "bin/verify-sandbox --version",
    );
    assert!(version.contains("verify-sandbox"), "{version}");
}
