//! Compiling C and C++ hosts against the library under test: the flags of the contract of
//! `verify.h` and `verify.hpp`, the C hosts of `tests/c/` (each with its parts), and the
//! functions the header declares.

use super::*;

/// The flags of every C++ compilation of the binding (the contract of verify.hpp).
pub const CXX_FLAGS: &[&str] = &["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"];

/// Stricter warnings a host may well use; verify.hpp compiles clean under them too.
pub const CXX_STRICT_FLAGS: &[&str] = &[
    "-Wshadow",
    "-Wconversion",
    "-Wsign-conversion",
    "-Wold-style-cast",
    "-Wnon-virtual-dtor",
];

/// Compiles and links the C++ `source` against the library under test into `output`, with
/// [`CXX_FLAGS`] and `extra`; panics with the compiler's output on failure. `$CXX` or `c++`.
pub fn compile_cxx(source: &std::path::Path, output: &std::path::Path, extra: &[&str]) {
    let lib = library_dir();
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    let result = Command::new(&cxx)
        .args(CXX_FLAGS)
        .args(extra)
        .arg("-I")
        .arg(root().join("include"))
        .arg(source)
        .arg("-L")
        .arg(&lib)
        .arg("-lverify")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(output)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C++ compiler `{cxx}`: {e}"));
    let (stdout, stderr) = text(&result);
    assert!(
        result.status.success(),
        "compiling {} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        source.display(),
        result.status
    );
}

/// The flags of every C compilation of a host (the contract of verify.h).
pub const C_FLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];

/// What C hosts that use POSIX threads and clocks add to [`C_FLAGS`].
pub const C_POSIX_FLAGS: &[&str] = &["-D_POSIX_C_SOURCE=200809L", "-pthread"];

/// The folder holding `verify.h` for C host compilations: `$VERIFY_INCLUDE_DIR` when set
/// (to try another copy of the header, such as a package's), else `include/`.
pub fn include_dir() -> PathBuf {
    std::env::var_os("VERIFY_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("include"))
}

/// The files of the C host whose main file is `source`: `source` itself, then the files beside
/// it named after it (`c_abi.c`: `c_abi_contracts.c`; `c_keeper.c`: `c_keeper_offline.c`),
/// in name order. A host's headers (`host.h`, `c_abi.h`) sit beside it and are found by their
/// quoted includes, with no `-I`.
pub fn host_sources(source: &std::path::Path) -> Vec<PathBuf> {
    let mut sources = vec![source.to_path_buf()];
    let (Some(folder), Some(stem)) = (
        source.parent(),
        source.file_stem().and_then(|stem| stem.to_str()),
    ) else {
        return sources;
    };
    let prefix = format!("{stem}_");
    let mut parts: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            name.starts_with(&prefix) && name.ends_with(".c")
        })
        .collect();
    parts.sort();
    sources.extend(parts);
    sources
}

/// Compiles and links the C host `source` with its parts ([`host_sources`]) against the
/// library under test into `output`, with [`C_FLAGS`] and `extra`; panics with the
/// compiler's output on failure. `$CC` or `cc`.
pub fn compile_c(source: &std::path::Path, output: &std::path::Path, extra: &[&str]) {
    let lib = library_dir();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let result = Command::new(&cc)
        .args(C_FLAGS)
        .args(extra)
        .arg("-I")
        .arg(include_dir())
        .args(host_sources(source))
        .arg("-L")
        .arg(&lib)
        .arg("-lverify")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(output)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    let (stdout, stderr) = text(&result);
    assert!(
        result.status.success(),
        "compiling {} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        source.display(),
        result.status
    );
}

/// Compiles the C host `tests/c/<name>.c` (with its parts) into `scratch` (with `extra`
/// flags); returns the program's path.
pub fn build_host(name: &str, scratch: &Scratch, extra: &[&str]) -> PathBuf {
    build_host_from(
        &root().join("tests/c").join(format!("{name}.c")),
        scratch,
        extra,
    )
}

/// Compiles the C file `source` into `scratch` (with `extra` flags), named after it; returns
/// the program's path.
pub fn build_host_from(source: &std::path::Path, scratch: &Scratch, extra: &[&str]) -> PathBuf {
    require_tool("cc", "gcc");
    let name = source.file_stem().expect("a C file name");
    let program = scratch.0.join(name);
    compile_c(source, &program, extra);
    program
}

/// `text` without its C comments (`/* */` and `//`) and preprocessor lines.
fn without_c_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start + 2..]
            .split_once("*/")
            .map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .filter(|line| !line.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every function declared in `include/verify.h`: its name and its declaration on one line
/// (comments and preprocessor lines removed, whitespace collapsed). Function pointer types
/// and structs are not functions.
pub fn header_functions() -> Vec<(String, String)> {
    let header = std::fs::read_to_string(root().join("include/verify.h")).expect("verify.h");
    let flat = without_c_comments(&header)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    flat.split([';', '{', '}'])
        .filter_map(|declaration| {
            let declaration = declaration.trim();
            if declaration.starts_with("typedef") {
                return None;
            }
            let open = declaration.find('(')?;
            let name = declaration[..open].split_whitespace().last()?;
            let name = name.trim_start_matches('*');
            (name.starts_with("verify_")
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .then(|| (name.to_owned(), declaration.to_owned()))
        })
        .collect()
}
