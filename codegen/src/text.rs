//! Text helpers the generators share: names in each language's case, doc lines, wrapping,
//! generated sections, rustfmt.

use std::io::Write;
use std::process::{Command, Stdio};

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
pub fn rustfmt(source: &str) -> Result<String, String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("rustfmt does not start ({e}): rustup component add rustfmt"))?;
    child
        .stdin
        .take()
        .ok_or("rustfmt's stdin")?
        .write_all(source.as_bytes())
        .map_err(|e| format!("cannot write to rustfmt: {e}"))?;
    let output = child
        .wait_with_output()
        .map_err(|e| format!("rustfmt does not finish: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "rustfmt failed: {}\n{source}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|_| "rustfmt's output is not UTF-8".to_owned())
}

/// `snake_case` (or `SCREAMING_CASE`) to `PascalCase`.
pub fn pascal(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let lower = part.to_ascii_lowercase();
            let mut chars = lower.chars();
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

/// The lines of a doc text, each trimmed.
pub fn doc_lines(doc: &str) -> Vec<&str> {
    doc.lines().map(str::trim).collect()
}

/// `text` as lines of at most `width` columns, each starting with `prefix` (and a space
/// before the words).
pub fn wrapped(text: &str, prefix: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::from(prefix);
    for word in text.split_whitespace() {
        if line.len() + 1 + word.len() > width && line.len() > prefix.len() {
            lines.push(line);
            line = String::from(prefix);
        }
        line.push(' ');
        line.push_str(word);
    }
    if line.len() > prefix.len() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The first letter in capitals.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// The C++ header `text` with its documentation comments in Doxygen's `///` form, which
/// clangd and Doxygen both show: every block comment (`/* ... */`, one line or several) and
/// every full-line `//` comment at the scope of declarations (indented 4 columns at most)
/// becomes `///` lines at the same indent; the first comment of the file gets `@file`.
/// Comments inside function bodies, after code on a line and after `#` directives stay as
/// they are.
pub fn doxygen(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut block: Option<usize> = None;
    let mut first = true;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let pad = &line[..indent];
        if let Some(at) = block {
            let pad = &line[..indent.min(at)];
            let (body, closes) = match trimmed.trim_end().strip_suffix("*/") {
                Some(rest) => (rest, true),
                None => (trimmed, false),
            };
            let body = body.strip_prefix('*').unwrap_or(body).trim_end();
            if !(closes && body.trim().is_empty()) {
                out.push_str(&format!("{pad}///{body}\n"));
            }
            if closes {
                block = None;
            }
            continue;
        }
        if indent <= 4 && trimmed.starts_with("/*") {
            let rest = &trimmed[2..];
            if first {
                out.push_str(&format!("{pad}/// @file\n"));
                first = false;
            }
            match rest.trim_end().strip_suffix("*/") {
                Some(one) => out.push_str(&format!("{pad}///{}\n", one.trim_end())),
                None => {
                    if !rest.trim().is_empty() {
                        out.push_str(&format!("{pad}///{}\n", rest.trim_end()));
                    }
                    block = Some(indent);
                }
            }
            continue;
        }
        if indent <= 4 && trimmed.starts_with("//") && !trimmed.starts_with("///") {
            out.push_str(&format!("{pad}///{}\n", &trimmed[2..]));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}
