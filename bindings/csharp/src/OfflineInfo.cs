using System;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>What an offline verdict knows besides its fields (<see cref="Reply.Offline"/>).</summary>
    [NullableContext(1)]
    public sealed class OfflineInfo
    {
        /// <summary>An offline verdict's info as given.</summary>
        /// <param name="confirmedAt">When the server last confirmed the licence.</param>
        /// <param name="graceEnd">When the offline grace ends.</param>
        /// <param name="reason">The local failure that made the verdict offline.</param>
        public OfflineInfo(DateTimeOffset confirmedAt, DateTimeOffset graceEnd, ResultCode reason)
        {
            ConfirmedAt = confirmedAt;
            GraceEnd = graceEnd;
            Reason = reason;
        }

        /// <summary>When the server last confirmed the licence, at the service's offset (+08:00), as the reply's times.</summary>
        public DateTimeOffset ConfirmedAt { get; private set; }

        /// <summary>When the offline grace period ends, at the service's offset (+08:00), as the reply's times.</summary>
        public DateTimeOffset GraceEnd { get; private set; }

        /// <summary>The local failure that kept the server out of reach; its words are in <see cref="Reply.Message"/>.</summary>
        public ResultCode Reason { get; private set; }
    }
}
