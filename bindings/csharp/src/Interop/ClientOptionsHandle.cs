using System;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>
    /// Owns a <c>verify_client_options *</c>; released with verify_client_options_free. It
    /// also holds the log handler set on it, whose native callback the library stores.
    /// </summary>
    public sealed class ClientOptionsHandle : SafeHandle
    {
        private LogDispatcher log;

        /// <summary>An empty handle; the marshaller fills it from verify_client_options_new.</summary>
        public ClientOptionsHandle()
            : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        internal Action<LogLevel, string> OnLog
        {
            get { return log == null ? null : log.Handler; }
        }

        internal LogDispatcher LogDispatcher
        {
            get { return log; }
        }

        /// <summary>New options with the defaults (verify_client_options_new); the caller owns them.</summary>
        public static ClientOptionsHandle Create()
        {
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            ClientOptionsHandle created;
            int code = NativeMethods.verify_client_options_new(out created);
            return Args.Created(code, created);
        }

        internal T With<T>(Func<IntPtr, T> use)
        {
            return Hold.With(this, use);
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

        /// <summary>Frees the options; clients made with them keep their own copy (and root their log handler).</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_client_options_free(handle);
            return true;
        }
    }
}
