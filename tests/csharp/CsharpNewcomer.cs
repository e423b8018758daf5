// CsharpNewcomer.cs: the program of issue 45's trial, as a C# developer writes it from the
// README: a card login, typed; an account login with async; a wrong password as an exception;
// an offline start; the keeper seeing a ban; a Chinese message; the doctor; a call cancelled
// in flight. Built by tests/package/nuget.rs with the .NET SDK, nullable references on and
// warnings as errors, from the package of `scripts/package-nuget.sh --this-machine`: no cast,
// no `#pragma warning`, no `!` (the test checks the source for them too).
//
//   dotnet Consumer.dll BASE_URL APP_ID APP_KEY CARD OTHER_CARD USER PASSWORD STATE_FOLDER DEAD_URL
//
// "@@ ban" asks the test to disable CARD; the program then waits for the keeper's end.

using System;
using System.Threading;
using System.Threading.Tasks;
using Verify;

public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        if (args.Length < 9)
        {
            Console.Error.WriteLine("usage: Consumer BASE_URL APP_ID APP_KEY CARD OTHER_CARD USER PASSWORD STATE_FOLDER DEAD_URL");
            return 2;
        }
        string url = args[0], appId = args[1], appKey = args[2], card = args[3], otherCard = args[4];
        string user = args[5], password = args[6], folder = args[7], deadUrl = args[8];
        string mac = Library.MachineCode(appId);
        try
        {
            using var client = new Client(url, appId, appKey);

            // A card login, typed.
            CardLoginReply login = client.CardLogin(card, mac).EnsureOk();
            Console.WriteLine("card-login " + login.ExpireAt + " " + login.State + " count card: " + login.IsCountCard);

            // An account login with async.
            UserSessionReply session = (await client.UserLoginAsync(user, password, mac)).EnsureOk();
            Console.WriteLine("account " + session.Username);

            // A wrong password is an exception with the server's code.
            using (var throwing = new Client(url, appId, appKey, new ClientOptions { ThrowOnRefusal = true }))
            {
                try
                {
                    await throwing.UserLoginAsync(user, "not the password", mac);
                }
                catch (VerifyRefusedException e) when (e.Code == ResultCode.WrongPassword)
                {
                    Console.WriteLine("wrong-password " + e.Code);
                }
            }

            // An offline start: the verdict stored online answers when the server cannot be reached.
            var offlineOptions = new ClientOptions { StateFolder = folder, OfflineGrace = TimeSpan.FromDays(7) };
            using (var online = new Client(url, appId, appKey, offlineOptions))
            {
                online.CardLogin(otherCard, mac).EnsureOk();
            }
            using (var unreachable = new Client(deadUrl, appId, appKey, offlineOptions))
            {
                CardLoginReply offline = unreachable.CardLogin(otherCard, mac);
                if (offline.Offline is OfflineInfo info)
                {
                    Console.WriteLine("offline " + offline.Code + " because " + info.Reason);
                }
            }

            // The keeper sees a ban.
            using (Keeper keeper = client.StartKeeper(login, new KeeperOptions { Interval = TimeSpan.FromSeconds(1) }))
            {
                Console.WriteLine("keeper " + keeper.State);
                Console.WriteLine("@@ ban");
                Console.ReadLine();
                Task done = await Task.WhenAny(keeper.Completion, Task.Delay(TimeSpan.FromSeconds(20)));
                if (done == keeper.Completion)
                {
                    KeeperEventArgs end = await keeper.Completion;
                    string reason = end.Remark ?? "no reason";
                    Console.WriteLine("banned " + end.Code + " " + reason);
                }
            }

            // A message for the end user, in Chinese.
            Console.WriteLine("chinese " + Library.UserMessage(ResultCode.Expired, "zh-CN"));

            // The doctor, off the calling thread.
            Diagnosis report = await Library.DiagnoseAsync(url, appId, appKey, null, TimeSpan.FromSeconds(5));
            Console.WriteLine("doctor " + report.Verdict + " " + report.Steps.Count + " steps");

            // A call cancelled through its CancellationToken.
            using var cancel = new CancellationTokenSource();
            cancel.Cancel();
            try
            {
                await client.GetBulletinAsync(cancel.Token);
            }
            catch (OperationCanceledException)
            {
                Console.WriteLine("cancelled");
            }
            return 0;
        }
        catch (VerifyException e)
        {
            Console.WriteLine("failed " + e.Code + ": " + e.Message);
            return 1;
        }
    }
}
