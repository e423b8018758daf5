//! The C# binding: `Demo.cs` is compiled with Mono's `mcs` (warnings as errors) against the
//! packaged assembly (`scripts/build-csharp.sh`, as the NuGet package ships `Verify.dll`) and
//! run with `mono` against the freshly built `libverify.so` and an
//! in-process sandbox loaded with `sandbox/fixtures/demo.json` (under a fresh app_id). Every
//! step must get 200; a second run against the same program must fail (its cards are spent)
//! with a non-zero exit. A second test compiles `tests/csharp/CsharpChecks.cs`, which drives
//! the binding's other paths: typed replies (strings, integers, booleans, times with their
//! +08:00 offset, the variables as a dictionary), refusals as replies and, with `EnsureOk` or
//! `ThrowOnRefusal`, as `VerifyRefusedException` (`VerifyConfigurationException` for a wrong
//! AppKey), local failures as exceptions, `ArgumentException` for bad arguments, plain
//! `ClientOptions` (what the library refuses is an `ArgumentException`), `Call`, UTF-8 round
//! trips, the JSON Pointer getters (null when absent or of another type), two `Reply` objects
//! over one `ReplyHandle`, disposal and concurrent calls.
//!
//! Needs `mcs` and `mono` on PATH: `scripts/install-deps.sh mono` installs them.

#[path = "../common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

use common::host::{
    assert_demo_output, compile_csharp, csharp_sources, demo_sandbox, line_of, require_mono, root,
    run_mono, run_ok, text, Scratch,
};
use common::{unique, Program, APP_KEY};

#[test]
fn csharp_demo_runs_both_flows() {
    require_mono();
    let scratch = Scratch::new();
    let exe = scratch.0.join("Demo.exe");
    compile_csharp(
        &[
            PathBuf::from("bindings/csharp/src"),
            PathBuf::from("bindings/csharp/Demo.cs"),
        ],
        &exe,
    );

    // A sandbox of its own with demo.json under a fresh app_id: the demo's cards are unspent.
    let (sandbox, app_id, app_key) = demo_sandbox();
    let base_url = sandbox.base_url();

    let output = run_mono(&exe, &[&base_url, &app_id, &app_key]);
    let (stdout, stderr) = text(&output);
    let report = format!("--- demo stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    assert!(
        output.status.success(),
        "the C# demo exited with {}\n{report}",
        output.status
    );

    let steps = [
        "new Client",
        "Init",
        "SingleLogin",
        "Heartbeat(Card)",
        "UserRegister",
        "UserLogin(machine A)",
        "Heartbeat(User)",
        "UserRecharge",
        "ChangeBind",
        "UserLogin(machine B)",
        "GetBulletin",
        "GetLatestVersion",
        "GetVariables",
    ];
    assert_demo_output(&stdout, &steps, &app_key, &report);

    // Fields as the fixture defines them; the UTF-8 text survives the round trip.
    let card_type = line_of(&stdout, "card_type").unwrap_or_default();
    assert!(
        card_type.ends_with("\"月卡\""),
        "card type of the login card: `{card_type}`\n{report}"
    );
    assert!(
        stdout.contains("\"欢迎使用演示程序！本公告由沙箱提供。\""),
        "the bulletin, decoded as UTF-8\n{report}"
    );
    // Again on the same program: the register card is spent, so the demo must fail (1004)
    // with a non-zero exit and name the step.
    let again = run_mono(&exe, &[&base_url, &app_id, &app_key]);
    sandbox.stop();
    let (stdout, stderr) = text(&again);
    let report = format!("--- second run stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    assert_eq!(
        again.status.code(),
        Some(1),
        "the second run must exit 1\n{report}"
    );
    assert!(
        stdout.contains("[UserRegister] code 1004 ("),
        "spent card refused\n{report}"
    );
    assert!(
        stdout.contains("FAILED: 1 of 8 steps"),
        "one failed step reported\n{report}"
    );
}

#[test]
fn csharp_binding_paths() {
    require_mono();
    let scratch = Scratch::new();
    let exe = scratch.0.join("CsharpChecks.exe");
    compile_csharp(
        &[
            PathBuf::from("bindings/csharp/src"),
            PathBuf::from("tests/csharp/CsharpChecks.cs"),
        ],
        &exe,
    );

    let program = Program::fresh();
    program.accounts(json!([{"username": "alice", "password": "alice-pass",
        "expire_at": "2099-01-01 00:00:00", "status": "active"}]));
    let user = format!("用户é_{}", unique("u"));
    let output = run_mono(
        &exe,
        &[&program.sandbox.base_url(), &program.app_id, APP_KEY, &user],
    );
    let (stdout, stderr) = text(&output);
    let report = format!("--- checks stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    assert!(
        output.status.success(),
        "the C# checks exited with {}\n{report}",
        output.status
    );
    assert!(
        stdout.contains("CHECKS PASSED"),
        "not every check held\n{report}"
    );
    assert!(!stdout.contains("FAIL "), "a check failed\n{report}");
}

/// The binding's sources alone (`bindings/csharp/src/`), and the single-file drop-in that
/// `scripts/build-csharp.sh` concatenates from them, each compile as a library against
/// `mscorlib` only (`-noconfig`), at the highest warning level with warnings as errors, with
/// the XML documentation checked (every `cref` resolves).
#[test]
fn csharp_binding_compiles_alone_with_its_docs() {
    require_mono();
    let scratch = Scratch::new();
    let drop_in = scratch.0.join("drop-in");
    run_ok(
        Command::new(root().join("scripts/build-csharp.sh"))
            .args(["--drop-in-only", "--out"])
            .arg(&drop_in)
            .current_dir(root()),
        "scripts/build-csharp.sh --drop-in-only",
    );
    let single = drop_in.join("Verify.cs");
    let whole = std::fs::read_to_string(&single).expect("the drop-in");
    assert!(
        whole
            .lines()
            .nth(1)
            .is_some_and(|line| line.contains("Generated by scripts/build-csharp.sh")),
        "the drop-in says where it comes from:\n{}",
        whole.lines().take(3).collect::<Vec<_>>().join("\n")
    );
    for (name, sources) in [("folder", csharp_sources()), ("drop-in", vec![single])] {
        let dll = scratch.0.join(format!("{name}.dll"));
        let xml = scratch.0.join(format!("{name}.xml"));
        let output = Command::new("mcs")
            .args([
                "-noconfig",
                "-r:mscorlib.dll",
                "-target:library",
                "-warn:4",
                "-warnaserror",
            ])
            .arg(format!("-doc:{}", xml.display()))
            .arg(format!("-out:{}", dll.display()))
            .args(&sources)
            .current_dir(root())
            .output()
            .expect("run mcs");
        let (stdout, stderr) = text(&output);
        assert!(
            output.status.success(),
            "mcs -noconfig of the {name} failed ({}):\n{stdout}{stderr}",
            output.status
        );
        check_docs(&xml);
    }
}

/// The XML documentation `xml` documents the members a user looks up first.
fn check_docs(xml: &std::path::Path) {
    let docs = std::fs::read_to_string(xml).expect("the XML documentation");
    for member in [
        "T:Verify.ClientHandle",
        "M:Verify.Client.SingleLoginAsync",
        "M:Verify.Client.SocialLoginWaitAsync",
        "T:Verify.KeeperStatusHandle",
        "T:Verify.CardLoginReply",
        "P:Verify.UserInfoReply.ExpireAt",
        "M:Verify.Reply.EnsureOk",
        "E:Verify.Keeper.Ended",
    ] {
        assert!(docs.contains(member), "{member} is not documented");
    }
}
