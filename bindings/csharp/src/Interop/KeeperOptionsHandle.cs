using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Verify
{
    // Owns a <c>verify_keeper_options *</c>; released with verify_keeper_options_free. It also
    // holds the event handler set on it, whose native callback the library stores.
    public sealed partial class KeeperOptionsHandle
    {
        private EventDispatcher dispatcher;

        internal Action<KeeperEventArgs> OnEvent
        {
            get { return dispatcher == null ? null : dispatcher.Handler; }
        }

        internal EventDispatcher Dispatcher
        {
            get { return dispatcher; }
        }

        /// <summary>New options with the defaults (verify_keeper_options_new); the caller owns them.</summary>
        /// <exception cref="VerifyException">The library could not make the options.</exception>
        public static KeeperOptionsHandle Create()
        {
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            KeeperOptionsHandle created;
            int code = NativeMethods.verify_keeper_options_new(out created);
            return Args.Created(code, created);
        }

        /// <summary>
        /// Sets the function receiving the events of keepers started with these options
        /// (verify_keeper_options_set_callback through a dispatcher of its own; null: none), on
        /// the keeper's event thread; exceptions it throws are caught and dropped. A keeper started
        /// with the options keeps the function alive until it is freed.
        /// </summary>
        /// <param name="onEvent">The handler, or null for none.</param>
        /// <exception cref="VerifyException">The library refused the handler.</exception>
        public void SetEventHandler([Nullable(new byte[] { 2, 1 })] Action<KeeperEventArgs> onEvent)
        {
            EventDispatcher next = onEvent == null ? null : new EventDispatcher(onEvent);
            With(p => Args.Ok(NativeMethods.verify_keeper_options_set_callback(p,
                next == null ? null : next.Callback, IntPtr.Zero)));
            // Kept while the options live: the library holds the delegate's function pointer.
            dispatcher = next;
        }

    }
}
