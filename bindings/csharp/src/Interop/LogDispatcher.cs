using System;

namespace Verify
{
    /// <summary>
    /// Delivers a client's native log messages to the host's handler. Its
    /// <see cref="Callback"/> is the function pointer given to verify_client_options_set_log;
    /// ClientHandle keeps it rooted until verify_client_free returned.
    /// </summary>
    internal sealed class LogDispatcher
    {
        internal LogDispatcher(Action<LogLevel, string> handler)
        {
            Handler = handler;
            Callback = Dispatch;
        }

        internal Action<LogLevel, string> Handler { get; private set; }

        /// <summary>The delegate the library calls.</summary>
        internal NativeMethods.LogCallback Callback { get; private set; }

        /// <summary>Called by the library on any calling thread; nothing may unwind into native code.</summary>
        private void Dispatch(IntPtr userData, int level, IntPtr message)
        {
            try
            {
                Handler((LogLevel)level, Utf8.FromNative(message) ?? string.Empty);
            }
            catch (Exception)
            {
                // Dropped: the handler's exception must not reach the library (see OnLog).
            }
        }
    }
}
