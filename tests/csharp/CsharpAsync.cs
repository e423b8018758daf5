// CsharpAsync.cs: the Task wrappers and the SafeHandle types of the C# binding used on their
// own, driven by tests/csharp/keeper.rs. Compiled with `mcs -warnaserror` together with
// the binding (bindings/csharp/src/).
//
//   mono CsharpAsync.exe MODE BASE_URL APP_ID APP_KEY [USERNAME PASSWORD]
//
// Modes:
//   async    the ...Async calls: off the caller's thread (the test delays GetBulletin and
//            GetLatestVersion by a fault), cancelled before the start (nothing sent), cancelled
//            while running (runs to its end), awaited, and SocialLoginWaitAsync cancelled
//            through a CancellationToken on a stdin line
//   handles  ClientHandle, ReplyHandle, KeeperOptionsHandle, KeeperHandle, KeeperStatusHandle
//            and CancelHandle created and wrapped on their own, shared and disposed in any order
//
// Prints `ok   ...` / `FAIL ...` and a few `name value` lines, then `CHECKS PASSED` and exits 0
// when every check held.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Verify;

internal static class CsharpAsync
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

    private static int Main(string[] args)
    {
        Console.SetOut(new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)) { AutoFlush = true });
        int code;
        switch (args[0])
        {
            case "async":
                code = AsyncMode(args);
                break;
            case "handles":
                code = HandlesMode(args);
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

    /// <summary>Waits for a task within the deadline; true when it completed (in any way).</summary>
    private static bool Settle(Task task)
    {
        try
        {
            return task.Wait(Left());
        }
        catch (AggregateException)
        {
            return true;
        }
    }

    /// <summary>Waits until the task's body runs (or it ended), polling with the deadline.</summary>
    private static void UntilRunning(Task task)
    {
        while (task.Status != TaskStatus.Running && !task.IsCompleted && Left() > TimeSpan.Zero)
        {
            Thread.Sleep(1);
        }
    }

    private static async Task<string> Awaited(Client client)
    {
        Reply init = await client.InitAsync();
        if (!init.IsOk)
        {
            return "init " + (int)init.Code;
        }
        VariableReply variable = await client.GetVariableAsync("greeting");
        Reply call = await client.CallAsync("GetBulletin", null);
        return variable.Value + " | " + call.GetString("/data/bulletin");
    }

    private static async Task<string> AwaitCancelled(Client client, CancellationToken token)
    {
        try
        {
            CardInfoReply reply = await client.GetCardInfoAsync("ASYNC-NEVER-SENT", token);
            return "completed " + (int)reply.Code;
        }
        catch (OperationCanceledException)
        {
            return "OperationCanceledException";
        }
    }

    private static int AsyncMode(string[] args)
    {
        using (Client client = new Client(args[1], args[2], args[3]))
        {
            client.Init();

            // Off the caller's thread: the sandbox delays this GetBulletin by 1.5 s.
            Stopwatch watch = Stopwatch.StartNew();
            Task<BulletinReply> bulletin = client.GetBulletinAsync();
            long returnedMs = watch.ElapsedMilliseconds;
            bool pending = !bulletin.IsCompleted;
            Say("async-returned-ms " + returnedMs);
            Expect(pending, "the task is still running when GetBulletinAsync returned");
            Expect(Settle(bulletin) && bulletin.Status == TaskStatus.RanToCompletion, "the task completed: " + bulletin.Status);
            if (bulletin.Status == TaskStatus.RanToCompletion)
            {
                BulletinReply reply = bulletin.Result;
                Say("async-bulletin " + (int)reply.Code + " " + reply.Bulletin + " " + watch.ElapsedMilliseconds);
            }

            // Arguments are checked on the caller's thread, before any task.
            try
            {
                client.CardLoginAsync(null, "m");
                Expect(false, "a null argument throws at once");
            }
            catch (ArgumentNullException)
            {
                Expect(true, "a null argument throws ArgumentNullException from the call, not the task");
            }

            // Cancelled before it starts: a cancelled task, nothing sent (the test checks the log).
            using (CancellationTokenSource cancelled = new CancellationTokenSource())
            {
                cancelled.Cancel();
                Task<CardInfoReply> never = client.GetCardInfoAsync("ASYNC-NEVER-SENT", cancelled.Token);
                Expect(Settle(never) && never.IsCanceled, "a cancelled token: the task is cancelled: " + never.Status);
                string awaited = AwaitCancelled(client, cancelled.Token).GetAwaiter().GetResult();
                Expect(awaited == "OperationCanceledException", "await throws " + awaited);
                Task<UserSessionReply> wait = client.SocialLoginWaitAsync("never-polled", null, TimeSpan.FromSeconds(1),
                    TimeSpan.FromSeconds(1), cancelled.Token);
                Expect(Settle(wait) && wait.IsCanceled, "SocialLoginWaitAsync with a cancelled token: " + wait.Status);
            }

            // Cancelled while it runs (the sandbox delays this GetLatestVersion by 1 s): the call
            // is interrupted in flight and the task is cancelled at once, with the library's
            // VerifyException (Cancelled) inside its OperationCanceledException.
            using (CancellationTokenSource late = new CancellationTokenSource())
            {
                Task<LatestVersionReply> version = client.GetLatestVersionAsync("1.0.0", late.Token);
                UntilRunning(version);
                Stopwatch cancelledAt = Stopwatch.StartNew();
                late.Cancel();
                Expect(Settle(version) && version.IsCanceled,
                    "cancelled while running: the task is cancelled: " + version.Status);
                Expect(cancelledAt.ElapsedMilliseconds < 500,
                    "cancelled in flight, not at the reply: " + cancelledAt.ElapsedMilliseconds + " ms");
                try
                {
                    version.GetAwaiter().GetResult();
                }
                catch (OperationCanceledException e)
                {
                    VerifyException inner = e.InnerException as VerifyException;
                    Expect(inner != null && inner.Code == ResultCode.Cancelled && e.Message.Contains("GetLatestVersion"),
                        "the library's words inside: " + e.Message);
                }
            }

            // await.
            string both = Awaited(client).GetAwaiter().GetResult();
            Expect(both == "你好 & welcome | 公告 bulletin", "awaited: " + both);

            // A failure comes out of the task as the VerifyException.
            Task<UserSessionReply> timeout = client.SocialLoginWaitAsync(Start(client), null, TimeSpan.FromMilliseconds(50),
                TimeSpan.FromMilliseconds(300));
            Settle(timeout);
            VerifyException error = timeout.Exception == null ? null : timeout.Exception.InnerException as VerifyException;
            Expect(timeout.IsFaulted && error != null && error.Code == ResultCode.Timeout,
                "a timed-out wait faults with VerifyException Timeout: " + timeout.Status);

            // SocialLoginWaitAsync cancelled through its CancellationToken while it waits: the
            // test sends a line once the wait's first poll reached the server (after the
            // GetBulletin marker). The main thread is free meanwhile: it reads that line.
            string state = Start(client);
            using (CancellationTokenSource cts = new CancellationTokenSource())
            {
                client.GetBulletin();
                Task<UserSessionReply> wait = client.SocialLoginWaitAsync(state, null, TimeSpan.FromSeconds(60),
                    TimeSpan.FromSeconds(60), cts.Token);
                Say("waiting-async");
                Console.In.ReadLine();
                Expect(!wait.IsCompleted, "the wait still runs when the test cancels: " + wait.Status);
                Stopwatch cancelWatch = Stopwatch.StartNew();
                cts.Cancel();
                bool settled = Settle(wait);
                long ms = cancelWatch.ElapsedMilliseconds;
                Say("async-cancelled " + wait.Status + " " + ms);
                Expect(settled && wait.IsCanceled, "the wait's task is cancelled: " + wait.Status);
            }
        }
        return 0;
    }

    private static string Start(Client client)
    {
        return client.SocialLoginStart().State;
    }

    private static int HandlesMode(string[] args)
    {
        string url = args[1], app = args[2], key = args[3], user = args[4], pass = args[5];

        // A client handle on its own, shared by two clients; a reply outlives both.
        ClientHandle clientHandle = ClientHandle.Create(url, app, key);
        Expect(!clientHandle.IsInvalid && !clientHandle.IsClosed, "ClientHandle.Create");
        Client first = new Client(clientHandle);
        Client second = new Client(clientHandle);
        Reply bulletin = first.GetBulletin();
        string token = second.UserLogin(user, pass).Token;
        Expect(token != null && token.Length == 40, "two clients over one handle share the session: " + (token ?? "null"));

        // A reply handle wrapped again, read after the client is gone.
        ReplyHandle replyHandle = bulletin.Handle;
        Reply again = new Reply(replyHandle);

        // Options, keeper and status handles on their own; the options are freed right after
        // the start, and the keeper's callback stays rooted by its handle.
        int alive = 0;
        KeeperHandle keeperHandle;
        using (ManualResetEvent aliveSeen = new ManualResetEvent(false))
        {
            using (KeeperOptionsHandle optionsHandle = new KeeperOptions { Interval = TimeSpan.FromSeconds(1) }.ToHandle())
            {
                optionsHandle.SetEventHandler(e =>
                {
                    if (e.Kind == EventKind.Alive && Interlocked.Increment(ref alive) == 1)
                    {
                        aliveSeen.Set();
                    }
                });
                keeperHandle = KeeperHandle.Start(clientHandle, token, SessionKind.User, optionsHandle);
            }
            GC.Collect();
            GC.WaitForPendingFinalizers();
            Expect(aliveSeen.WaitOne(Left()), "an event reaches the handler of freed options");
        }
        Keeper keeper = new Keeper(keeperHandle);
        using (KeeperStatusHandle statusHandle = KeeperStatusHandle.Take(keeperHandle))
        {
            KeeperStatus status = new KeeperStatus(statusHandle);
            Expect(status.State == KeeperState.Alive && status.Succeeded >= 1, "a status handle on its own: " + status.State + " " + status.Succeeded);
        }
        using (KeeperHandle defaults = KeeperHandle.Start(clientHandle, token, SessionKind.User, null))
        {
            Expect(new Keeper(defaults).State == KeeperState.Alive, "KeeperHandle.Start with the default options");
        }

        // Disposed in any order: the client first (its keepers stop), then the rest.
        first.Dispose();
        Expect(clientHandle.IsClosed, "disposing one client closes the shared handle");
        try
        {
            second.GetBulletin();
            Expect(false, "the other client over the handle is disposed too");
        }
        catch (ObjectDisposedException)
        {
            Expect(true, "the other client throws ObjectDisposedException");
        }
        Expect(keeper.State == KeeperState.Ended, "the keeper of the disposed client ended: " + keeper.State);
        Expect(again.GetString("/data/bulletin") == "公告 bulletin", "a reply outlives its client");
        bulletin.Handle.Dispose();
        Expect(replyHandle.IsClosed, "disposing a reply's handle closes the handle of its twin");
        keeperHandle.Dispose();
        try
        {
            KeeperState state = keeper.State;
            Expect(false, "State after the handle was disposed: " + state);
        }
        catch (ObjectDisposedException)
        {
            Expect(true, "a Keeper over a disposed handle throws ObjectDisposedException");
        }

        // A cancel handle on its own, through the obsolete CancelToken (kept one release).
#pragma warning disable 618
        using (CancelHandle cancelHandle = CancelHandle.Create())
        {
            new CancelToken(cancelHandle).Cancel();
            using (Client client = new Client(url, app, key))
            {
                try
                {
                    client.SocialLoginWait("any-state", null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(5),
                        new CancelToken(cancelHandle));
                    Expect(false, "a cancelled handle ends the wait");
                }
                catch (VerifyException e)
                {
                    Expect(e.Code == ResultCode.Cancelled, "a CancelHandle wrapped twice: " + e.Code);
                }
            }
        }

#pragma warning restore 618

        // Wrapping a handle that is null, NULL or closed.
        try
        {
            new Client((ClientHandle)null).Dispose();
            Expect(false, "a null handle throws");
        }
        catch (ArgumentNullException)
        {
            Expect(true, "a null handle: ArgumentNullException");
        }
        try
        {
            new Reply(new ReplyHandle()).ToString();
            Expect(false, "a NULL handle throws");
        }
        catch (ArgumentException)
        {
            Expect(true, "a NULL handle: ArgumentException");
        }
        try
        {
            new Client(clientHandle).Dispose();
            Expect(false, "a closed handle throws");
        }
        catch (ObjectDisposedException)
        {
            Expect(true, "a closed handle: ObjectDisposedException");
        }
        List<SafeHandleInfo> leftovers = new List<SafeHandleInfo>
        {
            new SafeHandleInfo("client", clientHandle.IsClosed),
            new SafeHandleInfo("reply", replyHandle.IsClosed),
            new SafeHandleInfo("keeper", keeperHandle.IsClosed),
        };
        foreach (SafeHandleInfo info in leftovers)
        {
            Expect(info.Closed, info.Name + " handle closed");
        }
        return 0;
    }

    private struct SafeHandleInfo
    {
        public readonly string Name;
        public readonly bool Closed;

        public SafeHandleInfo(string name, bool closed)
        {
            Name = name;
            Closed = closed;
        }
    }
}
