//! The Windows package and the NuGet package (`scripts/package-windows.sh`):
//!
//! - `dist/verify-<version>-windows/` has `windows-x64/` and `windows-x86/`, each with the
//!   DLL of its architecture (the PE machine field says so), the mingw and MSVC import
//!   libraries, the `.def` and the headers as in `include/`;
//! - the `.nupkg` (a zip) holds exactly `runtimes/win-x64/native/verify.dll`,
//!   `runtimes/win-x86/native/verify.dll`, `runtimes/linux-x64/native/libverify.so`,
//!   `runtimes/linux-arm64/native/libverify.so`, the C# binding as source
//!   (`contentFiles/cs/any/`, `content/`) and NuGet's own files, its nuspec names the
//!   crate's version, and each file is the one the build made (each Linux library an ELF
//!   file of its machine);
//! - `bindings/nuget/consumer/Consumer.cs`, compiled with `mcs` against the binding taken
//!   from the unpacked package, runs on Mono with only the package's `linux-x64/native` on
//!   the library path, loads `libverify.so` from there and gets 200 from the sandbox.
//!
//! The package is made from `target/windows/` (`scripts/build-windows.sh`, run first), the
//! `libverify.so` of this test run and the ARM64 one of `scripts/build-arm64.sh`. Needs `nuget`, `unzip` and Mono: the test installs
//! them with `scripts/install-deps.sh nuget unzip mono` when missing.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::host::{library_dir, root, run_ok, run_script, show, target_dir, text};

fn version() -> String {
    let manifest = fs::read_to_string(root().join("Cargo.toml")).expect("read Cargo.toml");
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("the package version")
        .to_owned()
}

/// The machine field of a PE file's COFF header: 0x8664 (x86-64) or 0x14c (i386).
fn pe_machine(file: &Path) -> u16 {
    let bytes = fs::read(file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
    assert_eq!(&bytes[..2], b"MZ", "{} is not a PE file", file.display());
    let at = u32::from_le_bytes(bytes[0x3c..0x40].try_into().unwrap()) as usize;
    assert_eq!(
        &bytes[at..at + 4],
        b"PE\0\0",
        "{}: no PE header",
        file.display()
    );
    u16::from_le_bytes([bytes[at + 4], bytes[at + 5]])
}

fn same_file(a: &Path, b: &Path) {
    let (x, y) = (fs::read(a), fs::read(b));
    assert!(
        matches!((&x, &y), (Ok(x), Ok(y)) if x == y),
        "{} differs from {}",
        a.display(),
        b.display()
    );
}

/// Every file under `dir`, as paths relative to it with `/`.
fn files_under(dir: &Path) -> BTreeSet<String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        for entry in fs::read_dir(dir).expect("read a folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).expect("under base");
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(common::unique("nuget"));
    fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

#[test]
fn windows_package_and_nuget_package_are_complete_and_load_on_mono() {
    run_ok(
        Command::new(root().join("scripts/install-deps.sh")).args(["nuget", "unzip", "mono"]),
        "scripts/install-deps.sh nuget unzip mono",
    );
    let target = target_dir();
    run_script("build-windows.sh", &[]);
    let arm64 = run_script("build-arm64.sh", &[]);
    let linux_arm64_lib = root()
        .join(
            arm64
                .lines()
                .last()
                .expect("build-arm64.sh prints its folder"),
        )
        .join("libverify.so");
    let out = scratch();
    let linux_lib = library_dir().join("libverify.so");
    let stdout = run_ok(
        Command::new(root().join("scripts/package-windows.sh"))
            .arg("--no-build")
            .arg("--out")
            .arg(&out)
            .arg("--linux-lib")
            .arg(&linux_lib)
            .arg("--linux-arm64-lib")
            .arg(&linux_arm64_lib)
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(root()),
        "scripts/package-windows.sh",
    );
    let version = version();
    let pkg = out.join(format!("verify-{version}-windows"));
    assert_eq!(
        stdout.lines().last().map(PathBuf::from),
        Some(pkg.clone()),
        "the script prints the package folder last"
    );

    // The folder: one part per architecture.
    let windows = target.join("windows");
    for (arch, machine) in [("x64", 0x8664u16), ("x86", 0x14c)] {
        let part = pkg.join(format!("windows-{arch}"));
        let dll = part.join("bin/verify.dll");
        assert_eq!(pe_machine(&dll), machine, "{arch}: verify.dll machine");
        same_file(&dll, &windows.join(arch).join("verify.dll"));
        for file in ["lib/libverify.dll.a", "lib/verify.def"] {
            assert!(part.join(file).is_file(), "{arch}: {file}");
        }
        same_file(
            &part.join("include/verify.h"),
            &root().join("include/verify.h"),
        );
        same_file(
            &part.join("include/verify.hpp"),
            &root().join("include/verify.hpp"),
        );
        let def = fs::read_to_string(part.join("lib/verify.def")).expect("verify.def");
        assert!(def.contains("LIBRARY verify.dll"), "{arch}: {def}");
    }
    for arch in ["x64", "x86"] {
        let lib = pkg.join(format!("windows-{arch}/lib/verify.lib"));
        assert!(lib.is_file(), "{arch}: MSVC import library");
    }
    same_file(
        &pkg.join("bindings/csharp/Verify.cs"),
        &root().join("bindings/csharp/Verify.cs"),
    );
    assert!(pkg.join("docs/windows.md").is_file(), "docs/windows.md");

    // The NuGet package: unpacked, exactly these files.
    let nupkg = pkg.join(format!("nuget/VerifySdk.{version}.nupkg"));
    let unpacked = out.join("unpacked");
    run_ok(
        Command::new("unzip")
            .arg("-q")
            .arg(&nupkg)
            .arg("-d")
            .arg(&unpacked),
        "unzip the .nupkg",
    );
    let files = files_under(&unpacked);
    let psmdcp: Vec<_> = files
        .iter()
        .filter(|f| f.starts_with("package/services/metadata/core-properties/"))
        .collect();
    assert_eq!(psmdcp.len(), 1, "NuGet's core properties: {files:?}");
    let expected: BTreeSet<String> = [
        "[Content_Types].xml",
        "_rels/.rels",
        "VerifySdk.nuspec",
        "runtimes/win-x64/native/verify.dll",
        "runtimes/win-x86/native/verify.dll",
        "runtimes/linux-x64/native/libverify.so",
        "runtimes/linux-arm64/native/libverify.so",
        "contentFiles/cs/any/Verify/Verify.cs",
        "content/Verify/Verify.cs",
        psmdcp[0].as_str(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(files, expected, "the .nupkg's files");
    let nuspec = fs::read_to_string(unpacked.join("VerifySdk.nuspec")).expect("nuspec");
    assert!(nuspec.contains("<id>VerifySdk</id>"), "{nuspec}");
    assert!(
        nuspec.contains(&format!("<version>{version}</version>")),
        "{nuspec}"
    );
    same_file(
        &unpacked.join("runtimes/win-x64/native/verify.dll"),
        &windows.join("x64/verify.dll"),
    );
    same_file(
        &unpacked.join("runtimes/win-x86/native/verify.dll"),
        &windows.join("x86/verify.dll"),
    );
    for source in [
        "contentFiles/cs/any/Verify/Verify.cs",
        "content/Verify/Verify.cs",
    ] {
        same_file(
            &unpacked.join(source),
            &root().join("bindings/csharp/Verify.cs"),
        );
    }
    // ELF, and e_machine (offset 18): x86-64 (62), AArch64 (183).
    for (rid, machine) in [("linux-x64", 62u16), ("linux-arm64", 183)] {
        let so = fs::read(unpacked.join(format!("runtimes/{rid}/native/libverify.so")))
            .expect("libverify.so");
        assert_eq!(&so[..4], b"\x7fELF", "{rid}: libverify.so is ELF");
        assert_eq!(
            u16::from_le_bytes([so[18], so[19]]),
            machine,
            "{rid}: libverify.so is for another machine"
        );
    }

    // A C# consumer of the unpacked package, on Mono, against the sandbox.
    let exe = out.join("Consumer.exe");
    run_ok(
        Command::new("mcs")
            .arg("-warnaserror")
            .arg(format!("-out:{}", exe.display()))
            .arg(unpacked.join("contentFiles/cs/any/Verify/Verify.cs"))
            .arg(root().join("bindings/nuget/consumer/Consumer.cs")),
        "mcs Consumer.cs with the package's Verify.cs",
    );
    let program = common::Program::fresh();
    let native = unpacked.join("runtimes/linux-x64/native");
    let output = Command::new("mono")
        .arg(&exe)
        .arg(program.sandbox.base_url())
        .arg(&program.app_id)
        .arg(common::APP_KEY)
        .env("LD_LIBRARY_PATH", &native)
        .current_dir(&out)
        .output()
        .expect("run mono");
    let report = show(&output);
    let (stdout, _) = text(&output);
    assert!(output.status.success(), "Consumer.exe failed\n{report}");
    assert!(stdout.contains("code 200"), "{report}");
    assert!(stdout.contains("bulletin 公告 bulletin"), "{report}");
    assert!(
        stdout.contains(&format!("library {version} ABI 2")),
        "{report}"
    );
    let loaded = stdout
        .lines()
        .find_map(|l| l.strip_prefix("loaded "))
        .unwrap_or_else(|| panic!("no loaded libverify.so\n{report}"));
    assert_eq!(
        fs::canonicalize(loaded).ok(),
        fs::canonicalize(native.join("libverify.so")).ok(),
        "libverify.so came from the package\n{report}"
    );
    let _ = fs::remove_dir_all(&out);
}
