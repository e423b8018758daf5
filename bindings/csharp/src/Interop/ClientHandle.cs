using System;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>Owns a <c>verify_client *</c>; released with verify_client_free.</summary>
    public sealed class ClientHandle : SafeHandle
    {
        private GCHandle logRoot;
        private LogDispatcher log;

        /// <summary>An empty handle; the marshaller fills it from verify_client_new.</summary>
        public ClientHandle()
            : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>
        /// A new client (verify_client_new_with_options, <paramref name="options"/> null for the
        /// defaults); see the <see cref="Client"/> constructor with options. The caller
        /// owns it: dispose it, or hand it to a <see cref="Client"/> that does.
        /// </summary>
        public static ClientHandle Create(string baseUrl, string appId, string appKey,
            ClientOptionsHandle options = null)
        {
            Library.CheckAbi();
            Args.Required(baseUrl, "baseUrl");
            Args.Required(appId, "appId");
            Args.Required(appKey, "appKey");
            LogDispatcher log = options == null ? null : options.LogDispatcher;
            // Rooted before the client exists: the library may log from any call until
            // verify_client_free returns.
            GCHandle root = log == null ? default(GCHandle) : GCHandle.Alloc(log.Callback);
            bool added = false;
            try
            {
                IntPtr nativeOptions = IntPtr.Zero;
                if (options != null)
                {
                    options.DangerousAddRef(ref added);
                    nativeOptions = options.DangerousGetHandle();
                }
                ClientHandle created;
                int code = NativeMethods.verify_client_new_with_options(baseUrl, appId, appKey, nativeOptions,
                    out created);
                created = Args.Created(code, created);
                created.logRoot = root;
                created.log = log;
                root = default(GCHandle);
                return created;
            }
            finally
            {
                if (added)
                {
                    options.DangerousRelease();
                }
                // Still allocated only when the client was not made.
                if (root.IsAllocated)
                {
                    root.Free();
                }
            }
        }

        /// <summary>
        /// Frees the client; runs once, after every call using the handle returned. Its keepers
        /// are stopped and their threads joined first; then its log handler is let go.
        /// </summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_client_free(handle);
            if (logRoot.IsAllocated)
            {
                logRoot.Free();
            }
            GC.KeepAlive(log);
            log = null;
            return true;
        }
    }
}
