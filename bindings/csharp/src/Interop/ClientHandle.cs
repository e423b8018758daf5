using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Verify
{
    // The hand-written part of ClientHandle (Generated/ClientHandle.g.cs): making a client, and
    // its log handler, rooted until the client is freed.
    public sealed partial class ClientHandle
    {
        private GCHandle logRoot;
        private LogDispatcher log;

        /// <summary>
        /// A new client (verify_client_new_with_options, <paramref name="options"/> null for the
        /// defaults); see the <see cref="Client"/> constructor with options. The caller
        /// owns it: dispose it, or hand it to a <see cref="Client"/> that does.
        /// </summary>
        /// <param name="baseUrl">The service's address, as for <see cref="Client"/>.</param>
        /// <param name="appId">The program's id.</param>
        /// <param name="appKey">The program's secret (AppKey).</param>
        /// <param name="options">The options, or null for the defaults.</param>
        /// <exception cref="ArgumentNullException"><paramref name="baseUrl"/>, <paramref name="appId"/> or <paramref name="appKey"/> is null.</exception>
        /// <exception cref="ArgumentException">An argument is empty or contains a NUL character.</exception>
        /// <exception cref="VerifyException">The library refused to make the client (<see cref="ResultCode.InvalidArgument"/>: the message says why).</exception>
        public static ClientHandle Create(string baseUrl, string appId, string appKey,
            [Nullable(2)] ClientOptionsHandle options = null)
        {
            Library.CheckAbi();
            Args.Required(baseUrl, "baseUrl");
            Args.Required(appId, "appId");
            Args.Required(appKey, "appKey");
            LogDispatcher log = options == null ? null : options.LogDispatcher;
            // Rooted before the client exists: the library may log from any call until
            // verify_client_free returns.
            GCHandle root = log == null ? default(GCHandle) : GCHandle.Alloc(log.Callback);
            try
            {
                // No options: an empty handle, which crosses as NULL.
                ClientHandle created;
                int code = NativeMethods.verify_client_new_with_options(baseUrl, appId, appKey,
                    options ?? new ClientOptionsHandle(), out created);
                created = Args.Created(code, created);
                created.logRoot = root;
                created.log = log;
                root = default(GCHandle);
                return created;
            }
            finally
            {
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
        private bool Release()
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
