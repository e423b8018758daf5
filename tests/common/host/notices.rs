//! `THIRD-PARTY-NOTICES` in the packages: the file `scripts/notices.sh` makes from
//! `Cargo.lock`, with the crates whose licences ask for their notices to travel with the
//! binaries, and, for the Windows DLLs, the runtime the mingw-w64 linker puts into them.

use super::*;

/// Which notices a package carries (the scope of `scripts/notices.sh`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notices {
    /// The library's crates (the Linux and macOS wheels).
    Library,
    /// The library's and verify-sandbox's crates (the Linux package).
    WithSandbox,
    /// The library's crates and the mingw-w64 runtime and libgcc in verify.dll (the Windows
    /// zip, the NuGet package, the Windows wheels).
    Windows,
}

/// `scripts/notices.sh` for `scope`, checked to name ring, rustls-webpki, subtle and
/// webpki-roots with their licences, verify-sandbox only with it, the Windows runtime (the
/// ZPL-2.1 of the mingw-w64 runtime, GCC's runtime library exception) only for Windows, and
/// no tool of the workspace (verify-codegen, cbindgen); its bytes.
pub fn third_party_notices(scope: Notices) -> Vec<u8> {
    let scratch = Scratch::new();
    let out = scratch.0.join("THIRD-PARTY-NOTICES");
    let out_arg = out.display().to_string();
    let mut args = vec![];
    match scope {
        Notices::Library => {}
        Notices::WithSandbox => args.push("--with-sandbox"),
        Notices::Windows => args.push("--windows"),
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
        scope == Notices::WithSandbox,
        "verify-sandbox's part is in the Linux package's notices only"
    );
    // The Windows part: the copyright files of the packages of the mingw-w64 runtime (the
    // ZPL-2.1's binary clause asks for its notice) and of GCC (libgcc's exception), each once.
    let windows = scope == Notices::Windows;
    for part in [
        "\nverify.dll: the runtime of the GNU toolchain\n",
        "the copyright file of the Debian packages mingw-w64-i686-dev,mingw-w64-x86-64-dev\n",
        "Redistributions in binary form must reproduce the accompanying",
        "GCC RUNTIME LIBRARY EXCEPTION",
    ] {
        assert_eq!(
            text.contains(part),
            windows,
            "`{part}` is in the Windows packages' notices only"
        );
    }
    if windows {
        assert_eq!(
            text.matches("the copyright file of the Debian packages ")
                .count(),
            2,
            "the runtime's copyright files, each once (gcc-mingw-w64 and mingw-w64)"
        );
        assert!(
            bytes.starts_with(&third_party_notices(Notices::Library)),
            "the Windows notices begin with the library's"
        );
    }
    for tool in ["\n  verify-codegen ", "\n  cbindgen ", "\n  verify-doctor "] {
        assert!(!text.contains(tool), "the notices list a tool:{tool}");
    }
    bytes
}

/// Fails unless `file` (a package's `THIRD-PARTY-NOTICES`) is the one `scripts/notices.sh`
/// makes for `scope`.
pub fn assert_third_party_notices(file: &std::path::Path, scope: Notices) {
    let shipped = std::fs::read(file)
        .unwrap_or_else(|e| panic!("the package has no {}: {e}", file.display()));
    assert!(
        shipped == third_party_notices(scope),
        "{} is not what scripts/notices.sh makes",
        file.display()
    );
}
