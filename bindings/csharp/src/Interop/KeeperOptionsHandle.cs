using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>
    /// Owns a <c>verify_keeper_options *</c>; released with verify_keeper_options_free. It also
    /// holds the event handler set on it, whose native callback the library stores.
    /// </summary>
    [NullableContext(1)]
    public sealed class KeeperOptionsHandle : SafeHandle
    {
        private EventDispatcher dispatcher;

        /// <summary>An empty handle; the marshaller fills it from verify_keeper_options_new.</summary>
        public KeeperOptionsHandle()
            : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

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

        internal T With<T>(Func<IntPtr, T> use)
        {
            return Hold.With(this, use);
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

        /// <summary>Frees the options; keepers started with them keep their own copy (and root their callback).</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_keeper_options_free(handle);
            return true;
        }
    }
}
