//! The Wine harness: the DLL folders and prefixes `scripts/build-windows.sh --wine` made,
//! programs compiled with MinGW for x64 or x86, and run under Wine with a time limit.

use super::*;

/// Says something in the test's output even when the test passes (libtest captures
/// `println!`, not direct writes).
pub(crate) fn notice(message: &str) {
    let _ = writeln!(std::io::stderr(), "windows: {message}");
}

pub(crate) fn windows() -> &'static Windows {
    static WINDOWS: OnceLock<Windows> = OnceLock::new();
    WINDOWS.get_or_init(|| {
        run_script("build-windows.sh", &["--wine"]);
        let out = target_dir().join("windows");
        let wine64 = ["/usr/lib/wine/wine64", "/usr/bin/wine64"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
            .expect("Wine's 64-bit loader (scripts/install-deps.sh wine)");
        let wine32_root = PathBuf::from(run_script("wine32.sh", &["root"]).trim());
        assert!(
            wine32_root.join(".verify-wine32").is_file(),
            "no 32-bit Wine at {} (scripts/build-windows.sh --wine makes it with \
             scripts/wine32.sh setup)",
            wine32_root.display()
        );
        let prefix = wine_prefix(&out.join("wine"), &wine64);
        remove_old_program_dirs(Path::new(env!("CARGO_TARGET_TMPDIR")));
        remove_old_program_dirs(&wine32_root.join("tmp"));
        Windows {
            out,
            prefix,
            wine32_root,
            wine64,
        }
    })
}

/// The Wine environment: the prefix, no debug output, no Mono or Gecko installers, no X.
pub(crate) fn wine_env(command: &mut Command, prefix: &Path) {
    command
        .env("WINEPREFIX", prefix)
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
}

/// How a command of Wine's 64-bit loader is made for a prefix: the program and its arguments.
pub(crate) type WineIn<'a> = &'a dyn Fn(&Path, &[&str]) -> Command;

/// `dir/prefix`, the 64-bit prefix of the tests ([`make_prefix`]).
pub(crate) fn wine_prefix(dir: &Path, wine64: &Path) -> PathBuf {
    let wine = |prefix: &Path, args: &[&str]| {
        let mut command = Command::new(wine64);
        command.args(args);
        wine_env(&mut command, prefix);
        command
    };
    make_prefix(dir, "prefix", wine64, &wine)
}

/// `dir/name`, a 64-bit Wine prefix made with `wineboot --init` the first time (each command
/// made by `wine`), then reused, in Windows 7 mode ([`windows_7_mode`]). It is made under
/// another name and renamed into place, so that two test runs never share a half-made one.
pub(crate) fn make_prefix(dir: &Path, name: &str, wine64: &Path, wine: WineIn<'_>) -> PathBuf {
    fs::create_dir_all(dir).expect("create target/windows/wine");
    let prefix = dir.join(name);
    if prefix.join("system.reg").is_file() {
        windows_7_mode(wine, &prefix);
        return prefix;
    }
    let making = dir.join(format!("{name}.making-{}", std::process::id()));
    let _ = fs::remove_dir_all(&making);
    let started = Instant::now();
    let output = wine(&making, &["wineboot", "--init"])
        .output()
        .expect("run wineboot");
    assert!(
        output.status.success(),
        "wineboot --init failed\n{}",
        show(&output)
    );
    windows_7_mode(wine, &making);
    // Wait for the prefix's wineserver to write the registry and exit.
    let server = wine64.with_file_name("wineserver");
    let mut wait = Command::new(if server.is_file() {
        server
    } else {
        PathBuf::from("wineserver")
    });
    wait.arg("-w");
    wine_env(&mut wait, &making);
    let _ = wait.status();
    if prefix.exists() && !prefix.join("system.reg").is_file() {
        let _ = fs::remove_dir_all(&prefix); // left half-made by an interrupted run
    }
    if fs::rename(&making, &prefix).is_err() {
        let _ = fs::remove_dir_all(&making); // another run made it first
    }
    assert!(
        prefix.join("system.reg").is_file(),
        "no Wine prefix at {}",
        prefix.display()
    );
    notice(&format!(
        "made the Wine prefix {} in {:.1} s",
        prefix.display(),
        started.elapsed().as_secs_f64()
    ));
    prefix
}

/// The Windows version Wine plays in a prefix (`HKCU\Software\Wine`, value `Version`), as
/// `reg query` prints it: `win7` in the prefixes of these tests.
pub(crate) fn windows_version(mut reg: Command) -> String {
    reg.args(["query", r"HKCU\Software\Wine", "/v", "Version"]);
    let output = reg.output().expect("run Wine's reg");
    text(&output)
        .0
        .lines()
        .find_map(|line| {
            let mut fields = line.split_whitespace();
            (fields.next() == Some("Version") && fields.next() == Some("REG_SZ"))
                .then(|| fields.next().unwrap_or_default().to_owned())
        })
        .unwrap_or_default()
}

/// Puts a 64-bit prefix in Windows 7 mode (`winecfg -v win7` does the same), unless it is
/// already: the DLLs are built for Windows 7 SP1 and later, and every program of these tests
/// runs as on Windows 7. The i386 chroot's prefix is set by `scripts/wine32.sh setup`.
fn windows_7_mode(wine: WineIn<'_>, prefix: &Path) {
    if windows_version(wine(prefix, &["reg"])) == "win7" {
        return;
    }
    let key = r"HKCU\Software\Wine";
    let output = wine(
        prefix,
        &["reg", "add", key, "/v", "Version", "/d", "win7", "/f"],
    )
    .output()
    .expect("run Wine's reg");
    assert!(
        output.status.success() && windows_version(wine(prefix, &["reg"])) == "win7",
        "the Wine prefix {} is not in Windows 7 mode\n{}",
        prefix.display(),
        show(&output)
    );
}

/// Removes the program folders of earlier test processes that have ended (each process
/// keeps its own, `<target>/tmp/windows-<pid>/` and, for x86, `<chroot>/tmp/windows-<pid>/`,
/// for inspection while it runs).
pub(crate) fn remove_old_program_dirs(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("windows-") else {
            continue;
        };
        let ended = pid.parse::<u32>().is_ok_and(|pid| {
            pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
        });
        if ended {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// A folder of this test process for `arch`: the programs and a copy of the DLL under test.
/// x86 programs run in the chroot of 32-bit Wine: their folder is inside it.
pub(crate) fn program_dir(arch: Arch) -> &'static Path {
    static X64: OnceLock<PathBuf> = OnceLock::new();
    static X86: OnceLock<PathBuf> = OnceLock::new();
    let cell = match arch {
        Arch::X64 => &X64,
        Arch::X86 => &X86,
    };
    cell.get_or_init(|| {
        let win = windows();
        let parent = match arch {
            Arch::X64 => PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
            Arch::X86 => win.wine32_root.join("tmp"),
        };
        let dir = parent
            .join(format!("windows-{}", std::process::id()))
            .join(arch.name());
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the program folder");
        fs::copy(
            win.out.join(arch.name()).join("verify.dll"),
            dir.join("verify.dll"),
        )
        .expect("copy verify.dll");
        dir
    })
}

/// Compiles a C (`.c`) or C++ (`.cpp`) source into `name.exe` for `arch` against the
/// import library of `target/windows/<arch>/`, warnings as errors; C++ links its runtime
/// statically so that the program needs no mingw DLL. A host's own headers (`win_host.h`,
/// `cpp_result.hpp`) sit beside it and are found by their quoted includes.
pub(crate) fn compile(arch: Arch, source: &Path, name: &str) -> PathBuf {
    compile_with(arch, source, name, &[])
}

/// [`compile`] with more flags (after the contract's, so `-std=c++23` wins).
pub(crate) fn compile_with(arch: Arch, source: &Path, name: &str, extra: &[&str]) -> PathBuf {
    compile_linked(arch, source, name, extra, &[])
}

/// [`compile_with`], linked with the system libraries `libs` too (`-lcrypt32`), after the
/// source.
pub(crate) fn compile_linked(
    arch: Arch,
    source: &Path,
    name: &str,
    extra: &[&str],
    libs: &[&str],
) -> PathBuf {
    let dir = program_dir(arch);
    let exe = dir.join(format!("{name}.exe"));
    let cpp = source.extension().is_some_and(|e| e == "cpp");
    let mut command = Command::new(arch.tool(if cpp { "g++" } else { "gcc" }));
    if cpp {
        command.args(common::host::CXX_FLAGS);
    } else {
        command.args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]);
    }
    command.args(extra);
    command
        .arg("-I")
        .arg(root().join("include"))
        .arg(source)
        .arg("-L")
        .arg(windows().out.join(arch.name()))
        .arg("-l:libverify.dll.a")
        .args(libs)
        .args(arch.link_flags())
        .arg("-static")
        .arg("-o")
        .arg(&exe);
    let output = command.output().expect("run the mingw compiler");
    assert!(
        output.status.success(),
        "{arch:?}: compiling {} failed\n{}",
        source.display(),
        show(&output)
    );
    exe
}

/// A C source compiled the way a program without a C runtime is (an MSVC-built caller's
/// stand-in): `-ffreestanding`, no unwind tables, warnings as errors, with `defines`, into
/// the object `object`.
pub(crate) fn compile_freestanding(arch: Arch, source: &Path, object: &Path, defines: &[&str]) {
    let output = Command::new(arch.tool("gcc"))
        .args([
            "-c",
            "-O2",
            "-ffreestanding",
            "-fno-asynchronous-unwind-tables",
        ])
        .args(["-Wall", "-Wextra", "-Werror"])
        .args(defines)
        .arg("-I")
        .arg(root().join("include"))
        .arg(source)
        .arg("-o")
        .arg(object)
        .output()
        .expect("run the mingw compiler");
    assert!(
        output.status.success(),
        "{arch:?}: compiling {}\n{}",
        source.display(),
        show(&output)
    );
}

/// Links `object` the MSVC way: Rust's lld-link, entry point `start`, no default libraries,
/// against `target/windows/<arch>/verify.lib` and `libs`, into `exe`.
pub(crate) fn lld_link(arch: Arch, object: &Path, exe: &Path, libs: &[PathBuf]) {
    let machine = if arch == Arch::X64 { "x64" } else { "x86" };
    let output = Command::new(rust_tool("rust-lld"))
        .args(["-flavor", "link", "/nologo", "/entry:start"])
        .args(["/subsystem:console", "/nodefaultlib", "/safeseh:no"])
        .arg(format!("/machine:{machine}"))
        .arg(object)
        .arg(windows().out.join(arch.name()).join("verify.lib"))
        .args(libs)
        .arg(format!("/out:{}", exe.display()))
        .output()
        .expect("run rust-lld");
    assert!(
        output.status.success(),
        "{arch:?}: lld-link of {} with verify.lib\n{}",
        exe.display(),
        show(&output)
    );
}

/// The Wine loader for `arch`.
pub(crate) fn loader(arch: Arch) -> Loader {
    match arch {
        Arch::X64 => Loader::Wine64(windows().wine64.clone()),
        Arch::X86 => Loader::Wine32,
    }
}

/// A command that runs `program` (a path, or a program of Wine's own such as `reg`) under
/// `loader`, in the loader's prefix.
pub(crate) fn wine_command(loader: &Loader, program: &std::ffi::OsStr) -> Command {
    match loader {
        Loader::Wine64(wine64) => {
            let mut command = Command::new(wine64);
            command.arg(program);
            wine_env(&mut command, &windows().prefix);
            command
        }
        Loader::Wine32 => {
            let mut command = Command::new(root().join("scripts/wine32.sh"));
            command.arg("exec").arg(program);
            command
        }
    }
}

/// Runs `exe` under Wine with `args`, killed after [`RUN_LIMIT`].
pub(crate) fn run(loader: &Loader, exe: &Path, args: &[&str]) -> Output {
    run_with(loader, exe, args, &[])
}

/// [`run`] with more environment variables (32-bit Wine passes on `LANG` and `LC_ALL`).
pub(crate) fn run_with(loader: &Loader, exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = wine_command(loader, exe.as_os_str());
    command
        .args(args)
        .current_dir(exe.parent().expect("the program folder"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("start Wine");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for Wine") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let status = child.wait().expect("reap Wine");
            let output = Output {
                status,
                stdout: out_reader.join().unwrap_or_default(),
                stderr: err_reader.join().unwrap_or_default(),
            };
            panic!(
                "{} did not finish within {RUN_LIMIT:?}\n{}",
                exe.display(),
                show(&output)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    }
}

/// Checks the output of a Windows host (`tests/platforms/windows/win_*.c`,
/// `tests/cpp/cpp_typed.cpp`): "RESULT: N checks, 0 failed", exit 0.
pub(crate) fn assert_host_passes(output: &Output, what: &str) -> String {
    let (stdout, _) = text(output);
    assert!(
        output.status.success() && stdout.contains(" checks, 0 failed"),
        "{what} failed under Wine\n{}",
        show(output)
    );
    stdout
}
