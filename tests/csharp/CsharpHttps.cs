// CsharpHttps.cs: https through the C# binding (ClientOptions) against the sandbox, the six
// https cases. Driven by tests/csharp/https.rs (see HttpsCases in
// tests/common/host/https.rs), with three https sandboxes: a chain for 127.0.0.1 signed by a CA of
// its own, a chain for another name, an expired chain.
//
//   CsharpHttps.exe GOOD_URL WRONG_NAME_URL EXPIRED_URL APP_ID APP_KEY CA_FILE
//                   WRONG_NAME_CA_FILE EXPIRED_CA_FILE PIN WRONG_PIN CARD
//
// Prints `case NAME CODE TEXT` per case: the code of the Reply (200) or of the
// VerifyException thrown, and TEXT the token's length (`token N`, the login) or the
// exception's message. The Rust test checks the codes; exit 0 unless the command line is
// wrong.

using System;
using Verify;

internal static class CsharpHttps
{
    // Options with short timeouts (a hang fails the test rather than stalling it).
    private static ClientOptions WithTimeouts()
    {
        return new ClientOptions { ConnectTimeout = TimeSpan.FromSeconds(5), CallTimeout = TimeSpan.FromSeconds(15) };
    }

    // Runs `call` with a client of `url` made with `options` (then disposed), and prints
    // `case NAME CODE TEXT`: the reply's code and `text(reply)`, or the code and message of
    // the VerifyException thrown.
    private static void Case(
        string name,
        string url,
        string appId,
        string appKey,
        ClientOptions options,
        Func<Client, Reply> call,
        Func<Reply, string> text)
    {
        string line;
        try
        {
            using (Client client = new Client(url, appId, appKey, options))
            {
                Reply reply = call(client);
                line = string.Format("{0} {1}", (int)reply.Code, text(reply));
            }
        }
        catch (VerifyException e)
        {
            line = string.Format("{0} {1}", (int)e.Code, e.Message.Replace('\n', ' ').Replace('\r', ' '));
        }
        Console.WriteLine("case {0} {1}", name, line);
        Console.Out.Flush();
    }

    private static string Nothing(Reply reply)
    {
        return string.Empty;
    }

    private static int Main(string[] args)
    {
        if (args.Length != 11)
        {
            Console.Error.WriteLine(
                "usage: CsharpHttps.exe GOOD_URL WRONG_NAME_URL EXPIRED_URL APP_ID APP_KEY CA_FILE "
                + "WRONG_NAME_CA_FILE EXPIRED_CA_FILE PIN WRONG_PIN CARD");
            return 2;
        }
        string good = args[0], wrongName = args[1], expired = args[2];
        string app = args[3], key = args[4];
        string caFile = args[5], wrongNameCa = args[6], expiredCa = args[7];
        string pin = args[8], wrongPin = args[9], card = args[10];

        // The custom CA alone: a login, with its token.
        ClientOptions options = WithTimeouts();
        options.Trust = TrustStores.None;
        options.RootFiles.Add(caFile);
        Case("custom_ca", good, app, key, options,
            c => c.CardLogin(card, "MAC-CS-HTTPS"),
            r => "token " + (((CardLoginReply)r).Token ?? string.Empty).Length);

        // Mozilla's roots alone: the sandbox's CA is unknown to them.
        options = WithTimeouts();
        options.Trust = TrustStores.Mozilla;
        Case("mozilla_only", good, app, key, options, c => c.GetBulletin(), Nothing);

        // The leaf's pin and no CA at all.
        options = WithTimeouts();
        options.Trust = TrustStores.None;
        options.Pins.Add(pin);
        Case("pin", good, app, key, options, c => c.GetBulletin(), Nothing);

        // A chain the CA vouches for, but the pin of another key: the pin's own code.
        options = WithTimeouts();
        options.RootFiles.Add(caFile);
        options.Pins.Add(wrongPin);
        Case("wrong_pin", good, app, key, options, c => c.GetBulletin(), Nothing);

        // A trusted chain for another name.
        options = WithTimeouts();
        options.Trust = TrustStores.None;
        options.RootFiles.Add(wrongNameCa);
        Case("wrong_name", wrongName, app, key, options, c => c.GetBulletin(), Nothing);

        // A trusted chain whose leaf expired.
        options = WithTimeouts();
        options.Trust = TrustStores.None;
        options.RootFiles.Add(expiredCa);
        Case("expired", expired, app, key, options, c => c.GetBulletin(), Nothing);
        return 0;
    }
}
