//! Support of the host tests (C, C++, C#, package): where the library and repository are,
//! tools that must be installed, scratch directories, and the demo fixtures under a fresh
//! program id.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{SystemTime, UNIX_EPOCH};

use verify_sandbox::{Config, Fixtures, Sandbox};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `command` without the variables `cargo test` sets for this test binary (`CARGO_PKG_*`,
/// `CARGO_MANIFEST_*`, `CARGO_CRATE_NAME`, ...), for a cargo build run from a test (directly
/// or by a script): ring's build script declares them as inputs, so a cargo run that sees the
/// test's values where the outer `cargo test` saw none rebuilds ring and every crate above
/// it (the library twice in one test run, and again in the next).
pub fn without_test_env(command: &mut Command) -> &mut Command {
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let set_by_cargo_test = key.starts_with("CARGO_PKG_")
            || key.starts_with("CARGO_MANIFEST_")
            || key.starts_with("CARGO_BIN_")
            || [
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
                "OUT_DIR",
            ]
            .contains(&key);
        if set_by_cargo_test {
            command.env_remove(key);
        }
    }
    command
}

/// The target directory of this test run (`CARGO_TARGET_TMPDIR` is `<target>/tmp`).
pub fn target_dir() -> PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is <target>/tmp")
        .to_path_buf()
}

/// A finished command's status and output, for assertion messages.
pub fn show(output: &Output) -> String {
    let (stdout, stderr) = text(output);
    format!(
        "status: {}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
        output.status
    )
}

/// Runs the project script `scripts/<name>` with `args` (from the repository root, building
/// into this test run's target directory, without the variables of `cargo test`); panics
/// with its output when it fails, else returns its stdout.
pub fn run_script(name: &str, args: &[&str]) -> String {
    let output = without_test_env(&mut Command::new(root().join("scripts").join(name)))
        .args(args)
        .env("CARGO_TARGET_DIR", target_dir())
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run scripts/{name}: {e}"));
    assert!(
        output.status.success(),
        "scripts/{name} {args:?} failed\n{}",
        show(&output)
    );
    text(&output).0
}

/// A tool of the Rust toolchain's own (`rust-lld`; with the llvm-tools component,
/// `llvm-objdump`, `llvm-nm`): `<sysroot>/lib/rustlib/<host>/bin/<name>`.
pub fn rust_tool(name: &str) -> PathBuf {
    let rustc = |args: &[&str]| {
        let output = Command::new("rustc")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run rustc {args:?}: {e}"));
        text(&output).0
    };
    let sysroot = rustc(&["--print", "sysroot"]);
    let host = rustc(&["-vV"])
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc's host triple");
    PathBuf::from(sysroot.trim())
        .join("lib/rustlib")
        .join(host)
        .join("bin")
        .join(name)
}

/// The directory of the library under test, `target/<profile>/deps`, with a fresh
/// `libverify.so` and `libverify.a`. The `verify` crate is a cdylib and staticlib only (no
/// rlib), so `cargo test` does not build it for the integration tests: the first call of
/// each test binary runs `cargo build -p verify` with the tests' profile (a no-op when it is
/// fresh), once. `$VERIFY_LIBRARY_DIR`, when set, names another folder holding a built
/// `libverify.so` instead (benches/lab.sh: the release build of benches/run.sh), and
/// nothing is built.
pub fn library_dir() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            if let Some(dir) = std::env::var_os("VERIFY_LIBRARY_DIR") {
                let dir = PathBuf::from(dir);
                assert!(
                    dir.join("libverify.so").is_file(),
                    "VERIFY_LIBRARY_DIR={} holds no libverify.so",
                    dir.display()
                );
                return dir;
            }
            let dir = profile_dir().join("deps");
            cargo_build(&["-p", "verify", "--lib"]);
            assert!(
                dir.join("libverify.so").is_file(),
                "{} not found after `cargo build -p verify`",
                dir.join("libverify.so").display()
            );
            dir
        })
        .clone()
}

/// `target/<profile>`: the folder of this test binary's profile (the binary is
/// `target/<profile>/deps/NAME-HASH`).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent()
        .and_then(std::path::Path::parent)
        .expect("the test binary lives in target/<profile>/deps")
        .to_path_buf()
}

/// Runs `cargo build ARGS` with this test binary's profile (`--release` for release); panics
/// with cargo's output when it fails.
pub fn cargo_build(args: &[&str]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut build = Command::new(cargo);
    // Without the variables of `cargo test`, which would make cargo rebuild ring and all
    // above it on every run.
    without_test_env(&mut build)
        .arg("build")
        .args(args)
        .current_dir(root());
    if profile_dir().file_name().and_then(|n| n.to_str()) == Some("release") {
        build.arg("--release");
    }
    let output = build.output().expect("cargo build runs");
    assert!(
        output.status.success(),
        "cargo build {} failed:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A command for a host program (or valgrind, mono running one) whose library search path
/// names only the library under test: `cargo test` puts `target/<profile>` on
/// `LD_LIBRARY_PATH`, and that wins over a program's rpath, though the copy there may be
/// older than this build (or absent). The offline store's second place for its time mark
/// is a temporary folder of this test process, never the user's configuration folder.
pub fn host_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    command.env("LD_LIBRARY_PATH", library_dir());
    command.env(
        "VERIFY_CLOCK_MARK_FOLDER",
        std::env::temp_dir().join(format!("verify-clock-mark-{}", std::process::id())),
    );
    command
}

/// Fails with a message naming the install script when `tool` cannot run; `package` is the
/// argument of `scripts/install-deps.sh` that installs it.
pub fn require_tool(tool: &str, package: &str) {
    let runs = Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        runs,
        "`{tool}` is not installed (or does not run): install it with \
         `scripts/install-deps.sh {package}`, then run the test again"
    );
}

pub fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A scratch directory, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new() -> Scratch {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!("verify-host-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `sandbox/fixtures/demo.json` with every `app_id` replaced by `app_id`; returns it with the
/// program's `app_key`.
pub fn demo_fixtures(app_id: &str) -> (serde_json::Value, String) {
    let path = root().join("sandbox/fixtures/demo.json");
    let raw =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut doc: serde_json::Value = serde_json::from_str(&raw).expect("demo.json is JSON");
    let programs = doc["programs"].as_array().expect("demo.json has programs");
    assert_eq!(programs.len(), 1, "demo.json holds the demo's one program");
    let app_key = programs[0]["app_key"]
        .as_str()
        .expect("program app_key")
        .to_owned();
    for list in ["programs", "cards", "accounts"] {
        if let Some(items) = doc[list].as_array_mut() {
            for item in items {
                item["app_id"] = serde_json::Value::from(app_id);
            }
        }
    }
    (doc, app_key)
}

/// A sandbox of its own loaded with `sandbox/fixtures/demo.json` under a fresh program id
/// (demo runs consume its cards); returns it with the program's id and key.
pub fn demo_sandbox() -> (Sandbox, String, String) {
    demo_sandbox_with(Config::default())
}

/// [`demo_sandbox`] started with `config` (e.g. serving https too).
pub fn demo_sandbox_with(config: Config) -> (Sandbox, String, String) {
    let app_id = super::unique("demo");
    let (fixtures, app_key) = demo_fixtures(&app_id);
    let sandbox = Sandbox::start(config).expect("start the sandbox");
    sandbox
        .load(Fixtures::from_value(fixtures).expect("demo.json parses as fixtures"))
        .expect("load demo.json");
    (sandbox, app_id, app_key)
}

/// Runs a command to completion, panicking with its output when it fails.
pub fn run_ok(command: &mut Command, what: &str) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    stdout
}

/// The value part of the first output line whose label (after trimming) is `label`.
pub fn line_of<'a>(stdout: &'a str, label: &str) -> Option<&'a str> {
    stdout
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with(label))
}

/// The steps of `examples-c/demo.c`, as its output names them (each must get 200).
pub const DEMO_STEPS: &[&str] = &[
    "verify_client_new",
    "verify_init",
    "verify_single_login",
    "verify_heartbeat(VERIFY_SESSION_CARD)",
    "verify_user_register",
    "verify_user_login(machine A)",
    "verify_heartbeat(VERIFY_SESSION_USER)",
    "verify_user_recharge",
    "verify_change_bind",
    "verify_user_login(machine B)",
    "verify_get_bulletin",
    "verify_get_latest_version",
    "verify_get_variables",
];

/// Checks the output of a demo run against the demo fixtures (demo.c and Demo.cs print the
/// same format): every step in `steps` got 200 and the demo passed, the recharge added the
/// 7-day card, one rebind, the last login on machine B, no AppKey, tokens shortened.
pub fn assert_demo_output(stdout: &str, steps: &[&str], app_key: &str, report: &str) {
    for step in steps {
        let expected = format!("[{step}] code 200 (");
        assert!(
            stdout.contains(&expected),
            "no `{expected}` in the demo's output\n{report}"
        );
    }
    let passed = format!("PASSED: all {} steps got their expected code", steps.len());
    assert!(
        stdout.contains(&passed),
        "the demo did not pass every step\n{report}"
    );
    let added = line_of(stdout, "added_days").unwrap_or_default();
    assert!(
        added.contains("\"7天\""),
        "recharge with the 7-day card: `{added}`\n{report}"
    );
    let bind_count = line_of(stdout, "bind_count").unwrap_or_default();
    assert!(
        bind_count.ends_with(" 1"),
        "one rebind: `{bind_count}`\n{report}"
    );
    let device = stdout
        .lines()
        .map(str::trim)
        .rfind(|l| l.starts_with("device_id"));
    assert_eq!(
        device.map(|l| l.ends_with("\"DEMO-MACHINE-B-0002\"")),
        Some(true),
        "the last login is on machine B\n{report}"
    );
    assert!(
        !stdout.contains(app_key),
        "the demo printed the AppKey\n{report}"
    );
    let token = line_of(stdout, "token").unwrap_or_default();
    assert!(
        token.ends_with("\u{2026}(40 chars)"),
        "token shown shortened: `{token}`\n{report}"
    );
}

/// The flags of every C++ compilation of the binding (the contract of verify.hpp).
pub const CXX_FLAGS: &[&str] = &["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"];

/// Stricter warnings a host may well use; verify.hpp compiles clean under them too.
pub const CXX_STRICT_FLAGS: &[&str] = &[
    "-Wshadow",
    "-Wconversion",
    "-Wsign-conversion",
    "-Wold-style-cast",
    "-Wnon-virtual-dtor",
];

/// Compiles and links the C++ `source` against the library under test into `output`, with
/// [`CXX_FLAGS`] and `extra`; panics with the compiler's output on failure. `$CXX` or `c++`.
pub fn compile_cxx(source: &std::path::Path, output: &std::path::Path, extra: &[&str]) {
    let lib = library_dir();
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    let result = Command::new(&cxx)
        .args(CXX_FLAGS)
        .args(extra)
        .arg("-I")
        .arg(root().join("include"))
        .arg(source)
        .arg("-L")
        .arg(&lib)
        .arg("-lverify")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(output)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C++ compiler `{cxx}`: {e}"));
    let (stdout, stderr) = text(&result);
    assert!(
        result.status.success(),
        "compiling {} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        source.display(),
        result.status
    );
}

/// The flags of every C compilation of a host (the contract of verify.h).
pub const C_FLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];

/// What C hosts that use POSIX threads and clocks add to [`C_FLAGS`].
pub const C_POSIX_FLAGS: &[&str] = &["-D_POSIX_C_SOURCE=200809L", "-pthread"];

/// The folder holding `verify.h` for C host compilations: `$VERIFY_INCLUDE_DIR` when set
/// (to try another copy of the header, such as a package's), else `include/`.
pub fn include_dir() -> PathBuf {
    std::env::var_os("VERIFY_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("include"))
}

/// Compiles and links the C `source` (C hosts include `host.h` from their own folder) against
/// the library under test into `output`, with [`C_FLAGS`] and `extra`; panics with the
/// compiler's output on failure. `$CC` or `cc`.
pub fn compile_c(source: &std::path::Path, output: &std::path::Path, extra: &[&str]) {
    let lib = library_dir();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let result = Command::new(&cc)
        .args(C_FLAGS)
        .args(extra)
        .arg("-I")
        .arg(include_dir())
        .arg(source)
        .arg("-L")
        .arg(&lib)
        .arg("-lverify")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(output)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    let (stdout, stderr) = text(&result);
    assert!(
        result.status.success(),
        "compiling {} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        source.display(),
        result.status
    );
}

/// What C hosts built for AddressSanitizer and UndefinedBehaviorSanitizer add to [`C_FLAGS`]
/// (gcc and clang): any finding ends the host with a non-zero status.
pub const SANITIZER_FLAGS: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-g",
];

/// The arguments of valgrind for every C host: memcheck, full leak check, and exit code 99
/// on any error or definite or indirect leak.
pub const VALGRIND_ARGS: &[&str] = &[
    "--error-exitcode=99",
    "--leak-check=full",
    "--errors-for-leak-kinds=definite,indirect",
    "--show-leak-kinds=definite,indirect",
];

/// How much slower than native a host runs under valgrind, for its time limits
/// (`VERIFY_HOST_SLACK` of tests/hosts/host.h).
pub const VALGRIND_SLACK: u32 = 25;

/// Fails unless valgrind's report (its stderr) shows no error and no definite or indirect
/// leak.
pub fn assert_valgrind_clean(stderr: &str, report: &str) {
    assert!(
        stderr.contains("ERROR SUMMARY: 0 errors"),
        "valgrind reported errors\n{report}"
    );
    let no_leaks = stderr.contains("All heap blocks were freed")
        || (stderr.contains("definitely lost: 0 bytes in 0 blocks")
            && stderr.contains("indirectly lost: 0 bytes in 0 blocks"));
    assert!(
        no_leaks,
        "valgrind reported definite or indirect leaks\n{report}"
    );
}

/// How a C host runs: natively, or under valgrind (slower: its time limits are relaxed).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Run {
    Native,
    Valgrind,
}

/// What a host run printed, and how it ended.
pub struct HostOutput {
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl HostOutput {
    /// The whole output, for assertion messages.
    pub fn report(&self) -> String {
        format!(
            "--- host stdout ---\n{}\n--- host stderr ---\n{}",
            self.stdout, self.stderr
        )
    }

    /// Fails unless the host passed every check (tests/hosts/host.h: exit 0 and a RESULT line
    /// with 0 failed), and, under valgrind, valgrind found nothing.
    pub fn assert_passed(&self, run: Run) {
        let report = self.report();
        assert!(
            self.stdout.contains("RESULT: ") && self.stdout.contains(" checks, 0 failed"),
            "the host did not pass every check ({})\n{report}",
            self.status
        );
        assert!(
            self.status.success(),
            "the host exited with {} (99: valgrind found errors or leaks)\n{report}",
            self.status
        );
        if run == Run::Valgrind {
            assert_valgrind_clean(&self.stderr, &report);
        }
    }
}

/// Runs the host `program` with `args` (natively or under valgrind), feeding its requests:
/// every stdout line goes to `on_line` as it comes; a line `@@ WORDS` must be answered (the
/// host waits), so `on_line` returns the answer line (`Some("go")` once the sandbox is
/// changed); other lines may be answered with `None`. Returns when the host exits.
pub fn run_host(
    program: &std::path::Path,
    args: &[String],
    run: Run,
    on_line: impl FnMut(&str) -> Option<String>,
) -> HostOutput {
    let mut command = match run {
        Run::Native => host_command(program),
        Run::Valgrind => {
            let mut command = host_command("valgrind");
            command.args(VALGRIND_ARGS).arg(program);
            command.env("VERIFY_HOST_SLACK", VALGRIND_SLACK.to_string());
            command
        }
    };
    command.args(args).current_dir(root());
    run_host_command(command, on_line)
}

/// [`run_host`] for a command made elsewhere (its program, arguments, environment and folder
/// set): a program run by Mono or Wine, or with another library path. The host's requests
/// (`@@ WORDS` lines) go to `on_line` as [`run_host`] says.
pub fn run_host_command(
    mut command: Command,
    mut on_line: impl FnMut(&str) -> Option<String>,
) -> HostOutput {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::Stdio;

    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", command.get_program()));
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut seen = String::new();
    let mut reader = BufReader::new(stdout);
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match reader.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // Hosts print what they were given, invalid UTF-8 included.
        let text = String::from_utf8_lossy(&bytes);
        let line = text.trim_end_matches(['\n', '\r']);
        seen.push_str(line);
        seen.push('\n');
        let answer = on_line(line);
        if line.starts_with("@@ ") {
            let answer = answer.unwrap_or_else(|| panic!("no answer to the host's `{line}`"));
            if writeln!(stdin, "{answer}")
                .and_then(|()| stdin.flush())
                .is_err()
            {
                break;
            }
        }
    }
    drop(stdin);
    let status = child.wait().expect("wait for the host");
    HostOutput {
        status,
        stdout: seen,
        stderr: stderr_reader.join().unwrap_or_default(),
    }
}

/// Compiles the C host `tests/hosts/<name>.c` into `scratch` (with `extra` flags); returns
/// the program's path.
pub fn build_host(name: &str, scratch: &Scratch, extra: &[&str]) -> PathBuf {
    build_host_from(
        &root().join("tests/hosts").join(format!("{name}.c")),
        scratch,
        extra,
    )
}

/// Compiles the C file `source` into `scratch` (with `extra` flags), named after it; returns
/// the program's path.
pub fn build_host_from(source: &std::path::Path, scratch: &Scratch, extra: &[&str]) -> PathBuf {
    require_tool("cc", "gcc");
    let name = source.file_stem().expect("a C file name");
    let program = scratch.0.join(name);
    compile_c(source, &program, extra);
    program
}

/// `text` without its C comments (`/* */` and `//`) and preprocessor lines.
fn without_c_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start + 2..]
            .split_once("*/")
            .map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .filter(|line| !line.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every function declared in `include/verify.h`: its name and its declaration on one line
/// (comments and preprocessor lines removed, whitespace collapsed). Function pointer types
/// and structs are not functions.
pub fn header_functions() -> Vec<(String, String)> {
    let header = std::fs::read_to_string(root().join("include/verify.h")).expect("verify.h");
    let flat = without_c_comments(&header)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    flat.split([';', '{', '}'])
        .filter_map(|declaration| {
            let declaration = declaration.trim();
            if declaration.starts_with("typedef") {
                return None;
            }
            let open = declaration.find('(')?;
            let name = declaration[..open].split_whitespace().last()?;
            let name = name.trim_start_matches('*');
            (name.starts_with("verify_")
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .then(|| (name.to_owned(), declaration.to_owned()))
        })
        .collect()
}

/// The LeakSanitizer suppressions of the hosts built with [`SANITIZER_FLAGS`]
/// (`tests/sanitizers/lsan.supp`: each entry says why it is not a leak).
pub fn lsan_suppressions() -> PathBuf {
    root().join("tests/sanitizers/lsan.supp")
}

/// How much slower than native a host built with [`SANITIZER_FLAGS`] runs, for its time
/// limits (`VERIFY_HOST_SLACK` of tests/hosts/host.h).
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

/// Fails unless a host run by [`run_sanitized_host`] passed every check (tests/hosts/host.h)
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

/// The sanitizer flags of the hosts of tests/c_sanitizers.rs: [`SANITIZER_FLAGS`] (ASan
/// and UBSan), or [`TSAN_FLAGS`] when `VERIFY_C_SANITIZER=thread` (scripts/tsan.sh runs
/// those tests so, against an instrumented library).
pub fn host_sanitizer_flags() -> &'static [&'static str] {
    match std::env::var("VERIFY_C_SANITIZER").as_deref() {
        Ok("thread") => TSAN_FLAGS,
        _ => SANITIZER_FLAGS,
    }
}

/// Fails, naming `scripts/install-deps.sh mono`, unless both Mono tools run.
pub fn require_mono() {
    require_tool("mcs", "mono");
    require_tool("mono", "mono");
}

/// The C# binding as the NuGet package ships it: `scripts/build-csharp.sh` (`Verify.dll`, its
/// XML documentation and symbols, compiled with warnings as errors) into
/// `target/<profile>/csharp-assembly`, once per test binary; returns that folder.
pub fn csharp_assembly() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            require_mono();
            let dir = library_dir()
                .parent()
                .expect("target/<profile>")
                .join("csharp-assembly");
            run_ok(
                Command::new(root().join("scripts/build-csharp.sh"))
                    .arg("--out")
                    .arg(&dir)
                    .current_dir(root()),
                "scripts/build-csharp.sh",
            );
            dir
        })
        .clone()
}

/// Puts a copy of `from` at `to` without ever rewriting a file in place: a Mono process of
/// another test may have the old one mapped (rewriting it under its feet crashes it). Nothing
/// is done when `to` already holds the same bytes; otherwise the copy is made beside `to` and
/// renamed over it (the running process keeps the old file).
fn place(from: &std::path::Path, to: &std::path::Path) {
    let bytes = std::fs::read(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display()));
    if std::fs::read(to).is_ok_and(|old| old == bytes) {
        return;
    }
    let temporary = to.with_extension(super::unique("part"));
    std::fs::write(&temporary, &bytes)
        .unwrap_or_else(|e| panic!("write {}: {e}", temporary.display()));
    std::fs::rename(&temporary, to)
        .unwrap_or_else(|e| panic!("rename {} to {}: {e}", temporary.display(), to.display()));
}

/// The folder of the C# binding's sources (one type per file; `Generated/` and `Interop/`
/// below it), as [`compile_csharp`] takes it.
pub const CSHARP_BINDING: &str = "bindings/csharp/src";

/// Every `.cs` file of the C# binding, in name order (as `scripts/build-csharp.sh` lists them).
pub fn csharp_sources() -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|ext| ext == "cs") {
                out.push(path);
            }
        }
    }
    let mut sources = Vec::new();
    walk(&root().join(CSHARP_BINDING), &mut sources);
    sources.sort();
    sources
}

/// Compiles C# `sources` into the program `out` with `mcs -warnaserror`. The binding itself,
/// [`CSHARP_BINDING`] among the sources, is not compiled in: the program references the
/// packaged assembly ([`csharp_assembly`]), which is copied next to `out`, as a consumer of the
/// NuGet package builds.
pub fn compile_csharp(sources: &[PathBuf], out: &std::path::Path) {
    require_mono();
    let binding = PathBuf::from(CSHARP_BINDING);
    let mut args = vec!["-warnaserror".to_owned(), format!("-out:{}", out.display())];
    if sources.contains(&binding) {
        let assembly = csharp_assembly();
        let folder = out.parent().expect("the program's folder");
        for file in ["Verify.dll", "Verify.dll.mdb", "Verify.xml"] {
            place(&assembly.join(file), &folder.join(file));
        }
        args.push(format!("-r:{}", folder.join("Verify.dll").display()));
    }
    args.extend(
        sources
            .iter()
            .filter(|s| **s != binding)
            .map(|s| s.display().to_string()),
    );
    let output = Command::new("mcs")
        .args(&args)
        .current_dir(root())
        .output()
        .expect("run mcs");
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "`mcs {}` failed ({}):\n{stdout}{stderr}",
        args.join(" "),
        output.status
    );
}

/// Runs `mono --debug exe args...` to completion with the library under test on
/// `LD_LIBRARY_PATH`.
pub fn run_mono<S: AsRef<std::ffi::OsStr>>(exe: &std::path::Path, args: &[S]) -> Output {
    host_command("mono")
        .arg("--debug") // line numbers in stack traces
        .arg(exe)
        .args(args)
        .current_dir(root())
        .output()
        .expect("run mono")
}

/// The card of the program of [`HttpsCases`], for the login over https with the custom CA.
pub const HTTPS_CARD: &str = "HTTP-SCAS-0000-0001";

/// The six https cases for a host program (C++, C#), against sandboxes of their
/// own: one serving a chain for 127.0.0.1 signed by a CA of its own, one for another name,
/// one expired. Its [`args`](HttpsCases::args) are the host's command line:
///
/// `GOOD_URL WRONG_NAME_URL EXPIRED_URL APP_ID APP_KEY CA_FILE WRONG_NAME_CA_FILE
/// EXPIRED_CA_FILE PIN WRONG_PIN CARD`
///
/// The host prints one line `case NAME CODE TEXT` per case (TEXT: `token N` for the login's
/// token length, else the exception's message), checked by [`assert_https_cases`].
pub struct HttpsCases {
    pub args: Vec<String>,
    pub scratch: Scratch,
    _sandboxes: Vec<Sandbox>,
}

impl HttpsCases {
    pub fn start() -> HttpsCases {
        use super::tls::{certs, pin_of};
        let app_id = super::unique("https");
        let scratch = Scratch::new();
        let good = certs(&["127.0.0.1"], (2020, 2090), false);
        let wrong_name = certs(&["other.example"], (2020, 2090), false);
        let expired = certs(&["127.0.0.1"], (2001, 2002), false);
        let mut urls = Vec::new();
        let mut ca_files = Vec::new();
        let mut sandboxes = Vec::new();
        for (name, certs) in [
            ("good", &good),
            ("wrong_name", &wrong_name),
            ("expired", &expired),
        ] {
            let sandbox = Sandbox::start(Config {
                tls: Some(verify_sandbox::Tls::Pem {
                    cert_chain: certs.chain_pem.clone(),
                    key: certs.key_pem.clone(),
                }),
                ..Config::default()
            })
            .expect("https sandbox");
            sandbox
                .load(
                    Fixtures::from_value(serde_json::json!({
                        "programs": [{"app_id": app_id, "app_key": super::APP_KEY,
                            "status": "approved"}],
                        "cards": [{"app_id": app_id, "card": HTTPS_CARD, "kind": "duration",
                            "duration": 30}]
                    }))
                    .expect("fixtures"),
                )
                .expect("load the program");
            urls.push(sandbox.https_base_url().expect("https listener"));
            let ca_file = scratch.0.join(format!("{name}-ca.pem"));
            std::fs::write(&ca_file, &certs.ca_pem).expect("write a CA file");
            ca_files.push(ca_file.display().to_string());
            sandboxes.push(sandbox);
        }
        let wrong_pin = pin_of(&rcgen::KeyPair::generate().expect("another key"));
        assert_ne!(wrong_pin, good.leaf_pin);
        let mut args = urls;
        args.push(app_id);
        args.push(super::APP_KEY.to_owned());
        args.extend(ca_files);
        args.push(good.leaf_pin.clone());
        args.push(wrong_pin);
        args.push(HTTPS_CARD.to_owned());
        HttpsCases {
            args,
            scratch,
            _sandboxes: sandboxes,
        }
    }
}

/// `VERIFY_ERR_TLS` and `VERIFY_ERR_PIN` of verify.h.
const ERR_TLS: i32 = -5;
const ERR_PIN: i32 = -11;

/// Fails unless a host's output (see [`HttpsCases`]) shows each case with its exact code:
/// the custom CA logs in (a 40-character token); Mozilla's roots alone fail with TLS
/// "unknown issuer"; the right pin without a CA succeeds; a wrong pin fails with the pin
/// code; another name and an expired certificate fail with TLS and their causes.
pub fn assert_https_cases(stdout: &str, report: &str) {
    let header = std::fs::read_to_string(root().join("include/verify.h")).expect("verify.h");
    for define in [
        format!("#define VERIFY_ERR_TLS {ERR_TLS}\n"),
        format!("#define VERIFY_ERR_PIN {ERR_PIN}\n"),
    ] {
        assert!(header.contains(&define), "verify.h has no `{define}`");
    }
    let expected: [(&str, i32, &str); 6] = [
        ("custom_ca", 200, "token 40"),
        ("mozilla_only", ERR_TLS, "unknown issuer"),
        ("pin", 200, ""),
        ("wrong_pin", ERR_PIN, ""),
        ("wrong_name", ERR_TLS, "not valid for this host name"),
        ("expired", ERR_TLS, "expired"),
    ];
    for (name, code, cause) in expected {
        let prefix = format!("case {name} ");
        let lines: Vec<&str> = stdout
            .lines()
            .filter_map(|line| line.strip_prefix(&prefix))
            .collect();
        assert_eq!(lines.len(), 1, "one `{prefix}...` line\n{report}");
        let (got, text) = lines[0].split_once(' ').unwrap_or((lines[0], ""));
        assert_eq!(
            got.parse::<i32>().ok(),
            Some(code),
            "case {name}: code `{got}` ({text}), expected {code}\n{report}"
        );
        assert!(
            text.contains(cause),
            "case {name}: `{text}` does not say `{cause}`\n{report}"
        );
    }
}

/// The sandbox side of the typed program (`tests/hosts/cpp_typed.cpp`,
/// `bindings/nuget/consumer/Consumer.cs`): a fresh program with a 30-day card and the account
/// `typed-user` / `typed-pass` expiring 2099-03-04 05:06:07 (UTC+08:00); it answers the
/// program's `@@ ban REASON` by banning the card, and checks what the program printed.
pub struct IssueProgram {
    pub program: super::Program<'static>,
    pub card: String,
}

impl IssueProgram {
    /// The fixtures, with the card `card`.
    pub fn new(card: &str) -> IssueProgram {
        let program = super::Program::fresh();
        let card = program.day_card(card, 30);
        program.accounts(
            serde_json::json!([{"username": "typed-user", "password": "typed-pass",
            "expire_at": "2099-03-04 05:06:07", "status": "active"}]),
        );
        IssueProgram { program, card }
    }

    /// The program's arguments: BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD.
    pub fn args(&self) -> Vec<String> {
        vec![
            self.program.sandbox.base_url(),
            self.program.app_id.clone(),
            super::APP_KEY.to_owned(),
            self.card.clone(),
            "typed-user".to_owned(),
            "typed-pass".to_owned(),
        ]
    }

    /// The answer to one line of the program (for [`run_host`]): "go" once the card is banned.
    pub fn answer(&self, line: &str) -> Option<String> {
        let reason = line.strip_prefix("@@ ban ")?;
        self.program
            .sandbox
            .update_card(&self.program.app_id, &self.card, "disable", Some(reason))
            .expect("ban the card");
        Some("go".to_owned())
    }

    /// Checks what the program printed: every check held; the card's expiry (the sandbox's
    /// text) as the same text and as its Unix seconds read from UTC+08:00; the account's
    /// expiry; the codes of the wrong password, the bad card and the wrong AppKey (a
    /// configuration refusal); the keeper's end on the ban with its reason.
    pub fn assert_output(&self, output: &HostOutput, report: &str) {
        let stdout = &output.stdout;
        assert!(
            output.status.success() && stdout.contains(" checks, 0 failed"),
            "the program failed\n{report}"
        );
        let card_expire_at = self
            .program
            .client()
            .get_card_info(&self.card)
            .expect("card info from Rust")
            .expire_at()
            .expect("the card's expire_at")
            .to_owned();
        let seconds = verify_core::offline::service_time(&card_expire_at).expect("a service time");
        // 2099-03-04 05:06:07 in UTC+08:00 is 2099-03-03 21:06:07 UTC.
        let account = verify_core::offline::service_time("2099-03-04 05:06:07").expect("a time");
        assert_eq!(account, 4_076_255_167, "2099-03-03T21:06:07Z");
        for line in [
            format!("card expire_at {card_expire_at} {seconds}"),
            format!("account expire_at 2099-03-04 05:06:07 {account}"),
            "wrong password 1003".to_owned(),
            "bad card 1004".to_owned(),
            "wrong key 1011 configuration".to_owned(),
            "keeper ended 1006 cheating detected".to_owned(),
        ] {
            assert!(
                stdout.lines().any(|l| l.trim_end().starts_with(&line)),
                "no line `{line}`\n{report}"
            );
        }
    }
}
