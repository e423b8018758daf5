//! The Chinese guide (README.zh-CN.md and the pages of docs/zh-CN/) keeps in step with the
//! English README and the header:
//! - every `## ` and `### ` topic of README.md has a Chinese counterpart: a heading of the guide
//!   followed by `<!-- topic: ENGLISH HEADING -->` on the next line;
//! - every `verify_*` function or type and every `VERIFY_*` constant the guide names is one the
//!   header (include/verify.h, or a C++ header for its macros) declares; the few environment and
//!   build variables it names are listed here, each with who reads it.
//!
//! Reads files only: no tool, no network.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Names in `VERIFY_*` form that are not constants of a header: environment and build
/// variables the guide tells the reader to set, and the one constant its examples define.
const VARIABLES: &[&str] = &[
    // The sandbox's control token, read by the README's curl lines (tests/docs/readme_ban.rs).
    "VERIFY_SANDBOX_TOKEN",
    // verify-doctor's AppKey (doctor/src).
    "VERIFY_APP_KEY",
    // Where the Python package finds the library (bindings/python).
    "VERIFY_LIBRARY",
    // The 32-bit Wine chroot of scripts/wine32.sh.
    "VERIFY_WINE32_ROOT",
    // examples-c/CMakeLists.txt: which target/<profile> to link.
    "VERIFY_PROFILE",
    // The SHA-256 a program writes into its own code (docs/zh-CN/hardening.md's examples).
    "VERIFY_DLL_SHA256",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// README.zh-CN.md and every page of docs/zh-CN/, each with its text.
fn guide() -> Vec<(PathBuf, String)> {
    let mut files = vec![root().join("README.zh-CN.md")];
    let pages = root().join("docs/zh-CN");
    if let Ok(entries) = std::fs::read_dir(&pages) {
        let mut found: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
        .into_iter()
        .map(|path| {
            let text = read(&path);
            (path, text)
        })
        .collect()
}

/// The `## ` and `### ` headings of a Markdown text, outside fenced code.
fn headings(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if let Some(title) = line
            .strip_prefix("## ")
            .or_else(|| line.strip_prefix("### "))
        {
            out.push(title.trim().to_owned());
        }
    }
    out
}

/// The topics a Chinese text declares (`<!-- topic: X -->`), and the lines that declare one
/// without a heading right above it.
fn topics(text: &str) -> (BTreeSet<String>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = BTreeSet::new();
    let mut misplaced = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(topic) = line
            .trim()
            .strip_prefix("<!-- topic:")
            .and_then(|rest| rest.strip_suffix("-->"))
        else {
            continue;
        };
        found.insert(topic.trim().to_owned());
        let above = at.checked_sub(1).and_then(|before| lines.get(before));
        if !above.is_some_and(|above| above.starts_with('#')) {
            misplaced.push((*line).to_owned());
        }
    }
    (found, misplaced)
}

/// The headings of `english` that no topic of `chinese` names.
fn missing_topics(english: &str, chinese: &[&str]) -> Vec<String> {
    let declared: BTreeSet<String> = chinese.iter().flat_map(|text| topics(text).0).collect();
    headings(english)
        .into_iter()
        .filter(|heading| !declared.contains(heading))
        .collect()
}

/// The identifiers of `text` that start with `prefix` (`verify_` or `VERIFY_`) and are
/// names of the C API: not part of a longer word, a path (`tests/c/verify_bench.c`), a
/// file name, a Rust path (`verify_core::`), a C++ or CMake name (`verify::verify_static`)
/// or a wildcard (`verify_*`).
fn names(text: &str, prefix: &str) -> BTreeSet<String> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    text.match_indices(prefix)
        .filter(|(at, _)| {
            *at == 0 || !(word(bytes[at - 1]) || matches!(bytes[at - 1], b'/' | b':'))
        })
        .filter_map(|(at, _)| {
            let len = text[at..].bytes().take_while(|b| word(*b)).count();
            let name = &text[at..at + len];
            let after = &text[at + len..];
            let path = after.starts_with("::")
                || after.starts_with('-')
                || after.starts_with('/')
                || (after.starts_with('.')
                    && after[1..].starts_with(|c: char| c.is_ascii_alphanumeric()));
            (!path && !name.ends_with('_')).then(|| name.to_owned())
        })
        .collect()
}

/// `text` without its block comments (`/* ... */`).
fn without_block_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .find("*/")
            .map_or("", |end| &rest[start + end + 2..]);
    }
    out.push_str(rest);
    out
}

/// Every `verify_*` and `VERIFY_*` identifier the header declares or uses outside its
/// comments (functions, types, constants, macros), and the macros of the C++ headers.
fn declared() -> BTreeSet<String> {
    let header = without_block_comments(&read(&root().join("include/verify.h")));
    let mut out: BTreeSet<String> = names(&header, "verify_");
    out.extend(names(&header, "VERIFY_"));
    let mut cpp = vec![root().join("include/verify.hpp")];
    if let Ok(entries) = std::fs::read_dir(root().join("include/verify")) {
        cpp.extend(entries.filter_map(|entry| entry.ok().map(|entry| entry.path())));
    }
    for path in cpp.iter().filter(|path| path.is_file()) {
        let text = read(path);
        out.extend(
            text.lines()
                .filter_map(|line| line.trim_start().strip_prefix("#"))
                .flat_map(|line| names(line, "VERIFY_")),
        );
    }
    out
}

/// The names `text` uses that are neither in `declared` nor a listed variable.
fn unknown_names(text: &str, declared: &BTreeSet<String>) -> Vec<String> {
    names(text, "verify_")
        .into_iter()
        .chain(names(text, "VERIFY_"))
        .filter(|name| !declared.contains(name) && !VARIABLES.contains(&name.as_str()))
        .collect()
}

#[test]
fn every_topic_of_the_english_readme_has_a_chinese_counterpart() {
    let english = read(&root().join("README.md"));
    let guide = guide();
    let texts: Vec<&str> = guide.iter().map(|(_, text)| text.as_str()).collect();
    assert!(
        headings(&english).len() >= 20,
        "README.md's headings: {:?}",
        headings(&english)
    );
    let missing = missing_topics(&english, &texts);
    assert!(
        missing.is_empty(),
        "README.md topics with no `<!-- topic: ... -->` under a heading of README.zh-CN.md or \
         docs/zh-CN/: {missing:?}"
    );
    for (path, text) in &guide {
        let (_, misplaced) = topics(text);
        assert!(
            misplaced.is_empty(),
            "{}: topic comments not right under a heading: {misplaced:?}",
            path.display()
        );
    }
}

#[test]
fn the_chinese_guide_names_only_functions_and_constants_of_the_header() {
    let declared = declared();
    assert!(
        declared.contains("verify_single_login") && declared.contains("VERIFY_ERR_TIMEOUT"),
        "the header's names were read"
    );
    let guide = guide();
    let readme = &guide[0].1;
    assert!(
        names(readme, "verify_").len() >= 40 && names(readme, "VERIFY_").len() >= 15,
        "README.zh-CN.md's names were read: {:?}",
        names(readme, "verify_")
    );
    for (path, text) in &guide {
        let unknown = unknown_names(text, &declared);
        assert!(
            unknown.is_empty(),
            "{} names what include/verify.h does not declare: {unknown:?}",
            path.display()
        );
    }
}

/// The checks above fail on what they exist to catch: a heading without its topic, a topic
/// comment away from a heading, a function or a constant the header lacks.
#[test]
fn the_checks_catch_a_missing_topic_and_an_unknown_name() {
    let english = "# x\n\n## The sandbox\n\n```\n## not a heading\n```\n### Ban a card\n## Rust\n";
    let chinese = "## 沙盒\n<!-- topic: The sandbox -->\n\n## Rust\n\n<!-- topic: Rust -->\n";
    assert_eq!(
        missing_topics(english, &[chinese]),
        vec!["Ban a card".to_owned()]
    );
    assert_eq!(
        topics(chinese).1,
        vec!["<!-- topic: Rust -->".to_owned()],
        "a topic comment must sit right under its heading"
    );

    let declared: BTreeSet<String> = ["verify_single_login", "VERIFY_OK"]
        .iter()
        .map(|name| (*name).to_owned())
        .collect();
    let text = "调 `verify_single_login(...)`，返回 `VERIFY_OK`；`verify_login_v2` 和 VERIFY_OKAY \
                不存在。verify_core::Client、benches/verify_bench.c、`verify_*`、\
                verify_bench.c、verify::verify_static、VERIFY_SANDBOX_TOKEN 都不算。";
    assert_eq!(
        unknown_names(text, &declared),
        vec!["verify_login_v2".to_owned(), "VERIFY_OKAY".to_owned()]
    );
}
