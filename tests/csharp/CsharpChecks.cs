// CsharpChecks.cs: the C# binding's paths other than the demo, driven by tests/csharp/demo.rs.
//
//   mono CsharpChecks.exe BASE_URL APP_ID APP_KEY USERNAME
//
// The program has an account alice / alice-pass; USERNAME is free. Prints `ok   ...` or
// `FAIL ...` per check, then `CHECKS PASSED` and exits 0 when all held (1 otherwise).
// Compiled with `mcs -warnaserror` together with the binding (bindings/csharp/src/).

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
            Refusals(c, url, app);
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
        catch (ArgumentException e)
        {
            Expect(e.ParamName == "baseUrl" && e.Message.Length > 0, "bad URL: ArgumentException: " + e.Message);
        }
        try
        {
            new Client("http://例子.测试", app, key).Dispose();
            Expect(false, "a non-ASCII host throws");
        }
        catch (ArgumentException e)
        {
            Expect(e.ParamName == "baseUrl", "non-ASCII host: ArgumentException: " + e.Message);
        }
        try
        {
            new Client(url, app, string.Empty).Dispose();
            Expect(false, "an empty AppKey throws");
        }
        catch (ArgumentException e)
        {
            Expect(e.ParamName == "appKey" && e.Message.Contains("empty"), "an empty AppKey: " + e.Message);
        }
        using (Client c = new Client("http://127.0.0.1:1", app, key))
        {
            try
            {
                c.GetBulletin();
                Expect(false, "an unreachable server throws");
            }
            catch (VerifyRefusedException)
            {
                Expect(false, "an unreachable server is no refusal");
            }
            catch (VerifyException e)
            {
                Expect(e.Code == ResultCode.Network && e.Message.Length > 0, "unreachable: " + e.Code + ": " + e.Message);
            }
        }
        ClientOptionsChecks(url, app, key);
        DoctorChecks(url, app, key);
        Expect(Library.CodePage == Library.Utf8CodePage, "the library speaks UTF-8: " + Library.CodePage);
        Expect(Library.Describe(ResultCode.Disabled).Length > 0, "Describe: " + Library.Describe(ResultCode.Disabled));
        Expect(Library.Describe(ResultCode.System) != Library.Describe(ResultCode.Network), "System has its own text");
        Expect(Library.Version.Length > 0, "version " + Library.Version);
        Expect(Library.UserMessage(ResultCode.Network, "zh-CN") == "无法连接验证服务器，请检查网络后重试。",
            "UserMessage zh-CN: " + Library.UserMessage(ResultCode.Network, "zh-CN"));
        Expect(Library.UserMessage(-3, "zh-TW") == "無法連線驗證伺服器，請檢查網路後重試。",
            "UserMessage zh-TW: " + Library.UserMessage(-3, "zh-TW"));
        Library.Language = "zh-TW";
        Expect(Library.Language == "zh-TW", "Language: " + Library.Language);
        Expect(Library.UserMessage(ResultCode.Ok) == "操作成功。", "UserMessage in the process's language");
        try
        {
            Library.Language = "zh CN";
            Expect(false, "a malformed language tag throws");
        }
        catch (VerifyException e)
        {
            Expect(e.Code == ResultCode.InvalidArgument, "malformed language tag: " + e.Code);
        }
        Library.Language = "en";
        Expect(Library.UserMessage(ResultCode.WrongPassword) == "Wrong password. Please check it and try again.",
            "UserMessage en: " + Library.UserMessage(ResultCode.WrongPassword));
        Library.Language = null;
        Expect(Library.Describe(ResultCode.Network) == "network error: server unreachable or connection broken",
            "Describe stays English: " + Library.Describe(ResultCode.Network));

        Console.WriteLine(failures == 0 ? "CHECKS PASSED" : "CHECKS FAILED");
        return failures == 0 ? 0 : 1;
    }

    /// <summary>The doctor: a healthy program passes, a wrong AppKey fails with its key, no secret.</summary>
    private static void DoctorChecks(string url, string app, string key)
    {
        ClientOptions options = new ClientOptions { Proxy = ProxyMode.None };
        Diagnosis report = Library.Diagnose(url, app, key, options, TimeSpan.FromSeconds(8));
        bool passed = report.Verdict == Verdict.Pass && !report.Failed;
        Expect(passed, "doctor: a healthy program passes" + (passed ? "" : "\n" + report.Text));
        Expect(report.Steps.Count >= 5 && report.Steps[0].Kind == DiagnosisStepKind.Options,
            "doctor: " + report.Steps.Count + " steps, the options first");
        Expect(report.Json.Contains("\"version\":2") && !report.Json.Contains(key) && !report.Text.Contains(key),
            "doctor: JSON of version 2, no AppKey");
        Expect(report.Causes.Count == 0 && report.FirstLineIn("en").StartsWith("PASS: the connection is fine"),
            "doctor: a healthy report has no cause: " + report.FirstLineIn("en"));
        Diagnosis wrong = Library.Diagnose(url, app, "WRONGKEY0123456789ABCDEFGHIJKLMN", options, null);
        bool named = false;
        foreach (DiagnosisStep step in wrong.Steps)
        {
            named = named || (step.Kind == DiagnosisStepKind.Init && step.Verdict == Verdict.Fail && step.Key == "init.1011");
        }
        Expect(wrong.Failed && named, "doctor: a wrong AppKey is init.1011" + (named ? "" : " (no such step)"));
        // The text in a language asked for, read after every native string of the report was
        // copied and the garbage collector ran: the Diagnosis keeps its native report.
        GC.Collect();
        GC.WaitForPendingFinalizers();
        // (A report's text is printed only when a check of it fails: it holds "FAIL init".)
        string zhCn = wrong.TextIn("zh-CN"), zhTw = wrong.TextIn("zh_TW.UTF-8"), en = wrong.TextIn("en-US");
        bool chinese = zhCn.StartsWith("FAIL：被拒绝（1011）") && zhCn.Contains("\nverify 诊断") && zhCn.Contains("FAIL init");
        Expect(chinese, "doctor: TextIn zh-CN" + (chinese ? "" : ": " + zhCn));
        Expect(zhTw.Contains("\nverify 診斷"), "doctor: TextIn zh_TW.UTF-8" + (zhTw.Contains("\nverify 診斷") ? "" : ": " + zhTw));
        bool english = en.StartsWith("FAIL: Refused with 1011") && en == wrong.TextIn("fr");
        Expect(english, "doctor: TextIn en-US, and fr is English" + (english ? "" : ": " + en));
        string previous = Library.Language;
        Library.Language = "zh-TW";
        Expect(wrong.TextIn(null) == wrong.TextIn("zh-TW") && wrong.TextIn("") == wrong.TextIn("zh-TW"),
            "doctor: TextIn null or empty is the process's language now");
        Library.Language = previous;
        try
        {
            wrong.TextIn("zh CN");
            Expect(false, "doctor: TextIn with a malformed tag throws");
        }
        catch (VerifyException e)
        {
            Expect(e.Code == ResultCode.InvalidArgument, "doctor: TextIn with a malformed tag: " + e.Code);
        }
        bool cause = wrong.Causes.Count == 1 && wrong.Causes[0].Key == "init.1011"
            && wrong.Causes[0].Actor == DiagnosisActor.Vendor && wrong.Steps[wrong.Causes[0].Step].Key == "init.1011";
        Expect(cause, "doctor: the cause of a wrong AppKey is init.1011, for the vendor");
        Expect(wrong.FirstLineIn("zh-TW").StartsWith("FAIL：被拒絕（1011）") && wrong.FirstLineIn("zh-TW").Contains("請聯絡軟體作者"),
            "doctor: FirstLineIn zh-TW: " + wrong.FirstLineIn("zh-TW"));
        Expect(!wrong.SupportFile("en").Contains("WRONGKEY") && wrong.SupportFile("en").Contains("\"version\": 2"),
            "doctor: the support file");
        // From a client: its own settings, each step on the calling thread, a cancel.
        using (Client client = new Client(url, app, "WRONGKEY0123456789ABCDEFGHIJKLMN", options))
        {
            int caller = System.Threading.Thread.CurrentThread.ManagedThreadId;
            int heard = 0;
            bool onCaller = true;
            Diagnosis own = client.Diagnose(step =>
            {
                heard++;
                onCaller = onCaller && System.Threading.Thread.CurrentThread.ManagedThreadId == caller && step.Text.Length > 0;
            });
            Expect(heard == own.Steps.Count && onCaller, "doctor: Client.Diagnose heard " + heard + " of " + own.Steps.Count);
            Expect(own.Causes.Count > 0 && own.Causes[0].Key == "init.1011", "doctor: Client.Diagnose names init.1011");
            string saved = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "verify-support-" + app + ".txt");
            own.Save(saved, "en");
            string file = System.IO.File.ReadAllText(saved);
            Expect(file.StartsWith("Support file of the verify doctor") && !file.Contains("WRONGKEY"), "doctor: Save");
            System.IO.File.Delete(saved);
            using (System.Threading.CancellationTokenSource cancel = new System.Threading.CancellationTokenSource())
            {
                cancel.Cancel();
                try
                {
                    client.Diagnose(null, null, cancel.Token);
                    Expect(false, "doctor: a cancelled token throws");
                }
                catch (OperationCanceledException e)
                {
                    Expect(e.CancellationToken == cancel.Token, "doctor: a cancelled token: " + e.Message);
                    // Cancelled before the call: the library saw it and said so in its words.
                    VerifyException inner = e.InnerException as VerifyException;
                    Expect(inner != null && inner.Code == ResultCode.Cancelled,
                        "doctor: a token cancelled before the call carries the library's error: " + e.InnerException);
                }
                try
                {
                    client.DiagnoseAsync(null, null, cancel.Token).Wait();
                    Expect(false, "doctor: DiagnoseAsync with a cancelled token is cancelled");
                }
                catch (AggregateException e)
                {
                    Expect(e.InnerException is System.Threading.Tasks.TaskCanceledException, "doctor: DiagnoseAsync cancelled: " + e.InnerException);
                }
            }
            try
            {
                client.Diagnose(step => { throw new InvalidOperationException("from the step"); });
                Expect(false, "doctor: the step function's exception comes back");
            }
            catch (InvalidOperationException e)
            {
                Expect(e.Message == "from the step", "doctor: the step function's exception: " + e.Message);
            }
        }
        ThrowsArgument(() => Library.Diagnose(url, app, key, null, TimeSpan.Zero), "doctor: a zero deadline");
        ThrowsArgument(() => Library.Diagnose(null, app, key), "doctor: a null URL");
    }

    /// <summary>Expects <paramref name="action"/> to throw an ArgumentException (or a subclass).</summary>
    private static void ThrowsArgument(Action action, string what)
    {
        try
        {
            action();
            Expect(false, what + ": no exception");
        }
        catch (ArgumentException e)
        {
            Expect(e.Message.Length > 0, what + ": " + e.GetType().Name + ": " + e.Message);
        }
    }

    private static void ClientOptionsChecks(string url, string app, string key)
    {
        // A mirror behind an unreachable first server, a log handler that throws, options
        // changed after the client is made: the client keeps what it read, and its log handler.
        List<string> logged = new List<string>();
        ClientOptions options = new ClientOptions
        {
            ConnectTimeout = TimeSpan.FromSeconds(2),
            CallTimeout = TimeSpan.FromSeconds(10),
            Proxy = ProxyMode.None,
        };
        options.Mirrors.Add(url);
        options.OnLog = (level, message) =>
        {
            lock (logged)
            {
                logged.Add(level + " " + message);
            }
            throw new InvalidOperationException("dropped by the binding");
        };
        Expect(options.OnLog != null && !options.AllowInsecureHttp && options.Trust == TrustStores.Mozilla
            && options.ConnectTimeout == TimeSpan.FromSeconds(2) && options.StateFolder == null && options.OfflineGrace == null,
            "options read back");
        using (Client client = new Client("http://127.0.0.1:1", app, key, options))
        {
            options.Mirrors.Clear();
            options.OnLog = null;
            GC.Collect();
            GC.WaitForPendingFinalizers();
            BulletinReply r = client.GetBulletin();
            Expect(r.IsOk && r.Bulletin == "公告 bulletin", "failover to the mirror: " + (int)r.Code);
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

        options = new ClientOptions();
        ThrowsArgument(() => new Client("http://example.invalid", app, key, options).Dispose(),
            "plain http to another host is refused");
        options.AllowInsecureHttp = true;
        new Client("http://example.invalid", app, key, options).Dispose();
        Expect(options.AllowInsecureHttp, "plain http allowed by the options");
        ThrowsArgument(() => new Client(url, app, key, new ClientOptions { Pins = { "not base64!" } }).Dispose(), "a bad pin");
        ThrowsArgument(() => new Client(url, app, key, new ClientOptions { RootPems = { "no certificate" } }).Dispose(),
            "a PEM without certificate");
        ThrowsArgument(() => new Client(url, app, key, new ClientOptions { Proxy = ProxyMode.Url }).Dispose(),
            "a proxy mode without URL");
        ThrowsArgument(() => new Client("https://example.invalid", app, key, new ClientOptions { Trust = TrustStores.None }).Dispose(),
            "trusting nothing");

        // A name DNS does not know, given its address; every attempt at once; a state folder
        // (the per-user default).
        string port = url.Substring(url.LastIndexOf(':') + 1);
        options = new ClientOptions
        {
            AllowInsecureHttp = true,
            AttemptDelay = TimeSpan.Zero,
            StateFolder = ClientOptions.DefaultStateFolder,
            RememberedAddressesMaxAge = TimeSpan.FromHours(1),
        };
        options.AddAddress("fixed.verify.test", "127.0.0.1");
        Expect(options.AttemptDelay == TimeSpan.Zero, "attempt delay read back");
        Expect(options.RememberedAddressesMaxAge == TimeSpan.FromHours(1), "remembered addresses' age read back");
        ThrowsArgument(() => options.RememberedAddressesMaxAge = TimeSpan.FromSeconds(-1),
            "a negative age of remembered addresses");
        using (Client named = new Client("http://fixed.verify.test:" + port, app, key, options))
        {
            Expect(named.GetBulletin().IsOk, "a fixed address");
        }
        options.Addresses.Clear();
        options.AddAddress("fixed.verify.test", "not an address");
        ThrowsArgument(() => new Client("http://fixed.verify.test:" + port, app, key, options).Dispose(),
            "an address that is no IP address");
        ThrowsArgument(() => options.AttemptDelay = TimeSpan.FromSeconds(11), "an attempt delay over 10 s");
        // The per-user default folder, asked for by name rather than by "".
        options.Addresses.Clear();
        options.AddAddress("fixed.verify.test", "127.0.0.1");
        options.StateFolder = null;
        options.UseDefaultStateFolder = true;
        using (Client named = new Client("http://fixed.verify.test:" + port, app, key, options))
        {
            Expect(named.GetBulletin().IsOk, "UseDefaultStateFolder");
        }
        KeeperEventArgs said = new KeeperEventArgs(EventKind.Message, ResultCode.Ok, "", null, null, "hello");
#pragma warning disable 618 // MessageText and Text: the obsolete former names of Notice
        Expect(said.Notice == "hello" && said.MessageText == "hello" && said.Text == "hello" && said.Message == string.Empty,
            "a Message event's text is Notice (MessageText and Text its former names)");
#pragma warning restore 618
        ThrowsArgument(() => options.ConnectTimeout = TimeSpan.Zero, "a zero connect timeout");
        ThrowsArgument(() => options.OfflineGrace = TimeSpan.FromSeconds(-1), "a negative offline grace");
        ThrowsArgument(() => new Client(url, app, key, new ClientOptions { Mirrors = { "not a url" } }).Dispose(),
            "a mirror that does not parse");
    }

    private static void Refusals(Client c, string url, string app)
    {
        UserSessionReply r = c.UserLogin("alice", "wrong-pass", "M1");
        Expect(r.Code == ResultCode.WrongPassword && r.IsRefusal && !r.IsConfigurationRefusal,
            "refusal is a reply: " + (int)r.Code);
        Expect(r.Message.Length > 0, "refusal message: " + r.Message);
        Expect(r.Remark == null && r.Token == null && r.GetInt64("/data/absent") == null, "no remark on 1003");
#pragma warning disable 618 // LastErrorCode: obsolete on the surface, still the thread's last error
        Expect(Library.LastErrorCode == 1003, "absent fields keep the last error: " + Library.LastErrorCode);
#pragma warning restore 618
        Expect(r.GetInt64("/code") == 1003, "/code: " + r.GetInt64("/code"));
        try
        {
            r.EnsureOk();
            Expect(false, "EnsureOk of a refusal throws");
        }
        catch (VerifyConfigurationException)
        {
            Expect(false, "1003 is no configuration refusal");
        }
        catch (VerifyRefusedException e)
        {
            Expect(e.Code == ResultCode.WrongPassword && e.ServerMessage == r.Message && e.Remark == null
                && !e.IsConfiguration && e.Message.StartsWith("1003 ") && e.ReplyJson.Contains("1003"),
                "EnsureOk throws VerifyRefusedException: " + e.Message);
        }

        // A wrong AppKey: a configuration refusal, thrown by every call of a throwing client.
        using (Client wrong = new Client(url, app, "WRONGKEY0123456789ABCDEFGHIJKLMN",
            new ClientOptions { ThrowOnRefusal = true }))
        {
            Expect(wrong.ThrowOnRefusal, "ThrowOnRefusal read back");
            try
            {
                wrong.GetBulletin();
                Expect(false, "a wrong AppKey throws");
            }
            catch (VerifyConfigurationException e)
            {
                Expect(e.Code == ResultCode.AppKeyWrong && e.IsConfiguration, "a wrong AppKey: " + e.Message);
            }
        }
        using (Client wrong = new Client(url, app, "WRONGKEY0123456789ABCDEFGHIJKLMN"))
        {
            BulletinReply b = wrong.GetBulletin();
            Expect(b.Code == ResultCode.AppKeyWrong && b.IsConfigurationRefusal && b.Bulletin == null,
                "a wrong AppKey, not thrown: " + (int)b.Code);
        }
    }

    private static void Accessors(Client c)
    {
        UserInfoReply r = c.GetUserInfo("alice", "alice-pass");
        Expect(r.IsOk, "user info: " + r.Json);
        Expect(r.BindCount == 0 && r.GetInt64("/data/bind_count") == 0, "an integer 0 is 0, not null");
        Expect(r.UserId > 0 && r.UserId == r.GetInt64("/data/user_id"), "user_id: " + r.UserId);
        Expect(r.Username == "alice" && r.Status == "active", "typed strings: " + r.Username + " " + r.Status);
        Expect(r.ExpireAt.HasValue && r.ExpireAt.Value.Offset == TimeSpan.FromHours(8)
            && ServiceTime.Format(r.ExpireAt.Value) == r.GetString("/data/expire_at"),
            "a time with its +08:00 offset: " + r.ExpireAt + " from " + r.GetString("/data/expire_at"));
        Expect(r.GetInt64("/data/absent") == null, "absent integer is null");
        Expect(r.GetString("/data/absent") == null, "absent string is null");
        Expect(r.GetBool("/data/absent") == null, "absent boolean is null");
        Expect(r.GetJson("/data/absent") == null, "absent JSON is null");
        Expect(r.GetBool("/data/username") == null && r.GetInt64("/data/username") == null, "another type is null");
        Expect(r.GetString("/data/bind_count") == "0", "a number as text");
        Expect(r.GetString("/data") == null && r.GetJson("/data").StartsWith("{"), "an object: no string, JSON: " + r.GetJson("/data"));
        Expect(r.Remark == string.Empty, "empty remark");
        Expect(r.Json.Contains("\"code\":200"), "the whole reply: " + r.Json);
        Expect(r.EnsureOk() == r, "EnsureOk of a success gives the reply");
        try
        {
            r.GetString("data.username");
            Expect(false, "a dotted path throws");
        }
        catch (VerifyException e)
        {
            Expect(e.Code == ResultCode.InvalidArgument, "a dotted path is not a pointer: " + e.Code + ": " + e.Message);
        }

        // A second Reply over the same handle reads the same reply; disposing the handle frees both.
        Reply again = new Reply(r.Handle);
        Expect(again.GetString("/data/username") == "alice" && again.Code == ResultCode.Ok, "a Reply over the handle of another");
        again.Handle.Dispose();
        Expect(r.Handle.IsClosed, "disposing the shared handle closes it");
        try
        {
            string name = r.GetString("/data/username");
            Expect(false, "read after the handle's Dispose: " + name);
        }
        catch (ObjectDisposedException)
        {
            Expect(true, "read after the handle's Dispose throws ObjectDisposedException");
        }
        Expect(r.Username == "alice", "the typed fields were copied");
        Expect(Reply.Pointer("data", "variables", "a/b~c.d") == "/data/variables/a~1b~0c.d",
            "Pointer escapes: " + Reply.Pointer("data", "variables", "a/b~c.d"));
        Expect(ServiceTime.Parse("2099-03-04 05:06:07") == new DateTimeOffset(2099, 3, 3, 21, 6, 7, TimeSpan.Zero)
            && ServiceTime.Parse(string.Empty) == null && ServiceTime.Parse("2099-02-30 00:00:00") == null,
            "ServiceTime reads UTC+08:00");
    }

    private static void Calls(Client c, string user)
    {
        RegistrationReply reg = c.UserRegister(user, Pass);
        Expect(reg.IsOk && reg.Username == user, "register with a non-ASCII name: " + reg.Json);
        Expect(reg.Token == null && reg.ExpireAt.HasValue && reg.ExpireAt.Value <= DateTimeOffset.UtcNow.AddMinutes(1),
            "registered without a card: already expired at " + reg.ExpireAt);
        Dictionary<string, string> parameters = new Dictionary<string, string>();
        parameters.Add("UserName", user);
        parameters.Add("Password", Pass);
        Reply r = c.Call("GetUserInfo", parameters);
        Expect(r.IsOk && r.GetString("/data/username") == user, "Call with a dictionary, UTF-8 round trip: " + r.Json);
        r = c.Call("GetBulletin");
        Expect(r.IsOk && r.GetString("/data/bulletin") == "公告 bulletin", "Call without parameters: " + r.GetString("/data/bulletin"));
        r = c.Call("NoSuchAction", new KeyValuePair<string, string>("a", string.Empty));
        Expect(r.Code == ResultCode.UnknownAction, "unknown action: " + (int)r.Code);
        VariableReply variable = c.GetVariable("greeting");
        Expect(variable.Value == "你好 & welcome" && variable.Name == "greeting", "variable: " + variable.Value);
        VariablesReply all = c.GetVariables();
        Expect(all.Variables != null && all.Variables["limit"] == "5" && all.Variables["greeting"] == "你好 & welcome"
            && all.Variables.Count == 2, "every variable as a dictionary: " + all.GetJson("/data/variables"));
        Expect(all.GetString("/data/variables/limit") == "5", "a pointer into an object: " + all.GetString("/data/variables/limit"));
        LatestVersionReply version = c.GetLatestVersion("1.0.0");
        Expect(version.HasUpdate == true && version.ForceUpdate == false && version.Version == "2.1.0", "booleans: " + version.Json);
        RenewalReply renewal = c.UserLoginWithCard("alice", "alice-pass", "NO-SUCH-CARD");
        Expect(renewal.Code == ResultCode.CardInvalid, "the renewal branch with an unknown card: " + (int)renewal.Code);
        BulletinReply bulletin = c.GetBulletin();
        Expect(bulletin.Bulletin == "公告 bulletin", "the bulletin: " + bulletin.Bulletin);
    }

    private static void ArgumentChecks(Client c)
    {
        try
        {
            c.Heartbeat("token", (SessionKind)7);
            Expect(false, "a bad session kind throws");
        }
        catch (ArgumentException e)
        {
            Expect(e.ParamName == "kind" && e.Message.Length > 0, "bad kind: " + e.Message);
        }
        try
        {
            c.CardLogin(null, "m");
            Expect(false, "null throws");
        }
        catch (ArgumentNullException e)
        {
            Expect(e.ParamName == "card", "a null required argument throws ArgumentNullException: " + e.ParamName);
        }
        try
        {
            c.CardLogin("a\0b", "m");
            Expect(false, "NUL throws");
        }
        catch (ArgumentException e)
        {
            Expect(e.ParamName == "card", "an embedded NUL throws ArgumentException: " + e.Message);
        }
        try
        {
            c.CardLogin("CARD", string.Empty);
            Expect(false, "an empty machine code throws");
        }
        catch (ArgumentException e)
        {
            Expect(e.ParamName == "mac" && !(e is ArgumentNullException) && e.Message.Contains("empty"),
                "an empty required string throws ArgumentException: " + e.Message);
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
                    if (c.GetBulletin().IsOk)
                    {
                        Interlocked.Increment(ref good);
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
