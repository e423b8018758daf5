//! Every generated file of the repository is committed and fresh: the generator
//! (`codegen/`, crate `verify-codegen`) runs here in its check mode, and this test fails on a
//! stale file, naming it and the command that regenerates them all:
//!
//! ```text
//! cargo run -p verify-codegen
//! ```
//!
//! `codegen/src/lib.rs` lists what is generated, from what. Two checks of the tree beside
//! them: the C and C++ headers are ASCII, and every test driver under `tests/` is a
//! `[[test]]` of Cargo.toml.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn generated_files_are_fresh() {
    let stale = verify_codegen::run(&root(), verify_codegen::Mode::Check)
        .unwrap_or_else(|why| panic!("verify-codegen: {why}"));
    assert!(
        stale.is_empty(),
        "{}",
        verify_codegen::stale_message(&stale)
    );
}

/// `verify.h` and the C++ headers (`verify.hpp`, `verify/**/*.hpp`) are ASCII: MSVC reads a
/// header without a byte-order mark in the system's code page (936 on Chinese Windows) and
/// warns (C4819) at a character it cannot hold, which `/WX` turns into an error. The Chinese
/// messages live in README.zh-CN.md and the C# binding.
#[test]
fn the_c_and_cpp_headers_are_ascii() {
    let mut paths = vec![
        root().join("include/verify.h"),
        root().join("include/verify.hpp"),
    ];
    let mut folders = vec![root().join("include/verify")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("include/verify") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else {
                paths.push(path);
            }
        }
    }
    assert!(paths.len() > 10, "the C++ headers: {paths:?}");
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("a header");
        let bad: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.is_ascii())
            .map(|(at, line)| (at + 1, line))
            .collect();
        assert!(
            bad.is_empty(),
            "{}: lines that are not ASCII: {bad:?}",
            path.display()
        );
    }
}

/// Every test driver under `tests/` (a file that declares `mod common;`) is a test target of
/// the root Cargo.toml, and every `[[test]]` path there exists: the root crate does not
/// discover its tests (`autotests = false`, the drivers live in folders by host and
/// platform), so a driver left out would never run.
#[test]
fn every_test_driver_is_a_declared_target() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let declared: Vec<&str> = manifest
        .lines()
        .filter_map(|line| line.strip_prefix("path = \"tests/"))
        .filter_map(|rest| rest.strip_suffix('"'))
        .collect();
    assert!(
        declared.len() > 20,
        "[[test]] paths of Cargo.toml: {declared:?}"
    );
    for path in &declared {
        assert!(
            root().join("tests").join(path).is_file(),
            "Cargo.toml declares tests/{path}, which does not exist"
        );
    }
    let mut folders = vec![root().join("tests")];
    let mut undeclared = Vec::new();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder of tests/") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let relative = path
                .strip_prefix(root().join("tests"))
                .expect("under tests/");
            let relative = relative.to_string_lossy().replace('\\', "/");
            if relative.ends_with(".rs")
                && text.lines().any(|line| line == "mod common;")
                && !declared.contains(&relative.as_str())
            {
                undeclared.push(relative);
            }
        }
    }
    assert!(
        undeclared.is_empty(),
        "test drivers that no [[test]] of Cargo.toml declares (they would never run): \
         {undeclared:?}"
    );
}
