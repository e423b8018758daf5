using System;

namespace Verify
{
    /// <summary>
    /// The server refused a call: its <see cref="VerifyException.Code"/> (1003 wrong password,
    /// 1004 card invalid, 1006 banned, ...), its <see cref="ServerMessage"/> and
    /// <see cref="Remark"/> (the reason of a ban, the previously bound machine code). Thrown by
    /// <see cref="Reply.EnsureOk"/>, and by every call of a client made with
    /// <see cref="ClientOptions.ThrowOnRefusal"/>. A refusal of the program's configuration
    /// (1001, 1010, 1011, 1012) is the subclass <see cref="VerifyConfigurationException"/>.
    /// </summary>
    public class VerifyRefusedException : VerifyException
    {
        /// <summary>A refusal with its code, the server's message, remark and reply.</summary>
        public VerifyRefusedException(ResultCode code, string serverMessage, string remark, string replyJson)
            : base(code, Describe(code, serverMessage), replyJson)
        {
            ServerMessage = serverMessage ?? string.Empty;
            Remark = remark;
        }

        /// <summary>The server's message, as it sent it (localized; may be empty).</summary>
        public string ServerMessage { get; private set; }

        /// <summary><c>/data/remark</c> of the refusal: the reason of a ban (1006), the previously bound machine code (1022); or null.</summary>
        public string Remark { get; private set; }

        /// <summary>Whether the program's configuration was refused (1001, 1010, 1011, 1012) rather than a licence.</summary>
        public bool IsConfiguration
        {
            get { return Reply.IsConfigurationCode(Code); }
        }

        /// <summary>The refusal of a reply: a <see cref="VerifyConfigurationException"/> for 1001, 1010, 1011 and 1012.</summary>
        internal static VerifyRefusedException Of(Reply reply)
        {
            ResultCode code = reply.Code;
            string json = reply.Json;
            if (Reply.IsConfigurationCode(code))
            {
                return new VerifyConfigurationException(code, reply.Message, reply.Remark, json);
            }
            return new VerifyRefusedException(code, reply.Message, reply.Remark, json);
        }

        private static string Describe(ResultCode code, string serverMessage)
        {
            string text = string.Format("{0} {1}", (int)code, Library.Describe(code));
            return string.IsNullOrEmpty(serverMessage) ? text : text + ": " + serverMessage;
        }
    }
}
