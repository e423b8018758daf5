using System;
using System.Runtime.InteropServices;

namespace Verify
{
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
}
