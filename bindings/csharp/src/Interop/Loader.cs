using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>
    /// Calls into the native library, turning a missing library into a
    /// <see cref="DllNotFoundException"/> that names the file, where it was looked for and how
    /// to fix it on this operating system.
    /// </summary>
    internal static class Loader
    {
        internal static T Call<T>(Func<T> call)
        {
            try
            {
                return call();
            }
            catch (DllNotFoundException e)
            {
                throw NotFound(e);
            }
        }

        /// <summary>The message of a missing native library, for this process.</summary>
        internal static DllNotFoundException NotFound(Exception inner)
        {
            string baseDir = AppDomain.CurrentDomain.BaseDirectory;
            string bits = Environment.Is64BitProcess ? "64-bit" : "32-bit";
            string text;
            if (Environment.OSVersion.Platform == PlatformID.Win32NT)
            {
                string rid = Environment.Is64BitProcess ? "win-x64" : "win-x86";
                text = string.Format(
                    "The native library of VerifySdk, verify.dll ({0} process: runtimes\\{1}\\native\\verify.dll), " +
                    "was not found. Windows looked for it in the program's folder ({2}), the system folders and the " +
                    "folders of PATH. To fix it, copy runtimes\\{1}\\native\\verify.dll from the VerifySdk package " +
                    "next to the program's .exe (a .NET SDK project with a RuntimeIdentifier does it by itself; a " +
                    ".NET Framework project needs a copy step), and use the DLL of the process's architecture: the " +
                    "x86 DLL for a 32-bit process, the x64 DLL for a 64-bit one.",
                    bits, rid, baseDir);
            }
            else if (File.Exists("/usr/lib/libSystem.dylib") || Directory.Exists("/System/Library/CoreServices"))
            {
                text = string.Format(
                    "The native library of VerifySdk, libverify.dylib ({0} process), was not found. It was looked " +
                    "for in the program's folder ({1}), DYLD_LIBRARY_PATH ({2}) and the system's library folders. To " +
                    "fix it, put libverify.dylib (cargo build --release -p verify: target/release/libverify.dylib) " +
                    "next to the program, or add its folder to DYLD_LIBRARY_PATH.",
                    bits, baseDir, Environment.GetEnvironmentVariable("DYLD_LIBRARY_PATH") ?? "unset");
            }
            else
            {
                text = string.Format(
                    "The native library of VerifySdk, libverify.so ({0} process: runtimes/linux-x64/native/libverify.so, " +
                    "or runtimes/linux-arm64 on ARM), was not found. It was looked for in the program's folder ({1}), " +
                    "LD_LIBRARY_PATH ({2}) and the system's library folders (ldconfig). To fix it, copy " +
                    "runtimes/linux-x64/native/libverify.so from the VerifySdk package (or target/release/libverify.so " +
                    "of a build) next to the program, or add its folder to LD_LIBRARY_PATH; Mono does not read the " +
                    "package's runtimes/ folder by itself.",
                    bits, baseDir, Environment.GetEnvironmentVariable("LD_LIBRARY_PATH") ?? "unset");
            }
            return new DllNotFoundException(text, inner);
        }
    }
}
