// CsharpOffline.cs: offline-first through the C# binding, driven by tests/c/offline.rs
// (which plays the back office and the outage with "@@" lines, as tests/c/host.h
// describes). Compiled with `mcs -warnaserror` together with the binding (bindings/csharp/src/).
//
//   mono CsharpOffline.exe BASE_URL APP_ID APP_KEY CARD STATE_DIR
//
// Logs in online with offline verdicts on, asks for a server outage ("@@ pause"), starts
// licensed offline (Reply.IsOffline, Reply.Offline, the typed CardLoginReply), keeps the session
// from that reply (the Keeper's Offline event at once, then Trouble), asks for a ban and the server back and sees
// EventKind.Ended with 1006 and the reason. Prints "RESULT: N checks, M failed".

using System;
using System.Collections.Generic;
using System.Threading;
using Verify;

internal static class CsharpOffline
{
    private static int checks;
    private static int failed;

    private static void Expect(bool ok, string what)
    {
        checks++;
        if (!ok)
        {
            failed++;
            Console.Out.WriteLine("FAIL " + what);
            Console.Out.Flush();
        }
    }

    private static void Ask(string what)
    {
        Console.Out.WriteLine("@@ " + what);
        Console.Out.Flush();
        Console.In.ReadLine();
    }

    private static KeeperEventArgs WaitFor(List<KeeperEventArgs> events, EventKind kind)
    {
        DateTime deadline = DateTime.UtcNow.AddSeconds(20);
        while (DateTime.UtcNow < deadline)
        {
            lock (events)
            {
                KeeperEventArgs found = events.Find(e => e.Kind == kind);
                if (found != null)
                {
                    return found;
                }
            }
            Thread.Sleep(10);
        }
        return null;
    }

    private static ClientOptions Options(string state)
    {
        return new ClientOptions
        {
            StateFolder = state,
            OfflineGrace = TimeSpan.FromDays(7),
            ClockTolerance = TimeSpan.FromMinutes(10),
            ConnectTimeout = TimeSpan.FromSeconds(2),
            CallTimeout = TimeSpan.FromSeconds(5),
        };
    }

    private static int Main(string[] args)
    {
        if (args.Length != 5)
        {
            Console.Error.WriteLine("usage: CsharpOffline.exe BASE_URL APP_ID APP_KEY CARD STATE_DIR");
            return 2;
        }
        string url = args[0], app = args[1], key = args[2], card = args[3], state = args[4];
        ClientOptions options = Options(state);
        using (Client online = new Client(url, app, key, options))
        {
            CardLoginReply login = online.CardLogin(card, "CS-OFFLINE-MAC");
            Expect(login.IsOk && login.IsLicensed && !login.IsOffline && login.Offline == null, "online");
        }
        Ask("pause");
        using (Client client = new Client(url, app, key, options))
        {
            CardLoginReply offline = client.CardLogin(card, "CS-OFFLINE-MAC").EnsureOk();
            Expect(offline.IsOffline && offline.IsLicensed && !offline.IsOk, "offline: " + (int)offline.Code);
            OfflineInfo info = offline.Offline;
            Expect(info != null && info.Reason == ResultCode.Network, "the reason");
            Expect(info != null && info.GraceEnd - info.ConfirmedAt == TimeSpan.FromDays(7), "the grace");
            Expect(offline.ExpireAt != null && offline.ExpireAt.Value.Offset == TimeSpan.FromHours(8), "the stored expiry");
            Expect(info != null && info.ConfirmedAt.Offset == ServiceTime.Offset && info.GraceEnd.Offset == ServiceTime.Offset,
                "one offset for every time of the reply: " + (info == null ? "" : info.ConfirmedAt + " " + info.GraceEnd));
            Expect(offline.Token == null, "no token offline");

            // Subscribed before the start: the Offline event of the start is not missed.
            List<KeeperEventArgs> events = new List<KeeperEventArgs>();
            EventHandler<KeeperEventArgs> record = (sender, e) =>
            {
                lock (events)
                {
                    events.Add(e);
                }
            };
            using (Keeper keeper = new Keeper(client, offline, new KeeperOptions { Interval = TimeSpan.FromSeconds(1) }))
            {
                keeper.Offline += record;
                keeper.Trouble += record;
                keeper.Ended += record;
                keeper.Online += record;
                keeper.Start();
                KeeperEventArgs started = WaitFor(events, EventKind.Offline);
                Expect(started != null && info != null && started.GraceEnd == info.GraceEnd, "offline at once");
                KeeperStatus status = keeper.Status();
                Expect(status.State == KeeperState.Grace && status.LastConfirmed != null && status.GraceEnd != null,
                    "the status offline");
                Expect(WaitFor(events, EventKind.Trouble) != null, "the login is sent again");
                Ask("ban banned while offline");
                Ask("resume");
                KeeperEventArgs ended = WaitFor(events, EventKind.Ended);
                Expect(ended != null && ended.Code == ResultCode.Disabled && ended.Remark == "banned while offline",
                    "ended on the ban: " + ended);
                Expect(keeper.Completion.Wait(TimeSpan.FromSeconds(20)) && keeper.Completion.Result == ended,
                    "Completion completes with the Ended event");
                lock (events)
                {
                    Expect(events.Find(e => e.Kind == EventKind.Online) == null, "never online");
                }
            }
        }
        Console.Out.WriteLine("RESULT: " + checks + " checks, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
