//! A package's `SHA256SUMS` (scripts/sha256sums.sh): one line per library in the format of
//! `sha256sum` (`<64 lowercase hex>  <path from the package's root>`), sorted by path, each
//! the SHA-256 of the package's file; and the FAQ and hardening pages that tell a program to
//! check it.

use std::path::Path;

/// Asserts that `package`'s `SHA256SUMS` lists exactly `files`, each with its SHA-256, and that
/// the package holds the pages that explain it.
pub fn assert_sha256sums(package: &Path, files: &[&str]) {
    let text = std::fs::read_to_string(package.join("SHA256SUMS"))
        .unwrap_or_else(|e| panic!("the package lacks SHA256SUMS: {e}"));
    let mut listed = Vec::new();
    for line in text.lines() {
        let (hex, path) = line
            .split_once("  ")
            .unwrap_or_else(|| panic!("SHA256SUMS: not `<hash>  <path>`: {line:?}"));
        assert!(
            hex.len() == 64
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "SHA256SUMS: not 64 lowercase hex digits: {line:?}"
        );
        let bytes = std::fs::read(package.join(path))
            .unwrap_or_else(|e| panic!("SHA256SUMS names {path}, which the package lacks: {e}"));
        let actual: String = ring::digest::digest(&ring::digest::SHA256, &bytes)
            .as_ref()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        assert_eq!(hex, actual, "SHA256SUMS: the hash of {path}");
        listed.push(path.to_owned());
    }
    let mut expected: Vec<String> = files.iter().map(|f| (*f).to_owned()).collect();
    expected.sort();
    assert_eq!(
        listed, expected,
        "SHA256SUMS lists each library once, sorted"
    );
    for page in [
        "docs/faq.md",
        "docs/hardening.md",
        "docs/zh-CN/faq.md",
        "docs/zh-CN/hardening.md",
    ] {
        assert!(package.join(page).is_file(), "the package lacks {page}");
    }
}
