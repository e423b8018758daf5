//! `include/verify.h`: cbindgen over the crate's sources, with `VERIFY_CALL` added.
//!
//! Every export and callback type is `extern "system"` (stdcall on 32-bit Windows, the C
//! convention elsewhere). cbindgen 0.29 emits only `extern "C"` items, so the sources are
//! copied aside with `extern "system"` read as `extern "C"`, and the header it makes gets the
//! header's calling-convention macro `VERIFY_CALL` on every function and callback type.

use std::path::Path;

/// cbindgen's parse of the C ABI's sources: `root`'s `src/`, with the generated files of
/// `fresh` (path from the root, text) read as they are about to be written. Returns the
/// header's text and the parse (what [`crate::schema::exports`] reads).
pub fn generate(
    root: &Path,
    fresh: &[(String, String)],
) -> Result<(String, cbindgen::Bindings), String> {
    let scratch = std::env::temp_dir().join(format!("verify-codegen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let made = (|| {
        copy_sources(&root.join("src"), &scratch.join("src"))?;
        for (path, text) in fresh {
            if let Some(rest) = path.strip_prefix("src/") {
                std::fs::write(
                    scratch.join("src").join(rest),
                    text.replace("extern \"system\"", "extern \"C\""),
                )
                .map_err(|e| format!("cannot write a scratch copy of {path}: {e}"))?;
            }
        }
        std::fs::write(
            scratch.join("Cargo.toml"),
            "[package]\nname = \"verify\"\nversion = \"0.0.0\"\nedition = \"2021\"\n[lib]\n\
             path = \"src/lib.rs\"\n",
        )
        .map_err(|e| format!("cannot write the scratch manifest: {e}"))?;
        let config = cbindgen::Config::from_file(root.join("cbindgen.toml"))
            .map_err(|e| format!("cbindgen.toml: {e}"))?;
        cbindgen::Builder::new()
            .with_crate(&scratch)
            .with_config(config)
            .generate()
            .map_err(|e| format!("cbindgen cannot read src/: {e}"))
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    let bindings = made?;
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let header = String::from_utf8(generated).map_err(|_| "the header is not UTF-8".to_owned())?;
    Ok((with_calling_convention(&header), bindings))
}

fn copy_sources(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        let path = entry.path();
        if path.is_dir() {
            copy_sources(&path, &to.join(entry.file_name()))?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            std::fs::write(
                to.join(entry.file_name()),
                text.replace("extern \"system\"", "extern \"C\""),
            )
            .map_err(|e| format!("cannot write a scratch copy of {}: {e}", path.display()))?;
        }
    }
    Ok(())
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
