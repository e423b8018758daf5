//! Link settings of the shared library, so that a host linked against it records the
//! library's name, not the path it was built at:
//!
//! - Linux: the SONAME `libverify.so`.
//! - macOS: the install name `@rpath/libverify.dylib` (a host finds the dylib through its
//!   rpath, e.g. `-Wl,-rpath,@executable_path`), given as `-install_name NAME`, which both
//!   the compiler drivers (clang) and ld64-style linkers (ld64, ld64.lld) take; and the
//!   minimum macOS version the dylib declares, [`MACOS_MINIMUM`] (11.0 on arm64, the first
//!   macOS of Apple silicon; 10.12 on x86-64, the oldest Rust supports): it is the deployment
//!   target of the rustc that links the dylib (`MACOSX_DEPLOYMENT_TARGET` in its
//!   environment), whatever the linker's own default; a `MACOSX_DEPLOYMENT_TARGET` set by the
//!   builder wins.

/// The minimum macOS version of `libverify.dylib`, by architecture.
const MACOS_MINIMUM: &[(&str, &str)] = &[("aarch64", "11.0"), ("x86_64", "10.12")];

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    match os.as_str() {
        "linux" => println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libverify.so"),
        "macos" => {
            println!("cargo:rustc-cdylib-link-arg=-install_name");
            println!("cargo:rustc-cdylib-link-arg=@rpath/libverify.dylib");
            let set = std::env::var("MACOSX_DEPLOYMENT_TARGET").is_ok_and(|v| !v.is_empty());
            let minimum = MACOS_MINIMUM.iter().find(|(a, _)| *a == arch);
            if let (false, Some((_, minimum))) = (set, minimum) {
                println!("cargo:rustc-env=MACOSX_DEPLOYMENT_TARGET={minimum}");
            }
        }
        _ => {}
    }
    println!("cargo:rerun-if-env-changed=MACOSX_DEPLOYMENT_TARGET");
    println!("cargo:rerun-if-changed=build.rs");
}
