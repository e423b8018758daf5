using System;
using System.Runtime.CompilerServices;

namespace Verify
{
    // The hand-written part of CancelHandle (Generated/CancelHandle.g.cs): making a token.
    public sealed partial class CancelHandle
    {
        /// <summary>A new token (verify_cancel_new); the caller owns it.</summary>
        /// <exception cref="VerifyException">The library could not make the token.</exception>
        public static CancelHandle Create()
        {
            Library.CheckAbi(); // a missing native library: DllNotFoundException with what to do
            CancelHandle created;
            int code = NativeMethods.verify_cancel_new(out created);
            return Args.Created(code, created);
        }
    }
}
