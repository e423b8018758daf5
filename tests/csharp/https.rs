//! https through the C# binding: `tests/csharp/CsharpHttps.cs` with `bindings/csharp/src/`,
//! compiled with `mcs -warnaserror` and run with `mono` against the library under test, runs
//! the six https cases against sandboxes of its own (see `HttpsCases` in
//! tests/common/host/https.rs): a custom CA succeeds; Mozilla's roots alone fail with
//! `ResultCode.Tls` "unknown issuer"; the right pin without a CA succeeds; a wrong pin fails
//! with `ResultCode.Pin`; a certificate for another name and an expired one fail with
//! `ResultCode.Tls` and their causes. Needs `mcs` and `mono` (`scripts/install-deps.sh
//! mono`).

#[path = "../common/mod.rs"]
mod common;

use std::path::PathBuf;

use common::host::{assert_https_cases, compile_csharp, require_mono, run_mono, text, HttpsCases};

#[test]
fn csharp_https_cases_get_their_codes() {
    require_mono();
    let cases = HttpsCases::start();
    let exe = cases.scratch.0.join("CsharpHttps.exe");
    compile_csharp(
        &[
            PathBuf::from("bindings/csharp/src"),
            PathBuf::from("tests/csharp/CsharpHttps.cs"),
        ],
        &exe,
    );
    let output = run_mono(&exe, &cases.args);
    let (stdout, stderr) = text(&output);
    let report = format!("--- CsharpHttps stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    assert!(
        output.status.success(),
        "CsharpHttps exited with {}\n{report}",
        output.status
    );
    assert_https_cases(&stdout, &report);
}
