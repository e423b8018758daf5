//! Hosts built for AddressSanitizer, UndefinedBehaviorSanitizer and ThreadSanitizer: their
//! flags, suppressions and time limits, and the check that nothing was reported.

use super::*;

/// What C hosts built for AddressSanitizer and UndefinedBehaviorSanitizer add to [`C_FLAGS`]
/// (gcc and clang): any finding ends the host with a non-zero status.
pub const SANITIZER_FLAGS: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-g",
];

/// The LeakSanitizer suppressions of the hosts built with [`SANITIZER_FLAGS`]
/// (`tests/sanitizers/lsan.supp`: each entry says why it is not a leak).
pub fn lsan_suppressions() -> PathBuf {
    root().join("tests/sanitizers/lsan.supp")
}

/// How much slower than native a host built with [`SANITIZER_FLAGS`] runs, for its time
/// limits (`VERIFY_HOST_SLACK` of tests/c/host.h).
pub const SANITIZER_SLACK: u32 = 3;

/// Runs a C host built with [`SANITIZER_FLAGS`] like [`run_host`] (natively), with
/// AddressSanitizer's leak detection on (LeakSanitizer, with [`lsan_suppressions`]),
/// UndefinedBehaviorSanitizer printing stacks, and any finding ending the host with a
/// non-zero status. The variables are set through `env(1)`, so that the host's
/// environment is exactly the test's plus these.
pub fn run_sanitized_host(
    program: &std::path::Path,
    args: &[String],
    on_line: impl FnMut(&str) -> Option<String>,
) -> HostOutput {
    // A larger slack of the caller's environment wins (scripts/tsan.sh sets one).
    let slack = std::env::var("VERIFY_HOST_SLACK")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or(0)
        .max(SANITIZER_SLACK);
    let mut all = vec![
        "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=98:\
         detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1"
            .to_owned(),
        format!(
            "LSAN_OPTIONS=suppressions={}:print_suppressions=0:exitcode=98",
            lsan_suppressions().display()
        ),
        "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98".to_owned(),
        format!("VERIFY_HOST_SLACK={slack}"),
        program.display().to_string(),
    ];
    all.extend(args.iter().cloned());
    run_host(std::path::Path::new("env"), &all, Run::Native, on_line)
}

/// Fails unless a host run by [`run_sanitized_host`] passed every check (tests/c/host.h)
/// and no sanitizer reported anything.
pub fn assert_sanitizers_clean(output: &HostOutput) {
    output.assert_passed(Run::Native);
    assert_no_sanitizer_report(output);
}

/// Fails when ASan, LSan or UBSan reported anything on a host's stderr (their reports name
/// themselves) or ended the host with their exit code (98).
pub fn assert_no_sanitizer_report(output: &HostOutput) {
    let report = output.report();
    for marker in [
        "Sanitizer",
        "runtime error:",
        "Direct leak",
        "Indirect leak",
    ] {
        assert!(
            !output.stderr.contains(marker),
            "a sanitizer reported (`{marker}`)\n{report}"
        );
    }
    assert_ne!(
        output.status.code(),
        Some(98),
        "a sanitizer ended the host\n{report}"
    );
}

/// What C hosts built for ThreadSanitizer add to [`C_FLAGS`] (scripts/tsan.sh, with a
/// libverify.so built with `-Zsanitizer=thread`): nothing but debug information; the `$CC`
/// of scripts/tsan.sh links rustc's TSan runtime (the library is what is instrumented).
pub const TSAN_FLAGS: &[&str] = &["-fno-omit-frame-pointer", "-g"];

/// The sanitizer flags of the hosts of tests/c/sanitizers.rs: [`SANITIZER_FLAGS`] (ASan
/// and UBSan), or [`TSAN_FLAGS`] when `VERIFY_C_SANITIZER=thread` (scripts/tsan.sh runs
/// those tests so, against an instrumented library).
pub fn host_sanitizer_flags() -> &'static [&'static str] {
    match std::env::var("VERIFY_C_SANITIZER").as_deref() {
        Ok("thread") => TSAN_FLAGS,
        _ => SANITIZER_FLAGS,
    }
}
