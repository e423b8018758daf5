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
// - The keeper's native callback is a [UnmanagedFunctionPointer(Cdecl)] delegate rooted by a
//   strong GCHandle that KeeperHandle frees only after verify_keeper_free returned (the
//   library joins the keeper's threads there), so the library never calls a collected
//   delegate. The delegate catches every exception: none unwinds into native code.
//
// Errors: a call that reached the server returns a VerifyReply, refusals included (check
// reply.Code). A local failure (negative code: invalid argument, network, timeout, TLS,
// protocol, ...) throws VerifyException with the code and verify_last_error_message().

using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

namespace Verify
{
    /// <summary>
    /// Every result code of the library: 200 success, 201 pending, the server's refusals
    /// (1001..1024) and the negative local failures. The values are those of verify.h; a code
    /// not named here (a future server code) is still a valid <c>VerifyCode</c> value.
    /// </summary>
    public enum VerifyCode
    {
        // BEGIN GENERATED: codes (tests/generated.rs; do not edit)
        /// <summary>success.</summary>
        Ok = 200,
        /// <summary>waiting for social authorization; keep polling.</summary>
        Pending = 201,
        /// <summary>program not found (or session secret unknown to the server).</summary>
        ProgramNotFound = 1001,
        /// <summary>wrong password.</summary>
        WrongPassword = 1003,
        /// <summary>card invalid, refunded, or not of this program.</summary>
        CardInvalid = 1004,
        /// <summary>expired, not activated, or count card used up.</summary>
        Expired = 1005,
        /// <summary>disabled, frozen or banned; the remark carries the reason.</summary>
        Disabled = 1006,
        /// <summary>token invalid; log in again.</summary>
        TokenInvalid = 1007,
        /// <summary>signature error.</summary>
        SignatureError = 1010,
        /// <summary>program key (AppKey) wrong.</summary>
        AppKeyWrong = 1011,
        /// <summary>program not approved (pending, rejected, or plan expired).</summary>
        NotApproved = 1012,
        /// <summary>incomplete parameters, or invalid heartbeat type.</summary>
        IncompleteParameters = 1013,
        /// <summary>timestamp outside the server's tolerance of 300 seconds.</summary>
        TimestampSkew = 1014,
        /// <summary>unknown action.</summary>
        UnknownAction = 1015,
        /// <summary>user not registered, or social identity not bound.</summary>
        UserNotRegistered = 1016,
        /// <summary>username already registered.</summary>
        UsernameTaken = 1017,
        /// <summary>registration limit per IP address reached.</summary>
        IpRegistrationLimit = 1019,
        /// <summary>new machine code equals the current one.</summary>
        SameMachineCode = 1020,
        /// <summary>rebind limit reached.</summary>
        RebindLimit = 1021,
        /// <summary>machine code changed; the remark is the previously bound code.</summary>
        MachineChanged = 1022,
        /// <summary>blacklisted (IP address or machine code).</summary>
        Blacklisted = 1023,
        /// <summary>count card not allowed here.</summary>
        CountCardNotAllowed = 1024,
        /// <summary>invalid argument: NULL where required, empty, too long, or out of range.</summary>
        InvalidArgument = -1,
        /// <summary>a string argument is not valid UTF-8.</summary>
        InvalidUtf8 = -2,
        /// <summary>network error: server unreachable or connection broken.</summary>
        Network = -3,
        /// <summary>timed out (connect or whole-call timeout).</summary>
        Timeout = -4,
        /// <summary>TLS handshake or certificate check failed.</summary>
        Tls = -5,
        /// <summary>protocol error: the reply is not the service's JSON.</summary>
        Protocol = -6,
        /// <summary>cancelled by the host.</summary>
        Cancelled = -7,
        /// <summary>internal error (panic caught at the library boundary).</summary>
        Panic = -8,
        /// <summary>no such field in the reply, or of another type.</summary>
        NoSuchField = -9,
        /// <summary>operating system failure (thread, machine identity, randomness).</summary>
        System = -10,
        // END GENERATED: codes
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

        /// <summary>Length of a machine code (VERIFY_MACHINE_CODE_LEN): 32 uppercase hex characters.</summary>
        public const int MachineCodeLength = 32;

        /// <summary>
        /// The machine code of this machine for <paramref name="salt"/> (one salt per program,
        /// such as its AppId; may be empty): 32 uppercase hex characters, a salted hash of the OS
        /// machine identity, the same on every call and in every process (verify_machine_code).
        /// Pass it as the <c>mac</c> of the login calls. Any thread.
        /// </summary>
        /// <exception cref="ArgumentNullException"><paramref name="salt"/> is null.</exception>
        /// <exception cref="VerifyException">The machine identity could not be read or created.</exception>
        public static string MachineCode(string salt)
        {
            if (salt == null)
            {
                throw new ArgumentNullException("salt");
            }
            if (salt.IndexOf('\0') >= 0)
            {
                throw new ArgumentException("contains a NUL character", "salt");
            }
            byte[] buffer = new byte[MachineCodeLength + 1];
            int code = NativeMethods.verify_machine_code(salt, buffer, new UIntPtr((uint)buffer.Length));
            if (code != (int)VerifyCode.Ok)
            {
                throw VerifyException.FromLastError((VerifyCode)code);
            }
            int length = Array.IndexOf(buffer, (byte)0);
            return Encoding.ASCII.GetString(buffer, 0, length < 0 ? MachineCodeLength : length);
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
        // BEGIN GENERATED: actions (tests/generated.rs; do not edit)
        /// <summary>
        /// `SingleLogin` (card mode): activates the card on first use and binds it to `mac`;
        /// later logins from the same machine refresh it (a count card spends one use). Never
        /// sent twice by a retry.
        /// </summary>
        public Reply SingleLogin(string card, string mac, string deviceName = null) =>
            Finish((out IntPtr reply) => NativeMethods.verify_single_login(Handle, card, mac, deviceName, out reply));

        /// <summary>
        /// `UserLogin` with username and password (account mode). `mac` is strongly
        /// recommended (rebind detection).
        /// </summary>
        public Reply UserLogin(string username, string password, string mac = null) =>
            Finish((out IntPtr reply) => NativeMethods.verify_user_login(Handle, username, password, mac, out reply));

        /// <summary>
        /// `UserLogin` with a recharge card: renews the account and returns no token (log in
        /// again without a card for one). Never sent twice by a retry.
        /// </summary>
        public Reply UserLoginWithCard(string username, string password, string card, string mac = null) =>
            Finish((out IntPtr reply) => NativeMethods.verify_user_login_with_card(Handle, username, password, card, mac, out reply));

        /// <summary>
        /// `UserRegin`: registers an account, activated when a duration card is given. Never
        /// sent twice by a retry.
        /// </summary>
        public Reply UserRegister(string username, string password, string card = null, string mac = null, string deviceName = null) =>
            Finish((out IntPtr reply) => NativeMethods.verify_user_register(Handle, username, password, card, mac, deviceName, out reply));

        /// <summary>
        /// `UpdatePwd`: checks the old password and sets the new one. Never sent twice by a
        /// retry.
        /// </summary>
        public Reply UpdatePassword(string username, string oldPassword, string newPassword) =>
            Finish((out IntPtr reply) => NativeMethods.verify_update_password(Handle, username, oldPassword, newPassword, out reply));

        /// <summary>
        /// `ChangeBind`: binds the account to a new machine code. Never sent twice by a retry.
        /// </summary>
        public Reply ChangeBind(string username, string password, string newMac) =>
            Finish((out IntPtr reply) => NativeMethods.verify_change_bind(Handle, username, password, newMac, out reply));

        /// <summary>
        /// `UserHeartbeat`: keeps a card or account session alive and collects a back-office
        /// message (delivered once).
        /// </summary>
        public Reply Heartbeat(string token, SessionKind kind, string ip = null) =>
            Finish((out IntPtr reply) => NativeMethods.verify_heartbeat(Handle, token, (int)kind, ip, out reply));

        /// <summary>
        /// `UserRecharge`: adds a duration card's time to an account (no password). Never sent
        /// twice by a retry.
        /// </summary>
        public Reply UserRecharge(string username, string card) =>
            Finish((out IntPtr reply) => NativeMethods.verify_user_recharge(Handle, username, card, out reply));

        /// <summary>
        /// `GetLatestVersion`, optionally with the program's current version.
        /// </summary>
        public Reply GetLatestVersion(string currentVersion = null) =>
            Finish((out IntPtr reply) => NativeMethods.verify_get_latest_version(Handle, currentVersion, out reply));

        /// <summary>
        /// `GetBulletin`: the program's bulletin.
        /// </summary>
        public Reply GetBulletin() =>
            Finish((out IntPtr reply) => NativeMethods.verify_get_bulletin(Handle, out reply));

        /// <summary>
        /// `GetVariable` for one variable.
        /// </summary>
        public Reply GetVariable(string name) =>
            Finish((out IntPtr reply) => NativeMethods.verify_get_variable(Handle, name, out reply));

        /// <summary>
        /// `GetVariable` for every variable.
        /// </summary>
        public Reply GetVariables() =>
            Finish((out IntPtr reply) => NativeMethods.verify_get_variables(Handle, out reply));

        /// <summary>
        /// `GetUserInfo`: the account's details.
        /// </summary>
        public Reply GetUserInfo(string username, string password) =>
            Finish((out IntPtr reply) => NativeMethods.verify_get_user_info(Handle, username, password, out reply));

        /// <summary>
        /// `GetCardInfo`: the card's state, expiry and binding, consuming nothing.
        /// </summary>
        public Reply GetCardInfo(string card) =>
            Finish((out IntPtr reply) => NativeMethods.verify_get_card_info(Handle, card, out reply));

        /// <summary>
        /// Social login step 1: the URL to show the user, and the state to poll with.
        /// </summary>
        public Reply SocialLoginStart(string mac = null) =>
            Finish((out IntPtr reply) => NativeMethods.verify_social_login_start(Handle, mac, out reply));

        /// <summary>
        /// Social login step 2, once: code 201 (pending) while the user has not authorized;
        /// 200 with the login payload (`remark` is the social display name); 1016 when the
        /// identity is not bound. Its success consumes the state, so it is never sent twice.
        /// </summary>
        public Reply SocialLoginPoll(string state, string mac = null) =>
            Finish((out IntPtr reply) => NativeMethods.verify_social_login_poll(Handle, state, mac, out reply));

        /// <summary>
        /// Social registration step 1: the URL to show the user. Never sent twice by a retry.
        /// </summary>
        public Reply SocialRegisterStart(string username, string mac = null, string deviceName = null) =>
            Finish((out IntPtr reply) => NativeMethods.verify_social_register_start(Handle, username, mac, deviceName, out reply));

        // END GENERATED: actions

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
        /// Social login step 2, repeated every <paramref name="interval"/> until the user
        /// authorizes (a reply with code 200 and the login fields; remark is the social display
        /// name) or the server refuses (a reply with its code, e.g. 1016 when the identity is not
        /// bound). Blocks the calling thread; <paramref name="mac"/> is optional.
        /// </summary>
        /// <param name="state">The state of <see cref="SocialLoginStart"/>.</param>
        /// <param name="mac">The machine code, or null.</param>
        /// <param name="interval">Time between polls, at least 1 ms (rounded up to whole ms).</param>
        /// <param name="timeout">How long to wait in all, at least 1 ms.</param>
        /// <param name="cancel">
        /// Optional: <see cref="VerifyCancel.Cancel"/> from another thread ends the wait within
        /// milliseconds (a poll in flight is interrupted). Do not dispose it while a wait uses it
        /// (if you do, it is freed when the wait returns).
        /// </param>
        /// <exception cref="VerifyException">
        /// <see cref="VerifyCode.Timeout"/> when <paramref name="timeout"/> passed,
        /// <see cref="VerifyCode.Cancelled"/> when <paramref name="cancel"/> was cancelled (no
        /// reply in either case), or another local failure.
        /// </exception>
        public VerifyReply SocialLoginWait(string state, string mac, TimeSpan interval, TimeSpan timeout,
            VerifyCancel cancel = null)
        {
            Check(state, "state");
            CheckOptional(mac, "mac");
            uint intervalMs = Milliseconds(interval, "interval");
            uint timeoutMs = Milliseconds(timeout, "timeout");
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
        /// Starts keeping a session alive in the background (verify_keeper_start): a heartbeat
        /// every <paramref name="interval"/> for the token of <see cref="SingleLogin"/>
        /// (<see cref="SessionKind.Card"/>) or <see cref="UserLogin"/> (<see cref="SessionKind.User"/>).
        /// The first heartbeat is sent one interval after the start. Keep the returned keeper
        /// (a field) and dispose it when the session should no longer be kept.
        /// </summary>
        /// <param name="token">The session's token.</param>
        /// <param name="kind">Whose token it is.</param>
        /// <param name="interval">
        /// Time between heartbeats, at least 1 s; <see cref="TimeSpan.Zero"/> for the default,
        /// 5 minutes (the spec's). A small random jitter is added.
        /// </param>
        /// <param name="grace">
        /// How long the session stays usable while heartbeats fail for other reasons than its
        /// end (network down), counted from the first failure; <see cref="TimeSpan.Zero"/> for
        /// the default, 15 minutes. Retries back off 1 s, 2 s, 4 s... up to 60 s or the interval.
        /// </param>
        /// <param name="ip">The client IP to report with each heartbeat, or null.</param>
        /// <param name="onEvent">
        /// Optional: receives every <see cref="VerifyEvent"/>. It runs on the keeper's event
        /// thread: not the thread that called KeepAlive, and never the UI thread (marshal to it
        /// with Control.BeginInvoke / Dispatcher.BeginInvoke / SynchronizationContext.Post).
        /// Events come one at a time, in order; a slow handler delays only later events.
        /// Exceptions it throws are caught and dropped (none reaches native code), and the next
        /// events still arrive. Without a handler, back-office messages are queued for
        /// <see cref="VerifyKeeper.Status"/>.
        /// </param>
        /// <exception cref="VerifyException">
        /// <see cref="VerifyCode.InvalidArgument"/> for an empty token, an interval under 1 s or
        /// an unknown kind; another local failure when the keeper's threads cannot start.
        /// </exception>
        public VerifyKeeper KeepAlive(string token, SessionKind kind, TimeSpan interval, TimeSpan grace,
            string ip = null, Action<VerifyEvent> onEvent = null)
        {
            Check(token, "token");
            CheckOptional(ip, "ip");
            uint intervalMs = OptionalMilliseconds(interval, "interval");
            uint graceMs = OptionalMilliseconds(grace, "grace");
            EventDispatcher dispatcher = onEvent == null ? null : new EventDispatcher(onEvent);
            NativeMethods.EventCallback callback = dispatcher == null ? null : dispatcher.Callback;
            // Rooted before the keeper exists: its event thread may call it at any time until
            // verify_keeper_free returns, even if this VerifyKeeper is never disposed.
            GCHandle root = callback == null ? default(GCHandle) : GCHandle.Alloc(callback);
            try
            {
                KeeperHandle created;
                int code = NativeMethods.verify_keeper_start(handle, token, (int)kind, ip, intervalMs,
                    graceMs, callback, IntPtr.Zero, out created);
                if (code != (int)VerifyCode.Ok || created == null || created.IsInvalid)
                {
                    VerifyException error = VerifyException.FromLastError((VerifyCode)code);
                    if (created != null)
                    {
                        created.Dispose();
                    }
                    throw error;
                }
                created.Root(ref root, callback);
                return new VerifyKeeper(created, dispatcher);
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
                    "must be between 1 ms and 4294967295 ms");
            }
            return (uint)ms;
        }

        /// <summary>Zero (the library's default) or a span as for <see cref="Milliseconds"/>.</summary>
        private static uint OptionalMilliseconds(TimeSpan span, string name)
        {
            return span == TimeSpan.Zero ? 0 : Milliseconds(span, name);
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

    /// <summary>What a <see cref="VerifyEvent"/> reports (VERIFY_EVENT_*).</summary>
    public enum VerifyEventKind
    {
        /// <summary>A heartbeat succeeded: <see cref="VerifyEvent.ExpireAt"/> is the session's expiry.</summary>
        Alive = 1,
        /// <summary>A back-office message, in <see cref="VerifyEvent.Text"/>, delivered once.</summary>
        Message = 2,
        /// <summary>
        /// A heartbeat failed for another reason than the session's end (network down, a reply
        /// that is not the service's); the keeper retries within the grace period and the session
        /// stays usable.
        /// </summary>
        Trouble = 3,
        /// <summary>
        /// The session ended: 1005 (expired), 1006 (disabled; <see cref="VerifyEvent.Remark"/> is
        /// the reason), 1007 (token invalid), or the grace period ran out. The keeper has stopped.
        /// </summary>
        Ended = 4,
    }

    /// <summary>The state of a kept session (VERIFY_KEEPER_*).</summary>
    public enum KeeperState
    {
        /// <summary>The last heartbeat succeeded (or none was due yet).</summary>
        Alive = 1,
        /// <summary>Heartbeats fail for another reason than the session's end; the grace period runs.</summary>
        Grace = 2,
        /// <summary>The session ended, or the keeper was stopped (or its client disposed).</summary>
        Ended = 3,
    }

    /// <summary>
    /// One report of a <see cref="VerifyKeeper"/>, copied out of the library's
    /// <c>verify_event</c>: it stays valid after the handler returns.
    /// </summary>
    public sealed class VerifyEvent
    {
        /// <summary>What happened.</summary>
        public VerifyEventKind Kind { get; private set; }

        /// <summary>The heartbeat's code: 200, the server's refusal, or a negative local code.</summary>
        public VerifyCode Code { get; private set; }

        /// <summary>The server's message or the local failure's explanation (may be empty; never null).</summary>
        public string Message { get; private set; }

        /// <summary>The remark of a refusal (the reason of a 1006), or null.</summary>
        public string Remark { get; private set; }

        /// <summary>The session's expiry on <see cref="VerifyEventKind.Alive"/>, else null.</summary>
        public string ExpireAt { get; private set; }

        /// <summary>The back-office message on <see cref="VerifyEventKind.Message"/>, else null.</summary>
        public string Text { get; private set; }

        /// <summary>An event as given (for hosts that test their handlers).</summary>
        public VerifyEvent(VerifyEventKind kind, VerifyCode code, string message, string remark,
            string expireAt, string text)
        {
            Kind = kind;
            Code = code;
            Message = message ?? "";
            Remark = remark;
            ExpireAt = expireAt;
            Text = text;
        }

        /// <summary>
        /// Copies a borrowed <c>const verify_event *</c>: int32 kind, int32 code, then four
        /// <c>const char *</c> (message, remark, expire_at, text). Two int32 take 8 bytes, so the
        /// pointers start at offset 8 on 32- and 64-bit platforms alike.
        /// </summary>
        internal static VerifyEvent FromNative(IntPtr native)
        {
            int size = IntPtr.Size;
            return new VerifyEvent(
                (VerifyEventKind)Marshal.ReadInt32(native, 0),
                (VerifyCode)Marshal.ReadInt32(native, 4),
                Utf8.FromNative(Marshal.ReadIntPtr(native, 8)),
                Utf8.FromNative(Marshal.ReadIntPtr(native, 8 + size)),
                Utf8.FromNative(Marshal.ReadIntPtr(native, 8 + 2 * size)),
                Utf8.FromNative(Marshal.ReadIntPtr(native, 8 + 3 * size)));
        }

        /// <summary>Kind, code and the detail that applies (text, remark, expiry or message).</summary>
        public override string ToString()
        {
            string detail = Text ?? Remark ?? ExpireAt ?? Message;
            return String.Format("{0} {1} {2}", Kind, (int)Code, detail);
        }
    }

    /// <summary>A snapshot of a keeper, for hosts that poll (<see cref="VerifyKeeper.Status"/>).</summary>
    public sealed class KeeperStatus
    {
        /// <summary>Alive, in grace, or ended.</summary>
        public KeeperState State { get; private set; }

        /// <summary>The code of the last heartbeat; 0 before the first.</summary>
        public VerifyCode LastCode { get; private set; }

        /// <summary>The message of the last heartbeat ("" when none or empty).</summary>
        public string LastMessage { get; private set; }

        /// <summary>The remark of the last refusal (the reason of a 1006), or null.</summary>
        public string Remark { get; private set; }

        /// <summary>When the last heartbeat succeeded (whole seconds, UTC), or null before the first success.</summary>
        public DateTimeOffset? LastSuccess { get; private set; }

        /// <summary>The session's expiry from the last successful heartbeat, or null before the first.</summary>
        public string ExpireAt { get; private set; }

        /// <summary>
        /// The back-office messages received since the previous snapshot, oldest first; each is
        /// returned once. Filled only for a keeper without an event handler (a handler gets them
        /// as <see cref="VerifyEventKind.Message"/> events instead). Never null.
        /// </summary>
        public string[] Messages { get; private set; }

        /// <summary>Reads the reply of verify_keeper_status.</summary>
        internal static KeeperStatus FromReply(VerifyReply reply)
        {
            KeeperStatus status = new KeeperStatus();
            switch (reply.GetString("state"))
            {
                case "alive":
                    status.State = KeeperState.Alive;
                    break;
                case "grace":
                    status.State = KeeperState.Grace;
                    break;
                default:
                    status.State = KeeperState.Ended;
                    break;
            }
            status.LastCode = (VerifyCode)(reply.GetInt64("last_code") ?? 0);
            status.LastMessage = reply.GetString("last_message") ?? "";
            status.Remark = reply.GetString("remark");
            long lastSuccess = reply.GetInt64("last_success") ?? 0;
            status.LastSuccess = lastSuccess > 0
                ? DateTimeOffset.FromUnixTimeSeconds(lastSuccess)
                : (DateTimeOffset?)null;
            status.ExpireAt = reply.GetString("expire_at");
            long count = reply.GetInt64("message_count") ?? 0;
            List<string> messages = new List<string>();
            for (long i = 0; i < count; i++)
            {
                string message = reply.GetString("messages." + i);
                if (message != null)
                {
                    messages.Add(message);
                }
            }
            status.Messages = messages.ToArray();
            return status;
        }
    }

    /// <summary>
    /// A running session keeper: <c>verify_keeper</c>, started by
    /// <see cref="VerifyClient.KeepAlive"/>. It sends a heartbeat every interval on its own
    /// thread and reports through the handler given to KeepAlive (on the keeper's event
    /// thread) and through <see cref="State"/> and <see cref="Status"/> (any thread).
    /// </summary>
    /// <remarks>
    /// Keep a reference for as long as the session should be kept: a keeper that is collected
    /// without Dispose is stopped and freed by its finalizer. Dispose (stop + free) is
    /// idempotent, may run from any thread, also after the client was disposed (the client
    /// stops its keepers, whose objects stay valid), and also from inside the keeper's own
    /// handler (the free then completes on a thread-pool thread once the handler returned).
    /// After Dispose, the members throw <see cref="ObjectDisposedException"/>.
    /// Dispose keepers before the process exits.
    /// </remarks>
    public sealed class VerifyKeeper : IDisposable
    {
        private readonly KeeperHandle handle;
        private readonly EventDispatcher dispatcher;
        private int disposed;

        internal VerifyKeeper(KeeperHandle handle, EventDispatcher dispatcher)
        {
            this.handle = handle;
            this.dispatcher = dispatcher;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public KeeperHandle Handle
        {
            get { return handle; }
        }

        /// <summary>The keeper's state (verify_keeper_state). Any thread.</summary>
        public KeeperState State
        {
            get
            {
                CheckNotDisposed();
                int state = NativeMethods.verify_keeper_state(handle);
                if (state < 0)
                {
                    throw VerifyException.FromLastError((VerifyCode)state);
                }
                return (KeeperState)state;
            }
        }

        /// <summary>
        /// A snapshot of the keeper (verify_keeper_status), and the back-office messages queued
        /// since the previous snapshot (each returned once). Any thread.
        /// </summary>
        public KeeperStatus Status()
        {
            CheckNotDisposed();
            ReplyHandle reply;
            int code = NativeMethods.verify_keeper_status(handle, out reply);
            if (code != (int)VerifyCode.Ok || reply == null || reply.IsInvalid)
            {
                VerifyException error = VerifyException.FromLastError((VerifyCode)code);
                if (reply != null)
                {
                    reply.Dispose();
                }
                throw error;
            }
            using (VerifyReply status = new VerifyReply(reply))
            {
                return KeeperStatus.FromReply(status);
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
            CheckNotDisposed();
            int code = NativeMethods.verify_keeper_stop(handle);
            if (code != (int)VerifyCode.Ok)
            {
                throw VerifyException.FromLastError((VerifyCode)code);
            }
        }

        /// <summary>
        /// Stops and frees the keeper (verify_keeper_free) once no call is using it; the handler
        /// is not called any more afterwards (from inside the handler: after it returns).
        /// </summary>
        public void Dispose()
        {
            if (Interlocked.Exchange(ref disposed, 1) != 0)
            {
                return;
            }
            if (dispatcher != null && dispatcher.IsRunningOnCurrentThread)
            {
                // verify_keeper_free must not run on the keeper's own event thread (it joins
                // it). Stop now (from the handler it returns at once), and free from the thread
                // pool: verify_keeper_free there waits for this handler to return.
                NativeMethods.verify_keeper_stop(handle);
                ThreadPool.QueueUserWorkItem(state => ((KeeperHandle)state).Dispose(), handle);
                return;
            }
            handle.Dispose();
        }

        private void CheckNotDisposed()
        {
            if (Volatile.Read(ref disposed) != 0)
            {
                throw new ObjectDisposedException("VerifyKeeper");
            }
        }
    }

    /// <summary>
    /// A cancellation token for <see cref="VerifyClient.SocialLoginWait"/>: <c>verify_cancel</c>.
    /// </summary>
    /// <remarks>
    /// <see cref="Cancel"/> may be called from any thread, any number of times. Dispose may race
    /// with a wait using the token: the SafeHandle defers verify_cancel_free until the wait
    /// returns; later calls throw <see cref="ObjectDisposedException"/>.
    /// </remarks>
    public sealed class VerifyCancel : IDisposable
    {
        private readonly CancelHandle handle;

        /// <summary>A new token, not cancelled (verify_cancel_new).</summary>
        public VerifyCancel()
        {
            CancelHandle created;
            int code = NativeMethods.verify_cancel_new(out created);
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
        public CancelHandle Handle
        {
            get { return handle; }
        }

        /// <summary>
        /// Cancels (verify_cancel_cancel): a wait using this token throws
        /// <see cref="VerifyException"/> with <see cref="VerifyCode.Cancelled"/> within
        /// milliseconds, and later waits with it throw at once. Any thread.
        /// </summary>
        public void Cancel()
        {
            int code = NativeMethods.verify_cancel_cancel(handle);
            if (code != (int)VerifyCode.Ok)
            {
                throw VerifyException.FromLastError((VerifyCode)code);
            }
        }

        /// <summary>Frees the token (verify_cancel_free) once no wait is using it any more.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }
    }

    /// <summary>
    /// Delivers a keeper's native events to the host's handler. Its <see cref="Callback"/> is
    /// the function pointer given to verify_keeper_start; KeeperHandle keeps it rooted until
    /// verify_keeper_free returned.
    /// </summary>
    internal sealed class EventDispatcher
    {
        private readonly Action<VerifyEvent> onEvent;
        // The managed id of the thread running the handler; 0 when none runs.
        private int runningThread;

        internal EventDispatcher(Action<VerifyEvent> onEvent)
        {
            this.onEvent = onEvent;
            Callback = Dispatch;
        }

        /// <summary>The delegate the library calls.</summary>
        internal NativeMethods.EventCallback Callback { get; private set; }

        /// <summary>Whether the calling thread is inside this keeper's handler.</summary>
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
                VerifyEvent copied = VerifyEvent.FromNative(nativeEvent);
                onEvent(copied);
            }
            catch (Exception)
            {
                // Dropped: the handler's exception must not reach the library (see KeepAlive).
            }
            finally
            {
                Volatile.Write(ref runningThread, 0);
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

    /// <summary>
    /// Owns a <c>verify_keeper *</c>; released with verify_keeper_free, after which the native
    /// callback delegate of the keeper is unrooted.
    /// </summary>
    public sealed class KeeperHandle : SafeHandle
    {
        private GCHandle callbackRoot;
        private Delegate callback;

        /// <summary>An empty handle; the marshaller fills it from verify_keeper_start.</summary>
        public KeeperHandle() : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>Takes over the strong GCHandle rooting the keeper's callback delegate.</summary>
        internal void Root(ref GCHandle root, Delegate rooted)
        {
            callbackRoot = root;
            callback = rooted;
            root = default(GCHandle);
        }

        /// <summary>
        /// Stops and frees the keeper (its threads are joined: the library calls the delegate no
        /// more), then lets the delegate go. Runs once, after every call using the handle returned.
        /// </summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_keeper_free(handle);
            if (callbackRoot.IsAllocated)
            {
                callbackRoot.Free();
            }
            GC.KeepAlive(callback);
            callback = null;
            return true;
        }
    }

    /// <summary>Owns a <c>verify_cancel *</c>; released with verify_cancel_free.</summary>
    public sealed class CancelHandle : SafeHandle
    {
        /// <summary>An empty handle; the marshaller fills it from verify_cancel_new.</summary>
        public CancelHandle() : base(IntPtr.Zero, true)
        {
        }

        /// <summary>True for NULL.</summary>
        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }

        /// <summary>Frees the token; runs once, after every wait using it returned.</summary>
        protected override bool ReleaseHandle()
        {
            NativeMethods.verify_cancel_free(handle);
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
        // BEGIN GENERATED: native (tests/generated.rs; do not edit)
        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_single_login(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string deviceName,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_user_login(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_user_login_with_card(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_user_register(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string deviceName,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_update_password(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string oldPassword,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string newPassword,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_change_bind(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string newMac,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_heartbeat(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string token,
            int kind,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string ip,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_user_recharge(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_latest_version(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string currentVersion,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_bulletin(
            ClientHandle client,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_variable(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string name,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_variables(
            ClientHandle client,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_user_info(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string password,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_get_card_info(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string card,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_social_login_start(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_social_login_poll(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string state,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            out IntPtr reply);

        [DllImport(Library, CallingConvention = CallingConvention.Winapi)]
        internal static extern int verify_social_register_start(
            ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string username,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string deviceName,
            out IntPtr reply);

        // END GENERATED: native

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

        // Keeper, cancellation, social wait, machine code.

        /// <summary>verify_event_callback: user_data, then the borrowed event.</summary>
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void EventCallback(IntPtr userData, IntPtr nativeEvent);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_keeper_start(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string token,
            int kind,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string ip,
            uint intervalMs,
            uint graceMs,
            EventCallback callback,
            IntPtr userData,
            out KeeperHandle keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_keeper_stop(KeeperHandle keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void verify_keeper_free(IntPtr keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_keeper_state(KeeperHandle keeper);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_keeper_status(KeeperHandle keeper, out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_cancel_new(out CancelHandle cancel);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_cancel_cancel(CancelHandle cancel);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void verify_cancel_free(IntPtr cancel);

        // `cancel` is optional: IntPtr.Zero, or the handle of a CancelHandle the caller holds a
        // reference on.
        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_social_login_wait(ClientHandle client,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string state,
            [MarshalAs(UnmanagedType.LPUTF8Str)] string mac,
            uint intervalMs,
            uint timeoutMs,
            IntPtr cancel,
            out ReplyHandle reply);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int verify_machine_code(
            [MarshalAs(UnmanagedType.LPUTF8Str)] string salt,
            [Out] byte[] output,
            UIntPtr outputLength);
    }
}
