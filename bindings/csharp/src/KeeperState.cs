using System;

namespace Verify
{
    /// <summary>
    /// The state of a kept session (VERIFY_KEEPER_*). Later versions of the library may add
    /// states: a value not named here is kept as its number (never mapped to another state);
    /// treat it as "not alive" (<see cref="Keeper.IsAlive"/> does).
    /// </summary>
    public enum KeeperState
    {
        /// <summary>The last heartbeat succeeded (or none was due yet).</summary>
        Alive = 1,

        /// <summary>Heartbeats fail for another reason than the session's end; the grace period runs; the session stays usable.</summary>
        Grace = 2,

        /// <summary>The session ended, or the keeper was stopped (or its client disposed).</summary>
        Ended = 3,
    }
}
