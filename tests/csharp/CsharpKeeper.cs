// CsharpKeeper.cs: the keeper, the cancellable social wait and the machine code through the C#
// binding, driven by tests/csharp/keeper.rs. Compiled with `mcs -warnaserror` together with
// the binding (bindings/csharp/src/).
//
//   mono CsharpKeeper.exe MODE BASE_URL APP_ID APP_KEY [USERNAME PASSWORD | CARD]
//
// Modes:
//   keeper      events of a keeper with a handler, until Ended
//   throwing    a handler that throws; Dispose from inside the handler
//   status      a keeper without handler, polled with Status()
//   freeclient  disposing the client while a heartbeat is in flight (waits for a stdin line)
//   social      SocialLoginWait: pre-cancelled, timed out, cancelled (on a stdin line),
//               completed, refused
//   expiry      a card session kept until the card expires (the test moves the sandbox clock)
//   misc        MachineCode, argument checks, keepers stopped, abandoned, outliving or keeping
//               their client (USERNAME PASSWORD: an account whose token a keeper keeps)
//
// Prints one line per observation (`event <kind> <code> <text-or-remark>`, `ok   ...`,
// `FAIL ...`), then `CHECKS PASSED` and exits 0 when every check held.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;
using Verify;

internal static class CsharpKeeper
{
    private static readonly DateTime Deadline = DateTime.UtcNow.AddSeconds(60);
    private static int failures;

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    private static void Expect(bool ok, string what)
    {
        Say((ok ? "ok   " : "FAIL ") + what);
        if (!ok)
        {
            Interlocked.Increment(ref failures);
        }
    }

    private static TimeSpan Left()
    {
        TimeSpan left = Deadline - DateTime.UtcNow;
        return left > TimeSpan.Zero ? left : TimeSpan.Zero;
    }

    private static string Line(KeeperEventArgs e)
    {
        return "event " + e.Kind + " " + (int)e.Code + " " + (e.Notice ?? e.Remark ?? string.Empty);
    }

    private static string Login(Client client, string user, string pass)
    {
        UserSessionReply login = client.UserLogin(user, pass);
        if (!login.IsOk)
        {
            throw new Exception("login: " + login.Json);
        }
        return login.Token;
    }

    /// <summary>A keeper whose every event goes to <paramref name="onEvent"/>, subscribed before it starts.</summary>
    private static Keeper Keep(Client client, string token, SessionKind kind, TimeSpan interval,
        Action<KeeperEventArgs> onEvent)
    {
        Keeper keeper = new Keeper(client, token, kind, new KeeperOptions { Interval = interval });
        keeper.EventReceived += (sender, e) => onEvent(e);
        keeper.Start();
        return keeper;
    }

    private static int Main(string[] args)
    {
        Console.SetOut(new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)) { AutoFlush = true });
        int code;
        switch (args[0])
        {
            case "keeper":
                code = KeeperMode(args);
                break;
            case "throwing":
                code = ThrowingMode(args);
                break;
            case "status":
                code = StatusMode(args);
                break;
            case "freeclient":
                code = FreeClientMode(args);
                break;
            case "social":
                code = SocialMode(args);
                break;
            case "misc":
                code = MiscMode(args);
                break;
            case "expiry":
                code = ExpiryMode(args);
                break;
            default:
                Say("unknown mode " + args[0]);
                return 2;
        }
        if (Volatile.Read(ref failures) > 0)
        {
            code = 1;
        }
        Say(code == 0 ? "CHECKS PASSED" : "CHECKS FAILED");
        return code;
    }

    private static int KeeperMode(string[] args)
    {
        using (ManualResetEvent ended = new ManualResetEvent(false))
        using (Client client = new Client(args[1], args[2], args[3]))
        {
            string token = Login(client, args[4], args[5]);
            Keeper keeper = Keep(client, token, SessionKind.User, TimeSpan.FromSeconds(1), e =>
            {
                Say(Line(e));
                if (e.Kind == EventKind.Ended)
                {
                    ended.Set();
                }
            });
            // The keeper's callback stays rooted through collections.
            GC.Collect();
            GC.WaitForPendingFinalizers();
            using (keeper)
            {
                Say("started");
                if (!ended.WaitOne(Left()))
                {
                    Say("no Ended event within the deadline");
                    return 1;
                }
                KeeperStatus status = keeper.Status();
                Say("state " + keeper.State);
                Say("status " + status.State + " " + (int)status.LastCode + " " + status.Remark);
                Expect(!keeper.IsAlive && !status.IsAlive, "not alive after the end");
                Expect(status.Succeeded >= 1 && status.Failed >= 1, "counts " + status.Succeeded + "/" + status.Failed);
            }
            return 0;
        }
    }

    private static int ExpiryMode(string[] args)
    {
        using (ManualResetEvent ended = new ManualResetEvent(false))
        using (Client client = new Client(args[1], args[2], args[3]))
        {
            CardLoginReply login = client.CardLogin(args[4], "CSHARP-EXPIRY-MACHINE");
            Expect(login.IsOk, "card login: " + login.Json);
            string token = login.Token;
            using (Keeper keeper = Keep(client, token, SessionKind.Card, TimeSpan.FromSeconds(1), e =>
            {
                Say(Line(e));
                if (e.Kind == EventKind.Ended)
                {
                    ended.Set();
                }
            }))
            {
                Say("started");
                if (!ended.WaitOne(Left()))
                {
                    Say("no Ended event within the deadline");
                    return 1;
                }
                KeeperStatus status = keeper.Status();
                Say("status " + status.State + " " + (int)status.LastCode);
                Expect(status.ExpireAt != null, "the expiry of the last success is kept: " + status.ExpireAt);
            }
        }
        return 0;
    }

    private static int ThrowingMode(string[] args)
    {
        int alive = 0;
        Keeper keeper = null;
        using (ManualResetEvent disposedInside = new ManualResetEvent(false))
        using (Client client = new Client(args[1], args[2], args[3]))
        {
            string token = Login(client, args[4], args[5]);
            keeper = Keep(client, token, SessionKind.User, TimeSpan.FromSeconds(1), e =>
            {
                Say(Line(e));
                if (e.Kind == EventKind.Alive && Interlocked.Increment(ref alive) == 3)
                {
                    keeper.Dispose(); // from inside the handler: must not deadlock
                    disposedInside.Set();
                }
                throw new InvalidOperationException("thrown by the handler");
            });
            if (!disposedInside.WaitOne(Left()))
            {
                Say("fewer than 3 Alive events within the deadline: " + Volatile.Read(ref alive));
                return 1;
            }
            Say("survived " + Volatile.Read(ref alive));
            try
            {
                KeeperState s = keeper.State;
                Expect(false, "State after Dispose: " + s);
            }
            catch (ObjectDisposedException)
            {
                Expect(true, "State after Dispose throws ObjectDisposedException");
            }
            keeper.Dispose();

            // No event after the Dispose: a second keeper with the same interval sees three
            // more heartbeats meanwhile (no sleep: its events are the clock).
            int control = 0;
            using (ManualResetEvent three = new ManualResetEvent(false))
            using (Keeper second = Keep(client, token, SessionKind.User, TimeSpan.FromSeconds(1), e =>
            {
                if (e.Kind == EventKind.Alive && Interlocked.Increment(ref control) == 3)
                {
                    three.Set();
                }
            }))
            {
                Expect(three.WaitOne(Left()), "the control keeper saw 3 heartbeats");
            }
            Expect(Volatile.Read(ref alive) == 3, "no event after Dispose: " + Volatile.Read(ref alive));
        }
        return 0;
    }

    private static int StatusMode(string[] args)
    {
        using (Client client = new Client(args[1], args[2], args[3]))
        {
            KeeperOptions options = new KeeperOptions();
            string token = Login(client, args[4], args[5]);
            options.Interval = TimeSpan.FromSeconds(1);
            options.Grace = TimeSpan.FromSeconds(60);
            options.Ip = "10.1.2.3";
            Expect(options.Interval == TimeSpan.FromSeconds(1) && options.Ip == "10.1.2.3", "options read back");
            using (Keeper keeper = client.StartKeeper(token, SessionKind.User, options))
            {
                // The first heartbeat goes out at once: right after the start it may or may not
                // have been answered yet.
                KeeperStatus first = keeper.Status();
                bool answered = first.Succeeded == 1;
                Expect(first.State == KeeperState.Alive && first.LastCode == (answered ? ResultCode.Ok : 0)
                    && (first.LastSuccess != null) == answered && first.Notices.Count <= 1 && first.Remark == null
                    && first.LastMessage == string.Empty && first.Succeeded <= 1 && first.Failed == 0,
                    "status right after the start: " + first.State + " " + (int)first.LastCode);
                Say("started");
                IReadOnlyList<string> messages = new string[0];
                while (messages.Count == 0 && Left() > TimeSpan.Zero)
                {
                    messages = keeper.Status().Notices;
                    if (messages.Count == 0)
                    {
                        Thread.Sleep(20); // polling with a deadline
                    }
                }
                Say("messages " + messages.Count + " " + string.Join("|", messages));
                KeeperStatus after = keeper.Status();
                Expect(after.LastCode == ResultCode.Ok, "last code " + (int)after.LastCode);
                Expect(after.LastSuccess != null && after.LastSuccess.Value.Year >= 2024
                    && after.LastSuccess.Value <= DateTimeOffset.UtcNow.AddSeconds(1), "last success " + after.LastSuccess);
                Expect(after.ExpireAt != null, "expire_at " + after.ExpireAt);
                Expect(after.Succeeded >= 1 && after.Failed == 0, "counts " + after.Succeeded + "/" + after.Failed);
                Expect(after.Notices.Count == 0, "each message once: " + after.Notices.Count);
                Expect(keeper.State == KeeperState.Alive && keeper.IsAlive, "alive: " + keeper.State);
                keeper.Stop();
                keeper.Stop();
                Expect(keeper.State == KeeperState.Ended && !keeper.IsAlive, "stopped: " + keeper.State);
            }
        }
        return 0;
    }

    private static int FreeClientMode(string[] args)
    {
        // Warm up the code paths measured below.
        new Client(args[1], args[2], args[3]).Dispose();
        int events = 0;
        Client client = new Client(args[1], args[2], args[3]);
        string token = Login(client, args[4], args[5]);
        Keeper keeper = Keep(client, token, SessionKind.User, TimeSpan.FromSeconds(1), e =>
        {
            Interlocked.Increment(ref events);
            Say(Line(e));
        });
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

    private static string Start(Client client)
    {
        return client.SocialLoginStart().State;
    }

    private static int SocialMode(string[] args)
    {
        using (Client client = new Client(args[1], args[2], args[3]))
        {
            string state = Start(client);

            // Warm-up, and a cancelled token ends later waits at once.
            using (CancellationTokenSource cancelled = new CancellationTokenSource())
            {
                cancelled.Cancel();
                cancelled.Cancel();
                Stopwatch watch = Stopwatch.StartNew();
                try
                {
                    client.SocialLoginWait(state, null, TimeSpan.FromSeconds(60), TimeSpan.FromSeconds(60), cancelled.Token);
                    Expect(false, "a cancelled token throws");
                }
                catch (OperationCanceledException)
                {
                    Say("precancelled " + (int)ResultCode.Cancelled + " " + watch.ElapsedMilliseconds);
                }
            }
            {
                Stopwatch watch = Stopwatch.StartNew();
                try
                {
                    client.SocialLoginWait(state, null, TimeSpan.FromMilliseconds(50), TimeSpan.FromMilliseconds(300));
                    Expect(false, "the wait times out");
                }
                catch (VerifyException e)
                {
                    Say("timeout " + (int)e.Code + " " + watch.ElapsedMilliseconds + " " + e.Message);
                }
            }

            // Cancelled from another thread while the wait sleeps between polls: the test sends
            // a line once the wait's first poll reached the server (after the GetBulletin marker).
            using (CancellationTokenSource cancel = new CancellationTokenSource())
            {
                long cancelledAt = 0;
                Thread canceller = new Thread(() =>
                {
                    Console.In.ReadLine();
                    Interlocked.Exchange(ref cancelledAt, Stopwatch.GetTimestamp());
                    cancel.Cancel();
                });
                canceller.Start();
                client.GetBulletin();
                Say("waiting-cancel");
                try
                {
                    client.SocialLoginWait(state, null, TimeSpan.FromSeconds(60), TimeSpan.FromSeconds(60), cancel.Token);
                    Expect(false, "the wait was cancelled");
                }
                catch (OperationCanceledException e)
                {
                    long returned = Stopwatch.GetTimestamp();
                    canceller.Join();
                    long ms = (returned - Interlocked.Read(ref cancelledAt)) * 1000 / Stopwatch.Frequency;
                    VerifyException inner = e.InnerException as VerifyException;
                    Say("cancelled " + (int)(inner == null ? ResultCode.Ok : inner.Code) + " " + ms + " " + e.Message);
                }
            }

            // Completed by the back office while the wait runs: a bound identity, then an unbound one.
            foreach (string label in new[] { "bound", "unbound" })
            {
                state = Start(client);
                Say("waiting-" + label + " " + state);
                UserSessionReply reply = client.SocialLoginWait(state, null, TimeSpan.FromMilliseconds(50), TimeSpan.FromSeconds(60));
                Say("social-" + label + " " + (int)reply.Code + " " + reply.Username + " " + reply.Remark);
            }
        }
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AbandonKeeper(Client client)
    {
        Keep(client, "abandoned-token", SessionKind.Card, TimeSpan.FromSeconds(1), e => Say(Line(e)));
    }

    /// <summary>
    /// A keeper whose client nobody references: only the keeper keeps it. Made on a thread that
    /// ends, so that no stack (Mono scans stacks conservatively) still points at the client.
    /// </summary>
    private static Keeper KeeperOfForgottenClient(string[] args)
    {
        Keeper keeper = null;
        Thread maker = new Thread(() =>
        {
            Client client = new Client(args[1], args[2], args[3]);
            // A token the server knows: the first heartbeat goes out at once.
            keeper = client.StartKeeper(Login(client, args[4], args[5]), SessionKind.User,
                new KeeperOptions { Interval = TimeSpan.FromSeconds(60) });
        });
        maker.Start();
        maker.Join();
        return keeper;
    }

    private static void Collect()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        GC.WaitForPendingFinalizers();
    }

    private static int MiscMode(string[] args)
    {
        string code = Library.MachineCode("x");
        Say("machine " + code);

        // Machine code v2 in a folder of this run: issued, then kept; components without values.
        string folder = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "verify-cs-machine-" + args[2]);
        if (System.IO.Directory.Exists(folder))
        {
            System.IO.Directory.Delete(folder, true);
        }
        MachineCheck first = Library.CheckMachine("x", folder);
        Expect(first.Outcome == MachineOutcome.Issued, "v2 issued: " + first.Outcome);
        Expect(first.Components.Count == 6 && first.Components[0].Kind == MachineComponentKind.BoardUuid, "six components");
        MachineCheck second = Library.CheckMachine("x", folder);
        Expect(second.Outcome == MachineOutcome.Kept && second.Code == first.Code, "v2 kept");
        foreach (MachineComponent c in second.Components)
        {
            Expect(c.State != ComponentState.Differs && c.Name != "unknown" && c.Weight > 0, "component " + c.Name + " " + c.StateName);
        }
        Expect(Library.MachineCode("x", MachineVersion.V2, folder) == first.Code, "v2 through MachineCode");
        Expect(Library.MachineCode("x", MachineVersion.V1, null) == code, "v1 unchanged");
        try
        {
            Library.MachineCode("x", (MachineVersion)9, null);
            Expect(false, "an unknown version throws");
        }
        catch (ArgumentException e)
        {
            Expect(e.ParamName == "version", "an unknown version: ArgumentException: " + e.Message);
        }
        Expect(Library.MachineCode(string.Empty, MachineVersion.V1, null).Length == Library.MachineCodeLength,
            "an empty salt");
        MachineVirtual seen = Library.Virtualization();
        Expect(seen.LooksVirtual == (seen.Signs.Count > 0), "looks virtual when a sign is seen");
        Say("machine-v2 " + first.Code);
        Say("virtual " + (seen.LooksVirtual ? 1 : 0));
        System.IO.Directory.Delete(folder, true);
        Expect(code == Library.MachineCode("x"), "the same code twice");
        Expect(Library.MachineCode(string.Empty).Length == Library.MachineCodeLength, "empty salt");
        Expect(Library.MachineCode("y") != code, "another salt, another code");
        try
        {
            Library.MachineCode(null);
            Expect(false, "null salt throws");
        }
        catch (ArgumentNullException)
        {
            Expect(true, "null salt: ArgumentNullException");
        }

        // Unknown future values are kept as their number, never mapped to a known one.
        KeeperEventArgs future = new KeeperEventArgs((EventKind)9, (ResultCode)(-42), null, null, null, null);
        Expect((int)future.Kind == 9 && future.ToString().StartsWith("9 -42"), "a future event kind: " + future);
        Expect(!KeeperStatus.IsAliveState((KeeperState)7) && KeeperStatus.IsAliveState(KeeperState.Grace),
            "a future keeper state is not alive");

        using (Client client = new Client(args[1], args[2], args[3]))
        {
            KeeperOptions options = new KeeperOptions();
            try
            {
                options.Interval = TimeSpan.FromMilliseconds(999);
                Expect(false, "interval 999 ms throws");
            }
            catch (ArgumentOutOfRangeException e)
            {
                Expect(e.ParamName == "value", "interval 999 ms: ArgumentOutOfRangeException: " + e.Message);
            }
            Expect(options.Interval == TimeSpan.FromMinutes(5), "a refused interval is not kept: " + options.Interval);
            try
            {
                options.Grace = TimeSpan.FromSeconds(-1);
                Expect(false, "negative grace throws");
            }
            catch (ArgumentOutOfRangeException)
            {
                Expect(true, "negative grace: ArgumentOutOfRangeException");
            }
            try
            {
                client.StartKeeper("t", (SessionKind)7).Dispose();
                Expect(false, "kind 7 throws");
            }
            catch (ArgumentException e)
            {
                Expect(e.ParamName == "kind", "kind 7: ArgumentException: " + e.Message);
            }
            try
            {
                client.StartKeeper(string.Empty, SessionKind.User).Dispose();
                Expect(false, "empty token throws");
            }
            catch (ArgumentException e)
            {
                Expect(e.ParamName == "token" && !(e is ArgumentNullException), "empty token: ArgumentException: " + e.Message);
            }
            try
            {
                client.StartKeeper(null, SessionKind.User).Dispose();
                Expect(false, "null token throws");
            }
            catch (ArgumentNullException)
            {
                Expect(true, "null token: ArgumentNullException");
            }
            try
            {
                client.SocialLoginWait("s", null, TimeSpan.Zero, TimeSpan.FromSeconds(1));
                Expect(false, "zero interval throws");
            }
            catch (ArgumentOutOfRangeException)
            {
                Expect(true, "zero poll interval: ArgumentOutOfRangeException");
            }
            try
            {
                client.SocialLoginWait(null, null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));
                Expect(false, "null state throws");
            }
            catch (ArgumentNullException)
            {
                Expect(true, "null state: ArgumentNullException");
            }

#pragma warning disable 618 // CancelToken: obsolete, kept one release
            CancelToken cancel = new CancelToken();
#pragma warning restore 618
            cancel.Cancel();
            cancel.Dispose();
            cancel.Dispose();
            try
            {
                cancel.Cancel();
                Expect(false, "Cancel after Dispose throws");
            }
            catch (ObjectDisposedException)
            {
                Expect(true, "Cancel after Dispose: ObjectDisposedException");
            }

            // A keeper without handler: stopped, then disposed twice.
            options.Interval = TimeSpan.FromSeconds(60);
            Keeper quiet = client.StartKeeper("t", SessionKind.Card, options);
            Expect(quiet.State == KeeperState.Alive, "a new keeper is alive");
            quiet.Stop();
            Expect(quiet.State == KeeperState.Ended && quiet.Status().State == KeeperState.Ended, "a stopped keeper ended");
            quiet.Dispose();
            quiet.Dispose();
            try
            {
                quiet.Stop();
                Expect(false, "Stop after Dispose throws");
            }
            catch (ObjectDisposedException)
            {
                Expect(true, "Stop after Dispose: ObjectDisposedException");
            }

            // A keeper nobody references any more is stopped and freed by its finalizer.
            AbandonKeeper(client);
            Collect();
            Expect(true, "an abandoned keeper was collected without a crash");

            // A keeper keeps its client from being collected: a collected client would stop it.
            Keeper kept = KeeperOfForgottenClient(args);
            Collect();
            Expect(kept.State == KeeperState.Alive, "the keeper of a forgotten client is still alive: " + kept.State);
            kept.Dispose();
            Collect();

            // A keeper outliving its client.
            Keeper orphan = client.StartKeeper("t", SessionKind.User, options);
            client.Dispose();
            Expect(orphan.State == KeeperState.Ended, "the keeper of a disposed client ended: " + orphan.State);
            orphan.Dispose();
            try
            {
                client.StartKeeper("t", SessionKind.User);
                Expect(false, "StartKeeper after Dispose throws");
            }
            catch (ObjectDisposedException)
            {
                Expect(true, "StartKeeper on a disposed client: ObjectDisposedException");
            }
        }
        return 0;
    }
}
