using System;

namespace Verify
{
    /// <summary>
    /// What a <see cref="KeeperEventArgs"/> reports (VERIFY_EVENT_*). Later versions may add kinds:
    /// a value not named here is kept as its number; ignore the kinds you do not know.
    /// </summary>
    public enum EventKind
    {
        /// <summary>A heartbeat succeeded: <see cref="KeeperEventArgs.ExpireAt"/> is the session's expiry.</summary>
        Alive = 1,

        /// <summary>A back-office message, in <see cref="KeeperEventArgs.Text"/>, delivered once.</summary>
        Message = 2,

        /// <summary>
        /// A heartbeat failed for another reason than the session's end (network down, a reply
        /// that is not the service's); the keeper retries within the grace period and the session
        /// stays usable.
        /// </summary>
        Trouble = 3,

        /// <summary>
        /// The session ended: 1005 (expired), 1006 (disabled; <see cref="KeeperEventArgs.Remark"/> is
        /// the reason), 1007 (token invalid), the grace period ran out, or
        /// <see cref="ResultCode.Panic"/> when the keeper's thread failed. The keeper has stopped.
        /// Offline, also a refusal of the login sent again, or <see cref="ResultCode.GraceOver"/>.
        /// </summary>
        Ended = 4,

        /// <summary>
        /// Offline verdicts on: the server cannot be reached; the session goes on offline until
        /// <see cref="KeeperEventArgs.GraceEnd"/>. Also the first event of a keeper started from an
        /// offline verdict.
        /// </summary>
        Offline = 5,

        /// <summary>
        /// Offline verdicts on: the server confirmed the licence again (or for the first time
        /// after an offline start): <see cref="KeeperEventArgs.ExpireAt"/> is its expiry.
        /// </summary>
        Online = 6,
    }
}
