//! https through the C++ binding: `tests/cpp/cpp_https.cpp`, compiled with the flags of
//! every C++ host (`CXX_FLAGS` and `CXX_STRICT_FLAGS`) against the library under test, runs
//! the six https cases against sandboxes of its own (see `HttpsCases` in
//! tests/common/host/https.rs): a custom CA succeeds; Mozilla's roots alone fail with
//! `VERIFY_ERR_TLS` "unknown issuer"; the right pin without a CA succeeds; a wrong pin fails
//! with `VERIFY_ERR_PIN`; a certificate for another name and an expired one fail with
//! `VERIFY_ERR_TLS` and their causes. Needs `c++` (`scripts/install-deps.sh gcc`).

#[path = "../common/mod.rs"]
mod common;

use common::host::{
    assert_https_cases, compile_cxx, host_command, require_tool, root, run_ok, HttpsCases,
    CXX_STRICT_FLAGS,
};

#[test]
fn cpp_https_cases_get_their_codes() {
    require_tool("c++", "gcc");
    let cases = HttpsCases::start();
    let binary = cases.scratch.0.join("cpp_https");
    compile_cxx(
        &root().join("tests/cpp/cpp_https.cpp"),
        &binary,
        CXX_STRICT_FLAGS,
    );
    let stdout = run_ok(host_command(&binary).args(&cases.args), "cpp_https");
    assert_https_cases(&stdout, &format!("--- cpp_https stdout ---\n{stdout}"));
}
