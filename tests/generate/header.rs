//! `include/verify.h`: cbindgen over the crate's sources, with `VERIFY_CALL` added.
//!
//! Every export and callback type is `extern "system"` (stdcall on 32-bit Windows, the C
//! convention elsewhere). cbindgen 0.29 emits only `extern "C"` items, so the sources are
//! copied aside with `extern "system"` read as `extern "C"`, and the header it makes gets the
//! header's calling-convention macro `VERIFY_CALL` on every function and callback type.

use std::path::Path;

use super::root;

pub fn verify_h() -> String {
    let scratch = std::env::temp_dir().join(format!("verify-header-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    copy_sources(&root().join("src"), &scratch.join("src"));
    std::fs::write(
        scratch.join("Cargo.toml"),
        "[package]\nname = \"verify\"\nversion = \"0.0.0\"\nedition = \"2021\"\n[lib]\n\
         path = \"src/lib.rs\"\n",
    )
    .expect("write the scratch manifest");
    let config = cbindgen::Config::from_file(root().join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&scratch)
        .with_config(config)
        .generate()
        .expect("cbindgen parses src/")
        .write(&mut generated);
    let _ = std::fs::remove_dir_all(&scratch);
    let header = String::from_utf8(generated).expect("the header is UTF-8");
    with_calling_convention(&header)
}

fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the scratch folder");
    for entry in std::fs::read_dir(from).expect("read src/") {
        let entry = entry.expect("entry");
        let path = entry.path();
        if path.is_dir() {
            copy_sources(&path, &to.join(entry.file_name()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read a source");
            std::fs::write(
                to.join(entry.file_name()),
                text.replace("extern \"system\"", "extern \"C\""),
            )
            .expect("write a source");
        }
    }
}

/// Adds `VERIFY_CALL` before the name of every function declaration (`int32_t
/// VERIFY_CALL verify_x(`) and inside every function pointer type (`(VERIFY_CALL *name)`).
fn with_calling_convention(header: &str) -> String {
    let mut out = String::with_capacity(header.len() + 4096);
    let mut continuing = false;
    for line in header.lines() {
        if continuing {
            // The parameters of a declaration, aligned under its first one.
            out.push_str(&" ".repeat("VERIFY_CALL ".len()));
            out.push_str(line);
            out.push('\n');
            continuing = !line.contains(';');
            continue;
        }
        // The name of a declared function follows a space or the `*` of a pointer result.
        let name_at = line
            .match_indices("verify_")
            .map(|(at, _)| at)
            .find(|&at| at > 0 && matches!(line.as_bytes()[at - 1], b' ' | b'*'));
        let fixed = if let Some(at) = name_at {
            let (head, tail) = line.split_at(at);
            let is_declaration = !line.starts_with(' ')
                && !line.starts_with('#')
                && !line.starts_with("typedef")
                && !line.starts_with("/*")
                && !line.starts_with(" *")
                && tail.contains('(')
                && tail[..tail.find('(').unwrap_or(0)]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            if is_declaration {
                continuing = !line.contains(';');
                format!("{head}VERIFY_CALL {tail}")
            } else {
                line.to_owned()
            }
        } else {
            line.to_owned()
        };
        let fixed = fixed.replace("(*verify_", "(VERIFY_CALL *verify_");
        out.push_str(&fixed);
        out.push('\n');
    }
    out
}
