//! The C# binding: `bindings/csharp/Verify.cs` with `Demo.cs` is compiled with Mono's `mcs`
//! (warnings as errors) and run with `mono` against the freshly built `libverify.so` and an
//! in-process sandbox loaded with `sandbox/fixtures/demo.json` (under a fresh app_id). Every
//! step must get 200; a second run against the same program must fail (its cards are spent)
//! with a non-zero exit. A second test compiles a small check program (embedded below) that
//! drives the binding's other paths: refusals as replies, local failures as exceptions,
//! `Call`, UTF-8 round trips, nullable getters, disposal and concurrent calls.
//!
//! Needs `mcs` and `mono` on PATH: `scripts/install-deps.sh mono` installs them.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;

use common::host::{
    assert_demo_output, demo_sandbox, host_command, line_of, require_tool, root, text, Scratch,
};
use common::{unique, Program, APP_KEY};

/// Fails, naming `scripts/install-deps.sh mono`, unless both Mono tools run.
fn require_mono() {
    require_tool("mcs", "mono");
    require_tool("mono", "mono");
}

/// Compiles `sources` (paths relative to the repository root, or absolute) with
/// `mcs -warnaserror` into `out`.
fn compile(sources: &[PathBuf], out: &Path) {
    require_mono();
    let mut args = vec!["-warnaserror".to_owned(), format!("-out:{}", out.display())];
    args.extend(sources.iter().map(|s| s.display().to_string()));
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

/// Runs `mono exe args...` with the library under test on LD_LIBRARY_PATH.
fn run_mono(exe: &Path, args: &[&str]) -> Output {
    host_command("mono")
        .arg("--debug") // line numbers in stack traces
        .arg(exe)
        .args(args)
        .current_dir(root())
        .output()
        .expect("run mono")
}

/// The line of `stdout` whose trimmed text starts with `label`.

#[test]
fn csharp_demo_runs_both_flows() {
    require_mono();
    let scratch = Scratch::new();
    let exe = scratch.0.join("Demo.exe");
    compile(
        &[
            PathBuf::from("bindings/csharp/Verify.cs"),
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
        "new VerifyClient",
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
        "GetVariable(null)",
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

/// A check program for the binding's other paths. Args: BASE_URL APP_ID APP_KEY USERNAME.
/// Prints `ok   ...` or `FAIL ...` per check, then `CHECKS PASSED` and exits 0 when all held.
const CHECKS_CS: &str = r#"
using System;
using System.Collections.Generic;
using System.Threading;
using Verify;

internal static class Checks
{
    private static int failures;

    private static void Expect(bool ok, string what)
    {
        Console.WriteLine((ok ? "ok   " : "FAIL ") + what);
        if (!ok) failures++;
    }

    private static int Main(string[] args)
    {
        Console.SetOut(new System.IO.StreamWriter(Console.OpenStandardOutput(), new System.Text.UTF8Encoding(false)) { AutoFlush = true });
        string url = args[0], app = args[1], key = args[2], user = args[3];
        const string pass = "pässwörd ✓ &=+% 密码";
        using (VerifyClient c = new VerifyClient(url, app, key))
        {
            c.SetTimeouts(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(10));

            using (VerifyReply r = c.UserLogin("alice", "wrong-pass", null, "M1"))
            {
                Expect(r.Code == VerifyCode.WrongPassword, "refusal is a reply: " + (int)r.Code);
                Expect(r.Message.Length > 0, "refusal message: " + r.Message);
                Expect(r.Remark == null && r.GetInt64("absent") == null, "no remark on 1003");
                Expect(VerifyLibrary.LastErrorCode == 1003, "absent fields keep the last error: " + VerifyLibrary.LastErrorCode);
            }
            using (VerifyReply r = c.GetUserInfo("alice", "alice-pass"))
            {
                Expect(r.IsOk, "user info: " + r.Json);
                Expect(r.GetInt64("bind_count") == 0, "an integer 0 is 0, not null");
                Expect(r.GetInt64("user_id") > 0, "user_id: " + r.GetInt64("user_id"));
                Expect(r.GetInt64("absent") == null, "absent integer is null");
                Expect(r.GetString("absent") == null, "absent string is null");
                Expect(r.GetBool("absent") == null, "absent boolean is null");
                Expect(r.Has("username") && !r.Has("absent"), "Has");
                Expect(r.GetBool("username") == null && r.GetInt64("username") == null, "another type is null");
                Expect(r.GetString("bind_count") == "0", "a number as text");
                Expect(r.Remark == "", "empty remark");
                r.Dispose();
                try { VerifyCode code = r.Code; Expect(false, "read after Dispose: " + code); }
                catch (ObjectDisposedException) { Expect(true, "read after Dispose throws ObjectDisposedException"); }
            }

            using (VerifyReply r = c.UserRegister(user, pass))
                Expect(r.IsOk && r.GetString("username") == user, "register with a non-ASCII name: " + r.Json);
            Dictionary<string, string> parameters = new Dictionary<string, string>();
            parameters.Add("UserName", user);
            parameters.Add("Password", pass);
            using (VerifyReply r = c.Call("GetUserInfo", parameters))
                Expect(r.IsOk && r.GetString("username") == user, "Call with a dictionary, UTF-8 round trip: " + r.Json);
            using (VerifyReply r = c.Call("GetBulletin"))
                Expect(r.IsOk && r.GetString("bulletin") == "公告 bulletin", "Call without parameters: " + r.GetString("bulletin"));
            using (VerifyReply r = c.Call("NoSuchAction", new KeyValuePair<string, string>("a", "")))
                Expect(r.Code == VerifyCode.UnknownAction, "unknown action: " + (int)r.Code);
            using (VerifyReply r = c.GetVariable("greeting"))
                Expect(r.GetString("value") == "你好 & welcome", "variable: " + r.GetString("value"));
            using (VerifyReply r = c.GetVariable(null))
                Expect(r.GetString("variables.limit") == "5", "dotted path: " + r.GetString("variables.limit"));
            using (VerifyReply r = c.GetLatestVersion("1.0.0"))
                Expect(r.GetBool("has_update") == true && r.GetBool("force_update") == false, "booleans: " + r.Json);

            try { c.Heartbeat("token", (SessionKind)7); Expect(false, "a bad session kind throws"); }
            catch (VerifyException e) { Expect(e.Code == VerifyCode.InvalidArgument && e.Message.Length > 0, "bad kind: " + e.Code + ": " + e.Message); }
            try { c.SingleLogin(null, "m"); Expect(false, "null throws"); }
            catch (ArgumentNullException) { Expect(true, "a null required argument throws ArgumentNullException"); }
            try { c.SingleLogin("a\0b", "m"); Expect(false, "NUL throws"); }
            catch (ArgumentException) { Expect(true, "an embedded NUL throws ArgumentException"); }
            try { c.SetTimeouts(TimeSpan.Zero, TimeSpan.FromSeconds(1)); Expect(false, "zero timeout throws"); }
            catch (ArgumentOutOfRangeException) { Expect(true, "a zero timeout is rejected"); }

            // One client, several threads at once.
            int good = 0;
            List<Thread> threads = new List<Thread>();
            for (int t = 0; t < 4; t++)
            {
                Thread thread = new Thread(() =>
                {
                    for (int i = 0; i < 5; i++)
                        using (VerifyReply r = c.GetBulletin())
                            if (r.IsOk) Interlocked.Increment(ref good);
                });
                threads.Add(thread);
                thread.Start();
            }
            foreach (Thread thread in threads) thread.Join();
            Expect(good == 20, "20 concurrent calls on one client: " + good);

            c.Dispose();
            try { c.GetBulletin(); Expect(false, "call after Dispose throws"); }
            catch (ObjectDisposedException) { Expect(true, "a call after Dispose throws ObjectDisposedException"); }
        }

        try { new VerifyClient("not a url", app, key); Expect(false, "a bad URL throws"); }
        catch (VerifyException e) { Expect(e.Code == VerifyCode.InvalidArgument, "bad URL: " + e.Code + ": " + e.Message); }
        using (VerifyClient c = new VerifyClient("http://127.0.0.1:1", app, key))
        {
            try { c.GetBulletin(); Expect(false, "an unreachable server throws"); }
            catch (VerifyException e) { Expect(e.Code == VerifyCode.Network && e.Message.Length > 0, "unreachable: " + e.Code + ": " + e.Message); }
        }
        Expect(VerifyLibrary.Describe(VerifyCode.Disabled).Length > 0, "Describe: " + VerifyLibrary.Describe(VerifyCode.Disabled));
        Expect(VerifyLibrary.Version.Length > 0, "version " + VerifyLibrary.Version);

        Console.WriteLine(failures == 0 ? "CHECKS PASSED" : "CHECKS FAILED");
        return failures == 0 ? 0 : 1;
    }
}
"#;

#[test]
fn csharp_binding_paths() {
    require_mono();
    let scratch = Scratch::new();
    let source = scratch.0.join("Checks.cs");
    std::fs::write(&source, CHECKS_CS).expect("write Checks.cs");
    let exe = scratch.0.join("Checks.exe");
    compile(&[PathBuf::from("bindings/csharp/Verify.cs"), source], &exe);

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
