using System;

namespace Verify
{
    /// <summary>What an offline verdict knows besides its fields (<see cref="Reply.Offline"/>).</summary>
    public sealed class OfflineInfo
    {
        /// <summary>An offline verdict's info as given.</summary>
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
