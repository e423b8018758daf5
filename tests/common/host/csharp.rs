//! The C# binding for host tests: Mono, the assembly as the NuGet package ships it, its
//! sources, compiling C# programs and running them.

use super::*;

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
    let temporary = to.with_extension(super::super::unique("part"));
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

/// Compiles C# `sources` into the program `out` with `mcs -warnaserror` (and
/// `System.Net.Http` referenced). The binding itself,
/// [`CSHARP_BINDING`] among the sources, is not compiled in: the program references the
/// packaged assembly ([`csharp_assembly`]), which is copied next to `out`, as a consumer of the
/// NuGet package builds.
pub fn compile_csharp(sources: &[PathBuf], out: &std::path::Path) {
    require_mono();
    let binding = PathBuf::from(CSHARP_BINDING);
    // System.Net.Http: the READMEs' examples talk to the sandbox's control API with HttpClient.
    let mut args = vec![
        "-warnaserror".to_owned(),
        "-r:System.Net.Http".to_owned(),
        format!("-out:{}", out.display()),
    ];
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
