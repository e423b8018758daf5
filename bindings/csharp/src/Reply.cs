using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;

namespace Verify
{
    /// <summary>
    /// An answer of the server, of any code: <c>verify_reply</c>. Every action returns its
    /// typed subclass (<see cref="CardLoginReply"/>, <see cref="UserSessionReply"/>, ...) with
    /// the action table's fields as properties; this class gives what every reply has (code,
    /// message, remark, the offline verdict) and every field by JSON Pointer, for fields the
    /// action table does not name. A plain immutable object: no Dispose (the native reply is freed by the
    /// garbage collector once the object is unreachable).
    /// </summary>
    /// <remarks>
    /// Paths are JSON Pointers (RFC 6901) from the top of the reply: <c>"/data/token"</c>,
    /// <c>"/data/variables/a.b"</c> (a key may contain a dot), <c>"/data/list/0"</c>,
    /// <c>"/code"</c>; <see cref="Pointer"/> builds one from keys that contain <c>/</c> or
    /// <c>~</c>. The getters return null when the value is absent or of another type, and leave
    /// the thread's last error as it was; a path that is not a pointer (not
    /// starting with <c>/</c>) throws <see cref="VerifyException"/> with
    /// <see cref="ResultCode.InvalidArgument"/>. Thread-safety: several threads may read one
    /// reply at once.
    /// </remarks>
    [NullableContext(1)]
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
        /// <param name="handle">The native reply, kept by the reply (see above).</param>
        /// <exception cref="ArgumentNullException"><paramref name="handle"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="handle"/> is invalid (NULL).</exception>
        /// <exception cref="ObjectDisposedException"><paramref name="handle"/> was disposed.</exception>
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
            get { return !ResultCodes.IsSuccess(code); }
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
        [Nullable(2)]
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
                    return new OfflineInfo(ServiceTime.FromUnixSeconds(confirmed),
                        ServiceTime.FromUnixSeconds(graceEnd), (ResultCode)reason);
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
        [Nullable(2)]
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
        /// <param name="keys">The object keys and array indexes, outermost first.</param>
        /// <exception cref="ArgumentNullException"><paramref name="keys"/> or one of them is null.</exception>
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
        /// <param name="pointer">A JSON Pointer (<c>/data/token</c>; <see cref="Pointer"/> builds one).</param>
        /// <exception cref="ArgumentNullException"><paramref name="pointer"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="pointer"/> contains a NUL character.</exception>
        [return: Nullable(2)]
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
        /// <param name="pointer">A JSON Pointer (<c>/data/token</c>; <see cref="Pointer"/> builds one).</param>
        /// <exception cref="ArgumentNullException"><paramref name="pointer"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="pointer"/> contains a NUL character.</exception>
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
        /// <param name="pointer">A JSON Pointer (<c>/data/token</c>; <see cref="Pointer"/> builds one).</param>
        /// <exception cref="ArgumentNullException"><paramref name="pointer"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="pointer"/> contains a NUL character.</exception>
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
        /// (<c>YYYY-MM-DD HH:mm:ss</c> in UTC+08:00, read by the library: verify_reply_time) with
        /// that offset, or null when absent, empty or in another form (<see cref="GetString"/>
        /// still gives the text).
        /// </summary>
        /// <param name="pointer">A JSON Pointer (<c>/data/token</c>; <see cref="Pointer"/> builds one).</param>
        /// <exception cref="ArgumentNullException"><paramref name="pointer"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="pointer"/> contains a NUL character.</exception>
        public DateTimeOffset? GetTime(string pointer)
        {
            Args.NotNull(pointer, "pointer");
            return handle.With(p =>
            {
                long seconds;
                int offset;
                return Present(NativeMethods.verify_reply_time(p, pointer, out seconds, out offset))
                    ? ServiceTime.At(seconds, offset)
                    : null;
            });
        }

        /// <summary>
        /// The object at <paramref name="pointer"/> as name to text (strings as they are, numbers
        /// and booleans in JSON notation; null, objects and arrays left out), or null when
        /// absent or not an object.
        /// </summary>
        /// <param name="pointer">A JSON Pointer (<c>/data/token</c>; <see cref="Pointer"/> builds one).</param>
        /// <exception cref="ArgumentNullException"><paramref name="pointer"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="pointer"/> contains a NUL character.</exception>
        [return: Nullable(new byte[] { 2, 1, 1 })]
        public IReadOnlyDictionary<string, string> GetStringMap(string pointer)
        {
            Args.NotNull(pointer, "pointer");
            return handle.With(p =>
            {
                UIntPtr count;
                if (!Present(NativeMethods.verify_reply_member_count(p, pointer, out count)))
                {
                    return null;
                }
                Dictionary<string, string> map = new Dictionary<string, string>(StringComparer.Ordinal);
                for (ulong index = 0; index < count.ToUInt64(); index++)
                {
                    IntPtr name;
                    if (!Present(NativeMethods.verify_reply_member_name(p, pointer, new UIntPtr(index), out name)))
                    {
                        continue; // a name holding a NUL character: not addressable by pointer
                    }
                    string key = Utf8.FromNative(name);
                    IntPtr value;
                    if (Present(NativeMethods.verify_reply_str(p, pointer + Pointer(key), out value)))
                    {
                        map[key] = Utf8.FromNative(value);
                    }
                }
                return (IReadOnlyDictionary<string, string>)new ReadOnlyDictionary<string, string>(map);
            });
        }

        /// <summary>
        /// The value at <paramref name="pointer"/> as JSON text, of any type (an object lists
        /// its keys); "" is the whole reply. Null when absent.
        /// </summary>
        /// <param name="pointer">A JSON Pointer, or null or "" for the whole reply.</param>
        /// <exception cref="ArgumentException"><paramref name="pointer"/> contains a NUL character.</exception>
        [return: Nullable(2)]
        public string GetJson([Nullable(2)] string pointer)
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
        /// <param name="code">A result code.</param>
        public static bool IsConfigurationCode(ResultCode code)
        {
            return ResultCodes.IsConfigurationRefusal(code);
        }

        /// <summary>Throws the refusal of this reply, if it is one.</summary>
        /// <exception cref="VerifyRefusedException">The server refused the call.</exception>
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
}
