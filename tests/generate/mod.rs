//! The generators of `tests/generated.rs`, one module per target language.

pub mod cpp;
pub mod csharp;
pub mod docs;
pub mod header;
pub mod python;
pub mod rust;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use verify_core::actions::{
    ActionSpec, FieldSpec, FieldType, ParamKind, ReplySpec, ACTIONS, REPLIES,
};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// With `VERIFY_BLESS` set, writes `content` to `path` (when it differs) and returns true;
/// otherwise returns whether `path` holds `content`.
pub fn check_or_bless(path: &Path, content: &str) -> bool {
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    if committed == content {
        return true;
    }
    if std::env::var_os("VERIFY_BLESS").is_some() {
        std::fs::write(path, content)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return true;
    }
    false
}

/// Replaces the lines between the markers `BEGIN GENERATED: name` and `END GENERATED: name`
/// (each on a line of its own, in any comment syntax) with `body`.
pub fn replace_section(text: &str, name: &str, body: &str) -> Result<String, String> {
    let begin = format!("BEGIN GENERATED: {name}");
    let end = format!("END GENERATED: {name}");
    let start = text
        .find(&begin)
        .ok_or_else(|| format!("no `{begin}` marker"))?;
    let body_start = text[start..]
        .find('\n')
        .map(|at| start + at + 1)
        .ok_or_else(|| format!("`{begin}` is on the last line"))?;
    let stop = text[body_start..]
        .find(&end)
        .map(|at| body_start + at)
        .ok_or_else(|| format!("no `{end}` marker"))?;
    let line_start = text[..stop].rfind('\n').map_or(0, |at| at + 1);
    Ok(format!(
        "{}{}{}",
        &text[..body_start],
        body,
        &text[line_start..]
    ))
}

/// Formats Rust source with rustfmt (edition 2021), as `cargo fmt` would.
pub fn rustfmt(source: &str) -> String {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rustfmt runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(source.as_bytes())
        .expect("write to rustfmt");
    let output = child.wait_with_output().expect("rustfmt finishes");
    assert!(
        output.status.success(),
        "rustfmt failed: {}\n{source}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("rustfmt output is UTF-8")
}

/// `snake_case` to `PascalCase`.
pub fn pascal(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// `snake_case` to `camelCase`.
pub fn camel(name: &str) -> String {
    let pascal = pascal(name);
    let mut chars = pascal.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// The doc lines of an action, without trailing empty lines.
pub fn doc_lines(doc: &str) -> Vec<&str> {
    doc.lines().map(str::trim).collect()
}

/// Whether parameter `index` of `action` and all after it are optional (so C++ and C# may
/// give them defaults).
pub fn trailing_optional(action: &ActionSpec, index: usize) -> bool {
    action.params[index..]
        .iter()
        .all(|p| p.kind == ParamKind::Optional)
}

/// The actions, in table order.
pub fn actions() -> &'static [ActionSpec] {
    ACTIONS
}

/// The reply views, in table order.
pub fn replies() -> &'static [ReplySpec] {
    REPLIES
}

/// Whether a typed field is a time of the service (`YYYY-MM-DD HH:mm:ss` in UTC+08:00): its
/// type in the action table is `time`. The C++ and C# results give them as times with that
/// offset; the text stays readable by JSON Pointer.
pub fn is_time(field: &FieldSpec) -> bool {
    field.ty == FieldType::Time
}
