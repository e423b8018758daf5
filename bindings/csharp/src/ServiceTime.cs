using System;
using System.Globalization;

namespace Verify
{
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

        /// <summary>The instant <paramref name="seconds"/> (Unix seconds) at the service's offset, +08:00.</summary>
        /// <param name="seconds">Seconds since 1970-01-01 00:00:00 UTC.</param>
        /// <exception cref="ArgumentOutOfRangeException">Before year 1 or after year 9999.</exception>
        public static DateTimeOffset FromUnixSeconds(long seconds)
        {
            return DateTimeOffset.FromUnixTimeSeconds(seconds).ToOffset(Offset);
        }

        /// <summary><paramref name="time"/> as the service writes it: <c>YYYY-MM-DD HH:mm:ss</c> in UTC+08:00.</summary>
        public static string Format(DateTimeOffset time)
        {
            return time.ToOffset(Offset).ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture);
        }
    }
}
