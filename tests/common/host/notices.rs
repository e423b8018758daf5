//! `THIRD-PARTY-NOTICES` in the packages: the file `scripts/notices.sh` makes from
//! `Cargo.lock`, with the crates whose licences ask for their notices to travel with the
//! binaries.

use super::*;

/// `scripts/notices.sh` for the library (what verify.dll, the NuGet package and the wheels
/// carry) or, `with_sandbox`, with a part for verify-sandbox too (the Linux package), checked
/// to name ring, rustls-webpki, subtle and webpki-roots with their licences, and no tool of
/// the workspace (verify-codegen, cbindgen); its bytes.
pub fn third_party_notices(with_sandbox: bool) -> Vec<u8> {
    let scratch = Scratch::new();
    let out = scratch.0.join("THIRD-PARTY-NOTICES");
    let out_arg = out.display().to_string();
    let mut args = vec![];
    if with_sandbox {
        args.push("--with-sandbox");
    }
    args.push(out_arg.as_str());
    run_script("notices.sh", &args);
    let bytes = std::fs::read(&out).expect("read the notices");
    let text = String::from_utf8_lossy(&bytes);
    for part in [
        "THIRD-PARTY-NOTICES",
        "\n  ring 0.17",
        "\n  rustls-webpki ",
        "\n  subtle ",
        "\n  webpki-roots ",
        "ISC License (ISC)",
        "BSD 3-Clause",
        "Community Data License Agreement Permissive 2.0 (CDLA-Permissive-2.0)",
        "Apache License",
        "Permission is hereby granted, free of charge",
    ] {
        assert!(text.contains(part), "the notices have no `{part}`");
    }
    assert_eq!(
        text.contains("\n  verify-sandbox "),
        with_sandbox,
        "verify-sandbox's part is in the Linux package's notices only"
    );
    for tool in ["\n  verify-codegen ", "\n  cbindgen ", "\n  verify-doctor "] {
        assert!(!text.contains(tool), "the notices list a tool:{tool}");
    }
    bytes
}

/// Fails unless `file` (a package's `THIRD-PARTY-NOTICES`) is the one `scripts/notices.sh`
/// makes for the library, `with_sandbox` or not.
pub fn assert_third_party_notices(file: &std::path::Path, with_sandbox: bool) {
    let shipped = std::fs::read(file)
        .unwrap_or_else(|e| panic!("the package has no {}: {e}", file.display()));
    assert!(
        shipped == third_party_notices(with_sandbox),
        "{} is not what scripts/notices.sh makes",
        file.display()
    );
}
