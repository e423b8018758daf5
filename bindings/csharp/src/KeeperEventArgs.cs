using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Verify
{
    /// <summary>
    /// One event of a <see cref="Keeper"/>, copied out of the library's <c>verify_event</c>:
    /// it stays valid after the handler returns.
    /// </summary>
    [NullableContext(1)]
    public sealed class KeeperEventArgs : EventArgs
    {
        /// <summary>An event as given (for hosts that test their handlers); <paramref name="expireAt"/> is the service's text.</summary>
        /// <param name="kind">What happened.</param>
        /// <param name="code">The heartbeat's code.</param>
        /// <param name="message">The server's message or the local failure's explanation (null is taken as "").</param>
        /// <param name="remark">The remark of a refusal, or null.</param>
        /// <param name="expireAt">The session's expiry as the server wrote it, or null.</param>
        /// <param name="text">The back-office message's text of a Message event, or null.</param>
        /// <param name="graceEnd">When the grace period ends, or null.</param>
        public KeeperEventArgs(EventKind kind, ResultCode code, string message, [Nullable(2)] string remark,
            [Nullable(2)] string expireAt, [Nullable(2)] string text, DateTimeOffset? graceEnd = null)
        {
            Kind = kind;
            Code = code;
            Message = message ?? string.Empty;
            Remark = remark;
            ExpireAtText = expireAt;
            ExpireAt = ServiceTime.Parse(expireAt);
            Notice = text;
            GraceEnd = graceEnd;
        }

        /// <summary>What happened; a kind of a later library is kept as its number.</summary>
        public EventKind Kind { get; private set; }

        /// <summary>The heartbeat's code: 200, the server's refusal, or a negative local code.</summary>
        public ResultCode Code { get; private set; }

        /// <summary>The server's message or the local failure's explanation (may be empty; never null).</summary>
        public string Message { get; private set; }

        /// <summary>The remark of a refusal (the reason of a 1006), or null.</summary>
        [Nullable(2)]
        public string Remark { get; private set; }

        /// <summary>The session's expiry on <see cref="EventKind.Alive"/> and <see cref="EventKind.Online"/> (the service's time, UTC+08:00), else null.</summary>
        public DateTimeOffset? ExpireAt { get; private set; }

        /// <summary>The session's expiry as the server wrote it (<c>YYYY-MM-DD HH:mm:ss</c>, UTC+08:00), else null.</summary>
        [Nullable(2)]
        public string ExpireAtText { get; private set; }

        /// <summary>
        /// The back-office message (a notice the program's author left for this card or
        /// account) on a <see cref="EventKind.Message"/> event (<see cref="Keeper.NoticeReceived"/>),
        /// else null. <see cref="Message"/> is always the heartbeat's own message, as on a reply.
        /// </summary>
        [Nullable(2)]
        public string Notice { get; private set; }

        /// <summary>The former name of <see cref="Notice"/>: the same value.</summary>
        [Obsolete("Use Notice: the back-office message (Message is the heartbeat's own message).")]
        [Nullable(2)]
        public string MessageText
        {
            get { return Notice; }
        }

        /// <summary>The first name of <see cref="Notice"/>: the same value.</summary>
        [Obsolete("Use Notice: the back-office message (Message is the heartbeat's own message).")]
        [Nullable(2)]
        public string Text
        {
            get { return Notice; }
        }

        /// <summary>
        /// When the grace period ends, on <see cref="EventKind.Offline"/> (and on Trouble and
        /// Ended while offline), else null; at the service's offset (+08:00), as <see cref="ExpireAt"/>.
        /// </summary>
        public DateTimeOffset? GraceEnd { get; private set; }

        /// <summary>Kind, code and the detail that applies (text, remark, expiry or message).</summary>
        public override string ToString()
        {
            string detail = Notice ?? Remark ?? ExpireAtText ?? Message;
            return string.Format("{0} {1} {2}", Kind, (int)Code, detail);
        }

        /// <summary>Copies a borrowed <c>const verify_event *</c>.</summary>
        internal static KeeperEventArgs FromNative(IntPtr native)
        {
            NativeEvent e = Marshal.PtrToStructure<NativeEvent>(native);
            return new KeeperEventArgs((EventKind)e.Kind, (ResultCode)e.Code, Utf8.FromNative(e.Message),
                Utf8.FromNative(e.Remark), Utf8.FromNative(e.ExpireAt), Utf8.FromNative(e.Text),
                e.GraceEnd == 0 ? (DateTimeOffset?)null : ServiceTime.FromUnixSeconds(e.GraceEnd));
        }
    }
}
