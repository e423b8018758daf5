//! Where the repository, the target and the library under test are, the tools a test needs
//! (or the install script that gives them), running scripts and commands, and scratch
//! directories.

use super::*;

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
/// older than this build (or absent). The user's configuration folder
/// (`XDG_CONFIG_HOME`, where the offline store keeps the second place of its time mark) is a
/// temporary folder of this test process, never the user's.
pub fn host_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    command.env("LD_LIBRARY_PATH", library_dir());
    command.env("XDG_CONFIG_HOME", test_config_home());
    command
}

/// The configuration folder (`XDG_CONFIG_HOME`) of the host programs of this test process.
pub fn test_config_home() -> PathBuf {
    std::env::temp_dir().join(format!("verify-config-{}", std::process::id()))
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
