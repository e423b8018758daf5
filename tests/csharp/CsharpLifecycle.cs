// CsharpLifecycle.cs: a C# program on Mono that ends with a running keeper whose events go
// to a managed handler (run by tests/c/lifecycle.rs).
//
//   mono CsharpLifecycle.exe BASE_URL APP_ID APP_KEY CARD
//       Logs in, starts a keeper (heartbeat every second) with an EventReceived handler, waits
//       for its first event, prints "ending" and returns from Main without disposing anything:
//       the runtime shuts down with the keeper's threads running (their SafeHandles are
//       finalized, or not, as Mono decides). The test requires the process to end within
//       seconds with status 0 and nothing on stderr.

using System;
using System.Diagnostics;
using System.Threading;
using Verify;

internal static class CsharpLifecycle
{
    // Kept reachable to the end: never disposed.
    private static Client client;
    private static Keeper keeper;
    private static int events;

    private static int Main(string[] args)
    {
        client = new Client(args[0], args[1], args[2]);
        CardLoginReply login = client.CardLogin(args[3], "CSHARP-LIFECYCLE-MAC");
        if (!login.IsOk)
        {
            Console.WriteLine("FAIL: the login: " + login.Json);
            return 1;
        }
        keeper = new Keeper(client, login.Token, SessionKind.Card,
            new KeeperOptions { Interval = TimeSpan.FromSeconds(1) });
        keeper.EventReceived += (sender, e) => Interlocked.Increment(ref events);
        keeper.Start();
        Stopwatch waited = Stopwatch.StartNew();
        while (Volatile.Read(ref events) == 0 && waited.Elapsed < TimeSpan.FromSeconds(20))
        {
            Thread.Sleep(20);
        }
        if (Volatile.Read(ref events) == 0)
        {
            Console.WriteLine("FAIL: no event from the keeper");
            return 1;
        }
        Console.WriteLine("RESULT: exit: a keeper runs, its events reach a managed handler");
        Console.WriteLine("ending");
        Console.Out.Flush();
        return 0;
    }
}
