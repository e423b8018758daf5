using System;

namespace Verify
{
    /// <summary>
    /// The server refused the program's configuration, not a licence: 1001 (program not found),
    /// 1010 (signature error), 1011 (AppKey wrong) or 1012 (program not approved). The
    /// developer fixes these (the AppId, the AppKey, the back office), not the user.
    /// </summary>
    public class VerifyConfigurationException : VerifyRefusedException
    {
        /// <summary>A configuration refusal with its code, the server's message, remark and reply.</summary>
        public VerifyConfigurationException(ResultCode code, string serverMessage, string remark, string replyJson)
            : base(code, serverMessage, remark, replyJson)
        {
        }
    }
}
