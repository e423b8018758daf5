// CsharpCancel.cs: a call cancelled in flight as a C# program cancels it: an ...Async method
// with a CancellationToken (run by tests/csharp/cancel.rs on loopback, and by the network lab's
// tests/lab/cancel.rs).
//
//   CsharpCancel.exe inflight BASE_URL APP_ID APP_KEY AFTER_MS bulletin|login|doctor|client-doctor [CARD MAC]
//       the call's ...Async form (doctor: Library.DiagnoseAsync; client-doctor:
//       Client.DiagnoseAsync), its token cancelled AFTER_MS after the call started; prints
//       "cancelled code=C after_cancel_ms=T message=M" (T: from the cancel to the task's end)
//   CsharpCancel.exe before BASE_URL APP_ID APP_KEY
//       a token cancelled before the call: the task is cancelled and nothing is sent (the test
//       counts the requests); a token never cancelled changes nothing
//
// With $VERIFY_HOST_CA the client trusts that CA too (the lab's https sandbox).

using System;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Verify;

public static class CsharpCancel
{
    private static int failures;

    private static void Expect(bool condition, string what)
    {
        if (!condition)
        {
            failures++;
            Console.WriteLine("FAIL " + what);
        }
    }

    private static ClientOptions OptionsOf()
    {
        ClientOptions options = new ClientOptions();
        string ca = Environment.GetEnvironmentVariable("VERIFY_HOST_CA");
        if (!string.IsNullOrEmpty(ca))
        {
            options.RootFiles.Add(ca);
        }
        return options;
    }

    private static Client ClientOf(string baseUrl, string appId, string appKey)
    {
        return new Client(baseUrl, appId, appKey, OptionsOf());
    }

    public static int Main(string[] args)
    {
        if (args.Length >= 6 && args[0] == "inflight")
        {
            return Inflight(args).GetAwaiter().GetResult();
        }
        if (args.Length >= 4 && args[0] == "before")
        {
            return Before(args).GetAwaiter().GetResult();
        }
        Console.Error.WriteLine("usage: CsharpCancel.exe inflight BASE_URL APP_ID APP_KEY AFTER_MS bulletin|login|doctor|client-doctor [CARD MAC]");
        return 2;
    }

    private static async Task<int> Inflight(string[] args)
    {
        using (Client client = ClientOf(args[1], args[2], args[3]))
        using (CancellationTokenSource cancel = new CancellationTokenSource())
        {
            // The time is taken before the cancel, on the canceller's own task: a callback
            // registered on the token runs after the library's own (callbacks run in reverse
            // order of registration), so the call could end before such a callback had run.
            long cancelledAt = 0;
            int afterMs = int.Parse(args[4]);
            Task canceller = Task.Run(async () =>
            {
                await Task.Delay(afterMs);
                Interlocked.Exchange(ref cancelledAt, Stopwatch.GetTimestamp());
                cancel.Cancel();
            });
            ResultCode code = ResultCode.Ok;
            string message = string.Empty;
            try
            {
                if (args[5] == "login" && args.Length >= 8)
                {
                    await client.CardLoginAsync(args[6], args[7], null, cancel.Token);
                }
                else if (args[5] == "doctor")
                {
                    await Library.DiagnoseAsync(args[1], args[2], args[3], OptionsOf(), TimeSpan.FromSeconds(10), cancel.Token);
                }
                else if (args[5] == "client-doctor")
                {
                    await client.DiagnoseAsync(null, TimeSpan.FromSeconds(10), cancel.Token);
                }
                else
                {
                    await client.GetBulletinAsync(cancel.Token);
                }
                Expect(false, "the call was cancelled");
            }
            catch (OperationCanceledException e)
            {
                VerifyException inner = e.InnerException as VerifyException;
                code = inner == null ? ResultCode.Ok : inner.Code;
                message = e.Message;
                Expect(e.CancellationToken == cancel.Token, "the task's own token");
            }
            long returned = Stopwatch.GetTimestamp();
            await canceller;
            double late = (returned - Interlocked.Read(ref cancelledAt)) * 1000.0 / Stopwatch.Frequency;
            Expect(code == ResultCode.Cancelled, "the library's code: " + code);
            Console.WriteLine("cancelled code={0} after_cancel_ms={1:F1} message={2}", (int)code, late, message);
        }
        Console.WriteLine("checks: {0} failed", failures);
        return failures == 0 ? 0 : 1;
    }

    private static async Task<int> Before(string[] args)
    {
        using (Client client = ClientOf(args[1], args[2], args[3]))
        {
            using (CancellationTokenSource cancelled = new CancellationTokenSource())
            {
                cancelled.Cancel();
                Task<BulletinReply> call = client.GetBulletinAsync(cancelled.Token);
                try
                {
                    await call;
                    Expect(false, "a token cancelled before the call cancels it");
                }
                catch (OperationCanceledException)
                {
                    Expect(call.IsCanceled, "the task is cancelled, not faulted");
                }
                try
                {
                    client.SocialLoginWait("any-state", null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(5), cancelled.Token);
                    Expect(false, "a cancelled token ends the wait");
                }
                catch (OperationCanceledException)
                {
                    Expect(true, "the wait: OperationCanceledException");
                }
            }
            Console.WriteLine("@@ nothing-sent");
            Console.In.ReadLine();
            using (CancellationTokenSource never = new CancellationTokenSource())
            {
                BulletinReply reply = await client.GetBulletinAsync(never.Token);
                Expect(reply.IsOk, "a token never cancelled changes nothing");
            }
        }
        Console.WriteLine("checks: {0} failed", failures);
        return failures == 0 ? 0 : 1;
    }
}
