//! The code blocks of the repository's Markdown files, which the tests compile and run as
//! their readers would copy them.

use super::root;

/// The bodies of the ```` ```lang ```` blocks of `file` (a path from the repository root), in
/// order. Fails the test when the file cannot be read or a block does not end.
pub fn fenced(file: &str, lang: &str) -> Vec<String> {
    let text =
        std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("read {file}: {e}"));
    let fence = format!("```{lang}\n");
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&fence) {
        let body = &rest[at + fence.len()..];
        let end = body
            .find("```")
            .unwrap_or_else(|| panic!("a ```{lang} block of {file} does not end"));
        out.push(body[..end].to_owned());
        rest = &body[end + 3..];
    }
    out
}

/// The first ```` ```lang ```` block of `file`.
pub fn first_fenced(file: &str, lang: &str) -> String {
    fenced(file, lang)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{file} has no ```{lang} block"))
}
