//! The Windows package and the NuGet package (`scripts/package-windows.sh`, which runs
//! `scripts/package-nuget.sh`):
//!
//! - `dist/verify-<version>-windows/` has `windows-x64/` and `windows-x86/`, each with the
//!   DLL of its architecture (the PE machine field says so), the mingw and MSVC import
//!   libraries, the `.def` and the headers as in `include/`;
//! - the `.nupkg` (a zip) holds exactly the compiled binding with its XML documentation and
//!   symbols (`lib/net47/Verify.dll`, `Verify.xml`, `Verify.dll.mdb`),
//!   `runtimes/win-x64/native/verify.dll`, `runtimes/win-x86/native/verify.dll`,
//!   `runtimes/linux-x64/native/libverify.so`, `runtimes/linux-arm64/native/libverify.so`,
//!   `README.md` (the C# README) and NuGet's own files; its manifest names the crate's
//!   version, its license expression, the repository (git, the commit) and the readme; each
//!   native file is the one the build made (each Linux library an ELF file of its machine),
//!   and the XML documentation covers the typed API;
//! - the consumer project `bindings/nuget/consumer/` (`packages.config`, `Consumer.cs`, the
//!   typed program: card and account login, the keeper seeing a ban, refusals) restores the
//!   package from a local folder with `nuget restore`, compiles with `mcs -warnaserror`
//!   against the package's `Verify.dll`, and runs on Mono: first without the native library
//!   (a `DllNotFoundException` that names `libverify.so`, where it was looked for and how to
//!   fix it), then with the package's `runtimes/linux-x64/native/libverify.so` next to it
//!   (loaded from there), against the sandbox, while the test bans its card when it asks.
//!
//! The package is made from `target/windows/` (`scripts/build-windows.sh`, run first), the
//! `libverify.so` of this test run and the ARM64 one of `scripts/build-arm64.sh`. Needs `nuget`, `zip`, `unzip`, Mono and its reference
//! assemblies: the test installs them with `scripts/install-deps.sh nuget zip unzip mono
//! mono-devel` when missing.

#[path = "../common/mod.rs"]
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
        Command::new(root().join("scripts/install-deps.sh")).args([
            "nuget",
            "zip",
            "unzip",
            "mono",
            "mono-devel",
        ]),
        "scripts/install-deps.sh nuget zip unzip mono mono-devel",
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
        // The C++ headers verify.hpp includes: the folder, as in the repository.
        let headers = files_under(&root().join("include/verify"));
        assert_eq!(
            files_under(&part.join("include/verify")),
            headers,
            "{arch}: include/verify"
        );
        for header in &headers {
            same_file(
                &part.join("include/verify").join(header),
                &root().join("include/verify").join(header),
            );
        }
        let def = fs::read_to_string(part.join("lib/verify.def")).expect("verify.def");
        assert!(def.contains("LIBRARY verify.dll"), "{arch}: {def}");
    }
    for arch in ["x64", "x86"] {
        let lib = pkg.join(format!("windows-{arch}/lib/verify.lib"));
        assert!(lib.is_file(), "{arch}: MSVC import library");
    }
    // The single-file binding is the one build-csharp.sh concatenates from bindings/csharp/src.
    let drop_in = scratch();
    run_ok(
        Command::new(root().join("scripts/build-csharp.sh"))
            .args(["--drop-in-only", "--out"])
            .arg(&drop_in)
            .current_dir(root()),
        "scripts/build-csharp.sh --drop-in-only",
    );
    same_file(
        &pkg.join("bindings/csharp/Verify.cs"),
        &drop_in.join("Verify.cs"),
    );
    for doc in [
        "docs/windows.md",
        "docs/windows.zh-CN.md",
        "README.md",
        "README.zh-CN.md",
    ] {
        assert!(pkg.join(doc).is_file(), "{doc}");
    }

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
        "README.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "lib/net47/Verify.dll",
        "lib/net47/Verify.xml",
        "lib/net47/Verify.dll.mdb",
        "runtimes/win-x64/native/verify.dll",
        "runtimes/win-x86/native/verify.dll",
        "runtimes/linux-x64/native/libverify.so",
        "runtimes/linux-arm64/native/libverify.so",
        psmdcp[0].as_str(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(files, expected, "the .nupkg's files");
    let nuspec = fs::read_to_string(unpacked.join("VerifySdk.nuspec")).expect("nuspec");
    for part in [
        "<id>VerifySdk</id>".to_owned(),
        format!("<version>{version}</version>"),
        "<license type=\"expression\">MIT OR Apache-2.0</license>".to_owned(),
        "<repository type=\"git\"".to_owned(),
        "<readme>README.md</readme>".to_owned(),
    ] {
        assert!(
            nuspec.contains(&part),
            "no `{part}` in the manifest\n{nuspec}"
        );
    }
    same_file(
        &unpacked.join("runtimes/win-x64/native/verify.dll"),
        &windows.join("x64/verify.dll"),
    );
    same_file(
        &unpacked.join("runtimes/win-x86/native/verify.dll"),
        &windows.join("x86/verify.dll"),
    );
    same_file(
        &unpacked.join("README.md"),
        &root().join("bindings/csharp/README.md"),
    );
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        same_file(&unpacked.join(licence), &root().join(licence));
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
    let dll = fs::read(unpacked.join("lib/net47/Verify.dll")).expect("Verify.dll");
    assert_eq!(&dll[..2], b"MZ", "Verify.dll is a PE assembly");
    let docs = fs::read_to_string(unpacked.join("lib/net47/Verify.xml")).expect("Verify.xml");
    for member in [
        "T:Verify.CardLoginReply",
        "P:Verify.CardLoginReply.ExpireAt",
        "M:Verify.Reply.EnsureOk",
        "T:Verify.VerifyRefusedException",
        "E:Verify.Keeper.Ended",
        "P:Verify.Keeper.Completion",
        "P:Verify.ClientOptions.ConnectTimeout",
    ] {
        assert!(docs.contains(member), "{member} is not in Verify.xml");
    }

    consume(&out, &nupkg, &version);
    let _ = fs::remove_dir_all(&out);
}

/// The consumer project of `bindings/nuget/consumer/`, restored from the folder of `nupkg`,
/// built and run on Mono (see the top of this file).
fn consume(out: &Path, nupkg: &Path, version: &str) {
    let project = out.join("consumer");
    fs::create_dir_all(&project).expect("the consumer folder");
    for file in ["Consumer.cs", "packages.config"] {
        fs::copy(
            root().join("bindings/nuget/consumer").join(file),
            project.join(file),
        )
        .expect("copy the consumer project");
    }
    let config = fs::read_to_string(project.join("packages.config")).expect("packages.config");
    assert!(
        config.contains(&format!("id=\"VerifySdk\" version=\"{version}\"")),
        "bindings/nuget/consumer/packages.config names VerifySdk {version}, the crate's version"
    );
    let feed = nupkg.parent().expect("the package's folder");
    run_ok(
        Command::new("nuget")
            .args([
                "restore",
                "packages.config",
                "-PackagesDirectory",
                "packages",
                "-NonInteractive",
            ])
            .arg("-Source")
            .arg(feed)
            .env("HOME", &project)
            .current_dir(&project),
        "nuget restore of the consumer project",
    );
    let restored = project.join(format!("packages/VerifySdk.{version}"));
    let lib = restored.join("lib/net47");
    let bin = project.join("bin");
    fs::create_dir_all(&bin).expect("bin");
    for file in ["Verify.dll", "Verify.xml", "Verify.dll.mdb"] {
        fs::copy(lib.join(file), bin.join(file)).expect("copy the assembly, as a build does");
    }
    let exe = bin.join("Consumer.exe");
    run_ok(
        Command::new("mcs")
            .arg("-warnaserror")
            .arg(format!("-r:{}", lib.join("Verify.dll").display()))
            .arg(format!("-out:{}", exe.display()))
            .arg("Consumer.cs")
            .current_dir(&project),
        "mcs -warnaserror Consumer.cs against the package's Verify.dll",
    );

    // No native library next to it: the DllNotFoundException says what to do.
    let output = Command::new("mono")
        .arg(&exe)
        .env("LD_LIBRARY_PATH", &bin)
        .current_dir(&bin)
        .output()
        .expect("run mono");
    let (stdout, _) = text(&output);
    let report = show(&output);
    assert_eq!(output.status.code(), Some(3), "{report}");
    for part in [
        "DllNotFoundException: ",
        "libverify.so",
        "runtimes/linux-x64/native/libverify.so",
        "LD_LIBRARY_PATH",
        &bin.display().to_string(),
    ] {
        assert!(
            stdout.contains(part),
            "the message names `{part}`\n{report}"
        );
    }

    // With the package's library next to it, against the sandbox.
    fs::copy(
        restored.join("runtimes/linux-x64/native/libverify.so"),
        bin.join("libverify.so"),
    )
    .expect("copy the native library");
    let issue = common::host::IssueProgram::new("NUGT-CARD-0000-0001");
    let mut command = Command::new("mono");
    command
        .arg(&exe)
        .args(issue.args())
        .env("LD_LIBRARY_PATH", &bin)
        .current_dir(&bin);
    let output = common::host::run_host_command(command, |line| issue.answer(line));
    let report = output.report();
    issue.assert_output(&output, &report);
    let stdout = output.stdout;
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
        fs::canonicalize(bin.join("libverify.so")).ok(),
        "libverify.so came from the package\n{report}"
    );
}
