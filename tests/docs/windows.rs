//! The VB6 `Declare` lines and the 易语言 DLL command table of `docs/windows.md` and its
//! Chinese twin `docs/windows.zh-CN.md` match the header: every function they declare is one
//! of `include/verify.h`, with as many parameters; and both pages declare the same functions.

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeMap;

use common::host::{header_functions, root};

/// The number of parameters of each function of the header.
fn header_arity() -> BTreeMap<String, usize> {
    header_functions()
        .into_iter()
        .map(|(name, declaration)| {
            let params = declaration
                .split_once('(')
                .and_then(|(_, rest)| rest.rsplit_once(')'))
                .map_or("", |(params, _)| params)
                .trim();
            let mut depth = 0;
            let mut commas = 0;
            for c in params.chars() {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    ',' if depth == 0 => commas += 1,
                    _ => {}
                }
            }
            let arity = if params.is_empty() || params == "void" {
                0
            } else {
                commas + 1
            };
            (name, arity)
        })
        .collect()
}

/// The VB6 declarations of a page: name and number of parameters.
fn vb6(text: &str) -> BTreeMap<String, usize> {
    let joined = text.replace(" _\n", " ");
    joined
        .lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("Public Declare Function ")
                .or_else(|| line.strip_prefix("Public Declare Sub "))?;
            let name = rest.split_whitespace().next()?;
            if !name.starts_with("verify_") || !rest.contains("Lib \"verify.dll\"") {
                return None;
            }
            let params = rest.split_once('(')?.1.split_once(')')?.0;
            let arity = params.matches("ByVal ").count() + params.matches("ByRef ").count();
            Some((name.to_owned(), arity))
        })
        .collect()
}

/// The 易语言 DLL commands of a page: name and number of parameters.
fn e_language(text: &str) -> BTreeMap<String, usize> {
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix("`verify_")?.strip_suffix('`')?;
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return None; // another table naming several functions in one cell
            }
            let params = cells.get(3)?;
            let arity = if params.starts_with("(none)") || params.starts_with("（无）") {
                0
            } else {
                // `; ` between parameters, not inside a note in parentheses.
                let mut depth = 0i32;
                let mut count = 1;
                let mut previous = ' ';
                for c in params.chars() {
                    match c {
                        '(' | '（' => depth += 1,
                        ')' | '）' => depth -= 1,
                        ' ' if previous == ';' && depth == 0 => count += 1,
                        _ => {}
                    }
                    previous = c;
                }
                count
            };
            Some((format!("verify_{name}"), arity))
        })
        .collect()
}

#[test]
fn vb6_and_e_language_declarations_match_the_header() {
    let header = header_arity();
    assert!(header.len() >= 60, "verify.h parsed: {}", header.len());
    let mut pages = Vec::new();
    for file in ["docs/windows.md", "docs/windows.zh-CN.md"] {
        let text = std::fs::read_to_string(root().join(file)).expect("a Windows page");
        let declared = [("VB6", vb6(&text)), ("易语言", e_language(&text))];
        for (language, functions) in &declared {
            assert!(
                functions.len() >= 20,
                "{file}: {language} declarations found: {functions:?}"
            );
            for (name, arity) in functions {
                assert_eq!(
                    header.get(name),
                    Some(arity),
                    "{file}: the {language} declaration of {name} has {arity} parameters; \
                     verify.h: {:?}",
                    header.get(name)
                );
            }
            assert!(
                functions.contains_key("verify_code_user_message"),
                "{file}: {language} declares verify_code_user_message"
            );
        }
        pages.push(declared);
    }
    for (english, chinese) in pages[0].iter().zip(&pages[1]) {
        assert_eq!(
            english.1, chinese.1,
            "docs/windows.md and docs/windows.zh-CN.md declare the same {} functions",
            english.0
        );
    }
}
