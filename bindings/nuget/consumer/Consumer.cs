// Consumer.cs: a program using the VerifySdk NuGet package as a C# developer writes it: the
// program a C# newcomer writes (a card login, an account login, the keeper seeing a ban, a wrong
// password and a bad card) on the typed API, with no JSON Pointer and no Dispose of a reply.
// tests/package/nuget.rs restores the package from a local folder (packages.config beside this file),
// compiles this file against the package's lib/net47/Verify.dll with warnings as errors, puts
// the package's runtimes/linux-x64/native/libverify.so next to it and runs it on Mono:
//
//   nuget restore packages.config -PackagesDirectory packages -Source FOLDER
//   mcs -warnaserror -r:packages/VerifySdk.VERSION/lib/net47/Verify.dll -out:Consumer.exe Consumer.cs
//   mono Consumer.exe BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD
//
// It asks the test to ban CARD ("@@ ban REASON", answered "go") and prints what it saw
// ("card expire_at TEXT SECONDS", ...), the file the native library was loaded from (Linux),
// then "RESULT: N checks, M failed"; it exits 0 when every check held. Without arguments it
// only loads the library (the test runs it so with the native library missing, to read the
// DllNotFoundException).

using System;
using System.IO;
using System.Threading.Tasks;
using Verify;

public static class Consumer
{
    private static int checks;
    private static int failed;

    private static void Check(bool ok, string what)
    {
        checks++;
        if (!ok)
        {
            failed++;
            Console.WriteLine("FAIL " + what);
        }
    }

    private static void Ask(string what)
    {
        Console.WriteLine("@@ " + what);
        Console.Out.Flush();
        Console.In.ReadLine();
    }

    public static int Main(string[] args)
    {
        if (args.Length == 0)
        {
            try
            {
                Console.WriteLine("library " + Library.Version);
                return 0;
            }
            catch (DllNotFoundException e)
            {
                Console.WriteLine("DllNotFoundException: " + e.Message);
                return 3;
            }
        }
        if (args.Length != 6)
        {
            Console.Error.WriteLine("usage: Consumer.exe BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD");
            return 2;
        }
        Console.WriteLine("library " + Library.Version + " ABI " + Library.AbiVersion);
        // Blocking on the async part: Mono's mcs has no async Main (CS5001).
        Run(args).GetAwaiter().GetResult();
        PrintLoadedLibrary();
        Console.WriteLine("RESULT: " + checks + " checks, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }

    private static async Task Run(string[] args)
    {
        string url = args[0], appId = args[1], appKey = args[2];
        string card = args[3], username = args[4], password = args[5];
        var options = new ClientOptions { CallTimeout = TimeSpan.FromSeconds(20) };
        using (var client = new Client(url, appId, appKey, options))
        {
            string mac = Library.MachineCode(appId);

            // A card login, the throwing form: EnsureOk gives the typed reply or throws.
            CardLoginReply login = client.CardLogin(card, mac).EnsureOk();
            Check(login.IsOk && !login.IsOffline, "card login");
            Check(login.Token != null && login.Token.Length == 40, "a token");
            Check(login.IsCountCard == false, "a duration card");
            Check(login.ExpireAt.HasValue && login.ExpireAt.Value.Offset == ServiceTime.Offset, "an expiry at +08:00");
            if (login.ExpireAt.HasValue)
            {
                Console.WriteLine("card expire_at " + ServiceTime.Format(login.ExpireAt.Value) + " "
                    + login.ExpireAt.Value.ToUnixTimeSeconds());
            }

            // An account login, awaited.
            UserSessionReply session = (await client.UserLoginAsync(username, password, mac)).EnsureOk();
            Check(session.Username == username && session.Token != null, "account login");
            if (session.ExpireAt.HasValue)
            {
                Console.WriteLine("account expire_at " + ServiceTime.Format(session.ExpireAt.Value) + " "
                    + session.ExpireAt.Value.ToUnixTimeSeconds());
            }

            // A wrong password: VerifyRefusedException with the server's code and message.
            try
            {
                client.UserLogin(username, "wrong-password", mac).EnsureOk();
                Check(false, "a wrong password throws");
            }
            catch (VerifyRefusedException e)
            {
                Check(e.Code == ResultCode.WrongPassword && !e.IsConfiguration, "1003");
                Console.WriteLine("wrong password " + (int)e.Code + " " + e.Message);
            }

            // A bad card, the non-throwing form: the reply says so.
            CardLoginReply bad = client.CardLogin("BAD0-CARD-0000-0000", mac);
            Check(bad.IsRefusal && bad.Code == ResultCode.CardInvalid && bad.Token == null, "a bad card");
            Console.WriteLine("bad card " + (int)bad.Code);

            // A wrong AppKey with every refusal thrown: a configuration refusal.
            using (var wrong = new Client(url, appId, "WRONGKEY0123456789ABCDEFGHIJKLMN",
                new ClientOptions { ThrowOnRefusal = true }))
            {
                try
                {
                    wrong.GetBulletin();
                    Check(false, "a wrong AppKey throws");
                }
                catch (VerifyConfigurationException e)
                {
                    Check(e.Code == ResultCode.AppKeyWrong, "1011");
                    Console.WriteLine("wrong key " + (int)e.Code + " configuration");
                }
            }

            // The keeper sees a ban: its Ended event and its Completion task.
            using (var keeper = new Keeper(client, login, new KeeperOptions { Interval = TimeSpan.FromSeconds(1) }))
            {
                string ended = null;
                keeper.Ended += (sender, e) => ended = (int)e.Code + " " + e.Remark;
                keeper.Start();
                Ask("ban cheating detected");
                Task finished = await Task.WhenAny(keeper.Completion, Task.Delay(TimeSpan.FromSeconds(60)));
                Check(finished == keeper.Completion, "the session ended within a minute");
                if (finished == keeper.Completion)
                {
                    KeeperEventArgs end = keeper.Completion.Result;
                    Check(end.Code == ResultCode.Disabled && end.Remark == "cheating detected", "1006 with the reason");
                    Check(ended == "1006 cheating detected", "the Ended event: " + ended);
                    Console.WriteLine("keeper ended " + (int)end.Code + " " + end.Remark);
                }
                Check(keeper.State == KeeperState.Ended, "the keeper ended");
            }
        }
    }

    private static void PrintLoadedLibrary()
    {
        if (!File.Exists("/proc/self/maps"))
        {
            return;
        }
        foreach (string line in File.ReadAllLines("/proc/self/maps"))
        {
            int at = line.IndexOf('/');
            if (at >= 0 && line.EndsWith("/libverify.so"))
            {
                Console.WriteLine("loaded " + line.Substring(at));
                return;
            }
        }
    }
}
