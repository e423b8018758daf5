using System;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>
    /// The server refused the program's configuration, not a licence: 1001 (program not found),
    /// 1010 (signature error), 1011 (AppKey wrong) or 1012 (program not approved). The
    /// developer fixes these (the AppId, the AppKey, the back office), not the user.
    /// </summary>
    [NullableContext(1)]
    public class VerifyConfigurationException : VerifyRefusedException
    {
        /// <summary>A configuration refusal with its code, the server's message, remark and reply.</summary>
        /// <param name="code">The server's code.</param>
        /// <param name="serverMessage">The server's message, as it sent it.</param>
        /// <param name="remark"><c>/data/remark</c> of the refusal, or null.</param>
        /// <param name="replyJson">The whole reply as JSON, or null.</param>
        public VerifyConfigurationException(ResultCode code, string serverMessage, [Nullable(2)] string remark, [Nullable(2)] string replyJson)
            : base(code, serverMessage, remark, replyJson)
        {
        }
    }
}
