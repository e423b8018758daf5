// CsharpChecks.cs: the C# binding's paths other than the demo, driven by tests/csharp_demo.rs.
//
//   mono CsharpChecks.exe BASE_URL APP_ID APP_KEY USERNAME
//
// The program has an account alice / alice-pass; USERNAME is free. Prints `ok   ...` or
// `FAIL ...` per check, then `CHECKS PASSED` and exits 0 when all held (1 otherwise).
// Compiled with `mcs -warnaserror` together with bindings/csharp/Verify.cs.

using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using System.Threading;
using Verify;

internal static class CsharpChecks
{
    private const string Pass = "pässwörd ✓ &=+% 密码";

    private static int failures;

    private static void Expect(bool ok, string what)
    {
        Console.WriteLine((ok ? "ok   " : "FAIL ") + what);
        if (!ok)
        {
            failures++;
        }
    }

    private static int Main(string[] args)
    {
        Console.SetOut(new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)) { AutoFlush = true });
        string url = args[0], app = args[1], key = args[2], user = args[3];
        Expect(Library.AbiVersion == Library.BindingAbiVersion && Library.BindingAbiVersion == 2,
            "ABI " + Library.AbiVersion);
        using (Client c = new Client(url, app, key))
        {
            c.SetTimeouts(TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(10));
            Refusals(c);
            Accessors(c);
            Calls(c, user);
            ArgumentChecks(c);
            Concurrent(c);
            c.Dispose();
            try
            {
                c.GetBulletin();
                Expect(false, "call after Dispose throws");
            }
            catch (ObjectDisposedException)
            {
                Expect(true, "a call after Dispose throws ObjectDisposedException");
            }
        }

        try
        {
            new Client("not a url", app, key).Dispose();
            Expect(false, "a bad URL throws");
        }
        catch (VerifyException e)
        {
            Expect(e.Code == ResultCode.InvalidArgument && e.Message.Length > 0, "bad URL: " + e.Code + ": " + e.Message);
        }
        try
        {
            new Client("http://例子.测试", app, key).Dispose();
            Expect(false, "a non-ASCII host throws");
        }
        catch (VerifyException e)
        {
            Expect(e.Code == ResultCode.InvalidArgument, "non-ASCII host: " + e.Code + ": " + e.Message);
        }
        using (Client c = new Client("http://127.0.0.1:1", app, key))
        {
            try
            {
                c.GetBulletin();
                Expect(false, "an unreachable server throws");
            }
            catch (VerifyException e)
            {
                Expect(e.Code == ResultCode.Network && e.Message.Length > 0, "unreachable: " + e.Code + ": " + e.Message);
            }
        }
        ClientOptionsChecks(url, app, key);
        Expect(Library.CodePage == Library.Utf8CodePage, "the library speaks UTF-8: " + Library.CodePage);
        Expect(Library.Describe(ResultCode.Disabled).Length > 0, "Describe: " + Library.Describe(ResultCode.Disabled));
        Expect(Library.Describe(ResultCode.System) != Library.Describe(ResultCode.Network), "System has its own text");
        Expect(Library.Version.Length > 0, "version " + Library.Version);

        Console.WriteLine(failures == 0 ? "CHECKS PASSED" : "CHECKS FAILED");
        return failures == 0 ? 0 : 1;
    }

    private static void Throws(Action action, ResultCode expected, string what)
    {
        try
        {
            action();
            Expect(false, what + ": no exception");
        }
        catch (VerifyException e)
        {
            Expect(e.Code == expected, what + ": " + e.Code + ": " + e.Message);
        }
    }

    private static void ClientOptionsChecks(string url, string app, string key)
    {
        // A mirror behind an unreachable first server, a log handler that throws, options
        // disposed (and collected) before the client is used: the client keeps its copy and
        // its log handler.
        List<string> logged = new List<string>();
        Client client;
        using (ClientOptions options = new ClientOptions())
        {
            options.AddMirror(url);
            options.SetTimeouts(TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(10));
            options.SetProxy(ProxyMode.None);
            options.OnLog = (level, message) =>
            {
                lock (logged)
                {
                    logged.Add(level + " " + message);
                }
                throw new InvalidOperationException("dropped by the binding");
            };
            Expect(options.OnLog != null && !options.AllowInsecureHttp && options.Trust == TrustStores.Mozilla,
                "options read back");
            client = new Client("http://127.0.0.1:1", app, key, options);
        }
        GC.Collect();
        GC.WaitForPendingFinalizers();
        using (client)
        using (Reply r = client.GetBulletin())
        {
            Expect(r.IsOk && r.GetString("/data/bulletin") == "公告 bulletin", "failover to the mirror: " + (int)r.Code);
        }
        string[] lines;
        lock (logged)
        {
            lines = logged.ToArray();
        }
        Expect(lines.Length > 0, "the log handler ran " + lines.Length + " times");
        foreach (string line in lines)
        {
            Console.WriteLine("log  " + line);
        }
        Expect(Array.TrueForAll(lines, l => !l.Contains(key)), "no AppKey in the log");

        using (ClientOptions options = new ClientOptions())
        {
            Throws(() => new Client("http://example.invalid", app, key, options).Dispose(), ResultCode.InvalidArgument,
                "plain http to another host is refused");
            options.AllowInsecureHttp = true;
            new Client("http://example.invalid", app, key, options).Dispose();
            Expect(options.AllowInsecureHttp, "plain http allowed by the options");
            Throws(() => options.AddPin("not base64!"), ResultCode.InvalidArgument, "a bad pin");
            Throws(() => options.AddRootPem("no certificate"), ResultCode.InvalidArgument, "a PEM without certificate");
            Throws(() => options.SetProxy(ProxyMode.Url), ResultCode.InvalidArgument, "a proxy mode without URL");
        }
        using (ClientOptions options = new ClientOptions())
        {
            options.Trust = TrustStores.None;
            Throws(() => new Client("https://example.invalid", app, key, options).Dispose(), ResultCode.InvalidArgument,
                "trusting nothing");
        }
        using (ClientOptions options = new ClientOptions())
        {
            // A name DNS does not know, given its address; every attempt at once; a state
            // folder (the per-user default).
            string port = url.Substring(url.LastIndexOf(':') + 1);
            options.AddAddress("fixed.verify.test", "127.0.0.1");
            options.AllowInsecureHttp = true;
            options.AttemptDelay = TimeSpan.Zero;
            options.SetStateFolder();
            Expect(options.AttemptDelay == TimeSpan.Zero, "attempt delay read back");
            using (Client named = new Client("http://fixed.verify.test:" + port, app, key, options))
            using (Reply r = named.GetBulletin())
            {
                Expect(r.IsOk, "a fixed address: " + (int)r.Code);
            }
            Throws(() => options.AddAddress("fixed.verify.test", "not an address"), ResultCode.InvalidArgument,
                "an address that is no IP address");
            Throws(() => options.AttemptDelay = TimeSpan.FromSeconds(11), ResultCode.InvalidArgument,
                "an attempt delay over 10 s");
        }
        using (ClientOptions options = new ClientOptions())
        {
            options.AddMirror("not a url");
            Throws(() => new Client(url, app, key, options).Dispose(), ResultCode.InvalidArgument, "a mirror that does not parse");
        }
    }

    private static void Refusals(Client c)
    {
        using (Reply r = c.UserLogin("alice", "wrong-pass", "M1"))
        {
            Expect(r.Code == ResultCode.WrongPassword, "refusal is a reply: " + (int)r.Code);
            Expect(r.Message.Length > 0, "refusal message: " + r.Message);
            Expect(r.Remark == null && r.GetInt64("/data/absent") == null, "no remark on 1003");
            Expect(Library.LastErrorCode == 1003, "absent fields keep the last error: " + Library.LastErrorCode);
            Expect(r.GetInt64("/code") == 1003, "/code: " + r.GetInt64("/code"));
        }
    }

    private static void Accessors(Client c)
    {
        using (Reply r = c.GetUserInfo("alice", "alice-pass"))
        {
            Expect(r.IsOk, "user info: " + r.Json);
            Expect(r.GetInt64("/data/bind_count") == 0, "an integer 0 is 0, not null");
            Expect(r.GetInt64("/data/user_id") > 0, "user_id: " + r.GetInt64("/data/user_id"));
            Expect(r.GetInt64("/data/absent") == null, "absent integer is null");
            Expect(r.GetString("/data/absent") == null, "absent string is null");
            Expect(r.GetBool("/data/absent") == null, "absent boolean is null");
            Expect(r.GetJson("/data/absent") == null, "absent JSON is null");
            Expect(r.GetBool("/data/username") == null && r.GetInt64("/data/username") == null, "another type is null");
            Expect(r.GetString("/data/bind_count") == "0", "a number as text");
            Expect(r.GetString("/data") == null && r.GetJson("/data").StartsWith("{"), "an object: no string, JSON: " + r.GetJson("/data"));
            Expect(r.Remark == string.Empty, "empty remark");
            Expect(r.Json.Contains("\"code\":200"), "the whole reply: " + r.Json);
            try
            {
                r.GetString("data.username");
                Expect(false, "a dotted path throws");
            }
            catch (VerifyException e)
            {
                Expect(e.Code == ResultCode.InvalidArgument, "a dotted path is not a pointer: " + e.Code + ": " + e.Message);
            }

            // A second Reply over the same handle reads the same reply; disposing one frees both.
            Reply again = new Reply(r.Handle);
            Expect(again.GetString("/data/username") == "alice", "a Reply over the handle of another");
            again.Dispose();
            Expect(r.Handle.IsClosed, "disposing one wrapper closes the shared handle");
            try
            {
                ResultCode code = r.Code;
                Expect(false, "read after Dispose: " + code);
            }
            catch (ObjectDisposedException)
            {
                Expect(true, "read after Dispose throws ObjectDisposedException");
            }
        }
        Expect(Reply.Pointer("data", "variables", "a/b~c.d") == "/data/variables/a~1b~0c.d",
            "Pointer escapes: " + Reply.Pointer("data", "variables", "a/b~c.d"));
    }

    private static void Calls(Client c, string user)
    {
        using (Reply r = c.UserRegister(user, Pass))
        {
            Expect(r.IsOk && r.GetString("/data/username") == user, "register with a non-ASCII name: " + r.Json);
        }
        Dictionary<string, string> parameters = new Dictionary<string, string>();
        parameters.Add("UserName", user);
        parameters.Add("Password", Pass);
        using (Reply r = c.Call("GetUserInfo", parameters))
        {
            Expect(r.IsOk && r.GetString("/data/username") == user, "Call with a dictionary, UTF-8 round trip: " + r.Json);
        }
        using (Reply r = c.Call("GetBulletin"))
        {
            Expect(r.IsOk && r.GetString("/data/bulletin") == "公告 bulletin", "Call without parameters: " + r.GetString("/data/bulletin"));
        }
        using (Reply r = c.Call("NoSuchAction", new KeyValuePair<string, string>("a", string.Empty)))
        {
            Expect(r.Code == ResultCode.UnknownAction, "unknown action: " + (int)r.Code);
        }
        using (Reply r = c.GetVariable("greeting"))
        {
            Expect(r.GetString("/data/value") == "你好 & welcome", "variable: " + r.GetString("/data/value"));
        }
        using (Reply r = c.GetVariables())
        {
            Expect(r.GetString("/data/variables/limit") == "5", "a pointer into an object: " + r.GetString("/data/variables/limit"));
            Expect(r.GetJson("/data/variables").Contains("\"greeting\""), "an object's keys as JSON: " + r.GetJson("/data/variables"));
        }
        using (Reply r = c.GetLatestVersion("1.0.0"))
        {
            Expect(r.GetBool("/data/has_update") == true && r.GetBool("/data/force_update") == false, "booleans: " + r.Json);
        }
        using (Reply r = c.UserLoginWithCard("alice", "alice-pass", "NO-SUCH-CARD"))
        {
            Expect(r.Code == ResultCode.CardInvalid, "the renewal branch with an unknown card: " + (int)r.Code);
        }
    }

    private static void ArgumentChecks(Client c)
    {
        try
        {
            c.Heartbeat("token", (SessionKind)7);
            Expect(false, "a bad session kind throws");
        }
        catch (VerifyException e)
        {
            Expect(e.Code == ResultCode.InvalidArgument && e.Message.Length > 0, "bad kind: " + e.Code + ": " + e.Message);
        }
        try
        {
            c.SingleLogin(null, "m");
            Expect(false, "null throws");
        }
        catch (ArgumentNullException e)
        {
            Expect(e.ParamName == "card", "a null required argument throws ArgumentNullException: " + e.ParamName);
        }
        try
        {
            c.SingleLogin("a\0b", "m");
            Expect(false, "NUL throws");
        }
        catch (ArgumentException)
        {
            Expect(true, "an embedded NUL throws ArgumentException");
        }
        try
        {
            c.SingleLogin(string.Empty, "m");
            Expect(false, "an empty card throws");
        }
        catch (VerifyException e)
        {
            Expect(e.Code == ResultCode.InvalidArgument, "an empty required string: " + e.Code + ": " + e.Message);
        }
        try
        {
            c.SetTimeouts(TimeSpan.Zero, TimeSpan.FromSeconds(1));
            Expect(false, "zero timeout throws");
        }
        catch (ArgumentOutOfRangeException)
        {
            Expect(true, "a zero timeout is rejected");
        }
    }

    private static void Concurrent(Client c)
    {
        // One client, several threads at once.
        int good = 0;
        List<Thread> threads = new List<Thread>();
        for (int t = 0; t < 4; t++)
        {
            Thread thread = new Thread(() =>
            {
                for (int i = 0; i < 5; i++)
                {
                    using (Reply r = c.GetBulletin())
                    {
                        if (r.IsOk)
                        {
                            Interlocked.Increment(ref good);
                        }
                    }
                }
            });
            threads.Add(thread);
            thread.Start();
        }
        foreach (Thread thread in threads)
        {
            thread.Join();
        }
        Expect(good == 20, "20 concurrent calls on one client: " + good);
    }
}
