//! The VB6 and 易语言 sections of `docs/windows.md` and its Chinese twin
//! `docs/windows.zh-CN.md` point at the generated declarations and the examples
//! (`bindings/vb6/verify.bas`, `Example.bas`, `bindings/easy/verify.e.txt`, `例子.e.txt`) and
//! declare nothing by hand: no `Declare ... Lib "verify.dll"`, no table of 易语言 DLL commands
//! (the generated files are checked against the header by `hosts_declarations`).

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeMap;

use common::host::{root, vb6_declares};

/// The 易语言 DLL commands of a page: name and number of parameters.
fn e_language(text: &str) -> BTreeMap<String, usize> {
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix("`verify_")?.strip_suffix('`')?;
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return None; // another table naming several functions in one cell
            }
            let returns = cells.get(2)?;
            if !(returns.contains('型')
                || returns.starts_with("(none)")
                || returns.starts_with("（无）"))
            {
                return None; // another table (the borrowed strings)
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
fn vb6_and_e_language_sections_point_at_the_generated_files() {
    for file in ["docs/windows.md", "docs/windows.zh-CN.md"] {
        let text = std::fs::read_to_string(root().join(file)).expect("a Windows page");
        for linked in [
            "bindings/vb6/verify.bas",
            "bindings/vb6/Example.bas",
            "bindings/easy/verify.e.txt",
            "bindings/easy/例子.e.txt",
        ] {
            assert!(
                text.contains(&format!("(../{linked})")),
                "{file} links {linked}"
            );
        }
        let vb6: Vec<String> = vb6_declares(&text)
            .into_iter()
            .filter(|d| d.library == "verify.dll")
            .map(|d| d.name)
            .collect();
        assert!(vb6.is_empty(), "{file}: VB6 declarations by hand: {vb6:?}");
        let table = e_language(&text);
        assert!(
            table.is_empty(),
            "{file}: a table of 易语言 DLL commands by hand: {table:?}"
        );
    }
}
