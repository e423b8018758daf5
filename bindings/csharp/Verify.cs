// Verify.cs: the C# binding of the verify licensing client (libverify.so / verify.dll).
//
// One file: drop it into a .NET (Core 3.1+, 5+) or .NET Framework 4.7+ project, or compile it
// with Mono's `mcs`, and ship the native library where the runtime finds it: next to the
// executable, or (Linux) on LD_LIBRARY_PATH. `[DllImport("verify")]` resolves to
// `libverify.so` on Linux, `libverify.dylib` on macOS and `verify.dll` on Windows.
//
// Interop rules this file keeps (see verify.h for the C contract):
// - Handles are SafeHandle subclasses (ClientHandle, ReplyHandle): freed exactly once by
//   verify_client_free / verify_reply_free, never while a call that uses them is running.
// - Strings go in as NUL-terminated UTF-8 (UnmanagedType.LPUTF8Str, copied by the library).
// - Strings the library owns come back as IntPtr and are copied out with a UTF-8 decode; they
//   are never declared as `string` returns (the marshaller would free library memory).
// - Booleans cross the boundary as int32 only.
//
// Errors: a call that reached the server returns a VerifyReply, refusals included (check
// reply.Code). A local failure (negative code: invalid argument, network, timeout, TLS,
// protocol, ...) throws VerifyException with the code and verify_last_error_message().

using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;

namespace Verify
{
    /// <summary>
    /// Every result code of the library: 200 success, 201 pending, the server's refusals
    /// (1001..1024) and the negative local failures. The values are those of verify.h; a code
    /// not named here (a future server code) is still a valid <c>VerifyCode</c> value.
    /// </summary>
    public enum VerifyCode
    {
        /// <summary>Success.</summary>
        Ok = 200,
        /// <summary>Social authorization pending: poll again.</summary>
        Pending = 201,
        /// <summary>Program not found (or the session secret unknown to the server).</summary>
        ProgramNotFound = 1001,
        /// <summary>Wrong password.</summary>
        WrongPassword = 1003,
        /// <summary>Card invalid, refunded, or not of this program.</summary>
        CardInvalid = 1004,
        /// <summary>Expired, not activated, or count card used up.</summary>
        Expired = 1005,
        /// <summary>Disabled, frozen or banned; the reply's Remark carries the reason.</summary>
        Disabled = 1006,
        /// <summary>Token invalid: log in again.</summary>
        TokenInvalid = 1007,
        /// <summary>Signature error.</summary>
        SignatureError = 1010,
        /// <summary>Program key (AppKey) wrong.</summary>
        AppKeyWrong = 1011,
        /// <summary>Program not approved.</summary>
        NotApproved = 1012,
        /// <summary>Incomplete parameters, or invalid heartbeat type.</summary>
        IncompleteParameters = 1013,
        /// <summary>Timestamp outside the server's tolerance.</summary>
        TimestampSkew = 1014,
        /// <summary>Unknown action.</summary>
        UnknownAction = 1015,
        /// <summary>User not registered, or social identity not bound.</summary>
        UserNotRegistered = 1016,
        /// <summary>Username already registered.</summary>
        UsernameTaken = 1017,
        /// <summary>Registration limit per IP address reached.</summary>
        IpRegistrationLimit = 1019,
        /// <summary>New machine code equals the current one.</summary>
        SameMachineCode = 1020,
        /// <summary>Rebind limit reached.</summary>
        RebindLimit = 1021,
        /// <summary>Machine code changed; the reply's Remark is the previously bound code.</summary>
        MachineChanged = 1022,
        /// <summary>Blacklisted (IP address or machine code).</summary>
        Blacklisted = 1023,
        /// <summary>Count card not allowed here.</summary>
        CountCardNotAllowed = 1024,

        /// <summary>Invalid argument: NULL where a value is required, empty, too long, out of range.</summary>
        InvalidArgument = -1,
        /// <summary>A string argument is not valid UTF-8.</summary>
        InvalidUtf8 = -2,
        /// <summary>Network error: server unreachable or connection broken.</summary>
        Network = -3,
        /// <summary>A connect or whole-call timeout ran out.</summary>
        Timeout = -4,
        /// <summary>TLS handshake or certificate check failed.</summary>
        Tls = -5,
        /// <summary>The reply is not the service's JSON, or a field has another type than documented.</summary>
        Protocol = -6,
        /// <summary>Cancelled by the host.</summary>
        Cancelled = -7,
        /// <summary>Internal error: a panic was caught at the library boundary.</summary>
        Panic = -8,
        /// <summary>A reply field that was asked for is absent or of another type.</summary>
        NoSuchField = -9,
    }

    /// <summary>The session a heartbeat keeps alive (the <c>kind</c> of verify_heartbeat).</summary>
    public enum SessionKind
    {
        /// <summary>A card-mode session: the token of <see cref="VerifyClient.SingleLogin"/>.</summary>
        Card = 1,
        /// <summary>An account session: the token of <see cref="VerifyClient.UserLogin"/>.</summary>
        User = 2,
    }

    /// <summary>
    /// A local failure of a call: a negative <see cref="VerifyCode"/> (invalid argument,
    /// network, timeout, TLS, protocol, ...). Server refusals are not exceptions: they come back
    /// as a <see cref="VerifyReply"/> with their code.
    /// </summary>
    public class VerifyException : Exception
    {
        /// <summary>The result code (negative for local failures).</summary>
        public VerifyCode Code { get; private set; }

        /// <summary>
        /// The whole reply as JSON when the server did answer but the reply was rejected
        /// locally (a <see cref="VerifyCode.Protocol"/> failure on a documented field); else null.
        /// </summary>
        public string ReplyJson { get; private set; }

        /// <summary>A failure with its code and the library's message.</summary>
        public VerifyException(VerifyCode code, string message, string replyJson = null)
            : base(message)
        {
            Code = code;
            ReplyJson = replyJson;
        }

        /// <summary>The failure of the calling thread's last call, as the library recorded it.</summary>
        internal static VerifyException FromLastError(VerifyCode code, string replyJson = null)
        {
            // The library's message already names the failure and its code.
            string message = VerifyLibrary.LastErrorMessage;
            if (String.IsNullOrEmpty(message))
            {
                message = String.Format("{0} ({1})", VerifyLibrary.Describe(code), (int)code);
            }
            return new VerifyException(code, message, replyJson);
        }
    }

    /// <summary>Library-wide functions: versions, code descriptions, the thread's last error.</summary>
    public static class VerifyLibrary
    {
        /// <summary>The ABI version this binding was written for (VERIFY_ABI_VERSION of verify.h).</summary>
        public const uint BindingAbiVersion = 1;

        /// <summary>The library version, e.g. "0.1.0".</summary>
        public static string Version
        {
            get { return Utf8.FromNative(NativeMethods.verify_version()); }
        }

        /// <summary>The loaded library's ABI version; compare with <see cref="BindingAbiVersion"/>.</summary>
        public static uint AbiVersion
        {
            get { return NativeMethods.verify_abi_version(); }
        }

        /// <summary>A static English description of any result code. Any thread.</summary>
        public static string Describe(VerifyCode code)
        {
            return Utf8.FromNative(NativeMethods.verify_code_describe((int)code));
        }

        /// <summary>A static English description of any result code. Any thread.</summary>
        public static string Describe(int code)
        {
            return Describe((VerifyCode)code);
        }

        /// <summary>
        /// The message of the calling thread's last failed call ("" when none), copied. Read
        /// it right after the call: any later failing call on the same thread replaces it
        /// (reading an absent reply field counts). The binding already puts it into
        /// <see cref="VerifyException.Message"/>.
        /// </summary>
        public static string LastErrorMessage
        {
            get { return Utf8.FromNative(NativeMethods.verify_last_error_message()) ?? ""; }
        }

        /// <summary>The code of the calling thread's last failed call (0 when none).</summary>
        public static int LastErrorCode
        {
            get { return NativeMethods.verify_last_error_code(); }
        }
    }

    /// <summary>
    /// A client of the service for one program: <c>verify_client</c>. Create one per program
    /// and keep it: it holds the session secret and reuses connections.
    /// </summary>
    /// <remarks>
    /// Thread-safety: every method may be called from several threads at once on one client;
    /// the library holds no lock across network I/O. <see cref="Dispose"/> may race with calls:
    /// the SafeHandle defers verify_client_free until calls in progress return, and calls that
    /// start afterwards throw <see cref="ObjectDisposedException"/>.
    /// Every action returns a <see cref="VerifyReply"/> when the server answered (success,
    /// pending or refusal: check <see cref="VerifyReply.Code"/>) and throws
    /// <see cref="VerifyException"/> on a local failure. Dispose every reply (using).
    /// Required string arguments must not be null (<see cref="ArgumentNullException"/>);
    /// strings must not contain NUL characters (<see cref="ArgumentException"/>).
    /// </remarks>
    public sealed class VerifyClient : IDisposable
    {
        private readonly ClientHandle handle;

        /// <summary>
        /// A client of the service at <paramref name="baseUrl"/> (http:// or https://) for the
        /// program <paramref name="appId"/> with its secret <paramref name="appKey"/>. Nothing is
        /// sent yet: the Init handshake runs on the first action unless <see cref="Init"/> is called.
        /// </summary>
        /// <exception cref="VerifyException">Invalid arguments (a bad URL, empty id or key).</exception>
        /// <exception cref="NotSupportedException">The loaded library has another ABI version.</exception>
        public VerifyClient(string baseUrl, string appId, string appKey)
        {
            uint abi = NativeMethods.verify_abi_version();
            if (abi != VerifyLibrary.BindingAbiVersion)
            {
                throw new NotSupportedException(String.Format(
                    "the verify library has ABI version {0}; this binding needs {1}",
                    abi, VerifyLibrary.BindingAbiVersion));
            }
            Check(baseUrl, "baseUrl");
            Check(appId, "appId");
            Check(appKey, "appKey");
            ClientHandle created;
            int code = NativeMethods.verify_client_new(baseUrl, appId, appKey, out created);
            if (code != (int)VerifyCode.Ok || created == null || created.IsInvalid)
            {
                VerifyException error = VerifyException.FromLastError((VerifyCode)code);
                if (created != null)
                {
                    created.Dispose();
                }
                throw error;
            }
            handle = created;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public ClientHandle Handle
        {
            get { return handle; }
        }

        /// <summary>
        /// Sets the connect timeout and the whole-call timeout for calls that start afterwards
        /// (defaults 10 s and 30 s). Each is rounded up to whole milliseconds and must be at
        /// least 1 ms. Any thread, at any time.
        /// </summary>
        public void SetTimeouts(TimeSpan connect, TimeSpan call)
        {
            uint connectMs = Milliseconds(connect, "connect");
            uint callMs = Milliseconds(call, "call");
            int code = NativeMethods.verify_client_set_timeouts(handle, connectMs, callMs);
            if (code != (int)VerifyCode.Ok)
            {
                throw VerifyException.FromLastError((VerifyCode)code);
            }
        }

        /// <summary>Runs the Init handshake now (otherwise it runs on the first action).</summary>
        public VerifyReply Init()
        {
            ReplyHandle reply;
            int code = NativeMethods.verify_init(handle, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// SingleLogin (card mode). Reply fields: token, status, is_times, card_type, expire_at,
        /// and for a count card total, used, remaining; on 1006 and 1022 remark. Never sent
        /// twice by a retry.
        /// </summary>
        public VerifyReply SingleLogin(string card, string mac, string deviceName = null)
        {
            Check(card, "card");
            Check(mac, "mac");
            CheckOptional(deviceName, "deviceName");
            ReplyHandle reply;
            int code = NativeMethods.verify_single_login(handle, card, mac, deviceName, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// UserLogin with a password; <paramref name="mac"/> is optional but strongly
        /// recommended. Without a card: username, device_id, expire_at, status, token, remark.
        /// With <paramref name="card"/> it is the renewal branch: username, expire_at,
        /// added_days (integer), status, and no token. On 1006/1022 remark.
        /// </summary>
        public VerifyReply UserLogin(string username, string password, string card = null, string mac = null)
        {
            Check(username, "username");
            Check(password, "password");
            CheckOptional(card, "card");
            CheckOptional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_login(handle, username, password, card, mac, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// UserRegin. Reply: username, user_id, expire_at, and with a card token, status.
        /// </summary>
        public VerifyReply UserRegister(string username, string password, string card = null,
            string mac = null, string deviceName = null)
        {
            Check(username, "username");
            Check(password, "password");
            CheckOptional(card, "card");
            CheckOptional(mac, "mac");
            CheckOptional(deviceName, "deviceName");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_register(handle, username, password, card, mac,
                deviceName, out reply);
            return Finish(code, reply);
        }

        /// <summary>UpdatePwd. Reply: username.</summary>
        public VerifyReply UpdatePassword(string username, string oldPassword, string newPassword)
        {
            Check(username, "username");
            Check(oldPassword, "oldPassword");
            Check(newPassword, "newPassword");
            ReplyHandle reply;
            int code = NativeMethods.verify_update_password(handle, username, oldPassword, newPassword,
                out reply);
            return Finish(code, reply);
        }

        /// <summary>ChangeBind. Reply: username, device_id, bind_count, bind_limit.</summary>
        public VerifyReply ChangeBind(string username, string password, string newMac)
        {
            Check(username, "username");
            Check(password, "password");
            Check(newMac, "newMac");
            ReplyHandle reply;
            int code = NativeMethods.verify_change_bind(handle, username, password, newMac, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// UserHeartbeat for the token of <see cref="SingleLogin"/> (<see cref="SessionKind.Card"/>)
        /// or of <see cref="UserLogin"/> (<see cref="SessionKind.User"/>); <paramref name="ip"/>
        /// optional. Reply: expire_at, status, msg (a back-office message, delivered once).
        /// </summary>
        public VerifyReply Heartbeat(string token, SessionKind kind, string ip = null)
        {
            Check(token, "token");
            CheckOptional(ip, "ip");
            ReplyHandle reply;
            int code = NativeMethods.verify_heartbeat(handle, token, (int)kind, ip, out reply);
            return Finish(code, reply);
        }

        /// <summary>UserRecharge. Reply: username, expire_at, added_days (text with its unit), status.</summary>
        public VerifyReply UserRecharge(string username, string card)
        {
            Check(username, "username");
            Check(card, "card");
            ReplyHandle reply;
            int code = NativeMethods.verify_user_recharge(handle, username, card, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// GetLatestVersion; <paramref name="currentVersion"/> optional. Reply: version,
        /// changelog, download_url, force_update, has_update.
        /// </summary>
        public VerifyReply GetLatestVersion(string currentVersion = null)
        {
            CheckOptional(currentVersion, "currentVersion");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_latest_version(handle, currentVersion, out reply);
            return Finish(code, reply);
        }

        /// <summary>GetBulletin. Reply: bulletin, updated_at.</summary>
        public VerifyReply GetBulletin()
        {
            ReplyHandle reply;
            int code = NativeMethods.verify_get_bulletin(handle, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// GetVariable: with a <paramref name="name"/>, reply name, value; with null, every
        /// variable, readable as <c>GetString("variables.NAME")</c> (or all in <see cref="VerifyReply.Json"/>).
        /// </summary>
        public VerifyReply GetVariable(string name = null)
        {
            CheckOptional(name, "name");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_variable(handle, name, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// GetUserInfo. Reply: username, user_id, device_id, expire_at, status, bind_count,
        /// bind_limit, remark, created_at.
        /// </summary>
        public VerifyReply GetUserInfo(string username, string password)
        {
            Check(username, "username");
            Check(password, "password");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_user_info(handle, username, password, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// GetCardInfo; consumes nothing. Reply: card, card_type, status, is_times, device_id,
        /// activated_at, expire_at, duration, duration_type, and for a count card total, used,
        /// remaining.
        /// </summary>
        public VerifyReply GetCardInfo(string card)
        {
            Check(card, "card");
            ReplyHandle reply;
            int code = NativeMethods.verify_get_card_info(handle, card, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// Social login step 1; <paramref name="mac"/> optional. Reply: url (show it to the
        /// user), state (pass it to <see cref="SocialLoginPoll"/>).
        /// </summary>
        public VerifyReply SocialLoginStart(string mac = null)
        {
            CheckOptional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_social_login_start(handle, mac, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// Social login step 2, once per call: the reply's code is 201
        /// (<see cref="VerifyCode.Pending"/>) while the user has not authorized (poll again),
        /// 200 with the login fields (remark is the social display name), 1016 when the
        /// identity is not bound.
        /// </summary>
        public VerifyReply SocialLoginPoll(string state, string mac = null)
        {
            Check(state, "state");
            CheckOptional(mac, "mac");
            ReplyHandle reply;
            int code = NativeMethods.verify_social_login_poll(handle, state, mac, out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// Social registration step 1; <paramref name="mac"/> and <paramref name="deviceName"/>
        /// optional. Reply: url. The account is created when the user completes the authorization.
        /// </summary>
        public VerifyReply SocialRegisterStart(string username, string mac = null, string deviceName = null)
        {
            Check(username, "username");
            CheckOptional(mac, "mac");
            CheckOptional(deviceName, "deviceName");
            ReplyHandle reply;
            int code = NativeMethods.verify_social_register_start(handle, username, mac, deviceName,
                out reply);
            return Finish(code, reply);
        }

        /// <summary>
        /// Any action with any parameters (at most 256; values may be empty, never null), in
        /// the order given. Never sent twice once it may have reached the server.
        /// </summary>
        public VerifyReply Call(string action, IEnumerable<KeyValuePair<string, string>> parameters)
        {
            Check(action, "action");
            List<string> keys = new List<string>();
            List<string> values = new List<string>();
            if (parameters != null)
            {
                foreach (KeyValuePair<string, string> pair in parameters)
                {
                    Check(pair.Key, "parameters (a key)");
                    Check(pair.Value, "parameters (the value of " + pair.Key + ")");
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
        public VerifyReply Call(string action, params KeyValuePair<string, string>[] parameters)
        {
            return Call(action, (IEnumerable<KeyValuePair<string, string>>)parameters);
        }

        /// <summary>
        /// Frees the client (verify_client_free: the session secret and AppKey are wiped, the
        /// connections closed) once no call is using it any more. Replies stay valid.
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
        private static VerifyReply Finish(int code, ReplyHandle reply)
        {
            bool answered = reply != null && !reply.IsInvalid;
            if (code >= 0 && answered)
            {
                return new VerifyReply(reply);
            }
            VerifyException error = VerifyException.FromLastError((VerifyCode)code);
            if (answered)
            {
                // The server answered but the reply was rejected (a protocol failure): keep
                // its JSON for diagnosis and free it.
                string json = null;
                using (VerifyReply rejected = new VerifyReply(reply))
                {
                    json = rejected.Json;
                }
                error = new VerifyException(error.Code, error.Message, json);
            }
            else if (reply != null)
            {
                reply.Dispose();
            }
            throw error;
        }

        private static void Check(string value, string name)
        {
            if (value == null)
            {
                throw new ArgumentNullException(name);
            }
            CheckOptional(value, name);
        }

        private static void CheckOptional(string value, string name)
        {
            // UTF-8 marshalling stops at a NUL: the library would see a shortened string.
            if (value != null && value.IndexOf('\0') >= 0)
            {
                throw new ArgumentException("contains a NUL character", name);
            }
        }

        private static uint Milliseconds(TimeSpan span, string name)
        {
            double ms = Math.Ceiling(span.TotalMilliseconds);
            if (ms < 1 || ms > UInt32.MaxValue)
            {
                throw new ArgumentOutOfRangeException(name, span,
                    "a timeout must be between 1 ms and 4294967295 ms");
            }
            return (uint)ms;
        }
    }

    /// <summary>
    /// An answer of the server, of any code: <c>verify_reply</c>. Dispose it when done (using).
    /// Every string is copied out of the library, so values read stay valid after Dispose.
    /// </summary>
    /// <remarks>
    /// Thread-safety: several threads may read one reply at once. Dispose defers
    /// verify_reply_free until reads in progress finish; reads after it throw
    /// <see cref="ObjectDisposedException"/>.
    /// Field names are those of the reply's <c>data</c> (documented on each action), or a
    /// dotted path into nested objects (<c>"variables.app_name"</c>). Reading an absent field
    /// gives null and leaves <see cref="VerifyLibrary.LastErrorMessage"/> as it was.
    /// </remarks>
    public sealed class VerifyReply : IDisposable
    {
        private readonly ReplyHandle handle;

        internal VerifyReply(ReplyHandle handle)
        {
            this.handle = handle;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public ReplyHandle Handle
        {
            get { return handle; }
        }

        /// <summary>The reply's code: 200 success, 201 pending, or the server's refusal.</summary>
        public VerifyCode Code
        {
            get
            {
                bool added = false;
                try
                {
                    handle.DangerousAddRef(ref added);
                    return (VerifyCode)NativeMethods.verify_reply_code(handle.DangerousGetHandle());
                }
                finally
                {
                    if (added)
                    {
                        handle.DangerousRelease();
                    }
                }
            }
        }

        /// <summary>True when <see cref="Code"/> is 200.</summary>
        public bool IsOk
        {
            get { return Code == VerifyCode.Ok; }
        }

        /// <summary>The server's message (localized; may be empty).</summary>
        public string Message
        {
            get { return Read(p => NativeMethods.verify_reply_message(p)) ?? ""; }
        }

        /// <summary>
        /// The reply's <c>data.remark</c>, or null: on 1006 the reason, on 1022 the previously
        /// bound machine code, on a login the account's remark.
        /// </summary>
        public string Remark
        {
            get { return GetString("remark"); }
        }

        /// <summary>The whole reply as JSON (<c>{"code":..,"message":..,"data":..}</c>).</summary>
        public string Json
        {
            get { return Read(p => NativeMethods.verify_reply_json(p)); }
        }

        /// <summary>
        /// Whether the field of <c>data</c> is present and not null. Unlike the getters it never
        /// replaces the thread's last error (verify_reply_has).
        /// </summary>
        public bool Has(string field)
        {
            CheckField(field);
            bool added = false;
            try
            {
                handle.DangerousAddRef(ref added);
                return HasField(handle.DangerousGetHandle(), field);
            }
            finally
            {
                if (added)
                {
                    handle.DangerousRelease();
                }
            }
        }

        /// <summary>
        /// A field of <c>data</c> as text (a string as it is, a number or boolean in JSON
        /// notation), or null when it is absent, null, an object or an array.
        /// </summary>
        public string GetString(string field)
        {
            CheckField(field);
            return Read(p => HasField(p, field) ? NativeMethods.verify_reply_str(p, field) : IntPtr.Zero);
        }

        /// <summary>A field of <c>data</c> as an integer, or null when absent or not an integer.</summary>
        public long? GetInt64(string field)
        {
            CheckField(field);
            bool added = false;
            try
            {
                handle.DangerousAddRef(ref added);
                IntPtr p = handle.DangerousGetHandle();
                if (!HasField(p, field))
                {
                    return null;
                }
                // verify_reply_int returns the fallback when the field is not an integer: two
                // different fallbacks tell a real 0 from another type.
                long value = NativeMethods.verify_reply_int(p, field, 0);
                if (value != 0)
                {
                    return value;
                }
                return NativeMethods.verify_reply_int(p, field, 1) == 0 ? (long?)0 : null;
            }
            finally
            {
                if (added)
                {
                    handle.DangerousRelease();
                }
            }
        }

        /// <summary>A field of <c>data</c> as a boolean, or null when absent or not a boolean.</summary>
        public bool? GetBool(string field)
        {
            CheckField(field);
            bool added = false;
            try
            {
                handle.DangerousAddRef(ref added);
                IntPtr p = handle.DangerousGetHandle();
                if (!HasField(p, field))
                {
                    return null;
                }
                int value = NativeMethods.verify_reply_bool(p, field, -1);
                return value < 0 ? (bool?)null : value != 0;
            }
            finally
            {
                if (added)
                {
                    handle.DangerousRelease();
                }
            }
        }

        /// <summary>Frees the reply (verify_reply_free) once no read is using it any more.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }

        /// <summary>
        /// Calls a reader returning a string borrowed from the reply and copies it out while
        /// the reply is held alive.
        /// </summary>
        private string Read(Func<IntPtr, IntPtr> reader)
        {
            bool added = false;
            try
            {
                handle.DangerousAddRef(ref added);
                return Utf8.FromNative(reader(handle.DangerousGetHandle()));
            }
            finally
            {
                if (added)
                {
                    handle.DangerousRelease();
                }
            }
        }

        /// <summary>verify_reply_has on a reply the caller holds a reference on.</summary>
        private static bool HasField(IntPtr reply, string field)
        {
            int has = NativeMethods.verify_reply_has(reply, field);
            if (has < 0)
            {
                throw VerifyException.FromLastError((VerifyCode)has);
            }
            return has != 0;
        }

        private static void CheckField(string field)
        {
            if (field == null)
            {
                throw new ArgumentNullException("field");
            }
            if (field.IndexOf('\0') >= 0)
            {
                throw new ArgumentException("contains a NUL character", "field");
            }
        }
    }

    /// <summary>Owns a <c>verify_client *</c>; released with verify_client_free.</summary>
    public sealed class ClientHandle : SafeHandle
    {
        /// <summary>An empty handle; the marshaller fills it from verify_client_new.</summary>
        public ClientHandle() : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>Frees the client; runs once, after every call using the handle returned.</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_client_free(handle);
            return true;
        }
    }

    /// <summary>Owns a <c>verify_reply *</c>; released with verify_reply_free.</summary>
    public sealed class ReplyHandle : SafeHandle
    {
        /// <summary>An empty handle; the marshaller fills it from a call's <c>out</c>.</summary>
        public ReplyHandle() : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL (no reply: the server did not answer).</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>Frees the reply and every string borrowed from it.</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_reply_free(handle);
            return true;
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
                return "";
            }
            byte[] bytes = new byte[length];
            Marshal.Copy(p, bytes, 0, length);
            return Encoding.UTF8.GetString(bytes);
        }
    }

    /// <summary>The C functions of verify.h, one to one.</summary>
    internal static class NativeMethods
    {
        private const string Library = "verify";

        // Client.

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_client_new(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string baseUrl,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string appId,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string appKey,
            out ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void verify_client_free(IntPtr client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_client_set_timeouts(ClientHandle client, uint connectMs, uint callMs);

        // Actions.

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_init(ClientHandle client, out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_single_login(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string deviceName,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_user_login(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_user_register(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string deviceName,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_update_password(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string oldPassword,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string newPassword,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_change_bind(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string newMac,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_heartbeat(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string token,
            int kind,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string ip,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_user_recharge(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_get_latest_version(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string currentVersion,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_get_bulletin(ClientHandle client, out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_get_variable(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string name,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_get_user_info(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_get_card_info(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_social_login_start(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_social_login_poll(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string state,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_social_register_start(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string deviceName,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_call(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string action,
            [MarshalAs(UnmanagedType.LPArray, ArraySubType = UnmanagedType.LPUTF8Str)] string[] keys,
            [MarshalAs(UnmanagedType.LPArray, ArraySubType = UnmanagedType.LPUTF8Str)] string[] values,
            UIntPtr count,
            out ReplyHandle reply);

        // Library-wide. Returned strings are static or borrowed: IntPtr, copied by Utf8.

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr verify_code_describe(int code);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr verify_last_error_message();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_last_error_code();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr verify_version();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern uint verify_abi_version();

        // Replies: the handle is passed as IntPtr while VerifyReply holds a reference on its
        // ReplyHandle (DangerousAddRef), so the borrowed strings can be copied before release.

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_reply_code(IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr verify_reply_message(IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_reply_has(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string field);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr verify_reply_str(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string field);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern long verify_reply_int(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string field, long fallback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_reply_bool(IntPtr reply,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string field, int fallback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr verify_reply_json(IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void verify_reply_free(IntPtr reply);
    }
}
