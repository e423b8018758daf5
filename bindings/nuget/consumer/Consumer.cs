// Consumer.cs: the smallest program using the VerifySdk NuGet package, as tests/nuget.rs
// builds it from the unpacked package alone: the binding from
// contentFiles/cs/any/Verify/Verify.cs, the native library from runtimes/<rid>/native/.
//
//   mcs -warnaserror -out:Consumer.exe PKG/contentFiles/cs/any/Verify/Verify.cs Consumer.cs
//   LD_LIBRARY_PATH=PKG/runtimes/linux-x64/native mono Consumer.exe BASE_URL APP_ID APP_KEY
//
// It prints the library's version, the bulletin of one GetBulletin call, and (on Linux) the
// file the native library was loaded from; it exits 0 when the call got 200.

using System;
using System.IO;
using Verify;

public static class Consumer
{
    public static int Main(string[] args)
    {
        if (args.Length != 3)
        {
            Console.Error.WriteLine("usage: Consumer.exe BASE_URL APP_ID APP_KEY");
            return 2;
        }
        Console.WriteLine("library " + Library.Version + " ABI " + Library.AbiVersion);
        using (var client = new Client(args[0], args[1], args[2]))
        using (Reply reply = client.GetBulletin())
        {
            Console.WriteLine("code " + (int)reply.Code);
            Console.WriteLine("bulletin " + reply.GetString("/data/bulletin"));
            if (File.Exists("/proc/self/maps"))
            {
                foreach (string line in File.ReadAllLines("/proc/self/maps"))
                {
                    int at = line.IndexOf('/');
                    if (at >= 0 && line.EndsWith("/libverify.so"))
                    {
                        Console.WriteLine("loaded " + line.Substring(at));
                        break;
                    }
                }
            }
            return reply.Code == ResultCode.Ok ? 0 : 1;
        }
    }
}
