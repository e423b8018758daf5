//! The C quickstart of README.md (its first ```c block) compiles with the C flags of every
//! host and runs clean under valgrind against the demo fixtures: its server address and
//! program id are replaced with the sandbox's, nothing else.
//!
//! Needs `cc` and `valgrind` on PATH: `scripts/install-deps.sh gcc valgrind` installs them.

mod common;

use common::host::{build_host_from, demo_sandbox, require_tool, root, run_host, Run, Scratch};

const README_URL: &str = "\"http://127.0.0.1:8080\"";
const README_APP_ID: &str = "\"10001\"";

/// The first ```c block of README.md.
fn quickstart() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme.find("```c\n").expect("README.md has a ```c block") + "```c\n".len();
    let end = readme[start..].find("```").expect("the ```c block ends") + start;
    readme[start..end].to_owned()
}

#[test]
fn the_readme_quickstart_compiles_and_runs_clean() {
    require_tool("valgrind", "valgrind");
    let source = quickstart();
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
        output.stdout.starts_with("valid until 20"),
        "the quickstart logs in and prints the expiry\n{report}"
    );
    common::host::assert_valgrind_clean(&output.stderr, &report);
}
