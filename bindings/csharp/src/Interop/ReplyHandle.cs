using System;
using System.Runtime.InteropServices;

namespace Verify
{
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
}
