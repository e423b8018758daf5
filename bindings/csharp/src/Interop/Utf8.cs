using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Verify
{
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
}
