using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace Verify
{
    /// <summary>
    /// A cancellation token of the library (<c>verify_cancel</c>), for the former
    /// <see cref="Client.SocialLoginWait(string, string, TimeSpan, TimeSpan, CancelToken)"/>.
    /// Obsolete: every call takes a <see cref="CancellationToken"/>, which cancels it in flight.
    /// </summary>
    /// <remarks>
    /// <see cref="Cancel"/> may be called from any thread, any number of times. Dispose may race
    /// with a wait using the token: the SafeHandle defers verify_cancel_free until the wait
    /// returns; later calls throw <see cref="ObjectDisposedException"/>.
    /// </remarks>
    [NullableContext(1)]
    [Obsolete("Use System.Threading.CancellationToken: every ...Async method and SocialLoginWait take one, and it cancels the call in flight.")]
    public sealed class CancelToken : IDisposable
    {
        private readonly CancelHandle handle;

        /// <summary>A new token, not cancelled (verify_cancel_new).</summary>
        /// <exception cref="VerifyException">The library could not make the token.</exception>
        public CancelToken()
            : this(CancelHandle.Create())
        {
        }

        /// <summary>A token over a handle; disposing either frees it.</summary>
        /// <param name="handle">A cancel token's handle, shared with the token: disposing either frees it.</param>
        /// <exception cref="ArgumentNullException"><paramref name="handle"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="handle"/> is invalid (NULL).</exception>
        /// <exception cref="ObjectDisposedException"><paramref name="handle"/> was disposed.</exception>
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
        /// <exception cref="VerifyException">The library refused the call.</exception>
        /// <exception cref="ObjectDisposedException">The token was disposed.</exception>
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
