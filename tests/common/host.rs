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

/// The directory of the library built with this test run: `target/<profile>/deps`, where
/// `cargo test` always writes a fresh `libverify.so` and `libverify.a` (it refreshes the
/// copies in `target/<profile>` only on `cargo build`).
pub fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let dir = exe
        .parent()
        .expect("the test binary lives in target/<profile>/deps")
        .to_path_buf();
    assert!(
        dir.join("libverify.so").is_file(),
        "{} not found: `cargo test` builds the cdylib next to the test binaries",
        dir.join("libverify.so").display()
    );
    dir
}

/// A command for a host program (or valgrind, mono running one) whose library search path
/// names only the library under test: `cargo test` puts `target/<profile>` on
/// `LD_LIBRARY_PATH`, and that wins over a program's rpath, though the copy there may be
/// older than this build (or absent).
pub fn host_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    command.env("LD_LIBRARY_PATH", library_dir());
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
    let app_id = super::unique("demo");
    let (fixtures, app_key) = demo_fixtures(&app_id);
    let sandbox = Sandbox::start(Config::default()).expect("start the sandbox");
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
