// Demo.cs: a tour of the verify C# binding against a server (normally verify-sandbox); the
// C# twin of examples-c/demo.c.
//
//   mono Demo.exe BASE_URL [APP_ID APP_KEY]
//
// APP_ID and APP_KEY default to the program of sandbox/fixtures/demo.json (10001). The demo
// walks both authorization modes of the service, step by step:
//
//   card mode     new Client, Init, SingleLogin, Heartbeat(Card)
//   account mode  UserRegister (with a card), UserLogin, Heartbeat(User), UserRecharge,
//                 ChangeBind, UserLogin on the new machine
//   extras        GetBulletin, GetLatestVersion, GetVariables
//
// For each step it prints the call, the result code, Library.Describe(code) (for the
// developer), Library.UserMessage(code) (for the user, in the machine's language), the
// server's message and the reply's fields. Every step expects 200. The demo spends the cards
// DEMO-REGN-0000-0001 and DEMO-RECH-0000-0001, so run it against a freshly started sandbox.
// Exit status: 0 when every step got its expected code, 1 otherwise, 2 on a usage error.
//
// Build and run (from the repository root; as bindings/csharp/README.md shows):
//   cargo build --release -p verify -p verify-sandbox
//   scripts/build-csharp.sh        # target/csharp/Verify.dll, from bindings/csharp/src/
//   mcs -warnaserror -r:target/csharp/Verify.dll -out:target/csharp/Demo.exe bindings/csharp/Demo.cs
//   LD_LIBRARY_PATH=target/release mono target/csharp/Demo.exe http://127.0.0.1:PORT

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Text;
using Verify;

internal static class Demo
{
    private const string DefaultAppId = "10001";
    private const string DefaultAppKey = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";

    private const string CardLogin = "DEMO-CARD-0000-0001";
    private const string CardRegister = "DEMO-REGN-0000-0001";
    private const string CardRecharge = "DEMO-RECH-0000-0001";
    private const string MachineCard = "DEMO-MACHINE-CARD-0001";
    private const string MachineA = "DEMO-MACHINE-A-0001";
    private const string MachineB = "DEMO-MACHINE-B-0002";
    private const string Password = "demo-Passw0rd";

    /// <summary>How a step prints a field.</summary>
    private enum Kind
    {
        Text,   // GetString("/data/NAME"), as it is
        Secret, // GetString, shortened (tokens)
        Int,    // GetInt64
        Bool,   // GetBool
        Json,   // GetJson("/data/NAME"): the value as JSON
    }

    private struct Field
    {
        public readonly string Name;
        public readonly Kind Kind;

        public Field(string name, Kind kind)
        {
            Name = name;
            Kind = kind;
        }
    }

    private static int steps;
    private static readonly List<string> Failed = new List<string>();

    private static int Main(string[] args)
    {
        // UTF-8 out whatever the locale: the server's messages are Chinese.
        StreamWriter stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
        stdout.AutoFlush = true;
        Console.SetOut(stdout);

        if (args.Length != 1 && args.Length != 3)
        {
            Console.Error.WriteLine("usage: Demo.exe BASE_URL [APP_ID APP_KEY]");
            return 2;
        }
        string baseUrl = args[0];
        string appId = args.Length == 3 ? args[1] : DefaultAppId;
        string appKey = args.Length == 3 ? args[2] : DefaultAppKey;

        Console.WriteLine("verify C# demo: library {0} (ABI {1}, binding ABI {2}), server {3}, program {4}",
            Library.Version, Library.AbiVersion, Library.BindingAbiVersion, baseUrl, appId);

        // The AppKey goes to the library only; it is never printed.
        Client client;
        try
        {
            client = new Client(baseUrl, appId, appKey);
        }
        catch (VerifyException error)
        {
            Report("new Client", error.Code, null, error.Message, null);
            Console.WriteLine();
            Console.WriteLine("FAILED: new Client; nothing else can run");
            return 1;
        }
        Report("new Client", ResultCode.Ok, null, null, null);

        using (client)
        {
            CardMode(client);
            AccountMode(client);
            Extras(client);
        }

        Console.WriteLine();
        if (Failed.Count == 0)
        {
            Console.WriteLine("PASSED: all {0} steps got their expected code", steps);
            return 0;
        }
        Console.WriteLine("FAILED: {0} of {1} steps did not get their expected code: {2}",
            Failed.Count, steps, String.Join(" ", Failed.ToArray()));
        return 1;
    }

    private static void CardMode(Client client)
    {
        Field[] loginFields =
        {
            new Field("token", Kind.Secret), new Field("status", Kind.Text), new Field("is_times", Kind.Bool),
            new Field("card_type", Kind.Text), new Field("expire_at", Kind.Text),
        };
        Field[] heartbeatFields =
        {
            new Field("expire_at", Kind.Text), new Field("status", Kind.Text), new Field("msg", Kind.Text),
        };
        string token;

        Console.WriteLine();
        Console.WriteLine("=== card mode: card {0} on machine {1} ===", CardLogin, MachineCard);

        // Optional: the first action would run Init itself. The library keeps the session
        // secret of the handshake; the reply it returns never holds it.
        if (!Step("Init", () => client.Init(), null, null, out token))
        {
            return;
        }
        if (!Step("SingleLogin", () => client.CardLogin(CardLogin, MachineCard, "demo machine"),
                loginFields, "token", out token))
        {
            return;
        }
        string unused;
        Step("Heartbeat(Card)", () => client.Heartbeat(token, SessionKind.Card), heartbeatFields, null,
            out unused);
    }

    private static void AccountMode(Client client)
    {
        Field[] registerFields =
        {
            new Field("username", Kind.Text), new Field("user_id", Kind.Int), new Field("token", Kind.Secret),
            new Field("status", Kind.Text), new Field("expire_at", Kind.Text),
        };
        Field[] loginFields =
        {
            new Field("username", Kind.Text), new Field("device_id", Kind.Text), new Field("token", Kind.Secret),
            new Field("status", Kind.Text), new Field("expire_at", Kind.Text), new Field("remark", Kind.Text),
        };
        Field[] heartbeatFields =
        {
            new Field("expire_at", Kind.Text), new Field("status", Kind.Text), new Field("msg", Kind.Text),
        };
        Field[] rechargeFields =
        {
            new Field("username", Kind.Text), new Field("added_days", Kind.Text),
            new Field("expire_at", Kind.Text), new Field("status", Kind.Text),
        };
        Field[] bindFields =
        {
            new Field("username", Kind.Text), new Field("device_id", Kind.Text),
            new Field("bind_count", Kind.Int), new Field("bind_limit", Kind.Int),
        };
        string unused;
        string token;

        // A username unique per run, so the demo can run again against the same program.
        string username = String.Format("demo_cs_{0}_{1}", Process.GetCurrentProcess().Id,
            DateTimeOffset.UtcNow.ToUnixTimeSeconds());
        Console.WriteLine();
        Console.WriteLine("=== account mode: user {0}, card {1}, machine {2} then {3} ===", username,
            CardRegister, MachineA, MachineB);

        if (!Step("UserRegister",
                () => client.UserRegister(username, Password, CardRegister, MachineA, "demo machine A"),
                registerFields, null, out unused))
        {
            return;
        }
        if (!Step("UserLogin(machine A)", () => client.UserLogin(username, Password, MachineA),
                loginFields, "token", out token))
        {
            return;
        }
        if (!Step("Heartbeat(User)", () => client.Heartbeat(token, SessionKind.User), heartbeatFields,
                null, out unused))
        {
            return;
        }
        if (!Step("UserRecharge", () => client.UserRecharge(username, CardRecharge), rechargeFields,
                null, out unused))
        {
            return;
        }
        if (!Step("ChangeBind", () => client.ChangeBind(username, Password, MachineB), bindFields,
                null, out unused))
        {
            return;
        }
        Step("UserLogin(machine B)", () => client.UserLogin(username, Password, mac: MachineB),
            loginFields, null, out unused);
    }

    private static void Extras(Client client)
    {
        Field[] bulletinFields = { new Field("bulletin", Kind.Text), new Field("updated_at", Kind.Text) };
        Field[] versionFields =
        {
            new Field("version", Kind.Text), new Field("changelog", Kind.Text),
            new Field("download_url", Kind.Text), new Field("force_update", Kind.Bool),
            new Field("has_update", Kind.Bool),
        };
        Field[] variableFields = { new Field("variables", Kind.Json) };
        string unused;

        Console.WriteLine();
        Console.WriteLine("=== extras ===");
        Step("GetBulletin", () => client.GetBulletin(), bulletinFields, null, out unused);
        Step("GetLatestVersion", () => client.GetLatestVersion("1.0.0"), versionFields, null, out unused);
        // All variables: one is readable as GetString("/data/variables/NAME"); show them as JSON.
        Step("GetVariables", () => client.GetVariables(), variableFields, null, out unused);
    }

    /// <summary>
    /// Runs one step and reports it. Returns true when it got 200; <paramref name="keep"/>
    /// receives the field <paramref name="keepField"/> of the reply. Each field is read by its
    /// JSON Pointer, to print every reply alike (demo.c's format); a program reads the typed
    /// properties instead (reply.Token, reply.ExpireAt: see README.md).
    /// </summary>
    private static bool Step(string name, Func<Reply> call, Field[] fields, string keepField,
        out string keep)
    {
        keep = null;
        Reply reply;
        try
        {
            reply = call();
        }
        catch (VerifyException error)
        {
            // A local failure (negative code): no reply to read.
            return Report(name, error.Code, null, error.Message, fields);
        }
        bool ok = Report(name, reply.Code, reply, null, fields);
        if (ok && keepField != null)
        {
            keep = reply.GetString("/data/" + keepField);
            if (keep == null)
            {
                Console.WriteLine("      -> FAILED: the reply has no `{0}`", keepField);
                Failed.Add(name);
                ok = false;
            }
        }
        return ok;
    }

    /// <summary>Prints a step's code, description, message and fields; records a failure.</summary>
    private static bool Report(string name, ResultCode code, Reply reply, string localError,
        Field[] fields)
    {
        steps++;
        Console.WriteLine();
        Console.WriteLine("[{0}] code {1} ({2})", name, (int)code, Library.Describe(code));
        Console.WriteLine("      {0,-14} \"{1}\"", "for the user", Library.UserMessage(code));
        if (reply != null)
        {
            Console.WriteLine("      {0,-14} \"{1}\"", "message", reply.Message);
            if (code == ResultCode.Ok)
            {
                if (fields != null)
                {
                    foreach (Field field in fields)
                    {
                        PrintField(reply, field);
                    }
                }
            }
            else
            {
                // Refusals may carry data.remark (1006: the reason, 1022: the bound machine).
                string remark = reply.Remark;
                if (remark != null)
                {
                    Console.WriteLine("      {0,-14} \"{1}\"", "remark", remark);
                }
            }
        }
        else if (code != ResultCode.Ok)
        {
            Console.WriteLine("      {0,-14} (no reply from the server)", "message");
        }

        if (code == ResultCode.Ok)
        {
            Console.WriteLine("      -> ok (expected 200)");
            return true;
        }
        Console.WriteLine("      -> FAILED: expected 200 ({0}), got {1}; {2}",
            Library.Describe(ResultCode.Ok), (int)code,
            localError != null ? "error: " + localError : "the server refused");
        Failed.Add(name);
        return false;
    }

    private static void PrintField(Reply reply, Field field)
    {
        switch (field.Kind)
        {
            case Kind.Int:
            {
                long? value = reply.GetInt64("/data/" + field.Name);
                Console.WriteLine("      {0,-14} {1}", field.Name, value.HasValue ? value.Value.ToString() : "(absent)");
                return;
            }
            case Kind.Bool:
            {
                bool? value = reply.GetBool("/data/" + field.Name);
                Console.WriteLine("      {0,-14} {1}", field.Name,
                    value.HasValue ? (value.Value ? "true" : "false") : "(absent)");
                return;
            }
            case Kind.Json:
                Console.WriteLine("      {0,-14} {1}", field.Name, reply.GetJson("/data/" + field.Name) ?? "(absent)");
                return;
        }
        string text = reply.GetString("/data/" + field.Name);
        if (text == null)
        {
            Console.WriteLine("      {0,-14} (absent)", field.Name);
        }
        else if (field.Kind == Kind.Secret && text.Length > 8)
        {
            // Never print a whole token: its first characters are enough to tell them apart.
            Console.WriteLine("      {0,-14} {1}\u2026({2} chars)", field.Name, text.Substring(0, 4), text.Length);
        }
        else
        {
            Console.WriteLine("      {0,-14} \"{1}\"", field.Name, text);
        }
    }
}
