using System;
using System.Runtime.InteropServices;

namespace Verify
{
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
}
