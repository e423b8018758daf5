//! The examples of the hardening chapter (`docs/hardening.md`, `docs/zh-CN/hardening.md`)
//! check the library file's SHA-256 before the first call, as the pages say: the C++ block
//! (compiled with the strict warnings of `verify.hpp`'s contract, loading the library itself)
//! and the C# block (compiled with `mcs -warnaserror` against the binding, run on Mono) of
//! each page, with the hash of the library under test in place of the zeros and
//! `libverify.so` in place of `verify.dll`, accept the library and refuse it (exit code 2,
//! nothing loaded) once one byte is added to it. The 易语言 and VB6 blocks are text: no IDE
//! runs here.
//!
//! Needs a C++ compiler, and `mcs` and `mono` (`scripts/install-deps.sh mono`).

#[path = "../common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::host::{
    compile_csharp, fenced, host_command, library_dir, root, text, Scratch, CXX_FLAGS,
    CXX_STRICT_FLAGS,
};

/// The placeholder of the expected hash in the examples.
const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

const PAGES: [&str; 2] = ["docs/hardening.md", "docs/zh-CN/hardening.md"];

/// The SHA-256 of `file` as 64 lowercase hex digits.
fn sha256_hex(file: &Path) -> String {
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
    ring::digest::digest(&ring::digest::SHA256, &bytes)
        .as_ref()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The single ```` ```lang ```` block of `page`, made to check `libverify.so` against `hash`.
fn example(page: &str, lang: &str, hash: &str) -> String {
    let blocks = fenced(page, lang);
    assert_eq!(blocks.len(), 1, "{page} has one ```{lang} block");
    let block = &blocks[0];
    assert_eq!(
        block.matches(ZEROS).count(),
        1,
        "the {lang} example of {page} has one placeholder hash"
    );
    assert_eq!(
        block.matches("\"verify.dll\"").count(),
        1,
        "the {lang} example of {page} names verify.dll once"
    );
    block
        .replace(ZEROS, hash)
        .replace("\"verify.dll\"", "\"libverify.so\"")
}

/// A copy of the library under test in `folder`, next to the example program.
fn place_library(folder: &Path) -> PathBuf {
    let copy = folder.join("libverify.so");
    std::fs::copy(library_dir().join("libverify.so"), &copy).expect("copy libverify.so");
    copy
}

/// One byte added to `file`: no longer the library that was shipped.
fn tamper(file: &Path) {
    let mut bytes = std::fs::read(file).expect("read the copy");
    bytes.push(0);
    std::fs::write(file, bytes).expect("write the tampered copy");
}

/// Runs `command`; returns its exit code and stdout.
fn run(command: &mut Command) -> (Option<i32>, String) {
    let output = command.output().expect("run the example");
    let (stdout, stderr) = text(&output);
    (output.status.code(), format!("{stdout}{stderr}"))
}

#[test]
fn the_cpp_examples_load_the_library_only_when_its_hash_matches() {
    let hash = sha256_hex(&library_dir().join("libverify.so"));
    for page in PAGES {
        let scratch = Scratch::new();
        let source = scratch.0.join("hardening.cpp");
        std::fs::write(&source, example(page, "cpp", &hash)).expect("write the example");
        let program = scratch.0.join("hardening");
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
        // Not linked with the library: the example loads it by its path after the check.
        let (code, output) = run(Command::new(&cxx)
            .args(CXX_FLAGS)
            .args(CXX_STRICT_FLAGS)
            .arg("-I")
            .arg(root().join("include"))
            .arg(&source)
            .arg("-ldl")
            .arg("-o")
            .arg(&program));
        assert_eq!(
            code,
            Some(0),
            "compiling the C++ example of {page}:\n{output}"
        );

        let copy = place_library(&scratch.0);
        // Run without LD_LIBRARY_PATH's copy mattering: the example opens the file by its path.
        let (code, output) = run(&mut Command::new(&program));
        assert_eq!(
            code,
            Some(0),
            "{page}: the genuine library is accepted:\n{output}"
        );
        assert!(output.contains(": checked"), "{page}: {output}");

        tamper(&copy);
        let (code, output) = run(&mut Command::new(&program));
        assert_eq!(
            code,
            Some(2),
            "{page}: a changed library is refused:\n{output}"
        );
        assert!(!output.contains(": checked"), "{page}: {output}");

        std::fs::remove_file(&copy).expect("remove the copy");
        let (code, output) = run(&mut Command::new(&program));
        assert_eq!(
            code,
            Some(2),
            "{page}: a missing library is refused:\n{output}"
        );
    }
}

#[test]
fn the_csharp_examples_call_the_binding_only_when_the_hash_matches() {
    let hash = sha256_hex(&library_dir().join("libverify.so"));
    for page in PAGES {
        let scratch = Scratch::new();
        let source = scratch.0.join("Hardening.cs");
        std::fs::write(&source, example(page, "csharp", &hash)).expect("write the example");
        let exe = scratch.0.join("Hardening.exe");
        compile_csharp(&[PathBuf::from("bindings/csharp/src"), source], &exe);

        let copy = place_library(&scratch.0);
        let mono = || {
            let mut command = host_command("mono");
            command.arg(&exe).current_dir(root());
            command
        };
        let (code, output) = run(&mut mono());
        assert_eq!(
            code,
            Some(0),
            "{page}: the genuine library is accepted:\n{output}"
        );
        assert!(output.contains(": checked"), "{page}: {output}");

        tamper(&copy);
        let (code, output) = run(&mut mono());
        assert_eq!(
            code,
            Some(2),
            "{page}: a changed library is refused:\n{output}"
        );
        assert!(!output.contains(": checked"), "{page}: {output}");
    }
}
