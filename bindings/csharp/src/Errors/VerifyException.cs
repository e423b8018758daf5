using System;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>
    /// A failure of a call. Thrown as it is for local failures, where no answer of the server
    /// exists: a negative <see cref="ResultCode"/> (network, timeout, TLS, protocol, cancelled,
    /// system, ...). Its subclass <see cref="VerifyRefusedException"/> is a refusal by the
    /// server (thrown by <see cref="Reply.EnsureOk"/> or with
    /// <see cref="ClientOptions.ThrowOnRefusal"/>), so one <c>catch (VerifyException)</c>
    /// handles both.
    /// </summary>
    [NullableContext(1)]
    public class VerifyException : Exception
    {
        /// <summary>A failure with its code and the library's message.</summary>
        /// <param name="code">The result code.</param>
        /// <param name="message">What went wrong.</param>
        /// <param name="replyJson">The whole reply as JSON when the server answered, or null.</param>
        public VerifyException(ResultCode code, string message, [Nullable(2)] string replyJson = null)
            : base(message)
        {
            Code = code;
            ReplyJson = replyJson;
        }

        /// <summary>A failure with its code, message and cause.</summary>
        /// <param name="code">The result code.</param>
        /// <param name="message">What went wrong.</param>
        /// <param name="innerException">The exception that caused it, or null.</param>
        public VerifyException(ResultCode code, string message, [Nullable(2)] Exception innerException)
            : base(message, innerException)
        {
            Code = code;
        }

        /// <summary>The result code: negative for local failures, the server's code for a refusal.</summary>
        public ResultCode Code { get; private set; }

        /// <summary>
        /// The whole reply as JSON when the server did answer (a refusal, or a
        /// <see cref="ResultCode.Protocol"/> failure); else null.
        /// </summary>
        [Nullable(2)]
        public string ReplyJson { get; private set; }

        /// <summary>The failure of the calling thread's last call, as the library recorded it.</summary>
        internal static VerifyException FromLastError(ResultCode code, string replyJson = null)
        {
            // The library's message already names the failure and its code.
            string message = Library.ThreadLastErrorMessage;
            if (string.IsNullOrEmpty(message) || Library.ThreadLastErrorCode != (int)code)
            {
                message = string.Format("{0} ({1})", Library.Describe(code), (int)code);
            }
            return new VerifyException(code, message, replyJson);
        }
    }
}
