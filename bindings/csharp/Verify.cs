// Verify.cs: the C# binding of the verify licensing client (libverify.so / verify.dll), ABI 2.
//
// The NuGet package VerifySdk ships it compiled (Verify.dll, with its XML documentation and
// the native libraries under runtimes/); this file can also be compiled into a .NET (Core 3.1+,
// 5+), .NET Framework 4.7+ or Mono project by itself. The native library must sit where the
// runtime finds it: next to the executable, or (Linux) on LD_LIBRARY_PATH.
// `[DllImport("verify")]` resolves to `libverify.so` on Linux, `libverify.dylib` on macOS and
// `verify.dll` on Windows; when it is missing, the first call throws a DllNotFoundException
// naming the file, where it was looked for and how to fix it.
//
// The API (namespace Verify):
// - Every action returns its typed reply (CardLoginReply, UserSessionReply, ..., generated
//   from the action table): the fields of the spec as properties (strings, long?, bool?, and
//   the service's times as DateTimeOffset? with its UTC+08:00 offset), plus the raw reply
//   (GetString("/data/..."), Json) for fields the spec does not show. A reply is a plain
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
//
// Interop rules this file keeps (see verify.h for the C contract):
// - Every native object is owned by a public SafeHandle subclass (ClientHandle, ReplyHandle,
//   KeeperHandle, KeeperOptionsHandle, KeeperStatusHandle, CancelHandle), freed exactly once
//   by the library's own free function, never while a call that uses it is running. A reply
//   object holds its ReplyHandle, which the garbage collector frees (SafeHandle's critical
//   finalizer) once the reply is unreachable.
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

using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Globalization;
using System.IO;
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
    /// What a <see cref="KeeperEventArgs"/> reports (VERIFY_EVENT_*). Later versions may add kinds:
    /// a value not named here is kept as its number; ignore the kinds you do not know.
    /// </summary>
    public enum EventKind
    {
        /// <summary>A heartbeat succeeded: <see cref="KeeperEventArgs.ExpireAt"/> is the session's expiry.</summary>
        Alive = 1,

        /// <summary>A back-office message, in <see cref="KeeperEventArgs.Text"/>, delivered once.</summary>
        Message = 2,

        /// <summary>
        /// A heartbeat failed for another reason than the session's end (network down, a reply
        /// that is not the service's); the keeper retries within the grace period and the session
        /// stays usable.
        /// </summary>
        Trouble = 3,

        /// <summary>
        /// The session ended: 1005 (expired), 1006 (disabled; <see cref="KeeperEventArgs.Remark"/> is
        /// the reason), 1007 (token invalid), the grace period ran out, or
        /// <see cref="ResultCode.Panic"/> when the keeper's thread failed. The keeper has stopped.
        /// Offline, also a refusal of the login sent again, or <see cref="ResultCode.GraceOver"/>.
        /// </summary>
        Ended = 4,

        /// <summary>
        /// Offline verdicts on: the server cannot be reached; the session goes on offline until
        /// <see cref="KeeperEventArgs.GraceEnd"/>. Also the first event of a keeper started from an
        /// offline verdict.
        /// </summary>
        Offline = 5,

        /// <summary>
        /// Offline verdicts on: the server confirmed the licence again (or for the first time
        /// after an offline start): <see cref="KeeperEventArgs.ExpireAt"/> is its expiry.
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

    /// <summary>How a client reaches the server (VERIFY_PROXY_*), for <see cref="ClientOptions.Proxy"/>.</summary>
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
    /// A failure of a call. Thrown as it is for local failures, where no answer of the server
    /// exists: a negative <see cref="ResultCode"/> (network, timeout, TLS, protocol, cancelled,
    /// system, ...). Its subclass <see cref="VerifyRefusedException"/> is a refusal by the
    /// server (thrown by <see cref="Reply.EnsureOk"/> or with
    /// <see cref="ClientOptions.ThrowOnRefusal"/>), so one <c>catch (VerifyException)</c>
    /// handles both.
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

        /// <summary>A failure with its code, message and cause.</summary>
        public VerifyException(ResultCode code, string message, Exception innerException)
            : base(message, innerException)
        {
            Code = code;
        }

        /// <summary>The result code: negative for local failures, the server's code for a refusal.</summary>
        public ResultCode Code { get; private set; }

        /// <summary>
        /// The whole reply as JSON when the server did answer (a refusal, or a
        /// <see cref="ResultCode.Protocol"/> failure); else null.
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

    /// <summary>
    /// The server refused a call: its <see cref="VerifyException.Code"/> (1003 wrong password,
    /// 1004 card invalid, 1006 banned, ...), its <see cref="ServerMessage"/> and
    /// <see cref="Remark"/> (the reason of a ban, the previously bound machine code). Thrown by
    /// <see cref="Reply.EnsureOk"/>, and by every call of a client made with
    /// <see cref="ClientOptions.ThrowOnRefusal"/>. A refusal of the program's configuration
    /// (1001, 1010, 1011, 1012) is the subclass <see cref="VerifyConfigurationException"/>.
    /// </summary>
    public class VerifyRefusedException : VerifyException
    {
        /// <summary>A refusal with its code, the server's message, remark and reply.</summary>
        public VerifyRefusedException(ResultCode code, string serverMessage, string remark, string replyJson)
            : base(code, Describe(code, serverMessage), replyJson)
        {
            ServerMessage = serverMessage ?? string.Empty;
            Remark = remark;
        }

        /// <summary>The server's message, as it sent it (localized; may be empty).</summary>
        public string ServerMessage { get; private set; }

        /// <summary><c>/data/remark</c> of the refusal: the reason of a ban (1006), the previously bound machine code (1022); or null.</summary>
        public string Remark { get; private set; }

        /// <summary>Whether the program's configuration was refused (1001, 1010, 1011, 1012) rather than a licence.</summary>
        public bool IsConfiguration
        {
            get { return Reply.IsConfigurationCode(Code); }
        }

        /// <summary>The refusal of a reply: a <see cref="VerifyConfigurationException"/> for 1001, 1010, 1011 and 1012.</summary>
        internal static VerifyRefusedException Of(Reply reply)
        {
            ResultCode code = reply.Code;
            string json = reply.Json;
            if (Reply.IsConfigurationCode(code))
            {
                return new VerifyConfigurationException(code, reply.Message, reply.Remark, json);
            }
            return new VerifyRefusedException(code, reply.Message, reply.Remark, json);
        }

        private static string Describe(ResultCode code, string serverMessage)
        {
            string text = string.Format("{0} {1}", (int)code, Library.Describe(code));
            return string.IsNullOrEmpty(serverMessage) ? text : text + ": " + serverMessage;
        }
    }

    /// <summary>
    /// The server refused the program's configuration, not a licence: 1001 (program not found),
    /// 1010 (signature error), 1011 (AppKey wrong) or 1012 (program not approved). The
    /// developer fixes these (the AppId, the AppKey, the back office), not the user.
    /// </summary>
    public class VerifyConfigurationException : VerifyRefusedException
    {
        /// <summary>A configuration refusal with its code, the server's message, remark and reply.</summary>
        public VerifyConfigurationException(ResultCode code, string serverMessage, string remark, string replyJson)
            : base(code, serverMessage, remark, replyJson)
        {
        }
    }

    /// <summary>The machine code's algorithm (VERIFY_MACHINE_V1, _V2).</summary>
    public enum MachineVersion
    {
        /// <summary>v1, the default: one OS identity. Frozen.</summary>
        V1 = 1,
        /// <summary>v2: several components, tolerant matching, kept in the state folder.</summary>
        V2 = 2,
    }

    /// <summary>A component of machine code v2 (VERIFY_MACHINE_*); later versions may add values.</summary>
    public enum MachineComponentKind
    {
        /// <summary>The SMBIOS system UUID.</summary>
        BoardUuid = 1,
        /// <summary>The board's serial number.</summary>
        BoardSerial = 2,
        /// <summary>The OS installation (MachineGuid, /etc/machine-id).</summary>
        OsInstall = 3,
        /// <summary>The system volume (its serial, the root file system's UUID).</summary>
        SystemVolume = 4,
        /// <summary>The processor's signature.</summary>
        Cpu = 5,
        /// <summary>The machine's model names.</summary>
        Model = 6,
    }

    /// <summary>How a component compares with the stored one (VERIFY_COMPONENT_*).</summary>
    public enum ComponentState
    {
        /// <summary>Read, equal to the stored one.</summary>
        Matches = 1,
        /// <summary>Read, not the stored one.</summary>
        Differs = 2,
        /// <summary>Read, nothing stored to compare with.</summary>
        NotStored = 3,
        /// <summary>Not readable now.</summary>
        Unreadable = 4,
        /// <summary>A known placeholder value (counts nothing).</summary>
        Placeholder = 5,
    }

    /// <summary>How the code of a <see cref="MachineCheck"/> came about (VERIFY_MACHINE_ISSUED...).</summary>
    public enum MachineOutcome
    {
        /// <summary>Nothing was stored: issued and stored.</summary>
        Issued = 1,
        /// <summary>The stored code was kept.</summary>
        Kept = 2,
        /// <summary>The components say another machine: a new code.</summary>
        Reissued = 3,
        /// <summary>A stored code did not open: issued again.</summary>
        StoreUnreadable = 4,
    }

    /// <summary>One component of a <see cref="MachineCheck"/>: never its value.</summary>
    public sealed class MachineComponent
    {
        internal MachineComponent(MachineComponentKind kind, string name, ComponentState state, string stateName, int weight)
        {
            Kind = kind;
            Name = name;
            State = state;
            StateName = stateName;
            Weight = weight;
        }

        /// <summary>Which component.</summary>
        public MachineComponentKind Kind { get; private set; }
        /// <summary>Its name ("board_uuid", ...).</summary>
        public string Name { get; private set; }
        /// <summary>Whether it matches the stored one.</summary>
        public ComponentState State { get; private set; }
        /// <summary>The state's name ("matches", ...).</summary>
        public string StateName { get; private set; }
        /// <summary>Its weight in the rule.</summary>
        public int Weight { get; private set; }
    }

    /// <summary>Machine code v2 and why it is what it is (<see cref="Library.CheckMachine"/>).</summary>
    public sealed class MachineCheck
    {
        internal MachineCheck(string code, MachineOutcome outcome, int score, IList<MachineComponent> components, string note)
        {
            Code = code;
            Outcome = outcome;
            Score = score;
            Components = components;
            Note = note;
        }

        /// <summary>The machine code: 32 uppercase hex characters.</summary>
        public string Code { get; private set; }
        /// <summary>Issued, kept, reissued.</summary>
        public MachineOutcome Outcome { get; private set; }
        /// <summary>The rule's sum.</summary>
        public int Score { get; private set; }
        /// <summary>Every component, the heaviest first.</summary>
        public IList<MachineComponent> Components { get; private set; }
        /// <summary>What went wrong with the store, or null.</summary>
        public string Note { get; private set; }
    }

    /// <summary>A sign of virtualisation (VERIFY_VIRTUAL_*); later versions may add values.</summary>
    public enum VirtualSignKind
    {
        /// <summary>CPUID's hypervisor bit; the detail is the hypervisor's vendor.</summary>
        HypervisorBit = 1,
        /// <summary>A firmware string of a virtual machine.</summary>
        Firmware = 2,
        /// <summary>A container marker.</summary>
        Container = 3,
        /// <summary>The OS says it runs under a hypervisor.</summary>
        System = 4,
    }

    /// <summary>One sign of virtualisation.</summary>
    public sealed class VirtualSign
    {
        internal VirtualSign(VirtualSignKind kind, string detail)
        {
            Kind = kind;
            Detail = detail;
        }

        /// <summary>What it is.</summary>
        public VirtualSignKind Kind { get; private set; }
        /// <summary>What was seen (a vendor string, a file name; never an identity).</summary>
        public string Detail { get; private set; }
    }

    /// <summary>What <see cref="Library.Virtualization"/> saw. It only reports.</summary>
    public sealed class MachineVirtual
    {
        internal MachineVirtual(IList<VirtualSign> signs)
        {
            Signs = signs;
        }

        /// <summary>Whether any sign was seen.</summary>
        public bool LooksVirtual { get { return Signs.Count > 0; } }
        /// <summary>Every sign seen.</summary>
        public IList<VirtualSign> Signs { get; private set; }
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
            get { return Loader.Call(() => Utf8.FromNative(NativeMethods.verify_version())); }
        }

        /// <summary>The loaded library's ABI version; compare with <see cref="BindingAbiVersion"/>.</summary>
        public static uint AbiVersion
        {
            get { return Loader.Call(() => NativeMethods.verify_abi_version()); }
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
            return Loader.Call(() => Utf8.FromNative(NativeMethods.verify_code_describe((int)code)));
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
            if (salt == null)
            {
                throw new ArgumentNullException("salt");
            }
            Args.NoNul(salt, "salt");
            byte[] buffer = new byte[MachineCodeLength + 1];
            int code = Loader.Call(() => NativeMethods.verify_machine_code(salt, buffer, new UIntPtr((uint)buffer.Length)));
            return CodeIn(code, buffer);
        }

        /// <summary>
        /// The machine code of <paramref name="version"/> for <paramref name="salt"/>
        /// (verify_machine_code_ex): v1 is <see cref="MachineCode(string)"/>; v2 reads several
        /// components and keeps the code, sealed, in <paramref name="stateFolder"/> (null or empty:
        /// the per-user default) while enough of them match (docs/machine-code.md). Any thread.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="salt"/> is null.</exception>
        /// <exception cref="ArgumentException">A version that is neither V1 nor V2, or a NUL character.</exception>
        /// <exception cref="VerifyException">The OS failed.</exception>
        public static string MachineCode(string salt, MachineVersion version, string stateFolder)
        {
            Args.NotNull(salt, "salt");
            Args.Optional(stateFolder, "stateFolder");
            if (version != MachineVersion.V1 && version != MachineVersion.V2)
            {
                throw new ArgumentException("The version must be MachineVersion.V1 or MachineVersion.V2.", "version");
            }
            byte[] buffer = new byte[MachineCodeLength + 1];
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            int code = NativeMethods.verify_machine_code_ex(salt, (int)version,
                string.IsNullOrEmpty(stateFolder) ? null : stateFolder, buffer, new UIntPtr((uint)buffer.Length));
            return CodeIn(code, buffer);
        }

        /// <summary>
        /// Machine code v2 for <paramref name="salt"/> and why it is what it is
        /// (verify_machine_check_new): it issues, keeps and stores the code as
        /// <see cref="MachineCode(string, MachineVersion, string)"/> with v2 does, and lists every
        /// component with whether it matches the stored one, never its value. Any thread.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="salt"/> is null.</exception>
        /// <exception cref="VerifyException">The OS failed.</exception>
        public static MachineCheck CheckMachine(string salt, string stateFolder)
        {
            Args.NotNull(salt, "salt");
            Args.Optional(stateFolder, "stateFolder");
            IntPtr check;
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            int code = NativeMethods.verify_machine_check_new(salt,
                string.IsNullOrEmpty(stateFolder) ? null : stateFolder, out check);
            if (code != (int)ResultCode.Ok)
            {
                throw VerifyException.FromLastError((ResultCode)code);
            }
            try
            {
                IntPtr text;
                NativeMethods.verify_machine_check_code(check, out text);
                string machineCode = Utf8.FromNative(text);
                int outcome, score;
                NativeMethods.verify_machine_check_outcome(check, out outcome);
                NativeMethods.verify_machine_check_score(check, out score);
                string note = NativeMethods.verify_machine_check_note(check, out text) == 0 ? Utf8.FromNative(text) : null;
                UIntPtr count;
                NativeMethods.verify_machine_check_count(check, out count);
                List<MachineComponent> components = new List<MachineComponent>();
                for (ulong i = 0; i < count.ToUInt64(); i++)
                {
                    int kind, state, weight;
                    if (NativeMethods.verify_machine_check_component(check, new UIntPtr(i), out kind, out state, out weight) != 0)
                    {
                        break;
                    }
                    components.Add(new MachineComponent((MachineComponentKind)kind,
                        Utf8.FromNative(NativeMethods.verify_machine_component_name(kind)),
                        (ComponentState)state, Utf8.FromNative(NativeMethods.verify_machine_state_name(state)), weight));
                }
                return new MachineCheck(machineCode, (MachineOutcome)outcome, score, components.AsReadOnly(), note);
            }
            finally
            {
                NativeMethods.verify_machine_check_free(check);
            }
        }

        /// <summary>
        /// Whether this machine looks virtual or containerised, and what was seen: CPUID's
        /// hypervisor bit, firmware strings of virtual machines, container markers
        /// (verify_machine_virtual_new). It only reports. Any thread.
        /// </summary>
        public static MachineVirtual Virtualization()
        {
            IntPtr report;
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            int code = NativeMethods.verify_machine_virtual_new(out report);
            if (code != (int)ResultCode.Ok)
            {
                throw VerifyException.FromLastError((ResultCode)code);
            }
            try
            {
                UIntPtr count;
                NativeMethods.verify_machine_virtual_count(report, out count);
                List<VirtualSign> signs = new List<VirtualSign>();
                for (ulong i = 0; i < count.ToUInt64(); i++)
                {
                    int kind;
                    IntPtr detail;
                    if (NativeMethods.verify_machine_virtual_sign(report, new UIntPtr(i), out kind, out detail) != 0)
                    {
                        break;
                    }
                    signs.Add(new VirtualSign((VirtualSignKind)kind, Utf8.FromNative(detail)));
                }
                return new MachineVirtual(signs.AsReadOnly());
            }
            finally
            {
                NativeMethods.verify_machine_virtual_free(report);
            }
        }

        /// <summary>The machine code a call wrote into <paramref name="buffer"/>, or its failure thrown.</summary>
        private static string CodeIn(int code, byte[] buffer)
        {
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
            get { return Loader.Call(() => NativeMethods.verify_code_page()); }
        }

        /// <summary>
        /// Throws unless the loaded library has the ABI this binding was written for and
        /// speaks UTF-8.
        /// </summary>
        internal static void CheckAbi()
        {
            if (Volatile.Read(ref abiChecked))
            {
                return;
            }
            uint abi = Loader.Call(() => NativeMethods.verify_abi_version());
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
            Volatile.Write(ref abiChecked, true);
        }

        private static bool abiChecked;
    }

    /// <summary>
    /// A client of the service for one program: <c>verify_client</c>. Create one per program
    /// and keep it: it holds the session secret and reuses connections.
    /// </summary>
    /// <example>
    /// <code>
    /// using (var client = new Client("https://verify.example.com", appId, appKey))
    /// {
    ///     CardLoginReply login = client.SingleLogin(card, Library.MachineCode(appId)).EnsureOk();
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
    /// calling thread (a UI thread) is free. Its <see cref="CancellationToken"/> is honest about
    /// what the library can do: cancelled before the call started, the task is cancelled
    /// (awaiting it throws <see cref="OperationCanceledException"/>) and nothing is sent; once
    /// the call runs it is not interrupted: it ends as the blocking call would (at the latest
    /// after the call timeout, <see cref="ClientOptions.CallTimeout"/>) and the task completes
    /// with its reply, because the server may already have acted on it (a card spent). Only
    /// <see cref="SocialLoginWaitAsync"/> is interrupted by its token, through the library's
    /// cancel token, within milliseconds.</para>
    /// </remarks>
    public sealed class Client : IDisposable
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
        public Client(string baseUrl, string appId, string appKey, ClientOptions options)
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
            return Finish(code, reply, h => new Reply(h));
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
        /// <remarks>
        /// Success of <c>SingleLogin</c> (card mode).
        /// </remarks>
        /// <returns>A <see cref="CardLoginReply"/>: <c>Token</c>, <c>Status</c>, <c>IsTimes</c>, <c>CardType</c>, <c>ExpireAt</c>, <c>Total</c>, <c>Used</c>, <c>Remaining</c>.</returns>
        public CardLoginReply SingleLogin(string card, string mac, string deviceName = null)
        {
            Required(card, "card");
            Required(mac, "mac");
            Optional(deviceName, "deviceName");
            ReplyHandle reply;
            int code = NativeMethods.verify_single_login(handle, card, mac, deviceName, out reply);
            return Finish(code, reply, h => new CardLoginReply(h));
        }

        /// <summary>
        /// <c>SingleLogin</c> (card mode): activates the card on first use and binds it to <c>mac</c>;
        /// later logins from the same machine refresh it (a count card spends one use). Never
        /// sent twice by a retry.
        /// Runs <see cref="SingleLogin"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>SingleLogin</c> (card mode).
        /// </remarks>
        /// <returns>A <see cref="CardLoginReply"/>: <c>Token</c>, <c>Status</c>, <c>IsTimes</c>, <c>CardType</c>, <c>ExpireAt</c>, <c>Total</c>, <c>Used</c>, <c>Remaining</c>.</returns>
        public Task<CardLoginReply> SingleLoginAsync(string card, string mac, string deviceName = null, CancellationToken cancellationToken = default(CancellationToken))
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
        /// <remarks>
        /// Success of a password <c>UserLogin</c> without a card, or of a social login.
        /// </remarks>
        /// <returns>A <see cref="UserSessionReply"/>: <c>Username</c>, <c>DeviceId</c>, <c>ExpireAt</c>, <c>Status</c>, <c>Token</c>, <c>Remark</c>.</returns>
        public UserSessionReply UserLogin(string username, string password, string mac = null)
        {
            Required(username, "username");
            Required(password, "password");
            Optional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_login(handle, username, password, mac, out reply);
            return Finish(code, reply, h => new UserSessionReply(h));
        }

        /// <summary>
        /// <c>UserLogin</c> with username and password (account mode). <c>mac</c> is strongly
        /// recommended (rebind detection).
        /// Runs <see cref="UserLogin"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of a password <c>UserLogin</c> without a card, or of a social login.
        /// </remarks>
        /// <returns>A <see cref="UserSessionReply"/>: <c>Username</c>, <c>DeviceId</c>, <c>ExpireAt</c>, <c>Status</c>, <c>Token</c>, <c>Remark</c>.</returns>
        public Task<UserSessionReply> UserLoginAsync(string username, string password, string mac = null, CancellationToken cancellationToken = default(CancellationToken))
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
        /// <remarks>
        /// Success of <c>UserLogin</c> with a card (the renewal branch): no token.
        /// </remarks>
        /// <returns>A <see cref="RenewalReply"/>: <c>Username</c>, <c>ExpireAt</c>, <c>AddedDays</c>, <c>Status</c>.</returns>
        public RenewalReply UserLoginWithCard(string username, string password, string card, string mac = null)
        {
            Required(username, "username");
            Required(password, "password");
            Required(card, "card");
            Optional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_login_with_card(handle, username, password, card, mac, out reply);
            return Finish(code, reply, h => new RenewalReply(h));
        }

        /// <summary>
        /// <c>UserLogin</c> with a recharge card: renews the account and returns no token (log in
        /// again without a card for one). Never sent twice by a retry.
        /// Runs <see cref="UserLoginWithCard"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>UserLogin</c> with a card (the renewal branch): no token.
        /// </remarks>
        /// <returns>A <see cref="RenewalReply"/>: <c>Username</c>, <c>ExpireAt</c>, <c>AddedDays</c>, <c>Status</c>.</returns>
        public Task<RenewalReply> UserLoginWithCardAsync(string username, string password, string card, string mac = null, CancellationToken cancellationToken = default(CancellationToken))
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
        /// <remarks>
        /// Success of <c>UserRegin</c>. Without a card the account is created already expired and
        /// no token is returned; with a duration card it is active and has a token.
        /// </remarks>
        /// <returns>A <see cref="RegistrationReply"/>: <c>Username</c>, <c>UserId</c>, <c>ExpireAt</c>, <c>Token</c>, <c>Status</c>.</returns>
        public RegistrationReply UserRegister(string username, string password, string card = null, string mac = null, string deviceName = null)
        {
            Required(username, "username");
            Required(password, "password");
            Optional(card, "card");
            Optional(mac, "mac");
            Optional(deviceName, "deviceName");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_register(handle, username, password, card, mac, deviceName, out reply);
            return Finish(code, reply, h => new RegistrationReply(h));
        }

        /// <summary>
        /// <c>UserRegin</c>: registers an account, activated when a duration card is given. Never
        /// sent twice by a retry.
        /// Runs <see cref="UserRegister"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>UserRegin</c>. Without a card the account is created already expired and
        /// no token is returned; with a duration card it is active and has a token.
        /// </remarks>
        /// <returns>A <see cref="RegistrationReply"/>: <c>Username</c>, <c>UserId</c>, <c>ExpireAt</c>, <c>Token</c>, <c>Status</c>.</returns>
        public Task<RegistrationReply> UserRegisterAsync(string username, string password, string card = null, string mac = null, string deviceName = null, CancellationToken cancellationToken = default(CancellationToken))
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
        /// <remarks>
        /// Success of <c>UpdatePwd</c>.
        /// </remarks>
        /// <returns>A <see cref="PasswordChangedReply"/>: <c>Username</c>.</returns>
        public PasswordChangedReply UpdatePassword(string username, string oldPassword, string newPassword)
        {
            Required(username, "username");
            Required(oldPassword, "oldPassword");
            Required(newPassword, "newPassword");
            ReplyHandle reply;
            int code = NativeMethods.verify_update_password(handle, username, oldPassword, newPassword, out reply);
            return Finish(code, reply, h => new PasswordChangedReply(h));
        }

        /// <summary>
        /// <c>UpdatePwd</c>: checks the old password and sets the new one. Never sent twice by a
        /// retry.
        /// Runs <see cref="UpdatePassword"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>UpdatePwd</c>.
        /// </remarks>
        /// <returns>A <see cref="PasswordChangedReply"/>: <c>Username</c>.</returns>
        public Task<PasswordChangedReply> UpdatePasswordAsync(string username, string oldPassword, string newPassword, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(oldPassword, "oldPassword");
            Required(newPassword, "newPassword");
            return Run(() => UpdatePassword(username, oldPassword, newPassword), cancellationToken);
        }

        /// <summary>
        /// <c>ChangeBind</c>: binds the account to a new machine code. Never sent twice by a retry.
        /// </summary>
        /// <remarks>
        /// Success of <c>ChangeBind</c>.
        /// </remarks>
        /// <returns>A <see cref="RebindReply"/>: <c>Username</c>, <c>DeviceId</c>, <c>BindCount</c>, <c>BindLimit</c>.</returns>
        public RebindReply ChangeBind(string username, string password, string newMac)
        {
            Required(username, "username");
            Required(password, "password");
            Required(newMac, "newMac");
            ReplyHandle reply;
            int code = NativeMethods.verify_change_bind(handle, username, password, newMac, out reply);
            return Finish(code, reply, h => new RebindReply(h));
        }

        /// <summary>
        /// <c>ChangeBind</c>: binds the account to a new machine code. Never sent twice by a retry.
        /// Runs <see cref="ChangeBind"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>ChangeBind</c>.
        /// </remarks>
        /// <returns>A <see cref="RebindReply"/>: <c>Username</c>, <c>DeviceId</c>, <c>BindCount</c>, <c>BindLimit</c>.</returns>
        public Task<RebindReply> ChangeBindAsync(string username, string password, string newMac, CancellationToken cancellationToken = default(CancellationToken))
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
        /// <remarks>
        /// Success of <c>UserHeartbeat</c>.
        /// </remarks>
        /// <returns>A <see cref="HeartbeatReply"/>: <c>ExpireAt</c>, <c>Status</c>, <c>Msg</c>.</returns>
        public HeartbeatReply Heartbeat(string token, SessionKind kind, string ip = null)
        {
            Required(token, "token");
            Args.Session(kind, "kind");
            Optional(ip, "ip");
            ReplyHandle reply;
            int code = NativeMethods.verify_heartbeat(handle, token, (int)kind, ip, out reply);
            return Finish(code, reply, h => new HeartbeatReply(h));
        }

        /// <summary>
        /// <c>UserHeartbeat</c>: keeps a card or account session alive and collects a back-office
        /// message (delivered once).
        /// Runs <see cref="Heartbeat"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>UserHeartbeat</c>.
        /// </remarks>
        /// <returns>A <see cref="HeartbeatReply"/>: <c>ExpireAt</c>, <c>Status</c>, <c>Msg</c>.</returns>
        public Task<HeartbeatReply> HeartbeatAsync(string token, SessionKind kind, string ip = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(token, "token");
            Args.Session(kind, "kind");
            Optional(ip, "ip");
            return Run(() => Heartbeat(token, kind, ip), cancellationToken);
        }

        /// <summary>
        /// <c>UserRecharge</c>: adds a duration card's time to an account (no password). Never sent
        /// twice by a retry.
        /// </summary>
        /// <remarks>
        /// Success of <c>UserRecharge</c>.
        /// </remarks>
        /// <returns>A <see cref="RechargeReply"/>: <c>Username</c>, <c>ExpireAt</c>, <c>AddedDays</c>, <c>Status</c>.</returns>
        public RechargeReply UserRecharge(string username, string card)
        {
            Required(username, "username");
            Required(card, "card");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_recharge(handle, username, card, out reply);
            return Finish(code, reply, h => new RechargeReply(h));
        }

        /// <summary>
        /// <c>UserRecharge</c>: adds a duration card's time to an account (no password). Never sent
        /// twice by a retry.
        /// Runs <see cref="UserRecharge"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>UserRecharge</c>.
        /// </remarks>
        /// <returns>A <see cref="RechargeReply"/>: <c>Username</c>, <c>ExpireAt</c>, <c>AddedDays</c>, <c>Status</c>.</returns>
        public Task<RechargeReply> UserRechargeAsync(string username, string card, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(card, "card");
            return Run(() => UserRecharge(username, card), cancellationToken);
        }

        /// <summary>
        /// <c>GetLatestVersion</c>, optionally with the program's current version.
        /// </summary>
        /// <remarks>
        /// Success of <c>GetLatestVersion</c>.
        /// </remarks>
        /// <returns>A <see cref="LatestVersionReply"/>: <c>Version</c>, <c>Changelog</c>, <c>DownloadUrl</c>, <c>ForceUpdate</c>, <c>HasUpdate</c>.</returns>
        public LatestVersionReply GetLatestVersion(string currentVersion = null)
        {
            Optional(currentVersion, "currentVersion");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_latest_version(handle, currentVersion, out reply);
            return Finish(code, reply, h => new LatestVersionReply(h));
        }

        /// <summary>
        /// <c>GetLatestVersion</c>, optionally with the program's current version.
        /// Runs <see cref="GetLatestVersion"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>GetLatestVersion</c>.
        /// </remarks>
        /// <returns>A <see cref="LatestVersionReply"/>: <c>Version</c>, <c>Changelog</c>, <c>DownloadUrl</c>, <c>ForceUpdate</c>, <c>HasUpdate</c>.</returns>
        public Task<LatestVersionReply> GetLatestVersionAsync(string currentVersion = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Optional(currentVersion, "currentVersion");
            return Run(() => GetLatestVersion(currentVersion), cancellationToken);
        }

        /// <summary>
        /// <c>GetBulletin</c>: the program's bulletin.
        /// </summary>
        /// <remarks>
        /// Success of <c>GetBulletin</c>.
        /// </remarks>
        /// <returns>A <see cref="BulletinReply"/>: <c>Bulletin</c>, <c>UpdatedAt</c>.</returns>
        public BulletinReply GetBulletin()
        {
            ReplyHandle reply;
            int code = NativeMethods.verify_get_bulletin(handle, out reply);
            return Finish(code, reply, h => new BulletinReply(h));
        }

        /// <summary>
        /// <c>GetBulletin</c>: the program's bulletin.
        /// Runs <see cref="GetBulletin"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>GetBulletin</c>.
        /// </remarks>
        /// <returns>A <see cref="BulletinReply"/>: <c>Bulletin</c>, <c>UpdatedAt</c>.</returns>
        public Task<BulletinReply> GetBulletinAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return Run(() => GetBulletin(), cancellationToken);
        }

        /// <summary>
        /// <c>GetVariable</c> for one variable.
        /// </summary>
        /// <remarks>
        /// Success of <c>GetVariable</c> with a name.
        /// </remarks>
        /// <returns>A <see cref="VariableReply"/>: <c>Name</c>, <c>Value</c>.</returns>
        public VariableReply GetVariable(string name)
        {
            Required(name, "name");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_variable(handle, name, out reply);
            return Finish(code, reply, h => new VariableReply(h));
        }

        /// <summary>
        /// <c>GetVariable</c> for one variable.
        /// Runs <see cref="GetVariable"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>GetVariable</c> with a name.
        /// </remarks>
        /// <returns>A <see cref="VariableReply"/>: <c>Name</c>, <c>Value</c>.</returns>
        public Task<VariableReply> GetVariableAsync(string name, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(name, "name");
            return Run(() => GetVariable(name), cancellationToken);
        }

        /// <summary>
        /// <c>GetVariable</c> for every variable.
        /// </summary>
        /// <remarks>
        /// Success of <c>GetVariable</c> without a name: every variable.
        /// </remarks>
        /// <returns>A <see cref="VariablesReply"/>: <c>Variables</c>.</returns>
        public VariablesReply GetVariables()
        {
            ReplyHandle reply;
            int code = NativeMethods.verify_get_variables(handle, out reply);
            return Finish(code, reply, h => new VariablesReply(h));
        }

        /// <summary>
        /// <c>GetVariable</c> for every variable.
        /// Runs <see cref="GetVariables"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>GetVariable</c> without a name: every variable.
        /// </remarks>
        /// <returns>A <see cref="VariablesReply"/>: <c>Variables</c>.</returns>
        public Task<VariablesReply> GetVariablesAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return Run(() => GetVariables(), cancellationToken);
        }

        /// <summary>
        /// <c>GetUserInfo</c>: the account's details.
        /// </summary>
        /// <remarks>
        /// Success of <c>GetUserInfo</c>.
        /// </remarks>
        /// <returns>A <see cref="UserInfoReply"/>: <c>Username</c>, <c>UserId</c>, <c>DeviceId</c>, <c>ExpireAt</c>, <c>Status</c>, <c>BindCount</c>, <c>BindLimit</c>, <c>Remark</c>, <c>CreatedAt</c>.</returns>
        public UserInfoReply GetUserInfo(string username, string password)
        {
            Required(username, "username");
            Required(password, "password");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_user_info(handle, username, password, out reply);
            return Finish(code, reply, h => new UserInfoReply(h));
        }

        /// <summary>
        /// <c>GetUserInfo</c>: the account's details.
        /// Runs <see cref="GetUserInfo"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>GetUserInfo</c>.
        /// </remarks>
        /// <returns>A <see cref="UserInfoReply"/>: <c>Username</c>, <c>UserId</c>, <c>DeviceId</c>, <c>ExpireAt</c>, <c>Status</c>, <c>BindCount</c>, <c>BindLimit</c>, <c>Remark</c>, <c>CreatedAt</c>.</returns>
        public Task<UserInfoReply> GetUserInfoAsync(string username, string password, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(username, "username");
            Required(password, "password");
            return Run(() => GetUserInfo(username, password), cancellationToken);
        }

        /// <summary>
        /// <c>GetCardInfo</c>: the card's state, expiry and binding, consuming nothing.
        /// </summary>
        /// <remarks>
        /// Success of <c>GetCardInfo</c>: the card's state, consuming nothing.
        /// </remarks>
        /// <returns>A <see cref="CardInfoReply"/>: <c>Card</c>, <c>CardType</c>, <c>Status</c>, <c>IsTimes</c>, <c>DeviceId</c>, <c>ActivatedAt</c>, <c>ExpireAt</c>, <c>Duration</c>, <c>DurationType</c>, <c>Total</c>, <c>Used</c>, <c>Remaining</c>.</returns>
        public CardInfoReply GetCardInfo(string card)
        {
            Required(card, "card");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_card_info(handle, card, out reply);
            return Finish(code, reply, h => new CardInfoReply(h));
        }

        /// <summary>
        /// <c>GetCardInfo</c>: the card's state, expiry and binding, consuming nothing.
        /// Runs <see cref="GetCardInfo"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of <c>GetCardInfo</c>: the card's state, consuming nothing.
        /// </remarks>
        /// <returns>A <see cref="CardInfoReply"/>: <c>Card</c>, <c>CardType</c>, <c>Status</c>, <c>IsTimes</c>, <c>DeviceId</c>, <c>ActivatedAt</c>, <c>ExpireAt</c>, <c>Duration</c>, <c>DurationType</c>, <c>Total</c>, <c>Used</c>, <c>Remaining</c>.</returns>
        public Task<CardInfoReply> GetCardInfoAsync(string card, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(card, "card");
            return Run(() => GetCardInfo(card), cancellationToken);
        }

        /// <summary>
        /// Social login step 1: the URL to show the user, and the state to poll with.
        /// </summary>
        /// <remarks>
        /// Step 1 of a social login: the authorization URL to show, and the state to poll with.
        /// </remarks>
        /// <returns>A <see cref="SocialStartReply"/>: <c>Url</c>, <c>State</c>.</returns>
        public SocialStartReply SocialLoginStart(string mac = null)
        {
            Optional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_social_login_start(handle, mac, out reply);
            return Finish(code, reply, h => new SocialStartReply(h));
        }

        /// <summary>
        /// Social login step 1: the URL to show the user, and the state to poll with.
        /// Runs <see cref="SocialLoginStart"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Step 1 of a social login: the authorization URL to show, and the state to poll with.
        /// </remarks>
        /// <returns>A <see cref="SocialStartReply"/>: <c>Url</c>, <c>State</c>.</returns>
        public Task<SocialStartReply> SocialLoginStartAsync(string mac = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Optional(mac, "mac");
            return Run(() => SocialLoginStart(mac), cancellationToken);
        }

        /// <summary>
        /// Social login step 2, once: code 201 (pending) while the user has not authorized;
        /// 200 with the login payload (<c>remark</c> is the social display name); 1016 when the
        /// identity is not bound. Its success consumes the state, so it is never sent twice.
        /// </summary>
        /// <remarks>
        /// Success of a password <c>UserLogin</c> without a card, or of a social login.
        /// </remarks>
        /// <returns>A <see cref="UserSessionReply"/>: <c>Username</c>, <c>DeviceId</c>, <c>ExpireAt</c>, <c>Status</c>, <c>Token</c>, <c>Remark</c>.</returns>
        public UserSessionReply SocialLoginPoll(string state, string mac = null)
        {
            Required(state, "state");
            Optional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_social_login_poll(handle, state, mac, out reply);
            return Finish(code, reply, h => new UserSessionReply(h));
        }

        /// <summary>
        /// Social login step 2, once: code 201 (pending) while the user has not authorized;
        /// 200 with the login payload (<c>remark</c> is the social display name); 1016 when the
        /// identity is not bound. Its success consumes the state, so it is never sent twice.
        /// Runs <see cref="SocialLoginPoll"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Success of a password <c>UserLogin</c> without a card, or of a social login.
        /// </remarks>
        /// <returns>A <see cref="UserSessionReply"/>: <c>Username</c>, <c>DeviceId</c>, <c>ExpireAt</c>, <c>Status</c>, <c>Token</c>, <c>Remark</c>.</returns>
        public Task<UserSessionReply> SocialLoginPollAsync(string state, string mac = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            Required(state, "state");
            Optional(mac, "mac");
            return Run(() => SocialLoginPoll(state, mac), cancellationToken);
        }

        /// <summary>
        /// Social registration step 1: the URL to show the user. Never sent twice by a retry.
        /// </summary>
        /// <remarks>
        /// Step 1 of a social registration: the authorization URL. The account is created when
        /// the user completes the authorization.
        /// </remarks>
        /// <returns>A <see cref="SocialRegistrationReply"/>: <c>Url</c>.</returns>
        public SocialRegistrationReply SocialRegisterStart(string username, string mac = null, string deviceName = null)
        {
            Required(username, "username");
            Optional(mac, "mac");
            Optional(deviceName, "deviceName");
            ReplyHandle reply;
            int code = NativeMethods.verify_social_register_start(handle, username, mac, deviceName, out reply);
            return Finish(code, reply, h => new SocialRegistrationReply(h));
        }

        /// <summary>
        /// Social registration step 1: the URL to show the user. Never sent twice by a retry.
        /// Runs <see cref="SocialRegisterStart"/> on the thread pool; a
        /// cancelled <paramref name="cancellationToken"/> stops it only before it starts
        /// (see <see cref="Client"/>).
        /// </summary>
        /// <remarks>
        /// Step 1 of a social registration: the authorization URL. The account is created when
        /// the user completes the authorization.
        /// </remarks>
        /// <returns>A <see cref="SocialRegistrationReply"/>: <c>Url</c>.</returns>
        public Task<SocialRegistrationReply> SocialRegisterStartAsync(string username, string mac = null, string deviceName = null, CancellationToken cancellationToken = default(CancellationToken))
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
        /// authorizes (a reply with code 200 and the login fields; <see cref="Reply.Remark"/>
        /// is the social display name) or the server refuses (a reply with its code, e.g. 1016
        /// when the identity is not bound). Blocks the calling thread; <paramref name="mac"/> is optional.
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
        public UserSessionReply SocialLoginWait(string state, string mac, TimeSpan interval, TimeSpan timeout,
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
            return Finish(code, reply, h => new UserSessionReply(h));
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
        public Task<UserSessionReply> SocialLoginWaitAsync(string state, string mac, TimeSpan interval, TimeSpan timeout,
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
        public Keeper StartKeeper(string token, SessionKind kind, KeeperOptions options = null)
        {
            Keeper keeper = new Keeper(this, token, kind, options);
            keeper.Start();
            return keeper;
        }

        /// <summary>
        /// Starts keeping the session of a login's reply (verify_keeper_start_from_reply): the
        /// server's own (<see cref="Reply.IsOk"/>: its token and session kind; the first
        /// heartbeat one interval after the start, since the token is fresh) or an offline
        /// verdict (<see cref="Reply.IsOffline"/>). From an offline verdict the keeper raises
        /// <see cref="Keeper.Offline"/>, waits for the login still going on after a start budget
        /// or sends it again, and raises <see cref="Keeper.Online"/> once the server takes it, or
        /// <see cref="Keeper.Ended"/> with the server's refusal (the stored verdict is cleared) or
        /// <see cref="ResultCode.GraceOver"/>. See <see cref="StartKeeper(string, SessionKind, KeeperOptions)"/>
        /// for subscribing.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="login"/> is null.</exception>
        /// <exception cref="ArgumentException">The reply is neither a login's success nor an offline verdict.</exception>
        public Keeper StartKeeper(Reply login, KeeperOptions options = null)
        {
            Keeper keeper = new Keeper(this, login, options);
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

        /// <summary>Runs a blocking call on the thread pool unless the token is already cancelled.</summary>
        private static Task<T> Run<T>(Func<T> call, CancellationToken cancellationToken)
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
    /// An answer of the server, of any code: <c>verify_reply</c>. Every action returns its
    /// typed subclass (<see cref="CardLoginReply"/>, <see cref="UserSessionReply"/>, ...) with
    /// the fields of the spec as properties; this class gives what every reply has (code,
    /// message, remark, the offline verdict) and every field by JSON Pointer, for fields the spec
    /// does not show. A plain immutable object: no Dispose (the native reply is freed by the
    /// garbage collector once the object is unreachable).
    /// </summary>
    /// <remarks>
    /// Paths are JSON Pointers (RFC 6901) from the top of the reply: <c>"/data/token"</c>,
    /// <c>"/data/variables/a.b"</c> (a key may contain a dot), <c>"/data/list/0"</c>,
    /// <c>"/code"</c>; <see cref="Pointer"/> builds one from keys that contain <c>/</c> or
    /// <c>~</c>. The getters return null when the value is absent or of another type, and leave
    /// <see cref="Library.LastErrorMessage"/> as it was; a path that is not a pointer (not
    /// starting with <c>/</c>) throws <see cref="VerifyException"/> with
    /// <see cref="ResultCode.InvalidArgument"/>. Thread-safety: several threads may read one
    /// reply at once.
    /// </remarks>
    public class Reply
    {
        private readonly ReplyHandle handle;
        private readonly ResultCode code;
        private readonly string message;

        /// <summary>
        /// A reply over a handle (from a native call's <c>out</c>, or another reply's
        /// <see cref="Handle"/>); the reply keeps the handle, which the garbage collector frees
        /// when neither is reachable any more (or disposing the handle frees it at once: the
        /// reply's getters then throw <see cref="ObjectDisposedException"/>).
        /// </summary>
        public Reply(ReplyHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
            code = (ResultCode)handle.With(p => NativeMethods.verify_reply_code(p));
            message = handle.With(p => Utf8.FromNative(NativeMethods.verify_reply_message(p))) ?? string.Empty;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public ReplyHandle Handle
        {
            get { return handle; }
        }

        /// <summary>The reply's code: 200 success, 201 pending, 202 an offline verdict, or the server's refusal.</summary>
        public ResultCode Code
        {
            get { return code; }
        }

        /// <summary>True when <see cref="Code"/> is 200.</summary>
        public bool IsOk
        {
            get { return code == ResultCode.Ok; }
        }

        /// <summary>True when <see cref="Code"/> is 201: a social login the user has not authorized yet; poll again.</summary>
        public bool IsPending
        {
            get { return code == ResultCode.Pending; }
        }

        /// <summary>
        /// True for an offline verdict (<see cref="ResultCode.Offline"/>): the server could not
        /// be reached and the stored verdict of the last good login answered. Its fields are
        /// those of the server's last confirmed login, without the token; see <see cref="Offline"/>.
        /// </summary>
        public bool IsOffline
        {
            get { return code == ResultCode.Offline; }
        }

        /// <summary>True for 200 or an offline verdict: the program may run.</summary>
        public bool IsLicensed
        {
            get { return IsOk || IsOffline; }
        }

        /// <summary>True when the server refused the call: any code but 200, 201 and 202.</summary>
        public bool IsRefusal
        {
            get { return code != ResultCode.Ok && code != ResultCode.Pending && code != ResultCode.Offline; }
        }

        /// <summary>
        /// True when the server refused the program's configuration rather than a licence: 1001
        /// (program not found), 1010 (signature error), 1011 (AppKey wrong), 1012 (program not
        /// approved). The developer fixes these, not the user.
        /// </summary>
        public bool IsConfigurationRefusal
        {
            get { return IsConfigurationCode(code); }
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
                    int result = NativeMethods.verify_reply_offline(p, out confirmed, out graceEnd, out reason);
                    if (result == (int)ResultCode.NoSuchField)
                    {
                        return null;
                    }
                    Args.Ok(result, 0);
                    return new OfflineInfo(DateTimeOffset.FromUnixTimeSeconds(confirmed),
                        DateTimeOffset.FromUnixTimeSeconds(graceEnd), (ResultCode)reason);
                });
            }
        }

        /// <summary>The server's message (localized; may be empty); for an offline verdict, why the network failed.</summary>
        public string Message
        {
            get { return message; }
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
        /// The throwing form: returns this reply when the server answered 200, 201 (pending) or
        /// the stored verdict answered offline (202), and throws
        /// <see cref="VerifyRefusedException"/> (<see cref="VerifyConfigurationException"/> for
        /// 1001, 1010, 1011, 1012) with the code, message and remark for any other code. Each
        /// typed reply has its own EnsureOk returning its own type.
        /// </summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public Reply EnsureOk()
        {
            Check();
            return this;
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
            Args.NotNull(pointer, "pointer");
            return handle.With(p =>
            {
                IntPtr value;
                return Present(NativeMethods.verify_reply_str(p, pointer, out value)) ? Utf8.FromNative(value) : null;
            });
        }

        /// <summary>The value at <paramref name="pointer"/> as an integer, or null when absent or not an integer (strings are not parsed).</summary>
        public long? GetInt64(string pointer)
        {
            Args.NotNull(pointer, "pointer");
            return handle.With(p =>
            {
                long value;
                return Present(NativeMethods.verify_reply_int(p, pointer, out value)) ? value : (long?)null;
            });
        }

        /// <summary>The value at <paramref name="pointer"/> as a boolean, or null when absent or not a boolean.</summary>
        public bool? GetBool(string pointer)
        {
            Args.NotNull(pointer, "pointer");
            return handle.With(p =>
            {
                int value;
                return Present(NativeMethods.verify_reply_bool(p, pointer, out value)) ? value != 0 : (bool?)null;
            });
        }

        /// <summary>
        /// The value at <paramref name="pointer"/> as a time of the service
        /// (<c>YYYY-MM-DD HH:mm:ss</c> in UTC+08:00) with that offset, or null when absent, empty
        /// or in another form (<see cref="GetString"/> still gives the text).
        /// </summary>
        public DateTimeOffset? GetTime(string pointer)
        {
            return ServiceTime.Parse(GetString(pointer));
        }

        /// <summary>
        /// The object at <paramref name="pointer"/> as name to text (strings as they are, numbers
        /// and booleans in JSON notation; null, objects and arrays left out), or null when
        /// absent or not an object.
        /// </summary>
        public IReadOnlyDictionary<string, string> GetStringMap(string pointer)
        {
            string json = GetJson(pointer);
            return json == null ? null : JsonText.StringMap(json);
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

        /// <summary>The code, its description and the message.</summary>
        public override string ToString()
        {
            return string.Format("{0} {1}: {2}", (int)code, Library.Describe(code), message);
        }

        /// <summary>Whether <paramref name="code"/> is 1001, 1010, 1011 or 1012 (a refusal of the program's configuration).</summary>
        public static bool IsConfigurationCode(ResultCode code)
        {
            return code == ResultCode.ProgramNotFound || code == ResultCode.SignatureError
                || code == ResultCode.AppKeyWrong || code == ResultCode.NotApproved;
        }

        /// <summary>Throws the refusal of this reply, if it is one.</summary>
        protected void Check()
        {
            if (IsRefusal)
            {
                throw VerifyRefusedException.Of(this);
            }
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

    // BEGIN GENERATED: replies (tests/generate/csharp.rs; do not edit)
    /// <summary>
    /// Success of <c>SingleLogin</c> (card mode).
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class CardLoginReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public CardLoginReply(ReplyHandle handle)
            : base(handle)
        {
            Token = GetString("/data/token");
            Status = GetString("/data/status");
            IsTimes = GetBool("/data/is_times");
            CardType = GetString("/data/card_type");
            ExpireAt = GetTime("/data/expire_at");
            Total = GetInt64("/data/total");
            Used = GetInt64("/data/used");
            Remaining = GetInt64("/data/remaining");
        }

        /// <summary><c>token</c>: the session token (40 characters) for a card heartbeat. Null when absent.</summary>
        public string Token { get; private set; }

        /// <summary><c>status</c>: <c>active</c>. Null when absent.</summary>
        public string Status { get; private set; }

        /// <summary><c>is_times</c>: true for a count card. Null when absent.</summary>
        public bool? IsTimes { get; private set; }

        /// <summary><c>card_type</c>: the card type's display name. Null when absent.</summary>
        public string CardType { get; private set; }

        /// <summary><c>expire_at</c>: <c>YYYY-MM-DD HH:mm:ss</c>; far future for a count card. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary><c>total</c>: uses the count card was sold with (count cards only). Null when absent.</summary>
        public long? Total { get; private set; }

        /// <summary><c>used</c>: uses consumed so far (count cards only). Null when absent.</summary>
        public long? Used { get; private set; }

        /// <summary><c>remaining</c>: uses left; 0 makes the card invalid (count cards only). Null when absent.</summary>
        public long? Remaining { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new CardLoginReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of a password <c>UserLogin</c> without a card, or of a social login.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class UserSessionReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public UserSessionReply(ReplyHandle handle)
            : base(handle)
        {
            Username = GetString("/data/username");
            DeviceId = GetString("/data/device_id");
            ExpireAt = GetTime("/data/expire_at");
            Status = GetString("/data/status");
            Token = GetString("/data/token");
        }

        /// <summary><c>username</c>: the account's username. Null when absent.</summary>
        public string Username { get; private set; }

        /// <summary><c>device_id</c>: the bound machine code; empty if unbound. Null when absent.</summary>
        public string DeviceId { get; private set; }

        /// <summary><c>expire_at</c>: <c>YYYY-MM-DD HH:mm:ss</c>. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary><c>status</c>: <c>active</c>. Null when absent.</summary>
        public string Status { get; private set; }

        /// <summary><c>token</c>: the session token (40 characters) for a user heartbeat. Null when absent.</summary>
        public string Token { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new UserSessionReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>UserLogin</c> with a card (the renewal branch): no token.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class RenewalReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public RenewalReply(ReplyHandle handle)
            : base(handle)
        {
            Username = GetString("/data/username");
            ExpireAt = GetTime("/data/expire_at");
            AddedDays = GetInt64("/data/added_days");
            Status = GetString("/data/status");
        }

        /// <summary><c>username</c>: the account's username. Null when absent.</summary>
        public string Username { get; private set; }

        /// <summary><c>expire_at</c>: the new expiry. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary><c>added_days</c>: days added. Null when absent.</summary>
        public long? AddedDays { get; private set; }

        /// <summary><c>status</c>: <c>active</c>. Null when absent.</summary>
        public string Status { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new RenewalReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>UserRegin</c>. Without a card the account is created already expired and
    /// no token is returned; with a duration card it is active and has a token.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class RegistrationReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public RegistrationReply(ReplyHandle handle)
            : base(handle)
        {
            Username = GetString("/data/username");
            UserId = GetInt64("/data/user_id");
            ExpireAt = GetTime("/data/expire_at");
            Token = GetString("/data/token");
            Status = GetString("/data/status");
        }

        /// <summary><c>username</c>: the account's username. Null when absent.</summary>
        public string Username { get; private set; }

        /// <summary><c>user_id</c>: the account identifier. Null when absent.</summary>
        public long? UserId { get; private set; }

        /// <summary><c>expire_at</c>: the expiry (the registration time without a card). The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary><c>token</c>: the session token, when registered with a card. Null when absent.</summary>
        public string Token { get; private set; }

        /// <summary><c>status</c>: <c>active</c>, when registered with a card. Null when absent.</summary>
        public string Status { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new RegistrationReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>UpdatePwd</c>.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class PasswordChangedReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public PasswordChangedReply(ReplyHandle handle)
            : base(handle)
        {
            Username = GetString("/data/username");
        }

        /// <summary><c>username</c>: the account's username. Null when absent.</summary>
        public string Username { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new PasswordChangedReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>ChangeBind</c>.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class RebindReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public RebindReply(ReplyHandle handle)
            : base(handle)
        {
            Username = GetString("/data/username");
            DeviceId = GetString("/data/device_id");
            BindCount = GetInt64("/data/bind_count");
            BindLimit = GetInt64("/data/bind_limit");
        }

        /// <summary><c>username</c>: the account's username. Null when absent.</summary>
        public string Username { get; private set; }

        /// <summary><c>device_id</c>: the new machine code. Null when absent.</summary>
        public string DeviceId { get; private set; }

        /// <summary><c>bind_count</c>: rebinds used, this one included. Null when absent.</summary>
        public long? BindCount { get; private set; }

        /// <summary><c>bind_limit</c>: the product's rebind limit (0: no limit). Null when absent.</summary>
        public long? BindLimit { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new RebindReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>UserHeartbeat</c>.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class HeartbeatReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public HeartbeatReply(ReplyHandle handle)
            : base(handle)
        {
            ExpireAt = GetTime("/data/expire_at");
            Status = GetString("/data/status");
            Msg = GetString("/data/msg");
        }

        /// <summary><c>expire_at</c>: the session's expiry. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary><c>status</c>: <c>active</c>. Null when absent.</summary>
        public string Status { get; private set; }

        /// <summary><c>msg</c>: a back-office message, delivered once; empty when none. Null when absent.</summary>
        public string Msg { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new HeartbeatReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>UserRecharge</c>.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class RechargeReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public RechargeReply(ReplyHandle handle)
            : base(handle)
        {
            Username = GetString("/data/username");
            ExpireAt = GetTime("/data/expire_at");
            AddedDays = GetString("/data/added_days");
            Status = GetString("/data/status");
        }

        /// <summary><c>username</c>: the account's username. Null when absent.</summary>
        public string Username { get; private set; }

        /// <summary><c>expire_at</c>: the new expiry. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary><c>added_days</c>: the amount added with its unit (a string in this action). Null when absent.</summary>
        public string AddedDays { get; private set; }

        /// <summary><c>status</c>: <c>active</c>. Null when absent.</summary>
        public string Status { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new RechargeReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>GetLatestVersion</c>.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class LatestVersionReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public LatestVersionReply(ReplyHandle handle)
            : base(handle)
        {
            Version = GetString("/data/version");
            Changelog = GetString("/data/changelog");
            DownloadUrl = GetString("/data/download_url");
            ForceUpdate = GetBool("/data/force_update");
            HasUpdate = GetBool("/data/has_update");
        }

        /// <summary><c>version</c>: the latest version number. Null when absent.</summary>
        public string Version { get; private set; }

        /// <summary><c>changelog</c>: its change log. Null when absent.</summary>
        public string Changelog { get; private set; }

        /// <summary><c>download_url</c>: where to download it. Null when absent.</summary>
        public string DownloadUrl { get; private set; }

        /// <summary><c>force_update</c>: whether the back office requires the update. Null when absent.</summary>
        public bool? ForceUpdate { get; private set; }

        /// <summary><c>has_update</c>: whether it is newer than the version given. Null when absent.</summary>
        public bool? HasUpdate { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new LatestVersionReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>GetBulletin</c>.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class BulletinReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public BulletinReply(ReplyHandle handle)
            : base(handle)
        {
            Bulletin = GetString("/data/bulletin");
            UpdatedAt = GetTime("/data/updated_at");
        }

        /// <summary><c>bulletin</c>: the bulletin text. Null when absent.</summary>
        public string Bulletin { get; private set; }

        /// <summary><c>updated_at</c>: when it was last changed. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? UpdatedAt { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new BulletinReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>GetVariable</c> with a name.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class VariableReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public VariableReply(ReplyHandle handle)
            : base(handle)
        {
            Name = GetString("/data/name");
            Value = GetString("/data/value");
        }

        /// <summary><c>name</c>: the variable's name. Null when absent.</summary>
        public string Name { get; private set; }

        /// <summary><c>value</c>: its value. Null when absent.</summary>
        public string Value { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new VariableReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>GetVariable</c> without a name: every variable.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class VariablesReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public VariablesReply(ReplyHandle handle)
            : base(handle)
        {
            Variables = GetStringMap("/data/variables");
        }

        /// <summary><c>variables</c>: every variable, name to value. Null when absent.</summary>
        public IReadOnlyDictionary<string, string> Variables { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new VariablesReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>GetUserInfo</c>.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class UserInfoReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public UserInfoReply(ReplyHandle handle)
            : base(handle)
        {
            Username = GetString("/data/username");
            UserId = GetInt64("/data/user_id");
            DeviceId = GetString("/data/device_id");
            ExpireAt = GetTime("/data/expire_at");
            Status = GetString("/data/status");
            BindCount = GetInt64("/data/bind_count");
            BindLimit = GetInt64("/data/bind_limit");
            CreatedAt = GetTime("/data/created_at");
        }

        /// <summary><c>username</c>: the account's username. Null when absent.</summary>
        public string Username { get; private set; }

        /// <summary><c>user_id</c>: the account identifier. Null when absent.</summary>
        public long? UserId { get; private set; }

        /// <summary><c>device_id</c>: the bound machine code; empty if unbound. Null when absent.</summary>
        public string DeviceId { get; private set; }

        /// <summary><c>expire_at</c>: the expiry. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary><c>status</c>: <c>active</c>, <c>expired</c> or <c>banned</c>. Null when absent.</summary>
        public string Status { get; private set; }

        /// <summary><c>bind_count</c>: rebinds used. Null when absent.</summary>
        public long? BindCount { get; private set; }

        /// <summary><c>bind_limit</c>: the product's rebind limit (0: no limit). Null when absent.</summary>
        public long? BindLimit { get; private set; }

        /// <summary><c>created_at</c>: registration time. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? CreatedAt { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new UserInfoReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Success of <c>GetCardInfo</c>: the card's state, consuming nothing.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class CardInfoReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public CardInfoReply(ReplyHandle handle)
            : base(handle)
        {
            Card = GetString("/data/card");
            CardType = GetString("/data/card_type");
            Status = GetString("/data/status");
            IsTimes = GetBool("/data/is_times");
            DeviceId = GetString("/data/device_id");
            ActivatedAt = GetTime("/data/activated_at");
            ExpireAt = GetTime("/data/expire_at");
            Duration = GetInt64("/data/duration");
            DurationType = GetString("/data/duration_type");
            Total = GetInt64("/data/total");
            Used = GetInt64("/data/used");
            Remaining = GetInt64("/data/remaining");
        }

        /// <summary><c>card</c>: the card key. Null when absent.</summary>
        public string Card { get; private set; }

        /// <summary><c>card_type</c>: the card type's display name. Null when absent.</summary>
        public string CardType { get; private set; }

        /// <summary><c>status</c>: <c>unused</c>, <c>active</c>, <c>expired</c>, <c>exhausted</c>, <c>used</c>, <c>disabled</c> or <c>refunded</c>. Null when absent.</summary>
        public string Status { get; private set; }

        /// <summary><c>is_times</c>: true for a count card. Null when absent.</summary>
        public bool? IsTimes { get; private set; }

        /// <summary><c>device_id</c>: the bound machine code; empty when not bound. Null when absent.</summary>
        public string DeviceId { get; private set; }

        /// <summary><c>activated_at</c>: first use; empty when unused. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? ActivatedAt { get; private set; }

        /// <summary><c>expire_at</c>: expiry; empty when unused. The service's time, with its offset (+08:00). Null when absent.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary><c>duration</c>: duration in <c>duration_type</c> units. Null when absent.</summary>
        public long? Duration { get; private set; }

        /// <summary><c>duration_type</c>: <c>day</c> or <c>hour</c>. Null when absent.</summary>
        public string DurationType { get; private set; }

        /// <summary><c>total</c>: uses the count card was sold with (count cards only). Null when absent.</summary>
        public long? Total { get; private set; }

        /// <summary><c>used</c>: uses consumed so far (count cards only). Null when absent.</summary>
        public long? Used { get; private set; }

        /// <summary><c>remaining</c>: uses left (count cards only). Null when absent.</summary>
        public long? Remaining { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new CardInfoReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Step 1 of a social login: the authorization URL to show, and the state to poll with.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class SocialStartReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public SocialStartReply(ReplyHandle handle)
            : base(handle)
        {
            Url = GetString("/data/url");
            State = GetString("/data/state");
        }

        /// <summary><c>url</c>: the external authorization link. Null when absent.</summary>
        public string Url { get; private set; }

        /// <summary><c>state</c>: the value to pass to the social poll or wait. Null when absent.</summary>
        public string State { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new SocialStartReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    /// <summary>
    /// Step 1 of a social registration: the authorization URL. The account is created when
    /// the user completes the authorization.
    /// The fields of the spec are properties, each null when the server left it out or sent
    /// another type; every field is also readable by JSON Pointer (<see cref="Reply"/>).
    /// </summary>
    public sealed class SocialRegistrationReply : Reply
    {
        /// <summary>The typed reply over a native reply (see <see cref="Reply"/>); the fields are read now.</summary>
        public SocialRegistrationReply(ReplyHandle handle)
            : base(handle)
        {
            Url = GetString("/data/url");
        }

        /// <summary><c>url</c>: the external authorization link (its <c>state</c> parameter is the state). Null when absent.</summary>
        public string Url { get; private set; }

        /// <summary><see cref="Reply.EnsureOk"/>, giving this reply as its own type.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
        public new SocialRegistrationReply EnsureOk()
        {
            Check();
            return this;
        }
    }

    // END GENERATED: replies

    /// <summary>
    /// Settings of a <see cref="Client"/>: a plain object whose properties start at the
    /// library's defaults (no mirror, Mozilla's roots, the system's proxy, plain http only to
    /// loopback, timeouts 10 s and 30 s, an attempt delay of 250 ms, no state folder, no offline
    /// verdicts, no log, refusals returned rather than thrown). A client reads them when it is
    /// made, so they may be changed or reused afterwards. No Dispose. A value out of range
    /// throws <see cref="ArgumentOutOfRangeException"/> when set; what the library refuses (a
    /// mirror that is not a URL, a pin that does not parse) throws
    /// <see cref="ArgumentException"/> from the <see cref="Client"/> constructor.
    /// </summary>
    /// <example>
    /// <code>
    /// var options = new ClientOptions
    /// {
    ///     ConnectTimeout = TimeSpan.FromSeconds(5),
    ///     StateFolder = ClientOptions.DefaultStateFolder,
    ///     OfflineGrace = TimeSpan.FromDays(7),
    ///     ThrowOnRefusal = true,
    /// };
    /// options.Mirrors.Add("https://backup.example.com");
    /// </code>
    /// </example>
    public sealed class ClientOptions
    {
        /// <summary>The value of <see cref="StateFolder"/> that means the per-user default folder: "".</summary>
        public const string DefaultStateFolder = "";

        private TimeSpan connectTimeout = TimeSpan.FromSeconds(10);
        private TimeSpan callTimeout = TimeSpan.FromSeconds(30);
        private TimeSpan attemptDelay = TimeSpan.FromMilliseconds(250);
        private TimeSpan? offlineGrace;
        private TimeSpan? startBudget;
        private TimeSpan? clockTolerance;

        /// <summary>The defaults.</summary>
        public ClientOptions()
        {
            Mirrors = new List<string>();
            RootPems = new List<string>();
            RootFiles = new List<string>();
            Pins = new List<string>();
            Addresses = new List<KeyValuePair<string, string>>();
            Trust = TrustStores.Mozilla;
            Proxy = ProxyMode.System;
        }

        /// <summary>
        /// Other base URLs of the same service. A new connection races them with the first (see
        /// <see cref="AttemptDelay"/>); a request that may have reached a server is never sent to
        /// another.
        /// </summary>
        public IList<string> Mirrors { get; private set; }

        /// <summary>
        /// The trust stores: <see cref="TrustStores.Mozilla"/> (the default),
        /// <see cref="TrustStores.System"/>, both, or <see cref="TrustStores.None"/> (then only
        /// <see cref="RootPems"/>, <see cref="RootFiles"/> and <see cref="Pins"/> are trusted).
        /// Verification cannot be turned off.
        /// </summary>
        public TrustStores Trust { get; set; }

        /// <summary>PEM texts whose certificates are trusted as roots, in addition to the stores.</summary>
        public IList<string> RootPems { get; private set; }

        /// <summary>PEM files whose certificates are trusted as roots (read when the client is made).</summary>
        public IList<string> RootFiles { get; private set; }

        /// <summary>
        /// Pinned keys of the service's certificate chain: base64 of the SHA-256 of a DER
        /// SubjectPublicKeyInfo (a <c>sha256/</c> prefix is accepted). A pinned self-signed
        /// certificate works without a CA; a chain without a pinned key fails with
        /// <see cref="ResultCode.Pin"/>.
        /// </summary>
        public IList<string> Pins { get; private set; }

        /// <summary>How the client reaches the service: the system's settings (the default), none, or <see cref="ProxyUrl"/>. Loopback never goes through a proxy.</summary>
        public ProxyMode Proxy { get; set; }

        /// <summary>For <see cref="ProxyMode.Url"/>: http://, https:// (CONNECT), socks5:// or socks5h://, with an optional user:password@.</summary>
        public string ProxyUrl { get; set; }

        /// <summary>
        /// Whether plain http:// to a host that is not loopback is allowed (default false): the
        /// api password travels in an HTTP header, readable by anyone on the path.
        /// </summary>
        public bool AllowInsecureHttp { get; set; }

        /// <summary>The connect timeout: 1 ms to 4294967295 ms (default 10 s).</summary>
        /// <exception cref="ArgumentOutOfRangeException">Out of that range.</exception>
        public TimeSpan ConnectTimeout
        {
            get { return connectTimeout; }
            set { Args.Milliseconds(value, "value"); connectTimeout = value; }
        }

        /// <summary>
        /// The whole-call timeout: 1 ms to 4294967295 ms (default 30 s). It bounds everything one
        /// call does (a lazy Init, a re-Init, connects, a resend).
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Out of that range.</exception>
        public TimeSpan CallTimeout
        {
            get { return callTimeout; }
            set { Args.Milliseconds(value, "value"); callTimeout = value; }
        }

        /// <summary>
        /// The attempt delay of racing connections (RFC 8305; default 250 ms, at most 10 s, zero
        /// starts every attempt at once): every address of the host name (IPv6 and IPv4 in turn)
        /// and every mirror gets an attempt when the earlier ones have not connected within it;
        /// the first to finish TCP and TLS wins. No request is ever sent twice because of it.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Negative or over 10 s.</exception>
        public TimeSpan AttemptDelay
        {
            get
            {
                return attemptDelay;
            }

            set
            {
                if (value < TimeSpan.Zero || value > TimeSpan.FromSeconds(10))
                {
                    throw new ArgumentOutOfRangeException("value", value, "The attempt delay must be between 0 and 10 seconds.");
                }
                attemptDelay = value;
            }
        }

        /// <summary>
        /// Fixed addresses (IPv4 or IPv6) for host names, like curl's --resolve: host to ip. A
        /// listed name is never looked up in DNS, and TLS still checks it.
        /// </summary>
        public IList<KeyValuePair<string, string>> Addresses { get; private set; }

        /// <summary>
        /// The client's state folder, the one place for state that outlives the process (the
        /// remembered winning line of racing connections, the last good verdict): a folder,
        /// <see cref="DefaultStateFolder"/> ("") for the per-user default, or null (the default)
        /// for none: nothing is written. Each file there is sealed for this program and machine.
        /// </summary>
        public string StateFolder { get; set; }

        /// <summary>
        /// Offline verdicts (a <see cref="StateFolder"/> needed): a login that cannot reach the
        /// server answers from the stored verdict (<see cref="Reply.IsOffline"/>) when the server
        /// confirmed it less than this long ago. Null (the default) or zero: off. Whole seconds.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Negative or over 4294967295 s.</exception>
        public TimeSpan? OfflineGrace
        {
            get { return offlineGrace; }
            set { if (value.HasValue) { Args.Seconds(value.Value, "value"); } offlineGrace = value; }
        }

        /// <summary>
        /// A start that never waits long (offline verdicts needed): past this budget a login
        /// whose stored verdict may answer gets it, and the login goes on in the background
        /// (follow it with <see cref="Client.StartKeeper(Reply, KeeperOptions)"/>). Null (the
        /// default): no budget.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Negative or over 4294967295 ms.</exception>
        public TimeSpan? StartBudget
        {
            get { return startBudget; }
            set { if (value.HasValue) { Args.Milliseconds(value.Value, "value", 0); } startBudget = value; }
        }

        /// <summary>
        /// How far the local clock may be behind the latest server time seen before offline
        /// verdicts are refused (<see cref="ResultCode.ClockBack"/>); null: 10 minutes. Whole seconds.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Negative or over 4294967295 s.</exception>
        public TimeSpan? ClockTolerance
        {
            get { return clockTolerance; }
            set { if (value.HasValue) { Args.Seconds(value.Value, "value"); } clockTolerance = value; }
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
        public Action<LogLevel, string> OnLog { get; set; }

        /// <summary>
        /// The throwing form for every call of the client (default false): a refusal by the
        /// server throws <see cref="VerifyRefusedException"/> (code, message, remark;
        /// <see cref="VerifyConfigurationException"/> for 1001, 1010, 1011, 1012) instead of
        /// coming back as a reply. Pending (201) and offline verdicts (202) are not refusals.
        /// </summary>
        public bool ThrowOnRefusal { get; set; }

        /// <summary>Adds a mirror (<see cref="Mirrors"/>).</summary>
        public void AddMirror(string baseUrl)
        {
            Args.Required(baseUrl, "baseUrl");
            Mirrors.Add(baseUrl);
        }

        /// <summary>Adds a fixed address for a host name (<see cref="Addresses"/>).</summary>
        public void AddAddress(string host, string ip)
        {
            Args.Required(host, "host");
            Args.Required(ip, "ip");
            Addresses.Add(new KeyValuePair<string, string>(host, ip));
        }

        /// <summary>
        /// These settings as a native options handle (verify_client_options), for
        /// <see cref="ClientHandle.Create"/>. The caller owns it.
        /// </summary>
        /// <exception cref="ArgumentException">A setting the library refuses (the message says which and why).</exception>
        public ClientOptionsHandle ToHandle()
        {
            ClientOptionsHandle handle = ClientOptionsHandle.Create();
            try
            {
                handle.With(p =>
                {
                    foreach (string mirror in Mirrors)
                    {
                        Args.Required(mirror, "options.Mirrors");
                        Setting(NativeMethods.verify_client_options_add_mirror(p, mirror));
                    }
                    Setting(NativeMethods.verify_client_options_set_trust(p, (uint)Trust));
                    foreach (string pem in RootPems)
                    {
                        Args.Required(pem, "options.RootPems");
                        Setting(NativeMethods.verify_client_options_add_root_pem(p, pem));
                    }
                    foreach (string file in RootFiles)
                    {
                        Args.Required(file, "options.RootFiles");
                        Setting(NativeMethods.verify_client_options_add_root_file(p, file));
                    }
                    foreach (string pin in Pins)
                    {
                        Args.Required(pin, "options.Pins");
                        Setting(NativeMethods.verify_client_options_add_pin(p, pin));
                    }
                    Args.Optional(ProxyUrl, "options.ProxyUrl");
                    Setting(NativeMethods.verify_client_options_set_proxy(p, (int)Proxy,
                        Proxy == ProxyMode.Url ? ProxyUrl : null));
                    Setting(NativeMethods.verify_client_options_allow_insecure_http(p, AllowInsecureHttp ? 1 : 0));
                    Setting(NativeMethods.verify_client_options_set_timeouts(p,
                        Args.Milliseconds(connectTimeout, "ConnectTimeout"), Args.Milliseconds(callTimeout, "CallTimeout")));
                    Setting(NativeMethods.verify_client_options_set_attempt_delay(p,
                        Args.Milliseconds(attemptDelay, "AttemptDelay", 0)));
                    foreach (KeyValuePair<string, string> address in Addresses)
                    {
                        Args.Required(address.Key, "options.Addresses");
                        Args.Required(address.Value, "options.Addresses");
                        Setting(NativeMethods.verify_client_options_add_address(p, address.Key, address.Value));
                    }
                    if (StateFolder != null)
                    {
                        Args.Optional(StateFolder, "options.StateFolder");
                        Setting(NativeMethods.verify_client_options_set_state_folder(p,
                            StateFolder.Length == 0 ? null : StateFolder));
                    }
                    if (offlineGrace.HasValue)
                    {
                        Setting(NativeMethods.verify_client_options_set_offline_grace(p,
                            Args.Seconds(offlineGrace.Value, "OfflineGrace")));
                    }
                    if (startBudget.HasValue)
                    {
                        Setting(NativeMethods.verify_client_options_set_start_budget(p,
                            Args.Milliseconds(startBudget.Value, "StartBudget", 0)));
                    }
                    if (clockTolerance.HasValue)
                    {
                        Setting(NativeMethods.verify_client_options_set_clock_tolerance(p,
                            Args.Seconds(clockTolerance.Value, "ClockTolerance")));
                    }
                    return 0;
                });
                handle.SetOnLog(OnLog);
                return handle;
            }
            catch
            {
                handle.Dispose();
                throw;
            }
        }

        /// <summary>A setter's code: 200, or an <see cref="ArgumentException"/> with the library's reason.</summary>
        private static void Setting(int code)
        {
            if (code == (int)ResultCode.Ok)
            {
                return;
            }
            VerifyException error = VerifyException.FromLastError((ResultCode)code);
            if (code == (int)ResultCode.InvalidArgument)
            {
                throw new ArgumentException(error.Message, "options", error);
            }
            throw error;
        }
    }

    /// <summary>
    /// Settings of a keeper: a plain object whose properties start at the library's defaults
    /// (a heartbeat every 5 minutes, 15 minutes of grace, no IP). A keeper reads them when it
    /// starts. No Dispose.
    /// </summary>
    public sealed class KeeperOptions
    {
        private TimeSpan interval = TimeSpan.FromMinutes(5);
        private TimeSpan grace = TimeSpan.FromMinutes(15);

        /// <summary>
        /// Time between heartbeats: at least 1 s (default 5 minutes, the spec's). A small random
        /// jitter is added. The first heartbeat of <see cref="Client.StartKeeper(string, SessionKind, KeeperOptions)"/>
        /// is sent at once, that of <see cref="Client.StartKeeper(Reply, KeeperOptions)"/> one
        /// interval after the start (the login's token is fresh).
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Under 1 s or over 4294967295 ms.</exception>
        public TimeSpan Interval
        {
            get
            {
                return interval;
            }

            set
            {
                Args.Milliseconds(value, "value", 1000);
                interval = value;
            }
        }

        /// <summary>
        /// How long the session stays usable while heartbeats fail for other reasons than its
        /// end (network down), counted from the first failure: at least 1 ms (default 15
        /// minutes). Retries back off 1 s, 2 s, 4 s... up to 60 s or the interval.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">Under 1 ms or over 4294967295 ms.</exception>
        public TimeSpan Grace
        {
            get
            {
                return grace;
            }

            set
            {
                Args.Milliseconds(value, "value");
                grace = value;
            }
        }

        /// <summary>The client IP reported with each heartbeat; null or "" for none (the default).</summary>
        public string Ip { get; set; }

        /// <summary>
        /// These settings as a native options handle (verify_keeper_options), for
        /// <see cref="KeeperHandle.Start(ClientHandle, string, SessionKind, KeeperOptionsHandle)"/>.
        /// The caller owns it.
        /// </summary>
        public KeeperOptionsHandle ToHandle()
        {
            Args.Optional(Ip, "Ip");
            KeeperOptionsHandle handle = KeeperOptionsHandle.Create();
            try
            {
                handle.With(p =>
                {
                    Args.Ok(NativeMethods.verify_keeper_options_set_interval(p, Args.Milliseconds(interval, "Interval", 1000)));
                    Args.Ok(NativeMethods.verify_keeper_options_set_grace(p, Args.Milliseconds(grace, "Grace")));
                    if (!string.IsNullOrEmpty(Ip))
                    {
                        Args.Ok(NativeMethods.verify_keeper_options_set_ip(p, Ip));
                    }
                    return 0;
                });
                return handle;
            }
            catch
            {
                handle.Dispose();
                throw;
            }
        }
    }

    /// <summary>
    /// A session keeper (<c>verify_keeper</c>): it sends a heartbeat every interval on its own
    /// thread and raises .NET events (<see cref="Alive"/>, <see cref="Message"/>,
    /// <see cref="Trouble"/>, <see cref="Ended"/>, <see cref="Offline"/>, <see cref="Online"/>,
    /// and <see cref="EventReceived"/> for every event), and its <see cref="Completion"/> task
    /// completes when the session ends. Started by <see cref="Client.StartKeeper(string, SessionKind, KeeperOptions)"/>
    /// or <see cref="Client.StartKeeper(Reply, KeeperOptions)"/>, or made with a constructor
    /// and started with <see cref="Start"/> after subscribing (then no event is missed).
    /// </summary>
    /// <example>
    /// <code>
    /// Keeper keeper = client.StartKeeper(login);
    /// keeper.Ended += (sender, e) => Console.WriteLine("session over: " + e.Code + " " + e.Remark);
    /// keeper.Message += (sender, e) => Console.WriteLine("message: " + e.Text);
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
    /// <para>Back-office messages that no handler receives (no <see cref="Message"/> nor
    /// <see cref="EventReceived"/> subscriber) are queued and handed out by <see cref="Status"/>,
    /// each once.</para>
    /// <para>A started keeper runs until <see cref="Stop"/>, <see cref="Dispose"/>, the end of its
    /// session or the disposal of its client; it is not collected meanwhile. It keeps its client
    /// from being collected, but disposing the client stops it. Dispose (stop + free) is
    /// idempotent, may run from any thread, also after the client was disposed, and also from
    /// inside a handler (the free then completes on a thread-pool thread once the handler
    /// returned). After Dispose, the members throw <see cref="ObjectDisposedException"/>.</para>
    /// </remarks>
    public sealed class Keeper : IDisposable
    {
        private readonly object gate = new object();
        private readonly Client client;
        private readonly KeeperOptions options;
        private readonly Func<ClientHandle, IntPtr, KeeperHandle> start;
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
        public Keeper(Client client, string token, SessionKind kind, KeeperOptions options = null)
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
        /// A keeper of the session of a login's reply on <paramref name="client"/>, not started
        /// yet: subscribe to its events, then <see cref="Start"/> (see
        /// <see cref="Client.StartKeeper(Reply, KeeperOptions)"/>).
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="client"/> or <paramref name="login"/> is null.</exception>
        /// <exception cref="ArgumentException">The reply is neither a login's success (200) nor an offline verdict (202).</exception>
        public Keeper(Client client, Reply login, KeeperOptions options = null)
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
        public Keeper(KeeperHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
        }

        /// <summary>A heartbeat succeeded: <see cref="KeeperEventArgs.ExpireAt"/> is the session's expiry.</summary>
        public event EventHandler<KeeperEventArgs> Alive;

        /// <summary>A back-office message, in <see cref="KeeperEventArgs.Text"/>, delivered once.</summary>
        public event EventHandler<KeeperEventArgs> Message;

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
                    all.AddRange(status.Messages);
                    messages.Clear();
                    status.ReplaceMessages(all.ToArray());
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
                    EventHandler<KeeperEventArgs> handlers = Message;
                    if (handlers == null && EventReceived == null)
                    {
                        lock (messages)
                        {
                            messages.Enqueue(e.Text ?? string.Empty);
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
                ExpireAtText = Optional(NativeMethods.verify_keeper_status_expire_at(p, out text), text);
                ExpireAt = ServiceTime.Parse(ExpireAtText);
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

        /// <summary>The session's expiry from the last successful heartbeat (the service's time, UTC+08:00), or null before the first.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary>The session's expiry as the server wrote it (<c>YYYY-MM-DD HH:mm:ss</c>, UTC+08:00), or null.</summary>
        public string ExpireAtText { get; private set; }

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

        /// <summary>The messages of the snapshot and those the keeper queued itself.</summary>
        internal void ReplaceMessages(string[] all)
        {
            Messages = all;
        }

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
    /// One event of a <see cref="Keeper"/>, copied out of the library's <c>verify_event</c>:
    /// it stays valid after the handler returns.
    /// </summary>
    public sealed class KeeperEventArgs : EventArgs
    {
        /// <summary>An event as given (for hosts that test their handlers); <paramref name="expireAt"/> is the service's text.</summary>
        public KeeperEventArgs(EventKind kind, ResultCode code, string message, string remark,
            string expireAt, string text, DateTimeOffset? graceEnd = null)
        {
            Kind = kind;
            Code = code;
            Message = message ?? string.Empty;
            Remark = remark;
            ExpireAtText = expireAt;
            ExpireAt = ServiceTime.Parse(expireAt);
            Text = text;
            GraceEnd = graceEnd;
        }

        /// <summary>What happened; a kind of a later library is kept as its number.</summary>
        public EventKind Kind { get; private set; }

        /// <summary>The heartbeat's code: 200, the server's refusal, or a negative local code.</summary>
        public ResultCode Code { get; private set; }

        /// <summary>The server's message or the local failure's explanation (may be empty; never null).</summary>
        public string Message { get; private set; }

        /// <summary>The remark of a refusal (the reason of a 1006), or null.</summary>
        public string Remark { get; private set; }

        /// <summary>The session's expiry on <see cref="EventKind.Alive"/> and <see cref="EventKind.Online"/> (the service's time, UTC+08:00), else null.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary>The session's expiry as the server wrote it (<c>YYYY-MM-DD HH:mm:ss</c>, UTC+08:00), else null.</summary>
        public string ExpireAtText { get; private set; }

        /// <summary>The back-office message on <see cref="EventKind.Message"/>, else null.</summary>
        public string Text { get; private set; }

        /// <summary>
        /// When the grace period ends, on <see cref="EventKind.Offline"/> (and on Trouble and
        /// Ended while offline), else null.
        /// </summary>
        public DateTimeOffset? GraceEnd { get; private set; }

        /// <summary>Kind, code and the detail that applies (text, remark, expiry or message).</summary>
        public override string ToString()
        {
            string detail = Text ?? Remark ?? ExpireAtText ?? Message;
            return string.Format("{0} {1} {2}", Kind, (int)Code, detail);
        }

        /// <summary>Copies a borrowed <c>const verify_event *</c>.</summary>
        internal static KeeperEventArgs FromNative(IntPtr native)
        {
            NativeEvent e = Marshal.PtrToStructure<NativeEvent>(native);
            return new KeeperEventArgs((EventKind)e.Kind, (ResultCode)e.Code, Utf8.FromNative(e.Message),
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
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
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

        internal Action<KeeperEventArgs> OnEvent
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
        public void SetEventHandler(Action<KeeperEventArgs> onEvent)
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
                StopAtExit(created);
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
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
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

    /// <summary>
    /// The service's times: <c>YYYY-MM-DD HH:mm:ss</c> in Beijing time, UTC+08:00, written
    /// without an offset; read as a <see cref="DateTimeOffset"/> with that offset.
    /// </summary>
    public static class ServiceTime
    {
        /// <summary>The offset of every time the service writes: UTC+08:00 (no daylight saving).</summary>
        public static readonly TimeSpan Offset = TimeSpan.FromHours(8);

        /// <summary>
        /// <paramref name="text"/> (<c>YYYY-MM-DD HH:mm:ss</c>) as a time with the +08:00 offset,
        /// or null for null, "" or any other form.
        /// </summary>
        public static DateTimeOffset? Parse(string text)
        {
            DateTime local;
            if (string.IsNullOrEmpty(text) || !DateTime.TryParseExact(text, "yyyy-MM-dd HH:mm:ss",
                CultureInfo.InvariantCulture, DateTimeStyles.None, out local))
            {
                return null;
            }
            return new DateTimeOffset(DateTime.SpecifyKind(local, DateTimeKind.Unspecified), Offset);
        }

        /// <summary><paramref name="time"/> as the service writes it: <c>YYYY-MM-DD HH:mm:ss</c> in UTC+08:00.</summary>
        public static string Format(DateTimeOffset time)
        {
            return time.ToOffset(Offset).ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture);
        }
    }

    /// <summary>Reads the library's JSON text (valid, compact) of an object into name to text.</summary>
    internal static class JsonText
    {
        /// <summary>
        /// The members of the object <paramref name="json"/>: strings unescaped, numbers and
        /// booleans in JSON notation; null, objects and arrays left out. Null when it is not an object.
        /// </summary>
        internal static IReadOnlyDictionary<string, string> StringMap(string json)
        {
            Dictionary<string, string> map = new Dictionary<string, string>(StringComparer.Ordinal);
            int at = 0;
            Space(json, ref at);
            if (at >= json.Length || json[at] != '{')
            {
                return null;
            }
            at++;
            Space(json, ref at);
            if (at < json.Length && json[at] == '}')
            {
                return new ReadOnlyDictionary<string, string>(map);
            }
            while (at < json.Length)
            {
                Space(json, ref at);
                string key = String(json, ref at);
                Space(json, ref at);
                if (key == null || at >= json.Length || json[at] != ':')
                {
                    return null;
                }
                at++;
                Space(json, ref at);
                int start = at;
                if (at < json.Length && json[at] == '"')
                {
                    string value = String(json, ref at);
                    if (value == null)
                    {
                        return null;
                    }
                    map[key] = value;
                }
                else
                {
                    if (!Skip(json, ref at, 0))
                    {
                        return null;
                    }
                    string raw = json.Substring(start, at - start).Trim();
                    if (raw.Length > 0 && raw != "null" && raw[0] != '{' && raw[0] != '[')
                    {
                        map[key] = raw;
                    }
                }
                Space(json, ref at);
                if (at >= json.Length)
                {
                    return null;
                }
                char next = json[at++];
                if (next == '}')
                {
                    return new ReadOnlyDictionary<string, string>(map);
                }
                if (next != ',')
                {
                    return null;
                }
            }
            return null;
        }

        private static void Space(string json, ref int at)
        {
            while (at < json.Length && (json[at] == ' ' || json[at] == '\t' || json[at] == '\n' || json[at] == '\r'))
            {
                at++;
            }
        }

        /// <summary>The string at <paramref name="at"/> (a '"'), unescaped; null when malformed.</summary>
        private static string String(string json, ref int at)
        {
            if (at >= json.Length || json[at] != '"')
            {
                return null;
            }
            at++;
            StringBuilder text = new StringBuilder();
            while (at < json.Length)
            {
                char c = json[at++];
                if (c == '"')
                {
                    return text.ToString();
                }
                if (c != '\\')
                {
                    text.Append(c);
                    continue;
                }
                if (at >= json.Length)
                {
                    return null;
                }
                char e = json[at++];
                switch (e)
                {
                    case '"': text.Append('"'); break;
                    case '\\': text.Append('\\'); break;
                    case '/': text.Append('/'); break;
                    case 'b': text.Append('\b'); break;
                    case 'f': text.Append('\f'); break;
                    case 'n': text.Append('\n'); break;
                    case 'r': text.Append('\r'); break;
                    case 't': text.Append('\t'); break;
                    case 'u':
                        int unit;
                        if (at + 4 > json.Length || !int.TryParse(json.Substring(at, 4), NumberStyles.AllowHexSpecifier,
                            CultureInfo.InvariantCulture, out unit))
                        {
                            return null;
                        }
                        text.Append((char)unit);
                        at += 4;
                        break;
                    default:
                        return null;
                }
            }
            return null;
        }

        /// <summary>Skips the value at <paramref name="at"/>.</summary>
        private static bool Skip(string json, ref int at, int depth)
        {
            Space(json, ref at);
            if (at >= json.Length || depth > 64)
            {
                return false;
            }
            char c = json[at];
            if (c == '"')
            {
                return String(json, ref at) != null;
            }
            if (c == '{' || c == '[')
            {
                char close = c == '{' ? '}' : ']';
                at++;
                Space(json, ref at);
                if (at < json.Length && json[at] == close)
                {
                    at++;
                    return true;
                }
                while (at < json.Length)
                {
                    if (c == '{')
                    {
                        Space(json, ref at);
                        if (String(json, ref at) == null)
                        {
                            return false;
                        }
                        Space(json, ref at);
                        if (at >= json.Length || json[at++] != ':')
                        {
                            return false;
                        }
                    }
                    if (!Skip(json, ref at, depth + 1))
                    {
                        return false;
                    }
                    Space(json, ref at);
                    if (at >= json.Length)
                    {
                        return false;
                    }
                    char next = json[at++];
                    if (next == close)
                    {
                        return true;
                    }
                    if (next != ',')
                    {
                        return false;
                    }
                }
                return false;
            }
            while (at < json.Length && json[at] != ',' && json[at] != '}' && json[at] != ']')
            {
                at++;
            }
            return true;
        }
    }

    /// <summary>
    /// Calls into the native library, turning a missing library into a
    /// <see cref="DllNotFoundException"/> that names the file, where it was looked for and how
    /// to fix it on this operating system.
    /// </summary>
    internal static class Loader
    {
        internal static T Call<T>(Func<T> call)
        {
            try
            {
                return call();
            }
            catch (DllNotFoundException e)
            {
                throw NotFound(e);
            }
        }

        /// <summary>The message of a missing native library, for this process.</summary>
        internal static DllNotFoundException NotFound(Exception inner)
        {
            string baseDir = AppDomain.CurrentDomain.BaseDirectory;
            string bits = Environment.Is64BitProcess ? "64-bit" : "32-bit";
            string text;
            if (Environment.OSVersion.Platform == PlatformID.Win32NT)
            {
                string rid = Environment.Is64BitProcess ? "win-x64" : "win-x86";
                text = string.Format(
                    "The native library of VerifySdk, verify.dll ({0} process: runtimes\\{1}\\native\\verify.dll), " +
                    "was not found. Windows looked for it in the program's folder ({2}), the system folders and the " +
                    "folders of PATH. To fix it, copy runtimes\\{1}\\native\\verify.dll from the VerifySdk package " +
                    "next to the program's .exe (a .NET SDK project with a RuntimeIdentifier does it by itself; a " +
                    ".NET Framework project needs a copy step), and use the DLL of the process's architecture: the " +
                    "x86 DLL for a 32-bit process, the x64 DLL for a 64-bit one.",
                    bits, rid, baseDir);
            }
            else if (File.Exists("/usr/lib/libSystem.dylib") || Directory.Exists("/System/Library/CoreServices"))
            {
                text = string.Format(
                    "The native library of VerifySdk, libverify.dylib ({0} process), was not found. It was looked " +
                    "for in the program's folder ({1}), DYLD_LIBRARY_PATH ({2}) and the system's library folders. To " +
                    "fix it, put libverify.dylib (cargo build --release -p verify: target/release/libverify.dylib) " +
                    "next to the program, or add its folder to DYLD_LIBRARY_PATH.",
                    bits, baseDir, Environment.GetEnvironmentVariable("DYLD_LIBRARY_PATH") ?? "unset");
            }
            else
            {
                text = string.Format(
                    "The native library of VerifySdk, libverify.so ({0} process: runtimes/linux-x64/native/libverify.so, " +
                    "or runtimes/linux-arm64 on ARM), was not found. It was looked for in the program's folder ({1}), " +
                    "LD_LIBRARY_PATH ({2}) and the system's library folders (ldconfig). To fix it, copy " +
                    "runtimes/linux-x64/native/libverify.so from the VerifySdk package (or target/release/libverify.so " +
                    "of a build) next to the program, or add its folder to LD_LIBRARY_PATH; Mono does not read the " +
                    "package's runtimes/ folder by itself.",
                    bits, baseDir, Environment.GetEnvironmentVariable("LD_LIBRARY_PATH") ?? "unset");
            }
            return new DllNotFoundException(text, inner);
        }
    }

    /// <summary>Argument checks and code checks shared by the classes.</summary>
    internal static class Args
    {
        /// <summary>
        /// A required string: <see cref="ArgumentNullException"/> for null,
        /// <see cref="ArgumentException"/> for "" and for a NUL character (UTF-8 marshalling
        /// would cut the string there).
        /// </summary>
        internal static void Required(string value, string name)
        {
            if (value == null)
            {
                throw new ArgumentNullException(name);
            }
            if (value.Length == 0)
            {
                throw new ArgumentException("The value cannot be an empty string.", name);
            }
            NoNul(value, name);
        }

        /// <summary>A string that must not be null but may be empty.</summary>
        internal static void NotNull(string value, string name)
        {
            if (value == null)
            {
                throw new ArgumentNullException(name);
            }
            NoNul(value, name);
        }

        /// <summary>An optional string: null and "" are absent; a NUL character is refused.</summary>
        internal static void Optional(string value, string name)
        {
            NoNul(value, name);
        }

        /// <summary>A session kind: Card or User, else <see cref="ArgumentException"/>.</summary>
        internal static void Session(SessionKind kind, string name)
        {
            if (kind != SessionKind.Card && kind != SessionKind.User)
            {
                throw new ArgumentException("The session kind must be SessionKind.Card or SessionKind.User.", name);
            }
        }

        internal static void NoNul(string value, string name)
        {
            if (value != null && value.IndexOf('\0') >= 0)
            {
                throw new ArgumentException("The value cannot contain a NUL character.", name);
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

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_code_ex(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string salt, int version,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string stateFolder,
            [Out] byte[] output, UIntPtr outputLength);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_new(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string salt,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string stateFolder, out IntPtr check);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_machine_check_free(IntPtr check);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_code(IntPtr check, out IntPtr text);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_outcome(IntPtr check, out int outcome);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_score(IntPtr check, out int score);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_note(IntPtr check, out IntPtr text);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_count(IntPtr check, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_check_component(IntPtr check, UIntPtr index,
            out int kind, out int state, out int weight);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_machine_component_name(int kind);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern IntPtr verify_machine_state_name(int state);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_virtual_new(out IntPtr report);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern void verify_machine_virtual_free(IntPtr report);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_virtual_count(IntPtr report, out UIntPtr count);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_machine_virtual_sign(IntPtr report, UIntPtr index,
            out int kind, out IntPtr detail);

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
