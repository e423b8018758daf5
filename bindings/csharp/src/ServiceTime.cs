using System;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>
    /// The service's times: <c>YYYY-MM-DD HH:mm:ss</c> in Beijing time, UTC+08:00, written
    /// without an offset; read as a <see cref="DateTimeOffset"/> with that offset.
    /// </summary>
    [NullableContext(1)]
    public static class ServiceTime
    {
        /// <summary>The offset of every time the service writes: UTC+08:00 (no daylight saving).</summary>
        public static readonly TimeSpan Offset = TimeSpan.FromHours(8);

        /// <summary>
        /// <paramref name="text"/> (<c>YYYY-MM-DD HH:mm:ss</c>) as a time with the +08:00 offset,
        /// or null for null, "" or any other form. The library reads it (verify_service_time):
        /// the binding never parses the service's format itself.
        /// </summary>
        /// <param name="text">The service's text of a time, or null.</param>
        public static DateTimeOffset? Parse([Nullable(2)] string text)
        {
            if (string.IsNullOrEmpty(text) || text.IndexOf('\0') >= 0)
            {
                return null;
            }
            long seconds = 0;
            int offset = 0;
            int code = Loader.Call(() => NativeMethods.verify_service_time(text, out seconds, out offset));
            return code == 0 ? At(seconds, offset) : (DateTimeOffset?)null;
        }

        /// <summary>The instant <paramref name="seconds"/> at the offset the service wrote it in.</summary>
        internal static DateTimeOffset? At(long seconds, int offsetSeconds)
        {
            return DateTimeOffset.FromUnixTimeSeconds(seconds).ToOffset(TimeSpan.FromSeconds(offsetSeconds));
        }

        /// <summary>The instant <paramref name="seconds"/> (Unix seconds) at the service's offset, +08:00.</summary>
        /// <param name="seconds">Seconds since 1970-01-01 00:00:00 UTC.</param>
        /// <exception cref="ArgumentOutOfRangeException">Before year 1 or after year 9999.</exception>
        public static DateTimeOffset FromUnixSeconds(long seconds)
        {
            return DateTimeOffset.FromUnixTimeSeconds(seconds).ToOffset(Offset);
        }

        /// <summary><paramref name="time"/> as the service writes it: <c>YYYY-MM-DD HH:mm:ss</c> in UTC+08:00.</summary>
        /// <param name="time">Any time; it is converted to UTC+08:00.</param>
        public static string Format(DateTimeOffset time)
        {
            return time.ToOffset(Offset).ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture);
        }
    }
}
