//! The keeper, the cancellable social wait and the machine code through the C# binding:
//! `bindings/csharp/Verify.cs` is compiled with Mono's `mcs` (warnings as errors) together with
//! a check program (embedded below) and run with `mono` against the freshly built
//! `libverify.so` and this binary's in-process sandbox. The scenarios mirror
//! `tests/ffi_keeper.rs`: keeper events reach a C# handler (Alive, a back-office message, the
//! end by a ban with its reason), a handler that throws does not take the process down,
//! `Dispose` from inside the handler, the polled status, disposing the client while a
//! heartbeat is in flight, the social wait (cancelled from another thread within 100 ms, timed
//! out, completed, refused), and `VerifyLibrary.MachineCode` equal to `verify::machine_code`.
//!
//! Needs `mcs` and `mono` on PATH: `scripts/install-deps.sh mono` installs them.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::json;
use verify_sandbox::{Fault, FaultKind};

use common::host::{host_command, library_dir, require_tool, root, text};
use common::{eventually, unique, Program, APP_KEY};

/// How long any one step may take.
const PATIENCE: Duration = Duration::from_secs(20);

/// The check program. Args: MODE, then BASE_URL APP_ID APP_KEY [USERNAME PASSWORD]. Prints
/// one line per observation (`event <kind> <code> <text-or-remark>`, `ok   ...`, `FAIL ...`),
/// then `CHECKS PASSED` and exits 0 when every check held.
const KEEPER_CS: &str = r##"using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using Verify;

// Modes (first argument):
//   keeper   URL APP KEY USER PASS  events of a keeper with a handler, until Ended
//   throwing URL APP KEY USER PASS  a handler that throws; Dispose from inside the handler
//   status   URL APP KEY USER PASS  a keeper without handler, polled with Status()
//   freeclient URL APP KEY USER PASS  disposing the client while a heartbeat is in flight
//   social   URL APP KEY             SocialLoginWait: cancelled, timed out, completed, refused
//   misc     URL APP KEY             MachineCode and argument checks
internal static class KeeperChecks
{
    private static int failures;
    private static readonly DateTime Deadline = DateTime.UtcNow.AddSeconds(20);

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    private static void Expect(bool ok, string what)
    {
        Say((ok ? "ok   " : "FAIL ") + what);
        if (!ok) failures++;
    }

    private static TimeSpan Left()
    {
        TimeSpan left = Deadline - DateTime.UtcNow;
        return left > TimeSpan.Zero ? left : TimeSpan.Zero;
    }

    private static string Line(VerifyEvent e)
    {
        return "event " + e.Kind + " " + (int)e.Code + " " + (e.Text ?? e.Remark ?? "");
    }

    private static string Login(VerifyClient client, string user, string pass)
    {
        using (VerifyReply login = client.UserLogin(user, pass))
        {
            if (!login.IsOk) throw new Exception("login: " + login.Json);
            return login.GetString("token");
        }
    }

    private static int Main(string[] args)
    {
        Console.SetOut(new System.IO.StreamWriter(Console.OpenStandardOutput(), new System.Text.UTF8Encoding(false)) { AutoFlush = true });
        int code;
        switch (args[0])
        {
            case "keeper": code = KeeperMode(args); break;
            case "throwing": code = ThrowingMode(args); break;
            case "status": code = StatusMode(args); break;
            case "freeclient": code = FreeClientMode(args); break;
            case "social": code = SocialMode(args); break;
            case "misc": code = MiscMode(args); break;
            default: Say("unknown mode " + args[0]); return 2;
        }
        if (failures > 0) code = 1;
        Say(code == 0 ? "CHECKS PASSED" : "CHECKS FAILED");
        return code;
    }

    private static int KeeperMode(string[] args)
    {
        using (ManualResetEvent ended = new ManualResetEvent(false))
        using (VerifyClient client = new VerifyClient(args[1], args[2], args[3]))
        {
            string token = Login(client, args[4], args[5]);
            using (VerifyKeeper keeper = client.KeepAlive(token, SessionKind.User, TimeSpan.FromSeconds(1),
                TimeSpan.Zero, null, e =>
                {
                    Console.Out.WriteLine(Line(e));
                    Console.Out.Flush();
                    if (e.Kind == VerifyEventKind.Ended) ended.Set();
                }))
            {
                Say("started");
                if (!ended.WaitOne(Left()))
                {
                    Say("no Ended event within 20 s");
                    return 1;
                }
                KeeperStatus status = keeper.Status();
                Say("state " + keeper.State);
                Say("status " + status.State + " " + (int)status.LastCode + " " + status.Remark);
            }
            return 0;
        }
    }

    private static int ThrowingMode(string[] args)
    {
        int alive = 0;
        VerifyKeeper keeper = null;
        using (ManualResetEvent disposedInside = new ManualResetEvent(false))
        using (VerifyClient client = new VerifyClient(args[1], args[2], args[3]))
        {
            string token = Login(client, args[4], args[5]);
            keeper = client.KeepAlive(token, SessionKind.User, TimeSpan.FromSeconds(1), TimeSpan.Zero, null, e =>
            {
                Say(Line(e));
                if (e.Kind == VerifyEventKind.Alive && Interlocked.Increment(ref alive) == 3)
                {
                    keeper.Dispose(); // from inside the handler: must not deadlock
                    disposedInside.Set();
                }
                throw new InvalidOperationException("thrown by the handler");
            });
            if (!disposedInside.WaitOne(Left()))
            {
                Say("fewer than 3 Alive events within 20 s: " + Volatile.Read(ref alive));
                return 1;
            }
            Say("survived " + Volatile.Read(ref alive));
            try { KeeperState s = keeper.State; Expect(false, "State after Dispose: " + s); }
            catch (ObjectDisposedException) { Expect(true, "State after Dispose throws ObjectDisposedException"); }
            keeper.Dispose();
            Thread.Sleep(2500);
            Expect(Volatile.Read(ref alive) == 3, "no event after Dispose: " + Volatile.Read(ref alive));
        }
        return 0;
    }

    private static int StatusMode(string[] args)
    {
        using (VerifyClient client = new VerifyClient(args[1], args[2], args[3]))
        {
            string token = Login(client, args[4], args[5]);
            using (VerifyKeeper keeper = client.KeepAlive(token, SessionKind.User, TimeSpan.FromSeconds(1),
                TimeSpan.FromSeconds(60), "10.1.2.3"))
            {
                KeeperStatus first = keeper.Status();
                Expect(first.State == KeeperState.Alive && first.LastCode == 0 && first.LastSuccess == null
                    && first.ExpireAt == null && first.Messages.Length == 0 && first.Remark == null,
                    "status before the first heartbeat: " + first.State + " " + (int)first.LastCode);
                Say("started");
                string[] messages = new string[0];
                while (messages.Length == 0 && Left() > TimeSpan.Zero)
                {
                    messages = keeper.Status().Messages;
                    Thread.Sleep(50);
                }
                Say("messages " + messages.Length + " " + String.Join("|", messages));
                KeeperStatus after = keeper.Status();
                Expect(after.LastCode == VerifyCode.Ok, "last code " + (int)after.LastCode);
                Expect(after.LastSuccess != null && after.LastSuccess.Value.Year >= 2024
                    && after.LastSuccess.Value <= DateTimeOffset.UtcNow.AddSeconds(1), "last success " + after.LastSuccess);
                Expect(after.ExpireAt != null, "expire_at " + after.ExpireAt);
                Expect(after.Messages.Length == 0, "each message once: " + after.Messages.Length);
                Expect(keeper.State == KeeperState.Alive, "alive: " + keeper.State);
                keeper.Stop();
                keeper.Stop();
                Expect(keeper.State == KeeperState.Ended, "stopped: " + keeper.State);
            }
        }
        return 0;
    }

    private static int FreeClientMode(string[] args)
    {
        // Warm up the code paths measured below.
        new VerifyClient(args[1], args[2], args[3]).Dispose();
        int events = 0;
        VerifyClient client = new VerifyClient(args[1], args[2], args[3]);
        string token = Login(client, args[4], args[5]);
        VerifyKeeper keeper = client.KeepAlive(token, SessionKind.User, TimeSpan.FromSeconds(1), TimeSpan.Zero,
            null, e => { Interlocked.Increment(ref events); Say(Line(e)); });
        Say("started");
        Console.In.ReadLine(); // the test says when the heartbeat is in flight
        Stopwatch watch = Stopwatch.StartNew();
        client.Dispose();
        watch.Stop();
        Say("client-dispose-ms " + watch.ElapsedMilliseconds);
        Expect(keeper.State == KeeperState.Ended, "the keeper of a disposed client ended: " + keeper.State);
        keeper.Stop();
        keeper.Dispose();
        keeper.Dispose();
        Expect(Volatile.Read(ref events) == 0, "no event from the cancelled heartbeat: " + events);
        return 0;
    }

    private static VerifyReply Start(VerifyClient client, out string state)
    {
        VerifyReply start = client.SocialLoginStart();
        state = start.GetString("state");
        return start;
    }

    private static int SocialMode(string[] args)
    {
        using (VerifyClient client = new VerifyClient(args[1], args[2], args[3]))
        {
            string state;
            Start(client, out state).Dispose();

            // Warm-up, and a cancelled token ends later waits at once.
            using (VerifyCancel cancelled = new VerifyCancel())
            {
                cancelled.Cancel();
                cancelled.Cancel();
                Stopwatch watch = Stopwatch.StartNew();
                try { client.SocialLoginWait(state, null, TimeSpan.FromSeconds(60), TimeSpan.FromSeconds(60), cancelled).Dispose(); Expect(false, "a cancelled token throws"); }
                catch (VerifyException e) { Say("precancelled " + (int)e.Code + " " + watch.ElapsedMilliseconds); }
            }
            {
                Stopwatch watch = Stopwatch.StartNew();
                try { client.SocialLoginWait(state, null, TimeSpan.FromMilliseconds(50), TimeSpan.FromMilliseconds(300)).Dispose(); Expect(false, "the wait times out"); }
                catch (VerifyException e) { Say("timeout " + (int)e.Code + " " + watch.ElapsedMilliseconds + " " + e.Message); }
            }

            // Cancelled from another thread while the wait sleeps between polls.
            using (VerifyCancel cancel = new VerifyCancel())
            {
                long cancelledAt = 0;
                Thread canceller = new Thread(() =>
                {
                    Thread.Sleep(500);
                    Interlocked.Exchange(ref cancelledAt, Stopwatch.GetTimestamp());
                    cancel.Cancel();
                });
                canceller.Start();
                try
                {
                    client.SocialLoginWait(state, null, TimeSpan.FromSeconds(60), TimeSpan.FromSeconds(60), cancel).Dispose();
                    Expect(false, "the wait was cancelled");
                }
                catch (VerifyException e)
                {
                    long returned = Stopwatch.GetTimestamp();
                    canceller.Join();
                    long ms = (returned - Interlocked.Read(ref cancelledAt)) * 1000 / Stopwatch.Frequency;
                    Say("cancelled " + (int)e.Code + " " + ms + " " + e.Message);
                }
            }

            // Completed by the back office while the wait runs: a bound identity, then an unbound one.
            foreach (string label in new[] { "bound", "unbound" })
            {
                Start(client, out state).Dispose();
                Say("waiting-" + label + " " + state);
                using (VerifyReply reply = client.SocialLoginWait(state, null, TimeSpan.FromMilliseconds(50), TimeSpan.FromSeconds(20)))
                    Say("social-" + label + " " + (int)reply.Code + " " + reply.GetString("username") + " " + reply.Remark);
            }
        }
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AbandonKeeper(VerifyClient client)
    {
        client.KeepAlive("abandoned-token", SessionKind.Card, TimeSpan.FromSeconds(1), TimeSpan.Zero, null, e => Say(Line(e)));
    }

    private static int MiscMode(string[] args)
    {
        string code = VerifyLibrary.MachineCode("x");
        Say("machine " + code);
        Expect(code == VerifyLibrary.MachineCode("x"), "the same code twice");
        Expect(VerifyLibrary.MachineCode("").Length == VerifyLibrary.MachineCodeLength, "empty salt");
        Expect(VerifyLibrary.MachineCode("y") != code, "another salt, another code");
        try { VerifyLibrary.MachineCode(null); Expect(false, "null salt throws"); }
        catch (ArgumentNullException) { Expect(true, "null salt: ArgumentNullException"); }

        using (VerifyClient client = new VerifyClient(args[1], args[2], args[3]))
        {
            try { client.KeepAlive("t", SessionKind.User, TimeSpan.FromMilliseconds(999), TimeSpan.Zero).Dispose(); Expect(false, "interval 999 ms throws"); }
            catch (VerifyException e) { Expect(e.Code == VerifyCode.InvalidArgument, "interval 999 ms: " + e.Code + ": " + e.Message); }
            try { client.KeepAlive("t", (SessionKind)7, TimeSpan.Zero, TimeSpan.Zero).Dispose(); Expect(false, "kind 7 throws"); }
            catch (VerifyException e) { Expect(e.Code == VerifyCode.InvalidArgument, "kind 7: " + e.Code + ": " + e.Message); }
            try { client.KeepAlive("", SessionKind.User, TimeSpan.Zero, TimeSpan.Zero).Dispose(); Expect(false, "empty token throws"); }
            catch (VerifyException e) { Expect(e.Code == VerifyCode.InvalidArgument, "empty token: " + e.Code); }
            try { client.KeepAlive(null, SessionKind.User, TimeSpan.Zero, TimeSpan.Zero).Dispose(); Expect(false, "null token throws"); }
            catch (ArgumentNullException) { Expect(true, "null token: ArgumentNullException"); }
            try { client.KeepAlive("t", SessionKind.User, TimeSpan.Zero, TimeSpan.FromSeconds(-1)).Dispose(); Expect(false, "negative grace throws"); }
            catch (ArgumentOutOfRangeException) { Expect(true, "negative grace: ArgumentOutOfRangeException"); }
            try { client.SocialLoginWait("s", null, TimeSpan.Zero, TimeSpan.FromSeconds(1)).Dispose(); Expect(false, "zero interval throws"); }
            catch (ArgumentOutOfRangeException) { Expect(true, "zero poll interval: ArgumentOutOfRangeException"); }
            try { client.SocialLoginWait(null, null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1)).Dispose(); Expect(false, "null state throws"); }
            catch (ArgumentNullException) { Expect(true, "null state: ArgumentNullException"); }

            VerifyCancel cancel = new VerifyCancel();
            cancel.Cancel();
            cancel.Dispose();
            cancel.Dispose();
            try { cancel.Cancel(); Expect(false, "Cancel after Dispose throws"); }
            catch (ObjectDisposedException) { Expect(true, "Cancel after Dispose: ObjectDisposedException"); }

            // A keeper without handler: stopped, then disposed twice.
            VerifyKeeper quiet = client.KeepAlive("t", SessionKind.Card, TimeSpan.FromSeconds(60), TimeSpan.Zero);
            Expect(quiet.State == KeeperState.Alive, "a new keeper is alive");
            quiet.Stop();
            Expect(quiet.State == KeeperState.Ended && quiet.Status().State == KeeperState.Ended, "a stopped keeper ended");
            quiet.Dispose();
            quiet.Dispose();
            try { quiet.Stop(); Expect(false, "Stop after Dispose throws"); }
            catch (ObjectDisposedException) { Expect(true, "Stop after Dispose: ObjectDisposedException"); }

            // A keeper nobody references any more is stopped and freed by its finalizer.
            AbandonKeeper(client);
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            Expect(true, "an abandoned keeper was collected without a crash");

            // A keeper outliving its client.
            VerifyKeeper orphan = client.KeepAlive("t", SessionKind.User, TimeSpan.FromSeconds(60), TimeSpan.Zero,
                null, e => Say(Line(e)));
            client.Dispose();
            Expect(orphan.State == KeeperState.Ended, "the keeper of a disposed client ended: " + orphan.State);
            orphan.Dispose();
            try { client.KeepAlive("t", SessionKind.User, TimeSpan.Zero, TimeSpan.Zero); Expect(false, "KeepAlive after Dispose throws"); }
            catch (ObjectDisposedException) { Expect(true, "KeepAlive on a disposed client: ObjectDisposedException"); }
        }
        return 0;
    }
}
"##;

/// Compiles `Verify.cs` with the check program once per test binary; returns the `.exe`.
/// The output lives next to the library under test (a build product, rewritten every run).
fn keeper_exe() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        require_tool("mcs", "mono");
        require_tool("mono", "mono");
        let dir = library_dir()
            .parent()
            .expect("target/<profile>")
            .join("csharp-keeper");
        std::fs::create_dir_all(&dir).expect("create the C# build directory");
        let source = dir.join("KeeperChecks.cs");
        std::fs::write(&source, KEEPER_CS).expect("write KeeperChecks.cs");
        let exe = dir.join("KeeperChecks.exe");
        let output = Command::new("mcs")
            .arg("-warnaserror")
            .arg(format!("-out:{}", exe.display()))
            .arg("bindings/csharp/Verify.cs")
            .arg(&source)
            .current_dir(root())
            .output()
            .expect("run mcs");
        let (stdout, stderr) = text(&output);
        assert!(
            output.status.success(),
            "mcs failed ({}):\n{stdout}{stderr}",
            output.status
        );
        exe
    })
    .clone()
}

/// A running `mono KeeperChecks.exe ...` whose output lines are collected on threads.
struct Mono {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<String>>,
}

impl Mono {
    fn spawn(args: &[&str]) -> Mono {
        let exe = keeper_exe();
        let mut child = host_command("mono")
            .arg("--debug") // line numbers in stack traces
            .arg(&exe)
            .args(args)
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run mono");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().expect("piped stdout");
        let sink = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(line) => sink.lock().unwrap().push(line),
                    Err(_) => break,
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().expect("piped stderr");
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = err.read_to_end(&mut bytes);
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&bytes));
        });
        let stdin = child.stdin.take();
        Mono {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// The first line starting with `prefix`, waiting for it up to [`PATIENCE`].
    fn wait_line(&self, prefix: &str) -> String {
        let mut found = None;
        eventually(PATIENCE, || {
            found = self
                .lines()
                .into_iter()
                .find(|line| line.starts_with(prefix));
            found.is_some()
        });
        found.unwrap_or_else(|| panic!("no `{prefix}` line within {PATIENCE:?}\n{}", self.report()))
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{line}").expect("write to mono");
        stdin.flush().expect("flush mono's stdin");
    }

    fn report(&self) -> String {
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            self.lines().join("\n"),
            self.stderr.lock().unwrap()
        )
    }

    /// Waits (deadline polling) for the process to exit; kills it when it does not.
    fn finish(&mut self) -> (ExitStatus, Vec<String>, String) {
        let deadline = Instant::now() + PATIENCE + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("mono did not exit in time\n{}", self.report());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // Let the reader threads drain the pipes.
        let drained = Instant::now() + Duration::from_secs(5);
        while Instant::now() < drained
            && !self
                .lines()
                .iter()
                .any(|l| l.starts_with("CHECKS ") || l.starts_with("unknown mode"))
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(50));
        (status, self.lines(), self.report())
    }
}

impl Drop for Mono {
    fn drop(&mut self) {
        // Only this test's own child, if an assertion left it running.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Asserts a clean exit 0 with every check held.
fn assert_passed(status: ExitStatus, lines: &[String], report: &str) {
    assert!(status.success(), "mono exited with {status}\n{report}");
    assert!(
        lines.iter().any(|l| l == "CHECKS PASSED"),
        "not every check held\n{report}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("FAIL ")),
        "a check failed\n{report}"
    );
    assert!(
        !report.contains("Unhandled Exception"),
        "an exception escaped\n{report}"
    );
}

/// A fresh program with one active account; returns it with the account's name.
fn program_with_account() -> (Program<'static>, String) {
    let program = Program::fresh();
    let user = unique("csk");
    program.account(&user, "pw");
    (program, user)
}

#[test]
fn csharp_keeper_reports_alive_message_and_ban() {
    let (program, user) = program_with_account();
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&["keeper", &url, &program.app_id, APP_KEY, &user, "pw"]);

    let alive = mono.wait_line("event Alive");
    assert_eq!(alive, "event Alive 200 ", "{}", mono.report());

    program
        .sandbox
        .leave_account_message(&program.app_id, &user, "公告 for C#")
        .expect("message");
    let message = mono.wait_line("event Message");
    assert_eq!(
        message,
        "event Message 200 公告 for C#",
        "{}",
        mono.report()
    );

    program
        .sandbox
        .update_account(&program.app_id, &user, "ban", Some("封禁 reason"))
        .expect("ban");
    let ended = mono.wait_line("event Ended");
    assert_eq!(ended, "event Ended 1006 封禁 reason", "{}", mono.report());

    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("event Message"))
            .count(),
        1,
        "the message is delivered once\n{report}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("event Ended"))
            .count(),
        1,
        "one end\n{report}"
    );
    assert!(
        lines.iter().any(|l| l == "state Ended"),
        "State after the end\n{report}"
    );
    assert!(
        lines.iter().any(|l| l == "status Ended 1006 封禁 reason"),
        "Status after the end\n{report}"
    );
}

#[test]
fn csharp_keeper_survives_a_throwing_handler() {
    let (program, user) = program_with_account();
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&["throwing", &url, &program.app_id, APP_KEY, &user, "pw"]);
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    // Every handler call threw; the events after each throw still arrived, and none after
    // the Dispose made from inside the third.
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("event Alive 200"))
            .count(),
        3,
        "{report}"
    );
    assert!(lines.iter().any(|l| l == "survived 3"), "{report}");
}

#[test]
fn csharp_keeper_status_is_polled() {
    let (program, user) = program_with_account();
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&["status", &url, &program.app_id, APP_KEY, &user, "pw"]);
    mono.wait_line("started");
    program
        .sandbox
        .leave_account_message(&program.app_id, &user, "poll me")
        .expect("message");
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    assert!(
        lines.iter().any(|l| l == "messages 1 poll me"),
        "the queued message, once\n{report}"
    );
}

#[test]
fn csharp_disposing_the_client_stops_its_keeper_mid_heartbeat() {
    let (program, user) = program_with_account();
    program.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(program.app_id.clone()),
        action: Some("UserHeartbeat".into()),
        count: None,
        delay_ms: 10_000,
    });
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&["freeclient", &url, &program.app_id, APP_KEY, &user, "pw"]);
    mono.wait_line("started");
    assert!(
        eventually(PATIENCE, || program
            .sandbox
            .request_log(Some(&program.app_id))
            .iter()
            .any(|e| e.action.as_deref() == Some("UserHeartbeat"))),
        "no heartbeat reached the sandbox\n{}",
        mono.report()
    );
    mono.send("go");
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    let ms: u64 = lines
        .iter()
        .find_map(|l| l.strip_prefix("client-dispose-ms "))
        .and_then(|ms| ms.trim().parse().ok())
        .unwrap_or_else(|| panic!("no client-dispose-ms line\n{report}"));
    eprintln!("C#: client Dispose with a heartbeat in flight took {ms} ms");
    assert!(
        ms < 100,
        "disposing the client took {ms} ms with a heartbeat in flight\n{report}"
    );
}

#[test]
fn csharp_social_wait_is_cancellable_and_completes() {
    let program = Program::fresh();
    let user = unique("cssoc");
    let identity = format!("openid-{user}");
    program.accounts(json!([{"username": user, "password": "pw",
        "expire_at": "2099-01-01 00:00:00", "status": "active", "social_id": identity}]));
    let url = program.sandbox.base_url();
    let mono = Mono::spawn(&["social", &url, &program.app_id, APP_KEY]);

    let line = mono.wait_line("waiting-bound ");
    let state = line.trim_start_matches("waiting-bound ").to_owned();
    // Let the wait poll (pending) a few times before the back office completes it.
    std::thread::sleep(Duration::from_millis(200));
    program
        .sandbox
        .authorize_social(&state, &identity, "C# 用户")
        .expect("authorize");
    let line = mono.wait_line("waiting-unbound ");
    let state = line.trim_start_matches("waiting-unbound ").to_owned();
    program
        .sandbox
        .authorize_social(&state, "openid-nobody", "nobody")
        .expect("authorize an unbound identity");

    let mut mono = mono;
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    let line = |prefix: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line\n{report}"))
            .clone()
    };
    assert!(
        line("precancelled ").starts_with("precancelled -7 "),
        "{report}"
    );
    assert!(line("timeout ").starts_with("timeout -4 "), "{report}");
    let cancelled = line("cancelled ");
    let mut fields = cancelled.split(' ').skip(1);
    assert_eq!(fields.next(), Some("-7"), "cancelled with -7\n{report}");
    let ms: u64 = fields
        .next()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no duration in `{cancelled}`\n{report}"));
    eprintln!("C#: SocialLoginWait returned {ms} ms after Cancel");
    assert!(ms < 100, "the wait returned {ms} ms after Cancel\n{report}");
    assert_eq!(
        line("social-bound "),
        format!("social-bound 200 {user} C# 用户"),
        "{report}"
    );
    assert!(
        line("social-unbound ").starts_with("social-unbound 1016 "),
        "{report}"
    );
}

#[test]
fn csharp_machine_code_and_argument_checks() {
    let program = Program::fresh();
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&["misc", &url, &program.app_id, APP_KEY]);
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    let expected = format!(
        "machine {}",
        verify::machine_code("x").expect("machine code")
    );
    assert!(
        lines.contains(&expected),
        "`{expected}` from VerifyLibrary.MachineCode(\"x\")\n{report}"
    );
}
