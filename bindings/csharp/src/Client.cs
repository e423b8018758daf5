// Client.cs: the client of the service, the entry point of the C# binding of verify (ABI 2).
//
// The API (namespace Verify):
// - Every action returns its typed reply (CardLoginReply, UserSessionReply, ..., generated
//   from the action table): the action table's fields as properties (strings, long?, bool?, and
//   the service's times as DateTimeOffset? with its UTC+08:00 offset), plus the raw reply
//   (GetString("/data/..."), Json) for fields the action table does not name. A reply is a plain
//   immutable object: no Dispose.
// - One error path, chosen by the host: `client.SingleLogin(card, mac).EnsureOk()` (or
//   ClientOptions.ThrowOnRefusal for every call) throws VerifyRefusedException with Code,
//   Message and Remark (VerifyConfigurationException for 1001, 1010, 1011, 1012); without it a
//   refusal is a reply whose Code says so. Local failures (network, timeout, TLS, ...) throw
//   VerifyException, the base class of both. Bad arguments throw ArgumentException and
//   ArgumentNullException.
// - The keeper raises .NET events (Alive, Message, Trouble, Ended, Offline, Online) and has a
//   Task, Completion, that completes when the session ends.
// - Options are plain classes with properties (ClientOptions, KeeperOptions).
// - The SafeHandle layer (ClientHandle, ReplyHandle, KeeperHandle, ...) stays public for calls
//   this API does not wrap.

using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Verify
{
    /// <summary>
    /// A client of the service for one program: <c>verify_client</c>. Create one per program
    /// and keep it: it holds the session secret and reuses connections.
    /// </summary>
    /// <example>
    /// <code>
    /// using (var client = new Client("https://verify.example.com", appId, appKey))
    /// {
    ///     CardLoginReply login = client.CardLogin(card, Library.MachineCode(appId)).EnsureOk();
    ///     Console.WriteLine("licensed until " + login.ExpireAt);      // DateTimeOffset, +08:00
    /// }
    /// </code>
    /// </example>
    /// <remarks>
    /// <para>Thread-safety: every method may be called from several threads at once on one
    /// client; the library holds no lock across network I/O. <see cref="Dispose"/> may race with
    /// calls: the SafeHandle defers verify_client_free until calls in progress return, and calls
    /// that start afterwards throw <see cref="ObjectDisposedException"/>.</para>
    /// <para>Every action returns its typed reply when the server answered (success, pending or
    /// refusal: <see cref="Reply.Code"/>, or <see cref="Reply.EnsureOk"/> to throw
    /// <see cref="VerifyRefusedException"/> for a refusal; with
    /// <see cref="ClientOptions.ThrowOnRefusal"/> every call throws it itself) and throws
    /// <see cref="VerifyException"/> on a local failure. Replies need no Dispose.
    /// Required string arguments must not be null (<see cref="ArgumentNullException"/>), empty
    /// or contain NUL characters (<see cref="ArgumentException"/>).</para>
    /// <para>Each action has an <c>...Async</c> twin returning a <see cref="Task{T}"/>: it
    /// checks the arguments at once, then runs the blocking call on a thread-pool thread, so the
    /// calling thread (a UI thread) is free. Its <see cref="CancellationToken"/> cancels the call
    /// in flight, in every phase (name lookup, connect, TLS, sending, waiting for the reply):
    /// within milliseconds of the cancel the task is cancelled (awaiting it throws
    /// <see cref="OperationCanceledException"/>, its inner exception the
    /// <see cref="VerifyException"/> with <see cref="ResultCode.Cancelled"/>). A token cancelled
    /// before the call starts sends nothing. An action that changes state on the server
    /// (<see cref="CardLogin"/>, <see cref="UserLoginWithCard"/>, <see cref="UserRegister"/>,
    /// <see cref="UserRecharge"/>, <see cref="ChangeBind"/>, <see cref="UpdatePassword"/>)
    /// cancelled after its request left says in the exception's message that the server may have
    /// received it; the library never sends it again, so look at the state (log in, read the
    /// card) before sending it again. One token type: <see cref="CancellationToken"/> (the
    /// library's own token, <see cref="CancelToken"/>, is obsolete).</para>
    /// </remarks>
    [NullableContext(1)]
    public sealed partial class Client : IDisposable
    {
        private readonly ClientHandle handle;
        private readonly bool throwOnRefusal;
        private readonly List<WeakReference<Keeper>> keepers = new List<WeakReference<Keeper>>();

        /// <summary>
        /// A client of the service at <paramref name="baseUrl"/> (http:// or https://, without
        /// <c>/api/verify</c>) for the program <paramref name="appId"/> with its secret
        /// <paramref name="appKey"/>, with the default settings. Nothing is sent yet: the Init
        /// handshake runs on the first action unless <see cref="Init"/> is called.
        /// </summary>
        /// <exception cref="ArgumentNullException">An argument is null.</exception>
        /// <exception cref="ArgumentException">An argument is empty, or the URL is not one the library takes (the message says what to pass instead).</exception>
        /// <exception cref="DllNotFoundException">The native library is missing (the message says where to put it).</exception>
        /// <exception cref="NotSupportedException">The loaded library has another ABI version.</exception>
        /// <param name="baseUrl">The service's address, http:// or https://, without <c>/api/verify</c>.</param>
        /// <param name="appId">The program's id.</param>
        /// <param name="appKey">The program's secret (AppKey); wiped from memory when the client is freed.</param>
        /// <exception cref="VerifyException">The library could not make the client (<see cref="VerifyException.Code"/> says why).</exception>
        public Client(string baseUrl, string appId, string appKey)
            : this(baseUrl, appId, appKey, null)
        {
        }

        /// <summary>
        /// A client with settings: mirrors, trust, pins, proxy, timeouts, racing, the state
        /// folder and offline verdicts, a log handler, <see cref="ClientOptions.ThrowOnRefusal"/>.
        /// The options are read now: changing them afterwards changes nothing for this client.
        /// </summary>
        /// <exception cref="ArgumentNullException">An argument is null.</exception>
        /// <exception cref="ArgumentException">
        /// An argument or option the library refuses: a bad URL or mirror, plain http:// to a host
        /// that is not loopback unless allowed, a root or pin that does not parse, trust settings
        /// that trust nothing (the message says which and why).
        /// </exception>
        /// <exception cref="DllNotFoundException">The native library is missing (the message says where to put it).</exception>
        /// <param name="baseUrl">The service's address, http:// or https://, without <c>/api/verify</c>.</param>
        /// <param name="appId">The program's id.</param>
        /// <param name="appKey">The program's secret (AppKey); wiped from memory when the client is freed.</param>
        /// <param name="options">The settings, or null for the defaults.</param>
        /// <exception cref="VerifyException">The library could not make the client or its options (<see cref="VerifyException.Code"/> says why).</exception>
        public Client(string baseUrl, string appId, string appKey, [Nullable(2)] ClientOptions options)
        {
            Args.Required(baseUrl, "baseUrl");
            Args.Required(appId, "appId");
            Args.Required(appKey, "appKey");
            Library.CheckAbi();
            ClientOptionsHandle native = options == null ? null : options.ToHandle();
            try
            {
                handle = ClientHandle.Create(baseUrl, appId, appKey, native);
            }
            catch (VerifyException e)
            {
                if (e.Code == ResultCode.InvalidArgument)
                {
                    throw new ArgumentException(e.Message, options == null ? "baseUrl" : null, e);
                }
                throw;
            }
            finally
            {
                if (native != null)
                {
                    native.Dispose();
                }
            }
            throwOnRefusal = options != null && options.ThrowOnRefusal;
        }

        /// <summary>
        /// A client over an existing handle (from <see cref="ClientHandle.Create"/> or another
        /// client's <see cref="Handle"/>). The client and the handle share the native object:
        /// disposing either frees it.
        /// </summary>
        /// <param name="handle">A client handle, shared with the client: disposing either frees it.</param>
        /// <exception cref="ArgumentNullException"><paramref name="handle"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="handle"/> is invalid (NULL).</exception>
        /// <exception cref="ObjectDisposedException"><paramref name="handle"/> was disposed.</exception>
        public Client(ClientHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public ClientHandle Handle
        {
            get { return handle; }
        }

        /// <summary>Whether every call throws <see cref="VerifyRefusedException"/> for a refusal (<see cref="ClientOptions.ThrowOnRefusal"/>).</summary>
        public bool ThrowOnRefusal
        {
            get { return throwOnRefusal; }
        }

        /// <summary>
        /// Sets the connect timeout and the whole-call timeout for calls that start afterwards
        /// (defaults 10 s and 30 s, or those of <see cref="ClientOptions"/>). Each is rounded up
        /// to whole milliseconds and must be at least 1 ms. The call timeout bounds everything one
        /// call does (a lazy Init, a re-Init, connects, a resend). Any thread, at any time.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">A timeout under 1 ms or over 4294967295 ms.</exception>
        /// <param name="connect">The connect timeout, at least 1 ms.</param>
        /// <param name="call">The whole-call timeout, at least 1 ms.</param>
        /// <exception cref="VerifyException">The library refused the timeouts.</exception>
        /// <exception cref="ObjectDisposedException">The client was disposed.</exception>
        public void SetTimeouts(TimeSpan connect, TimeSpan call)
        {
            uint connectMs = Args.Milliseconds(connect, "connect");
            uint callMs = Args.Milliseconds(call, "call");
            Args.Ok(NativeMethods.verify_client_set_timeouts(handle, connectMs, callMs));
        }

        /// <summary>Runs the Init handshake now (otherwise it runs on the first action).</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call and <see cref="ClientOptions.ThrowOnRefusal"/> is set (<see cref="VerifyConfigurationException"/> for 1001, 1010, 1011 and 1012).</exception>
        /// <exception cref="VerifyException">A local failure (network, timeout, TLS, a reply that is not the protocol's): <see cref="VerifyException.Code"/> says which.</exception>
        /// <exception cref="ObjectDisposedException">The client was disposed.</exception>
        public Reply Init()
        {
            ReplyHandle reply;
            int code = NativeMethods.verify_init(handle, out reply);
            return Finish(code, reply, h => new Reply(h));
        }

        /// <summary>Runs <see cref="Init"/> on the thread pool, cancelled in flight by <paramref name="cancellationToken"/> (see <see cref="Client"/>).</summary>
        /// <param name="cancellationToken">Cancels the call, before it starts or in flight.</param>
        public Task<Reply> InitAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return Run(() => Init(), cancellationToken);
        }

        /// <summary>
        /// Any action with any parameters (at most 256; values may be empty, never null), in
        /// the order given. Never sent twice once it may have reached the server.
        /// </summary>
        /// <param name="action">The action's wire name (<c>SingleLogin</c>, ...).</param>
        /// <param name="parameters">The parameters as wire key and value, or null for none.</param>
        /// <exception cref="ArgumentNullException"><paramref name="action"/> is null, or a key or value of <paramref name="parameters"/> is.</exception>
        /// <exception cref="ArgumentException"><paramref name="action"/> or a key is empty, or a string contains a NUL character.</exception>
        /// <exception cref="VerifyRefusedException">The server refused the call and <see cref="ClientOptions.ThrowOnRefusal"/> is set (<see cref="VerifyConfigurationException"/> for 1001, 1010, 1011 and 1012).</exception>
        /// <exception cref="VerifyException">A local failure (network, timeout, TLS, a reply that is not the protocol's): <see cref="VerifyException.Code"/> says which.</exception>
        /// <exception cref="ObjectDisposedException">The client was disposed.</exception>
        public Reply Call(string action, [Nullable(new byte[] { 2, 0, 1, 1 })] IEnumerable<KeyValuePair<string, string>> parameters)
        {
            Args.Required(action, "action");
            List<string> keys = new List<string>();
            List<string> values = new List<string>();
            if (parameters != null)
            {
                foreach (KeyValuePair<string, string> pair in parameters)
                {
                    Args.Required(pair.Key, "parameters");
                    Args.NotNull(pair.Value, "parameters");
                    keys.Add(pair.Key);
                    values.Add(pair.Value);
                }
            }
            string[] keyArray = keys.Count == 0 ? null : keys.ToArray();
            string[] valueArray = values.Count == 0 ? null : values.ToArray();
            ReplyHandle reply;
            int code = NativeMethods.verify_call(handle, action, keyArray, valueArray,
                new UIntPtr((uint)keys.Count), out reply);
            return Finish(code, reply, h => new Reply(h));
        }

        /// <summary>Any action with any parameters, given as pairs (see the other overload).</summary>
        /// <param name="action">The action's wire name (<c>SingleLogin</c>, ...).</param>
        /// <param name="parameters">The parameters as wire key and value.</param>
        /// <exception cref="ArgumentNullException"><paramref name="action"/> is null, or a key or value of <paramref name="parameters"/> is.</exception>
        /// <exception cref="ArgumentException"><paramref name="action"/> or a key is empty, or a string contains a NUL character.</exception>
        /// <exception cref="VerifyRefusedException">The server refused the call and <see cref="ClientOptions.ThrowOnRefusal"/> is set (<see cref="VerifyConfigurationException"/> for 1001, 1010, 1011 and 1012).</exception>
        /// <exception cref="VerifyException">A local failure (network, timeout, TLS, a reply that is not the protocol's): <see cref="VerifyException.Code"/> says which.</exception>
        /// <exception cref="ObjectDisposedException">The client was disposed.</exception>
        public Reply Call(string action, params KeyValuePair<string, string>[] parameters)
        {
            return Call(action, (IEnumerable<KeyValuePair<string, string>>)parameters);
        }

        /// <summary>
        /// Runs <see cref="Call(string, IEnumerable{KeyValuePair{string, string}})"/> on the
        /// thread pool, cancelled in flight by <paramref name="cancellationToken"/> (see
        /// <see cref="Client"/>). The parameters are copied first.
        /// </summary>
        /// <param name="action">The action's wire name (<c>SingleLogin</c>, ...).</param>
        /// <param name="parameters">The parameters as wire key and value, or null for none.</param>
        /// <param name="cancellationToken">Cancels the call, before it starts or in flight.</param>
        /// <exception cref="ArgumentNullException"><paramref name="action"/> is null (the parameters are checked by the task).</exception>
        /// <exception cref="ArgumentException"><paramref name="action"/> is empty or contains a NUL character.</exception>
        public Task<Reply> CallAsync(string action, [Nullable(new byte[] { 2, 0, 1, 1 })] IEnumerable<KeyValuePair<string, string>> parameters,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            Args.Required(action, "action");
            List<KeyValuePair<string, string>> copied = parameters == null
                ? new List<KeyValuePair<string, string>>()
                : new List<KeyValuePair<string, string>>(parameters);
            return Run(() => Call(action, copied), cancellationToken);
        }

        /// <summary>
        /// Social login step 2, repeated every <paramref name="interval"/> until the user
        /// authorizes (a reply with code 200 and the login fields; <see cref="Reply.Remark"/>
        /// is the social display name) or the server refuses (a reply with its code, e.g. 1016
        /// when the identity is not bound). Blocks the calling thread; <paramref name="mac"/> is optional.
        /// </summary>
        /// <param name="state">The state of <see cref="SocialLoginStart"/> (<c>/data/state</c>).</param>
        /// <param name="mac">The machine code, or null.</param>
        /// <param name="interval">Time between polls, at least 1 ms (rounded up to whole ms).</param>
        /// <param name="timeout">How long to wait in all, at least 1 ms.</param>
        /// <param name="cancellationToken">
        /// Ends the wait within milliseconds (a poll in flight is interrupted), from any thread:
        /// then <see cref="OperationCanceledException"/> is thrown.
        /// </param>
        /// <exception cref="VerifyException">
        /// <see cref="ResultCode.Timeout"/> when <paramref name="timeout"/> passed (no reply), or
        /// another local failure.
        /// </exception>
        /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
        /// <exception cref="ArgumentNullException"><paramref name="state"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="state"/> is empty, or a string contains a NUL character.</exception>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="interval"/> or <paramref name="timeout"/> is under 1 ms or over 4294967295 ms.</exception>
        /// <exception cref="VerifyRefusedException">The server refused the call and <see cref="ClientOptions.ThrowOnRefusal"/> is set (<see cref="VerifyConfigurationException"/> for 1001, 1010, 1011 and 1012).</exception>
        public UserSessionReply SocialLoginWait(string state, [Nullable(2)] string mac, TimeSpan interval, TimeSpan timeout,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            Args.Required(state, "state");
            Args.Optional(mac, "mac");
            uint intervalMs = Args.Milliseconds(interval, "interval");
            uint timeoutMs = Args.Milliseconds(timeout, "timeout");
            return Cancellable(() =>
            {
                ReplyHandle reply;
                // No token of its own (an empty handle crosses as NULL): the wait is cancelled by
                // the one Cancellable attached to this thread.
                int code = NativeMethods.verify_social_login_wait(handle, state, mac, intervalMs, timeoutMs,
                    new CancelHandle(), out reply);
                return Finish(code, reply, h => new UserSessionReply(h));
            }, cancellationToken);
        }

        /// <summary>
        /// The former form of <see cref="SocialLoginWait(string, string, TimeSpan, TimeSpan, CancellationToken)"/>
        /// with the library's own token: <see cref="CancelToken.Cancel"/> from another thread ends
        /// the wait within milliseconds (<see cref="VerifyException"/> with
        /// <see cref="ResultCode.Cancelled"/>).
        /// </summary>
        /// <param name="state">The state of <see cref="SocialLoginStart"/> (<c>/data/state</c>).</param>
        /// <param name="mac">The machine code, or null.</param>
        /// <param name="interval">Time between polls, at least 1 ms (rounded up to whole ms).</param>
        /// <param name="timeout">How long to wait in all, at least 1 ms.</param>
        /// <param name="cancel">The library's token, or null.</param>
        /// <exception cref="VerifyException">
        /// <see cref="ResultCode.Timeout"/> when <paramref name="timeout"/> passed,
        /// <see cref="ResultCode.Cancelled"/> when <paramref name="cancel"/> was cancelled (no
        /// reply in either case), or another local failure.
        /// </exception>
        /// <exception cref="ArgumentNullException"><paramref name="state"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="state"/> is empty, or a string contains a NUL character.</exception>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="interval"/> or <paramref name="timeout"/> is under 1 ms or over 4294967295 ms.</exception>
        /// <exception cref="VerifyRefusedException">The server refused the call and <see cref="ClientOptions.ThrowOnRefusal"/> is set (<see cref="VerifyConfigurationException"/> for 1001, 1010, 1011 and 1012).</exception>
        [Obsolete("Use the overload taking a System.Threading.CancellationToken: one token type for every call.")]
        public UserSessionReply SocialLoginWait(string state, [Nullable(2)] string mac, TimeSpan interval, TimeSpan timeout,
            [Nullable(2)] CancelToken cancel)
        {
            Args.Required(state, "state");
            Args.Optional(mac, "mac");
            uint intervalMs = Args.Milliseconds(interval, "interval");
            uint timeoutMs = Args.Milliseconds(timeout, "timeout");
            ReplyHandle reply;
            // No token: an empty handle, which crosses as NULL. A token's handle is held for
            // the call by the marshaller: it cannot be freed while the wait uses it.
            int code = NativeMethods.verify_social_login_wait(handle, state, mac, intervalMs, timeoutMs,
                cancel == null ? new CancelHandle() : cancel.Handle, out reply);
            return Finish(code, reply, h => new UserSessionReply(h));
        }

        /// <summary>
        /// <see cref="SocialLoginWait(string, string, TimeSpan, TimeSpan, CancellationToken)"/> on
        /// a thread of its own, cancelled through <paramref name="cancellationToken"/>: the wait
        /// returns within milliseconds (a poll in flight is interrupted) and the task is cancelled
        /// (awaiting it throws <see cref="OperationCanceledException"/>). A token cancelled before
        /// the call gives a cancelled task and sends nothing.
        /// </summary>
        /// <exception cref="VerifyException">
        /// (From the task) <see cref="ResultCode.Timeout"/> when <paramref name="timeout"/>
        /// passed, or another local failure.
        /// </exception>
        /// <param name="state">The state of <see cref="SocialLoginStart"/> (<c>/data/state</c>).</param>
        /// <param name="mac">The machine code, or null.</param>
        /// <param name="interval">Time between polls, at least 1 ms (rounded up to whole ms).</param>
        /// <param name="timeout">How long to wait in all, at least 1 ms.</param>
        /// <param name="cancellationToken">Ends the wait within milliseconds; the task is then cancelled.</param>
        /// <exception cref="ArgumentNullException"><paramref name="state"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="state"/> is empty, or a string contains a NUL character.</exception>
        /// <exception cref="ArgumentOutOfRangeException"><paramref name="interval"/> or <paramref name="timeout"/> is under 1 ms or over 4294967295 ms.</exception>
        public Task<UserSessionReply> SocialLoginWaitAsync(string state, [Nullable(2)] string mac, TimeSpan interval, TimeSpan timeout,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            Args.Required(state, "state");
            Args.Optional(mac, "mac");
            Args.Milliseconds(interval, "interval");
            Args.Milliseconds(timeout, "timeout");
            return Task.Factory.StartNew(() => SocialLoginWait(state, mac, interval, timeout, cancellationToken),
                cancellationToken, TaskCreationOptions.LongRunning | TaskCreationOptions.DenyChildAttach,
                TaskScheduler.Default);
        }

        /// <summary>
        /// Starts keeping a session alive in the background (verify_keeper_start) for the token
        /// of <see cref="CardLogin"/> (<see cref="SessionKind.Card"/>) or
        /// <see cref="UserLogin"/> (<see cref="SessionKind.User"/>), with
        /// <paramref name="options"/> (null: the defaults, a heartbeat every 5 minutes and 15
        /// minutes of grace). The first heartbeat is sent at once, so a token the server does not
        /// know ends the keeper with 1007 at once instead of looking alive for an interval; the
        /// next ones every interval. Subscribe to the keeper's events afterwards (an event raised
        /// before has no subscriber; <see cref="Keeper.Completion"/> and <see cref="Keeper.State"/>
        /// still tell the end), or make it with the <see cref="Keeper"/> constructor,
        /// subscribe, then <see cref="Keeper.Start"/>. Keep the returned keeper (a field) and
        /// dispose it when the session should no longer be kept.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="token"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="token"/> is empty, or <paramref name="kind"/> is not Card or User.</exception>
        /// <exception cref="VerifyException"><see cref="ResultCode.System"/> when the keeper's threads cannot start.</exception>
        /// <param name="token">The session token of the login.</param>
        /// <param name="kind">Whose session: <see cref="SessionKind.Card"/> or <see cref="SessionKind.User"/>.</param>
        /// <param name="options">The keeper's settings, or null for the defaults.</param>
        public Keeper StartKeeper(string token, SessionKind kind, [Nullable(2)] KeeperOptions options = null)
        {
            Keeper keeper = new Keeper(this, token, kind, options);
            keeper.Start();
            return keeper;
        }

        /// <summary>
        /// Starts keeping the session of a card login's reply (verify_keeper_start_from_reply):
        /// the server's own (<see cref="Reply.IsOk"/>: its token; the first heartbeat one
        /// interval after the start, since the token is fresh) or an offline verdict
        /// (<see cref="Reply.IsOffline"/>). From an offline verdict the keeper raises
        /// <see cref="Keeper.Offline"/>, waits for the login still going on after a start budget
        /// or sends it again, and raises <see cref="Keeper.Online"/> once the server takes it, or
        /// <see cref="Keeper.Ended"/> with the server's refusal (the stored verdict is cleared) or
        /// <see cref="ResultCode.GraceOver"/>. See <see cref="StartKeeper(string, SessionKind, KeeperOptions)"/>
        /// for subscribing.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="login"/> is null.</exception>
        /// <exception cref="ArgumentException">The reply is neither the login's success nor an offline verdict.</exception>
        /// <param name="login">The reply of <see cref="CardLogin"/>, or its offline verdict.</param>
        /// <param name="options">The keeper's settings, or null for the defaults.</param>
        /// <exception cref="VerifyException"><see cref="ResultCode.System"/> when the keeper's threads cannot start.</exception>
        public Keeper StartKeeper(CardLoginReply login, [Nullable(2)] KeeperOptions options = null)
        {
            Keeper keeper = new Keeper(this, login, options);
            keeper.Start();
            return keeper;
        }

        /// <summary>
        /// Starts keeping the session of an account login's reply (<see cref="UserLogin"/> or a
        /// social login), as <see cref="StartKeeper(CardLoginReply, KeeperOptions)"/> does for a
        /// card.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="login"/> is null.</exception>
        /// <exception cref="ArgumentException">The reply is neither the login's success nor an offline verdict.</exception>
        /// <param name="login">The reply of <see cref="UserLogin"/> or of a social login, or its offline verdict.</param>
        /// <param name="options">The keeper's settings, or null for the defaults.</param>
        /// <exception cref="VerifyException"><see cref="ResultCode.System"/> when the keeper's threads cannot start.</exception>
        public Keeper StartKeeper(UserSessionReply login, [Nullable(2)] KeeperOptions options = null)
        {
            Keeper keeper = new Keeper(this, login, options);
            keeper.Start();
            return keeper;
        }

        /// <summary>
        /// The former, untyped form of <see cref="StartKeeper(CardLoginReply, KeeperOptions)"/>:
        /// any reply compiles; only a login's success or an offline verdict is accepted.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="login"/> is null.</exception>
        /// <exception cref="ArgumentException">The reply is neither a login's success nor an offline verdict.</exception>
        /// <param name="login">The reply of a login (typed or not), or an offline verdict.</param>
        /// <param name="options">The keeper's settings, or null for the defaults.</param>
        /// <exception cref="VerifyException"><see cref="ResultCode.System"/> when the keeper's threads cannot start.</exception>
        [Obsolete("Pass the login's typed reply (CardLoginReply, UserSessionReply): a HeartbeatReply or another reply no longer compiles.")]
        public Keeper StartKeeper(Reply login, [Nullable(2)] KeeperOptions options = null)
        {
#pragma warning disable 618 // the former form calls the former constructor
            Keeper keeper = new Keeper(this, login, options);
#pragma warning restore 618
            keeper.Start();
            return keeper;
        }

        /// <summary>
        /// Frees the client (verify_client_free: the session secret and AppKey are wiped, the
        /// connections closed) once no call is using it any more. Replies stay valid. Keepers
        /// started on it are stopped (within 100 ms; a running event handler is waited for):
        /// their <see cref="Keeper.Completion"/> completes and their state is
        /// <see cref="KeeperState.Ended"/>; they still need their own Dispose.
        /// </summary>
        public void Dispose()
        {
            handle.Dispose();
            List<Keeper> live = new List<Keeper>();
            lock (keepers)
            {
                foreach (WeakReference<Keeper> entry in keepers)
                {
                    Keeper keeper;
                    if (entry.TryGetTarget(out keeper))
                    {
                        live.Add(keeper);
                    }
                }
                keepers.Clear();
            }
            foreach (Keeper keeper in live)
            {
                keeper.Complete(ResultCode.Cancelled, "the client was disposed");
            }
        }

        /// <summary>Remembers a keeper started on this client, so that Dispose completes it.</summary>
        internal void Track(Keeper keeper)
        {
            lock (keepers)
            {
                keepers.RemoveAll(entry =>
                {
                    Keeper alive;
                    return !entry.TryGetTarget(out alive);
                });
                keepers.Add(new WeakReference<Keeper>(keeper));
            }
        }

        /// <summary>
        /// Turns a call's code and reply into the result: the typed reply whenever the server
        /// answered with a non-negative code (a <see cref="VerifyRefusedException"/> instead for
        /// a refusal when <see cref="ThrowOnRefusal"/>), else a VerifyException with the thread's
        /// last error (read right away, before anything else can replace it).
        /// </summary>
        internal T Finish<T>(int code, ReplyHandle reply, Func<ReplyHandle, T> make)
            where T : Reply
        {
            bool answered = reply != null && !reply.IsInvalid;
            if (code >= 0 && answered)
            {
                T result = make(reply);
                if (throwOnRefusal && result.IsRefusal)
                {
                    throw VerifyRefusedException.Of(result);
                }
                return result;
            }
            VerifyException error = VerifyException.FromLastError((ResultCode)code);
            if (answered)
            {
                // The server answered but the call failed (a protocol failure): keep the
                // reply's JSON for diagnosis and free it.
                error = new VerifyException(error.Code, error.Message, new Reply(reply).Json);
                reply.Dispose();
            }
            else if (reply != null)
            {
                reply.Dispose();
            }
            throw error;
        }

        /// <summary>
        /// Runs a blocking call on the thread pool unless the token is already cancelled; the
        /// token cancels it in flight (<see cref="Cancellable{T}"/>). A token that cannot be
        /// cancelled costs nothing.
        /// </summary>
        private static Task<T> Run<T>(Func<T> call, CancellationToken cancellationToken)
        {
            Func<T> run = call;
            if (cancellationToken.CanBeCanceled)
            {
                run = () => Cancellable(call, cancellationToken);
            }
            return Task.Factory.StartNew(run, cancellationToken, TaskCreationOptions.DenyChildAttach,
                TaskScheduler.Default);
        }

        /// <summary>
        /// Runs <paramref name="call"/> on this thread with a library token attached to it
        /// (verify_cancel_attach) that <paramref name="cancellationToken"/> cancels: the call
        /// returns within milliseconds of the cancel, and <see cref="OperationCanceledException"/>
        /// is thrown with the library's words (whether the server may have received the
        /// request) and its <see cref="VerifyException"/> inside.
        /// </summary>
        internal static T Cancellable<T>(Func<T> call, CancellationToken cancellationToken)
        {
            if (!cancellationToken.CanBeCanceled)
            {
                return call();
            }
            cancellationToken.ThrowIfCancellationRequested();
            using (CancelHandle cancel = CancelHandle.Create())
            {
                Args.Ok(NativeMethods.verify_cancel_attach(cancel));
                try
                {
                    // Disposed before the token: Dispose waits for a callback that is running.
                    using (cancellationToken.Register(CancelQuietly, cancel))
                    {
                        try
                        {
                            return call();
                        }
                        catch (VerifyException error)
                        {
                            if (error.Code == ResultCode.Cancelled && cancellationToken.IsCancellationRequested)
                            {
                                // With the same token: a task ends Canceled, not Faulted.
                                throw new OperationCanceledException(error.Message, error, cancellationToken);
                            }
                            throw;
                        }
                    }
                }
                finally
                {
                    NativeMethods.verify_cancel_detach(cancel);
                }
            }
        }

        private static void Required(string value, string name)
        {
            Args.Required(value, name);
        }

        private static void Optional(string value, string name)
        {
            Args.Optional(value, name);
        }

        private static void CancelQuietly(object cancel)
        {
            try
            {
                NativeMethods.verify_cancel_cancel((CancelHandle)cancel);
            }
            catch (Exception)
            {
                // Never into CancellationTokenSource.Cancel's caller: the call ends by its timeout.
            }
        }
    }
}
