// Verify.cs: the C# binding of the verify licensing client (libverify.so / verify.dll), ABI 2.
//
// One file: drop it into a .NET (Core 3.1+, 5+) or .NET Framework 4.7+ project, or compile it
// with Mono's `mcs`, and ship the native library where the runtime finds it: next to the
// executable, or (Linux) on LD_LIBRARY_PATH. `[DllImport("verify")]` resolves to
// `libverify.so` on Linux, `libverify.dylib` on macOS and `verify.dll` on Windows.
//
// Interop rules this file keeps (see verify.h for the C contract):
// - Every native object is owned by a public SafeHandle subclass (ClientHandle, ReplyHandle,
//   KeeperHandle, KeeperOptionsHandle, KeeperStatusHandle, CancelHandle), freed exactly once
//   by the library's own free function, never while a call that uses it is running. The
//   classes of the API (Client, Reply, Keeper, ...) wrap a handle and can be built from one.
// - Every DllImport and the callback delegate use CallingConvention.Winapi: stdcall on 32-bit
//   Windows, the platform's C convention elsewhere, which is the header's VERIFY_CALL.
// - Strings go in as NUL-terminated UTF-8 (UnmanagedType.LPUTF8Str, copied by the library).
// - Strings the library owns come back as IntPtr and are copied out with a UTF-8 decode while
//   their owner is held (DangerousAddRef); never declared as `string` returns (the marshaller
//   would free library memory).
// - Booleans cross the boundary as int32 only; size_t as UIntPtr.
// - The keeper's event reaches managed code as a [StructLayout(Sequential)] struct
//   (NativeEvent). The callback delegate is rooted by a strong GCHandle that KeeperHandle frees
//   only after verify_keeper_free returned (the library joins the keeper's threads there), so
//   the library never calls a collected delegate. It catches every exception: none unwinds
//   into native code.
//
// Errors: a call that reached the server returns a Reply, refusals included (check
// reply.Code). A local failure (negative code: invalid argument, network, timeout, TLS,
// protocol, ...) throws VerifyException with the code and verify_last_error_message().

using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Verify
{
    /// <summary>
    /// Every result code of the library: 200 success, 201 pending, the server's refusals
    /// (1001..1024) and the negative local failures. The values are those of verify.h; a code
    /// not named here (a future server code) is still a valid <c>ResultCode</c> value.
    /// </summary>
    public enum ResultCode
    {
        // BEGIN GENERATED: codes (tests/generate/csharp.rs; do not edit)
        /// <summary>success (<c>VERIFY_OK</c>).</summary>
        Ok = 200,
        /// <summary>waiting for social authorization; keep polling (<c>VERIFY_PENDING</c>).</summary>
        Pending = 201,
        /// <summary>licensed offline: the server could not be reached; the stored verdict answers (<c>VERIFY_OFFLINE</c>).</summary>
        Offline = 202,
        /// <summary>program not found (or session secret unknown to the server) (<c>VERIFY_PROGRAM_NOT_FOUND</c>).</summary>
        ProgramNotFound = 1001,
        /// <summary>wrong password (<c>VERIFY_WRONG_PASSWORD</c>).</summary>
        WrongPassword = 1003,
        /// <summary>card invalid, refunded, or not of this program (<c>VERIFY_CARD_INVALID</c>).</summary>
        CardInvalid = 1004,
        /// <summary>expired, not activated, or count card used up (<c>VERIFY_EXPIRED</c>).</summary>
        Expired = 1005,
        /// <summary>disabled, frozen or banned; the remark carries the reason (<c>VERIFY_DISABLED</c>).</summary>
        Disabled = 1006,
        /// <summary>token invalid; log in again (<c>VERIFY_TOKEN_INVALID</c>).</summary>
        TokenInvalid = 1007,
        /// <summary>signature error (<c>VERIFY_SIGNATURE_ERROR</c>).</summary>
        SignatureError = 1010,
        /// <summary>program key (AppKey) wrong (<c>VERIFY_APP_KEY_WRONG</c>).</summary>
        AppKeyWrong = 1011,
        /// <summary>program not approved (pending, rejected, or plan expired) (<c>VERIFY_NOT_APPROVED</c>).</summary>
        NotApproved = 1012,
        /// <summary>incomplete parameters, or invalid heartbeat type (<c>VERIFY_INCOMPLETE_PARAMETERS</c>).</summary>
        IncompleteParameters = 1013,
        /// <summary>timestamp outside the server's tolerance of 300 seconds (<c>VERIFY_TIMESTAMP_SKEW</c>).</summary>
        TimestampSkew = 1014,
        /// <summary>unknown action (<c>VERIFY_UNKNOWN_ACTION</c>).</summary>
        UnknownAction = 1015,
        /// <summary>user not registered, or social identity not bound (<c>VERIFY_USER_NOT_REGISTERED</c>).</summary>
        UserNotRegistered = 1016,
        /// <summary>username already registered (<c>VERIFY_USERNAME_TAKEN</c>).</summary>
        UsernameTaken = 1017,
        /// <summary>registration limit per IP address reached (<c>VERIFY_IP_REGISTRATION_LIMIT</c>).</summary>
        IpRegistrationLimit = 1019,
        /// <summary>new machine code equals the current one (<c>VERIFY_SAME_MACHINE_CODE</c>).</summary>
        SameMachineCode = 1020,
        /// <summary>rebind limit reached (<c>VERIFY_REBIND_LIMIT</c>).</summary>
        RebindLimit = 1021,
        /// <summary>machine code changed; the remark is the previously bound code (<c>VERIFY_MACHINE_CHANGED</c>).</summary>
        MachineChanged = 1022,
        /// <summary>blacklisted (IP address or machine code) (<c>VERIFY_BLACKLISTED</c>).</summary>
        Blacklisted = 1023,
        /// <summary>count card not allowed here (<c>VERIFY_COUNT_CARD_NOT_ALLOWED</c>).</summary>
        CountCardNotAllowed = 1024,
        /// <summary>invalid argument: NULL where required, empty, too long, or out of range (<c>VERIFY_ERR_INVALID_ARGUMENT</c>).</summary>
        InvalidArgument = -1,
        /// <summary>a string argument is not valid UTF-8 (<c>VERIFY_ERR_INVALID_UTF8</c>).</summary>
        InvalidUtf8 = -2,
        /// <summary>network error: server unreachable or connection broken (<c>VERIFY_ERR_NETWORK</c>).</summary>
        Network = -3,
        /// <summary>timed out (connect or whole-call timeout) (<c>VERIFY_ERR_TIMEOUT</c>).</summary>
        Timeout = -4,
        /// <summary>TLS handshake or certificate check failed (<c>VERIFY_ERR_TLS</c>).</summary>
        Tls = -5,
        /// <summary>protocol error: the reply is not the service's JSON (<c>VERIFY_ERR_PROTOCOL</c>).</summary>
        Protocol = -6,
        /// <summary>cancelled by the host (<c>VERIFY_ERR_CANCELLED</c>).</summary>
        Cancelled = -7,
        /// <summary>internal error (panic caught at the library boundary) (<c>VERIFY_ERR_PANIC</c>).</summary>
        Panic = -8,
        /// <summary>no such field in the reply, or of another type (<c>VERIFY_ERR_NO_SUCH_FIELD</c>).</summary>
        NoSuchField = -9,
        /// <summary>operating system failure (thread, machine identity, randomness) (<c>VERIFY_ERR_SYSTEM</c>).</summary>
        System = -10,
        /// <summary>TLS: the server's certificate matches none of the pinned keys (<c>VERIFY_ERR_PIN</c>).</summary>
        Pin = -11,
        /// <summary>proxy unreachable, or it refused the credentials or the tunnel (<c>VERIFY_ERR_PROXY</c>).</summary>
        Proxy = -12,
        /// <summary>request too large: its body would exceed 1 MiB; nothing was sent (<c>VERIFY_ERR_TOO_LARGE</c>).</summary>
        TooLarge = -13,
        /// <summary>offline verdict refused: the clock was moved back (<c>VERIFY_ERR_CLOCK_BACK</c>).</summary>
        ClockBack = -14,
        /// <summary>offline verdict refused: the offline grace period is over (<c>VERIFY_ERR_GRACE_OVER</c>).</summary>
        GraceOver = -15,
        /// <summary>offline verdict refused: the stored licence has expired (<c>VERIFY_ERR_OFFLINE_EXPIRED</c>).</summary>
        OfflineExpired = -16,
        // END GENERATED: codes
    }

    /// <summary>The session a heartbeat or keeper keeps alive (VERIFY_SESSION_*).</summary>
    public enum SessionKind
    {
        /// <summary>A card-mode session: the token of <see cref="Client.SingleLogin"/>.</summary>
        Card = 1,

        /// <summary>An account session: the token of <see cref="Client.UserLogin"/> or of a social login.</summary>
        User = 2,
    }

    /// <summary>
    /// The state of a kept session (VERIFY_KEEPER_*). Later versions of the library may add
    /// states: a value not named here is kept as its number (never mapped to another state);
    /// treat it as "not alive" (<see cref="Keeper.IsAlive"/> does).
    /// </summary>
    public enum KeeperState
    {
        /// <summary>The last heartbeat succeeded (or none was due yet).</summary>
        Alive = 1,

        /// <summary>Heartbeats fail for another reason than the session's end; the grace period runs; the session stays usable.</summary>
        Grace = 2,

        /// <summary>The session ended, or the keeper was stopped (or its client disposed).</summary>
        Ended = 3,
    }

    /// <summary>
    /// What a <see cref="KeeperEvent"/> reports (VERIFY_EVENT_*). Later versions may add kinds:
    /// a value not named here is kept as its number; ignore the kinds you do not know.
    /// </summary>
    public enum EventKind
    {
        /// <summary>A heartbeat succeeded: <see cref="KeeperEvent.ExpireAt"/> is the session's expiry.</summary>
        Alive = 1,

        /// <summary>A back-office message, in <see cref="KeeperEvent.Text"/>, delivered once.</summary>
        Message = 2,

        /// <summary>
        /// A heartbeat failed for another reason than the session's end (network down, a reply
        /// that is not the service's); the keeper retries within the grace period and the session
        /// stays usable.
        /// </summary>
        Trouble = 3,

        /// <summary>
        /// The session ended: 1005 (expired), 1006 (disabled; <see cref="KeeperEvent.Remark"/> is
        /// the reason), 1007 (token invalid), the grace period ran out, or
        /// <see cref="ResultCode.Panic"/> when the keeper's thread failed. The keeper has stopped.
        /// Offline, also a refusal of the login sent again, or <see cref="ResultCode.GraceOver"/>.
        /// </summary>
        Ended = 4,

        /// <summary>
        /// Offline verdicts on: the server cannot be reached; the session goes on offline until
        /// <see cref="KeeperEvent.GraceEnd"/>. Also the first event of a keeper started from an
        /// offline verdict.
        /// </summary>
        Offline = 5,

        /// <summary>
        /// Offline verdicts on: the server confirmed the licence again (or for the first time
        /// after an offline start): <see cref="KeeperEvent.ExpireAt"/> is its expiry.
        /// </summary>
        Online = 6,
    }

    /// <summary>The trust stores of a client (VERIFY_TRUST_*), for <see cref="ClientOptions.Trust"/>.</summary>
    [Flags]
    public enum TrustStores : uint
    {
        /// <summary>None: only the roots and pins added to the options are trusted.</summary>
        None = 0,

        /// <summary>Mozilla's root certificates (the default).</summary>
        Mozilla = 1,

        /// <summary>The operating system's trust store (company CAs and the like).</summary>
        System = 2,
    }

    /// <summary>How a client reaches the server (VERIFY_PROXY_*), for <see cref="ClientOptions.SetProxy"/>.</summary>
    public enum ProxyMode
    {
        /// <summary>The system's proxy settings (the default).</summary>
        System = 0,

        /// <summary>No proxy.</summary>
        None = 1,

        /// <summary>The proxy given by URL (http://, https:// CONNECT, socks5://, socks5h://, with optional user:password@).</summary>
        Url = 2,
    }

    /// <summary>
    /// The level of a log message (VERIFY_LOG_*). Later versions may add levels: a value not
    /// named here is kept as its number.
    /// </summary>
    public enum LogLevel
    {
        /// <summary>A call failed because of it.</summary>
        Error = 1,

        /// <summary>Something went wrong and was handled (a retry, a failover, a re-Init).</summary>
        Warn = 2,

        /// <summary>A notable step (a new connection, an Init).</summary>
        Info = 3,

        /// <summary>Details.</summary>
        Debug = 4,
    }

    /// <summary>
    /// A local failure of a call: a negative <see cref="ResultCode"/> (invalid argument,
    /// network, timeout, TLS, protocol, cancelled, system, ...). Server refusals are not
    /// exceptions: they come back as a <see cref="Reply"/> with their code.
    /// </summary>
    public class VerifyException : Exception
    {
        /// <summary>A failure with its code and the library's message.</summary>
        public VerifyException(ResultCode code, string message, string replyJson = null)
            : base(message)
        {
            Code = code;
            ReplyJson = replyJson;
        }

        /// <summary>The result code (negative for local failures).</summary>
        public ResultCode Code { get; private set; }

        /// <summary>
        /// The whole reply as JSON when the server did answer but the call failed locally all
        /// the same (a <see cref="ResultCode.Protocol"/> failure); else null.
        /// </summary>
        public string ReplyJson { get; private set; }

        /// <summary>The failure of the calling thread's last call, as the library recorded it.</summary>
        internal static VerifyException FromLastError(ResultCode code, string replyJson = null)
        {
            // The library's message already names the failure and its code.
            string message = Library.LastErrorMessage;
            if (string.IsNullOrEmpty(message) || Library.LastErrorCode != (int)code)
            {
                message = string.Format("{0} ({1})", Library.Describe(code), (int)code);
            }
            return new VerifyException(code, message, replyJson);
        }
    }

    /// <summary>Library-wide functions: versions, code descriptions, the thread's last error, the machine code.</summary>
    public static class Library
    {
        /// <summary>The ABI version this binding was written for (VERIFY_ABI_VERSION of verify.h).</summary>
        public const uint BindingAbiVersion = 2;

        /// <summary>Length of a machine code (VERIFY_MACHINE_CODE_LEN): 32 uppercase hex characters.</summary>
        public const int MachineCodeLength = 32;

        /// <summary>The library version, e.g. "0.2.0".</summary>
        public static string Version
        {
            get { return Utf8.FromNative(NativeMethods.verify_version()); }
        }

        /// <summary>The loaded library's ABI version; compare with <see cref="BindingAbiVersion"/>.</summary>
        public static uint AbiVersion
        {
            get { return NativeMethods.verify_abi_version(); }
        }

        /// <summary>
        /// The message of the calling thread's last failed call ("" when none), copied. Read
        /// it right after the call: any later failing call on the same thread replaces it
        /// (reading an absent reply field does not). The binding already puts it into
        /// <see cref="Exception.Message"/> of <see cref="VerifyException"/>.
        /// </summary>
        public static string LastErrorMessage
        {
            get { return Utf8.FromNative(NativeMethods.verify_last_error_message()) ?? string.Empty; }
        }

        /// <summary>The code of the calling thread's last failed call (0 when none).</summary>
        public static int LastErrorCode
        {
            get { return NativeMethods.verify_last_error_code(); }
        }

        /// <summary>A static English description of any result code. Any thread.</summary>
        public static string Describe(ResultCode code)
        {
            return Utf8.FromNative(NativeMethods.verify_code_describe((int)code));
        }

        /// <summary>A static English description of any result code. Any thread.</summary>
        public static string Describe(int code)
        {
            return Describe((ResultCode)code);
        }

        /// <summary>
        /// The machine code of this machine for <paramref name="salt"/> (one salt per program,
        /// such as its AppId; may be empty): 32 uppercase hex characters, a salted hash of the OS
        /// machine identity, the same on every call and in every process (verify_machine_code).
        /// Pass it as the <c>mac</c> of the login calls. Any thread.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="salt"/> is null.</exception>
        /// <exception cref="VerifyException">The machine identity could not be read or created (<see cref="ResultCode.System"/>).</exception>
        public static string MachineCode(string salt)
        {
            Args.Required(salt, "salt");
            byte[] buffer = new byte[MachineCodeLength + 1];
            int code = NativeMethods.verify_machine_code(salt, buffer, new UIntPtr((uint)buffer.Length));
            if (code != (int)ResultCode.Ok)
            {
                throw VerifyException.FromLastError((ResultCode)code);
            }
            int length = Array.IndexOf(buffer, (byte)0);
            return Encoding.ASCII.GetString(buffer, 0, length < 0 ? MachineCodeLength : length);
        }

        /// <summary>The code page this binding passes strings in: UTF-8 (VERIFY_CODE_PAGE_UTF8).</summary>
        public const int Utf8CodePage = 65001;

        /// <summary>
        /// The library's code page for the whole process (verify_code_page): 65001, UTF-8, unless
        /// a native part of the process called verify_set_code_page. This binding always passes
        /// and reads UTF-8; creating a client throws <see cref="NotSupportedException"/> under
        /// another code page.
        /// </summary>
        public static int CodePage
        {
            get { return NativeMethods.verify_code_page(); }
        }

        /// <summary>
        /// Throws unless the loaded library has the ABI this binding was written for and
        /// speaks UTF-8.
        /// </summary>
        internal static void CheckAbi()
        {
            uint abi = NativeMethods.verify_abi_version();
            if (abi != BindingAbiVersion)
            {
                throw new NotSupportedException(string.Format(
                    "the verify library has ABI version {0}; this binding needs {1}", abi, BindingAbiVersion));
            }
            int codePage = NativeMethods.verify_code_page();
            if (codePage != Utf8CodePage)
            {
                throw new NotSupportedException(string.Format(
                    "the verify library's code page is {0} (verify_set_code_page); this binding passes UTF-8 (65001)",
                    codePage));
            }
        }
    }

    /// <summary>
    /// A client of the service for one program: <c>verify_client</c>. Create one per program
    /// and keep it: it holds the session secret and reuses connections.
    /// </summary>
    /// <remarks>
    /// <para>Thread-safety: every method may be called from several threads at once on one
    /// client; the library holds no lock across network I/O. <see cref="Dispose"/> may race with
    /// calls: the SafeHandle defers verify_client_free until calls in progress return, and calls
    /// that start afterwards throw <see cref="ObjectDisposedException"/>.</para>
    /// <para>Every action returns a <see cref="Reply"/> when the server answered (success,
    /// pending or refusal: check <see cref="Reply.Code"/>) and throws
    /// <see cref="VerifyException"/> on a local failure. Dispose every reply (using).
    /// Required string arguments must not be null (<see cref="ArgumentNullException"/>);
    /// strings must not contain NUL characters (<see cref="ArgumentException"/>); the library
    /// refuses empty required strings (<see cref="ResultCode.InvalidArgument"/>).</para>
    /// <para>Each action has an <c>...Async</c> twin returning a <see cref="Task{Reply}"/>: it
    /// checks the arguments at once, then runs the blocking call on a thread-pool thread, so the
    /// calling thread (a UI thread) is free. Its <see cref="CancellationToken"/> is honest about
    /// what the library can do: cancelled before the call started, the task is cancelled
    /// (awaiting it throws <see cref="OperationCanceledException"/>) and nothing is sent; once
    /// the call runs it is not interrupted: it ends as the blocking call would (at the latest
    /// after the call timeout, <see cref="SetTimeouts"/>) and the task completes with its reply,
    /// because the server may already have acted on it (a card spent). Only
    /// <see cref="SocialLoginWaitAsync"/> is interrupted by its token, through the library's
    /// cancel token, within milliseconds.</para>
    /// </remarks>
    public sealed class Client : IDisposable
    {
        private readonly ClientHandle handle;

        /// <summary>
        /// A client of the service at <paramref name="baseUrl"/> (http:// or https://, without
        /// <c>/api/verify</c>) for the program <paramref name="appId"/> with its secret
        /// <paramref name="appKey"/>. Nothing is sent yet: the Init handshake runs on the first
        /// action unless <see cref="Init"/> is called.
        /// </summary>
        /// <exception cref="VerifyException">Invalid arguments (a bad URL, empty id or key), with the reason.</exception>
        /// <exception cref="NotSupportedException">The loaded library has another ABI version.</exception>
        public Client(string baseUrl, string appId, string appKey)
            : this(ClientHandle.Create(baseUrl, appId, appKey, null))
        {
        }

        /// <summary>
        /// A client with settings (verify_client_new_with_options): mirrors, trust, pins,
        /// proxy, timeouts, plain http, a log handler. The options are copied: they may be
        /// changed, reused or disposed afterwards (a log handler stays with the client).
        /// </summary>
        /// <exception cref="VerifyException">
        /// Invalid arguments: a bad URL or mirror, plain http:// to a host that is not loopback
        /// unless allowed, trust settings that trust nothing.
        /// </exception>
        public Client(string baseUrl, string appId, string appKey, ClientOptions options)
            : this(ClientHandle.Create(baseUrl, appId, appKey, options == null ? null : options.Handle))
        {
        }

        /// <summary>
        /// A client over an existing handle (from <see cref="ClientHandle.Create"/> or another
        /// client's <see cref="Handle"/>). The client and the handle share the native object:
        /// disposing either frees it.
        /// </summary>
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

        /// <summary>
        /// Sets the connect timeout and the whole-call timeout for calls that start afterwards
        /// (defaults 10 s and 30 s). Each is rounded up to whole milliseconds and must be at
        /// least 1 ms. The call timeout bounds everything one call does (a lazy Init, a re-Init,
        /// connects, a resend). Any thread, at any time.
        /// </summary>
        public void SetTimeouts(TimeSpan connect, TimeSpan call)
        {
            uint connectMs = Args.Milliseconds(connect, "connect");
            uint callMs = Args.Milliseconds(call, "call");
            Args.Ok(NativeMethods.verify_client_set_timeouts(handle, connectMs, callMs));
        }

        /// <summary>Runs the Init handshake now (otherwise it runs on the first action).</summary>
        public Reply Init()
        {
            ReplyHandle reply;
            int code = NativeMethods.verify_init(handle, out reply);
            return Finish(code, reply);
        }

        /// <summary>Runs <see cref="Init"/> on the thread pool (cancellation: see <see cref="Client"/>).</summary>
        public Task<Reply> InitAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return Run(() => Init(), cancellationToken);
        }

        // BEGIN GENERATED: actions (tests/generate/csharp.rs; do not edit)
        /// <summary>
        /// <c>SingleLogin</c> (card mode): activates the card on first use and binds it to <c>mac</c>;
        /// later logins from the same machine refresh it (a count card spends one use). Never
        /// sent twice by a retry.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/token")</c>: the session token (40 characters) for a card heartbeat.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// <c>GetBool("/data/is_times")</c>: true for a count card.
        /// <c>GetString("/data/card_type")</c>: the card type's display name.
        /// <c>GetString("/data/expire_at")</c>: <c>YYYY-MM-DD HH:mm:ss</c>; far future for a count card.
        /// <c>GetInt64("/data/total")</c>: uses the count card was sold with (count cards only).
        /// <c>GetInt64("/data/used")</c>: uses consumed so far (count cards only).
        /// <c>GetInt64("/data/remaining")</c>: uses left; 0 makes the card invalid (count cards only).
        /// </remarks>
        public Reply SingleLogin(string card, string mac, string deviceName = null)
        {
            Required(card, "card");
            Required(mac, "mac");
            Optional(deviceName, "deviceName");
            ReplyHandle reply;
            int code = NativeMethods.verify_single_login(handle, card, mac, deviceName, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>SingleLogin</c> (card mode): activates the card on first use and binds it to <c>mac</c>;
        /// later logins from the same machine refresh it (a count card spends one use). Never
        /// sent twice by a retry.
        /// Runs <see cref="SingleLogin"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/token")</c>: the session token (40 characters) for a card heartbeat.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// <c>GetBool("/data/is_times")</c>: true for a count card.
        /// <c>GetString("/data/card_type")</c>: the card type's display name.
        /// <c>GetString("/data/expire_at")</c>: <c>YYYY-MM-DD HH:mm:ss</c>; far future for a count card.
        /// <c>GetInt64("/data/total")</c>: uses the count card was sold with (count cards only).
        /// <c>GetInt64("/data/used")</c>: uses consumed so far (count cards only).
        /// <c>GetInt64("/data/remaining")</c>: uses left; 0 makes the card invalid (count cards only).
        /// </remarks>
        public Task<Reply> SingleLoginAsync(string card, string mac, string deviceName = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(card, "card");
            Required(mac, "mac");
            Optional(deviceName, "deviceName");
            return Run(() => SingleLogin(card, mac, deviceName), cancellationToken);
        }

        /// <summary>
        /// <c>UserLogin</c> with username and password (account mode). <c>mac</c> is strongly
        /// recommended (rebind detection).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/device_id")</c>: the bound machine code; empty if unbound.
        /// <c>GetString("/data/expire_at")</c>: <c>YYYY-MM-DD HH:mm:ss</c>.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// <c>GetString("/data/token")</c>: the session token (40 characters) for a user heartbeat.
        /// <c>GetString("/data/remark")</c>: back-office note (social login: the social account's display name).
        /// </remarks>
        public Reply UserLogin(string username, string password, string mac = null)
        {
            Required(username, "username");
            Required(password, "password");
            Optional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_login(handle, username, password, mac, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>UserLogin</c> with username and password (account mode). <c>mac</c> is strongly
        /// recommended (rebind detection).
        /// Runs <see cref="UserLogin"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/device_id")</c>: the bound machine code; empty if unbound.
        /// <c>GetString("/data/expire_at")</c>: <c>YYYY-MM-DD HH:mm:ss</c>.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// <c>GetString("/data/token")</c>: the session token (40 characters) for a user heartbeat.
        /// <c>GetString("/data/remark")</c>: back-office note (social login: the social account's display name).
        /// </remarks>
        public Task<Reply> UserLoginAsync(string username, string password, string mac = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(password, "password");
            Optional(mac, "mac");
            return Run(() => UserLogin(username, password, mac), cancellationToken);
        }

        /// <summary>
        /// <c>UserLogin</c> with a recharge card: renews the account and returns no token (log in
        /// again without a card for one). Never sent twice by a retry.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/expire_at")</c>: the new expiry.
        /// <c>GetInt64("/data/added_days")</c>: days added.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// </remarks>
        public Reply UserLoginWithCard(string username, string password, string card, string mac = null)
        {
            Required(username, "username");
            Required(password, "password");
            Required(card, "card");
            Optional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_login_with_card(handle, username, password, card, mac, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>UserLogin</c> with a recharge card: renews the account and returns no token (log in
        /// again without a card for one). Never sent twice by a retry.
        /// Runs <see cref="UserLoginWithCard"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/expire_at")</c>: the new expiry.
        /// <c>GetInt64("/data/added_days")</c>: days added.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// </remarks>
        public Task<Reply> UserLoginWithCardAsync(string username, string password, string card, string mac = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(password, "password");
            Required(card, "card");
            Optional(mac, "mac");
            return Run(() => UserLoginWithCard(username, password, card, mac), cancellationToken);
        }

        /// <summary>
        /// <c>UserRegin</c>: registers an account, activated when a duration card is given. Never
        /// sent twice by a retry.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetInt64("/data/user_id")</c>: the account identifier.
        /// <c>GetString("/data/expire_at")</c>: the expiry (the registration time without a card).
        /// <c>GetString("/data/token")</c>: the session token, when registered with a card.
        /// <c>GetString("/data/status")</c>: <c>active</c>, when registered with a card.
        /// </remarks>
        public Reply UserRegister(string username, string password, string card = null, string mac = null, string deviceName = null)
        {
            Required(username, "username");
            Required(password, "password");
            Optional(card, "card");
            Optional(mac, "mac");
            Optional(deviceName, "deviceName");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_register(handle, username, password, card, mac, deviceName, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>UserRegin</c>: registers an account, activated when a duration card is given. Never
        /// sent twice by a retry.
        /// Runs <see cref="UserRegister"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetInt64("/data/user_id")</c>: the account identifier.
        /// <c>GetString("/data/expire_at")</c>: the expiry (the registration time without a card).
        /// <c>GetString("/data/token")</c>: the session token, when registered with a card.
        /// <c>GetString("/data/status")</c>: <c>active</c>, when registered with a card.
        /// </remarks>
        public Task<Reply> UserRegisterAsync(string username, string password, string card = null, string mac = null, string deviceName = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(password, "password");
            Optional(card, "card");
            Optional(mac, "mac");
            Optional(deviceName, "deviceName");
            return Run(() => UserRegister(username, password, card, mac, deviceName), cancellationToken);
        }

        /// <summary>
        /// <c>UpdatePwd</c>: checks the old password and sets the new one. Never sent twice by a
        /// retry.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// </remarks>
        public Reply UpdatePassword(string username, string oldPassword, string newPassword)
        {
            Required(username, "username");
            Required(oldPassword, "oldPassword");
            Required(newPassword, "newPassword");
            ReplyHandle reply;
            int code = NativeMethods.verify_update_password(handle, username, oldPassword, newPassword, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>UpdatePwd</c>: checks the old password and sets the new one. Never sent twice by a
        /// retry.
        /// Runs <see cref="UpdatePassword"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// </remarks>
        public Task<Reply> UpdatePasswordAsync(string username, string oldPassword, string newPassword, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(oldPassword, "oldPassword");
            Required(newPassword, "newPassword");
            return Run(() => UpdatePassword(username, oldPassword, newPassword), cancellationToken);
        }

        /// <summary>
        /// <c>ChangeBind</c>: binds the account to a new machine code. Never sent twice by a retry.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/device_id")</c>: the new machine code.
        /// <c>GetInt64("/data/bind_count")</c>: rebinds used, this one included.
        /// <c>GetInt64("/data/bind_limit")</c>: the product's rebind limit (0: no limit).
        /// </remarks>
        public Reply ChangeBind(string username, string password, string newMac)
        {
            Required(username, "username");
            Required(password, "password");
            Required(newMac, "newMac");
            ReplyHandle reply;
            int code = NativeMethods.verify_change_bind(handle, username, password, newMac, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>ChangeBind</c>: binds the account to a new machine code. Never sent twice by a retry.
        /// Runs <see cref="ChangeBind"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/device_id")</c>: the new machine code.
        /// <c>GetInt64("/data/bind_count")</c>: rebinds used, this one included.
        /// <c>GetInt64("/data/bind_limit")</c>: the product's rebind limit (0: no limit).
        /// </remarks>
        public Task<Reply> ChangeBindAsync(string username, string password, string newMac, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(password, "password");
            Required(newMac, "newMac");
            return Run(() => ChangeBind(username, password, newMac), cancellationToken);
        }

        /// <summary>
        /// <c>UserHeartbeat</c>: keeps a card or account session alive and collects a back-office
        /// message (delivered once).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/expire_at")</c>: the session's expiry.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// <c>GetString("/data/msg")</c>: a back-office message, delivered once; empty when none.
        /// </remarks>
        public Reply Heartbeat(string token, SessionKind kind, string ip = null)
        {
            Required(token, "token");
            Optional(ip, "ip");
            ReplyHandle reply;
            int code = NativeMethods.verify_heartbeat(handle, token, (int)kind, ip, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>UserHeartbeat</c>: keeps a card or account session alive and collects a back-office
        /// message (delivered once).
        /// Runs <see cref="Heartbeat"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/expire_at")</c>: the session's expiry.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// <c>GetString("/data/msg")</c>: a back-office message, delivered once; empty when none.
        /// </remarks>
        public Task<Reply> HeartbeatAsync(string token, SessionKind kind, string ip = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(token, "token");
            Optional(ip, "ip");
            return Run(() => Heartbeat(token, kind, ip), cancellationToken);
        }

        /// <summary>
        /// <c>UserRecharge</c>: adds a duration card's time to an account (no password). Never sent
        /// twice by a retry.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/expire_at")</c>: the new expiry.
        /// <c>GetString("/data/added_days")</c>: the amount added with its unit (a string in this action).
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// </remarks>
        public Reply UserRecharge(string username, string card)
        {
            Required(username, "username");
            Required(card, "card");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_recharge(handle, username, card, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>UserRecharge</c>: adds a duration card's time to an account (no password). Never sent
        /// twice by a retry.
        /// Runs <see cref="UserRecharge"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/expire_at")</c>: the new expiry.
        /// <c>GetString("/data/added_days")</c>: the amount added with its unit (a string in this action).
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// </remarks>
        public Task<Reply> UserRechargeAsync(string username, string card, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(card, "card");
            return Run(() => UserRecharge(username, card), cancellationToken);
        }

        /// <summary>
        /// <c>GetLatestVersion</c>, optionally with the program's current version.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/version")</c>: the latest version number.
        /// <c>GetString("/data/changelog")</c>: its change log.
        /// <c>GetString("/data/download_url")</c>: where to download it.
        /// <c>GetBool("/data/force_update")</c>: whether the back office requires the update.
        /// <c>GetBool("/data/has_update")</c>: whether it is newer than the version given.
        /// </remarks>
        public Reply GetLatestVersion(string currentVersion = null)
        {
            Optional(currentVersion, "currentVersion");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_latest_version(handle, currentVersion, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>GetLatestVersion</c>, optionally with the program's current version.
        /// Runs <see cref="GetLatestVersion"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/version")</c>: the latest version number.
        /// <c>GetString("/data/changelog")</c>: its change log.
        /// <c>GetString("/data/download_url")</c>: where to download it.
        /// <c>GetBool("/data/force_update")</c>: whether the back office requires the update.
        /// <c>GetBool("/data/has_update")</c>: whether it is newer than the version given.
        /// </remarks>
        public Task<Reply> GetLatestVersionAsync(string currentVersion = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Optional(currentVersion, "currentVersion");
            return Run(() => GetLatestVersion(currentVersion), cancellationToken);
        }

        /// <summary>
        /// <c>GetBulletin</c>: the program's bulletin.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/bulletin")</c>: the bulletin text.
        /// <c>GetString("/data/updated_at")</c>: when it was last changed.
        /// </remarks>
        public Reply GetBulletin()
        {
            ReplyHandle reply;
            int code = NativeMethods.verify_get_bulletin(handle, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>GetBulletin</c>: the program's bulletin.
        /// Runs <see cref="GetBulletin"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/bulletin")</c>: the bulletin text.
        /// <c>GetString("/data/updated_at")</c>: when it was last changed.
        /// </remarks>
        public Task<Reply> GetBulletinAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return Run(() => GetBulletin(), cancellationToken);
        }

        /// <summary>
        /// <c>GetVariable</c> for one variable.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/name")</c>: the variable's name.
        /// <c>GetString("/data/value")</c>: its value.
        /// </remarks>
        public Reply GetVariable(string name)
        {
            Required(name, "name");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_variable(handle, name, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>GetVariable</c> for one variable.
        /// Runs <see cref="GetVariable"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/name")</c>: the variable's name.
        /// <c>GetString("/data/value")</c>: its value.
        /// </remarks>
        public Task<Reply> GetVariableAsync(string name, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(name, "name");
            return Run(() => GetVariable(name), cancellationToken);
        }

        /// <summary>
        /// <c>GetVariable</c> for every variable.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetJson("/data/variables")</c>: every variable, name to value.
        /// </remarks>
        public Reply GetVariables()
        {
            ReplyHandle reply;
            int code = NativeMethods.verify_get_variables(handle, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>GetVariable</c> for every variable.
        /// Runs <see cref="GetVariables"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetJson("/data/variables")</c>: every variable, name to value.
        /// </remarks>
        public Task<Reply> GetVariablesAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return Run(() => GetVariables(), cancellationToken);
        }

        /// <summary>
        /// <c>GetUserInfo</c>: the account's details.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetInt64("/data/user_id")</c>: the account identifier.
        /// <c>GetString("/data/device_id")</c>: the bound machine code; empty if unbound.
        /// <c>GetString("/data/expire_at")</c>: the expiry.
        /// <c>GetString("/data/status")</c>: <c>active</c>, <c>expired</c> or <c>banned</c>.
        /// <c>GetInt64("/data/bind_count")</c>: rebinds used.
        /// <c>GetInt64("/data/bind_limit")</c>: the product's rebind limit (0: no limit).
        /// <c>GetString("/data/remark")</c>: back-office note.
        /// <c>GetString("/data/created_at")</c>: registration time.
        /// </remarks>
        public Reply GetUserInfo(string username, string password)
        {
            Required(username, "username");
            Required(password, "password");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_user_info(handle, username, password, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>GetUserInfo</c>: the account's details.
        /// Runs <see cref="GetUserInfo"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetInt64("/data/user_id")</c>: the account identifier.
        /// <c>GetString("/data/device_id")</c>: the bound machine code; empty if unbound.
        /// <c>GetString("/data/expire_at")</c>: the expiry.
        /// <c>GetString("/data/status")</c>: <c>active</c>, <c>expired</c> or <c>banned</c>.
        /// <c>GetInt64("/data/bind_count")</c>: rebinds used.
        /// <c>GetInt64("/data/bind_limit")</c>: the product's rebind limit (0: no limit).
        /// <c>GetString("/data/remark")</c>: back-office note.
        /// <c>GetString("/data/created_at")</c>: registration time.
        /// </remarks>
        public Task<Reply> GetUserInfoAsync(string username, string password, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(password, "password");
            return Run(() => GetUserInfo(username, password), cancellationToken);
        }

        /// <summary>
        /// <c>GetCardInfo</c>: the card's state, expiry and binding, consuming nothing.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/card")</c>: the card key.
        /// <c>GetString("/data/card_type")</c>: the card type's display name.
        /// <c>GetString("/data/status")</c>: <c>unused</c>, <c>active</c>, <c>expired</c>, <c>exhausted</c>, <c>used</c>, <c>disabled</c> or <c>refunded</c>.
        /// <c>GetBool("/data/is_times")</c>: true for a count card.
        /// <c>GetString("/data/device_id")</c>: the bound machine code; empty when not bound.
        /// <c>GetString("/data/activated_at")</c>: first use; empty when unused.
        /// <c>GetString("/data/expire_at")</c>: expiry; empty when unused.
        /// <c>GetInt64("/data/duration")</c>: duration in <c>duration_type</c> units.
        /// <c>GetString("/data/duration_type")</c>: <c>day</c> or <c>hour</c>.
        /// <c>GetInt64("/data/total")</c>: uses the count card was sold with (count cards only).
        /// <c>GetInt64("/data/used")</c>: uses consumed so far (count cards only).
        /// <c>GetInt64("/data/remaining")</c>: uses left (count cards only).
        /// </remarks>
        public Reply GetCardInfo(string card)
        {
            Required(card, "card");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_card_info(handle, card, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// <c>GetCardInfo</c>: the card's state, expiry and binding, consuming nothing.
        /// Runs <see cref="GetCardInfo"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/card")</c>: the card key.
        /// <c>GetString("/data/card_type")</c>: the card type's display name.
        /// <c>GetString("/data/status")</c>: <c>unused</c>, <c>active</c>, <c>expired</c>, <c>exhausted</c>, <c>used</c>, <c>disabled</c> or <c>refunded</c>.
        /// <c>GetBool("/data/is_times")</c>: true for a count card.
        /// <c>GetString("/data/device_id")</c>: the bound machine code; empty when not bound.
        /// <c>GetString("/data/activated_at")</c>: first use; empty when unused.
        /// <c>GetString("/data/expire_at")</c>: expiry; empty when unused.
        /// <c>GetInt64("/data/duration")</c>: duration in <c>duration_type</c> units.
        /// <c>GetString("/data/duration_type")</c>: <c>day</c> or <c>hour</c>.
        /// <c>GetInt64("/data/total")</c>: uses the count card was sold with (count cards only).
        /// <c>GetInt64("/data/used")</c>: uses consumed so far (count cards only).
        /// <c>GetInt64("/data/remaining")</c>: uses left (count cards only).
        /// </remarks>
        public Task<Reply> GetCardInfoAsync(string card, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(card, "card");
            return Run(() => GetCardInfo(card), cancellationToken);
        }

        /// <summary>
        /// Social login step 1: the URL to show the user, and the state to poll with.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/url")</c>: the external authorization link.
        /// <c>GetString("/data/state")</c>: the value to pass to the social poll or wait.
        /// </remarks>
        public Reply SocialLoginStart(string mac = null)
        {
            Optional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_social_login_start(handle, mac, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// Social login step 1: the URL to show the user, and the state to poll with.
        /// Runs <see cref="SocialLoginStart"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/url")</c>: the external authorization link.
        /// <c>GetString("/data/state")</c>: the value to pass to the social poll or wait.
        /// </remarks>
        public Task<Reply> SocialLoginStartAsync(string mac = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Optional(mac, "mac");
            return Run(() => SocialLoginStart(mac), cancellationToken);
        }

        /// <summary>
        /// Social login step 2, once: code 201 (pending) while the user has not authorized;
        /// 200 with the login payload (<c>remark</c> is the social display name); 1016 when the
        /// identity is not bound. Its success consumes the state, so it is never sent twice.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/device_id")</c>: the bound machine code; empty if unbound.
        /// <c>GetString("/data/expire_at")</c>: <c>YYYY-MM-DD HH:mm:ss</c>.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// <c>GetString("/data/token")</c>: the session token (40 characters) for a user heartbeat.
        /// <c>GetString("/data/remark")</c>: back-office note (social login: the social account's display name).
        /// </remarks>
        public Reply SocialLoginPoll(string state, string mac = null)
        {
            Required(state, "state");
            Optional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_social_login_poll(handle, state, mac, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// Social login step 2, once: code 201 (pending) while the user has not authorized;
        /// 200 with the login payload (<c>remark</c> is the social display name); 1016 when the
        /// identity is not bound. Its success consumes the state, so it is never sent twice.
        /// Runs <see cref="SocialLoginPoll"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/username")</c>: the account's username.
        /// <c>GetString("/data/device_id")</c>: the bound machine code; empty if unbound.
        /// <c>GetString("/data/expire_at")</c>: <c>YYYY-MM-DD HH:mm:ss</c>.
        /// <c>GetString("/data/status")</c>: <c>active</c>.
        /// <c>GetString("/data/token")</c>: the session token (40 characters) for a user heartbeat.
        /// <c>GetString("/data/remark")</c>: back-office note (social login: the social account's display name).
        /// </remarks>
        public Task<Reply> SocialLoginPollAsync(string state, string mac = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(state, "state");
            Optional(mac, "mac");
            return Run(() => SocialLoginPoll(state, mac), cancellationToken);
        }

        /// <summary>
        /// Social registration step 1: the URL to show the user. Never sent twice by a retry.
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/url")</c>: the external authorization link (its <c>state</c> parameter is the state).
        /// </remarks>
        public Reply SocialRegisterStart(string username, string mac = null, string deviceName = null)
        {
            Required(username, "username");
            Optional(mac, "mac");
            Optional(deviceName, "deviceName");
            ReplyHandle reply;
            int code = NativeMethods.verify_social_register_start(handle, username, mac, deviceName, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// Social registration step 1: the URL to show the user. Never sent twice by a retry.
        /// Runs <see cref="SocialRegisterStart"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>Reply fields on 200 (each may be absent: the getters return null):
        /// <c>GetString("/data/url")</c>: the external authorization link (its <c>state</c> parameter is the state).
        /// </remarks>
        public Task<Reply> SocialRegisterStartAsync(string username, string mac = null, string deviceName = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Optional(mac, "mac");
            Optional(deviceName, "deviceName");
            return Run(() => SocialRegisterStart(username, mac, deviceName), cancellationToken);
        }

        // END GENERATED: actions

        /// <summary>
        /// Any action with any parameters (at most 256; values may be empty, never null), in
        /// the order given. Never sent twice once it may have reached the server.
        /// </summary>
        public Reply Call(string action, IEnumerable<KeyValuePair<string, string>> parameters)
        {
            Args.Required(action, "action");
            List<string> keys = new List<string>();
            List<string> values = new List<string>();
            if (parameters != null)
            {
                foreach (KeyValuePair<string, string> pair in parameters)
                {
                    Args.Required(pair.Key, "parameters (a key)");
                    Args.Required(pair.Value, "parameters (the value of " + pair.Key + ")");
                    keys.Add(pair.Key);
                    values.Add(pair.Value);
                }
            }
            string[] keyArray = keys.Count == 0 ? null : keys.ToArray();
            string[] valueArray = values.Count == 0 ? null : values.ToArray();
            ReplyHandle reply;
            int code = NativeMethods.verify_call(handle, action, keyArray, valueArray,
                new UIntPtr((uint)keys.Count), out reply);
            return Finish(code, reply);
        }

        /// <summary>Any action with any parameters, given as pairs (see the other overload).</summary>
        public Reply Call(string action, params KeyValuePair<string, string>[] parameters)
        {
            return Call(action, (IEnumerable<KeyValuePair<string, string>>)parameters);
        }

        /// <summary>
        /// Runs <see cref="Call(string, IEnumerable{KeyValuePair{string, string}})"/> on the
        /// thread pool (cancellation: see <see cref="Client"/>). The parameters are copied first.
        /// </summary>
        public Task<Reply> CallAsync(string action, IEnumerable<KeyValuePair<string, string>> parameters,
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
        /// authorizes (a reply with code 200 and the login fields; <c>/data/remark</c> is the
        /// social display name) or the server refuses (a reply with its code, e.g. 1016 when the
        /// identity is not bound). Blocks the calling thread; <paramref name="mac"/> is optional.
        /// </summary>
        /// <param name="state">The state of <see cref="SocialLoginStart"/> (<c>/data/state</c>).</param>
        /// <param name="mac">The machine code, or null.</param>
        /// <param name="interval">Time between polls, at least 1 ms (rounded up to whole ms).</param>
        /// <param name="timeout">How long to wait in all, at least 1 ms.</param>
        /// <param name="cancel">
        /// Optional: <see cref="CancelToken.Cancel"/> from another thread ends the wait within
        /// milliseconds (a poll in flight is interrupted). Disposing it while a wait uses it is
        /// safe: it is freed when the wait returns.
        /// </param>
        /// <exception cref="VerifyException">
        /// <see cref="ResultCode.Timeout"/> when <paramref name="timeout"/> passed,
        /// <see cref="ResultCode.Cancelled"/> when <paramref name="cancel"/> was cancelled (no
        /// reply in either case), or another local failure.
        /// </exception>
        public Reply SocialLoginWait(string state, string mac, TimeSpan interval, TimeSpan timeout,
            CancelToken cancel = null)
        {
            Args.Required(state, "state");
            Args.Optional(mac, "mac");
            uint intervalMs = Args.Milliseconds(interval, "interval");
            uint timeoutMs = Args.Milliseconds(timeout, "timeout");
            ReplyHandle reply;
            int code;
            if (cancel == null)
            {
                code = NativeMethods.verify_social_login_wait(handle, state, mac, intervalMs, timeoutMs,
                    IntPtr.Zero, out reply);
            }
            else
            {
                // The token is optional (NULL), so it crosses as IntPtr while a reference is
                // held on its handle: it cannot be freed while the wait uses it.
                CancelHandle token = cancel.Handle;
                bool added = false;
                try
                {
                    token.DangerousAddRef(ref added);
                    code = NativeMethods.verify_social_login_wait(handle, state, mac, intervalMs,
                        timeoutMs, token.DangerousGetHandle(), out reply);
                }
                finally
                {
                    if (added)
                    {
                        token.DangerousRelease();
                    }
                }
            }
            return Finish(code, reply);
        }

        /// <summary>
        /// <see cref="SocialLoginWait"/> on a thread of its own, cancelled through
        /// <paramref name="cancellationToken"/>: cancelling it cancels the library's token of the
        /// wait, which returns within milliseconds (a poll in flight is interrupted), and the
        /// task is cancelled (awaiting it throws <see cref="OperationCanceledException"/>).
        /// A token cancelled before the call gives a cancelled task and sends nothing.
        /// </summary>
        /// <exception cref="VerifyException">
        /// (From the task) <see cref="ResultCode.Timeout"/> when <paramref name="timeout"/>
        /// passed, or another local failure.
        /// </exception>
        public Task<Reply> SocialLoginWaitAsync(string state, string mac, TimeSpan interval, TimeSpan timeout,
            CancellationToken cancellationToken = default(CancellationToken))
        {
            Args.Required(state, "state");
            Args.Optional(mac, "mac");
            Args.Milliseconds(interval, "interval");
            Args.Milliseconds(timeout, "timeout");
            return Task.Factory.StartNew(() =>
            {
                using (CancelToken cancel = new CancelToken())
                {
                    // Disposed before the token: Dispose waits for a callback that is running.
                    using (cancellationToken.Register(CancelQuietly, cancel))
                    {
                        try
                        {
                            return SocialLoginWait(state, mac, interval, timeout, cancel);
                        }
                        catch (VerifyException error)
                        {
                            if (error.Code == ResultCode.Cancelled && cancellationToken.IsCancellationRequested)
                            {
                                // With the same token: the task ends Canceled, not Faulted.
                                throw new OperationCanceledException(error.Message, error, cancellationToken);
                            }
                            throw;
                        }
                    }
                }
            }, cancellationToken, TaskCreationOptions.LongRunning | TaskCreationOptions.DenyChildAttach,
                TaskScheduler.Default);
        }

        /// <summary>
        /// Starts keeping a session alive in the background (verify_keeper_start) for the token
        /// of <see cref="SingleLogin"/> (<see cref="SessionKind.Card"/>) or
        /// <see cref="UserLogin"/> (<see cref="SessionKind.User"/>), with
        /// <paramref name="options"/> (null: the defaults, a heartbeat every 5 minutes and 15
        /// minutes of grace). The options are copied: they may be changed, reused or disposed
        /// afterwards. The first heartbeat is sent at once (a token the server does not know ends the
        /// keeper with 1007), the next ones every interval. Keep the
        /// returned keeper (a field) and dispose it when the session should no longer be kept;
        /// it keeps this client from being collected (not from being disposed: disposing the
        /// client stops its keepers).
        /// </summary>
        /// <exception cref="VerifyException">
        /// <see cref="ResultCode.InvalidArgument"/> for an empty token or an unknown kind;
        /// <see cref="ResultCode.System"/> when the keeper's threads cannot start.
        /// </exception>
        public Keeper StartKeeper(string token, SessionKind kind, KeeperOptions options = null)
        {
            Args.Required(token, "token");
            return new Keeper(KeeperHandle.Start(handle, options == null ? null : options.Handle,
                (client, nativeOptions) =>
                {
                    KeeperHandle created;
                    int code = NativeMethods.verify_keeper_start(client, token, (int)kind, nativeOptions, out created);
                    return Args.Created(code, created);
                }));
        }

        /// <summary>
        /// Starts keeping the session of a login's reply (verify_keeper_start_from_reply): the
        /// server's own (<see cref="Reply.IsOk"/>: its token and session kind) or an offline
        /// verdict (<see cref="Reply.IsOffline"/>). From an offline verdict the keeper reports
        /// <see cref="EventKind.Offline"/>, waits for the login still going on after a start
        /// budget or sends it again, and reports <see cref="EventKind.Online"/> once the server
        /// takes it, or <see cref="EventKind.Ended"/> with the server's refusal (the stored
        /// verdict is cleared) or <see cref="ResultCode.GraceOver"/>. The reply is only read.
        /// </summary>
        /// <exception cref="VerifyException">
        /// <see cref="ResultCode.InvalidArgument"/> for a reply that is neither.
        /// </exception>
        public Keeper StartKeeper(Reply login, KeeperOptions options = null)
        {
            if (login == null)
            {
                throw new ArgumentNullException("login");
            }
            return new Keeper(KeeperHandle.Start(handle, options == null ? null : options.Handle,
                (client, nativeOptions) => login.Handle.With(reply =>
                {
                    KeeperHandle created;
                    int code = NativeMethods.verify_keeper_start_from_reply(client, reply, nativeOptions, out created);
                    return Args.Created(code, created);
                })));
        }

        /// <summary>
        /// Frees the client (verify_client_free: the session secret and AppKey are wiped, the
        /// connections closed) once no call is using it any more. Replies stay valid. Keepers
        /// started on it are stopped (within 100 ms; a running event handler is waited for);
        /// their objects stay usable (state <see cref="KeeperState.Ended"/>) and still need
        /// their own Dispose.
        /// </summary>
        public void Dispose()
        {
            handle.Dispose();
        }

        /// <summary>
        /// Turns a call's code and reply into the result: the reply whenever the server
        /// answered with a non-negative code, else a VerifyException with the thread's last
        /// error (read right away, before anything else can replace it).
        /// </summary>
        internal static Reply Finish(int code, ReplyHandle reply)
        {
            bool answered = reply != null && !reply.IsInvalid;
            if (code >= 0 && answered)
            {
                return new Reply(reply);
            }
            VerifyException error = VerifyException.FromLastError((ResultCode)code);
            if (answered)
            {
                // The server answered but the call failed (a protocol failure): keep the
                // reply's JSON for diagnosis and free it.
                using (Reply rejected = new Reply(reply))
                {
                    error = new VerifyException(error.Code, error.Message, rejected.Json);
                }
            }
            else if (reply != null)
            {
                reply.Dispose();
            }
            throw error;
        }

        /// <summary>Runs a blocking call on the thread pool unless the token is already cancelled.</summary>
        private static Task<Reply> Run(Func<Reply> call, CancellationToken cancellationToken)
        {
            return Task.Factory.StartNew(call, cancellationToken, TaskCreationOptions.DenyChildAttach,
                TaskScheduler.Default);
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
                ((CancelToken)cancel).Cancel();
            }
            catch (Exception)
            {
                // Never into CancellationTokenSource.Cancel's caller: the wait ends by its timeout.
            }
        }
    }

    /// <summary>
    /// An answer of the server, of any code: <c>verify_reply</c>. Dispose it when done (using).
    /// Every string is copied out of the library, so values read stay valid after Dispose.
    /// </summary>
    /// <remarks>
    /// Paths are JSON Pointers (RFC 6901) from the top of the reply: <c>"/data/token"</c>,
    /// <c>"/data/variables/a.b"</c> (a key may contain a dot), <c>"/data/list/0"</c>,
    /// <c>"/code"</c>; <see cref="Pointer"/> builds one from keys that contain <c>/</c> or
    /// <c>~</c>. The getters return null when the value is absent or of another type, and leave
    /// <see cref="Library.LastErrorMessage"/> as it was; a path that is not a pointer (not
    /// starting with <c>/</c>) throws <see cref="VerifyException"/> with
    /// <see cref="ResultCode.InvalidArgument"/>.
    /// Thread-safety: several threads may read one reply at once. Dispose defers
    /// verify_reply_free until reads in progress finish; reads after it throw
    /// <see cref="ObjectDisposedException"/>.
    /// </remarks>
    public sealed class Reply : IDisposable
    {
        private readonly ReplyHandle handle;

        /// <summary>
        /// A reply over a handle (another reply's <see cref="Handle"/>); both share the native
        /// reply: disposing either frees it.
        /// </summary>
        public Reply(ReplyHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public ReplyHandle Handle
        {
            get { return handle; }
        }

        /// <summary>The reply's code: 200 success, 201 pending, or the server's refusal.</summary>
        public ResultCode Code
        {
            get { return (ResultCode)handle.With(p => NativeMethods.verify_reply_code(p)); }
        }

        /// <summary>True when <see cref="Code"/> is 200.</summary>
        public bool IsOk
        {
            get { return Code == ResultCode.Ok; }
        }

        /// <summary>
        /// True for an offline verdict (<see cref="ResultCode.Offline"/>): the server could not
        /// be reached and the stored verdict of the last good login answered. Its fields are
        /// those of the server's last confirmed login, without the token; see <see cref="Offline"/>.
        /// </summary>
        public bool IsOffline
        {
            get { return Code == ResultCode.Offline; }
        }

        /// <summary>True for 200 or an offline verdict: the program may run.</summary>
        public bool IsLicensed
        {
            get { return IsOk || IsOffline; }
        }

        /// <summary>What an offline verdict knows besides its fields (verify_reply_offline); null for the server's own reply.</summary>
        public OfflineInfo Offline
        {
            get
            {
                return handle.With(p =>
                {
                    long confirmed, graceEnd;
                    int reason;
                    int code = NativeMethods.verify_reply_offline(p, out confirmed, out graceEnd, out reason);
                    if (code == (int)ResultCode.NoSuchField)
                    {
                        return null;
                    }
                    Args.Ok(code, 0);
                    return new OfflineInfo(DateTimeOffset.FromUnixTimeSeconds(confirmed),
                        DateTimeOffset.FromUnixTimeSeconds(graceEnd), (ResultCode)reason);
                });
            }
        }

        /// <summary>The server's message (localized; may be empty).</summary>
        public string Message
        {
            get { return handle.With(p => Utf8.FromNative(NativeMethods.verify_reply_message(p))) ?? string.Empty; }
        }

        /// <summary>
        /// <c>/data/remark</c>, or null: on 1006 the reason, on 1022 the previously bound
        /// machine code, on a login the account's remark.
        /// </summary>
        public string Remark
        {
            get { return GetString("/data/remark"); }
        }

        /// <summary>The whole reply as JSON (<c>{"code":..,"message":..,"data":..}</c>, unknown fields included).</summary>
        public string Json
        {
            get { return GetJson(string.Empty); }
        }

        /// <summary>
        /// A JSON Pointer from keys: each key escaped (<c>~</c> as <c>~0</c>, <c>/</c> as
        /// <c>~1</c>) and prefixed with <c>/</c>. <c>Pointer("data", "variables", "a/b")</c> is
        /// <c>"/data/variables/a~1b"</c>.
        /// </summary>
        public static string Pointer(params string[] keys)
        {
            if (keys == null)
            {
                throw new ArgumentNullException("keys");
            }
            StringBuilder pointer = new StringBuilder();
            foreach (string key in keys)
            {
                if (key == null)
                {
                    throw new ArgumentNullException("keys", "a key is null");
                }
                pointer.Append('/').Append(key.Replace("~", "~0").Replace("/", "~1"));
            }
            return pointer.ToString();
        }

        /// <summary>
        /// The value at <paramref name="pointer"/> as text (a string as it is, a number or
        /// boolean in JSON notation), or null when it is absent, null, an object or an array.
        /// </summary>
        public string GetString(string pointer)
        {
            Args.Required(pointer, "pointer");
            return handle.With(p =>
            {
                IntPtr value;
                return Present(NativeMethods.verify_reply_str(p, pointer, out value)) ? Utf8.FromNative(value) : null;
            });
        }

        /// <summary>The value at <paramref name="pointer"/> as an integer, or null when absent or not an integer (strings are not parsed).</summary>
        public long? GetInt64(string pointer)
        {
            Args.Required(pointer, "pointer");
            return handle.With(p =>
            {
                long value;
                return Present(NativeMethods.verify_reply_int(p, pointer, out value)) ? value : (long?)null;
            });
        }

        /// <summary>The value at <paramref name="pointer"/> as a boolean, or null when absent or not a boolean.</summary>
        public bool? GetBool(string pointer)
        {
            Args.Required(pointer, "pointer");
            return handle.With(p =>
            {
                int value;
                return Present(NativeMethods.verify_reply_bool(p, pointer, out value)) ? value != 0 : (bool?)null;
            });
        }

        /// <summary>
        /// The value at <paramref name="pointer"/> as JSON text, of any type (an object lists
        /// its keys); "" is the whole reply. Null when absent.
        /// </summary>
        public string GetJson(string pointer)
        {
            Args.Optional(pointer, "pointer");
            return handle.With(p =>
            {
                IntPtr value;
                return Present(NativeMethods.verify_reply_json(p, pointer ?? string.Empty, out value))
                    ? Utf8.FromNative(value) : null;
            });
        }

        /// <summary>Frees the reply (verify_reply_free) once no read is using it any more.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }

        /// <summary>0: present; VERIFY_ERR_NO_SUCH_FIELD: absent; anything else throws.</summary>
        private static bool Present(int code)
        {
            if (code == 0)
            {
                return true;
            }
            if (code == (int)ResultCode.NoSuchField)
            {
                return false;
            }
            throw VerifyException.FromLastError((ResultCode)code);
        }
    }

    /// <summary>
    /// Settings of a client (<c>verify_client_options</c>), given to
    /// the <see cref="Client"/> constructor with options: the defaults (no mirror,
    /// Mozilla's roots, the system's proxy, plain http only to loopback, timeouts 10 s and
    /// 30 s, no log) until changed. A client copies them when it is made, so they may be
    /// changed, reused for other clients or disposed afterwards. Not thread-safe: one thread
    /// at a time. A setting the library refuses throws <see cref="VerifyException"/>
    /// (<see cref="ResultCode.InvalidArgument"/>) and changes nothing.
    /// </summary>
    public sealed class ClientOptions : IDisposable
    {
        private readonly ClientOptionsHandle handle;
        private TrustStores trust = TrustStores.Mozilla;
        private bool allowInsecureHttp;
        private TimeSpan attemptDelay = TimeSpan.FromMilliseconds(250);

        /// <summary>Options with the defaults (verify_client_options_new).</summary>
        public ClientOptions()
            : this(ClientOptionsHandle.Create())
        {
        }

        /// <summary>
        /// Options over a handle. The property getters report only what was set through this
        /// object (the library has no getters).
        /// </summary>
        public ClientOptions(ClientOptionsHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public ClientOptionsHandle Handle
        {
            get { return handle; }
        }

        /// <summary>
        /// The trust stores: <see cref="TrustStores.Mozilla"/> (the default),
        /// <see cref="TrustStores.System"/>, both, or <see cref="TrustStores.None"/> (then only
        /// the roots and pins added are trusted). Verification cannot be turned off.
        /// </summary>
        public TrustStores Trust
        {
            get
            {
                return trust;
            }

            set
            {
                handle.With(p => Args.Ok(NativeMethods.verify_client_options_set_trust(p, (uint)value)));
                trust = value;
            }
        }

        /// <summary>
        /// Whether plain http:// to a host that is not loopback is allowed (default false): the
        /// api password travels in an HTTP header, readable by anyone on the path.
        /// </summary>
        public bool AllowInsecureHttp
        {
            get
            {
                return allowInsecureHttp;
            }

            set
            {
                handle.With(p => Args.Ok(NativeMethods.verify_client_options_allow_insecure_http(p, value ? 1 : 0)));
                allowInsecureHttp = value;
            }
        }

        /// <summary>
        /// Receives the client's log: connect, TLS, proxy, retry, failover and re-Init events,
        /// in English, never with a secret (no api password, AppKey, card key, password, token
        /// or machine code). Null for none (the default).
        /// </summary>
        /// <remarks>
        /// It runs on the thread that makes the call (a keeper's heartbeats: the keeper's
        /// thread), so it may run on several threads at once; it should return quickly.
        /// Exceptions it throws are caught and dropped. A client made with these options keeps
        /// the handler alive until it is freed.
        /// </remarks>
        public Action<LogLevel, string> OnLog
        {
            get { return handle.OnLog; }
            set { handle.SetOnLog(value); }
        }

        /// <summary>
        /// Adds a mirror: another base URL of the same service, tried in order after the first
        /// when a server cannot be reached (connect, DNS or TLS failure). A request that may
        /// have reached a server is never sent to another. Checked when the client is made.
        /// </summary>
        public void AddMirror(string baseUrl)
        {
            Args.Required(baseUrl, "baseUrl");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_add_mirror(p, baseUrl)));
        }

        /// <summary>Trusts every certificate of a PEM text as a root, in addition to the stores.</summary>
        public void AddRootPem(string pem)
        {
            Args.Required(pem, "pem");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_add_root_pem(p, pem)));
        }

        /// <summary>Trusts the certificates of a PEM file as roots (read now).</summary>
        public void AddRootFile(string path)
        {
            Args.Required(path, "path");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_add_root_file(p, path)));
        }

        /// <summary>
        /// Pins a key of the service's certificate chain: base64 of the SHA-256 of its DER
        /// SubjectPublicKeyInfo (a <c>sha256/</c> prefix is accepted). A pinned self-signed
        /// certificate works without a CA; a chain without a pinned key fails with
        /// <see cref="ResultCode.Pin"/>.
        /// </summary>
        public void AddPin(string sha256Base64)
        {
            Args.Required(sha256Base64, "sha256Base64");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_add_pin(p, sha256Base64)));
        }

        /// <summary>
        /// Chooses the proxy: <see cref="ProxyMode.System"/> (the default),
        /// <see cref="ProxyMode.None"/>, or <see cref="ProxyMode.Url"/> with
        /// <paramref name="url"/> (required for it, null otherwise). Loopback hosts never go
        /// through a proxy.
        /// </summary>
        public void SetProxy(ProxyMode mode, string url = null)
        {
            Args.Optional(url, "url");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_set_proxy(p, (int)mode, url)));
        }

        /// <summary>The connect and whole-call timeouts (defaults 10 s and 30 s), as <see cref="Client.SetTimeouts"/>.</summary>
        public void SetTimeouts(TimeSpan connect, TimeSpan call)
        {
            uint connectMs = Args.Milliseconds(connect, "connect");
            uint callMs = Args.Milliseconds(call, "call");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_set_timeouts(p, connectMs, callMs)));
        }

        /// <summary>
        /// The attempt delay of racing connections (RFC 8305; default 250 ms, at most 10 s, zero
        /// starts every attempt at once): every address of the host name (IPv6 and IPv4 in turn)
        /// and every mirror gets an attempt when the earlier ones have not connected within it;
        /// the first to finish TCP and TLS wins. No request is ever sent twice because of it.
        /// </summary>
        public TimeSpan AttemptDelay
        {
            get
            {
                return attemptDelay;
            }

            set
            {
                uint delayMs = Args.Milliseconds(value, "value", 0);
                handle.With(p => Args.Ok(NativeMethods.verify_client_options_set_attempt_delay(p, delayMs)));
                attemptDelay = value;
            }
        }

        /// <summary>
        /// Gives a fixed address (IPv4 or IPv6) for a host name, like curl's --resolve: the name
        /// is then never looked up in DNS, and TLS still checks it. Call once per address.
        /// </summary>
        public void AddAddress(string host, string ip)
        {
            Args.Required(host, "host");
            Args.Required(ip, "ip");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_add_address(p, host, ip)));
        }

        /// <summary>
        /// Sets the client's state folder, the one place for state that outlives the process
        /// (the remembered winning line of racing connections, the last good verdict): a folder,
        /// or null for the per-user default. Each file there is sealed for this program and
        /// machine.
        /// </summary>
        public void SetStateFolder(string path = null)
        {
            Args.Optional(path, "path");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_set_state_folder(p, path)));
        }

        /// <summary>
        /// Offline verdicts (a state folder needed): a login that cannot reach the server
        /// answers from the stored verdict (<see cref="Reply.IsOffline"/>) when the server
        /// confirmed it less than this long ago. Zero (the default) turns them off. Whole seconds.
        /// </summary>
        public void SetOfflineGrace(TimeSpan grace)
        {
            uint seconds = Args.Seconds(grace, "grace");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_set_offline_grace(p, seconds)));
        }

        /// <summary>
        /// A start that never waits long (offline verdicts needed): past this budget a login
        /// whose stored verdict may answer gets it, and the login goes on in the background
        /// (follow it with <see cref="Client.StartKeeper(Reply, KeeperOptions)"/>). Zero (the
        /// default): no budget.
        /// </summary>
        public void SetStartBudget(TimeSpan budget)
        {
            uint ms = Args.Milliseconds(budget, "budget", 0);
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_set_start_budget(p, ms)));
        }

        /// <summary>
        /// How far the local clock may be behind the latest server time seen before offline
        /// verdicts are refused (<see cref="ResultCode.ClockBack"/>); default 10 minutes. Whole seconds.
        /// </summary>
        public void SetClockTolerance(TimeSpan tolerance)
        {
            uint seconds = Args.Seconds(tolerance, "tolerance");
            handle.With(p => Args.Ok(NativeMethods.verify_client_options_set_clock_tolerance(p, seconds)));
        }

        /// <summary>Frees the options (verify_client_options_free); clients made with them are not affected.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }
    }

    /// <summary>
    /// Settings of a keeper (<c>verify_keeper_options</c>), given to
    /// <see cref="Client.StartKeeper(string, SessionKind, KeeperOptions)"/>: the defaults until a property is set. A keeper copies
    /// them when it starts, so they may be changed, reused for other keepers or disposed
    /// afterwards. Not thread-safe: one thread at a time.
    /// </summary>
    public sealed class KeeperOptions : IDisposable
    {
        private readonly KeeperOptionsHandle handle;
        private TimeSpan interval = TimeSpan.FromMinutes(5);
        private TimeSpan grace = TimeSpan.FromMinutes(15);
        private string ip;

        /// <summary>Options with the defaults (verify_keeper_options_new).</summary>
        public KeeperOptions()
            : this(KeeperOptionsHandle.Create())
        {
        }

        /// <summary>
        /// Options over a handle. The property getters report only what was set through this
        /// object (the library has no getters).
        /// </summary>
        public KeeperOptions(KeeperOptionsHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public KeeperOptionsHandle Handle
        {
            get { return handle; }
        }

        /// <summary>
        /// Time between heartbeats: at least 1 s (default 5 minutes, the spec's). A small random
        /// jitter is added; the first heartbeat of StartKeeper(token, kind) is sent at once, that of
        /// StartKeeper(reply) one interval after the start.
        /// </summary>
        /// <exception cref="VerifyException">Set below 1 s: <see cref="ResultCode.InvalidArgument"/>.</exception>
        public TimeSpan Interval
        {
            get
            {
                return interval;
            }

            set
            {
                uint ms = Args.Milliseconds(value, "value");
                handle.With(p => Args.Ok(NativeMethods.verify_keeper_options_set_interval(p, ms)));
                interval = value;
            }
        }

        /// <summary>
        /// How long the session stays usable while heartbeats fail for other reasons than its
        /// end (network down), counted from the first failure: at least 1 ms (default 15
        /// minutes). Retries back off 1 s, 2 s, 4 s... up to 60 s or the interval.
        /// </summary>
        public TimeSpan Grace
        {
            get
            {
                return grace;
            }

            set
            {
                uint ms = Args.Milliseconds(value, "value");
                handle.With(p => Args.Ok(NativeMethods.verify_keeper_options_set_grace(p, ms)));
                grace = value;
            }
        }

        /// <summary>The client IP reported with each heartbeat; null or "" for none (the default).</summary>
        public string Ip
        {
            get
            {
                return ip;
            }

            set
            {
                Args.Optional(value, "value");
                handle.With(p => Args.Ok(NativeMethods.verify_keeper_options_set_ip(p, value)));
                ip = value;
            }
        }

        /// <summary>
        /// Receives every <see cref="KeeperEvent"/> of keepers started with these options; null
        /// for none (the default: back-office messages are then queued for
        /// <see cref="Keeper.Status"/>).
        /// </summary>
        /// <remarks>
        /// It runs on the keeper's own event thread: not the thread that started the keeper,
        /// and never the UI thread (marshal to it with Control.BeginInvoke,
        /// Dispatcher.BeginInvoke or SynchronizationContext.Post). Events come one at a time, in
        /// order; a slow handler delays only later events. Exceptions it throws are caught and
        /// dropped (none reaches native code), and the next events still arrive.
        /// </remarks>
        public Action<KeeperEvent> OnEvent
        {
            get { return handle.OnEvent; }
            set { handle.SetOnEvent(value); }
        }

        /// <summary>Frees the options (verify_keeper_options_free); keepers started with them are not affected.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }
    }

    /// <summary>
    /// A running session keeper: <c>verify_keeper</c>, started by
    /// <see cref="Client.StartKeeper(string, SessionKind, KeeperOptions)"/>. It sends a heartbeat every interval on its own thread
    /// and reports through <see cref="KeeperOptions.OnEvent"/> (on the keeper's event thread)
    /// and through <see cref="State"/> and <see cref="Status"/> (any thread).
    /// </summary>
    /// <remarks>
    /// Keep a reference for as long as the session should be kept: a keeper that is collected
    /// without Dispose is stopped and freed by its finalizer. It keeps its client from being
    /// collected, but disposing the client stops it (its object stays valid, state
    /// <see cref="KeeperState.Ended"/>). Dispose (stop + free) is idempotent, may run from any
    /// thread, also after the client was disposed, and also from inside the keeper's own
    /// handler (the free then completes on a thread-pool thread once the handler returned).
    /// After Dispose, the members throw <see cref="ObjectDisposedException"/>.
    /// Dispose keepers before the process exits.
    /// </remarks>
    public sealed class Keeper : IDisposable
    {
        private readonly KeeperHandle handle;

        /// <summary>A keeper over a handle (from <see cref="KeeperHandle.Start(ClientHandle, string, SessionKind, KeeperOptionsHandle)"/>); disposing either frees it.</summary>
        public Keeper(KeeperHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public KeeperHandle Handle
        {
            get { return handle; }
        }

        /// <summary>
        /// The keeper's state (verify_keeper_state). A state added by a later library is
        /// returned as its number. Any thread.
        /// </summary>
        public KeeperState State
        {
            get
            {
                int state = NativeMethods.verify_keeper_state(handle);
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
        public bool IsAlive
        {
            get { return KeeperStatus.IsAliveState(State); }
        }

        /// <summary>
        /// A snapshot of the keeper (verify_keeper_get_status), with the back-office messages queued
        /// since the previous snapshot (each returned once). Any thread.
        /// </summary>
        public KeeperStatus Status()
        {
            using (KeeperStatusHandle snapshot = KeeperStatusHandle.Take(handle))
            {
                return new KeeperStatus(snapshot);
            }
        }

        /// <summary>
        /// Stops the keeper (verify_keeper_stop): wakes it, cancels a heartbeat in flight and
        /// waits for its threads (within 100 ms, unless the handler is running: it is waited
        /// for). From inside the keeper's own handler it returns at once, and no event follows
        /// the running one. Idempotent; the state becomes <see cref="KeeperState.Ended"/>.
        /// Any thread.
        /// </summary>
        public void Stop()
        {
            Args.Ok(NativeMethods.verify_keeper_stop(handle));
        }

        /// <summary>
        /// Stops and frees the keeper (verify_keeper_free) once no call is using it; the handler
        /// is not called any more afterwards (from inside the handler: after it returns).
        /// </summary>
        public void Dispose()
        {
            handle.Dispose();
        }
    }

    /// <summary>What an offline verdict knows besides its fields (<see cref="Reply.Offline"/>).</summary>
    public sealed class OfflineInfo
    {
        /// <summary>An offline verdict's info as given.</summary>
        public OfflineInfo(DateTimeOffset confirmedAt, DateTimeOffset graceEnd, ResultCode reason)
        {
            ConfirmedAt = confirmedAt;
            GraceEnd = graceEnd;
            Reason = reason;
        }

        /// <summary>When the server last confirmed the licence.</summary>
        public DateTimeOffset ConfirmedAt { get; private set; }

        /// <summary>When the offline grace period ends.</summary>
        public DateTimeOffset GraceEnd { get; private set; }

        /// <summary>The local failure that kept the server out of reach; its words are in <see cref="Reply.Message"/>.</summary>
        public ResultCode Reason { get; private set; }
    }

    /// <summary>
    /// A snapshot of a keeper (verify_keeper_get_status and its accessors), copied: it stays valid
    /// and never changes. From <see cref="Keeper.Status"/>.
    /// </summary>
    public sealed class KeeperStatus
    {
        /// <summary>Reads every accessor of a snapshot handle (which the caller still owns).</summary>
        public KeeperStatus(KeeperStatusHandle handle)
        {
            Args.Usable(handle, "handle");
            handle.With(p =>
            {
                int state;
                Args.Ok(NativeMethods.verify_keeper_status_state(p, out state), 0);
                State = (KeeperState)state;
                int lastCode;
                Args.Ok(NativeMethods.verify_keeper_status_last_code(p, out lastCode), 0);
                LastCode = (ResultCode)lastCode;
                IntPtr text;
                Args.Ok(NativeMethods.verify_keeper_status_last_message(p, out text), 0);
                LastMessage = Utf8.FromNative(text) ?? string.Empty;
                Remark = Optional(NativeMethods.verify_keeper_status_remark(p, out text), text);
                ExpireAt = Optional(NativeMethods.verify_keeper_status_expire_at(p, out text), text);
                long lastSuccess;
                int code = NativeMethods.verify_keeper_status_last_success(p, out lastSuccess);
                if (code != (int)ResultCode.NoSuchField)
                {
                    Args.Ok(code, 0);
                    LastSuccess = DateTimeOffset.FromUnixTimeSeconds(lastSuccess);
                }
                LastConfirmed = OptionalTime(NativeMethods.verify_keeper_status_last_confirmed(p, out lastSuccess), lastSuccess);
                GraceEnd = OptionalTime(NativeMethods.verify_keeper_status_grace_end(p, out lastSuccess), lastSuccess);
                ulong succeeded, failed;
                Args.Ok(NativeMethods.verify_keeper_status_counts(p, out succeeded, out failed), 0);
                Succeeded = succeeded;
                Failed = failed;
                UIntPtr count;
                Args.Ok(NativeMethods.verify_keeper_status_message_count(p, out count), 0);
                List<string> messages = new List<string>();
                for (ulong i = 0; i < count.ToUInt64(); i++)
                {
                    string message = Optional(NativeMethods.verify_keeper_status_message(p, new UIntPtr(i), out text), text);
                    if (message != null)
                    {
                        messages.Add(message);
                    }
                }
                Messages = messages.ToArray();
                return 0;
            });
        }

        /// <summary>Alive, in grace, ended, or (kept as its number) a state of a later library.</summary>
        public KeeperState State { get; private set; }

        /// <summary>Whether <see cref="State"/> is Alive or Grace (the session is usable).</summary>
        public bool IsAlive
        {
            get { return IsAliveState(State); }
        }

        /// <summary>The code of the last heartbeat; 0 before the first.</summary>
        public ResultCode LastCode { get; private set; }

        /// <summary>The message of the last heartbeat ("" after a success or before the first).</summary>
        public string LastMessage { get; private set; }

        /// <summary>The remark of the last refusal (the reason of a 1006), or null.</summary>
        public string Remark { get; private set; }

        /// <summary>The session's expiry from the last successful heartbeat, or null before the first.</summary>
        public string ExpireAt { get; private set; }

        /// <summary>When the last heartbeat succeeded (whole seconds, UTC), or null before the first success.</summary>
        public DateTimeOffset? LastSuccess { get; private set; }

        /// <summary>
        /// When the server last confirmed the licence (with offline verdicts on: the stored
        /// verdict's confirmation, carried across restarts), or null.
        /// </summary>
        public DateTimeOffset? LastConfirmed { get; private set; }

        /// <summary>When the grace period ends while heartbeats fail or the session is offline; null while alive.</summary>
        public DateTimeOffset? GraceEnd { get; private set; }

        /// <summary>How many heartbeats succeeded.</summary>
        public ulong Succeeded { get; private set; }

        /// <summary>How many heartbeats failed (any reason).</summary>
        public ulong Failed { get; private set; }

        /// <summary>
        /// The back-office messages received since the previous snapshot, oldest first; each is
        /// returned once. Filled only for a keeper without an event handler (a handler gets them
        /// as <see cref="EventKind.Message"/> events instead). Never null.
        /// </summary>
        public string[] Messages { get; private set; }

        /// <summary>True for Alive and Grace; false for Ended and for any state this binding does not know.</summary>
        public static bool IsAliveState(KeeperState state)
        {
            return state == KeeperState.Alive || state == KeeperState.Grace;
        }

        private static string Optional(int code, IntPtr text)
        {
            if (code == (int)ResultCode.NoSuchField)
            {
                return null;
            }
            Args.Ok(code, 0);
            return Utf8.FromNative(text);
        }

        private static DateTimeOffset? OptionalTime(int code, long seconds)
        {
            if (code == (int)ResultCode.NoSuchField)
            {
                return null;
            }
            Args.Ok(code, 0);
            return DateTimeOffset.FromUnixTimeSeconds(seconds);
        }
    }

    /// <summary>
    /// One report of a <see cref="Keeper"/>, copied out of the library's <c>verify_event</c>:
    /// it stays valid after the handler returns.
    /// </summary>
    public sealed class KeeperEvent
    {
        /// <summary>An event as given (for hosts that test their handlers).</summary>
        public KeeperEvent(EventKind kind, ResultCode code, string message, string remark,
            string expireAt, string text, DateTimeOffset? graceEnd = null)
        {
            Kind = kind;
            Code = code;
            Message = message ?? string.Empty;
            Remark = remark;
            ExpireAt = expireAt;
            Text = text;
            GraceEnd = graceEnd;
        }

        /// <summary>
        /// When the grace period ends, on <see cref="EventKind.Offline"/> (and on Trouble and
        /// Ended while offline), else null.
        /// </summary>
        public DateTimeOffset? GraceEnd { get; private set; }

        /// <summary>What happened; a kind of a later library is kept as its number.</summary>
        public EventKind Kind { get; private set; }

        /// <summary>The heartbeat's code: 200, the server's refusal, or a negative local code.</summary>
        public ResultCode Code { get; private set; }

        /// <summary>The server's message or the local failure's explanation (may be empty; never null).</summary>
        public string Message { get; private set; }

        /// <summary>The remark of a refusal (the reason of a 1006), or null.</summary>
        public string Remark { get; private set; }

        /// <summary>The session's expiry on <see cref="EventKind.Alive"/>, else null.</summary>
        public string ExpireAt { get; private set; }

        /// <summary>The back-office message on <see cref="EventKind.Message"/>, else null.</summary>
        public string Text { get; private set; }

        /// <summary>Kind, code and the detail that applies (text, remark, expiry or message).</summary>
        public override string ToString()
        {
            string detail = Text ?? Remark ?? ExpireAt ?? Message;
            return string.Format("{0} {1} {2}", Kind, (int)Code, detail);
        }

        /// <summary>Copies a borrowed <c>const verify_event *</c>.</summary>
        internal static KeeperEvent FromNative(IntPtr native)
        {
            NativeEvent e = Marshal.PtrToStructure<NativeEvent>(native);
            return new KeeperEvent((EventKind)e.Kind, (ResultCode)e.Code, Utf8.FromNative(e.Message),
                Utf8.FromNative(e.Remark), Utf8.FromNative(e.ExpireAt), Utf8.FromNative(e.Text),
                e.GraceEnd == 0 ? (DateTimeOffset?)null : DateTimeOffset.FromUnixTimeSeconds(e.GraceEnd));
        }
    }

    /// <summary>
    /// A cancellation token of the library (<c>verify_cancel</c>) for
    /// <see cref="Client.SocialLoginWait"/>. <see cref="Client.SocialLoginWaitAsync"/> makes one
    /// from a <see cref="CancellationToken"/> by itself.
    /// </summary>
    /// <remarks>
    /// <see cref="Cancel"/> may be called from any thread, any number of times. Dispose may race
    /// with a wait using the token: the SafeHandle defers verify_cancel_free until the wait
    /// returns; later calls throw <see cref="ObjectDisposedException"/>.
    /// </remarks>
    public sealed class CancelToken : IDisposable
    {
        private readonly CancelHandle handle;

        /// <summary>A new token, not cancelled (verify_cancel_new).</summary>
        public CancelToken()
            : this(CancelHandle.Create())
        {
        }

        /// <summary>A token over a handle; disposing either frees it.</summary>
        public CancelToken(CancelHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public CancelHandle Handle
        {
            get { return handle; }
        }

        /// <summary>
        /// Cancels (verify_cancel_cancel): a wait using this token throws
        /// <see cref="VerifyException"/> with <see cref="ResultCode.Cancelled"/> within
        /// milliseconds, and later waits with it throw at once. Any thread.
        /// </summary>
        public void Cancel()
        {
            Args.Ok(NativeMethods.verify_cancel_cancel(handle));
        }

        /// <summary>Frees the token (verify_cancel_free) once no wait is using it any more.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }
    }

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

    /// <summary>Owns a <c>verify_reply *</c>; released with verify_reply_free.</summary>
    public sealed class ReplyHandle : SafeHandle
    {
        /// <summary>An empty handle; the marshaller fills it from a call's <c>out</c>.</summary>
        public ReplyHandle()
            : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL (no reply: the server did not answer).</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>Calls <paramref name="read"/> with the native pointer while a reference is held.</summary>
        internal T With<T>(Func<IntPtr, T> read)
        {
            return Hold.With(this, read);
        }

        /// <summary>Frees the reply and every string borrowed from it.</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_reply_free(handle);
            return true;
        }
    }

    /// <summary>
    /// Owns a <c>verify_keeper_options *</c>; released with verify_keeper_options_free. It also
    /// holds the event handler set on it, whose native callback the library stores.
    /// </summary>
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

        internal Action<KeeperEvent> OnEvent
        {
            get { return dispatcher == null ? null : dispatcher.Handler; }
        }

        internal EventDispatcher Dispatcher
        {
            get { return dispatcher; }
        }

        /// <summary>New options with the defaults (verify_keeper_options_new); the caller owns them.</summary>
        public static KeeperOptionsHandle Create()
        {
            KeeperOptionsHandle created;
            int code = NativeMethods.verify_keeper_options_new(out created);
            return Args.Created(code, created);
        }

        internal T With<T>(Func<IntPtr, T> use)
        {
            return Hold.With(this, use);
        }

        /// <summary>verify_keeper_options_set_callback with a dispatcher of its own (null: none).</summary>
        internal void SetOnEvent(Action<KeeperEvent> onEvent)
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

    /// <summary>
    /// Owns a <c>verify_keeper *</c>; released with verify_keeper_free, after which the native
    /// callback delegate of the keeper is unrooted. It references its client's handle, so the
    /// client is not collected (and its finalizer does not stop the keeper) while the keeper is
    /// reachable; disposing the client still stops the keeper.
    /// </summary>
    public sealed class KeeperHandle : SafeHandle
    {
        private GCHandle callbackRoot;
        private EventDispatcher dispatcher;
        private ClientHandle client;

        /// <summary>An empty handle; the marshaller fills it from verify_keeper_start.</summary>
        public KeeperHandle()
            : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>
        /// Starts a keeper (verify_keeper_start) on <paramref name="client"/> for
        /// <paramref name="token"/>, with <paramref name="options"/> (null: the defaults); see
        /// <see cref="Client.StartKeeper(string, SessionKind, KeeperOptions)"/>. The caller owns the result.
        /// </summary>
        public static KeeperHandle Start(ClientHandle client, string token, SessionKind kind,
            KeeperOptionsHandle options)
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
        /// the defaults) through <paramref name="start"/>, the native call given the options'
        /// pointer (IntPtr.Zero for none); roots the options' event handler for the keeper's life.
        /// </summary>
        internal static KeeperHandle Start(ClientHandle client, KeeperOptionsHandle options,
            Func<ClientHandle, IntPtr, KeeperHandle> start)
        {
            if (client == null)
            {
                throw new ArgumentNullException("client");
            }
            EventDispatcher dispatcher = options == null ? null : options.Dispatcher;
            // Rooted before the keeper exists: its event thread may call the delegate at any
            // time until verify_keeper_free returns, even if this handle is never disposed.
            GCHandle root = dispatcher == null ? default(GCHandle) : GCHandle.Alloc(dispatcher.Callback);
            bool added = false;
            try
            {
                IntPtr nativeOptions = IntPtr.Zero;
                if (options != null)
                {
                    options.DangerousAddRef(ref added);
                    nativeOptions = options.DangerousGetHandle();
                }
                KeeperHandle created = start(client, nativeOptions);
                created.callbackRoot = root;
                created.dispatcher = dispatcher;
                created.client = client;
                root = default(GCHandle);
                return created;
            }
            finally
            {
                if (added)
                {
                    options.DangerousRelease();
                }
                // Still allocated only when the keeper did not start.
                if (root.IsAllocated)
                {
                    root.Free();
                }
            }
        }

        /// <summary>
        /// Stops and frees the keeper (its threads are joined: the library calls the delegate no
        /// more), then lets the delegate go. Runs once, after every call using the handle
        /// returned. On the keeper's own event thread (a handler disposing its keeper) it stops
        /// the keeper at once and frees it from the thread pool, since verify_keeper_free joins
        /// that thread.
        /// </summary>
        protected override bool ReleaseHandle()
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

    /// <summary>Owns a <c>verify_keeper_status *</c> snapshot; released with verify_keeper_status_free.</summary>
    public sealed class KeeperStatusHandle : SafeHandle
    {
        /// <summary>An empty handle; the marshaller fills it from verify_keeper_get_status.</summary>
        public KeeperStatusHandle()
            : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>
        /// A snapshot of <paramref name="keeper"/> (verify_keeper_get_status); it takes the
        /// back-office messages queued since the previous one. The caller owns it; read it with
        /// the <see cref="KeeperStatus"/> constructor.
        /// </summary>
        public static KeeperStatusHandle Take(KeeperHandle keeper)
        {
            if (keeper == null)
            {
                throw new ArgumentNullException("keeper");
            }
            KeeperStatusHandle created;
            int code = NativeMethods.verify_keeper_get_status(keeper, out created);
            return Args.Created(code, created);
        }

        internal T With<T>(Func<IntPtr, T> read)
        {
            return Hold.With(this, read);
        }

        /// <summary>Frees the snapshot and its strings.</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_keeper_status_free(handle);
            return true;
        }
    }

    /// <summary>Owns a <c>verify_cancel *</c>; released with verify_cancel_free.</summary>
    public sealed class CancelHandle : SafeHandle
    {
        /// <summary>An empty handle; the marshaller fills it from verify_cancel_new.</summary>
        public CancelHandle()
            : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>A new token (verify_cancel_new); the caller owns it.</summary>
        public static CancelHandle Create()
        {
            CancelHandle created;
            int code = NativeMethods.verify_cancel_new(out created);
            return Args.Created(code, created);
        }

        /// <summary>Frees the token; runs once, after every wait using it returned.</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_cancel_free(handle);
            return true;
        }
    }

    /// <summary>A <c>verify_event</c> as C lays it out: two int32, four <c>const char *</c>, an int64.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct NativeEvent
    {
        public int Kind;
        public int Code;
        public IntPtr Message;
        public IntPtr Remark;
        public IntPtr ExpireAt;
        public IntPtr Text;
        public long GraceEnd;
    }

    /// <summary>
    /// Delivers a keeper's native events to the host's handler. Its <see cref="Callback"/> is
    /// the function pointer given to verify_keeper_options_set_callback; KeeperHandle keeps it
    /// rooted until verify_keeper_free returned.
    /// </summary>
    internal sealed class EventDispatcher
    {
        // The managed id of the thread running the handler; 0 when none runs.
        private int runningThread;

        internal EventDispatcher(Action<KeeperEvent> handler)
        {
            Handler = handler;
            Callback = Dispatch;
        }

        internal Action<KeeperEvent> Handler { get; private set; }

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
                Handler(KeeperEvent.FromNative(nativeEvent));
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

    /// <summary>Argument checks and code checks shared by the classes.</summary>
    internal static class Args
    {
        internal static void Required(string value, string name)
        {
            if (value == null)
            {
                throw new ArgumentNullException(name);
            }
            Optional(value, name);
        }

        internal static void Optional(string value, string name)
        {
            // UTF-8 marshalling stops at a NUL: the library would see a shortened string.
            if (value != null && value.IndexOf('\0') >= 0)
            {
                throw new ArgumentException("contains a NUL character", name);
            }
        }

        internal static void Usable(SafeHandle handle, string name)
        {
            if (handle == null)
            {
                throw new ArgumentNullException(name);
            }
            if (handle.IsInvalid)
            {
                throw new ArgumentException("the handle is NULL", name);
            }
            if (handle.IsClosed)
            {
                throw new ObjectDisposedException(name);
            }
        }

        internal static uint Milliseconds(TimeSpan span, string name, uint minimum = 1)
        {
            double ms = Math.Ceiling(span.TotalMilliseconds);
            if (ms < minimum || ms > uint.MaxValue)
            {
                throw new ArgumentOutOfRangeException(name, span, "must be between " + minimum + " ms and 4294967295 ms");
            }
            return (uint)ms;
        }

        internal static uint Seconds(TimeSpan span, string name)
        {
            double seconds = Math.Ceiling(span.TotalSeconds);
            if (seconds < 0 || seconds > uint.MaxValue)
            {
                throw new ArgumentOutOfRangeException(name, span, "must be between 0 s and 4294967295 s");
            }
            return (uint)seconds;
        }

        /// <summary>Throws the thread's last error unless <paramref name="code"/> is <paramref name="ok"/> (200 by default).</summary>
        internal static int Ok(int code, int ok = (int)ResultCode.Ok)
        {
            if (code != ok)
            {
                throw VerifyException.FromLastError((ResultCode)code);
            }
            return code;
        }

        /// <summary>The handle a constructor function gave, or its failure thrown.</summary>
        internal static T Created<T>(int code, T created)
            where T : SafeHandle
        {
            if (code != (int)ResultCode.Ok || created == null || created.IsInvalid)
            {
                VerifyException error = VerifyException.FromLastError((ResultCode)code);
                if (created != null)
                {
                    created.Dispose();
                }
                throw error;
            }
            return created;
        }
    }

    /// <summary>Holds a reference on a SafeHandle around a use of its raw pointer.</summary>
    internal static class Hold
    {
        internal static T With<T>(SafeHandle owner, Func<IntPtr, T> use)
        {
            bool added = false;
            try
            {
                owner.DangerousAddRef(ref added);
                return use(owner.DangerousGetHandle());
            }
            finally
            {
                if (added)
                {
                    owner.DangerousRelease();
                }
            }
        }
    }

    /// <summary>Copies NUL-terminated UTF-8 owned by the library into managed strings.</summary>
    internal static class Utf8
    {
        /// <summary>The string at <paramref name="p"/> decoded as UTF-8, or null for NULL.</summary>
        internal static string FromNative(IntPtr p)
        {
            if (p == IntPtr.Zero)
            {
                return null;
            }
            int length = 0;
            while (Marshal.ReadByte(p, length) != 0)
            {
                length++;
            }
            if (length == 0)
            {
                return string.Empty;
            }
            byte[] bytes = new byte[length];
            Marshal.Copy(p, bytes, 0, length);
            return Encoding.UTF8.GetString(bytes);
        }
    }

    /// <summary>The C functions of verify.h, one to one; every one VERIFY_CALL (Winapi).</summary>
    internal static class NativeMethods
    {
        private const string Library = "verify";

        /// <summary>verify_event_callback: user_data, then the borrowed event.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Winapi)]
        internal delegate void EventCallback(IntPtr userData, IntPtr nativeEvent);

        // BEGIN GENERATED: native (tests/generate/csharp.rs; do not edit)
        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_single_login(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string deviceName,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_user_login(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_user_login_with_card(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_user_register(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string deviceName,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_update_password(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string oldPassword,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string newPassword,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_change_bind(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string newMac,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_heartbeat(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string token,
            int kind,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string ip,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_user_recharge(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_latest_version(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string currentVersion,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_bulletin(
            ClientHandle client,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_variable(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string name,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_variables(
            ClientHandle client,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_user_info(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_card_info(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_social_login_start(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_social_login_poll(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string state,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_social_register_start(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string deviceName,
            out ReplyHandle reply);

        // END GENERATED: native

        /// <summary>verify_log_callback: user_data, the level, then the borrowed message.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Winapi)]
        internal delegate void LogCallback(IntPtr userData, int level, IntPtr message);

        // Client. `options` is optional: IntPtr.Zero or a handle the caller holds a reference on.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_new_with_options(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string baseUrl,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string appId,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string appKey,
            IntPtr options,
            out ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_client_free(IntPtr client);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_set_timeouts(ClientHandle client, uint connectMs, uint callMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_init(ClientHandle client, out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_call(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string action,
            [MarshalAs(UnmanagedType.LPArray, ArraySubType = UnmanagedType.LPUTF8Str)] string[] keys,
            [MarshalAs(UnmanagedType.LPArray, ArraySubType = UnmanagedType.LPUTF8Str)] string[] values,
            UIntPtr count,
            out ReplyHandle reply);

        // `cancel` is optional: IntPtr.Zero, or the handle of a CancelHandle the caller holds a
        // reference on.
        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_social_login_wait(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string state,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            uint intervalMs,
            uint timeoutMs,
            IntPtr cancel,
            out ReplyHandle reply);

        // Library-wide. Returned strings are static or borrowed: IntPtr, copied by Utf8.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_code_describe(int code);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_last_error_message();

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_last_error_code();

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_version();

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern uint verify_abi_version();

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_code_page();

        // Client options (IntPtr under Hold.With: one thread at a time).

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_new(out ClientOptionsHandle options);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_client_options_free(IntPtr options);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_mirror(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string baseUrl);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_trust(IntPtr options, uint flags);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_root_pem(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pem);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_root_file(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string path);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_pin(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string sha256Base64);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_proxy(IntPtr options, int mode,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string url);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_allow_insecure_http(IntPtr options, int allow);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_timeouts(IntPtr options, uint connectMs, uint callMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_attempt_delay(IntPtr options, uint delayMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_offline_grace(IntPtr options, uint graceSeconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_start_budget(IntPtr options, uint budgetMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_clock_tolerance(IntPtr options, uint toleranceSeconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_offline(IntPtr reply, out long confirmedAt, out long graceEnd, out int reason);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_start_from_reply(ClientHandle client, IntPtr reply, IntPtr options, out KeeperHandle keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_last_confirmed(IntPtr status, out long seconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_grace_end(IntPtr status, out long seconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_add_address(IntPtr options, [MarshalAs(UnmanagedType.LPUTF8Str)] string host, [MarshalAs(UnmanagedType.LPUTF8Str)] string ip);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_state_folder(IntPtr options, [MarshalAs(UnmanagedType.LPUTF8Str)] string path);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_client_options_set_log(IntPtr options, LogCallback callback,
            IntPtr userData);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_code(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string salt,
            [Out] byte[] output,
            UIntPtr outputLength);

        // Replies: the handle crosses as IntPtr while the caller holds a reference on its
        // ReplyHandle (Hold.With), so borrowed strings can be copied before it is released.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_code(IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_reply_message(IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_str(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out IntPtr value);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_int(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out long value);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_bool(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out int value);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_reply_json(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string pointer, out IntPtr value);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_reply_free(IntPtr reply);

        // Keeper options (IntPtr under Hold.With: one thread at a time).

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_new(out KeeperOptionsHandle options);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_keeper_options_free(IntPtr options);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_set_interval(IntPtr options, uint intervalMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_set_grace(IntPtr options, uint graceMs);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_set_ip(IntPtr options,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string ip);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_options_set_callback(IntPtr options,
            EventCallback callback, IntPtr userData);

        // Keeper. `options` is optional: IntPtr.Zero or a handle the caller holds a reference on.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_start(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string token,
            int kind,
            IntPtr options,
            out KeeperHandle keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_stop(KeeperHandle keeper);

        /// <summary>verify_keeper_stop on a raw pointer, for KeeperHandle.ReleaseHandle.</summary>
        [DllImport(Library, CallingConvention = CallingConvention.Winapi, EntryPoint = "verify_keeper_stop")]
        internal static extern int verify_keeper_stop_raw(IntPtr keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_keeper_free(IntPtr keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_state(KeeperHandle keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_get_status(KeeperHandle keeper, out KeeperStatusHandle status);

        // Status snapshots (IntPtr under Hold.With: the strings are borrowed from the snapshot).

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_keeper_status_free(IntPtr status);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_state(IntPtr status, out int state);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_last_code(IntPtr status, out int code);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_last_message(IntPtr status, out IntPtr message);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_remark(IntPtr status, out IntPtr remark);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_expire_at(IntPtr status, out IntPtr expireAt);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_last_success(IntPtr status, out long unixSeconds);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_counts(IntPtr status, out ulong succeeded, out ulong failed);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_message_count(IntPtr status, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_keeper_status_message(IntPtr status, UIntPtr index, out IntPtr message);

        // Cancellation.

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_cancel_new(out CancelHandle cancel);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_cancel_cancel(CancelHandle cancel);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_cancel_free(IntPtr cancel);
    }
}
