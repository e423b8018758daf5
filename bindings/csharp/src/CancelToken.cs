using System;
using System.Runtime.InteropServices;
using System.Threading;

namespace Verify
{
    /// <summary>
    /// A cancellation token of the library (<c>verify_cancel</c>) for
    /// <see cref="Client.SocialLoginWait"/>. <see cref="Client.SocialLoginWaitAsync"/> makes one
    /// from a <see cref="CancellationToken"/> by itself.
    /// </summary>
    /// <remarks>
    /// <see cref="Cancel"/> may be called from any thread, any number of times. Dispose may race
    /// with a wait using the token: the SafeHandle defers verify_cancel_free until the wait
    /// returns; later calls throw <see cref="ObjectDisposedException"/>.
    /// </remarks>
    public sealed class CancelToken : IDisposable
    {
        private readonly CancelHandle handle;

        /// <summary>A new token, not cancelled (verify_cancel_new).</summary>
        public CancelToken()
            : this(CancelHandle.Create())
        {
        }

        /// <summary>A token over a handle; disposing either frees it.</summary>
        public CancelToken(CancelHandle handle)
        {
            Args.Usable(handle, "handle");
            this.handle = handle;
        }

        /// <summary>The underlying handle, for calls this class does not wrap.</summary>
        public CancelHandle Handle
        {
            get { return handle; }
        }

        /// <summary>
        /// Cancels (verify_cancel_cancel): a wait using this token throws
        /// <see cref="VerifyException"/> with <see cref="ResultCode.Cancelled"/> within
        /// milliseconds, and later waits with it throw at once. Any thread.
        /// </summary>
        public void Cancel()
        {
            Args.Ok(NativeMethods.verify_cancel_cancel(handle));
        }

        /// <summary>Frees the token (verify_cancel_free) once no wait is using it any more.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }
    }
}
