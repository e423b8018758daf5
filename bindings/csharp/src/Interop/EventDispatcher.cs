using System;
using System.Threading;

namespace Verify
{
    /// <summary>
    /// Delivers a keeper's native events to the host's handler. Its <see cref="Callback"/> is
    /// the function pointer given to verify_keeper_options_set_callback; KeeperHandle keeps it
    /// rooted until verify_keeper_free returned.
    /// </summary>
    internal sealed class EventDispatcher
    {
        // The managed id of the thread running the handler; 0 when none runs.
        private int runningThread;

        internal EventDispatcher(Action<KeeperEventArgs> handler)
        {
            Handler = handler;
            Callback = Dispatch;
        }

        internal Action<KeeperEventArgs> Handler { get; private set; }

        /// <summary>The delegate the library calls.</summary>
        internal NativeMethods.EventCallback Callback { get; private set; }

        /// <summary>Whether the calling thread is inside this dispatcher's handler.</summary>
        internal bool IsRunningOnCurrentThread
        {
            get { return Volatile.Read(ref runningThread) == Thread.CurrentThread.ManagedThreadId; }
        }

        /// <summary>
        /// Called by the library on the keeper's event thread. Copies the borrowed event out and
        /// calls the handler; nothing may unwind into native code, so every exception is caught
        /// here and dropped.
        /// </summary>
        private void Dispatch(IntPtr userData, IntPtr nativeEvent)
        {
            try
            {
                Volatile.Write(ref runningThread, Thread.CurrentThread.ManagedThreadId);
                Handler(KeeperEventArgs.FromNative(nativeEvent));
            }
            catch (Exception)
            {
                // Dropped: the handler's exception must not reach the library (see OnEvent).
            }
            finally
            {
                Volatile.Write(ref runningThread, 0);
            }
        }
    }
}
