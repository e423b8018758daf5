using System;

namespace Verify
{
    /// <summary>The session a heartbeat or keeper keeps alive (VERIFY_SESSION_*).</summary>
    public enum SessionKind
    {
        /// <summary>A card-mode session: the token of <see cref="Client.SingleLogin"/>.</summary>
        Card = 1,

        /// <summary>An account session: the token of <see cref="Client.UserLogin"/> or of a social login.</summary>
        User = 2,
    }
}
