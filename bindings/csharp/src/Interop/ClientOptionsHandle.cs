using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Verify
{
    // Owns a <c>verify_client_options *</c>; released with verify_client_options_free. It
    // also holds the log handler set on it, whose native callback the library stores.
    public sealed partial class ClientOptionsHandle
    {
        private LogDispatcher log;

        internal Action<LogLevel, string> OnLog
        {
            get { return log == null ? null : log.Handler; }
        }

        internal LogDispatcher LogDispatcher
        {
            get { return log; }
        }

        /// <summary>New options with the defaults (verify_client_options_new); the caller owns them.</summary>
        /// <exception cref="VerifyException">The library could not make the options.</exception>
        public static ClientOptionsHandle Create()
        {
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            ClientOptionsHandle created;
            int code = NativeMethods.verify_client_options_new(out created);
            return Args.Created(code, created);
        }

        /// <summary>verify_client_options_set_log with a dispatcher of its own (null: none).</summary>
        internal void SetOnLog(Action<LogLevel, string> onLog)
        {
            LogDispatcher next = onLog == null ? null : new LogDispatcher(onLog);
            With(p => Args.Ok(NativeMethods.verify_client_options_set_log(p,
                next == null ? null : next.Callback, IntPtr.Zero)));
            // Kept while the options live: the library holds the delegate's function pointer.
            log = next;
        }

    }
}
