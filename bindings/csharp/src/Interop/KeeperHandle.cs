using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace Verify
{
    // The hand-written part of KeeperHandle (Generated/KeeperHandle.g.cs): released with
    // verify_keeper_free, after which the native
    // callback delegate of the keeper is unrooted. It references its client's handle, so the
    // client is not collected (and its finalizer does not stop the keeper) while the keeper is
    // reachable; disposing the client still stops the keeper.
    public sealed partial class KeeperHandle
    {
        private GCHandle callbackRoot;
        private EventDispatcher dispatcher;
        private ClientHandle client;

        /// <summary>
        /// Starts a keeper (verify_keeper_start) on <paramref name="client"/> for
        /// <paramref name="token"/>, with <paramref name="options"/> (null: the defaults); see
        /// <see cref="Client.StartKeeper(string, SessionKind, KeeperOptions)"/>. The caller owns the result.
        /// </summary>
        /// <param name="client">The client's handle.</param>
        /// <param name="token">The session token of the login.</param>
        /// <param name="kind">Whose session: <see cref="SessionKind.Card"/> or <see cref="SessionKind.User"/>.</param>
        /// <param name="options">The keeper's options, or null for the defaults.</param>
        /// <exception cref="ArgumentNullException"><paramref name="client"/> or <paramref name="token"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="token"/> is empty or contains a NUL character, or a handle is invalid.</exception>
        /// <exception cref="VerifyException">The library refused the session or could not start the keeper.</exception>
        public static KeeperHandle Start(ClientHandle client, string token, SessionKind kind,
            [Nullable(2)] KeeperOptionsHandle options)
        {
            Args.Required(token, "token");
            return Start(client, options, (c, nativeOptions) =>
            {
                KeeperHandle made;
                int code = NativeMethods.verify_keeper_start(c, token, (int)kind, nativeOptions, out made);
                return Args.Created(code, made);
            });
        }

        /// <summary>
        /// Starts a keeper on <paramref name="client"/> with <paramref name="options"/> (null:
        /// the defaults) through <paramref name="start"/>, the native call given the options
        /// (an empty handle, NULL, for none); roots the options' event handler for the keeper's life.
        /// </summary>
        internal static KeeperHandle Start(ClientHandle client, KeeperOptionsHandle options,
            Func<ClientHandle, KeeperOptionsHandle, KeeperHandle> start)
        {
            if (client == null)
            {
                throw new ArgumentNullException("client");
            }
            EventDispatcher dispatcher = options == null ? null : options.Dispatcher;
            // Rooted before the keeper exists: its event thread may call the delegate at any
            // time until verify_keeper_free returns, even if this handle is never disposed.
            GCHandle root = dispatcher == null ? default(GCHandle) : GCHandle.Alloc(dispatcher.Callback);
            try
            {
                KeeperHandle created = start(client, options ?? new KeeperOptionsHandle());
                created.callbackRoot = root;
                created.dispatcher = dispatcher;
                created.client = client;
                root = default(GCHandle);
                StopAtExit(created);
                return created;
            }
            finally
            {
                // Still allocated only when the keeper did not start.
                if (root.IsAllocated)
                {
                    root.Free();
                }
            }
        }

        // Live keepers. Their threads run managed code (the event handler, or the client's
        // log handler), which attaches them to the runtime, and Mono waits at exit for the
        // threads it attached: the process would never end while such a keeper runs. They
        // are freed when the process exits (AppDomain.ProcessExit), which joins their threads.
        private static readonly List<WeakReference> withHandlers = new List<WeakReference>();
        private static bool exitHooked;

        private static void StopAtExit(KeeperHandle keeper)
        {
            lock (withHandlers)
            {
                withHandlers.RemoveAll(w => !w.IsAlive);
                withHandlers.Add(new WeakReference(keeper));
                if (!exitHooked)
                {
                    AppDomain.CurrentDomain.ProcessExit += (sender, e) => FreeAtExit();
                    exitHooked = true;
                }
            }
        }

        private static void FreeAtExit()
        {
            List<KeeperHandle> live = new List<KeeperHandle>();
            lock (withHandlers)
            {
                foreach (WeakReference keeper in withHandlers)
                {
                    KeeperHandle target = keeper.Target as KeeperHandle;
                    if (target != null)
                    {
                        live.Add(target);
                    }
                }
                withHandlers.Clear();
            }
            foreach (KeeperHandle keeper in live)
            {
                keeper.Dispose();
            }
        }

        /// <summary>
        /// Stops and frees the keeper (its threads are joined: the library calls the delegate no
        /// more), then lets the delegate go. Runs once, after every call using the handle
        /// returned. On the keeper's own event thread (a handler disposing its keeper) it stops
        /// the keeper at once and frees it from the thread pool, since verify_keeper_free joins
        /// that thread.
        /// </summary>
        private bool Release()
        {
            IntPtr keeper = handle;
            GCHandle root = callbackRoot;
            EventDispatcher running = dispatcher;
            // The keeper no longer needs its client: let the client be collected.
            GC.KeepAlive(client);
            callbackRoot = default(GCHandle);
            dispatcher = null;
            client = null;
            if (running != null && running.IsRunningOnCurrentThread)
            {
                NativeMethods.verify_keeper_stop_raw(keeper);
                ThreadPool.QueueUserWorkItem(_ => Free(keeper, root, running));
                return true;
            }
            Free(keeper, root, running);
            return true;
        }

        private static void Free(IntPtr keeper, GCHandle root, EventDispatcher running)
        {
            NativeMethods.verify_keeper_free(keeper);
            if (root.IsAllocated)
            {
                root.Free();
            }
            GC.KeepAlive(running);
        }
    }
}
