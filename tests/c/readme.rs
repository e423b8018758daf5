//! The C quickstarts of README.md and README.zh-CN.md (the first ```c block of each) compile
//! with the C flags of every host and run clean under valgrind against the demo fixtures:
//! their server address and program id are replaced with the sandbox's, nothing else. And
//! docs/windows.zh-CN.md and docs/doctor.zh-CN.md name no `verify_*` function that the header
//! does not declare (README.zh-CN.md and docs/zh-CN/: tests/docs/readme_zh.rs).
//!
//! Needs `cc` and `valgrind` on PATH: `scripts/install-deps.sh gcc valgrind` installs them.

#[path = "../common/mod.rs"]
mod common;

use common::host::{
    build_host_from, demo_sandbox, first_fenced, header_functions, require_tool, root, run_host,
    Run, Scratch,
};

const README_URL: &str = "\"http://127.0.0.1:8080\"";
const README_APP_ID: &str = "\"10001\"";

/// The first ```c block of `file`.
fn quickstart(file: &str) -> String {
    first_fenced(file, "c")
}

#[test]
fn the_readme_quickstart_compiles_and_runs_clean() {
    quickstart_runs("README.md", "valid until 20");
}

#[test]
fn the_chinese_readme_quickstart_compiles_and_runs_clean() {
    quickstart_runs("README.zh-CN.md", "有效期至 20");
}

/// docs/windows.zh-CN.md and docs/doctor.zh-CN.md name only functions and types of the header
/// (a function renamed or removed there fails here until the Chinese docs follow).
#[test]
fn the_chinese_docs_name_only_functions_of_the_header() {
    let header = std::fs::read_to_string(root().join("include/verify.h")).expect("verify.h");
    // The functions and the types (`typedef struct verify_client verify_client;`).
    let declared: std::collections::BTreeSet<String> = header_functions()
        .into_iter()
        .map(|(name, _)| name)
        .chain(header.lines().filter_map(|line| {
            let name = line
                .strip_prefix("typedef struct ")?
                .split_whitespace()
                .next()?;
            Some(name.to_owned())
        }))
        .collect();
    for file in ["docs/windows.zh-CN.md", "docs/doctor.zh-CN.md"] {
        let text = std::fs::read_to_string(root().join(file)).expect("a Chinese doc");
        let named: std::collections::BTreeSet<String> = text
            .match_indices("verify_")
            .filter(|(at, _)| *at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric())
            .map(|(at, _)| {
                text[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            // Functions: a name followed by `(` or in backticks, not a file or a folder.
            .filter(|name| !name.ends_with('_'))
            .collect();
        let calls: Vec<&String> = named
            .iter()
            .filter(|name| {
                text.contains(&format!("{name}(")) || text.contains(&format!("`{name}`"))
            })
            .collect();
        assert!(calls.len() >= 10, "{file}: functions found: {calls:?}");
        let unknown: Vec<&&String> = calls
            .iter()
            .filter(|name| !declared.contains(**name))
            .collect();
        assert!(
            unknown.is_empty(),
            "{file} names functions that include/verify.h does not declare: {unknown:?}"
        );
    }
}

fn quickstart_runs(file: &str, expected_start: &str) {
    require_tool("valgrind", "valgrind");
    let source = quickstart(file);
    assert!(
        source.contains(README_URL) && source.contains(README_APP_ID),
        "the quickstart no longer uses {README_URL} and {README_APP_ID}:\n{source}"
    );
    let (sandbox, app_id, app_key) = demo_sandbox();
    let source = source
        .replace(README_URL, &format!("\"{}\"", sandbox.base_url()))
        .replace(README_APP_ID, &format!("\"{app_id}\""));
    assert!(
        source.contains(&app_key),
        "the quickstart uses the demo program's AppKey"
    );
    let scratch = Scratch::new();
    let file = scratch.0.join("quickstart.c");
    std::fs::write(&file, source).expect("write the quickstart");
    let program = build_host_from(&file, &scratch, &[]);
    let output = run_host(&program, &[], Run::Valgrind, |_| None);
    sandbox.stop();
    let report = output.report();
    assert!(output.status.success(), "{report}");
    assert!(
        output.stdout.starts_with(expected_start),
        "the quickstart logs in and prints the expiry\n{report}"
    );
    common::host::assert_valgrind_clean(&output.stderr, &report);
}
