//! The C# examples of the READMEs compile with `mcs -warnaserror` against the packaged
//! assembly (`scripts/build-csharp.sh`), and the first runs on Mono against the demo fixtures:
//!
//! - the first ```csharp block of `bindings/csharp/README.md`, a whole program on the typed,
//!   throwing form, with its server address and program id replaced by the sandbox's: it
//!   logs in and prints the expiry;
//! - its async example (the block with `RunAsync`), inside a class: `mcs` has no `async
//!   Main` (CS5001), so it blocks on the task once;
//! - the C# block of the top README, and that of README.zh-CN.md, inside a method;
//! - its SDK-style project: the project file read as XML (package id and version as
//!   `scripts/package-nuget.sh` makes them, `Nullable`, `TreatWarningsAsErrors`), its
//!   `Program.cs` compiled with `mcs` and run on Mono against the demo sandbox (the project
//!   itself is built with `dotnet build` and run on .NET Core 3.1 by `tests/package/nuget.rs`, which
//!   makes the package it restores);
//! - its `SandboxControl` block, against a sandbox that has a control token: refused without
//!   the token, then banning a card and an account with it.
//!
//! Needs `mcs` and `mono` (`scripts/install-deps.sh mono mono-devel`).

#[path = "../common/mod.rs"]
mod common;

use std::path::PathBuf;

use common::host::{
    compile_csharp, demo_sandbox, demo_sandbox_with, fenced, host_command, root, run_mono, text,
    Scratch,
};
use verify_sandbox::Config;

/// The ```csharp blocks of a Markdown file, in order.
fn blocks(file: &str) -> Vec<String> {
    fenced(file, "csharp")
}

/// Compiles `source` (with the binding, `bindings/csharp/src/`, as the packaged assembly) into
/// `name.exe` in `scratch`.
fn compile(scratch: &Scratch, name: &str, source: &str) -> PathBuf {
    let file = scratch.0.join(format!("{name}.cs"));
    std::fs::write(&file, source).expect("write the example");
    let exe = scratch.0.join(format!("{name}.exe"));
    compile_csharp(&[PathBuf::from("bindings/csharp/src"), file], &exe);
    exe
}

#[test]
fn the_csharp_readme_examples_compile_and_the_first_runs() {
    let examples = blocks("bindings/csharp/README.md");
    let first = examples
        .first()
        .expect("bindings/csharp/README.md has a ```csharp block");
    for part in ["\"http://127.0.0.1:8080\"", "\"10001\"", "static int Main"] {
        assert!(
            first.contains(part),
            "the first example no longer has {part}:\n{first}"
        );
    }
    let (sandbox, app_id, _app_key) = demo_sandbox();
    let source = first
        .replace(
            "\"http://127.0.0.1:8080\"",
            &format!("\"{}\"", sandbox.base_url()),
        )
        .replace("\"10001\"", &format!("\"{app_id}\""));
    let scratch = Scratch::new();
    let exe = compile(&scratch, "App", &source);
    // The library under test (common::host sets LD_LIBRARY_PATH), the assembly beside the exe.
    let output = run_mono(&exe, &[] as &[&str]);
    sandbox.stop();
    let (stdout, stderr) = text(&output);
    let report = format!("--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    assert!(
        output.status.success(),
        "the first example failed\n{report}"
    );
    assert!(
        stdout.starts_with("licensed until ") && stdout.trim_end().ends_with("+08:00"),
        "the example logs in and prints the expiry with its offset\n{report}"
    );

    let async_example = examples
        .iter()
        .find(|block| block.contains("RunAsync"))
        .expect("the async example");
    let wrapped = format!(
        "using System;\nusing System.Threading.Tasks;\nusing Verify;\n\npublic static class \
         ReadmeAsync\n{{\n{async_example}}}\n"
    );
    compile(&scratch, "ReadmeAsync", &wrapped);

    let top = blocks("README.md");
    let snippet = top.first().expect("README.md has a ```csharp block");
    let wrapped = format!(
        "using System;\nusing Verify;\n\npublic static class ReadmeTop\n{{\n    public static void \
         Main(string[] args)\n    {{\n        string url = args[0], appId = args[1], appKey = \
         args[2], card = args[3];\n{snippet}    }}\n}}\n"
    );
    compile(&scratch, "ReadmeTop", &wrapped);

    let chinese = blocks("README.zh-CN.md");
    let snippet = chinese
        .first()
        .expect("README.zh-CN.md has a ```csharp block");
    let wrapped = format!(
        "using System;\nusing Verify;\n\npublic static class ReadmeChinese\n{{\n    public static \
         void Main(string[] args)\n    {{\n        string url = args[0], appId = args[1], appKey \
         = args[2], card = args[3];\n{snippet}    }}\n}}\n"
    );
    compile(&scratch, "ReadmeChinese", &wrapped);
}

/// The control token of the sandbox of [`the_csharp_readme_ban_example_bans_a_card_and_an_account`].
const SANDBOX_TOKEN: &str = "csharp-readme-ban-token.0123456789";

/// The README's `SandboxControl` block, against a sandbox that has a control token: without
/// the token in `VERIFY_SANDBOX_TOKEN` the sandbox refuses it (an `HttpRequestException`, the card and
/// the account stay as they were); with it, it disables a card and bans an account, whose
/// logins are then refused with 1006 and the ban's reason as the remark.
#[test]
fn the_csharp_readme_ban_example_bans_a_card_and_an_account() {
    let block = blocks("bindings/csharp/README.md")
        .into_iter()
        .find(|block| block.contains("class SandboxControl"))
        .expect("the README's SandboxControl block");
    let program = format!(
        "{block}\npublic static class BanCheck\n{{\n    public static int Main(string[] args)\n    \
         {{\n        SandboxControl.BanCard(args[0], args[1], \"DEMO-CARD-0000-0003\", \"refund \
         requested\");\n        SandboxControl.BanAccount(args[0], args[1], \"alice\", \
         \"chargeback\");\n        using (var client = new Verify.Client(args[0], args[1], \
         args[2]))\n        {{\n            var login = client.CardLogin(\"DEMO-CARD-0000-0003\", \
         \"BAN-CHECK-MAC\");\n            Console.WriteLine((int)login.Code + \" \" + \
         login.Remark);\n            var user = client.UserLogin(\"alice\", \"alice-pass\", \
         \"BAN-CHECK-MAC\");\n            Console.WriteLine((int)user.Code + \" \" + \
         user.Remark);\n        }}\n        return 0;\n    }}\n}}\n"
    );
    let scratch = Scratch::new();
    let exe = compile(&scratch, "BanCheck", &program);
    let (sandbox, app_id, app_key) = demo_sandbox_with(Config {
        token: Some(SANDBOX_TOKEN.to_owned()),
        ..Config::default()
    });
    let records = || {
        (
            sandbox.card(&app_id, "DEMO-CARD-0000-0003"),
            sandbox.account(&app_id, "alice"),
        )
    };
    let before = records();
    assert!(
        before.0.is_some() && before.1.is_some(),
        "the demo's card and account"
    );
    let args = [&sandbox.base_url(), &app_id, &app_key];
    let run = |token: Option<&str>| {
        let mut command = host_command("mono");
        command
            .arg("--debug")
            .arg(&exe)
            .args(args)
            .current_dir(root());
        match token {
            Some(token) => command.env("VERIFY_SANDBOX_TOKEN", token),
            None => command.env_remove("VERIFY_SANDBOX_TOKEN"),
        };
        let output = command.output().expect("run mono");
        let (stdout, stderr) = text(&output);
        let report = format!("--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
        (output.status.success(), stdout, stderr, report)
    };

    let (refused_ok, _, refused_err, report) = run(None);
    assert!(
        !refused_ok && refused_err.contains("HttpRequestException") && refused_err.contains("401"),
        "without the token the sandbox refuses the ban with 401\n{report}"
    );
    assert_eq!(records(), before, "a refused ban changes nothing");

    let (ok, stdout, _, report) = run(Some(SANDBOX_TOKEN));
    sandbox.stop();
    assert!(
        ok && stdout == "1006 refund requested\n1006 chargeback\n",
        "with the token the card and the account are refused with their reasons\n{report}"
    );
}

/// Reads a project file with .NET's own XML parser (`XmlDocument.Load` throws on XML that
/// is not well formed) and prints what a .NET SDK build takes from it, one `name=value` a line.
const PROJECT_READER: &str = r#"using System;
using System.Xml;

public static class ProjectReader
{
    public static int Main(string[] args)
    {
        XmlDocument project = new XmlDocument();
        project.Load(args[0]);
        XmlElement root = project.DocumentElement;
        Console.WriteLine("root=" + root.Name);
        Console.WriteLine("Sdk=" + root.GetAttribute("Sdk"));
        foreach (string name in new[] { "OutputType", "TargetFramework", "Nullable", "TreatWarningsAsErrors" })
        {
            foreach (XmlNode node in root.SelectNodes("PropertyGroup/" + name))
            {
                Console.WriteLine(name + "=" + node.InnerText.Trim());
            }
        }
        foreach (XmlElement reference in root.SelectNodes("ItemGroup/PackageReference"))
        {
            Console.WriteLine("PackageReference=" + reference.GetAttribute("Include") + " " + reference.GetAttribute("Version"));
        }
        return 0;
    }
}
"#;

/// The package id (bindings/nuget/VerifySdk.nuspec) and version (the first `version = ` of
/// Cargo.toml) that `scripts/package-nuget.sh` gives the package it makes.
fn nuget_package() -> (String, String) {
    let nuspec = std::fs::read_to_string(root().join("bindings/nuget/VerifySdk.nuspec"))
        .expect("read the nuspec");
    let id = nuspec
        .split("<id>")
        .nth(1)
        .and_then(|rest| rest.split("</id>").next())
        .expect("the nuspec's <id>")
        .trim()
        .to_owned();
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).expect("read Cargo.toml");
    let version = cargo
        .lines()
        .find_map(|line| {
            line.strip_prefix("version = \"")
                .and_then(|v| v.strip_suffix('"'))
        })
        .expect("Cargo.toml's version")
        .to_owned();
    (id, version)
}

/// The README's SDK-style project (built with `dotnet build` and run on .NET Core 3.1 by
/// `tests/package/nuget.rs`, next to the package it needs): its project file is well-formed XML that references the package id
/// and version `scripts/package-nuget.sh` produces, with nullable references and warnings as
/// errors on; its `Program.cs` compiles with `mcs -warnaserror` against the packaged assembly
/// and runs on Mono against the demo sandbox.
#[test]
fn the_csharp_readme_sdk_project_names_the_package_and_its_program_runs() {
    let readme = "bindings/csharp/README.md";
    let project = fenced(readme, "xml")
        .into_iter()
        .find(|block| block.contains("<Project Sdk="))
        .expect("the README's SDK-style project file");
    let program = blocks(readme)
        .into_iter()
        .find(|block| block.starts_with("// Program.cs\n"))
        .expect("the README's Program.cs of the SDK-style project");

    let scratch = Scratch::new();
    let file = scratch.0.join("Consumer.csproj");
    std::fs::write(&file, &project).expect("write the project file");
    let reader = compile(&scratch, "ProjectReader", PROJECT_READER);
    let output = run_mono(&reader, &[&file]);
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "the project file is not well-formed XML:\n{project}\n--- stderr ---\n{stderr}"
    );
    let (id, version) = nuget_package();
    let lines: Vec<&str> = stdout.lines().collect();
    for expected in [
        "root=Project".to_owned(),
        "Sdk=Microsoft.NET.Sdk".to_owned(),
        "OutputType=Exe".to_owned(),
        "Nullable=enable".to_owned(),
        "TreatWarningsAsErrors=true".to_owned(),
        format!("PackageReference={id} {version}"),
    ] {
        assert!(
            lines.contains(&expected.as_str()),
            "the project file should give {expected}; it gives:\n{stdout}"
        );
    }
    assert_eq!(
        lines
            .iter()
            .filter(|line| line.starts_with("PackageReference="))
            .count(),
        1,
        "one package reference:\n{stdout}"
    );

    // Run as written, with the sandbox's address as its argument and the sandbox's program
    // id in place of "10001" (the demo's AppKey is the README's): it logs in with a card and
    // prints the expiry and the token's length.
    assert!(
        program.matches("\"10001\"").count() == 2,
        "Program.cs no longer names the program \"10001\" (client and machine code):\n{program}"
    );
    let (sandbox, app_id, _app_key) = demo_sandbox();
    let exe = compile(
        &scratch,
        "Program",
        &program.replace("\"10001\"", &format!("\"{app_id}\"")),
    );
    let output = run_mono(&exe, &[&sandbox.base_url()]);
    sandbox.stop();
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success()
            && stdout.starts_with("licensed until ")
            && stdout.contains("+08:00, token of "),
        "Program.cs logs in and prints the expiry and the token\n--- stdout ---\n{stdout}\n--- \
         stderr ---\n{stderr}"
    );
}
