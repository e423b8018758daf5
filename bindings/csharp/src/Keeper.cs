using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Verify
{
    /// <summary>
    /// A session keeper (<c>verify_keeper</c>): it sends a heartbeat every interval on its own
    /// thread and raises .NET events (<see cref="Alive"/>, <see cref="NoticeReceived"/>,
    /// <see cref="Trouble"/>, <see cref="Ended"/>, <see cref="Offline"/>, <see cref="Online"/>,
    /// and <see cref="EventReceived"/> for every event), and its <see cref="Completion"/> task
    /// completes when the session ends. Started by <see cref="Client.StartKeeper(string, SessionKind, KeeperOptions)"/>
    /// or <see cref="Client.StartKeeper(CardLoginReply, KeeperOptions)"/> (a login's typed reply), or made with a constructor
    /// and started with <see cref="Start"/> after subscribing (then no event is missed).
    /// </summary>
    /// <example>
    /// <code>
    /// Keeper keeper = client.StartKeeper(login);
    /// keeper.Ended += (sender, e) => Console.WriteLine("session over: " + e.Code + " " + e.Remark);
    /// keeper.NoticeReceived += (sender, e) => Console.WriteLine("notice: " + e.Notice);
    /// KeeperEventArgs end = await keeper.Completion;
    /// </code>
    /// </example>
    /// <remarks>
    /// <para>The handlers run on the keeper's own event thread: not the thread that started the
    /// keeper, and never the UI thread (marshal to it with Control.BeginInvoke,
    /// Dispatcher.BeginInvoke or SynchronizationContext.Post). Events come one at a time, in
    /// order; a slow handler delays only later events. Subscribers may be added and removed at
    /// any time, also after the start. An exception thrown by a handler is caught and dropped
    /// (none reaches native code), and the other handlers and the next events still run.</para>
    /// <para>Back-office messages that no handler receives (no <see cref="NoticeReceived"/> nor
    /// <see cref="EventReceived"/> subscriber) are queued and handed out by <see cref="Status"/>,
    /// each once.</para>
    /// <para>A started keeper runs until <see cref="Stop"/>, <see cref="Dispose"/>, the end of its
    /// session or the disposal of its client; it is not collected meanwhile. It keeps its client
    /// from being collected, but disposing the client stops it. Dispose (stop + free) is
    /// idempotent, may run from any thread, also after the client was disposed, and also from
    /// inside a handler (the free then completes on a thread-pool thread once the handler
    /// returned). After Dispose, the members throw <see cref="ObjectDisposedException"/>.</para>
    /// </remarks>
    [NullableContext(1)]
    public sealed class Keeper : IDisposable
    {
        private readonly object gate = new object();
        private readonly Client client;
        private readonly KeeperOptions options;
        private readonly Func<ClientHandle, KeeperOptionsHandle, KeeperHandle> start;
        private readonly string startParameter;
        private readonly TaskCompletionSource<KeeperEventArgs> completion =
            new TaskCompletionSource<KeeperEventArgs>(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly Queue<string> messages = new Queue<string>();
        private KeeperHandle handle;

        /// <summary>
        /// A keeper of the session of <paramref name="token"/> on <paramref name="client"/>, not
        /// started yet: subscribe to its events, then <see cref="Start"/> (see
        /// <see cref="Client.StartKeeper(string, SessionKind, KeeperOptions)"/>).
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="client"/> or <paramref name="token"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="token"/> is empty, or <paramref name="kind"/> is not Card or User.</exception>
        /// <param name="client">The client whose session it keeps; disposing it stops the keeper.</param>
        /// <param name="token">The session token of the login.</param>
        /// <param name="kind">Whose session: <see cref="SessionKind.Card"/> or <see cref="SessionKind.User"/>.</param>
        /// <param name="options">The keeper's settings, or null for the defaults.</param>
        public Keeper(Client client, string token, SessionKind kind, [Nullable(2)] KeeperOptions options = null)
        {
            if (client == null)
            {
                throw new ArgumentNullException("client");
            }
            Args.Required(token, "token");
            Args.Session(kind, "kind");
            this.client = client;
            this.options = options;
            startParameter = "token";
            start = (c, nativeOptions) =>
            {
                KeeperHandle created;
                int code = NativeMethods.verify_keeper_start(c, token, (int)kind, nativeOptions, out created);
                return Args.Created(code, created);
            };
        }

        /// <summary>
        /// A keeper of the session of a card login's reply on <paramref name="client"/> (its
        /// success, or an offline verdict), not started yet: subscribe to its events, then
        /// <see cref="Start"/> (see <see cref="Client.StartKeeper(CardLoginReply, KeeperOptions)"/>).
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="client"/> or <paramref name="login"/> is null.</exception>
        /// <exception cref="ArgumentException">The reply is neither the login's success (200) nor an offline verdict (202).</exception>
        /// <param name="client">The client whose session it keeps; disposing it stops the keeper.</param>
        /// <param name="login">The reply of <see cref="Client.CardLogin"/>.</param>
        /// <param name="options">The keeper's settings, or null for the defaults.</param>
        public Keeper(Client client, CardLoginReply login, [Nullable(2)] KeeperOptions options = null)
            : this(client, login, options, true)
        {
        }

        /// <summary>
        /// A keeper of the session of an account login's reply on <paramref name="client"/>
        /// (<see cref="Client.UserLogin"/> or a social login: its success, or an offline
        /// verdict), not started yet: subscribe to its events, then <see cref="Start"/>.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="client"/> or <paramref name="login"/> is null.</exception>
        /// <exception cref="ArgumentException">The reply is neither the login's success (200) nor an offline verdict (202).</exception>
        /// <param name="client">The client whose session it keeps; disposing it stops the keeper.</param>
        /// <param name="login">The reply of <see cref="Client.UserLogin"/> or of a social login.</param>
        /// <param name="options">The keeper's settings, or null for the defaults.</param>
        public Keeper(Client client, UserSessionReply login, [Nullable(2)] KeeperOptions options = null)
            : this(client, login, options, true)
        {
        }

        /// <summary>
        /// The former, untyped form: any reply compiles, and only a login's success or an
        /// offline verdict is accepted when the keeper is made.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="client"/> or <paramref name="login"/> is null.</exception>
        /// <exception cref="ArgumentException">The reply is neither a login's success (200) nor an offline verdict (202).</exception>
        /// <param name="client">The client whose session it keeps; disposing it stops the keeper.</param>
        /// <param name="login">The reply of a login (typed or not), or an offline verdict.</param>
        /// <param name="options">The keeper's settings, or null for the defaults.</param>
        [Obsolete("Pass the login's typed reply (CardLoginReply, UserSessionReply): a HeartbeatReply or another reply no longer compiles.")]
        public Keeper(Client client, Reply login, [Nullable(2)] KeeperOptions options = null)
            : this(client, login, options, true)
        {
        }

        /// <summary>The keeper of a login's reply (the constructors above).</summary>
        private Keeper(Client client, Reply login, [Nullable(2)] KeeperOptions options, bool fromReply)
        {
            if (client == null)
            {
                throw new ArgumentNullException("client");
            }
            if (login == null)
            {
                throw new ArgumentNullException("login");
            }
            if (!login.IsOk && !login.IsOffline)
            {
                throw new ArgumentException(string.Format(
                    "The reply is neither a login's success (200) nor an offline verdict (202): its code is {0}.",
                    (int)login.Code), "login");
            }
            this.client = client;
            this.options = options;
            startParameter = "login";
            start = (c, nativeOptions) => login.Handle.With(reply =>
            {
                KeeperHandle created;
                int code = NativeMethods.verify_keeper_start_from_reply(c, reply, nativeOptions, out created);
                return Args.Created(code, created);
            });
        }

        /// <summary>
        /// A keeper over a handle started elsewhere (<see cref="KeeperHandle.Start(ClientHandle, string, SessionKind, KeeperOptionsHandle)"/>);
        /// disposing either frees it. Its events are those of the handle's own options, so this
        /// object raises none; its <see cref="Completion"/> completes on Stop or Dispose.
        /// </summary>
        /// <param name="handle">A started keeper's handle, shared with the keeper: disposing either frees it.</param>
        /// <exception cref="ArgumentNullException"><paramref name="handle"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="handle"/> is invalid (NULL).</exception>
        /// <exception cref="ObjectDisposedException"><paramref name="handle"/> was disposed.</exception>
        public Keeper(KeeperHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
        }

        /// <summary>A heartbeat succeeded: <see cref="KeeperEventArgs.ExpireAt"/> is the session's expiry.</summary>
        public event EventHandler<KeeperEventArgs> Alive;

        /// <summary>A back-office message, in <see cref="KeeperEventArgs.Notice"/>, delivered once (kind <see cref="EventKind.Message"/>).</summary>
        public event EventHandler<KeeperEventArgs> NoticeReceived;

        /// <summary>The former name of <see cref="NoticeReceived"/>: the same event.</summary>
        [Obsolete("Use NoticeReceived: the back-office message is KeeperEventArgs.Notice.")]
        public event EventHandler<KeeperEventArgs> Message
        {
            add { NoticeReceived += value; }
            remove { NoticeReceived -= value; }
        }

        /// <summary>
        /// A heartbeat failed for another reason than the session's end (network down, a reply
        /// that is not the service's); the keeper retries within the grace period and the
        /// session stays usable.
        /// </summary>
        public event EventHandler<KeeperEventArgs> Trouble;

        /// <summary>
        /// The session ended: 1005 (expired), 1006 (disabled or banned;
        /// <see cref="KeeperEventArgs.Remark"/> is the reason), 1007 (token invalid), the grace
        /// period ran out (<see cref="ResultCode.GraceOver"/> offline), a refusal of a login sent
        /// again after an offline start, or <see cref="ResultCode.Panic"/>. The keeper has
        /// stopped; <see cref="Completion"/> completes with the same event.
        /// </summary>
        public event EventHandler<KeeperEventArgs> Ended;

        /// <summary>
        /// Offline verdicts on: the server cannot be reached; the session goes on offline until
        /// <see cref="KeeperEventArgs.GraceEnd"/>. Also the first event of a keeper started from
        /// an offline verdict.
        /// </summary>
        public event EventHandler<KeeperEventArgs> Offline;

        /// <summary>
        /// Offline verdicts on: the server confirmed the licence again (or for the first time
        /// after an offline start): <see cref="KeeperEventArgs.ExpireAt"/> is its expiry.
        /// </summary>
        public event EventHandler<KeeperEventArgs> Online;

        /// <summary>Every event, before the event of its kind; also the kinds a later library adds.</summary>
        public event EventHandler<KeeperEventArgs> EventReceived;

        /// <summary>The underlying handle, for calls this class does not wrap; null before <see cref="Start"/>.</summary>
        [Nullable(2)]
        public KeeperHandle Handle
        {
            get { return handle; }
        }

        /// <summary>
        /// A task that completes when the session ends: with the <see cref="Ended"/> event's
        /// arguments, or, when the host ends it (<see cref="Stop"/>, <see cref="Dispose"/>, the
        /// client's Dispose), with arguments of kind <see cref="EventKind.Ended"/> and code
        /// <see cref="ResultCode.Cancelled"/>. It never faults nor is cancelled; its continuations
        /// run asynchronously (never on the keeper's thread).
        /// </summary>
        public Task<KeeperEventArgs> Completion
        {
            get { return completion.Task; }
        }

        /// <summary>
        /// The keeper's state (verify_keeper_state). A state added by a later library is
        /// returned as its number. Any thread.
        /// </summary>
        /// <exception cref="InvalidOperationException">The keeper has not started.</exception>
        /// <exception cref="VerifyException">The library could not read the state.</exception>
        public KeeperState State
        {
            get
            {
                int state = NativeMethods.verify_keeper_state(Started());
                if (state < 0)
                {
                    throw VerifyException.FromLastError((ResultCode)state);
                }
                return (KeeperState)state;
            }
        }

        /// <summary>
        /// Whether the session is usable: <see cref="KeeperState.Alive"/> or
        /// <see cref="KeeperState.Grace"/>; false for Ended and for states this binding does not know.
        /// </summary>
        /// <exception cref="InvalidOperationException">The keeper has not started.</exception>
        /// <exception cref="VerifyException">The library could not read the state.</exception>
        public bool IsAlive
        {
            get { return KeeperStatus.IsAliveState(State); }
        }

        /// <summary>
        /// Starts the keeper: its first heartbeat, or for a login's reply the wait for the next.
        /// Once only.
        /// </summary>
        /// <exception cref="InvalidOperationException">It has started already, or was made over a handle.</exception>
        /// <exception cref="ArgumentException">The library refused the session (the message says why).</exception>
        /// <exception cref="VerifyException"><see cref="ResultCode.System"/> when the keeper's threads cannot start.</exception>
        public void Start()
        {
            lock (gate)
            {
                if (handle != null || start == null)
                {
                    throw new InvalidOperationException("The keeper has already started.");
                }
                KeeperOptionsHandle native = (options ?? new KeeperOptions()).ToHandle();
                try
                {
                    // The handler holds this keeper: a started keeper is rooted (through the
                    // delegate's GCHandle) until its handle is freed.
                    native.SetEventHandler(Raise);
                    handle = KeeperHandle.Start(client.Handle, native, start);
                }
                catch (VerifyException e)
                {
                    if (e.Code == ResultCode.InvalidArgument)
                    {
                        throw new ArgumentException(e.Message, startParameter, e);
                    }
                    throw;
                }
                finally
                {
                    native.Dispose();
                }
            }
            client.Track(this);
        }

        /// <summary>
        /// A snapshot of the keeper (verify_keeper_get_status), with the back-office messages queued
        /// since the previous snapshot (each returned once). Any thread.
        /// </summary>
        /// <exception cref="InvalidOperationException">The keeper has not started.</exception>
        /// <exception cref="VerifyException">The library could not take the snapshot.</exception>
        public KeeperStatus Status()
        {
            KeeperStatus status;
            using (KeeperStatusHandle snapshot = KeeperStatusHandle.Take(Started()))
            {
                status = new KeeperStatus(snapshot);
            }
            lock (messages)
            {
                if (messages.Count > 0)
                {
                    List<string> all = new List<string>(messages);
                    all.AddRange(status.Notices);
                    messages.Clear();
                    status.ReplaceNotices(all);
                }
            }
            return status;
        }

        /// <summary>
        /// Stops the keeper (verify_keeper_stop): wakes it, cancels a heartbeat in flight and
        /// waits for its threads (within 100 ms, unless a handler is running: it is waited
        /// for). From inside a handler it returns at once, and no event follows the running one.
        /// Idempotent; the state becomes <see cref="KeeperState.Ended"/> and
        /// <see cref="Completion"/> completes. Any thread.
        /// </summary>
        /// <exception cref="InvalidOperationException">The keeper has not started.</exception>
        /// <exception cref="VerifyException">The library refused the call.</exception>
        public void Stop()
        {
            Args.Ok(NativeMethods.verify_keeper_stop(Started()));
            Complete(ResultCode.Cancelled, "the keeper was stopped by the host");
        }

        /// <summary>
        /// Stops and frees the keeper (verify_keeper_free) once no call is using it; no handler
        /// is called any more afterwards (from inside a handler: after it returns).
        /// <see cref="Completion"/> completes.
        /// </summary>
        public void Dispose()
        {
            KeeperHandle current;
            lock (gate)
            {
                current = handle;
            }
            if (current != null)
            {
                current.Dispose();
            }
            Complete(ResultCode.Cancelled, "the keeper was disposed");
        }

        /// <summary>Completes <see cref="Completion"/> for an end by the host (unless the session ended before).</summary>
        internal void Complete(ResultCode code, string message)
        {
            completion.TrySetResult(new KeeperEventArgs(EventKind.Ended, code, message, null, null, null));
        }

        /// <summary>Raises an event of the keeper's event thread to the subscribers.</summary>
        private void Raise(KeeperEventArgs e)
        {
            Invoke(EventReceived, e);
            switch (e.Kind)
            {
                case EventKind.Alive:
                    Invoke(Alive, e);
                    break;
                case EventKind.Message:
                    EventHandler<KeeperEventArgs> handlers = NoticeReceived;
                    if (handlers == null && EventReceived == null)
                    {
                        lock (messages)
                        {
                            messages.Enqueue(e.Notice ?? string.Empty);
                        }
                    }
                    else
                    {
                        Invoke(handlers, e);
                    }
                    break;
                case EventKind.Trouble:
                    Invoke(Trouble, e);
                    break;
                case EventKind.Ended:
                    Invoke(Ended, e);
                    completion.TrySetResult(e);
                    break;
                case EventKind.Offline:
                    Invoke(Offline, e);
                    break;
                case EventKind.Online:
                    Invoke(Online, e);
                    break;
            }
        }

        /// <summary>Calls each handler on its own: one that throws does not keep the others from the event.</summary>
        private void Invoke(EventHandler<KeeperEventArgs> handlers, KeeperEventArgs e)
        {
            if (handlers == null)
            {
                return;
            }
            foreach (Delegate handler in handlers.GetInvocationList())
            {
                try
                {
                    ((EventHandler<KeeperEventArgs>)handler)(this, e);
                }
                catch (Exception)
                {
                    // Dropped on purpose (see the remarks): the next handlers and events still run.
                }
            }
        }

        private KeeperHandle Started()
        {
            KeeperHandle current;
            lock (gate)
            {
                // Waits for a Start in progress: a handler of the first event sees the handle.
                current = handle;
            }
            if (current == null)
            {
                throw new InvalidOperationException("The keeper has not started: call Start() first.");
            }
            return current;
        }
    }
}
