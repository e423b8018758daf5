//! `THIRD-PARTY-NOTICES` in the packages: the file `scripts/notices.sh` makes from
//! `Cargo.lock`, with the crates whose licences ask for their notices to travel with the
//! binaries.

use super::*;

/// `scripts/notices.sh` for the library (`workspace` false: what verify.dll, the NuGet
/// package and the wheels carry) or for the whole workspace (the Linux package, with
/// verify-sandbox), checked to name ring, rustls-webpki, subtle and webpki-roots with their
/// licences; its bytes.
pub fn third_party_notices(workspace: bool) -> Vec<u8> {
    let scratch = Scratch::new();
    let out = scratch.0.join("THIRD-PARTY-NOTICES");
    let out_arg = out.display().to_string();
    let mut args = vec![];
    if workspace {
        args.push("--workspace");
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
        workspace,
        "verify-sandbox's crates are in the notices of the workspace only"
    );
    bytes
}

/// Fails unless `file` (a package's `THIRD-PARTY-NOTICES`) is the one `scripts/notices.sh`
/// makes for the library (`workspace` false) or the workspace.
pub fn assert_third_party_notices(file: &std::path::Path, workspace: bool) {
    let shipped = std::fs::read(file)
        .unwrap_or_else(|e| panic!("the package has no {}: {e}", file.display()));
    assert!(
        shipped == third_party_notices(workspace),
        "{} is not what scripts/notices.sh makes",
        file.display()
    );
}
