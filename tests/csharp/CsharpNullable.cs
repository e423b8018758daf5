// The nullability that Verify.dll declares, as a C# 8 compiler with <Nullable>enable</Nullable>
// and TreatWarningsAsErrors sees it (tests/package/nuget.rs builds this with `dotnet build` against the
// NuGet package; it is never run). Each line whose comment names an error (CS and four digits,
// last on the line) must give exactly that error, and no other line may give any: so each
// member used below without a check is declared not null, and each one marked is declared as
// possibly null.
using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Verify;

public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        int total = 0;
        var options = new ClientOptions { ThrowOnRefusal = false };
        total += options.StateFolder.Length; // error CS8602
        total += options.ProxyUrl.Length; // error CS8602
        options.OnLog(LogLevel.Info, "unset until set"); // error CS8602
        options.OnLog = (level, text) => total += text.Length; // a log line is never null
        total += Library.MachineCode("10001").Length;
        total += Library.UserMessage(ResultCode.Ok, null).Length; // the language may be null

        MachineCheck check = Library.CheckMachine("10001", null); // the state folder may be null
        total += check.Code.Length;
        foreach (MachineComponent part in check.Components)
        {
            total += part.Name.Length + part.StateName.Length;
        }
        total += check.Note.Length; // error CS8602

        Diagnosis diagnosis = Library.Diagnose(args[0], "10001", "key", null);
        total += diagnosis.Text.Length + diagnosis.TextIn(null).Length + diagnosis.Json.Length;
        foreach (DiagnosisStep step in diagnosis.Steps)
        {
            total += step.Key.Length + step.Message.Length;
        }

        using (var client = new Client(args[0], "10001", "key", null)) // options may be null
        {
            CardLoginReply login = client.CardLogin("CARD", "MAC");
            total += login.Message.Length;
            total += login.Json.Length;
            total += login.Token.Length; // error CS8602
            total += login.Remark.Length; // error CS8602
            total += login.CardType.Length; // error CS8602
            total += login.GetString("/data/token").Length; // error CS8602
            total += login.Offline.ToString().Length; // error CS8602
            total += login.GetJson(null).Length; // error CS8602
            IReadOnlyDictionary<string, string>? map = login.GetStringMap("/data");
            total += map.Count; // error CS8602
            if (map != null)
            {
                foreach (KeyValuePair<string, string> pair in map)
                {
                    total += pair.Key.Length + pair.Value.Length;
                }
            }
            client.CardLogin(null, "MAC"); // error CS8625
            client.CardLogin("CARD", "MAC", null); // the device name may be null

            CardLoginReply later = await client.CardLoginAsync("CARD", "MAC");
            total += later.Message.Length;
            total += later.Token.Length; // error CS8602

            try
            {
                login.EnsureOk();
            }
            catch (VerifyRefusedException e)
            {
                total += e.ServerMessage.Length;
                total += e.Message.Length;
                total += e.Remark.Length; // error CS8602
            }
            catch (VerifyException e)
            {
                total += e.Message.Length;
                total += e.ReplyJson.Length; // error CS8602
            }

            using (Keeper keeper = client.StartKeeper(login))
            {
                keeper.Ended += (sender, e) => total += e.Message.Length;
                keeper.NoticeReceived += (sender, e) => total += e.Remark.Length; // error CS8602
                KeeperStatus status = keeper.Status();
                total += status.LastMessage.Length;
                total += status.Remark.Length; // error CS8602
                KeeperEventArgs end = await keeper.Completion;
                total += end.Message.Length;
                total += end.Notice.Length; // error CS8602
            }
        }
        return total;
    }
}
