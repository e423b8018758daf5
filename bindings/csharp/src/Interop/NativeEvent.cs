using System;
using System.Runtime.InteropServices;

namespace Verify
{
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
}
