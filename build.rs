//! Gives the shared library a SONAME on Linux (`libverify.so`), so that a host linked against
//! it records the library's name, not the path it was built at.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libverify.so");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
