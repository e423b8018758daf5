//! The package's CMake and pkg-config files (scripts/package/, written by scripts/package.sh
//! with CMake's CMakePackageConfigHelpers): relocatable pkg-config files, a static variant
//! that names libverify.a, and a version file that refuses a consumer of another pointer
//! size. Needs cmake (`scripts/install-deps.sh cmake`); tests/package/package.rs builds and runs
//! programs against the whole package.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repository root")
        .to_path_buf()
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e} (cmake missing? scripts/install-deps.sh cmake)"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what} failed:\n{text}");
    text
}

/// Writes the files into a fresh fake package folder; returns it.
fn generate(name: &str) -> PathBuf {
    let base = std::env::temp_dir().join(format!("verify-pkgtpl-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let pkg = base.join("pkg");
    std::fs::create_dir_all(pkg.join("include")).expect("include");
    std::fs::create_dir_all(pkg.join("lib")).expect("lib");
    run(
        Command::new("cmake")
            .arg("-S")
            .arg(root().join("scripts/package"))
            .arg("-B")
            .arg(base.join("build"))
            .arg("-DVERIFY_VERSION=1.4.2")
            .arg(format!("-DVERIFY_PACKAGE={}", pkg.display())),
        "cmake configure of scripts/package",
    );
    pkg
}

#[test]
fn pkg_config_files_are_relocatable_and_the_static_one_names_the_archive() {
    let pkg = generate("pc");
    let shared = std::fs::read_to_string(pkg.join("lib/pkgconfig/verify.pc")).expect("verify.pc");
    let stat =
        std::fs::read_to_string(pkg.join("lib/pkgconfig/verify-static.pc")).expect("static .pc");
    for text in [&shared, &stat] {
        assert!(text.contains("prefix=${pcfiledir}/../.."), "{text}");
        assert!(text.contains("Version: 1.4.2"), "{text}");
        assert!(
            !text.contains(&pkg.display().to_string()) && !text.contains("/tmp"),
            "an absolute path: {text}"
        );
    }
    assert!(shared.contains("-lverify"), "{shared}");
    let libs = stat
        .lines()
        .find(|l| l.starts_with("Libs:"))
        .expect("Libs line");
    assert!(libs.contains("${libdir}/libverify.a"), "{libs}");
    assert!(
        !libs.contains("-lverify"),
        "the static variant must not link the shared library"
    );
    for private in ["-lpthread", "-ldl", "-lm"] {
        assert!(
            libs.contains(private),
            "{private} in Libs (no --static needed): {libs}"
        );
    }
}

#[test]
fn cmake_version_file_refuses_another_pointer_size_and_other_majors() {
    let pkg = generate("cmake");
    let config =
        std::fs::read_to_string(pkg.join("lib/cmake/verify/verifyConfig.cmake")).expect("config");
    assert!(
        config.contains("PACKAGE_PREFIX_DIR"),
        "from configure_package_config_file"
    );
    assert!(
        !config.contains(&pkg.display().to_string()),
        "relocatable: {config}"
    );
    let version = pkg.join("lib/cmake/verify/verifyConfigVersion.cmake");
    let check = |find: &str, void_p: &str| -> (bool, bool) {
        let script = version.with_file_name(format!("check-{void_p}-{find}.cmake"));
        std::fs::write(
            &script,
            format!(
                "set(PACKAGE_FIND_VERSION \"{find}\")\n\
                 string(REPLACE \".\" \";\" _v \"{find}\")\n\
                 list(GET _v 0 PACKAGE_FIND_VERSION_MAJOR)\n\
                 list(GET _v 1 PACKAGE_FIND_VERSION_MINOR)\n\
                 set(CMAKE_SIZEOF_VOID_P {void_p})\n\
                 include(\"{}\")\n\
                 message(\"compatible=${{PACKAGE_VERSION_COMPATIBLE}} unsuitable=${{PACKAGE_VERSION_UNSUITABLE}}\")\n",
                version.display()
            ),
        )
        .expect("script");
        let out = run(Command::new("cmake").arg("-P").arg(&script), "cmake -P");
        (
            out.contains("compatible=TRUE"),
            out.contains("unsuitable=TRUE"),
        )
    };
    assert_eq!(check("1.2", "8"), (true, false), "64-bit consumer of 1.4.2");
    assert!(
        check("1.2", "4").1,
        "a 32-bit consumer of a 64-bit build is unsuitable"
    );
    assert!(!check("2.0", "8").0, "another major version");
    assert!(!check("1.5", "8").0, "a newer minor version");
}
